"""The MCP sync and test call as background tasks (skills_app/mcp/tasks.py, docs/deploy.md
"Background jobs"): the record is written as running before any work, a second sync of a running
server is refused, a running record past its deadline reads as abandoned, and a worker killed
mid-sync leaves that explained row. The last test runs a real worker (``tests/workers.py``)."""

from __future__ import annotations

import html
import os
import signal
import sys
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from skills_app.mcp import sync as mcp_sync
from skills_app.mcp.services import mcp_server_save
from skills_app.mcp.sync import SyncAlreadyRunning, demo_server_args, mcp_server_sync, sync_begin, sync_claim
from skills_app.mcp.tasks import RESYNC_SCHEDULE, resync_all, schedules_ensure, sync_enqueue, sync_task
from skills_app.models import McpSyncRecord
from tests.mcp.support import stdio_server
from tests.views.html import parse
from tests.workers import task_worker


@pytest.fixture
def staff_client(staff_client):
    staff_client.cookies["django_language"] = "en"
    return staff_client


@pytest.fixture
def queued(settings):
    """Tasks wait in the queue (the database) for a worker, as in production; none runs here."""
    settings.SKILL_CONSOLE_TASKS_INLINE = False


def test_the_record_is_written_as_running_before_the_server_is_asked(bitmall, django_user_model, monkeypatch):
    """What the worker would leave behind if it died while asking: a saved ``running`` row with
    who, when and the trigger."""
    user = django_user_model.objects.create_user(username="ops", password="x-pass-123")
    seen = []

    def asking(server):
        seen.append(
            list(
                McpSyncRecord.objects.filter(server=server).values_list(
                    "outcome", "started_by_name", "trigger", "finished_at"
                )
            )
        )
        raise mcp_sync.SyncError("server 'bitmall': refused")

    monkeypatch.setattr(mcp_sync, "fetch_tools", asking)
    record = mcp_server_sync(server=stdio_server(), trigger="console", user=user)
    assert seen == [[("running", "ops", "console", None)]]
    assert (record.outcome, record.message, record.started_by_name) == ("failed", "server 'bitmall': refused", "ops")
    assert record.deadline_at > record.started_at and record.finished_at is not None
    assert McpSyncRecord.objects.count() == 1  # the same row, finished


