"""The console in a real browser: keyboard-driven simulate, live manual preview, language switch.
Screenshots go to /tmp/shots/."""
from __future__ import annotations

import re

import pytest

from skills_app.models import Skill

from .conftest import SHOTS, login

pytestmark = pytest.mark.browser


def test_preview_cancel_iphone_with_the_keyboard(page, console):
    login(page, console)
    page.screenshot(path=str(SHOTS / "skills-zh.png"), full_page=True)
    page.keyboard.press("/")  # / focuses the filter; typing filters the rows at once
    page.keyboard.type("cancel_order")
    assert page.locator("tr[data-skill]:visible").count() == 1
    page.keyboard.press("Escape")
    page.keyboard.press("g")
    page.keyboard.press("p")  # g p → Preview
    page.wait_for_url(f"{console}/preview/")
    page.focus("#id_scenario")
    page.select_option("#id_scenario", "cancel-iphone")
    assert "cancel_order" in page.input_value("#id_script")  # choosing a scenario shows its script
    page.keyboard.press("Control+Enter")
    page.wait_for_selector('section[data-round="3"]')
    counts = page.eval_on_selector_all("section[data-round]", "els => els.map(e => e.dataset.count)")
    assert counts == ["11", "13", "13"]
    assert page.locator('section[data-round="1"] [data-visible-tool="cancel_order"]').count() == 0
    assert page.locator('section[data-round="2"] [data-visible-tool="cancel_order"]').count() == 1
    assert page.locator("td[data-matrix-tool]").count() == 18
    assert page.get_attribute('td[data-matrix-tool="cancel_order"][data-matrix-round="2"]', "data-state") == "released"
    assert page.get_attribute('section[data-round="3"] [data-call="cancel_order"]', "data-verdict") == "confirm"
    page.wait_for_url(re.compile(r"/preview/\?scenario=cancel-iphone$"))  # htmx pushed a linkable URL
    page.screenshot(path=str(SHOTS / "preview-zh.png"), full_page=True)


def test_typing_in_the_manual_updates_the_live_preview(page, console):
    login(page, console)
    page.goto(f"{console}/skills/order_change/edit")
    page.click("#id_content")
    page.keyboard.press("Control+End")
    page.keyboard.type("\n\n## 新增一节\n\n调用 create_order 之前先确认。\n")
    page.wait_for_selector('[data-manual-preview] h2:has-text("新增一节")')
    page.wait_for_selector('[data-mentioned-masked]:has-text("create_order")')
    page.uncheck('[data-tool-option="change_address"] input')
    page.wait_for_selector('[data-effect][data-effect-without="12"][data-effect-with="13"]')
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "skill-edit-zh.png"), full_page=True)
    assert Skill.objects.get(skill_code="order_change").version == 1  # the preview never saves
    page.keyboard.press("Control+Enter")  # focus is in the form: save
    page.wait_for_url(f"{console}/skills/order_change/")
    skill = Skill.objects.get(skill_code="order_change")
    assert (skill.version, skill.tool_ids) == (2, ["cancel_order"])
    assert "新增一节" in page.inner_text("[data-manual] h2 >> nth=-1")


def test_switch_to_english(page, console):
    login(page, console)
    assert page.inner_text('[data-nav="skills"]') == "技能"
    page.click('button[data-lang="en"]')
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.inner_text('[data-nav="skills"]') == "Skills"
    page.screenshot(path=str(SHOTS / "skills-en.png"), full_page=True)
    page.goto(f"{console}/preview/?scenario=cancel-iphone")
    page.screenshot(path=str(SHOTS / "preview-en.png"), full_page=True)
    page.goto(f"{console}/tools/")
    page.screenshot(path=str(SHOTS / "tools-en.png"), full_page=True)
