"""Releases, labels and runtime API keys: the writes (services) and the reads (selectors) of
docs/releases.md.

Writes only ever *create* a release: ``release_publish`` (the draft, after the gate),
``release_rollback`` (a copy of an older snapshot). Numbers are assigned in ``release_create``
under a row lock on the settings row (PostgreSQL) / the database write lock (SQLite, IMMEDIATE
transactions), so two publishes at the same instant never share a number nor lose a snapshot.
Every publish, rollback, label move and key change asks ``can_publish(user)`` first.

Each write runs in one transaction (``@transaction.atomic``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max

from skill_rule.catalog import Catalog
from skill_rule.errors import Problem
from skill_rule.releases import (
    GateReason,
    PublishReview,
    blocking,
    catalog_diff,
    gate,
    rerun_scenarios,
)
from skill_rule.runtime_catalog import catalog_body_json
from skill_rule.snapshot import body_sha256, catalog_from_snapshot, catalog_to_snapshot

from . import roles, runtime_cache, scenario_results, selectors
from .draft_cache import draft_value
from .models import PUBLISH_PERMISSION, ConsoleSettings, LabelMove, Release, ReleaseLabel, RuntimeKey, Scenario

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


def can_publish(user: Any) -> bool:
    """Who may publish, roll back, move labels and manage runtime API keys: a user holding the
    ``skills_app.publish_release`` permission (the publisher role, docs/roles.md) or a superuser.
    The one check every such write goes through (``roles.can_publish``)."""
    return roles.can_publish(user)


def _require_publisher(user: Any) -> None:
    if not can_publish(user):
        raise PermissionDenied("only a publisher may publish releases, move labels or manage API keys.")


def _field_error(field: str, code: str, message: str, **params: Any) -> ValidationError:
    """A ``ValidationError`` on ``field`` whose one message carries ``code`` and ``params`` (Django
    drops a ``code`` given beside a dict of messages, so it goes on the message itself), so a page
    can say it in its language (``message_catalog.translate_error``)."""
    return ValidationError({field: [ValidationError(message, code=code, params=params or None)]})


def _author(user: Any) -> tuple[Any, str]:
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
        # the code on each message: Django keeps none given beside a list (as for _field_error)
        super().__init__([ValidationError(str(r.message), code="publish_refused") for r in self.reasons])


# --- reads ------------------------------------------------------------------------------------


#: The release fields a list never reads: the snapshot and the served catalog body (~1 MB each on
#: a catalog of 2,000 tools), left in the database by every list read.
_HEAVY = ("snapshot", "catalog_json")


def release_page_queryset():
    """Releases newest first for a list page: labels prefetched, the snapshot left in the database
    (a list never reads it); the paginator counts and slices it there (three queries a page)."""
    return Release.objects.defer(*_HEAVY).prefetch_related("labels").order_by("-number")


def release_choices() -> list[tuple[int, str]]:
    """``(number, note)`` of every release, newest first, for a picker (one light query)."""
    return list(Release.objects.order_by("-number").values_list("number", "note"))


def release_get(*, number: int) -> Release | None:
    """The release with this number, or ``None``."""
    return Release.objects.filter(number=number).first()


def release_latest() -> Release | None:
    """The release with the highest number, or ``None`` when nothing was published."""
    return Release.objects.order_by("-number").first()


def release_catalog(release: Release) -> Catalog:
    """The ``Catalog`` a release's snapshot describes (``Catalog.release`` = its number)."""
    return catalog_from_snapshot(release.snapshot, release=release.number)


def label_list() -> list[ReleaseLabel]:
    """Every label with its release (one query; the release's snapshot and body not loaded)."""
    return list(
        ReleaseLabel.objects.select_related("release").defer(*(f"release__{f}" for f in _HEAVY)).order_by("name")
    )


def label_moves(*, limit: int = 50) -> list[LabelMove]:
    """The latest label moves, newest first (the releases' snapshots and bodies not loaded)."""
    return list(
        LabelMove.objects.select_related("from_release", "to_release")
        .defer(*(f"{side}__{f}" for side in ("from_release", "to_release") for f in _HEAVY))
        .order_by("-moved_at", "-id")[:limit]
    )


def draft_sha256(draft: Catalog | None = None) -> str:
    """The sha256 the draft would be published with (its snapshot's canonical hash); ``draft``:
    the draft catalog when the caller holds it. Kept with the catalog object
    (``scenario_results.catalog_sha256``)."""
    return scenario_results.catalog_sha256(draft if draft is not None else selectors.catalog_draft())


def scenario_scripts() -> dict[str, str]:
    """Saved scenario name → YAML script, by name (one query)."""
    return dict(Scenario.objects.order_by("name").values_list("name", "script"))


