"""The insights page, the fleet page, a skill's "In production" card and a release's instance count
(issue 26 item 5), fed through the real API: ``POST /api/v1/runtime/reports`` with a runtime key,
on the bitmall demo published twice (release 2 under ``production``). Every number on the pages is
asserted exactly, read from the elements that carry it (tests/views/html.py), in English and in
Chinese; every role may read; a bad filter is a 400 naming the field; the pages cost a fixed
number of queries whatever the reports behind them."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from skills_app.catalog import services as catalog_services
from skills_app.models import Release, Skill
from skills_app.releases.services import COMMAND_LINE, release_publish
from skills_app.web.charts import console_today
from tests.api.test_reports import REPORTS, at, base_time, cancel_iphone_batch, local_day
from tests.conftest import user_with_role
from tests.views.html import parse

OTHER_SHA = "9" * 64


def batch_b(t0, sha2: str) -> list[dict]:
    """A conversation on release 2: two rounds (980 and 10,500 characters of tools; round 2 warns
    manual_outdated twice), two calls to masked tools naming order_checkout, its load_skill, a call
    refused by the access profile and a confirmed create_order."""
    common = {"instance": "host-2:worker-1", "release": 2, "sha256": sha2, "conversation": "conv-b"}
    return [
        {"id": "b-r1", "kind": "round", "at": at(t0, 11), **common, "label": "production", "round": 1,
         "loaded": [], "masked": ["pay_order", "create_order"], "tools_chars": 980, "warnings": ["manual_empty"]},
        {"id": "b-c1", "kind": "call", "at": at(t0, 12), **common, "round": 1, "tool": "pay_order",
         "verdict": "refused", "reason": "masked", "skill_code": "order_checkout"},
        {"id": "b-c2", "kind": "call", "at": at(t0, 13), **common, "round": 1, "tool": "create_order",
         "verdict": "refused", "reason": "masked", "skill_code": "order_checkout"},
        {"id": "b-c3", "kind": "call", "at": at(t0, 14), **common, "round": 1, "tool": "load_skill",
         "verdict": "allowed", "skill_code": "order_checkout"},
        {"id": "b-r2", "kind": "round", "at": at(t0, 15), **common, "label": "production", "round": 2,
         "loaded": ["order_checkout"], "masked": [], "tools_chars": 10_500,
         "warnings": ["manual_outdated", "manual_outdated"]},
        {"id": "b-c4", "kind": "call", "at": at(t0, 16), **common, "round": 2, "tool": "query_order",
         "verdict": "refused", "reason": "not_permitted"},
        {"id": "b-c5", "kind": "call", "at": at(t0, 17), **common, "round": 2, "tool": "create_order",
         "verdict": "confirm"},
    ]  # fmt: skip


def draft_and_heartbeats(t0, sha2: str) -> list[dict]:
    """A round of the draft (release null) loading after_sale_apply, and three more instances:
    one on release 2 under production, one on release 2 with no label that could not refresh, one
    on a release 9 this console never published."""

    def beat(rid, instance, seconds, **fields):
        return {"id": rid, "kind": "heartbeat", "at": at(t0, seconds), "instance": instance,
                "client_version": "skill-console-client/0.1.0", "stale": False, **fields}  # fmt: skip

    return [
        {"id": "d-r1", "kind": "round", "at": at(t0, 20), "instance": "laptop-dev", "release": None,
         "sha256": "0" * 64, "conversation": "conv-d", "round": 1, "loaded": ["after_sale_apply"], "masked": [],
         "tools_chars": 42},
        beat("h-2", "host-2:worker-1", 21, release=2, sha256=sha2, label="production", refresh="fetched"),
        beat("h-3", "host-3:worker-1", 22, release=2, sha256=sha2, stale=True, refresh="stale"),
        beat("h-4", "host-4", 23, release=9, sha256=OTHER_SHA),
    ]  # fmt: skip


@pytest.fixture
def reported(bitmall, api_client):
    """Release 1 (bitmall), release 2 (a changed manual) under ``production``; then the runtimes'
    reports of one hour: the cancel-iphone batch on release 1, batch B on release 2, a draft round
    and the heartbeats of four instances. Returns the day they fall on (the console's zone)."""
    release_publish(user=COMMAND_LINE, note="first")
    skill = Skill.objects.get(skill_code="fault_diagnosis")
    catalog_services.skill_update(skill=skill, content=skill.content + "\n\n## 新增\n先确认设备型号。")
    release_publish(user=COMMAND_LINE, note="second", move_labels=["production"])
    sha1, sha2 = (Release.objects.get(number=n).sha256 for n in (1, 2))
    t0 = base_time()
    for records in (cancel_iphone_batch(t0, sha1), batch_b(t0, sha2), draft_and_heartbeats(t0, sha2)):
        response = api_client.post(REPORTS, {"records": records}, format="json")
        assert response.status_code == 200, response.content
    return local_day(t0)


def page(client, url: str, language: str = "en", status: int = 200):
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == status, (url, response.content[:500])
    return parse(response.content)


def stats(doc) -> dict[str, str]:
    return {n["data-stat"]: n.one("class", "value").text().strip() for n in doc.select("data-stat")}


def numbers(doc, table: str, row_attr: str) -> dict[str, dict[str, str]]:
    """``{row key: {column: number}}`` of the table ``data-table=table``, rows keyed by ``row_attr``."""
    box = doc.one("data-table", table)
    return {
        row[row_attr]: {cell["data-n"]: cell.text().strip() for cell in row.select("data-n")}
        for row in box.select(row_attr, tag="tr")
    }


def chart(doc, chart_id: str) -> dict:
    (script,) = [s for s in doc.by_tag("script") if s.get("id") == chart_id]
    return json.loads(script.text())


# --- the insights page ----------------------------------------------------------------------------


def test_the_insights_page_shows_every_number_of_the_reports_of_every_release(staff_client, reported):
    doc = page(staff_client, "/insights/")
    period = doc.one("data-period")
    today = console_today()  # the last 30 days of the console's zone, today included
    assert (period["data-since"], period["data-until"], period["data-release"]) == (
        str(today - timedelta(days=29)),
        str(today),
        "all",
    )
    assert stats(doc) == {
        "rounds": "6",
        "conversations": "3",
        "loads": "2",
        "masked_call": "3",
        "refused": "4",
        "confirm": "2",
        "outdated": "2",
        "instances": "4",
    }
    day = str(reported)
    assert numbers(doc, "per-day", "data-day")[day] == {
        "rounds": "6",
        "conversations": "3",
        "refused": "4",
        "confirm": "2",
    }
    assert {d: n for d, n in numbers(doc, "per-day", "data-day").items() if d != day} == {
        d: {"rounds": "0", "conversations": "0", "refused": "0", "confirm": "0"}
        for d in numbers(doc, "per-day", "data-day")
        if d != day
    }
    assert len(numbers(doc, "per-day", "data-day")) == 30
    loads = doc.one("data-table", "loads")
    assert [r["data-skill"] for r in loads.select("data-skill", tag="tr")] == [
        "order_change",
        "order_checkout",
        "after_sale_apply",
    ]
    assert numbers(doc, "loads", "data-skill") == {
        "order_change": {"loads": "1", "rounds": "2"},
        "order_checkout": {"loads": "1", "rounds": "1"},
        "after_sale_apply": {"loads": "0", "rounds": "1"},
    }
    assert doc.values("data-never") == ["fault_diagnosis", "iot_bundle"]
    assert numbers(doc, "masked", "data-masked") == {
        "cancel_order:order_change": {"attempts": "1"},
        "create_order:order_checkout": {"attempts": "1"},
        "pay_order:order_checkout": {"attempts": "1"},
    }
    assert numbers(doc, "refusals", "data-reason") == {"masked": {"refused": "3"}, "not_permitted": {"refused": "1"}}
    assert numbers(doc, "confirm", "data-confirm") == {
        "cancel_order": {"confirm": "1"},
        "create_order": {"confirm": "1"},
    }
    assert numbers(doc, "warnings", "data-warning") == {
        "manual_outdated": {"warnings": "3"},
        "manual_empty": {"warnings": "1"},
    }
    # tools_chars 42, 980, 4014, 4820, 4820, 10,500: each percentile is its bucket's upper bound
    assert numbers(doc, "tools-chars", "data-percentile") == {
        "50": {"chars": "4099"},
        "90": {"chars": "10999"},
        "95": {"chars": "10999"},
        "99": {"chars": "10999"},
        "100": {"chars": "10999"},
    }


def test_each_chart_holds_the_numbers_of_its_table(staff_client, reported):
    doc = page(staff_client, "/insights/")
    assert sorted(doc.values("data-chart")) == ["chart-loads", "chart-masked", "chart-per-day", "chart-refusals"]
    for canvas in doc.select("data-chart", tag="canvas"):
        assert canvas["role"] == "img" and "table below" in canvas["aria-label"]
    per_day = chart(doc, "chart-per-day")
    assert [s["label"] for s in per_day["series"]] == ["Rounds", "Conversations"]
    assert sum(per_day["series"][0]["data"]) == 6 and per_day["series"][0]["data"][per_day["labels"].index(
        reported.strftime("%m-%d"))] == 6  # fmt: skip
    assert chart(doc, "chart-loads") == {
        "labels": ["order_change", "order_checkout", "after_sale_apply"],
        "series": [
            {"label": "load_skill calls", "color": "--primary", "data": [1, 1, 0]},
            {"label": "Rounds with it loaded", "color": "--chart-soft", "data": [2, 1, 1]},
        ],
        "horizontal": True,
    }
    assert chart(doc, "chart-masked")["labels"] == [
        "cancel_order → order_change",
        "create_order → order_checkout",
        "pay_order → order_checkout",
    ]
    assert chart(doc, "chart-refusals") == {
        "labels": ["masked", "not permitted by the access profile"],
        "series": [{"label": "Refusals", "color": "--masked", "data": [3, 1]}],
        "horizontal": True,
    }


def test_one_release_shows_its_own_numbers_and_the_skills_it_never_loaded(staff_client, reported):
    doc = page(staff_client, "/insights/?release=2")
    assert doc.one("data-period")["data-release"] == "2"
    assert stats(doc) == {
        "rounds": "2",
        "conversations": "1",
        "loads": "1",
        "masked_call": "2",
        "refused": "3",
        "confirm": "1",
        "outdated": "1",
        "instances": "4",
    }
    assert numbers(doc, "loads", "data-skill") == {"order_checkout": {"loads": "1", "rounds": "1"}}
    assert doc.values("data-never") == ["after_sale_apply", "fault_diagnosis", "iot_bundle", "order_change"]
    assert numbers(doc, "masked", "data-masked") == {
        "create_order:order_checkout": {"attempts": "1"},
        "pay_order:order_checkout": {"attempts": "1"},
    }
    assert numbers(doc, "refusals", "data-reason") == {"masked": {"refused": "2"}, "not_permitted": {"refused": "1"}}
    assert numbers(doc, "warnings", "data-warning") == {
        "manual_outdated": {"warnings": "2"},
        "manual_empty": {"warnings": "1"},
    }
    assert numbers(doc, "tools-chars", "data-percentile") == {
        "50": {"chars": "989"},
        "90": {"chars": "10999"},
        "95": {"chars": "10999"},
        "99": {"chars": "10999"},
        "100": {"chars": "10999"},
    }

    draft = page(staff_client, "/insights/?release=0")
    assert stats(draft)["rounds"] == "1" and stats(draft)["conversations"] == "1"
    assert numbers(draft, "loads", "data-skill") == {"after_sale_apply": {"loads": "0", "rounds": "1"}}
    assert numbers(draft, "tools-chars", "data-percentile")["50"] == {"chars": "42"}
    draft.one("data-no-masked")
    draft.one("data-no-refusals")


def test_a_range_without_reports_says_so(staff_client, reported):
    before = reported - timedelta(days=1)
    doc = page(staff_client, f"/insights/?since={before - timedelta(days=6)}&until={before}")
    assert (doc.one("data-period")["data-since"], doc.one("data-period")["data-until"]) == (
        str(before - timedelta(days=6)),
        str(before),
    )
    doc.one("data-no-reports")
    assert stats(doc)["rounds"] == "0" and stats(doc)["instances"] == "4"
    assert doc.select("data-chart", tag="canvas") == []


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("since=2026-12-05&until=2026-12-01", "until", "The end date is before the start date."),
        ("since=2025-01-01&until=2026-12-01", "until", "A range covers at most 367 days; this one covers 700."),
        ("release=77", "release", "Select a valid choice. 77 is not one of the available choices."),
        ("since=yesterday", "since", "Enter a valid date."),
    ],
)
def test_a_bad_filter_is_a_400_naming_the_field_and_shows_no_numbers(staff_client, reported, query, field, message):
    doc = page(staff_client, f"/insights/?{query}", status=400)
    (error,) = doc.select("data-field-error")
    assert (error["data-field-error"], error.text()) == (field, message)
    assert doc.select("data-stat") == [] and doc.select("data-table") == []


