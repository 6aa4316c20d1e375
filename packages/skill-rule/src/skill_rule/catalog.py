"""The catalog the rule runs against: registered tools, skills, access profiles and stages.

Frozen dataclasses built either from the draft database (``skills_app.catalog.selectors``) or from a
release snapshot; the rule in ``rules.py`` only ever sees these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any

from .errors import Problem
from .limits import (
    BUILTIN_TOOL_NAMES,
    DEFAULT_CATALOG_PLACEMENT,
    DEFAULT_EVICTION_PREFIX,
    DEFAULT_LOAD_SKILL_HEADER,
    DEFAULT_MARKER_KEY,
    DEFAULT_PAYLOAD_TARGETS,
    LOAD_SKILL,
)
from .manuals import ManualDigest, digest, published_manuals
from .tooldefs import validate_tool_definition

BUILTIN = "builtin"
MCP = "mcp"


@dataclass(frozen=True)
class Tool:
    """One registered tool.

    ``kind`` is ``"builtin"`` or ``"mcp"``; ``input_schema`` is the JSON Schema of the arguments
    (MCP ``inputSchema``); ``annotations`` the MCP tool annotations; ``require_confirm`` whether a
    call stops at a confirmation card (docs/rule.md guard).

    ``name`` is the model-facing name (what the model calls). ``server`` is the name of the MCP
    server record the tool was synced from and ``mcp_name`` the name that server knows it by
    (``skill_rule.naming``); both ``None`` for builtins and for MCP tools typed in without a server.
    ``call_target`` maps a call back to the real tool (docs/mcp.md, "How a runtime maps calls back").
    """

    name: str
    kind: str = MCP
    title: str = ""
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object"})
    annotations: Mapping[str, Any] = field(default_factory=dict)
    require_confirm: bool = False
    server: str | None = None
    mcp_name: str | None = None

    @property
    def call_target(self) -> dict[str, str] | None:
        """``{"server": <server record name>, "tool": <real MCP tool name>}`` — where a call to
        ``name`` goes — or ``None`` for a builtin or an MCP tool with no server (the runtime runs
        those by ``name`` itself). docs/mcp.md, "How a runtime maps calls back"."""
        if self.kind != MCP or not self.server or not self.mcp_name:
            return None
        return {"server": self.server, "tool": self.mcp_name}

    def as_dict(self) -> dict[str, Any]:
        """JSON shape used in releases and the runtime API (a stored ``inputSchema`` or
        ``annotations`` that is no object is served as stored; see ``Catalog.tool_problems``).
        ``server`` and ``mcp_name`` are present only when set, so a tool without them has the
        format-1 shape (and a format-1 release keeps its sha256, docs/releases.md)."""
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "title": self.title,
            "description": self.description,
            "inputSchema": json_copy(self.input_schema),
            "annotations": json_copy(self.annotations),
            "require_confirm": self.require_confirm,
        }
        if self.server is not None:
            out["server"] = self.server
        if self.mcp_name is not None:
            out["mcp_name"] = self.mcp_name
        return out


def json_copy(value: Any) -> Any:
    """A mapping as a plain ``dict``; anything else as it is (stored JSON of the wrong shape)."""
    return dict(value) if isinstance(value, Mapping) else value


@dataclass(frozen=True)
class Skill:
    """A skill manual: ``tool_ids`` are the MCP tools it gates (docs/design.md)."""

    code: str
    name: str
    description: str
    content: str
    tool_ids: tuple[str, ...] = ()
    sort_order: int = 0
    enabled: bool = True
    version: int = 1

    @property
    def order_key(self) -> tuple[int, str]:
        """Attribution order of docs/rule.md: ``sort_order``, then code."""
        return (self.sort_order, self.code)


@dataclass(frozen=True)
class Restriction:
    """An access profile or a task stage: a name and the set of MCP tool names it allows."""

    name: str
    tools: frozenset[str]
    description: str = ""


@dataclass(frozen=True)
class Catalog:
    """Everything one round is computed from.

    ``tools`` are *all* registered tools in registration order (builtins first, then MCP tools in
    intent-tree order). ``load_skill`` may be listed; it only counts as registered while at least
    one skill is enabled (docs/design.md). ``skills`` may include disabled skills; they gate nothing.
    ``profiles`` and ``stages`` map names to restrictions. The derived views below are computed
    once per catalog (``cached_property``): every round and every guard check reads them.
    ``load_skill_header`` opens the generated ``load_skill`` description (``payload.py``);
    ``catalog_placement`` (``limits.CATALOG_PLACEMENTS``) says whether the catalog lines follow it
    there (``tool_description``) or go to the system prompt as ``payload.catalog_text``
    (``system_prompt``).
    ``earlier_manuals`` maps a skill code to the digests of the manuals published for it before,
    under an older version and with another text (``skill_rule.manuals``; from the releases): a
    retained manual of one of them still loads the skill, as that version (docs/transcripts.md,
    "A whole published manual"). A code absent from it accepts only its current manual.
    ``payload_targets`` names the provider targets each round's tools payload is checked against
    and ``payload_budgets`` maps a target to its budget in characters (absent: the profile's
    default), ``skill_rule.providers``; both are settings carried in every release.
    """

    tools: tuple[Tool, ...]
    skills: tuple[Skill, ...] = ()
    profiles: Mapping[str, Restriction] = field(default_factory=dict)
    stages: Mapping[str, Restriction] = field(default_factory=dict)
    marker_key: str = DEFAULT_MARKER_KEY
    eviction_prefix: str = DEFAULT_EVICTION_PREFIX
    release: int | None = None
    load_skill_header: str = DEFAULT_LOAD_SKILL_HEADER
    catalog_placement: str = DEFAULT_CATALOG_PLACEMENT
    earlier_manuals: Mapping[str, tuple[ManualDigest, ...]] = field(default_factory=dict)
    payload_targets: tuple[str, ...] = DEFAULT_PAYLOAD_TARGETS
    payload_budgets: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # settings read back from JSON come as a list and a dict
        object.__setattr__(self, "payload_targets", tuple(self.payload_targets))
        object.__setattr__(self, "payload_budgets", MappingProxyType(dict(self.payload_budgets)))
        object.__setattr__(self, "profiles", MappingProxyType(dict(self.profiles)))
        object.__setattr__(self, "stages", MappingProxyType(dict(self.stages)))
        object.__setattr__(
            self, "earlier_manuals", MappingProxyType({code: tuple(ds) for code, ds in self.earlier_manuals.items()})
        )

    def derived(self, key: str, build: Callable[[], Any]) -> Any:
        """A value derived from this catalog alone (``build()``), built once and kept on the frozen
        catalog object like its ``cached_property`` views, under ``key``: the rule's round shapes
        and validators, the console's lints and snapshot digest. Whoever holds the catalog holds
        its derived values; a different catalog (a new draft) starts with none — except under a
        key starting with ``TOOLS_ONLY``: such a value is computed from ``tools`` alone, so a
        catalog made by ``with_skills`` (the same ``tools``) keeps it on, and reads it from, the
        catalog it was made from."""
        store = self.__dict__
        if key.startswith(self.TOOLS_ONLY):
            store = store.get("_tools_origin", self).__dict__
        if key not in store:
            store[key] = build()
        return store[key]

    #: ``derived`` keys of values computed from ``tools`` alone (shared with ``with_skills`` copies).
    TOOLS_ONLY = "tools:"

    #: Derived views that depend on ``tools`` and on whether any skill is enabled, nothing else.
    _TOOL_VIEWS = ("registered_tools", "tools_by_name", "tool_problems", "builtin_names", "mcp_tool_names")

    def with_skills(self, skills: tuple[Skill, ...]) -> Catalog:
        """This catalog with ``skills`` instead of its own (the editor's unsaved draft in place of
        the stored skill). The tool views (``_TOOL_VIEWS``: the schema checks of every tool among
        them) are carried over when the new skills leave the same answer to "is any skill
        enabled" — the only thing of the skills they depend on — computed here first when this
        catalog has not yet: the draft catalog is kept per change (the console's draft cache), so
        the editor's every request reuses its schema checks instead of redoing them on a copy."""
        other = replace(self, skills=skills)
        other.__dict__["_tools_origin"] = self.__dict__.get("_tools_origin", self)
        if bool(self.enabled_skills) == bool(other.enabled_skills):
            for name in self._TOOL_VIEWS:
                other.__dict__[name] = getattr(self, name)
        return other

    def prepare(self) -> Catalog:
        """Compute every derived view (``cached_property``) now and return this catalog. A
        simulation calls it before its time budget starts: checking 2,000 tool schemas is the
        catalog's one-time cost (kept with the catalog), not the run's (docs/simulator.md, "Limits")."""
        for name, attr in type(self).__dict__.items():
            if isinstance(attr, cached_property):
                getattr(self, name)
        return self

    @cached_property
    def enabled_skills(self) -> tuple[Skill, ...]:
        """Enabled skills ordered by ``sort_order`` then code (``E`` of docs/rule.md)."""
        return tuple(sorted((s for s in self.skills if s.enabled), key=lambda s: s.order_key))

    def skill(self, code: str) -> Skill | None:
        """The enabled skill with this code, or ``None`` (disabled skills are not on offer).
        A dict lookup (``skills_by_code``), never a scan."""
        return self.skills_by_code.get(code)

    @cached_property
    def skills_by_code(self) -> Mapping[str, Skill]:
        """Enabled skill code → the skill (the first one listed when a code repeats); built once."""
        out: dict[str, Skill] = {}
        for s in self.skills:
            if s.enabled:
                out.setdefault(s.code, s)
        return MappingProxyType(out)

    @cached_property
    def published_manuals(self) -> Mapping[str, tuple[ManualDigest, ...]]:
        """Enabled skill code → the digests of the manuals a ``load_skill`` result of it may hold
        (``manuals.published_manuals``: the current manual first, then the earlier published ones,
        newest first). What ``transcript.read_result`` checks a result against; hashed once per
        catalog, never per round (docs/rule.md, "Cost")."""
        return MappingProxyType(
            {
                code: published_manuals(digest(s.content, s.version), self.earlier_manuals.get(code, ()))
                for code, s in self.skills_by_code.items()
            }
        )

    @cached_property
    def registered_tools(self) -> tuple[Tool, ...]:
        """Registered tools in registration order; ``load_skill`` only while a skill is enabled."""
        has_skill = bool(self.enabled_skills)
        return tuple(t for t in self.tools if t.name != LOAD_SKILL or has_skill)

    def tool(self, name: str) -> Tool | None:
        """The registered tool with this name, or ``None``. A dict lookup (``tools_by_name``)."""
        return self.tools_by_name.get(name)

    @cached_property
    def tools_by_name(self) -> Mapping[str, Tool]:
        """Registered tool name → the tool (the first one when a name repeats); built once."""
        out: dict[str, Tool] = {}
        for t in self.registered_tools:
            out.setdefault(t.name, t)
        return MappingProxyType(out)

    @cached_property
    def gated_tool_ids(self) -> tuple[str, ...]:
        """``G`` of docs/rule.md in registration order, limited to registered tools: a tool that left
        the registry is neither visible nor masked (see ``dangling_tool_ids``)."""
        gated: set[str] = set()
        for s in self.enabled_skills:
            gated.update(s.tool_ids)
        return tuple(t.name for t in self.registered_tools if t.name in gated)

    @cached_property
    def gated_set(self) -> frozenset[str]:
        """``gated_tool_ids`` as a set, for membership tests."""
        return frozenset(self.gated_tool_ids)

    @cached_property
    def gating_skills(self) -> Mapping[str, tuple[str, ...]]:
        """Tool id → codes of every enabled skill whose ``tool_ids`` hold it (``sort_order``, then
        code), registered or not: what the lints, the tool pickers and the tools page show as
        "gated by". Built once per catalog."""
        out: dict[str, list[str]] = {}
        for s in self.enabled_skills:
            for t in s.tool_ids:
                out.setdefault(t, []).append(s.code)
        return MappingProxyType({t: tuple(codes) for t, codes in out.items()})

    @cached_property
    def gate_owner(self) -> Mapping[str, str]:
        """Gated tool → code of the first enabled skill (``sort_order``, then code) whose tool_ids
        hold it: the skill a masked tool names (docs/rule.md). Built once per catalog."""
        out: dict[str, str] = {}
        for s in self.enabled_skills:
            for t in s.tool_ids:
                out.setdefault(t, s.code)
        return MappingProxyType({t: out[t] for t in self.gated_tool_ids})

    @cached_property
    def dangling_tool_ids(self) -> Mapping[str, tuple[str, ...]]:
        """Enabled skill code → its tool_ids that are no registered tool (their MCP node was
        disabled or deleted after the skill was saved). Reported as warnings, never an error."""
        registered = {t.name for t in self.registered_tools}
        out: dict[str, tuple[str, ...]] = {}
        for s in self.enabled_skills:
            missing = tuple(t for t in s.tool_ids if t not in registered)
            if missing:
                out[s.code] = missing
        return MappingProxyType(out)

    @cached_property
    def tool_problems(self) -> Mapping[str, tuple[Problem, ...]]:
        """Registered tool name → its definition's problems (``Problem``s, codes of
        ``tooldefs.validate_tool_definition``), only for tools that have some. Such a tool is still
        served (with a ``problems`` entry); the guard refuses calls to it
        (``invalid_tool_definition``) and a publish gate can refuse on a non-empty map."""
        out: dict[str, tuple[Problem, ...]] = {}
        for t in self.registered_tools:
            problems = validate_tool_definition(t.name, t.input_schema)
            if not isinstance(t.annotations, Mapping):
                problems += (Problem("annotations_not_object", "annotations must be a JSON object"),)
            if problems:
                out[t.name] = problems
        return MappingProxyType(out)

    @cached_property
    def builtin_names(self) -> tuple[str, ...]:
        """Names of the builtin tools (reserved, never a skill tool_id)."""
        names = [t.name for t in self.tools if t.kind == BUILTIN]
        return tuple(names) if names else BUILTIN_TOOL_NAMES

    @cached_property
    def mcp_tool_names(self) -> tuple[str, ...]:
        """Registered MCP tool names in registration order."""
        return tuple(t.name for t in self.tools if t.kind == MCP)
