"""Writes of releases and labels (docs/releases.md).

Writes only ever *create* a release: ``release_publish`` (the draft, after the gate),
``release_rollback`` (a copy of an older snapshot). Numbers are assigned in ``release_create``
under a row lock on the settings row (PostgreSQL) / the database write lock (SQLite, IMMEDIATE
transactions), so two publishes at the same instant never share a number nor lose a snapshot.
Every publish, rollback, label move and key change asks ``can_publish(user)`` first.
Each write runs in one transaction (``@transaction.atomic``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max

from skill_rule.errors import Problem
from skill_rule.releases import (
    GateReason,
    blocking,
    gate,
)
from skill_rule.runtime_catalog import catalog_body_json
from skill_rule.snapshot import body_sha256, catalog_from_snapshot, catalog_to_snapshot
from skills_app.core.message_catalog import AUTO_RELEASE_NOTES
from skills_app.core.writes import field_error
from skills_app.models import (
    PUBLISH_PERMISSION,
    ConsoleSettings,
    LabelMove,
    Release,
    ReleaseLabel,
)
from skills_app.releases.selectors import can_publish, publish_review, release_get, release_latest

PRODUCTION = "production"


class CommandLine:
    """The actor of ``manage.py`` commands (``publish``, ``api_key``, ``load_demo``): whoever can
    run them already holds the database, so they pass ``can_publish``; releases record the author
    as ``manage.py``."""

    pk = None
    is_authenticated = True
    is_active = True
    is_staff = False
    is_superuser = False

    def get_username(self) -> str:
        return "manage.py"

    def has_perm(self, perm: str) -> bool:
        return perm == PUBLISH_PERMISSION


#: The one command-line actor.
COMMAND_LINE = CommandLine()


def require_publisher(user: Any) -> None:
    """Refuse (``PermissionDenied``) unless ``user`` may publish (``can_publish``, docs/roles.md):
    every publish, rollback, label move and key change calls it first."""
    if not can_publish(user):
        raise PermissionDenied("only a publisher may publish releases, move labels or manage API keys.")


def author_of(user: Any) -> tuple[Any, str]:
    """``(user row or None, name)`` recorded as a release's or key's author: a console user is
    kept as the row, the command line (``CommandLine``) by its name only, anyone else as ``(None, "")``."""
    if user is not None and getattr(user, "pk", None):
        return user, user.get_username()
    if isinstance(user, CommandLine):
        return None, user.get_username()
    return None, ""


class PublishRefused(ValidationError):
    """The publish gate refused: ``reasons`` are the ``GateReason``s still blocking (each message a
    ``Problem`` naming the item and the cause)."""

    def __init__(self, reasons: Iterable[GateReason]) -> None:
        self.reasons = tuple(reasons)
        # the code on each message: Django keeps none given beside a list (as for field_error)
        super().__init__([ValidationError(str(r.message), code="publish_refused") for r in self.reasons])


def _lock_numbering() -> None:
    """Serialise release numbering: lock the settings row (created first if missing)."""
    ConsoleSettings.load()
    list(ConsoleSettings.objects.select_for_update().filter(pk=1))  # pragma: no mutate


@transaction.atomic
def release_create(
    *,
    snapshot: dict,
    user: Any,
    note: str,
    overrides: Iterable[str] = (),
    override_note: str = "",
    rollback_of: int | None = None,
) -> Release:
    """Write a release with the next number (latest + 1) under the numbering lock, with the
    runtime catalog body it will be served as (``Release.catalog_json``). Low level: no gate and
    no permission check (``release_publish`` / ``release_rollback`` do both)."""
    _lock_numbering()
    number = (Release.objects.aggregate(n=Max("number"))["n"] or 0) + 1
    author, author_name = author_of(user)
    body = catalog_body_json(catalog_from_snapshot(snapshot, release=number))
    release = Release(
        number=number,
        snapshot=snapshot,
        sha256=body_sha256(snapshot),
        catalog_json=body,
        author=author,
        author_name=author_name,
        note=note.strip(),
        overrides=sorted(set(overrides)),
        override_note=override_note.strip(),
        rollback_of=rollback_of,
    )
    release.full_clean()
    release.save()
    return release


def _label_set(*, name: str, release: Release, user: Any) -> ReleaseLabel:
    label = ReleaseLabel.objects.select_for_update().filter(name=name).first()
    from_release = label.release if label else None
    if label is None:
        label = ReleaseLabel(name=name)  # its release is set just below
    elif label.release_id == release.pk:
        return label
    label.release = release
    label.full_clean(validate_unique=False)  # pragma: no mutate
    label.save()
    who, who_name = author_of(user)
    LabelMove.objects.create(
        label=name, from_release=from_release, to_release=release, moved_by=who, moved_by_name=who_name
    )
    return label


@transaction.atomic
def release_publish(
    *, user: Any, note: str, overrides: Iterable[str] = (), override_note: str = "", move_labels: Iterable[str] = ()
) -> Release:
    """Publish the draft as a new release (docs/releases.md).

    ``overrides`` are the keys of overridable gate reasons (unmet scenario expectations) the
    publisher ticks off; they need ``override_note`` (why). ``move_labels`` names labels moved to
    the new release. Raises ``PermissionDenied`` (not a publisher), ``ValidationError`` (blank
    note; overrides without a reason) or ``PublishRefused`` listing every blocking reason; nothing
    is written then.
    """
    require_publisher(user)
    if not (note or "").strip():
        raise field_error("note", "note_required", "a release needs a note: what changed and why.")
    overrides = [o for o in overrides if o]
    if overrides and not (override_note or "").strip():
        raise field_error(
            "override_note", "override_note_required", "write why the ticked-off expectations may stay unmet."
        )
    _lock_numbering()  # the review below must see the latest release no concurrent publish is writing
    review = publish_review()
    reasons = gate(review)
    refusing = blocking(reasons, overrides)
    if refusing:
        raise PublishRefused(refusing)
    used = [r.key for r in reasons]  # none blocks (just above): each is overridable and ticked off
    release = release_create(
        snapshot=catalog_to_snapshot(review.draft),
        user=user,
        note=note,
        overrides=used,
        override_note=override_note if used else "",
    )
    for name in move_labels:
        _label_set(name=name, release=release, user=user)
    return release


def release_publish_first(*, note: str) -> Release | None:
    """Publish the draft as release 1 when the database holds no release (``load_demo``, so that
    ``make run`` serves the runtime at once); ``None`` when a release exists. The gate applies:
    raises ``PublishRefused`` like ``release_publish``."""
    with transaction.atomic():
        _lock_numbering()
        if Release.objects.exists():
            return None
        return release_publish(user=COMMAND_LINE, note=note)


@transaction.atomic
def release_rollback(*, user: Any, number: int, note: str) -> Release:
    """A new release whose snapshot equals release ``number``'s (that release is untouched). The
    ``production`` label, when it exists, moves to the new release so the runtime serves it at
    once. Refused (``ValidationError``) for an unknown number or when the latest release already
    holds that snapshot."""
    require_publisher(user)
    _lock_numbering()
    source = release_get(number=number)
    if source is None:
        known = list(Release.objects.order_by("number").values_list("number", flat=True))
        raise ValidationError(
            Problem(
                "release_not_found",
                "release %(number)s does not exist; releases: %(known)s",
                {"number": number, "known": ", ".join(map(str, known)) or "none"},
            ),
            code="release_not_found",
        )
    latest = release_latest()
    if latest is not None and latest.sha256 == source.sha256:
        raise PublishRefused(
            [
                GateReason(
                    Problem("gate_unchanged", "nothing changed since release %(number)s", {"number": latest.number})
                )
            ]
        )
    text = (note or "").strip() or AUTO_RELEASE_NOTES["rollback"] % {"number": number}
    release = release_create(snapshot=source.snapshot, user=user, note=text, rollback_of=number)
    if ReleaseLabel.objects.filter(name=PRODUCTION).exists():
        _label_set(name=PRODUCTION, release=release, user=user)
    return release


@transaction.atomic
def label_move(*, user: Any, label: str, number: int) -> ReleaseLabel:
    """Point ``label`` (created if new; pattern of a skill code) at release ``number`` and record
    the move (who, when, from, to). Raises ``PermissionDenied`` or ``ValidationError`` (bad name,
    unknown release)."""
    require_publisher(user)
    label = (label or "").strip()
    release = release_get(number=number)
    if release is None:
        raise field_error("release", "release_not_found", f"release {number} does not exist.")
    probe = ReleaseLabel(name=label)  # the name alone: only its pattern is checked here
    probe.full_clean(exclude=["release"], validate_unique=False)  # pragma: no mutate
    return _label_set(name=label, release=release, user=user)
