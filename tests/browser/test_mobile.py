"""Every console page on a phone (issue 29, item 4): at 390 px no page is wider than the viewport,
in Chinese and in English; the row actions of the skill list and the MCP server list are on screen
without scrolling sideways; keyboard hints are hidden on a touch screen. The pages are every GET
URL pattern of ``skills_app/urls.py`` and ``console/urls.py`` (the width test
fails when a new one is neither measured nor named as not a page). Screenshots:
/tmp/shots/mobile-*.png."""

from __future__ import annotations

import threading

import pytest
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver

from skills_app.catalog import services
from skills_app.models import Release, Skill
from skills_app.releases.services import COMMAND_LINE, release_publish
from tests.browser.conftest import SHOTS

pytestmark = pytest.mark.browser

WIDTH = 390
ADMIN, ADMIN_PASSWORD = "admin", "admin-pass-123"

#: URL name (namespace ``skills`` unless it has one) → the page measured for it.
PAGES = {
    "skills:home": "/",
    "skills:skill_list": "/skills/",
    "skills:skill_create": "/skills/new",
    "skills:skill_import": "/skills/import",
    "skills:skill_detail": "/skills/order_change/",
    "skills:skill_edit": "/skills/order_change/edit",
    "skills:skill_history": "/skills/fault_diagnosis/history",
    "skills:preview": "/preview/?scenario=cancel-iphone",
    "skills:scenario_list": "/scenarios/",
    "skills:scenario_create": "/scenarios/new",
    "skills:scenario_edit": "/scenarios/cancel-iphone/edit",
    "skills:restriction_list": "/restrictions/",
    "skills:restriction_create": "/restrictions/profile/new",
    "skills:restriction_edit": "/restrictions/stage/checkout/edit",
    "skills:tool_tree": "/tools/",
    "skills:release_list": "/releases/",
    "skills:release_diff": "/releases/diff?from=1&to=2",
    "skills:release_detail": "/releases/3/",
    "skills:publish": "/publish/",
    "skills:api_keys": "/api-keys/",
    "skills:mcp_server_list": "/mcp/",
    "skills:mcp_server_create": "/mcp/new",
    "skills:mcp_server_edit": "/mcp/bitmall/edit",
    "skills:mcp_sync_history": "/mcp/bitmall/syncs",
    "skills:mcp_tool_detail": "/tools/mcp/query_order/",
    "skills:node_create": "/tools/nodes/new",
    "skills:node_edit": "/tools/nodes/query_order_topic/edit",
    "skills:audit": "/audit/",
    "skills:time_zone": "/preferences/time-zone",
    "skills:insights": "/insights/",
    "skills:fleet": "/fleet/",
    "login": "/accounts/login/",
    "healthz": None,  # JSON for the load balancer
}
#: URL names that are no page of their own: a POST action, a fragment htmx puts into a page, a download.
NOT_PAGES = {
    "skills:skill_preview_new": "htmx fragment of the editor",
    "skills:skill_preview": "htmx fragment of the editor",
    "skills:skill_export": "zip download",
    "skills:skill_restore": "POST",
    "skills:skill_set_enabled": "POST",
    "skills:skill_delete": "POST",
    "skills:skill_revert": "POST",
    "skills:preview_result_json": "JSON download",
    "skills:preview_payload": "htmx fragment of the preview",
    "skills:scenario_from_preview": "POST",
    "skills:scenario_result": "htmx fragment of the scenario list",
    "skills:scenario_result_json": "JSON download",
    "skills:tool_options": "htmx fragment of the tool picker",
    "skills:label_move": "POST",
    "skills:release_rollback": "POST",
    "skills:mcp_server_sync": "POST",
    "skills:node_delete": "POST",
    "logout": "POST (Django's LogoutView)",
}
#: Pages outside the console's own templates, measured too: Django's (registration), errors, and
#: the runtime API's Swagger UI page (its bar leads back to the console).
EXTRA = ["/accounts/password_reset/", "/no/such/page", "/api/v1/docs"]


def _console_url_names() -> set[str]:
    """Every named URL pattern of the console's pages and of the project's own (not the admin,
    the API, Django's i18n view or the auth views but the login)."""
    names: set[str] = set()
    for entry in get_resolver().url_patterns:
        if isinstance(entry, URLResolver) and entry.namespace == "skills":
            names |= {f"skills:{p.name}" for p in entry.url_patterns if isinstance(p, URLPattern)}
        elif isinstance(entry, URLPattern) and entry.name:
            names.add(entry.name)
    return names | {"login"}


