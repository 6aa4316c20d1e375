"""The transcript table (tests/transcript_cases.py) through ``POST runtime/rounds``,
``POST runtime/check-call`` and ``POST runtime/load-skill``: always 200, the exact loaded /
masked / warnings, the verdict, and the stub only while the whole current manual is retained."""

from __future__ import annotations

import pytest

from skills_app.catalog import selectors
from tests.api.support import CHECK_CALL, LOAD_SKILL, MARKER, ROUNDS, publish_draft
from tests.transcript_cases import (
    CASES,
    MANUAL,
    ORDER_CHANGE_VERSION,
    STUB,
    Case,
    expected_loaded_in_catalog_order,
    order_change_v2,
    stub_expected,
)


@pytest.fixture
def catalog_v2(bitmall):
    order_change_v2()
    publish_draft()
    return [s.code for s in selectors.catalog_draft().enabled_skills]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_rounds_reads_the_transcript(catalog_v2, post, case: Case) -> None:
    response = post(ROUNDS, {"messages": case.messages})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["loaded"] == expected_loaded_in_catalog_order(case, catalog_v2)
    assert body["masked"] == case.masked()
    assert [(w["code"], w["index"]) for w in body["warning_details"]] == list(case.warnings)
    assert [w["message"] for w in body["warning_details"]] == body["warnings"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_check_call_reads_the_transcript(catalog_v2, post, case: Case) -> None:
    response = post(
        CHECK_CALL, {"messages": case.messages, "call": {"name": "cancel_order", "arguments": {"order_no": "88239"}}}
    )
    assert response.status_code == 200, response.content
    body = response.json()
    if "order_change" in case.loaded:
        assert (body["verdict"], body["reason"]) == ("confirm", None)
    else:
        assert (body["verdict"], body["reason"], body["skill_code"]) == ("refused", "masked", "order_change")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_load_skill_reads_the_transcript(catalog_v2, post, case: Case) -> None:
    response = post(LOAD_SKILL, {"messages": case.messages, "skill_code": "order_change"})
    assert response.status_code == 200, response.content
    body = response.json()
    if stub_expected(case):
        assert (body["already_loaded"], body["content"], body["metadata"]) == (
            True,
            STUB,
            {"already_loaded": True, "skill_code": "order_change", "skill_version": ORDER_CHANGE_VERSION},
        )
    else:
        assert (body["already_loaded"], body["content"], body["metadata"]) == (
            False,
            MANUAL,
            {MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION},
        )


def test_the_catalog_serves_the_earlier_published_manual(catalog_v2, api_client) -> None:
    """``GET runtime/catalog``: order_change carries the digest of its version-1 manual (release 1),
    the other skills, never changed, none."""
    from skill_rule.manuals import digest
    from tests.api.support import CATALOG
    from tests.transcript_cases import MANUAL_V1

    body = api_client.get(CATALOG).json()
    assert {s["code"]: s.get("earlier_manuals") for s in body["skills"]} == {
        code: ([digest(MANUAL_V1, 1).as_dict()] if code == "order_change" else None) for code in catalog_v2
    }
