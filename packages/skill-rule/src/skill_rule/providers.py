"""Provider profiles as data: what each chat API refuses in the ``tools`` of one request, and the
check of one round's payload against them (docs/providers.md).

A real provider refuses the **whole request** for one bad tool, so a catalog that passes the rule
can still make every model call fail. Each ``Profile`` below states, per target, only limits that
are **cited** — to the provider's own API reference (OpenAI's published OpenAPI document,
``github.com/openai/openai-openapi`` ``openapi.yaml``) or to a public issue quoting the provider's
error. A limit that could not be cited is not checked (docs/providers.md lists what is not).

``payload_problems(catalog, visible, targets)`` checks one round (``visible``: the round's visible
names) for each target and returns ``PayloadProblem`` rows: ``target``, ``tool`` (``None`` for a
rule of the whole array), a stable ``rule`` code, ``limit``, ``actual``, the ``path`` inside a
schema where a schema rule applies, and ``action``:

* ``refused`` — the provider answers 400 to the request;
* ``over_budget`` — the array is larger than the target's budget (characters, never tokens; a
  console setting, ``Catalog.payload_budgets``, not a provider limit);
* ``rewritten`` — a mechanical rewrite that keeps the meaning was applied **in that target's
  payload only** (``OPENAI_CHAT``: an object schema without ``properties`` gets
  ``"properties": {}``); the stored schema is never changed.

Plain Python, no Django.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import limits
from .catalog import Catalog, json_copy
from .limits import LOAD_SKILL
from .payload import ANTHROPIC, OPENAI, ToolDefinition, schema_nodes, schema_types, tool_definitions

OPENAI_CHAT = "openai_chat"
OPENAI_RESPONSES = "openai_responses"
ANTHROPIC_MESSAGES = "anthropic_messages"
GEMINI = "gemini"

#: The targets a deployment checks unless its settings say otherwise (``Catalog.payload_targets``).
DEFAULT_PAYLOAD_TARGETS = limits.DEFAULT_PAYLOAD_TARGETS
#: The default budget of a tools payload, in characters of its compact JSON (``payload_chars``).
#: A product choice, not a provider limit: the bitmall demo's largest round is 4,820 characters;
#: a payload ten times that is mostly tool text the model reads on every call. Configurable per
#: target (``Catalog.payload_budgets``).
DEFAULT_PAYLOAD_BUDGET = 48_000
#: The largest budget a setting may name (characters).
MAX_PAYLOAD_BUDGET = 10_000_000

REFUSED = "refused"
OVER_BUDGET = "over_budget"
REWRITTEN = "rewritten"

# Stable rule codes (docs/providers.md, one row each).
TOOL_COUNT = "tool_count"
NAME_PATTERN = "name_pattern"
NAME_LENGTH = "name_length"
DESCRIPTION_LENGTH = "description_length"
OBJECT_WITHOUT_PROPERTIES = "object_without_properties"
ARRAY_WITHOUT_ITEMS = "array_without_items"
TOP_LEVEL_COMBINATOR = "top_level_combinator"
PAYLOAD_BUDGET = "payload_budget"

#: The combinators Anthropic refuses at the top of ``input_schema``, in the order its error names them.
COMBINATORS = ("oneOf", "allOf", "anyOf")


@dataclass(frozen=True)
class PayloadProblem:
    """One thing a target refuses (or rewrote, or finds over budget) in one round's payload.

    ``tool`` is ``None`` for a rule of the whole array (``tool_count``, ``payload_budget``);
    ``path`` is where in the tool's parameter schema a schema rule applies (``""`` for the root,
    else ``properties.items.…`` as the provider's ``context`` names it); ``limit`` and ``actual``
    are the number or pattern the rule states and the value found.
    """

    target: str
    tool: str | None
    rule: str
    limit: Any
    actual: Any
    action: str = REFUSED
    path: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``rounds``' ``payload_problems`` items."""
        return {
            "target": self.target,
            "tool": self.tool,
            "rule": self.rule,
            "limit": self.limit,
            "actual": self.actual,
            "action": self.action,
            "path": self.path,
        }

    @property
    def refuses(self) -> bool:
        """True when the provider would refuse the request (``action == "refused"``)."""
        return self.action == REFUSED


