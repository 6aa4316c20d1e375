"""The simulator pauses Python's cyclic collector for a run and always switches it back on
(docs/simulator.md, "Cost")."""

from __future__ import annotations

import gc

import pytest

from skill_rule import simulator
from skill_rule.scripts import parse_script

from .factories import shop


def test_collector_is_paused_during_a_run_and_on_after_it():
    seen = []
    script = parse_script("name: gc\nsteps:\n  - user: hi\n  - assistant: ok\n")
    ticks = iter(range(100))

    def clock() -> float:
        seen.append(gc.isenabled())
        return float(next(ticks))

    assert gc.isenabled()
    sim = simulator.simulate(shop(), script, budget=60, clock=clock)
    assert len(sim.rounds) == 1
    assert seen and not any(seen)  # every clock read happened inside the run: collector off
    assert gc.isenabled()


def test_collector_is_switched_back_on_when_a_run_raises():
    def clock() -> float:
        assert not gc.isenabled()
        raise RuntimeError("clock broke")

    script = parse_script("name: gc\nsteps:\n  - user: hi\n  - assistant: ok\n")
    with pytest.raises(RuntimeError, match="clock broke"):
        simulator.simulate(shop(), script, budget=60, clock=clock)
    assert gc.isenabled()


def test_a_run_started_with_the_collector_off_leaves_it_off():
    script = parse_script("name: gc\nsteps:\n  - user: hi\n  - assistant: ok\n")
    gc.disable()
    try:
        simulator.replay(shop(), [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}])
        simulator.simulate(shop(), script)
        assert not gc.isenabled()
    finally:
        gc.enable()
