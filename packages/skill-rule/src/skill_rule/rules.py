"""The rule the product exists to show (docs/rule.md): loaded skills, masked tools, visible tools,
the execution guard and the repeat-load rule. Plain Python; used by the console, the API and the
CLI alike.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import filterfalse
from typing import Any

import jsonschema

from . import payload, transcript
from .catalog import BUILTIN, Catalog, Restriction, Skill
from .errors import Problem, UnknownRestrictionError
from .limits import ARGUMENT_ERROR_MAX_CHARS, LOAD_SKILL, is_valid_skill_code
from .messages import (
    Message,
    ToolCall,
    ambiguous_call,
    as_messages,
    call_ambiguity,
    carrier_conflict,
    parse_arguments,
)
from .tooldefs import dialect_validator

# Verdicts and reasons of the guard (docs/runtime-api.md check-call).
ALLOWED = "allowed"
REFUSED = "refused"
CONFIRM = "confirm"
REASON_MASKED = "masked"
REASON_UNKNOWN_TOOL = "unknown_tool"
REASON_UNKNOWN_SKILL = "unknown_skill"
REASON_NOT_PERMITTED = "not_permitted"
REASON_STAGE = "stage"
REASON_INVALID_ARGUMENTS = "invalid_arguments"
REASON_INVALID_TOOL_DEFINITION = "invalid_tool_definition"


def tool_definition_warnings(catalog: Catalog) -> tuple[Problem, ...]:
    """One ``tool_definition_invalid`` warning per registered tool whose stored definition breaks
    the rule of ``tooldefs.validate_tool_definition`` (the guard refuses calls to it)."""
    return tuple(
        Problem(
            "tool_definition_invalid",
            "tool '%(tool)s' has an invalid definition (%(problems)s); calls to it are refused",
            {"tool": name, "problems": "; ".join(problems), "problem_codes": [p.code for p in problems]},
        )
        for name, problems in catalog.tool_problems.items()
    )


@dataclass(frozen=True)
class Restrictions:
    """The access restrictions of one round, resolved against the catalog.

    ``profile`` / ``stage`` are the names given (or ``None``); ``allowed`` the intersection of the
    MCP tool names they allow (``None`` = no restriction); ``warnings`` name tools that a profile or
    stage lists but the registry no longer has (docs/rule.md: dropped with a warning, never an error).
    """

    profile: str | None = None
    stage: str | None = None
    explicit: frozenset[str] | None = None
    profile_tools: frozenset[str] | None = None
    stage_tools: frozenset[str] | None = None
    warnings: tuple[str, ...] = ()

    def permits(self, tool_name: str) -> bool:
        """True when neither the profile/explicit list nor the stage excludes this MCP tool."""
        return self.profile_permits(tool_name) and self.stage_permits(tool_name)

    def profile_permits(self, tool_name: str) -> bool:
        """True unless the access profile or the explicit allowed list leaves this MCP tool out."""
        if self.profile_tools is not None and tool_name not in self.profile_tools:
            return False
        return self.explicit is None or tool_name in self.explicit

    def stage_permits(self, tool_name: str) -> bool:
        """True unless the task stage leaves this MCP tool out."""
        return self.stage_tools is None or tool_name in self.stage_tools


def resolve_restrictions(
    catalog: Catalog,
    *,
    access_profile: str | None = None,
    stage: str | None = None,
    allowed_tools: Iterable[str] | None = None,
) -> Restrictions:
    """Look up the named access profile and stage (docs/design.md, seed 004).

    ``allowed_tools`` is an explicit list of MCP tool names that stands in for (or narrows) a
    profile. Raises ``UnknownRestrictionError`` for a name the catalog does not define, listing the
    names on offer. Tools a restriction lists but the registry lacks are reported in ``warnings``.
    """
    if access_profile is None and stage is None and allowed_tools is None:  # the common case: none
        return _UNRESTRICTED
    registered = _per_catalog(
        catalog,
        "_rules_mcp_tool_set",  # pragma: no mutate
        lambda: frozenset(catalog.mcp_tool_names),
    )
    warnings: list[Problem] = []

    def lookup(kind: str, name: str, table: Mapping[str, Restriction]) -> frozenset[str]:
        if name not in table:
            raise UnknownRestrictionError(kind, name, sorted(table))
        tools = table[name].tools
        missing = sorted(tools - registered)
        if missing:
            warnings.append(
                Problem(
                    "restriction_unregistered",
                    "%(kind)s '%(name)s' lists tools that are no longer registered: %(tools)s",
                    {"kind": kind, "name": name, "tools": ", ".join(missing), "tool_list": missing},
                )
            )
        return frozenset(tools & registered)

    profile_tools = lookup("access profile", access_profile, catalog.profiles) if access_profile else None
    stage_tools = lookup("stage", stage, catalog.stages) if stage else None
    explicit = None
    if allowed_tools is not None:
        names = frozenset(allowed_tools)
        missing = sorted(names - registered - set(catalog.builtin_names))
        if missing:
            warnings.append(
                Problem(
                    "allowed_unregistered",
                    "allowed tools that are not registered: %(tools)s",
                    {"tools": ", ".join(missing), "tool_list": missing},
                )
            )
        explicit = frozenset(names & registered)
    return Restrictions(
        profile=access_profile or None,
        stage=stage or None,
        explicit=explicit,
        profile_tools=profile_tools,
        stage_tools=stage_tools,
        warnings=tuple(warnings),
    )


#: The restrictions of a round that names none (``resolve_restrictions`` with no arguments).
_UNRESTRICTED = Restrictions(profile=None, stage=None, explicit=None, profile_tools=None, stage_tools=None, warnings=())


@dataclass(frozen=True)
class RoundView:
    """What the model is given in one round.

    ``visible`` lists tool names in registration order; ``masked`` maps each masked tool to the
    skill to load (first unloaded gating skill by sort_order, then code); ``loaded`` lists loaded
    skill codes in catalog order; ``gated`` is ``G``; ``withheld`` maps tools that are not masked but
    dropped by the access profile (``"not_permitted"``) or the stage (``"stage"``).
    """

    visible: tuple[str, ...]
    masked: Mapping[str, str]
    loaded: tuple[str, ...]
    gated: tuple[str, ...]
    builtins: tuple[str, ...]
    mcp_visible: tuple[str, ...]
    withheld: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        """Number of tools the model is given."""
        return len(self.visible)

    @property
    def released(self) -> tuple[str, ...]:
        """Gated tools that a loaded manual makes visible this round (a withheld tool is never
        released, docs/rule.md)."""
        shown = frozenset(self.mcp_visible)
        return tuple(t for t in self.gated if t in shown)

    def as_dict(self, only: Container[str] | None = None, *, copies: bool = True) -> dict[str, Any]:
        """JSON shape of docs/runtime-api.md ``rounds`` (lists always present). ``only`` names the
        keys wanted (the others are not computed: ``released`` and ``gated`` cost O(gated tools));
        ``None`` = all, in this order. ``copies=False`` gives the view's own tuples and mappings
        instead of lists and dicts of their own (for a read-only use such as rendering: a large
        catalog's ``masked`` holds thousands of tools)."""
        seq: Callable[[Any], Any] = list if copies else tuple  # tuple() of a tuple is that tuple
        mapping: Callable[[Any], Any] = dict if copies else _itself
        fields: tuple[tuple[str, Callable[[], Any]], ...] = (
            ("loaded", lambda: seq(self.loaded)),
            ("masked", lambda: mapping(self.masked)),
            ("visible", lambda: seq(self.visible)),
            ("count", lambda: self.count),
            ("builtins", lambda: seq(self.builtins)),
            ("mcp_visible", lambda: seq(self.mcp_visible)),
            ("released", lambda: seq(self.released)),
            ("gated", lambda: seq(self.gated)),
            ("withheld", lambda: mapping(self.withheld)),
            ("warnings", lambda: seq(self.warnings)),
            ("warning_details", lambda: [warning_detail(w) for w in self.warnings]),
        )
        return {key: build() for key, build in fields if only is None or key in only}


def _itself(value: Any) -> Any:
    return value


def warning_detail(warning: str) -> dict[str, Any]:
    """A round warning as ``{"code", "index", "message"}``: ``code`` the stable code (``None``
    for a plain string), ``index`` the 0-based message it names (``None`` when it names none),
    ``message`` the English sentence (docs/transcripts.md, "Warnings")."""
    params = getattr(warning, "params", None) or {}
    index = params.get("index")
    return {
        "code": getattr(warning, "code", None),
        "index": index if isinstance(index, int) else None,
        "message": str(warning),
    }


def is_evicted(message: Message, catalog: Catalog) -> bool:
    """True when a tool result was replaced by the eviction placeholder (docs/rule.md)."""
    return transcript.is_evicted(message, catalog.eviction_prefix)


def read_evidence(catalog: Catalog, messages: Iterable[Message | Mapping[str, Any]]) -> transcript.Evidence:
    """The loaded manuals and transcript warnings of ``messages`` under ``catalog``'s marker key
    and eviction prefix (``transcript.read_evidence``; docs/transcripts.md)."""
    return transcript.read_evidence(
        as_messages(messages),
        marker_key=catalog.marker_key,
        eviction_prefix=catalog.eviction_prefix,
        published=catalog.published_manuals,
    )


def loaded_by_message(messages: Iterable[Message], catalog: Catalog) -> list[tuple[int, str]]:
    """Every retained tool result that counts as a loaded manual, as ``(position, skill_code)``
    (docs/transcripts.md, "What counts as a loaded manual"). Codes are not checked against the
    catalog here."""
    return [(m.position, m.code) for m in read_evidence(catalog, messages).manuals]


def loaded_skills(catalog: Catalog, messages: Iterable[Message]) -> tuple[str, ...]:
    """Codes of enabled skills loaded in the retained messages, in catalog order (docs/rule.md)."""
    codes = {code for _, code in loaded_by_message(messages, catalog)}
    return tuple(s.code for s in catalog.enabled_skills if s.code in codes)


def compute_round(
    catalog: Catalog,
    messages: Iterable[Message | Mapping[str, Any]],
    *,
    access_profile: str | None = None,
    stage: str | None = None,
    allowed_tools: Iterable[str] | None = None,
    restrictions: Restrictions | None = None,
) -> RoundView:
    """Compute one inference round (docs/rule.md).

    ``masked = G − ∪ tool_ids(loaded)``; ``visible`` = registered tools in registration order minus
    masked, and MCP tools outside the access profile / stage / explicit list dropped (builtins are
    never restricted). Raises ``UnknownRestrictionError`` for an unknown profile or stage name.
    """
    msgs = as_messages(messages)
    if restrictions is None:
        restrictions = resolve_restrictions(
            catalog, access_profile=access_profile, stage=stage, allowed_tools=allowed_tools
        )
    evidence = transcript.read_evidence(
        msgs,
        marker_key=catalog.marker_key,
        eviction_prefix=catalog.eviction_prefix,
        published=catalog.published_manuals,
    )
    return round_from_evidence(catalog, evidence, restrictions)


#: How many distinct (restrictions, loaded skills) round shapes a catalog keeps (``_round_shape``).
ROUND_SHAPE_CACHE_SIZE = 64


def _per_catalog(catalog: Catalog, key: str, build: Any) -> Any:
    """A value derived from ``catalog`` alone, built once and kept on the (frozen) catalog object
    (``Catalog.derived``; docs/rule.md, "Cost")."""
    return catalog.derived(key, build)


def _catalog_warnings(catalog: Catalog) -> tuple[tuple[Problem, ...], tuple[Problem, ...]]:
    """The warnings every round of ``catalog`` carries whatever the messages: invalid tool
    definitions, and skills gating unregistered tools (the restrictions' warnings go between)."""
    return _per_catalog(
        catalog,
        "_rules_catalog_warnings",  # pragma: no mutate
        lambda: (
            tool_definition_warnings(catalog),
            tuple(
                Problem(
                    "skill_gates_unregistered",
                    "skill '%(skill)s' gates tools that are no longer registered: %(tools)s",
                    {"skill": code, "tools": ", ".join(ids), "tool_list": list(ids)},
                )
                for code, ids in catalog.dangling_tool_ids.items()
            ),
        ),
    )


def _enabled_versions(catalog: Catalog) -> Mapping[str, tuple[int, tuple[str, ...]]]:
    """Enabled skill code → (current version, tool_ids), for ``transcript.outdated_warnings``."""
    return _per_catalog(
        catalog,
        "_rules_enabled_versions",  # pragma: no mutate
        lambda: {s.code: (s.version, s.tool_ids) for s in catalog.enabled_skills},
    )


def _round_shape(catalog: Catalog, restrictions: Restrictions, codes: frozenset[str]) -> tuple[Any, ...]:
    """``(visible, masked, loaded, builtins, mcp_visible, withheld)`` of a round whose evidence
    names the skill ``codes``: depends on the catalog, the restrictions and the loaded set only,
    so it is computed once per distinct set (O(tools)) and kept on the catalog (bounded by
    ``ROUND_SHAPE_CACHE_SIZE``). ``masked`` / ``withheld`` are shared: callers copy them."""
    cache: dict[Any, Any] = _per_catalog(
        catalog,
        "_rules_round_shapes",  # pragma: no mutate
        dict,
    )
    enabled = catalog.skills_by_code
    loaded_set = frozenset(
        codes
    )  # the evidence's own set (frozenset() of a frozenset is that object): its hash is kept
    if not loaded_set <= enabled.keys():  # pragma: no mutate
        loaded_set = frozenset(c for c in loaded_set if c in enabled)
    key = (restrictions.profile_tools, restrictions.stage_tools, restrictions.explicit, loaded_set)
    hit = cache.get(key)
    if hit is not None:
        return hit
    # the loaded skills in catalog order, found through their positions: O(loaded), not O(skills)
    positions = _enabled_positions(catalog)
    ordered = sorted(i for code in loaded_set for i in positions[code])
    enabled_skills = catalog.enabled_skills
    loaded = tuple(enabled_skills[i].code for i in ordered)
    released: set[str] = set()
    for i in ordered:
        released.update(enabled_skills[i].tool_ids)
    owner = catalog.gate_owner
    visible: list[str] | tuple[str, ...]  # tuples on the fast path, lists built on the other
    builtins: list[str] | tuple[str, ...]
    mcp_visible: list[str] | tuple[str, ...]
    if (restrictions.profile_tools, restrictions.stage_tools, restrictions.explicit) == (None, None, None):
        # no restriction: set lookups in comprehensions (the common case, and the cheap one)
        masked = dict(owner)  # every gated tool, in registration order, less the released ones
        for tool in released:
            masked.pop(tool, None)
        hidden = masked.__contains__
        names, builtin_names, mcp_names = _registered_kinds(catalog)
        visible = tuple(filterfalse(hidden, names))
        builtins = tuple(filterfalse(hidden, builtin_names))
        mcp_visible = tuple(filterfalse(hidden, mcp_names))
        withheld: dict[str, str] = {}
    else:
        masked = {}
        for tool in catalog.gated_tool_ids:
            if tool in released or not restrictions.permits(tool):
                continue  # released, or withheld: loading its manual would not make it visible
            masked[tool] = owner[tool]
        visible = []
        builtins = []
        mcp_visible = []
        withheld = {}
        for t in catalog.registered_tools:
            if t.name in masked:
                continue
            if t.kind == BUILTIN:
                visible.append(t.name)
                builtins.append(t.name)
                continue
            if not restrictions.profile_permits(t.name):
                withheld[t.name] = REASON_NOT_PERMITTED
                continue
            if not restrictions.stage_permits(t.name):
                withheld[t.name] = REASON_STAGE
                continue
            visible.append(t.name)
            mcp_visible.append(t.name)
    shape = (tuple(visible), masked, loaded, tuple(builtins), tuple(mcp_visible), withheld)
    if len(cache) >= ROUND_SHAPE_CACHE_SIZE:
        try:
            cache.pop(next(iter(cache)))  # drop the oldest
        except (KeyError, RuntimeError, StopIteration):  # another thread got there first
            pass
    cache[key] = shape
    return shape


def _enabled_positions(catalog: Catalog) -> Mapping[str, tuple[int, ...]]:
    """Enabled skill code → its positions in ``catalog.enabled_skills`` (one, unless a code is
    listed twice), so a round shape reads only the loaded skills."""

    def build() -> dict[str, tuple[int, ...]]:
        out: dict[str, tuple[int, ...]] = {}
        for i, s in enumerate(catalog.enabled_skills):
            out[s.code] = out.get(s.code, ()) + (i,)
        return out

    return _per_catalog(catalog, "_rules_enabled_positions", build)  # pragma: no mutate


def _registered_kinds(catalog: Catalog) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Names of the registered tools in registration order: all, the builtins, the others."""
    return _per_catalog(
        catalog,
        "_rules_registered_kinds",  # pragma: no mutate
        lambda: (
            tuple(t.name for t in catalog.registered_tools),
            tuple(t.name for t in catalog.registered_tools if t.kind == BUILTIN),
            tuple(t.name for t in catalog.registered_tools if t.kind != BUILTIN),
        ),
    )


def round_from_evidence(catalog: Catalog, evidence: transcript.Evidence, restrictions: Restrictions) -> RoundView:
    """``compute_round`` from evidence already read (``transcript.EvidenceReader``): the messages
    are not read again. Costs O(manuals + warnings) plus, for a loaded set not seen before under
    these restrictions, O(tools) (docs/rule.md, "Cost")."""
    visible, masked, loaded, builtins, mcp_visible, withheld = _round_shape(catalog, restrictions, evidence.codes)
    definitions, dangling = _catalog_warnings(catalog)
    return RoundView(
        visible=visible,
        masked=dict(masked),
        loaded=loaded,
        gated=catalog.gated_tool_ids,
        builtins=builtins,
        mcp_visible=mcp_visible,
        withheld=dict(withheld),
        warnings=evidence.warnings
        + transcript.outdated_warnings(evidence, _enabled_versions(catalog))
        + definitions
        + restrictions.warnings
        + dangling,
    )


@dataclass(frozen=True)
class Verdict:
    """The guard's answer to one call (docs/runtime-api.md ``check-call``).

    ``verdict`` is ``allowed`` / ``refused`` / ``confirm``; ``reason`` one of ``masked``,
    ``unknown_tool``, ``unknown_skill``, ``not_permitted``, ``stage``, ``invalid_arguments`` or
    ``None``; ``skill_code`` the manual to load for a masked tool (or the code asked of
    ``load_skill``); ``message`` a sentence for the operator and the model. ``server`` / ``tool``:
    where an ``allowed`` or ``confirm`` call to an MCP tool goes — the MCP server record's name and
    the tool's real name there (``Tool.call_target``); ``None`` otherwise (docs/mcp.md, "How a
    runtime maps calls back").
    """

    name: str
    verdict: str
    reason: str | None = None
    skill_code: str | None = None
    message: str = ""
    arguments: Mapping[str, Any] = field(default_factory=dict)
    server: str | None = None
    tool: str | None = None

    @property
    def target(self) -> dict[str, str] | None:
        """``{"server", "tool"}`` when the call may run (or run once confirmed) on an MCP server,
        else ``None`` (refused, a builtin, or an MCP tool with no server)."""
        if self.server is None or self.tool is None:
            return None
        return {"server": self.server, "tool": self.tool}

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "verdict": self.verdict,
            "reason": self.reason,
            "skill_code": self.skill_code,
            "message": self.message,
        }


def _validators(catalog: Catalog) -> dict[int, Any]:
    """The JSON-Schema validators of ``catalog``'s tools, built on first use (keyed by the id of
    the schema object, which the frozen catalog keeps alive)."""
    return _per_catalog(
        catalog,
        "_rules_validators",  # pragma: no mutate
        dict,
    )


def _validate_arguments(
    schema: Mapping[str, Any], arguments: Mapping[str, Any], validators: dict[int, Any]
) -> str | None:
    """Return the first JSON-Schema error as ``path: message`` or ``None`` when valid; past
    ``ARGUMENT_ERROR_MAX_CHARS`` characters the rest is cut and counted.
    ``validators`` caches the validator of each schema (the catalog's, ``_validators``; a validator
    that fails to build is not kept: the error is raised again on the next call)."""
    validator = validators.get(id(schema))
    if validator is None:
        validator_cls = dialect_validator(schema)  # 2020-12 without $schema; None for a dialect it does not know
        if validator_cls is None:  # never validated as another dialect: the guard refuses invalid_tool_definition
            raise jsonschema.exceptions.SchemaError(f"unknown $schema dialect {schema.get('$schema')!r}")
        validator = validator_cls(schema)
        validators[id(schema)] = validator
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
    if not errors:
        return None
    err = errors[0]
    where = "/".join(str(p) for p in err.path) or "(arguments)"
    detail = f"{where}: {err.message}"
    if len(detail) > ARGUMENT_ERROR_MAX_CHARS:  # a quoted value of megabytes must not flood the model
        detail = f"{detail[:ARGUMENT_ERROR_MAX_CHARS]}… ({len(detail) - ARGUMENT_ERROR_MAX_CHARS} more characters)"
    return detail


def check_call(
    catalog: Catalog,
    messages: Iterable[Message | Mapping[str, Any]],
    call: ToolCall | Mapping[str, Any],
    *,
    access_profile: str | None = None,
    stage: str | None = None,
    allowed_tools: Iterable[str] | None = None,
    restrictions: Restrictions | None = None,
    view: RoundView | None = None,
) -> Verdict:
    """The execution guard (docs/rule.md): never trust what the model was shown.

    Order of checks: unknown tool (refused, names on offer) → ``load_skill`` with an unknown,
    disabled or malformed code (refused ``unknown_skill`` before anything is read) → masked
    (refused with the skill to load) → access profile (``not_permitted``) → stage (``stage``) →
    arguments against ``inputSchema`` (``invalid_arguments``) → ``require_confirm`` (``confirm``)
    → allowed. A registered tool whose stored definition is invalid (``Catalog.tool_problems``)
    is refused ``invalid_tool_definition`` right after the unknown-tool check; arguments that are
    not a JSON object (or JSON text of one, ``ToolCall.problem``) are refused
    ``invalid_arguments`` where the schema check sits. Raises ``UnknownRestrictionError`` for an
    unknown profile or stage name; never raises for a bad call (docs/transcripts.md).
    """
    if not isinstance(call, ToolCall):
        call_name = str(call.get("name", ""))
        arguments, problem = parse_arguments(call.get("arguments", {}), name=call_name)
        twice = call_ambiguity(call) or carrier_conflict(call)  # a key or a name given twice (docs/transcripts.md)
        if twice is not None:
            arguments, problem = {}, ambiguous_call(call_name, twice)
        call_id = call.get("id")  # the round of the call is found by it (``call_round``)
        call = ToolCall(
            name=call_name, arguments=arguments, id=call_id if isinstance(call_id, str) else "", problem=problem
        )
    msgs = as_messages(messages)
    if restrictions is None:
        restrictions = resolve_restrictions(
            catalog, access_profile=access_profile, stage=stage, allowed_tools=allowed_tools
        )
    if view is None:
        view = compute_round(catalog, call_round(msgs, call), restrictions=restrictions)
    return guard(catalog, call, restrictions=restrictions, view=view)


def call_round(messages: tuple[Message, ...], call: ToolCall) -> tuple[Message, ...]:
    """The messages ``call`` is judged on: the context of the round in which the model made it
    (docs/rule.md, "The round of a call").

    The call is *carried* by the last assistant message of ``messages`` when that message holds
    a call with the same non-empty id — or, when ``call`` has no id, a call with the same name and
    equal (parsed) arguments. Only the last assistant message is searched: ids such as ``call_0``
    are reused every turn, older turns are history. Carried at position ``i`` → ``messages[:i]``
    (what the model saw when it chose the call; a sibling's ``load_skill`` result after it is not
    part of that round); not carried (a call about to be appended) → ``messages`` as given.
    Loaded(prefix) ⊆ loaded(all), so this is never less strict. O(messages)."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if m.role != "assistant":
            continue
        if call.id:
            carried = any(c.id == call.id for c in m.tool_calls)
        else:
            carried = any(c.name == call.name and dict(c.arguments) == dict(call.arguments) for c in m.tool_calls)
        return messages[:i] if carried else messages
    return messages