def test_the_insights_page_speaks_chinese_by_default(staff_client, reported):
    response = staff_client.get("/insights/")
    doc = parse(response.content)
    assert doc.one("id", "per-day-title").text() == "每日轮次与对话"
    assert doc.one("data-stat", "outdated").one("class", "label").text() == "使用了过时手册的轮次"
    assert chart(doc, "chart-refusals")["labels"] == ["已屏蔽", "访问配置不允许"]
    assert [s["label"] for s in chart(doc, "chart-loads")["series"]] == ["load_skill 调用", "已加载它的轮次"]
    assert stats(doc)["rounds"] == "6"
    nav = doc.one("data-nav", "insights")
    assert nav.text() == "运行洞察" and nav["aria-current"] == "page"
    # the date inputs hold ISO dates in Chinese too (type=date shows nothing for zh's 2026/11/06)
    today = console_today()
    assert (doc.one("name", "since")["value"], doc.one("name", "until")["value"]) == (
        str(today - timedelta(days=29)),
        str(today),
    )
    bound = parse(staff_client.get(f"/insights/?since={today - timedelta(days=2)}&until={today}").content)
    assert bound.one("name", "since")["value"] == str(today - timedelta(days=2))


# --- the fleet page and a release's page ----------------------------------------------------------


def test_the_fleet_page_lists_every_instance_and_flags_a_release_no_label_points_to(staff_client, reported):
    doc = page(staff_client, "/fleet/")
    assert stats(doc) == {"instances": "4", "stale": "1", "unlabelled": "2"}
    rows = {r["data-instance"]: r for r in doc.one("data-fleet").select("data-instance", tag="tr")}
    assert set(rows) == {"host-1:worker-1", "host-2:worker-1", "host-3:worker-1", "host-4"}
    held = {name: r.one("data-held")["data-held"] for name, r in rows.items()}
    assert held == {"host-1:worker-1": "1", "host-2:worker-1": "2", "host-3:worker-1": "2", "host-4": "9"}
    assert {name for name, r in rows.items() if r["data-unlabelled"] == "1"} == {"host-1:worker-1", "host-4"}
    assert {n for n, r in rows.items() if r.select("data-flag", "unlabelled")} == {"host-1:worker-1", "host-4"}
    assert " ".join(rows["host-4"].one("data-flag").text().split()) == "no label points to this release"
    one = rows["host-1:worker-1"]
    assert one.one("data-label-now-points")["data-label-now-points"] == "2"
    assert " ".join(one.one("data-label-now-points").text().split()) == "production now points to #2"
    assert one.one("data-refresh")["data-refresh"] == "not_modified"
    assert one.one("data-state")["data-state"] == "fresh"
    assert "key test-runtime" in one.text()
    three = rows["host-3:worker-1"]
    assert (three["data-stale"], three.one("data-state")["data-state"], three.one("data-refresh").text().strip()) == (
        "1",
        "stale",
        "failed: kept the old copy",
    )
    assert three.select("data-label-now-points") == []  # the default serves release 2: it is current
    assert rows["host-4"].select("data-unknown-release") != []
    assert rows["host-2:worker-1"].select("data-flag") == []
    # last seen: the heartbeat's time in the page's zone (Asia/Shanghai), as the other pages show times
    t0 = base_time()
    shown = timezone.localtime(t0 + timedelta(seconds=7)).strftime("%Y-%m-%d %H:%M:%S")
    assert one.one("data-last-seen").text() == shown
    per_release = {c["data-release-count"]: " ".join(c.text().split()) for c in doc.select("data-release-count")}
    assert per_release == {"9": "#9: 1 instance", "2": "#2: 2 instances", "1": "#1: 1 instance"}


