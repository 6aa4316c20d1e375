"""The simulator (docs/simulator.md): a round before every assistant step, calls through the guard,
manuals that leave the context take their tools with them, and transcript replay."""

from __future__ import annotations

import json
from textwrap import dedent

import pytest

from skill_rule import (
    ALLOWED,
    CONFIRM,
    REFUSED,
    ScriptError,
    UnknownRestrictionError,
    compute_round,
    parse_script,
    replay,
    simulate,
)

from .factories import (
    ALPHA,
    BETA,
    BUILTINS,
    EVICTED_PREFIX,
    MARKER,
    assistant,
    call,
    openai_load,
    shop,
    tool_result,
    user,
)

M, R = "masked", "released"


def run(text: str, catalog=None, **kwargs):
    return simulate(catalog or shop(), parse_script(dedent(text), source="t.yaml"), **kwargs)


LOAD_USE = (
    "steps:\n"
    "  - user: refund my order\n"
    "  - assistant: {calls: [{load_skill: {skill_code: alpha}}]}\n"
    "  - assistant: {calls: [refund]}\n"
)


def test_loading_a_manual_releases_its_tools_from_the_next_round() -> None:
    sim = run(LOAD_USE + "  - assistant: {calls: [ship]}\n")
    assert [r.view.count for r in sim.rounds] == [5, 7, 7]
    assert [r.view.loaded for r in sim.rounds] == [(), ("alpha",), ("alpha",)]
    assert sim.rounds[1].newly_released == ("refund", "cancel")
    assert [c.verdict.verdict for r in sim.rounds for c in r.calls] == [ALLOWED, CONFIRM, REFUSED]
    assert sim.rounds[2].calls[0].verdict.skill_code == "beta"
    assert sim.matrix == {"refund": (M, R, R), "cancel": (M, R, R), "ship": (M, M, M)}


def test_compacting_the_manual_away_masks_its_tools_again_next_round() -> None:
    sim = run(LOAD_USE + "  - compact: {drop: [2, 3]}\n  - assistant: {calls: [refund]}\n")
    assert sim.matrix == {"refund": (M, R, M), "cancel": (M, R, M), "ship": (M, M, M)}
    third = sim.rounds[2]
    assert third.view.loaded == ()
    assert third.newly_masked == ("refund", "cancel")
    assert (third.calls[0].verdict.reason, third.calls[0].verdict.skill_code) == ("masked", "alpha")
    assert third.context_size == 3
    assert sim.events == ("after round 2: compacted messages [2, 3]; 3 retained",)


def test_evicting_the_load_skill_result_masks_again_and_a_new_load_is_full() -> None:
    sim = run(
        LOAD_USE + "  - evict: {tool: load_skill}\n"
        "  - assistant: {calls: [{load_skill: {skill_code: alpha}}]}\n"
        "  - assistant: {calls: [refund]}\n"
    )
    assert sim.matrix == {"refund": (M, R, M, R), "cancel": (M, R, M, R), "ship": (M, M, M, M)}
    placeholder = sim.messages[2]
    assert placeholder.content.startswith(EVICTED_PREFIX)
    assert placeholder.metadata["evicted"] is True and placeholder.metadata[MARKER] == "alpha"
    reload = sim.rounds[2].calls[0]
    assert reload.already_loaded is False and reload.result == shop().skill("alpha").content
    assert sim.events == ("after round 2: evicted tool results [3]: message 3: load_skill(alpha)",)


def test_evict_load_skill_reaches_results_whose_call_was_compacted_away() -> None:
    """The assistant call (message 2) is compacted; its result (now message 2) still carries the
    marker and still loads alpha — evict {tool: load_skill} must evict it, and say so."""
    sim = run(LOAD_USE + "  - compact: {drop: [2]}\n  - evict: {tool: load_skill}\n  - assistant: {calls: [refund]}\n")
    assert sim.events == (
        "after round 2: compacted messages [2]; 4 retained",
        "after round 2: evicted tool results [2]: message 2: load_skill(alpha)",
    )
    assert sim.rounds[2].view.loaded == ()
    assert sim.rounds[2].calls[0].verdict.reason == "masked"


def test_evict_by_tool_names_each_result_and_never_evicts_twice() -> None:
    sim = run(LOAD_USE + "  - evict: {tool: refund}\n  - evict: {tool: refund}\n  - assistant: x\n")
    assert sim.events == (
        "after round 2: evicted tool results [5]: message 5: refund",
        "after round 2: no retained tool results of 'refund' to evict",
    )


