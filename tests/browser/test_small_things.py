"""Small things of issue 29 (item 7), each seen in Chromium: the API docs lead back to the console;
the sort order's label has no stray colon; Enter in a one-line field of an editor does not save
it (Ctrl+Enter does); the MCP tool page's Save button stands clear of the next heading; its test
call is a form built from the tool's inputSchema, with the raw JSON box kept; a superuser's role
badge says administrator, the role the MCP pages speak of. (The README's PORT=: tests/test_readme.py;
the form's every field kind: tests/mcp/test_call_form.py.) Screenshots: /tmp/shots/small-*.png."""

from __future__ import annotations

import json
import threading

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from skills_app.models import McpTool, Scenario, Skill
from tests.browser.conftest import SHOTS, login

pytestmark = pytest.mark.browser

ROOT, ROOT_PASSWORD = "root", "root-pass-123"


@pytest.fixture
def synced(console):
    """The console with the demo MCP server synced (in a thread of its own: the sync runs an
    event loop, Playwright's runs in this one)."""
    errors: list[BaseException] = []

    def sync():
        try:
            call_command("sync_mcp", "--demo")
        except BaseException as exc:  # noqa: BLE001 — reported below
            errors.append(exc)

    worker = threading.Thread(target=sync)
    worker.start()
    worker.join(120)
    assert not errors and McpTool.objects.filter(mcp_server__isnull=False).exists()
    return console


def english(page, base: str) -> None:
    page.context.add_cookies([{"name": "django_language", "value": "en", "url": base}])


# --- /api/v1/docs leads back to the console ------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "link"), [("zh", "← 返回技能控制台"), ("en", "← Back to Skill Console")], ids=["zh", "en"]
)
def test_the_api_docs_lead_back_to_the_console(page, console, language, link):
    login(page, console)
    if language == "en":
        english(page, console)
    page.goto(f"{console}/api/v1/docs")
    expect(page.locator(".swagger-ui .info .title")).to_be_visible()  # Swagger UI started (CSP: by its nonce)
    back = page.locator("[data-back-to-console]")
    expect(back).to_have_text(link)
    back.focus()  # by the keyboard
    page.keyboard.press("Enter")
    page.wait_for_url(f"{console}/")  # the console's home: the skill list
    expect(page.locator("#skills-table")).to_be_visible()


# --- "Sort order", not "Sort order:" ------------------------------------------------------------


@pytest.mark.parametrize(("language", "label"), [("zh", "排序"), ("en", "Sort order")], ids=["zh", "en"])
def test_the_sort_order_label_has_no_stray_colon(page, console, language, label):
    login(page, console)
    if language == "en":
        english(page, console)
    page.goto(f"{console}/skills/order_change/edit")
    expect(page.locator("label[for=id_sort_order]")).to_have_text(label)
    expect(page.locator("label[for=id_name]")).to_have_text("名称" if language == "zh" else "Name")


# --- Enter in a one-line field of an editor ----------------------------------------------------


def _navigations(page) -> list[str]:
    """The URL of every page load (a form submitted, a link followed) from now on."""
    seen: list[str] = []
    page.on("request", lambda r: seen.append(f"{r.method} {r.url}") if r.is_navigation_request() else None)
    return seen


def _saved() -> tuple:
    """What the editors save: every skill's version, every scenario's name and descriptions."""
    return (
        sorted(Skill.objects.values_list("skill_code", "version")),
        sorted(Scenario.objects.values_list("name", "description", "description_en")),
    )


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/skills/order_change/edit", "#id_name"),
        ("/skills/order_change/edit", "#id_sort_order"),
        ("/skills/new", "#id_skill_code"),
        ("/scenarios/new", "#id_name"),
        ("/scenarios/cancel-iphone/edit", "#id_description"),
    ],
)
def test_enter_in_a_one_line_field_of_an_editor_does_not_save_it(page, console, path, field):
    login(page, console)
    page.goto(f"{console}{path}")
    before = _saved()
    loads = _navigations(page)
    page.click(field)
    page.keyboard.press("End")
    page.keyboard.type("9")
    page.keyboard.press("Enter")
    page.wait_for_timeout(800)  # long enough for a submit to leave the page
    assert loads == [] and page.url == f"{console}{path}"
    assert _saved() == before
    expect(page.locator(field)).to_be_focused()  # still typing where it was
    # Ctrl+Enter still submits the editor (saved, or refused with the reasons)
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    assert loads[0] == f"POST {console}{path}"


# --- the MCP tool page: Save stands clear of the next heading ----------------------------------


GAP = """() => {
  const save = document.querySelector("[data-confirm-form] button[type=submit]").getBoundingClientRect();
  let next = document.querySelector("[data-confirm-form]").nextElementSibling;
  while (next && next.tagName !== "H2") next = next.nextElementSibling;
  return next.getBoundingClientRect().top - save.bottom;
}"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_tool_pages_save_button_stands_clear_of_the_next_heading(page, synced, width):
    login(page, synced)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{synced}/tools/mcp/cancel_order/")
    assert page.evaluate(GAP) >= 16
    page.locator("[data-confirm-form]").screenshot(path=str(SHOTS / f"small-confirm-form-{width}.png"))


# --- the test call: a form built from the inputSchema -------------------------------------------


def _answer(page) -> dict:
    """The demo server's answer to the test call: it echoes the arguments it was sent."""
    expect(page.locator("[data-call-result]")).to_be_visible()
    return json.loads(page.locator("[data-call-result] pre").inner_text())


