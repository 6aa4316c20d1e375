"""``POST runtime/reports`` over real HTTP (Django's test client) with a real runtime key, on the
published bitmall demo (docs/runtime-api.md, "Reports"): a batch is stored with its rollups, a
retried batch stores nothing new, a bad record refuses the batch naming its index and field, an
unknown release, skill or tool is kept and marked, the limits are named, and only runtime keys
may write."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.db import connection
from django.utils import timezone as dj_timezone
from rest_framework.test import APIClient

from skill_rule.limits import REPORT_MAX_BATCH_BYTES, REPORT_MAX_LIST_ITEMS, REPORT_MAX_RECORDS
from skill_rule.reports import parse_reports
from skills_app.models import Release, ReportConversation, ReportRollup, RuntimeInstance, RuntimeReport
from skills_app.reports import services
from skills_app.reports.selectors import instance_list, rollup_table, rollup_totals
from tests.api.support import BITMALL_GATED, error_of

REPORTS = "/api/v1/runtime/reports"
#: A time zone of the runtime's own: ``at`` is sent with this offset, stored and counted in UTC.
CST = timezone(timedelta(hours=8))
STILL_MASKED = ["apply_after_sale", "update_cart_item", "create_order", "pay_order"]


def base_time() -> datetime:
    """The start of the hour before the current one (UTC): every record of a test falls on one day
    and one hour, whatever the clock says."""
    return (datetime.now(UTC) - timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)


def local_day(moment: datetime):
    """The day a rollup counts ``moment`` on: its date in the console's time zone (Asia/Shanghai)."""
    return dj_timezone.localtime(moment).date()


def at(t0: datetime, seconds: int) -> str:
    return (t0 + timedelta(seconds=seconds)).astimezone(CST).isoformat()


def cancel_iphone_batch(t0: datetime, sha256: str) -> list[dict]:
    """The seed session (cancel-iphone) as a runtime reports it: three rounds (11, 13, 13 tools),
    a call refused as masked, the load_skill call, the confirmed cancel_order, and a heartbeat."""
    common = {"instance": "host-1:worker-1", "release": 1, "sha256": sha256, "conversation": "conv-7f3a"}
    return [
        {"id": "r-1", "kind": "round", "at": at(t0, 1), **common, "label": "production", "round": 1,
         "loaded": [], "masked": list(BITMALL_GATED), "tools_chars": 4014},
        {"id": "c-1", "kind": "call", "at": at(t0, 2), **common, "round": 1, "tool": "cancel_order",
         "verdict": "refused", "reason": "masked", "skill_code": "order_change"},
        {"id": "c-2", "kind": "call", "at": at(t0, 3), **common, "round": 1, "tool": "load_skill",
         "verdict": "allowed", "skill_code": "order_change"},
        {"id": "r-2", "kind": "round", "at": at(t0, 4), **common, "label": "production", "round": 2,
         "loaded": ["order_change"], "masked": STILL_MASKED, "tools_chars": 4820},
        {"id": "r-3", "kind": "round", "at": at(t0, 5), **common, "label": "production", "round": 3,
         "loaded": ["order_change"], "masked": STILL_MASKED, "tools_chars": 4820, "warnings": ["manual_outdated"]},
        {"id": "c-3", "kind": "call", "at": at(t0, 6), **common, "round": 3, "tool": "cancel_order",
         "verdict": "confirm"},
        {"id": "h-1", "kind": "heartbeat", "at": at(t0, 7), "instance": "host-1:worker-1",
         "client_version": "skill-console-client/0.1.0", "stale": False, "release": 1, "sha256": sha256,
         "label": "production", "refresh": "not_modified"},
    ]  # fmt: skip


