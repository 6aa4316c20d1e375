"""Exact values of a simulation that the preview, the CLI and ``simulate --json`` show: the change
list of every round, the matrix, the round's line and what the assistant said, the script's own
restrictions, the time budget's boundary, the events a page translates by code and params, and
which message answers a replayed call (issue 11, mutation testing of ``domain/simulator.py``)."""
from __future__ import annotations

from dataclasses import replace
from textwrap import dedent

from skills_app.domain import parse_script, replay, simulate
from skills_app.domain.messages import Message, ToolCall

from .factories import MARKER, assistant, call, shop, tool_result, user

M, R, W = "masked", "released", "withheld"


def run(text: str, catalog=None, **kwargs):
    return simulate(catalog or shop(), parse_script(dedent(text), source="t.yaml"), **kwargs)


class Clock:
    """A clock that moves ``step`` seconds each time it is read (the start included)."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        value = self.now
        self.now += self.step
        return value


# --- the script's own restrictions -----------------------------------------------------------

def test_the_scripts_own_access_profile_applies_when_no_argument_overrides_it() -> None:
    catalog = shop(profiles={"clerk": {"lookup", "refund", "ship"}, "all": {"lookup", "refund", "cancel", "ship"}})
    text = "access_profile: clerk\nsteps: [{assistant: x}]\n"
    own = run(text, catalog)
    assert (own.access_profile, own.rounds[0].view.withheld) == ("clerk", {"cancel": "not_permitted", "export": "not_permitted"})
    assert own.matrix == {"refund": (M,), "cancel": (W,), "ship": (M,)}
    other = run(text, catalog, access_profile="all")
    assert (other.access_profile, other.rounds[0].view.withheld) == ("all", {"export": "not_permitted"})


def test_the_scripts_own_allowed_tools_apply_when_no_argument_overrides_it() -> None:
    text = "allowed_tools: [lookup, refund]\nsteps: [{assistant: x}]\n"
    own = run(text)
    assert own.allowed_tools == ("lookup", "refund")
    assert own.rounds[0].view.mcp_visible == ("lookup",)
    assert own.matrix == {"refund": (M,), "cancel": (W,), "ship": (W,)}
    other = run(text, allowed_tools=["lookup", "export"])
    assert other.allowed_tools == ("lookup", "export")
    assert other.rounds[0].view.mcp_visible == ("lookup", "export")


# --- what a round shows ----------------------------------------------------------------------

def test_a_round_keeps_what_the_assistant_said_and_the_user_message_before_it() -> None:
    sim = run("""\
        - system: be brief
        - assistant: first
        - user: refund please
        - assistant: {say: on it, calls: [lookup]}
        """)
    assert [(r.say, r.user, r.line) for r in sim.rounds] == [("first", "", 2), ("on it", "refund please", 4)]
    assert [r.as_dict()["user"] for r in sim.rounds] == ["", "refund please"]


# --- the time budget's boundary --------------------------------------------------------------

def test_a_run_exactly_at_its_time_budget_goes_on_and_stops_only_past_it() -> None:
    text = "steps:\n" + "  - assistant: x\n" * 4
    # start 0; rounds checked at 5, 10 (exactly the budget: run), 15 (past it: stop)
    sim = run(text, budget=10, clock=Clock(5.0))
    assert len(sim.rounds) == 2
    assert sim.stopped == "stopped after 2 of 4 rounds: the time budget of 10 s was exceeded"


def test_a_replay_exactly_at_its_time_budget_goes_on_and_stops_only_past_it() -> None:
    messages = [user("hi")] + [assistant(f"step {k}") for k in range(4)]
    sim = replay(shop(), messages, budget=10, clock=Clock(5.0))
    assert len(sim.rounds) == 2
    assert sim.stopped == "stopped after 2 of 4 rounds: the time budget of 10 s was exceeded"


# --- replay ----------------------------------------------------------------------------------

def test_only_a_tool_message_answers_a_replayed_call_not_another_carrying_its_id() -> None:
    sim = replay(shop(), [
        user("hi"),
        assistant("", call("lookup", "c1", q="a")),
        {"role": "user", "content": "not a result", "tool_call_id": "c1"},
        tool_result("c1", "three hits"),
        assistant("done"),
    ])
    (outcome,) = sim.rounds[0].calls
    assert (outcome.result, outcome.state) == ("three hits", "success")


def test_a_replayed_round_lists_the_tools_a_load_made_visible() -> None:
    sim = replay(shop(), [
        user("refund"),
        assistant("", call("load_skill", "c1", skill_code="alpha")),
        tool_result("c1", "# alpha manual", **{MARKER: "alpha", "skill_version": 1}),
        assistant("done"),
    ])
    second = sim.rounds[1]
    assert (second.newly_visible, second.newly_hidden, second.newly_released, second.newly_masked) == (
        ("refund", "cancel"), (), ("refund", "cancel"), ())
    assert second.as_dict()["newly_visible"] == ["refund", "cancel"]


def test_a_replayed_round_is_on_the_line_of_its_message_as_received() -> None:
    """An Anthropic user message of two ``tool_result`` blocks is read as two messages sharing its
    index: the rounds after it are still numbered by the messages as received."""
    sim = replay(shop(), [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"q": "a"}},
            {"type": "tool_use", "id": "t2", "name": "export", "input": {}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "one"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "two"},
        ]},
        {"role": "assistant", "content": "done"},
    ])
    assert [r.line for r in sim.rounds] == [2, 4]
    assert [r.context_size for r in sim.rounds] == [1, 4]


def test_messages_built_in_code_are_replayed_on_the_line_of_their_position() -> None:
    messages = (Message(role="user", content="hi"),
                Message(role="assistant", tool_calls=(ToolCall("lookup", {"q": "a"}, id="c1"),)),
                Message(role="tool", content="hit", tool_call_id="c1"),
                Message(role="assistant", content="done"))
    sim = replay(shop(), messages)
    assert [r.line for r in sim.rounds] == [2, 4]
    assert sim.rounds[0].calls[0].result == "hit"


def test_a_simulation_and_a_replay_name_the_release_they_ran_against() -> None:
    catalog = replace(shop(), release=7)
    for sim in (run("steps: [{assistant: x}]", catalog), replay(catalog, [user("hi"), assistant("x")])):
        assert (sim.release, sim.as_dict()["release"]) == (7, 7)


# --- eviction --------------------------------------------------------------------------------

LOAD_USE = (
    "steps:\n"
    "  - user: refund my order\n"
    "  - assistant: {calls: [{load_skill: {skill_code: alpha}}]}\n"
    "  - assistant: {calls: [refund]}\n"
)


def test_an_evict_step_naming_a_tool_and_an_index_evicts_both() -> None:
    sim = run(LOAD_USE + "  - evict: {tool: refund, index: [3]}\n  - assistant: x\n")
    assert sim.events == ("after round 2: evicted tool results [3, 5]: message 3: load_skill(alpha); message 5: refund",)
    assert sim.rounds[2].view.loaded == ()


def test_a_load_skill_result_is_evicted_by_its_marker_when_its_call_has_no_id() -> None:
    """A script built in code (not parsed: no ``call_N`` ids) still evicts the manual."""
    from skills_app.domain.scripts import Script, Step

    script = Script(name="code", steps=(
        Step(kind="user", line=1, text="refund"),
        Step(kind="assistant", line=2, calls=(ToolCall("load_skill", {"skill_code": "alpha"}),)),
        Step(kind="evict", line=3, evict_tool="load_skill"),
        Step(kind="assistant", line=4),
    ))
    sim = simulate(shop(), script)
    assert sim.events == ("after round 1: evicted tool results [3]: message 3: load_skill(alpha)",)
    assert sim.rounds[1].view.loaded == ()


# --- the matrix ------------------------------------------------------------------------------

def test_a_tool_registered_twice_has_one_row_that_follows_its_state() -> None:
    from skills_app.domain import MCP, Tool

    base = shop()
    catalog = replace(base, tools=base.tools + (Tool("refund", MCP, require_confirm=True),))
    sim = simulate(catalog, parse_script(LOAD_USE + "  - compact: {drop: [2, 3]}\n  - assistant: x\n"))
    assert sim.matrix == {"refund": (M, R, M), "cancel": (M, R, M), "ship": (M, M, M)}


def test_a_transcript_that_starts_after_a_load_shows_its_tools_released_from_the_first_round() -> None:
    """The call of the manual's result was compacted away before the transcript was taken: the
    marker alone loads it, so the first column already shows alpha's tools released."""
    sim = replay(shop(), [
        tool_result("c0", "# alpha manual", **{MARKER: "alpha", "skill_version": 1}),
        user("refund"),
        assistant("x"),
        assistant("y"),
    ])
    assert sim.rounds[0].view.loaded == ("alpha",)
    assert sim.matrix == {"refund": (R, R), "cancel": (R, R), "ship": (M, M)}
    assert sim.as_dict()["matrix"] == {"refund": [R, R], "cancel": [R, R], "ship": [M, M]}