def test_the_test_call_is_a_form_from_the_input_schema_used_by_the_keyboard(page, synced):
    login(page, synced)
    page.goto(f"{synced}/tools/mcp/query_order/")
    form = page.locator("[data-call-form]")
    assert form.locator("[data-argument]").evaluate_all("els => els.map(e => e.dataset.argument)") == [
        "order_no",
        "status",
        "limit",
    ]
    status = form.locator("[data-argument=status] select")
    assert status.locator("option").all_inner_texts() == [
        "（不发送）",
        "待支付",
        "待发货",
        "已发货",
        "已签收",
        "已取消",
    ]
    limit = form.locator("[data-argument=limit] input")
    assert (limit.get_attribute("type"), limit.input_value()) == ("number", "10")  # the default
    # the keyboard: a label leads to its field, Tab moves on, Enter sends
    form.locator("[data-argument=order_no] label").click()
    page.keyboard.type("88239")
    page.keyboard.press("Tab")
    expect(status).to_be_focused()
    status.select_option(label="已发货")
    page.keyboard.press("Tab")
    expect(limit).to_be_focused()
    page.keyboard.press("Control+a")
    page.keyboard.type("3")
    page.keyboard.press("Enter")
    page.wait_for_load_state("load")
    assert _answer(page)["arguments"] == {"order_no": "88239", "status": "已发货", "limit": 3}
    assert json.loads(page.locator("[data-call-sent] code").inner_text()) == {
        "limit": 3,
        "order_no": "88239",
        "status": "已发货",
    }
    page.screenshot(path=str(SHOTS / "small-call-form-sent.png"), full_page=True)
    # a value the inputSchema refuses: said at its field, which gets the focus; nothing sent
    order_no = form.locator("[data-argument=order_no] input")
    order_no.fill("12")
    order_no.press("Enter")
    page.wait_for_load_state("load")
    expect(page.locator("[data-argument=order_no] .errorlist")).to_have_text(
        "不符合 inputSchema 的模式 ^[0-9]{5,20}$。"
    )
    expect(page.locator("[data-argument=order_no] input")).to_be_focused()
    expect(page.locator("[data-call-sent]")).to_have_count(0)
    page.screenshot(path=str(SHOTS / "small-call-form-refused.png"), full_page=True)


def test_a_write_tools_form_sends_lists_and_the_json_box_stays(page, synced):
    login(page, synced)
    english(page, synced)
    page.goto(f"{synced}/tools/mcp/apply_after_sale/")
    form = page.locator("[data-test-call]")
    form.locator("[data-argument=order_no] input").fill("88239")
    form.locator("[data-argument=sku_id] input").fill("SKU-1")
    form.locator("[data-argument=type] select").select_option(label="换货")
    form.locator("[data-argument=reason] input").fill("尺码不合适")
    form.locator("[data-argument=photo_urls] textarea").fill("https://example.com/a.png\nhttps://example.com/b.png")
    form.locator("[data-call-confirm]").check()
    form.locator("[data-send-form]").click()
    page.wait_for_load_state("load")
    assert _answer(page)["arguments"] == {
        "order_no": "88239",
        "sku_id": "SKU-1",
        "type": "换货",
        "reason": "尺码不合适",
        "quantity": 1,
        "photo_urls": ["https://example.com/a.png", "https://example.com/b.png"],
    }
    # the JSON box holds what was sent; edited there, Ctrl+Enter sends the JSON as typed
    page.locator("[data-raw-json] summary").click()
    box = page.locator("#call-args")
    assert json.loads(box.input_value())["photo_urls"] == ["https://example.com/a.png", "https://example.com/b.png"]
    box.fill('{"order_no": "88239", "sku_id": "SKU-1", "type": "换货", "reason": "x"}')
    page.locator("[data-call-confirm]").check()
    box.press("Control+Enter")
    page.wait_for_load_state("load")
    expect(page.locator("[data-call-result]")).to_have_attribute("data-call-result", "error")  # sent as typed
    expect(page.locator("[data-call-result] pre")).to_contain_text("invalid arguments at reason")
    expect(page.locator("[data-raw-json]")).to_have_attribute("open", "")
    page.screenshot(path=str(SHOTS / "small-call-json.png"), full_page=True)


# --- a superuser's role badge ------------------------------------------------------------------


@pytest.mark.parametrize(("language", "badge"), [("zh", "管理员"), ("en", "administrator")], ids=["zh", "en"])
def test_a_superusers_role_badge_says_administrator(page, synced, django_user_model, language, badge):
    django_user_model.objects.create_superuser(username=ROOT, password=ROOT_PASSWORD)
    page.goto(f"{synced}/accounts/login/")
    if language == "en":
        english(page, synced)
        page.reload()
    page.fill("#id_username", ROOT)
    page.fill("#id_password", ROOT_PASSWORD)
    page.press("#id_password", "Enter")
    page.wait_for_url(f"{synced}/skills/")
    expect(page.locator(".role-badge")).to_have_text(badge)
    expect(page.locator(".role-badge")).to_have_attribute("data-role", "administrator")
    # the role the MCP pages name: a group role is refused a server record "needs the administrator role"
    page.goto(f"{synced}/mcp/new")
    expect(page.locator("h1")).to_be_visible()
    page.context.clear_cookies()
    login(page, synced)  # ops, a publisher
    if language == "en":
        english(page, synced)
    page.goto(f"{synced}/skills/")
    expect(page.locator(".role-badge")).to_have_text("发布者" if language == "zh" else "publisher")
    page.goto(f"{synced}/mcp/new")
    expect(page.locator("main")).to_contain_text(badge)