def expected_rollups(day) -> dict:
    """The counters the cancel-iphone batch adds: every one of them, exactly."""
    return {
        (day, 1, "calls", "allowed"): 1,
        (day, 1, "calls", "confirm"): 1,
        (day, 1, "calls", "refused"): 1,
        (day, 1, "confirm", "cancel_order"): 1,
        (day, 1, "conversations", ""): 1,
        (day, 1, "heartbeats", ""): 1,
        (day, 1, "load", "order_change"): 1,
        (day, 1, "loaded", "order_change"): 2,
        (day, 1, "masked_call", "cancel_order:order_change"): 1,
        (day, 1, "refused", "masked"): 1,
        (day, 1, "outdated", ""): 1,
        (day, 1, "rounds", ""): 3,
        (day, 1, "tools_chars", "4000"): 1,
        (day, 1, "tools_chars", "4800"): 2,
        (day, 1, "warning", "manual_outdated"): 1,
    }


@pytest.fixture
def sha256(bitmall) -> str:
    return Release.objects.get(number=1).sha256


@pytest.fixture
def send(api_client):
    def _send(records, client=None):
        return (client or api_client).post(REPORTS, {"records": records}, format="json", HTTP_ACCEPT_LANGUAGE="en")

    return _send


def nothing_stored() -> tuple[int, int, int]:
    return RuntimeReport.objects.count(), ReportRollup.objects.count(), RuntimeInstance.objects.count()


# --- a batch, and the same batch again ----------------------------------------------------------


def test_a_three_round_batch_is_stored_with_its_rollups_counted_exactly(send, sha256, runtime_key):
    t0 = base_time()
    response = send(cancel_iphone_batch(t0, sha256))
    assert response.status_code == 200, response.content
    assert response.json() == {"received": 7, "stored": 7, "duplicates": 0, "marked": []}

    day = local_day(t0)
    assert rollup_table(since=day, until=day) == expected_rollups(day)
    assert rollup_totals(since=day, until=day, release=1)["rounds"] == {"": 3}
    rows = {r.record_id: r for r in RuntimeReport.objects.all()}
    assert sorted(rows) == ["c-1", "c-2", "c-3", "h-1", "r-1", "r-2", "r-3"]
    first = rows["r-1"]
    assert (first.key_prefix, first.kind, first.instance, first.release, first.release_sha256, first.label) == (
        runtime_key.record.prefix,
        "round",
        "host-1:worker-1",
        1,
        sha256,
        "production",
    )
    assert first.at == t0 + timedelta(seconds=1)  # sent as +08:00, stored as the same instant
    assert (first.conversation, first.round, first.loaded, first.masked, first.tools_chars) == (
        "conv-7f3a",
        1,
        [],
        list(BITMALL_GATED),
        4014,
    )
    refused = rows["c-1"]
    assert (refused.tool, refused.verdict, refused.reason, refused.skill_code, refused.flags) == (
        "cancel_order",
        "refused",
        "masked",
        "order_change",
        [],
    )
    (instance,) = instance_list()
    assert (
        instance.key_prefix,
        instance.instance,
        instance.release,
        instance.release_sha256,
        instance.label,
        instance.client_version,
        instance.stale,
        instance.refresh,
        instance.first_seen,
        instance.last_seen,
    ) == (
        runtime_key.record.prefix,
        "host-1:worker-1",
        1,
        sha256,
        "production",
        "skill-console-client/0.1.0",
        False,
        "not_modified",
        t0 + timedelta(seconds=7),
        t0 + timedelta(seconds=7),
    )


