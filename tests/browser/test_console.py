"""The console in a real browser: keyboard-driven simulate, live manual preview, language switch.
Screenshots go to /tmp/shots/."""

from __future__ import annotations

import re

import pytest

from skills_app.models import Skill
from tests.browser.conftest import SHOTS, login

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
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert page.inner_text('[data-nav="skills"]') == "Skills"
    page.screenshot(path=str(SHOTS / "skills-en.png"), full_page=True)
    page.goto(f"{console}/preview/?scenario=cancel-iphone")
    page.screenshot(path=str(SHOTS / "preview-en.png"), full_page=True)
    page.goto(f"{console}/tools/")
    page.screenshot(path=str(SHOTS / "tools-en.png"), full_page=True)


def active(page) -> dict:
    """What has the keyboard focus: tag, id, and the data- attributes that name it."""
    return page.evaluate("""() => { const e = document.activeElement;
        return {tag: e.tagName, id: e.id, name: e.getAttribute('name'), role: e.getAttribute('role'),
                row: e.closest('tr') ? (e.closest('tr').dataset.skill || e.closest('tr').dataset.deletedSkill) : null,
                focus: e.hasAttribute('data-results-focus'), summary: e.hasAttribute('data-error-summary')}; }""")


def wait_focus(page, condition: str) -> dict:
    """Wait until the focused element ``e`` satisfies the JS ``condition``; return ``active()``."""
    page.wait_for_function(f"() => {{ const e = document.activeElement; return !!e && ({condition}); }}", timeout=5_000)
    return active(page)


def test_focus_follows_the_action(page, console):
    login(page, console)
    page.once("dialog", lambda d: d.accept())  # "Disable order_change? It alone gates cancel_order, …"
    page.focus('tr[data-skill="order_change"] [data-row-focus]')
    page.keyboard.press("Enter")
    page.wait_for_selector('tr[data-skill="order_change"][data-enabled="0"]')
    assert wait_focus(page, "e.getAttribute('role') === 'switch'")["row"] == "order_change"

    page.once("dialog", lambda d: d.accept())
    page.click('tr[data-skill="iot_bundle"] .btn-danger')
    page.wait_for_selector('tr[data-deleted-skill="iot_bundle"]')
    focused = wait_focus(page, "e.tagName === 'BUTTON'")
    assert (focused["row"], focused["id"]) == (
        "iot_bundle",
        f"deleted-skill-{Skill.objects.get(skill_code='iot_bundle').pk}",
    )
    page.keyboard.press("Enter")  # Restore, from the keyboard
    page.wait_for_selector('tr[data-skill="iot_bundle"]')
    assert wait_focus(page, "e.getAttribute('role') === 'switch'")["id"] == "skill-iot_bundle"

    page.goto(f"{console}/skills/order_change/edit")
    page.fill("#id_description", "")
    page.focus("#id_content")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-error-summary]")
    assert wait_focus(page, "e.tagName === 'TEXTAREA'")["id"] == "id_description"  # first field with an error
    assert page.get_attribute("#id_description", "aria-invalid") == "true"
    page.screenshot(path=str(SHOTS / "skill-edit-refused-zh.png"))

    page.goto(f"{console}/preview/")
    page.select_option("#id_scenario", "cancel-iphone")
    page.focus("#id_script")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector('section[data-round="3"]')
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'results-title'")


def test_the_delete_dialog_says_which_tools_it_releases(page, console):
    """Issue 29 item 5: the dialog of a skill that gates no tool said its tools would be released."""
    login(page, console)
    asked: list[str] = []
    page.on("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.click('tr[data-skill="fault_diagnosis"] .btn-danger')
    page.click('tr[data-skill="order_change"] .btn-danger')
    assert asked == [
        "删除 fault_diagnosis？它不门控任何工具，删除不会放行任何工具。之后可以恢复。",
        "删除 order_change？只有它门控 cancel_order, change_address：删除后将对所有对话放行。之后可以恢复。",
    ]
    assert Skill.objects.filter(skill_code__in=["fault_diagnosis", "order_change"], deleted_at=None).count() == 2


def test_stale_edit_keeps_the_text_and_a_second_save_overwrites(page, console):
    from skills_app.catalog import services

    login(page, console)
    page.goto(f"{console}/skills/order_change/edit")
    skill = Skill.objects.get(skill_code="order_change")
    services.skill_update(skill=skill, content=skill.content + "\n同事加的一行。\n")  # saved meanwhile: v2
    page.click("#id_content")
    page.keyboard.press("Control+End")
    page.keyboard.type("\n我加的一行。\n")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("[data-stale]")
    assert "我加的一行。" in page.input_value("#id_content")
    assert page.input_value("input[name=base_version]") == "2"
    assert wait_focus(page, "e.hasAttribute('data-error-summary')")["summary"]  # the form as a whole was refused
    assert "+我加的一行。" in page.inner_text("[data-stale-diff]")
    assert "-同事加的一行。" in page.inner_text("[data-stale-diff]")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "stale-edit-zh.png"), full_page=True)
    page.click("[data-default-submit]")
    page.wait_for_url(f"{console}/skills/order_change/")
    skill.refresh_from_db()
    assert skill.version == 3 and "我加的一行。" in skill.content and "同事加的一行" not in skill.content


