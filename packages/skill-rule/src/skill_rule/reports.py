"""Runtime reports: what an agent runtime tells the console about production (docs/runtime-api.md,
"POST runtime/reports"). Plain Python: the shape of a batch, the marks of a record naming
something the console does not know, and the per-day counters a batch adds to the rollups. The
console stores them (``skills_app.reports``); nothing here reads a database.

**A batch** is ``{"records": [record, …]}``: 1 to ``REPORT_MAX_RECORDS`` records, each one object
with the keys of its kind and no other (``?`` = optional, then its default)::

    every kind  id         str   1–64 of A–Z a–z 0–9 . _ : -, made by the client: a batch sent
                                 again is stored once (the console keeps one record per key and id)
                kind       str   "round" | "call" | "heartbeat" | "sample"
                at         str   ISO 8601 time with an offset ("2026-12-01T10:00:00+08:00", "…Z");
                                 at most REPORT_MAX_FUTURE_SECONDS after the console's clock and
                                 not older than the retention period
                instance   str   the runtime instance (an id like ``id``)
    round       release    int ≥ 1 | null (the draft)   sha256  64 lowercase hex (the catalog's ETag)
                label?     str | null   the label the runtime pins (a label name), null = the default
                conversation str  a pseudonymous conversation id (an id like ``id``; never user text)
                round      int ≥ 1      the round's position in the conversation (1 = its first)
                loaded     [name]       the skills loaded in that round, each once
                masked     [name]       the tools masked in that round, each once
                withheld?  int ≥ 0 (0)  how many MCP tools the profile or stage left out
                tools_chars? int ≥ 0 | null (null)   the size of the tools array (``payload_chars``)
                warnings?  [code] ([])  the round's warning codes (a code may repeat)
    call        release, sha256, conversation, round   as in a round
                tool       name         the tool the model called
                verdict    str          "allowed" | "refused" | "confirm"
                reason?    code | null (null)   why it was refused: set exactly when verdict is "refused"
                skill_code? name | null (null)  the manual to load (masked), or what load_skill asked for
    heartbeat   client_version  str     1–64 printable ASCII, no space (``skill-console-client/0.1.0``)
                stale      bool         the runtime answers from a copy it could not refresh
                release?, sha256? (null)  the release it holds (null, null: none yet); a release
                                 number needs its sha256
                label?     str | null (null)
                refresh?   str | null (null)   the last refresh's outcome: "fetched" |
                                 "not_modified" | "stale"; null = never refreshed
                dropped?   int ≥ 0 (0)  records the runtime dropped unsent (its queue full, a
                                 batch refused) since the last heartbeat it sent; a heartbeat
                                 dropped hands its count on, so the sum is every record lost

    sample      release, sha256, label?, conversation, round   as in a round
                redaction  str          "redacted" (the default of the client) | "arguments"
                                 (call arguments kept: the runtime opted in)
                messages   [message]    the round's retained messages as ``redaction.redact_messages``
                                 gives them: at most REPORT_SAMPLE_MAX_MESSAGES, REPORT_SAMPLE_MAX_BYTES
                                 of JSON; ``parse_messages`` must read them and redacting them again
                                 must change nothing (``first_unredacted``), else the batch is refused
                                 (``messages.3``: the first message holding what the mode leaves out)

``name`` is 1–``REPORT_NAME_MAX_CHARS`` characters without a control character; ``code`` a
lowercase letter, then lowercase letters, digits and ``_`` (``REPORT_CODE_PATTERN``). Integers are
JSON integers (not ``true``, not ``3.0``) up to ``REPORT_MAX_INT``; lists hold at most
``REPORT_MAX_LIST_ITEMS`` items.

**Errors.** ``parse_reports`` refuses the whole batch at the first problem with a ``ReportError``
(``code`` ``invalid_report``): ``index`` is the record's 0-based position (``None`` for the batch
itself), ``field`` the path inside it (``round``, ``loaded.1``; ``None`` for the record itself),
``cause`` the sentence; over a limit, ``limit`` names it and ``maximum`` is its value. The message
reads ``records[2].round: must be an integer from 1 to 2147483647, got 0``.

**Marks.** A record naming a release, skill or tool the console does not know is valid and kept;
``report_flags`` says which (``unknown_release``, ``unknown_skill``, ``unknown_tool``).

**Rollups.** ``rollup_counts`` turns records into counters keyed ``(day, release, dimension, key)``
(``DIMENSIONS``; samples are never counted; day = the date of ``at`` in the time zone given — the console's own —, release 0
= none or the draft). Conversations are counted apart, since counting one once takes what the
console already holds: ``conversation_firsts`` gives the day each conversation of a batch was first
seen, and the console counts those it had not seen before (``skills_app.reports.services``).

**Reading them back.** ``tools_chars_percentiles`` reads percentiles from the ``tools_chars``
buckets (``tools_chars_bucket``: the bounds are fixed, so buckets of any days and releases add up);
``masked_call_parts`` splits a ``masked_call`` key into the tool and the manual to load.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import Any

from . import jsontext
from .errors import DomainError, MessageError
from .limits import (
    LOAD_SKILL,
    REPORT_CODE_MAX_CHARS,
    REPORT_CODE_PATTERN,
    REPORT_ID_MAX_CHARS,
    REPORT_ID_PATTERN,
    REPORT_MAX_FUTURE_SECONDS,
    REPORT_MAX_INT,
    REPORT_MAX_LIST_ITEMS,
    REPORT_MAX_RECORDS,
    REPORT_NAME_MAX_CHARS,
    REPORT_SAMPLE_MAX_BYTES,
    REPORT_SAMPLE_MAX_MESSAGES,
    REPORT_TIME_MAX_CHARS,
    REPORT_VERSION_MAX_CHARS,
    REPORT_VERSION_PATTERN,
    SKILL_CODE_MAX_LENGTH,
    SKILL_CODE_PATTERN,
)
from .messages import parse_messages
from .redaction import ARGUMENTS, MODES, redact_messages
from .rules import ALLOWED, CONFIRM, REASON_MASKED, REFUSED

ROUND, CALL, HEARTBEAT, SAMPLE = "round", "call", "heartbeat", "sample"
KINDS = (ROUND, CALL, HEARTBEAT, SAMPLE)
VERDICTS = (ALLOWED, REFUSED, CONFIRM)
#: ``skill_client.client``'s ``Refresh.outcome`` values.
REFRESH_OUTCOMES = ("fetched", "not_modified", "stale")

#: The round warning of a retained manual older than the skill (``transcript.outdated_warnings``).
OUTDATED_WARNING = "manual_outdated"

UNKNOWN_RELEASE, UNKNOWN_SKILL, UNKNOWN_TOOL = "unknown_release", "unknown_skill", "unknown_tool"
FLAGS = (UNKNOWN_RELEASE, UNKNOWN_SKILL, UNKNOWN_TOOL)

#: Rollup dimensions: what each counts, by which key (``rollup_counts``).
DIMENSIONS: Mapping[str, str] = {
    "rounds": "round records (key '')",
    "conversations": "conversations first seen on that release that day (key ''): each (key, release, "
    "conversation) counts once, on the day of its first round the console stored (conversation_firsts)",
    "outdated": "rounds that served an outdated manual: rounds carrying the manual_outdated warning (key '')",
    "loaded": "rounds in which a skill was loaded (key: skill code)",
    "warning": "warnings in rounds (key: warning code)",
    "withheld": "tools withheld, summed over rounds (key '')",
    "tools_chars": "rounds by the size of their tools array (key: the bucket, tools_chars_bucket)",
    "calls": "guarded calls (key: verdict)",
    "refused": "refused calls (key: reason)",
    "masked_call": "calls refused because the tool was masked (key: 'tool:skill_code', the manual to load)",
    "confirm": "calls stopped for the user's confirmation (key: tool)",
    "load": "load_skill calls allowed (key: the skill code asked for)",
    "heartbeats": "heartbeat records (key '')",
    "dropped": "records the runtimes dropped unsent, summed over heartbeats (key '')",
    "flag": "records marked (key: flag)",
}

#: The fields of each kind: name → required (``True``) or the default of an optional one.
_REQUIRED = object()
_COMMON: dict[str, Any] = {"id": _REQUIRED, "kind": _REQUIRED, "at": _REQUIRED, "instance": _REQUIRED}
FIELDS: Mapping[str, Mapping[str, Any]] = {
    ROUND: {
        **_COMMON,
        "release": _REQUIRED,
        "sha256": _REQUIRED,
        "label": None,
        "conversation": _REQUIRED,
        "round": _REQUIRED,
        "loaded": _REQUIRED,
        "masked": _REQUIRED,
        "withheld": 0,
        "tools_chars": None,
        "warnings": (),
    },
    CALL: {
        **_COMMON,
        "release": _REQUIRED,
        "sha256": _REQUIRED,
        "conversation": _REQUIRED,
        "round": _REQUIRED,
        "tool": _REQUIRED,
        "verdict": _REQUIRED,
        "reason": None,
        "skill_code": None,
    },
    HEARTBEAT: {
        **_COMMON,
        "client_version": _REQUIRED,
        "stale": _REQUIRED,
        "release": None,
        "sha256": None,
        "label": None,
        "refresh": None,
        "dropped": 0,
    },
    SAMPLE: {
        **_COMMON,
        "release": _REQUIRED,
        "sha256": _REQUIRED,
        "label": None,
        "conversation": _REQUIRED,
        "round": _REQUIRED,
        "redaction": _REQUIRED,
        "messages": _REQUIRED,
    },
}


@dataclass(frozen=True, slots=True)
class Report:
    """One valid record (see the module); fields a kind does not have are ``None`` / ``()``.
    ``at`` is in UTC."""

    id: str
    kind: str
    at: datetime
    instance: str
    release: int | None = None
    sha256: str | None = None
    label: str | None = None
    conversation: str | None = None
    round: int | None = None
    loaded: tuple[str, ...] = ()
    masked: tuple[str, ...] = ()
    withheld: int | None = None
    tools_chars: int | None = None
    warnings: tuple[str, ...] = ()
    tool: str | None = None
    verdict: str | None = None
    reason: str | None = None
    skill_code: str | None = None
    client_version: str | None = None
    stale: bool | None = None
    refresh: str | None = None
    dropped: int | None = None
    redaction: str | None = None
    messages: tuple[Any, ...] | None = None

    def day(self, tz: tzinfo = UTC) -> date:
        """The date of ``at`` in ``tz``: the day a rollup counts it on."""
        return self.at.astimezone(tz).date()


class ReportError(DomainError):
    """A batch of reports that breaks the shape of the module (400 ``invalid_report``).

    ``details`` = ``{"index", "field", "cause"}`` (+ ``"limit"``, ``"max"`` when a named limit is
    passed); ``index`` is ``None`` for the batch itself, ``field`` ``None`` for the record itself."""

    code = "invalid_report"

    def __init__(
        self,
        cause: str,
        *,
        index: int | None = None,
        field: str | None = None,
        limit: str | None = None,
        maximum: int | None = None,
    ) -> None:
        self.index, self.field, self.cause, self.limit, self.maximum = index, field, cause, limit, maximum
        if index is None:
            where = field if field is not None else "body"
        else:
            where = f"records[{index}].{field}" if field is not None else f"records[{index}]"
        details: dict[str, Any] = {"index": index, "field": field, "cause": cause}
        if limit is not None:
            details.update(limit=limit, max=maximum)
        super().__init__(f"{where}: {cause}", details=details)


class _Bad(Exception):
    """A value that breaks its field's rule: the cause, the path below the field, the limit."""

    def __init__(self, cause: str, *, at: str = "", limit: str | None = None, maximum: int | None = None) -> None:
        super().__init__(cause)
        self.cause, self.at, self.limit, self.maximum = cause, at, limit, maximum