def test_the_same_batch_sent_again_stores_nothing_and_counts_nothing_twice(send, sha256):
    t0 = base_time()
    batch = cancel_iphone_batch(t0, sha256)
    assert send(batch).json()["stored"] == 7
    again = send(batch)
    assert again.status_code == 200
    assert again.json() == {"received": 7, "stored": 0, "duplicates": 7, "marked": []}
    day = local_day(t0)
    assert rollup_table(since=day, until=day) == expected_rollups(day)
    assert RuntimeReport.objects.count() == 7

    # half of it again with two new records: only the new ones count
    newer = {**batch[0], "id": "r-4", "round": 1, "conversation": "conv-9b2e"}
    beat = {**batch[6], "id": "h-2", "at": at(t0, 60), "stale": True, "refresh": "stale"}
    mixed = send([*batch[:3], newer, beat])
    assert mixed.json() == {"received": 5, "stored": 2, "duplicates": 3, "marked": []}
    counts = rollup_table(since=day, until=day)
    assert counts[(day, 1, "rounds", "")] == 4
    assert counts[(day, 1, "conversations", "")] == 2
    assert counts[(day, 1, "tools_chars", "4000")] == 2
    assert counts[(day, 1, "calls", "refused")] == 1
    assert counts[(day, 1, "heartbeats", "")] == 2
    (instance,) = instance_list()
    assert (instance.stale, instance.refresh, instance.last_seen, instance.first_seen) == (
        True,
        "stale",
        t0 + timedelta(seconds=60),
        t0 + timedelta(seconds=7),
    )


def test_a_conversation_counts_once_across_batches_on_the_day_it_was_first_seen(send, sha256):
    """``conversations`` is distinct conversations, not rounds numbered 1: the cancel-iphone
    conversation's later rounds in other batches add nothing, a conversation whose round 1 never
    arrived still counts, and a conversation seen under the draft counts there too."""
    t0 = base_time()
    batch = cancel_iphone_batch(t0, sha256)
    assert send(batch[:1]).json()["stored"] == 1  # round 1 alone
    assert send(batch[1:]).json()["stored"] == 6  # rounds 2 and 3 later
    joined = {**batch[3], "id": "r-9", "conversation": "conv-joined", "round": 4}  # its rounds 1–3 were lost
    draft = {**batch[3], "id": "r-10", "release": None, "round": 5}  # the same conversation on the draft
    assert send([joined, draft]).json()["stored"] == 2
    day = local_day(t0)
    counts = rollup_table(since=day, until=day)
    assert counts[(day, 1, "rounds", "")] == 4
    assert counts[(day, 1, "conversations", "")] == 2
    assert counts[(day, 0, "conversations", "")] == 1
    assert sorted(ReportConversation.objects.values_list("release", "conversation", "first_day", "last_day")) == [
        (0, "conv-7f3a", day, day),
        (1, "conv-7f3a", day, day),
        (1, "conv-joined", day, day),
    ]


def test_a_late_heartbeat_never_overwrites_a_newer_one(send, sha256):
    t0 = base_time()
    beat = {"kind": "heartbeat", "instance": "host-2", "client_version": "v2", "release": 1, "sha256": sha256}
    assert send([{**beat, "id": "h-new", "at": at(t0, 30), "stale": False, "refresh": "fetched"}]).status_code == 200
    assert send([{**beat, "id": "h-old", "at": at(t0, 10), "stale": True, "refresh": "stale"}]).status_code == 200
    (instance,) = instance_list()
    assert (instance.stale, instance.refresh, instance.last_seen) == (False, "fetched", t0 + timedelta(seconds=30))
    assert ReportRollup.objects.get(dimension="heartbeats").count == 2  # both are stored and counted


def test_the_same_ids_under_another_key_are_other_records(send, sha256):
    from skills_app.keys.services import api_key_create
    from skills_app.releases.services import COMMAND_LINE

    t0 = base_time()
    batch = cancel_iphone_batch(t0, sha256)
    assert send(batch).json()["stored"] == 7
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_create(user=COMMAND_LINE, name='eu-fleet').key}")
    assert send(batch, client=other).json() == {"received": 7, "stored": 7, "duplicates": 0, "marked": []}
    assert RuntimeReport.objects.count() == 14
    day = local_day(t0)
    assert rollup_table(since=day, until=day)[(day, 1, "rounds", "")] == 6
    assert len(instance_list()) == 2  # one instance row per key


