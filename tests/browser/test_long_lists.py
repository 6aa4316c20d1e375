"""Long lists and long runs in a real browser (issue 10): the pager works from the keyboard
(``[`` / ``]`` and its links), scenario rows load their results one request each, and the folded
rounds of a long preview open to show exactly their rounds. Screenshots: /tmp/shots/long-*.png."""

from __future__ import annotations

import pytest

from skills_app.catalog import services as catalog_services
from skills_app.simulation import services as simulation_services
from tests.browser.conftest import SHOTS, login
from tests.views.test_preview_long_run import script

pytestmark = pytest.mark.browser


def test_the_skill_pager_works_from_the_keyboard(page, console):
    for i in range(60):
        catalog_services.skill_create(
            skill_code=f"bulk_{i:03d}",
            name=f"批量 {i}",
            description=f"批量技能 {i}",
            content=f"# {i}",
            sort_order=100 + i,
        )
    login(page, console)
    assert page.locator("tr[data-skill]").count() == 50
    assert page.inner_text("[data-pager] [aria-current]") == "第 1 页，共 2 页 · 共 65 条"
    page.keyboard.press("]")
    page.wait_for_url(f"{console}/skills/?page=2")
    assert page.locator("tr[data-skill]").count() == 15
    page.screenshot(path=str(SHOTS / "long-skills-page-2.png"), full_page=True)
    page.locator("[data-pager]").first.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "long-skills-pager.png"))
    page.keyboard.press("[")
    page.wait_for_url(f"{console}/skills/?page=1")
    # Tab reaches the pager's links; Enter follows one
    page.focus("[data-page-next]")
    assert page.evaluate("document.activeElement.getAttribute('rel')") == "next"
    page.keyboard.press("Enter")
    page.wait_for_url(f"{console}/skills/?page=2")
    page.focus("[data-page-first]")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{console}/skills/?page=1")
    assert page.locator("tr[data-skill]").count() == 50
    assert page.get_attribute("[data-pager]", "data-page") == "1"


def test_scenario_rows_load_their_results(page, console):
    from skills_app.models import Scenario

    script = Scenario.objects.get(name="cancel-iphone").script
    for i in range(4):  # the rows load one request after another (hx-sync queue), all of them
        simulation_services.scenario_save(name=f"copy-{i}", script=script)
    login(page, console)
    page.goto(f"{console}/scenarios/")
    page.wait_for_selector('tr[data-scenario="copy-3"][data-passed="1"]')
    page.wait_for_selector('tr[data-scenario="cancel-iphone"][data-passed="1"]')
    assert page.locator("tr[data-pending]").count() == 0
    assert page.inner_text('tr[data-scenario="cancel-iphone"] [data-counts]') == "11 → 13 → 13"
    page.reload()  # from the cache now: no pending row
    assert page.locator("tr[data-pending]").count() == 0
    assert page.get_attribute('tr[data-scenario="cancel-iphone"]', "data-passed") == "1"
    page.screenshot(path=str(SHOTS / "long-scenarios.png"), full_page=True)


def test_folded_rounds_open_to_show_their_rounds(page, console):
    login(page, console)
    page.goto(f"{console}/preview/")
    page.fill("#id_script", script())
    page.click("[data-run]")
    page.wait_for_selector("[data-simulation]")
    assert page.locator("section[data-round]").count() == 4
    assert page.locator("[data-fold]").count() == 2
    fold = page.locator('[data-fold="3-29"]')
    page.screenshot(path=str(SHOTS / "long-preview-folded.png"), full_page=False)
    fold.locator("summary").focus()
    page.keyboard.press("Enter")  # a <summary> opens from the keyboard
    page.wait_for_selector('[data-fold="3-29"] section[data-round="29"]')
    assert fold.locator("section[data-round]").count() == 27
    assert page.locator("section[data-round]").count() == 31
    fold.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "long-preview-open.png"), full_page=False)
    with page.expect_download() as download:
        page.click("[data-result-json]")
    assert download.value.suggested_filename == "long-run.json"


def test_still_masked_folds_past_the_limit_and_opens_from_the_keyboard(page, console, monkeypatch):
    from skills_app.templatetags import console as tags

    monkeypatch.setattr(tags, "CHIPS_SHOWN", 2)  # the live server runs in this process
    login(page, console)
    page.goto(f"{console}/skills/order_change/edit")
    still = page.locator("[data-still-masked]")
    assert still.get_attribute("data-still-masked") == "4"
    more = still.locator("[data-chips-more]")
    assert more.get_attribute("data-chips-more") == "2" and more.get_attribute("open") is None
    assert still.locator(".chip-masked:visible").count() == 2
    assert more.locator("summary").inner_text() == "还有 2 个"
    still.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "long-still-masked-folded.png"), full_page=False)
    more.locator("summary").focus()
    page.keyboard.press("Enter")
    assert more.get_attribute("open") == ""
    assert [" ".join(t.split()) for t in still.locator(".chip-masked:visible").all_inner_texts()] == [
        "apply_after_sale → after_sale_apply",
        "update_cart_item → order_checkout",
        "create_order → order_checkout",
        "pay_order → order_checkout",
    ]
    page.screenshot(path=str(SHOTS / "long-still-masked-open.png"), full_page=False)
