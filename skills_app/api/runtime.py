"""What the runtime API serves: one catalog (a release, or the draft until releases exist) and its
canonical JSON form.

``runtime_catalog`` is the single place that decides *which* catalog a runtime request sees; every
endpoint goes through it, so publishing releases only changes this function. ``catalog_payload``
is the JSON body of ``GET runtime/catalog`` (docs/runtime-api.md) without its ``sha256``; ``body_sha256``
hashes the canonical form of it.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from skills_app import selectors
from skills_app.domain import BUILTIN, MCP, Catalog, Restriction, Skill, Tool
from skills_app.domain.catalog import json_copy

from .errors import ReleaseNotFoundError


def runtime_catalog(release: int | None = None) -> Catalog:
    """The catalog a runtime request is answered from (a ``skills_app.domain.Catalog``).

    ``release=None`` → the latest release; ``release=N`` → release ``N``. Releases do not exist
    yet, so ``None`` serves the current draft (``selectors.catalog_draft()``, whose
    ``Catalog.release`` is ``None``) and any number raises ``ReleaseNotFoundError`` (404
    ``release_not_found``). When releases land, build the ``Catalog`` from the release snapshot
    here (with ``Catalog.release`` set) and nothing else in the API changes.
    """
    if release is not None:
        raise ReleaseNotFoundError(release, known=[])
    return selectors.catalog_draft()


def canonical_json(data: Any) -> bytes:
    """The canonical bytes of a JSON value: sorted keys, no whitespace, UTF-8 (not ``\\u``-escaped)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def body_sha256(data: Any) -> str:
    """Hex SHA-256 of ``canonical_json(data)``."""
    return hashlib.sha256(canonical_json(data)).hexdigest()


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
