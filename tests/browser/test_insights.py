"""The insights page, the fleet page and a skill's "In production" card in Chromium (issue 26 item
5): a runtime posts its reports to the live server over HTTP with a runtime key, then the pages
draw their charts with the vendored Chart.js — no console error, no Content-Security-Policy
violation (the ``page`` fixture fails the test on one) — each chart holding the numbers of the
table beside it, in Chinese and in English, at 1280 px and at 390 px (no page wider than the
phone). A keyboard user opens the numbers per day. Screenshots: /tmp/i26p-*.png (page, language,
width)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from skills_app.catalog import services as catalog_services
from skills_app.keys.services import api_key_create
from skills_app.models import Release, Skill
from skills_app.releases.services import COMMAND_LINE, release_publish
from tests.api.test_reports import REPORTS, base_time, cancel_iphone_batch
from tests.browser.conftest import login, watch_csp
from tests.views.test_insights import batch_b, draft_and_heartbeats

pytestmark = pytest.mark.browser

#: Where the screenshots go: /tmp/i26p-<page>-<zh|en>-<1280|390>.png.
SHOTS = Path("/tmp")
CHARTS = ["chart-per-day", "chart-loads", "chart-masked", "chart-refusals"]


@pytest.fixture
def reported(console):
    """Releases 1 and 2 (production → 2) and one hour of reports, sent as a runtime sends them:
    JSON over HTTP to the live server with a runtime key."""
    release_publish(user=COMMAND_LINE, note="first")
    skill = Skill.objects.get(skill_code="fault_diagnosis")
    catalog_services.skill_update(skill=skill, content=skill.content + "\n\n## 新增\n先确认设备型号。")
    release_publish(user=COMMAND_LINE, note="second", move_labels=["production"])
    sha1, sha2 = (Release.objects.get(number=n).sha256 for n in (1, 2))
    key = api_key_create(user=COMMAND_LINE, name="browser-runtime").key
    t0 = base_time()
    for records in (cancel_iphone_batch(t0, sha1), batch_b(t0, sha2), draft_and_heartbeats(t0, sha2)):
        request = urllib.request.Request(
            f"{console}{REPORTS}",
            data=json.dumps({"records": records}).encode(),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200
            assert json.loads(response.read())["stored"] == len(records)
    return console


def _speak(page, base: str, language: str) -> None:
    """Log in and choose the language with the top bar's switch, as a person does."""
    login(page, base)
    if language == "en-US":
        page.click('button[data-lang="en"]')
        page.wait_for_load_state("load")


def _errors(page) -> list[str]:
    """Every console error and uncaught exception of ``page`` from now on."""
    seen: list[str] = []
    page.on("console", lambda msg: seen.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None)
    page.on("pageerror", lambda exc: seen.append(f"pageerror: {exc}"))
    return seen


def _drawn(page, ids: list[str]) -> None:
    page.wait_for_function(
        "(ids) => ids.every(id => document.getElementById(id + '-canvas')?.hasAttribute('data-drawn'))", arg=ids
    )


def _series(page, chart_id: str) -> list[list[int]]:
    """The numbers Chart.js holds for a chart, series by series."""
    return page.evaluate(
        "(id) => Chart.getChart(document.getElementById(id + '-canvas')).data.datasets.map(d => d.data)", chart_id
    )


def _table(page, table: str, attr: str) -> dict[str, list[str]]:
    return page.evaluate(
        """([table, attr]) => Object.fromEntries([...document.querySelectorAll(`[data-table="${table}"] tr[${attr}]`)]
             .map(tr => [tr.getAttribute(attr), [...tr.querySelectorAll("[data-n]")].map(td => td.textContent.trim())]))""",
        [table, attr],
    )


def _painted(page, chart_id: str) -> bool:
    """Whether the canvas holds drawn pixels (not a blank box)."""
    return page.evaluate(
        """(id) => { const c = document.getElementById(id + '-canvas');
             const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
             for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return true; return false; }""",
        chart_id,
    )


