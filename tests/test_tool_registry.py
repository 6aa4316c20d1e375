"""``selectors.tool_registry(tool_ids)`` reads only the names a skill save checks and gives the
same verdicts as the whole registry (docs/design.md: a tool_id must be the tool of an enabled MCP
node and no builtin), in a fixed number of queries whatever the catalog size."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from skill_rule.validation import validate_tool_ids
from skills_app.catalog import selectors
from skills_app.models import IntentNode, McpTool

NAMES = [
    "query_order",
    "cancel_order",
    "change_address",
    "create_order",
    "pay_order",
    "submit_ticket",
    "load_skill",
    "no_such_tool",
    "query_cart",
    "current_date",
]


def verdicts(registry, names=NAMES) -> dict[str, str]:
    out = dict.fromkeys(names, "ok")
    for p in validate_tool_ids(names, registry):
        out[p.params["tool_id"]] = p.code
    return out


@pytest.fixture
def messy(bitmall):
    """A node disabled, one deleted, a parent of another disabled, a definition removed by a sync."""
    IntentNode.objects.filter(mcp_tool_id="cancel_order").update(enabled=False)
    IntentNode.objects.filter(mcp_tool_id="submit_ticket").update(deleted_at=timezone.now())
    parent = IntentNode.objects.get(mcp_tool_id="pay_order").parent
    IntentNode.objects.filter(pk=parent.pk).update(enabled=False)
    McpTool.objects.filter(name="query_cart").update(removed_at=timezone.now())
    return bitmall


def test_the_partial_registry_gives_the_whole_registry_s_verdicts(messy):
    whole, part = selectors.tool_registry(), selectors.tool_registry(NAMES)
    assert verdicts(part) == verdicts(whole)
    assert verdicts(part) == {
        "query_order": "ok",
        "cancel_order": "tool_id_disabled",
        "change_address": "ok",
        "create_order": "tool_id_disabled",  # under the same disabled parent as pay_order
        "pay_order": "tool_id_disabled",
        "submit_ticket": "tool_id_disabled",
        "load_skill": "tool_id_builtin",
        "no_such_tool": "tool_id_unknown",
        "query_cart": "tool_id_disabled",
        "current_date": "ok",
    }
    assert part.enabled <= frozenset(NAMES)


def test_a_node_that_is_no_leaf_registers_nothing(bitmall):
    node = IntentNode.objects.get(mcp_tool_id="query_order")
    IntentNode.objects.create(intent_code="child_of_query", name="child", level=2, parent=node, kind=IntentNode.Kind.KB)
    assert (
        verdicts(selectors.tool_registry(["query_order"]), ["query_order"])
        == verdicts(selectors.tool_registry(), ["query_order"])
        == {"query_order": "tool_id_disabled"}
    )


def test_the_partial_registry_costs_the_same_for_one_name_or_ten(bitmall):
    with CaptureQueriesContext(connection) as one:
        selectors.tool_registry(["query_order"])
    with CaptureQueriesContext(connection) as ten:
        selectors.tool_registry(NAMES)
    assert len(one.captured_queries) == len(ten.captured_queries) <= 8
    with CaptureQueriesContext(connection) as none:
        assert selectors.tool_registry([]).enabled == frozenset()
    assert len(none.captured_queries) == 0
