"""Whole published manuals (docs/transcripts.md, "A whole published manual"): the normalisation,
the digests, the test "this result holds that manual", the catalog's published manuals, the
snapshot's ``earlier_manuals`` and the exact ``manual_incomplete`` warning."""

from __future__ import annotations

import hashlib
import sys

import pytest

from skill_rule import compute_round, parse_messages
from skill_rule.manuals import (
    HEAD_CHARS,
    WHITESPACE,
    ManualDigest,
    digest,
    digest_from_dict,
    held_version,
    holds,
    normalise,
    published_manuals,
)
from skill_rule.messages import Message
from skill_rule.snapshot import SnapshotError, body_sha256, catalog_from_snapshot, catalog_to_snapshot
from skill_rule.transcript import is_already_loaded_stub, read_evidence

from .factories import ALPHA, BETA, EVICTED_PREFIX, MARKER, loaded, manual, shop, skill


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_the_whitespace_listed_is_exactly_what_str_split_splits_on():
    assert sorted(WHITESPACE) == [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    assert len(WHITESPACE) == 29


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        ("# 订单\n\n  取消 ", "# 订单 取消"),
        ("\u3000a\u00a0\u2028b\r\n\tc\x85", "a b c"),
        ("", ""),
        (" \n\t ", ""),
        ("a\u200bb", "a\u200bb"),  # ZERO WIDTH SPACE is no whitespace (not str.isspace)
    ],
)
def test_normalise_collapses_every_run_of_whitespace_to_one_space(text, normalised):
    assert normalise(text) == normalised


def test_a_digest_is_version_sha256_chars_and_head_of_the_normalised_text():
    text = "# 订单变更\n\n" + "步骤 " * 20
    norm = normalise(text)
    assert digest(text, 3) == ManualDigest(version=3, sha256=sha(norm), chars=len(norm), head=norm[:HEAD_CHARS])
    assert digest("# a\n b", 1).as_dict() == {"version": 1, "sha256": sha("# a b"), "chars": 5, "head": "# a b"}
    assert (HEAD_CHARS, len(digest(text, 3).head), digest(text, 3).chars) == (32, 32, 66)


def test_a_content_holds_a_manual_wherever_it_starts_after_a_decoy_head():
    m = digest("# alpha manual\nstep one", 1)
    assert holds("# alpha manual step one", m) is True
    assert holds("prefix # alpha manual step one suffix", m) is True
    # the head occurs first in a decoy that is cut short; the whole manual follows
    assert holds("# alpha manual step two, then # alpha manual step one", m) is True
    assert holds("# alpha manual step on", m) is False  # one character short
    assert holds("# alpha manual step 0ne", m) is False  # same length, another text
    assert holds("", m) is False


def test_an_empty_manual_is_held_by_any_content():
    assert holds("anything", digest("  \n", 1)) is True


def test_the_current_manual_comes_first_then_earlier_ones_newest_first_each_text_once():
    current = digest("v4 text", 4)
    v1, v2, v3 = digest("v1 text", 1), digest("v2 text", 2), digest("v1 text", 3)  # v3 republished v1's text
    same_as_current = digest("v4 text", 2)
    newer = digest("v9 text", 9)  # a skill made again under the same code started at 1 anew
    assert published_manuals(current, [v1, v2, v3, same_as_current, newer]) == (current, v3, v2)
    assert held_version("… v1 text …", published_manuals(current, [v1, v2, v3])) == 3
    assert held_version("v4 text", published_manuals(current, [v1])) == 4
    assert held_version("v9 text", published_manuals(current, [newer])) is None


@pytest.mark.parametrize(
    "item",
    [
        None,
        [],
        {},
        {"version": 1, "sha256": "0" * 64, "chars": 3},
        {"version": 0, "sha256": "0" * 64, "chars": 3, "head": "abc"},
        {"version": True, "sha256": "0" * 64, "chars": 3, "head": "abc"},
        {"version": 1, "sha256": "0" * 63, "chars": 3, "head": "abc"},
        {"version": 1, "sha256": "0" * 64, "chars": -1, "head": ""},
        {"version": 1, "sha256": "0" * 64, "chars": 3, "head": "ab"},
        {"version": 1, "sha256": "0" * 64, "chars": 40, "head": "abc"},
    ],
)
def test_a_digest_of_the_wrong_shape_is_not_read(item):
    assert digest_from_dict(item) is None


def test_a_digest_round_trips_through_its_json():
    d = digest("# alpha manual v2", 2)
    assert digest_from_dict(d.as_dict()) == d
    assert digest_from_dict({**d.as_dict(), "sha256": d.sha256.upper()}) == d


def test_the_catalog_hashes_its_manuals_once_and_a_new_draft_again():
    catalog = shop(skill("alpha", ("refund",), version=3), BETA)
    first = catalog.published_manuals
    assert catalog.published_manuals is first
    assert {code: [d.version for d in ds] for code, ds in first.items()} == {"alpha": [3, 2, 1], "beta": [1]}
    assert first["alpha"][0] == digest(manual("alpha", 3), 3)
    edited = catalog.with_skills((skill("alpha", ("refund",), version=4, content="# new"), BETA))
    assert [d.version for d in edited.published_manuals["alpha"]] == [4, 2, 1]  # 3 was never published here


