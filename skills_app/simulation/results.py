"""Saved scenarios' results against the draft, cached (issue 10, docs/simulator.md "Cached results").

A result depends only on the scenario's script and the catalog it runs against, so it is cached
in Django's cache (Redis when ``SKILL_CONSOLE_REDIS_URL`` is set, else the process's local memory)
under a key made of:

- the sha256 of the scenario's name and script (a script error names the scenario),
- the sha256 of the catalog's canonical snapshot (``domain.snapshot.body_sha256``; the same
  digest a release of that catalog would carry), and
- ``RESULT_FORMAT``, bumped whenever the rule, the simulator or the cached shape changes, so
  results computed by older code are never read.

Any change to a skill, a tool, a profile, a stage or the settings changes the catalog digest: the
old entries are simply never asked for again (they expire after ``RESULT_TIMEOUT``). A run stopped
by the time budget depends on how busy the machine was, so it is kept only
``STOPPED_TIMEOUT`` seconds before it is tried again.

The scenarios page reads the cache for the rows it shows (one ``get_many``) and lets every row
that is not cached load through its own request (``scenario_result``), so no request runs more
than one scenario.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from cachetools import LRUCache
from django.core.cache import cache

from skill_rule import Catalog, DomainError, Simulation, parse_script, simulate
from skill_rule.snapshot import body_sha256, catalog_to_snapshot

#: Bump when the rule, the simulator or ``ScenarioResult`` changes shape: older entries are ignored.
RESULT_FORMAT = 1
#: Seconds a finished result is kept (a week); a changed catalog or script makes a new key anyway.
RESULT_TIMEOUT = 7 * 24 * 3600
#: Seconds a run stopped by the time budget is kept before it is tried again.
STOPPED_TIMEOUT = 300
KEY_PREFIX = "scenario-result"
#: Finished results kept unpickled in this process too, in front of Django's cache (least recently
#: used dropped first): at 2,000 MCP tools a result holds every round's masked tools, and
#: unpickling it costs the publish review milliseconds on every visit. A result never changes
#: under its key, so keeping it needs no invalidation.
PROCESS_KEEP = 16

_local: LRUCache[str, ScenarioResult] = LRUCache(maxsize=PROCESS_KEEP)  # under _local_lock
_local_lock = threading.Lock()


@dataclass(frozen=True)
class ScenarioResult:
    """How one saved scenario runs against one catalog: ``simulation`` (``None`` when the script
    cannot run) or ``error`` (the ``DomainError`` message naming the scenario, file and line)."""

    name: str
    simulation: Simulation | None = None
    error: str = ""

    @property
    def rounds(self) -> int:
        """Number of rounds computed."""
        return len(self.simulation.rounds) if self.simulation is not None else 0

    @property
    def counts(self) -> tuple[int, ...]:
        """Tools the model is given, per round."""
        return tuple(r.view.count for r in self.simulation.rounds) if self.simulation is not None else ()

    @property
    def failures(self) -> tuple[str, ...]:
        """Unmet expectations (``Simulation.failures``: a time-budget stop is one, last)."""
        return self.simulation.failures if self.simulation is not None else ()

    @property
    def expectations(self) -> int:
        """Rounds that carry an ``expect`` mapping."""
        return self.simulation.checked_rounds if self.simulation is not None else 0

    @property
    def stopped(self) -> str | None:
        """The time-budget stop (a ``Problem``), or ``None``."""
        return self.simulation.stopped if self.simulation is not None else None

    @property
    def passed(self) -> bool:
        """True when the script runs and no expectation failed."""
        return not self.error and not self.failures

    def as_dict(self) -> dict:
        """The ``result.json`` download: ``{"scenario", "result_format", "error", "simulation"}``
        with ``simulation`` in the ``simulate --json`` shape (``Simulation.as_dict``) or ``null``."""
        return {
            "scenario": self.name,
            "result_format": RESULT_FORMAT,
            "error": self.error or None,
            "simulation": self.simulation.as_dict() if self.simulation is not None else None,
        }


def catalog_sha256(catalog: Catalog) -> str:
    """Hex sha256 of ``catalog``'s canonical snapshot (``domain.snapshot``), the catalog half of a
    key — the sha256 the draft would be published with. Computed once per catalog object and kept
    on it (``Catalog.derived``): the draft catalog is kept per process until a write
    (``draft_cache``), so its digest is too."""
    return catalog.derived("console_snapshot_sha256", lambda: body_sha256(catalog_to_snapshot(catalog)))


def script_sha256(name: str, script: str) -> str:
    """Hex sha256 of a scenario's name and script (UTF-8, joined by a NUL)."""
    return hashlib.sha256(f"{name}\x00{script}".encode("utf-8", "surrogatepass")).hexdigest()


