"""Exact values of ``domain.rules`` a page or client relies on (issue 11: the mutation-testing triage
of ``packages/skill-rule/src/skill_rule/rules.py``). Library tests: call, assert, no database."""

from __future__ import annotations

from skill_rule.errors import Problem
from skill_rule.rules import warning_detail


def test_a_plain_string_warning_has_no_code_and_no_index() -> None:
    assert warning_detail("something odd") == {"code": None, "index": None, "message": "something odd"}


def test_a_warning_names_its_message_index_only_when_it_is_an_integer() -> None:
    named = Problem("arguments_unparseable", "message %(index)s: bad", {"index": 3})
    assert warning_detail(named) == {"code": "arguments_unparseable", "index": 3, "message": "message 3: bad"}
    odd = Problem("x_code", "message %(index)s", {"index": "3"})
    assert warning_detail(odd) == {"code": "x_code", "index": None, "message": "message 3"}
    bare = Problem("y_code", "no index")
    assert warning_detail(bare) == {"code": "y_code", "index": None, "message": "no index"}


def test_a_call_without_a_name_is_refused_as_the_unknown_tool_named_empty() -> None:
    from skill_rule.rules import check_call
    from tests.domain.factories import ALPHA, BETA, shop

    verdict = check_call(shop(ALPHA, BETA), [], {"arguments": {}})
    assert (verdict.name, verdict.verdict, verdict.reason) == ("", "refused", "unknown_tool")
    assert (
        verdict.message == "unknown tool ''; tools on offer: search_knowledge, load_skill, flush_memory, lookup, export"
    )
    numbered = check_call(shop(ALPHA, BETA), [], {"name": 5, "id": 7})
    assert (numbered.name, numbered.reason) == ("5", "unknown_tool")


def test_an_unknown_tool_in_a_catalog_offering_nothing_says_none_are_on_offer() -> None:
    from skill_rule import Catalog
    from skill_rule.rules import check_call

    verdict = check_call(Catalog(tools=(), skills=()), [], {"name": "drop"})
    assert verdict.message == "unknown tool 'drop'; tools on offer: none"


def test_an_unknown_tool_name_with_surrounding_whitespace_is_shown_escaped_any_other_as_typed() -> None:
    """The refusal quotes the name as typed, but a name with leading or trailing whitespace is shown
    as its repr so the operator sees the stray newline or space."""
    from skill_rule.rules import check_call
    from tests.domain.factories import ALPHA, BETA, shop

    offer = "tools on offer: search_knowledge, load_skill, flush_memory, lookup, export"
    messages = {
        name: check_call(shop(ALPHA, BETA), [], {"name": name}).message for name in ("drop\n", "it's", "a\\b", " drop")
    }
    assert messages == {
        "drop\n": f"unknown tool 'drop\\n'; {offer}",
        "it's": f"unknown tool 'it's'; {offer}",
        "a\\b": f"unknown tool 'a\\b'; {offer}",
        " drop": f"unknown tool ' drop'; {offer}",
    }


def test_a_call_to_a_tool_with_an_invalid_definition_is_refused_listing_every_problem() -> None:
    from skill_rule import MCP, REFUSED, Catalog, Tool
    from skill_rule.rules import Verdict, check_call
    from tests.domain.factories import ALPHA, builtin_tools, mcp_tools

    broken = Tool("broken", MCP, input_schema={"type": 5}, annotations=[])  # type: ignore[arg-type]
    catalog = Catalog(tools=builtin_tools() + mcp_tools() + (broken,), skills=(ALPHA,))
    verdict = check_call(catalog, [], {"name": "broken", "arguments": {"x": 1}})
    assert verdict == Verdict(
        "broken",
        REFUSED,
        "invalid_tool_definition",
        None,
        "tool 'broken' has an invalid definition and cannot be called: "
        'inputSchema must have "type": "object", got 5; '
        "inputSchema is not a valid JSON Schema at type: 5 is not valid under any of the given schemas; "
        "annotations must be a JSON object",
        {"x": 1},
    )


def test_load_skill_answers_a_malformed_or_unknown_code_before_reading_the_messages() -> None:
    """docs/rule.md: an unknown, disabled or malformed code is an error before anything is read, so
    messages that cannot be read do not turn it into an exception — also for a row stored with a
    code that is no skill code."""
    from skill_rule.rules import LoadResult, load_skill
    from tests.domain.factories import ALPHA, shop, skill

    catalog = shop(ALPHA, skill("Bad Code", ("export",)))
    unreadable = [5]
    offer = "skills on offer: Bad Code, alpha"
    assert load_skill(catalog, unreadable, "Bad Code") == LoadResult(
        "error", f"unknown skill 'Bad Code'; {offer}", {}, False, None
    )
    assert load_skill(catalog, unreadable, "gamma") == LoadResult(
        "error", f"unknown skill 'gamma'; {offer}", {}, False, None
    )
    assert load_skill(catalog, unreadable, "") == LoadResult(
        "error", "load_skill needs a skill_code (text)", {}, False, None
    )