def test_a_second_load_while_the_manual_is_retained_returns_the_stub() -> None:
    sim = run(LOAD_USE.replace("[refund]", "[{load_skill: {skill_code: alpha}}]") + "  - assistant: done\n")
    again = sim.rounds[1].calls[0]
    assert again.already_loaded is True and again.state == "success"
    assert MARKER not in sim.messages[-1].metadata
    assert sim.rounds[2].view.loaded == ("alpha",)  # the first full result still counts


def test_a_refused_load_unlocks_nothing() -> None:
    sim = run("""\
        - assistant: {calls: [{load_skill: {skill_code: ../../secret}}]}
        - assistant: x
        """)
    refused = sim.rounds[0].calls[0]
    assert (refused.verdict.verdict, refused.verdict.reason, refused.state) == (REFUSED, "unknown_skill", "error")
    assert sim.rounds[1].view.loaded == ()
    assert sim.rounds[1].view.masked == sim.rounds[0].view.masked
    assert sim.matrix == {"refund": (M, M), "cancel": (M, M), "ship": (M, M)}


def test_calls_without_results_get_a_neutral_placeholder_and_scripted_results_are_used() -> None:
    sim = run("""\
        - assistant:
            calls: [{lookup: {q: a}}, {export: {}}]
            results: {lookup: three hits}
        """)
    assert [(c.result, c.state) for c in sim.rounds[0].calls] == [
        ("three hits", "success"),
        ("（模拟结果）export 已执行。", "success"),
    ]


def test_unmet_expectations_are_reported_per_round() -> None:
    sim = run("""\
        - assistant:
            expect: {count: 99, includes: [refund], masked: [refund, cancel, ship], loaded: []}
        """)
    assert sim.failures == ("round 1: expected 99 tools, got 5", "round 1: expected 'refund' to be visible")
    assert sim.passed is False


def test_a_compact_index_beyond_the_context_is_an_error_at_simulate_time() -> None:
    script = parse_script("- user: hi\n- assistant: x\n- compact: {drop: [2, 5]}\n- assistant: y\n", source="t.yaml")
    with pytest.raises(ScriptError) as exc:
        simulate(shop(), script)
    assert (exc.value.line, exc.value.cause) == (3, "compact.drop index 5 is out of range: 2 message(s) are retained")


def test_an_evict_index_beyond_the_context_is_an_error_at_simulate_time() -> None:
    script = parse_script("- user: hi\n- evict: {index: [4]}\n- assistant: y\n", source="t.yaml")
    with pytest.raises(ScriptError) as exc:
        simulate(shop(), script)
    assert exc.value.message == "t.yaml:2: evict.index index 4 is out of range: 1 message(s) are retained"


def test_the_scripts_stage_applies_and_an_argument_overrides_it() -> None:
    catalog = shop(stages={"query": {"lookup"}, "wide": {"lookup", "export"}})
    text = "stage: query\nsteps: [{assistant: x}]\n"
    assert run(text, catalog).rounds[0].view.mcp_visible == ("lookup",)
    assert run(text, catalog, stage="wide").rounds[0].view.mcp_visible == ("lookup", "export")
    with pytest.raises(UnknownRestrictionError):
        run(text, catalog, stage="nope")


def test_the_json_document_carries_rounds_matrix_and_verdicts() -> None:
    doc = json.loads(json.dumps(run(LOAD_USE).as_dict()))
    assert [r["count"] for r in doc["rounds"]] == [5, 7]
    assert doc["rounds"][0]["builtins"] == list(BUILTINS)
    assert doc["rounds"][1]["calls"][0]["verdict"] == "confirm"
    assert doc["matrix"] == {"refund": [M, R], "cancel": [M, R], "ship": [M, M]}


def test_a_manual_compacted_away_in_a_one_line_script_takes_its_tools_with_it() -> None:
    """Flow-style steps share a line; a bare ``export`` result must not pass for the load result."""
    sim = run(
        "[{assistant: {calls: [{load_skill: {skill_code: alpha}}]}}, {assistant: {calls: [export]}},"
        " {compact: {drop: [2]}}, {assistant: x}]"
    )
    assert [r.view.loaded for r in sim.rounds] == [(), ("alpha",), ()]


TRANSCRIPT = [
    user("refund please"),
    assistant("let me read", call("load_skill", "c1", skill_code="alpha")),
    tool_result("c1", "# alpha manual", **{MARKER: "alpha", "skill_version": 1}),
    assistant("", call("refund", "c2"), call("ship", "c3")),
    tool_result("c2", "confirm card"),
    tool_result("c3", "refused"),
    user("thanks"),
    assistant("bye"),
]