# --- values -------------------------------------------------------------------------------------


def _shown(value: Any) -> str:
    """A value as an error names it: ``'text'`` (cut), ``null``, ``true``, ``3.5``, ``a list``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "…")
    if isinstance(value, (int, float)):
        return repr(value)
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def _string(value: Any, max_chars: int, limit: str) -> str:
    if not isinstance(value, str):
        raise _Bad(f"must be a string, got {_shown(value)}")
    if len(value) > max_chars:
        raise _Bad(f"has {len(value)} characters, more than {limit} ({max_chars})", limit=limit, maximum=max_chars)
    return value


def _id(value: Any) -> str:
    text = _string(value, REPORT_ID_MAX_CHARS, "REPORT_ID_MAX_CHARS")
    if REPORT_ID_PATTERN.fullmatch(text) is None:
        raise _Bad(f"must be 1–{REPORT_ID_MAX_CHARS} of A–Z a–z 0–9 . _ : -, got {_shown(text)}")
    return text


def _name(value: Any) -> str:
    text = _string(value, REPORT_NAME_MAX_CHARS, "REPORT_NAME_MAX_CHARS")
    if not text:
        raise _Bad("must not be empty")
    control = next((c for c in text if unicodedata.category(c) == "Cc"), None)
    if control is not None:
        raise _Bad(f"holds a control character (U+{ord(control):04X})")
    return text


def _code(value: Any) -> str:
    text = _string(value, REPORT_CODE_MAX_CHARS, "REPORT_CODE_MAX_CHARS")
    if REPORT_CODE_PATTERN.fullmatch(text) is None:
        raise _Bad(f"must be a lowercase letter, then lowercase letters, digits or '_', got {_shown(text)}")
    return text


def _label(value: Any) -> str | None:
    if value is None:
        return None
    text = _string(value, SKILL_CODE_MAX_LENGTH, "SKILL_CODE_MAX_LENGTH")
    if SKILL_CODE_PATTERN.fullmatch(text) is None:
        raise _Bad(f"must be a label name (lowercase letters, digits, single '_' or '-'), got {_shown(text)}")
    return text


def _version(value: Any) -> str:
    text = _string(value, REPORT_VERSION_MAX_CHARS, "REPORT_VERSION_MAX_CHARS")
    if REPORT_VERSION_PATTERN.fullmatch(text) is None:
        raise _Bad(
            f"must be 1–{REPORT_VERSION_MAX_CHARS} printable ASCII characters without a space, got {_shown(text)}"
        )
    return text


def _sha256(value: Any) -> str:
    if not (isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)):
        raise _Bad(f"must be 64 lowercase hex digits (the catalog's ETag), got {_shown(value)}")
    return value


def _nullable(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else read(value)


def _integer(low: int) -> Callable[[Any], int]:
    def read(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= REPORT_MAX_INT:
            raise _Bad(f"must be an integer from {low} to {REPORT_MAX_INT}, got {_shown(value)}")
        return value

    return read


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Bad(f"must be true or false, got {_shown(value)}")
    return value


def _choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def read(value: Any) -> str:
        if not isinstance(value, str) or value not in choices:
            raise _Bad(f"must be one of {', '.join(choices)}, got {_shown(value)}")
        return value

    return read


def _items(read: Callable[[Any], str], *, once: bool) -> Callable[[Any], tuple[str, ...]]:
    def read_list(value: Any) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise _Bad(f"must be a list, got {_shown(value)}")
        if len(value) > REPORT_MAX_LIST_ITEMS:
            raise _Bad(
                f"has {len(value)} items, more than REPORT_MAX_LIST_ITEMS ({REPORT_MAX_LIST_ITEMS})",
                limit="REPORT_MAX_LIST_ITEMS",
                maximum=REPORT_MAX_LIST_ITEMS,
            )
        out: list[str] = []
        first: dict[str, int] = {}
        for i, item in enumerate(value):
            try:
                _unambiguous(item)
                text = read(item)
            except _Bad as bad:
                raise _Bad(bad.cause, at=str(i), limit=bad.limit, maximum=bad.maximum) from None
            if once and text in first:
                raise _Bad(f"repeats {_shown(text)} (item {first[text]})", at=str(i))
            first.setdefault(text, i)
            out.append(text)
        return tuple(out)

    return read_list


def _unambiguous(value: Any) -> None:
    cause = jsontext.ambiguity_of(value)
    if cause is not None:
        raise _Bad(f"JSON readers disagree on this value ({cause})")


_READERS: Mapping[str, Callable[[Any], Any]] = {
    "id": _id,
    "kind": _choice(KINDS),
    "instance": _id,
    "release": _nullable(_integer(1)),
    "label": _label,
    "conversation": _id,
    "round": _integer(1),
    "loaded": _items(_name, once=True),
    "masked": _items(_name, once=True),
    "withheld": _integer(0),
    "tools_chars": _nullable(_integer(0)),
    "warnings": _items(_code, once=False),
    "tool": _name,
    "verdict": _choice(VERDICTS),
    "reason": _nullable(_code),
    "skill_code": _nullable(_name),
    "client_version": _version,
    "stale": _boolean,
    "refresh": _nullable(_choice(REFRESH_OUTCOMES)),
    "dropped": _integer(0),
    "redaction": _choice(MODES),
}


def _sample_messages(value: Any, redaction: str) -> tuple[Any, ...]:
    """A sample's ``messages``: a list of at most ``REPORT_SAMPLE_MAX_MESSAGES`` messages of at most
    ``REPORT_SAMPLE_MAX_BYTES`` (compact JSON), that ``parse_messages`` reads and that redacting
    again leaves as they are (``is_redacted``): a sample that holds more than its ``redaction``
    says is refused, never stored."""
    if not isinstance(value, list):
        raise _Bad(f"must be a list of messages, got {_shown(value)}")
    if len(value) > REPORT_SAMPLE_MAX_MESSAGES:
        raise _Bad(
            f"has {len(value)} messages, more than REPORT_SAMPLE_MAX_MESSAGES ({REPORT_SAMPLE_MAX_MESSAGES})",
            limit="REPORT_SAMPLE_MAX_MESSAGES",
            maximum=REPORT_SAMPLE_MAX_MESSAGES,
        )
    try:
        size = len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))
    except (TypeError, ValueError):
        raise _Bad("holds a value that is not JSON") from None
    if size > REPORT_SAMPLE_MAX_BYTES:
        raise _Bad(
            f"is {size} bytes of JSON, more than REPORT_SAMPLE_MAX_BYTES ({REPORT_SAMPLE_MAX_BYTES})",
            limit="REPORT_SAMPLE_MAX_BYTES",
            maximum=REPORT_SAMPLE_MAX_BYTES,
        )
    try:
        parse_messages(value)
    except MessageError as exc:
        index = getattr(exc, "index", None)
        raise _Bad(f"cannot be read as messages: {exc.cause}", at="" if index is None else str(index)) from None
    place = first_unredacted(value, keep_arguments=redaction == ARGUMENTS)
    if place is not None:
        raise _Bad(f"holds what a {redaction!r} sample leaves out (redact it first)", at=str(place))
    return tuple(value)


def _noted(item: Any) -> bool:
    """Whether the ``redacted`` note of a message or call, if any, is ``{"chars": N}`` alone."""
    note = item.get("redacted", {"chars": 0}) if isinstance(item, dict) else {"chars": 0}
    chars = note.get("chars") if isinstance(note, dict) else None
    return isinstance(note, dict) and set(note) == {"chars"} and type(chars) is int and 0 <= chars <= REPORT_MAX_INT


def _strip(item: Any) -> Any:
    return {k: v for k, v in item.items() if k != "redacted"} | (
        {"tool_calls": [_strip(c) if isinstance(c, dict) else c for c in item["tool_calls"]]}
        if isinstance(item.get("tool_calls"), list)
        else {}
    )


def first_unredacted(messages: list[Any], *, keep_arguments: bool = False) -> int | None:
    """The index of the first of ``messages`` (the console's shape, as a sample holds them) that
    ``redact_messages`` would change — text, a result or arguments it leaves out — or ``None``
    when redacting them again changes nothing (the lengths it notes aside: a ``redacted`` note
    must be ``{"chars": N}`` and nothing else)."""
    again = redact_messages(messages, keep_arguments=keep_arguments)
    if len(again) != len(messages):
        return 0
    for i, (old, new) in enumerate(zip(messages, again, strict=True)):
        if not isinstance(old, dict) or _strip(old) != _strip(new) or not _noted(old):
            return i
        calls = old.get("tool_calls")
        if isinstance(calls, list) and not all(_noted(c) for c in calls):
            return i
    return None


def _time(value: Any, *, now: datetime, oldest: datetime, retention_days: int) -> datetime:
    """``at``: an ISO 8601 time with an offset, within the bounds (see the module), in UTC."""
    text = _string(value, REPORT_TIME_MAX_CHARS, "REPORT_TIME_MAX_CHARS")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None or moment.utcoffset() is None:
        raise _Bad(f"must be an ISO 8601 time with an offset ('2026-12-01T10:00:00+08:00'), got {_shown(text)}")
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before year 1 in UTC
        raise _Bad(f"is out of range, got {_shown(text)}") from None
    latest = now + timedelta(seconds=REPORT_MAX_FUTURE_SECONDS)
    if moment > latest:
        raise _Bad(
            f"is {moment.isoformat()}, more than REPORT_MAX_FUTURE_SECONDS ({REPORT_MAX_FUTURE_SECONDS}) seconds "
            f"after the console's clock ({now.isoformat()})",
            limit="REPORT_MAX_FUTURE_SECONDS",
            maximum=REPORT_MAX_FUTURE_SECONDS,
        )
    if moment < oldest:
        raise _Bad(
            f"is {moment.isoformat()}, older than the retention period ({retention_days} days: "
            f"reports from before {oldest.isoformat()} are purged)",
            limit="SKILL_CONSOLE_REPORTS_RETENTION_DAYS",
            maximum=retention_days,
        )
    return moment


# --- records and batches ------------------------------------------------------------------------


def _record(raw: Any, index: int, *, now: datetime, oldest: datetime, retention_days: int) -> Report:
    def bad(field: str | None, problem: _Bad | str) -> ReportError:
        if isinstance(problem, str):
            return ReportError(problem, index=index, field=field)
        path = f"{field}.{problem.at}" if field and problem.at else field
        return ReportError(problem.cause, index=index, field=path, limit=problem.limit, maximum=problem.maximum)

    if not isinstance(raw, dict):
        raise bad(None, f"must be an object, got {_shown(raw)}")
    if isinstance(raw, jsontext.AmbiguousDict) and raw.duplicates:
        key = raw.duplicates[0]
        raise bad(str(key), f"key {jsontext.quoted(key)} appears twice; JSON readers disagree on which value counts")
    kind = raw.get("kind")
    if "kind" not in raw:
        raise bad("kind", f"missing; one of {', '.join(KINDS)}")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise bad("kind", f"must be one of {', '.join(KINDS)}, got {_shown(kind)}")
    fields = FIELDS[kind]
    unknown = [key for key in raw if key not in fields]
    if unknown:
        raise bad(str(unknown[0]), f"unknown field for a {kind} record; fields: {', '.join(fields)}")
    missing = [name for name, default in fields.items() if default is _REQUIRED and name not in raw]
    if missing:
        required = ", ".join(name for name, default in fields.items() if default is _REQUIRED)
        raise bad(missing[0], f"missing (a {kind} record needs: {required})")
    values: dict[str, Any] = {}
    for name, default in fields.items():
        if name not in raw:
            values[name] = default
            continue
        value = raw[name]
        try:
            if not isinstance(value, list):  # a list's items are checked one by one, by their path
                _unambiguous(value)
            if name == "at":
                values[name] = _time(value, now=now, oldest=oldest, retention_days=retention_days)
            elif name == "messages":
                if values.get("redaction") is None:
                    raise _Bad("needs a valid redaction first")
                values[name] = _sample_messages(value, values["redaction"])
            elif name == "sha256":
                values[name] = (_sha256 if kind != HEARTBEAT else _nullable(_sha256))(value)
            else:
                values[name] = _READERS[name](value)
        except _Bad as problem:
            raise bad(name, problem) from None
    if kind == CALL:
        if values["verdict"] == REFUSED and values["reason"] is None:
            raise bad("reason", "a refused call needs its reason, got null")
        if values["verdict"] != REFUSED and values["reason"] is not None:
            raise bad("reason", f"only a refused call has a reason; this one is {values['verdict']!r}")
    if kind == HEARTBEAT and values["release"] is not None and values["sha256"] is None:
        raise bad("sha256", "a release is named by its number and its sha256; sha256 is null")
    return Report(**values)


def parse_reports(data: Any, *, now: datetime, retention_days: int) -> tuple[Report, ...]:
    """The records of a ``POST runtime/reports`` body (see the module), in order.

    ``now`` is the console's clock (timezone-aware); a record's ``at`` must lie between ``now``
    minus ``retention_days`` days and ``now`` plus ``REPORT_MAX_FUTURE_SECONDS``. Raises
    ``ReportError`` at the first problem: the batch is refused whole."""
    if isinstance(data, jsontext.AmbiguousDict) and data.duplicates:
        key = data.duplicates[0]
        raise ReportError(f"key {jsontext.quoted(key)} appears twice in the body", field=str(key))
    if not isinstance(data, dict):
        raise ReportError(f"must be a JSON object with 'records', got {_shown(data)}")
    unknown = [key for key in data if key != "records"]
    if unknown:
        raise ReportError(f"unknown field {jsontext.quoted(unknown[0])}; fields: records", field=str(unknown[0]))
    if "records" not in data:
        raise ReportError('missing: the body is {"records": [...]}', field="records")
    records = data["records"]
    if not isinstance(records, list):
        raise ReportError(f"must be a list of records, got {_shown(records)}", field="records")
    if not records:
        raise ReportError("must hold at least one record", field="records")
    if len(records) > REPORT_MAX_RECORDS:
        raise ReportError(
            f"{len(records)} records, more than REPORT_MAX_RECORDS ({REPORT_MAX_RECORDS}) in one batch",
            field="records",
            limit="REPORT_MAX_RECORDS",
            maximum=REPORT_MAX_RECORDS,
        )
    now = now.astimezone(UTC)
    oldest = now - timedelta(days=retention_days)
    out: list[Report] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(records):
        report = _record(raw, index, now=now, oldest=oldest, retention_days=retention_days)
        if report.id in seen:
            raise ReportError(
                f"repeats the id of records[{seen[report.id]}] ({report.id!r}); each record of a batch needs its own id",
                index=index,
                field="id",
            )
        seen[report.id] = index
        out.append(report)
    return tuple(out)


# --- marks and rollups --------------------------------------------------------------------------


def report_flags(
    report: Report,
    *,
    release_sha256: str | None,
    skills: Collection[str] | None = None,
    tools: Collection[str] | None = None,
) -> tuple[str, ...]:
    """What ``report`` names that the console does not know, as flags in ``FLAGS`` order.

    ``release_sha256`` is the sha256 of the console's release numbered ``report.release`` (``None``
    when there is none); ``skills`` and ``tools`` are the skill codes and tool names that release
    holds. A record naming no release (the draft; a heartbeat holding nothing) is not checked. A
    release that does not exist, or whose sha256 differs, is ``unknown_release`` and its skills and
    tools are not checked (``skills`` / ``tools`` ``None``: unknown)."""
    if report.release is None:
        return ()
    if release_sha256 is None or release_sha256 != report.sha256:
        return (UNKNOWN_RELEASE,)
    flags: list[str] = []
    named_skills = [*report.loaded, *([report.skill_code] if report.skill_code is not None else [])]
    if skills is not None and any(code not in skills for code in named_skills):
        flags.append(UNKNOWN_SKILL)
    named_tools = [*report.masked, *([report.tool] if report.tool is not None else [])]
    if tools is not None and any(name not in tools for name in named_tools):
        flags.append(UNKNOWN_TOOL)
    return tuple(flags)


def tools_chars_bucket(chars: int) -> int:
    """The lower bound of the rollup bucket of a ``tools_chars`` value: the value with all but its
    two leading digits set to zero (4014 → 4000, 4820 → 4800, 987 → 980, 42 → 42). The bounds are
    fixed (``tools_chars_bucket_upper``) and each bucket is at most 10 % wide, so a percentile read
    from the counts (``tools_chars_percentiles``: the bucket's upper bound) is at most 10 % above
    the true value."""
    if chars < 100:
        return chars
    step = 10 ** (int(math.log10(chars)) - 1)
    while chars // step >= 100:  # log10 of a power of ten may round below it
        step *= 10
    return chars // step * step


def tools_chars_bucket_upper(bucket: int) -> int:
    """The largest ``tools_chars`` value in the bucket whose lower bound is ``bucket``
    (``tools_chars_bucket``): 0–99 are buckets of one value each, then each power of ten is cut in
    90 steps of a tenth of it — 100–109 … 990–999, 1,000–1,099 … 9,900–9,999, 10,000–10,999 and so
    on (4000 → 4099, 980 → 989, 42 → 42)."""
    if bucket < 100:
        return bucket
    step = 10 ** (len(str(bucket)) - 2)
    return bucket + step - 1


#: The percentiles the insight pages show of ``tools_chars``.
PERCENTILES = (50, 90, 95, 99)


def tools_chars_percentiles(buckets: Mapping[int, int], percents: Iterable[int] = PERCENTILES) -> dict[int, int] | None:
    """Percentiles of ``tools_chars`` read from bucket counts (lower bound → rounds, the ``tools_chars``
    rollups of any days and releases summed): percent → the **upper bound** of the bucket holding the
    nearest-rank value (the smallest value with at least ``percent`` % of the rounds at or below it),
    so the true percentile is at most the number given and at least the bucket's lower bound (within
    10 % below). Key 100 is the largest bucket's upper bound (the maximum). ``None`` when no round
    counted a ``tools_chars``."""
    ordered = sorted((bucket, n) for bucket, n in buckets.items() if n > 0)
    total = sum(n for _, n in ordered)
    if total == 0:
        return None
    out: dict[int, int] = {}
    for percent in [*percents, 100]:
        rank = max(1, -(-percent * total // 100))  # ceil(percent × total / 100), integers only
        seen = 0
        for bucket, n in ordered:
            seen += n
            if seen >= rank:
                out[percent] = tools_chars_bucket_upper(bucket)
                break
    return out


def masked_call_key(tool: str, skill_code: str | None) -> str:
    """The ``masked_call`` rollup key of a call to ``tool`` refused as masked: ``tool:skill_code``
    (the manual to load; empty when the runtime named none)."""
    return f"{tool}:{skill_code or ''}"


def masked_call_parts(key: str) -> tuple[str, str]:
    """``(tool, skill_code)`` of a ``masked_call`` key (``masked_call_key``), cut at its last ``:``:
    a console's skill codes hold no ``:``, a tool name may."""
    tool, _, skill_code = key.rpartition(":")
    return tool, skill_code


