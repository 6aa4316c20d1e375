"""Reads of the draft catalog: the intent tree and its MCP nodes, the tool registry, skills, the
draft as the rule's ``Catalog`` (cached per draft token, ``catalog.draft_cache``) and the lints.
Every function here runs a fixed number of queries whatever the catalog size."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass

from skill_rule import catalog as dom
from skill_rule.limits import BUILTIN_TOOL_NAMES
from skill_rule.manuals import ManualDigest, digest, digest_from_dict
from skill_rule.validation import ToolRegistry, normalize_tool_ids
from skills_app.catalog.draft_cache import draft_catalog, draft_value
from skills_app.models import (
    AccessProfile,
    BuiltinTool,
    ConsoleSettings,
    IntentNode,
    McpTool,
    Release,
    Skill,
    Stage,
)


@dataclass(frozen=True)
class McpNodeRow:
    """One registered MCP tool with the node that registers it (first in tree order)."""

    tool_id: str
    node: IntentNode
    definition: McpTool | None

    @property
    def defined(self) -> bool:
        """True when a tool definition exists for the node's tool (synced or typed in)."""
        return self.definition is not None

    @property
    def available(self) -> bool:
        """False when the node's tool has no definition, its server no longer lists it (the last
        sync removed it) or its server record was deleted (``McpTool.orphaned``): docs/mcp.md
        *unavailable*; an unavailable tool is not registered (fail closed)."""
        return self.definition is not None and self.definition.available

    @property
    def require_confirm(self) -> bool:
        """The confirmation flag the catalog carries (``McpTool.confirm_from``, docs/mcp.md)."""
        return self.definition.confirm_from(self.node.require_confirm) if self.definition else self.node.require_confirm


def intent_tree_order() -> list[IntentNode]:
    """Live intent nodes in depth-first tree order (children by ``sort_order``, then code).

    A disabled or deleted node hides its whole subtree. One query, or only the settings query when
    this process built it since the last committed write (``draft_cache.draft_value``): the nodes
    are then shared, read-only.
    """
    return list(draft_value("intent_tree_order", _intent_tree_order))


def _intent_tree_order() -> list[IntentNode]:
    nodes = list(IntentNode.objects.filter(deleted_at__isnull=True).order_by("sort_order", "intent_code"))
    children: dict[int | None, list[IntentNode]] = {}
    for n in nodes:
        children.setdefault(n.parent_id, []).append(n)
    out: list[IntentNode] = []

    def walk(parent_id: int | None) -> None:
        for n in children.get(parent_id, []):
            if not n.enabled:
                continue
            n.is_leaf = not any(c for c in children.get(n.id, []))
            out.append(n)
            walk(n.id)

    walk(None)
    return out


def mcp_nodes(*, include_unavailable: bool = True) -> list[McpNodeRow]:
    """MCP nodes' tools in intent-tree order, one row per distinct tool id (two queries, or only the
    settings query when kept by ``draft_cache.draft_value``; rows are then shared, read-only).
    ``include_unavailable=False`` leaves out tools a sync found removed (not registered)."""
    return list(
        draft_value(f"mcp_nodes:{include_unavailable}", lambda: _mcp_nodes(include_unavailable=include_unavailable))
    )


def _mcp_nodes(*, include_unavailable: bool) -> list[McpNodeRow]:
    defs = {t.name: t for t in McpTool.objects.select_related("mcp_server")}
    rows: list[McpNodeRow] = []
    seen: set[str] = set()
    for n in _intent_tree_order():
        tool_id = n.mcp_tool_id.strip()
        if n.kind == IntentNode.Kind.MCP and n.is_leaf and tool_id and tool_id not in seen:
            seen.add(tool_id)
            row = McpNodeRow(tool_id=tool_id, node=n, definition=defs.get(tool_id))
            if include_unavailable or row.definition is None or row.definition.available:
                rows.append(row)
    return rows


def unavailable_tools(rows: list[McpNodeRow] | None = None) -> dict[str, str]:
    """Tool id → the MCP server that no longer lists it (or whose record was deleted), for MCP
    nodes whose tool a sync removed or is orphaned (docs/mcp.md). ``rows``: ``mcp_nodes()`` when
    the caller has them (else two queries)."""
    rows = mcp_nodes() if rows is None else rows
    return {
        r.tool_id: (r.definition.mcp_server.name if r.definition.mcp_server_id else r.definition.server)
        for r in rows
        if r.definition is not None and not r.definition.available
    }


