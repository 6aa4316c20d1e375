"""Browser behaviour a new user tripped on (issue 9, item 7) and the pages at 1366 px and 390 px.
Screenshots go to /tmp/shots/ui-*.png."""

from __future__ import annotations

import pytest

from skills_app.catalog import services
from tests.browser.conftest import SHOTS, login

pytestmark = pytest.mark.browser

TWENTY_ROUNDS = "name: twenty\nsteps:\n  - user: 帮我查订单\n" + "".join(
    "  - assistant: {calls: [{query_order: {}}]}\n" for _ in range(20)
)


def _sized(browser, width: int, height: int = 900):
    context = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(10_000)
    return context, page


def _no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_leaving_an_edited_form_warns_and_saving_does_not(page, console):
    login(page, console)
    page.goto(f"{console}/skills/order_change/edit")
    dialogs = []

    def on_dialog(dialog):
        dialogs.append(dialog.type)
        dialog.dismiss()  # stay on the page

    page.on("dialog", on_dialog)
    page.click("#id_name")
    page.keyboard.type("（改）")
    page.click('[data-nav="preview"]')
    page.wait_for_timeout(300)
    assert dialogs == ["beforeunload"]
    assert page.url.endswith("/skills/order_change/edit")
    assert page.input_value("#id_name").endswith("（改）")  # nothing lost
    page.click("#id_name")
    page.keyboard.press("Control+Enter")  # saving the form itself never warns
    page.wait_for_url(f"{console}/skills/order_change/")
    assert dialogs == ["beforeunload"]


def test_an_untouched_form_leaves_without_a_warning(page, console):
    login(page, console)
    page.goto(f"{console}/skills/order_change/edit")
    page.on("dialog", lambda d: pytest.fail(f"unexpected {d.type} dialog"))
    page.click('[data-nav="preview"]')
    page.wait_for_url(f"{console}/preview/")


def test_live_preview_links_open_in_a_new_tab_and_lints_show_inline(page, console):
    login(page, console)
    page.goto(f"{console}/skills/order_change/edit")
    page.on("dialog", lambda d: d.accept())
    page.click("#id_content")
    page.keyboard.press("Control+End")
    page.keyboard.type("\n\n见[售后规则](https://example.com/rules)，然后调用 `refund_all`。\n")
    link = page.wait_for_selector('[data-manual-preview] a[href="https://example.com/rules"]')
    assert link.get_attribute("target") == "_blank"
    assert "noopener" in link.get_attribute("rel")
    lint = page.wait_for_selector('[data-lint="mention_unregistered"]')
    assert lint.inner_text() == "手册提到了 refund_all，但它不是已注册的工具。"


def test_the_matrix_scrolls_inside_its_box_with_the_tool_column_fixed(browser, console):
    context, page = _sized(browser, 1366)
    login(page, console)
    page.goto(f"{console}/preview/")
    page.fill("#id_script", TWENTY_ROUNDS)
    page.click("#id_script")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector('section[data-round="20"]')
    box = page.locator("[data-matrix-scroll]")
    assert box.evaluate("e => e.scrollWidth > e.clientWidth")  # twenty rounds overflow the box…
    assert _no_sideways_scroll(page)  # …not the page
    tool = page.locator('tr[data-matrix-row="cancel_order"] th.tool')
    before = tool.bounding_box()["x"]
    box.evaluate("e => { e.scrollLeft = 600; }")
    page.wait_for_timeout(100)
    assert abs(tool.bounding_box()["x"] - before) <= 3  # the tool column stays put (3 px of border-spacing)
    cell = page.locator('td[data-matrix-tool="cancel_order"][data-matrix-round="1"]').bounding_box()
    assert cell["x"] < before  # the rounds scrolled under it
    box.evaluate("e => { e.scrollLeft = 0; }")
    page.locator("[data-matrix]").screenshot(path=str(SHOTS / "ui-matrix-20-rounds-1366.png"))
    context.close()


@pytest.mark.parametrize("width", [1366, 390])
def test_pages_fit_the_width_and_the_nav_collapses_on_a_phone(browser, console, width):
    services.access_profile_save(
        name="support_lite", tools=["query_order", "query_logistics", "cancel_order", "change_address"]
    )
    context, page = _sized(browser, width)
    login(page, console)
    pages = {
        "skills": "/skills/",
        "skill-edit": "/skills/order_change/edit",
        "preview": "/preview/?scenario=cancel-iphone",
        "preview-withheld": "/preview/?scenario=cancel-iphone&profile=support_lite",
    }
    for name, url in pages.items():
        page.goto(f"{console}{url}")
        assert _no_sideways_scroll(page), f"{name} scrolls sideways at {width}px"
        nav = page.locator("#main-nav")
        toggle = page.locator("[data-nav-toggle]")
        if width == 390:
            assert not nav.is_visible() and toggle.is_visible()
        else:
            assert nav.is_visible() and not toggle.is_visible()
        page.screenshot(path=str(SHOTS / f"ui-{name}-{width}.png"), full_page=True)
        page.screenshot(path=str(SHOTS / f"ui-{name}-{width}-top.png"))
    if width == 390:
        page.click("[data-nav-toggle]")
        assert page.locator("#main-nav").is_visible()
        assert page.get_attribute("[data-nav-toggle]", "aria-expanded") == "true"
        assert _no_sideways_scroll(page)
        page.screenshot(path=str(SHOTS / "ui-nav-open-390.png"))
    context.close()


def test_tool_chips_never_break_inside_a_name(browser, console):
    context, page = _sized(browser, 390)
    login(page, console)
    page.goto(f"{console}/skills/")
    heights = page.eval_on_selector_all(
        "[data-gated-tool]", "els => els.map(e => [e.textContent.trim(), e.getBoundingClientRect().height])"
    )
    assert heights and all(h < 30 for _, h in heights), heights  # one line each
    context.close()
