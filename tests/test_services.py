"""Writes through the features' services (``skills_app.catalog.services`` …) against the bitmall demo (docs/design.md): refused saves
name the offending id and write nothing; versions move only on real changes; codes are immutable;
soft delete and restore; disabling a skill releases its tools in the draft catalog."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from skill_rule import compute_round
from skills_app.catalog import selectors
from skills_app.catalog import services as catalog_services
from skills_app.models import IntentNode, Scenario, Skill
from skills_app.simulation import services as simulation_services

NEW = {
    "skill_code": "refund_help",
    "name": "退款说明",
    "description": "用户询问退款时加载",
    "content": "# 退款\n先查订单。",
}


def skill(code: str) -> Skill:
    return Skill.objects.live().get(skill_code=code)


def masked_now() -> dict[str, str]:
    return dict(compute_round(selectors.catalog_draft(), []).masked)


@pytest.mark.parametrize(
    ("tool_ids", "message"),
    [
        pytest.param(
            ["query_order", "load_skill"],
            "'load_skill' is a builtin tool and can never be gated by a skill.",
            id="a builtin name",
        ),
        pytest.param(["cancel_orders"], "'cancel_orders' is not the tool of any MCP node.", id="an unknown id"),
        pytest.param(
            ["query_order", "cancel_order"],
            "'cancel_order' belongs only to a disabled or deleted MCP node.",
            id="the id of a disabled MCP node",
        ),
    ],
)
def test_skill_create_refuses_bad_tool_ids_naming_them_and_saves_nothing(bitmall, tool_ids, message) -> None:
    IntentNode.objects.filter(mcp_tool_id="cancel_order").update(enabled=False)
    before = Skill.objects.count()
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_create(**NEW, tool_ids=tool_ids)
    assert exc.value.message_dict == {"tool_ids": [message]}
    assert Skill.objects.count() == before
    assert not Skill.objects.filter(skill_code="refund_help").exists()


def test_a_node_under_a_disabled_parent_no_longer_registers_its_tool(bitmall) -> None:
    IntentNode.objects.filter(intent_code="order_change").update(enabled=False)
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_create(**NEW, tool_ids=["change_address"])
    assert exc.value.message_dict == {"tool_ids": ["'change_address' belongs only to a disabled or deleted MCP node."]}


def test_a_tool_id_named_by_another_enabled_node_is_still_accepted(bitmall) -> None:
    IntentNode.objects.filter(mcp_tool_id="cancel_order").update(enabled=False)
    catalog_services.intent_node_save(
        intent_code="cancel_again",
        name="再次取消",
        kind=IntentNode.Kind.MCP,
        parent=IntentNode.objects.get(intent_code="order_query"),
        mcp_tool_id="cancel_order",
    )
    created = catalog_services.skill_create(**NEW, tool_ids=["cancel_order"])
    assert created.tool_ids == ["cancel_order"]


def test_skill_create_normalizes_tool_ids_and_starts_at_version_1(bitmall) -> None:
    created = catalog_services.skill_create(**NEW, tool_ids=["query_order", " ", "pay_order", "query_order"])
    created.refresh_from_db()
    assert (created.tool_ids, created.version) == (["query_order", "pay_order"], 1)


def test_skill_create_refuses_a_code_a_live_skill_has(bitmall) -> None:
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_create(**{**NEW, "skill_code": "order_change"})
    assert exc.value.message_dict == {"skill_code": ["a live skill with code 'order_change' already exists."]}
    assert Skill.objects.filter(skill_code="order_change").count() == 1


def test_skill_update_bumps_version_only_when_something_changed(bitmall) -> None:
    s = skill("order_change")
    assert s.version == 1
    same = catalog_services.skill_update(
        skill=s,
        name=s.name,
        description=s.description,
        content=s.content,
        tool_ids="cancel_order, change_address, cancel_order",
        sort_order=s.sort_order,
    )
    assert same.version == 1
    changed = catalog_services.skill_update(skill=s, description="取消订单或修改地址时加载")
    assert changed.version == 2
    assert skill("order_change").version == 2
    reordered = catalog_services.skill_update(skill=s, tool_ids=["change_address", "cancel_order"])
    assert (reordered.version, reordered.tool_ids) == (3, ["change_address", "cancel_order"])


def test_a_refused_update_saves_nothing(bitmall) -> None:
    s = skill("order_change")
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_update(skill=s, name="新名字", tool_ids=["cancel_order", "flush_memory"])
    assert exc.value.message_dict == {
        "tool_ids": ["'flush_memory' is a builtin tool and can never be gated by a skill."]
    }
    fresh = skill("order_change")
    assert (fresh.name, fresh.tool_ids, fresh.version) == ("订单修改", ["cancel_order", "change_address"], 1)


def test_the_skill_code_is_immutable(bitmall) -> None:
    s = skill("order_change")
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_update(skill=s, skill_code="order_edit")
    assert exc.value.message_dict == {"skill_code": ["skill code 'order_change' cannot be changed after creation."]}
    assert skill("order_change").version == 1
    assert not Skill.objects.filter(skill_code="order_edit").exists()


def test_disabling_a_skill_releases_its_tools_in_the_draft_catalog(bitmall) -> None:
    assert {"cancel_order", "change_address"} <= set(masked_now())
    disabled = catalog_services.skill_set_enabled(skill=skill("order_change"), enabled=False)
    assert (disabled.enabled, disabled.version) == (False, 1)  # enabling/disabling keeps the version
    view = compute_round(selectors.catalog_draft(), [])
    assert "cancel_order" not in view.masked and "change_address" not in view.masked
    assert {"cancel_order", "change_address"} <= set(view.visible)
    assert view.count == 13
    catalog_services.skill_set_enabled(skill=disabled, enabled=True)
    assert {"cancel_order", "change_address"} <= set(masked_now())


def test_deleting_a_skill_releases_its_tools_and_restoring_masks_them_again(bitmall) -> None:
    deleted = catalog_services.skill_delete(skill=skill("order_checkout"))
    assert deleted.deleted_at is not None and deleted.version == 1
    assert not Skill.objects.live().filter(skill_code="order_checkout").exists()
    assert set(masked_now()) == {"apply_after_sale", "cancel_order", "change_address"}
    restored = catalog_services.skill_restore(skill=deleted)
    assert restored.deleted_at is None and restored.version == 1
    assert set(masked_now()) >= {"update_cart_item", "create_order", "pay_order"}


def test_restore_is_refused_when_a_live_skill_took_the_code(bitmall) -> None:
    old = catalog_services.skill_delete(skill=skill("order_change"))
    catalog_services.skill_create(**{**NEW, "skill_code": "order_change"}, tool_ids=["cancel_order"])
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_restore(skill=old)
    assert exc.value.message_dict == {"skill_code": ["a live skill with code 'order_change' already exists."]}
    old.refresh_from_db()
    assert old.deleted_at is not None
    assert Skill.objects.live().get(skill_code="order_change").name == NEW["name"]


def test_restore_is_refused_when_a_tool_id_no_longer_validates(bitmall) -> None:
    old = catalog_services.skill_delete(skill=skill("after_sale_apply"))
    IntentNode.objects.filter(mcp_tool_id="apply_after_sale").update(enabled=False)
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_restore(skill=old)
    assert exc.value.message_dict == {
        "tool_ids": ["'apply_after_sale' belongs only to a disabled or deleted MCP node."]
    }
    old.refresh_from_db()
    assert old.deleted_at is not None


def test_scenario_save_refuses_bad_yaml_naming_the_line(bitmall) -> None:
    before = Scenario.objects.count()
    with pytest.raises(ValidationError) as exc:
        simulation_services.scenario_save(name="broken", script="steps:\n  - user: hi\n   - assistant: x\n")
    assert exc.value.message_dict == {
        "script": ["scenario 'broken':3: invalid YAML: expected <block end>, but found '<block sequence start>'"]
    }
    assert Scenario.objects.count() == before


def test_scenario_save_replaces_a_scenario_by_name(bitmall) -> None:
    simulation_services.scenario_save(name="probe", script="- assistant: x\n")
    simulation_services.scenario_save(name="probe", script="- assistant: y\n", description="second")
    assert list(Scenario.objects.filter(name="probe").values_list("script", "description")) == [
        ("- assistant: y\n", "second")
    ]


def test_skill_update_refuses_a_save_over_a_newer_version(bitmall):
    from django.core.exceptions import ValidationError

    from skills_app.catalog import services as catalog_services
    from skills_app.models import Skill

    skill = Skill.objects.live().get(skill_code="order_change")
    started_from = skill.version
    catalog_services.skill_update(skill=skill, name="订单修改（他人先保存）")
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_update(skill=skill, name="我的修改", expected_version=started_from)
    assert exc.value.error_list[0].code == "skill_stale"
    assert f"editing version {started_from}" in exc.value.messages[0]
    fresh = Skill.objects.get(pk=skill.pk)
    assert (fresh.name, fresh.version) == ("订单修改（他人先保存）", started_from + 1)


def test_an_intent_node_cannot_name_a_builtin_tool_or_go_below_a_topic(bitmall):
    from django.core.exceptions import ValidationError
    from django.utils import translation

    from skills_app.catalog import services as catalog_services
    from skills_app.models import IntentNode

    with translation.override("en"), pytest.raises(ValidationError) as exc:
        catalog_services.intent_node_save(intent_code="sneaky", name="偷渡", kind="MCP", mcp_tool_id="load_skill")
    assert exc.value.message_dict == {"mcp_tool_id": ["'load_skill' is a reserved builtin tool name."]}
    topic = IntentNode.objects.get(mcp_tool_id="cancel_order")
    with translation.override("en"), pytest.raises(ValidationError) as exc:
        catalog_services.intent_node_save(intent_code="too_deep", name="第四层", kind="SYSTEM", parent=topic)
    assert exc.value.message_dict["parent"] == ["'cancel_order_topic' is a topic (level 2); the tree has three levels."]
    assert not IntentNode.objects.filter(intent_code__in=["sneaky", "too_deep"]).exists()


@pytest.mark.parametrize(("field", "value"), [("eviction_prefix", "#"), ("marker_key", "a b"), ("marker_key", "")])
def test_settings_refuse_a_marker_key_or_eviction_prefix_that_would_break_the_rule(db, field, value):
    from django.core.exceptions import ValidationError

    from skills_app.models import ConsoleSettings

    settings_row = ConsoleSettings.load()
    setattr(settings_row, field, value)
    with pytest.raises(ValidationError) as exc:
        settings_row.full_clean()
    assert list(exc.value.message_dict) == [field]


# --- the refusal to disable, unbind or delete an intent node that skills gate (docs/mcp.md, "Nodes") ---

GATED_IN_ORDER = ["zz_first", "aa_tie", "bb_tie", "order_change", "late"]


@pytest.fixture
def cancel_gated_by_five(bitmall) -> IntentNode:
    """``cancel_order`` gated by five live, enabled skills (sort_order 5, 20, 20, 20, 90; the ties
    by code), plus a disabled and a deleted skill that gate it too and must not be named."""
    for code, order, enabled in [
        ("late", 90, True),
        ("bb_tie", 20, True),
        ("zz_first", 5, True),
        ("aa_tie", 20, True),
        ("off_skill", 1, False),
        ("gone", 1, True),
    ]:
        catalog_services.skill_create(
            **{**NEW, "skill_code": code}, tool_ids=["cancel_order"], sort_order=order, enabled=enabled
        )
    catalog_services.skill_delete(skill=skill("gone"))
    return IntentNode.objects.get(intent_code="cancel_order_topic")


def test_deleting_a_gated_node_names_the_enabled_live_skills_in_catalog_order(cancel_gated_by_five) -> None:
    node = cancel_gated_by_five
    assert catalog_services.intent_node_gating_skills(node=node, deleted=True) == GATED_IN_ORDER
    with pytest.raises(ValidationError) as exc:
        catalog_services.intent_node_delete(node=node)
    refusal = exc.value.error_list[0]
    assert refusal.code == "node_gated"
    assert refusal.params == {
        "code": "cancel_order_topic",
        "tool": "cancel_order",
        "skills": "zz_first, aa_tie, bb_tie, order_change, late",
    }
    assert str(exc.value.messages[0]) == (
        "intent node 'cancel_order_topic' registers tool 'cancel_order', which skills "
        "zz_first, aa_tie, bb_tie, order_change, late gate; disabling or deleting it would break them "
        "(force it to flag them broken)"
    )
    assert IntentNode.objects.get(pk=node.pk).deleted_at is None


def test_a_forced_delete_of_a_gated_node_deletes_it_and_returns_the_skills_it_broke(cancel_gated_by_five) -> None:
    node = cancel_gated_by_five
    assert catalog_services.intent_node_delete(node=node, force=True) == GATED_IN_ORDER
    assert IntentNode.objects.get(pk=node.pk).deleted_at is not None


def _save_like(node: IntentNode, **changes):
    fields = dict(
        intent_code=node.intent_code,
        name=node.name,
        kind=node.kind,
        parent=node.parent,
        mcp_tool_id=node.mcp_tool_id,
        require_confirm=node.require_confirm,
        description=node.description,
        examples=node.examples,
        sort_order=node.sort_order,
    )
    return catalog_services.intent_node_save(**{**fields, **changes})


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"enabled": False}, id="disabling it"),
        pytest.param({"mcp_tool_id": ""}, id="unbinding its tool"),
        pytest.param({"mcp_tool_id": "cancel_order_v2"}, id="binding another tool"),
        pytest.param({"kind": IntentNode.Kind.SYSTEM, "mcp_tool_id": ""}, id="making it a system node"),
    ],
)
def test_saving_a_gated_node_so_it_no_longer_registers_the_tool_is_refused(cancel_gated_by_five, change) -> None:
    node = cancel_gated_by_five
    future = {
        "enabled": change.get("enabled", True),
        "kind": change.get("kind"),
        "mcp_tool_id": change.get("mcp_tool_id"),
    }
    assert catalog_services.intent_node_gating_skills(node=node, **future) == GATED_IN_ORDER
    with pytest.raises(ValidationError) as exc:
        _save_like(node, **change)
    assert exc.value.error_list[0].code == "node_gated"
    assert exc.value.error_list[0].params["skills"] == "zz_first, aa_tie, bb_tie, order_change, late"
    fresh = IntentNode.objects.get(pk=node.pk)
    assert (fresh.enabled, fresh.kind, fresh.mcp_tool_id) == (True, IntentNode.Kind.MCP, "cancel_order")


def test_a_forced_disable_of_a_gated_node_saves_it(cancel_gated_by_five) -> None:
    saved = _save_like(cancel_gated_by_five, enabled=False, force=True)
    assert IntentNode.objects.get(pk=saved.pk).enabled is False


def test_saving_a_gated_node_that_still_registers_its_tool_is_allowed(cancel_gated_by_five) -> None:
    node = cancel_gated_by_five
    assert catalog_services.intent_node_gating_skills(node=node, enabled=True, mcp_tool_id=" cancel_order ") == []
    assert catalog_services.intent_node_gating_skills(node=node, enabled=True) == []
    saved = _save_like(node, name="取消订单（改名）", mcp_tool_id="cancel_order")
    assert (saved.name, saved.enabled, saved.mcp_tool_id) == ("取消订单（改名）", True, "cancel_order")


def test_a_node_whose_tool_another_mcp_node_registers_gates_nothing(cancel_gated_by_five) -> None:
    node = cancel_gated_by_five
    catalog_services.intent_node_save(
        intent_code="cancel_again",
        name="再次取消",
        kind=IntentNode.Kind.MCP,
        parent=IntentNode.objects.get(intent_code="order_query"),
        mcp_tool_id="cancel_order",
    )
    assert catalog_services.intent_node_gating_skills(node=node, deleted=True) == []
    assert catalog_services.intent_node_delete(node=node) == []


@pytest.mark.parametrize(
    "state",
    [
        pytest.param({"enabled": False}, id="a disabled node"),
        pytest.param({"deleted_at": "now"}, id="a deleted node"),
    ],
)
def test_a_node_that_registers_nothing_today_gates_nothing(cancel_gated_by_five, state) -> None:
    from django.utils import timezone

    node = cancel_gated_by_five
    IntentNode.objects.filter(pk=node.pk).update(**{k: timezone.now() if v == "now" else v for k, v in state.items()})
    node.refresh_from_db()
    assert catalog_services.intent_node_gating_skills(node=node, deleted=True) == []


def test_an_unsaved_node_gates_nothing(bitmall) -> None:
    unsaved = IntentNode(intent_code="new_one", name="新", kind=IntentNode.Kind.MCP, mcp_tool_id="cancel_order")
    assert catalog_services.intent_node_gating_skills(node=unsaved, deleted=True) == []


# ---- a skill code named like a tool (issue 29 item 6) -----------------------------------------
@pytest.mark.parametrize(
    "code",
    [
        pytest.param("query_order", id="the tool of an enabled node"),
        pytest.param("cancel_order", id="the tool of a disabled node"),
    ],
)
def test_skill_create_refuses_a_code_that_is_an_mcp_tools_name_naming_the_tool(bitmall, code) -> None:
    """``load_skill``'s enum would list a "skill" named like a tool beside it: refused as the
    builtin names are, naming the tool; nothing is saved."""
    IntentNode.objects.filter(mcp_tool_id="cancel_order").update(enabled=False)
    before = Skill.objects.count()
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_create(**{**NEW, "skill_code": code})
    assert exc.value.message_dict == {
        "skill_code": [
            f"skill code '{code}' is the name of the MCP tool '{code}'; the model would see a skill and a tool "
            "of one name. Choose another code."
        ]
    }
    assert Skill.objects.count() == before


def test_skill_create_refuses_the_name_of_a_synced_tool_on_no_node(bitmall) -> None:
    """A tool definition still offered (synced or typed in) but bound to no node is a tool the model
    may get as soon as a node names it: its name is refused too; a removed one's is free."""
    from django.utils import timezone

    from skills_app.models import McpTool

    McpTool.objects.create(name="track_parcel", input_schema={"type": "object"})
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_create(**{**NEW, "skill_code": "track_parcel"})
    assert list(exc.value.message_dict) == ["skill_code"]
    assert "'track_parcel'" in exc.value.message_dict["skill_code"][0]
    McpTool.objects.filter(name="track_parcel").update(removed_at=timezone.now())
    assert catalog_services.skill_create(**{**NEW, "skill_code": "track_parcel"}).skill_code == "track_parcel"


