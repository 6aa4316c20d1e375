"""List pages paginate with Django's Paginator (``views.common.paginate``, templates/includes/pager.html):
skills, deleted skills, scenarios, releases, MCP syncs and the audit log. A page number that is no
number or out of range gives the first or last page, never an error; a pager link keeps the filter."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.utils import timezone

from skills_app.catalog import services as catalog_services
from skills_app.catalog.views.skills import DELETED_PER_PAGE
from skills_app.mcp import services as mcp_services
from skills_app.mcp.views import SYNCS_PER_PAGE
from skills_app.models import McpSyncRecord, Scenario, Skill
from skills_app.simulation import services as simulation_services
from skills_app.web.common import PER_PAGE, paginate
from tests.views.html import parse


def add_skills(n: int, *, prefix: str = "bulk") -> list[Skill]:
    """``n`` skills through ``services.skill_create`` (sort orders after the demo's)."""
    return [
        catalog_services.skill_create(
            skill_code=f"{prefix}_{i:03d}",
            name=f"{prefix} {i}",
            description=f"批量技能 {i}",
            content=f"# {i}\n查询订单",
            tool_ids=["query_cart"] if i % 2 else [],
            sort_order=100 + i,
        )
        for i in range(n)
    ]


def pager(doc, index: int = 0):
    return doc.select("data-pager")[index]


def test_paginate_clamps_bad_page_numbers_and_keeps_the_other_parameters():
    rf = RequestFactory()
    items = list(range(120))
    assert list(paginate(rf.get("/x/", {"page": "2"}), items, 50).object_list) == list(range(50, 100))
    assert paginate(rf.get("/x/", {"page": "abc"}), items, 50).number == 1
    assert paginate(rf.get("/x/", {"page": "99"}), items, 50).number == 3
    assert paginate(rf.get("/x/", {"page": "-1"}), items, 50).number == 3
    page = paginate(rf.get("/x/", {"q": "订单", "page": "2", "state": "enabled"}), items, 50)
    assert page.query == "q=%E8%AE%A2%E5%8D%95&state=enabled" and page.param == "page"


def test_the_skill_list_shows_fifty_a_page(staff_client, bitmall):
    add_skills(60)
    doc = parse(staff_client.get("/skills/").content)
    assert len(doc.select("data-skill", tag="tr")) == PER_PAGE == 50
    nav = pager(doc)
    assert (nav["data-page"], nav["data-pages"]) == ("1", "2")
    assert nav.one("data-page-next")["href"] == "?page=2" and nav.one("data-page-next")["rel"] == "next"
    assert not nav.select("data-page-prev")
    assert nav.one("aria-current").text() == "第 1 页，共 2 页 · 共 65 条"
    doc = parse(staff_client.get("/skills/", {"page": "2"}).content)
    codes = doc.values("data-skill")
    assert len(codes) == 15 and codes[-1] == "bulk_059"
    assert pager(doc).one("data-page-prev")["href"] == "?page=1"


def test_a_filtered_skill_list_pages_through_the_matches_and_keeps_the_filter(staff_client, bitmall):
    add_skills(60)
    doc = parse(staff_client.get("/skills/", {"q": "bulk"}).content)
    assert doc.one("data-filter-count").text().strip() == "65 个技能中的 60 个"
    assert pager(doc).one("data-page-next")["href"] == "?q=bulk&page=2"
    doc = parse(staff_client.get("/skills/", {"q": "bulk", "page": "2"}).content)
    assert doc.values("data-skill") == [f"bulk_{i:03d}" for i in range(50, 60)]


def test_deleted_skills_page_on_their_own_parameter(staff_client, bitmall):
    for s in add_skills(DELETED_PER_PAGE + 3, prefix="gone"):
        catalog_services.skill_delete(skill=s)
    doc = parse(staff_client.get("/skills/").content)
    assert len(doc.values("data-deleted-skill")) == DELETED_PER_PAGE
    assert len(doc.select("data-pager")) == 1  # the live skills fit one page
    assert pager(doc).one("data-page-next")["href"] == "?deleted=2"
    doc = parse(staff_client.get("/skills/", {"deleted": "2"}).content)
    assert len(doc.values("data-deleted-skill")) == 3
    assert pager(doc).one("data-page-first")["href"] == "?deleted=1"


def test_scenarios_page(staff_client, bitmall):
    script = Scenario.objects.get(name="cancel-iphone").script
    for i in range(PER_PAGE + 5):
        simulation_services.scenario_save(name=f"s{i:03d}", script=script)
    doc = parse(staff_client.get("/scenarios/").content)
    assert len(doc.values("data-scenario")) == PER_PAGE and len(doc.select("data-pending")) == PER_PAGE
    doc = parse(staff_client.get("/scenarios/", {"page": "2"}).content)
    assert doc.values("data-scenario") == [f"s{i:03d}" for i in range(49, 55)]
    assert pager(doc).one("data-page-first")["href"] == "?page=1" and not doc.select("data-page-next")


def test_releases_page(staff_client, bitmall):
    from skills_app.releases.services import COMMAND_LINE, release_publish

    skill = Skill.objects.get(skill_code="iot_bundle")
    for i in range(PER_PAGE + 2):
        skill = catalog_services.skill_update(skill=skill, name=f"IoT {i}")
        release_publish(user=COMMAND_LINE, note=f"n{i}")
    doc = parse(staff_client.get("/releases/").content)
    assert doc.values("data-release")[:2] == ["52", "51"] and len(doc.values("data-release")) == PER_PAGE
    doc = parse(staff_client.get("/releases/", {"page": "2"}).content)
    assert doc.values("data-release") == ["2", "1"]
    # the label and diff pickers still offer every release
    assert len(doc.by_tag("select")[0].by_tag("option")) == PER_PAGE + 2


def test_mcp_syncs_page(staff_client, bitmall):
    server = mcp_services.mcp_server_save(name="sample-mcp", transport="stdio", command="/nonexistent/mcp-server")
    McpSyncRecord.objects.bulk_create(
        McpSyncRecord(server=server, outcome="ok", tool_count=i, trigger="test", finished_at=timezone.now())
        for i in range(SYNCS_PER_PAGE + 4)
    )
    doc = parse(staff_client.get("/mcp/sample-mcp/syncs").content)
    assert len(doc.values("data-sync")) == SYNCS_PER_PAGE
    doc = parse(staff_client.get("/mcp/sample-mcp/syncs", {"page": "2"}).content)
    assert len(doc.values("data-sync")) == 4


@pytest.mark.parametrize("url", ["/skills/", "/scenarios/", "/releases/", "/audit/"])
def test_a_short_list_has_no_pager(staff_client, bitmall, url):
    assert parse(staff_client.get(url).content).select("data-pager") == []