def _load_skill_parameters(catalog: Catalog) -> tuple[Mapping[str, Any], frozenset[str]] | None:
    """load_skill's published parameters (``payload.load_skill_definition``) and their property
    names, built once per catalog; ``None`` when no skill is enabled."""

    def build() -> tuple[Mapping[str, Any], frozenset[str]] | None:
        definition = payload.load_skill_definition(catalog)
        if definition is None:
            return None
        return definition.parameters, frozenset(definition.parameters.get("properties") or ())

    return _per_catalog(catalog, "_rules_load_skill_parameters", build)  # pragma: no mutate


def guard(catalog: Catalog, call: ToolCall, *, restrictions: Restrictions, view: RoundView) -> Verdict:
    """``check_call`` of a parsed ``call`` against a round already computed (``view``): the
    messages are not read again. O(1) lookups plus the argument check (docs/rule.md, "Cost")."""
    name, args = call.name, dict(call.arguments)
    tool = catalog.tool(name)
    if tool is None:
        on_offer = ", ".join(view.visible) or "none"
        return Verdict(
            name,
            REFUSED,
            REASON_UNKNOWN_TOOL,
            None,
            f"unknown tool {name!r}; tools on offer: {on_offer}"
            if name != name.strip()
            else f"unknown tool '{name}'; tools on offer: {on_offer}",
            args,
        )
    if name in catalog.tool_problems:
        problems = "; ".join(catalog.tool_problems[name])
        return Verdict(
            name,
            REFUSED,
            REASON_INVALID_TOOL_DEFINITION,
            None,
            f"tool '{name}' has an invalid definition and cannot be called: {problems}",
            args,
        )
    bad_encoding = (
        Verdict(name, REFUSED, REASON_INVALID_ARGUMENTS, None, f"invalid arguments for '{name}': {call.problem}", args)
        if call.problem is not None
        else None
    )
    if name == LOAD_SKILL:
        if bad_encoding is not None:
            return bad_encoding
        code = args.get("skill_code")
        if not isinstance(code, str) or not code:
            return Verdict(
                name,
                REFUSED,
                REASON_INVALID_ARGUMENTS,
                None,
                "invalid arguments for 'load_skill': skill_code: a skill code (text) is required",
                args,
            )
        if not isinstance(code, str) or not is_valid_skill_code(code) or catalog.skill(code) is None:
            offer = ", ".join(s.code for s in catalog.enabled_skills)
            return Verdict(
                name, REFUSED, REASON_UNKNOWN_SKILL, None, f"unknown skill {code!r}; skills on offer: {offer}", args
            )
        published = _load_skill_parameters(catalog)
        extra = sorted(k for k in args if published is None or k not in published[1])
        if extra:  # docs/rule.md: load_skill's arguments are checked against its published parameters
            keys = ", ".join(f"'{k}'" for k in extra)
            offered = ", ".join(sorted(published[1])) if published is not None else "none"
            return Verdict(
                name,
                REFUSED,
                REASON_INVALID_ARGUMENTS,
                None,
                f"invalid arguments for 'load_skill': unexpected {'key' if len(extra) == 1 else 'keys'} "
                f"{keys}; its parameters: {offered}",
                args,
            )
        if published is not None:
            try:
                problem = _validate_arguments(published[0], args, _validators(catalog))
            except Exception as exc:  # noqa: BLE001 — a registered schema the validator chokes on fails closed
                return Verdict(
                    name,
                    REFUSED,
                    REASON_INVALID_TOOL_DEFINITION,
                    None,
                    f"tool '{name}' has an invalid definition and cannot be called: {type(exc).__name__}",
                    args,
                )
            if problem is not None:
                return Verdict(
                    name,
                    REFUSED,
                    REASON_INVALID_ARGUMENTS,
                    None,
                    f"invalid arguments for 'load_skill': {problem}",
                    args,
                )
        return Verdict(name, ALLOWED, None, code, f"load the manual of '{code}'", args)
    if name in view.masked:
        owner = view.masked[name]
        return Verdict(
            name, REFUSED, REASON_MASKED, owner, f"tool '{name}' is masked: load_skill('{owner}') first", args
        )
    if tool.kind != BUILTIN:
        if not restrictions.profile_permits(name):
            who = f"access profile '{restrictions.profile}'" if restrictions.profile else "the allowed tool list"
            return Verdict(name, REFUSED, REASON_NOT_PERMITTED, None, f"tool '{name}' is not permitted by {who}", args)
        if not restrictions.stage_permits(name):
            return Verdict(
                name, REFUSED, REASON_STAGE, None, f"tool '{name}' is not allowed in stage '{restrictions.stage}'", args
            )
    if bad_encoding is not None:
        return bad_encoding
    try:
        problem = _validate_arguments(tool.input_schema, args, _validators(catalog))
    except Exception as exc:  # noqa: BLE001 — a schema the validator chokes on fails closed
        return Verdict(
            name,
            REFUSED,
            REASON_INVALID_TOOL_DEFINITION,
            None,
            f"tool '{name}' has an invalid definition and cannot be called: {type(exc).__name__}",
            args,
        )
    if problem is not None:
        return Verdict(
            name, REFUSED, REASON_INVALID_ARGUMENTS, None, f"invalid arguments for '{name}': {problem}", args
        )
    target = tool.call_target or {}
    server, real = target.get("server"), target.get("tool")
    if tool.require_confirm:
        return Verdict(
            name, CONFIRM, None, None, f"'{name}' needs the user's confirmation before it runs", args, server, real
        )
    return Verdict(name, ALLOWED, None, None, f"'{name}' may run", args, server, real)


