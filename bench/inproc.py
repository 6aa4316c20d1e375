"""What ``make bench`` measures inside one process, on the database ``SKILL_CONSOLE_SQLITE`` names
(docs/benchmarks.md). Run by ``bench.__main__`` as ``python -m bench.inproc COMMAND KIND``:

- ``build KIND`` — migrate, fill the database with the demo (``KIND=demo``: 5 skills) or the large
  catalog (``KIND=large``: 500 skills, 2,000 MCP tools), publish, print the runtime key;
- ``pages KIND`` — every console list page, the skill editor and a skill save through Django's
  test client logged in as the publisher ``bench``: the number of SQL queries and the median time
  (milliseconds) of each; prints JSON;
- ``sim KIND`` — ``skill_rule.simulator.simulate`` on the published catalog for generated
  scripts of 20 rounds × 2 calls, 200 rounds × 2 calls and 200 rounds × 40 calls; prints JSON
  (seconds, min and median).
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")

#: Console pages measured at 5 and 500 skills (the issue's list pages, then the editor and a save).
PAGES = [
    "/skills/",
    "/scenarios/",
    "/preview/",
    "/tools/",
    "/releases/",
    "/audit/",
    "/mcp/",
    "/restrictions/",
    "/publish/",
]
EDITED_SKILL = "order_change"  # a demo skill: present in both databases
#: Skills between the starting points of two simulated conversations (``cmd_sim``).
SIM_START_STEP = 37
#: How a simulation is timed: the CPU time of this process. A run is single-threaded, CPU-bound
#: work with no I/O, so on a quiet machine this equals its wall time; on a shared one, wall time
#: also counts the time slices other processes took while it ran — more of them the longer the
#: run, which made a 200-round run look slower per round than a 20-round one (docs/benchmarks.md).
SIM_CLOCK = time.process_time


def _timed(
    fn: Callable[[], Any],
    *,
    reps: int,
    budget: float,
    at_least: int = 3,
    warm: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Run ``fn`` once to warm up (unless ``warm`` is false), then up to ``reps`` times, stopping
    once ``budget`` seconds (wall time) have passed and ``at_least`` runs are done; the time of
    each run in seconds by ``clock`` (wall time by default)."""
    if warm:
        fn()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < reps and (len(times) < at_least or time.perf_counter() - start < budget):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return times


def _summary(times: list[float], scale: float = 1.0) -> dict[str, Any]:
    return {"min": min(times) * scale, "median": statistics.median(times) * scale, "n": len(times)}


def cmd_build(kind: str) -> None:
    from django.core.management import call_command

    from bench.catalog import build

    call_command("migrate", verbosity=0, interactive=False)
    print(build(kind))


def cmd_pages(kind: str) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from skills_app.models import Skill

    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    out: dict[str, Any] = {"skills": Skill.objects.live().count()}

    def measure(name: str, call: Callable[[], Any], expect: int) -> None:
        response = call()
        if response.status_code != expect:
            raise SystemExit(f"{name}: HTTP {response.status_code}, expected {expect}")
        executed: list[str] = []

        def counter(execute, sql, params, many, context):
            executed.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(counter):
            call()
        times = _timed(call, reps=9, budget=20.0)
        out[name] = {"queries": len(executed), "ms": _summary(times, 1000.0)}

    for url in PAGES:
        measure(url, lambda url=url: client.get(url), 200)
    edit = f"/skills/{EDITED_SKILL}/edit"
    measure(f"{edit} (GET)", lambda: client.get(edit), 200)
    counter = iter(range(10**6))

    def save():
        skill = Skill.objects.live().get(skill_code=EDITED_SKILL)
        data = {
            "name": skill.name,
            "description": skill.description,
            "content": skill.content.split("\n<!-- bench")[0] + f"\n<!-- bench {next(counter)} -->",
            "tool_ids": skill.tool_ids,
            "sort_order": skill.sort_order,
            "enabled": "on" if skill.enabled else "",
            "base_version": skill.version,
            "base_enabled": "on" if skill.enabled else "",
            "base_sort_order": skill.sort_order,
        }
        return client.post(edit, data)

    measure(f"{edit} (save)", save, 302)
    print(json.dumps(out))


