"""Calls to model-facing names are mapped back to the real MCP tool (docs/mcp.md, "How a runtime
maps calls back"): the demo server's ``dotted`` variant lists its tools under names no model API
accepts (``bitmall.cancel-order``); the guard's verdict carries the server and the real name, and
calling the real demo server over stdio through that target answers the canned data. A tool
whose server record was deleted is orphaned: unavailable, fail closed, named in warnings."""

from __future__ import annotations

import json

import pytest

from skill_rule import check_call
from skill_rule.releases import gate
from skill_rule.snapshot import catalog_from_snapshot, catalog_to_snapshot
from skills_app.catalog import selectors
from skills_app.catalog.services import intent_node_save, skill_create
from skills_app.demo.bitmall_mcp import CANNED, dotted_name
from skills_app.mcp.sync import SyncError, mcp_call_target, mcp_server_sync, mcp_tool_call
from skills_app.models import IntentNode, McpServer, McpTool
from skills_app.releases.selectors import publish_review
from tests.mcp.support import stdio_server

pytestmark = pytest.mark.django_db(transaction=False)

USER = {"role": "user", "content": "那台iPhone 18 Pro Max我不想要了，帮我取消"}


def bind(tool_id: str) -> IntentNode:
    """An enabled MCP leaf node registering ``tool_id`` under the demo's first category."""
    parent = IntentNode.objects.filter(level=1).order_by("intent_code").first()
    code = tool_id.replace("-", "_")
    return intent_node_save(intent_code=code, name=code[:64], kind="MCP", parent=parent, mcp_tool_id=tool_id)


#: The manual of ``shop_cancel`` (``shop``): only a whole published manual loads a skill.
SHOP_CANCEL_MANUAL = "# 取消\n先查询订单。"


def loaded(code: str) -> list[dict]:
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": code}}],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": SHOP_CANCEL_MANUAL,
            "metadata": {"ragent_loaded_skill": code},
        },
    ]


@pytest.fixture
def shop(bitmall):
    """The ``dotted`` demo server registered as ``shop`` and synced; two of its tools bound by
    intent nodes, ``bitmall-cancel-order`` gated by the skill ``shop_cancel``."""
    server = stdio_server("dotted", name="shop")
    record = mcp_server_sync(server=server, trigger="test")
    assert record.outcome == "ok", record.message
    bind("bitmall-query-order")
    bind("bitmall-cancel-order")
    skill_create(
        skill_code="shop_cancel",
        name="取消订单（shop）",
        description="取消 shop 的订单",
        content=SHOP_CANCEL_MANUAL,
        tool_ids=["bitmall-cancel-order"],
    )
    return server


def test_the_sync_names_dotted_tools_for_the_model_and_keeps_the_real_name(shop):
    rows = {t.tool_name: t.name for t in McpTool.objects.filter(mcp_server=shop)}
    assert len(rows) == 14
    assert rows["bitmall.cancel-order"] == "bitmall-cancel-order"
    assert rows[dotted_name("current_date")] == "bitmall-current-date"
    draft = selectors.catalog_draft()
    tool = draft.tool("bitmall-cancel-order")
    assert (tool.server, tool.mcp_name) == ("shop", "bitmall.cancel-order")
    assert tool.call_target == {"server": "shop", "tool": "bitmall.cancel-order"}
    # the demo YAML's typed-in definitions have no server: no call target
    assert draft.tool("cancel_order").call_target is None
    assert draft.tool("load_skill").call_target is None


def test_an_allowed_call_reaches_the_real_tool_through_its_target(shop):
    verdict = check_call(selectors.catalog_draft(), [USER], {"name": "bitmall-query-order", "arguments": {}})
    assert (verdict.verdict, verdict.target) == ("allowed", {"server": "shop", "tool": "bitmall.query-order"})
    outcome = mcp_call_target(target=verdict.target, arguments={})
    assert outcome.is_error is False
    assert json.loads(outcome.text) == {"tool": "bitmall.query-order", "arguments": {}, "result": CANNED["query_order"]}


