"""What the writes of the features' services (``skills_app.catalog.services``, ``skills_app.releases.services`` …) record, with exact values:
who changed a skill, what a saved access profile or stage holds, which runtime key a revoke
touches and in what order keys are listed. Each test here was added for a change that mutation
testing showed no test noticed (docs/testing.md)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from skills_app import models
from skills_app.catalog import services as catalog_services
from skills_app.keys.selectors import api_key_list
from skills_app.keys.services import api_key_create, api_key_revoke
from skills_app.mcp import services as mcp_services
from skills_app.models import AccessProfile, Release, ReleaseLabel, RuntimeKey, Skill, Stage
from skills_app.releases.services import COMMAND_LINE, label_move, release_publish
from skills_app.simulation import services as simulation_services

NEW_SKILL = {
    "skill_code": "refund_help",
    "name": "退款说明",
    "description": "用户询问退款时加载",
    "content": "# 退款\n先查订单。",
    "tool_ids": ["query_after_sale"],
}


@pytest.fixture
def editor(django_user_model):
    return django_user_model.objects.create_user(username="editor", password="pw-123456", is_staff=True)


def test_disabling_a_skill_records_who_disabled_it(bitmall, editor) -> None:
    skill = Skill.objects.live().get(skill_code="order_change")
    catalog_services.skill_set_enabled(skill=skill, enabled=False, user=editor)
    stored = Skill.objects.get(pk=skill.pk)
    assert (stored.enabled, stored.version, stored.updated_by) == (
        False,
        1,
        editor,
    )  # a disable keeps the version (docs/roles.md)


def test_a_stage_is_saved_with_its_name_description_and_tools_in_order(bitmall) -> None:
    stage = catalog_services.stage_save(name="browse", description="只看不买", tools=["search_product", "query_order"])
    stored = Stage.objects.get(pk=stage.pk)
    assert (stored.name, stored.description, stored.tools) == ("browse", "只看不买", ["search_product", "query_order"])
    assert not AccessProfile.objects.filter(name="browse").exists()
    catalog_services.stage_save(name="browse", tools=["search_product"])
    assert Stage.objects.get(pk=stage.pk).description == ""


def test_an_access_profile_is_saved_and_saving_it_again_replaces_it(bitmall) -> None:
    catalog_services.access_profile_save(name="reader", description="read only", tools=["query_order"])
    again = catalog_services.access_profile_save(name="reader", tools=["query_cart", "query_order"])
    stored = AccessProfile.objects.get(name="reader")
    assert (stored.pk, stored.description, stored.tools) == (again.pk, "", ["query_cart", "query_order"])
    assert not Stage.objects.filter(name="reader").exists()


def test_a_stage_naming_an_unregistered_tool_is_refused_naming_it(bitmall) -> None:
    with pytest.raises(ValidationError) as refused:
        catalog_services.stage_save(name="browse", tools=["search_product", "no_such_tool"])
    assert refused.value.message_dict == {"tools": ["'no_such_tool' is not a registered MCP tool."]}
    assert [(e.code, e.params) for e in refused.value.error_dict["tools"]] == [
        ("tool_not_registered", {"tool_id": "no_such_tool"})
    ]
    assert not Stage.objects.filter(name="browse").exists()


def test_a_refused_skill_keeps_the_code_and_value_a_page_translates_by(bitmall) -> None:
    """``message_catalog.translate_error`` renders the Chinese message from the error's code and params."""
    with pytest.raises(ValidationError) as refused:
        catalog_services.skill_create(
            skill_code="refund_help",
            name="退款说明",
            description="退款时加载",
            content="# 退款",
            tool_ids=["query_order", "load_skill"],
        )
    [error] = refused.value.error_dict["tool_ids"]
    assert (error.code, error.params) == ("tool_id_builtin", {"tool_id": "load_skill"})


def test_revoking_a_key_revokes_that_key_only(db) -> None:
    api_key_create(user=COMMAND_LINE, name="ragent")
    api_key_create(user=COMMAND_LINE, name="batch")
    assert api_key_revoke(user=COMMAND_LINE, name="ragent") == 1
    assert dict(RuntimeKey.objects.values_list("name", "revoked")) == {"ragent": True, "batch": False}


def test_revoking_an_unknown_key_names_it_on_the_name_field(db) -> None:
    with pytest.raises(ValidationError) as refused:
        api_key_revoke(user=COMMAND_LINE, name="ghost")
    assert refused.value.message_dict == {"name": ["no usable key named 'ghost'."]}
    assert refused.value.error_dict["name"][0].code == "key_not_found"


def test_keys_are_listed_usable_first_then_newest_first(db) -> None:
    for name in ("first", "second", "third"):
        api_key_create(user=COMMAND_LINE, name=name)
    api_key_revoke(user=COMMAND_LINE, name="third")
    assert [(k.name, k.revoked) for k in api_key_list()] == [("second", False), ("first", False), ("third", True)]


@pytest.mark.parametrize(
    ("write", "field", "code", "message"),
    [
        (
            lambda: release_publish(user=COMMAND_LINE, note="  "),
            "note",
            "note_required",
            "a release needs a note: what changed and why.",
        ),
        (
            lambda: release_publish(user=COMMAND_LINE, note="n", overrides=["scenario:x"]),
            "override_note",
            "override_note_required",
            "write why the ticked-off expectations may stay unmet.",
        ),
        (
            lambda: label_move(user=COMMAND_LINE, label="staging", number=9),
            "release",
            "release_not_found",
            "release 9 does not exist.",
        ),
        (lambda: api_key_create(user=COMMAND_LINE, name=" "), "name", "key_name_required", "a key needs a name."),
        (
            lambda: api_key_create(user=COMMAND_LINE, name="test-runtime"),
            "name",
            "key_name_taken",
            "a key named 'test-runtime' already exists; revoke it first or pick another name.",
        ),
        (
            lambda: api_key_create(user=COMMAND_LINE, name="a\x00b"),
            "name",
            "key_name_control",
            "a key name cannot contain a control character (U+0000).",
        ),
        (
            lambda: api_key_create(user=COMMAND_LINE, name="ring\x07"),
            "name",
            "key_name_control",
            "a key name cannot contain a control character (U+0007).",
        ),
        (
            lambda: api_key_revoke(user=COMMAND_LINE, name="test-runtime\x00"),
            "name",
            "key_not_found",
            "no usable key named 'test-runtime\x00'.",
        ),
    ],
    ids=[
        "blank note",
        "override without a reason",
        "label to a missing release",
        "blank key name",
        "key name in use",
        "NUL in a key name",
        "bell in a key name",
        "NUL in a key to revoke",
    ],
)
def test_a_refused_release_write_names_the_field_and_code(runtime_key, write, field, code, message) -> None:
    with pytest.raises(ValidationError) as refused:
        write()
    assert refused.value.message_dict == {field: [message]}
    assert [e.code for e in refused.value.error_dict[field]] == [code]
    assert (Release.objects.count(), ReleaseLabel.objects.count(), RuntimeKey.objects.count()) == (0, 0, 1)


