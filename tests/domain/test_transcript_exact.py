"""``domain/transcript.py``, exact values: the stub test, the pairing warnings, what a tool result
proves and the warnings it carries (issue 11: the mutation-testing triage of the fifth round).
Library tests: call, assert."""

from __future__ import annotations

from dataclasses import replace

import pytest

from skill_rule.messages import Message, ToolCall, as_messages
from skill_rule.transcript import (
    EvidenceReader,
    LoadedManual,
    is_already_loaded_stub,
    is_evicted,
    pair_results,
    read_evidence,
)

from .factories import EVICTED_PREFIX, MARKER, assistant, call, loaded, tool_result, user


def evidence_of(items):
    return read_evidence(as_messages(items), marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)


def reader_of(items) -> EvidenceReader:
    reader = EvidenceReader(marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)
    for m in as_messages(items):
        reader.append(m)
    return reader


# --- the "already loaded" stub ------------------------------------------------------------


def test_a_result_flagged_already_loaded_is_the_stub_whatever_its_text() -> None:
    flagged = Message(role="tool", content="# alpha manual", metadata={"already_loaded": True})
    assert is_already_loaded_stub(flagged) is True
    stub = loaded("alpha", call_id="c1", already_loaded=True)  # the marker and a manual's text, flagged
    assert evidence_of([user("hi"), *stub]).manuals == ()


def test_a_result_flagged_not_already_loaded_is_a_manual() -> None:
    unflagged = Message(role="tool", content="# alpha manual", metadata={"already_loaded": False})
    assert is_already_loaded_stub(unflagged) is False
    manual = loaded("alpha", call_id="c1", already_loaded=False)
    assert evidence_of([user("hi"), *manual]).manuals == (LoadedManual(position=2, index=2, code="alpha", version=1),)


# --- where a warning points ---------------------------------------------------------------


def test_a_warning_on_one_of_several_anthropic_results_names_the_message_as_received() -> None:
    msgs = as_messages(
        [
            user("hi"),
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "lookup", "input": {"q": "1"}}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "found"},
                    {"type": "tool_result", "tool_use_id": "t9", "content": "who?"},
                ],
            },
        ]
    )
    assert [(m.role, m.index) for m in msgs] == [("user", 0), ("assistant", 1), ("tool", 2), ("tool", 2)]
    (warning,) = pair_results(msgs).warnings
    assert (warning.code, warning.params["index"], warning.params["number"]) == ("result_unpaired", 2, 3)
    assert warning == (
        "messages[2]: the tool result for id 't9' answers no earlier unanswered call; without a marker it loads nothing"
    )


# --- what a tool result proves --------------------------------------------------------------


def test_a_result_carrying_another_skills_marker_loads_nothing_and_names_both() -> None:
    msgs = (
        Message(role="user", content="hi"),
        Message(role="assistant", tool_calls=(ToolCall("load_skill", {"skill_code": "beta"}, id="c1"),)),
        Message(role="tool", content="# alpha manual", tool_call_id="c1", metadata={MARKER: "alpha"}),
    )
    assert [m.index for m in msgs] == [None, None, None]  # built in code: positions name them
    evidence = read_evidence(msgs, marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)
    assert evidence.manuals == ()
    (warning,) = evidence.warnings
    assert warning.code == "marker_mismatch"
    assert warning == (
        "messages[2]: the result carries the manual of 'alpha' but answers load_skill('beta'); it loads nothing"
    )
    assert warning.params == {"index": 2, "number": 3, "skill": "alpha", "asked": "'beta'"}


def test_evicting_a_result_that_warned_drops_its_warning() -> None:
    reader = reader_of([user("hi"), *loaded("alpha", call_id="c1", content="   ")])
    assert [w.code for w in reader.evidence().warnings] == ["manual_empty"]
    reader.replace(2, replace(reader.messages[2], content=f"{EVICTED_PREFIX}3 字]"))
    assert reader.evidence().warnings == ()
    assert reader.manuals == ()


# --- the newest manual of each skill --------------------------------------------------------