@dataclass(frozen=True)
class Profile:
    """What one target enforces on the ``tools`` of one request (``None``: not checked, no
    citation found). ``shape`` turns a ``ToolDefinition`` into that target's wire item (its
    size is what the budget counts); ``rewrite_empty_object`` adds ``"properties": {}`` to an
    object schema without ``properties`` in this target's payload instead of refusing it (the
    shape must apply it: ``payload.with_properties``)."""

    code: str
    label: str
    shape: Callable[[ToolDefinition], dict[str, Any]]
    max_tools: int | None = None
    name_pattern: str | None = None
    name_max_length: int | None = None
    description_max_length: int | None = None
    object_needs_properties: bool = False
    rewrite_empty_object: bool = False
    array_needs_items: bool = False
    no_top_level_combinator: bool = False
    default_budget: int = DEFAULT_PAYLOAD_BUDGET
    sources: Mapping[str, str] = field(default_factory=dict)


def _openai_chat(d: ToolDefinition) -> dict[str, Any]:
    return d.as_format(OPENAI)  # with_properties applied: the rewrite is the OpenAI shape's


def _openai_responses(d: ToolDefinition) -> dict[str, Any]:
    params = copy.deepcopy(json_copy(d.parameters))
    return {"type": "function", "name": d.name, "description": d.description, "parameters": params}


def _anthropic(d: ToolDefinition) -> dict[str, Any]:
    return d.as_format(ANTHROPIC)


def _gemini(d: ToolDefinition) -> dict[str, Any]:
    return {"name": d.name, "description": d.description, "parameters": copy.deepcopy(json_copy(d.parameters))}


#: Every profile, by code. Each number's source is in ``sources`` (and docs/providers.md).
PROFILES: Mapping[str, Profile] = {
    p.code: p
    for p in (
        Profile(
            code=OPENAI_CHAT,
            label="OpenAI Chat Completions",
            shape=_openai_chat,
            # "Invalid 'tools': array too long. Expected an array with maximum length 128, but got
            # an array with length 325 instead." (code array_above_max_length)
            max_tools=128,
            # "Invalid 'tools[21].function.name': string does not match pattern. Expected a string
            # that matches the pattern '^[a-zA-Z0-9_-]+$'." (code invalid_value)
            name_pattern=r"^[a-zA-Z0-9_-]+$",
            # openapi.yaml FunctionObject.name: "Must be a-z, A-Z, 0-9, or contain underscores and
            # dashes, with a maximum length of 64."; "Invalid 'tools[0].function.name': string too
            # long. Expected a string with maximum length 64, but got a string with length 81"
            name_max_length=64,
            # "Invalid 'tools[13].function.description': string too long. Expected a string with
            # maximum length 1024, but got a string with length 1103 instead."
            description_max_length=1024,
            # "Invalid schema for function 'xxx': In context=(), object schema missing properties."
            object_needs_properties=True,
            rewrite_empty_object=True,
            # "Invalid schema for function 'filesystem_read_multiple_files': In context=('properties',
            # 'paths'), array schema missing items."
            array_needs_items=True,
            sources={
                TOOL_COUNT: "https://github.com/vishalmysore/Tools4AI/issues/16",
                NAME_PATTERN: "https://github.com/Vortiago/mcp-azure-devops/pull/30",
                NAME_LENGTH: "https://github.com/openai/openai-openapi (openapi.yaml, FunctionObject.name); "
                "https://github.com/ravitemer/mcphub.nvim/pull/243",
                DESCRIPTION_LENGTH: "https://github.com/getsentry/sentry-mcp/issues/106",
                OBJECT_WITHOUT_PROPERTIES: "https://github.com/spring-projects/spring-ai/issues/4776",
                ARRAY_WITHOUT_ITEMS: "https://github.com/sigoden/aichat/pull/1049",
            },
        ),
        Profile(
            code=OPENAI_RESPONSES,
            label="OpenAI Responses",
            shape=_openai_responses,
            # "Invalid 'tools[0].name': string does not match pattern" (the Responses API refusing a
            # name with '.'); openapi.yaml's FunctionTool states no pattern, the error does.
            name_pattern=r"^[a-zA-Z0-9_-]+$",
            sources={NAME_PATTERN: "https://github.com/openai/openai-dotnet/issues/441"},
        ),
        Profile(
            code=ANTHROPIC_MESSAGES,
            label="Anthropic Messages",
            shape=_anthropic,
            # "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'" (2025-06
            # on; earlier reports quote {1,64}); "String should have at most 128 characters"
            name_pattern=r"^[a-zA-Z0-9_-]{1,128}$",
            name_max_length=128,
            # "tools.21.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at
            # the top level"
            no_top_level_combinator=True,
            sources={
                NAME_PATTERN: "https://github.com/home-assistant/core/issues/147760",
                NAME_LENGTH: "https://github.com/anthropics/claude-code/issues/96152",
                TOP_LEVEL_COMBINATOR: "https://github.com/anthropics/claude-code/issues/5973",
            },
        ),
        Profile(
            code=GEMINI,
            label="Gemini function calling",
            shape=_gemini,
            # "GenerateContentRequest.tools[0].function_declarations[53].name: Invalid function name.
            # Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain
            # underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64."
            name_pattern=r"^[a-zA-Z_][a-zA-Z0-9_.:-]*$",
            name_max_length=64,
            sources={
                NAME_PATTERN: "https://github.com/router-for-me/Cli-Proxy-API-Management-Center/issues/120",
                NAME_LENGTH: "https://github.com/router-for-me/Cli-Proxy-API-Management-Center/issues/120",
            },
        ),
    )
}


