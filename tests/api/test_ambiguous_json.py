"""Ambiguous JSON through ``POST runtime/rounds``, ``load-skill`` and ``check-call``, posted as raw
bytes (a duplicate key cannot be written as a dict): always a round, the exact loaded skills,
warnings and verdicts of tests/ambiguous_cases.py; a key twice at the top of a body is a 400 naming
it (docs/transcripts.md and docs/runtime-api.md)."""

from __future__ import annotations

import json

import pytest

from skills_app.catalog import selectors
from tests.ambiguous_cases import API_CALL_CASES, BIG, CALL_CASES, CASES, CallCase, Case
from tests.api.support import CHECK_CALL, LOAD_SKILL, ROUNDS, error_of


@pytest.fixture
def order(bitmall):
    return [s.code for s in selectors.catalog_draft().enabled_skills]


@pytest.fixture
def raw(api_client):
    def _raw(url: str, text: str):
        return api_client.generic("POST", url, text.encode(), content_type="application/json")

    return _raw


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_rounds_reads_ambiguous_json_fail_closed(order, raw, case: Case) -> None:
    response = raw(ROUNDS, '{"messages": %s}' % case.text)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["loaded"] == case.loaded_in(order)
    assert body["masked"] == case.masked()
    assert [(w["code"], w["index"]) for w in body["warning_details"]] == list(case.warnings)
    if case.first is not None:
        assert body["warnings"][0] == case.first


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_check_call_and_load_skill_read_the_same_messages(order, raw, case: Case) -> None:
    answer = raw(
        CHECK_CALL, '{"messages": %s, "call": {"name": "cancel_order", "arguments": {"order_no": "88239"}}}' % case.text
    )
    assert answer.status_code == 200, answer.content
    expected = ("confirm", None) if "order_change" in case.loaded else ("refused", "masked")
    assert (answer.json()["verdict"], answer.json()["reason"]) == expected
    loaded = raw(LOAD_SKILL, '{"messages": %s, "skill_code": "order_change"}' % case.text)
    assert loaded.status_code == 200, loaded.content
    assert loaded.json()["already_loaded"] is ("order_change" in case.loaded)


@pytest.mark.parametrize("case", CALL_CASES + API_CALL_CASES, ids=lambda c: c.id)
def test_check_call_refuses_an_ambiguous_current_call(bitmall, raw, case: CallCase) -> None:
    answer = raw(CHECK_CALL, '{"messages": [], "call": %s}' % case.text)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert (body["verdict"], body["reason"], body["message"]) == (case.verdict, case.reason, case.message)


@pytest.mark.parametrize("url", [ROUNDS, CHECK_CALL, LOAD_SKILL])
def test_a_key_twice_at_the_top_of_the_body_is_a_400_naming_it(bitmall, raw, url) -> None:
    body = (
        '{"messages": [], "messages": [{"role": "user", "content": "hi"}], "skill_code": "order_change", '
        '"call": {"name": "query_order", "arguments": {}}}'
    )
    error = error_of(raw(url, body), 400)
    assert error == {
        "code": "malformed_json",
        "message": "JSON parse error - key 'messages' appears twice in the body; JSON readers disagree on "
        "which value counts",
        "details": {"key": "messages", "cause": "key 'messages' appears twice"},
    }


@pytest.mark.parametrize(
    ("field", "cause"),
    [
        ('"release": 1e400', "number 1e400 is too large for a double"),
        ('"label": "\\ud800"', "string holds a lone surrogate \\ud800"),
        ('"access_profile": {"a": 1, "a": 2}', "key 'a' appears twice"),
        ('"release": %s' % BIG, "integer with 5001 digits is outside ±(2^53−1)"),
    ],
)
def test_another_ambiguous_field_is_a_400_naming_it(bitmall, raw, field, cause) -> None:
    error = error_of(raw(ROUNDS, '{"messages": [], %s}' % field), 400)
    key = field.split('"')[1]
    assert (error["code"], error["details"]) == ("malformed_json", {"key": key, "cause": cause})
    assert error["message"] == f"JSON parse error - {key}: {cause}; JSON readers disagree on which value counts"


def test_the_5001_digit_integer_of_the_issue_no_longer_gives_a_500(bitmall, raw) -> None:
    messages = (
        '[{"role": "assistant", "content": "", "tool_calls": [{"id": "c", "type": "function", "function": '
        '{"name": "query_order", "arguments": "{\\"order_no\\": %s}"}}]}]' % BIG
    )
    for url, extra in (
        (ROUNDS, ""),
        (CHECK_CALL, ', "call": {"name": "query_order", "arguments": {}}'),
        (LOAD_SKILL, ', "skill_code": "order_change"'),
    ):
        answer = raw(url, '{"messages": %s%s}' % (messages, extra))
        assert answer.status_code == 200, (url, answer.content)
    rounds = raw(ROUNDS, '{"messages": %s}' % messages).json()
    assert [(w["code"], w["index"]) for w in rounds["warning_details"]] == [("arguments_ambiguous", 0)]
    assert json.loads(json.dumps(rounds)) == rounds
