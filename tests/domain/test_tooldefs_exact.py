"""Exact problems of the tool-definition rule (``domain.tooldefs``): the code a page translates, the
sentence and the params that fill it (``message_catalog.MESSAGES_BY_CODE``), the nesting limit, the data
keywords a ``$ref`` is not looked for in, the draft a ``$schema`` names, and the cache of checked
schemas (issue 11: the mutation-testing triage of ``packages/skill-rule/src/skill_rule/tooldefs.py``). Library
tests, no database.

The module keeps the problems of every schema it checked and one meta-schema validator per draft,
process-wide: each test here starts with both empty, so it sees the rule, not an earlier answer."""

from __future__ import annotations

import pytest

from skill_rule import tooldefs
from skill_rule.tooldefs import MAX_SCHEMA_DEPTH, validate_input_schema, validate_tool_definition, validate_tool_name

INVALID = "inputSchema is not a valid JSON Schema at %(where)s: %(cause)s"
DRAFT7 = "http://json-schema.org/draft-07/schema#"


@pytest.fixture(autouse=True)
def fresh_caches(monkeypatch):
    monkeypatch.setattr(tooldefs, "_SCHEMA_PROBLEMS", {})
    monkeypatch.setattr(tooldefs, "_META_VALIDATORS", {})


def shape(problems):
    return [(str(p), p.code, p.template, dict(p.params)) for p in problems]


def nested(levels: int, key: str = "not") -> dict:
    """``{"type": "object"}`` with ``levels`` schemas nested under ``key`` (``allOf``: in lists)."""
    root: dict = {"type": "object"}
    node = root
    for _ in range(levels):
        child: dict = {}
        node[key] = [child] if key == "allOf" else child
        node = child
    return root


@pytest.mark.parametrize("name", [None, "bad name", 7])
def test_a_bad_tool_name_is_shown_as_its_repr(name) -> None:
    assert shape(validate_tool_name(name)) == [
        (
            f"tool name {name!r} must be 1–64 ASCII letters, digits, '_' or '-' (what OpenAI and Anthropic accept)",
            "tool_name_invalid",
            "tool name %(name)s must be 1–64 ASCII letters, digits, '_' or '-' (what OpenAI and Anthropic accept)",
            {"name": repr(name)},
        )
    ]


@pytest.mark.parametrize(("schema", "kind"), [(None, "null"), ([1], "list"), ("{}", "str"), (3, "int")])
def test_a_schema_that_is_no_object_names_its_json_kind(schema, kind) -> None:
    assert shape(validate_input_schema(schema)) == [
        (
            f"inputSchema must be a JSON object, got {kind}",
            "input_schema_not_object",
            "inputSchema must be a JSON object, got %(kind)s",
            {"kind": kind},
        )
    ]


def test_a_schema_of_another_type_names_the_type_it_has_and_is_still_checked() -> None:
    assert shape(validate_input_schema({"type": "array", "required": "q"})) == [
        (
            'inputSchema must have "type": "object", got \'array\'',
            "input_schema_type",
            'inputSchema must have "type": "object", got %(value)s',
            {"value": "'array'"},
        ),
        (
            "inputSchema is not a valid JSON Schema at required: 'q' is not of type 'array'",
            "input_schema_invalid",
            INVALID,
            {"where": "required", "cause": "'q' is not of type 'array'"},
        ),
    ]
    assert [p.params for p in validate_input_schema({})] == [{"value": "None"}]


def test_a_meta_schema_error_names_where_it_is() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "strnig"}}}
    (problem,) = validate_input_schema(schema)
    assert problem.code == "input_schema_invalid"
    assert problem.params["where"] == "properties/q/type"
    assert str(problem).startswith("inputSchema is not a valid JSON Schema at properties/q/type: 'strnig' is not valid")


def test_the_draft_a_schema_names_is_the_one_it_is_checked_against() -> None:
    """``items`` as a list is draft 7 (tuple validation), not 2020-12."""
    items = {"type": "object", "items": [{"type": "string"}]}
    assert validate_input_schema({**items, "$schema": DRAFT7}) == ()
    assert [(p.code, p.params["where"]) for p in validate_input_schema(items)] == [("input_schema_invalid", "items")]


