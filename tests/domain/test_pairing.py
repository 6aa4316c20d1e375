"""``transcript.pair_results``: which call each tool result answers (docs/transcripts.md,
"Pairing"), exact positions and warning codes (issue 11: no library test reached it)."""

from __future__ import annotations

from skill_rule.messages import as_messages
from skill_rule.transcript import pair_results

from .factories import assistant, call, tool_result, user


def test_results_answer_their_calls_by_id_and_a_stranger_answers_nothing() -> None:
    msgs = as_messages(
        [
            user("hi"),
            assistant("", call("lookup", "a", q="1"), call("ship", "b")),
            tool_result("b", "shipped"),
            tool_result("a", "found"),
            tool_result("zzz", "who?"),
        ]
    )
    pairing = pair_results(msgs)
    assert dict(pairing.answers) == {2: (1, 1), 3: (1, 0)}
    assert [(w.code, w.params.get("index")) for w in pairing.warnings] == [("result_unpaired", 4)]
    assert pairing.call_of(msgs, 2).name == "ship"
    assert pairing.call_of(msgs, 3).name == "lookup"
    assert pairing.call_of(msgs, 4) is None
    assert pairing.call_of(msgs, 0) is None


def test_a_second_result_for_the_same_id_answers_nothing() -> None:
    msgs = as_messages([assistant("", call("lookup", "a", q="1")), tool_result("a", "one"), tool_result("a", "two")])
    pairing = pair_results(msgs)
    assert dict(pairing.answers) == {1: (0, 0)}
    assert [w.code for w in pairing.warnings] == ["result_unpaired"]
