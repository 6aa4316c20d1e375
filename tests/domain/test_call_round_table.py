"""The call-round table (tests/call_round_cases.py) through the domain: ``check_call``, the
simulator running the case's YAML script and ``replay`` of the case's transcript give the same
exact verdict (docs/rule.md, "The round of a call")."""

from __future__ import annotations

import pytest

from skill_rule import check_call, parse_script
from skill_rule.simulator import replay, simulate
from skills_app.catalog import selectors
from tests.call_round_cases import CASES, EXTRA_KEY_MESSAGE, Case, _call_dict, replayed


@pytest.fixture
def catalog(bitmall):
    return selectors.catalog_draft()


def shape(verdict) -> tuple:
    return (verdict.verdict, verdict.reason, verdict.skill_code)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_check_call_judges_the_call_in_its_round(catalog, case: Case) -> None:
    assert shape(check_call(catalog, case.messages, _call_dict(case.call))) == case.expected


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_simulator_judges_the_call_in_its_round(catalog, case: Case) -> None:
    sim = simulate(catalog, parse_script(case.script))
    assert shape(sim.rounds[-1].calls[-1].verdict) == case.expected


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_replay_judges_the_call_in_its_round(catalog, case: Case) -> None:
    transcript, at = replayed(case)
    sim = replay(catalog, transcript)
    assert shape(sim.rounds[-1].calls[at].verdict) == case.expected


def test_a_tool_call_object_keeps_its_id_and_a_call_id_of_another_type_is_no_id(catalog) -> None:
    from skill_rule.messages import ToolCall

    side = CASES[0]
    by_object = check_call(catalog, side.messages, ToolCall("cancel_order", {"order_no": "88239"}, id="call_1"))
    assert shape(by_object) == ("refused", "masked", "order_change")
    # an id 5 is no id: the call is found by its name and arguments (never less strict)
    numbered = check_call(catalog, side.messages, {"id": 5, "name": "cancel_order", "arguments": {"order_no": "88239"}})
    assert shape(numbered) == ("refused", "masked", "order_change")
    other_args = check_call(catalog, side.messages, {"name": "cancel_order", "arguments": {"order_no": "88102"}})
    assert shape(other_args) == ("confirm", None, None)  # not the call of that message: judged on all of it


def test_the_extra_key_refusal_names_the_key(catalog) -> None:
    case = next(c for c in CASES if c.id.startswith("load_skill with an extra key"))
    assert check_call(catalog, case.messages, case.call).message == EXTRA_KEY_MESSAGE
    two = check_call(catalog, [], {"name": "load_skill", "arguments": {"skill_code": "order_change", "b": 1, "a": 2}})
    assert two.message == "invalid arguments for 'load_skill': unexpected keys 'a', 'b'; its parameters: skill_code"
