"""The tool pickers past ``limits.PICKER_FULL_LIST_MAX`` registered MCP tools (docs/benchmarks.md,
issue 10): the editors list only the ticked tools and a search box; ``GET /tools/options`` answers
at most ``limits.PICKER_SEARCH_MAX`` unticked options matching the query, in registration order.
The bitmall demo has 14 MCP tools: the limit is lowered to 5 here."""

from __future__ import annotations

import pytest

from skill_rule import limits
from skills_app.catalog import selectors, services
from skills_app.models import AccessProfile, IntentNode, Skill
from tests.conftest import user_with_role
from tests.views.html import parse
from tests.views.test_skills import edit_data

ORDER_MATCHES = ["query_order", "cancel_order", "change_address", "update_cart_item", "create_order", "pay_order"]


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(limits, "PICKER_FULL_LIST_MAX", 5)


def options(client, **params):
    response = client.get("/tools/options", params)
    assert response.status_code == 200, response.content[:300]
    return response, parse(response.content)


def test_the_editor_lists_only_the_ticked_tools_and_a_search_box(staff_client, bitmall, small_limit):
    doc = parse(staff_client.get("/skills/order_change/edit").content)
    assert doc.values("data-tool-option") == ["cancel_order", "change_address"]
    boxes = [n for n in doc.by_tag("input") if n.get("name") == "tool_ids"]
    assert [(b["value"], "checked" in b.attrs) for b in boxes] == [("cancel_order", True), ("change_address", True)]
    search = doc.one("data-picker-search", "tool_ids")
    assert (search.tag, search["type"], search["form"], search["hx-get"]) == ("input", "search", "", "/tools/options")
    assert search["placeholder"] == "搜索要添加的工具…"  # Chinese by default
    assert doc.one("data-picker-results").children == []


def test_a_new_skill_with_no_tool_ticked_says_so(staff_client, bitmall, small_limit):
    doc = parse(staff_client.get("/skills/new").content)
    assert doc.values("data-tool-option") == []
    doc.one("data-picker-none")
    doc.one("data-picker-search", "tool_ids")


def test_an_unregistered_selected_id_stays_listed(staff_client, bitmall, small_limit):
    skill = Skill.objects.get(skill_code="order_change")
    doc = parse(
        staff_client.post(
            "/skills/order_change/edit", edit_data(skill, tool_ids=["cancel_order", "no_such_tool"])
        ).content
    )
    assert doc.values("data-tool-option") == ["cancel_order", "no_such_tool"]


def test_the_restriction_editor_searches_too(staff_client, bitmall, small_limit):
    services.access_profile_save(name="member", tools=["pay_order", "query_cart"])
    doc = parse(staff_client.get("/restrictions/profile/member/edit").content)
    assert doc.values("data-tool-option") == ["query_cart", "pay_order"]
    doc.one("data-picker-search", "tools")


def test_at_the_limit_the_picker_is_the_full_list(staff_client, bitmall, monkeypatch):
    monkeypatch.setattr(limits, "PICKER_FULL_LIST_MAX", 14)
    doc = parse(staff_client.get("/skills/order_change/edit").content)
    assert doc.values("data-tool-option") == _registration_order()
    assert doc.select("data-picker-search") == []


def _registration_order() -> list[str]:
    return [r.tool_id for r in selectors.mcp_nodes()]


def test_a_query_answers_the_matching_tools_in_registration_order(staff_client, bitmall):
    # tool id (query_order, cancel_order, create_order, pay_order) or gating skill (order_change,
    # order_checkout gate change_address and update_cart_item)
    _, doc = options(staff_client, q="order", name="tool_ids")
    assert doc.values("data-tool-option") == ORDER_MATCHES
    boxes = doc.by_tag("input")
    assert {(b["type"], b["name"]) for b in boxes} == {("checkbox", "tool_ids")}
    assert not any("checked" in b.attrs for b in boxes)
    assert doc.select("data-picker-more") == []


def test_a_query_matches_titles_in_any_case(staff_client, bitmall):
    _, doc = options(staff_client, q="购物车")
    assert doc.values("data-tool-option") == ["query_cart", "update_cart_item"]
    _, doc = options(staff_client, q="  ORDER_CHECKOUT ")
    assert doc.values("data-tool-option") == ["update_cart_item", "create_order", "pay_order"]