def test_deleting_and_restoring_record_who_did_it(bitmall, editor) -> None:
    skill = Skill.objects.live().get(skill_code="order_change")
    catalog_services.skill_delete(skill=skill, user=editor)
    assert Skill.objects.get(pk=skill.pk).updated_by == editor
    catalog_services.skill_restore(skill=skill, user=editor)
    stored = Skill.objects.get(pk=skill.pk)
    assert (stored.deleted_at, stored.version, stored.updated_by) == (None, 1, editor)


def test_a_delete_or_restore_from_the_command_line_records_no_user(bitmall, editor) -> None:
    """``manage.py`` acts as ``COMMAND_LINE``, which has no row: ``updated_by`` is cleared."""
    skill = Skill.objects.live().get(skill_code="order_change")
    catalog_services.skill_update(skill=skill, name="订单修改（改）", user=editor)
    catalog_services.skill_delete(skill=skill, user=COMMAND_LINE)
    assert Skill.objects.get(pk=skill.pk).updated_by is None
    Skill.objects.filter(pk=skill.pk).update(updated_by=editor)
    catalog_services.skill_restore(skill=skill, user=COMMAND_LINE)
    assert Skill.objects.get(pk=skill.pk).updated_by is None


def test_a_header_saved_after_the_settings_row_was_removed_is_the_one_read(bitmall) -> None:
    """``load_demo`` replaces the settings row; the next header saved must land in the row the
    catalog reads (``ConsoleSettings.current``: pk 1), not in a new row nobody reads."""
    from skills_app.catalog import selectors
    from skills_app.models import ConsoleSettings

    ConsoleSettings.objects.all().delete()
    catalog_services.load_skill_header_set(header="先加载手册")
    assert list(ConsoleSettings.objects.values_list("pk", "load_skill_header")) == [(1, "先加载手册")]
    assert selectors.catalog_draft().load_skill_header == "先加载手册"


@pytest.mark.parametrize(
    ("header", "stored"),
    [
        ("第一行\r\n第二行", "第一行\n第二行"),
        ("第一行\r第二行\r", "第一行\n第二行"),
        ("第一行\n\n第二行 \n\n", "第一行\n\n第二行"),
    ],
    ids=["CRLF", "bare CR", "trailing blank lines"],
)
def test_a_header_is_stored_with_newline_line_endings(db, header, stored) -> None:
    assert catalog_services.load_skill_header_set(header=header).load_skill_header == stored


def test_an_update_naming_a_field_that_is_not_editable_is_refused_and_saves_nothing(bitmall) -> None:
    skill = Skill.objects.live().get(skill_code="order_change")
    with pytest.raises(ValidationError) as refused:
        catalog_services.skill_update(skill=skill, name="新名字", version=9, deleted_at=None)
    assert refused.value.message_dict == {
        "deleted_at": ["not an editable field."],
        "version": ["not an editable field."],
    }
    assert [e.code for e in refused.value.error_dict["version"]] == ["not_editable"]
    stored = Skill.objects.get(pk=skill.pk)
    assert (stored.name, stored.version) == (skill.name, 1)


def test_a_skill_created_without_a_sort_order_sorts_at_0_enabled_at_version_1(bitmall) -> None:
    created = catalog_services.skill_create(**NEW_SKILL)
    stored = Skill.objects.get(pk=created.pk)
    assert (stored.sort_order, stored.enabled, stored.version, stored.deleted_at) == (0, True, 1, None)


def test_a_skill_created_by_a_user_names_them_as_its_editor_and_in_its_history(bitmall, editor) -> None:
    created = catalog_services.skill_create(**NEW_SKILL, sort_order=7, user=editor)
    stored = Skill.objects.get(pk=created.pk)
    assert (stored.sort_order, stored.updated_by) == (7, editor)
    assert [(r.history_type, r.history_user, r.version) for r in stored.history.all()] == [("+", editor, 1)]


def test_a_skill_created_from_the_command_line_records_no_user(bitmall) -> None:
    """``manage.py`` acts as ``COMMAND_LINE``, which has no row: no editor, no history user."""
    created = catalog_services.skill_create(**NEW_SKILL, user=COMMAND_LINE)
    stored = Skill.objects.get(pk=created.pk)
    assert stored.updated_by is None
    assert [(r.history_type, r.history_user) for r in stored.history.all()] == [("+", None)]


def test_a_create_that_loses_the_race_for_its_code_is_refused_as_taken(bitmall, monkeypatch) -> None:
    """Another request created the code between this one's check and its insert (PostgreSQL):
    the unique constraint refuses it with the same ``skill_code_taken`` as the check, not a 500."""
    monkeypatch.setattr(
        catalog_services, "_check_code_free", lambda code: None
    )  # the check passed before the other commit
    with pytest.raises(ValidationError) as refused:
        catalog_services.skill_create(**{**NEW_SKILL, "skill_code": "order_change"})
    assert refused.value.message_dict == {"skill_code": ["a live skill with code 'order_change' already exists."]}
    assert [(e.code, e.params) for e in refused.value.error_dict["skill_code"]] == [
        ("skill_code_taken", {"code": "order_change"})
    ]
    assert Skill.objects.filter(skill_code="order_change").count() == 1


def test_the_builtin_tools_are_registered_in_order_1_2_3_and_ensuring_again_repairs_them(db) -> None:
    from skills_app.models import BuiltinTool

    first = catalog_services.builtin_tools_ensure()
    BuiltinTool.objects.filter(name="flush_memory").update(description="改坏了", sort_order=9, parameters={})
    again = catalog_services.builtin_tools_ensure()
    assert [t.pk for t in again] == [t.pk for t in first]
    assert list(BuiltinTool.objects.order_by("sort_order").values_list("name", "sort_order")) == [
        ("search_knowledge", 1),
        ("load_skill", 2),
        ("flush_memory", 3),
    ]
    assert [(t.name, t.description, t.parameters) for t in BuiltinTool.objects.order_by("sort_order")] == [
        (name, description, params) for name, description, params in catalog_services.BUILTIN_TOOLS
    ]


def test_confirming_a_tool_records_the_choice_who_set_it_and_when(bitmall, editor) -> None:
    from django.utils import timezone

    from skills_app.models import McpTool

    tool = McpTool.objects.get(name="cancel_order")
    McpTool.objects.filter(pk=tool.pk).update(description="changed meanwhile")
    before = timezone.now()
    saved = mcp_services.mcp_tool_set_confirm(tool=tool, require_confirm=True, user=editor)
    stored = McpTool.objects.get(pk=tool.pk)
    assert (stored.require_confirm_override, stored.confirm_set_by, stored.description) == (
        True,
        "editor",
        "changed meanwhile",
    )
    assert before <= stored.confirm_set_at <= timezone.now()
    assert (saved.require_confirm_override, saved.confirm_set_by, saved.confirm_set_at) == (
        True,
        "editor",
        stored.confirm_set_at,
    )


