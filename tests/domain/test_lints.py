"""Lints (docs/lints.md): each code, its exact English message, and that they never block."""

from __future__ import annotations

from dataclasses import replace

import pytest

from skill_rule import Catalog, Skill, Tool
from skill_rule.catalog import MCP
from skill_rule.lints import is_read_only, lint_catalog, lint_skill, manual_mentions

from .factories import builtin_tools, mcp_tools, skill

#: refund and cancel need confirmation; ship, lookup and export are read-only (no annotations).
ALPHA = skill("alpha", ("refund", "cancel"), sort_order=10, content="# alpha\nuse refund and cancel")
BETA = skill("beta", ("cancel",), sort_order=20, content="# beta\nuse cancel")


def catalog(*skills: Skill, tools: tuple[Tool, ...] | None = None) -> Catalog:
    return Catalog(tools=builtin_tools() + (tools or mcp_tools()), skills=skills or (ALPHA, BETA))


def messages(cat: Catalog) -> list[tuple[str, str | None, str]]:
    return [(lint.code, lint.skill, lint.message) for lint in lint_catalog(cat)]


CASES = [
    pytest.param((ALPHA, BETA), [], id="a clean catalog has no lint"),
    pytest.param(
        (ALPHA, replace(BETA, description="x" * 251)),
        [
            (
                "description_long",
                "beta",
                "the description is 251 characters long; keep it within 250 (the model reads it in every round)",
            )
        ],
        id="description over 250 characters",
    ),
    pytest.param((ALPHA, replace(BETA, description="x" * 250)), [], id="description of exactly 250 characters is fine"),
    pytest.param(
        (ALPHA, replace(BETA, content="m" * 20_001)),
        [
            (
                "manual_long",
                "beta",
                "the manual is 20001 characters long; keep it within 20000 (it fills the context while loaded)",
            )
        ],
        id="manual over 20,000 characters",
    ),
    pytest.param(
        (ALPHA, replace(BETA, content="先调用 `refund_all` 再 archive_order() 。order_no 与 `order_no` 是参数")),
        [
            ("mention_unregistered", "beta", "the manual names 'refund_all', which is not a registered tool"),
            ("mention_unregistered", "beta", "the manual names 'archive_order', which is not a registered tool"),
        ],
        id="a tool-like name that is not registered (an argument name is not one)",
    ),
    pytest.param(
        (ALPHA, replace(BETA, content="取消用 cancel，退款用 refund。")),
        [
            (
                "mention_gated_elsewhere",
                "beta",
                "the manual names 'refund', which alpha gates: mentioning it "
                "unlocks nothing, load alpha or gate it here",
            )
        ],
        id="a tool another skill gates",
    ),
    pytest.param(
        (ALPHA, replace(BETA, tool_ids=("cancel", "ship"))),
        [
            (
                "gated_read_only",
                "beta",
                "gates 'ship', a read-only tool: hiding it behind a manual only slows the model down",
            )
        ],
        id="a gated read-only tool",
    ),
    pytest.param(
        (replace(ALPHA, tool_ids=("cancel",)), BETA),
        [
            (
                "confirm_ungated",
                None,
                "'refund' needs confirmation but no skill gates it: the model gets it without a manual",
            )
        ],
        id="a require_confirm tool no skill gates",
    ),
    pytest.param(
        (ALPHA, replace(BETA, description=" load  for alpha ")),
        [
            (
                "description_duplicate",
                "alpha",
                "the description is the same as that of beta: the model cannot tell them apart",
            ),
            (
                "description_duplicate",
                "beta",
                "the description is the same as that of alpha: the model cannot tell them apart",
            ),
        ],
        id="two skills with the same description",
    ),
]


@pytest.mark.parametrize(("skills", "expected"), CASES)
def test_lint(skills, expected) -> None:
    assert messages(catalog(*skills)) == expected


def test_a_disabled_skill_gates_nothing_so_its_confirm_tools_are_ungated() -> None:
    cat = catalog(ALPHA, replace(BETA, enabled=False), replace(skill("gamma", ("refund",)), enabled=False))
    assert [lint.code for lint in lint_catalog(cat)] == []  # alpha still gates refund and cancel
    cat = catalog(replace(ALPHA, enabled=False), BETA)
    assert [(lint.code, lint.tool) for lint in lint_catalog(cat)] == [("confirm_ungated", "refund")]