def test_a_snapshot_carries_the_earlier_manuals_as_format_3_and_reads_them_back():
    catalog = shop(skill("alpha", ("refund", "cancel"), sort_order=10, version=2), BETA)
    snap = catalog_to_snapshot(catalog)
    assert snap["format"] == 3
    assert [s.get("earlier_manuals") for s in snap["skills"]] == [[digest("# alpha manual", 1).as_dict()], None]
    back = catalog_from_snapshot(snap, release=4)
    assert back.earlier_manuals == {"alpha": (digest("# alpha manual", 1),)}
    assert catalog_to_snapshot(back) == snap


def test_a_snapshot_without_earlier_manuals_keeps_its_format_and_sha256():
    before = catalog_to_snapshot(shop(ALPHA, BETA))
    assert before["format"] == 1 and all("earlier_manuals" not in s for s in before["skills"])
    assert body_sha256(catalog_to_snapshot(catalog_from_snapshot(before))) == body_sha256(before)
    # an older release: only each skill's current manual loads (fail closed)
    old = catalog_from_snapshot({**before, "skills": [{**s, "version": 2} for s in before["skills"]]})
    assert compute_round(old, loaded("alpha", version=2, content="# alpha manual")).loaded == ("alpha",)
    assert compute_round(old, loaded("alpha", version=1, content="# alpha old manual")).loaded == ()


def test_a_snapshot_digest_that_cannot_be_read_accepts_nothing_and_a_wrong_type_is_refused():
    snap = catalog_to_snapshot(shop(skill("alpha", ("refund",), version=2)))
    snap["skills"][0]["earlier_manuals"] = [{"version": 1, "sha256": "x"}, digest("# alpha manual", 1).as_dict()]
    assert catalog_from_snapshot(snap).earlier_manuals == {"alpha": (digest("# alpha manual", 1),)}
    snap["skills"][0]["earlier_manuals"] = {"version": 1}
    with pytest.raises(SnapshotError, match=r"skills\[0\]: 'earlier_manuals' must be list, not dict"):
        catalog_from_snapshot(snap)


def test_a_partial_manual_warns_manual_incomplete_with_the_exact_sentence_and_loads_nothing():
    catalog = shop()
    msgs = parse_messages(loaded("alpha", content="# alpha man…[truncated 1800 chars]"))
    evidence = read_evidence(
        msgs, marker_key=MARKER, eviction_prefix=EVICTED_PREFIX, published=catalog.published_manuals
    )
    assert evidence.manuals == ()
    (warning,) = evidence.warnings
    assert (warning.code, warning, warning.params) == (
        "manual_incomplete",
        "messages[1]: the load_skill result for 'alpha' does not hold a whole published manual of it "
        "(34 characters); it loads nothing",
        {"index": 1, "number": 2, "skill": "alpha", "chars": 34},
    )
    # without the catalog's manuals (a code no catalog publishes) the result is read as before
    assert [m.code for m in read_evidence(msgs, marker_key=MARKER, eviction_prefix=EVICTED_PREFIX).manuals] == ["alpha"]


def test_the_text_names_the_version_not_the_metadata():
    catalog = shop(skill("alpha", ("refund",), version=3))
    held = {
        v: compute_round(catalog, loaded("alpha", version=meta, content=manual("alpha", v)))
        for v, meta in ((1, 3), (2, 3), (3, 1))
    }
    assert {v: [(w.code, w.params.get("version")) for w in view.warnings] for v, view in held.items()} == {
        1: [("manual_outdated", 1)],
        2: [("manual_outdated", 2)],
        3: [],
    }
    assert all(view.loaded == ("alpha",) for view in held.values())


def test_a_code_the_catalog_does_not_enable_is_read_as_before():
    catalog = shop(ALPHA, skill("off", ("ship",), enabled=False))
    evidence = read_evidence(
        parse_messages(loaded("off", content="x")),
        marker_key=MARKER,
        eviction_prefix=EVICTED_PREFIX,
        published=catalog.published_manuals,
    )
    assert ([m.code for m in evidence.manuals], evidence.warnings) == (["off"], ())
    assert compute_round(catalog, loaded("off", content="x")).loaded == ()


@pytest.mark.parametrize(
    ("content", "stub"),
    [
        ("技能「Alpha」（alpha，v1）的手册已在上下文中，无需重复加载；请按上文手册继续。", True),
        ("  技能「Alpha」（alpha，v1）的手册已在上下文中，无需重复加载；请按上文手册继续。\n[took 3 ms]", True),
        ("<out>技能「A B」（alpha，v12）的手册已在上下文中，无需重复加载；请按上文手册继续。</out>", True),
        ("技能「Alpha」（alpha，v1）的手册已在上下文中，无需重复加载；", False),  # cut: not the stub
        (
            "技能「" + "x" * 300 + "」（alpha，v1）的手册已在上下文中，无需重复加载；请按上文手册继续。",
            False,
        ),  # no name is that long
    ],
)
def test_the_stub_is_recognised_inside_a_runtimes_decorations(content, stub):
    assert is_already_loaded_stub(Message(role="tool", content=content)) is stub
