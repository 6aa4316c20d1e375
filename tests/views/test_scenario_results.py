"""Saved scenarios' results are cached by (script, catalog, RESULT_FORMAT) (skills_app/simulation/results.py):
the list page reads the cache and runs nothing; a row not cached runs once through its own URL;
a change to the catalog or the script is a new key; the full result downloads as JSON."""

from __future__ import annotations

import json
import pickle

import pytest
from django.core.cache import cache

from skill_rule import parse_script, simulate
from skills_app.catalog import selectors
from skills_app.catalog import services as catalog_services
from skills_app.models import Scenario, Skill
from skills_app.simulation import results as scenario_results
from skills_app.simulation import services as simulation_services
from tests.views.html import parse


@pytest.fixture
def runs(monkeypatch):
    """How many times a scenario was simulated (the real simulator, counted)."""
    calls: list[str] = []
    real = scenario_results.simulate

    def counted(catalog, script, **kwargs):
        calls.append(script.name)
        return real(catalog, script, **kwargs)

    monkeypatch.setattr(scenario_results, "simulate", counted)
    return calls


def _key(name: str) -> str:
    s = Scenario.objects.get(name=name)
    return scenario_results.result_key(s.name, s.script, scenario_results.catalog_sha256(selectors.catalog_draft()))


def test_the_list_page_runs_no_scenario_and_a_row_runs_once(staff_client, bitmall, runs):
    names = list(Scenario.objects.order_by("name").values_list("name", flat=True))
    doc = parse(staff_client.get("/scenarios/").content)
    assert runs == []
    assert [r["data-scenario"] for r in doc.select("data-pending")] == names
    assert cache.get(_key("cancel-iphone")) is None
    staff_client.get("/scenarios/cancel-iphone/result")
    assert len(runs) == 1
    assert isinstance(cache.get(_key("cancel-iphone")), scenario_results.ScenarioResult)
    staff_client.get("/scenarios/cancel-iphone/result")  # second visit: from the cache
    doc = parse(staff_client.get("/scenarios/").content)
    assert len(runs) == 1
    assert doc.one("data-scenario", "cancel-iphone")["data-passed"] == "1"
    assert [r["data-scenario"] for r in doc.select("data-pending")] == [n for n in names if n != "cancel-iphone"]


def test_a_changed_catalog_is_a_new_key_and_the_row_runs_again(staff_client, bitmall, runs):
    staff_client.get("/scenarios/cancel-iphone/result")
    old_key = _key("cancel-iphone")
    catalog_services.skill_set_enabled(skill=Skill.objects.get(skill_code="order_change"), enabled=False)
    assert _key("cancel-iphone") != old_key
    row = parse(staff_client.get("/scenarios/").content).one("data-scenario", "cancel-iphone")
    assert "data-pending" in row.attrs
    row = parse(staff_client.get("/scenarios/cancel-iphone/result").content).one("data-scenario", "cancel-iphone")
    assert row["data-passed"] == "0"  # cancel_order is no longer masked in round 1
    assert runs == ["cancel-iphone", "cancel-iphone"]


def test_a_changed_script_is_a_new_key(staff_client, bitmall, runs):
    staff_client.get("/scenarios/cancel-iphone/result")
    scenario = Scenario.objects.get(name="cancel-iphone")
    simulation_services.scenario_save(
        name=scenario.name, script=scenario.script + "\n# changed\n", description=scenario.description
    )
    assert "data-pending" in parse(staff_client.get("/scenarios/").content).one("data-scenario", "cancel-iphone").attrs


def test_the_result_format_is_part_of_the_key(monkeypatch):
    before = scenario_results.result_key("a", "steps: []", "0" * 64)
    monkeypatch.setattr(scenario_results, "RESULT_FORMAT", scenario_results.RESULT_FORMAT + 1)
    assert scenario_results.result_key("a", "steps: []", "0" * 64) != before


def test_a_simulation_pickles_with_its_problems(bitmall):
    catalog = selectors.catalog_draft()
    script = Scenario.objects.get(name="cancel-iphone").script.replace("count: 13", "count: 12")
    sim = simulate(catalog, parse_script(script))
    assert sim.failures  # Problems with a code
    back = pickle.loads(pickle.dumps(sim))
    assert back.as_dict() == sim.as_dict()
    problems = [f for r in sim.rounds for f in r.failures]
    back_problems = [f for r in back.rounds for f in r.failures]
    assert [f.code for f in back_problems] == [f.code for f in problems] == ["expect_count", "expect_count"]
    assert [f.params for f in back_problems] == [f.params for f in problems]


