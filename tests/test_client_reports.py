"""``RuntimeClient`` reports by itself (issue 26, item 2; docs/runtime-api.md "Reporting"): over real
HTTP against a live console, with a real HTTP server in front of it where a test needs the console
stopped, slow, refusing or skewed. Records go out by themselves. With the console stopped the
client keeps answering rounds, drops the oldest records with an exact count once its queue is full,
and delivers what it kept — once — when the console is back; a slow console slows no round and a
batch sent again is stored once; a refused batch is dropped, counted and never sent again; back-off
waits longer after each failure; ``report=False`` starts nothing and sends nothing. The README
example's reports are checked in tests/test_client.py
(``test_the_readme_example_runs_against_a_live_server``).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from skill_client import reporting
from skill_client.client import STALE, RuntimeClient
from skill_rule.payload import payload_chars
from skills_app.keys.services import api_key_create
from skills_app.models import RuntimeReport
from skills_app.releases.services import COMMAND_LINE
from skills_app.reports.selectors import instance_list, rollup_totals
from tests.api.support import USER, loaded
from tests.test_client import publish_demo

SENDER = "skill-client-reports"


@pytest.fixture
def key(transactional_db) -> str:
    return api_key_create(user=COMMAND_LINE, name="agent").key


@pytest.fixture
def clients(tmp_path, key):
    """``clients(url, **options)`` → a reporting ``RuntimeClient`` (its own cache folder, the test's
    key); each is closed when the test ends, so no sender outlives its test."""
    made: list[RuntimeClient] = []

    def make(url: str, **options: Any) -> RuntimeClient:
        options.setdefault("cache_dir", tmp_path / "cache")
        options.setdefault("timeout", 10)
        client = RuntimeClient(url, key, **options)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close(timeout=10)


@pytest.fixture
def console(live_server, key) -> str:
    publish_demo("bitmall")
    return live_server.url


def stored(kind: str | None = None) -> list[RuntimeReport]:
    rows = RuntimeReport.objects.all() if kind is None else RuntimeReport.objects.filter(kind=kind)
    return list(rows.order_by("at", "record_id"))


def totals() -> dict[str, dict[str, int]]:
    today = datetime.now(UTC).date()
    return rollup_totals(since=today - timedelta(days=2), until=today + timedelta(days=2))


class Front:
    """A real HTTP server in front of the console: every request is forwarded, and what a
    ``POST …/reports`` carried is written down (``posts``: one ``{"ids", "bytes", "status",
    "at"}`` per request). ``mode`` changes what the reports endpoint does: ``pass``; ``slow_once``
    forwards the first batch, then answers only after ``delay`` seconds (the client has given up by
    then); ``skew`` moves every record's ``at`` an hour ahead before forwarding (the console refuses
    the batch: 400 ``invalid_report``); ``503`` answers 503 itself."""

    def __init__(self, target: str, port: int = 0) -> None:
        self.mode, self.delay = "pass", 0.0
        self.posts: list[dict[str, Any]] = []
        front = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._forward(None)

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not self.path.endswith("/reports"):
                    return self._forward(body)
                records = json.loads(body)["records"]
                post = {"ids": [r["id"] for r in records], "bytes": len(body), "status": None, "at": time.monotonic()}
                front.posts.append(post)
                if front.mode == "503":
                    post["status"] = 503
                    return self._send(503, {}, b'{"error": {"code": "database_unavailable", "message": "down"}}')
                if front.mode == "skew":
                    for r in records:
                        r["at"] = (datetime.fromisoformat(r["at"]) + timedelta(hours=1)).isoformat()
                    body = json.dumps({"records": records}).encode()
                self._forward(body, post)

            def _forward(self, body: bytes | None, post: dict[str, Any] | None = None) -> None:
                request = urllib.request.Request(
                    target + self.path,
                    data=body,
                    method=self.command,
                    headers={k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")},
                )
                try:
                    with urllib.request.urlopen(request, timeout=30) as r:
                        status, headers, data = r.status, r.headers, r.read()
                except urllib.error.HTTPError as exc:
                    status, headers, data = exc.code, exc.headers, exc.read()
                if post is not None:
                    post["status"] = status  # written down before the client hears it
                if post is not None and front.mode == "slow_once":
                    front.mode = "pass"
                    time.sleep(front.delay)  # stored already; the answer comes after the client gave up
                keep = ("ETag", "Content-Type", "Retry-After")
                try:
                    self._send(status, {k: v for k, v in headers.items() if k in keep}, data)
                except OSError:  # the client hung up
                    pass

            def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)  # SO_REUSEADDR: the port again at once
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        if self.server.socket.fileno() != -1:
            self.server.shutdown()
            self.server.server_close()


@pytest.fixture
def front(console):
    proxy = Front(console)
    yield proxy
    proxy.close()


def wait_for(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_records_are_sent_by_themselves_every_interval(console, clients):
    client = clients(console, report_interval=0.3, heartbeat_interval=0)
    started = time.monotonic()
    client.round([USER], conversation="c-1")  # + the first refresh's heartbeat
    assert wait_for(lambda: RuntimeReport.objects.count() == 2)  # no flush, no close
    assert time.monotonic() - started < 5 and client.pending_reports == 0
    client.check_call([USER], {"name": "cancel_order", "arguments": {}}, conversation="c-1")  # the queue was empty
    assert wait_for(lambda: RuntimeReport.objects.filter(kind="call").count() == 1)
    assert client.report_stats["records"] == 3 and client.report_stats["retries"] == 0


# --- the console stopped ----------------------------------------------------------------------


def test_with_the_console_stopped_rounds_answer_the_oldest_drop_counted_and_the_rest_arrive_once(console, clients):
    """The console's address is a real HTTP server forwarding to the live console: closing it
    stops the console (connections refused); a new one on the same port brings it back."""
    fronts = [Front(console)]
    port = fronts[0].server.server_address[1]
    try:
        queue = 40
        client = clients(
            fronts[0].url, report_queue=queue, report_interval=3600, heartbeat_interval=0, report_backoff=0.5, timeout=5
        )
        assert len(client.visible_tools([USER], conversation="before")) == 11
        assert client.flush_reports(timeout=30) is True
        assert sorted(r.kind for r in stored()) == ["heartbeat", "round"] and client.dropped_reports == 0
        fronts[0].close()

        # The console is gone: the copy answers every round at once; the queue keeps the newest 40.
        assert client.refresh().outcome == STALE  # its heartbeat (stale) is queued first: the oldest
        made = 100
        slowest = 0.0
        for i in range(made):
            started = time.perf_counter()
            assert len(client.visible_tools([USER], conversation=f"chat-{i}")) == 11
            slowest = max(slowest, time.perf_counter() - started)
        assert slowest < 0.5  # a local round: no request, no wait on the sender
        assert client.check_call([USER], {"name": "cancel_order", "arguments": {}}).reason == "masked"
        held = made + 2  # the rounds, the stale heartbeat, the refused call
        assert (client.dropped_reports, client.pending_reports) == (held - queue, queue)
        assert client.report_stats["dropped_queue_full"] == held - queue == 62

        assert client.flush_reports(timeout=1.5) is False  # nobody answers: they stay queued
        assert client.report_stats["retries"] >= 1 and client.pending_reports == queue
        assert client.dropped_reports == 62 and len(stored()) == 2

        # The console is back on the same address: the sender's next try delivers the 40, once.
        fronts.append(Front(console, port))
        assert client.flush_reports(timeout=30) is True
        assert client.pending_reports == 0 and client.dropped_reports == 62
        rounds = stored("round")
        kept = {client.pseudonym(f"chat-{i}") for i in range(made - queue + 1, made)}  # chat-61 … chat-99
        assert {r.conversation for r in rounds} == {client.pseudonym("before"), *kept}
        assert len(rounds) == 1 + 39 and [r.round for r in rounds] == [1] * 40
        (call,) = stored("call")
        assert (call.tool, call.verdict, call.reason, call.conversation) == (
            "cancel_order",
            "refused",
            "masked",
            "unnamed",
        )
        assert [(h.stale, h.refresh) for h in stored("heartbeat")] == [(False, "fetched")]  # the stale one was dropped
        stats = client.report_stats
        assert (stats["records"], stats["stored"], stats["duplicates"]) == (42, 42, 0)
        assert RuntimeReport.objects.count() == 42 == len({r.record_id for r in stored()})

        # Closing sends a last heartbeat that tells the console of the 62 records lost.
        assert client.close(timeout=30) is True
        last = stored("heartbeat")[-1]
        assert (last.stale, last.refresh, last.release) == (True, STALE, 1)
        assert totals()["dropped"] == {"": 62} and totals()["rounds"] == {"": 40}
        assert totals()["heartbeats"] == {"": 2} and RuntimeReport.objects.count() == 43
        (instance,) = instance_list()
        assert (instance.instance, instance.stale) == (client.instance, True)
    finally:
        fronts[-1].close()


# --- a slow console, a refused batch, back-off ---------------------------------------------------


def test_a_slow_console_slows_no_round_and_a_batch_sent_again_is_stored_once(front, clients):
    client = clients(front.url, report_interval=3600, heartbeat_interval=0, report_backoff=0.5, timeout=2)
    assert len(client.visible_tools([USER], conversation="c-1")) == 11  # + the refresh's heartbeat
    front.mode, front.delay = "slow_once", 4.0
    assert client.flush_reports(timeout=0.5) is False  # the sender waits on the console
    slowest = 0.0
    for i in range(50):
        started = time.perf_counter()
        assert len(client.visible_tools([USER, *loaded("order_change")], conversation=f"c-{i}")) == 13
        slowest = max(slowest, time.perf_counter() - started)
    assert slowest < 0.5  # while a send hangs for seconds
    assert client.flush_reports(timeout=30) is True
    first, again = front.posts[0], front.posts[1]
    assert first["ids"] == again["ids"][:2] and len(again["ids"]) == 52  # the same ids, then the 50 new
    stats = client.report_stats
    assert (stats["retries"], stats["records"], stats["stored"], stats["duplicates"]) == (1, 52, 50, 2)
    assert RuntimeReport.objects.count() == 52 and totals()["rounds"] == {"": 51}
    assert totals()["loaded"] == {"order_change": 50}


def test_a_refused_batch_is_dropped_counted_and_never_sent_again(front, clients):
    client = clients(front.url, report_interval=3600, heartbeat_interval=0, report_backoff=0.5)
    front.mode = "skew"  # every record an hour ahead: the console answers 400 invalid_report
    for i in range(3):
        client.round([USER], conversation=f"c-{i}")
    assert client.flush_reports(timeout=30) is True
    assert [p["status"] for p in front.posts] == [400] and len(front.posts[0]["ids"]) == 4
    assert client.dropped_reports == 4 and client.report_stats["refused"] == 1
    assert client.report_stats["dropped_refused"] == 4 and RuntimeReport.objects.count() == 0
    time.sleep(1.0)  # past any back-off: nothing is tried again
    assert len(front.posts) == 1

    front.mode = "pass"
    assert client.close(timeout=30) is True  # the last heartbeat counts the 4
    assert [p["status"] for p in front.posts] == [400, 200]
    (beat,) = stored("heartbeat")
    assert totals()["dropped"] == {"": 4} and beat.instance == client.instance


def test_a_dropped_heartbeat_hands_its_count_on(front, clients):
    """Every record lost is counted by exactly one heartbeat the console stores, even when the
    heartbeat that first carried the count is itself dropped."""
    client = clients(front.url, report_queue=3, report_interval=3600, heartbeat_interval=0, report_backoff=0.5)
    front.mode = "503"
    for i in range(3):  # the refresh's heartbeat, then rounds 1-3: the heartbeat is dropped
        client.round([USER], conversation=f"r-{i + 1}")
    client.refresh()  # a heartbeat: round 1 is dropped
    assert client.flush_reports(timeout=0.3) is False  # built and tried: the heartbeat now carries 2
    assert front.posts and len(front.posts[0]["ids"]) == 3
    for i in range(3, 6):  # rounds 4-6 push out rounds 2, 3 and the heartbeat carrying 2
        client.round([USER], conversation=f"r-{i + 1}")
    assert client.dropped_reports == 5
    front.mode = "pass"
    assert client.close(timeout=30) is True  # its last heartbeat pushes out round 4 and counts all 6
    assert client.dropped_reports == 6 and totals()["dropped"] == {"": 6}
    assert {r.conversation for r in stored("round")} == {client.pseudonym("r-5"), client.pseudonym("r-6")}
    assert len(stored("heartbeat")) == 1


def test_each_failed_send_waits_longer_with_jitter(front, clients):
    client = clients(front.url, report_interval=3600, heartbeat_interval=0, report_backoff=2.0)
    client.round([USER])
    front.mode = "503"
    assert client.flush_reports(timeout=4.5) is False
    gaps = [b["at"] - a["at"] for a, b in zip(front.posts, front.posts[1:])]
    assert len(gaps) >= 3
    # 0.5 s, 1 s, 2 s (the cap): each wait between half and all of its step (+ slack for a busy host)
    for gap, step in zip(gaps, (0.5, 1.0, 2.0, 2.0)):
        assert step / 2 <= gap <= step + 1.0, gaps
    assert len({tuple(p["ids"]) for p in front.posts}) == 1  # the same batch, the same ids
    front.mode = "pass"
    assert client.flush_reports(timeout=30) is True and RuntimeReport.objects.count() == 2


def test_batches_keep_to_the_record_and_byte_limits(front, clients, monkeypatch):
    client = clients(front.url, report_interval=3600, heartbeat_interval=0)
    for i in range(1_100):
        client.round([USER], conversation=f"c-{i}")
    assert client.flush_reports(timeout=60) is True
    sizes = [len(p["ids"]) for p in front.posts]
    assert max(sizes) == 500 and sum(sizes) == 1_101  # + the heartbeat
    assert RuntimeReport.objects.count() == 1_101

    monkeypatch.setattr(reporting, "REPORT_MAX_BATCH_BYTES", 4_000)  # a console with a lower limit
    front.posts.clear()
    for i in range(30):
        client.round([USER, *loaded("order_change")], conversation=f"d-{i}")
    assert client.flush_reports(timeout=60) is True
    assert len(front.posts) >= 3 and max(p["bytes"] for p in front.posts) <= 4_000
    assert sum(len(p["ids"]) for p in front.posts) == 30 and RuntimeReport.objects.count() == 1_131


# --- what is sent -------------------------------------------------------------------------------


def test_what_a_round_and_a_call_report(console, clients):
    client = clients(console, report_interval=3600, heartbeat_interval=0, instance="agent-7:worker-2")
    messages = [USER, *loaded("order_change")]
    tools = client.visible_tools(messages, conversation="conversation 88239")
    call = {"id": "c9", "name": "cancel_order", "arguments": {"order_no": "88239"}}
    carried = [*messages, {"role": "assistant", "content": "", "tool_calls": [call]}]
    assert client.check_call(carried, call, conversation="conversation 88239").verdict == "confirm"
    strange = {"name": "rm\x00-rf" + "x" * 300, "arguments": {}}  # what a model may call
    assert client.check_call(messages, strange).reason == "unknown_tool"
    assert client.flush_reports(timeout=30) is True

    chat = client.pseudonym("conversation 88239")
    assert len(chat) == 32 and chat != client.pseudonym("conversation 88240")
    (round_,) = stored("round")
    assert (round_.conversation, round_.round, round_.loaded, round_.masked) == (
        chat,
        2,  # one assistant message retained before it
        ["order_change"],
        ["apply_after_sale", "update_cart_item", "create_order", "pay_order"],
    )
    assert round_.tools_chars == payload_chars(tools) == 4820 and round_.instance == "agent-7:worker-2"
    confirm, unknown = sorted(stored("call"), key=lambda c: c.tool != "cancel_order")
    assert (confirm.conversation, confirm.round, confirm.verdict, confirm.reason) == (chat, 2, "confirm", "")
    assert (unknown.tool, unknown.reason, unknown.flags) == ("rm?-rf" + "x" * 122, "unknown_tool", ["unknown_tool"])
    assert "conversation 88239" not in json.dumps(list(RuntimeReport.objects.values()), default=str)


def test_report_false_starts_no_thread_and_sends_nothing(console, clients):
    before = {t for t in threading.enumerate() if t.name == SENDER}
    client = clients(console, report=False)
    client.visible_tools([USER], conversation="c-1")
    client.check_call([USER], {"name": "cancel_order", "arguments": {}}, conversation="c-1")
    client.refresh()
    assert {t for t in threading.enumerate() if t.name == SENDER} == before
    assert (client.reporting, client.pending_reports, client.dropped_reports) == (False, 0, 0)
    assert client.flush_reports() is True and client.close() is True
    assert RuntimeReport.objects.count() == 0

    reporting_client = clients(console)
    reporting_client.round([USER])
    assert reporting_client.reporting and len({t for t in threading.enumerate() if t.name == SENDER} - before) == 1


def test_heartbeats_come_after_a_refresh_on_a_timer_and_on_close(console, clients):
    client = clients(console, report_interval=0.1, heartbeat_interval=0.4)
    client.refresh()
    time.sleep(1.5)
    assert client.close(timeout=30) is True
    beats = stored("heartbeat")
    assert len(beats) >= 4  # the refresh's, at least two of the timer's, the last one
    assert {(b.release, b.stale, b.refresh, b.client_version) for b in beats} == {
        (1, False, "fetched", reporting_client_version())
    }
    (instance,) = instance_list()
    assert instance.instance == client.instance and client.instance.count(":") == 1
    # closed: the client still answers, unreported
    assert client.round([USER]).count == 11 and client.pending_reports == 0 and client.close() is True
    assert len(stored()) == len(beats)


def reporting_client_version() -> str:
    from importlib.metadata import version

    return f"skill-console-client/{version('skill-console-client')}"


# --- samples (item 3; docs/runtime-api.md "Samples") ----------------------------------------------

SECRET_USER = "My phone is 13800138000, send it to 42 Wallaby Way, 我住在悉尼袋鼠街"
SECRET_ASSISTANT = "Certainly, Jane Roe of Wallaby Way, checking order 88239-ZX"
SECRET_RESULT = "Order 88239-ZX: Jane Roe, 42 Wallaby Way, phone 13800138000"
SECRET_ARGUMENT = "ORD-4471-KX"


def sampled_conversation() -> list[dict[str, Any]]:
    """A conversation holding the user's text everywhere a model and its tools put it: the user's
    message, the assistant's reply, a call's arguments, a tool's result; and a loaded manual."""
    return [
        {"role": "system", "content": "You serve customer Jane Roe (13800138000)."},
        {"role": "user", "content": SECRET_USER},
        *loaded("order_change"),
        {"role": "assistant", "content": SECRET_ASSISTANT,
         "tool_calls": [{"id": "c2", "name": "query_order", "arguments": {"order_no": SECRET_ARGUMENT}}]},
        {"role": "tool", "tool_call_id": "c2", "content": SECRET_RESULT},
    ]  # fmt: skip