def orphaned_tools(rows: list[McpNodeRow] | None = None) -> dict[str, str]:
    """Tool id → the name of its deleted MCP server record, for MCP nodes whose tool is orphaned
    (``McpTool.orphaned``: no call can be mapped back to it, so it is unavailable). ``rows``:
    ``mcp_nodes()`` when the caller has them (else two queries)."""
    rows = mcp_nodes() if rows is None else rows
    return {r.tool_id: r.definition.server for r in rows if r.definition is not None and r.definition.orphaned}


def broken_skills(skills: list[Skill] | None = None) -> dict[str, list[tuple[str, str]]]:
    """Live skill code → ``[(tool_id, reason)]`` for every gated tool that is not registered;
    ``reason`` is ``unavailable`` (its server no longer lists it) or ``unregistered`` (no enabled
    MCP node names it: disabled, deleted or unbound). Skills with nothing missing are absent.
    ``skills``: the live skills when the caller has them. Three queries at most; without
    ``skills``, only the settings query when kept by ``draft_cache.draft_value`` (every page's
    broken-skills banner asks)."""
    if skills is None:
        return dict(draft_value("broken_skills", lambda: _broken_skills(None)))
    return _broken_skills(skills)


def _broken_skills(skills: list[Skill] | None) -> dict[str, list[tuple[str, str]]]:
    rows = mcp_nodes()
    registered = {r.tool_id for r in rows if r.available or r.definition is None}
    gone = unavailable_tools(rows)
    skills = list(Skill.objects.live().order_by("sort_order", "skill_code")) if skills is None else skills
    out: dict[str, list[tuple[str, str]]] = {}
    for s in skills:
        if s.deleted_at is not None:
            continue
        missing = [(t, "unavailable" if t in gone else "unregistered") for t in s.tool_ids if t not in registered]
        if missing:
            out[s.skill_code] = missing
    return out


def tool_registry(tool_ids: Iterable[str] | str | None = None) -> ToolRegistry:
    """What skill ``tool_ids`` are validated against (docs/design.md).

    Without ``tool_ids``: the whole registry (every MCP node's tool). With ``tool_ids`` (what a
    skill save checks): the same answer for those names only — it reads only the nodes that name
    them, their ancestors and children, their definitions and the builtins of those names, so a
    save costs the same whatever the size of the catalog (a fixed number of queries: one per tree
    level besides five). ``validate_tool_ids`` gives the same verdict on those names either way
    (``tests/test_services.py`` compares them)."""
    if tool_ids is not None:
        return _tool_registry_for(frozenset(normalize_tool_ids(tool_ids)))
    enabled = frozenset(r.tool_id for r in mcp_nodes(include_unavailable=False))
    named = frozenset(IntentNode.objects.exclude(mcp_tool_id="").values_list("mcp_tool_id", flat=True))
    return ToolRegistry(enabled=enabled, disabled=named - enabled, builtins=builtin_tool_names())


def mcp_tool_names(names: Iterable[str]) -> frozenset[str]:
    """Which of ``names`` are MCP tools the console knows: the tool of a live intent node (enabled
    or not) or a synced or typed-in tool definition still offered (two queries). A new skill code
    may not be one (``validation.validate_code_not_a_tool``, issue 29)."""
    wanted = [n for n in names if isinstance(n, str)]
    if not wanted:
        return frozenset()
    on_nodes = IntentNode.objects.filter(deleted_at__isnull=True, mcp_tool_id__in=wanted)
    defined = McpTool.objects.filter(removed_at__isnull=True, name__in=wanted)
    return frozenset(on_nodes.values_list("mcp_tool_id", flat=True)) | frozenset(defined.values_list("name", flat=True))


def builtin_tool_names() -> frozenset[str]:
    """Every reserved builtin name: the ``BuiltinTool`` rows' and ``BUILTIN_TOOL_NAMES`` (a name
    stays reserved when its row is missing). The tool registry's builtins and the names no MCP
    tool may take at a sync (docs/mcp.md, "Model-facing names")."""
    return frozenset(BuiltinTool.objects.values_list("name", flat=True)) | frozenset(BUILTIN_TOOL_NAMES)


_NODE_FIELDS = ("id", "parent_id", "enabled", "kind", "mcp_tool_id", "deleted_at")