def test_result_json_downloads_every_round(staff_client, bitmall):
    response = staff_client.get("/scenarios/cancel-iphone/result.json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="cancel-iphone.json"'
    body = json.loads(response.content)
    assert body["scenario"] == "cancel-iphone" and body["error"] is None
    assert body["result_format"] == scenario_results.RESULT_FORMAT
    assert [r["count"] for r in body["simulation"]["rounds"]] == [11, 13, 13]
    assert body["simulation"]["passed"] is True


def test_result_json_of_an_unknown_scenario_is_a_json_404(staff_client, bitmall):
    response = staff_client.get("/scenarios/nope/result.json")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert json.loads(response.content)["error"]["code"] == "not_found"


def test_a_script_that_cannot_run_is_cached_with_its_error(staff_client, bitmall):
    simulation_services.scenario_save(
        name="broken", script="steps:\n  - user: hi\n  - compact: {drop: [9]}\n  - assistant: {}\n", description=""
    )
    row = parse(staff_client.get("/scenarios/broken/result").content).one("data-scenario", "broken")
    assert row["data-passed"] == "0" and "out of range" in row.one("data-result").text()
    body = json.loads(staff_client.get("/scenarios/broken/result.json").content)
    assert body["simulation"] is None and "scenario 'broken'" in body["error"]


def test_a_cached_run_stopped_by_the_time_budget_reads_as_such(staff_client, bitmall):
    scenario = Scenario.objects.get(name="cancel-iphone")
    catalog = selectors.catalog_draft()
    ticks = iter(range(0, 100, 6))  # start 0, round 1 at 6 (runs), round 2 at 12 (> 10: stop)
    sim = simulate(catalog, parse_script(scenario.script), budget=10, clock=lambda: next(ticks))
    cache.set(_key("cancel-iphone"), scenario_results.ScenarioResult(name=scenario.name, simulation=sim))
    row = parse(staff_client.get("/scenarios/").content).one("data-scenario", "cancel-iphone")
    assert row["data-passed"] == "0" and row.one("data-stopped").text() == "已停止"
    assert "已在 3 轮中的第 1 轮后停止：超出了 10 秒的时间预算。" in row.one("data-result").text()
    assert row.one("data-counts").text() == "11"


def test_the_catalog_digest_is_the_snapshot_s_and_is_reused_for_the_same_catalog(bitmall):
    from skill_rule.snapshot import body_sha256, catalog_to_snapshot

    catalog = selectors.catalog_draft()
    digest = scenario_results.catalog_sha256(catalog)
    assert digest == body_sha256(catalog_to_snapshot(catalog))
    assert catalog.__dict__["console_snapshot_sha256"] == digest  # kept on the catalog object
    assert scenario_results.catalog_sha256(catalog) is digest
    other = catalog_services.skill_set_enabled(skill=Skill.objects.get(skill_code="iot_bundle"), enabled=False)
    assert other.enabled is False
    changed = selectors.catalog_draft()
    assert changed is not catalog and scenario_results.catalog_sha256(changed) != digest


def test_the_publish_review_runs_each_scenario_once_per_catalog_then_reads_the_cache(staff_client, bitmall, runs):
    from skills_app.releases.selectors import publish_review

    first = publish_review()
    assert runs == ["cancel-iphone"] * len(runs) and len(runs) == len(
        first.scenarios
    )  # one per distinct catalog digest
    again = publish_review()
    assert len(runs) == len(first.scenarios)
    assert [(r.name, r.changed_rounds) for r in again.scenarios] == [
        (r.name, r.changed_rounds) for r in first.scenarios
    ]
    staff_client.get("/publish/")
    assert len(runs) == len(first.scenarios)  # the page shares the cache
    row = parse(staff_client.get("/scenarios/").content).one("data-scenario", "cancel-iphone")
    assert "data-pending" not in row.attrs  # and /scenarios/ finds the draft's result there


def test_a_finished_result_is_kept_unpickled_in_the_process_a_stopped_one_is_not(bitmall, runs, monkeypatch):
    scenario = Scenario.objects.get(name="cancel-iphone")
    catalog = selectors.catalog_draft()
    first = scenario_results.scenario_result(scenario, catalog)
    cache.clear()  # Django's cache emptied: the process still holds the very object
    assert scenario_results.scenario_result(scenario, catalog) is first
    assert runs == ["cancel-iphone"]
    scenario_results.forget()
    again = scenario_results.scenario_result(scenario, catalog)  # neither holds it: run again
    assert again is not first and runs == ["cancel-iphone", "cancel-iphone"]
    scenario_results.forget()
    cache.clear()
    monkeypatch.setattr(scenario_results.ScenarioResult, "stopped", property(lambda self: "stopped"))
    stopped = scenario_results.scenario_result(scenario, catalog)
    assert scenario_results._local == {}  # a run stopped by the time budget is tried again later
    assert stopped.name == "cancel-iphone" and cache.get(_key("cancel-iphone")).name == "cancel-iphone"
