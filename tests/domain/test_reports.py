"""The shape of a batch of runtime reports (``skill_rule.reports``): one row per rule with the exact
refusal, what a valid record reads as, the marks of what the console does not know, and the
counters a batch adds to the rollups. No database."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from skill_rule import jsontext
from skill_rule.reports import (
    DIMENSIONS,
    Report,
    ReportError,
    conversation_firsts,
    masked_call_key,
    masked_call_parts,
    parse_reports,
    report_flags,
    rollup_counts,
    tools_chars_bucket,
    tools_chars_bucket_upper,
    tools_chars_percentiles,
)

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
CST = timezone(timedelta(hours=8))
SHA = "5" * 64
ROUND = {
    "id": "r-1",
    "kind": "round",
    "at": "2026-12-01T17:59:00+08:00",
    "instance": "host-1",
    "release": 3,
    "sha256": SHA,
    "conversation": "conv-1",
    "round": 1,
    "loaded": [],
    "masked": ["cancel_order", "change_address"],
}
CALL = {
    "id": "c-1",
    "kind": "call",
    "at": "2026-12-01T09:59:00Z",
    "instance": "host-1",
    "release": 3,
    "sha256": SHA,
    "conversation": "conv-1",
    "round": 1,
    "tool": "cancel_order",
    "verdict": "refused",
    "reason": "masked",
    "skill_code": "order_change",
}
HEARTBEAT = {
    "id": "h-1",
    "kind": "heartbeat",
    "at": "2026-12-01T09:59:30+00:00",
    "instance": "host-1",
    "client_version": "skill-console-client/0.1.0",
    "stale": False,
}


def parse(records, **kwargs):
    return parse_reports({"records": records}, now=NOW, retention_days=30, **kwargs)


def refusal(body) -> dict:
    with pytest.raises(ReportError) as caught:
        parse_reports(body, now=NOW, retention_days=30)
    assert caught.value.code == "invalid_report"
    return {"message": caught.value.message, **caught.value.details}


def record_refusal(record, index: int = 0) -> dict:
    records = [{**HEARTBEAT, "id": f"ok-{i}"} for i in range(index)] + [record]
    return refusal({"records": records})


def changed(base: dict, **fields) -> dict:
    """``base`` with ``fields`` set; a field set to ``...`` is removed."""
    out = {**base, **fields}
    return {k: v for k, v in out.items() if v is not ...}


# --- the batch ----------------------------------------------------------------------------------

BATCH_RULES = [
    ("body not an object", [ROUND], (None, None, "must be a JSON object with 'records', got a list")),
    ("records missing", {}, (None, "records", 'missing: the body is {"records": [...]}')),
    ("unknown top-level field", {"records": [ROUND], "batch": 1}, (None, "batch", "unknown field 'batch'; fields: records")),
    ("records not a list", {"records": {"0": ROUND}}, (None, "records", "must be a list of records, got an object")),
    ("records empty", {"records": []}, (None, "records", "must hold at least one record")),
    ("a record not an object", {"records": [ROUND, "r-2"]}, (1, None, "must be an object, got 'r-2'")),
    (
        "an id twice in one batch",
        {"records": [ROUND, CALL, {**HEARTBEAT, "id": "r-1"}]},
        (2, "id", "repeats the id of records[0] ('r-1'); each record of a batch needs its own id"),
    ),
]  # fmt: skip


@pytest.mark.parametrize(("body", "expected"), [pytest.param(b, e, id=name) for name, b, e in BATCH_RULES])
def test_a_bad_batch_is_refused_whole_naming_where(body, expected):
    index, field, cause = expected
    got = refusal(body)
    where = (
        (field if field else "body")
        if index is None
        else (f"records[{index}].{field}" if field else f"records[{index}]")
    )
    assert got == {"message": f"{where}: {cause}", "index": index, "field": field, "cause": cause}


def test_more_records_than_the_limit_name_the_limit():
    got = refusal({"records": [{**HEARTBEAT, "id": f"h-{i}"} for i in range(501)]})
    assert got == {
        "message": "records: 501 records, more than REPORT_MAX_RECORDS (500) in one batch",
        "index": None,
        "field": "records",
        "cause": "501 records, more than REPORT_MAX_RECORDS (500) in one batch",
        "limit": "REPORT_MAX_RECORDS",
        "max": 500,
    }


def test_a_key_twice_in_the_body_is_refused():
    body = jsontext.loads('{"records": [], "records": []}')
    assert refusal(body)["cause"] == "key 'records' appears twice in the body"


# --- one row per rule of a record ---------------------------------------------------------------

RECORD_RULES = [
    # kind and fields
    ("kind missing", changed(ROUND, kind=...), "kind", "missing; one of round, call, heartbeat, sample"),
    ("kind unknown", changed(ROUND, kind="turn"), "kind", "must be one of round, call, heartbeat, sample, got 'turn'"),
    ("kind not a string", changed(ROUND, kind=1), "kind", "must be one of round, call, heartbeat, sample, got 1"),
    ("unknown field", changed(ROUND, colour="red"), "colour",
     "unknown field for a round record; fields: id, kind, at, instance, release, sha256, label, conversation, "
     "round, loaded, masked, withheld, tools_chars, warnings"),
    ("a call field on a round", changed(ROUND, verdict="allowed"), "verdict",
     "unknown field for a round record; fields: id, kind, at, instance, release, sha256, label, conversation, "
     "round, loaded, masked, withheld, tools_chars, warnings"),
    ("required field missing", changed(ROUND, masked=...), "masked",
     "missing (a round record needs: id, kind, at, instance, release, sha256, conversation, round, loaded, masked)"),
    ("heartbeat field missing", changed(HEARTBEAT, stale=...), "stale",
     "missing (a heartbeat record needs: id, kind, at, instance, client_version, stale)"),
    # ids
    ("id with a space", changed(ROUND, id="r 1"), "id", "must be 1–64 of A–Z a–z 0–9 . _ : -, got 'r 1'"),
    ("id empty", changed(ROUND, id=""), "id", "must be 1–64 of A–Z a–z 0–9 . _ : -, got ''"),
    ("id a number", changed(ROUND, id=7), "id", "must be a string, got 7"),
    ("instance in Chinese", changed(ROUND, instance="实例"), "instance", "must be 1–64 of A–Z a–z 0–9 . _ : -, got '实例'"),
    ("conversation is text", changed(ROUND, conversation="cancel my order"), "conversation",
     "must be 1–64 of A–Z a–z 0–9 . _ : -, got 'cancel my order'"),
    # time
    ("time without offset", changed(ROUND, at="2026-12-01T09:59:00"), "at",
     "must be an ISO 8601 time with an offset ('2026-12-01T10:00:00+08:00'), got '2026-12-01T09:59:00'"),
    ("time not a time", changed(ROUND, at="yesterday"), "at",
     "must be an ISO 8601 time with an offset ('2026-12-01T10:00:00+08:00'), got 'yesterday'"),
    ("time a number", changed(ROUND, at=1764583140), "at", "must be a string, got 1764583140"),
    # release
    ("release zero", changed(ROUND, release=0), "release", "must be an integer from 1 to 2147483647, got 0"),
    ("release as text", changed(ROUND, release="3"), "release", "must be an integer from 1 to 2147483647, got '3'"),
    ("release true", changed(ROUND, release=True), "release", "must be an integer from 1 to 2147483647, got true"),
    ("release 3.0", changed(ROUND, release=3.0), "release", "must be an integer from 1 to 2147483647, got 3.0"),
    ("release past the integer limit", changed(ROUND, release=2**31), "release",
     "must be an integer from 1 to 2147483647, got 2147483648"),
    ("sha256 upper case", changed(ROUND, sha256="A" * 64), "sha256",
     "must be 64 lowercase hex digits (the catalog's ETag), got 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA…'"),
    ("sha256 null on a round", changed(ROUND, sha256=None), "sha256",
     "must be 64 lowercase hex digits (the catalog's ETag), got null"),
    ("label not a label", changed(ROUND, label="Production"), "label",
     "must be a label name (lowercase letters, digits, single '_' or '-'), got 'Production'"),
    # round
    ("round zero", changed(ROUND, round=0), "round", "must be an integer from 1 to 2147483647, got 0"),
    ("round null", changed(ROUND, round=None), "round", "must be an integer from 1 to 2147483647, got null"),
    ("withheld negative", changed(ROUND, withheld=-1), "withheld", "must be an integer from 0 to 2147483647, got -1"),
    ("tools_chars text", changed(ROUND, tools_chars="4014"), "tools_chars",
     "must be an integer from 0 to 2147483647, got '4014'"),
    # lists
    ("loaded not a list", changed(ROUND, loaded="order_change"), "loaded", "must be a list, got 'order_change'"),
    ("loaded twice", changed(ROUND, loaded=["order_change", "order_change"]), "loaded.1",
     "repeats 'order_change' (item 0)"),
    ("masked item empty", changed(ROUND, masked=["cancel_order", ""]), "masked.1", "must not be empty"),
    ("masked item a number", changed(ROUND, masked=[5]), "masked.0", "must be a string, got 5"),
    ("masked item with a newline", changed(ROUND, masked=["cancel\norder"]), "masked.0",
     "holds a control character (U+000A)"),
    ("warning not a code", changed(ROUND, warnings=["Manual Outdated"]), "warnings.0",
     "must be a lowercase letter, then lowercase letters, digits or '_', got 'Manual Outdated'"),
    # calls
    ("verdict unknown", changed(CALL, verdict="denied"), "verdict",
     "must be one of allowed, refused, confirm, got 'denied'"),
    ("refused without a reason", changed(CALL, reason=...), "reason", "a refused call needs its reason, got null"),
    ("a reason on an allowed call", changed(CALL, verdict="allowed"), "reason",
     "only a refused call has a reason; this one is 'allowed'"),
    ("reason not a code", changed(CALL, reason="Masked!"), "reason",
     "must be a lowercase letter, then lowercase letters, digits or '_', got 'Masked!'"),
    ("tool a NUL", changed(CALL, tool="cancel\x00order"), "tool", "holds a control character (U+0000)"),
    ("skill_code empty", changed(CALL, skill_code=""), "skill_code", "must not be empty"),
    # heartbeats
    ("client version with a space", changed(HEARTBEAT, client_version="client 0.1"), "client_version",
     "must be 1–64 printable ASCII characters without a space, got 'client 0.1'"),
    ("stale as text", changed(HEARTBEAT, stale="false"), "stale", "must be true or false, got 'false'"),
    ("refresh unknown", changed(HEARTBEAT, refresh="ok"), "refresh",
     "must be one of fetched, not_modified, stale, got 'ok'"),
    ("a release without its sha256", changed(HEARTBEAT, release=3), "sha256",
     "a release is named by its number and its sha256; sha256 is null"),
    ("dropped negative", changed(HEARTBEAT, dropped=-1), "dropped", "must be an integer from 0 to 2147483647, got -1"),
    ("dropped null", changed(HEARTBEAT, dropped=None), "dropped", "must be an integer from 0 to 2147483647, got null"),
    ("dropped true", changed(HEARTBEAT, dropped=True), "dropped", "must be an integer from 0 to 2147483647, got true"),
    ("dropped on a round", changed(ROUND, dropped=3), "dropped",
     "unknown field for a round record; fields: id, kind, at, instance, release, sha256, label, conversation, "
     "round, loaded, masked, withheld, tools_chars, warnings"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("record", "field", "cause"), [pytest.param(r, f, c, id=name) for name, r, f, c in RECORD_RULES]
)
def test_a_bad_record_is_refused_naming_its_index_field_and_cause(record, field, cause):
    assert record_refusal(record, index=2) == {
        "message": f"records[2].{field}: {cause}",
        "index": 2,
        "field": field,
        "cause": cause,
    }


LIMIT_RULES = [
    ("id over 64", changed(ROUND, id="r" * 65), "id", "has 65 characters, more than REPORT_ID_MAX_CHARS (64)",
     "REPORT_ID_MAX_CHARS", 64),
    ("tool over 128", changed(CALL, tool="t" * 129), "tool",
     "has 129 characters, more than REPORT_NAME_MAX_CHARS (128)", "REPORT_NAME_MAX_CHARS", 128),
    ("loaded item over 128", changed(ROUND, loaded=["s" * 129]), "loaded.0",
     "has 129 characters, more than REPORT_NAME_MAX_CHARS (128)", "REPORT_NAME_MAX_CHARS", 128),
    ("warning over 64", changed(ROUND, warnings=["w" * 65]), "warnings.0",
     "has 65 characters, more than REPORT_CODE_MAX_CHARS (64)", "REPORT_CODE_MAX_CHARS", 64),
    ("client version over 64", changed(HEARTBEAT, client_version="v" * 65), "client_version",
     "has 65 characters, more than REPORT_VERSION_MAX_CHARS (64)", "REPORT_VERSION_MAX_CHARS", 64),
    ("label over 64", changed(ROUND, label="l" * 65), "label",
     "has 65 characters, more than SKILL_CODE_MAX_LENGTH (64)", "SKILL_CODE_MAX_LENGTH", 64),
    ("time text over 40", changed(ROUND, at="2026-12-01T09:59:00.000000000000000+00:00"), "at",
     "has 41 characters, more than REPORT_TIME_MAX_CHARS (40)", "REPORT_TIME_MAX_CHARS", 40),
    ("masked over 2000 items", changed(ROUND, masked=[f"t{i}" for i in range(2001)]), "masked",
     "has 2001 items, more than REPORT_MAX_LIST_ITEMS (2000)", "REPORT_MAX_LIST_ITEMS", 2000),
    ("six minutes ahead of the clock", changed(ROUND, at="2026-12-01T10:06:00+00:00"), "at",
     "is 2026-12-01T10:06:00+00:00, more than REPORT_MAX_FUTURE_SECONDS (300) seconds after the console's clock "
     "(2026-12-01T10:00:00+00:00)", "REPORT_MAX_FUTURE_SECONDS", 300),
    ("older than the retention period", changed(ROUND, at="2026-11-01T09:59:59Z"), "at",
     "is 2026-11-01T09:59:59+00:00, older than the retention period (30 days: reports from before "
     "2026-11-01T10:00:00+00:00 are purged)", "SKILL_CONSOLE_REPORTS_RETENTION_DAYS", 30),
]  # fmt: skip


@pytest.mark.parametrize(
    ("record", "field", "cause", "limit", "maximum"),
    [pytest.param(r, f, c, lim, m, id=name) for name, r, f, c, lim, m in LIMIT_RULES],
)
def test_a_record_past_a_limit_names_the_limit(record, field, cause, limit, maximum):
    assert record_refusal(record) == {
        "message": f"records[0].{field}: {cause}",
        "index": 0,
        "field": field,
        "cause": cause,
        "limit": limit,
        "max": maximum,
    }


def test_the_time_bounds_are_inclusive():
    assert parse([changed(ROUND, at="2026-12-01T10:05:00+00:00")])[0].at == NOW + timedelta(minutes=5)
    assert parse([changed(ROUND, at="2026-11-01T10:00:00+00:00")])[0].at == NOW - timedelta(days=30)


AMBIGUOUS_RULES = [
    ('{"records": [{"id": "r-1", "kind": "round", "id": "r-2"}]}', 0, "id",
     "key 'id' appears twice; JSON readers disagree on which value counts"),
    ('{"records": [{"kind": "call", "round": 12345678901234567890}]}', 0, "round",
     "JSON readers disagree on this value (integer 12345678901234567890 is outside ±(2^53−1))"),
    ('{"records": [{"kind": "round", "loaded": ["\\ud800"]}]}', 0, "loaded.0",
     "JSON readers disagree on this value (string holds a lone surrogate \\ud800)"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "index", "field", "cause"), AMBIGUOUS_RULES)
def test_ambiguous_json_in_a_record_is_refused_naming_the_field(text, index, field, cause):
    body = jsontext.loads(text)
    for record in body["records"]:  # fill in the rest of a valid record, so the ambiguity is what fails
        for key, value in (ROUND if record.get("kind") == "round" else CALL).items():
            record.setdefault(key, value)
    got = refusal(body)
    assert (got["index"], got["field"], got["cause"]) == (index, field, cause)


# --- what a valid batch reads as ----------------------------------------------------------------


def test_a_valid_batch_reads_as_reports_in_utc_with_the_defaults():
    round_, call, beat = parse([ROUND, CALL, HEARTBEAT])
    assert round_ == Report(
        id="r-1",
        kind="round",
        at=datetime(2026, 12, 1, 9, 59, tzinfo=UTC),
        instance="host-1",
        release=3,
        sha256=SHA,
        conversation="conv-1",
        round=1,
        loaded=(),
        masked=("cancel_order", "change_address"),
        withheld=0,
        tools_chars=None,
        warnings=(),
    )
    assert (call.tool, call.verdict, call.reason, call.skill_code, call.withheld) == (
        "cancel_order",
        "refused",
        "masked",
        "order_change",
        None,
    )
    assert (beat.client_version, beat.stale, beat.release, beat.sha256, beat.label, beat.refresh, beat.dropped) == (
        "skill-console-client/0.1.0",
        False,
        None,
        None,
        None,
        None,
        0,  # a heartbeat of a runtime that does not count its drops (before issue 26 item 2): none
    )
    assert round_.day() == date(2026, 12, 1)


def test_warnings_may_repeat_and_nullable_fields_take_null():
    (report,) = parse([changed(ROUND, release=None, label=None, tools_chars=None, warnings=["a1", "a1"])])
    assert (report.release, report.label, report.tools_chars, report.warnings) == (None, None, None, ("a1", "a1"))


def test_a_draft_heartbeat_may_name_a_sha256_without_a_release():
    (beat,) = parse([changed(HEARTBEAT, sha256=SHA, refresh="stale", stale=True, label="staging")])
    assert (beat.release, beat.sha256, beat.refresh, beat.stale, beat.label) == (None, SHA, "stale", True, "staging")


def test_the_day_is_the_date_in_the_time_zone_given_utc_by_default():
    (report,) = parse([changed(ROUND, at="2026-12-01T07:30:00+08:00")])
    assert report.at == datetime(2026, 11, 30, 23, 30, tzinfo=UTC)
    assert report.day() == date(2026, 11, 30)
    assert report.day(CST) == date(2026, 12, 1)
    assert list(rollup_counts([(report, ())], tz=CST)) == [
        (date(2026, 12, 1), 3, "rounds", ""),
    ]
    assert conversation_firsts([report], tz=CST) == {(3, "conv-1"): date(2026, 12, 1)}


# --- marks --------------------------------------------------------------------------------------

SKILLS = frozenset({"order_change", "after_sale_apply"})
TOOLS = frozenset({"load_skill", "cancel_order", "change_address", "query_order"})
(R,) = parse([ROUND])
(C,) = parse([CALL])
(H,) = parse([changed(HEARTBEAT, release=3, sha256=SHA)])


def _report(base: Report, **fields) -> Report:
    from dataclasses import replace

    return replace(base, **fields)


FLAG_ROWS = [
    ("all known", R, SHA, ()),
    ("no such release", R, None, ("unknown_release",)),
    ("same number, another sha256", R, "6" * 64, ("unknown_release",)),
    ("an unknown masked tool", _report(R, masked=("cancel_order", "frobnicate")), SHA, ("unknown_tool",)),
    ("an unknown loaded skill", _report(R, loaded=("refund",)), SHA, ("unknown_skill",)),
    ("both", _report(R, loaded=("refund",), masked=("frobnicate",)), SHA, ("unknown_skill", "unknown_tool")),
    ("a call to an unknown tool", _report(C, tool="frobnicate", reason="unknown_tool", skill_code=None), SHA,
     ("unknown_tool",)),
    ("load_skill asking for an unknown skill", _report(C, tool="load_skill", skill_code="refund"), SHA,
     ("unknown_skill",)),
    ("the draft is not checked", _report(R, release=None, loaded=("refund",)), None, ()),
    ("a heartbeat on an unknown release", H, None, ("unknown_release",)),
    ("a heartbeat holding nothing", _report(H, release=None, sha256=None), None, ()),
]  # fmt: skip


@pytest.mark.parametrize(
    ("report", "release_sha256", "flags"), [pytest.param(r, s, f, id=name) for name, r, s, f in FLAG_ROWS]
)
def test_what_the_console_does_not_know_is_marked(report, release_sha256, flags):
    assert report_flags(report, release_sha256=release_sha256, skills=SKILLS, tools=TOOLS) == flags


# --- rollups ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chars", "bucket"),
    [(0, 0), (42, 42), (99, 99), (100, 100), (109, 100), (987, 980), (1000, 1000), (4014, 4000), (4820, 4800),
     (9999, 9900), (10_000, 10_000), (123_456, 120_000), (2_147_483_647, 2_100_000_000)],
)  # fmt: skip
def test_tools_chars_buckets_keep_two_leading_digits(chars, bucket):
    assert tools_chars_bucket(chars) == bucket


def test_rollups_count_each_dimension_of_a_conversation():
    day = date(2026, 12, 1)
    records = parse(
        [
            changed(ROUND, tools_chars=4014, withheld=2, warnings=["manual_outdated", "manual_outdated"]),
            changed(ROUND, id="r-2", round=2, loaded=["order_change"], masked=["pay_order"], tools_chars=4820),
            CALL,
            changed(CALL, id="c-2", tool="load_skill", verdict="allowed", reason=None, skill_code="order_change"),
            changed(CALL, id="c-3", verdict="confirm", reason=None, skill_code=None),
            changed(CALL, id="c-4", verdict="allowed", reason=None, skill_code=None, tool="query_order"),
            changed(CALL, id="c-5", tool="frobnicate", reason="unknown_tool", skill_code=None, release=None),
            HEARTBEAT,
            changed(HEARTBEAT, id="h-2", dropped=7),
            changed(HEARTBEAT, id="h-3", dropped=5),
        ]
    )
    flags = [(), (), (), (), (), (), (), (), (), ()]
    flags[1] = ("unknown_tool",)
    counts = rollup_counts(zip(records, flags))
    assert counts == Counter(
        {
            (day, 3, "rounds", ""): 2,
            (day, 3, "outdated", ""): 1,
            (day, 3, "loaded", "order_change"): 1,
            (day, 3, "warning", "manual_outdated"): 2,
            (day, 3, "withheld", ""): 2,
            (day, 3, "tools_chars", "4000"): 1,
            (day, 3, "tools_chars", "4800"): 1,
            (day, 3, "calls", "refused"): 1,
            (day, 3, "calls", "allowed"): 2,
            (day, 3, "calls", "confirm"): 1,
            (day, 3, "refused", "masked"): 1,
            (day, 3, "masked_call", "cancel_order:order_change"): 1,
            (day, 3, "load", "order_change"): 1,
            (day, 3, "confirm", "cancel_order"): 1,
            (day, 3, "flag", "unknown_tool"): 1,
            (day, 0, "calls", "refused"): 1,
            (day, 0, "refused", "unknown_tool"): 1,
            (day, 0, "heartbeats", ""): 3,
            (day, 0, "dropped", ""): 12,  # the drops the heartbeats count, summed
        }
    )
    assert {dimension for (_, _, dimension, _) in counts} <= set(DIMENSIONS)


def test_conversations_are_counted_apart_on_the_day_of_their_first_round():
    """``rollup_counts`` has no ``conversations``: the console counts a conversation once, on the
    earliest day of its rounds, per release (0 = the draft); calls and heartbeats name none."""
    records = parse(
        [
            changed(ROUND, id="r-2", round=2, at="2026-12-01T09:00:00+08:00"),
            changed(ROUND, id="r-1", round=1, at="2026-11-30T09:00:00+08:00"),
            changed(ROUND, id="r-3", round=1, conversation="conv-2", at="2026-12-01T09:00:00+08:00"),
            changed(ROUND, id="r-4", round=3, release=None, at="2026-12-01T09:00:00+08:00"),
            CALL,
            HEARTBEAT,
        ]
    )
    assert conversation_firsts(records, tz=CST) == {
        (3, "conv-1"): date(2026, 11, 30),
        (3, "conv-2"): date(2026, 12, 1),
        (0, "conv-1"): date(2026, 12, 1),
    }
    assert not any(dimension == "conversations" for (_, _, dimension, _) in rollup_counts((r, ()) for r in records))


@pytest.mark.parametrize(
    ("bucket", "upper"),
    [(0, 0), (42, 42), (99, 99), (100, 109), (980, 989), (990, 999), (1000, 1099), (4000, 4099), (9900, 9999),
     (10_000, 10_999), (120_000, 129_999), (2_100_000_000, 2_199_999_999)],
)  # fmt: skip
def test_a_bucket_ends_below_the_next_one(bucket, upper):
    assert tools_chars_bucket_upper(bucket) == upper
    assert tools_chars_bucket(upper) == bucket and tools_chars_bucket(upper + 1) != bucket


PERCENTILE_ROWS = [
    ("no rounds", {}, None),
    ("an empty bucket only", {4000: 0}, None),
    ("one round", {4000: 1}, {50: 4099, 90: 4099, 95: 4099, 99: 4099, 100: 4099}),
    # the cancel-iphone rounds: 4014, 4820, 4820 → p50 is the 2nd value (4820's bucket)
    ("three rounds", {4000: 1, 4800: 2}, {50: 4899, 90: 4899, 95: 4899, 99: 4899, 100: 4899}),
    # 100 rounds: 50 of 42 chars, 40 in 980–989, 9 in 4000–4099, 1 in 10,000–10,999
    ("a hundred rounds", {42: 50, 980: 40, 4000: 9, 10_000: 1}, {50: 42, 90: 989, 95: 4099, 99: 4099, 100: 10_999}),
    ("one more round moves p50", {42: 50, 980: 41, 4000: 9, 10_000: 1},
     {50: 989, 90: 989, 95: 4099, 99: 4099, 100: 10_999}),
]  # fmt: skip


@pytest.mark.parametrize(("buckets", "expected"), [pytest.param(b, e, id=n) for n, b, e in PERCENTILE_ROWS])
def test_percentiles_are_the_upper_bounds_of_the_nearest_rank_buckets(buckets, expected):
    assert tools_chars_percentiles(buckets) == expected


def test_a_masked_call_key_splits_at_its_last_colon():
    assert masked_call_key("cancel_order", "order_change") == "cancel_order:order_change"
    assert masked_call_parts("cancel_order:order_change") == ("cancel_order", "order_change")
    assert masked_call_parts(masked_call_key("mcp:cancel", None)) == ("mcp:cancel", "")
    assert masked_call_parts(masked_call_key("mcp:cancel", "order_change")) == ("mcp:cancel", "order_change")
