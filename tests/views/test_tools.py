"""The tools page: intent tree, MCP nodes with their tool and confirm flag, gating skills, builtins."""
from __future__ import annotations

from skills_app import services
from skills_app.models import Skill

from .html import parse


def test_tree_lists_mcp_tools_in_registration_order_with_their_gating_skills(staff_client, bitmall):
    doc = parse(staff_client.get("/tools/").content)
    assert doc.values("data-mcp-tool") == [
        "query_order", "query_logistics", "query_after_sale", "apply_after_sale", "cancel_order", "change_address",
        "search_product", "query_cart", "query_coupons", "update_cart_item", "create_order", "pay_order",
        "submit_ticket", "current_date",
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
