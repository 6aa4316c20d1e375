"""The transcript table (tests/transcript_cases.py) run through the domain: ``compute_round``
and ``check_call`` on the bitmall catalog as the database holds it."""

from __future__ import annotations

import pytest

from skill_rule import check_call, compute_round, parse_messages
from skills_app.catalog import selectors
from tests.transcript_cases import CASES, ORDER_CHANGE_VERSION, Case, expected_loaded_in_catalog_order, order_change_v2


@pytest.fixture
def catalog(bitmall):
    order_change_v2()
    cat = selectors.catalog_draft()
    assert cat.skill("order_change").version == ORDER_CHANGE_VERSION
    return cat


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_domain_reads_the_transcript(catalog, case: Case) -> None:
    view = compute_round(catalog, parse_messages(case.messages))
    assert list(view.loaded) == expected_loaded_in_catalog_order(case, [s.code for s in catalog.enabled_skills])
    assert dict(view.masked) == case.masked()
    assert [(w.code, w.params["index"]) for w in view.warnings] == list(case.warnings)
    verdict = check_call(catalog, case.messages, {"name": "cancel_order", "arguments": {"order_no": "88239"}})
    if "order_change" in case.loaded:
        assert (verdict.verdict, verdict.reason) == ("confirm", None)
    else:
        assert (verdict.verdict, verdict.reason, verdict.skill_code) == ("refused", "masked", "order_change")


def test_the_outdated_warning_names_the_skill_the_versions_and_its_tools(catalog) -> None:
    case = next(c for c in CASES if c.warnings == (("manual_outdated", 2),))
    (warning,) = compute_round(catalog, case.messages).warnings
    assert warning == (
        "messages[2]: the retained manual of 'order_change' is version 1, the skill is now version 2; "
        "it releases cancel_order, change_address, which that manual may not mention"
    )
