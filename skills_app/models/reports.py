"""Records of runtime reports (docs/runtime-api.md "POST runtime/reports", docs/design.md "Reports").

Five tables:

- ``RuntimeReport`` — one raw record as a runtime sent it (``skill_rule.reports.Report``), kept
  for the retention period (``manage.py purge_reports``), stored once per key and record id;
- ``ReportRollup`` — per-day counters ``(day, release, dimension, key) → count``, kept up to date
  by every ingest in the same transaction and never purged: the insight pages read these, never
  the raw rows;
- ``ReportConversation`` — one row per (key, release, conversation) seen in a round, so a
  conversation adds to the ``conversations`` rollup once, on the day it was first seen; purged with
  the raw rows once it has been silent for the retention period;
- ``ReportSample`` — one ``sample`` record (a sampled round's retained messages, redacted by the
  client: docs/runtime-api.md "Samples"), stored once per key and record id like the raw rows,
  purged with them, never counted in the rollups;
- ``RuntimeInstance`` — one row per runtime instance (per key), upserted by its heartbeats: the
  release and label it holds, its client version, stale flag and last refresh, when it was last seen.

Field limits come from ``skill_rule.limits`` (named once). Written only by
``skills_app.reports.services`` (bulk inserts and upserts); no signal listens to them.
"""

from __future__ import annotations

from django.db import models

from skill_rule.limits import (
    REPORT_CODE_MAX_CHARS,
    REPORT_ID_MAX_CHARS,
    REPORT_NAME_MAX_CHARS,
    REPORT_VERSION_MAX_CHARS,
    SKILL_CODE_MAX_LENGTH,
)

#: ``RuntimeKey.prefix``: the key a report came with (the library's prefix is 8 characters).
KEY_PREFIX_MAX_LENGTH = 8
#: A rollup key: a tool name, ``:`` and a skill code at most (``masked_call``).
ROLLUP_KEY_MAX_LENGTH = 2 * REPORT_NAME_MAX_CHARS + 1


class RuntimeReport(models.Model):  # noqa: DJ008 — never shown one by one; the pages read the rollups
    """One raw report record (``skill_rule.reports``; fields a kind does not have stay null/empty).

    ``key_prefix`` names the runtime key that sent it; (``key_prefix``, ``record_id``) is unique,
    so a batch sent again is stored once. ``batch`` is the ingest that stored the row (a UUID per
    request): after the insert, the rows carrying it are exactly the new ones, which alone count
    in the rollups. ``flags`` lists what it names that the console does not know
    (``unknown_release``, ``unknown_skill``, ``unknown_tool``); an empty list is the common case."""

    key_prefix = models.CharField(max_length=KEY_PREFIX_MAX_LENGTH)
    record_id = models.CharField(max_length=REPORT_ID_MAX_CHARS)
    batch = models.UUIDField()
    kind = models.CharField(max_length=10)
    at = models.DateTimeField(db_index=True)
    received_at = models.DateTimeField()
    instance = models.CharField(max_length=REPORT_ID_MAX_CHARS)
    release = models.PositiveIntegerField(null=True, blank=True)
    release_sha256 = models.CharField(max_length=64, blank=True)
    label = models.CharField(max_length=SKILL_CODE_MAX_LENGTH, blank=True)
    conversation = models.CharField(max_length=REPORT_ID_MAX_CHARS, blank=True)
    round = models.PositiveIntegerField(null=True, blank=True)
    loaded = models.JSONField(default=list, blank=True)
    masked = models.JSONField(default=list, blank=True)
    withheld = models.PositiveIntegerField(null=True, blank=True)
    tools_chars = models.PositiveIntegerField(null=True, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    tool = models.CharField(max_length=REPORT_NAME_MAX_CHARS, blank=True)
    verdict = models.CharField(max_length=10, blank=True)
    reason = models.CharField(max_length=REPORT_CODE_MAX_CHARS, blank=True)
    skill_code = models.CharField(max_length=REPORT_NAME_MAX_CHARS, blank=True)
    client_version = models.CharField(max_length=REPORT_VERSION_MAX_CHARS, blank=True)
    stale = models.BooleanField(null=True, blank=True)
    refresh = models.CharField(max_length=16, blank=True)
    flags = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key_prefix", "record_id"], name="runtime_report_once")]


class ReportRollup(models.Model):  # noqa: DJ008 — read as numbers by the selectors
    """A per-day counter: ``count`` of ``dimension`` (``skill_rule.reports.DIMENSIONS``) under
    ``key`` on ``day`` (a date in the console's ``TIME_ZONE``) for ``release`` (0 = none or the draft)."""

    day = models.DateField()
    release = models.PositiveIntegerField()
    dimension = models.CharField(max_length=16)
    key = models.CharField(max_length=ROLLUP_KEY_MAX_LENGTH, blank=True)
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["day", "release", "dimension", "key"], name="report_rollup_once")
        ]
        indexes = [models.Index(fields=["dimension", "key", "day"], name="report_rollup_by_key")]


