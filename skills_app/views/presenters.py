"""Shapes the console pages render, computed with the pure core (``skills_app.domain``).

Nothing here reads or writes the database: callers pass a ``domain.Catalog`` (usually
``selectors.catalog_draft()``) and get plain dataclasses back.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from ..domain import Catalog, Message, RoundView, Simulation, Skill, ToolCall, compute_round
from ..domain.limits import LOAD_SKILL

DRAFT_CODE = "__draft__"


# --------------------------------------------------------------------------------------------
# "What the model gets" for a skill being edited
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ManualEffect:
    """The round before and after the manual of ``skill`` is loaded, in a catalog where ``skill``
    (saved or not) replaces the stored skill of the same code.

    ``releases``: tools masked without the manual and visible with it. ``shared``: tool → other
    enabled skills that gate it too (any one of them releases it). ``mentioned_masked``: tools
    the body names that stay masked after loading it, with the skill that would release them —
    mentioning a tool unlocks nothing (DESIGN §3). ``unregistered``: tool_ids that are no
    registered MCP tool.
    """

    skill: Skill
    without: RoundView
    with_manual: RoundView
    releases: tuple[str, ...]
    shared: dict[str, tuple[str, ...]]
    mentioned_masked: tuple[tuple[str, str], ...]
    unregistered: tuple[str, ...]

    @property
    def is_new(self) -> bool:
        return self.skill.code == DRAFT_CODE


def catalog_with_skill(catalog: Catalog, skill: Skill, *, replaces: str | None = None) -> Catalog:
    """``catalog`` with ``skill`` in place of the skill coded ``replaces`` (or ``skill.code``)."""
    drop = replaces or skill.code
    skills = tuple(s for s in catalog.skills if s.code != drop) + (skill,)
    return replace(catalog, skills=skills)


def loaded_messages(catalog: Catalog, skill: Skill) -> tuple[Message, ...]:
    """A retained ``load_skill`` call and its full result with the marker (DESIGN §3)."""
    call = ToolCall(name=LOAD_SKILL, arguments={"skill_code": skill.code}, id="preview_load")
    return (
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", content=skill.content, tool_call_id=call.id, state="success",
                metadata={catalog.marker_key: skill.code, "skill_version": skill.version}),
    )


def manual_effect(catalog: Catalog, skill: Skill, *, replaces: str | None = None) -> ManualEffect:
    """Compute the round with and without ``skill``'s manual loaded (no database, nothing saved).

    ``skill.code`` may be empty for a skill not created yet; it is then simulated as a draft code.
    """
    if not skill.code:
        skill = replace(skill, code=DRAFT_CODE)
    registered = set(catalog.mcp_tool_names)
    unregistered = tuple(t for t in skill.tool_ids if t not in registered)
    # Ids a save would refuse (builtins, unknown or disabled tools) gate nothing in the preview.
    skill = replace(skill, tool_ids=tuple(t for t in skill.tool_ids if t in registered))
    cat = catalog_with_skill(catalog, skill, replaces=replaces)
    without = compute_round(cat, ())
    with_manual = compute_round(cat, loaded_messages(cat, skill))
    releases = tuple(t for t in with_manual.visible if t in without.masked)
    shared = {
        t: tuple(s.code for s in cat.enabled_skills if s.code != skill.code and t in s.tool_ids)
        for t in skill.tool_ids
    }
    shared = {t: codes for t, codes in shared.items() if codes}
    mentioned = []
    for tool in cat.mcp_tool_names:
        if tool in skill.tool_ids or tool not in with_manual.masked:
            continue
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(tool)}(?![A-Za-z0-9_])", skill.content):
            mentioned.append((tool, with_manual.masked[tool]))
    return ManualEffect(
        skill=skill, without=without, with_manual=with_manual, releases=releases, shared=shared,
        mentioned_masked=tuple(mentioned), unregistered=unregistered,
    )


# --------------------------------------------------------------------------------------------
# Simulation → page
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CallRow:
    name: str
    arguments: str
    verdict: str
    reason: str | None
    skill_code: str | None
    message: str
    result: str
    state: str
    already_loaded: bool


@dataclass(frozen=True)
class RoundRow:
    index: int
    line: int | None
    count: int
    loaded: tuple[str, ...]
    builtins: tuple[str, ...]
    mcp_visible: tuple[str, ...]
    masked: tuple[tuple[str, str], ...]
    withheld: tuple[tuple[str, str], ...]
    newly_released: tuple[str, ...]
    newly_masked: tuple[str, ...]
    delta: int | None
    calls: tuple[CallRow, ...]
    say: str
    context_size: int
    expect: dict[str, Any]
    failures: tuple[str, ...]
    events_after: tuple[str, ...]
    confirm_tools: frozenset[str]


@dataclass(frozen=True)
class MatrixCell:
    round: int
    state: str
    owner: str | None


@dataclass(frozen=True)
class SimulationPage:
    """Everything the results panel shows for one simulation."""

    sim: Simulation
    rounds: tuple[RoundRow, ...]
    matrix: tuple[tuple[str, tuple[MatrixCell, ...]], ...]
    events_before: tuple[str, ...]
    failures: tuple[str, ...]
    skill_names: dict[str, str]


_EVENT = re.compile(r"^after round (\d+): (.*)$")


def simulation_page(sim: Simulation, catalog: Catalog) -> SimulationPage:
    """Turn a ``Simulation`` into rows: per round the visible tools (builtins apart from MCP
    tools), masked tools with the skill to load, withheld tools, the diff against the previous
    round, the calls with their verdicts, unmet expectations and the compaction/eviction notes
    that follow it; then the gated-tool matrix with the owning skill of every masked cell."""
    after: dict[int, list[str]] = {}
    before: list[str] = []
    for e in sim.events:
        m = _EVENT.match(e)
        if m and int(m.group(1)) > 0:
            after.setdefault(int(m.group(1)), []).append(m.group(2))
        else:
            before.append(m.group(2) if m else e)
    confirm = frozenset(t.name for t in catalog.tools if t.require_confirm)
    rows = []
    prev_count: int | None = None
    for r in sim.rounds:
        v = r.view
        rows.append(RoundRow(
            index=r.index, line=r.line, count=v.count, loaded=v.loaded, builtins=v.builtins,
            mcp_visible=v.mcp_visible, masked=tuple(v.masked.items()), withheld=tuple(v.withheld.items()),
            newly_released=r.newly_released, newly_masked=r.newly_masked,
            delta=None if prev_count is None else v.count - prev_count,
            calls=tuple(
                CallRow(
                    name=c.verdict.name,
                    arguments=json.dumps(dict(c.verdict.arguments), ensure_ascii=False),
                    verdict=c.verdict.verdict, reason=c.verdict.reason, skill_code=c.verdict.skill_code,
                    message=c.verdict.message, result=c.result, state=c.state, already_loaded=c.already_loaded,
                )
                for c in r.calls
            ),
            say=r.say, context_size=r.context_size, expect=dict(r.expect), failures=r.failures,
            events_after=tuple(after.get(r.index, ())), confirm_tools=confirm,
        ))
        prev_count = v.count
    matrix = tuple(
        (tool, tuple(
            MatrixCell(round=r.index, state=state, owner=r.view.masked.get(tool))
            for r, state in zip(sim.rounds, states)
        ))
        for tool, states in sim.matrix.items()
    )
    return SimulationPage(
        sim=sim, rounds=tuple(rows), matrix=matrix, events_before=tuple(before), failures=sim.failures,
        skill_names={s.code: s.name for s in catalog.skills},
    )
