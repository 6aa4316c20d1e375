"""The transcript table (tests/transcript_cases.py) and the call-round table
(tests/call_round_cases.py) through ``skills_app.client.RuntimeClient`` against a live server:
the client's local ``round`` and ``check_call`` give the exact values the domain, the API and the
preview give (docs/transcripts.md, docs/rule.md). One live server and one client per table: each
case is checked in a loop, named in the assertion."""
from __future__ import annotations

from skills_app import selectors, services

from .api.support import publish_draft
from .call_round_cases import CASES as CALL_CASES, EXTRA_KEY_MESSAGE
from .test_client import bitmall_live, key, make_client  # noqa: F401 — fixtures
from .transcript_cases import CASES as TRANSCRIPT_CASES, ORDER_CHANGE_VERSION, expected_loaded_in_catalog_order

CANCEL = {"name": "cancel_order", "arguments": {"order_no": "88239"}}


def test_the_transcript_table_through_the_client(bitmall_live, make_client):  # noqa: F811
    skill = selectors.skill_get(code="order_change")
    services.skill_update(skill=skill, description=skill.description + "（改）")
    publish_draft()
    client = make_client(bitmall_live)
    assert client.catalog.skill("order_change").version == ORDER_CHANGE_VERSION
    order = [s.code for s in client.catalog.enabled_skills]
    for case in TRANSCRIPT_CASES:
        view = client.round(case.messages)
        assert (case.id, list(view.loaded)) == (case.id, expected_loaded_in_catalog_order(case, order))
        assert (case.id, dict(view.masked)) == (case.id, case.masked())
        assert (case.id, [(w.code, w.params["index"]) for w in view.warnings]) == (case.id, list(case.warnings))
        verdict = client.check_call(case.messages, CANCEL)
        expected = ("confirm", None, None) if "order_change" in case.loaded else ("refused", "masked", "order_change")
        assert (case.id, (verdict.verdict, verdict.reason, verdict.skill_code)) == (case.id, expected)


def test_the_call_round_table_through_the_client(bitmall_live, make_client):  # noqa: F811
    client = make_client(bitmall_live)
    for case in CALL_CASES:
        verdict = client.check_call(case.messages, case.call)
        assert (case.id, (verdict.verdict, verdict.reason, verdict.skill_code)) == (case.id, case.expected)
        if case.id.startswith("load_skill with an extra key"):
            assert verdict.message == EXTRA_KEY_MESSAGE
    numbered = client.check_call(CALL_CASES[0].messages, {"id": 5, **CANCEL})
    assert (numbered.verdict, numbered.reason) == ("refused", "masked")
