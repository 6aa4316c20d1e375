"""Exact values of a simulation that the preview, the CLI and ``simulate --json`` show: the change
list of every round, the matrix, the round's line and what the assistant said, the script's own
restrictions, the time budget's boundary, the events a page translates by code and params, and
which message answers a replayed call (issue 11, mutation testing of ``domain/simulator.py``)."""

from __future__ import annotations

from dataclasses import replace
from textwrap import dedent

from skill_rule import parse_script, replay, simulate
from skill_rule.messages import Message, ToolCall

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
    assert (own.access_profile, own.rounds[0].view.withheld) == (
        "clerk",
        {"cancel": "not_permitted", "export": "not_permitted"},
    )
    assert own.matrix == {"refund": (M,), "cancel": (W,), "ship": (M,)}
    other = run(text, catalog, access_profile="all")
    assert (other.access_profile, other.rounds[0].view.withheld) == ("all", {"export": "not_permitted"})


def test_the_scripts_own_allowed_tools_apply_when_no_argument_overrides_it() -> None:
    text = "allowed_tools: [lookup, refund]\nsteps: [{assistant: x}]\n"
    own = run(text)
    assert own.allowed_tools == ("lookup", "refund")
    assert own.rounds[0].view.mcp_visible == ("lookup",)
    assert own.matrix == {"refund": (M,), "cancel": (W,), "ship": (W,)}
    other = run(text, allowed_tools=iter(["lookup", "export"]))  # any iterable, read once
    assert (other.allowed_tools, other.as_dict()["allowed_tools"]) == (("lookup", "export"), ["lookup", "export"])
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
    sim = replay(
        shop(),
        [
            user("hi"),
            assistant("", call("lookup", "c1", q="a")),
            {"role": "user", "content": "not a result", "tool_call_id": "c1"},
            tool_result("c1", "three hits"),
            assistant("done"),
        ],
    )
    (outcome,) = sim.rounds[0].calls
    assert (outcome.result, outcome.state) == ("three hits", "success")


def test_a_replayed_round_lists_the_tools_a_load_made_visible() -> None:
    sim = replay(
        shop(),
        [
            user("refund"),
            assistant("", call("load_skill", "c1", skill_code="alpha")),
            tool_result("c1", "# alpha manual", **{MARKER: "alpha", "skill_version": 1}),
            assistant("done"),
        ],
    )
    second = sim.rounds[1]
    assert (second.newly_visible, second.newly_hidden, second.newly_released, second.newly_masked) == (
        ("refund", "cancel"),
        (),
        ("refund", "cancel"),
        (),
    )
    assert second.as_dict()["newly_visible"] == ["refund", "cancel"]


def test_a_replayed_round_is_on_the_line_of_its_message_as_received() -> None:
    """An Anthropic user message of two ``tool_result`` blocks is read as two messages sharing its
    index: the rounds after it are still numbered by the messages as received."""
    sim = replay(
        shop(),
        [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"q": "a"}},
                    {"type": "tool_use", "id": "t2", "name": "export", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "one"},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "two"},
                ],
            },
            {"role": "assistant", "content": "done"},
        ],
    )
    assert [r.line for r in sim.rounds] == [2, 4]
    assert [r.context_size for r in sim.rounds] == [1, 4]


def test_messages_built_in_code_are_replayed_on_the_line_of_their_position() -> None:
    messages = (
        Message(role="user", content="hi"),
        Message(role="assistant", tool_calls=(ToolCall("lookup", {"q": "a"}, id="c1"),)),
        Message(role="tool", content="hit", tool_call_id="c1"),
        Message(role="assistant", content="done"),
    )
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
    assert sim.events == (
        "after round 2: evicted tool results [3, 5]: message 3: load_skill(alpha); message 5: refund",
    )
    assert sim.rounds[2].view.loaded == ()


def test_a_load_skill_result_is_evicted_by_its_marker_when_its_call_has_no_id() -> None:
    """A script built in code (not parsed: no ``call_N`` ids) still evicts the manual."""
    from skill_rule.scripts import Script, Step

    script = Script(
        name="code",
        steps=(
            Step(kind="user", line=1, text="refund"),
            Step(kind="assistant", line=2, calls=(ToolCall("load_skill", {"skill_code": "alpha"}),)),
            Step(kind="evict", line=3, evict_tool="load_skill"),
            Step(kind="assistant", line=4),
        ),
    )
    sim = simulate(shop(), script)
    assert sim.events == ("after round 1: evicted tool results [3]: message 3: load_skill(alpha)",)
    assert sim.rounds[1].view.loaded == ()


# --- the matrix ------------------------------------------------------------------------------


def test_a_tool_registered_twice_has_one_row_that_follows_its_state() -> None:
    from skill_rule import MCP, Tool

    base = shop()
    catalog = replace(base, tools=base.tools + (Tool("refund", MCP, require_confirm=True),))
    sim = simulate(catalog, parse_script(LOAD_USE + "  - compact: {drop: [2, 3]}\n  - assistant: x\n"))
    assert sim.matrix == {"refund": (M, R, M), "cancel": (M, R, M), "ship": (M, M, M)}


