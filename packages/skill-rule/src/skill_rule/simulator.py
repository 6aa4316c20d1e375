"""The simulator (docs/simulator.md): run a scenario script or replay a transcript round by round.

Before every assistant step it computes the round (``rules.compute_round``), then applies the
step: each call passes through the guard (``rules.check_call``); ``load_skill`` results come from
the manual under simulation with the marker (``rules.load_skill``); other results come from the
script's ``results`` or a neutral placeholder.
"""

from __future__ import annotations

import gc
import json
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from itertools import filterfalse
from typing import Any

from .catalog import Catalog
from .errors import Problem, ScriptError
from .limits import LOAD_SKILL, SIMULATION_TIME_BUDGET
from .messages import Message, ToolCall, as_messages
from .rules import (
    CONFIRM,
    REFUSED,
    Restrictions,
    RoundView,
    Verdict,
    guard,
    is_evicted,
    load_from_manuals,
    resolve_restrictions,
    round_from_evidence,
)
from .scripts import Script, Step
from .transcript import EvidenceReader

MASKED = "masked"
RELEASED = "released"
WITHHELD = "withheld"
OPEN = "open"


@dataclass(frozen=True)
class CallOutcome:
    """A call of the round, the guard's verdict, and the tool result that went into context."""

    verdict: Verdict
    result: str
    state: str
    already_loaded: bool = False

    def as_dict(self) -> dict[str, Any]:
        out = self.verdict.as_dict()
        out["arguments"] = dict(self.verdict.arguments)
        out["result"] = self.result
        out["state"] = self.state
        out["already_loaded"] = self.already_loaded
        return out


