"""The demo catalogs as shipped: bitmall (seed 000, docs/demo.md) and returns (seed 004, ISSUE 3 —
access profiles and stages restrict MCP tools only; a path-like load_skill code is refused)."""

from __future__ import annotations

import json
import shutil
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from skill_rule import compute_round, parse_script, simulate
from skills_app.catalog import demo as demo_catalogs
from skills_app.catalog import selectors as catalog_selectors
from skills_app.catalog.demo import DemoError, demo_load
from skills_app.models import IntentNode, McpTool, Skill
from skills_app.simulation import selectors as simulation_selectors

BUILTINS = ["search_knowledge", "load_skill", "flush_memory"]
BITMALL_MCP = [
    "query_order",
    "query_logistics",
    "query_after_sale",
    "apply_after_sale",
    "cancel_order",
    "change_address",
    "search_product",
    "query_cart",
    "query_coupons",
    "update_cart_item",
    "create_order",
    "pay_order",
    "submit_ticket",
    "current_date",
]
WRITE_TOOLS = {
    "apply_after_sale",
    "cancel_order",
    "change_address",
    "update_cart_item",
    "create_order",
    "pay_order",
    "submit_ticket",
}


def simulate_json(*args: str) -> dict:
    out = StringIO()
    call_command("simulate", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


# --- bitmall ------------------------------------------------------------------------------------


def test_bitmall_registers_17_tools_in_design_order(bitmall) -> None:
    catalog = catalog_selectors.catalog_draft()
    assert [t.name for t in catalog.registered_tools] == BUILTINS + BITMALL_MCP
    assert [t.kind for t in catalog.registered_tools] == ["builtin"] * 3 + ["mcp"] * 14


def test_bitmall_write_tools_require_confirmation_and_read_tools_do_not(bitmall) -> None:
    confirm = {t.name for t in catalog_selectors.catalog_draft().registered_tools if t.require_confirm}
    assert confirm == WRITE_TOOLS
    read_only = {t.name for t in McpTool.objects.all() if t.annotations.get("readOnlyHint") is True}
    assert read_only == set(BITMALL_MCP) - WRITE_TOOLS


def test_bitmall_skills_gate_the_design_tools(bitmall) -> None:
    assert [(s.code, s.tool_ids) for s in catalog_selectors.catalog_draft().enabled_skills] == [
        ("after_sale_apply", ("apply_after_sale",)),
        ("order_change", ("cancel_order", "change_address")),
        ("fault_diagnosis", ()),
        ("order_checkout", ("update_cart_item", "create_order", "pay_order")),
        ("iot_bundle", ()),
    ]


# --- returns: each scenario gives exactly its lists ----------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "mcp_visible"),
    [
        ("policy-query-member", ["policy_search"]),
        ("return-query", ["order_query"]),
        ("return-prepare", ["order_query", "prepare_return"]),
        ("return-prepare-no-tools", []),
        ("load-unknown-skill", ["submit"]),
    ],
)
def test_returns_scenarios_give_exactly_their_tools(returns, scenario, mcp_visible) -> None:
    doc = simulate_json(scenario)
    final = doc["rounds"][-1]
    assert final["mcp_visible"] == mcp_visible
    assert final["visible"] == BUILTINS + mcp_visible
    assert all(r["builtins"] == BUILTINS for r in doc["rounds"])
    assert doc["passed"] is True


def test_returns_profiles_and_stages_apply_to_the_loaded_round(returns) -> None:
    rounds = simulate_json("policy-query-member")["rounds"]
    assert (rounds[0]["loaded"], rounds[0]["mcp_visible"]) == ([], [])
    assert rounds[0]["withheld"] == {"prepare_return": "stage", "submit": "stage"}
    # prepare_return is outside the stage: withheld, never "masked → load return"
    assert (rounds[1]["loaded"], rounds[1]["masked"]) == (["policy"], {"order_query": "return"})
    assert rounds[1]["withheld"] == {"prepare_return": "stage", "submit": "stage"}


