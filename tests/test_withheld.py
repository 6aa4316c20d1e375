"""docs/rule.md, "withheld": the preview never claims a tool the model does not get.

The issue's example: an access profile holding query_order, query_logistics, cancel_order and
change_address; load after_sale_apply. apply_after_sale is outside the profile, so it is withheld
in every round — never "masked → load after_sale_apply", never "+ apply_after_sale", never
"released" — in the domain, ``manage.py simulate`` (text and JSON), ``POST runtime/rounds`` and
the preview page.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from skill_rule import parse_script, simulate
from skills_app.catalog import selectors as catalog_selectors
from skills_app.catalog import services
from skills_app.simulation import selectors as simulation_selectors
from tests.api.support import ROUNDS, loaded, publish_draft
from tests.views.html import parse

PROFILE = ["query_order", "query_logistics", "cancel_order", "change_address"]
SCRIPT = """name: after-sale-outside-profile
access_profile: support_lite
steps:
  - user: 我要申请售后
  - assistant: {calls: [{load_skill: {skill_code: after_sale_apply}}]}
  - assistant: {calls: [{apply_after_sale: {}}]}
"""
BUILTINS = ["search_knowledge", "load_skill", "flush_memory"]
#: Round 1 and 2 alike: the profile's four tools minus what order_change masks.
MCP_VISIBLE = ["query_order", "query_logistics"]
MASKED = {"cancel_order": "order_change", "change_address": "order_change"}
WITHHELD = dict.fromkeys(
    [
        "query_after_sale",
        "apply_after_sale",
        "search_product",
        "query_cart",
        "query_coupons",
        "update_cart_item",
        "create_order",
        "pay_order",
        "submit_ticket",
        "current_date",
    ],
    "not_permitted",
)


@pytest.fixture
def support_lite(bitmall):
    services.access_profile_save(name="support_lite", tools=PROFILE)
    publish_draft()  # the runtime serves releases only
    return catalog_selectors.catalog_draft()


def test_domain_rounds_withhold_the_tool_and_release_nothing(support_lite):
    sim = simulate(support_lite, parse_script(SCRIPT))
    r1, r2 = sim.rounds
    for r in (r1, r2):
        assert list(r.view.mcp_visible) == MCP_VISIBLE
        assert dict(r.view.masked) == MASKED  # only tools that loading the named manual would show
        assert dict(r.view.withheld) == WITHHELD
        assert r.view.released == ()
    assert r2.view.loaded == ("after_sale_apply",)
    assert (r2.newly_visible, r2.newly_hidden, r2.newly_released, r2.newly_masked) == ((), (), (), ())
    assert sim.matrix["apply_after_sale"] == ("withheld", "withheld")
    assert sim.matrix["cancel_order"] == ("masked", "masked")
    assert all("released" not in states for states in sim.matrix.values())
    (call,) = r2.calls
    assert (call.verdict.verdict, call.verdict.reason) == ("refused", "not_permitted")
    assert call.verdict.message == "tool 'apply_after_sale' is not permitted by access profile 'support_lite'"


def test_the_change_list_equals_the_difference_of_the_visible_lists(bitmall):
    sim = simulate(
        catalog_selectors.catalog_draft(), parse_script(simulation_selectors.scenario_get(name="cancel-iphone").script)
    )
    prev = None
    for r in sim.rounds:
        if prev is not None:
            assert set(r.newly_visible) == set(r.view.visible) - set(prev.view.visible)
            assert set(r.newly_hidden) == set(prev.view.visible) - set(r.view.visible)
            assert set(r.newly_released) <= set(r.newly_visible)
        prev = r
    assert sim.rounds[1].newly_released == ("cancel_order", "change_address")


def test_simulate_text_and_json_never_say_released(support_lite, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SCRIPT, encoding="utf-8")
    out = StringIO()
    call_command("simulate", str(path), stdout=out)
    text = out.getvalue()
    assert "released" not in text
    assert "+ apply_after_sale" not in text
    assert [ln.split() for ln in text.splitlines() if ln.startswith("apply_after_sale")] == [
        ["apply_after_sale", "withheld", "withheld"]
    ]
    assert "masked (2): cancel_order → order_change, change_address → order_change" in text
    out = StringIO()
    call_command("simulate", str(path), "--json", stdout=out)
    doc = json.loads(out.getvalue())
    for r in doc["rounds"]:
        assert r["released"] == [] and r["newly_released"] == [] and r["newly_visible"] == []
        assert r["masked"] == MASKED
        assert r["withheld"]["apply_after_sale"] == "not_permitted"
    assert doc["matrix"]["apply_after_sale"] == ["withheld", "withheld"]


def test_runtime_rounds_lists_the_tool_in_withheld_only(support_lite, api_client):
    body = api_client.post(
        ROUNDS, {"messages": loaded("after_sale_apply"), "access_profile": "support_lite"}, format="json"
    ).json()
    assert body["loaded"] == ["after_sale_apply"]
    assert body["masked"] == MASKED
    assert body["withheld"] == WITHHELD
    assert body["visible"] == BUILTINS + MCP_VISIBLE


def test_the_preview_page_shows_withheld_and_no_released(support_lite, staff_client):
    html = staff_client.post("/preview/", {"script": SCRIPT}).content.decode()
    doc = parse(html)
    r1, r2 = doc.select("data-round", tag="section")
    for r in (r1, r2):
        assert r.values("data-withheld-tool")[:2] == ["query_after_sale", "apply_after_sale"]
        assert r.values("data-masked-tool") == ["cancel_order", "change_address"]
        assert r.values("data-newly-released") == [] and r.values("data-newly-visible") == []
    cells = {
        (c["data-matrix-tool"], c["data-matrix-round"]): c["data-state"]
        for c in doc.select("data-matrix-tool", tag="td")
    }
    assert cells[("apply_after_sale", "1")] == cells[("apply_after_sale", "2")] == "withheld"
    assert "released" not in doc.one("data-matrix-legend").text()
    assert "已放行" not in html  # the Chinese for "released"
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    english = parse(staff_client.post("/preview/", {"script": SCRIPT}).content)
    assert english.by_tag("html")[0]["lang"] == "en"
    assert "released" not in english.one("data-simulation").text().lower()
    assert "withheld" in english.one("data-matrix").text()
    assert "released" not in english.one("data-matrix").text().lower()
    for r in english.select("data-round", tag="section"):
        assert "released" not in r.text().lower()
