"""Call targets (docs/mcp.md, "How a runtime maps calls back"): a model-facing tool name → the MCP
server and the real tool name; snapshot format 2 carries them, format 1 still loads, and a catalog
without targets keeps the sha256 it had before format 2 existed. Library tests, no database."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from skill_rule import Catalog, Tool, check_call
from skill_rule.catalog import BUILTIN
from skill_rule.limits import DEFAULT_LOAD_SKILL_HEADER
from skill_rule.releases import catalog_diff
from skill_rule.snapshot import SnapshotError, body_sha256, catalog_from_snapshot, catalog_to_snapshot

from .factories import ALPHA, BETA, loaded, shop, user

#: A format-1 snapshot as releases stored it before call targets existed, and its sha256 then.
FORMAT_1 = {
    "format": 1,
    "settings": {
        "marker_key": "ragent_loaded_skill",
        "eviction_prefix": "[历史工具结果已省略，原长 ",
        "load_skill_header": DEFAULT_LOAD_SKILL_HEADER,
    },
    "tools": [
        {
            "name": "load_skill",
            "kind": "builtin",
            "title": "",
            "description": "load a manual",
            "inputSchema": {
                "type": "object",
                "properties": {"skill_code": {"type": "string"}},
                "required": ["skill_code"],
            },
            "annotations": {},
            "require_confirm": False,
        },
        {
            "name": "cancel_order",
            "kind": "mcp",
            "title": "取消订单",
            "description": "cancel an order",
            "inputSchema": {"type": "object", "properties": {"order_no": {"type": "string"}}, "required": ["order_no"]},
            "annotations": {"readOnlyHint": False},
            "require_confirm": True,
        },
    ],
    "skills": [
        {
            "code": "order_change",
            "name": "订单变更",
            "description": "取消订单前加载",
            "content": "# 取消\n先确认。",
            "tool_ids": ["cancel_order"],
            "sort_order": 1,
            "version": 3,
        }
    ],
    "access_profiles": [],
    "stages": [],
}
FORMAT_1_SHA256 = "3cefe0556195356a83a5de07cebec5e6ea3c9266134c880632267310b2a2695e"
#: ``body_sha256(catalog_to_snapshot(shop(ALPHA, BETA, profiles={"reader": {"lookup"}})))`` computed on
#: main before this change: a catalog without call targets hashes exactly as it did.
SHOP_SHA256_BEFORE_FORMAT_2 = "29b4df9a1b48c199a0d3cff2297ae988afbf376538ebfdd7167edccc3604e788"


# --- Tool.call_target: table ------------------------------------------------------------------

TARGET_CASES = [
    # (case, tool, call_target)
    ("builtin", Tool("load_skill", kind=BUILTIN), None),
    ("builtin with stray fields", Tool("flush_memory", kind=BUILTIN, server="x", mcp_name="y"), None),
    ("mcp tool typed in without a server", Tool("cancel_order"), None),
    (
        "synced mcp tool, same name",
        Tool("cancel_order", server="bitmall", mcp_name="cancel_order"),
        {"server": "bitmall", "tool": "cancel_order"},
    ),
    (
        "synced mcp tool, dotted real name",
        Tool("bitmall-cancel-order", server="shop", mcp_name="bitmall.cancel-order"),
        {"server": "shop", "tool": "bitmall.cancel-order"},
    ),
    ("server without a real name", Tool("half", server="shop"), None),
    ("real name without a server", Tool("half", mcp_name="half.tool"), None),
]


@pytest.mark.parametrize("case, tool, expected", TARGET_CASES, ids=[c[0] for c in TARGET_CASES])
def test_call_target(case, tool, expected):
    assert tool.call_target == expected


# --- snapshots: table of what is written ------------------------------------------------------

SNAPSHOT_CASES = [
    # (case, tools, format, the keys of the last tool)
    (
        "no targets: format 1, format-1 keys",
        (Tool("cancel_order"),),
        1,
        ["name", "kind", "title", "description", "inputSchema", "annotations", "require_confirm"],
    ),
    (
        "a target: format 2 with server and mcp_name",
        (Tool("cancel-order", server="shop", mcp_name="cancel.order"),),
        2,
        ["name", "kind", "title", "description", "inputSchema", "annotations", "require_confirm", "server", "mcp_name"],
    ),
    (
        "targets on some tools only: the others keep format-1 keys",
        (Tool("cancel-order", server="shop", mcp_name="cancel.order"), Tool("typed_in")),
        2,
        ["name", "kind", "title", "description", "inputSchema", "annotations", "require_confirm"],
    ),
]


@pytest.mark.parametrize("case, tools, fmt, keys", SNAPSHOT_CASES, ids=[c[0] for c in SNAPSHOT_CASES])
def test_snapshot_format_and_tool_keys(case, tools, fmt, keys):
    snapshot = catalog_to_snapshot(Catalog(tools=(Tool("load_skill", kind=BUILTIN), *tools)))
    assert snapshot["format"] == fmt
    assert list(snapshot["tools"][-1]) == keys
    assert list(snapshot["tools"][0]) == keys[:7]  # a builtin never carries a target
    back = catalog_from_snapshot(snapshot)
    assert back.tools == (Tool("load_skill", kind=BUILTIN), *tools)
    assert catalog_to_snapshot(back) == snapshot


def test_a_format_1_snapshot_loads_without_targets_and_keeps_its_sha256():
    assert body_sha256(FORMAT_1) == FORMAT_1_SHA256
    catalog = catalog_from_snapshot(FORMAT_1, release=3)
    assert [(t.name, t.server, t.mcp_name, t.call_target) for t in catalog.tools] == [
        ("load_skill", None, None, None),
        ("cancel_order", None, None, None),
    ]
    again = catalog_to_snapshot(catalog)
    assert again == FORMAT_1
    assert body_sha256(again) == FORMAT_1_SHA256


def test_a_catalog_without_targets_hashes_as_before_format_2():
    # the manuals the shop had when the hash was taken (tests/domain/factories.py now writes "# alpha manual")
    alpha = replace(ALPHA, content="# alpha manual\nuse refund, cancel")
    beta = replace(BETA, content="# beta manual\nuse cancel, ship")
    assert (
        body_sha256(catalog_to_snapshot(shop(alpha, beta, profiles={"reader": {"lookup"}})))
        == SHOP_SHA256_BEFORE_FORMAT_2
    )


def test_adding_a_target_changes_the_sha256_and_shows_in_the_diff():
    before = shop(ALPHA)
    after = replace(
        before,
        tools=tuple(
            replace(t, server="shop", mcp_name="shop.cancel") if t.name == "cancel" else t for t in before.tools
        ),
    )
    assert body_sha256(catalog_to_snapshot(after)) != body_sha256(catalog_to_snapshot(before))
    diff = catalog_diff(before, after)
    assert [(i.name, [(c.field, c.before, c.after) for c in i.changes]) for i in diff.tools_changed] == [
        ("cancel", [("server", None, "shop"), ("mcp_name", None, "shop.cancel")])
    ]
    assert not diff.confirm_changed and not diff.newly_gated


@pytest.mark.parametrize("value", [7, ["shop"], {"a": 1}, True])
@pytest.mark.parametrize("key", ["server", "mcp_name"])
def test_a_target_field_of_the_wrong_type_is_refused_naming_the_tool(key, value):
    snapshot: dict[str, Any] = {**FORMAT_1, "tools": [dict(t) for t in FORMAT_1["tools"]]}
    snapshot["tools"][1][key] = value
    with pytest.raises(SnapshotError, match=rf"tools\[1\]: '{key}' must be str, not {type(value).__name__}"):
        catalog_from_snapshot(snapshot)


# --- the guard's verdict: table ---------------------------------------------------------------


def targeted() -> Catalog:
    """``shop(ALPHA)`` with ``refund`` and ``lookup`` synced from ``shop`` under dotted real names."""
    base = shop(ALPHA)
    real = {"refund": "orders.refund", "lookup": "catalog.lookup"}
    return replace(
        base, tools=tuple(replace(t, server="shop", mcp_name=real[t.name]) if t.name in real else t for t in base.tools)
    )


VERDICT_CASES = [
    # (case, messages, call, verdict, target)
    (
        "allowed mcp tool",
        [user("hi")],
        {"name": "lookup", "arguments": {"q": "x"}},
        "allowed",
        {"server": "shop", "tool": "catalog.lookup"},
    ),
    (
        "confirm mcp tool",
        [user("hi"), *loaded("alpha")],
        {"name": "refund", "arguments": {}},
        "confirm",
        {"server": "shop", "tool": "orders.refund"},
    ),
    ("masked", [user("hi")], {"name": "refund", "arguments": {}}, "refused", None),
    ("invalid arguments", [user("hi")], {"name": "lookup", "arguments": {"q": ""}}, "refused", None),
    ("unknown tool", [user("hi")], {"name": "orders.refund", "arguments": {}}, "refused", None),
    ("builtin", [user("hi")], {"name": "load_skill", "arguments": {"skill_code": "alpha"}}, "allowed", None),
    ("mcp tool without a server", [user("hi")], {"name": "ship", "arguments": {}}, "allowed", None),
]


@pytest.mark.parametrize("case, messages, call, verdict, target", VERDICT_CASES, ids=[c[0] for c in VERDICT_CASES])
def test_verdict_target(case, messages, call, verdict, target):
    result = check_call(targeted(), messages, call)
    assert (result.verdict, result.target) == (verdict, target)
    assert (result.server, result.tool) == ((target or {}).get("server"), (target or {}).get("tool"))
    assert "target" not in result.as_dict()  # simulator output unchanged; the API adds it


def test_a_release_of_a_targeted_catalog_answers_the_same_targets():
    catalog = targeted()
    back = catalog_from_snapshot(catalog_to_snapshot(catalog), release=2)
    for _case, messages, call, _verdict, target in VERDICT_CASES:
        assert check_call(back, messages, call).target == target