@pytest.fixture
def catalog(console, django_user_model):
    """The demo as make run leaves it — release 1, the demo MCP server synced (its sync history,
    release 2 with its call targets) — plus release 3 with a changed manual, and a superuser."""
    release_publish(user=COMMAND_LINE, note="demo catalog 'bitmall'")
    # the MCP sync runs its own event loop: in a thread of its own, away from Playwright's
    errors: list[BaseException] = []

    def sync():
        try:
            call_command("sync_mcp", "--demo")
        except BaseException as exc:  # noqa: BLE001 — reported below
            errors.append(exc)

    worker = threading.Thread(target=sync)
    worker.start()
    worker.join(120)
    assert not errors and Release.objects.count() == 2
    skill = Skill.objects.get(skill_code="fault_diagnosis")
    services.skill_update(skill=skill, content=skill.content + "\n\n## 新增\n先确认设备型号。")
    services.stage_save(name="checkout", description="结算", tools=["query_cart", "create_order"], create=True)
    release_publish(user=COMMAND_LINE, note="fault_diagnosis: " + "型号" * 40)
    django_user_model.objects.create_superuser(username=ADMIN, password=ADMIN_PASSWORD)
    _report(Release.objects.get(number=1).sha256, Release.objects.get(number=2).sha256)
    return console


def _report(sha1: str, sha2: str) -> None:
    """An hour of runtime reports through the ingest service, so the insights page, the fleet and
    a skill's page are measured with their charts and tables filled."""
    from django.utils import timezone

    from skill_rule.reports import parse_reports
    from skills_app.reports.services import reports_ingest, retention_days
    from tests.api.test_reports import base_time, cancel_iphone_batch
    from tests.views.test_insights import batch_b, draft_and_heartbeats

    t0 = base_time()
    records = cancel_iphone_batch(t0, sha1) + batch_b(t0, sha2) + draft_and_heartbeats(t0, sha2)
    reports = parse_reports({"records": records}, now=timezone.now(), retention_days=retention_days())
    reports_ingest(key_prefix="mobile01", reports=reports)


def _phone(browser, language: str):
    context = browser.new_context(
        viewport={"width": WIDTH, "height": 844}, locale=language, is_mobile=True, has_touch=True
    )
    return context, context.new_page()