def test_replay_puts_a_round_before_every_assistant_message() -> None:
    sim = replay(shop(), TRANSCRIPT)
    assert [r.line for r in sim.rounds] == [2, 4, 8]
    assert [r.context_size for r in sim.rounds] == [1, 3, 7]
    assert [r.view.loaded for r in sim.rounds] == [(), ("alpha",), ("alpha",)]
    assert [(c.verdict.name, c.verdict.verdict, c.result) for c in sim.rounds[1].calls] == [
        ("refund", CONFIRM, "confirm card"),
        ("ship", REFUSED, "refused"),
    ]
    assert sim.matrix == {"refund": (M, R, R), "cancel": (M, R, R), "ship": (M, M, M)}


def test_replay_of_an_openai_transcript_counts_bare_load_results() -> None:
    transcript = [user("hi"), *openai_load("beta", "call_x"), {"role": "assistant", "content": "done"}]
    sim = replay(shop(), transcript)
    assert [r.view.loaded for r in sim.rounds] == [(), ("beta",)]
    assert sim.rounds[1].newly_released == ("cancel", "ship")


def test_replay_refuses_a_call_to_a_tool_whose_manual_was_never_loaded() -> None:
    sim = replay(shop(), [user("x"), assistant("", call("cancel", "c1", order_no="1"))])
    assert (sim.rounds[0].calls[0].verdict.reason, sim.rounds[0].calls[0].result) == ("masked", "")


@pytest.mark.parametrize(
    ("expect", "failures"),
    [
        ({"mcp_visible": ["lookup", "refund"]}, ["mcp_visible: missing refund; unexpected export"]),
        ({"mcp_visible": ["lookup"]}, ["mcp_visible: unexpected export"]),
        (
            {"mcp_visible": ["export", "lookup"]},
            ["mcp_visible: the same names in another order: expected ['export', 'lookup'], got ['lookup', 'export']"],
        ),
        ({"masked": ["refund", "cancel"]}, ["masked: unexpected ship"]),
        ({"loaded": ["alpha"]}, ["loaded: missing alpha"]),
    ],
)
def test_an_unmet_list_expectation_reports_the_difference(expect, failures) -> None:
    from skill_rule.simulator import check_expectations

    assert list(check_expectations(compute_round(shop(), []), expect)) == failures


def test_an_expectation_met_only_in_another_order_keeps_its_code_for_the_page() -> None:
    from skill_rule.simulator import check_expectations

    (failure,) = check_expectations(compute_round(shop(), []), {"mcp_visible": ["export", "lookup"]})
    assert (failure.code, failure.params["missing_list"], failure.params["unexpected_list"]) == ("expect_list", [], [])


def test_masked_by_the_wrong_skill_is_reported_with_the_code_expect_masked() -> None:
    from skill_rule.simulator import check_expectations

    view = compute_round(shop(ALPHA, BETA), [])
    (failure,) = check_expectations(view, {"masked": {"refund": "beta", "cancel": "alpha", "ship": "beta"}})
    assert failure.code == "expect_masked"
    assert failure.params == {
        "want": {"refund": "beta", "cancel": "alpha", "ship": "beta"},
        "got": {"refund": "alpha", "cancel": "alpha", "ship": "beta"},
    }


def test_the_matrix_follows_loads_compactions_and_a_profile_round_by_round() -> None:
    # "clerk" may use refund and ship but not cancel: cancel is withheld in every round, loaded or
    # not; refund is released by alpha's manual, masked again once it is compacted away, released
    # again by a second load; ship stays masked (beta is never loaded).
    catalog = shop(profiles={"clerk": {"lookup", "refund", "ship"}})
    sim = run(
        LOAD_USE + "  - compact: {drop: [2, 3]}\n"
        "  - assistant: {calls: [refund]}\n"
        "  - assistant: {calls: [{load_skill: {skill_code: alpha}}]}\n"
        "  - assistant: {calls: [ship]}\n",
        catalog,
        access_profile="clerk",
    )
    W = "withheld"
    assert sim.matrix == {"refund": (M, R, M, M, R), "cancel": (W, W, W, W, W), "ship": (M, M, M, M, M)}


def test_rounds_with_the_same_tools_repeat_their_column() -> None:
    sim = run("steps:\n  - user: hi\n" + "  - assistant: {calls: [lookup]}\n" * 3)
    assert sim.matrix == {"refund": (M, M, M), "cancel": (M, M, M), "ship": (M, M, M)}