def profile(code: str) -> Profile:
    """The profile of ``code``; raises ``KeyError`` naming the code and the known ones."""
    try:
        return PROFILES[code]
    except KeyError:
        raise KeyError(f"unknown payload target {code!r}; known: {', '.join(PROFILES)}") from None


def target_problems(targets: Iterable[Any]) -> list[str]:
    """Why a list of target codes cannot be a setting (English sentences; ``[]`` when it can):
    each item must be a known code (``PROFILES``), none twice."""
    out: list[str] = []
    seen: set[str] = set()
    for t in targets:
        if not isinstance(t, str) or t not in PROFILES:
            out.append(f"unknown payload target {t!r}; known: {', '.join(PROFILES)}")
        elif t in seen:
            out.append(f"payload target {t!r} is listed twice")
        else:
            seen.add(t)
    return out


def budget_problems(budgets: Mapping[Any, Any]) -> list[str]:
    """Why a budget mapping (target code → characters) cannot be a setting; ``[]`` when it can:
    known targets only, each budget an integer from 1 to ``MAX_PAYLOAD_BUDGET``."""
    out: list[str] = []
    for t, b in budgets.items():
        if not isinstance(t, str) or t not in PROFILES:
            out.append(f"unknown payload target {t!r} in the budgets; known: {', '.join(PROFILES)}")
        elif not isinstance(b, int) or isinstance(b, bool) or not 1 <= b <= MAX_PAYLOAD_BUDGET:
            out.append(f"the budget of {t!r} must be a whole number of characters from 1 to {MAX_PAYLOAD_BUDGET}")
    return out


def budget_of(catalog: Catalog, target: str) -> int:
    """The tools-payload budget of ``target`` in characters: the catalog's setting
    (``payload_budgets``), else the profile's default."""
    value = catalog.payload_budgets.get(target)
    return value if isinstance(value, int) else profile(target).default_budget


# --- one tool ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCheck:
    """One tool checked against one target: its wire item (rewrites applied), the item's size in
    characters of compact JSON, and its problems (``tool_count`` and the budget are the round's)."""

    item: dict[str, Any]
    chars: int
    problems: tuple[PayloadProblem, ...]


def definition_problems(
    targets: Iterable[str], name: str, description: str, parameters: Any
) -> tuple[PayloadProblem, ...]:
    """What each of ``targets`` refuses or rewrites in one tool definition (a name, a description,
    a parameter schema) whatever the round: for the MCP sync's warnings and the tool page."""
    d = ToolDefinition(name=name, description=description, parameters=parameters)
    return tuple(p for t in targets if t in PROFILES for p in check_tool(PROFILES[t], d).problems)


