"""Plain-text rendering of a simulation for the CLI (``manage.py simulate``)."""

from __future__ import annotations

import json

from skill_rule.simulator import Simulation


def _args(arguments) -> str:
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())


def simulation_text(sim: Simulation) -> str:
    """Per round: count, loaded skills, visible tools, masked tools with the skill to load, calls
    with verdicts; then the gated-tool matrix (tool × round: masked / released)."""
    lines: list[str] = []
    source = f"release {sim.release}" if sim.release is not None else "draft"
    lines.append(
        f"scenario {sim.scenario} ({source}) · access profile: {sim.access_profile or '—'} · stage: {sim.stage or '—'}"
    )
    if sim.allowed_tools is not None:
        lines.append(f"allowed tools: {', '.join(sim.allowed_tools) or '— (none)'}")
    if sim.stopped is not None:
        lines.append(f"stopped: {sim.stopped}")
    for w in sim.warnings:
        lines.append(f"warning: {w}")
    for r in sim.rounds:
        v = r.view
        head = f"round {r.index} · {v.count} tools · loaded: {', '.join(v.loaded) or '—'}"
        if r.newly_released:
            head += f" · released: {', '.join(r.newly_released)}"
        if r.newly_masked:
            head += f" · masked again: {', '.join(r.newly_masked)}"
        lines.append("")
        lines.append(head)
        lines.append(f"  visible ({v.count}): {', '.join(v.visible) or '—'}")
        masked = ", ".join(f"{t} → {s}" for t, s in v.masked.items())
        lines.append(f"  masked ({len(v.masked)}): {masked or '—'}")
        if v.withheld:
            lines.append("  withheld: " + ", ".join(f"{t} ({why})" for t, why in v.withheld.items()))
        for c in r.calls:
            verdict = c.verdict
            text = f"  call {verdict.name}({_args(verdict.arguments)}) → {verdict.verdict}"
            if verdict.reason:
                text += f" [{verdict.reason}]"
            if verdict.verdict != "allowed" or verdict.reason:
                text += f": {verdict.message}"
            if c.already_loaded:
                text += " (already loaded: short stub, no marker)"
            lines.append(text)
        for f in r.failures:
            lines.append(f"  ✗ {f}")
    for e in sim.events:
        lines.append(f"note: {e}")
    if sim.matrix:
        lines.append("")
        width = max(len("gated tool"), *(len(t) for t in sim.matrix))
        header = "gated tool".ljust(width) + "".join(f"  {'r' + str(r.index):<8}" for r in sim.rounds)
        lines.append(header)
        for tool, states in sim.matrix.items():
            lines.append(tool.ljust(width) + "".join(f"  {s:<8}" for s in states))
    lines.append("")
    if not sim.passed:
        lines.append(f"{len(sim.failures)} expectation(s) not met")
    elif sim.checked_rounds:
        lines.append(f"{sim.checked_rounds} of {len(sim.rounds)} rounds checked: all expectations met")
    else:
        lines.append("no expectations set")
    return "\n".join(lines)
