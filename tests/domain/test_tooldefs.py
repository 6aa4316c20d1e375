"""The tool-definition rule (packages/skill-rule/src/skill_rule/tooldefs.py, docs/transcripts.md): one table of
definitions with their exact problem codes; the catalog and the guard on a bad stored one."""

from __future__ import annotations

import pytest

from skill_rule import MCP, Tool, check_call, compute_round
from skill_rule.tooldefs import validate_tool_definition

from .factories import shop

OBJ = {"type": "object", "properties": {"q": {"type": "string"}}}


@pytest.mark.parametrize(
    ("name", "schema", "codes"),
    [
        pytest.param("query_order", OBJ, [], id="a good definition"),
        pytest.param("a-b_C9", {"type": "object"}, [], id="letters digits _ -"),
        pytest.param("x" * 64, {"type": "object"}, [], id="64 characters"),
        pytest.param("x" * 65, {"type": "object"}, ["tool_name_invalid"], id="65 characters"),
        pytest.param("", {"type": "object"}, ["tool_name_invalid"], id="empty name"),
        pytest.param("cancel_\u043erder", {"type": "object"}, ["tool_name_invalid"], id="Cyrillic o lookalike"),
        pytest.param("cancel order", {"type": "object"}, ["tool_name_invalid"], id="a space"),
        pytest.param("cancel_order\n", {"type": "object"}, ["tool_name_invalid"], id="trailing newline"),
        pytest.param("t", [1, 2], ["input_schema_not_object"], id="schema a list"),
        pytest.param("t", "{}", ["input_schema_not_object"], id="schema a string"),
        pytest.param("t", None, ["input_schema_not_object"], id="schema null"),
        pytest.param("t", {"properties": {}}, ["input_schema_type"], id="no type"),
        pytest.param("t", {"type": "array"}, ["input_schema_type"], id="type array"),
        pytest.param(
            "t",
            {"type": "object", "properties": {"q": {"type": "strnig"}}},
            ["input_schema_invalid"],
            id="a misspelt type fails the meta-schema",
        ),
        pytest.param("t", {"type": "object", "required": "q"}, ["input_schema_invalid"], id="required not a list"),
        pytest.param(
            "t",
            {"type": "object", "properties": {"q": {"$ref": "#/$defs/missing"}}},
            ["input_schema_ref"],
            id="a $ref that does not resolve",
        ),
        pytest.param(
            "t",
            {"type": "object", "properties": {"q": {"$ref": "https://example.com/s.json"}}},
            ["input_schema_ref"],
            id="a remote $ref is never fetched",
        ),
        pytest.param(
            "t",
            {"type": "object", "$defs": {"n": {"type": "string"}}, "properties": {"q": {"$ref": "#/$defs/n"}}},
            [],
            id="a local $ref resolves",
        ),
        pytest.param("bad name", [1], ["tool_name_invalid", "input_schema_not_object"], id="both bad"),
    ],
)
def test_tool_definition_rule(name, schema, codes) -> None:
    assert [p.code for p in validate_tool_definition(name, schema)] == codes


def test_the_unresolvable_ref_names_the_ref() -> None:
    (problem,) = validate_tool_definition("t", {"type": "object", "properties": {"q": {"$ref": "#/nope"}}})
    assert problem == "inputSchema $ref '#/nope' does not resolve"


def test_a_bad_stored_definition_is_reported_refused_and_never_raises() -> None:
    base = shop()
    tools = tuple(
        Tool("lookup", MCP, input_schema={"type": "object", "properties": {"q": {"$ref": "#/gone"}}})
        if t.name == "lookup"
        else t
        for t in base.tools
    )
    catalog = type(base)(tools=tools, skills=base.skills)
    assert {k: [p.code for p in v] for k, v in catalog.tool_problems.items()} == {"lookup": ["input_schema_ref"]}
    view = compute_round(catalog, [])
    assert [w.code for w in view.warnings] == ["tool_definition_invalid"]
    assert "lookup" in view.visible  # still served, with its problems
    verdict = check_call(catalog, [], {"name": "lookup", "arguments": {"q": "x"}})
    assert (verdict.verdict, verdict.reason) == ("refused", "invalid_tool_definition")
    assert verdict.message == (
        "tool 'lookup' has an invalid definition and cannot be called: inputSchema $ref '#/gone' does not resolve"
    )