@dataclass(frozen=True)
class LoadResult:
    """The ``load_skill`` tool result (docs/runtime-api.md ``load-skill``)."""

    state: str
    content: str
    metadata: Mapping[str, Any]
    already_loaded: bool
    version: int | None
    skill_code: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "content": self.content,
            "metadata": dict(self.metadata),
            "already_loaded": self.already_loaded,
            "version": self.version,
        }


def already_loaded_text(skill: Skill) -> str:
    """The short stub returned by a repeat load (carries no marker): ``transcript.ALREADY_LOADED_TEMPLATE``."""
    return transcript.already_loaded_stub(name=skill.name, code=skill.code, version=skill.version)


def load_skill(catalog: Catalog, messages: Iterable[Message | Mapping[str, Any]], skill_code: Any) -> LoadResult:
    """The ``load_skill`` result under the repeat-load rule (docs/rule.md).

    Unknown, disabled or malformed codes → ``state="error"`` before anything is read. While a full
    result of the skill's *current* version is retained (marker present, success, not evicted,
    ``metadata.skill_version`` equal to the version, or naming no version — an OpenAI or Anthropic
    transcript) → a short ``already_loaded`` stub without the marker. Otherwise the full manual with metadata ``{marker_key: code, "skill_version": v}``.
    """
    if not isinstance(skill_code, str) or not skill_code:
        return LoadResult("error", "load_skill needs a skill_code (text)", {}, False, None)
    if not is_valid_skill_code(skill_code) or catalog.skill(skill_code) is None:
        offer = ", ".join(s.code for s in catalog.enabled_skills) or "none"
        return LoadResult("error", f"unknown skill {skill_code!r}; skills on offer: {offer}", {}, False, None)
    return load_from_manuals(catalog, read_evidence(catalog, as_messages(messages)).manuals, skill_code)