@pytest.mark.parametrize(
    ("user", "choice", "recorded_by"),
    [
        (None, False, "command"),
        (COMMAND_LINE, None, "manage.py"),
        (object(), True, ""),
    ],
    ids=["no user", "the command line, back to the annotations", "an actor without a name"],
)
def test_a_confirmation_set_without_a_console_user_names_where_it_came_from(bitmall, user, choice, recorded_by) -> None:
    from skills_app.models import McpTool

    tool = McpTool.objects.get(name="cancel_order")
    McpTool.objects.filter(pk=tool.pk).update(require_confirm_override=not choice, confirm_set_by="someone")
    mcp_services.mcp_tool_set_confirm(tool=tool, require_confirm=choice, user=user)
    stored = McpTool.objects.get(pk=tool.pk)
    assert (stored.require_confirm_override, stored.confirm_set_by) == (choice, recorded_by)
    assert stored.confirm_set_at is not None


def test_an_mcp_server_is_saved_with_exactly_the_values_given(db) -> None:
    from skills_app.models import McpServer

    server = mcp_services.mcp_server_save(
        name="shop",
        transport=McpServer.Transport.STDIO,
        command="  python  ",
        args=("-m", "shop"),
        env={"TOKEN": "t-1"},
        url="  ",
        headers={"X-Key": "k-1"},
        timeout_seconds=30,
        enabled=False,
    )
    stored = McpServer.objects.get(pk=server.pk)
    assert (
        stored.name,
        stored.transport,
        stored.command,
        stored.args,
        stored.env,
        stored.url,
        stored.headers,
        stored.timeout_seconds,
        stored.enabled,
    ) == ("shop", "stdio", "python", ["-m", "shop"], {"TOKEN": "t-1"}, "", {"X-Key": "k-1"}, 30.0, False)
    default = mcp_services.mcp_server_save(name="web", transport=McpServer.Transport.HTTP, url=" https://mcp.example/ ")
    stored = McpServer.objects.get(pk=default.pk)
    assert (
        stored.command,
        stored.args,
        stored.env,
        stored.url,
        stored.headers,
        stored.timeout_seconds,
        stored.enabled,
    ) == ("", [], {}, "https://mcp.example/", {}, 20.0, True)


def test_saving_an_mcp_server_with_masked_secrets_keeps_the_stored_ones(db) -> None:
    """A page posts ``SECRET_MASK`` back for a header or env value it did not change."""
    from skills_app.models import SECRET_MASK, McpServer

    server = mcp_services.mcp_server_save(
        name="web",
        transport=McpServer.Transport.HTTP,
        url="https://mcp.example/",
        headers={"Authorization": "Bearer s-1", "X-Team": "a"},
        env={"K": "v-1"},
        timeout_seconds=45,
    )
    mcp_services.mcp_server_save(
        name="web",
        transport=McpServer.Transport.HTTP,
        url="https://mcp.example/v2",
        headers={"Authorization": SECRET_MASK, "X-Team": "b"},
        env={"K": SECRET_MASK},
        instance=server,
    )
    stored = McpServer.objects.get(pk=server.pk)
    assert (stored.url, stored.headers, stored.env, stored.timeout_seconds) == (
        "https://mcp.example/v2",
        {"Authorization": "Bearer s-1", "X-Team": "b"},
        {"K": "v-1"},
        45.0,
    )
    assert McpServer.objects.count() == 1


def test_a_mask_standing_for_no_stored_value_is_refused_naming_each_entry_and_nothing_is_lost(db) -> None:
    """Renaming a masked header (``Authorization`` → ``authorization``) or masking a new one used
    to save it empty: the token was gone without a word and the next sync failed with the
    server's bare 401. Now the save is refused, naming each entry, and the record is unchanged."""
    from skills_app.models import SECRET_MASK, McpServer

    server = mcp_services.mcp_server_save(
        name="web",
        transport=McpServer.Transport.HTTP,
        url="https://mcp.example/",
        headers={"Authorization": "Bearer s-1"},
        env={"K": "v-1"},
    )
    with pytest.raises(ValidationError) as refused:
        mcp_services.mcp_server_save(
            name="web",
            transport=McpServer.Transport.HTTP,
            url="https://mcp.example/v2",
            headers={"authorization": SECRET_MASK, "X-New": SECRET_MASK, "X-Team": "b"},
            env={"K": SECRET_MASK},
            instance=server,
        )
    said = "stands for a stored value, but none is stored under this name; type the value"
    assert refused.value.message_dict == {
        "headers": [f"'authorization': {SECRET_MASK} {said}", f"'X-New': {SECRET_MASK} {said}"]
    }
    assert [e.code for e in refused.value.error_dict["headers"]] == ["secret_mask_unknown"] * 2
    stored = McpServer.objects.get(pk=server.pk)
    assert (stored.url, stored.headers, stored.env) == (
        "https://mcp.example/",
        {"Authorization": "Bearer s-1"},
        {"K": "v-1"},
    )
    with pytest.raises(ValidationError) as refused:
        mcp_services.mcp_server_save(
            name="fresh", transport=McpServer.Transport.STDIO, command="python", env={"TOKEN": SECRET_MASK}
        )
    assert refused.value.message_dict == {"env": [f"'TOKEN': {SECRET_MASK} {said}"]}
    assert not McpServer.objects.filter(name="fresh").exists()


def test_an_mcp_server_keeps_its_name_and_a_refused_save_changes_nothing(db) -> None:
    from skills_app.models import McpServer

    server = mcp_services.mcp_server_save(name="shop", transport=McpServer.Transport.STDIO, command="python")
    with pytest.raises(ValidationError) as refused:
        mcp_services.mcp_server_save(name="shop2", transport=McpServer.Transport.STDIO, command="node", instance=server)
    assert refused.value.message_dict == {"name": ["server name 'shop' cannot be changed."]}
    assert [(e.code, e.params) for e in refused.value.error_dict["name"]] == [
        ("server_name_immutable", {"name": "shop"})
    ]
    with pytest.raises(ValidationError) as refused:
        mcp_services.mcp_server_save(name="shop", transport=McpServer.Transport.STDIO, command=" ", instance=server)
    assert list(refused.value.message_dict) == ["command"]
    assert list(McpServer.objects.values_list("name", "command")) == [("shop", "python")]


def test_an_mcp_tool_saved_with_only_its_name_gets_the_empty_defaults_and_saving_again_replaces_it(db) -> None:
    from skills_app.models import McpTool

    first = mcp_services.mcp_tool_save(
        name="lookup",
        title="查",
        description="查一下",
        input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
        annotations={"readOnlyHint": True},
        server="shop",
    )
    bare = mcp_services.mcp_tool_save(name="lookup", annotations=None)
    stored = McpTool.objects.get(name="lookup")
    assert (bare.pk, stored.pk) == (first.pk, first.pk)
    assert (stored.title, stored.description, stored.input_schema, stored.annotations, stored.server) == (
        "",
        "",
        {"type": "object"},
        {},
        "",
    )


