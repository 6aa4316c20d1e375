"""POST runtime/rounds with ``tools_format`` answers ``payload_problems`` (docs/providers.md): on the
bitmall demo none; with a tool a provider refuses, exactly what each configured target says."""

from __future__ import annotations

from skill_rule.providers import DEFAULT_PAYLOAD_BUDGET
from skills_app.catalog import services
from skills_app.models import McpTool
from tests.api.support import ROUNDS, USER, publish_draft


def test_the_demo_rounds_have_no_payload_problems(bitmall, post):
    for fmt in ("openai", "anthropic"):
        body = post(ROUNDS, {"messages": [USER], "tools_format": fmt}).json()
        assert body["payload_problems"] == []
    assert "payload_problems" not in post(ROUNDS, {"messages": [USER]}).json()  # names: no array, no check


def test_a_tool_each_target_refuses_is_named_with_its_rule_limit_and_value(bitmall, post):
    # query_order (always visible): no `properties`, an array without `items`, a top-level anyOf
    definition = McpTool.objects.get(name="query_order")
    definition.input_schema = {
        "type": "object",
        "anyOf": [{"required": ["order_no"]}],
        "additionalProperties": {"type": "array"},
    }
    definition.description = "查" * 1030
    definition.save()
    services.payload_targets_set(targets=["openai_chat", "anthropic_messages"], budgets={"anthropic_messages": 4000})
    publish_draft()
    body = post(ROUNDS, {"messages": [USER], "tools_format": "openai"}).json()
    common = {"tool": "query_order", "path": ""}
    assert body["payload_problems"] == [
        {
            "target": "openai_chat",
            **common,
            "rule": "description_length",
            "limit": 1024,
            "actual": 1030,
            "action": "refused",
        },
        {
            "target": "openai_chat",
            **common,
            "rule": "object_without_properties",
            "limit": "properties",
            "actual": None,
            "action": "rewritten",
        },
        {
            "target": "openai_chat",
            "tool": "query_order",
            "path": "additionalProperties",
            "rule": "array_without_items",
            "limit": "items",
            "actual": None,
            "action": "refused",
        },
        {
            "target": "anthropic_messages",
            **common,
            "rule": "top_level_combinator",
            "limit": "none",
            "actual": "anyOf",
            "action": "refused",
        },
        {
            "target": "anthropic_messages",
            "tool": None,
            "path": "",
            "rule": "payload_budget",
            "limit": 4000,
            "actual": body_chars_anthropic(post),
            "action": "over_budget",
        },
    ]
    # the rewrite is in the OpenAI array only, and the stored schema is unchanged
    [query_order] = [t for t in body["tools"] if t["function"]["name"] == "query_order"]
    assert query_order["function"]["parameters"]["properties"] == {}
    definition.refresh_from_db()
    assert "properties" not in definition.input_schema


def body_chars_anthropic(post) -> int:
    return post(ROUNDS, {"messages": [USER], "tools_format": "anthropic"}).json()["tools_chars"]


def test_the_shown_format_is_checked_even_when_not_configured(bitmall, post):
    definition = McpTool.objects.get(name="query_order")
    definition.input_schema = {"type": "object"}
    definition.save()
    services.payload_targets_set(targets=["gemini"])
    publish_draft()
    body = post(ROUNDS, {"messages": [USER], "tools_format": "openai"}).json()
    assert body["payload_problems"] == [
        {
            "target": "openai_chat",
            "tool": "query_order",
            "rule": "object_without_properties",
            "limit": "properties",
            "actual": None,
            "action": "rewritten",
            "path": "",
        }
    ]
    assert post(ROUNDS, {"messages": [USER], "tools_format": "anthropic"}).json()["payload_problems"] == []
    assert DEFAULT_PAYLOAD_BUDGET == 48_000