def load_from_manuals(
    catalog: Catalog, manuals: Iterable[transcript.LoadedManual] | transcript.EvidenceReader, skill_code: Any
) -> LoadResult:
    """``load_skill`` from the loaded manuals already read: the messages are not read again. Given
    an ``EvidenceReader`` (the simulator), the repeat-load test is one lookup (docs/rule.md, "Cost")."""
    if not isinstance(skill_code, str) or not skill_code:
        return LoadResult("error", "load_skill needs a skill_code (text)", {}, False, None)
    if not is_valid_skill_code(skill_code) or catalog.skill(skill_code) is None:
        offer = ", ".join(s.code for s in catalog.enabled_skills) or "none"
        return LoadResult("error", f"unknown skill {skill_code!r}; skills on offer: {offer}", {}, False, None)
    skill = catalog.skill(skill_code)
    assert skill is not None
    if isinstance(manuals, transcript.EvidenceReader):
        retained = manuals.holds_manual(skill.code, skill.version)
    else:
        retained = any(m.code == skill.code and (m.version is None or m.version == skill.version) for m in manuals)
    if retained:
        return LoadResult(
            "success",
            already_loaded_text(skill),
            {"already_loaded": True, "skill_code": skill.code, "skill_version": skill.version},
            True,
            skill.version,
            skill.code,
        )
    return LoadResult(
        "success",
        skill.content,
        {catalog.marker_key: skill.code, "skill_version": skill.version},
        False,
        skill.version,
        skill.code,
    )