def test_no_business_tools_refuses_a_released_tool_as_not_permitted(returns) -> None:
    rounds = simulate_json("return-prepare-no-tools")["rounds"]
    (call,) = rounds[1]["calls"]
    assert (call["name"], call["verdict"], call["reason"]) == ("order_query", "refused", "not_permitted")
    assert rounds[1]["loaded"] == ["return"]


def test_a_path_like_load_skill_code_is_refused_and_releases_nothing(returns) -> None:
    rounds = simulate_json("load-unknown-skill")["rounds"]
    (call,) = rounds[0]["calls"]
    assert (call["name"], call["arguments"]) == ("load_skill", {"skill_code": "../../secret"})
    assert (call["verdict"], call["reason"], call["state"]) == ("refused", "unknown_skill", "error")
    assert call["result"] == "unknown skill '../../secret'; skills on offer: policy, return"
    for manual in Skill.objects.values_list("content", flat=True):  # nothing read
        assert manual.strip().splitlines()[0] not in call["result"]
    assert [r["loaded"] for r in rounds] == [[], []]
    assert (
        rounds[1]["masked"]
        == rounds[0]["masked"]
        == {"policy_search": "policy", "order_query": "return", "prepare_return": "return"}
    )
    assert rounds[1]["released"] == [] and rounds[1]["newly_released"] == []


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (("--stage", "submit"), "unknown stage 'submit'; stages on offer: prepare, query"),
        (
            ("--profile", "guest"),
            "unknown access profile 'guest'; access profiles on offer: member_full, no_business_tools",
        ),
    ],
)
def test_an_unknown_stage_or_profile_is_a_clear_cli_error(returns, option, message) -> None:
    with pytest.raises(CommandError) as exc:
        simulate_json("return-query", *option)
    assert str(exc.value) == message


def test_a_stage_named_on_the_command_line_overrides_the_scripts(returns) -> None:
    with pytest.raises(CommandError) as exc:  # return-query expects the query stage's single tool
        simulate_json("return-query", "--stage", "prepare")
    assert str(exc.value) == "1 expectation(s) not met: round 2: mcp_visible: unexpected prepare_return"


def test_a_tool_removed_from_the_registry_drops_out_with_a_warning(returns) -> None:
    IntentNode.objects.filter(mcp_tool_id="prepare_return").update(enabled=False)
    catalog = catalog_selectors.catalog_draft()
    script = parse_script(simulation_selectors.scenario_get(name="return-prepare").script)
    sim = simulate(catalog, script, access_profile="member_full")
    assert sim.warnings == (
        "access profile 'member_full' lists tools that are no longer registered: prepare_return",
        "stage 'prepare' lists tools that are no longer registered: prepare_return",
    )
    assert sim.rounds[-1].view.mcp_visible == ("order_query",)
    view = compute_round(catalog, [], stage="prepare")
    assert view.warnings == (
        "stage 'prepare' lists tools that are no longer registered: prepare_return",
        "skill 'return' gates tools that are no longer registered: prepare_return",
    )
    # neither visible nor shown as masked: it is simply gone from the registry
    assert view.gated == ("policy_search", "order_query")
    assert dict(view.masked) == {"order_query": "return"}  # policy_search is outside the stage: withheld
    assert dict(view.withheld) == {"policy_search": "stage", "submit": "stage"}


# --- the loader is all or nothing ------------------------------------------------------------------


def test_a_broken_demo_names_the_file_and_writes_nothing(db, tmp_path, monkeypatch) -> None:
    shutil.copytree(demo_catalogs.DEMO_DIR / "returns", tmp_path / "shop")
    catalog = tmp_path / "shop" / "catalog.yaml"
    catalog.write_text(
        catalog.read_text(encoding="utf-8").replace(
            "tool_ids: [order_query, prepare_return]", "tool_ids: [order_query, load_skill]"
        ),
        encoding="utf-8",
    )
    monkeypatch.setattr(demo_catalogs, "DEMO_DIR", tmp_path)
    with pytest.raises(DemoError) as exc:
        demo_load(name="shop")
    assert str(exc.value) == (
        f"{catalog}: skill return: 'load_skill' is a builtin tool and can never be gated by a skill."
    )
    assert (IntentNode.objects.count(), McpTool.objects.count(), Skill.objects.count()) == (0, 0, 0)