def every_reports_text() -> str:
    """Every value of every column of every reports table, as text (JSON decoded, so ``\\uXXXX``
    escapes cannot hide a character): what a scan for the user's text reads."""
    from django.db import connection

    from skills_app.models import reports as report_models

    tables = [
        model._meta.db_table
        for model in vars(report_models).values()
        if isinstance(model, type) and hasattr(model, "_meta") and model._meta.app_label == "skills_app"
    ]
    assert {"skills_app_reportsample", "skills_app_runtimereport"} <= set(tables)
    texts: list[str] = []
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # the names come from the models
            for row in cursor.fetchall():
                for value in row:
                    texts.append(str(value))
                    if isinstance(value, str):
                        try:
                            value = json.loads(value)
                        except ValueError:
                            continue
                    if isinstance(value, (dict, list)):
                        texts.append(json.dumps(value, ensure_ascii=False))
    return "\n".join(texts)


def secrets_in(text: str) -> list[str]:
    secrets = [SECRET_USER, SECRET_ASSISTANT, SECRET_RESULT, SECRET_ARGUMENT, "13800138000", "Wallaby", "Jane Roe"]
    secrets += [SECRET_USER[i : i + 8] for i in range(len(SECRET_USER) - 7)]
    return [s for s in secrets if s in text]