def test_a_release_page_says_how_many_instances_serve_it(staff_client, reported):
    assert page(staff_client, "/releases/2/").one("data-instances")["data-instances"] == "2"
    one = page(staff_client, "/releases/1/").one("data-instances")
    assert one["data-instances"] == "1" and " ".join(one.text().split()).startswith("1 instance serves it")
    assert (
        page(staff_client, "/releases/2/", language="zh-hans")
        .one("data-instances")
        .text()
        .startswith("2 个实例正在使用")
    )


def test_with_no_instance_the_fleet_page_says_how_one_reports(staff_client, bitmall):
    doc = page(staff_client, "/fleet/")
    doc.one("data-no-instances")
    assert stats(doc) == {"instances": "0", "stale": "0", "unlabelled": "0"}


# --- a skill's page -------------------------------------------------------------------------------


def test_a_skill_page_shows_its_loads_masked_calls_and_confirmations(staff_client, reported):
    doc = page(staff_client, "/skills/order_checkout/")
    card = doc.one("data-production")
    assert stats(card) == {"loads": "1", "rounds": "1", "masked_call": "2", "confirm": "1"}
    assert " ".join(card.one("data-stat", "rounds").one("class", "label").text().split()) == (
        "rounds with it loaded, of 6 (17 %)"
    )
    assert numbers(card, "skill-masked", "data-masked") == {
        "create_order": {"attempts": "1"},
        "pay_order": {"attempts": "1"},
    }
    assert numbers(card, "skill-confirm", "data-confirm") == {"create_order": {"confirm": "1"}}
    assert numbers(card, "skill-per-day", "data-day")[str(reported)] == {"loads": "1", "rounds": "1"}
    assert chart(doc, "chart-skill-loads")["series"][0]["data"][-30:].count(1) == 1

    change = page(staff_client, "/skills/order_change/?release=1").one("data-production")
    assert stats(change) == {"loads": "1", "rounds": "2", "masked_call": "1", "confirm": "1"}

    quiet = page(staff_client, "/skills/order_checkout/?release=1").one("data-production")
    quiet.one("data-no-reports")
    assert stats(quiet) == {"loads": "0", "rounds": "0", "masked_call": "0", "confirm": "0"}

    bad = page(staff_client, "/skills/order_checkout/?until=2026-01-01&since=2026-02-01").one("data-production")
    assert bad.one("data-field-error")["data-field-error"] == "until" and bad.select("data-stat") == []