@dataclass(frozen=True)
class SimRound:
    """One round: ``index`` is 1-based; ``line`` the script line of its assistant step (or the
    transcript's message index); ``newly_released`` / ``newly_masked`` the diff against the
    previous round's visible list; ``user`` the last user message before the round (what led to
    it, ``""`` when none); ``failures`` the unmet expectations."""

    index: int
    line: int | None
    view: RoundView
    calls: tuple[CallOutcome, ...]
    say: str = ""
    user: str = ""
    newly_visible: tuple[str, ...] = ()
    newly_hidden: tuple[str, ...] = ()
    newly_released: tuple[str, ...] = ()
    newly_masked: tuple[str, ...] = ()
    context_size: int = 0
    expect: Mapping[str, Any] = field(default_factory=dict)
    failures: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The ``simulate --json`` shape of one round."""
        return {
            "index": self.index,
            "line": self.line,
            "user": self.user,
            "count": self.view.count,
            "visible": list(self.view.visible),
            "builtins": list(self.view.builtins),
            "mcp_visible": list(self.view.mcp_visible),
            "masked": dict(self.view.masked),
            "loaded": list(self.view.loaded),
            "released": list(self.view.released),
            "withheld": dict(self.view.withheld),
            "newly_visible": list(self.newly_visible),
            "newly_hidden": list(self.newly_hidden),
            "newly_released": list(self.newly_released),
            "newly_masked": list(self.newly_masked),
            "context_size": self.context_size,
            "calls": [c.as_dict() for c in self.calls],
            "failures": list(self.failures),
        }


@dataclass(frozen=True)
class Simulation:
    """The outcome of a whole scenario.

    ``matrix`` maps each gated tool (registration order) to one state per round: ``masked`` (a
    manual would release it), ``released`` (visible) or ``withheld`` (outside the access profile
    or stage: no manual can show it, docs/rule.md). ``stopped`` is set (a ``Problem``, code
    ``time_budget``) when the run hit its time budget and ``rounds`` holds only the rounds computed
    before. ``events`` are one-line notes of compactions and evictions (``Problem``s: codes ``compacted``, ``evicted``, ``evict_none``, ``evict_none_of_tool`` with ``params["round"]``); ``messages`` is the
    final retained context.
    """

    scenario: str
    rounds: tuple[SimRound, ...]
    matrix: Mapping[str, tuple[str, ...]]
    access_profile: str | None = None
    stage: str | None = None
    release: int | None = None
    allowed_tools: tuple[str, ...] | None = None
    events: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    messages: tuple[Message, ...] = ()
    stopped: Problem | None = None

    @property
    def failures(self) -> tuple[str, ...]:
        """Every unmet expectation as ``round N: …``; a run stopped by the time budget
        (``stopped``) fails too, with that sentence last (a partial run never passes)."""
        out = tuple(f"round {r.index}: {f}" for r in self.rounds for f in r.failures)
        return out + (self.stopped,) if self.stopped is not None else out

    @property
    def passed(self) -> bool:
        """True when no expectation failed (also when none was set: see ``checked_rounds``)."""
        return not self.failures

    @property
    def checked_rounds(self) -> int:
        """How many rounds carry an ``expect`` mapping."""
        return sum(1 for r in self.rounds if r.expect)

    def as_dict(self) -> dict[str, Any]:
        """The ``simulate --json`` document."""
        return {
            "scenario": self.scenario,
            "release": self.release,
            "access_profile": self.access_profile,
            "stage": self.stage,
            "allowed_tools": list(self.allowed_tools) if self.allowed_tools is not None else None,
            "rounds": [r.as_dict() for r in self.rounds],
            "matrix": {k: list(v) for k, v in self.matrix.items()},
            "events": list(self.events),
            "warnings": list(self.warnings),
            "failures": list(self.failures),
            "checked_rounds": self.checked_rounds,
            "passed": self.passed,
            "stopped": self.stopped,
        }


def _list_failure(code: str, what: str, want: list[str], got: list[str]) -> Problem:
    """An unmet list expectation as its difference: the tools (or skills) ``missing`` from the round
    and the ``unexpected`` ones; when both are empty only the order differs (docs/simulator.md)."""
    missing = [t for t in want if t not in got]
    unexpected = [t for t in got if t not in want]
    params = {
        "what": what,
        "want": want,
        "got": got,
        "missing": ", ".join(missing),
        "unexpected": ", ".join(unexpected),
        "missing_list": missing,
        "unexpected_list": unexpected,
    }
    if missing and unexpected:
        return Problem(code, "%(what)s: missing %(missing)s; unexpected %(unexpected)s", params)
    if missing:
        return Problem(code, "%(what)s: missing %(missing)s", params)
    if unexpected:
        return Problem(code, "%(what)s: unexpected %(unexpected)s", params)
    return Problem(code, "%(what)s: the same names in another order: expected %(want)s, got %(got)s", params)


def check_expectations(view: RoundView, expect: Mapping[str, Any]) -> tuple[str, ...]:
    """Compare a round with a step's ``expect`` mapping; return one ``Problem`` (the English
    sentence, with ``code`` and ``params`` for a page to translate) per unmet item. A list
    expectation reports its difference (``missing`` / ``unexpected``), not the two lists."""
    failures: list[Problem] = []
    if "count" in expect and view.count != expect["count"]:
        failures.append(
            Problem(
                "expect_count", "expected %(want)s tools, got %(got)s", {"want": expect["count"], "got": view.count}
            )
        )
    for key, actual in (("visible", view.visible), ("mcp_visible", view.mcp_visible), ("loaded", view.loaded)):
        if key in expect and list(actual) != list(expect[key]):
            failures.append(_list_failure("expect_list", key, list(expect[key]), list(actual)))
    for name in expect.get("includes", []):
        if name not in view.visible:
            failures.append(Problem("expect_visible", "expected '%(tool)s' to be visible", {"tool": name}))
    for name in expect.get("excludes", []):
        if name in view.visible:
            failures.append(Problem("expect_hidden", "expected '%(tool)s' not to be visible", {"tool": name}))
    if "masked" in expect:
        want = expect["masked"]
        if isinstance(want, Mapping):
            if dict(view.masked) != dict(want):
                if sorted(want) != sorted(view.masked):
                    failures.append(_list_failure("expect_masked", "masked", list(want), list(view.masked)))
                else:
                    failures.append(
                        Problem(
                            "expect_masked",
                            "expected masked %(want)s, got %(got)s",
                            {"want": dict(want), "got": dict(view.masked)},
                        )
                    )
        elif sorted(view.masked) != sorted(want):
            failures.append(_list_failure("expect_masked", "masked", list(want), list(view.masked)))
    return tuple(failures)


def neutral_result(call: ToolCall) -> str:
    """The placeholder result of a tool the script gives no result for."""
    return f"（模拟结果）{call.name} 已执行。"


def eviction_placeholder(catalog: Catalog, message: Message) -> Message:
    """Replace a tool result by the eviction placeholder, keeping its metadata (docs/rule.md)."""
    text = f"{catalog.eviction_prefix}{len(message.content)} 字]"
    meta = dict(message.metadata)
    meta["evicted"] = True
    return replace(message, content=text, metadata=meta)


class _Shown:
    """``set(visible)`` of a run's visible lists, each built once: a round's list is the next
    round's ``prev`` in ``_diff`` and is read again by ``_matrix``, and rounds of one shape share
    one list object (the rule's shape cache). Keyed by identity, holding the list so that its id is
    never reused while kept."""

    def __init__(self) -> None:
        self._sets: dict[int, tuple[tuple[str, ...], set[str]]] = {}

    def __call__(self, visible: tuple[str, ...]) -> set[str]:
        hit = self._sets.get(id(visible))
        if hit is not None and hit[0] is visible:
            return hit[1]
        made = set(visible)
        self._sets[id(visible)] = (visible, made)
        return made


def _diff(
    prev: RoundView | None, view: RoundView, gated: frozenset[str], shown: Callable[[tuple[str, ...]], set[str]]
) -> tuple[tuple[str, ...], ...]:
    """The round's change list, derived from the two visible lists only (docs/simulator.md):
    ``newly_released`` ⊆ ``newly_visible`` (gated tools now visible), ``newly_masked`` ⊆
    ``newly_hidden`` (tools now masked). A withheld tool is in neither list. ``gated`` is
    ``catalog.gated_set``; ``shown`` turns a visible list into a set (a run's ``_Shown``, or ``set``)."""
    if prev is None:
        return (), (), (), ()
    if prev.visible == view.visible:
        return (), (), (), ()
    before, after = shown(prev.visible), shown(view.visible)
    newly_visible = tuple(filterfalse(before.__contains__, view.visible))
    newly_hidden = tuple(filterfalse(after.__contains__, prev.visible))
    # The restrictions are fixed for a run, so only gated tools change visibility and a tool that
    # leaves the visible list is masked: each filter keeps every name (not mutated, see the reasons).
    newly_released = tuple(filter(gated.__contains__, newly_visible))  # pragma: no mutate
    newly_masked = tuple(filter(view.masked.__contains__, newly_hidden))  # pragma: no mutate
    return newly_visible, newly_hidden, newly_released, newly_masked


def _state(view: RoundView, tool: str, shown: frozenset[str] | set[str]) -> str:
    """One cell of the matrix: masked over withheld over visible (released), else open."""
    if tool in view.masked:
        return MASKED
    if tool in view.withheld:
        return WITHHELD
    if tool in shown:
        return RELEASED
    return OPEN  # a fallback: a registered gated tool is always one of the three (rules._round_shape)


def _matrix(
    catalog: Catalog, rounds: Iterable[SimRound], shown: Callable[[tuple[str, ...]], set[str]]
) -> dict[str, tuple[str, ...]]:
    """Gated tool → its state in each round (docs/simulator.md, "The matrix").

    The first column is built whole. Each later one copies the one before and rewrites only the
    tools whose state may have changed: a registered gated tool is, in every round, exactly one
    of masked, withheld or visible (``rules._round_shape``), and the withheld tools are the same in
    every round of a run (they depend on the run's restrictions only), so a tool's state changes
    only if it entered or left the visible list. That costs O(gated) copying in C plus
    O(visible + changes) per round, not a dict of every gated tool."""
    gated = catalog.gated_tool_ids
    columns: list[list[str]] = []
    prev: RoundView | None = None
    before: set[str] = set()  # pragma: no mutate
    column: list[str]
    for r in rounds:
        view = r.view
        after = shown(view.visible)
        if prev is None:
            # later keys win: masked over withheld over visible (released), else open
            state = {
                **dict.fromkeys(view.visible, RELEASED),
                **dict.fromkeys(view.withheld, WITHHELD),
                **dict.fromkeys(view.masked, MASKED),
            }
            column = [state.get(tool) or OPEN for tool in gated]  # (a map over repeat(OPEN) had an endless mutant)
        elif view.visible is not prev.visible:
            changed = before ^ after
            if changed:
                position = _gated_positions(catalog)
                column = column.copy()
                for tool in changed:
                    at = position.get(tool)
                    if at is not None:
                        column[at] = _state(view, tool, after)
        columns.append(column)
        prev, before = view, after
    if not columns:
        return dict.fromkeys(gated, ())
    return dict(zip(gated, zip(*columns)))


def _gated_positions(catalog: Catalog) -> Mapping[str, int]:
    """Gated tool → its row in the matrix: the last one when ``gated_tool_ids`` lists a name twice,
    the row ``dict(zip(gated, …))`` keeps."""

    def build() -> dict[str, int]:
        return {tool: i for i, tool in enumerate(catalog.gated_tool_ids)}

    return catalog.derived("_simulator_gated_positions", build)  # pragma: no mutate


def _result_for(step: Step, call: ToolCall) -> tuple[str, str]:
    raw = step.results.get(call.name)
    if raw is None:
        return neutral_result(call), "success"
    if isinstance(raw, str):
        return raw, "success"
    return str(raw.get("content", "")), str(raw.get("state", "success"))


def _apply_assistant(
    catalog: Catalog,
    step: Step,
    reader: EvidenceReader,
    view: RoundView,
    restrictions: Restrictions,
) -> tuple[CallOutcome, ...]:
    """Append the step's assistant message and one tool result per call to ``reader``. Each call
    goes through the guard against ``view``; a ``load_skill`` result reads the manuals already
    kept by ``reader`` (the results of this step's earlier calls included). O(calls)."""
    reader.append(Message(role="assistant", content=step.text, tool_calls=step.calls))
    outcomes: list[CallOutcome] = []
    for call in step.calls:
        verdict = guard(catalog, call, restrictions=restrictions, view=view)
        meta: dict[str, Any] = {}
        already = False
        if verdict.verdict == REFUSED:
            content, state = verdict.message, "error"
            meta = {"refused": verdict.reason}
        elif verdict.verdict == CONFIRM:
            args = json.dumps(
                dict(call.arguments),
                ensure_ascii=False,  # pragma: no mutate
            )
            content, state = f"已生成确认卡片，等待用户确认：{call.name} {args}", "success"
            meta = {"confirmation_required": True}
        elif call.name == LOAD_SKILL:
            result = load_from_manuals(catalog, reader, call.arguments.get("skill_code"))
            content, state, meta, already = result.content, result.state, dict(result.metadata), result.already_loaded
        else:
            content, state = _result_for(step, call)
        reader.append(Message(role="tool", content=content, tool_call_id=call.id, state=state, metadata=meta))
        outcomes.append(CallOutcome(verdict=verdict, result=content, state=state, already_loaded=already))
    return tuple(outcomes)


def _describe_result(index: int, message: Message, called: Mapping[str, str], catalog: Catalog) -> str:
    """``"message 3: load_skill(alpha)"`` / ``"message 5: query_order"`` for an eviction note."""
    code = message.metadata.get(catalog.marker_key)  # set by load_from_manuals only: a skill code
    if code:
        return f"message {index}: {LOAD_SKILL}({code})"
    return f"message {index}: {called.get(message.tool_call_id, 'tool result')}"


def _check_indices(step: Step, context: list[Message], what: str, source: str) -> None:
    bad = [i for i in step.drop if i > len(context)]
    if bad:
        raise ScriptError(
            f"{what} index {bad[0]} is out of range: {len(context)} message(s) are retained",
            source=source,
            line=step.line,
        )


def _budget_problem(done: int, total: int, budget: float) -> Problem:
    return Problem(
        "time_budget",
        "stopped after %(done)s of %(total)s rounds: the time budget of %(budget)s s was exceeded",
        {"done": done, "total": total, "budget": f"{budget:g}", "round": done},
    )


@contextmanager
def _cycle_collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for one run (docs/simulator.md, "Cost").

    A run only builds acyclic frozen records (rounds, verdicts, messages), which reference counting
    frees; yet every ~700 allocations the collector would walk them again, and a long run's growing
    result makes the full collections that follow cost time in proportion to the whole heap — the
    part of a 200-round run that grew faster than its rounds. The collector is switched back on
    when the run ends (or raises) if it was on when the run began; nested and concurrent runs
    leave it on once the first of them ends.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def simulate(
    catalog: Catalog,
    script: Script,
    *,
    access_profile: str | None = None,
    stage: str | None = None,
    allowed_tools: Iterable[str] | None = None,
    budget: float | None = SIMULATION_TIME_BUDGET,
    clock: Callable[[], float] = time.monotonic,
) -> Simulation:
    """Run ``script`` against ``catalog`` (draft or release) and return every round.

    ``access_profile`` / ``stage`` / ``allowed_tools`` override the script's own. Raises
    ``UnknownRestrictionError`` for an unknown profile or stage and ``ScriptError`` when a
    compact/evict step names a message index that is not retained.

    ``budget`` is a time budget in seconds (``SIMULATION_TIME_BUDGET``; ``None`` = none) measured
    with ``clock`` (seconds, ``time.monotonic``; tests pass a fake one): checked before every round,
    a run past it stops there and returns the rounds computed so far with ``stopped`` set
    ("stopped after N of M rounds: …") — never an exception.

    Cost (docs/simulator.md): O(messages + calls) in all — the evidence is read once, message by
    message (``transcript.EvidenceReader``), each call is one guard check — plus O(tools) per
    round for the round's lists; a compact step rereads the retained messages (O(retained)).
    """
    with _cycle_collector_paused():
        return _simulate(
            catalog,
            script,
            access_profile=access_profile,
            stage=stage,
            allowed_tools=allowed_tools,
            budget=budget,
            clock=clock,
        )


def _simulate(
    catalog: Catalog,
    script: Script,
    *,
    access_profile: str | None,
    stage: str | None,
    allowed_tools: Iterable[str] | None,
    budget: float | None,
    clock: Callable[[], float],
) -> Simulation:
    """``simulate`` with the collector as the caller left it."""
    profile = access_profile if access_profile is not None else script.access_profile
    stage_name = stage if stage is not None else script.stage
    allowed = allowed_tools if allowed_tools is not None else script.allowed_tools
    allowed = tuple(allowed) if allowed is not None else None  # read once: it may be an iterator
    restrictions = resolve_restrictions(catalog, access_profile=profile, stage=stage_name, allowed_tools=allowed)
    reader = EvidenceReader(
        marker_key=catalog.marker_key, eviction_prefix=catalog.eviction_prefix, published=catalog.published_manuals
    )
    context = reader.messages  # the retained messages, appended to through ``reader`` only
    rounds: list[SimRound] = []
    events: list[Problem] = []
    prev: RoundView | None = None
    last_user = ""
    called: dict[str, str] = {}  # call id → tool name of every call made so far (retained or not)
    shown = _Shown()
    total = sum(1 for step in script.steps if step.kind == "assistant")
    catalog.prepare()  # the catalog's one-time derived views are not the run's time
    start = clock()
    stopped: Problem | None = None
    for step in script.steps:
        if step.kind in ("user", "system"):
            reader.append(Message(role=step.kind, content=step.text))
            if step.kind == "user":
                last_user = step.text
        elif step.kind == "assistant":
            if budget is not None and clock() - start > budget:
                stopped = _budget_problem(len(rounds), total, budget)
                break
            view = round_from_evidence(catalog, reader.evidence(), restrictions)
            size = len(context)
            outcomes = _apply_assistant(catalog, step, reader, view, restrictions)
            for c in step.calls:
                if c.id:
                    called[c.id] = c.name
            nv, nh, nr, nm = _diff(prev, view, catalog.gated_set, shown)
            rounds.append(
                SimRound(
                    index=len(rounds) + 1,
                    line=step.line,
                    view=view,
                    calls=outcomes,
                    say=step.text,
                    user=last_user,
                    newly_visible=nv,
                    newly_hidden=nh,
                    newly_released=nr,
                    newly_masked=nm,
                    context_size=size,
                    expect=step.expect,
                    failures=check_expectations(view, step.expect),
                )
            )
            prev = view
        elif step.kind == "compact":
            _check_indices(step, context, "compact.drop", script.source)
            drop = set(step.drop)
            kept = [m for i, m in enumerate(context, start=1) if i not in drop]
            reader = EvidenceReader(
                marker_key=catalog.marker_key,
                eviction_prefix=catalog.eviction_prefix,
                published=catalog.published_manuals,
            )
            for m in kept:  # positions shift: read the retained messages again, once
                reader.append(m)
            context = reader.messages
            events.append(
                Problem(
                    "compacted",
                    "after round %(round)s: compacted messages %(indices)s; %(retained)s retained",
                    {"round": len(rounds), "indices": sorted(drop), "retained": len(context)},
                )
            )
        elif step.kind == "evict":
            _check_indices(step, context, "evict.index", script.source)
            targets = set(step.drop)
            if step.evict_tool:
                # Every retained result of that tool, also when its assistant call was compacted
                # away: the call ids of the whole script say which tool a result answers, and a
                # result carrying the loaded-skill marker is a load_skill result whatever happened.
                targets |= {
                    i
                    for i, m in enumerate(context, start=1)
                    if m.role == "tool"
                    and (
                        called.get(m.tool_call_id) == step.evict_tool
                        or (step.evict_tool == LOAD_SKILL and m.metadata.get(catalog.marker_key))
                    )
                }
            targets = {i for i in targets if context[i - 1].role == "tool" and not is_evicted(context[i - 1], catalog)}
            what = [_describe_result(i, context[i - 1], called, catalog) for i in sorted(targets)]
            for i in sorted(targets):
                reader.replace(i - 1, eviction_placeholder(catalog, context[i - 1]))
            if targets:
                events.append(
                    Problem(
                        "evicted",
                        "after round %(round)s: evicted tool results %(indices)s: %(what)s",
                        {"round": len(rounds), "indices": sorted(targets), "what": "; ".join(what), "items": what},
                    )
                )
            elif step.evict_tool:
                events.append(
                    Problem(
                        "evict_none_of_tool",
                        "after round %(round)s: no retained tool results of '%(tool)s' to evict",
                        {"round": len(rounds), "tool": step.evict_tool},
                    )
                )
            else:
                events.append(
                    Problem(
                        "evict_none", "after round %(round)s: no retained tool results to evict", {"round": len(rounds)}
                    )
                )
    return Simulation(
        scenario=script.name,
        rounds=tuple(rounds),
        matrix=_matrix(catalog, rounds, shown),
        access_profile=restrictions.profile,
        stage=restrictions.stage,
        release=catalog.release,
        allowed_tools=allowed,
        events=tuple(events),
        warnings=restrictions.warnings,
        messages=tuple(context),
        stopped=stopped,
    )


def replay(
    catalog: Catalog,
    messages: Iterable[Message | Mapping[str, Any]],
    *,
    name: str = "transcript",
    access_profile: str | None = None,
    stage: str | None = None,
    allowed_tools: Iterable[str] | None = None,
    budget: float | None = SIMULATION_TIME_BUDGET,
    clock: Callable[[], float] = time.monotonic,
) -> Simulation:
    """Replay a real transcript (docs/simulator.md): a round sits before every assistant message.

    The calls of each assistant message are checked by the guard against the messages before it;
    the transcript's own tool results are kept. ``line`` of each round is the 1-based index of its
    assistant message. Raises ``MessageError`` for a malformed message. ``budget`` / ``clock``
    as in ``simulate``. Cost: O(messages + calls), plus O(tools) per round; a call's result is
    found through an index of the results by call id (binary search), never a scan.
    """
    with _cycle_collector_paused():
        return _replay(
            catalog,
            messages,
            name=name,
            access_profile=access_profile,
            stage=stage,
            allowed_tools=allowed_tools,
            budget=budget,
            clock=clock,
        )


def _replay(
    catalog: Catalog,
    messages: Iterable[Message | Mapping[str, Any]],
    *,
    name: str,
    access_profile: str | None,
    stage: str | None,
    allowed_tools: Iterable[str] | None,
    budget: float | None,
    clock: Callable[[], float],
) -> Simulation:
    """``replay`` with the collector as the caller left it."""
    msgs = as_messages(messages)
    allowed = tuple(allowed_tools) if allowed_tools is not None else None  # read once: it may be an iterator
    restrictions = resolve_restrictions(catalog, access_profile=access_profile, stage=stage, allowed_tools=allowed)
    results_by_id: dict[str, list[int]] = {}
    for j, r in enumerate(msgs):
        if r.role == "tool" and r.tool_call_id:
            results_by_id.setdefault(r.tool_call_id, []).append(j)
    reader = EvidenceReader(
        marker_key=catalog.marker_key, eviction_prefix=catalog.eviction_prefix, published=catalog.published_manuals
    )
    rounds: list[SimRound] = []
    prev: RoundView | None = None
    last_user = ""
    total = sum(1 for m in msgs if m.role == "assistant")
    catalog.prepare()  # the catalog's one-time derived views are not the run's time
    start = clock()
    stopped: Problem | None = None
    for i, m in enumerate(msgs):
        if m.role == "user":
            last_user = m.content
        if m.role != "assistant":
            reader.append(m)
            continue
        if budget is not None and clock() - start > budget:
            stopped = _budget_problem(len(rounds), total, budget)
            break
        view = round_from_evidence(catalog, reader.evidence(), restrictions)  # the messages before i
        outcomes = []
        for call in m.tool_calls:
            verdict = guard(catalog, call, restrictions=restrictions, view=view)
            later = results_by_id.get(call.id, ())  # a call without an id: none (only ids are keys)
            k = bisect_right(later, i)
            result = msgs[later[k]] if k < len(later) else None
            outcomes.append(
                CallOutcome(
                    verdict=verdict,
                    result=result.content if result else "",
                    state=result.state if result else "",
                )
            )
        nv, nh, nr, nm = _diff(prev, view, catalog.gated_set, set)
        rounds.append(
            SimRound(
                index=len(rounds) + 1,
                line=(m.index if m.index is not None else i) + 1,
                view=view,
                calls=tuple(outcomes),
                say=m.content,
                user=last_user,
                newly_visible=nv,
                newly_released=nr,
                context_size=i,
                newly_hidden=nh,
                newly_masked=nm,  # pragma: no mutate
            )
        )
        prev = view
        reader.append(m)
    return Simulation(
        scenario=name,
        rounds=tuple(rounds),
        matrix=_matrix(catalog, rounds, set),
        access_profile=restrictions.profile,
        stage=restrictions.stage,
        release=catalog.release,
        allowed_tools=allowed,
        warnings=restrictions.warnings,
        messages=msgs,
        stopped=stopped,
    )