def test_restoring_a_skill_whose_code_was_taken_names_the_code_even_when_its_tools_are_gone_too(bitmall) -> None:
    old = catalog_services.skill_delete(skill=Skill.objects.live().get(skill_code="after_sale_apply"))
    catalog_services.skill_create(**{**NEW_SKILL, "skill_code": "after_sale_apply"})
    from skills_app.models import IntentNode

    IntentNode.objects.filter(mcp_tool_id="apply_after_sale").update(enabled=False)
    with pytest.raises(ValidationError) as refused:
        catalog_services.skill_restore(skill=old)
    assert refused.value.message_dict == {"skill_code": ["a live skill with code 'after_sale_apply' already exists."]}


def test_a_node_with_live_children_is_not_deleted_naming_it(bitmall) -> None:
    from skills_app.models import IntentNode

    parent = IntentNode.objects.get(intent_code="order_change")
    with pytest.raises(ValidationError) as refused:
        catalog_services.intent_node_delete(node=parent, force=True)
    [error] = refused.value.error_list
    assert (error.code, error.params, refused.value.messages) == (
        "node_has_children",
        {"code": "order_change"},
        ["intent node 'order_change' has child nodes; delete them first"],
    )
    assert IntentNode.objects.get(pk=parent.pk).deleted_at is None


def test_a_node_whose_children_are_all_deleted_is_deleted_and_nothing_else_of_it_changes(bitmall) -> None:
    """Only ``deleted_at`` is written: a stale copy of the node does not put back an old name."""
    from django.utils import timezone

    from skills_app.models import IntentNode

    parent = IntentNode.objects.get(intent_code="order_change")
    IntentNode.objects.filter(parent=parent).update(deleted_at=timezone.now())
    IntentNode.objects.filter(pk=parent.pk).update(name="订单修改（新）")
    before = timezone.now()
    assert catalog_services.intent_node_delete(node=parent) == []
    stored = IntentNode.objects.get(pk=parent.pk)
    assert stored.name == "订单修改（新）"
    assert before <= stored.deleted_at <= timezone.now()


def test_deleting_a_leaf_that_registers_no_tool_breaks_nothing(bitmall) -> None:
    from skills_app.models import IntentNode

    leaf = IntentNode.objects.get(intent_code="return_policy_kb")
    assert catalog_services.intent_node_delete(node=leaf) == []
    assert IntentNode.objects.get(pk=leaf.pk).deleted_at is not None
    assert IntentNode.objects.filter(deleted_at__isnull=False).count() == 1


# --- release_rollback (skills_app/releases/services.py) ---


@pytest.fixture
def publisher(django_user_model):
    from skills_app.core.roles import assign

    user = django_user_model.objects.create_user(username="pub", password="pw-123456")
    assign(user, "publisher")
    return user


def _two_releases() -> None:
    release_publish(user=COMMAND_LINE, note="one")
    catalog_services.skill_update(skill=Skill.objects.get(skill_code="fault_diagnosis"), description="新版说明。")
    release_publish(user=COMMAND_LINE, note="two")


def test_a_rollback_copies_the_old_snapshot_as_a_new_release_and_moves_production_only(bitmall, publisher) -> None:
    from skills_app.models import LabelMove
    from skills_app.releases.services import release_rollback

    _two_releases()
    label_move(user=COMMAND_LINE, label="production", number=2)
    label_move(user=COMMAND_LINE, label="staging", number=2)
    rolled = release_rollback(user=publisher, number=1, note="  back to one  ")
    one, stored = Release.objects.get(number=1), Release.objects.get(number=3)
    assert (rolled.pk, stored.rollback_of, stored.note, stored.sha256, stored.author, stored.author_name) == (
        stored.pk,
        1,
        "back to one",
        one.sha256,
        publisher,
        "pub",
    )
    assert (stored.snapshot, stored.overrides, stored.override_note) == (one.snapshot, [], "")
    assert dict(ReleaseLabel.objects.values_list("name", "release__number")) == {"production": 3, "staging": 2}
    move = LabelMove.objects.order_by("-id").first()
    assert (move.label, move.from_release.number, move.to_release.number, move.moved_by, move.moved_by_name) == (
        "production",
        2,
        3,
        publisher,
        "pub",
    )


def test_a_rollback_without_a_note_says_what_it_rolled_back_to_and_adds_no_label(bitmall) -> None:
    from skills_app.releases.services import release_rollback

    _two_releases()
    rolled = release_rollback(user=COMMAND_LINE, number=1, note="  ")
    again = release_rollback(user=COMMAND_LINE, number=2, note=None)
    assert [(r.number, r.note, r.rollback_of, r.author, r.author_name) for r in (rolled, again)] == [
        (3, "rollback to release 1", 1, None, "manage.py"),
        (4, "rollback to release 2", 2, None, "manage.py"),
    ]
    assert ReleaseLabel.objects.count() == 0


def test_rolling_back_to_an_unknown_release_names_the_releases_there_are(bitmall) -> None:
    from skills_app.releases.services import release_rollback

    with pytest.raises(ValidationError) as refused:
        release_rollback(user=COMMAND_LINE, number=1, note="")
    assert refused.value.messages == ["release 1 does not exist; releases: none"]
    release_publish(user=COMMAND_LINE, note="gone")
    Release.objects.all().delete()  # the ids now run one ahead of the numbers, as they may on PostgreSQL
    _two_releases()
    rows = list(Release.objects.order_by("number").values_list("number", "id"))
    assert [n for n, _ in rows] == [1, 2] and all(i > n for n, i in rows)
    with pytest.raises(ValidationError) as refused:
        release_rollback(user=COMMAND_LINE, number=9, note="")
    [error] = refused.value.error_list
    assert (refused.value.messages, error.code, error.message.code, dict(error.message.params)) == (
        ["release 9 does not exist; releases: 1, 2"],
        "release_not_found",
        "release_not_found",
        {"number": 9, "known": "1, 2"},
    )
    assert Release.objects.count() == 2


def test_rolling_back_to_what_the_latest_release_holds_is_refused_as_unchanged(bitmall) -> None:
    from skills_app.releases.services import PublishRefused, release_rollback

    _two_releases()
    release_rollback(user=COMMAND_LINE, number=1, note="")
    with pytest.raises(PublishRefused) as refused:
        release_rollback(user=COMMAND_LINE, number=1, note="")
    assert [(r.message.code, str(r.message), dict(r.message.params)) for r in refused.value.reasons] == [
        ("gate_unchanged", "nothing changed since release 3", {"number": 3})
    ]
    assert [(e.code, e.message) for e in refused.value.error_list] == [
        ("publish_refused", "nothing changed since release 3")
    ]
    assert Release.objects.count() == 3


