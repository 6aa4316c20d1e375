"""Every list page and the editor run the same number of queries with 5 skills as with 60 (issue 10:
query counts flat, no N+1). The data is built with the real services: skills with tool_ids, some
disabled, some deleted, their history, a release, scenarios."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from skills_app.catalog import services
from skills_app.models import Skill

PAGES = [
    "/skills/",
    "/skills/?q=bulk&lints=1",
    "/skills/?page=2",
    "/skills/order_change/",
    "/skills/order_change/edit",
    "/skills/new",
    "/skills/order_change/history",
    "/scenarios/",
    "/scenarios/cancel-iphone/result",
    "/releases/",
    "/releases/1/",
    "/tools/",
    "/mcp/",
    "/restrictions/",
    "/publish/",
    "/preview/",
    "/preview/?scenario=cancel-iphone",
    "/audit/?kind=skill",
    "/api-keys/",
    "/insights/",
    "/fleet/",
]
TOOLS = ["query_cart", "update_cart_item", "query_coupons", "cancel_order"]


def grow(to: int) -> None:
    """Add skills through ``services`` until ``to`` live skills exist: each gates a tool or none,
    every third is disabled; one more is created and deleted per ten, and each is edited once."""
    have = Skill.objects.live().count()
    for i in range(have, to):
        skill = services.skill_create(
            skill_code=f"bulk_{i:03d}",
            name=f"批量 {i}",
            description=f"批量技能 {i}：查购物车",
            content=f"# 批量 {i}\n先调用 query_cart，再 `update_cart_item`。",
            tool_ids=[TOOLS[i % len(TOOLS)]] if i % 2 else [],
            sort_order=100 + i,
            enabled=bool(i % 3),
        )
        services.skill_update(skill=skill, name=f"批量技能 {i}")
        if i % 10 == 0:
            gone = services.skill_create(skill_code=f"gone_{i:03d}", name="gone", description="gone", content="x")
            services.skill_delete(skill=gone)


def count(client, url: str) -> int:
    client.get(url)  # warm: session, caches
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(ctx.captured_queries)


@pytest.fixture
def published(bitmall):
    from skills_app.releases.services import COMMAND_LINE, release_publish

    release_publish(user=COMMAND_LINE, note="first")
    return bitmall


def test_every_list_page_costs_the_same_with_5_and_60_skills(staff_client, published):
    assert Skill.objects.live().count() == 5
    small = {url: count(staff_client, url) for url in PAGES}  # ?page=2 of 5 skills: the last page
    grow(60)
    large = {url: count(staff_client, url) for url in PAGES}
    assert Skill.objects.live().count() == 60
    assert {u: (small[u], n) for u, n in large.items() if n != small[u]} == {}


def test_the_audit_page_never_costs_more_with_more_writes(staff_client, published):
    """Unfiltered, the audit page reads one query per record type present on the page (at most
    one per audited model), never one per entry: with 60 skills its page holds only skill writes."""
    small = count(staff_client, "/audit/")
    grow(60)
    assert count(staff_client, "/audit/") <= small
