"""Skill fields (docs/design.md) through ``validation.clean_skill``: valid inputs, invalid inputs with
their exact message, and the normalized output."""

from __future__ import annotations

import pytest

from skill_rule import SkillValidationError, ToolRegistry, clean_skill, normalize_tool_ids
from skill_rule.limits import DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH, SKILL_CODE_MAX_LENGTH

REGISTRY = ToolRegistry(
    enabled=frozenset({"cancel_order", "change_address", "query_order"}), disabled=frozenset({"old_tool"})
)
GOOD = {
    "skill_code": "order_change",
    "name": "订单修改",
    "description": "取消或改地址时加载",
    "content": "# manual\n",
    "tool_ids": ["cancel_order"],
}
CODE_RULE = (
    "must start with a lowercase letter and use only lowercase letters, digits and single '_' or '-' separators."
)


def clean(**overrides):
    return clean_skill(**{**GOOD, **overrides}, registry=REGISTRY)


def errors_of(**overrides) -> dict[str, list[str]]:
    with pytest.raises(SkillValidationError) as exc:
        clean(**overrides)
    return exc.value.errors


@pytest.mark.parametrize("code", ["ab", "a-b_c", "a1", "order_change", "x9-y8_z7", "a" * SKILL_CODE_MAX_LENGTH])
def test_valid_skill_codes(code: str) -> None:
    assert clean(skill_code=code).skill_code == code


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("a", "skill code 'a' must be 2–64 characters long."),
        ("a" * 65, f"skill code '{'a' * 65}' must be 2–64 characters long."),
        ("", "skill code is required."),
        ("a__b", f"skill code 'a__b' {CODE_RULE}"),
        ("a-_b", f"skill code 'a-_b' {CODE_RULE}"),
        ("A1", f"skill code 'A1' {CODE_RULE}"),
        ("a_", f"skill code 'a_' {CODE_RULE}"),
        ("1a", f"skill code '1a' {CODE_RULE}"),
        ("_ab", f"skill code '_ab' {CODE_RULE}"),
        ("a b", f"skill code 'a b' {CODE_RULE}"),
        ("../x", f"skill code '../x' {CODE_RULE}"),
        ("ab\n", f"skill code 'ab\n' {CODE_RULE}"),
    ],
)
def test_invalid_skill_codes(code: str, message: str) -> None:
    assert errors_of(skill_code=code) == {"skill_code": [message]}


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"name": "n" * (NAME_MAX_LENGTH + 1)}, "name", "name has 65 characters; at most 64 allowed."),
        ({"name": "  "}, "name", "name is required."),
        ({"description": ""}, "description", "description is required (1–512 characters, one line)."),
        (
            {"description": "d" * (DESCRIPTION_MAX_LENGTH + 1)},
            "description",
            "description has 513 characters; at most 512 allowed.",
        ),
        (
            {"description": "first line\nsecond line"},
            "description",
            "description must be a single line (the model sees it in a catalog).",
        ),
        ({"content": " \n\t"}, "content", "the manual (content) must not be blank."),
        ({"content": None}, "content", "the manual (content) must not be blank."),
        (
            {"tool_ids": ["cancel_order", "load_skill"]},
            "tool_ids",
            "'load_skill' is a builtin tool and can never be gated by a skill.",
        ),
        (
            {"tool_ids": ["search_knowledge"]},
            "tool_ids",
            "'search_knowledge' is a builtin tool and can never be gated by a skill.",
        ),
        ({"tool_ids": ["cancel_ordr"]}, "tool_ids", "'cancel_ordr' is not the tool of any MCP node."),
        ({"tool_ids": ["old_tool"]}, "tool_ids", "'old_tool' belongs only to a disabled or deleted MCP node."),
    ],
)
def test_invalid_fields_name_the_value(overrides, field, message) -> None:
    assert errors_of(**overrides) == {field: [message]}


def test_every_bad_field_and_every_bad_id_is_reported_at_once() -> None:
    errors = errors_of(skill_code="A", name="", tool_ids=["flush_memory", "nope", "old_tool"])
    assert errors == {
        "skill_code": ["skill code 'A' must be 2–64 characters long."],
        "name": ["name is required."],
        "tool_ids": [
            "'flush_memory' is a builtin tool and can never be gated by a skill.",
            "'nope' is not the tool of any MCP node.",
            "'old_tool' belongs only to a disabled or deleted MCP node.",
        ],
    }


def test_a_custom_builtin_set_is_refused_too() -> None:
    registry = ToolRegistry(enabled=frozenset({"x1"}), builtins=frozenset({"x1"}))
    with pytest.raises(SkillValidationError) as exc:
        clean_skill(**{**GOOD, "tool_ids": ["x1"]}, registry=registry)
    assert exc.value.errors == {"tool_ids": ["'x1' is a builtin tool and can never be gated by a skill."]}


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        (None, ()),
        ([], ()),
        (["", "  "], ()),
        (
            ["change_address", " cancel_order ", "", "change_address", "query_order", "cancel_order"],
            ("change_address", "cancel_order", "query_order"),
        ),
        ("query_order, cancel_order\nquery_order  change_address", ("query_order", "cancel_order", "change_address")),
        ("  ", ()),
    ],
)
def test_tool_ids_drop_blanks_and_duplicates_keeping_order(raw, normalized) -> None:
    assert normalize_tool_ids(raw) == normalized
    assert clean(tool_ids=raw).tool_ids == normalized


def test_valid_fields_come_back_trimmed() -> None:
    out = clean(name="  订单修改 ", description=" 取消时加载 ")
    assert (out.name, out.description, out.content) == ("订单修改", "取消时加载", "# manual\n")


@pytest.mark.parametrize(
    "overrides",
    [
        {"name": "n" * NAME_MAX_LENGTH},
        {"description": "d" * DESCRIPTION_MAX_LENGTH},
        {"description": "x"},
        {"tool_ids": []},
    ],
    ids=["name at the limit", "description at the limit", "one-character description", "no tool_ids"],
)
def test_values_at_the_limits_are_accepted(overrides) -> None:
    clean(**overrides)
