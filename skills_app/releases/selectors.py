"""Reads of releases and labels (docs/releases.md): pages of releases, a release's catalog,
label moves, the draft's digest, and ``publish_review`` — what ``/publish/`` shows and the gate
decides (the diff, the scenario re-runs, unavailable and orphaned tools)."""

from __future__ import annotations

import json
from typing import Any

from skill_rule.catalog import Catalog
from skill_rule.releases import (
    PublishReview,
    catalog_diff,
    rerun_scenarios,
)
from skill_rule.snapshot import catalog_from_snapshot
from skills_app.catalog import selectors
from skills_app.catalog.draft_cache import draft_value
from skills_app.core import roles
from skills_app.models import (
    LabelMove,
    Release,
    ReleaseLabel,
    Scenario,
)
from skills_app.runtime import cache as runtime_cache
from skills_app.simulation import results as scenario_results


def can_publish(user: Any) -> bool:
    """Who may publish, roll back, move labels and manage runtime API keys: a user holding the
    ``skills_app.publish_release`` permission (the publisher role, docs/roles.md) or a superuser.
    The one check every such write goes through (``roles.can_publish``)."""
    return roles.can_publish(user)


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


def release_hashes(release: Release) -> dict[str, str]:
    """What a runtime can check a release by (docs/releases.md, docs/runtime-api.md "Caching"):
    ``snapshot_sha256`` (the release's ``sha256``, the hash of its snapshot's canonical JSON),
    ``etag`` (the strong ETag of ``GET runtime/catalog`` for it: that hash, quoted) and
    ``body_sha256`` (the ``sha256`` field inside that body: the hash of the body without the field),
    read from the body the API serves (this process's copy, else one query; never rebuilt)."""
    pointer = runtime_cache.Pointer(release_id=release.pk, number=release.number, sha256=release.sha256)
    body = json.loads(runtime_cache.entry(pointer).body_json)
    return {"snapshot_sha256": release.sha256, "etag": f'"{release.sha256}"', "body_sha256": body["sha256"]}


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
        # (skills_app/simulation/results.py), which /scenarios/ shares
        scenarios=rerun_scenarios(
            draft, latest_catalog, scenario_scripts(), run=scenario_results.cached_runner(digests)
        ),
        unavailable=unavailable,
        orphaned=orphaned,
    )


def _unavailable_and_orphaned() -> tuple[dict[str, str], dict[str, str]]:
    rows = selectors.mcp_nodes()
    return selectors.unavailable_tools(rows), selectors.orphaned_tools(rows)