def test_a_skill_keeps_its_unversioned_manual_and_its_highest_version_in_any_order() -> None:
    unversioned = loaded("alpha", call_id="c1")
    unversioned[1]["metadata"] = {MARKER: "alpha"}
    reader = reader_of(
        [
            user("hi"),
            *unversioned,
            *loaded("alpha", call_id="c2", version=3),
            *loaded("alpha", call_id="c3", version=2),
            *loaded("beta", call_id="c4", version=1),
        ]
    )
    v3 = LoadedManual(position=4, index=4, code="alpha", version=3)
    assert reader.evidence().latest == {
        "alpha": (True, v3),
        "beta": (False, LoadedManual(position=8, index=8, code="beta", version=1)),
    }
    # Evidence.newest() without the kept map folds the manuals the same way
    assert replace(reader.evidence(), latest=None).newest() == reader.evidence().latest


def test_of_two_manuals_of_the_same_old_version_the_later_is_the_one_named_outdated() -> None:
    from skill_rule.transcript import outdated_warnings

    reader = reader_of([user("hi"), *loaded("alpha", call_id="c1"), *loaded("alpha", call_id="c2")])
    assert reader.evidence().latest == {"alpha": (False, LoadedManual(position=4, index=4, code="alpha", version=1))}
    (warning,) = outdated_warnings(reader.evidence(), {"alpha": (2, ("refund",))})
    assert (warning.params["index"], warning.params["number"]) == (4, 5)


def code_built_load(code: str, call_id: str, content: str, **metadata) -> tuple[Message, Message]:
    """A load_skill call and its result built in code: no ``index``, so positions name them."""
    return (
        Message(role="assistant", tool_calls=(ToolCall("load_skill", {"skill_code": code}, id=call_id),)),
        Message(role="tool", content=content, tool_call_id=call_id, metadata={MARKER: code, **metadata}),
    )


def test_an_empty_manual_loads_nothing_and_says_so_naming_the_skill() -> None:
    msgs = (Message(role="user", content="hi"), *code_built_load("alpha", "c1", " \n "))
    evidence = read_evidence(msgs, marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)
    assert evidence.manuals == ()
    (warning,) = evidence.warnings
    assert warning.code == "manual_empty"
    assert warning == "messages[2]: the load_skill result for 'alpha' is empty; it loads nothing"
    assert warning.params == {"index": 2, "number": 3, "skill": "alpha"}


def test_a_manual_built_in_code_is_named_by_its_position() -> None:
    msgs = (Message(role="user", content="hi"), *code_built_load("alpha", "c1", "# alpha manual", skill_version=2))
    evidence = read_evidence(msgs, marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)
    assert evidence.manuals == (LoadedManual(position=2, index=2, code="alpha", version=2),)


def test_a_manual_among_several_anthropic_results_keeps_the_index_of_the_message_as_received() -> None:
    msgs = as_messages(
        [
            user("hi"),
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"q": "1"}},
                    {"type": "tool_use", "id": "t2", "name": "load_skill", "input": {"skill_code": "alpha"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "found"},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "# alpha manual"},
                ],
            },
        ]
    )
    evidence = read_evidence(msgs, marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)
    assert evidence.manuals == (LoadedManual(position=3, index=2, code="alpha", version=None),)


def test_a_manual_read_as_it_is_appended_holds_its_version_only() -> None:
    reader = reader_of([user("hi"), *loaded("alpha", call_id="c1", version=1)])
    assert (reader.holds_manual("alpha", 1), reader.holds_manual("alpha", 2)) == (True, False)
    assert reader.holds_manual("beta", 1) is False


# --- which messages are read ----------------------------------------------------------------


def test_calls_in_a_message_that_is_not_the_assistants_answer_nothing() -> None:
    msgs = as_messages(
        [
            {"role": "user", "content": "", "tool_calls": [call("load_skill", "c1", skill_code="alpha")]},
            {"role": "tool", "tool_call_id": "c1", "content": "# alpha manual"},
        ]
    )
    pairing = pair_results(msgs)
    assert dict(pairing.answers) == {}
    assert [(w.code, w.params["index"]) for w in pairing.warnings] == [("result_unpaired", 1)]
    assert read_evidence(msgs, marker_key=MARKER, eviction_prefix=EVICTED_PREFIX).manuals == ()


def test_an_assistant_message_carrying_the_marker_is_no_manual() -> None:
    msgs = as_messages(
        [
            user("hi"),
            {
                **assistant("# alpha manual", call("lookup", "c1", q="1")),
                "metadata": {MARKER: "alpha", "skill_version": 1},
            },
            tool_result("c1", "found"),
        ]
    )
    evidence = read_evidence(msgs, marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)
    assert (evidence.manuals, evidence.warnings) == ((), ())


