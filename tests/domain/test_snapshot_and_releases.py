"""Library tests of ``domain.snapshot`` (snapshot ⇄ catalog) and ``domain.releases`` (diff,
scenario re-runs, the publish gate) — no database."""

from __future__ import annotations

from dataclasses import replace

import pytest

from skill_rule import Catalog, Tool
from skill_rule.limits import DEFAULT_LOAD_SKILL_HEADER
from skill_rule.releases import (
    PUBLISH_CHECKS,
    PublishReview,
    blocking,
    catalog_diff,
    gate,
    manual_diff,
    rerun_scenarios,
)
from skill_rule.snapshot import (
    SnapshotError,
    body_sha256,
    canonical_json,
    catalog_from_snapshot,
    catalog_to_snapshot,
)

from .factories import ALPHA, BETA, shop, skill

SCRIPT = """
name: refund-flow
steps:
  - user: refund please
  - assistant: {calls: [{load_skill: {skill_code: alpha}}], expect: {count: 5, masked: [refund, cancel, ship]}}
  - assistant: {calls: [{refund: {}}], expect: {count: 7}}
"""


def test_canonical_json_sorts_keys_and_keeps_unicode():
    assert canonical_json({"b": 1, "a": "取消"}) == '{"a":"取消","b":1}'.encode()
    assert body_sha256({}) == "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"


def test_round_trip_keeps_everything_but_disabled_skills():
    catalog = shop(
        ALPHA,
        BETA,
        skill("off", ("export",), enabled=False),
        profiles={"reader": {"lookup"}},
        stages={"prepare": {"lookup", "ship"}},
    )
    back = catalog_from_snapshot(catalog_to_snapshot(catalog), release=4)
    assert back.release == 4
    assert back.tools == catalog.tools
    assert back.enabled_skills == catalog.enabled_skills
    assert [s.code for s in back.skills] == ["alpha", "beta"]
    assert dict(back.profiles) == dict(catalog.profiles) and dict(back.stages) == dict(catalog.stages)
    assert (back.marker_key, back.eviction_prefix) == (catalog.marker_key, catalog.eviction_prefix)
    assert catalog_to_snapshot(back) == catalog_to_snapshot(catalog)


def test_snapshot_shape():
    snap = catalog_to_snapshot(shop(ALPHA))
    assert list(snap) == ["format", "settings", "tools", "skills", "access_profiles", "stages"]
    assert snap["settings"] == {
        "marker_key": "ragent_loaded_skill",
        "eviction_prefix": "[历史工具结果已省略，原长 ",
        "load_skill_header": DEFAULT_LOAD_SKILL_HEADER,
    }
    assert snap["skills"][0] == {
        "code": "alpha",
        "name": "Alpha",
        "description": "load for alpha",
        "content": "# alpha manual",
        "tool_ids": ["refund", "cancel"],
        "sort_order": 10,
        "version": 1,
    }
    assert snap["tools"][4] == {
        "name": "refund",
        "kind": "mcp",
        "title": "",
        "description": "",
        "inputSchema": {"type": "object"},
        "annotations": {},
        "require_confirm": True,
    }


def test_unknown_keys_are_ignored_when_reading():
    snap = catalog_to_snapshot(shop(ALPHA))
    snap["settings"]["load_skill_header"] = "a setting this version does not know"
    snap["future"] = [1, 2]
    snap["skills"][0]["colour"] = "blue"
    assert catalog_from_snapshot(snap).enabled_skills == (ALPHA,)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda s: s.pop("tools"), "snapshot: missing 'tools'"),
        (lambda s: s["skills"][0].pop("content"), "skills[0]: missing 'content'"),
        (lambda s: s["skills"][0].update(version="1"), "skills[0]: 'version' must be int, not str"),
        (lambda s: s["tools"].append({"kind": "mcp"}), "tools[8]: missing 'name'"),
    ],
)
def test_a_broken_snapshot_names_the_item(mutate, message):
    snap = catalog_to_snapshot(shop(ALPHA))
    mutate(snap)
    with pytest.raises(SnapshotError, match=f"^{message.replace('[', '.').replace(']', '.')}$"):
        catalog_from_snapshot(snap)


# --- diff -------------------------------------------------------------------------------------


def test_diff_against_nothing_adds_everything():
    diff = catalog_diff(None, shop(ALPHA))
    assert diff.skills_added == ("alpha",)
    assert diff.newly_gated == ("refund", "cancel")
    assert diff.tools_added == (
        "search_knowledge",
        "load_skill",
        "flush_memory",
        "lookup",
        "refund",
        "cancel",
        "ship",
        "export",
    )
    assert diff.settings_changed == ()