def test_a_transcript_that_starts_after_a_load_shows_its_tools_released_from_the_first_round() -> None:
    """The call of the manual's result was compacted away before the transcript was taken: the
    marker alone loads it, so the first column already shows alpha's tools released."""
    sim = replay(
        shop(),
        [
            tool_result("c0", "# alpha manual", **{MARKER: "alpha", "skill_version": 1}),
            user("refund"),
            assistant("x"),
            assistant("y"),
        ],
    )
    assert sim.rounds[0].view.loaded == ("alpha",)
    assert sim.matrix == {"refund": (R, R), "cancel": (R, R), "ship": (M, M)}
    assert sim.as_dict()["matrix"] == {"refund": [R, R], "cancel": [R, R], "ship": [M, M]}


# --- the simulate --json document and the retained messages ---------------------------------

EXACT = """\
name: exact
steps:
  - user: 退款
  - assistant: {say: 先看手册, calls: [{load_skill: {skill_code: alpha}}]}
  - assistant:
      calls: [{refund: {order_no: "订单1"}}, {ship: {}}, {lookup: {q: a}}]
      results: {lookup: {state: error}}
      expect: {count: 7}
"""

BUILTIN_NAMES = ["search_knowledge", "load_skill", "flush_memory"]


def test_the_json_document_of_a_run_holds_every_field_of_every_round_and_call() -> None:
    doc = run(EXACT).as_dict()
    first, second = doc.pop("rounds")
    assert doc == {
        "scenario": "exact",
        "release": None,
        "access_profile": None,
        "stage": None,
        "allowed_tools": None,
        "matrix": {"refund": [M, R], "cancel": [M, R], "ship": [M, M]},
        "events": [],
        "warnings": [],
        "failures": [],
        "checked_rounds": 1,
        "passed": True,
        "stopped": None,
    }
    assert first == {
        "index": 1,
        "line": 4,
        "user": "退款",
        "count": 5,
        "visible": BUILTIN_NAMES + ["lookup", "export"],
        "builtins": BUILTIN_NAMES,
        "mcp_visible": ["lookup", "export"],
        "masked": {"refund": "alpha", "cancel": "alpha", "ship": "beta"},
        "loaded": [],
        "released": [],
        "withheld": {},
        "newly_visible": [],
        "newly_hidden": [],
        "newly_released": [],
        "newly_masked": [],
        "context_size": 1,
        "calls": [
            {
                "name": "load_skill",
                "verdict": "allowed",
                "reason": None,
                "skill_code": "alpha",
                "message": "load the manual of 'alpha'",
                "arguments": {"skill_code": "alpha"},
                "result": "# alpha manual",
                "state": "success",
                "already_loaded": False,
            }
        ],
        "failures": [],
    }
    assert second == {
        "index": 2,
        "line": 5,
        "user": "退款",
        "count": 7,
        "visible": BUILTIN_NAMES + ["lookup", "refund", "cancel", "export"],
        "builtins": BUILTIN_NAMES,
        "mcp_visible": ["lookup", "refund", "cancel", "export"],
        "masked": {"ship": "beta"},
        "loaded": ["alpha"],
        "released": ["refund", "cancel"],
        "withheld": {},
        "newly_visible": ["refund", "cancel"],
        "newly_hidden": [],
        "newly_released": ["refund", "cancel"],
        "newly_masked": [],
        "context_size": 3,
        "calls": [
            {
                "name": "refund",
                "verdict": "confirm",
                "reason": None,
                "skill_code": None,
                "message": "'refund' needs the user's confirmation before it runs",
                "arguments": {"order_no": "订单1"},
                "result": '已生成确认卡片，等待用户确认：refund {"order_no": "订单1"}',
                "state": "success",
                "already_loaded": False,
            },
            {
                "name": "ship",
                "verdict": "refused",
                "reason": "masked",
                "skill_code": "beta",
                "message": "tool 'ship' is masked: load_skill('beta') first",
                "arguments": {},
                "result": "tool 'ship' is masked: load_skill('beta') first",
                "state": "error",
                "already_loaded": False,
            },
            {
                "name": "lookup",
                "verdict": "allowed",
                "reason": None,
                "skill_code": None,
                "message": "'lookup' may run",
                "arguments": {"q": "a"},
                "result": "",
                "state": "error",
                "already_loaded": False,
            },
        ],
        "failures": [],
    }


def test_each_tool_result_in_the_context_says_why_it_is_there() -> None:
    """A refusal names its reason, a confirmation card says one is required, a manual carries the
    marker and version; a scripted or neutral result carries nothing."""
    sim = run(EXACT)
    assert [(m.role, m.tool_call_id, m.state, dict(m.metadata)) for m in sim.messages] == [
        ("user", "", "success", {}),
        ("assistant", "", "success", {}),
        ("tool", "call_1", "success", {MARKER: "alpha", "skill_version": 1}),
        ("assistant", "", "success", {}),
        ("tool", "call_2", "success", {"confirmation_required": True}),
        ("tool", "call_3", "error", {"refused": "masked"}),
        ("tool", "call_4", "error", {}),
    ]
    assert sim.messages[1].content == "先看手册"
    assert [c.id for c in sim.messages[3].tool_calls] == ["call_2", "call_3", "call_4"]


