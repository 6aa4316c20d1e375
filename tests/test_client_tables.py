"""The call-round table (tests/call_round_cases.py) through ``skill_client.client.RuntimeClient``
against a live server (the transcript table runs through the client in tests/test_client.py):
the client's local ``round`` and ``check_call`` give the exact values the domain, the API and the
preview give (docs/transcripts.md, docs/rule.md). One live server and one client per table: each
case is checked in a loop, named in the assertion."""

from __future__ import annotations

from tests.call_round_cases import CASES as CALL_CASES
from tests.call_round_cases import EXTRA_KEY_MESSAGE
from tests.test_client import bitmall_live, key, make_client  # noqa: F401 — fixtures

CANCEL = {"name": "cancel_order", "arguments": {"order_no": "88239"}}


def test_the_call_round_table_through_the_client(bitmall_live, make_client):
    client = make_client(bitmall_live)
    for case in CALL_CASES:
        verdict = client.check_call(case.messages, case.call)
        assert (case.id, (verdict.verdict, verdict.reason, verdict.skill_code)) == (case.id, case.expected)
        if case.id.startswith("load_skill with an extra key"):
            assert verdict.message == EXTRA_KEY_MESSAGE
    numbered = client.check_call(CALL_CASES[0].messages, {"id": 5, **CANCEL})
    assert (numbered.verdict, numbered.reason) == ("refused", "masked")