def test_only_a_publisher_may_roll_back(bitmall, editor) -> None:
    from django.core.exceptions import PermissionDenied

    from skills_app.releases.services import release_rollback

    _two_releases()
    with pytest.raises(PermissionDenied) as refused:
        release_rollback(user=editor, number=1, note="")
    assert str(refused.value) == "only a publisher may publish releases, move labels or manage API keys."
    assert Release.objects.count() == 2


def test_moving_a_label_records_who_moved_it_from_where_to_where_and_a_move_to_where_it_is_records_nothing(
    bitmall, publisher
) -> None:
    from skills_app.models import LabelMove

    _two_releases()
    created = label_move(user=publisher, label="  staging ", number=1)
    moved = label_move(user=COMMAND_LINE, label="staging", number=2)
    same = label_move(user=publisher, label="staging", number=2)
    assert (created.pk, moved.pk, same.pk) == (created.pk, created.pk, created.pk)
    assert list(ReleaseLabel.objects.values_list("name", "release__number")) == [("staging", 2)]
    assert [
        (m.label, m.from_release and m.from_release.number, m.to_release.number, m.moved_by, m.moved_by_name)
        for m in LabelMove.objects.order_by("id")
    ] == [("staging", None, 1, publisher, "pub"), ("staging", 1, 2, None, "manage.py")]


def test_a_label_name_off_the_pattern_is_refused_and_nothing_is_recorded(bitmall) -> None:
    from skills_app.models import LabelMove

    release_publish(user=COMMAND_LINE, note="one")
    with pytest.raises(ValidationError) as refused:
        label_move(user=COMMAND_LINE, label="Bad Name", number=1)
    assert list(refused.value.message_dict) == ["name"]
    assert (ReleaseLabel.objects.count(), LabelMove.objects.count()) == (0, 0)


def test_asking_what_a_node_change_would_break_assumes_the_node_disabled_unless_told(bitmall) -> None:
    """``intent_node_gating_skills`` without ``enabled``: the question "what if it were disabled"."""
    from skills_app.models import IntentNode

    node = IntentNode.objects.get(intent_code="cancel_order_topic")
    assert catalog_services.intent_node_gating_skills(node=node) == ["order_change"]
    assert catalog_services.intent_node_gating_skills(node=node, enabled=True) == []


def test_an_unsaved_node_gates_nothing_even_when_no_saved_node_registers_its_tool(bitmall) -> None:
    from skills_app.models import IntentNode

    IntentNode.objects.filter(intent_code="cancel_order_topic").update(enabled=False)
    unsaved = IntentNode(intent_code="new_one", name="新", kind=IntentNode.Kind.MCP, mcp_tool_id="cancel_order")
    assert catalog_services.intent_node_gating_skills(node=unsaved, deleted=True) == []


def test_a_blank_or_missing_label_name_is_refused_as_blank(bitmall) -> None:
    release_publish(user=COMMAND_LINE, note="one")
    for name in (None, "   "):
        with pytest.raises(ValidationError) as refused:
            label_move(user=COMMAND_LINE, label=name, number=1)
        assert [e.code for e in refused.value.error_dict["name"]] == ["blank"]
    assert ReleaseLabel.objects.count() == 0


