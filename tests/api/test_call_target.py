"""The runtime API maps calls back to the real MCP tool (docs/mcp.md, "How a runtime maps calls
back"; docs/runtime-api.md): ``check-call`` answers the ``target`` of an allowed or confirm call,
the catalog's MCP tools carry ``server`` and ``mcp_name``, and the OpenAPI schema states both.

The demo's definitions are made synced the way ``mcp_sync`` leaves them (server record, real name
— ``cancel_order`` under the real name ``orders.cancel`` — and ``synced_at``); syncing the real
demo server is tests/mcp/test_call_mapping.py's."""

from __future__ import annotations

import pytest
from django.db.models import F
from django.utils import timezone
from rest_framework.test import APIClient

from skills_app.mcp.services import mcp_server_save
from skills_app.models import McpTool
from tests.api.support import CATALOG, CHECK_CALL, USER, loaded, publish


@pytest.fixture
def synced(bitmall):
    """Release 1 (the demo as typed in, no targets) and release 2 (the same tools synced from
    ``bitmall``); returns the number of release 2."""
    server = mcp_server_save(name="bitmall", transport="stdio", command="python", args=["-m", "x"])
    McpTool.objects.update(mcp_server=server, server="bitmall", tool_name=F("name"), synced_at=timezone.now())
    McpTool.objects.filter(name="cancel_order").update(tool_name="orders.cancel")
    return publish("bitmall synced: call targets")


def verdict(post, messages, name, arguments, **extra):
    response = post(CHECK_CALL, {"messages": messages, "call": {"name": name, "arguments": arguments}, **extra})
    assert response.status_code == 200, response.content
    body = response.json()
    return body["verdict"], body["reason"], body["target"]


CASES = [
    # (case, messages, name, arguments, (verdict, reason, target))
    (
        "allowed read-only tool",
        [USER],
        "query_order",
        {},
        ("allowed", None, {"server": "bitmall", "tool": "query_order"}),
    ),
    (
        "confirm: the real name differs",
        [USER, *loaded("order_change")],
        "cancel_order",
        {"order_no": "88239"},
        ("confirm", None, {"server": "bitmall", "tool": "orders.cancel"}),
    ),
    ("masked", [USER], "cancel_order", {"order_no": "88239"}, ("refused", "masked", None)),
    ("invalid arguments", [USER, *loaded("order_change")], "cancel_order", {}, ("refused", "invalid_arguments", None)),
    ("the real name is no model-facing name", [USER], "orders.cancel", {}, ("refused", "unknown_tool", None)),
    ("builtin", [USER], "load_skill", {"skill_code": "order_change"}, ("allowed", None, None)),
]


@pytest.mark.parametrize("case, messages, name, arguments, expected", CASES, ids=[c[0] for c in CASES])
def test_check_call_answers_the_target(synced, post, case, messages, name, arguments, expected):
    assert verdict(post, messages, name, arguments) == expected


def test_a_release_without_targets_answers_none(synced, post):
    assert verdict(post, [USER], "query_order", {}, release=1) == ("allowed", None, None)


def test_the_catalog_tools_carry_server_and_mcp_name(synced, api_client):
    tools = {t["name"]: t for t in api_client.get(CATALOG).json()["mcp_tools"]}
    assert (tools["cancel_order"]["server"], tools["cancel_order"]["mcp_name"]) == ("bitmall", "orders.cancel")
    assert (tools["query_order"]["server"], tools["query_order"]["mcp_name"]) == ("bitmall", "query_order")
    before = {t["name"]: t for t in api_client.get(CATALOG, {"release": 1}).json()["mcp_tools"]}
    assert (before["cancel_order"]["server"], before["cancel_order"]["mcp_name"]) == (None, None)


def test_the_skill_lists_its_tools_with_their_targets(synced, api_client):
    from tests.api.support import skill_url

    assert api_client.get(skill_url("order_change")).json()["tools"] == [
        {"name": "cancel_order", "server": "bitmall", "mcp_name": "orders.cancel"},
        {"name": "change_address", "server": "bitmall", "mcp_name": "change_address"},
    ]
    assert api_client.get(skill_url("order_change"), {"release": 1}).json()["tools"][0] == {
        "name": "cancel_order",
        "server": None,
        "mcp_name": None,
    }


def test_an_orphaned_tool_is_not_offered_by_the_draft(synced, post):
    from skills_app.catalog import selectors
    from skills_app.models import McpServer

    McpServer.objects.filter(name="bitmall").delete()
    draft = selectors.catalog_draft()
    assert draft.tool("query_order") is None and draft.tool("cancel_order") is None
    assert selectors.orphaned_tools()["cancel_order"] == "bitmall"
    # the published release is immutable: the runtime keeps its targets until the next publish
    assert verdict(post, [USER], "query_order", {}) == ("allowed", None, {"server": "bitmall", "tool": "query_order"})


def test_the_openapi_schema_states_the_fields(db):
    schema = APIClient().get("/api/v1/schema", {"format": "json"}).json()["components"]["schemas"]
    tool = schema["McpTool"]["properties"]
    assert tool["server"]["type"] == "string" and tool["server"]["nullable"] is True
    assert tool["mcp_name"]["type"] == "string" and tool["mcp_name"]["nullable"] is True
    assert {"server", "mcp_name"} <= set(schema["McpTool"]["required"])
    target = schema["CheckCallVerdict"]["properties"]["target"]
    assert target.get("nullable") is True
    assert {"$ref": "#/components/schemas/CallTarget"} in target.get("allOf", [target])
    assert schema["CallTarget"]["required"] == ["server", "tool"]
    assert set(schema["SkillTool"]["properties"]) == {"name", "server", "mcp_name"}