def _tool_registry_for(ids: frozenset[str]) -> ToolRegistry:
    """``tool_registry`` limited to ``ids``: an id is enabled when some node naming it is a live,
    enabled leaf of kind MCP whose ancestors are all live and enabled (``intent_tree_order``) and
    its definition was not removed by a sync (``mcp_nodes(include_unavailable=False)``)."""
    builtins = (
        frozenset(BuiltinTool.objects.filter(name__in=ids).values_list("name", flat=True)) if ids else frozenset()
    )
    builtins |= frozenset(BUILTIN_TOOL_NAMES)
    if not ids:
        return ToolRegistry(enabled=frozenset(), disabled=frozenset(), builtins=builtins)
    nodes = list(IntentNode.objects.filter(mcp_tool_id__in=ids).values(*_NODE_FIELDS))
    named = frozenset(n["mcp_tool_id"] for n in nodes)
    live = [n for n in nodes if n["deleted_at"] is None and n["enabled"] and n["kind"] == IntentNode.Kind.MCP]
    with_children = (
        set(
            IntentNode.objects.filter(parent_id__in=[n["id"] for n in live], deleted_at__isnull=True).values_list(
                "parent_id", flat=True
            )
        )
        if live
        else set()
    )
    live = [n for n in live if n["id"] not in with_children]
    known: dict[int, dict] = {}
    pending = {n["parent_id"] for n in live if n["parent_id"] is not None}
    while pending:  # one query per tree level
        rows = list(IntentNode.objects.filter(id__in=pending).values(*_NODE_FIELDS))
        known.update((r["id"], r) for r in rows)
        pending = {r["parent_id"] for r in rows if r["parent_id"] is not None and r["parent_id"] not in known}

    def reachable(node: dict) -> bool:
        seen: set[int] = set()
        parent = node["parent_id"]
        while parent is not None:
            up = known.get(parent)
            if up is None or parent in seen or up["deleted_at"] is not None or not up["enabled"]:
                return False
            seen.add(parent)
            parent = up["parent_id"]
        return True

    candidates = {n["mcp_tool_id"].strip() for n in live if reachable(n)} & ids
    removed = (
        set(McpTool.objects.filter(name__in=candidates, removed_at__isnull=False).values_list("name", flat=True))
        if candidates
        else set()
    )
    enabled = frozenset(candidates - removed)
    return ToolRegistry(enabled=enabled, disabled=named - enabled, builtins=builtin_tool_names())


def catalog_lints(catalog: dom.Catalog) -> tuple:
    """``domain.lints.lint_catalog`` of ``catalog``, kept on the catalog object
    (``Catalog.derived``): the draft catalog is kept per process until a write (``draft_cache``),
    so the skill list, which shows them on every visit, lints each draft once."""
    from skill_rule.lints import lint_catalog

    return catalog.derived("console_lints", lambda: lint_catalog(catalog))


def skill_list(*, include_deleted: bool = False, with_manual: bool = True) -> list[Skill]:
    """Live skills by sort order (or every skill, deleted last, when ``include_deleted``).
    ``with_manual=False`` leaves each manual (``content``) in the database: reading it later costs
    one query per skill, so only a caller that never reads it passes it (the skill list page)."""
    qs = Skill.objects.all() if include_deleted else Skill.objects.live()
    if not with_manual:
        qs = qs.defer("content")
    return list(qs.order_by("deleted_at", "sort_order", "skill_code"))


def skill_get(*, code: str) -> Skill | None:
    """The live skill with this code, or ``None``."""
    if "\x00" in code:  # no code holds NUL (and PostgreSQL refuses it in a query): nothing found
        return None
    return Skill.objects.live().filter(skill_code=code).first()


def live_skill_codes(codes: Iterable[str]) -> set[str]:
    """Those of ``codes`` that name a live skill (one query; none for no codes)."""
    wanted = {c for c in codes if c and "\x00" not in c}
    if not wanted:
        return set()
    return set(Skill.objects.live().filter(skill_code__in=wanted).values_list("skill_code", flat=True))


def _domain_skill(s: Skill) -> dom.Skill:
    return dom.Skill(
        code=s.skill_code,
        name=s.name,
        description=s.description,
        content=s.content,
        tool_ids=tuple(s.tool_ids),
        sort_order=s.sort_order,
        enabled=s.enabled,
        version=s.version,
    )


def catalog_draft() -> dom.Catalog:
    """The draft catalog as the rule sees it: builtins then MCP tools in intent-tree order, live
    skills, profiles, stages and the marker/eviction/load_skill-header/catalog-placement settings. One query (the
    settings) when this process already built it since the last committed write, else a fixed
    number (``skills_app/catalog/draft_cache.py``); always built afresh inside a transaction."""
    settings = ConsoleSettings.current()
    return draft_catalog(settings, lambda: _catalog_draft_build(settings))