# --- refused batches: nothing of them is stored -------------------------------------------------


def test_a_bad_record_at_index_2_refuses_the_batch_naming_index_and_field(send, sha256):
    batch = cancel_iphone_batch(base_time(), sha256)
    batch[2] = {**batch[2], "round": 0}
    error = error_of(send(batch), 400)
    assert error == {
        "code": "invalid_report",
        "message": "records[2].round: must be an integer from 1 to 2147483647, got 0",
        "details": {"index": 2, "field": "round", "cause": "must be an integer from 1 to 2147483647, got 0"},
    }
    assert nothing_stored() == (0, 0, 0)


def test_a_bad_item_names_its_path_and_an_unknown_field_is_refused(send, sha256):
    batch = cancel_iphone_batch(base_time(), sha256)
    bad_item = [*batch[:3], {**batch[3], "loaded": ["order_change", "order\x00change"]}]
    assert error_of(send(bad_item), 400)["details"] == {
        "index": 3,
        "field": "loaded.1",
        "cause": "holds a control character (U+0000)",
    }
    misspelt = [{**batch[0], "tool_chars": 1}]
    error = error_of(send(misspelt), 400)
    assert error["details"]["field"] == "tool_chars"
    assert error["message"].startswith("records[0].tool_chars: unknown field for a round record; fields: id, kind, at,")
    assert nothing_stored() == (0, 0, 0)


def test_a_record_from_the_far_future_is_refused_naming_its_time(send, sha256):
    batch = cancel_iphone_batch(base_time(), sha256)
    batch[4] = {**batch[4], "at": (datetime.now(UTC) + timedelta(hours=2)).isoformat()}
    error = error_of(send(batch), 400)
    assert (error["details"]["index"], error["details"]["field"], error["details"]["limit"]) == (
        4,
        "at",
        "REPORT_MAX_FUTURE_SECONDS",
    )
    assert "more than REPORT_MAX_FUTURE_SECONDS (300) seconds after the console's clock" in error["message"]
    assert nothing_stored() == (0, 0, 0)


def test_a_failure_while_storing_leaves_nothing_of_the_batch(sha256, runtime_key, monkeypatch):
    """One transaction: the raw rows and the rollups written before a failure are rolled back."""
    reports = parse_reports(
        {"records": cancel_iphone_batch(base_time(), sha256)},
        now=datetime.now(UTC),
        retention_days=30,
    )

    def broken(*args, **kwargs):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(services, "_see_instances", broken)
    with pytest.raises(RuntimeError, match="the disk is full"):
        services.reports_ingest(key_prefix=runtime_key.record.prefix, reports=reports)
    assert nothing_stored() == (0, 0, 0)


# --- what the console does not know is kept and marked ------------------------------------------