# --- roles and cost -------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["viewer", "editor", "publisher"])
def test_every_role_reads_the_insights_and_the_fleet(client, django_user_model, reported, role):
    client.force_login(user_with_role(django_user_model, f"{role}-1", role))
    assert stats(page(client, "/insights/"))["rounds"] == "6"
    assert stats(page(client, "/fleet/"))["instances"] == "4"
    assert stats(page(client, "/skills/order_checkout/").one("data-production"))["loads"] == "1"


def count(client, url: str) -> int:
    client.get(url)  # warm: the session, this process's copies of the releases' catalogs
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_the_pages_cost_the_same_with_ten_times_the_reports(staff_client, reported, api_client):
    urls = ["/insights/", "/insights/?release=2", "/fleet/", "/skills/order_checkout/", "/releases/2/"]
    before = {url: count(staff_client, url) for url in urls}
    sha2 = Release.objects.get(number=2).sha256
    t0 = base_time()
    for i in range(10):
        records = batch_b(t0, sha2) + draft_and_heartbeats(t0, sha2)
        for r in records:
            r["id"] = f"{r['id']}-{i}"
            if r["kind"] == "heartbeat":
                r["instance"] = f"{r['instance']}-{i}"
            elif r["kind"] in ("round", "call"):
                r["conversation"] = f"{r['conversation']}-{i}"
                r["at"] = (t0 - timedelta(days=i, minutes=1)).isoformat()
        assert api_client.post(REPORTS, {"records": records}, format="json").status_code == 200
    after = {url: count(staff_client, url) for url in urls}
    assert after == before
    assert stats(page(staff_client, "/fleet/"))["instances"] == "34"
