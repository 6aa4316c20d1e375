"""Limits on calls (``MAX_CALLS_PER_ROUND``, ``MAX_CALLS_PER_SCRIPT``) and the time budget of a run
(``SIMULATION_TIME_BUDGET``): issue 10 item 2, docs/simulator.md "Limits". The budget is tested
with a fake clock, never timed."""

from __future__ import annotations

import pytest

from skill_rule import MessageError, ScriptError, parse_messages, parse_script, simulate
from skill_rule.limits import MAX_CALLS_PER_ROUND, MAX_CALLS_PER_SCRIPT, MAX_ROUNDS, SIMULATION_TIME_BUDGET
from skill_rule.simulator import replay

from .factories import shop


def _calls(n: int) -> str:
    return "[" + ", ".join("{lookup: {q: x}}" for _ in range(n)) + "]"


def test_the_limits_are_named_with_the_others():
    assert (MAX_CALLS_PER_ROUND, MAX_CALLS_PER_SCRIPT, SIMULATION_TIME_BUDGET) == (40, 8_000, 10.0)
    assert MAX_CALLS_PER_SCRIPT == MAX_ROUNDS * MAX_CALLS_PER_ROUND


def test_a_round_of_more_calls_than_the_limit_is_refused_naming_the_round_and_its_line():
    text = (
        f"steps:\n  - user: hi\n  - assistant: {{calls: {_calls(2)}}}\n"
        f"  - assistant: {{calls: {_calls(MAX_CALLS_PER_ROUND + 1)}}}\n"
    )
    with pytest.raises(ScriptError) as exc:
        parse_script(text, source="s.yaml")
    assert (exc.value.line, exc.value.cause) == (
        4,
        f"round 2 makes {MAX_CALLS_PER_ROUND + 1} calls; at most {MAX_CALLS_PER_ROUND} calls per round are simulated",
    )


def test_a_round_at_the_limit_runs():
    text = f"steps:\n  - user: hi\n  - assistant: {{calls: {_calls(MAX_CALLS_PER_ROUND)}}}\n  - assistant: {{}}\n"
    sim = simulate(shop(), parse_script(text))
    assert [len(r.calls) for r in sim.rounds] == [MAX_CALLS_PER_ROUND, 0]
    assert {c.verdict.verdict for c in sim.rounds[0].calls} == {"allowed"}
    assert sim.rounds[1].context_size == 2 + MAX_CALLS_PER_ROUND  # user, assistant, one result per call


def _call_message(n: int, start: int = 0) -> dict:
    return {
        "role": "assistant",
        "tool_calls": [{"id": f"c{start + k}", "name": "lookup", "arguments": {"q": "x"}} for k in range(n)],
    }


def test_a_transcript_message_of_more_calls_than_the_limit_is_refused_naming_it():
    with pytest.raises(MessageError) as exc:
        parse_messages([{"role": "user", "content": "hi"}, _call_message(MAX_CALLS_PER_ROUND + 1)])
    assert exc.value.message == (
        f"messages[1]: {MAX_CALLS_PER_ROUND + 1} calls in one message; at most "
        f"{MAX_CALLS_PER_ROUND} calls per round are accepted"
    )
    assert exc.value.details["index"] == 1


def test_a_transcript_past_the_calls_in_all_is_refused_at_the_message_that_passes_it():
    rounds = MAX_CALLS_PER_SCRIPT // MAX_CALLS_PER_ROUND
    messages = [_call_message(MAX_CALLS_PER_ROUND, k * MAX_CALLS_PER_ROUND) for k in range(rounds)]
    assert len(parse_messages(messages)) == rounds  # exactly at the limit
    with pytest.raises(MessageError) as exc:
        parse_messages(messages + [_call_message(1, 99_999)])
    assert exc.value.message == (
        f"messages[{rounds}]: more than {MAX_CALLS_PER_SCRIPT} calls in the messages; "
        f"at most {MAX_CALLS_PER_SCRIPT} are accepted"
    )


class FakeClock:
    """A clock that moves ``step`` seconds each time it is read (start included)."""

    def __init__(self, step: float) -> None:
        self.now, self.step, self.reads = 0.0, step, 0

    def __call__(self) -> float:
        value = self.now
        self.now += self.step
        self.reads += 1
        return value


SCRIPT = """
steps:
  - user: cancel
  - assistant: {calls: [{cancel: {order_no: "1"}}]}
  - assistant: {calls: [{load_skill: {skill_code: alpha}}]}
  - assistant: {calls: [{cancel: {order_no: "1"}}]}
  - assistant: {calls: [{load_skill: {skill_code: beta}}]}
  - assistant: {}
"""


def test_a_run_past_the_time_budget_stops_with_the_rounds_so_far_and_says_so():
    full = simulate(shop(), parse_script(SCRIPT), budget=None)
    clock = FakeClock(4.0)  # start 0; rounds checked at 4, 8 (run), 12 (> 10: stop)
    sim = simulate(shop(), parse_script(SCRIPT), budget=10, clock=clock)
    assert [r.view.count for r in full.rounds] == [5, 5, 7, 7, 8]
    assert [r.as_dict() for r in sim.rounds] == [r.as_dict() for r in full.rounds[:2]]
    assert sim.stopped == "stopped after 2 of 5 rounds: the time budget of 10 s was exceeded"
    assert (sim.stopped.code, sim.stopped.params["done"], sim.stopped.params["total"]) == ("time_budget", 2, 5)
    assert sim.passed is False and sim.failures == (sim.stopped,)
    assert sim.as_dict()["stopped"] == sim.stopped and sim.as_dict()["passed"] is False
    assert sim.matrix == {tool: states[:2] for tool, states in full.matrix.items()}
    assert clock.reads == 4


def test_a_run_within_the_budget_is_whole_and_passes():
    sim = simulate(shop(), parse_script(SCRIPT), budget=10, clock=FakeClock(1.0))
    assert (len(sim.rounds), sim.stopped, sim.passed) == (5, None, True)
    assert sim.as_dict()["stopped"] is None


def test_the_budget_is_checked_before_the_first_round_too():
    sim = simulate(shop(), parse_script(SCRIPT), budget=0.5, clock=FakeClock(1.0))
    assert (sim.rounds, sim.stopped) == ((), "stopped after 0 of 5 rounds: the time budget of 0.5 s was exceeded")


def test_a_replay_past_the_budget_stops_too():
    messages = [{"role": "user", "content": "hi"}] + [{"role": "assistant", "content": f"step {k}"} for k in range(4)]
    sim = replay(shop(), messages, budget=10, clock=FakeClock(6.0))
    assert len(sim.rounds) == 1
    assert sim.stopped == "stopped after 1 of 4 rounds: the time budget of 10 s was exceeded"


def test_the_default_budget_is_the_named_limit():
    import inspect

    for fn in (simulate, replay):
        assert inspect.signature(fn).parameters["budget"].default == SIMULATION_TIME_BUDGET
