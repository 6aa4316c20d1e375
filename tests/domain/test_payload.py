"""What the model sees (packages/skill-rule/src/skill_rule/payload.py, docs/runtime-api.md): the generated
load_skill definition and the exact tools array per chat API. Library tests on the tiny shop of
``factories`` (no database)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from skill_rule import compute_round
from skill_rule.limits import DEFAULT_LOAD_SKILL_HEADER
from skill_rule.payload import (
    PayloadDiff,
    UnknownToolsFormatError,
    catalog_line,
    load_skill_definition,
    payload_chars,
    payload_diff,
    payload_json,
    tools_payload,
)

from .factories import ALPHA, BETA, shop, skill

HEADER_LINE_3 = "部分业务工具在关联手册加载后才会出现在可用工具中，不要仅凭当前工具清单判断是否支持该任务"


def test_the_default_header_has_three_lines_ending_with_the_ragent_sentence():
    lines = DEFAULT_LOAD_SKILL_HEADER.split("\n")
    assert len(lines) == 3
    assert lines[2] == HEADER_LINE_3
    assert all(line.strip() for line in lines)


def test_description_is_the_header_then_one_line_per_enabled_skill_in_sort_order():
    gamma = skill("gamma", sort_order=5)
    definition = load_skill_definition(shop(BETA, ALPHA, gamma))
    assert definition.name == "load_skill"
    assert definition.description.split("\n") == [
        *DEFAULT_LOAD_SKILL_HEADER.split("\n"),
        "- gamma（Gamma）：load for gamma",
        "- alpha（Alpha）：load for alpha",
        "- beta（Beta）：load for beta",
    ]


def test_skill_code_is_a_required_string_whose_enum_lists_the_enabled_codes():
    params = load_skill_definition(shop(BETA, ALPHA)).parameters
    assert params["properties"]["skill_code"]["enum"] == ["alpha", "beta"]
    assert params["properties"]["skill_code"]["type"] == "string"
    assert params["required"] == ["skill_code"]
    assert params["additionalProperties"] is False  # the registered schema is kept


def test_a_disabled_skill_is_neither_in_the_enum_nor_in_the_description():
    definition = load_skill_definition(shop(ALPHA, replace(BETA, enabled=False)))
    assert definition.parameters["properties"]["skill_code"]["enum"] == ["alpha"]
    assert "beta" not in definition.description
    assert definition.description.split("\n")[3:] == ["- alpha（Alpha）：load for alpha"]


def test_no_enabled_skill_means_no_load_skill_anywhere():
    catalog = shop(replace(ALPHA, enabled=False))
    assert load_skill_definition(catalog) is None
    view = compute_round(catalog, ())
    tools = tools_payload(catalog, view.visible, "openai")
    assert [t["function"]["name"] for t in tools] == [
        "search_knowledge",
        "flush_memory",
        "lookup",
        "refund",
        "cancel",
        "ship",
        "export",
    ]
    # even a caller that names load_skill gets no definition for an unregistered tool
    assert tools_payload(catalog, ["load_skill", "lookup"], "anthropic") == [
        {"name": "lookup", "description": "", "input_schema": catalog.tool("lookup").input_schema},
    ]


def test_the_header_comes_from_the_catalog_setting():
    catalog = replace(shop(ALPHA), load_skill_header="只看这一行")
    assert load_skill_definition(catalog).description == "只看这一行\n- alpha（Alpha）：load for alpha"


def test_a_catalog_line_uses_full_width_punctuation_and_stays_one_line():
    assert (
        catalog_line("order_change", "订单修改", "取消订单\n或改地址")
        == "- order_change（订单修改）：取消订单 或改地址"
    )


def test_openai_shape_wraps_each_tool_in_a_function():
    catalog = shop()
    view = compute_round(catalog, ())
    tools = tools_payload(catalog, view.visible, "openai")
    assert (
        [t["function"]["name"] for t in tools]
        == list(view.visible)
        == [
            "search_knowledge",
            "load_skill",
            "flush_memory",
            "lookup",
            "export",
        ]
    )
    lookup = tools[3]
    assert lookup == {
        "type": "function",
        "function": {"name": "lookup", "description": "", "parameters": catalog.tool("lookup").input_schema},
    }
    assert tools[1]["function"]["parameters"]["properties"]["skill_code"]["enum"] == ["alpha", "beta"]


def test_anthropic_shape_names_the_schema_input_schema():
    catalog = shop()
    tools = tools_payload(catalog, ["search_knowledge", "cancel"], "anthropic")
    assert tools == [
        {"name": "search_knowledge", "description": "", "input_schema": catalog.tool("search_knowledge").input_schema},
        {"name": "cancel", "description": "", "input_schema": catalog.tool("cancel").input_schema},
    ]


def test_the_payload_never_shares_dicts_with_the_catalog():
    catalog = shop()
    tools = tools_payload(catalog, ["lookup"], "anthropic")
    tools[0]["input_schema"]["properties"]["q"]["minLength"] = 99
    assert catalog.tool("lookup").input_schema["properties"]["q"]["minLength"] == 1


@pytest.mark.parametrize("fmt", ["names", "OpenAI", "", None])
def test_another_format_is_refused_naming_it(fmt):
    with pytest.raises(UnknownToolsFormatError) as exc:
        tools_payload(shop(), ["lookup"], fmt)
    assert str(exc.value) == f"unknown tools_format {fmt!r} for a tools array; choose one of: openai, anthropic"
    assert exc.value.code == "invalid_tools_format"


def test_size_is_the_characters_of_the_compact_json_text():
    tools = tools_payload(shop(), ["load_skill"], "openai")
    text = payload_json(tools)
    assert text == json.dumps(tools, ensure_ascii=False, separators=(",", ":"))
    assert payload_chars(tools) == len(text)
    assert "部分业务工具" in text  # not \u-escaped: a Chinese character counts one
    assert payload_chars(tools) < len(json.dumps(tools, separators=(",", ":")))
    assert payload_chars([]) == 2


def test_diff_names_added_removed_and_changed_definitions():
    before_catalog = shop()
    after_catalog = replace(shop(), load_skill_header="新的说明")
    before = tools_payload(before_catalog, ["search_knowledge", "load_skill", "lookup", "refund"], "openai")
    after = tools_payload(after_catalog, ["search_knowledge", "load_skill", "lookup", "cancel", "ship"], "openai")
    assert payload_diff(before, after) == PayloadDiff(
        added=("cancel", "ship"), removed=("refund",), changed=("load_skill",)
    )
    assert not payload_diff(after, after)
    anthropic = tools_payload(before_catalog, ["lookup"], "anthropic")
    assert payload_diff([], anthropic) == PayloadDiff(added=("lookup",))