def result_key(name: str, script: str, catalog_sha: str) -> str:
    """The cache key of one scenario's result against the catalog with digest ``catalog_sha``."""
    return f"{KEY_PREFIX}:{RESULT_FORMAT}:{catalog_sha}:{script_sha256(name, script)}"


def cached_results(scenarios: Iterable, catalog_sha: str) -> dict[str, ScenarioResult]:
    """Scenario name → its cached result, for the ``scenarios`` (``Scenario`` rows: ``name``,
    ``script``) that have one against ``catalog_sha``. One cache round trip; never runs anything."""
    keys = {result_key(s.name, s.script, catalog_sha): s.name for s in scenarios}
    found = cache.get_many(list(keys)) if keys else {}
    return {keys[k]: v for k, v in found.items() if isinstance(v, ScenarioResult)}


def run_scenario(name: str, script: str, catalog: Catalog) -> ScenarioResult:
    """Parse and simulate one scenario against ``catalog`` (with the simulator's time budget);
    a script that cannot run gives a result with ``error`` set, never an exception."""
    try:
        sim = simulate(catalog, parse_script(script, source=f"scenario '{name}'"))
    except DomainError as exc:
        return ScenarioResult(name=name, error=exc.message)
    return ScenarioResult(name=name, simulation=sim)


def scenario_result(scenario, catalog: Catalog, *, catalog_sha: str | None = None) -> ScenarioResult:
    """The result of ``scenario`` (a ``Scenario``: ``name``, ``script``) against ``catalog``: from
    the cache when there, else run once (``run_scenario``) and stored. ``catalog_sha``: the
    catalog's digest when the caller has it (``catalog_sha256``)."""
    key = result_key(scenario.name, scenario.script, catalog_sha or catalog_sha256(catalog))
    with _local_lock:
        kept = _local.get(key)
    if kept is not None:
        return kept
    found = cache.get(key)
    if isinstance(found, ScenarioResult):
        _keep(key, found)
        return found
    result = run_scenario(scenario.name, scenario.script, catalog)
    cache.set(key, result, STOPPED_TIMEOUT if result.stopped is not None else RESULT_TIMEOUT)
    _keep(key, result)
    return result


def _keep(key: str, result: ScenarioResult) -> None:
    """Keep a finished ``result`` in this process (``PROCESS_KEEP``); a run stopped by the time
    budget is not kept: it is tried again after ``STOPPED_TIMEOUT``."""
    if result.stopped is not None:
        return
    with _local_lock:
        _local[key] = result


def forget() -> None:
    """Drop the results kept in this process (tests; a new process starts with none)."""
    with _local_lock:
        _local.clear()


def cached_runner(digests: Mapping[int, str]) -> Callable[[Catalog, str, str], Simulation]:
    """A ``run`` for ``domain.releases.rerun_scenarios`` (the publish review) that answers from
    this cache: ``digests`` maps ``id(catalog)`` of each catalog it will be given to that
    catalog's digest (the draft's snapshot sha256, a release's ``sha256``; any digest that names
    the content uniquely keys it rightly). A catalog not in ``digests`` is hashed here. A cached
    error is raised again as a ``DomainError`` with its message, as the plain run would."""

    def run(catalog: Catalog, name: str, script: str) -> Simulation:
        digest = digests.get(id(catalog)) or catalog_sha256(catalog)
        result = scenario_result(_Scenario(name, script), catalog, catalog_sha=digest)
        if result.simulation is None:
            raise DomainError(result.error)
        return result.simulation

    return run


@dataclass(frozen=True)
class _Scenario:
    name: str
    script: str
