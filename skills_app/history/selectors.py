"""Reads of the history django-simple-history keeps (docs/roles.md "History and audit").

Every change to a skill, intent node, MCP tool, scenario, access profile or stage is a
historical record (who, when, what: the whole row after the change; ``-`` records the row as it
was deleted). This module reads them: a skill's revisions, the diff of two revisions, and the
audit log across every audited model, filtered and paginated in the database (one ``UNION``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import CharField, F, QuerySet, Value
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from skill_rule.history import SKILL_HISTORY_FIELDS, revision_diff
from skill_rule.releases import FieldChange
from skills_app.models import AccessProfile, IntentNode, McpTool, Scenario, Skill, Stage

#: Audited record types: key → (model, the field that names a record, label shown).
AUDITED: dict[str, tuple[type, str, Any]] = {
    "skill": (Skill, "skill_code", _("skill")),
    "intentnode": (IntentNode, "intent_code", _("intent node")),
    "mcptool": (McpTool, "name", _("MCP tool")),
    "scenario": (Scenario, "name", _("scenario")),
    "accessprofile": (AccessProfile, "name", _("access profile")),
    "stage": (Stage, "name", _("stage")),
}
#: Row fields never shown as a change (bookkeeping that moves on every save).
IGNORED_FIELDS = frozenset({"id", "updated_at", "updated_by"})
#: Fields of one model that repeat another of its fields: an MCP tool's ``mcp_server`` (the
#: record, an id) is the ``server`` it names — shown once, by name.
REPEATED_FIELDS: dict[type, frozenset[str]] = {McpTool: frozenset({"mcp_server"})}
AUDIT_PAGE_SIZE = 50

#: What a write did (docs/roles.md "History and audit"): django-simple-history's ``+`` / ``~`` /
#: ``-``, except that a change setting ``deleted_at`` is the soft delete it is, and one clearing
#: it a restore.
CREATED, CHANGED, DELETED, RESTORED = "created", "changed", "deleted", "restored"
#: Fields whose change *is* the delete or restore: not listed again as a change of it.
DELETION_FIELDS = frozenset({"deleted_at"})


def revision_action(record: Any, previous: Any) -> str:
    """``CREATED``, ``CHANGED``, ``DELETED`` or ``RESTORED`` for a historical ``record`` given the
    record's revision before it (``None`` for the first): a ``~`` revision that sets ``deleted_at``
    (a soft delete: Skill, IntentNode) is ``DELETED``, one that clears it ``RESTORED``."""
    if record.history_type == "+":
        return CREATED
    if record.history_type == "-":
        return DELETED
    before = getattr(previous, "deleted_at", None) if previous is not None else None
    after = getattr(record, "deleted_at", None)
    if before is None and after is not None:
        return DELETED
    if before is not None and after is None:
        return RESTORED
    return CHANGED


def skill_revisions(skill: Skill) -> list[Any]:
    """Every revision of ``skill`` (its historical records), newest first, with the user (one query)."""
    return list(
        Skill.history.filter(id=skill.pk).select_related("history_user").order_by("-history_date", "-history_id")
    )


def revision_values(record: Any, fields: Iterable[str] = SKILL_HISTORY_FIELDS) -> dict[str, Any]:
    """Field → value of one historical record."""
    return {f: getattr(record, f) for f in fields}


def skill_revision_diff(before: Any, after: Any) -> tuple[FieldChange, ...]:
    """The field-by-field diff of two revisions of a skill (the manual as a line diff)."""
    return revision_diff(revision_values(before), revision_values(after), SKILL_HISTORY_FIELDS)


def tracked_fields(model: type) -> list[str]:
    """The fields of ``model`` an audit entry compares (every concrete field but bookkeeping and
    ``REPEATED_FIELDS``)."""
    skip = IGNORED_FIELDS | REPEATED_FIELDS.get(model, frozenset())
    return [f.attname for f in model._meta.concrete_fields if f.name not in skip]


def _related_labels(model: type, changes: Iterable[FieldChange]) -> dict[tuple[str, Any], str]:
    """``(attname, id)`` → the name of the record a foreign key of ``model`` points at (an
    intent node's parent by its code), for the ids in ``changes``: one query per foreign key."""
    out: dict[tuple[str, Any], str] = {}
    changes = list(changes)
    for f in model._meta.concrete_fields:
        if not f.is_relation:
            continue
        ids = {v for c in changes if c.field == f.attname for v in (c.before, c.after) if v is not None}
        if not ids:
            continue
        related = f.related_model
        label_field = next((lf for m, lf, _l in AUDITED.values() if m is related), None)
        for obj in related._default_manager.filter(pk__in=ids):
            out[(f.attname, obj.pk)] = getattr(obj, label_field) if label_field else str(obj)
    return out


# --- audit ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditFilter:
    """What the audit page asks for: ``user`` (a user id), ``kind`` (a key of ``AUDITED``),
    ``record`` (the code or name of one record, exact), ``since`` / ``until`` (dates, inclusive,
    in the console's time zone). Empty values filter nothing."""

    user: int | None = None
    kind: str = ""
    record: str = ""
    since: dt.date | None = None
    until: dt.date | None = None


def _day_start(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def audit_queryset(flt: AuditFilter) -> QuerySet:
    """Every historical record of the audited models matching ``flt``, newest first, as dicts
    (``history_id``, ``history_date``, ``history_type``, ``history_user_id``,
    ``history_change_reason``, ``id``, ``record_kind``, ``record_label``): one ``UNION ALL`` query, so the
    paginator counts and slices in the database."""
    parts = []
    for kind, (model, label_field, _label) in AUDITED.items():
        if flt.kind and flt.kind != kind:
            continue
        qs = model.history.all()
        if flt.user:
            qs = qs.filter(history_user_id=flt.user)
        if flt.record:
            qs = qs.filter(**{label_field: flt.record})
        if flt.since:
            qs = qs.filter(history_date__gte=_day_start(flt.since))
        if flt.until:
            qs = qs.filter(history_date__lt=_day_start(flt.until + dt.timedelta(days=1)))
        parts.append(
            qs.annotate(record_kind=Value(kind, output_field=CharField()), record_label=F(label_field))
            .values(
                "history_id",
                "history_date",
                "history_type",
                "history_user_id",
                "history_change_reason",
                "id",
                "record_kind",
                "record_label",
            )
            .order_by()
        )
    if not parts:
        return Skill.history.none().values("history_id")
    first, *rest = parts
    combined = first.union(*rest, all=True) if rest else first
    return combined.order_by("-history_date", "-history_id")


@dataclass(frozen=True)
class AuditEntry:
    """One write, laid out for the audit page: the record (``kind``, ``label``, ``object_id``),
    who (``user``: a user or ``None`` for a command-line write), when,
    ``action`` (``revision_action``: created, changed, deleted — a soft delete too — or restored),
    ``reason`` and ``changes`` against the record's previous revision (empty for a creation; a
    foreign key as the name of the record it points at; ``deleted_at`` never, being the action)."""

    history_id: int
    kind: str
    label: str
    object_id: int
    when: dt.datetime
    action: str
    user: Any
    reason: str
    changes: tuple[FieldChange, ...]


def audit_entries(rows: list[dict]) -> list[AuditEntry]:
    """The page's ``rows`` (from ``audit_queryset``) with who and what changed: per record type
    one query for every revision of the records on the page, one for the users."""
    from django.contrib.auth import get_user_model

    users = {u.pk: u for u in get_user_model().objects.filter(pk__in={r["history_user_id"] for r in rows} - {None})}
    previous: dict[tuple[str, int], Any] = {}
    records: dict[tuple[str, int], Any] = {}
    for kind in {r["record_kind"] for r in rows}:
        model = AUDITED[kind][0]
        ids = {r["id"] for r in rows if r["record_kind"] == kind}
        wanted = {r["history_id"] for r in rows if r["record_kind"] == kind}
        last: dict[int, Any] = {}
        for rec in model.history.filter(id__in=ids).order_by("history_id"):
            if rec.history_id in wanted:
                records[(kind, rec.history_id)] = rec
                previous[(kind, rec.history_id)] = last.get(rec.id)
            last[rec.id] = rec
    out = []
    for r in rows:
        kind = r["record_kind"]
        rec, prev = records.get((kind, r["history_id"])), previous.get((kind, r["history_id"]))
        changes: tuple[FieldChange, ...] = ()
        if rec is not None and prev is not None and r["history_type"] != "-":
            fields = [f for f in tracked_fields(AUDITED[kind][0]) if f not in DELETION_FIELDS]
            changes = revision_diff(revision_values(prev, fields), revision_values(rec, fields), fields)
        action = revision_action(rec, prev) if rec is not None else CHANGED
        out.append(
            AuditEntry(
                history_id=r["history_id"],
                kind=kind,
                label=r["record_label"],
                object_id=r["id"],
                when=r["history_date"],
                action=action,
                user=users.get(r["history_user_id"]),
                reason=r["history_change_reason"] or "",
                changes=changes,
            )
        )
    return _with_related_labels(out)


def _with_related_labels(entries: list[AuditEntry]) -> list[AuditEntry]:
    """``entries`` with every foreign-key value in their changes replaced by the name of the
    record it points at (``_related_labels``; an id whose record is gone stays as it is)."""
    names: dict[str, dict[tuple[str, Any], str]] = {}
    for kind in {e.kind for e in entries}:
        model = AUDITED[kind][0]
        names[kind] = _related_labels(model, (c for e in entries if e.kind == kind for c in e.changes))
    out = []
    for e in entries:
        keys = {field for field, _id in names[e.kind]}
        if any(c.field in keys for c in e.changes):
            label = names[e.kind]
            e = dataclasses.replace(
                e,
                changes=tuple(
                    FieldChange(
                        c.field, label.get((c.field, c.before), c.before), label.get((c.field, c.after), c.after)
                    )
                    if c.field in keys
                    else c
                    for c in e.changes
                ),
            )
        out.append(e)
    return out


def audit_users() -> list[Any]:
    """Users who made at least one audited write, by username."""
    from django.contrib.auth import get_user_model

    ids: set[int] = set()
    for model, _field, _label in AUDITED.values():
        ids |= set(model.history.exclude(history_user_id=None).values_list("history_user_id", flat=True).distinct())
    return list(get_user_model().objects.filter(pk__in=ids).order_by("username"))