def test_a_confirmed_call_carries_its_target_and_a_masked_one_none(shop):
    catalog = selectors.catalog_draft()
    call = {"name": "bitmall-cancel-order", "arguments": {"order_no": "88239"}}
    masked = check_call(catalog, [USER], call)
    assert (masked.verdict, masked.reason, masked.skill_code, masked.target) == (
        "refused",
        "masked",
        "shop_cancel",
        None,
    )
    confirm = check_call(catalog, [USER, *loaded("shop_cancel")], call)
    assert (confirm.verdict, confirm.target) == ("confirm", {"server": "shop", "tool": "bitmall.cancel-order"})
    answer = json.loads(mcp_call_target(target=confirm.target, arguments={"order_no": "88239"}).text)
    assert answer["result"] == CANNED["cancel_order"]
    # a release carries the targets (format 2) and answers the same
    snapshot = catalog_to_snapshot(catalog)
    assert snapshot["format"] == 2
    again = check_call(catalog_from_snapshot(snapshot, release=7), [USER, *loaded("shop_cancel")], call)
    assert again.target == confirm.target


def test_an_orphaned_tool_is_unavailable_and_named(shop):
    target = {"server": "shop", "tool": "bitmall.query-order"}
    McpServer.objects.filter(name="shop").delete()  # the record goes; its tools stay, orphaned
    orphan = McpTool.objects.get(name="bitmall-cancel-order")
    assert (orphan.orphaned, orphan.available, orphan.server) == (True, False, "shop")
    catalog = selectors.catalog_draft()
    assert catalog.tool("bitmall-query-order") is None  # fail closed: no longer registered
    verdict = check_call(catalog, [USER], {"name": "bitmall-query-order", "arguments": {}})
    assert (verdict.verdict, verdict.reason, verdict.target) == ("refused", "unknown_tool", None)
    assert selectors.orphaned_tools() == {"bitmall-query-order": "shop", "bitmall-cancel-order": "shop"}
    assert selectors.broken_skills() == {"shop_cancel": [("bitmall-cancel-order", "unavailable")]}
    reasons = [(r.code, str(r.message)) for r in gate(publish_review())]
    assert (
        "gate_orphaned",
        "skill 'shop_cancel' is broken: it gates 'bitmall-cancel-order', whose MCP server "
        "record 'shop' was deleted (register the server again and sync it, or remove the tool from the "
        "skill)",
    ) in reasons
    with pytest.raises(SyncError, match="MCP server 'shop' is not registered"):
        mcp_call_target(target=target, arguments={})
    # registered again under the same name and synced: the orphans come back under the names they held
    record = mcp_server_sync(server=stdio_server("dotted", name="shop"), trigger="test")
    assert record.outcome == "ok", record.message
    assert McpTool.objects.filter(mcp_server__name="shop").count() == 14
    assert selectors.orphaned_tools() == {}
    assert selectors.catalog_draft().tool("bitmall-query-order").call_target == target
    assert selectors.broken_skills() == {}


def test_a_malformed_or_disabled_target_is_refused(shop):
    with pytest.raises(SyncError, match="a call target is"):
        mcp_call_target(target={"server": "shop"}, arguments={})
    McpServer.objects.filter(name="shop").update(enabled=False)
    with pytest.raises(SyncError, match="MCP server 'shop' is disabled"):
        mcp_call_target(target={"server": "shop", "tool": "bitmall.query-order"}, arguments={})


@pytest.fixture
def en_staff(staff_client):
    """The staff client reading the console in English."""
    staff_client.cookies["django_language"] = "en"
    return staff_client


def test_pages_name_the_orphaned_tool_and_its_deleted_server(shop, en_staff):
    import html
    import re

    McpServer.objects.filter(name="shop").delete()
    tree = html.unescape(en_staff.get("/tools/").content.decode())
    assert "unavailable: its MCP server record shop was deleted" in tree
    page = html.unescape(en_staff.get("/tools/mcp/bitmall-cancel-order/").content.decode())
    assert "the record of its MCP server shop was deleted, so no call can be mapped back to it" in page
    publish = re.sub(r"<[^>]+>", "", html.unescape(en_staff.get("/publish/").content.decode()))
    assert (
        "skill shop_cancel is broken: it gates bitmall-cancel-order, whose MCP server record shop was deleted"
    ) in publish


