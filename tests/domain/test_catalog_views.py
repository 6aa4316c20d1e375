"""A catalog's derived views: computed before a run's time budget starts (``Catalog.prepare``)
and carried to the editor's catalog with an unsaved skill (``Catalog.with_skills``)."""

from __future__ import annotations

from skill_rule import simulator
from skill_rule.scripts import parse_script

from .factories import shop


def test_the_catalogs_derived_views_are_computed_before_the_budget_starts():
    catalog = shop()
    reads = []

    def clock() -> float:
        reads.append("tool_problems" in catalog.__dict__)
        return 0.0

    script = parse_script("name: gc\nsteps:\n  - user: hi\n  - assistant: ok\n")
    simulator.simulate(catalog, script, budget=60, clock=clock)
    assert reads and all(reads)  # the first clock read already found the schema checks done
    assert catalog.prepare() is catalog


def test_with_skills_carries_the_tool_views_only_while_some_skill_stays_enabled():
    from dataclasses import replace as dc_replace

    catalog = shop().prepare()
    same = catalog.with_skills(catalog.skills[:1])
    assert same.tool_problems is catalog.tool_problems
    assert same.registered_tools is catalog.registered_tools
    assert [s.code for s in same.skills] == [catalog.skills[0].code]
    fresh = shop()  # nothing computed yet: the views are computed on the base catalog, then carried
    copy = fresh.with_skills(fresh.skills[:1])
    assert "tool_problems" in fresh.__dict__ and copy.tool_problems is fresh.tool_problems
    assert copy.mcp_tool_names is fresh.mcp_tool_names
    none_enabled = catalog.with_skills(tuple(dc_replace(s, enabled=False) for s in catalog.skills))
    assert "registered_tools" not in none_enabled.__dict__
    assert "load_skill" not in [t.name for t in none_enabled.registered_tools]  # recomputed: no skill, no load_skill


def test_gating_skills_lists_every_enabled_gating_skill_in_sort_order_registered_or_not():
    from .factories import skill

    catalog = shop(
        skill("zeta", ("refund", "ghost"), sort_order=1),
        skill("alpha", ("refund",), sort_order=2),
        skill("beta", ("cancel",), sort_order=1),
        skill("off", ("refund",), enabled=False),
    )
    assert dict(catalog.gating_skills) == {"cancel": ("beta",), "refund": ("zeta", "alpha"), "ghost": ("zeta",)}
    assert catalog.gate_owner["refund"] == "zeta"


def test_a_tools_only_derived_value_is_built_once_for_a_catalog_and_its_with_skills_copies():
    catalog = shop()
    builds = []

    def build():
        builds.append(1)
        return frozenset({"order_no"})

    copy = catalog.with_skills(catalog.skills[:1]).with_skills(catalog.skills)
    assert copy.derived("tools:names", build) == frozenset({"order_no"})
    assert catalog.derived("tools:names", build) == frozenset({"order_no"})
    assert catalog.with_skills(()).derived("tools:names", build) == frozenset({"order_no"})
    assert builds == [1]  # kept on the catalog the copies were made from
    assert catalog.derived("per-catalog", lambda: 1) == 1
    assert copy.derived("per-catalog", lambda: 2) == 2  # other keys stay with each catalog