def publish_review() -> PublishReview:
    """The draft against the latest release: its snapshot hash, the diff, every saved scenario
    re-run (docs/releases.md). Reads only."""
    draft = selectors.catalog_draft()
    # the latest release's id, number and sha256 (columns stored before the large ones, migration
    # 0014); its Catalog from this process's held releases (runtime_cache: a release never
    # changes, so it is parsed once per process, not per visit)
    row = Release.objects.order_by("-number").values_list("pk", "number", "sha256").first()
    latest = runtime_cache.Pointer(*row) if row else None
    latest_catalog = runtime_cache.entry(latest).catalog if latest else None
    sha256 = draft_sha256(draft)
    # derived from the MCP node rows only: kept per draft token (a scan of 2,000 rows otherwise)
    unavailable, orphaned = draft_value(
        "publish_unavailable_orphaned",  # pragma: no mutate
        _unavailable_and_orphaned,
    )
    digests = {id(draft): sha256, **({id(latest_catalog): latest.sha256} if latest_catalog is not None else {})}
    return PublishReview(
        draft=draft,
        sha256=sha256,
        latest_number=latest.number if latest else None,
        latest_sha256=latest.sha256 if latest else None,
        latest=latest_catalog,
        # kept on the draft catalog object (a new draft starts with none) per latest release, which
        # never changes: 2,000 tools compared once per change, not on every visit of /publish/
        diff=draft.derived(
            f"release_diff:{latest.release_id}:{latest.sha256}" if latest else "release_diff:none",  # pragma: no mutate
            lambda: catalog_diff(latest_catalog, draft),
        ),
        # each scenario against each catalog runs once, then comes from the cache of results
        # (skills_app/scenario_results.py), which /scenarios/ shares
        scenarios=rerun_scenarios(
            draft, latest_catalog, scenario_scripts(), run=scenario_results.cached_runner(digests)
        ),
        unavailable=unavailable,
        orphaned=orphaned,
    )


def _unavailable_and_orphaned() -> tuple[dict[str, str], dict[str, str]]:
    rows = selectors.mcp_nodes()
    return selectors.unavailable_tools(rows), selectors.orphaned_tools(rows)


# --- writes -----------------------------------------------------------------------------------


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
    author, author_name = _author(user)
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
    who, who_name = _author(user)
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
    _require_publisher(user)
    if not (note or "").strip():
        raise _field_error("note", "note_required", "a release needs a note: what changed and why.")
    overrides = [o for o in overrides if o]
    if overrides and not (override_note or "").strip():
        raise _field_error(
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
    _require_publisher(user)
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
    text = (note or "").strip() or f"rollback to release {number}"
    release = release_create(snapshot=source.snapshot, user=user, note=text, rollback_of=number)
    if ReleaseLabel.objects.filter(name=PRODUCTION).exists():
        _label_set(name=PRODUCTION, release=release, user=user)
    return release


@transaction.atomic
def label_move(*, user: Any, label: str, number: int) -> ReleaseLabel:
    """Point ``label`` (created if new; pattern of a skill code) at release ``number`` and record
    the move (who, when, from, to). Raises ``PermissionDenied`` or ``ValidationError`` (bad name,
    unknown release)."""
    _require_publisher(user)
    label = (label or "").strip()
    release = release_get(number=number)
    if release is None:
        raise _field_error("release", "release_not_found", f"release {number} does not exist.")
    probe = ReleaseLabel(name=label)  # the name alone: only its pattern is checked here
    probe.full_clean(exclude=["release"], validate_unique=False)  # pragma: no mutate
    return _label_set(name=label, release=release, user=user)


# --- runtime API keys -------------------------------------------------------------------------


@dataclass(frozen=True)
class CreatedKey:
    """A key just made: the record, and the key itself — shown once, never stored."""

    record: RuntimeKey
    key: str


@transaction.atomic
def api_key_create(*, user: Any, name: str, read_drafts: bool = False) -> CreatedKey:
    """Create a runtime API key (stored as the library's hash). ``name`` must be unique among
    keys that are not revoked. Raises ``PermissionDenied`` or ``ValidationError``."""
    _require_publisher(user)
    name = (name or "").strip()
    if not name:
        raise _field_error("name", "key_name_required", "a key needs a name.")
    control = next((c for c in name if unicodedata.category(c) == "Cc"), None)
    if control is not None:  # a NUL would not even reach PostgreSQL (500); a bell garbles every list
        raise _field_error(
            "name",
            "key_name_control",
            "a key name cannot contain a control character (%(char)s).",
            char=f"U+{ord(control):04X}",
        )
    if RuntimeKey.objects.filter(name=name, revoked=False).exists():
        raise _field_error(
            "name",
            "key_name_taken",
            "a key named '%(name)s' already exists; revoke it first or pick another name.",
            name=name,
        )
    creator, _name = _author(user)
    probe = RuntimeKey(name=name, read_drafts=read_drafts)
    probe.full_clean(exclude=["id", "prefix", "hashed_key"])  # pragma: no mutate
    record, key = RuntimeKey.objects.create_key(name=name, read_drafts=read_drafts, created_by=creator)
    return CreatedKey(record=record, key=key)


@transaction.atomic
def api_key_revoke(*, user: Any, name: str) -> int:
    """Revoke every usable key with this name (cannot be undone); returns how many. Raises
    ``ValidationError`` when none matches."""
    _require_publisher(user)
    not_found = _field_error("name", "key_not_found", "no usable key named '%(name)s'.", name=name)
    # no key name holds a NUL (``api_key_create``); PostgreSQL would refuse one in the query (500)
    if "\x00" in name:  # pragma: no mutate
        raise not_found
    keys = list(RuntimeKey.objects.select_for_update().filter(name=name, revoked=False))
    if not keys:
        raise not_found
    for k in keys:
        k.revoked = True
        k.save()
    return len(keys)


def api_key_list() -> list[RuntimeKey]:
    """Every runtime key, newest first (revoked ones too)."""
    return list(RuntimeKey.objects.order_by("revoked", "-created"))
