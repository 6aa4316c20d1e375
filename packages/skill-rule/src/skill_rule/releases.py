"""Publishing, in plain Python (docs/releases.md): the diff between two catalogs, every saved
scenario re-run against the draft, and the publish gate.

The gate is a list of check functions (``PUBLISH_CHECKS``); each takes the ``PublishReview`` and
returns the reasons it refuses for. Add a check by appending a function there. A reason is either
*blocking* (never overridable) or *overridable*: a publisher may tick it off by its ``key`` and
write why; the release records both.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import providers
from .catalog import Catalog, Skill, Tool, json_copy
from .errors import DomainError, Problem
from .scripts import parse_script
from .simulator import SimRound, Simulation, simulate
from .snapshot import setting_names, settings_json

SKILL_FIELDS = ("name", "description", "tool_ids", "sort_order", "version", "content")
TOOL_FIELDS = ("kind", "title", "description", "input_schema", "annotations", "server", "mcp_name")


# --- diff -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldChange:
    """One field that differs: ``before`` / ``after`` values; for a manual (``content``) ``lines``
    is the unified line diff (``difflib.unified_diff``, no file headers)."""

    field: str
    before: Any
    after: Any
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class ItemChange:
    """A skill, tool or restriction present on both sides whose fields differ."""

    name: str
    changes: tuple[FieldChange, ...]


@dataclass(frozen=True)
class CatalogDiff:
    """What changes when ``after`` replaces ``before`` (``before`` may be no release at all).

    Names are in registration order (tools) or sort order (skills). ``newly_gated`` /
    ``newly_released``: tools that enter / leave ``G`` (docs/rule.md). ``confirm_changed``: tool →
    (before, after) of ``require_confirm``.
    """

    skills_added: tuple[str, ...] = ()
    skills_removed: tuple[str, ...] = ()
    skills_changed: tuple[ItemChange, ...] = ()
    tools_added: tuple[str, ...] = ()
    tools_removed: tuple[str, ...] = ()
    tools_changed: tuple[ItemChange, ...] = ()
    newly_gated: tuple[str, ...] = ()
    newly_released: tuple[str, ...] = ()
    confirm_changed: Mapping[str, tuple[bool, bool]] = field(default_factory=dict)
    restrictions_changed: tuple[str, ...] = ()
    settings_changed: tuple[FieldChange, ...] = ()

    @property
    def empty(self) -> bool:
        """True when nothing at all differs."""
        return not any(
            (
                self.skills_added,
                self.skills_removed,
                self.skills_changed,
                self.tools_added,
                self.tools_removed,
                self.tools_changed,
                self.newly_gated,
                self.newly_released,
                self.confirm_changed,
                self.restrictions_changed,
                self.settings_changed,
            )
        )


def manual_diff(before: str, after: str) -> tuple[str, ...]:
    """The unified line diff of two manuals (``-``/``+``/space-prefixed lines and ``@@`` hunks).
    Only the two file headers (``---``, ``+++``, first when anything differs) are dropped: a removed
    manual line ``---`` (a Markdown rule) is the diff line ``----``, and is kept."""
    out = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=2))
    return tuple(out[2:])


def _skill_changes(a: Skill, b: Skill) -> tuple[FieldChange, ...]:
    out = []
    for name in SKILL_FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if x != y:
            lines = manual_diff(x, y) if name == "content" else ()
            out.append(
                FieldChange(name, list(x) if isinstance(x, tuple) else x, list(y) if isinstance(y, tuple) else y, lines)
            )
    return tuple(out)


def _tool_changes(a: Tool, b: Tool) -> tuple[FieldChange, ...]:
    out = []
    for name in TOOL_FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if x == y:  # the common case, without copying (a mapping equals its copy)
            continue
        x, y = json_copy(x), json_copy(y)  # stored JSON of the wrong shape is compared as it is
        if x != y:
            out.append(FieldChange("inputSchema" if name == "input_schema" else name, x, y))
    return tuple(out)


def _restriction_key(catalog: Catalog) -> dict[str, tuple[str, frozenset[str], str]]:
    out = {}
    for kind, table in (("access_profile", catalog.profiles), ("stage", catalog.stages)):
        for name, r in table.items():
            out[f"{kind}:{name}"] = (name, r.tools, r.description)
    return out


def catalog_diff(before: Catalog | None, after: Catalog) -> CatalogDiff:
    """The diff of two catalogs (``before=None``: everything in ``after`` is added)."""
    if before is None:
        before = Catalog(tools=())
    old_skills = {s.code: s for s in before.enabled_skills}
    new_skills = {s.code: s for s in after.enabled_skills}
    old_tools = {t.name: t for t in before.registered_tools}
    new_tools = {t.name: t for t in after.registered_tools}
    old_gated, new_gated = set(before.gated_tool_ids), set(after.gated_tool_ids)
    old_r, new_r = _restriction_key(before), _restriction_key(after)
    old_settings, new_settings = settings_json(before, every=True), settings_json(after, every=True)
    settings = tuple(
        FieldChange(name, old_settings[name], new_settings[name])
        for name in setting_names()
        if before.tools and old_settings[name] != new_settings[name]
    )
    return CatalogDiff(
        skills_added=tuple(c for c in new_skills if c not in old_skills),
        skills_removed=tuple(c for c in old_skills if c not in new_skills),
        skills_changed=tuple(
            ItemChange(c, ch)
            for c, s in new_skills.items()
            if c in old_skills and (ch := _skill_changes(old_skills[c], s))
        ),
        tools_added=tuple(n for n in new_tools if n not in old_tools),
        tools_removed=tuple(n for n in old_tools if n not in new_tools),
        tools_changed=tuple(
            ItemChange(n, ch) for n, t in new_tools.items() if n in old_tools and (ch := _tool_changes(old_tools[n], t))
        ),
        newly_gated=tuple(t for t in after.gated_tool_ids if t not in old_gated),
        newly_released=tuple(t for t in before.gated_tool_ids if t not in new_gated),
        confirm_changed={
            n: (old_tools[n].require_confirm, t.require_confirm)
            for n, t in new_tools.items()
            if n in old_tools and old_tools[n].require_confirm != t.require_confirm
        },
        restrictions_changed=tuple(sorted(k for k in set(old_r) | set(new_r) if old_r.get(k) != new_r.get(k))),
        settings_changed=settings,
    )


# --- scenarios --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScenarioRun:
    """A saved scenario re-run against the draft.

    ``simulation`` is ``None`` when the script or its restrictions no longer resolve (``error``
    says why). ``changed_rounds`` are the 1-based rounds whose count, visible tools, masked map,
    loaded skills or call verdicts differ from the same scenario run against the latest release
    (every round when there is none).
    """

    name: str
    simulation: Simulation | None
    error: str = ""
    changed_rounds: tuple[int, ...] = ()

    @property
    def failures(self) -> tuple[str, ...]:
        """Unmet expectations (``round N: …``) or the error."""
        if self.simulation is None:
            return (self.error,)
        return self.simulation.failures


def _round_key(r: SimRound) -> tuple[Any, ...]:
    """What two runs of a round must share to count as unchanged; compared with ``==`` only (the
    masked mapping as a dict: equal whatever its order, without sorting ~2,000 tools a round)."""
    v = r.view
    return (
        v.count,
        v.visible,
        dict(v.masked),
        v.loaded,
        tuple((c.verdict.name, c.verdict.verdict, c.verdict.reason) for c in r.calls),
    )


def _simulate_script(catalog: Catalog, name: str, script: str) -> Simulation:
    return simulate(catalog, parse_script(script, source=f"scenario '{name}'"))


def rerun_scenarios(
    draft: Catalog,
    latest: Catalog | None,
    scripts: Mapping[str, str],
    *,
    run: Callable[[Catalog, str, str], Simulation] | None = None,
) -> tuple[ScenarioRun, ...]:
    """Run every saved scenario (name → YAML script) against ``draft`` and compare its rounds
    with the run against ``latest`` (docs/releases.md). Never raises for a bad script: the run
    carries the error. ``run(catalog, name, script)`` → ``Simulation`` (raising ``DomainError``
    for a script that cannot run) replaces the plain parse-and-simulate — the console passes one
    that answers from its cache of results by (script, catalog) digest (``scenario_results``)."""
    _run = run or _simulate_script
    out = []
    for name, script in scripts.items():
        try:
            sim = _run(draft, name, script)
        except DomainError as exc:
            out.append(ScenarioRun(name, None, error=exc.message))
            continue
        old = []  # the rounds against the latest release: none when there is none or it cannot run
        if latest is not None:
            try:
                old = [_round_key(r) for r in _run(latest, name, script).rounds]
            except DomainError:
                pass
        changed = tuple(r.index for i, r in enumerate(sim.rounds) if i >= len(old) or old[i] != _round_key(r))
        out.append(ScenarioRun(name, sim, changed_rounds=changed))
    return tuple(out)


# --- the gate ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class GateReason:
    """Why a publish is refused. ``message`` is a ``Problem`` (English sentence with ``code`` and
    ``params`` for a page to translate); ``key`` identifies an overridable reason for a tick-off."""

    message: Problem
    key: str = ""
    overridable: bool = False

    @property
    def code(self) -> str:
        return self.message.code


@dataclass(frozen=True)
class PublishReview:
    """Everything the gate and the publish page look at: the draft and its snapshot hash, the
    latest release (number, hash, catalog — all ``None`` when nothing was published), the diff
    and the scenario runs."""

    draft: Catalog
    sha256: str
    latest_number: int | None
    latest_sha256: str | None
    latest: Catalog | None
    diff: CatalogDiff
    scenarios: tuple[ScenarioRun, ...]
    #: tool id → the MCP server that no longer lists it (docs/mcp.md *unavailable*)
    unavailable: Mapping[str, str] = field(default_factory=dict)
    #: tool id → its deleted MCP server record (a subset of ``unavailable``: no call maps back to it)
    orphaned: Mapping[str, str] = field(default_factory=dict)


def check_dangling_tools(review: PublishReview) -> list[GateReason]:
    """A skill gating a tool that is not registered (unknown, or its MCP node disabled): blocking.
    Tools their server no longer lists are ``check_unavailable_tools``'s."""
    out = []
    for code, tools in review.draft.dangling_tool_ids.items():
        tools = tuple(t for t in tools if t not in review.unavailable)
        if tools:
            out.append(
                GateReason(
                    Problem(
                        "gate_dangling",
                        "skill '%(code)s' gates %(tools)s, which is not a registered tool "
                        "(unknown, or its MCP node is disabled)",
                        {"code": code, "tools": ", ".join(tools), "tool_list": list(tools)},
                    )
                )
            )
    return out


