"""The preview's per-round payload (docs/runtime-api.md "What the model sees"): sizes in
characters and the diff against the previous round on the page; the JSON itself from
``/preview/payload`` only when a round is opened."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlparse

import pytest

from skill_rule import compute_round
from skill_rule.payload import payload_chars, tools_payload
from skills_app.catalog import selectors
from tests.views.html import parse

URL = "/preview/"
PAYLOAD = "/preview/payload"


@pytest.fixture
def cancel_iphone(staff_client, bitmall):
    response = staff_client.get(URL, {"scenario": "cancel-iphone"})
    assert response.status_code == 200
    return parse(response.content)


def expected_chars(names, fmt):
    catalog = selectors.catalog_draft()
    return payload_chars(tools_payload(catalog, names, fmt))


def test_each_round_shows_the_size_of_both_formats_in_characters(cancel_iphone):
    rounds = cancel_iphone.select("data-round", tag="section")
    for r in rounds:
        names = [n["data-visible-tool"] for n in r.select("data-visible-tool")]
        for fmt in ("openai", "anthropic"):
            shown = r.one("data-payload-chars", fmt).text().strip()
            assert shown == f"{expected_chars(names, fmt)} 个字符"
    sizes = [int(r.one("data-payload-chars", "openai").text().split()[0]) for r in rounds]
    assert sizes[0] < sizes[1] == sizes[2]


def test_the_diff_names_the_tools_added_and_says_when_nothing_changed(cancel_iphone):
    r1, r2, r3 = cancel_iphone.select("data-round", tag="section")
    assert r1.select("data-payload-first") and not r1.select("data-payload-diff")
    assert r2.values("data-payload-added") == ["cancel_order", "change_address"]
    assert r2.values("data-payload-removed") == [] and r2.values("data-payload-changed") == []
    assert r3.select("data-payload-same") and not r3.select("data-payload-diff")


def test_the_page_carries_no_json_but_a_link_per_round_to_it(cancel_iphone, staff_client):
    page_details = cancel_iphone.select("data-payload-round", tag="details")
    assert [d["data-payload-round"] for d in page_details] == ["1", "2", "3"]
    assert not cancel_iphone.select("data-payload-json")
    url = page_details[1]["hx-get"]
    assert urlparse(url).path == PAYLOAD
    names = parse_qs(urlparse(url).query)["tools"][0].split(",")
    assert len(names) == 13 and "cancel_order" in names
    assert page_details[1]["hx-trigger"] == "toggle once"


def test_the_payload_view_answers_the_exact_arrays_of_both_formats(cancel_iphone, staff_client):
    url = cancel_iphone.select("data-payload-round", tag="details")[0]["hx-get"]
    response = staff_client.get(url)
    assert response.status_code == 200
    doc = parse(response.content)
    catalog = selectors.catalog_draft()
    visible = compute_round(catalog, ()).visible
    for fmt in ("openai", "anthropic"):
        block = doc.one("data-payload-json", fmt)
        expected = tools_payload(catalog, visible, fmt)
        assert json.loads(block.one("class", "payload-pre").text()) == expected
        assert block["data-chars"] == str(payload_chars(expected))
    assert not doc.select("data-payload-unknown")


def test_a_name_the_draft_no_longer_registers_is_named_and_left_out(staff_client, bitmall):
    response = staff_client.get(PAYLOAD, {"tools": "query_order,gone_tool"})
    doc = parse(response.content)
    assert [c.text() for c in doc.one("data-payload-unknown").by_tag("code")] == ["gone_tool"]
    tools = json.loads(doc.one("data-payload-json", "anthropic").one("class", "payload-pre").text())
    assert [t["name"] for t in tools] == ["query_order"]


def test_the_payload_view_is_for_staff_only(client, bitmall):
    response = client.get(PAYLOAD, {"tools": "query_order"})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_200_round_run_carries_no_json_and_a_small_payload_row_per_round(staff_client, bitmall):
    steps = "\n".join("  - assistant: {calls: [{query_order: {}}]}" for _ in range(199))
    script = (
        "name: long\nsteps:\n  - user: 查订单\n"
        f"  - assistant: {{calls: [{{load_skill: {{skill_code: order_change}}}}]}}\n{steps}\n"
    )
    response = staff_client.post(URL, {"script": script})
    assert response.status_code == 200
    html = response.content.decode()
    doc = parse(html)
    # rounds 3-200 change nothing: folded into one row (tests/views/test_preview_long_run.py)
    assert doc.values("data-round") == ["1", "2"] and doc.values("data-fold") == ["3-200"]
    assert not doc.select("data-payload-json") and '"input_schema"' not in html
    rows = re.findall(r"<div class=\"row\" data-payload-row>.*?</details>", html, flags=re.S)
    assert len(rows) == 2
    assert max(len(r) for r in rows) < 2_500  # the 13 names of the JSON link, a size, a note


def test_the_load_skill_description_is_also_shown_as_text(staff_client, bitmall):
    doc = parse(staff_client.get(PAYLOAD, {"tools": "search_knowledge,load_skill"}).content)
    lines = doc.one("data-payload-load-skill").one("class", "payload-pre payload-text").text().split("\n")
    assert len(lines) == 8
    assert lines[2] == "部分业务工具在关联手册加载后才会出现在可用工具中，不要仅凭当前工具清单判断是否支持该任务"
    assert lines[7] == (
        "- iot_bundle（智能家居套装）：用户咨询智能家居套装或多件智能设备搭配时加载：核对网关协议、"
        "App 生态和安装条件，给出兼容的组合建议。"
    )
    no_load = parse(staff_client.get(PAYLOAD, {"tools": "query_order"}).content)
    assert not no_load.select("data-payload-load-skill")