def test_with_sampling_on_no_user_text_reaches_the_database(console, clients):
    from skills_app.models import ReportSample

    client = clients(console, report_interval=3600, heartbeat_interval=0, sample_rate=1.0)
    messages = sampled_conversation()
    client.visible_tools(messages[:4], conversation="chat 1")  # the round in which query_order is called
    verdict = client.check_call(messages[:5], messages[4]["tool_calls"][0], conversation="chat 1")
    assert verdict.reason == "invalid_arguments"  # the call record carries no argument either
    client.round(messages, conversation="chat 1")
    assert client.flush_reports(timeout=30) is True
    assert client.dropped_reports == 0

    samples = list(ReportSample.objects.order_by("round", "at"))
    assert [(s.round, s.redaction, s.conversation) for s in samples] == [
        (2, "redacted", client.pseudonym("chat 1")),
        (3, "redacted", client.pseudonym("chat 1")),
    ]
    assert len(stored("round")) == 2  # the rounds are reported as ever, the samples apart
    assert secrets_in(every_reports_text()) == []
    arguments = [c["arguments"] for m in samples[-1].messages for c in m.get("tool_calls", [])]
    assert arguments == [{"skill_code": "order_change"}, {}]  # no argument but load_skill's skill_code
    assert samples[-1].messages[4]["redacted"] == {"chars": len(SECRET_ASSISTANT)}
    assert samples[-1].messages[5] == {"role": "tool", "content": "", "tool_call_id": "c2", "state": "success",
                                       "redacted": {"chars": len(SECRET_RESULT)}}  # fmt: skip