def test_a_result_answers_the_nearest_unanswered_call_with_its_id_then_the_one_before() -> None:
    msgs = as_messages(
        [
            assistant("", call("lookup", "x", q="1")),
            assistant("", call("ship", "x")),
            tool_result("x", "shipped"),
            tool_result("x", "found"),
        ]
    )
    pairing = pair_results(msgs)
    assert dict(pairing.answers) == {2: (1, 0), 3: (0, 0)}
    assert (pairing.call_of(msgs, 2).name, pairing.call_of(msgs, 3).name) == ("ship", "lookup")
    assert pairing.warnings == ()


def test_a_result_answers_the_first_of_the_nearest_messages_calls_sharing_its_id() -> None:
    msgs = as_messages(
        [
            assistant("", call("lookup", "x", q="1")),
            assistant("", call("ship", "x"), call("export", "x")),
            tool_result("x", "one"),
            tool_result("x", "two"),
            tool_result("x", "three"),
        ]
    )
    pairing = pair_results(msgs)
    assert dict(pairing.answers) == {2: (1, 0), 3: (1, 1), 4: (0, 0)}
    assert [(w.code, w.params["index"], w.params["count"]) for w in pairing.warnings] == [("duplicate_call_id", 1, 2)]


def test_a_result_without_an_id_answers_only_the_one_call_without_an_id_right_before_it() -> None:
    msgs = as_messages(
        [
            tool_result("", "first"),
            assistant("", call("lookup", "", q="1")),
            tool_result("", "found"),
            tool_result("", "again"),
        ]
    )
    pairing = pair_results(msgs)
    assert dict(pairing.answers) == {2: (1, 0)}
    assert [(w.code, w.params["index"]) for w in pairing.warnings] == [
        ("result_id_missing", 0),
        ("result_id_missing", 3),
    ]


def test_a_reader_that_read_nothing_proves_nothing() -> None:
    reader = EvidenceReader(marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)
    evidence = reader.evidence()
    assert (len(reader), evidence.manuals, evidence.warnings, evidence.latest, evidence.codes) == (
        0,
        (),
        (),
        {},
        frozenset(),
    )


# --- doubtful metadata: fail closed, and say so (session 19) -----------------------------------


def _result(metadata, *, call_name="load_skill", content="# alpha manual"):
    return (
        Message(role="user", content="hi"),
        Message(role="assistant", tool_calls=(ToolCall(call_name, {"skill_code": "alpha"}, id="c1"),)),
        Message(role="tool", content=content, tool_call_id="c1", metadata=metadata),
    )


@pytest.mark.parametrize(
    ("metadata", "call_name", "manuals", "sentence", "params"),
    [
        (
            {MARKER: "alpha", "evicted": "true"},
            "load_skill",
            (),
            "messages[2]: metadata.evicted is 'true', not true or false; read as evicted",
            {"value": "'true'"},
        ),
        (
            {MARKER: "alpha", "evicted": None},
            "load_skill",
            (),
            "messages[2]: metadata.evicted is null, not true or false; read as evicted",
            {"value": "null"},
        ),
        (
            {MARKER: "alpha", "already_loaded": 1},
            "load_skill",
            (),
            "messages[2]: metadata.already_loaded is 1, not true or false; read as the already-loaded stub, it loads "
            "nothing",
            {"value": "1"},
        ),
        (
            {MARKER: "alpha"},
            "query_order",
            (),
            "messages[2]: the result carries the marker 'alpha' but answers query_order, not load_skill; it loads nothing",
            {"marker": "'alpha'", "tool": "query_order"},
        ),
        (
            {MARKER: ["alpha"]},
            "load_skill",
            (),
            f'messages[2]: metadata.{MARKER} is ["alpha"], not a skill code; it loads nothing',
            {"key": MARKER, "value": '["alpha"]'},
        ),
        (
            {MARKER: "a" * 80},
            "load_skill",
            (),
            "messages[2]: the result carries the manual of '"
            + "a" * 80
            + "' but answers load_skill('alpha'); it loads "
            "nothing",
            {"skill": "a" * 80, "asked": "'alpha'"},
        ),
        (
            {"trace": "x"},
            "load_skill",
            (),
            f"messages[2]: the load_skill result for 'alpha' has metadata without {MARKER}; it loads nothing",
            {"skill": "alpha", "key": MARKER},
        ),
        (
            {MARKER: "alpha", "skill_version": True},
            "load_skill",
            (LoadedManual(2, 2, "alpha", None),),
            "messages[2]: metadata.skill_version is true, not a version number; the manual of 'alpha' counts as naming "
            "no version",
            {"value": "true", "skill": "alpha"},
        ),
        (
            {MARKER: "alpha", "skill_version": 0},
            "load_skill",
            (LoadedManual(2, 2, "alpha", None),),
            "messages[2]: metadata.skill_version is 0, not a version number; the manual of 'alpha' counts as naming "
            "no version",
            {"value": "0", "skill": "alpha"},
        ),
        (
            {MARKER: "alpha", "skill_version": 1.5},
            "load_skill",
            (LoadedManual(2, 2, "alpha", None),),
            "messages[2]: metadata.skill_version is 1.5, not a version number; the manual of 'alpha' counts as naming "
            "no version",
            {"value": "1.5", "skill": "alpha"},
        ),
    ],
)
def test_doubtful_metadata_releases_nothing_more_and_the_warning_says_why(
    metadata, call_name, manuals, sentence, params
) -> None:
    evidence = read_evidence(_result(metadata, call_name=call_name), marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)
    assert evidence.manuals == manuals
    (warning,) = evidence.warnings
    assert warning == sentence
    assert warning.params == {"index": 2, "number": 3, **params}


