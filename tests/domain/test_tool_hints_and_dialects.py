"""Issue 22, items 6 and 7b: tool annotations read fail-closed (``tooldefs.read_annotations``,
docs/mcp.md "Confirmation", docs/lints.md) and an inputSchema ``$schema`` naming a dialect the
console does not know (``input_schema_dialect``, docs/transcripts.md "Tool definitions")."""

from __future__ import annotations

import re

import pytest

from skill_rule import MCP, Skill, Tool, check_call
from skill_rule.lints import lint_catalog
from skill_rule.rules import _validate_arguments
from skill_rule.tooldefs import KNOWN_DIALECTS, read_annotations, validate_input_schema

from .factories import shop

CONTRADICTS = (
    "annotations_contradictory",
    "tool 'peek': annotations say readOnlyHint true and destructiveHint "
    "true, which contradict each other; its calls need confirmation",
)


def invalid(hint: str, value: str) -> tuple[str, str]:
    where = f"annotations.{hint}" if hint else "annotations"
    return (
        "annotations_invalid",
        f"tool 'peek': {where} is {value}, which MCP does not allow there (a hint is "
        "true or false, the annotations an object); its calls need confirmation",
    )


@pytest.mark.parametrize(
    ("annotations", "plain", "problems"),
    [
        pytest.param({"readOnlyHint": True}, True, [], id="read-only"),
        pytest.param(
            {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
            True,
            [],
            id="read-only, not destructive, every hint a boolean",
        ),
        pytest.param({"readOnlyHint": True, "title": "Peek"}, True, [], id="a title is no boolean hint"),
        pytest.param(
            {"readOnlyHint": True, "destructiveHint": True}, False, [CONTRADICTS], id="read-only and destructive"
        ),
        pytest.param({"readOnlyHint": False, "destructiveHint": True}, False, [], id="a plain write tool"),
        pytest.param({}, False, [], id="no hints: MCP's default readOnlyHint is false"),
        pytest.param(None, False, [], id="no annotations"),
        pytest.param({"readOnlyHint": "true"}, False, [invalid("readOnlyHint", "'true'")], id="readOnlyHint a text"),
        pytest.param({"readOnlyHint": 1}, False, [invalid("readOnlyHint", "1")], id="readOnlyHint 1"),
        pytest.param({"readOnlyHint": None}, False, [invalid("readOnlyHint", "null")], id="readOnlyHint null"),
        pytest.param(
            {"readOnlyHint": True, "destructiveHint": "false"},
            False,
            [invalid("destructiveHint", "'false'")],
            id="destructiveHint a text",
        ),
        pytest.param(
            {"readOnlyHint": True, "openWorldHint": 0},
            False,
            [invalid("openWorldHint", "0")],
            id="another hint of another type",
        ),
        pytest.param(
            {"readOnlyHint": "true", "destructiveHint": True},
            False,
            [invalid("readOnlyHint", "'true'")],
            id="a text read-only is no read-only: nothing contradicts",
        ),
        pytest.param(
            [{"readOnlyHint": True}], False, [invalid("", '[{"readOnlyHint": true}]')], id="annotations a list"
        ),
    ],
)
def test_annotations_are_read_fail_closed(annotations, plain, problems):
    reading = read_annotations(annotations, tool="peek")
    assert (reading.plainly_read_only, reading.needs_confirm) == (plain, not plain)
    assert [(p.code, str(p)) for p in reading.problems] == problems


def _peek_catalog(annotations, *, confirm: bool):
    base = shop(Skill("gamma", "Gamma", "gates peek", "# Gamma", tool_ids=("peek",)))
    peek = Tool("peek", MCP, input_schema={"type": "object"}, annotations=annotations, require_confirm=confirm)
    return type(base)(tools=(*base.tools, peek), skills=base.skills)


@pytest.mark.parametrize(
    ("annotations", "confirm", "lints"),
    [
        pytest.param({"readOnlyHint": True}, False, [("gated_read_only", "gamma", "peek")], id="plainly read-only"),
        pytest.param({"readOnlyHint": True, "destructiveHint": True}, True, [], id="contradictory: never ungate"),
        pytest.param({"readOnlyHint": "true"}, True, [], id="doubtful: never ungate"),
        pytest.param({"readOnlyHint": True, "idempotentHint": None}, True, [], id="a null hint: never ungate"),
        pytest.param({}, False, [("gated_read_only", "gamma", "peek")], id="no annotations: the node's flag (off)"),
        pytest.param({}, True, [], id="no annotations: the node's flag (on)"),
    ],
)
def test_the_lint_advises_ungating_only_a_plainly_read_only_tool(annotations, confirm, lints):
    catalog = _peek_catalog(annotations, confirm=confirm)
    assert [(x.code, x.skill, x.tool) for x in lint_catalog(catalog) if x.tool == "peek"] == lints


DIALECTS = [
    pytest.param(None, [], id="no $schema: 2020-12"),
    *[pytest.param(d, [], id=d) for d in KNOWN_DIALECTS],
    pytest.param("http://json-schema.org/draft-07/schema#", [], id="draft-07 with its trailing #"),
    pytest.param("https://example.com/my-dialect", ["input_schema_dialect"], id="an unknown dialect"),
    pytest.param("https://json-schema.org/draft/2030-01/schema", ["input_schema_dialect"], id="a future draft"),
    pytest.param("http://json-schema.org/draft-05/schema", ["input_schema_dialect"], id="a draft that never was"),
    pytest.param(7, ["input_schema_dialect"], id="a number"),
    pytest.param("http://[", ["input_schema_dialect"], id="a text that is no URI"),
]


@pytest.mark.parametrize(("dialect", "codes"), DIALECTS)
def test_an_unknown_dialect_is_a_tool_definition_problem(dialect, codes):
    schema = {"type": "object"} if dialect is None else {"type": "object", "$schema": dialect}
    assert [p.code for p in validate_input_schema(schema)] == codes


def test_the_dialect_problem_names_the_dialect_and_the_known_ones():
    (problem,) = validate_input_schema(
        {"type": "object", "$schema": "https://example.com/my-dialect", "properties": {"q": {"type": "strnig"}}}
    )
    assert dict(problem.params) == {"dialect": "'https://example.com/my-dialect'"}
    assert str(problem) == (
        "inputSchema $schema 'https://example.com/my-dialect' names a JSON Schema dialect the "
        "console does not know (it knows drafts 3, 4, 6, 7, 2019-09 and 2020-12); the schema is "
        "not validated as another one"
    )


def test_the_guard_refuses_a_tool_of_an_unknown_dialect_and_never_checks_it_as_2020_12():
    """The guard's own argument check reads the dialect the same way: an unknown ``$schema`` is
    never validated as 2020-12 (which would accept ``{"q": 5}`` against a schema asking a text)."""
    schema = {"type": "object", "$schema": "https://example.com/my-dialect", "properties": {"q": {"type": "string"}}}
    base = shop()
    tools = tuple(Tool("lookup", MCP, input_schema=schema) if t.name == "lookup" else t for t in base.tools)
    catalog = type(base)(tools=tools, skills=base.skills)
    verdict = check_call(catalog, [], {"name": "lookup", "arguments": {"q": "x"}})
    assert (verdict.verdict, verdict.reason) == ("refused", "invalid_tool_definition")
    with pytest.raises(Exception, match=re.escape("unknown $schema dialect 'https://example.com/my-dialect'")):
        _validate_arguments(schema, {"q": 5}, {})
    draft7 = {**schema, "$schema": "http://json-schema.org/draft-07/schema#"}
    assert _validate_arguments(draft7, {"q": 5}, {}) == "q: 5 is not of type 'string'"