def check_unavailable_tools(review: PublishReview) -> list[GateReason]:
    """A skill gating a tool its MCP server no longer lists, or whose server record was deleted
    (``gate_orphaned``; the skill is *broken*, docs/mcp.md): blocking, one reason per skill and tool."""
    out = []
    for code, tools in review.draft.dangling_tool_ids.items():
        for tool in tools:
            if tool in review.orphaned:
                out.append(
                    GateReason(
                        Problem(
                            "gate_orphaned",
                            "skill '%(code)s' is broken: it gates '%(tool)s', whose MCP server record "
                            "'%(server)s' was deleted (register the server again and sync it, or remove the tool from the skill)",
                            {"code": code, "tool": tool, "server": review.orphaned[tool]},
                        )
                    )
                )
            elif tool in review.unavailable:
                out.append(
                    GateReason(
                        Problem(
                            "gate_unavailable",
                            "skill '%(code)s' is broken: it gates '%(tool)s', which MCP server "
                            "'%(server)s' no longer offers (sync the server again, or remove the tool from the skill)",
                            {"code": code, "tool": tool, "server": review.unavailable[tool]},
                        )
                    )
                )
    return out


def check_tool_definitions(review: PublishReview) -> list[GateReason]:
    """A registered tool whose stored definition fails the tool-definition rule (bad name or
    inputSchema, docs/transcripts.md): blocking — the guard would refuse every call to it."""
    return [
        GateReason(
            Problem(
                "gate_tool_definition",
                "tool '%(tool)s' has an invalid definition: %(problems)s",
                {"tool": name, "problems": "; ".join(problems)},
            )
        )
        for name, problems in review.draft.tool_problems.items()
    ]


