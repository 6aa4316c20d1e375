"""A release snapshot ⇄ a ``Catalog`` (docs/releases.md), and its canonical JSON and hash.

A snapshot is a plain JSON-able dict holding everything the rule reads (docs/rule.md):

```
{"format": 1 | 2,
 "settings": {"marker_key": …, "eviction_prefix": …, <any further Catalog setting>},
 "tools":  [{"name", "kind", "title", "description", "inputSchema", "annotations", "require_confirm",
             "server"?, "mcp_name"?}, …],
 "skills": [{"code", "name", "description", "content", "tool_ids", "sort_order", "version",
             "earlier_manuals"?: [{"version", "sha256", "chars", "head"}, …]}, …],
 "access_profiles": [{"name", "description", "tools"}, …],
 "stages":          [{"name", "description", "tools"}, …]}
```

``tools`` are all registered tools in registration order (builtins first, then MCP tools in
intent-tree order; ``load_skill`` is kept even when no skill is enabled — the catalog decides);
``skills`` the *enabled* skills by ``sort_order`` then code (a disabled skill gates nothing, so it
is not part of what a runtime is served); restrictions by name, their tools in registration order.
``settings`` holds every scalar field of ``Catalog`` besides the collections and ``release``, so a
setting added to ``Catalog`` later is carried without touching this module; unknown keys in an
older or newer snapshot are ignored when reading. ``catalog_placement``, ``payload_targets`` and
``payload_budgets`` are written only when they differ from their defaults (``settings_json``):
absent means ``tool_description``, the two default targets and no budgets, so every catalog that
keeps the defaults has the snapshot and sha256 it had before those settings existed; a
``catalog_placement`` that is no placement is a ``SnapshotError``.

**Formats.** Format 2 adds each synced MCP tool's call target: ``server`` (the MCP server record's
name) and ``mcp_name`` (the tool's real name on that server), docs/mcp.md "How a runtime maps
calls back". Both keys are written only for a tool that has them, and ``format`` is 2 only when
some tool does: a catalog without call targets gives exactly the format-1 snapshot it always gave,
so its sha256 is unchanged and "nothing changed since release N" still holds. Format-1 snapshots
load with both fields ``None``.

Format 3 adds, per skill, ``earlier_manuals``: the digests (``skill_rule.manuals.ManualDigest``) of the
manuals published for that skill code before, under a lower version and with another text — a
retained manual of one of them still loads the skill, as that version (docs/transcripts.md, "A
whole published manual"). Written only for a skill that has some, and ``format`` is 3 only when
some skill does: a catalog without them gives the format-1 or format-2 snapshot it always gave
(same sha256). A snapshot without them (every release before format 3) accepts only each
skill's current manual: fail closed. A digest that cannot be read is left out (accepts nothing).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from .catalog import Catalog, Restriction, Skill, Tool, json_copy
from .limits import CATALOG_PLACEMENTS, DEFAULT_CATALOG_PLACEMENT, DEFAULT_PAYLOAD_TARGETS
from .manuals import digest_from_dict

#: The newest snapshot format: 3 when a skill carries ``earlier_manuals``, else 2 when a tool
#: carries a call target, else 1.
SNAPSHOT_FORMAT = 3
#: Catalog fields that are not settings: the collections and the release number.
_NOT_SETTINGS = frozenset({"tools", "skills", "profiles", "stages", "release", "earlier_manuals"})
#: Settings written only when they differ from their default, so that a catalog leaving them at it
#: gives the snapshot (and sha256) it gave before they existed: setting → its default. A snapshot
#: without one was published under that default, which therefore never changes
#: (docs/providers.md, docs/runtime-api.md "Where the catalog goes").
_WRITTEN_WHEN_SET: dict[str, Any] = {
    "catalog_placement": DEFAULT_CATALOG_PLACEMENT,
    "payload_targets": DEFAULT_PAYLOAD_TARGETS,
    "payload_budgets": {},
}


class SnapshotError(ValueError):
    """A snapshot that cannot be read back into a catalog (a missing key or a wrong type); the
    message names the item."""


def canonical_json(data: Any) -> bytes:
    """The canonical bytes of a JSON value: sorted keys, separators ``,`` ``:``, UTF-8 (not
    ``\\u``-escaped). The runtime API hashes its bodies the same way (docs/releases.md)."""
    text = json.dumps(
        data,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,  # pragma: no mutate
    )
    return text.encode()  # UTF-8, str.encode's default


def body_sha256(data: Any) -> str:
    """Hex SHA-256 (64 lowercase hex digits) of ``canonical_json(data)``."""
    return hashlib.sha256(canonical_json(data)).hexdigest()


def setting_names() -> tuple[str, ...]:
    """Names of the ``Catalog`` settings a snapshot carries (``marker_key``, ``eviction_prefix`` …)."""
    return tuple(f.name for f in fields(Catalog) if f.name not in _NOT_SETTINGS)


def settings_json(catalog: Catalog, *, every: bool = False) -> dict[str, Any]:
    """The catalog's settings as JSON values, by ``setting_names`` (a tuple as a list, a mapping
    as a dict with sorted keys), as a snapshot's ``settings`` holds them. ``catalog_placement``,
    ``payload_targets`` and ``payload_budgets`` are left out while they hold their defaults
    (``_WRITTEN_WHEN_SET``; absent reads as the default) unless ``every`` (the release diff
    compares every setting)."""
    out: dict[str, Any] = {}
    for name in setting_names():
        value = getattr(catalog, name)
        if not every and name in _WRITTEN_WHEN_SET and value == _WRITTEN_WHEN_SET[name]:
            continue
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = {k: value[k] for k in sorted(value)}
        out[name] = value
    return out


def _restriction(r: Restriction, order: Mapping[str, int]) -> dict[str, Any]:
    tools = sorted(r.tools, key=lambda name: (order.get(name, len(order)), name))
    return {"name": r.name, "description": r.description, "tools": tools}


def catalog_to_snapshot(catalog: Catalog) -> dict[str, Any]:
    """The snapshot dict of ``catalog`` (shape in the module docstring). Deterministic: the same
    catalog gives the same dict, so the same ``body_sha256``."""
    order = {t.name: i for i, t in enumerate(catalog.tools)}
    targets = any(t.server is not None or t.mcp_name is not None for t in catalog.tools)
    skills = []
    for s in catalog.enabled_skills:
        item = {
            "code": s.code,
            "name": s.name,
            "description": s.description,
            "content": s.content,
            "tool_ids": list(s.tool_ids),
            "sort_order": s.sort_order,
            "version": s.version,
        }
        earlier = earlier_manuals_of(catalog, s)
        if earlier:
            item["earlier_manuals"] = earlier
        skills.append(item)
    return {
        "format": 3 if any("earlier_manuals" in s for s in skills) else 2 if targets else 1,
        "settings": settings_json(catalog),
        "tools": [t.as_dict() for t in catalog.tools],
        "skills": skills,
        "access_profiles": [_restriction(r, order) for _, r in sorted(catalog.profiles.items())],
        "stages": [_restriction(r, order) for _, r in sorted(catalog.stages.items())],
    }


def earlier_manuals_of(catalog: Catalog, skill: Skill) -> list[dict[str, Any]]:
    """The JSON of the earlier published manuals ``skill`` accepts (``Catalog.published_manuals``
    past its current one: lower versions, other texts, newest first), for a snapshot and
    ``GET runtime/catalog``. ``[]`` when none."""
    published = catalog.published_manuals.get(skill.code, ())
    if not published or catalog.skill(skill.code) is not skill:
        return []
    return [m.as_dict() for m in published[1:]]


def _earlier(item: Mapping[str, Any], where: str) -> tuple[Any, ...]:
    value = item.get("earlier_manuals")
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SnapshotError(f"{where}: 'earlier_manuals' must be list, not {type(value).__name__}")
    return tuple(d for d in map(digest_from_dict, value) if d is not None)


def _get(item: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if not isinstance(item, Mapping) or key not in item:
        raise SnapshotError(f"{where}: missing '{key}'")
    value = item[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise SnapshotError(f"{where}: '{key}' must be {kind.__name__}, not {type(value).__name__}")
    return value


def _optional_str(item: Mapping[str, Any], key: str, where: str) -> str | None:
    value = item.get(key)
    if value is not None and not isinstance(value, str):
        raise SnapshotError(f"{where}: '{key}' must be str, not {type(value).__name__}")
    return value


def catalog_from_snapshot(snapshot: Mapping[str, Any], *, release: int | None = None) -> Catalog:
    """The ``Catalog`` a snapshot describes, with ``Catalog.release = release``.

    Round trip: ``catalog_from_snapshot(catalog_to_snapshot(c))`` equals ``c`` minus its disabled
    skills. Unknown keys (top level, items, settings) are ignored; format 1 (no call targets) and
    format 2 both load, a tool without ``server`` / ``mcp_name`` getting ``None``. Raises
    ``SnapshotError`` naming the item for a missing key or a wrong type.
    """
    if not isinstance(snapshot, Mapping):
        raise SnapshotError("snapshot: must be a JSON object")
    settings = snapshot.get("settings") or {}
    if not isinstance(settings, Mapping):
        raise SnapshotError("snapshot: 'settings' must be an object")
    known = set(setting_names())
    placement = settings.get("catalog_placement", DEFAULT_CATALOG_PLACEMENT)
    if placement not in CATALOG_PLACEMENTS:
        raise SnapshotError(
            f"settings: 'catalog_placement' must be one of {', '.join(CATALOG_PLACEMENTS)}, not {placement!r}"
        )
    tools = tuple(
        Tool(
            name=_get(t, "name", str, f"tools[{i}]"),
            kind=_get(t, "kind", str, f"tools[{i}]"),
            title=t.get("title") or "",
            description=t.get("description") or "",
            # stored JSON of the wrong shape stays as it is: Catalog.tool_problems flags it
            input_schema=json_copy(t.get("inputSchema", {"type": "object"})),
            annotations=json_copy(t.get("annotations", {})),
            require_confirm=bool(t.get("require_confirm")),  # missing: None, so False
            server=_optional_str(t, "server", f"tools[{i}]"),
            mcp_name=_optional_str(t, "mcp_name", f"tools[{i}]"),
        )
        for i, t in enumerate(_get(snapshot, "tools", list, "snapshot"))
    )
    skills = tuple(
        Skill(
            code=_get(s, "code", str, f"skills[{i}]"),
            name=_get(s, "name", str, f"skills[{i}]"),
            description=_get(s, "description", str, f"skills[{i}]"),
            content=_get(s, "content", str, f"skills[{i}]"),
            tool_ids=tuple(_get(s, "tool_ids", list, f"skills[{i}]")),
            sort_order=_get(s, "sort_order", int, f"skills[{i}]"),
            version=_get(s, "version", int, f"skills[{i}]"),
        )
        for i, s in enumerate(_get(snapshot, "skills", list, "snapshot"))
    )  # every skill enabled (Skill's default): a snapshot holds the enabled skills only
    earlier: dict[str, tuple[Any, ...]] = {}
    for i, s in enumerate(snapshot["skills"]):
        digests = _earlier(s, f"skills[{i}]")
        if digests:
            earlier.setdefault(s["code"], digests)

    def restrictions(key: str) -> dict[str, Restriction]:
        out = {}
        for i, r in enumerate(snapshot.get(key) or []):
            name = _get(r, "name", str, f"{key}[{i}]")
            out[name] = Restriction(name, frozenset(_get(r, "tools", list, f"{key}[{i}]")), r.get("description") or "")
        return out

    return Catalog(
        tools=tools,
        skills=skills,
        profiles=restrictions("access_profiles"),
        stages=restrictions("stages"),
        release=release,
        earlier_manuals=earlier,
        **{k: v for k, v in settings.items() if k in known},
    )
