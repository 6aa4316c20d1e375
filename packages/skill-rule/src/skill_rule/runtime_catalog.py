"""The JSON body of ``GET runtime/catalog`` (docs/runtime-api.md), built from a ``Catalog``.

Plain functions of the domain only (no model, no request), so the release services store the body
when a release is published (``Release.catalog_json``), the data migration that fills it for older
releases renders it the same way, and the API serves it without rebuilding.

- ``catalog_payload(catalog)`` — the body without ``sha256`` (a dict);
- ``catalog_body(catalog)`` — the whole body: ``release``, ``sha256`` (``body_sha256`` of the
  payload), then the payload's keys in their documented order;
- ``catalog_body_json(catalog)`` — that body as the exact text the API answers (compact JSON,
  UTF-8 not ``\\u``-escaped, the key order above; U+2028/U+2029 escaped as DRF's renderer does).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .catalog import BUILTIN, MCP, Catalog, Restriction, Skill, Tool, json_copy
from .limits import DEFAULT_CATALOG_PLACEMENT
from .snapshot import body_sha256, earlier_manuals_of

__all__ = ["catalog_body", "catalog_body_json", "catalog_payload", "content_sha256"]


def content_sha256(content: str) -> str:
    """Hex SHA-256 of a manual's markdown, UTF-8 encoded."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def _restriction_payload(restriction: Restriction, order: dict[str, int]) -> dict[str, Any]:
    tools = sorted(restriction.tools, key=lambda name: (order.get(name, len(order)), name))
    return {"name": restriction.name, "description": restriction.description, "tools": tools}


def _skill_payload(skill: Skill, catalog: Catalog) -> dict[str, Any]:
    out = {
        "code": skill.code,
        "name": skill.name,
        "description": skill.description,
        "tool_ids": list(skill.tool_ids),
        "sort_order": skill.sort_order,
        "version": skill.version,
        "content_sha256": content_sha256(skill.content),
    }
    earlier = earlier_manuals_of(catalog, skill)
    if earlier:  # absent when none: a catalog without them keeps the body (and sha256) it always had
        out["earlier_manuals"] = earlier
    return out


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
    (opens the generated ``load_skill`` description, ``skill_rule/payload.py``),
    ``catalog_placement`` — only when it is ``system_prompt`` (the catalog lines go to the system
    prompt, ``payload.catalog_text``); absent means ``tool_description``, so a catalog at the
    default keeps the body and sha256 it had before the setting existed —, ``builtins``
    (registered builtins in registration order — ``load_skill`` only while a skill is enabled),
    ``mcp_tools`` (registration order, with ``inputSchema``, ``annotations``, ``require_confirm``,
    ``server`` and ``mcp_name`` — the call target, both ``null`` for a tool with no server —
    and ``problems`` — English sentences — only for a tool whose stored definition is invalid,
    ``Catalog.tool_problems``),
    ``skills`` (enabled only, by ``sort_order`` then code; ``content_sha256`` instead of the
    manual; ``earlier_manuals`` — ``[{version, sha256, chars, head}]``, the digests of the earlier
    published manuals a retained result may still hold, newest first — only for a skill that has
    some, docs/transcripts.md "A whole published manual"), ``gated_tool_ids`` (``G`` in registration order), ``access_profiles`` and ``stages``
    (by name, their tools in registration order).
    """
    registered = catalog.registered_tools
    order = {name: i for i, name in enumerate(catalog.mcp_tool_names)}
    placement = (
        {"catalog_placement": catalog.catalog_placement}
        if catalog.catalog_placement != DEFAULT_CATALOG_PLACEMENT
        else {}
    )
    return {
        "release": catalog.release,
        "marker_key": catalog.marker_key,
        "eviction_prefix": catalog.eviction_prefix,
        "load_skill_header": catalog.load_skill_header,
        **placement,
        "builtins": [
            {"name": t.name, "description": t.description, "parameters": json_copy(t.input_schema)}
            for t in registered
            if t.kind == BUILTIN
        ],
        "mcp_tools": [_tool_payload(t, catalog.tool_problems.get(t.name, ())) for t in registered if t.kind == MCP],
        "skills": [_skill_payload(s, catalog) for s in catalog.enabled_skills],
        "gated_tool_ids": list(catalog.gated_tool_ids),
        "access_profiles": [_restriction_payload(r, order) for _, r in sorted(catalog.profiles.items())],
        "stages": [_restriction_payload(r, order) for _, r in sorted(catalog.stages.items())],
    }


def catalog_body(catalog: Catalog) -> dict[str, Any]:
    """The whole ``GET runtime/catalog`` body: ``release``, then ``sha256`` (hex SHA-256 of the
    canonical JSON of ``catalog_payload(catalog)``, ``skill_rule.snapshot.body_sha256``), then the
    rest of the payload in its documented order."""
    payload = catalog_payload(catalog)
    body = {"release": payload["release"], "sha256": body_sha256(payload)}
    body.update((key, value) for key, value in payload.items() if key != "release")
    return body


def catalog_body_json(catalog: Catalog) -> str:
    """``catalog_body(catalog)`` as the text the API answers: compact JSON (separators ``,``
    ``:``), not ``\\u``-escaped, the key order of ``catalog_body``; U+2028 and U+2029 escaped, as
    DRF's ``JSONRenderer`` does, so the stored text equals what a rendered response held."""
    text = json.dumps(catalog_body(catalog), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
