"""Exact sentences and params of the issue-22 warnings (docs/transcripts.md, "Pairing" and
"Doubtful types"): groups of differing calls sharing an id, and fields of the wrong JSON type."""

from __future__ import annotations

from skill_rule import compute_round, parse_messages
from skill_rule.transcript import EvidenceReader, pair_results, read_evidence

from .factories import MARKER, shop

LOADS = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {"id": "dup", "name": "load_skill", "arguments": {"skill_code": "alpha"}},
        {"id": "dup", "name": "load_skill", "arguments": {"skill_code": "beta"}},
    ],
}


def evidence(raw):
    return read_evidence(parse_messages(raw), marker_key=MARKER, eviction_prefix="[evicted")


def test_an_unmarked_result_in_a_group_of_differing_calls_loads_nothing_and_says_why():
    ev = evidence(
        [
            LOADS,
            {"role": "tool", "tool_call_id": "dup", "content": "# beta manual"},
            {"role": "tool", "tool_call_id": "dup", "content": "boom", "state": "error"},
        ]
    )
    assert ev.manuals == ()
    dup, ambiguous = ev.warnings
    assert dup.code == "duplicate_call_id"
    assert str(ambiguous) == (
        "messages[1]: the tool result for id 'dup' may answer any of 2 different calls sharing "
        "that id (load_skill('alpha'), load_skill('beta')); without a marker naming one of their "
        "skills it loads nothing"
    )
    assert {k: ambiguous.params[k] for k in ("index", "number", "call_id", "count")} == {
        "index": 1,
        "number": 2,
        "call_id": "dup",
        "count": 2,
    }
    # the pairing itself stays positional (what the simulator's notes and replay read)
    assert pair_results(parse_messages([LOADS, {"role": "tool", "tool_call_id": "dup", "content": "x"}])).answers == {
        1: (0, 0)
    }


def test_a_marked_result_in_a_group_is_judged_against_the_call_its_marker_names():
    ev = evidence(
        [
            LOADS,
            {"role": "tool", "tool_call_id": "dup", "content": "# beta", "metadata": {MARKER: "beta"}},
            {"role": "tool", "tool_call_id": "dup", "content": "# alpha", "metadata": {MARKER: "alpha"}},
        ]
    )
    assert [(m.position, m.code) for m in ev.manuals] == [(1, "beta"), (2, "alpha")]
    assert [w.code for w in ev.warnings] == ["duplicate_call_id"]
    view = compute_round(
        shop(),
        [LOADS, {"role": "tool", "tool_call_id": "dup", "content": "# beta manual", "metadata": {MARKER: "beta"}}],
    )
    assert view.loaded == ("beta",)


def test_the_reader_re_reads_a_grouped_result_after_an_eviction_by_the_same_rule():
    msgs = parse_messages(
        [LOADS, {"role": "tool", "tool_call_id": "dup", "content": "# beta", "metadata": {MARKER: "beta"}}]
    )
    reader = EvidenceReader(marker_key=MARKER, eviction_prefix="[evicted")
    for m in msgs:
        reader.append(m)
    assert [m.code for m in reader.manuals] == ["beta"]
    from dataclasses import replace

    reader.replace(1, replace(msgs[1], metadata={}))
    assert reader.manuals == () and reader.evidence().warnings[-1].code == "pairing_ambiguous"


def test_doubtful_types_warn_with_their_exact_sentences():
    [m] = parse_messages([{"role": "assistant", "content": "x", "tool_calls": {}, "metadata": 0}])
    assert [str(p) for p in m.problems] == [
        "messages[0]: tool_calls is {}, not a list; read as no calls",
        "messages[0]: metadata is 0, not an object; read as untrusted, the message loads nothing",
    ]
    assert (m.tool_calls, m.metadata) == ((), {})
    blocks = parse_messages(
        [
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "x", "metadata": False},
                    {"type": "tool_result", "tool_use_id": {}, "content": "y", "metadata": {"evicted": True}},
                ],
            }
        ]
    )
    assert [[str(p) for p in b.problems] for b in blocks] == [
        ["messages[0]: content[0]: metadata is false, not an object; read as untrusted, the message loads nothing"],
        [
            "messages[0]: content[1]: tool_use_id is {}, not a string; this result answers no call, without a marker "
            "it loads nothing"
        ],
    ]
    assert [b.metadata for b in blocks] == [{}, {"evicted": True}]
    [state] = parse_messages([{"role": "tool", "tool_call_id": "c1", "content": "x", "state": None}])
    assert (state.state, [str(p) for p in state.problems]) == (
        "error",
        ["messages[0]: state is null, which says neither success nor failure; the result is read as failed"],
    )


def test_a_call_id_of_the_wrong_type_among_several_calls_is_not_also_call_id_missing():
    ev = evidence(
        [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": 5, "name": "lookup", "arguments": {}}, {"name": "export", "arguments": {}}],
            }
        ]
    )
    assert [(w.code, w.params.get("tools")) for w in ev.warnings] == [
        ("call_id_invalid", None),
        ("call_id_missing", "export"),
    ]


def test_bad_top_level_fields_beside_anthropic_results_warn_on_the_user_message():
    msgs = parse_messages(
        [{"role": "user", "metadata": [], "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}]
    )
    assert [(m.role, m.content, [p.code for p in m.problems]) for m in msgs] == [
        ("tool", "x", []),
        ("user", "", ["metadata_invalid"]),
    ]
