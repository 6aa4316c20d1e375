"""Writes of runtime reports (docs/runtime-api.md "POST runtime/reports", docs/design.md "Reports").

``reports_ingest`` stores one validated batch (``skill_rule.reports.parse_reports``) in one
transaction: the raw rows in bulk, the per-day rollups and the heartbeats' instances, so a batch is
stored whole or not at all; ``sample`` records go to ``ReportSample`` (never to the rollups).
``reports_purge`` deletes raw rows and samples past the retention period.

Conversations count once. ``conversations`` is the one rollup an ingest cannot count from its own
records: a conversation's rounds come in many batches. ``ReportConversation`` holds one row per
(key, release, conversation) seen; the rows an ingest inserts (its ``batch`` again) are the new
conversations, each adding 1 on the day of its first round (``skill_rule.reports.conversation_firsts``).
Exact, and small beside the raw rows (one row per conversation, not one per record); purged with
them once silent for the retention period.

Counting once. Raw rows are unique per (runtime key, record id); the insert skips a row already
stored (``bulk_create(ignore_conflicts=True)``: ``INSERT … ON CONFLICT DO NOTHING`` on SQLite and
PostgreSQL). Every row carries the UUID of the ingest that inserted it (``batch``), so after the
insert the rows of this batch holding that UUID are exactly the new ones — one indexed query,
whatever happened concurrently: on PostgreSQL a second transaction inserting the same ids waits on
the unique index for the first and then inserts nothing; SQLite takes the write lock at BEGIN.
Only the new records add to the rollups and move the instances.

Rollups and instances are upserted with ``INSERT … ON CONFLICT (…) DO UPDATE`` — the same SQL on
both databases (SQLite ≥ 3.24) — so a counter adds in the database (``count = count + n``) and two
ingests never lose each other's counts; rows are sent in key order so two ingests lock them in the
same order.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from itertools import islice
from typing import Any

from django.conf import settings
from django.db import connections, models, router, transaction
from django.utils import timezone

from skill_rule.reports import (
    HEARTBEAT,
    ROUND,
    SAMPLE,
    Report,
    RollupKey,
    conversation_firsts,
    report_flags,
    rollup_counts,
)
from skills_app.models import Release, ReportConversation, ReportRollup, ReportSample, RuntimeInstance, RuntimeReport
from skills_app.runtime import cache as runtime_cache

#: Parameters in one upsert statement: under SQLite's oldest limit (999) on every build.
_MAX_PARAMS = 999


def retention_days() -> int:
    """Days raw reports are kept: ``SKILL_CONSOLE_REPORTS_RETENTION_DAYS`` (default 30)."""
    return int(settings.SKILL_CONSOLE_REPORTS_RETENTION_DAYS)


@dataclass(frozen=True)
class Marked:
    """A record of the batch that names something the console does not know (``index`` 0-based)."""

    index: int
    id: str
    flags: tuple[str, ...]


@dataclass(frozen=True)
class Ingested:
    """What ``reports_ingest`` did: ``received`` records, ``stored`` of them new (the others were
    stored by an earlier send of the same ids), and the ``marked`` records of the batch."""

    received: int
    stored: int
    marked: tuple[Marked, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        return {
            "received": self.received,
            "stored": self.stored,
            "duplicates": self.received - self.stored,
            "marked": [{"index": m.index, "id": m.id, "flags": list(m.flags)} for m in self.marked],
        }


def _known_releases(reports: Sequence[Report]) -> dict[int, tuple[str, frozenset[str], frozenset[str]]]:
    """Release number → (its sha256, its skill codes, its tool names) for each release the
    reports name that exists. The names come from the release's ``Catalog`` this process holds
    for the runtime API (``runtime.cache``: loaded once per release and process)."""
    numbers = {r.release for r in reports if r.release is not None}
    if not numbers:
        return {}
    known: dict[int, tuple[str, frozenset[str], frozenset[str]]] = {}
    for pk, number, sha256 in Release.objects.filter(number__in=numbers).values_list("pk", "number", "sha256"):
        catalog = runtime_cache.entry(runtime_cache.Pointer(pk, number, sha256)).catalog
        skills, tools = catalog.derived(
            "reports:names",
            lambda c=catalog: (frozenset(s.code for s in c.skills), frozenset(t.name for t in c.tools)),
        )
        known[number] = (sha256, skills, tools)
    return known


def _flags(report: Report, known: dict[int, tuple[str, frozenset[str], frozenset[str]]]) -> tuple[str, ...]:
    if report.release is None:
        return ()
    sha256, skills, tools = known.get(report.release, (None, None, None))
    return report_flags(report, release_sha256=sha256, skills=skills, tools=tools)


def _row(report: Report, *, key_prefix: str, batch: uuid.UUID, received_at: datetime, flags: tuple[str, ...]):
    return RuntimeReport(
        key_prefix=key_prefix,
        record_id=report.id,
        batch=batch,
        kind=report.kind,
        at=report.at,
        received_at=received_at,
        instance=report.instance,
        release=report.release,
        release_sha256=report.sha256 or "",
        label=report.label or "",
        conversation=report.conversation or "",
        round=report.round,
        loaded=list(report.loaded),
        masked=list(report.masked),
        withheld=report.withheld,
        tools_chars=report.tools_chars,
        warnings=list(report.warnings),
        tool=report.tool or "",
        verdict=report.verdict or "",
        reason=report.reason or "",
        skill_code=report.skill_code or "",
        client_version=report.client_version or "",
        stale=report.stale,
        refresh=report.refresh or "",
        flags=list(flags),
    )


def _sample_row(report: Report, *, key_prefix: str, batch: uuid.UUID, received_at: datetime, flags: tuple[str, ...]):
    return ReportSample(
        key_prefix=key_prefix,
        record_id=report.id,
        batch=batch,
        at=report.at,
        received_at=received_at,
        instance=report.instance,
        release=report.release,
        release_sha256=report.sha256 or "",
        label=report.label or "",
        conversation=report.conversation or "",
        round=report.round,
        redaction=report.redaction or "",
        messages=list(report.messages or ()),
        flags=list(flags),
    )


def _chunks(rows: Sequence[Any], size: int) -> Iterator[list[Any]]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


def _upsert(
    model: type[models.Model],
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    unique: Sequence[str],
    update: Callable[[Callable[[str], str], Callable[[str], str]], str],
) -> None:
    """``INSERT INTO <model> (columns) VALUES rows ON CONFLICT (unique) DO UPDATE SET <update>`` in
    statements of at most ``_MAX_PARAMS`` parameters. ``update(quote, column)`` writes the SET
    clause: ``quote(name)`` is a field's quoted column, ``column(name)`` the same qualified by the
    table (the stored value; ``excluded.`` + ``quote(name)`` is the value the insert brought).
    Values are prepared by the model's fields, as the ORM would; every name comes from the model."""
    connection = connections[router.db_for_write(model)]
    quote = connection.ops.quote_name
    opts = model._meta
    fields = [opts.get_field(name) for name in columns]
    table = quote(opts.db_table)
    head = f"INSERT INTO {table} ({', '.join(quote(f.column) for f in fields)}) VALUES "
    conflict = ", ".join(quote(opts.get_field(name).column) for name in unique)

    def column(name: str) -> str:
        return quote(opts.get_field(name).column)

    tail = f" ON CONFLICT ({conflict}) DO UPDATE SET " + update(column, lambda name: f"{table}.{column(name)}")
    one = "(" + ", ".join(["%s"] * len(fields)) + ")"
    with connection.cursor() as cursor:
        for chunk in _chunks(rows, max(1, _MAX_PARAMS // len(fields))):
            params = [f.get_db_prep_save(value, connection) for row in chunk for f, value in zip(fields, row)]
            cursor.execute(head + ", ".join([one] * len(chunk)) + tail, params)


def _new_conversations(key_prefix: str, reports: Sequence[Report], batch: uuid.UUID) -> Counter[RollupKey]:
    """Upsert one ``ReportConversation`` per (release, conversation) of the new rounds
    (``conversation_firsts``) and return the ``conversations`` counters of those the console had
    not seen under this key: 1 on the day each was first seen. A row already there keeps its
    ``first_day`` and ``batch`` and only moves ``last_day`` forward, so the rows holding this
    ingest's ``batch`` are exactly the new conversations (one query, as for the raw rows)."""
    firsts = conversation_firsts(reports, tz=timezone.get_default_timezone())
    if not firsts:
        return Counter()
    lasts: dict[tuple[int, str], date] = {}
    for report in reports:
        if report.kind == ROUND and report.conversation is not None:
            key, day = (report.release or 0, report.conversation), report.day(timezone.get_default_timezone())
            lasts[key] = max(day, lasts.get(key, day))
    rows = [
        (key_prefix, release, conversation, first, lasts[(release, conversation)], batch)
        for (release, conversation), first in sorted(firsts.items())
    ]

    def update(q: Callable[[str], str], stored: Callable[[str], str]) -> str:
        later = f"excluded.{q('last_day')}"
        return f"{q('last_day')} = CASE WHEN {later} > {stored('last_day')} THEN {later} ELSE {stored('last_day')} END"

    _upsert(
        ReportConversation,
        ("key_prefix", "release", "conversation", "first_day", "last_day", "batch"),
        rows,
        unique=("key_prefix", "release", "conversation"),
        update=update,
    )
    new = ReportConversation.objects.filter(
        key_prefix=key_prefix, conversation__in={c for _, c in firsts}, batch=batch
    ).values_list("release", "first_day")
    return Counter((first_day, release, "conversations", "") for release, first_day in new)


def _add_rollups(reports: Sequence[tuple[Report, tuple[str, ...]]], conversations: Counter[RollupKey]) -> None:
    """Add the reports' counters and the new ``conversations`` to the rollups; days are dates in
    the console's time zone (``TIME_ZONE``), the days its staff read."""
    counts = rollup_counts(reports, tz=timezone.get_default_timezone()) + conversations
    rows = [(*key, n) for key, n in sorted(counts.items()) if n]
    if rows:
        _upsert(
            ReportRollup,
            ("day", "release", "dimension", "key", "count"),
            rows,
            unique=("day", "release", "dimension", "key"),
            update=lambda q, stored: f"{q('count')} = {stored('count')} + excluded.{q('count')}",
        )


def _see_instances(key_prefix: str, heartbeats: Sequence[Report]) -> None:
    """Upsert one ``RuntimeInstance`` per instance from its latest heartbeat among ``heartbeats``;
    a heartbeat older than the row's ``last_seen`` changes nothing (a late retry)."""
    latest: dict[str, Report] = {}
    for report in heartbeats:
        held = latest.get(report.instance)
        if held is None or report.at >= held.at:
            latest[report.instance] = report
    rows = [
        (
            key_prefix,
            r.instance,
            r.at,
            r.at,
            r.release,
            r.sha256 or "",
            r.label or "",
            r.client_version or "",
            bool(r.stale),
            r.refresh or "",
        )
        for _, r in sorted(latest.items())
    ]
    if not rows:
        return
    columns = (
        "key_prefix",
        "instance",
        "first_seen",
        "last_seen",
        "release",
        "release_sha256",
        "label",
        "client_version",
        "stale",
        "refresh",
    )

    def update(q: Callable[[str], str], stored: Callable[[str], str]) -> str:
        moved = ", ".join(f"{q(name)} = excluded.{q(name)}" for name in columns[3:])  # not first_seen
        return f"{moved} WHERE excluded.{q('last_seen')} >= {stored('last_seen')}"

    _upsert(RuntimeInstance, columns, rows, unique=("key_prefix", "instance"), update=update)


@transaction.atomic
def reports_ingest(*, key_prefix: str, reports: Sequence[Report], received_at: datetime | None = None) -> Ingested:
    """Store a batch of valid reports sent with the runtime key whose prefix is ``key_prefix``
    (see the module): the new records as raw rows, their counts in the per-day rollups, their
    heartbeats in the instances; records already stored under that key are skipped and counted
    nowhere. Marks what a record names that the console does not know (``report_flags``), never
    refuses it. One transaction; a fixed number of queries per batch (plus one per release named
    that this process has not loaded yet)."""
    received_at = received_at or timezone.now()
    known = _known_releases(reports)
    flagged = [(report, _flags(report, known)) for report in reports]
    batch = uuid.uuid4()
    ordered = sorted(flagged, key=lambda pair: pair[0].id)  # one lock order for every ingest
    rows = [
        _row(report, key_prefix=key_prefix, batch=batch, received_at=received_at, flags=flags)
        for report, flags in ordered
        if report.kind != SAMPLE
    ]
    samples = [
        _sample_row(report, key_prefix=key_prefix, batch=batch, received_at=received_at, flags=flags)
        for report, flags in ordered
        if report.kind == SAMPLE
    ]
    new: set[str] = set()
    if rows:
        RuntimeReport.objects.bulk_create(rows, ignore_conflicts=True)
        new |= set(
            RuntimeReport.objects.filter(
                key_prefix=key_prefix, record_id__in=[r.record_id for r in rows], batch=batch
            ).values_list("record_id", flat=True)
        )
    if samples:  # stored apart, never counted: a sample adds nothing to the rollups
        ReportSample.objects.bulk_create(samples, ignore_conflicts=True)
        new |= set(
            ReportSample.objects.filter(
                key_prefix=key_prefix, record_id__in=[r.record_id for r in samples], batch=batch
            ).values_list("record_id", flat=True)
        )
    stored = [(report, flags) for report, flags in flagged if report.id in new]
    _add_rollups(stored, _new_conversations(key_prefix, [report for report, _ in stored], batch))
    _see_instances(key_prefix, [report for report, _ in stored if report.kind == HEARTBEAT])
    marked = tuple(Marked(index, report.id, flags) for index, (report, flags) in enumerate(flagged) if flags)
    return Ingested(received=len(reports), stored=len(stored), marked=marked)


def reports_purge(
    *, days: int | None = None, now: datetime | None = None, dry_run: bool = False
) -> tuple[int, datetime]:
    """Delete the raw report rows whose ``at`` is older than ``days`` (default: the retention
    setting) before ``now``; returns (rows deleted — or that would be, with ``dry_run`` —, the
    cutoff). One day of rows per transaction, oldest first, so a long backlog never holds one huge
    transaction (an interrupted purge leaves whole days and is finished by the next run). Then the
    ``ReportConversation`` rows last seen before the cutoff's day (in the console's time zone) go
    too, in one statement (not counted in the number returned); the samples older than the cutoff
    go with the raw rows (counted). The rollups and the instances are
    kept."""
    days = retention_days() if days is None else days
    if days < 1:
        raise ValueError(f"the retention period must be 1 or more days, got {days}")
    cutoff = (now or timezone.now()) - timedelta(days=days)
    old = RuntimeReport.objects.filter(at__lt=cutoff)
    old_samples = ReportSample.objects.filter(at__lt=cutoff)
    if dry_run:
        return old.count() + old_samples.count(), cutoff
    deleted = 0
    while True:
        oldest = old.order_by("at").values_list("at", flat=True).first()
        if oldest is None:
            with transaction.atomic():
                n, _ = old_samples.delete()  # samples: the same retention, after the raw rows
            deleted += n
            last_day = timezone.localtime(cutoff, timezone.get_default_timezone()).date()
            ReportConversation.objects.filter(last_day__lt=last_day).delete()
            return deleted, cutoff
        until = min(oldest + timedelta(days=1), cutoff)
        with transaction.atomic():
            n, _ = RuntimeReport.objects.filter(at__lt=until).delete()
        deleted += n
