"""Exact codes, templates and params of the skill field refusals (``validation.clean_skill``): a
page shows the sentence of the ``code`` in the user's language, filled from ``params``
(``message_catalog.MESSAGES_BY_CODE``), so each must be the one the page expects (issue 11: the
mutation-testing triage of ``packages/skill-rule/src/skill_rule/validation.py``). Library tests, no database."""

from __future__ import annotations

import pytest

from skill_rule import SkillValidationError, ToolRegistry, clean_skill
from skill_rule.validation import CleanSkill, normalize_newlines, validate_skill_code, validate_tool_ids

REGISTRY = ToolRegistry(enabled=frozenset({"cancel_order", "query_order"}), disabled=frozenset({"old_tool"}))
GOOD = {
    "skill_code": "order_change",
    "name": "Orders",
    "description": "load to change an order",
    "content": "# manual\n",
    "tool_ids": ["cancel_order"],
}
CODE_RULE = (
    "skill code '%(code)s' must start with a lowercase letter and use only lowercase letters, "
    "digits and single '_' or '-' separators."
)


def shape(problems):
    return [(str(p), p.code, p.template, dict(p.params)) for p in problems]


def problems_of(**overrides):
    with pytest.raises(SkillValidationError) as exc:
        clean_skill(**{**GOOD, **overrides}, registry=REGISTRY)
    return {field: shape(probs) for field, probs in exc.value.problems.items()}


@pytest.mark.parametrize(
    ("code", "want"),
    [
        pytest.param(
            "", [("skill code is required.", "skill_code_required", "skill code is required.", {})], id="empty"
        ),
        pytest.param(
            None, [("skill code is required.", "skill_code_required", "skill code is required.", {})], id="not text"
        ),
        pytest.param(
            "a",
            [
                (
                    "skill code 'a' must be 2–64 characters long.",
                    "skill_code_length",
                    "skill code '%(code)s' must be %(min)s–%(max)s characters long.",
                    {"code": "a", "min": 2, "max": 64},
                )
            ],
            id="too short",
        ),
        pytest.param(
            "a" * 65,
            [
                (
                    f"skill code '{'a' * 65}' must be 2–64 characters long.",
                    "skill_code_length",
                    "skill code '%(code)s' must be %(min)s–%(max)s characters long.",
                    {"code": "a" * 65, "min": 2, "max": 64},
                )
            ],
            id="too long",
        ),
        pytest.param(
            "load_skill",
            [
                (
                    "skill code 'load_skill' is the name of a builtin tool; choose another code.",
                    "skill_code_builtin",
                    "skill code '%(code)s' is the name of a builtin tool; choose another code.",
                    {"code": "load_skill"},
                )
            ],
            id="a builtin's name",
        ),
        pytest.param(
            "A1", [(CODE_RULE % {"code": "A1"}, "skill_code_pattern", CODE_RULE, {"code": "A1"})], id="pattern"
        ),
        pytest.param("ab", [], id="valid at the shortest"),
        pytest.param("a" * 64, [], id="valid at the longest"),
    ],
)
def test_a_skill_code_refusal_has_the_code_and_params_a_page_translates(code, want) -> None:
    assert shape(validate_skill_code(code)) == want


def test_tool_id_refusals_have_their_code_and_name_the_id() -> None:
    registry = ToolRegistry(
        enabled=frozenset({"ok", "load_skill"}), disabled=frozenset({"old", "ok"}), builtins=frozenset({"load_skill"})
    )
    assert shape(validate_tool_ids(["load_skill", "ok", "old", "nope"], registry)) == [
        (
            "'load_skill' is a builtin tool and can never be gated by a skill.",
            "tool_id_builtin",
            "'%(tool_id)s' is a builtin tool and can never be gated by a skill.",
            {"tool_id": "load_skill"},
        ),
        (
            "'old' belongs only to a disabled or deleted MCP node.",
            "tool_id_disabled",
            "'%(tool_id)s' belongs only to a disabled or deleted MCP node.",
            {"tool_id": "old"},
        ),
        (
            "'nope' is not the tool of any MCP node.",
            "tool_id_unknown",
            "'%(tool_id)s' is not the tool of any MCP node.",
            {"tool_id": "nope"},
        ),
    ]


@pytest.mark.parametrize(
    ("overrides", "want"),
    [
        pytest.param(
            {"name": None}, {"name": [("name is required.", "name_required", "name is required.", {})]}, id="no name"
        ),
        pytest.param(
            {"name": "n" * 65},
            {
                "name": [
                    (
                        "name has 65 characters; at most 64 allowed.",
                        "name_too_long",
                        "name has %(length)s characters; at most %(max)s allowed.",
                        {"length": 65, "max": 64},
                    )
                ]
            },
            id="name too long",
        ),
        pytest.param(
            {"description": None},
            {
                "description": [
                    (
                        "description is required (1–512 characters, one line).",
                        "description_required",
                        "description is required (1–%(max)s characters, one line).",
                        {"max": 512},
                    )
                ]
            },
            id="no description",
        ),
        pytest.param(
            {"description": "d" * 513},
            {
                "description": [
                    (
                        "description has 513 characters; at most 512 allowed.",
                        "description_too_long",
                        "description has %(length)s characters; at most %(max)s allowed.",
                        {"length": 513, "max": 512},
                    )
                ]
            },
            id="description too long",
        ),
        pytest.param(
            {"description": "one\u2028two"},
            {
                "description": [
                    (
                        "description must be a single line (the model sees it in a catalog).",
                        "description_multiline",
                        "description must be a single line (the model sees it in a catalog).",
                        {},
                    )
                ]
            },
            id="description with a line separator",
        ),
        pytest.param(
            {"content": "\r\n"},
            {
                "content": [
                    (
                        "the manual (content) must not be blank.",
                        "content_blank",
                        "the manual (content) must not be blank.",
                        {},
                    )
                ]
            },
            id="blank content",
        ),
        pytest.param(
            {"skill_code": "A1", "tool_ids": "nope"},
            {
                "skill_code": [(CODE_RULE % {"code": "A1"}, "skill_code_pattern", CODE_RULE, {"code": "A1"})],
                "tool_ids": [
                    (
                        "'nope' is not the tool of any MCP node.",
                        "tool_id_unknown",
                        "'%(tool_id)s' is not the tool of any MCP node.",
                        {"tool_id": "nope"},
                    )
                ],
            },
            id="code and tool ids",
        ),
    ],
)
def test_a_field_refusal_has_the_code_and_params_a_page_translates(overrides, want) -> None:
    assert problems_of(**overrides) == want


def test_a_clean_skill_keeps_every_field_normalized() -> None:
    out = clean_skill(
        skill_code="order_change",
        name=" Orders ",
        description=" load it ",
        content="# manual\r\nline\rend",
        tool_ids="query_order, cancel_order query_order",
        registry=REGISTRY,
    )
    assert out == CleanSkill(
        skill_code="order_change",
        name="Orders",
        description="load it",
        content="# manual\nline\nend",
        tool_ids=("query_order", "cancel_order"),
    )


def test_newlines_of_a_browser_post_become_plain_line_feeds() -> None:
    assert normalize_newlines("a\r\nb\rc\nd\r\n\r") == "a\nb\nc\nd\n\n"