def test_sample_arguments_keeps_the_arguments_and_still_no_text(console, clients):
    from skills_app.models import ReportSample

    client = clients(console, report_interval=3600, heartbeat_interval=0, sample_rate=1.0, sample_arguments=True)
    client.round(sampled_conversation(), conversation="chat 2")
    assert client.flush_reports(timeout=30) is True
    (sample,) = ReportSample.objects.all()
    assert sample.redaction == "arguments"
    arguments = [c["arguments"] for m in sample.messages for c in m.get("tool_calls", [])]
    assert arguments == [{"skill_code": "order_change"}, {"order_no": SECRET_ARGUMENT}]
    assert secrets_in(every_reports_text()) == [SECRET_ARGUMENT]  # what the runtime opted in to, alone


def test_sampling_is_off_by_default_and_decided_per_conversation(console, clients):
    from skills_app.models import ReportSample

    client = clients(console, report_interval=3600, heartbeat_interval=0)
    client.round(sampled_conversation(), conversation="chat 3")
    assert client.flush_reports(timeout=30) is True
    assert ReportSample.objects.count() == 0 and len(stored("round")) == 1
    half = clients(console, report=False, sample_rate=0.5)
    decisions = {f"chat {n}": half.sampled(f"chat {n}") for n in range(2000)}
    assert 850 < sum(decisions.values()) < 1150
    assert all(half.sampled(chat) is decided for chat, decided in decisions.items())  # every round the same
    assert not clients(console, report=False).sampled("chat 1")
    with pytest.raises(ValueError, match="sample_rate"):
        RuntimeClient(console, "key", report=False, sample_rate=1.5)