def script_for(catalog, rounds: int, calls: int, start: int = 0):
    """A scenario of ``rounds`` rounds (a user message, then an assistant step) of ``calls`` calls
    each, built in code (``Script``): the calls walk the enabled skills in order from the
    ``start``-th (modulo their number) — ``load_skill`` of a skill, then each tool it gates — and
    go round again (a repeat load gets the stub)."""
    from skill_rule.messages import ToolCall
    from skill_rule.scripts import Script, Step

    enabled = catalog.enabled_skills
    first = start % len(enabled) if enabled else 0
    skills = enabled[first:] + enabled[:first]

    def stream():
        while True:
            for s in skills:
                yield "load_skill", {"skill_code": s.code}
                for t in s.tool_ids:
                    yield t, ({"record_no": "12345"} if t.startswith("bench_") else {})

    calls_iter = stream()
    steps, line, n = [], 1, 0
    for r in range(rounds):
        steps.append(Step(kind="user", line=line, text=f"第 {r + 1} 个请求"))
        made = []
        for _ in range(calls):
            name, args = next(calls_iter)
            n += 1
            made.append(ToolCall(name=name, arguments=args, id=f"c{n}"))
        steps.append(Step(kind="assistant", line=line + 1, text="好的", calls=tuple(made)))
        line += 2
    return Script(name=f"bench-{rounds}x{calls}", steps=tuple(steps))


def cmd_sim(kind: str) -> None:
    from skill_rule.simulator import simulate
    from skills_app.releases.selectors import release_catalog, release_latest

    catalog = release_catalog(release_latest())
    if "budget" in inspect.signature(simulate).parameters:  # a time budget stops long runs: measure whole runs
        simulate = functools.partial(simulate, budget=None)
    out: dict[str, Any] = {"skills": len(catalog.enabled_skills), "tools": len(catalog.mcp_tool_names)}
    t0 = time.perf_counter()
    simulate(catalog, script_for(catalog, 1, 1))  # the catalog's derived views, computed once per catalog
    out["first_round_s"] = time.perf_counter() - t0
    # Each run simulates a conversation not simulated before: run k starts its walk at skill
    # k × SIM_START_STEP. The rule keeps the round shapes of the last loaded sets per catalog
    # (rules.ROUND_SHAPE_CACHE_SIZE, 64): replaying one script would serve a 20-round run's 20
    # shapes from the run before while a 200-round run's never fit — a cache measured against
    # the simulator (docs/benchmarks.md, "What runs").
    # The three sizes take turns (20 × 2, 200 × 2, 20 × 2, 200 × 40, then again), as the page runs
    # and the HTTP floors do, so a change of the machine's load falls on every size alike; a size
    # stops after ``reps`` runs or once its runs took ``budget`` seconds (the first always counts).
    sizes = {(20, 2): (14, 10.0), (200, 2): (7, 30.0), (200, 40): (3, 60.0)}
    turn_order = [(20, 2), (200, 2), (20, 2), (200, 40)]
    scripts: dict[tuple[int, int], list[Any]] = {}
    runs = 0
    for (rounds, calls), (reps, _budget) in sizes.items():
        scripts[rounds, calls] = [
            script_for(catalog, rounds, calls, start=(runs + k) * SIM_START_STEP) for k in range(reps + 1)
        ]
        runs += reps + 1
        simulate(catalog, scripts[rounds, calls][-1])  # warm-up, on a conversation of its own
    times: dict[tuple[int, int], list[float]] = {size: [] for size in sizes}
    for _turn in range(max(reps for reps, _budget in sizes.values())):
        for size in turn_order:
            done, (reps, budget) = times[size], sizes[size]
            if len(done) >= reps or sum(done) >= budget:
                continue
            t0 = SIM_CLOCK()
            sim = simulate(catalog, scripts[size][len(done)])
            done.append(SIM_CLOCK() - t0)
            assert len(sim.rounds) == size[0]
    for (rounds, calls), done in times.items():
        out[f"{rounds}x{calls}"] = {**_summary(done), "calls": rounds * calls}
    print(json.dumps(out))


def main(argv: list[str]) -> None:
    import django

    django.setup()
    command, kind = argv
    {"build": cmd_build, "pages": cmd_pages, "sim": cmd_sim}[command](kind)


if __name__ == "__main__":
    main(sys.argv[1:])
