"""ORACLE (reference copy, tests only — see __init__.py). The rule the product exists to show (docs/rule.md): loaded skills, masked tools, visible tools,
the execution guard and the repeat-load rule. Plain Python; used by the console, the API and the
CLI alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from skill_rule.catalog import BUILTIN, Catalog, Restriction, Skill
from skill_rule.errors import Problem, UnknownRestrictionError
from skill_rule.limits import LOAD_SKILL, is_valid_skill_code
from skill_rule.messages import Message, ToolCall, as_messages, parse_arguments

from . import transcript

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
    registered = set(catalog.mcp_tool_names)
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
        return tuple(t for t in self.gated if t in self.mcp_visible)

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of docs/runtime-api.md ``rounds`` (lists always present)."""
        return {
            "loaded": list(self.loaded),
            "masked": dict(self.masked),
            "visible": list(self.visible),
            "count": self.count,
            "builtins": list(self.builtins),
            "mcp_visible": list(self.mcp_visible),
            "released": list(self.released),
            "gated": list(self.gated),
            "withheld": dict(self.withheld),
            "warnings": list(self.warnings),
            "warning_details": [warning_detail(w) for w in self.warnings],
        }


def warning_detail(warning: str) -> dict[str, Any]:
    """A round warning as ``{"code", "index", "message"}``: ``code`` the stable code (``None``
    for a plain string), ``index`` the 0-based message it names (``None`` when it names none),
    ``message`` the English sentence (docs/transcripts.md, "Warnings")."""
    params = getattr(warning, "params", {}) or {}
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
    evidence = read_evidence(catalog, msgs)
    loaded = tuple(s.code for s in catalog.enabled_skills if s.code in evidence.codes)
    enabled = catalog.enabled_skills
    released: set[str] = set()
    for s in enabled:
        if s.code in loaded:
            released.update(s.tool_ids)
    gated = catalog.gated_tool_ids
    masked: dict[str, str] = {}
    for tool in gated:
        if tool in released or not restrictions.permits(tool):
            continue  # released, or withheld: loading its manual would not make it visible
        owner = next(s for s in enabled if tool in s.tool_ids)
        masked[tool] = owner.code
    visible: list[str] = []
    builtins: list[str] = []
    mcp_visible: list[str] = []
    withheld: dict[str, str] = {}
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
    return RoundView(
        visible=tuple(visible),
        masked=masked,
        loaded=loaded,
        gated=gated,
        builtins=tuple(builtins),
        mcp_visible=tuple(mcp_visible),
        withheld=withheld,
        warnings=evidence.warnings
        + transcript.outdated_warnings(evidence, {s.code: (s.version, s.tool_ids) for s in enabled})
        + tool_definition_warnings(catalog)
        + restrictions.warnings
        + tuple(
            Problem(
                "skill_gates_unregistered",
                "skill '%(skill)s' gates tools that are no longer registered: %(tools)s",
                {"skill": code, "tools": ", ".join(ids), "tool_list": list(ids)},
            )
            for code, ids in catalog.dangling_tool_ids.items()
        ),
    )


@dataclass(frozen=True)
class Verdict:
    """The guard's answer to one call (docs/runtime-api.md ``check-call``).

    ``verdict`` is ``allowed`` / ``refused`` / ``confirm``; ``reason`` one of ``masked``,
    ``unknown_tool``, ``unknown_skill``, ``not_permitted``, ``stage``, ``invalid_arguments`` or
    ``None``; ``skill_code`` the manual to load for a masked tool (or the code asked of
    ``load_skill``); ``message`` a sentence for the operator and the model.
    """

    name: str
    verdict: str
    reason: str | None = None
    skill_code: str | None = None
    message: str = ""
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "verdict": self.verdict,
            "reason": self.reason,
            "skill_code": self.skill_code,
            "message": self.message,
        }


def _validate_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """Return the first JSON-Schema error as ``path: message`` or ``None`` when valid."""
    validator_cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = validator_cls(schema)
    errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
    if not errors:
        return None
    err = errors[0]
    where = "/".join(str(p) for p in err.path) or "(arguments)"
    return f"{where}: {err.message}"


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
        call_name = call.get("name", "")
        call_name = call_name if isinstance(call_name, str) else str(call_name)
        arguments, problem = parse_arguments(call.get("arguments", {}), name=call_name)
        call_id = call.get("id")
        call = ToolCall(
            name=call_name, arguments=arguments, id=call_id if isinstance(call_id, str) else "", problem=problem
        )
    msgs = as_messages(messages)
    if restrictions is None:
        restrictions = resolve_restrictions(
            catalog, access_profile=access_profile, stage=stage, allowed_tools=allowed_tools
        )
    if view is None:
        # issue 22: a call carried by the last assistant message is judged in its own round
        last = max((i for i, m in enumerate(msgs) if m.role == "assistant"), default=None)
        if last is not None and any(
            (c.id == call.id) if call.id else (c.name == call.name and dict(c.arguments) == dict(call.arguments))
            for c in msgs[last].tool_calls
        ):
            msgs = msgs[:last]
        view = compute_round(catalog, msgs, restrictions=restrictions)
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
            if name != name.strip() or not name
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
        # issue 22: load_skill's own arguments against its published parameters
        from skill_rule.payload import load_skill_definition

        published = load_skill_definition(catalog).parameters
        extra = sorted(set(args) - set(published["properties"]))
        if extra:
            return Verdict(
                name,
                REFUSED,
                REASON_INVALID_ARGUMENTS,
                None,
                f"invalid arguments for 'load_skill': unexpected {'key' if len(extra) == 1 else 'keys'} "
                + ", ".join(f"'{k}'" for k in extra)
                + "; its parameters: "
                + ", ".join(sorted(published["properties"])),
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
        problem = _validate_arguments(tool.input_schema, args)
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
    if tool.require_confirm:
        return Verdict(name, CONFIRM, None, None, f"'{name}' needs the user's confirmation before it runs", args)
    return Verdict(name, ALLOWED, None, None, f"'{name}' may run", args)


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
        return LoadResult("error", "load_skill needs a skill_code (text)", {}, False, None, None)
    if not is_valid_skill_code(skill_code) or catalog.skill(skill_code) is None:
        offer = ", ".join(s.code for s in catalog.enabled_skills) or "none"
        return LoadResult("error", f"unknown skill {skill_code!r}; skills on offer: {offer}", {}, False, None, None)
    skill = catalog.skill(skill_code)
    assert skill is not None
    msgs = as_messages(messages)
    for manual in read_evidence(catalog, msgs).manuals:
        if manual.code != skill.code:
            continue
        if manual.version is None or manual.version == skill.version:
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
