"""A long run in the preview renders a bounded page (issue 10): past FOLD_ABOVE rounds, runs of
rounds with no change fold into one summary row that loads them when opened; the full result
downloads as JSON (POST /preview/result.json with the same form); a time-budget stop still shows."""

from __future__ import annotations

import json

from django.template.loader import render_to_string
from django.utils import translation

from skill_rule import parse_script, simulate
from skills_app.catalog import selectors
from skills_app.web.presenters import FOLD_ABOVE, simulation_page
from tests.views.html import parse

URL = "/preview/"
JSON_URL = "/preview/result.json"


def script(rounds: int = 60, evict_after: int | None = 30) -> str:
    """Round 1 loads order_change, round 2 shows cancel_order, then only query_order calls; an
    eviction of the manual after ``evict_after`` masks cancel_order again from the next round."""
    lines = [
        "name: long-run",
        "steps:",
        "  - user: 帮我取消订单",
        "  - assistant: {calls: [{load_skill: {skill_code: order_change}}]}",
    ]
    for i in range(2, rounds + 1):
        lines.append("  - assistant: {calls: [{query_order: {}}]}")
        if i == evict_after:
            lines.append("  - evict: {tool: load_skill}")
    return "\n".join(lines) + "\n"


def test_a_60_round_run_folds_the_rounds_with_no_change(staff_client, bitmall):
    doc = parse(staff_client.post(URL, {"script": script()}).content)
    sim = doc.one("data-simulation")
    assert sim["data-rounds"] == "60"
    # 1 loads the manual, 2 shows cancel_order, 30 is followed by the eviction, 31 masks it again
    assert doc.values("data-round") == ["1", "2", "30", "31"]
    assert doc.values("data-fold") == ["3-29", "32-60"]
    assert doc.values("data-fold-rounds") == ["27", "29"]
    assert [n.text() for n in doc.select("data-fold-summary")] == [
        "第 3–29 轮：27 轮没有变化（每轮 13 个工具）",
        "第 32–60 轮：29 轮没有变化（每轮 11 个工具）",
    ]
    assert doc.one("data-fold-note").text().strip() == "显示 4 轮；56 轮没有变化，已折叠。"
    # the matrix has one column per shown round and one per fold
    row = doc.one("data-matrix-row", "cancel_order")
    cells = row.select("data-matrix-tool")
    assert [(c["data-matrix-round"], c.get("data-matrix-fold"), c["data-state"]) for c in cells] == [
        ("1", None, "masked"),
        ("2", None, "released"),
        ("3", "3-29", "released"),
        ("30", None, "released"),
        ("31", None, "masked"),
        ("32", "32-60", "masked"),
    ]


def test_opening_a_fold_renders_exactly_its_rounds(staff_client, bitmall):
    response = staff_client.post(URL, {"script": script(), "rounds": "3-29"}, headers={"HX-Request": "true"})
    doc = parse(response.content)
    assert doc.values("data-round") == [str(i) for i in range(3, 30)]
    assert not doc.select("data-simulation") and not doc.select("data-fold")
    assert all(s["data-count"] == "13" for s in doc.select("data-round"))
    bad = parse(staff_client.post(URL, {"script": script(), "rounds": "29-3"}, headers={"HX-Request": "true"}).content)
    assert bad.values("data-round") == []


def test_a_run_of_at_most_fold_above_rounds_is_shown_whole(staff_client, bitmall):
    doc = parse(staff_client.post(URL, {"script": script(FOLD_ABOVE, evict_after=None)}).content)
    assert doc.values("data-round") == [str(i) for i in range(1, FOLD_ABOVE + 1)]
    assert doc.values("data-fold") == [] and not doc.select("data-fold-note")
    doc = parse(staff_client.post(URL, {"script": script(FOLD_ABOVE + 1, evict_after=None)}).content)
    assert doc.values("data-round") == ["1", "2"] and doc.values("data-fold") == [f"3-{FOLD_ABOVE + 1}"]


def test_the_json_download_holds_every_round(staff_client, bitmall):
    doc = parse(staff_client.post(URL, {"script": script()}).content)
    form = doc.one("data-result-json-form")
    assert form["action"] == JSON_URL and form["method"] == "post"
    response = staff_client.post(JSON_URL, {"script": script()})
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == 'attachment; filename="long-run.json"'
    body = json.loads(response.content)
    assert [r["index"] for r in body["rounds"]] == list(range(1, 61))
    assert [r["count"] for r in body["rounds"]] == [11] + [13] * 29 + [11] * 30
    assert "cancel_order" in body["rounds"][29]["visible"] and "cancel_order" in body["rounds"][30]["masked"]
    assert body["stopped"] is None


def test_the_json_download_of_a_saved_scenario(staff_client, bitmall):
    body = json.loads(staff_client.post(JSON_URL, {"scenario": "cancel-iphone"}).content)
    assert body["scenario"] == "cancel-iphone" and [r["count"] for r in body["rounds"]] == [11, 13, 13]


def test_the_json_download_refuses_in_json(staff_client, bitmall):
    response = staff_client.post(JSON_URL, {"script": "steps:\n  - wave: hi\n"})
    assert response.status_code == 400 and response["Content-Type"] == "application/json"
    assert json.loads(response.content)["error"]["code"] == "invalid_script"
    response = staff_client.post(JSON_URL, {})
    assert response.status_code == 400 and json.loads(response.content)["error"]["code"] == "invalid_form"
    response = staff_client.post(JSON_URL, {"script": script(3), "profile": "nobody"})
    assert response.status_code == 400 and json.loads(response.content)["error"]["code"] == "unknown_restriction"


def test_a_time_budget_stop_still_shows_on_a_folded_page(bitmall):
    catalog = selectors.catalog_draft()
    ticks = iter(range(10_000))  # one second per round: 45 rounds fit a budget of 45 s
    sim = simulate(catalog, parse_script(script()), budget=45, clock=lambda: next(ticks))
    assert sim.stopped is not None and len(sim.rounds) == 45
    with translation.override("en"):
        page = simulation_page(sim, catalog)
        html = render_to_string("preview/_results.html", {"ran": True, "page": page, "kind": "script"})
    doc = parse(html)
    warning = doc.select("data-warning-code", "time_budget")
    assert len(warning) == 1
    assert warning[0].text().strip() == "!Stopped after 45 of 60 rounds: the time budget of 45 s was exceeded."
    assert doc.values("data-round") == ["1", "2", "30", "31"] and doc.values("data-fold") == ["3-29", "32-45"]