def test_restore_is_refused_when_an_mcp_tool_took_the_code(bitmall) -> None:
    """Restoring revives a code: refused while an MCP node's tool carries it, naming the tool. A
    live skill's code is fixed: its edits still save when a tool took its name later (the sync
    warns instead, docs/mcp.md)."""
    old = catalog_services.skill_delete(skill=skill("iot_bundle"))
    IntentNode.objects.filter(mcp_tool_id="current_date").update(mcp_tool_id="iot_bundle")
    with pytest.raises(ValidationError) as exc:
        catalog_services.skill_restore(skill=old)
    assert exc.value.message_dict == {
        "skill_code": [
            "skill code 'iot_bundle' is the name of the MCP tool 'iot_bundle'; the model would see a skill and "
            "a tool of one name. Choose another code."
        ]
    }
    old.refresh_from_db()
    assert old.deleted_at is not None
    fault = catalog_services.skill_update(skill=skill("fault_diagnosis"), name="故障诊断（新）")
    IntentNode.objects.filter(mcp_tool_id="submit_ticket").update(mcp_tool_id="fault_diagnosis")
    saved = catalog_services.skill_update(skill=skill("fault_diagnosis"), name="故障诊断")
    assert (saved.name, saved.version) == ("故障诊断", fault.version + 1)