def test_load_from_manuals_refuses_a_missing_malformed_or_unknown_code_itself() -> None:
    """``load_from_manuals`` is public (the simulator calls it after the guard, ``load_skill`` after
    its own check): it does not rely on its caller having checked the code."""
    from skill_rule import Catalog
    from skill_rule.rules import LoadResult, load_from_manuals
    from tests.domain.factories import ALPHA, builtin_tools, shop, skill

    catalog = shop(ALPHA, skill("Bad Code", ("export",)))
    needs = LoadResult("error", "load_skill needs a skill_code (text)", {}, False, None)
    assert [load_from_manuals(catalog, [], code) for code in ("", 7, None)] == [needs, needs, needs]
    offer = "skills on offer: Bad Code, alpha"
    assert load_from_manuals(catalog, [], "gamma") == LoadResult(
        "error", f"unknown skill 'gamma'; {offer}", {}, False, None
    )
    assert load_from_manuals(catalog, [], "Bad Code") == LoadResult(
        "error", f"unknown skill 'Bad Code'; {offer}", {}, False, None
    )
    empty = Catalog(tools=builtin_tools(), skills=())
    assert load_from_manuals(empty, [], "alpha") == LoadResult(
        "error", "unknown skill 'alpha'; skills on offer: none", {}, False, None
    )


def test_a_load_result_names_the_skill_it_loaded_in_full_and_as_the_stub() -> None:
    """``LoadResult.skill_code`` (read by Python clients through ``skill_client.client``) is the code of
    the manual served, for the full manual and for the repeat-load stub."""
    from skill_rule.rules import LoadResult, already_loaded_text, load_skill
    from tests.domain.factories import ALPHA, MARKER, loaded, shop

    catalog = shop()
    assert load_skill(catalog, [], "alpha") == LoadResult(
        "success", ALPHA.content, {MARKER: "alpha", "skill_version": 1}, False, 1, "alpha"
    )
    assert load_skill(catalog, loaded("alpha"), "alpha") == LoadResult(
        "success",
        already_loaded_text(ALPHA),
        {"already_loaded": True, "skill_code": "alpha", "skill_version": 1},
        True,
        1,
        "alpha",
    )


def test_a_code_listed_twice_releases_the_tools_of_both_entries_when_loaded() -> None:
    from skill_rule import compute_round
    from tests.domain.factories import loaded, shop, skill

    catalog = shop(skill("alpha", ("refund",), sort_order=10), skill("alpha", ("ship",), sort_order=20))
    view = compute_round(catalog, loaded("alpha"))
    assert (view.loaded, view.released, dict(view.masked)) == (("alpha", "alpha"), ("refund", "ship"), {})


def test_a_round_as_dict_with_only_some_keys_gives_exactly_those() -> None:
    from skill_rule import compute_round
    from tests.domain.factories import shop

    view = compute_round(shop(), [])
    assert view.as_dict(only=("visible", "count")) == {
        "visible": ["search_knowledge", "load_skill", "flush_memory", "lookup", "export"],
        "count": 5,
    }


def test_a_tool_with_an_invalid_definition_is_warned_about_with_its_problems_and_their_codes() -> None:
    """The round's warning names the tool and its problems; a page translates it by its params."""
    from skill_rule import MCP, Catalog, Tool
    from skill_rule.rules import tool_definition_warnings
    from tests.domain.factories import builtin_tools

    catalog = Catalog(tools=builtin_tools() + (Tool("broken", MCP, input_schema={"type": 5}),), skills=())
    (warning,) = tool_definition_warnings(catalog)
    problems = (
        'inputSchema must have "type": "object", got 5; '
        "inputSchema is not a valid JSON Schema at type: 5 is not valid under any of the given schemas"
    )
    assert (warning.code, str(warning), dict(warning.params)) == (
        "tool_definition_invalid",
        f"tool 'broken' has an invalid definition ({problems}); calls to it are refused",
        {"tool": "broken", "problems": problems, "problem_codes": ["input_schema_type", "input_schema_invalid"]},
    )
