"""The tools page: intent tree, MCP nodes with their tool and confirm flag, gating skills, builtins."""

from __future__ import annotations

from skills_app.catalog import services
from skills_app.models import Skill
from tests.views.html import parse


def test_tree_lists_mcp_tools_in_registration_order_with_their_gating_skills(staff_client, bitmall):
    doc = parse(staff_client.get("/tools/").content)
    assert doc.values("data-mcp-tool") == [
        "query_order",
        "query_logistics",
        "query_after_sale",
        "apply_after_sale",
        "cancel_order",
        "change_address",
        "search_product",
        "query_cart",
        "query_coupons",
        "update_cart_item",
        "create_order",
        "pay_order",
        "submit_ticket",
        "current_date",
    ]
    cancel = doc.one("data-mcp-tool", "cancel_order")
    assert cancel.values("data-gated-by") == ["order_change"]
    assert cancel.select("data-confirm-flag")
    assert not doc.one("data-mcp-tool", "query_order").select("data-confirm-flag")
    assert doc.values("data-builtin") == ["search_knowledge", "load_skill", "flush_memory"]


def test_disabled_skill_gates_nothing_on_the_tools_page(staff_client, bitmall):
    services.skill_set_enabled(skill=Skill.objects.get(skill_code="order_change"), enabled=False)
    doc = parse(staff_client.get("/tools/").content)
    assert doc.one("data-mcp-tool", "cancel_order").values("data-gated-by") == []


def test_the_tree_is_paged_in_tree_order_and_a_search_covers_every_page(staff_client, bitmall, monkeypatch):
    from skills_app.catalog.views import tools

    monkeypatch.setattr(tools, "PER_PAGE", 10)
    first = parse(staff_client.get("/tools/").content)
    second = parse(staff_client.get("/tools/?page=2").content)
    everything = [n["data-node"] for n in first.select("data-node", tag="tr")] + [
        n["data-node"] for n in second.select("data-node", tag="tr")
    ]
    assert len(first.select("data-node", tag="tr")) == 10
    assert first.one("data-pager")["data-pages"] == second.one("data-pager")["data-pages"]
    pages = int(first.one("data-pager")["data-pages"])
    for n in range(3, pages + 1):
        everything += [
            r["data-node"] for r in parse(staff_client.get(f"/tools/?page={n}").content).select("data-node", tag="tr")
        ]
    assert first.values("data-mcp-tool")[:2] == ["query_order", "query_logistics"]
    assert len(everything) == len(set(everything))  # no row on two pages
    tools_seen = [
        t
        for n in range(1, pages + 1)
        for t in parse(staff_client.get(f"/tools/?page={n}").content).values("data-mcp-tool")
    ]
    assert tools_seen[-1] == "current_date" and len(tools_seen) == 14

    found = parse(staff_client.get("/tools/?q=PAY_ORDER").content)
    assert found.values("data-mcp-tool") == ["pay_order"]
    assert found.one("data-tree-search-clear")
    by_skill = parse(staff_client.get("/tools/?q=order_change").content)
    assert by_skill.values("data-mcp-tool") == ["cancel_order", "change_address"]
    none = parse(staff_client.get("/tools/?q=no-such-thing").content)
    assert none.values("data-mcp-tool") == [] and "no-such-thing" in none.text()
