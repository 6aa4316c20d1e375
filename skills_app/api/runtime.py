"""What the runtime API serves: one catalog (a release; the draft only on request) and its
canonical JSON form.

``runtime_served`` / ``runtime_catalog`` is the single place that decides *which* catalog a runtime
request sees; every endpoint goes through it. ``catalog_payload``
is the JSON body of ``GET runtime/catalog`` without its ``sha256``; ``body_sha256`` (from
``skills_app.domain.snapshot``) hashes the canonical form of it.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from skills_app import releases, selectors
from skills_app.domain import BUILTIN, MCP, Catalog, Restriction, Skill, Tool
from skills_app.domain.catalog import json_copy
from skills_app.domain.snapshot import body_sha256, canonical_json, catalog_to_snapshot
from skills_app.models import Release, ReleaseLabel

from .errors import (
    ConflictingSelectorsError,
    DraftsNotAllowedError,
    LabelNotFoundError,
    NoReleaseError,
    ReleaseNotFoundError,
)

__all__ = ["Served", "body_sha256", "canonical_json", "catalog_payload", "content_sha256", "runtime_catalog",
           "runtime_served"]


@dataclass(frozen=True)
class Served:
    """What one runtime request is answered from: the catalog (``Catalog.release`` = the release
    number, ``None`` for the draft), the strong ETag value (the release's ``sha256``; for the
    draft the hash of its snapshot) and the label that chose it (if any)."""

    catalog: Catalog
    sha256: str
    label: str | None = None


def runtime_served(*, release: int | None = None, label: str | None = None, draft: bool = False,
                   drafts_allowed: bool = False) -> Served:
    """Decide which catalog a runtime request sees (docs/releases.md, "What the runtime serves").

    - ``draft=True`` → the live draft, only when ``drafts_allowed`` (a key made with ``--drafts``
      or a publisher's console session), else ``DraftsNotAllowedError`` (403);
    - ``release=N`` → release ``N`` (``ReleaseNotFoundError``, 404, when unknown);
    - ``label=NAME`` → the release the label points at (``LabelNotFoundError``, 404);
    - nothing → the release labelled ``production``, else the latest release; with no release at
      all ``NoReleaseError`` (404 ``no_release``) — never the draft.

    Two selectors at once → ``ConflictingSelectorsError`` (400). Reads the database on every call
    (no per-process cache), so a publish or a label move is seen by the very next request.
    """
    chosen = [name for name, value in (("release", release), ("label", label), ("draft", draft)) if value]
    if len(chosen) > 1:
        raise ConflictingSelectorsError(chosen)
    if draft:
        if not drafts_allowed:
            raise DraftsNotAllowedError()
        catalog = selectors.catalog_draft()
        return Served(catalog=catalog, sha256=body_sha256(catalog_to_snapshot(catalog)))
    if release is not None:
        row = releases.release_get(number=release)
        if row is None:
            raise ReleaseNotFoundError(release, known=_known())
    elif label:
        found = ReleaseLabel.objects.select_related("release").filter(name=label).first()
        if found is None:
            raise LabelNotFoundError(label, known=list(ReleaseLabel.objects.order_by("name").values_list("name", flat=True)))
        row = found.release
    else:
        found = ReleaseLabel.objects.select_related("release").filter(name=releases.PRODUCTION).first()
        row = found.release if found else releases.release_latest()
        label = found.name if found else None
        if row is None:
            raise NoReleaseError()
    return Served(catalog=releases.release_catalog(row), sha256=row.sha256, label=label)


def runtime_catalog(*, release: int | None = None, label: str | None = None, draft: bool = False,
                    drafts_allowed: bool = False) -> Catalog:
    """The catalog a runtime request is answered from: ``runtime_served(...).catalog``. The single
    switch point every runtime endpoint goes through."""
    return runtime_served(release=release, label=label, draft=draft, drafts_allowed=drafts_allowed).catalog


def _known() -> list[int]:
    return list(Release.objects.order_by("number").values_list("number", flat=True))


def content_sha256(content: str) -> str:
    """Hex SHA-256 of a manual's markdown, UTF-8 encoded."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def _restriction_payload(restriction: Restriction, order: dict[str, int]) -> dict[str, Any]:
    tools = sorted(restriction.tools, key=lambda name: (order.get(name, len(order)), name))
    return {"name": restriction.name, "description": restriction.description, "tools": tools}


def _skill_payload(skill: Skill) -> dict[str, Any]:
    return {
        "code": skill.code,
        "name": skill.name,
        "description": skill.description,
        "tool_ids": list(skill.tool_ids),
        "sort_order": skill.sort_order,
        "version": skill.version,
        "content_sha256": content_sha256(skill.content),
    }


def _tool_payload(tool: Tool, problems: tuple[str, ...]) -> dict[str, Any]:
    out = {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "inputSchema": json_copy(tool.input_schema),
        "annotations": json_copy(tool.annotations),
        "require_confirm": tool.require_confirm,
        "server": tool.server,
        "mcp_name": tool.mcp_name,
    }
    if problems:
        out["problems"] = [str(p) for p in problems]
    return out


def catalog_payload(catalog: Catalog) -> dict[str, Any]:
    """The body of ``GET runtime/catalog`` without ``sha256`` (docs/runtime-api.md).

    Keys: ``release`` (int or ``None``), ``marker_key``, ``eviction_prefix``, ``load_skill_header``
    (opens the generated ``load_skill`` description, ``domain/payload.py``), ``builtins``
    (registered builtins in registration order — ``load_skill`` only while a skill is enabled),
    ``mcp_tools`` (registration order, with ``inputSchema``, ``annotations``, ``require_confirm``,
    ``server`` and ``mcp_name`` — the call target, both ``null`` for a tool with no server —
    and ``problems`` — English sentences — only for a tool whose stored definition is invalid,
    ``Catalog.tool_problems``),
    ``skills`` (enabled only, by ``sort_order`` then code; ``content_sha256`` instead of the
    manual), ``gated_tool_ids`` (``G`` in registration order), ``access_profiles`` and ``stages``
    (by name, their tools in registration order).
    """
    registered = catalog.registered_tools
    order = {name: i for i, name in enumerate(catalog.mcp_tool_names)}
    return {
        "release": catalog.release,
        "marker_key": catalog.marker_key,
        "eviction_prefix": catalog.eviction_prefix,
        "load_skill_header": catalog.load_skill_header,
        "builtins": [
            {"name": t.name, "description": t.description, "parameters": json_copy(t.input_schema)}
            for t in registered
            if t.kind == BUILTIN
        ],
        "mcp_tools": [_tool_payload(t, catalog.tool_problems.get(t.name, ())) for t in registered if t.kind == MCP],
        "skills": [_skill_payload(s) for s in catalog.enabled_skills],
        "gated_tool_ids": list(catalog.gated_tool_ids),
        "access_profiles": [_restriction_payload(r, order) for _, r in sorted(catalog.profiles.items())],
        "stages": [_restriction_payload(r, order) for _, r in sorted(catalog.stages.items())],
    }