def test_an_unknown_release_skill_or_tool_is_stored_and_marked(send, sha256):
    t0 = base_time()
    common = {"instance": "host-9", "conversation": "conv-1", "round": 1}
    batch = [
        {"id": "u-0", "kind": "round", "at": at(t0, 1), **common, "release": 1, "sha256": sha256,
         "loaded": [], "masked": list(BITMALL_GATED)},
        {"id": "u-1", "kind": "round", "at": at(t0, 2), **common, "release": 99, "sha256": "0" * 64,
         "loaded": ["refund"], "masked": []},
        {"id": "u-2", "kind": "round", "at": at(t0, 3), **common, "release": 1, "sha256": "f" * 64,
         "loaded": [], "masked": []},
        {"id": "u-3", "kind": "call", "at": at(t0, 4), **common, "release": 1, "sha256": sha256,
         "tool": "frobnicate", "verdict": "refused", "reason": "unknown_tool"},
        {"id": "u-4", "kind": "call", "at": at(t0, 5), **common, "release": 1, "sha256": sha256,
         "tool": "load_skill", "verdict": "refused", "reason": "unknown_skill", "skill_code": "refund"},
        {"id": "u-5", "kind": "heartbeat", "at": at(t0, 6), "instance": "host-9", "client_version": "0.1.0",
         "stale": False, "release": 99, "sha256": "0" * 64},
    ]  # fmt: skip
    response = send(batch)
    assert response.status_code == 200, response.content
    assert response.json() == {
        "received": 6,
        "stored": 6,
        "duplicates": 0,
        "marked": [
            {"index": 1, "id": "u-1", "flags": ["unknown_release"]},
            {"index": 2, "id": "u-2", "flags": ["unknown_release"]},
            {"index": 3, "id": "u-3", "flags": ["unknown_tool"]},
            {"index": 4, "id": "u-4", "flags": ["unknown_skill"]},
            {"index": 5, "id": "u-5", "flags": ["unknown_release"]},
        ],
    }
    flags = dict(RuntimeReport.objects.values_list("record_id", "flags"))
    assert flags == {
        "u-0": [],
        "u-1": ["unknown_release"],
        "u-2": ["unknown_release"],
        "u-3": ["unknown_tool"],
        "u-4": ["unknown_skill"],
        "u-5": ["unknown_release"],
    }
    day = local_day(t0)
    totals = rollup_totals(since=day, until=day)
    assert totals["flag"] == {"unknown_release": 3, "unknown_skill": 1, "unknown_tool": 1}
    assert rollup_totals(since=day, until=day, release=99)["loaded"] == {"refund": 1}
    assert instance_list()[0].release == 99


# --- limits -------------------------------------------------------------------------------------


def test_a_batch_over_the_record_limit_is_refused_naming_the_limit(send, sha256):
    t0 = base_time()
    beat = {"kind": "heartbeat", "at": at(t0, 1), "instance": "i", "client_version": "v", "stale": False}
    error = error_of(send([{**beat, "id": f"h-{i}"} for i in range(REPORT_MAX_RECORDS + 1)]), 400)
    assert error == {
        "code": "invalid_report",
        "message": "records: 501 records, more than REPORT_MAX_RECORDS (500) in one batch",
        "details": {
            "index": None,
            "field": "records",
            "cause": "501 records, more than REPORT_MAX_RECORDS (500) in one batch",
            "limit": "REPORT_MAX_RECORDS",
            "max": 500,
        },
    }
    assert send([{**beat, "id": f"h-{i}"} for i in range(REPORT_MAX_RECORDS)]).json()["stored"] == 500
    assert RuntimeReport.objects.count() == 500


def test_a_list_over_its_limit_names_the_limit(send, sha256):
    record = cancel_iphone_batch(base_time(), sha256)[0]
    record["masked"] = [f"tool_{i}" for i in range(REPORT_MAX_LIST_ITEMS + 1)]
    assert error_of(send([record]), 400)["details"] == {
        "index": 0,
        "field": "masked",
        "cause": "has 2001 items, more than REPORT_MAX_LIST_ITEMS (2000)",
        "limit": "REPORT_MAX_LIST_ITEMS",
        "max": 2000,
    }


def test_a_string_over_its_limit_names_the_limit(send, sha256):
    record = {**cancel_iphone_batch(base_time(), sha256)[0], "conversation": "c" * 65}
    assert error_of(send([record]), 400)["details"] == {
        "index": 0,
        "field": "conversation",
        "cause": "has 65 characters, more than REPORT_ID_MAX_CHARS (64)",
        "limit": "REPORT_ID_MAX_CHARS",
        "max": 64,
    }