def test_a_scripted_result_without_a_state_succeeds() -> None:
    sim = run("""\
        - assistant:
            calls: [export]
            results: {export: {content: three hits}}
        """)
    assert [(c.result, c.state) for c in sim.rounds[0].calls] == [("three hits", "success")]


# --- events and the stop, as a page translates them ------------------------------------------


def exact(problem):
    return str(problem), problem.code, dict(problem.params)


def test_each_event_carries_its_code_and_params_for_a_page() -> None:
    sim = run(
        LOAD_USE + "  - compact: {drop: [1]}\n"
        "  - evict: {index: [2], tool: refund}\n"
        "  - evict: {tool: refund}\n"
        "  - evict: {index: [2]}\n"
        "  - assistant: x\n"
    )
    assert [exact(e) for e in sim.events] == [
        ("after round 2: compacted messages [1]; 4 retained", "compacted", {"round": 2, "indices": [1], "retained": 4}),
        (
            "after round 2: evicted tool results [2, 4]: message 2: load_skill(alpha); message 4: refund",
            "evicted",
            {
                "round": 2,
                "indices": [2, 4],
                "what": "message 2: load_skill(alpha); message 4: refund",
                "items": ["message 2: load_skill(alpha)", "message 4: refund"],
            },
        ),
        (
            "after round 2: no retained tool results of 'refund' to evict",
            "evict_none_of_tool",
            {"round": 2, "tool": "refund"},
        ),
        ("after round 2: no retained tool results to evict", "evict_none", {"round": 2}),
    ]


def test_a_stopped_run_says_where_it_stopped_for_a_page() -> None:
    sim = run("steps:\n" + "  - assistant: x\n" * 3, budget=2.5, clock=Clock(2.0))
    assert exact(sim.stopped) == (
        "stopped after 1 of 3 rounds: the time budget of 2.5 s was exceeded",
        "time_budget",
        {"done": 1, "total": 3, "budget": "2.5", "round": 1},
    )


def test_the_last_retained_message_may_be_compacted_or_evicted_and_one_past_it_is_refused() -> None:
    import pytest

    from skill_rule import ScriptError

    sim = run(LOAD_USE + "  - evict: {index: [5]}\n  - compact: {drop: [5]}\n  - assistant: x\n")
    assert [e.code for e in sim.events] == ["evicted", "compacted"]
    with pytest.raises(ScriptError) as exc:
        run(LOAD_USE + "  - evict: {index: [6]}\n")
    assert exc.value.cause == "evict.index index 6 is out of range: 5 message(s) are retained"


def test_an_evicted_result_whose_call_is_unknown_is_named_as_a_tool_result() -> None:
    from skill_rule.scripts import Script, Step

    script = Script(
        name="code",
        steps=(
            Step(kind="assistant", line=1, calls=(ToolCall("export", {}),)),
            Step(kind="evict", line=2, drop=(2,)),
        ),
    )
    sim = simulate(shop(), script)
    assert sim.events == ("after round 1: evicted tool results [2]: message 2: tool result",)
    placeholder = sim.messages[1]
    assert (placeholder.content, dict(placeholder.metadata)) == (
        f"{shop().eviction_prefix}{len('（模拟结果）export 已执行。')} 字]",
        {"evicted": True},
    )


# --- the run's set of each visible list ------------------------------------------------------


def test_a_visible_list_is_turned_into_a_set_once_per_run() -> None:
    from skill_rule.simulator import _Shown

    shown = _Shown()
    visible = ("a", "b")
    first = shown(visible)
    assert first == {"a", "b"} and shown(visible) is first
    assert shown(("a", "c")) == {"a", "c"}


def test_a_replay_applies_the_profile_stage_and_allowed_tools_it_is_given() -> None:
    catalog = shop(profiles={"clerk": {"lookup", "refund", "ship", "export"}}, stages={"query": {"lookup", "refund"}})
    messages = [user("hi"), assistant("x")]
    profiled = replay(catalog, messages, access_profile="clerk")
    assert (profiled.access_profile, profiled.stage, profiled.rounds[0].view.withheld) == (
        "clerk",
        None,
        {"cancel": "not_permitted"},
    )
    staged = replay(catalog, messages, stage="query")
    assert (staged.access_profile, staged.stage, staged.rounds[0].view.mcp_visible) == (None, "query", ("lookup",))
    allowed = replay(catalog, messages, allowed_tools=iter(["export"]))
    assert (allowed.allowed_tools, allowed.as_dict()["allowed_tools"]) == (("export",), ["export"])
    assert allowed.rounds[0].view.mcp_visible == ("export",)
    assert allowed.matrix == {"refund": (W,), "cancel": (W,), "ship": (W,)}