def test_diff_field_by_field_with_a_manual_line_diff():
    before = shop(ALPHA, BETA)
    alpha2 = replace(ALPHA, tool_ids=("refund",), content="# alpha manual\nuse refund only", version=2)
    tools = tuple(replace(t, require_confirm=False) if t.name == "refund" else t for t in before.tools)
    after = Catalog(tools=tools, skills=(alpha2, skill("gamma", ("export",))), marker_key="my_marker")
    diff = catalog_diff(before, after)
    assert (diff.skills_added, diff.skills_removed) == (("gamma",), ("beta",))
    [change] = diff.skills_changed
    assert change.name == "alpha"
    assert [(c.field, c.before, c.after) for c in change.changes[:3]] == [
        ("tool_ids", ["refund", "cancel"], ["refund"]),
        ("version", 1, 2),
        ("content", "# alpha manual", "# alpha manual\nuse refund only"),
    ]
    assert change.changes[2].lines == ("@@ -1 +1,2 @@", " # alpha manual", "+use refund only")
    assert diff.newly_gated == ("export",)
    assert diff.newly_released == ("cancel", "ship")
    assert dict(diff.confirm_changed) == {"refund": (True, False)}
    assert [(c.field, c.after) for c in diff.settings_changed] == [("marker_key", "my_marker")]
    assert not diff.empty
    assert catalog_diff(before, before).empty


def test_manual_diff_of_equal_manuals_is_empty():
    assert manual_diff("a\nb", "a\nb") == ()


# --- scenarios and the gate -------------------------------------------------------------------


def _review(draft: Catalog, latest: Catalog | None, scripts: dict[str, str]) -> PublishReview:
    return PublishReview(
        draft=draft,
        sha256=body_sha256(catalog_to_snapshot(draft)),
        latest_number=1 if latest else None,
        latest_sha256=body_sha256(catalog_to_snapshot(latest)) if latest else None,
        latest=latest,
        diff=catalog_diff(latest, draft),
        scenarios=rerun_scenarios(draft, latest, scripts),
    )


def test_scenarios_rerun_against_the_draft_mark_changed_rounds_and_unmet_expectations():
    latest = shop(ALPHA, BETA)
    draft = shop(ALPHA)  # beta gone: ship released
    [run] = rerun_scenarios(draft, latest, {"refund-flow": SCRIPT})
    assert run.changed_rounds == (1, 2)
    assert run.failures == (
        "round 1: expected 5 tools, got 6",
        "round 1: masked: missing ship",
        "round 2: expected 7 tools, got 8",
    )
    [same] = rerun_scenarios(latest, latest, {"refund-flow": SCRIPT})
    assert (same.changed_rounds, same.failures) == ((), ())


def test_a_scenario_that_no_longer_runs_is_reported_not_raised():
    [run] = rerun_scenarios(shop(ALPHA), None, {"broken": "steps: [{assistant: {}}]\nstage: nowhere\n"})
    assert run.simulation is None
    assert run.failures == (run.error,) and "nowhere" in run.error


def test_the_gate_lists_every_reason_and_overrides_only_scenario_ones():
    dangling = Catalog(tools=shop().tools, skills=(skill("ghost", ("teleport",)),))
    review = _review(dangling, shop(ALPHA, BETA), {"refund-flow": SCRIPT})
    reasons = gate(review)
    assert [r.code for r in reasons] == ["gate_dangling", "gate_scenario", "gate_scenario", "gate_scenario"]
    assert str(reasons[0].message) == (
        "skill 'ghost' gates teleport, which is not a registered tool (unknown, or its MCP node is disabled)"
    )
    assert not reasons[0].overridable
    assert reasons[1].key == "scenario:refund-flow:round 1: expected 5 tools, got 8"
    keys = [r.key for r in reasons if r.overridable]
    assert [r.code for r in blocking(reasons, keys)] == ["gate_dangling"]
    assert [r.code for r in blocking(reasons, keys[:1])] == ["gate_dangling", "gate_scenario", "gate_scenario"]


def test_nothing_changed_is_refused_and_a_new_check_plugs_in():
    catalog = shop(ALPHA, BETA)
    review = _review(catalog, catalog, {})
    assert [str(r.message) for r in gate(review)] == ["nothing changed since release 1"]
    assert gate(_review(catalog, None, {})) == ()
    assert len(PUBLISH_CHECKS) == 6  # dangling, unavailable (docs/mcp.md), definitions, scenarios, payloads, unchanged
    extra = lambda review: list(gate(review, []))  # noqa: E731 — a check that finds nothing
    assert gate(review, [extra]) == ()


def test_tools_changed_lists_schema_changes():
    before = shop(ALPHA)
    tools = tuple(
        replace(t, input_schema={"type": "object", "required": ["x"]}) if t.name == "ship" else t for t in before.tools
    )
    [change] = catalog_diff(before, replace(before, tools=tools)).tools_changed
    assert (change.name, [c.field for c in change.changes]) == ("ship", ["inputSchema"])
    assert Tool("x").as_dict()["inputSchema"] == {"type": "object"}


def test_a_skill_gating_a_tool_its_server_no_longer_offers_is_broken_and_blocked():
    from skill_rule.catalog import Catalog

    catalog = shop(ALPHA, BETA)
    gone = "refund"
    draft = Catalog(tools=tuple(t for t in catalog.tools if t.name != gone), skills=catalog.skills)
    review = replace(_review(draft, catalog, {}), unavailable={gone: "shop-server"})
    reasons = gate(review)
    assert [(r.code, str(r.message)) for r in reasons if r.code in ("gate_unavailable", "gate_dangling")] == [
        (
            "gate_unavailable",
            "skill 'alpha' is broken: it gates 'refund', which MCP server 'shop-server' no longer "
            "offers (sync the server again, or remove the tool from the skill)",
        )
    ]
    assert not any(r.overridable for r in reasons if r.code == "gate_unavailable")
