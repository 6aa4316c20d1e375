"""``transcript.EvidenceReader.replace`` and ``Evidence.newest``, exact values (issue 11: the
mutation-testing triage of ``domain/transcript.py``). Library tests: call, assert."""

from __future__ import annotations

from dataclasses import replace

import pytest

from skill_rule.messages import as_messages
from skill_rule.transcript import Evidence, EvidenceReader, LoadedManual

from .factories import EVICTED_PREFIX, MARKER, loaded, user


def reader_of(items) -> EvidenceReader:
    reader = EvidenceReader(marker_key=MARKER, eviction_prefix=EVICTED_PREFIX)
    for m in as_messages(items):
        reader.append(m)
    return reader


def test_replacing_a_manual_by_a_newer_version_is_read_again() -> None:
    reader = reader_of([user("hi"), *loaded("alpha", call_id="c1", version=1), *loaded("beta", call_id="c2")])
    newer = replace(reader.messages[2], content="# alpha manual v2", metadata={MARKER: "alpha", "skill_version": 2})
    reader.replace(2, newer)
    assert reader.manuals == (
        LoadedManual(position=2, index=2, code="alpha", version=2),
        LoadedManual(position=4, index=4, code="beta", version=1),
    )
    assert (reader.holds_manual("alpha", 2), reader.holds_manual("alpha", 1)) == (True, False)
    assert reader.holds_manual("beta", 1) is True


def test_replacing_a_manual_by_its_eviction_placeholder_forgets_it() -> None:
    reader = reader_of([user("hi"), *loaded("alpha", call_id="c1")])
    evicted = replace(reader.messages[2], content=f"{EVICTED_PREFIX}12 字]")
    reader.replace(2, evicted)
    assert reader.manuals == ()
    assert reader.holds_manual("alpha", 1) is False
    assert reader.evidence().codes == frozenset()


def test_replacing_a_user_message_reads_no_manual_from_it() -> None:
    reader = reader_of([user("hi"), *loaded("alpha", call_id="c1")])
    (other,) = as_messages([{"role": "user", "content": "hello", "metadata": {MARKER: "beta", "skill_version": 1}}])
    reader.replace(0, other)
    assert [m.code for m in reader.manuals] == ["alpha"]
    assert reader.holds_manual("beta", 1) is False


def test_replace_refuses_a_message_of_another_role_naming_why() -> None:
    reader = reader_of([user("hi"), *loaded("alpha", call_id="c1")])
    (other,) = as_messages([user("not a tool result")])
    with pytest.raises(ValueError) as exc:
        reader.replace(2, other)
    assert str(exc.value) == "replace() keeps a message's role, calls and tool_call_id"


def test_newest_is_the_kept_latest_when_there_is_one() -> None:
    manual = LoadedManual(position=1, index=1, code="alpha", version=1)
    kept = {"alpha": (True, None)}
    assert Evidence(manuals=(manual,), warnings=(), latest=kept).newest() is kept
    assert Evidence(manuals=(manual,), warnings=()).newest() == {"alpha": (False, manual)}


def test_an_older_manual_beside_one_without_a_version_is_not_outdated() -> None:
    from skill_rule.transcript import outdated_warnings

    unversioned = loaded("alpha", call_id="c2")
    unversioned[1]["metadata"] = {MARKER: "alpha"}  # names no version: taken as current
    reader = reader_of([user("hi"), *loaded("alpha", call_id="c1", version=1), *unversioned])
    assert [m.version for m in reader.manuals] == [1, None]
    assert outdated_warnings(reader.evidence(), {"alpha": (2, ("refund", "cancel"))}) == ()
    older_only = reader_of([user("hi"), *loaded("alpha", call_id="c1", version=1)])
    (warning,) = outdated_warnings(older_only.evidence(), {"alpha": (2, ("refund", "cancel"))})
    assert (warning.code, warning.params["version"], warning.params["current"]) == ("manual_outdated", 1, 2)


def test_only_manuals_older_than_their_skill_are_outdated_whatever_comes_first() -> None:
    from skill_rule.transcript import outdated_warnings

    reader = reader_of(
        [
            user("hi"),
            *loaded("beta", call_id="c0", version=5),
            *loaded("gamma", call_id="c9"),
            *loaded("alpha", call_id="c1", version=1),
        ]
    )
    versions = {"beta": (5, ("cancel", "ship")), "alpha": (2, ()), "delta": (1, ())}  # gamma: not in the catalog
    (warning,) = outdated_warnings(reader.evidence(), versions)
    assert warning == (
        "messages[6]: the retained manual of 'alpha' is version 1, the skill is now version 2; "
        "it releases no tool, which that manual may not mention"
    )
    assert warning.params == {
        "index": 6,
        "number": 7,
        "skill": "alpha",
        "version": 1,
        "current": 2,
        "tools": "no tool",
        "tool_list": [],
    }
    assert outdated_warnings(reader.evidence(), {"alpha": (1, ())}) == ()  # same version: current