def test_selected_ids_are_left_out_and_the_name_is_kept(staff_client, bitmall):
    _, doc = options(staff_client, q="order", name="tools", selected=["cancel_order", "change_address", "nope"])
    assert doc.values("data-tool-option") == ["query_order", "update_cart_item", "create_order", "pay_order"]
    assert {b["name"] for b in doc.by_tag("input")} == {"tools"}


def test_an_empty_query_answers_the_first_tools_and_how_many_more(staff_client, bitmall, monkeypatch):
    monkeypatch.setattr(limits, "PICKER_SEARCH_MAX", 4)
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    _, doc = options(staff_client, q="")
    assert doc.values("data-tool-option") == _registration_order()[:4]
    assert "10 more tools match" in doc.one("data-picker-more").text()


def test_at_most_30_options_come_back(staff_client, bitmall):
    parent = IntentNode.objects.get(intent_code="order_query")
    for n in range(40):
        services.intent_node_save(
            intent_code=f"order_extra_{n:02}",
            name=f"额外 {n}",
            kind=IntentNode.Kind.MCP,
            parent=parent,
            mcp_tool_id=f"order_extra_{n:02}",
        )
    _, doc = options(staff_client, q="ORDER_EXTRA")
    assert doc.values("data-tool-option") == [f"order_extra_{n:02}" for n in range(30)]
    assert "另有 10 个工具匹配" in doc.one("data-picker-more").text()
    _, doc = options(staff_client)
    assert len(doc.values("data-tool-option")) == limits.PICKER_SEARCH_MAX == 30


@pytest.mark.parametrize("query", ["\x00", "order\x00", "%", "'; drop table x; --", "<script>", "x" * 5000, "ö̈"])
def test_odd_queries_answer_200_and_match_nothing(staff_client, bitmall, query):
    response, doc = options(staff_client, q=query)
    assert doc.values("data-tool-option") == []
    doc.one("data-picker-no-match")
    assert b"<script>" not in response.content


def test_a_name_that_is_no_picker_field_is_a_400(staff_client, bitmall):
    response = staff_client.get("/tools/options", {"q": "order", "name": 'x\x00"><b>'})
    assert response.status_code == 400
    assert "'name' 必须是 tool_ids, tools 之一" in parse(response.content).one("data-reason").text()


def test_every_tool_already_listed(staff_client, bitmall):
    _, doc = options(staff_client, q="", selected=_registration_order())
    assert doc.values("data-tool-option") == []
    assert doc.one("data-picker-no-match").text() == "所有已注册的 MCP 工具都已列出。"


def test_a_viewer_may_search(client, django_user_model, bitmall):
    client.force_login(user_with_role(django_user_model, "vic", "viewer"))
    _, doc = options(client, q="cart")
    assert doc.values("data-tool-option") == ["query_cart", "update_cart_item"]


def test_saving_with_a_fetched_option_ticked_saves_it(staff_client, bitmall, small_limit):
    skill = Skill.objects.get(skill_code="order_change")
    _, doc = options(staff_client, q="query_order", selected=["cancel_order", "change_address"])
    fetched = doc.one("data-tool-option", "query_order").by_tag("input")[0]
    response = staff_client.post(
        "/skills/order_change/edit", edit_data(skill, tool_ids=["cancel_order", "change_address", fetched["value"]])
    )
    assert response.status_code == 302
    skill.refresh_from_db()
    assert (skill.tool_ids, skill.version) == (["cancel_order", "change_address", "query_order"], 2)


def test_the_editor_in_english(staff_client, bitmall, small_limit):
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    doc = parse(staff_client.get("/skills/order_change/edit").content)
    assert doc.one("data-picker-search", "tool_ids")["placeholder"] == "Search tools to add…"
    assert doc.one("data-picker-search-help").text().startswith("14 MCP tools are registered: only the ticked")


def test_the_restriction_editor_saves_a_fetched_option(staff_client, bitmall, small_limit):
    services.access_profile_save(name="member", tools=["pay_order", "query_cart"])
    _, doc = options(staff_client, q="物流", name="tools", selected=["query_cart", "pay_order"])
    assert doc.values("data-tool-option") == ["query_logistics"]
    response = staff_client.post(
        "/restrictions/profile/member/edit",
        {"name": "member", "description": "", "tools": ["query_cart", "pay_order", "query_logistics"]},
    )
    assert response.status_code == 302
    assert sorted(AccessProfile.objects.get(name="member").tools) == ["pay_order", "query_cart", "query_logistics"]
