"""``domain/payload.py``, exact values: the generated ``load_skill`` schema built over whatever
schema is registered (or none), the header's trailing newlines, the format refusal's details and
a diff's truth (issue 11: the mutation-testing triage of the fifth round). Library tests."""

from __future__ import annotations

from dataclasses import replace

import pytest

from skill_rule import BUILTIN, Catalog, Tool
from skill_rule.payload import (
    SKILL_CODE_DESCRIPTION,
    PayloadDiff,
    ToolDefinition,
    UnknownToolsFormatError,
    load_skill_definition,
)

from .factories import ALPHA, BETA, mcp_tools, shop


def test_without_a_registered_load_skill_the_generated_schema_is_built_from_nothing() -> None:
    catalog = Catalog(tools=mcp_tools(), skills=(BETA, ALPHA))
    assert load_skill_definition(catalog).parameters == {
        "type": "object",
        "properties": {
            "skill_code": {"type": "string", "description": SKILL_CODE_DESCRIPTION, "enum": ["alpha", "beta"]}
        },
        "required": ["skill_code"],
    }


def test_the_generated_schema_keeps_the_registered_ones_other_parts_and_its_own_description() -> None:
    registered = Tool(
        "load_skill",
        BUILTIN,
        input_schema={
            "properties": {
                "skill_code": {"type": "integer", "description": "the manual to read"},
                "reason": {"type": "string"},
            },
            "required": ["reason", "skill_code"],
            "additionalProperties": False,
        },
    )
    catalog = Catalog(tools=(registered, *mcp_tools()), skills=(ALPHA,))
    params = load_skill_definition(catalog).parameters
    assert params == {
        "type": "object",
        "properties": {
            "skill_code": {"type": "string", "description": "the manual to read", "enum": ["alpha"]},
            "reason": {"type": "string"},
        },
        "required": ["skill_code", "reason"],
        "additionalProperties": False,
    }
    params["properties"]["reason"]["type"] = "number"
    assert registered.input_schema["properties"]["reason"] == {"type": "string"}  # nothing shared


def test_the_header_loses_its_trailing_newlines_only() -> None:
    spaced = replace(shop(ALPHA), load_skill_header="  说明 \n\n")
    assert load_skill_definition(spaced).description == "  说明 \n- alpha（Alpha）：load for alpha"
    ending_in_x = replace(shop(ALPHA), load_skill_header="按 X\n")
    assert load_skill_definition(ending_in_x).description == "按 X\n- alpha（Alpha）：load for alpha"


@pytest.mark.parametrize(("value", "shown"), [("OpenAI", "OpenAI"), (None, "None"), (5, "5")])
def test_an_unknown_tools_format_is_refused_keeping_it_and_naming_it_in_the_details(value, shown) -> None:
    with pytest.raises(UnknownToolsFormatError) as exc:
        ToolDefinition(name="lookup", description="", parameters={}).as_format(value)
    assert exc.value.value == value
    assert exc.value.details == {"tools_format": shown}
    assert str(exc.value) == f"unknown tools_format {value!r} for a tools array; choose one of: openai, anthropic"


def test_a_diff_is_true_when_any_of_its_three_lists_holds_a_name() -> None:
    assert [
        bool(PayloadDiff()),
        bool(PayloadDiff(added=("a",))),
        bool(PayloadDiff(removed=("a",))),
        bool(PayloadDiff(changed=("a",))),
    ] == [False, True, True, True]