def test_read_only_is_the_annotation_when_synced_else_no_require_confirm() -> None:
    assert is_read_only(Tool("t", MCP, annotations={"readOnlyHint": True}, require_confirm=True))
    assert not is_read_only(Tool("t", MCP, annotations={"readOnlyHint": False}))
    assert not is_read_only(Tool("t", MCP, annotations={"title": "x"}))  # annotations without the hint
    assert is_read_only(Tool("t", MCP))
    assert not is_read_only(Tool("t", MCP, require_confirm=True))


def test_mentions_are_found_in_one_pass_in_first_mention_order() -> None:
    registered = frozenset({"cancel", "refund", "ship"})
    assert manual_mentions("ship、`cancel`，再 refund(x) 与 ship；unknown_tool() 和 prose_word", registered) == (
        ("ship", "cancel", "refund"),
        ("unknown_tool",),
    )
    assert manual_mentions("cancellation shipping refunds", registered) == ((), ())


def test_lint_skill_keeps_the_lints_about_one_skill_and_as_dict_is_json() -> None:
    cat = catalog(ALPHA, replace(BETA, content="refund", description="x" * 300))
    assert [lint.code for lint in lint_skill(cat, "beta")] == ["description_long", "mention_gated_elsewhere"]
    assert lint_skill(cat, "alpha") == ()
    assert lint_skill(cat, "beta")[1].as_dict() == {
        "code": "mention_gated_elsewhere",
        "skill": "beta",
        "tool": "refund",
        "message": "the manual names 'refund', which alpha gates: mentioning it unlocks nothing, load alpha or "
        "gate it here",
        "params": {"tool": "refund", "owners": "alpha", "owner_list": ["alpha"]},
    }


# ---- tools_mentioned: one alternation regex per tool set ------------------------------------
from skill_rule import lints as _lints  # noqa: E402


def test_tools_mentioned_finds_whole_words_in_first_mention_order():
    tools = frozenset({"cancel_order", "order", "query_order", "pay_order"})
    text = "先调用 query_order，再 cancel_order(order_no)；不要用 pay_order_v2 或 xpay_order。order 一词。cancel_order 再次。"
    assert _lints.tools_mentioned(text, tools) == ("query_order", "cancel_order", "order")


def test_tools_mentioned_compiles_one_pattern_per_tool_set():
    _lints._mention_pattern.cache_clear()
    tools = frozenset({"a-b", "c_d"})  # a name with a hyphen: the alternation regex
    for _ in range(5):
        assert _lints.tools_mentioned("use a-b then c_d", tools) == ("a-b", "c_d")
    info = _lints._mention_pattern.cache_info()
    assert (info.misses, info.hits, info.currsize) == (1, 4, 1)
    assert _lints.tools_mentioned("use a-b", {"a-b"}) == ("a-b",)
    assert _lints._mention_pattern.cache_info().currsize == 2
    pattern = _lints._mention_pattern(tools).pattern
    assert pattern.count("(?<!") == 1 and "a\\-b|c_d" in pattern


WORD_CASES = [
    "先调用 query_order，再 cancel_order(order_no)；不要用 pay_order_v2 或 xpay_order。order 一词。cancel_order 再次。",
    "order_no order orderx _order order_ `order`-order.order\norder",
    "ORDER Order order1 1order order",
    "",
    "order",
    "cancel_order-order cancel_order_order 中文order中文 order\u00e9 éorder",
]


@pytest.mark.parametrize("text", WORD_CASES)
def test_tools_mentioned_with_word_names_finds_what_the_alternation_finds_without_compiling_it(text):
    tools = frozenset({"cancel_order", "order", "query_order", "pay_order", "order_no", "1order"})
    _lints._mention_pattern.cache_clear()
    found = _lints.tools_mentioned(text, tools)
    assert _lints._mention_pattern.cache_info().currsize == 0  # the runs were looked up instead
    assert found == tuple(dict.fromkeys(m.group(0) for m in _lints._mention_pattern(tools).finditer(text)))


def test_tools_mentioned_with_nothing_to_find():
    assert _lints.tools_mentioned("", {"a_b"}) == ()
    assert _lints.tools_mentioned("a_b", set()) == ()
    assert _lints.tools_mentioned("a.b a+b", {"a.b"}) == ("a.b",)  # names are escaped


@pytest.mark.parametrize(("skills", "expected"), CASES)
def test_lint_skill_is_lint_catalog_filtered_to_that_skill(skills, expected) -> None:
    cat = catalog(*skills)
    for s in cat.skills:
        assert lint_skill(cat, s.code) == tuple(lint for lint in lint_catalog(cat) if lint.skill == s.code)
    assert lint_skill(cat, "no_such_skill") == ()