def _catalog_draft_build(settings: ConsoleSettings) -> dom.Catalog:
    tools: list[dom.Tool] = []
    for b in BuiltinTool.objects.order_by("sort_order", "name"):
        tools.append(
            dom.Tool(
                name=b.name,
                kind=dom.BUILTIN,
                description=b.description,
                input_schema=b.parameters or {"type": "object"},
            )
        )
    for row in mcp_nodes(include_unavailable=False):
        d = row.definition
        tools.append(
            dom.Tool(
                name=row.tool_id,
                kind=dom.MCP,
                title=(d.title if d else "") or row.node.name,
                description=(d.description if d else "") or row.node.description,
                input_schema=(d.input_schema if d and d.input_schema else {"type": "object"}),
                annotations=(d.annotations if d else {}),
                require_confirm=row.require_confirm,
                # the call target (docs/mcp.md, "How a runtime maps calls back"): synced tools only
                server=d.mcp_server.name if d and d.mcp_server_id else None,
                mcp_name=d.real_name if d and d.mcp_server_id else None,
            )
        )
    return dom.Catalog(
        tools=tuple(tools),
        skills=tuple(_domain_skill(s) for s in Skill.objects.live()),
        profiles={
            p.name: dom.Restriction(p.name, frozenset(p.tools), p.description) for p in AccessProfile.objects.all()
        },
        stages={p.name: dom.Restriction(p.name, frozenset(p.tools), p.description) for p in Stage.objects.all()},
        marker_key=settings.marker_key,
        eviction_prefix=settings.eviction_prefix,
        load_skill_header=settings.load_skill_header,
        catalog_placement=settings.catalog_placement,
        earlier_manuals=published_manual_digests(),
        payload_targets=tuple(settings.payload_targets),
        payload_budgets=dict(settings.payload_budgets or {}),
    )


#: Release snapshot sha256 → the manual digests it holds (``_release_digests``): a release never
#: changes and its sha256 names its content, so each is read once per process.
_release_digests_kept: dict[str, tuple[tuple[str, ManualDigest], ...]] = {}


_release_digests_lock = threading.Lock()


def _release_digests(skills: object) -> tuple[tuple[str, ManualDigest], ...]:
    """``(code, digest)`` of every manual a release snapshot's ``skills`` published or accepted:
    each skill's current manual and its ``earlier_manuals``; items of the wrong shape are skipped."""
    out: list[tuple[str, ManualDigest]] = []
    for item in skills if isinstance(skills, list) else ():
        if not isinstance(item, dict) or not isinstance(item.get("code"), str):
            continue
        content, version = item.get("content"), item.get("version")
        if isinstance(content, str) and isinstance(version, int) and not isinstance(version, bool) and version >= 1:
            out.append((item["code"], digest(content, version)))
        for d in item.get("earlier_manuals") or () if isinstance(item.get("earlier_manuals"), list) else ():
            read = digest_from_dict(d)
            if read is not None:
                out.append((item["code"], read))
    return tuple(out)


def published_manual_digests() -> dict[str, tuple[ManualDigest, ...]]:
    """Skill code → the digest of every manual the releases in the database published for it (each
    skill's manual in every release snapshot, and the earlier manuals a snapshot carried), for
    ``Catalog.earlier_manuals`` of the draft: ``Catalog.published_manuals`` keeps those of a lower
    version than the draft's and with another text (docs/transcripts.md, "A whole published
    manual"). One light query (numbers and sha256) plus, for a release this process has not read
    yet, its snapshot's skills."""
    rows = list(Release.objects.order_by("number").values_list("pk", "sha256"))
    with _release_digests_lock:
        missing = [pk for pk, sha in rows if sha not in _release_digests_kept]
    if missing:
        for sha, skills in Release.objects.filter(pk__in=missing).values_list("sha256", "snapshot__skills"):
            found = _release_digests(skills)
            with _release_digests_lock:
                _release_digests_kept[sha] = found
    out: dict[str, dict[str, ManualDigest]] = {}
    with _release_digests_lock:
        for _pk, sha in rows:
            for code, d in _release_digests_kept.get(sha, ()):
                kept = out.setdefault(code, {})
                if d.sha256 not in kept or kept[d.sha256].version < d.version:
                    kept[d.sha256] = d
    return {code: tuple(sorted(ds.values(), key=lambda d: -d.version)) for code, ds in out.items()}