def check_tool(target: Profile, definition: ToolDefinition) -> ToolCheck:
    """``definition`` as ``target`` receives it, and what ``target`` refuses or rewrites in it:
    the name (pattern, length), the description (length) and the parameter schema (objects
    without ``properties``, arrays without ``items``, a top-level combinator), by the profile's
    cited rules. The stored schema is not changed: a rewrite applies to the returned item only."""
    name, problems = definition.name, []
    if target.name_pattern is not None and not re.fullmatch(target.name_pattern, name):
        problems.append(PayloadProblem(target.code, name, NAME_PATTERN, target.name_pattern, name))
    if target.name_max_length is not None and len(name) > target.name_max_length:
        problems.append(PayloadProblem(target.code, name, NAME_LENGTH, target.name_max_length, len(name)))
    if target.description_max_length is not None and len(definition.description) > target.description_max_length:
        problems.append(
            PayloadProblem(
                target.code, name, DESCRIPTION_LENGTH, target.description_max_length, len(definition.description)
            )
        )
    params: Any = json_copy(definition.parameters)
    if target.no_top_level_combinator and isinstance(params, Mapping):
        for key in COMBINATORS:
            if key in params:
                problems.append(PayloadProblem(target.code, name, TOP_LEVEL_COMBINATOR, "none", key))
    if target.object_needs_properties or target.array_needs_items:
        for path, node in schema_nodes(params):
            where, kinds = ".".join(path), schema_types(node)
            if target.object_needs_properties and "object" in kinds and "properties" not in node:
                action = REWRITTEN if target.rewrite_empty_object else REFUSED
                problems.append(
                    PayloadProblem(target.code, name, OBJECT_WITHOUT_PROPERTIES, "properties", None, action, where)
                )
            if target.array_needs_items and "array" in kinds and "items" not in node:
                problems.append(PayloadProblem(target.code, name, ARRAY_WITHOUT_ITEMS, "items", None, REFUSED, where))
    item = target.shape(definition)
    return ToolCheck(item, len(json.dumps(item, ensure_ascii=False, separators=(",", ":"))), tuple(problems))


def _tool_checks(catalog: Catalog, target: Profile) -> dict[str, ToolCheck]:
    """Every registered tool of ``catalog`` checked against ``target``, by name (kept on the
    catalog: a catalog's tools are checked once per target, not once per round). Every tool but
    ``load_skill`` is defined by ``tools`` alone, so its check is kept under a ``TOOLS_ONLY`` key:
    the editor's draft catalogs (``Catalog.with_skills``) check only the generated ``load_skill``
    again, not every MCP tool."""

    def build_tools() -> dict[str, ToolCheck]:
        names = [t.name for t in catalog.tools if t.name != LOAD_SKILL]
        return {d.name: check_tool(target, d) for d in tool_definitions(catalog, names)}

    def build() -> dict[str, ToolCheck]:
        key = Catalog.TOOLS_ONLY + f"payload_checks:{target.code}"
        out = dict(catalog.derived(key, build_tools))  # pragma: no mutate
        out.update((d.name, check_tool(target, d)) for d in tool_definitions(catalog, [LOAD_SKILL]))
        return out

    checks: dict[str, ToolCheck] = catalog.derived(f"payload_checks:{target.code}", build)  # pragma: no mutate
    return checks


# --- one round --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TargetPayload:
    """One round's payload as one target receives it: ``tools`` (the wire items, rewrites
    applied), ``chars`` (size of the compact JSON array, ``payload.payload_chars``), the budget
    and the problems found (tool rules in payload order, then ``tool_count``, then the budget)."""

    target: str
    tools: tuple[dict[str, Any], ...]
    chars: int
    budget: int
    problems: tuple[PayloadProblem, ...]

    @property
    def over_budget(self) -> bool:
        """True when ``chars`` exceeds ``budget``."""
        return self.chars > self.budget


def target_payload(catalog: Catalog, visible: Iterable[str], target: str) -> TargetPayload:
    """One round (``visible``: the round's visible names, registration order) as ``target``
    receives it, checked against its profile and budget. Names that are no registered tool are
    skipped, as ``payload.tools_payload`` does. Raises ``KeyError`` for an unknown target."""
    prof = profile(target)
    checks = _tool_checks(catalog, prof)
    chosen = [checks[n] for n in visible if n in checks]
    problems = [p for c in chosen for p in c.problems]
    if prof.max_tools is not None and len(chosen) > prof.max_tools:
        problems.append(PayloadProblem(target, None, TOOL_COUNT, prof.max_tools, len(chosen)))
    # compact JSON of the array: "[" + items joined by "," + "]"
    chars = 2 + sum(c.chars for c in chosen) + max(len(chosen) - 1, 0)
    budget = budget_of(catalog, target)
    if chars > budget:
        problems.append(PayloadProblem(target, None, PAYLOAD_BUDGET, budget, chars, OVER_BUDGET))
    return TargetPayload(target, tuple(c.item for c in chosen), chars, budget, tuple(problems))


