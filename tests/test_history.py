"""History and roles below the pages (docs/roles.md): every write through the services is a
historical record with who and what; the version rule; restoring a revision through
``services.skill_revert``; the audit query's filters; the role groups and their upkeep."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.utils import timezone

from skill_rule.history import revision_diff
from skills_app.catalog import services as catalog_services
from skills_app.core import roles
from skills_app.history import selectors as history
from skills_app.mcp import services as mcp_services
from skills_app.models import AccessProfile, IntentNode, McpTool, Scenario, Skill, Stage
from skills_app.simulation import services as simulation_services
from tests.conftest import user_with_role


@pytest.fixture
def alice(db, django_user_model):
    return user_with_role(django_user_model, "alice", "editor")


@pytest.fixture
def bob(db, django_user_model):
    return user_with_role(django_user_model, "bob", "publisher")


def revisions(skill: Skill) -> list:
    return list(skill.history.order_by("history_id"))


# ---- the version rule -----------------------------------------------------------------------
def test_enabling_and_disabling_is_in_the_history_but_keeps_the_version(bitmall, alice):
    skill = Skill.objects.get(skill_code="order_change")
    before = len(revisions(skill))
    disabled = catalog_services.skill_set_enabled(skill=skill, enabled=False, user=alice)
    enabled = catalog_services.skill_set_enabled(skill=disabled, enabled=True, user=alice)
    reordered = catalog_services.skill_update(skill=enabled, sort_order=99, user=alice)
    assert (disabled.version, enabled.version, reordered.version) == (1, 1, 1)
    rows = revisions(skill)[before:]
    assert [(r.enabled, r.sort_order, r.version, r.history_type, r.history_user) for r in rows] == [
        (False, 20, 1, "~", alice),
        (True, 20, 1, "~", alice),
        (True, 99, 1, "~", alice),
    ]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", "订单修改（新）"),
        ("description", "用户要取消订单或改地址时加载"),
        ("content", "# 新手册\n先核对订单。"),
        ("tool_ids", ["cancel_order"]),
    ],
)
def test_name_description_manual_and_tool_ids_make_a_new_version(bitmall, alice, field, value):
    skill = catalog_services.skill_update(
        skill=Skill.objects.get(skill_code="order_change"), user=alice, **{field: value}
    )
    assert skill.version == 2
    assert skill.history.latest("history_id").version == 2


def test_a_save_that_changes_nothing_writes_no_history(bitmall, alice):
    skill = Skill.objects.get(skill_code="order_change")
    before = skill.history.count()
    catalog_services.skill_update(skill=skill, name=skill.name, user=alice)
    assert skill.history.count() == before


# ---- who, when, what on every audited record -------------------------------------------------
def test_every_service_write_of_every_audited_record_leaves_a_historical_record(bitmall, alice):
    start = timezone.now()
    skill = catalog_services.skill_create(
        skill_code="refund_help", name="退款", description="退款时加载", content="先查订单。", user=alice
    )
    catalog_services.skill_delete(skill=skill, user=alice)
    catalog_services.skill_restore(skill=skill, user=alice)
    simulation_services.scenario_save(name="s-one", script=Scenario.objects.get(name="cancel-iphone").script)
    catalog_services.access_profile_save(name="member", tools=["query_order"])
    catalog_services.stage_save(name="browse", tools=["query_order"])
    catalog_services.intent_node_save(intent_code="extra", name="额外", kind="SYSTEM")
    mcp_services.mcp_tool_save(name="query_order", title="查询订单", input_schema={"type": "object"})
    assert [r.history_type for r in skill.history.order_by("history_id")] == ["+", "~", "~"]
    assert [r.history_user for r in skill.history.all()] == [alice, alice, alice]
    for model, key in (
        (Scenario, {"name": "s-one"}),
        (AccessProfile, {"name": "member"}),
        (Stage, {"name": "browse"}),
        (IntentNode, {"intent_code": "extra"}),
        (McpTool, {"name": "query_order"}),
    ):
        record = model.history.filter(**key).latest("history_id")
        assert record.history_date >= start, model


def test_demo_reload_deletions_are_recorded(bitmall, tmp_path):
    from skills_app.catalog.demo import demo_load

    code = Skill.objects.order_by("pk").first().skill_code
    demo_load(name="returns", replace=True, backup_dir=tmp_path)
    assert Skill.history.filter(skill_code=code, history_type="-").exists()


# ---- the diff of two revisions ---------------------------------------------------------------
def test_the_diff_of_two_revisions_is_field_by_field_with_the_manual_as_a_line_diff(bitmall, alice):
    skill = Skill.objects.get(skill_code="order_change")
    first = skill.history.latest("history_id")
    catalog_services.skill_update(
        skill=skill,
        user=alice,
        name="订单修改 v2",
        content=skill.content + "\n\n最后一步：告知用户结果。",
        enabled=False,
    )
    second = skill.history.latest("history_id")
    changes = {c.field: c for c in history.skill_revision_diff(first, second)}
    assert sorted(changes) == ["content", "enabled", "name", "version"]
    assert (changes["name"].before, changes["name"].after) == (first.name, "订单修改 v2")
    assert (changes["enabled"].before, changes["enabled"].after) == (True, False)
    assert (changes["version"].before, changes["version"].after) == (1, 2)
    lines = changes["content"].lines
    assert lines[0].startswith("@@ ") and lines[-1] == "+最后一步：告知用户结果。"
    assert [line for line in lines if line.startswith("-")] == []


def test_revision_diff_is_plain_python_over_mappings():
    changes = revision_diff(
        {"name": "a", "content": "x\ny", "tool_ids": ["t"]},
        {"name": "b", "content": "x\nz", "tool_ids": ["t"]},
        ("name", "content", "tool_ids"),
    )
    assert [(c.field, c.before, c.after, c.lines) for c in changes] == [
        ("name", "a", "b", ()),
        ("content", "x\ny", "x\nz", ("@@ -1,2 +1,2 @@", " x", "-y", "+z")),
    ]


# ---- restore ---------------------------------------------------------------------------------
def test_restoring_a_revision_is_a_new_change_with_the_old_fields_and_a_new_version(bitmall, alice, bob):
    skill = Skill.objects.get(skill_code="order_change")
    original = skill.history.latest("history_id")
    catalog_services.skill_update(
        skill=skill, user=alice, name="改坏了", content="# 错误的手册", tool_ids=["cancel_order"]
    )
    restored = catalog_services.skill_revert(skill=skill, history_id=original.history_id, user=bob)
    assert (restored.name, restored.content, restored.tool_ids, restored.version) == (
        original.name,
        original.content,
        original.tool_ids,
        3,
    )
    last = skill.history.latest("history_id")
    assert (last.history_user, last.version, last.history_change_reason) == (
        bob,
        3,
        f"restored revision {original.history_id} (version 1)",
    )
    assert skill.history.count() == 3  # the restore added one record; none was rewritten


def test_restoring_only_an_enabled_flag_keeps_the_version(bitmall, alice):
    skill = Skill.objects.get(skill_code="order_change")
    original = skill.history.latest("history_id")
    catalog_services.skill_set_enabled(skill=skill, enabled=False, user=alice)
    restored = catalog_services.skill_revert(skill=skill, history_id=original.history_id, user=alice)
    assert (restored.enabled, restored.version) == (True, 1)


def test_restoring_the_current_values_or_another_skills_revision_is_refused(bitmall, alice):
    skill = Skill.objects.get(skill_code="order_change")
    other = Skill.objects.get(skill_code="iot_bundle").history.latest("history_id")
    current = skill.history.latest("history_id")
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_revert(skill=skill, history_id=current.history_id, user=alice)
    assert exc.value.messages == [f"skill 'order_change' already holds the values of revision {current.history_id}."]
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_revert(skill=skill, history_id=other.history_id, user=alice)
    assert exc.value.messages == [f"revision {other.history_id} is not a revision of skill 'order_change'."]
    assert skill.history.count() == 1


def test_a_refused_restore_keeps_the_code_and_params_a_page_translates_by(bitmall, alice):
    """The two refusals of ``skill_revert`` carry their codes (``revision_not_found``,
    ``revision_current``) and the revision and skill, which the pages translate by (message_catalog.py)."""
    skill = Skill.objects.get(skill_code="order_change")
    other = Skill.objects.get(skill_code="iot_bundle").history.latest("history_id")
    current = skill.history.latest("history_id")
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_revert(skill=skill, history_id=other.history_id, user=alice)
    assert (exc.value.code, exc.value.params) == (
        "revision_not_found",
        {"id": other.history_id, "code": "order_change"},
    )
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_revert(skill=skill, history_id=current.history_id, user=alice)
    assert (exc.value.code, exc.value.params) == (
        "revision_current",
        {"id": current.history_id, "code": "order_change"},
    )


def test_restoring_goes_through_validation_a_tool_no_longer_registered_refuses_it(bitmall, alice):
    skill = Skill.objects.get(skill_code="order_change")
    original = skill.history.latest("history_id")
    catalog_services.skill_update(skill=skill, user=alice, tool_ids=["change_address"])
    IntentNode.objects.filter(mcp_tool_id="cancel_order").update(enabled=False)
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_revert(skill=skill, history_id=original.history_id, user=alice)
    assert exc.value.message_dict == {"tool_ids": ["'cancel_order' belongs only to a disabled or deleted MCP node."]}
    assert Skill.objects.get(pk=skill.pk).tool_ids == ["change_address"]


# ---- the audit query -------------------------------------------------------------------------
@pytest.fixture
def writes(bitmall, alice, bob):
    """Four writes by two people on two days (the demo's own writes have no user)."""
    order = Skill.objects.get(skill_code="order_change")
    catalog_services.skill_update(skill=order, name="A1", user=alice)
    catalog_services.skill_update(skill=order, name="B1", user=bob)
    catalog_services.skill_set_enabled(skill=Skill.objects.get(skill_code="iot_bundle"), enabled=False, user=alice)
    catalog_services.access_profile_save(name="member", tools=["query_order"])
    profile = AccessProfile.history.latest("history_id")
    profile.history_user = bob
    profile.save()
    yesterday = timezone.now() - dt.timedelta(days=1)
    Skill.history.filter(name="A1").update(history_date=yesterday)
    return {"alice": alice, "bob": bob, "yesterday": timezone.localtime(yesterday).date()}


def labels(flt: history.AuditFilter) -> list[tuple[str, str]]:
    return [(r["record_kind"], r["record_label"]) for r in history.audit_queryset(flt)]


def test_audit_filters_by_person(writes):
    assert labels(history.AuditFilter(user=writes["alice"].pk)) == [("skill", "iot_bundle"), ("skill", "order_change")]
    assert labels(history.AuditFilter(user=writes["bob"].pk)) == [
        ("accessprofile", "member"),
        ("skill", "order_change"),
    ]


def test_audit_filters_by_record_type_and_record(writes):
    assert labels(history.AuditFilter(kind="accessprofile")) == [("accessprofile", "member")]
    rows = list(history.audit_queryset(history.AuditFilter(kind="skill", record="order_change")))
    assert [r["record_label"] for r in rows] == ["order_change"] * 3  # demo load, A1, B1
    assert labels(history.AuditFilter(record="no_such_record")) == []


def test_audit_filters_by_date_range(writes):
    day = writes["yesterday"]
    assert labels(history.AuditFilter(since=day, until=day)) == [("skill", "order_change")]
    today = timezone.localdate()
    assert ("skill", "order_change") in labels(history.AuditFilter(since=today))
    assert len(labels(history.AuditFilter(until=day - dt.timedelta(days=1)))) == 0


def test_audit_entries_say_what_changed_against_the_previous_revision(writes):
    rows = list(history.audit_queryset(history.AuditFilter(user=writes["bob"].pk, kind="skill")))
    (entry,) = history.audit_entries(rows)
    assert (entry.label, entry.action, entry.user) == ("order_change", "changed", writes["bob"])
    assert [(c.field, c.before, c.after) for c in entry.changes] == [("name", "A1", "B1"), ("version", 2, 3)]


# ---- roles -----------------------------------------------------------------------------------
def test_the_three_groups_exist_with_their_permissions(db):
    perms = {g.name: {p.codename for p in g.permissions.all()} for g in Group.objects.filter(name__in=roles.ROLES)}
    assert set(perms) == {"viewer", "editor", "publisher"}
    assert perms["viewer"] >= {"view_skill", "view_release", "view_historicalskill"}
    assert not any(c.startswith(("add_", "change_", "delete_")) for c in perms["viewer"])
    assert perms["editor"] - perms["viewer"] >= {"change_skill", "add_scenario", "change_intentnode", "delete_stage"}
    assert "publish_release" not in perms["editor"]
    assert perms["publisher"] - perms["editor"] == {
        "publish_release",
        "add_release",
        "change_release",
        "delete_release",
        "add_releaselabel",
        "change_releaselabel",
        "delete_releaselabel",
        "add_labelmove",
        "change_labelmove",
        "delete_labelmove",
        "add_runtimekey",
        "change_runtimekey",
        "delete_runtimekey",
    }


def test_migrate_puts_a_lost_permission_back_in_its_role(db):
    viewer = Group.objects.get(name="viewer")
    viewer.permissions.remove(Permission.objects.get(codename="view_skill"))
    call_command("migrate", verbosity=0)
    assert viewer.permissions.filter(codename="view_skill").exists()


@pytest.mark.parametrize(
    ("role", "view", "edit", "publish"),
    [("viewer", True, False, False), ("editor", True, True, False), ("publisher", True, True, True)],
)
def test_each_role_may_do_what_it_says(db, django_user_model, role, view, edit, publish):
    user = user_with_role(django_user_model, f"u_{role}", role)
    assert (roles.can_view(user), roles.can_edit(user), roles.can_publish(user)) == (view, edit, publish)
    assert roles.role_of(user) == role


def test_a_superuser_is_the_administrator_and_staff_alone_is_nothing(db, django_user_model):
    root = django_user_model.objects.create_user(username="root", password="x-pass-123", is_superuser=True)
    staff = django_user_model.objects.create_user(username="staff", password="x-pass-123", is_staff=True)
    assert (roles.role_of(root), roles.role_of(staff)) == ("administrator", None)
    assert roles.can_publish(root)  # and may do everything a publisher may


def test_ensure_admin_makes_a_superuser(db, django_user_model):
    call_command("ensure_admin", verbosity=0, stdout=io.StringIO())
    admin = django_user_model.objects.get()
    assert admin.is_superuser and roles.role_of(admin) == "administrator"