@pytest.mark.parametrize("language", ["zh-CN", "en-US"])
def test_the_insights_page_draws_its_charts_with_the_numbers_of_its_tables(page, reported, language):
    base = reported
    errors = _errors(page)
    page.set_viewport_size({"width": 1280, "height": 900})
    _speak(page, base, language)
    page.goto(f"{base}/insights/")
    _drawn(page, CHARTS)
    assert all(_painted(page, c) for c in CHARTS)
    assert _series(page, "chart-loads") == [[1, 1, 0], [2, 1, 1]]
    loads = _table(page, "loads", "data-skill")
    assert loads == {"order_change": ["1", "2"], "order_checkout": ["1", "1"], "after_sale_apply": ["0", "1"]}
    assert [[int(n) for n in row] for row in zip(*loads.values(), strict=True)] == _series(page, "chart-loads")
    assert _series(page, "chart-masked") == [[1, 1, 1]]
    assert _series(page, "chart-refusals") == [[3, 1]]
    rounds, conversations = _series(page, "chart-per-day")
    assert (sum(rounds), sum(conversations), len(rounds)) == (6, 3, 30)
    heading = page.locator("#per-day-title").inner_text()
    assert heading == ("每日轮次与对话" if language == "zh-CN" else "Rounds and conversations per day")
    # the numbers per day, by keyboard: the summary takes the focus and Enter opens it
    per_day = page.locator("[data-section=per-day] details summary")
    per_day.focus()
    page.keyboard.press("Enter")
    assert page.locator("[data-table=per-day]").is_visible()
    lang = "zh" if language == "zh-CN" else "en"
    page.screenshot(path=str(SHOTS / f"i26p-insights-{lang}-1280.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(200)  # Chart.js redraws on resize
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert all(_painted(page, c) for c in CHARTS)
    page.screenshot(path=str(SHOTS / f"i26p-insights-{lang}-390.png"), full_page=True)
    assert errors == []


@pytest.mark.parametrize("language", ["zh-CN", "en-US"])
def test_the_fleet_and_a_skill_page_in_the_browser(page, reported, language):
    base = reported
    errors = _errors(page)
    page.set_viewport_size({"width": 1280, "height": 900})
    _speak(page, base, language)
    lang = "zh" if language == "zh-CN" else "en"
    page.goto(f"{base}/fleet/")
    assert page.locator("[data-fleet] tr[data-instance]").count() == 4
    assert page.locator("[data-fleet] tr[data-unlabelled='1']").count() == 2
    flag = page.locator("tr[data-instance='host-1:worker-1'] [data-flag=unlabelled]").inner_text()
    assert flag == ("没有标签指向此发布" if lang == "zh" else "no label points to this release")
    page.screenshot(path=str(SHOTS / f"i26p-fleet-{lang}-1280.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{base}/fleet/")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(SHOTS / f"i26p-fleet-{lang}-390.png"), full_page=True)

    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{base}/skills/order_checkout/")
    _drawn(page, ["chart-skill-loads"])
    assert _painted(page, "chart-skill-loads")
    loads, rounds = _series(page, "chart-skill-loads")
    assert (sum(loads), sum(rounds)) == (1, 1)
    assert page.locator("[data-production] [data-stat=masked_call] .value").inner_text() == "2"
    page.locator("#production-title").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"i26p-skill-{lang}-1280.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{base}/skills/order_checkout/")
    _drawn(page, ["chart-skill-loads"])
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(SHOTS / f"i26p-skill-{lang}-390.png"), full_page=True)
    page.goto(f"{base}/releases/2/")
    assert page.locator("[data-instances]").get_attribute("data-instances") == "2"
    assert errors == []


def test_no_chart_code_runs_from_anywhere_but_the_console(browser, reported):
    """Every script of the insights page comes from the console's own static files (the vendored
    Chart.js among them), none from another host."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    violations = watch_csp(context)
    try:
        page = context.new_page()
        scripts: list[str] = []
        page.on("request", lambda r: scripts.append(r.url) if r.resource_type == "script" else None)
        login(page, reported)
        page.goto(f"{reported}/insights/")
        _drawn(page, CHARTS)
        ours = [u for u in scripts if u.startswith(reported)]
        assert ours == scripts and any(u.endswith("/vendor/chartjs/chart.umd.min.js") for u in scripts)
        assert violations == []
    finally:
        context.close()