def test_long_names_never_push_the_buttons_off_screen(browser, console):
    from skills_app.catalog import services

    long_code = "a" + "b" * 63
    services.skill_create(
        skill_code=long_code, name="N" * 64, description="x" * 200, content="body", tool_ids=["query_cart"]
    )
    services.skill_delete(skill=Skill.objects.get(skill_code=long_code))
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    pg = context.new_page()
    try:
        login(pg, console)
        pg.click('button[data-lang="en"]')
        pg.wait_for_function("() => document.documentElement.lang === 'en'")
        pg.wait_for_load_state("load")  # the stylesheet is applied
        assert pg.evaluate("document.documentElement.scrollWidth") <= 1280
        for selector in ("[data-deleted-skill] [data-row-focus]", "tr[data-skill] .btn-danger"):
            box = pg.locator(selector).first.bounding_box()
            assert box and box["x"] + box["width"] <= 1280, selector
        wraps = pg.eval_on_selector_all(
            "[data-deleted-table], #skills-table",
            "els => els.map(t => t.closest('.table-wrap').scrollWidth <= t.closest('.table-wrap').clientWidth)",
        )
        assert wraps == [True, True]
        pg.screenshot(path=str(SHOTS / "skills-en-1280.png"), full_page=True)
    finally:
        context.close()


REFUSALS = """name: refusals
steps:
  - user: 取消 88239
  - assistant: {calls: [{cancel_order: {order_no: "88239"}}, {no_such_tool: {}}, {load_skill: {skill_code: nope}}]}
  - assistant: {calls: [{load_skill: {skill_code: order_change}}, {query_order: {order_no: "12"}}]}
  - evict: {tool: load_skill}
  - assistant: {calls: [{cancel_order: {order_no: "88239"}}]}
  - compact: {drop: [1]}
  - assistant: 好的
"""


def test_guard_sentences_in_both_languages(page, console):
    login(page, console)
    page.goto(f"{console}/preview/")
    page.fill("#id_script", REFUSALS)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector('section[data-round="4"]')
    assert "被屏蔽" in page.inner_text('section[data-round="1"] [data-call="cancel_order"] [data-guard-message]')
    assert page.inner_text("[data-expectations]") == "未设置预期"
    assert "驱逐" in page.inner_text('[data-event-after="2"]')
    page.screenshot(path=str(SHOTS / "preview-refusals-zh.png"), full_page=True)
    page.click('button[data-lang="en"]')
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    page.fill("#id_script", REFUSALS)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector('section[data-round="4"]')
    assert "is masked" in page.inner_text('section[data-round="1"] [data-call="cancel_order"] [data-guard-message]')
    assert page.inner_text("[data-expectations]") == "no expectations set"
    page.screenshot(path=str(SHOTS / "preview-refusals-en.png"), full_page=True)


def test_n_opens_the_new_form_with_the_first_field_focused(page, console):
    login(page, console)
    page.keyboard.press("n")
    page.wait_for_url(f"{console}/skills/new")
    assert wait_focus(page, "e.tagName === 'INPUT'")["id"] == "id_skill_code"
    page.keyboard.type("typed_at_once")
    assert page.input_value("#id_skill_code") == "typed_at_once"
    page.goto(f"{console}/scenarios/")
    page.keyboard.press("n")
    page.wait_for_url(f"{console}/scenarios/new")
    assert wait_focus(page, "e.tagName === 'INPUT'")["id"] == "id_name"
    page.goto(f"{console}/skills/order_change/edit")  # an edit page leaves the focus alone
    assert active(page)["tag"] == "BODY"


def test_expired_session_with_htmx(page, console):
    login(page, console)
    page.goto(f"{console}/skills/order_change/edit")
    page.context.clear_cookies(name="sessionid")  # the session ends; the CSRF cookie stays
    page.click("#id_content")
    page.keyboard.press("Control+End")
    page.keyboard.type("\n我写的一行。\n")
    page.wait_for_selector("#live-preview [data-session-expired]")  # the panel says so …
    assert page.url == f"{console}/skills/order_change/edit"  # … and the page stays,
    assert "我写的一行。" in page.input_value("#id_content")  # with the text
    page.screenshot(path=str(SHOTS / "session-expired-editor-zh.png"))
    page.keyboard.press("Control+Enter")  # a plain POST now: the login page says it was not saved
    page.wait_for_url(re.compile(r"/accounts/login/\?expired=unsaved&next=/skills/order_change/edit$"))
    assert "没有保存" in page.inner_text('[data-session-expired="unsaved"]')
    assert Skill.objects.get(skill_code="order_change").version == 1

    login(page, console)
    page.goto(f"{console}/preview/?scenario=cancel-iphone")
    page.context.clear_cookies(name="sessionid")
    page.focus("#id_script")
    page.keyboard.press("Control+Enter")  # htmx run: the whole page goes to the login form
    page.wait_for_url(re.compile(r"/accounts/login/\?expired=1&next=/preview/%3Fscenario%3Dcancel-iphone$"))
    assert page.locator("#results").count() == 0
    page.fill("#id_username", "ops")
    page.fill("#id_password", "ops-pass-123")
    page.press("#id_password", "Enter")
    page.wait_for_url(f"{console}/preview/?scenario=cancel-iphone")


def test_a_user_without_staff_sees_why(page, console, django_user_model):
    django_user_model.objects.create_user(username="guest", password="guest-pass-123")
    page.goto(f"{console}/accounts/login/")
    page.fill("#id_username", "guest")
    page.fill("#id_password", "guest-pass-123")
    page.press("#id_password", "Enter")
    page.wait_for_selector("[data-not-staff]")
    assert "管理员" in page.inner_text("[data-not-staff]") and page.locator("[data-nav]").count() == 0
    page.screenshot(path=str(SHOTS / "not-staff-zh.png"))