def check_scenarios(review: PublishReview) -> list[GateReason]:
    """Every unmet expectation of a saved scenario, and every scenario that no longer runs:
    overridable, key ``scenario:<name>:<failure>``."""
    out = []
    for run in review.scenarios:
        for failure in run.failures:
            if run.simulation is None:
                msg = Problem(
                    "gate_scenario_error",
                    "scenario '%(name)s' does not run: %(cause)s",
                    {"name": run.name, "cause": failure},
                )
            else:
                msg = Problem(
                    "gate_scenario", "scenario '%(name)s': %(failure)s", {"name": run.name, "failure": failure}
                )
            out.append(GateReason(msg, key=f"scenario:{run.name}:{failure}", overridable=True))
    return out


def check_something_changed(review: PublishReview) -> list[GateReason]:
    """The draft equals the latest release: blocking (a release must change something)."""
    if review.latest_sha256 is not None and review.sha256 == review.latest_sha256:
        return [
            GateReason(
                Problem("gate_unchanged", "nothing changed since release %(number)s", {"number": review.latest_number})
            )
        ]
    return []


def _payload_rounds(review: PublishReview) -> list[tuple[str | None, int | None, tuple[str, ...]]]:
    """(scenario, round, visible) of every saved scenario round that ran, then the round with
    every manual loaded (``None``, ``None``)."""
    out: list[tuple[str | None, int | None, tuple[str, ...]]] = [
        (run.name, r.index, tuple(r.view.visible))
        for run in review.scenarios
        if run.simulation is not None
        for r in run.simulation.rounds
    ]
    out.append((None, None, providers.all_loaded_visible(review.draft)))
    return out


