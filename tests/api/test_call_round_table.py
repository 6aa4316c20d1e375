"""The call-round table (tests/call_round_cases.py) through ``POST runtime/check-call``: the exact
verdict of a call judged in the round in which the model made it (docs/rule.md)."""

from __future__ import annotations

import pytest

from tests.api.support import CHECK_CALL
from tests.call_round_cases import CASES, EXTRA_KEY_MESSAGE, Case


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_check_call_judges_the_call_in_its_round(bitmall, post, case: Case) -> None:
    response = post(CHECK_CALL, {"messages": case.messages, "call": case.call})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["verdict"], body["reason"], body["skill_code"]) == case.expected
    if case.id.startswith("load_skill with an extra key"):
        assert body["message"] == EXTRA_KEY_MESSAGE


def test_a_call_id_of_another_type_is_no_id(bitmall, post) -> None:
    side = CASES[0]
    for call_id in (5, None, True):
        body = post(
            CHECK_CALL,
            {
                "messages": side.messages,
                "call": {"id": call_id, "name": "cancel_order", "arguments": {"order_no": "88239"}},
            },
        ).json()
        assert (body["verdict"], body["reason"], body["skill_code"]) == ("refused", "masked", "order_change")