def test_a_body_over_the_byte_limit_is_413_and_nothing_is_read(api_client, sha256):
    record = cancel_iphone_batch(base_time(), sha256)[0]
    body = json.dumps({"records": [record] * 10, "padding": "x" * REPORT_MAX_BATCH_BYTES})
    response = api_client.post(REPORTS, body, content_type="application/json")
    error = error_of(response, 413)
    assert error["code"] == "report_too_large"
    assert error["details"] == {"limit": "REPORT_MAX_BATCH_BYTES", "max": 2_000_000, "bytes": len(body)}
    assert error["message"] == (
        f"{len(body)} bytes is more than REPORT_MAX_BATCH_BYTES (2000000 bytes) in one batch; "
        "send fewer records per batch"
    )
    assert nothing_stored() == (0, 0, 0)


def test_the_schema_states_the_limits():
    schema = APIClient().get("/api/v1/schema", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    records = components["ReportBatch"]["properties"]["records"]
    assert (records["minItems"], records["maxItems"]) == (1, 500)
    assert "2000000 bytes" in records["description"]
    round_report = components["RoundReport"]["properties"]
    assert round_report["masked"]["maxItems"] == 2000
    assert round_report["id"]["maxLength"] == 64
    assert round_report["id"]["pattern"] == "^[A-Za-z0-9._:-]{1,64}$"
    assert round_report["masked"]["items"]["maxLength"] == 128
    assert components["Report"]["discriminator"]["propertyName"] == "kind"
    dropped = components["HeartbeatReport"]["properties"]["dropped"]  # optional: older clients send none
    assert (dropped["type"], dropped["minimum"], dropped["maximum"]) == ("integer", 0, 2_147_483_647)
    assert "dropped" not in components["HeartbeatReport"].get("required", [])
    operation = schema["paths"]["/api/v1/runtime/reports"]["post"]
    assert {"runtimeKey": []} in operation["security"]  # a session is authenticated, then refused (403)
    assert set(operation["responses"]) == {"200", "400", "401", "403", "413", "503"}


# --- who may write ------------------------------------------------------------------------------


def test_no_key_or_a_wrong_key_is_401_and_stores_nothing(sha256):
    body = {"records": cancel_iphone_batch(base_time(), sha256)}
    anonymous = APIClient().post(REPORTS, body, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert error_of(anonymous, 401)["code"] == "not_authenticated"
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION="Bearer notakey.not-a-real-key")
    assert error_of(wrong.post(REPORTS, body, format="json", HTTP_ACCEPT_LANGUAGE="en"), 401) == {
        "code": "authentication_failed",
        "message": "the API key is unknown or revoked.",
        "details": {},
    }
    assert nothing_stored() == (0, 0, 0)


def test_a_revoked_key_is_401(send, sha256, runtime_key):
    from skills_app.keys.services import api_key_revoke
    from skills_app.releases.services import COMMAND_LINE

    api_key_revoke(user=COMMAND_LINE, name=runtime_key.record.name)
    assert error_of(send(cancel_iphone_batch(base_time(), sha256)), 401)["code"] == "authentication_failed"
    assert nothing_stored() == (0, 0, 0)


def test_a_console_session_cannot_write_reports(staff_client, sha256):
    response = staff_client.post(
        REPORTS,
        json.dumps({"records": cancel_iphone_batch(base_time(), sha256)}),
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert error_of(response, 403) == {
        "code": "runtime_key_required",
        "message": "reports are written by an agent runtime with its runtime API key (Authorization: Bearer "
        "<key>); a console session cannot write them",
        "details": {},
    }
    assert nothing_stored() == (0, 0, 0)


def test_no_endpoint_reads_reports_back(api_client, send, sha256):
    assert send(cancel_iphone_batch(base_time(), sha256)).status_code == 200
    assert error_of(api_client.get(REPORTS), 405)["code"] == "method_not_allowed"
    assert error_of(api_client.get(REPORTS + "/r-1"), 404)["code"] == "not_found"


# --- two runtimes sending the same batch at once ------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_same_batch_sent_twice_at_once_is_counted_once(bitmall_published_key):
    """Real threads, each with its own connection (SQLite: IMMEDIATE transactions; PostgreSQL: the
    second insert waits on the unique index for the first, then inserts nothing)."""
    key, sha = bitmall_published_key
    t0 = base_time()
    reports = parse_reports({"records": cancel_iphone_batch(t0, sha)}, now=datetime.now(UTC), retention_days=30)
    barrier = threading.Barrier(2)
    results: list = [None, None]

    def run(i):
        try:
            barrier.wait(timeout=10)
            results[i] = services.reports_ingest(key_prefix=key.prefix, reports=reports)
        except Exception as exc:  # noqa: BLE001 — reported to the test
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(r.stored for r in results) == [0, 7], results
    day = local_day(t0)
    assert rollup_table(since=day, until=day) == expected_rollups(day)
    assert RuntimeReport.objects.count() == 7


@pytest.fixture
def bitmall_published_key(transactional_db):
    from skills_app.catalog.demo import demo_load
    from skills_app.keys.services import api_key_create
    from skills_app.releases.services import COMMAND_LINE, release_publish_first

    demo_load(name="bitmall")
    release_publish_first(note="demo catalog 'bitmall'")
    return api_key_create(user=COMMAND_LINE, name="threads").record, Release.objects.get(number=1).sha256


def test_a_database_fault_while_storing_is_503_and_the_batch_can_be_sent_again(send, sha256, monkeypatch):
    from django.db import OperationalError

    from skills_app.runtime import views

    def down(**kwargs):
        raise OperationalError("could not connect to server")

    batch = cancel_iphone_batch(base_time(), sha256)
    with monkeypatch.context() as patched:
        patched.setattr(views, "reports_ingest", down)
        response = send(batch)
    error = error_of(response, 503)
    assert error["code"] == "database_unavailable"
    assert response["Retry-After"] == "5"
    assert nothing_stored() == (0, 0, 0)
    assert send(batch).json() == {"received": 7, "stored": 7, "duplicates": 0, "marked": []}


# --- samples (docs/runtime-api.md, "Samples") ---------------------------------------------------

USER_TEXT = "我的手机号是13800138000，帮我取消那台iPhone"


def cancel_iphone_messages() -> list[dict]:
    """The seed conversation's retained messages as an agent holds them: the user's text, a
    load_skill call and its manual, a call with the user's order number in its arguments."""
    return [
        {"role": "user", "content": USER_TEXT},
        {"role": "assistant", "content": "好的，我先看一下手册",
         "tool_calls": [{"id": "call_0", "name": "load_skill", "arguments": {"skill_code": "order_change"}}]},
        {"role": "tool", "tool_call_id": "call_0", "content": "# 订单修改\n手册正文",
         "metadata": {"ragent_loaded_skill": "order_change", "skill_version": 1}},
        {"role": "assistant", "content": "",
         "tool_calls": [{"id": "call_1", "name": "query_order", "arguments": {"order_no": "88239", "phone": "13800138000"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "订单 88239：张三，北京市朝阳区"},
    ]  # fmt: skip


def sample_record(t0: datetime, sha256: str, messages: list, *, redaction: str = "redacted", id: str = "s-1") -> dict:
    return {"id": id, "kind": "sample", "at": at(t0, 8), "instance": "host-1:worker-1", "release": 1,
            "sha256": sha256, "conversation": "conv-7f3a", "round": 3, "redaction": redaction,
            "messages": messages}  # fmt: skip


def test_a_sample_is_stored_apart_and_never_counted(send, sha256):
    from skill_rule.redaction import redact_messages
    from skills_app.models import ReportSample

    t0 = base_time()
    redacted = redact_messages(cancel_iphone_messages())
    answer = send([*cancel_iphone_batch(t0, sha256), sample_record(t0, sha256, redacted)])
    assert answer.status_code == 200, answer.content
    assert answer.json()["stored"] == 8
    sample = ReportSample.objects.get()
    assert (sample.record_id, sample.conversation, sample.round, sample.redaction) == (
        "s-1",
        "conv-7f3a",
        3,
        "redacted",
    )
    assert sample.messages == redacted
    assert RuntimeReport.objects.filter(record_id="s-1").count() == 0
    assert {(r.day, r.release, r.dimension, r.key): r.count for r in ReportRollup.objects.all()} == expected_rollups(
        local_day(t0)
    )
    assert send([sample_record(t0, sha256, redacted)]).json()["duplicates"] == 1  # stored once
    assert ReportSample.objects.count() == 1


@pytest.mark.parametrize(
    ("messages", "redaction", "field", "cause"),
    [
        ("not a list", "redacted", "messages", "must be a list of messages, got 'not a list'"),
        ([{"role": "robot", "content": ""}], "redacted", "messages.0", "cannot be read as messages: role must be"),
        ([{"role": "user", "content": USER_TEXT}], "redacted", "messages.0", "holds what a 'redacted' sample leaves"),
        (
            [{"role": "user", "content": ""},
             {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "name": "query_order",
                                                                 "arguments": {"order_no": "88239"}}]}],
            "redacted", "messages.1", "holds what a 'redacted' sample leaves",
        ),
        ([{"role": "user", "content": "", "redacted": {"chars": 3, "text": "abc"}}], "redacted", "messages.0", "holds"),
        ([{"role": "user", "content": USER_TEXT}], "arguments", "messages.0", "holds what a 'arguments' sample leaves"),
        ([], "everything", "redaction", "must be one of redacted, arguments"),
    ],
)  # fmt: skip
def test_a_bad_sample_refuses_the_batch_naming_index_and_field(send, sha256, messages, redaction, field, cause):
    from skills_app.models import ReportSample

    t0 = base_time()
    batch = [*cancel_iphone_batch(t0, sha256)[:2], sample_record(t0, sha256, messages, redaction=redaction)]
    details = error_of(send(batch), 400)["details"]
    assert (details["index"], details["field"]) == (2, field)
    assert details["cause"].startswith(cause)
    assert nothing_stored() == (0, 0, 0)
    assert ReportSample.objects.count() == 0


def test_a_sample_over_its_limits_names_them(send, sha256):
    from skill_rule.limits import REPORT_SAMPLE_MAX_BYTES, REPORT_SAMPLE_MAX_MESSAGES

    t0 = base_time()
    many = [{"role": "user", "content": ""}] * (REPORT_SAMPLE_MAX_MESSAGES + 1)
    details = error_of(send([sample_record(t0, sha256, many)]), 400)["details"]
    assert (details["field"], details["limit"], details["max"]) == (
        "messages",
        "REPORT_SAMPLE_MAX_MESSAGES",
        REPORT_SAMPLE_MAX_MESSAGES,
    )
    manual = "手" * (REPORT_SAMPLE_MAX_BYTES // 3 + 1)  # 3 bytes each in UTF-8: one past the limit
    big = [{"role": "tool", "tool_call_id": "", "state": "success", "content": manual,
            "metadata": {"ragent_loaded_skill": "order_change"}}]  # fmt: skip
    details = error_of(send([sample_record(t0, sha256, big)]), 400)["details"]
    assert (details["field"], details["limit"]) == ("messages", "REPORT_SAMPLE_MAX_BYTES")


def test_the_schema_states_the_sample_record():
    from skill_rule.limits import REPORT_SAMPLE_MAX_BYTES, REPORT_SAMPLE_MAX_MESSAGES

    schema = APIClient().get("/api/v1/schema", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    sample = components["SampleReport"]["properties"]
    assert sample["messages"]["maxItems"] == REPORT_SAMPLE_MAX_MESSAGES
    assert str(REPORT_SAMPLE_MAX_BYTES) in sample["messages"]["description"]
    assert components["RedactionEnum"]["enum"] == ["redacted", "arguments"]
    assert "sample" in components["Report"]["discriminator"]["mapping"]