def test_a_long_doubtful_value_is_quoted_cut_to_60_characters() -> None:
    evidence = read_evidence(
        _result({MARKER: "alpha", "evicted": "y" * 100}), marker_key=MARKER, eviction_prefix=EVICTED_PREFIX
    )
    (warning,) = evidence.warnings
    assert warning.params["value"] == "'" + "y" * 56 + "..."
    assert len(warning.params["value"]) == 60


def test_version_1_and_false_flags_are_read_as_they_stand() -> None:
    evidence = read_evidence(
        _result({MARKER: "alpha", "skill_version": 1, "evicted": False, "already_loaded": False}),
        marker_key=MARKER,
        eviction_prefix=EVICTED_PREFIX,
    )
    assert (evidence.manuals, evidence.warnings) == ((LoadedManual(2, 2, "alpha", 1),), ())


def test_a_marker_result_answering_no_call_still_loads_with_the_pairings_warning() -> None:
    msgs = (
        Message(role="user", content="hi"),
        Message(role="tool", content="# alpha manual", tool_call_id="gone", metadata={MARKER: "alpha"}),
    )
    evidence = read_evidence(msgs, marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)
    assert evidence.manuals == (LoadedManual(1, 1, "alpha", None),)
    assert [w.code for w in evidence.warnings] == ["result_unpaired"]


@pytest.mark.parametrize(
    ("metadata", "content", "evicted"),
    [
        ({}, "# alpha manual", False),
        ({"evicted": False}, "# alpha manual", False),
        ({"evicted": True}, "# alpha manual", True),
        ({"evicted": "false"}, "# alpha manual", True),
        ({"evicted": 0}, "# alpha manual", True),
        ({"evicted": None}, "# alpha manual", True),
        ({}, f"{EVICTED_PREFIX}3 字]", True),
        ({"evicted": False}, f"{EVICTED_PREFIX}3 字]", True),
    ],
)
def test_a_result_is_evicted_by_the_placeholder_or_any_flag_but_false(metadata, content, evicted) -> None:
    assert is_evicted(Message(role="tool", content=content, metadata=metadata), EVICTED_PREFIX) is evicted


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("v" * 58, "'" + "v" * 58 + "'"),  # a repr of exactly 60 characters is quoted whole
        ("v" * 59, "'" + "v" * 56 + "..."),  # 61: cut to 57 and "..."
        # anything but a string as JSON writes it (what the sender wrote), cut the same way
        ({"on": True, "at": None, "n": 1.5}, '{"on": true, "at": null, "n": 1.5}'),
        (["是", 2], '["是", 2]'),
        ([1] * 20, "[" + ", ".join(["1"] * 19) + ", 1]"),  # 60 characters: whole
        ([1] * 21, ("[" + ", ".join(["1"] * 21))[:57] + "..."),  # 63: cut to 57 and "..."
        ({1.5j}, "{1.5j}"),  # not JSON (a message built in code): Python's spelling
    ],
)
def test_a_doubtful_value_is_quoted_whole_up_to_60_characters(value, shown) -> None:
    evidence = read_evidence(
        _result({MARKER: "alpha", "evicted": value}), marker_key=MARKER, eviction_prefix=EVICTED_PREFIX
    )
    (warning,) = evidence.warnings
    assert warning.params["value"] == shown
