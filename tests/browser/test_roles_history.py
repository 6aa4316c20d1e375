"""Roles and history in a real browser (docs/roles.md): an editor creates a skill with the live
preview and an inline lint, saves, edits, opens its history, sees the diff and restores the
previous revision; a viewer finds no write control anywhere. Screenshots of the history and audit
pages at 1366 and 390 px go to /tmp/shots/."""

from __future__ import annotations

import pytest

from skills_app.catalog import services
from skills_app.core.roles import assign
from skills_app.models import Skill
from tests.browser.conftest import SHOTS

pytestmark = pytest.mark.browser

MANUAL = "# 退款说明\n\n先用 query_order 查订单，再调用 `refund_everything`。\n"


def _sized(browser, width: int, height: int = 900):
    context = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(10_000)
    return context, page


def login_as(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.press("#id_password", "Enter")
    page.wait_for_url(f"{base}/skills/")


@pytest.fixture
def editor(console, django_user_model):
    assign(django_user_model.objects.create_user(username="erin", password="erin-pass-123"), "editor")
    return "erin", "erin-pass-123"


@pytest.fixture
def viewer(console, django_user_model):
    from skills_app.releases.services import COMMAND_LINE, release_publish

    release_publish(user=COMMAND_LINE, note="first")
    services.skill_update(skill=Skill.objects.get(skill_code="order_change"), name="订单修改（草稿）")
    assign(django_user_model.objects.create_user(username="vera", password="vera-pass-123"), "viewer")
    return "vera", "vera-pass-123"


def test_an_editor_creates_a_skill_sees_its_history_and_restores_the_previous_revision(page, console, editor):
    login_as(page, console, *editor)
    assert page.get_attribute("[data-role]", "data-role") == "editor"
    page.goto(f"{console}/skills/new")
    page.fill("#id_skill_code", "refund_help")
    page.fill("#id_name", "退款说明")
    page.fill("#id_description", "用户要退款时加载")
    page.click("#id_content")
    page.keyboard.type(MANUAL)
    page.wait_for_selector('[data-manual-preview] h1:has-text("退款说明")')  # the live preview
    lint = page.wait_for_selector('[data-lint="mention_unregistered"]')  # the inline lint
    assert lint.inner_text() == "手册提到了 refund_everything，但它不是已注册的工具。"
    page.keyboard.press("Control+Enter")
    page.wait_for_url(f"{console}/skills/refund_help/")
    skill = Skill.objects.get(skill_code="refund_help")
    assert (skill.version, skill.content.splitlines()[0]) == (1, "# 退款说明")
    original = skill.content

    page.goto(f"{console}/skills/refund_help/edit")
    page.click("#id_content")
    page.keyboard.press("Control+End")
    page.keyboard.type("\n退款前先确认用户身份。")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(f"{console}/skills/refund_help/")
    assert Skill.objects.get(skill_code="refund_help").version == 2

    page.click("[data-history-link]")
    page.wait_for_url(f"{console}/skills/refund_help/history")
    assert page.locator("tr[data-revision]").count() == 2
    added = page.locator('[data-line-diff="content"] .d-add')
    assert added.last.inner_text() == "+退款前先确认用户身份。"
    assert page.inner_text('tr[data-field="version"] [data-before]') == "1"
    assert page.inner_text('tr[data-field="version"] [data-after]') == "2"
    page.screenshot(path=str(SHOTS / "history-editor-1366.png"), full_page=True)

    first = page.locator("tr[data-revision]").last.get_attribute("data-revision")
    page.on("dialog", lambda d: d.accept())  # "Restore revision #…?"
    page.click(f'[data-restore="{first}"]')
    page.wait_for_selector('[data-reason]:has-text("restored revision")')
    restored = Skill.objects.get(skill_code="refund_help")
    assert (restored.content, restored.version) == (original, 3)
    assert page.locator("tr[data-revision]").count() == 3
    assert page.locator('[data-line-diff="content"] .d-del').last.inner_text() == "-退款前先确认用户身份。"
    assert "已恢复修订" in page.inner_text(".messages")


def write_controls(page) -> list[str]:
    """Forms that POST (but log out, the language switch, running a preview and downloading its
    result), links to write
    pages, and restore buttons, as the viewer's browser renders them."""
    return page.evaluate("""() => {
        const out = [];
        for (const f of document.querySelectorAll('form')) {
            const action = f.getAttribute('action') || '';
            if ((f.getAttribute('method') || 'get').toLowerCase() === 'post'
                && !['/accounts/logout/', '/i18n/setlang/', '/preview/', '/preview/result.json'].includes(action)) out.push('form ' + action);
        }
        for (const a of document.querySelectorAll('a[href]')) {
            const h = a.getAttribute('href');
            if (/\\/(new|edit)$/.test(h) || h.includes('/api-keys/') || h.includes('/admin/')) out.push('link ' + h);
        }
        for (const b of document.querySelectorAll('[data-restore], [data-publish], [data-shortcut-new]')) out.push('control');
        return out; }""")


def test_a_viewer_finds_no_write_control(page, console, viewer):
    login_as(page, console, *viewer)
    assert page.get_attribute("[data-role]", "data-role") == "viewer"
    for url in (
        "/skills/",
        "/skills/order_change/",
        "/skills/order_change/history",
        "/scenarios/",
        "/restrictions/",
        "/tools/",
        "/releases/",
        "/releases/1/",
        "/publish/",
        "/preview/?scenario=cancel-iphone",
        "/audit/",
    ):
        page.goto(f"{console}{url}")
        assert write_controls(page) == [], url
    page.goto(f"{console}/skills/")
    assert page.locator('[data-enabled-state="on"]').count() == 5  # the state, not a switch
    page.screenshot(path=str(SHOTS / "skills-viewer-1366.png"), full_page=True)
    page.goto(f"{console}/skills/order_change/edit")  # typed by hand: the 403 page says why
    assert page.get_attribute("[data-needed-role]", "data-needed-role") == "editor"
    assert page.inner_text("[data-needed-role]") == "此操作需要“编辑者”角色；你的角色是“查看者”。没有做任何更改。"
    page.screenshot(path=str(SHOTS / "forbidden-viewer-1366.png"))


@pytest.mark.parametrize("width", [1366, 390])
def test_history_and_audit_pages_fit_the_width(browser, console, editor, width):
    skill = Skill.objects.get(skill_code="order_change")
    services.skill_update(skill=skill, name="订单修改（二）", content=skill.content + "\n补充：改址前先确认收货人。")
    services.skill_set_enabled(skill=skill, enabled=False)
    context, page = _sized(browser, width)
    login_as(page, console, *editor)
    for name, url in (
        ("history", "/skills/order_change/history"),
        ("audit", "/audit/"),
        ("audit-filtered", "/audit/?kind=skill&record=order_change"),
    ):
        page.goto(f"{console}{url}")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{name} at {width}px"
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    page.goto(f"{console}/audit/?kind=skill&record=order_change")
    assert page.locator("tr[data-entry]").count() == 3
    context.close()
