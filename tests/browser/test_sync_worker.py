""" "Sync now" run by a real task worker, seen in the browser (issue 24: docs/deploy.md "Background
jobs"): the record is shown running at once, the page stays usable while the worker waits on the
hanging demo server, and the record turns failed with its cause by itself (htmx polling).

The worker is a real ``manage.py qcluster`` in a process of its own (``tests/workers.py``). It must
see the live server's database: the browser tests run on SQLite, whose test database is a file
(``skill-console-test-<pid>.sqlite3``, console/settings.py), and the ``console`` fixture's
``transactional_db`` commits every write, so the worker is simply pointed at that file
(``SKILL_CONSOLE_SQLITE``) with the same secret key (the queue's packages are signed with it).
Screenshots: /tmp/shots/sync-worker-*.png."""

from __future__ import annotations

import sys

import pytest
from playwright.sync_api import expect

from skills_app.mcp.services import mcp_server_save
from skills_app.mcp.sync import demo_server_args
from skills_app.models import McpSyncRecord
from tests.browser.conftest import SHOTS, login
from tests.workers import task_worker

pytestmark = pytest.mark.browser

#: The hanging server's time limit: long enough to walk around the console while it runs.
LIMIT = 8


def test_sync_now_shows_running_then_failed_with_its_cause_while_the_page_stays_usable(
    page, console, settings, tmp_path
):
    settings.SKILL_CONSOLE_TASKS_INLINE = False  # the live server queues; the worker below syncs
    mcp_server_save(
        name="slow", transport="stdio", command=sys.executable, args=demo_server_args("hang"), timeout_seconds=LIMIT
    )
    login(page, console)
    with task_worker(tmp_path / "qcluster.log"):
        page.goto(f"{console}/mcp/slow/syncs")
        page.click('[data-sync-now="slow"]')
        card = page.locator("[data-sync]").first
        expect(card).to_have_attribute("data-outcome", "running")
        expect(card.locator("[data-sync-state]")).to_have_text("运行中…")
        record = McpSyncRecord.objects.get(server__name="slow")
        assert (record.outcome, record.trigger, record.started_by_name) == ("running", "console", "ops")
        page.screenshot(path=str(SHOTS / "sync-worker-running.png"), full_page=True)
        # the console answers while the worker waits on the server: another page, and back
        page.click('[data-nav="skills"]')
        expect(page.locator("h1")).to_be_visible()
        page.goto(f"{console}/mcp/")
        expect(page.locator('[data-server="slow"] [data-sync-running]')).to_be_visible()
        page.click('[data-server="slow"] [data-sync-running]')
        card = page.locator(f'[data-sync="{record.pk}"]')
        expect(card).to_have_attribute("data-outcome", "running")
        # a second click while it runs starts nothing: "already running"
        page.click('[data-sync-now="slow"]')
        expect(page.locator(".messages .warning")).to_contain_text("slow")
        assert McpSyncRecord.objects.filter(server__name="slow").count() == 1
        # now wait, without reloading: the card polls itself until the worker finishes the record
        page.evaluate("window.__notReloaded = true")
        card = page.locator(f'[data-sync="{record.pk}"]')
        expect(card).to_have_attribute("data-outcome", "failed", timeout=60_000)
        assert page.evaluate("window.__notReloaded === true")
        # the page is Chinese: the cause in Chinese (issue 29), the server's name as written
        expect(card.locator("[data-sync-message]")).to_have_text(
            f"服务器 'slow'：在 {LIMIT} 秒的时间限制内没有得到完整的回答"
        )
        expect(card.locator("[data-sync-state]")).to_have_text("失败")
        assert card.get_attribute("hx-get") is None  # polling stopped
        page.screenshot(path=str(SHOTS / "sync-worker-failed.png"), full_page=True)
    record.refresh_from_db()
    assert (record.outcome, record.message) == (
        "failed",
        f"server 'slow': no complete answer within the time limit of {LIMIT} seconds",
    )
    assert (record.finished_at - record.started_at).total_seconds() >= LIMIT
