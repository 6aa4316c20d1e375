"""Exact values of ``domain.rules`` a page or client relies on (issue 11: the mutation-testing triage
of ``skills_app/domain/rules.py``). Library tests: call, assert, no database."""
from __future__ import annotations

from skills_app.domain.errors import Problem
from skills_app.domain.rules import warning_detail


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
    from skills_app.domain.rules import check_call
    from tests.domain.factories import ALPHA, BETA, shop

    verdict = check_call(shop(ALPHA, BETA), [], {"arguments": {}})
    assert (verdict.name, verdict.verdict, verdict.reason) == ("", "refused", "unknown_tool")
    assert verdict.message == "unknown tool ''; tools on offer: search_knowledge, load_skill, flush_memory, lookup, export"
    numbered = check_call(shop(ALPHA, BETA), [], {"name": 5, "id": 7})
    assert (numbered.name, numbered.reason) == ("5", "unknown_tool")
