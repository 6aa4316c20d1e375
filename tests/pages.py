"""Every page of the console, for the tests that visit them all: the 390 px width check
(``tests/browser/test_mobile.py``) and the untranslated-text crawl (``tests/views/test_untranslated.py``).

``PAGES`` names a page for every GET URL pattern of ``skills_app/urls.py`` and ``console/urls.py``
(the project's own: not the admin, the API, Django's i18n view or the auth views but the login);
``FRAGMENTS`` the htmx fragments a GET reaches; ``NOT_PAGES`` the rest. Both tests fail when a new
URL pattern is in none of them (``console_url_names``), so a new page is measured and crawled as
soon as it is named here. The addresses are those of the demo as ``demo_with_releases`` leaves it."""

from __future__ import annotations

from collections.abc import Callable

from django.urls import URLPattern, URLResolver, get_resolver

ADMIN, ADMIN_PASSWORD = "admin", "admin-pass-123"

#: URL name (namespace ``skills`` unless it has one) → the page visited for it (``None``: not HTML).
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
#: htmx fragments a GET reaches (put into a page by htmx) → the fragment visited.
FRAGMENTS = {
    "skills:preview_payload": "/preview/payload?tools=load_skill,query_order,cancel_order",
    "skills:scenario_result": "/scenarios/cancel-iphone/result",
    "skills:tool_options": "/tools/options?q=order&name=tool_ids",
}
#: URL names that are no page of their own: a POST action (or POST-only fragment), a download.
NOT_PAGES = {
    "skills:skill_preview_new": "htmx fragment of the editor (POST)",
    "skills:skill_preview": "htmx fragment of the editor (POST)",
    "skills:skill_export": "zip download",
    "skills:skill_restore": "POST",
    "skills:skill_set_enabled": "POST",
    "skills:skill_delete": "POST",
    "skills:skill_revert": "POST",
    "skills:preview_result_json": "JSON download",
    "skills:scenario_from_preview": "POST",
    "skills:scenario_result_json": "JSON download",
    "skills:label_move": "POST",
    "skills:release_rollback": "POST",
    "skills:mcp_server_sync": "POST",
    "skills:node_delete": "POST",
    "logout": "POST",
}
#: Pages outside the console's own templates: errors, and the runtime API's Swagger UI page (its
#: bar leads back to the console).
EXTRA = ["/no/such/page", "/api/v1/docs"]


def console_url_names() -> set[str]:
    """Every named URL pattern of the console's pages and of the project's own (not the admin,
    the API, Django's i18n view or the auth views but the login)."""
    names: set[str] = set()
    for entry in get_resolver().url_patterns:
        if isinstance(entry, URLResolver) and entry.namespace == "skills":
            names |= {f"skills:{p.name}" for p in entry.url_patterns if isinstance(p, URLPattern)}
        elif isinstance(entry, URLPattern) and entry.name:
            names.add(entry.name)
    return names | {"login"}


def unnamed_url_names() -> set[str]:
    """URL names in neither ``PAGES``, ``FRAGMENTS`` nor ``NOT_PAGES`` (a new page nobody visits),
    and names there that the URL map no longer has."""
    named = set(PAGES) | set(FRAGMENTS) | set(NOT_PAGES)
    return console_url_names() ^ named


def demo_with_releases(django_user_model, *, sync: Callable[[], None] | None = None):
    """The demo as ``make run`` leaves it — release 1, the demo MCP server synced (its sync
    history, release 2 with its call targets) — plus release 3 with a changed manual and a stage
    ``checkout``, and a superuser ``ADMIN``. The bitmall demo must be loaded already.

    ``sync`` runs ``sync_mcp --demo`` (by default here; a browser test runs it in a thread of its
    own, away from Playwright's event loop)."""
    from django.core.management import call_command

    from skills_app.catalog import services
    from skills_app.models import Release, Skill
    from skills_app.releases.services import COMMAND_LINE, release_publish

    release_publish(user=COMMAND_LINE, note="demo catalog 'bitmall'")
    (sync or (lambda: call_command("sync_mcp", "--demo")))()
    assert Release.objects.count() == 2
    skill = Skill.objects.get(skill_code="fault_diagnosis")
    services.skill_update(skill=skill, content=skill.content + "\n\n## 新增\n先确认设备型号。")
    services.stage_save(name="checkout", description="结算", tools=["query_cart", "create_order"], create=True)
    release_publish(user=COMMAND_LINE, note="fault_diagnosis: " + "型号" * 40)
    _report(Release.objects.get(number=1).sha256, Release.objects.get(number=2).sha256)
    return django_user_model.objects.create_superuser(username=ADMIN, password=ADMIN_PASSWORD)


def _report(sha1: str, sha2: str) -> None:
    """An hour of runtime reports through the ingest service, so the insights page, the fleet and
    a skill's page are shown with their charts and tables filled."""
    from django.utils import timezone

    from skill_rule.reports import parse_reports
    from skills_app.reports.services import reports_ingest, retention_days
    from tests.api.test_reports import base_time, cancel_iphone_batch
    from tests.views.test_insights import batch_b, draft_and_heartbeats

    t0 = base_time()
    records = cancel_iphone_batch(t0, sha1) + batch_b(t0, sha2) + draft_and_heartbeats(t0, sha2)
    reports = parse_reports({"records": records}, now=timezone.now(), retention_days=retention_days())
    reports_ingest(key_prefix="mobile01", reports=reports)