def _log_in(page, base: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", ADMIN)
    page.fill("#id_password", ADMIN_PASSWORD)
    page.press("#id_password", "Enter")
    page.wait_for_url(f"{base}/skills/")


#: The page's width, and what sticks out past the viewport (tag, class, right edge) when it is wider.
MEASURE = """(width) => {
  const wide = [];
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.right > width + 0.5 && r.width > 0) {
      let inScroller = false;
      for (let p = el.parentElement; p; p = p.parentElement) {
        const s = getComputedStyle(p);
        if (["auto", "scroll", "hidden"].includes(s.overflowX)) { inScroller = true; break; }
      }
      if (!inScroller) wide.push(`${el.tagName.toLowerCase()}.${el.className} → ${Math.round(r.right)}`);
    }
  }
  return {width: document.documentElement.scrollWidth, wide: wide.slice(0, 5)};
}"""


@pytest.mark.parametrize("language", ["zh-CN", "en-US"])
def test_no_console_page_is_wider_than_a_phone(browser, catalog, language):
    assert _console_url_names() == set(PAGES) | set(NOT_PAGES)  # every page is measured
    context, page = _phone(browser, language)
    try:
        _log_in(page, catalog)
        too_wide = {}
        for path in [p for p in PAGES.values() if p] + EXTRA:
            page.goto(f"{catalog}{path}")
            page.wait_for_load_state("load")
            measured = page.evaluate(MEASURE, WIDTH)
            if measured["width"] > WIDTH:
                too_wide[path] = measured
                name = path.strip("/").replace("/", "-").replace("?", "-") or "home"
                page.screenshot(path=str(SHOTS / f"mobile-{language}-{name}.png"), full_page=True)
        assert too_wide == {}
    finally:
        context.close()


def _on_screen(page, selector: str) -> list[tuple[str, bool]]:
    """Each element of ``selector``: its text and whether it lies wholly inside the viewport's width
    (scrolled into view vertically, never sideways)."""
    return page.locator(selector).evaluate_all(
        """(els, width) => els.map(el => { el.scrollIntoView({block: "center", inline: "nearest"});
             const r = el.getBoundingClientRect();
             return [el.textContent.trim(), r.left >= 0 && r.right <= width && window.scrollX === 0
                     && el.closest(".table-wrap").scrollLeft === 0]; })""",
        WIDTH,
    )


@pytest.mark.parametrize("language", ["zh-CN", "en-US"])
def test_row_actions_are_on_screen_on_a_phone(browser, catalog, language):
    """The enabled switch, Edit, Delete (skills) and Sync now (MCP servers) are reached without
    scrolling a table sideways: on a phone each row is a card whose cells say what they are."""
    context, page = _phone(browser, language)
    try:
        _log_in(page, catalog)
        page.goto(f"{catalog}/skills/")
        row = "#skills-table tr[data-skill='order_change']"
        actions = _on_screen(page, f"{row} .switch, {row} .actions-cell .btn")
        edit, delete = ("编辑", "删除") if language == "zh-CN" else ("Edit", "Delete")
        assert [text for text, _ in actions] == [
            "开" if language == "zh-CN" else "on",
            "历史" if language == "zh-CN" else "History",
            edit,
            delete,
        ]
        assert all(inside for _, inside in actions), actions
        version = page.locator(f"{row} td[data-th]").nth(3)
        assert version.evaluate("td => getComputedStyle(td, '::before').content") == (
            '"版本 "' if language == "zh-CN" else '"Version "'
        )
        page.screenshot(path=str(SHOTS / f"mobile-{language}-skills.png"), full_page=True)
        page.goto(f"{catalog}/mcp/")
        actions = _on_screen(page, "tr[data-server='bitmall'] .actions-cell .btn")
        assert [text for text, _ in actions] == (
            ["立即同步", "历史"] if language == "zh-CN" else ["Sync now", "History"]
        )
        assert all(inside for _, inside in actions), actions
        page.screenshot(path=str(SHOTS / f"mobile-{language}-mcp.png"), full_page=True)
    finally:
        context.close()


def test_a_table_wider_than_the_phone_says_it_scrolls(browser, catalog):
    """The release list's table is wider than 390 px: a hint above it says to swipe; at 1280 px it
    fits and no hint shows."""
    context, page = _phone(browser, "en-US")
    try:
        _log_in(page, catalog)
        page.goto(f"{catalog}/releases/")
        box = page.locator(".table-wrap").first
        assert box.evaluate("b => b.scrollWidth > b.clientWidth")
        assert box.get_attribute("data-scrolls") == ""
        hint = page.locator("p.scroll-hint").first
        assert hint.is_visible()
        assert hint.inner_text() == "This table is wider than the screen: swipe it sideways for the other columns →"
        page.set_viewport_size({"width": 1280, "height": 900})
        page.wait_for_function("() => !document.querySelector('.table-wrap').hasAttribute('data-scrolls')")
        assert not hint.is_visible()
    finally:
        context.close()


def test_keyboard_hints_are_hidden_on_a_touch_screen(browser, catalog):
    """``n``, ``Ctrl+Enter`` and the "?" button are for a keyboard: a touch screen shows none; a
    desktop with a mouse still shows them."""
    context, page = _phone(browser, "zh-CN")
    try:
        _log_in(page, catalog)
        assert page.evaluate("() => matchMedia('(hover: none) and (pointer: coarse)').matches")
        page.goto(f"{catalog}/skills/")
        assert page.locator("[data-shortcut-new] kbd").is_hidden()
        page.goto(f"{catalog}/skills/new")
        assert page.locator("[data-default-submit] kbd").is_hidden()
        page.click("[data-nav-toggle]")
        assert page.locator("[data-shortcut-help]").is_hidden()
        assert page.locator(".switch, [data-default-submit]").first.is_visible()
    finally:
        context.close()
    desktop = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    try:
        page = desktop.new_page()
        _log_in(page, catalog)
        assert page.locator("[data-shortcut-new] kbd").is_visible()
        assert page.locator("[data-shortcut-help]").is_visible()
    finally:
        desktop.close()
