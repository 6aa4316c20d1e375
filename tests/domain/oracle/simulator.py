"""ORACLE (reference copy, tests only — see __init__.py). The simulator (docs/simulator.md): run a scenario script or replay a transcript round by round.

Before every assistant step it computes the round (``rules.compute_round``), then applies the
step: each call passes through the guard (``rules.check_call``); ``load_skill`` results come from
the manual under simulation with the marker (``rules.load_skill``); other results come from the
script's ``results`` or a neutral placeholder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from skill_rule.catalog import Catalog
from skill_rule.errors import Problem, ScriptError
from skill_rule.limits import LOAD_SKILL
from skill_rule.messages import Message, ToolCall, as_messages
from skill_rule.scripts import Script, Step

from .rules import (
    CONFIRM,
    REFUSED,
    Restrictions,
    RoundView,
    Verdict,
    check_call,
    compute_round,
    is_evicted,
    load_skill,
    resolve_restrictions,
)

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
    or stage: no manual can show it, docs/rule.md). ``events`` are one-line notes of compactions and evictions (``Problem``s: codes ``compacted``, ``evicted``, ``evict_none``, ``evict_none_of_tool`` with ``params["round"]``); ``messages`` is the
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

    @property
    def failures(self) -> tuple[str, ...]:
        """Every unmet expectation as ``round N: …``."""
        return tuple(f"round {r.index}: {f}" for r in self.rounds for f in r.failures)

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
        }


def _list_failure(code: str, what: str, want: list, got: list) -> Problem:
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


def _diff(prev: RoundView | None, view: RoundView) -> tuple[tuple[str, ...], ...]:
    """The round's change list, derived from the two visible lists only (docs/simulator.md):
    ``newly_released`` ⊆ ``newly_visible`` (gated tools now visible), ``newly_masked`` ⊆
    ``newly_hidden`` (tools now masked). A withheld tool is in neither list."""
    if prev is None:
        return (), (), (), ()
    before, after = set(prev.visible), set(view.visible)
    newly_visible = tuple(t for t in view.visible if t not in before)
    newly_hidden = tuple(t for t in prev.visible if t not in after)
    newly_released = tuple(t for t in newly_visible if t in view.gated)
    newly_masked = tuple(t for t in newly_hidden if t in view.masked)
    return newly_visible, newly_hidden, newly_released, newly_masked


def _matrix(catalog: Catalog, rounds: Iterable[SimRound]) -> dict[str, tuple[str, ...]]:
    rounds = tuple(rounds)
    return {
        tool: tuple(
            MASKED
            if tool in r.view.masked
            else WITHHELD
            if tool in r.view.withheld
            else RELEASED
            if tool in r.view.visible
            else OPEN
            for r in rounds
        )
        for tool in catalog.gated_tool_ids
    }


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
    context: list[Message],
    view: RoundView,
    restrictions: Restrictions,
) -> tuple[CallOutcome, ...]:
    seen = tuple(context)
    context.append(Message(role="assistant", content=step.text, tool_calls=step.calls))
    outcomes: list[CallOutcome] = []
    for call in step.calls:
        verdict = check_call(catalog, seen, call, restrictions=restrictions, view=view)
        meta: dict[str, Any] = {}
        already = False
        if verdict.verdict == REFUSED:
            content, state = verdict.message, "error"
            meta = {"refused": verdict.reason}
        elif verdict.verdict == CONFIRM:
            args = json.dumps(dict(call.arguments), ensure_ascii=False)
            content, state = f"已生成确认卡片，等待用户确认：{call.name} {args}", "success"
            meta = {"confirmation_required": True}
        elif call.name == LOAD_SKILL:
            result = load_skill(catalog, tuple(context), call.arguments.get("skill_code"))
            content, state, meta, already = result.content, result.state, dict(result.metadata), result.already_loaded
        else:
            content, state = _result_for(step, call)
        context.append(Message(role="tool", content=content, tool_call_id=call.id, state=state, metadata=meta))
        outcomes.append(CallOutcome(verdict=verdict, result=content, state=state, already_loaded=already))
    return tuple(outcomes)


def _calls_made(script: Script, until: Step) -> dict[str, str]:
    """Call id → tool name of every call the script's assistant steps made before ``until``
    (retained or not)."""
    out: dict[str, str] = {}
    for step in script.steps:
        if step is until:
            break
        for c in step.calls:
            if c.id:
                out[c.id] = c.name
    return out


def _describe_result(index: int, message: Message, called: Mapping[str, str], catalog: Catalog) -> str:
    """``"message 3: load_skill(alpha)"`` / ``"message 5: query_order"`` for an eviction note."""
    code = message.metadata.get(catalog.marker_key)
    if isinstance(code, str) and code:
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


def simulate(
    catalog: Catalog,
    script: Script,
    *,
    access_profile: str | None = None,
    stage: str | None = None,
    allowed_tools: Iterable[str] | None = None,
) -> Simulation:
    """Run ``script`` against ``catalog`` (draft or release) and return every round.

    ``access_profile`` / ``stage`` / ``allowed_tools`` override the script's own. Raises
    ``UnknownRestrictionError`` for an unknown profile or stage and ``ScriptError`` when a
    compact/evict step names a message index that is not retained.
    """
    profile = access_profile if access_profile is not None else script.access_profile
    stage_name = stage if stage is not None else script.stage
    allowed = allowed_tools if allowed_tools is not None else script.allowed_tools
    restrictions = resolve_restrictions(catalog, access_profile=profile, stage=stage_name, allowed_tools=allowed)
    context: list[Message] = []
    rounds: list[SimRound] = []
    events: list[Problem] = []
    prev: RoundView | None = None
    last_user = ""
    for step in script.steps:
        if step.kind in ("user", "system"):
            context.append(Message(role=step.kind, content=step.text))
            if step.kind == "user":
                last_user = step.text
        elif step.kind == "assistant":
            view = compute_round(catalog, context, restrictions=restrictions)
            size = len(context)
            outcomes = _apply_assistant(catalog, step, context, view, restrictions)
            nv, nh, nr, nm = _diff(prev, view)
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
            context[:] = [m for i, m in enumerate(context, start=1) if i not in drop]
            events.append(
                Problem(
                    "compacted",
                    "after round %(round)s: compacted messages %(indices)s; %(retained)s retained",
                    {"round": len(rounds), "indices": sorted(drop), "retained": len(context)},
                )
            )
        elif step.kind == "evict":
            _check_indices(step, context, "evict.index", script.source)
            called = _calls_made(script, step)
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
                context[i - 1] = eviction_placeholder(catalog, context[i - 1])
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
        matrix=_matrix(catalog, rounds),
        access_profile=restrictions.profile,
        stage=restrictions.stage,
        release=catalog.release,
        allowed_tools=tuple(allowed) if allowed is not None else None,
        events=tuple(events),
        warnings=restrictions.warnings,
        messages=tuple(context),
    )


def replay(
    catalog: Catalog,
    messages: Iterable[Message | Mapping[str, Any]],
    *,
    name: str = "transcript",
    access_profile: str | None = None,
    stage: str | None = None,
    allowed_tools: Iterable[str] | None = None,
) -> Simulation:
    """Replay a real transcript (docs/simulator.md): a round sits before every assistant message.

    The calls of each assistant message are checked by the guard against the messages before it;
    the transcript's own tool results are kept. ``line`` of each round is the 1-based index of its
    assistant message. Raises ``MessageError`` for a malformed message.
    """
    msgs = as_messages(messages)
    restrictions = resolve_restrictions(
        catalog, access_profile=access_profile, stage=stage, allowed_tools=allowed_tools
    )
    rounds: list[SimRound] = []
    prev: RoundView | None = None
    last_user = ""
    for i, m in enumerate(msgs):
        if m.role == "user":
            last_user = m.content
        if m.role != "assistant":
            continue
        seen = msgs[:i]
        view = compute_round(catalog, seen, restrictions=restrictions)
        outcomes = []
        for call in m.tool_calls:
            verdict = check_call(catalog, seen, call, restrictions=restrictions, view=view)
            result = next(
                (r for r in msgs[i + 1 :] if r.role == "tool" and r.tool_call_id == call.id and call.id), None
            )
            outcomes.append(
                CallOutcome(
                    verdict=verdict,
                    result=result.content if result else "",
                    state=result.state if result else "",
                )
            )
        nv, nh, nr, nm = _diff(prev, view)
        rounds.append(
            SimRound(
                index=len(rounds) + 1,
                line=(m.index if m.index is not None else i) + 1,
                view=view,
                calls=tuple(outcomes),
                say=m.content,
                user=last_user,
                newly_visible=nv,
                newly_hidden=nh,
                newly_released=nr,
                newly_masked=nm,
                context_size=len(seen),
            )
        )
        prev = view
    return Simulation(
        scenario=name,
        rounds=tuple(rounds),
        matrix=_matrix(catalog, rounds),
        access_profile=restrictions.profile,
        stage=restrictions.stage,
        release=catalog.release,
        allowed_tools=tuple(allowed_tools) if allowed_tools is not None else None,
        warnings=restrictions.warnings,
        messages=msgs,
    )