def test_a_second_sync_of_a_running_server_is_refused_and_a_stale_one_is_closed_as_abandoned(bitmall, settings):
    settings.SKILL_CONSOLE_TASK_MARGIN = 30
    server = stdio_server()
    first = sync_begin(server=server, trigger="console")
    assert first.running and not first.abandoned
    assert first.deadline_at - first.started_at == timedelta(seconds=60 + 30)  # the time limit plus the margin
    with pytest.raises(SyncAlreadyRunning) as refused:
        mcp_server_sync(server=server, trigger="command")
    assert refused.value.record.pk == first.pk
    assert str(refused.value).startswith(f"a sync of server 'bitmall' is already running (record {first.pk}, started ")
    assert McpSyncRecord.objects.count() == 1
    # past its deadline the row reads as failed (abandoned); the next sync closes it so and runs
    McpSyncRecord.objects.filter(pk=first.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    first.refresh_from_db()
    assert (first.outcome, first.running, first.abandoned, first.failed) == ("running", False, True, True)
    second = mcp_server_sync(server=server, trigger="command")
    assert second.outcome == "ok"
    first.refresh_from_db()
    assert first.outcome == "failed" and first.message.startswith("abandoned: still running at its deadline (")
    assert "the worker running it was stopped or killed, or no task worker is running" in first.message


def test_a_worker_taking_a_finished_or_abandoned_record_leaves_it_and_asks_no_server(bitmall, monkeypatch):
    monkeypatch.setattr(mcp_sync, "fetch_tools", lambda server: pytest.fail("the server was asked"))
    server = stdio_server()
    done = sync_begin(server=server, trigger="console")
    mcp_sync.sync_finish(server, done, ok=False, message="finished elsewhere")
    assert sync_task(done.pk) == "skipped" and sync_claim(done.pk) is None
    late = sync_begin(server=server, trigger="console")
    McpSyncRecord.objects.filter(pk=late.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    assert sync_task(late.pk) == "skipped"  # it waited in the queue past its deadline
    late.refresh_from_db()
    assert late.outcome == "failed" and late.message.startswith("abandoned: ")
    assert sync_task(10**9) == "skipped"  # a record deleted meanwhile


def test_what_stops_a_task_mid_sync_finishes_its_record(bitmall, monkeypatch):
    """django-q2 cuts a task off with an exception raised inside it: the row says so, not running."""

    class TaskTimeout(Exception):
        pass

    def cut_off(server):
        raise TaskTimeout("Task exceeded maximum timeout value (120 seconds)")

    monkeypatch.setattr(mcp_sync, "fetch_tools", cut_off)
    record = sync_begin(server=stdio_server(), trigger="console")
    with pytest.raises(TaskTimeout):
        sync_task(record.pk)
    record.refresh_from_db()
    assert (record.outcome, record.message) == (
        "failed",
        "server 'bitmall': the task stopped: TaskTimeout: Task exceeded maximum timeout value (120 seconds)",
    )


def test_sync_now_queues_the_sync_and_says_already_running_on_a_second_click(staff_client, bitmall, queued):
    from django_q.models import OrmQ

    stdio_server()
    response = staff_client.post("/mcp/bitmall/sync", follow=True)
    record = McpSyncRecord.objects.get()
    assert (record.outcome, record.trigger, record.started_by_name) == ("running", "console", "ops")
    assert [m.message for m in response.context["messages"]] == [
        "Sync of bitmall started; the record below shows its outcome when it ends."
    ]
    card = parse(response.content).one("data-sync", str(record.pk))
    assert card["data-outcome"] == "running"
    assert card["hx-get"] == f"/mcp/bitmall/syncs?record={record.pk}" and card["hx-trigger"] == "every 1s"
    assert card.one("data-sync-message").text().strip() == (
        "Running: the task worker is asking the server (time limit 60 s); this record is updated when it ends."
    )
    again = staff_client.post("/mcp/bitmall/sync", follow=True)
    (said,) = [m.message for m in again.context["messages"]]
    assert said.startswith("A sync of bitmall is already running (started ") and said.endswith(
        " by ops); its outcome appears below when it ends."
    )
    assert McpSyncRecord.objects.count() == 1 and OrmQ.objects.count() == 1  # one sync, one task
    # the card polls itself: the same card while running, and the servers page says it runs
    fragment = staff_client.get(f"/mcp/bitmall/syncs?record={record.pk}", headers={"HX-Request": "true"})
    assert parse(fragment.content).one("data-sync")["data-outcome"] == "running"
    assert parse(staff_client.get("/mcp/").content).one("data-server", "bitmall").one("data-sync-running")
    # the worker runs the queued task: the polled card now holds the outcome and stops polling
    sync_task(record.pk)
    card = parse(staff_client.get(f"/mcp/bitmall/syncs?record={record.pk}", headers={"HX-Request": "true"}).content)
    assert card.one("data-sync")["data-outcome"] == "ok" and card.one("data-sync").get("hx-get") is None
    assert card.one("data-sync-message").text().strip() == "14 tools; 14 added; 0 removed; 0 changed"
    assert staff_client.get("/mcp/bitmall/syncs?record=x", headers={"HX-Request": "true"}).status_code == 404


def test_an_abandoned_record_is_explained_on_the_history_and_servers_pages(staff_client, bitmall, queued):
    server = stdio_server()
    record = sync_begin(server=server, trigger="console")
    McpSyncRecord.objects.filter(pk=record.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    doc = parse(staff_client.get("/mcp/bitmall/syncs").content)
    card = doc.one("data-sync", str(record.pk))
    assert (card["data-outcome"], card.get("data-abandoned"), card.get("hx-get")) == ("failed", "", None)
    assert card.one("data-sync-state").text() == "failed (abandoned)"
    assert (
        card.one("data-sync-message")
        .text()
        .strip()
        .startswith("Abandoned: the sync was still running at its deadline (")
    )
    assert "the task worker was stopped or killed, or no task worker is running" in card.one("data-sync-message").text()
    assert parse(staff_client.get("/mcp/").content).one("data-server", "bitmall").one("data-sync-abandoned")
    staff_client.cookies["django_language"] = "zh-hans"
    zh = parse(staff_client.get("/mcp/bitmall/syncs").content).one("data-sync", str(record.pk))
    assert zh.one("data-sync-state").text() == "失败（已放弃）"
    assert zh.one("data-sync-message").text().strip().startswith("已放弃：同步在截止时间")


def test_the_test_call_waits_as_pending_then_shows_the_answer(staff_client, bitmall, queued):
    from django_q.models import OrmQ
    from django_q.signing import SignedPackage

    assert mcp_server_sync(server=stdio_server(), trigger="test").outcome == "ok"
    doc = parse(
        staff_client.post(
            "/tools/mcp/query_logistics/", {"action": "call", "arguments": '{"order_no": "88239"}'}
        ).content
    )
    pending = doc.one("data-call-pending")
    assert pending["hx-trigger"] == "every 1s" and pending["hx-get"].startswith("/tools/mcp/query_logistics/?call=")
    assert not doc.select("data-call-result")
    poll = html.unescape(pending["hx-get"])
    fragment = parse(staff_client.get(poll, headers={"HX-Request": "true"}).content)
    assert fragment.one("data-call-pending")
    # a token is the tool's own: another tool's page does not read it
    other = poll.replace("/query_logistics/", "/query_order/")
    assert staff_client.get(other, headers={"HX-Request": "true"}).status_code == 404
    # the worker runs the queued call (as qcluster would: the package from the queue)
    from django_q.tasks import _sync

    (queued_call,) = OrmQ.objects.all()
    _sync(SignedPackage.dumps({**SignedPackage.loads(queued_call.payload), "sync": True}))
    fragment = parse(staff_client.get(poll, headers={"HX-Request": "true"}).content)
    assert not fragment.select("data-call-pending")
    assert fragment.one("data-call-result")["data-call-result"] == "ok"
    assert "SF1234567890" in fragment.one("data-call-result").text()


def test_a_test_call_nobody_answers_is_reported_lost_after_its_time_limit(staff_client, bitmall, queued, monkeypatch):
    assert mcp_server_sync(server=stdio_server(), trigger="test").outcome == "ok"
    doc = parse(
        staff_client.post(
            "/tools/mcp/query_logistics/", {"action": "call", "arguments": '{"order_no": "88239"}'}
        ).content
    )
    poll = html.unescape(doc.one("data-call-pending")["hx-get"])
    later = time.time() + 60 + 60 + 2  # the server's time limit plus the margin, and then some
    monkeypatch.setattr("skills_app.mcp.tasks._clock", lambda: later)
    fragment = parse(staff_client.get(poll, headers={"HX-Request": "true"}).content)
    assert fragment.one("data-call-error").text() == (
        "no answer within 120 seconds: the task worker running the test call was stopped, or no task worker is "
        "running (manage.py qcluster)"
    )


def test_the_periodic_resync_is_off_by_default_and_queues_every_enabled_server(bitmall, settings, queued):
    from django_q.models import OrmQ, Schedule

    schedules_ensure()
    assert not Schedule.objects.filter(name=RESYNC_SCHEDULE).exists()
    settings.SKILL_CONSOLE_MCP_RESYNC_MINUTES = 15
    schedules_ensure()
    schedule = Schedule.objects.get(name=RESYNC_SCHEDULE)
    assert (schedule.func, schedule.schedule_type, schedule.minutes, schedule.repeats) == (
        "skills_app.mcp.tasks.resync_all",
        Schedule.MINUTES,
        15,
        -1,
    )
    stdio_server()
    mcp_server_save(name="off", transport="stdio", command=sys.executable, args=demo_server_args(), enabled=False)
    shop = stdio_server(name="shop")
    sync_begin(server=shop, trigger="console")  # still running: not queued twice
    assert resync_all() == [
        f"bitmall: record {McpSyncRecord.objects.get(server__name='bitmall').pk} running",
        "shop: already running",
    ]
    assert OrmQ.objects.count() == 1
    assert McpSyncRecord.objects.get(server__name="bitmall").trigger == "schedule"
    settings.SKILL_CONSOLE_MCP_RESYNC_MINUTES = 0
    schedules_ensure()
    assert not Schedule.objects.filter(name=RESYNC_SCHEDULE).exists()


def test_a_sync_that_cannot_be_queued_is_a_recorded_failure(bitmall, queued, monkeypatch):
    def unreachable(*args, **kwargs):
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr("django_q.tasks.async_task", unreachable)
    record = sync_enqueue(server=stdio_server(), trigger="console")
    assert (record.outcome, record.message) == (
        "failed",
        "server 'bitmall': the sync could not be queued: ConnectionError: Error 111 connecting to "
        "127.0.0.1:6379. Connection refused.",
    )


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_sync_leaves_a_running_row_that_reads_as_abandoned(
    staff_client, bitmall, settings, tmp_path
):
    """A real worker (``manage.py qcluster`` on this test's database, ``tests/workers.py``) takes
    the sync of the hanging demo server and is killed (SIGKILL, the whole cluster) while it waits
    for the answer: nothing is left to finish the row. It stays ``running`` until its deadline (the
    time limit, 5 s, plus the margin, 1 s, from when the worker took it), then reads as failed
    (abandoned) with the explanation, and the next sync closes it so."""
    settings.SKILL_CONSOLE_TASKS_INLINE = False  # the margin here (60 s) covers the worker's start
    server = mcp_server_save(
        name="bitmall", transport="stdio", command=sys.executable, args=demo_server_args("hang"), timeout_seconds=5
    )
    record = sync_enqueue(server=server, trigger="console")
    asked = record.deadline_at
    with task_worker(tmp_path / "qcluster.log", SKILL_CONSOLE_TASK_MARGIN="1") as worker:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the worker has taken it: the deadline is renewed
            record.refresh_from_db()
            if record.deadline_at != asked:
                break
            assert worker.poll() is None, (tmp_path / "qcluster.log").read_text()
            time.sleep(0.1)
        else:
            pytest.fail("no worker took the sync:\n" + (tmp_path / "qcluster.log").read_text())
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(10)
    record.refresh_from_db()
    assert (record.outcome, record.finished_at, record.message) == ("running", None, "")
    while not record.abandoned:
        assert timezone.now() < record.deadline_at + timedelta(seconds=5)
        time.sleep(0.2)
    card = parse(staff_client.get("/mcp/bitmall/syncs").content).one("data-sync", str(record.pk))
    assert (card["data-outcome"], card.one("data-sync-state").text()) == ("failed", "failed (abandoned)")
    assert record.deadline_at - asked < timedelta(seconds=5 + 60)  # the worker's deadline: its margin, 1 s
    assert "the task worker was stopped or killed" in card.one("data-sync-message").text()
    again = mcp_server_save(
        name="bitmall",
        transport="stdio",
        command=sys.executable,
        args=demo_server_args(),
        timeout_seconds=60,
        instance=server,
    )
    assert mcp_server_sync(server=again, trigger="test").outcome == "ok"
    record.refresh_from_db()
    assert record.outcome == "failed" and record.message.startswith("abandoned: still running at its deadline")