class ReportConversation(models.Model):  # noqa: DJ008 — only counted, never shown
    """A conversation the console has seen rounds of, per runtime key and release (0 = the draft).

    Exists so that ``conversations`` counts each conversation once (``skill_rule.reports.conversation_firsts``):
    an ingest upserts one row per (key, release, conversation) of its new rounds; a row it inserted
    (``batch`` = that ingest's UUID) adds 1 to ``conversations`` on ``first_day``; a row already
    there only moves ``last_day`` (the latest day of a round). ``manage.py purge_reports`` deletes
    the rows whose ``last_day`` is past the retention period: a conversation silent that long that
    speaks again counts once more. Days are dates in the console's ``TIME_ZONE``."""

    key_prefix = models.CharField(max_length=KEY_PREFIX_MAX_LENGTH)
    release = models.PositiveIntegerField()
    conversation = models.CharField(max_length=REPORT_ID_MAX_CHARS)
    first_day = models.DateField()
    last_day = models.DateField(db_index=True)
    batch = models.UUIDField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["key_prefix", "release", "conversation"], name="report_conversation_once")
        ]


class RuntimeInstance(models.Model):  # noqa: DJ008 — the fleet page lists them by their fields
    """A runtime instance as its latest heartbeat described it (one row per key and instance id).

    ``release`` / ``release_sha256`` are what it holds (null / empty: nothing yet), ``label`` the
    label it pins (empty: the default), ``refresh`` its last refresh's outcome (empty: none yet).
    ``first_seen`` is the time (``at``) of the heartbeat that made the row, ``last_seen`` that of
    the latest one; a heartbeat older than ``last_seen`` arriving late changes nothing."""

    key_prefix = models.CharField(max_length=KEY_PREFIX_MAX_LENGTH)
    instance = models.CharField(max_length=REPORT_ID_MAX_CHARS)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()
    release = models.PositiveIntegerField(null=True, blank=True)
    release_sha256 = models.CharField(max_length=64, blank=True)
    label = models.CharField(max_length=SKILL_CODE_MAX_LENGTH, blank=True)
    client_version = models.CharField(max_length=REPORT_VERSION_MAX_CHARS, blank=True)
    stale = models.BooleanField(default=False)
    refresh = models.CharField(max_length=16, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key_prefix", "instance"], name="runtime_instance_once")]


class ReportSample(models.Model):  # noqa: DJ008 — read back for replay, never listed one by one
    """A sampled round's retained messages (``skill_rule.reports``, kind ``sample``): ``messages``
    as ``skill_rule.redaction.redact_messages`` gives them under ``redaction`` (``redacted`` or
    ``arguments``), checked on ingest (redacting them again changes nothing). (``key_prefix``,
    ``record_id``) is unique, as for ``RuntimeReport``; ``flags`` as there."""

    key_prefix = models.CharField(max_length=KEY_PREFIX_MAX_LENGTH)
    record_id = models.CharField(max_length=REPORT_ID_MAX_CHARS)
    batch = models.UUIDField()
    at = models.DateTimeField(db_index=True)
    received_at = models.DateTimeField()
    instance = models.CharField(max_length=REPORT_ID_MAX_CHARS)
    release = models.PositiveIntegerField(null=True, blank=True)
    release_sha256 = models.CharField(max_length=64)
    label = models.CharField(max_length=SKILL_CODE_MAX_LENGTH, blank=True)
    conversation = models.CharField(max_length=REPORT_ID_MAX_CHARS)
    round = models.PositiveIntegerField()
    redaction = models.CharField(max_length=16)
    messages = models.JSONField(default=list)
    flags = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key_prefix", "record_id"], name="report_sample_once")]