def check_payloads(review: PublishReview) -> list[GateReason]:
    """Every round a configured provider target would refuse (``skill_rule.providers``): each
    saved scenario round and the round with every manual loaded, against the draft's
    ``payload_targets`` — and every scenario round over a target's budget. Overridable, like an
    unmet expectation: key ``payload:<target>:<tool>:<rule>`` (one reason per target, tool and
    rule, naming the first round and how many rounds share it) and
    ``payload:<target>:budget:<scenario>`` (the scenario's rounds over budget). A rewrite
    (``action == "rewritten"``) refuses nothing."""
    draft = review.draft
    targets = providers.configured_targets(draft)
    found: dict[str, tuple[providers.PayloadProblem, str, list[str]]] = {}
    firsts: dict[str, tuple[str | None, int | None]] = {}
    for scenario, index, visible in _payload_rounds(review):
        where = f"scenario '{scenario}' round {index}" if scenario is not None else "the round with every manual loaded"
        for target in targets:
            for p in providers.target_payload(draft, visible, target).problems:
                if p.action == providers.REWRITTEN or (p.action == providers.OVER_BUDGET and scenario is None):
                    continue
                if p.action == providers.OVER_BUDGET:
                    key = f"payload:{target}:budget:{scenario}"
                else:
                    key = f"payload:{target}:{p.tool or ''}:{p.rule}"
                if key not in found:
                    found[key] = (p, where, [])
                    firsts[key] = (scenario, index)
                found[key][2].append(where)
    out = []
    for key, (p, where, places) in found.items():
        label = providers.profile(p.target).label
        if p.action == providers.OVER_BUDGET:
            msg = Problem(
                "gate_payload_budget",
                "%(where)s: the tools payload for %(target)s is %(actual)s characters, over its budget of "
                "%(limit)s (rounds of this scenario over it: %(count)s)",
                {
                    "where": where,
                    "target": label,
                    "actual": p.actual,
                    "limit": p.limit,
                    "count": len(places),
                    "problem_item": p.as_dict(),
                    "scenario": firsts[key][0],
                    "round": firsts[key][1],
                },
            )
        else:
            msg = Problem(
                "gate_payload",
                "%(target)s would refuse the request: %(problem)s (first: %(where)s; rounds: %(count)s)",
                {
                    "target": label,
                    "problem": providers.problem_text(p),
                    "where": where,
                    "count": len(places),
                    "problem_item": p.as_dict(),
                    "scenario": firsts[key][0],
                    "round": firsts[key][1],
                },
            )
        out.append(GateReason(msg, key=key, overridable=True))
    return out


Check = Callable[[PublishReview], Iterable[GateReason]]
#: The publish gate, in the order reasons are listed. Append checks here.
PUBLISH_CHECKS: list[Check] = [
    check_dangling_tools,
    check_unavailable_tools,
    check_tool_definitions,
    check_scenarios,
    check_payloads,
    check_something_changed,
]


def gate(review: PublishReview, checks: Iterable[Check] | None = None) -> tuple[GateReason, ...]:
    """Every reason the checks find (``PUBLISH_CHECKS`` by default), in check order."""
    return tuple(reason for check in (PUBLISH_CHECKS if checks is None else checks) for reason in check(review))


def blocking(reasons: Iterable[GateReason], overrides: Iterable[str]) -> tuple[GateReason, ...]:
    """The reasons still refusing once ``overrides`` (reason keys a publisher ticked off) are
    applied: every non-overridable reason, and every overridable one not ticked off."""
    ticked = set(overrides)
    return tuple(r for r in reasons if not (r.overridable and r.key in ticked))
