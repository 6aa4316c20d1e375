"""Saved scenarios: list with a run link and the result against the draft, create/edit through
``services.scenario_save``."""

from __future__ import annotations

from skills_app.models import Scenario
from tests.views.html import parse

SCRIPT = (
    "name: quick\nsteps:\n  - user: hi\n  - assistant:\n      calls: [{query_order: {}}]\n      expect: {count: 11}\n"
)


def test_list_links_each_scenario_to_the_preview_and_shows_its_result(staff_client, bitmall):
    doc = parse(staff_client.get("/scenarios/").content)
    row = doc.one("data-scenario", "cancel-iphone")
    assert row["data-passed"] == "" and row["hx-get"] == "/scenarios/cancel-iphone/result"  # not run yet
    assert row.one("data-run-link")["href"] == "/preview/?scenario=cancel-iphone"
    loaded = parse(staff_client.get("/scenarios/cancel-iphone/result").content).one("data-scenario", "cancel-iphone")
    assert loaded["data-passed"] == "1" and "11 → 13 → 13" in loaded.text()
    row = parse(staff_client.get("/scenarios/").content).one("data-scenario", "cancel-iphone")
    assert row["data-passed"] == "1" and "data-pending" not in row.attrs  # read from the cache
    assert "11 → 13 → 13" in row.one("data-counts").text()


def test_create_scenario(staff_client, bitmall):
    response = staff_client.post("/scenarios/new", {"name": "quick", "description": "d", "script": SCRIPT})
    assert response.status_code == 302
    assert Scenario.objects.get(name="quick").script == SCRIPT


def test_save_and_run_opens_the_preview(staff_client, bitmall):
    response = staff_client.post("/scenarios/new", {"name": "quick", "script": SCRIPT, "run": "1"})
    assert response["Location"] == "/preview/?scenario=quick"


def test_yaml_error_names_the_line_and_saves_nothing(staff_client, bitmall):
    bad = "steps:\n  - user: hi\n  - wave: hello\n"
    doc = parse(staff_client.post("/scenarios/new", {"name": "bad", "script": bad}).content)
    error = doc.one("data-errors-for", "script").text()
    assert ":3:" in error and "wave" in error
    assert not Scenario.objects.filter(name="bad").exists()
    assert doc.one("data-field", "script").by_tag("textarea")[0].text().lstrip("\n") == bad


def test_create_refuses_an_existing_name(staff_client, bitmall):
    before = Scenario.objects.get(name="cancel-iphone").script
    doc = parse(staff_client.post("/scenarios/new", {"name": "cancel-iphone", "script": SCRIPT}).content)
    assert "cancel-iphone" in doc.one("data-errors-for", "name").text()
    assert Scenario.objects.get(name="cancel-iphone").script == before


def test_edit_scenario_keeps_its_name(staff_client, bitmall):
    response = staff_client.post("/scenarios/cancel-iphone/edit", {"name": "renamed", "script": SCRIPT})
    assert response.status_code == 302
    assert Scenario.objects.get(name="cancel-iphone").script == SCRIPT
    assert not Scenario.objects.filter(name="renamed").exists()


def test_a_scenario_that_no_longer_meets_its_expectations_is_flagged(staff_client, bitmall):
    staff_client.post("/scenarios/new", {"name": "quick", "script": SCRIPT.replace("count: 11", "count: 12")})
    assert (
        parse(staff_client.get("/scenarios/quick/result").content).one("data-scenario", "quick")["data-passed"] == "0"
    )


def test_descriptions_follow_the_console_language(staff_client, bitmall):
    staff_client.post(
        "/scenarios/new",
        {"name": "quick", "description": "快速检查", "description_en": "quick check", "script": SCRIPT},
    )
    assert Scenario.objects.get(name="quick").description_en == "quick check"
    row = parse(staff_client.get("/scenarios/").content).one("data-scenario", "quick")
    assert row.one("data-description").text() == "快速检查"
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    row = parse(staff_client.get("/scenarios/").content).one("data-scenario", "quick")
    assert row.one("data-description").text() == "quick check"
    doc = parse(staff_client.get("/preview/", {"scenario": "quick"}).content)
    assert doc.one("data-scenario-description").text() == "quick check"


def test_editing_without_the_english_field_keeps_the_english_description(staff_client, bitmall):
    staff_client.post("/scenarios/new", {"name": "quick", "description_en": "quick check", "script": SCRIPT})
    staff_client.post("/scenarios/quick/edit", {"name": "quick", "description": "改", "script": SCRIPT})
    assert Scenario.objects.get(name="quick").description_en == "quick check"


def test_a_nul_character_in_a_saved_script_names_its_line(staff_client, bitmall):
    doc = parse(staff_client.post("/scenarios/new", {"name": "nul", "script": "steps:\n  - user: a\x00\n"}).content)
    error = doc.one("data-errors-for", "script").text()
    assert "NUL" in error and "第 2 行" in error
    assert not Scenario.objects.filter(name="nul").exists()


def test_a_scenario_naming_an_unknown_access_profile_or_stage_is_refused_listing_those_defined(staff_client, bitmall):
    """Found by a break-in: it was saved without a word, then blocked every publish."""
    from skills_app.catalog import services

    services.access_profile_save(name="member", description="", tools=["query_order"], create=True)
    services.access_profile_save(name="guest", description="", tools=["query_order"], create=True)
    script = "access_profile: vip\nstage: night\n" + SCRIPT.removeprefix("name: quick\n")
    doc = parse(staff_client.post("/scenarios/new", {"name": "vip", "script": script}).content)
    assert doc.one("data-errors-for", "script").text() == (
        "脚本指定的访问配置“vip”不存在；已定义的有：guest, member。脚本指定的阶段“night”不存在；已定义的有：—。"
    )
    assert not Scenario.objects.filter(name="vip").exists()
