"""A bad tool definition already in the database (forced with raw SQL, as a hand edit or a row
written before the rule would be) never causes a 5xx: the catalog serves it with ``problems``,
the guard refuses calls to it, ``rounds`` warns, and the console pages still open."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from skills_app.models import McpTool
from tests.api.support import CATALOG, CHECK_CALL, ROUNDS, USER, publish_draft

BAD_SCHEMAS = [
    pytest.param([1, 2], ["inputSchema must be a JSON object, got list"], id="a list"),
    pytest.param("not an object", ["inputSchema must be a JSON object, got str"], id="a string"),
    pytest.param(
        {"type": "object", "properties": {"order_no": {"$ref": "#/$defs/missing"}}},
        ["inputSchema $ref '#/$defs/missing' does not resolve"],
        id="an unresolvable $ref",
    ),
    pytest.param(
        {"type": "object", "required": 5},
        ["inputSchema is not a valid JSON Schema at required: 5 is not of type 'array'"],
        id="fails the meta-schema",
    ),
]


def _force(name: str, schema) -> None:
    """Write the bad row with raw SQL, then publish it the way a release written before the rule
    would hold it (the low-level ``release_create``: the publish gate now refuses such a draft)."""
    from skill_rule.snapshot import catalog_to_snapshot
    from skills_app.catalog import selectors
    from skills_app.releases import services as releases

    table = McpTool._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET input_schema = %s WHERE name = %s", [json.dumps(schema), name])
    releases.release_create(
        snapshot=catalog_to_snapshot(selectors.catalog_draft()),
        user=releases.COMMAND_LINE,
        note="written before the tool-definition rule",
    )


def test_the_publish_gate_refuses_a_draft_with_an_invalid_tool_definition(bitmall) -> None:
    from skills_app.releases import services as releases

    table = McpTool._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET input_schema = %s WHERE name = %s", ["[1, 2]", "query_order"])
    with pytest.raises(releases.PublishRefused) as exc:
        releases.release_publish(user=releases.COMMAND_LINE, note="bad")
    assert [str(r.message) for r in exc.value.reasons] == [
        "tool 'query_order' has an invalid definition: inputSchema must be a JSON object, got list"
    ]


@pytest.mark.parametrize(("schema", "problems"), BAD_SCHEMAS)
def test_a_bad_row_is_served_with_problems_and_refused_never_a_500(
    bitmall, api_client, post, staff_client, schema, problems
):
    _force("query_order", schema)
    catalog = api_client.get(CATALOG)
    assert catalog.status_code == 200
    tool = next(t for t in catalog.json()["mcp_tools"] if t["name"] == "query_order")
    assert tool["problems"] == problems and tool["inputSchema"] == schema
    assert all("problems" not in t for t in catalog.json()["mcp_tools"] if t["name"] != "query_order")

    rounds = post(ROUNDS, {"messages": [USER]})
    assert rounds.status_code == 200
    assert [w["code"] for w in rounds.json()["warning_details"]] == ["tool_definition_invalid"]
    assert rounds.json()["count"] == 11

    verdict = post(CHECK_CALL, {"messages": [USER], "call": {"name": "query_order", "arguments": {}}})
    assert verdict.status_code == 200
    assert (verdict.json()["verdict"], verdict.json()["reason"]) == ("refused", "invalid_tool_definition")

    preview = staff_client.post("/preview/", {"scenario": "cancel-iphone"})
    assert preview.status_code == 200
    assert 'data-warning-code="tool_definition_invalid"' in preview.content.decode()
    for url in ("/tools/", "/skills/", "/skills/order_change/edit"):
        assert staff_client.get(url).status_code == 200, url


def test_a_bad_tool_name_on_a_node_forced_in_sql_is_served_with_problems(bitmall, api_client, post):
    from skills_app.models import IntentNode

    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {IntentNode._meta.db_table} SET mcp_tool_id = %s WHERE mcp_tool_id = %s",
            ["query_\u043erder", "query_order"],
        )
    publish_draft()
    tools = api_client.get(CATALOG).json()["mcp_tools"]
    bad = next(t for t in tools if t["name"] == "query_\u043erder")
    assert bad["problems"][0] == (
        "tool name 'query_\u043erder' must be 1–64 ASCII letters, digits, '_' or '-' (what OpenAI and Anthropic accept)"
    )
    verdict = post(CHECK_CALL, {"messages": [], "call": {"name": "query_\u043erder", "arguments": {}}})
    assert (verdict.status_code, verdict.json()["reason"]) == (200, "invalid_tool_definition")