def test_label_moves_are_listed_newest_first_by_when_then_by_order_made_fifty_by_default(
    bitmall, django_assert_num_queries
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from skills_app.models import LabelMove
    from skills_app.releases.selectors import label_moves

    _two_releases()
    for i in range(51):
        label_move(user=COMMAND_LINE, label="staging", number=1 + i % 2)
    ids = list(LabelMove.objects.order_by("id").values_list("id", flat=True))
    now = timezone.now()
    LabelMove.objects.filter(id=ids[0]).update(moved_at=now + timedelta(minutes=5))  # the first made, moved latest
    LabelMove.objects.filter(id__in=ids[1:]).update(moved_at=now)  # the rest at one instant: newest made first
    with django_assert_num_queries(1):
        listed = [(m.id, m.from_release and m.from_release.number, m.to_release.number) for m in label_moves()]
    assert [i for i, _, _ in listed] == [ids[0], *reversed(ids[2:])]
    assert listed[:3] == [(ids[0], None, 1), (ids[50], 2, 1), (ids[49], 1, 2)]
    assert [m.id for m in label_moves(limit=2)] == [ids[0], ids[50]]


@pytest.mark.parametrize("actor", [None, object()], ids=["no actor", "an actor that is no user"])
def test_a_release_written_without_a_user_or_the_command_line_names_no_author(bitmall, actor) -> None:
    from skill_rule.snapshot import catalog_to_snapshot
    from skills_app.catalog import selectors
    from skills_app.releases.services import release_create

    release = release_create(snapshot=catalog_to_snapshot(selectors.catalog_draft()), user=actor, note=" low level ")
    stored = Release.objects.get(pk=release.pk)
    assert (stored.number, stored.author, stored.author_name, stored.note) == (1, None, "", "low level")


def test_a_key_is_created_by_its_publisher_and_a_revoked_keys_name_can_be_used_again(db, publisher) -> None:
    first = api_key_create(user=publisher, name="ragent").record
    api_key_revoke(user=publisher, name="ragent")
    again = api_key_create(user=publisher, name=" ragent ", read_drafts=True).record
    assert [
        (k.name, k.revoked, k.read_drafts, k.created_by)
        for k in (RuntimeKey.objects.get(pk=first.pk), RuntimeKey.objects.get(pk=again.pk))
    ] == [("ragent", True, False, publisher), ("ragent", False, True, publisher)]
    assert RuntimeKey.objects.count() == 2


def test_a_key_without_a_name_or_with_a_read_drafts_that_is_no_boolean_is_refused(db) -> None:
    with pytest.raises(ValidationError) as refused:
        api_key_create(user=COMMAND_LINE, name=None)
    assert refused.value.message_dict == {"name": ["a key needs a name."]}
    with pytest.raises(ValidationError) as refused:
        api_key_create(user=COMMAND_LINE, name="batch", read_drafts="maybe")
    assert [e.code for e in refused.value.error_dict["read_drafts"]] == ["invalid"]
    assert RuntimeKey.objects.count() == 0


def test_a_release_stores_the_catalog_body_it_will_be_served_as(bitmall) -> None:
    """The runtime serves ``Release.catalog_json`` as it is (runtime_cache): written at publish."""
    from skill_rule.runtime_catalog import catalog_body_json
    from skills_app.releases.selectors import release_catalog

    release = release_publish(user=COMMAND_LINE, note="one")
    stored = Release.objects.get(pk=release.pk)
    assert stored.catalog_json == catalog_body_json(release_catalog(stored))
    assert '"release":1' in stored.catalog_json.replace(" ", "")


def test_draft_sha256_is_the_hash_of_the_catalog_given_else_of_the_draft(bitmall) -> None:
    from skills_app.releases.selectors import draft_sha256, release_catalog

    _two_releases()
    catalog_services.skill_update(skill=Skill.objects.get(skill_code="fault_diagnosis"), description="第三版说明。")
    one = Release.objects.get(number=1)
    assert draft_sha256(release_catalog(one)) == one.sha256
    assert draft_sha256() not in set(Release.objects.values_list("sha256", flat=True))


def test_the_label_list_and_a_release_page_read_their_releases_and_labels_in_fixed_queries(
    bitmall, django_assert_num_queries
) -> None:
    from skills_app.releases.selectors import label_list, release_page_queryset

    _two_releases()
    label_move(user=COMMAND_LINE, label="production", number=1)
    label_move(user=COMMAND_LINE, label="staging", number=2)
    with django_assert_num_queries(1):
        assert [(label.name, label.release.number) for label in label_list()] == [("production", 1), ("staging", 2)]
    with django_assert_num_queries(2):
        assert [(r.number, [label.name for label in r.labels.all()]) for r in release_page_queryset()] == [
            (2, ["staging"]),
            (1, ["production"]),
        ]


# --- release_publish and publish_review (skills_app/releases/services.py) ---


def _unmet_expectation_keys() -> list[str]:
    """After release 1: order_change loses change_address, so cancel-iphone's expectations are unmet."""
    from skills_app.releases.services import PublishRefused

    catalog_services.skill_update(skill=Skill.objects.get(skill_code="order_change"), tool_ids=["cancel_order"])
    with pytest.raises(PublishRefused) as refused:
        release_publish(user=COMMAND_LINE, note="second")
    return [r.key for r in refused.value.reasons]


def test_a_publish_keeps_the_override_note_only_when_a_ticked_off_expectation_was_unmet(bitmall) -> None:
    keys = ["scenario:cancel-iphone:round 9: stale tick"]
    first = release_publish(user=COMMAND_LINE, note="one", overrides=keys, override_note="no longer needed")
    keys = _unmet_expectation_keys()
    second = release_publish(
        user=COMMAND_LINE,
        note="two",
        overrides=["", *keys, "scenario:gone:x"],
        override_note="  change_address moves to its own manual ",
    )
    assert [
        (r.number, r.overrides, r.override_note)
        for r in Release.objects.filter(pk__in=[first.pk, second.pk]).order_by("number")
    ] == [(1, [], ""), (2, sorted(keys), "change_address moves to its own manual")]


def test_labels_moved_by_a_publish_record_the_publisher_as_who_moved_them(bitmall, publisher) -> None:
    from skills_app.models import LabelMove

    release = release_publish(user=publisher, note="one", move_labels=["production", "staging"])
    assert dict(ReleaseLabel.objects.values_list("name", "release__number")) == {"production": 1, "staging": 1}
    assert [
        (m.label, m.from_release, m.to_release_id, m.moved_by, m.moved_by_name)
        for m in LabelMove.objects.order_by("id")
    ] == [("production", None, release.pk, publisher, "pub"), ("staging", None, release.pk, publisher, "pub")]


def test_the_publish_review_compares_the_draft_with_the_latest_release(bitmall) -> None:
    from skills_app.releases.selectors import publish_review

    first = publish_review()
    assert (first.latest_number, first.latest_sha256, first.latest) == (None, None, None)
    assert "fault_diagnosis" in first.diff.skills_added
    _two_releases()
    catalog_services.skill_update(skill=Skill.objects.get(skill_code="order_change"), description="新的说明。")
    review = publish_review()
    two = Release.objects.get(number=2)
    assert (review.latest_number, review.latest_sha256, review.latest.release) == (2, two.sha256, 2)
    assert (review.diff.skills_added, review.diff.skills_removed, [c.name for c in review.diff.skills_changed]) == (
        (),
        (),
        ["order_change"],
    )
    assert [(f.field, f.after) for f in review.diff.skills_changed[0].changes] == [
        ("description", "新的说明。"),
        ("version", 2),
    ]


def test_a_draft_kept_across_a_publish_is_compared_with_the_new_release(bitmall, monkeypatch) -> None:
    """A process keeps its draft catalog until a write to the draft; a publish writes none."""
    from skills_app.catalog import selectors
    from skills_app.releases.selectors import publish_review

    kept = selectors.catalog_draft()
    monkeypatch.setattr(selectors, "catalog_draft", lambda: kept)
    assert "fault_diagnosis" in publish_review().diff.skills_added
    release_publish(user=COMMAND_LINE, note="one")
    review = publish_review()
    assert (review.draft is kept, review.latest_number, review.diff.skills_added, review.diff.skills_changed) == (
        True,
        1,
        (),
        (),
    )


def test_a_publish_names_the_server_of_a_gated_tool_that_is_unavailable_or_orphaned(bitmall) -> None:
    from django.utils import timezone

    from skills_app.models import McpTool
    from skills_app.releases.services import PublishRefused

    now = timezone.now()
    McpTool.objects.filter(name="change_address").update(removed_at=now, server="bitmall", mcp_server=None)
    McpTool.objects.filter(name="apply_after_sale").update(synced_at=now, server="shop", mcp_server=None)
    with pytest.raises(PublishRefused) as refused:
        release_publish(user=COMMAND_LINE, note="one")
    assert [
        (r.code, str(r.message))
        for r in refused.value.reasons
        if r.code in ("gate_unavailable", "gate_orphaned", "gate_dangling")
    ] == [
        (
            "gate_orphaned",
            "skill 'after_sale_apply' is broken: it gates 'apply_after_sale', whose MCP server record "
            "'shop' was deleted (register the server again and sync it, or remove the tool from the skill)",
        ),
        (
            "gate_unavailable",
            "skill 'order_change' is broken: it gates 'change_address', which MCP server 'bitmall' "
            "no longer offers (sync the server again, or remove the tool from the skill)",
        ),
    ]
    assert Release.objects.count() == 0


def test_the_unavailable_and_orphaned_tools_come_from_one_read_of_the_mcp_nodes(bitmall, monkeypatch) -> None:
    from django.utils import timezone

    from skills_app.catalog import selectors
    from skills_app.models import McpTool
    from skills_app.releases.selectors import _unavailable_and_orphaned

    McpTool.objects.filter(name="apply_after_sale").update(synced_at=timezone.now(), server="shop", mcp_server=None)
    reads = []
    read = selectors.mcp_nodes
    monkeypatch.setattr(selectors, "mcp_nodes", lambda **kw: reads.append(kw) or read(**kw))
    assert _unavailable_and_orphaned() == ({"apply_after_sale": "shop"}, {"apply_after_sale": "shop"})
    assert reads == [{}]


def test_the_publish_review_hashes_the_draft_once_and_no_release_whose_digest_it_has(bitmall, monkeypatch) -> None:
    from skills_app.releases.selectors import publish_review
    from skills_app.simulation import results as scenario_results

    release_publish(user=COMMAND_LINE, note="one")
    catalog_services.skill_update(skill=Skill.objects.get(skill_code="order_change"), description="新的说明。")
    hashed = []
    digest = scenario_results.catalog_sha256
    monkeypatch.setattr(scenario_results, "catalog_sha256", lambda catalog: hashed.append(catalog) or digest(catalog))
    review = publish_review()
    assert len(review.scenarios) >= 1
    assert len(hashed) == 1 and hashed[0] is review.draft


def test_the_publish_review_keeps_each_scenario_result_for_the_scenarios_page(bitmall) -> None:
    from skills_app.models import Scenario
    from skills_app.releases.selectors import publish_review
    from skills_app.simulation.results import cached_results

    release_publish(user=COMMAND_LINE, note="one")
    catalog_services.skill_update(skill=Skill.objects.get(skill_code="order_change"), description="新的说明。")
    review = publish_review()
    names = sorted(Scenario.objects.values_list("name", flat=True))
    assert names and sorted(cached_results(Scenario.objects.all(), review.sha256)) == names
    assert sorted(cached_results(Scenario.objects.all(), review.latest_sha256)) == names


# --- scenario_save and intent_node_save (skills_app/catalog/services.py) ---

SCRIPT = "- user: 帮我取消订单\n- assistant: 好的\n"


def test_a_scenario_is_saved_with_its_descriptions_and_catalog_and_a_replace_keeps_the_english_one(bitmall) -> None:
    from skills_app.models import Scenario

    simulation_services.scenario_save(
        name="probe", script=SCRIPT, description="说明", catalog="bitmall", description_en="About it", create=True
    )
    saved = simulation_services.scenario_save(name="probe", script="- assistant: y\n", description="第二版")
    assert list(
        Scenario.objects.filter(name="probe").values_list("pk", "script", "description", "description_en", "catalog")
    ) == [(saved.pk, "- assistant: y\n", "第二版", "About it", "")]
    bare = simulation_services.scenario_save(name="bare", script=SCRIPT)
    assert Scenario.objects.filter(pk=bare.pk).values_list("description", "description_en", "catalog").get() == (
        "",
        "",
        "",
    )


def test_a_new_scenario_under_a_name_that_exists_is_refused_naming_it_and_nothing_changes(bitmall) -> None:
    from skills_app.models import Scenario

    before = list(Scenario.objects.values_list("name", "script", "description"))
    with pytest.raises(ValidationError) as refused:
        simulation_services.scenario_save(name="cancel-iphone", script=SCRIPT, description="另一个", create=True)
    assert refused.value.message_dict == {"name": ["A scenario named 'cancel-iphone' already exists."]}
    assert [(e.code, e.params) for e in refused.value.error_dict["name"]] == [
        ("scenario_name_taken", {"name": "cancel-iphone"})
    ]
    assert list(Scenario.objects.values_list("name", "script", "description")) == before


def _losing_the_race(model):
    """``model`` as a service sees it when another request created the same name between the
    service's look-up and its insert: the look-up finds nothing (the other request has not
    committed yet), the instance it builds is a real row, refused by the database's unique index."""
    from types import SimpleNamespace

    class Racing:
        objects = SimpleNamespace(filter=lambda **kw: model.objects.none())

        def __new__(cls, **kw):
            return model(**kw)

    return Racing


def test_a_new_scenario_that_loses_the_race_for_its_name_is_refused_as_taken(bitmall, monkeypatch) -> None:
    """Another request created the name between this one's look-up and its insert (PostgreSQL)."""
    from skills_app.models import Scenario

    monkeypatch.setattr(models, "Scenario", _losing_the_race(Scenario))
    with pytest.raises(ValidationError) as refused:
        simulation_services.scenario_save(name="cancel-iphone", script=SCRIPT, create=True)
    assert [(e.code, e.message, e.params) for e in refused.value.error_dict["name"]] == [
        ("scenario_name_taken", "A scenario named '%(name)s' already exists.", {"name": "cancel-iphone"})
    ]
    assert Scenario.objects.filter(name="cancel-iphone").count() == 1


def test_a_scenario_whose_script_does_not_parse_is_refused_with_the_code_a_page_translates_by(bitmall) -> None:
    with pytest.raises(ValidationError) as refused:
        simulation_services.scenario_save(name="broken", script="- user: [\n")
    [error] = refused.value.error_dict["script"]
    assert (error.code, error.message) == ("script_invalid", "%(message)s")
    assert error.params["message"].startswith("scenario 'broken':")


def test_an_intent_node_is_saved_with_exactly_the_values_given_and_saving_it_again_replaces_them(bitmall) -> None:
    from django.utils import timezone

    from skills_app.models import IntentNode

    category = IntentNode.objects.get(intent_code="after_sale")
    fields = (
        "name",
        "kind",
        "parent_id",
        "level",
        "mcp_tool_id",
        "require_confirm",
        "description",
        "examples",
        "sort_order",
        "enabled",
        "deleted_at",
    )
    node = catalog_services.intent_node_save(
        intent_code="refund_topic",
        name="退款",
        kind="MCP",
        parent=category,
        mcp_tool_id="refund_money",
        require_confirm=True,
        description="退款到账",
        examples=("我要退款", "钱退了吗"),
        sort_order=5,
        enabled=False,
    )
    assert IntentNode.objects.filter(pk=node.pk).values_list(*fields).get() == (
        "退款",
        "MCP",
        category.pk,
        2,
        "refund_money",
        True,
        "退款到账",
        ["我要退款", "钱退了吗"],
        5,
        False,
        None,
    )
    IntentNode.objects.filter(pk=node.pk).update(deleted_at=timezone.now())
    again = catalog_services.intent_node_save(
        intent_code="refund_topic", name="退款（新）", kind="SYSTEM", mcp_tool_id=None
    )
    assert again.pk == node.pk
    assert IntentNode.objects.filter(pk=node.pk).values_list(*fields).get() == (
        "退款（新）",
        "SYSTEM",
        None,
        0,
        "",
        False,
        "",
        [],
        0,
        True,
        None,
    )
    under_domain = catalog_services.intent_node_save(
        intent_code="refund", name="退款", kind="SYSTEM", parent=IntentNode.objects.get(intent_code="orders")
    )
    assert IntentNode.objects.get(pk=under_domain.pk).level == 1


def test_a_node_under_a_topic_is_refused_on_its_parent_alone(bitmall) -> None:
    from django.utils import translation

    from skills_app.models import IntentNode

    topic = IntentNode.objects.get(intent_code="cancel_order_topic")
    with translation.override("en"), pytest.raises(ValidationError) as refused:
        catalog_services.intent_node_save(intent_code="too_deep", name="第四层", kind="SYSTEM", parent=topic)
    assert refused.value.message_dict == {
        "parent": ["'cancel_order_topic' is a topic (level 2); the tree has three levels."]
    }


# --- skill_update (skills_app/catalog/services.py) ---


def test_an_update_records_who_made_it_and_why_and_no_reason_when_none_is_given(bitmall, editor) -> None:
    skill = Skill.objects.live().get(skill_code="order_change")
    catalog_services.skill_update(skill=skill, user=editor, reason="排到最前", sort_order=-1)
    catalog_services.skill_update(skill=skill, user=editor, description="发货前取消订单或改地址。")
    assert [
        (r.history_user, r.history_change_reason, r.sort_order, r.version)
        for r in Skill.objects.get(pk=skill.pk).history.order_by("history_id")
    ][-2:] == [(editor, "排到最前", -1, 1), (editor, None, -1, 2)]
    assert Skill.objects.get(pk=skill.pk).updated_by == editor
    catalog_services.skill_update(skill=skill, user=COMMAND_LINE, enabled=False)  # manage.py: no user row
    assert Skill.objects.filter(pk=skill.pk).values_list("enabled", "updated_by").get() == (False, None)


def test_the_refusals_of_an_update_keep_the_code_and_values_a_page_translates_by(bitmall) -> None:
    skill = Skill.objects.live().get(skill_code="order_change")
    with pytest.raises(ValidationError) as refused:
        catalog_services.skill_update(skill=skill, skill_code="order_edit")
    assert [(e.code, e.params) for e in refused.value.error_dict["skill_code"]] == [
        ("skill_code_immutable", {"code": "order_change"})
    ]
    catalog_services.skill_update(skill=skill, name="订单修改（他人先保存）")
    with pytest.raises(ValidationError) as refused:
        catalog_services.skill_update(skill=skill, name="我的修改", expected_version=1)
    assert (refused.value.messages, refused.value.code, refused.value.params) == (
        [
            "This skill was saved as version 2 while you were editing version 1. "
            "Reload the page to see the change, then edit again."
        ],
        "skill_stale",
        {"current": 2, "base": 1},
    )
    catalog_services.skill_delete(skill=skill)
    with pytest.raises(ValidationError) as refused:
        catalog_services.skill_update(skill=skill, name="我的修改")
    assert (refused.value.messages, refused.value.code, refused.value.params) == (
        ["skill 'order_change' is deleted; restore it before editing."],
        "skill_deleted",
        {"code": "order_change"},
    )
    assert Skill.objects.filter(pk=skill.pk).values_list("name", "version").get() == ("订单修改（他人先保存）", 2)


# --- the first round's writes, run again (skills_app/catalog/services.py) ---


@pytest.mark.parametrize(
    "save", [catalog_services.access_profile_save, catalog_services.stage_save], ids=["access profile", "stage"]
)
def test_a_new_profile_or_stage_under_a_name_that_exists_is_refused_naming_it_and_nothing_changes(
    bitmall, save
) -> None:
    model = AccessProfile if save is catalog_services.access_profile_save else Stage
    save(name="reader", description="只读", tools="query_order, query_cart", create=True)
    with pytest.raises(ValidationError) as refused:
        save(name="reader", description="另一个", tools=["query_order"], create=True)
    assert refused.value.message_dict == {"name": ["'reader' already exists."]}
    assert [(e.code, e.params) for e in refused.value.error_dict["name"]] == [
        ("restriction_name_taken", {"name": "reader"})
    ]
    assert list(model.objects.values_list("name", "description", "tools")) == [
        ("reader", "只读", ["query_order", "query_cart"])
    ]


def test_a_new_profile_that_loses_the_race_for_its_name_is_refused_as_taken(bitmall, monkeypatch) -> None:
    """Another request created the name between this one's look-up and its insert (PostgreSQL)."""
    catalog_services.access_profile_save(name="reader", tools=["query_order"])
    monkeypatch.setattr(models, "AccessProfile", _losing_the_race(AccessProfile))
    with pytest.raises(ValidationError) as refused:
        catalog_services.access_profile_save(name="reader", tools=["query_cart"], create=True)
    assert [(e.code, e.message, e.params) for e in refused.value.error_dict["name"]] == [
        ("restriction_name_taken", "'%(name)s' already exists.", {"name": "reader"})
    ]
    assert list(AccessProfile.objects.values_list("name", "tools")) == [("reader", ["query_order"])]


def test_a_stage_naming_a_tool_its_server_no_longer_lists_is_refused(bitmall) -> None:
    from django.utils import timezone

    from skills_app.models import McpTool

    McpTool.objects.filter(name="query_cart").update(removed_at=timezone.now())
    with pytest.raises(ValidationError) as refused:
        catalog_services.stage_save(name="browse", tools=["query_order", "query_cart"])
    assert refused.value.message_dict == {"tools": ["'query_cart' is not a registered MCP tool."]}
    assert not Stage.objects.exists()


def test_creating_deleting_and_restoring_name_the_user_and_no_reason_in_the_history(bitmall, editor) -> None:
    skill = Skill.objects.live().get(skill_code="order_change")
    catalog_services.skill_delete(skill=skill, user=editor)
    catalog_services.skill_restore(skill=skill, user=editor)
    assert [
        (r.history_user, r.history_change_reason, r.version, r.deleted_at is None)
        for r in Skill.objects.get(pk=skill.pk).history.order_by("history_id")
    ][-2:] == [(editor, None, 1, False), (editor, None, 1, True)]
    created = catalog_services.skill_create(**NEW_SKILL, user=editor)
    assert [(r.history_user, r.history_change_reason) for r in created.history.all()] == [(editor, None)]


def test_a_restore_that_loses_the_race_for_its_code_is_refused_as_taken(bitmall, monkeypatch) -> None:
    """A create of the code committed between the restore's check and its save (PostgreSQL)."""
    old = catalog_services.skill_delete(skill=Skill.objects.live().get(skill_code="order_change"))
    catalog_services.skill_create(**{**NEW_SKILL, "skill_code": "order_change"})
    monkeypatch.setattr(
        catalog_services, "_check_code_free", lambda code: None
    )  # the check passed before the other commit
    with pytest.raises(ValidationError) as refused:
        catalog_services.skill_restore(skill=old)
    assert [(e.code, e.message, e.params) for e in refused.value.error_dict["skill_code"]] == [
        ("skill_code_taken", "a live skill with code '%(code)s' already exists.", {"code": "order_change"})
    ]
    assert Skill.objects.get(pk=old.pk).deleted_at is not None


def test_saving_a_gated_node_as_another_kind_with_its_tool_kept_is_refused_as_gated(bitmall) -> None:
    """A KB node registers no tool, whatever its ``mcp_tool_id`` says: the gate refuses first."""
    from skills_app.models import IntentNode

    node = IntentNode.objects.get(intent_code="cancel_order_topic")
    with pytest.raises(ValidationError) as refused:
        catalog_services.intent_node_save(
            intent_code=node.intent_code,
            name=node.name,
            kind=IntentNode.Kind.KB,
            parent=node.parent,
            mcp_tool_id="cancel_order",
        )
    assert (refused.value.code, refused.value.params) == (
        "node_gated",
        {"code": "cancel_order_topic", "tool": "cancel_order", "skills": "order_change"},
    )
    assert IntentNode.objects.filter(pk=node.pk).values_list("kind", "mcp_tool_id").get() == ("MCP", "cancel_order")