def test_a_call_answer_is_read_whatever_shape_the_server_gives_it(db):
    """A test call's outcome (the tool page, a runtime mapping calls back): the text parts one per
    line with images skipped, the structured content as JSON (Chinese kept) only when there is no
    text, ``is_error`` as the server set it — against the demo server's ``shapes`` variant."""
    stdio_server("shapes", name="shapes")

    def call(tool: str) -> tuple[bool, str]:
        outcome = mcp_call_target(target={"server": "shapes", "tool": tool}, arguments={})
        return outcome.is_error, outcome.text

    assert call("query_order") == (False, "订单 88239\n已发货")
    assert call("query_logistics") == (False, '{"carrier": "顺丰", "waybill": "SF1234567890"}')
    assert call("cancel_order") == (False, "已取消")
    assert call("no_such_tool") == (True, "unknown tool 'no_such_tool'")


def test_a_server_that_exits_mid_call_is_a_refusal_naming_it_and_its_stderr(db):
    stdio_server("shapes", name="shapes")
    with pytest.raises(SyncError) as exc:
        mcp_call_target(target={"server": "shapes", "tool": "pay_order"}, arguments={})
    assert str(exc.value) == (
        "server 'shapes': MCPError: Connection closed (server stderr: bitmall_mcp: exiting mid-call (variant 'shapes'))"
    )


@pytest.mark.parametrize(
    "target", [["shop", "bitmall.query-order"], {"server": 5, "tool": "x"}, {"server": "shop"}, None]
)
def test_a_call_target_not_of_two_texts_is_refused_naming_it(db, target):
    """A runtime passing back something other than the verdict's ``{"server", "tool"}`` gets a
    refusal quoting what it sent, before any record is read (fail closed)."""
    with pytest.raises(SyncError) as exc:
        mcp_call_target(target=target, arguments={})
    assert str(exc.value) == f"a call target is {{'server': …, 'tool': …}}, not {target!r}"


def test_a_target_naming_a_deleted_server_is_refused(db):
    with pytest.raises(SyncError) as exc:
        mcp_call_target(target={"server": "gone", "tool": "query_order"}, arguments={})
    assert str(exc.value) == (
        "MCP server 'gone' is not registered (its record was deleted?); tool 'query_order' cannot be called"
    )


def test_a_test_call_of_a_synced_tool_goes_to_its_server_by_its_real_name(shop):
    """The tool page's test call: the record's server, the real (dotted) name and the arguments
    as given reach the demo server, which echoes them."""
    outcome = mcp_tool_call(tool=McpTool.objects.get(name="bitmall-query-order"), arguments={"order_no": "88239"})
    assert outcome.is_error is False
    assert json.loads(outcome.text) == {
        "tool": "bitmall.query-order",
        "arguments": {"order_no": "88239"},
        "result": CANNED["query_order"],
    }


def test_a_test_call_of_a_tool_without_a_server_is_refused_naming_why(shop):
    """A catalog tool never synced, and an orphan whose server record was deleted: nothing to call."""
    with pytest.raises(SyncError) as exc:
        mcp_tool_call(tool=McpTool.objects.get(name="cancel_order"), arguments={})
    assert str(exc.value) == "tool 'cancel_order' was not synced from a server; there is nothing to call"
    McpServer.objects.filter(name="shop").delete()
    with pytest.raises(SyncError) as exc:
        mcp_tool_call(tool=McpTool.objects.get(name="bitmall-cancel-order"), arguments={})
    assert str(exc.value) == (
        "tool 'bitmall-cancel-order' is orphaned: the record of its MCP server 'shop' was "
        "deleted; there is nothing to call"
    )
