"""Exact lints that the mutation run of ``domain/lints.py`` found unpinned (docs/testing.md,
"Score"): each test builds its own catalog (a catalog built at import keeps derived values from
the unmutated run)."""

from __future__ import annotations

from skill_rule import BUILTIN, MCP, Catalog, Skill, Tool
from skill_rule.limits import MANUAL_LINT_LENGTH
from skill_rule.lints import lint_catalog, lint_skill, tools_mentioned

from .factories import builtin_tools, mcp_tools, skill


def _catalog(*skills: Skill, tools: tuple[Tool, ...] | None = None) -> Catalog:
    return Catalog(tools=tools if tools is not None else builtin_tools() + mcp_tools(), skills=skills)


def _as_tuples(lints, *, catalog_wide: bool = False):
    """The lints as tuples: the skills' own (``confirm_ungated`` of the shop's two confirm tools
    left out unless ``catalog_wide``)."""
    return [
        (lint.code, lint.skill, lint.tool, dict(lint.params))
        for lint in lints
        if catalog_wide or lint.skill is not None
    ]


def test_a_manual_at_the_length_limit_is_fine_and_one_character_more_is_linted():
    at = skill("alpha", content="x" * MANUAL_LINT_LENGTH)
    over = skill("beta", content="x" * (MANUAL_LINT_LENGTH + 1))
    assert _as_tuples(lint_catalog(_catalog(at, over))) == [
        ("manual_long", "beta", None, {"length": MANUAL_LINT_LENGTH + 1, "limit": MANUAL_LINT_LENGTH})
    ]


def test_mention_and_read_only_lints_name_their_tool_and_every_other_owner():
    alpha = skill("alpha", ("cancel",), content="call `refnd_order` then `ship` and `export`")
    beta = skill("beta", ("ship", "lookup"))
    gamma = skill("gamma", ("ship",))
    lints = _as_tuples(lint_catalog(_catalog(alpha, beta, gamma)))
    assert ("mention_unregistered", "alpha", "refnd_order", {"tool": "refnd_order"}) in lints
    assert (
        "mention_gated_elsewhere",
        "alpha",
        "ship",
        {"tool": "ship", "owners": "beta, gamma", "owner_list": ["beta", "gamma"]},
    ) in lints
    assert ("gated_read_only", "beta", "lookup", {"tool": "lookup"}) in lints
    [elsewhere] = [x for x in lint_catalog(_catalog(alpha, beta, gamma)) if x.code == "mention_gated_elsewhere"]
    assert elsewhere.message == (
        "the manual names 'ship', which beta, gamma gates: mentioning it unlocks nothing, "
        "load beta, gamma or gate it here"
    )


def test_duplicate_descriptions_name_every_other_skill_and_an_empty_one_is_no_duplicate():
    a, b, c = (Skill(code=x, name=x, description="  same   text ", content="m") for x in ("a_x", "b_x", "c_x"))
    empty = Skill(code="d_x", name="d", description="   ", content="m")
    lints = _as_tuples(lint_catalog(_catalog(a, b, c, empty)))
    assert lints == [
        ("description_duplicate", "a_x", None, {"others": "b_x, c_x", "other_list": ["b_x", "c_x"]}),
        ("description_duplicate", "b_x", None, {"others": "a_x, c_x", "other_list": ["a_x", "c_x"]}),
        ("description_duplicate", "c_x", None, {"others": "a_x, b_x", "other_list": ["a_x", "b_x"]}),
    ]
    assert lint_skill(_catalog(a, b, c, empty), "d_x") == ()


def test_a_manual_may_call_load_skill_while_no_skill_is_enabled_and_a_tool_with_an_odd_schema_breaks_nothing():
    disabled = Skill(
        code="alpha", name="a", description="d", content="first `load_skill(alpha)` then `q`", enabled=False
    )
    odd = Tool("odd_tool", MCP, input_schema=["not", "an", "object"])  # as stored: never a crash
    assert _as_tuples(lint_catalog(_catalog(disabled, tools=builtin_tools() + mcp_tools() + (odd,)))) == []


def test_a_builtin_that_asks_for_confirmation_is_never_linted_as_ungated():
    tools = (Tool("search_knowledge", BUILTIN, require_confirm=True),) + builtin_tools()[1:] + mcp_tools()
    assert _as_tuples(lint_catalog(_catalog(tools=tools)), catalog_wide=True) == [
        ("confirm_ungated", None, "refund", {"tool": "refund"}),
        ("confirm_ungated", None, "cancel", {"tool": "cancel"}),
    ]


def test_the_lints_of_a_code_listed_twice_are_those_of_both_entries():
    first = skill("alpha", content="x" * (MANUAL_LINT_LENGTH + 1))
    second = Skill(code="alpha", name="a", description="d" * 300, content="m")
    assert [x.code for x in lint_skill(_catalog(first, second), "alpha")] == ["manual_long", "description_long"]


def test_mentions_are_found_once_each_in_order_with_either_matcher():
    assert tools_mentioned("ship then lookup then ship", {"lookup", "ship", "export"}) == ("ship", "lookup")
    assert tools_mentioned("use a-b and x.y, then a-b", {"a-b", "x.y", "z"}) == ("a-b", "x.y")
    assert tools_mentioned("", {"ship"}) == () and tools_mentioned("ship", set()) == ()
