"""Issue 23's five cases, each on a catalog built here in the database (no demo): the publish
service refuses the release naming the provider problem, a tick without a reason is refused, and
the tick with a reason publishes it, the key kept on the release (docs/providers.md, docs/releases.md).

1. an array schema without ``items`` (OpenAI Chat Completions refuses it); an object schema
   without ``properties`` is rewritten for OpenAI instead (item 6) and refuses nothing;
2. ``anyOf`` / ``oneOf`` / ``allOf`` at the top of an inputSchema (Anthropic Messages);
3. a tool description longer than 1,024 characters (OpenAI Chat Completions);
4. more than 128 tools in one request (OpenAI Chat Completions): 130 MCP tools give 132;
5. ``load_skill``'s description past 1,024 characters from many catalog lines.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from skill_rule.payload import load_skill_definition
from skills_app.catalog import selectors, services
from skills_app.models import IntentNode, McpTool, Release
from skills_app.releases.services import COMMAND_LINE, PublishRefused, release_publish

OBJ = {"type": "object", "properties": {"order_no": {"type": "string"}}}


def build(tools: dict[str, dict], *, skills: int = 1, description: str = "退款时加载。") -> None:
    """The builtins, one domain and one category, one enabled MCP leaf per tool of ``tools``
    (name → McpTool fields), and ``skills`` skills gating the first tool."""
    services.builtin_tools_ensure()
    domain = services.intent_node_save(intent_code="shop", name="商城", kind=IntentNode.Kind.SYSTEM)
    category = services.intent_node_save(intent_code="orders", name="订单", kind=IntentNode.Kind.SYSTEM, parent=domain)
    for n, (name, fields) in enumerate(tools.items()):
        McpTool.objects.create(name=name, **{"description": "查询。", "input_schema": OBJ, **fields})
        services.intent_node_save(
            intent_code=f"leaf_{n:03d}", name=name, kind=IntentNode.Kind.MCP, parent=category, mcp_tool_id=name
        )
    first = next(iter(tools))
    for n in range(skills):
        services.skill_create(
            skill_code=f"skill_{n:02d}",
            name=f"业务{n:02d}",
            description=description,
            content="# 手册\n\n按步骤处理。",
            tool_ids=[first],
            sort_order=n,
        )


def refused_with(key: str, message: str) -> None:
    """The publish is refused naming exactly ``key``; a tick needs a reason; with one it publishes."""
    with pytest.raises(PublishRefused) as caught:
        release_publish(user=COMMAND_LINE, note="try")
    assert [(r.key, str(r.message), r.overridable) for r in caught.value.reasons] == [(key, message, True)]
    with pytest.raises(ValidationError) as no_reason:
        release_publish(user=COMMAND_LINE, note="try", overrides=[key])
    assert list(no_reason.value.message_dict) == ["override_note"]
    assert not Release.objects.exists()
    release = release_publish(user=COMMAND_LINE, note="try", overrides=[key], override_note="this target is not used")
    assert (release.number, release.overrides, release.override_note) == (1, [key], "this target is not used")


FIRST_ALL_LOADED = "(first: the round with every manual loaded; rounds: 1)"


@pytest.mark.django_db
def test_an_array_without_items_is_refused_and_an_object_without_properties_is_rewritten():
    build(
        {
            "refund": {},
            "read_files": {"input_schema": {"type": "object", "properties": {"paths": {"type": "array"}}}},
            "ping": {"input_schema": {"type": "object"}},  # rewritten for OpenAI: no refusal
        }
    )
    refused_with(
        "payload:openai_chat:read_files:array_without_items",
        "OpenAI Chat Completions would refuse the request: the schema of 'read_files' has an array without "
        f"'items' at 'properties.paths' {FIRST_ALL_LOADED}",
    )


@pytest.mark.django_db
def test_an_object_without_properties_alone_publishes_rewritten():
    build({"refund": {}, "ping": {"input_schema": {"type": "object"}}})
    assert release_publish(user=COMMAND_LINE, note="ping has no arguments").overrides == []
    assert McpTool.objects.get(name="ping").input_schema == {"type": "object"}  # the stored schema unchanged


@pytest.mark.django_db
@pytest.mark.parametrize("combinator", ["anyOf", "oneOf", "allOf"])
def test_a_top_level_combinator_is_refused(combinator):
    schema = {**OBJ, combinator: [{"required": ["order_no"]}]}
    build({"refund": {}, "either": {"input_schema": schema}})
    refused_with(
        "payload:anthropic_messages:either:top_level_combinator",
        f"Anthropic Messages would refuse the request: the schema of 'either' has '{combinator}' at the top level "
        f"{FIRST_ALL_LOADED}",
    )


@pytest.mark.django_db
def test_a_too_long_tool_description_is_refused():
    build({"refund": {}, "wordy": {"description": "说" * 1025}})
    refused_with(
        "payload:openai_chat:wordy:description_length",
        "OpenAI Chat Completions would refuse the request: the description of 'wordy' has 1025 characters; "
        f"at most 1024 {FIRST_ALL_LOADED}",
    )


@pytest.mark.django_db
def test_too_many_tools_in_one_request_are_refused():
    build({f"tool_{n:03d}": {} for n in range(130)})
    draft = selectors.catalog_draft()
    assert len(draft.registered_tools) == 133  # three builtins and 130 MCP tools
    refused_with(
        "payload:openai_chat::tool_count",
        f"OpenAI Chat Completions would refuse the request: 133 tools in one request; at most 128 {FIRST_ALL_LOADED}",
    )


@pytest.mark.django_db
def test_a_load_skill_description_too_long_from_many_catalog_lines_is_refused():
    build(
        {"refund": {}},
        skills=20,
        description="用户要退款、退货或换货时加载：核对订单状态、售后条件与凭证，确认后再提交。",
    )
    length = len(load_skill_definition(selectors.catalog_draft()).description)
    assert length == 1239  # the 139-character header and twenty lines of 55 characters
    refused_with(
        "payload:openai_chat:load_skill:description_length",
        f"OpenAI Chat Completions would refuse the request: the description of 'load_skill' has {length} "
        f"characters; at most 1024 {FIRST_ALL_LOADED}",
    )


@pytest.mark.django_db
def test_the_same_catalog_publishes_when_nothing_breaks_a_target():
    """The control: the catalog of the cases without the bad tool publishes with no override."""
    build({"refund": {}, "wordy": {"description": "说" * 1024}}, skills=11)
    assert release_publish(user=COMMAND_LINE, note="fine").overrides == []


@pytest.mark.django_db
def test_a_saved_scenario_over_a_budget_is_refused_once_per_scenario(bitmall):
    """Item 4: a target's budget in characters (docs/providers.md, "Budget"): bitmall's cancel-iphone
    rounds are 3,695, 4,443 and 4,443 characters in the Anthropic shape, so under a budget of 4,000
    rounds 2 and 3 are over it — one reason for the scenario, overridable with a reason."""
    release_publish(user=COMMAND_LINE, note="demo")  # release 1: the demo passes the gate as it is
    services.payload_targets_set(targets=["openai_chat", "anthropic_messages"], budgets={"anthropic_messages": 4000})
    key = "payload:anthropic_messages:budget:cancel-iphone"
    with pytest.raises(PublishRefused) as caught:
        release_publish(user=COMMAND_LINE, note="budget")
    assert [(r.key, str(r.message)) for r in caught.value.reasons] == [
        (
            key,
            "scenario 'cancel-iphone' round 2: the tools payload for Anthropic Messages is 4443 characters, over its "
            "budget of 4000 (rounds of this scenario over it: 2)",
        )
    ]
    release = release_publish(user=COMMAND_LINE, note="budget", overrides=[key], override_note="Claude is a fallback")
    assert (release.number, release.overrides) == (2, [key])
    assert release.snapshot["settings"]["payload_budgets"] == {"anthropic_messages": 4000}