def conversation_firsts(reports: Iterable[Report], *, tz: tzinfo = UTC) -> dict[tuple[int, str], date]:
    """``(release, conversation) → day`` of the rounds of ``reports``: the earliest day (``at`` in
    ``tz``) each conversation has a round on under that release (0 = the draft). The console counts a
    conversation under ``conversations`` on this day when it had not seen that key, release and
    conversation before."""
    firsts: dict[tuple[int, str], date] = {}
    for report in reports:
        if report.kind != ROUND or report.conversation is None:
            continue
        key, day = (report.release or 0, report.conversation), report.day(tz)
        if key not in firsts or day < firsts[key]:
            firsts[key] = day
    return firsts


RollupKey = tuple[date, int, str, str]


def rollup_counts(reports: Iterable[tuple[Report, tuple[str, ...]]], *, tz: tzinfo = UTC) -> Counter[RollupKey]:
    """The counters ``(day, release, dimension, key) → n`` that ``reports`` (each with its
    ``report_flags``) add to the rollups, for the dimensions of ``DIMENSIONS``; the day is the
    date of ``at`` in ``tz``. Release 0 stands for none (the draft; a heartbeat holding nothing)."""
    counts: Counter[RollupKey] = Counter()
    for report, flags in reports:
        day, release = report.day(tz), report.release or 0

        def add(dimension: str, key: str = "", n: int = 1) -> None:
            counts[(day, release, dimension, key)] += n  # noqa: B023 (called at once, in this iteration)

        if report.kind == SAMPLE:
            continue  # samples are stored apart and never counted
        if report.kind == ROUND:
            add("rounds")
            if OUTDATED_WARNING in report.warnings:
                add("outdated")
            for code in report.loaded:
                add("loaded", code)
            for code in report.warnings:
                add("warning", code)
            if report.withheld:
                add("withheld", n=report.withheld)
            if report.tools_chars is not None:
                add("tools_chars", str(tools_chars_bucket(report.tools_chars)))
        elif report.kind == CALL:
            add("calls", report.verdict or "")
            if report.verdict == REFUSED:
                add("refused", report.reason or "")
                if report.reason == REASON_MASKED:
                    add("masked_call", masked_call_key(report.tool or "", report.skill_code))
            elif report.verdict == CONFIRM:
                add("confirm", report.tool or "")
            elif report.tool == LOAD_SKILL and report.skill_code is not None:
                add("load", report.skill_code)
        else:
            add("heartbeats")
            if report.dropped:
                add("dropped", n=report.dropped)
        for flag in flags:
            add("flag", flag)
    return counts