def configured_targets(catalog: Catalog) -> tuple[str, ...]:
    """The catalog's ``payload_targets`` this version knows, in the order set (a release
    written by a newer version may name a target this one cannot check: it is skipped)."""
    return tuple(t for t in catalog.payload_targets if t in PROFILES)


#: The target whose wire shape each ``tools_format`` is (``payload.tools_payload``).
FORMAT_TARGETS: Mapping[str, str] = {OPENAI: OPENAI_CHAT, ANTHROPIC: ANTHROPIC_MESSAGES}


def targets_for_format(catalog: Catalog, fmt: str) -> tuple[str, ...]:
    """The targets a round shown in ``fmt`` (``openai`` / ``anthropic``) is checked against: the
    configured ones, then the target of ``fmt`` itself when it is not among them — the array
    shown is always checked against the API whose shape it has, so its rewrite is never silent."""
    chosen = configured_targets(catalog)
    own = FORMAT_TARGETS.get(fmt)
    return chosen if own is None or own in chosen else (*chosen, own)


def payload_problems(
    catalog: Catalog, visible: Iterable[str], targets: Iterable[str] | None = None
) -> tuple[PayloadProblem, ...]:
    """Every problem of one round's payload, for each target of ``targets`` (default: the
    catalog's configured targets, ``configured_targets``), target by target in that order.
    ``visible`` is the round's ``visible`` list. Pure: nothing stored is changed."""
    names = list(visible)
    chosen = configured_targets(catalog) if targets is None else tuple(targets)
    return tuple(p for t in chosen for p in target_payload(catalog, names, t).problems)


def all_loaded_visible(catalog: Catalog) -> tuple[str, ...]:
    """The visible names of the round with every manual loaded and no restriction: every
    registered tool, in registration order (nothing is masked) — the largest payload the catalog
    can produce, which the publish gate checks besides the saved scenarios' rounds."""
    return tuple(t.name for t in catalog.registered_tools)


def tool_target_problems(
    catalog: Catalog, tool: str, targets: Iterable[str] | None = None
) -> tuple[PayloadProblem, ...]:
    """What each target (default: the configured ones) refuses or rewrites in one registered
    tool's definition, whatever the round (its name, description, schema); ``()`` for a name
    that is not registered. For the MCP sync's warnings and the tool page."""
    chosen = configured_targets(catalog) if targets is None else tuple(targets)
    out: list[PayloadProblem] = []
    for t in chosen:
        check = _tool_checks(catalog, profile(t)).get(tool)
        if check is not None:
            out.extend(check.problems)
    return tuple(out)


def problem_text(p: PayloadProblem) -> str:
    """One ``PayloadProblem`` as an English sentence naming the tool, the rule, the limit and the
    value found (the console's pages translate by ``rule``: ``web.presenters.payload_problem_sentence``)."""
    at = f" at '{p.path}'" if p.path else ""
    texts = {
        TOOL_COUNT: f"{p.actual} tools in one request; at most {p.limit}",
        NAME_PATTERN: f"tool name '{p.tool}' does not match {p.limit}",
        NAME_LENGTH: f"tool name '{p.tool}' has {p.actual} characters; at most {p.limit}",
        DESCRIPTION_LENGTH: f"the description of '{p.tool}' has {p.actual} characters; at most {p.limit}",
        OBJECT_WITHOUT_PROPERTIES: f"the schema of '{p.tool}' has an object without 'properties'{at}",
        ARRAY_WITHOUT_ITEMS: f"the schema of '{p.tool}' has an array without 'items'{at}",
        TOP_LEVEL_COMBINATOR: f"the schema of '{p.tool}' has '{p.actual}' at the top level",
        PAYLOAD_BUDGET: f"the tools payload is {p.actual} characters; the budget is {p.limit}",
    }
    return texts.get(p.rule, f"{p.rule}: limit {p.limit}, actual {p.actual}")