def test_nesting_up_to_the_limit_is_walked_and_past_it_refused() -> None:
    too_deep = [
        (
            "inputSchema is not a valid JSON Schema at (root): nested too deeply",
            "input_schema_invalid",
            INVALID,
            {"where": "(root)", "cause": "nested too deeply"},
        )
    ]
    assert validate_input_schema(nested(MAX_SCHEMA_DEPTH)) == ()
    assert shape(validate_input_schema(nested(MAX_SCHEMA_DEPTH + 1))) == too_deep
    assert validate_input_schema(nested(MAX_SCHEMA_DEPTH // 2, "allOf")) == ()  # a list is a level too
    assert shape(validate_input_schema(nested(MAX_SCHEMA_DEPTH // 2 + 1, "allOf"))) == too_deep


def test_a_ref_in_data_keywords_is_data_and_every_other_one_must_resolve() -> None:
    data = {
        "type": "object",
        "properties": {
            "q": {
                "default": {"$ref": "#/a"},
                "enum": [{"$ref": "#/b"}],
                "const": {"$ref": "#/c"},
                "examples": [{"$ref": "#/d"}],
            }
        },
    }
    assert validate_input_schema(data) == ()
    schema = {"type": "object", "anyOf": [{"$ref": "#/zz"}, {"$ref": "#/$defs/n"}], "$defs": {"n": {"$ref": "#/aa"}}}
    assert shape(validate_input_schema(schema)) == [
        (
            "inputSchema $ref '#/aa' does not resolve",
            "input_schema_ref",
            "inputSchema $ref %(ref)s does not resolve",
            {"ref": "'#/aa'"},
        ),
        (
            "inputSchema $ref '#/zz' does not resolve",
            "input_schema_ref",
            "inputSchema $ref %(ref)s does not resolve",
            {"ref": "'#/zz'"},
        ),
    ]


def test_a_ref_resolves_against_the_schema_s_own_id_and_draft() -> None:
    schema = {
        "$schema": DRAFT7,
        "$id": "https://example.com/root.json",
        "type": "object",
        "definitions": {"n": {"type": "string"}},
        "properties": {"q": {"$ref": "#/definitions/n"}, "r": {"$ref": "root.json#/definitions/n"}},
    }
    assert validate_input_schema(schema) == ()


def test_a_checked_schema_is_answered_from_the_cache_and_a_non_json_one_is_not_kept() -> None:
    first = validate_input_schema({"type": "array"})
    assert validate_input_schema({"type": "array"}) is first
    assert list(tooldefs._SCHEMA_PROBLEMS) == ['{"type": "array"}']
    assert validate_input_schema({"type": ("object",)})[0].code == "input_schema_type"
    assert list(tooldefs._SCHEMA_PROBLEMS) == ['{"type": "array"}']


def test_the_cache_of_checked_schemas_is_bounded_dropping_the_oldest(monkeypatch) -> None:
    monkeypatch.setattr(tooldefs, "SCHEMA_CACHE_SIZE", 2)
    for title in ("a", "b", "c"):
        validate_input_schema({"type": "object", "title": title})
    assert list(tooldefs._SCHEMA_PROBLEMS) == ['{"type": "object", "title": "b"}', '{"type": "object", "title": "c"}']


def test_a_definition_lists_the_name_problems_then_the_schema_ones() -> None:
    assert [p.code for p in validate_tool_definition("bad name", {"type": "array"})] == [
        "tool_name_invalid",
        "input_schema_type",
    ]


def test_a_ref_after_a_data_keyword_is_still_looked_up() -> None:
    schema = {"type": "object", "properties": {"q": {"enum": [1], "items": {"$ref": "#/nope"}}}}
    assert [p.params for p in validate_input_schema(schema)] == [{"ref": "'#/nope'"}]


def test_a_pattern_that_is_no_regular_expression_is_refused_where_it_enters() -> None:
    """The meta-schema check runs with its format checker: ``"format": "regex"`` of ``pattern``."""
    (problem,) = validate_input_schema({"type": "object", "properties": {"q": {"type": "string", "pattern": "("}}})
    assert (problem.code, problem.params) == (
        "input_schema_invalid",
        {"where": "properties/q/pattern", "cause": "'(' is not a 'regex'"},
    )


def test_the_meta_schema_validator_of_a_draft_is_built_once() -> None:
    from jsonschema import Draft202012Validator

    validate_input_schema({"type": "object", "title": "one"})
    built = tooldefs._META_VALIDATORS[Draft202012Validator]
    validate_input_schema({"type": "object", "title": "two"})
    assert tooldefs._META_VALIDATORS == {Draft202012Validator: built}
    assert tooldefs._META_VALIDATORS[Draft202012Validator] is built


def test_schemas_that_are_no_json_text_are_each_checked_and_never_kept() -> None:
    """A set, say, cannot be written as JSON: such a schema has no cache key, so two of them never
    share an answer."""
    assert [p.code for p in validate_input_schema({"type": "array", "default": {1}})] == ["input_schema_type"]
    assert validate_input_schema({"type": "object", "default": {2}}) == ()
    assert tooldefs._SCHEMA_PROBLEMS == {}


def test_a_schema_whose_dialect_is_no_text_names_it_as_the_sender_wrote_it():
    from skill_rule.tooldefs import _validate_input_schema

    [problem] = _validate_input_schema({"type": "object", "$schema": ["not", "a", "uri"]})
    assert (problem.code, dict(problem.params)) == ("input_schema_dialect", {"dialect": '["not", "a", "uri"]'})


def test_refs_resolve_by_the_rules_of_the_schemas_own_dialect():
    from skill_rule.tooldefs import _validate_input_schema

    anchored = {
        "type": "object",
        "definitions": {"a": {"$id": "#foo", "type": "string"}},
        "properties": {"x": {"$ref": "#foo"}},
    }
    draft7 = {"$schema": "http://json-schema.org/draft-07/schema#", **anchored}
    assert _validate_input_schema(draft7) == ()  # draft-07: an $id of "#foo" names an anchor
    # 2020-12 has no such anchors: the same schema is refused there (its meta-schema already says so)
    assert [
        p.code for p in _validate_input_schema({"$schema": "https://json-schema.org/draft/2020-12/schema", **anchored})
    ] == ["input_schema_invalid"]
