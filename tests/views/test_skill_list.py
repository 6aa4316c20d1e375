"""The skill list: search over code, name, description and manual; filters; lints per row; a
query count that does not grow with the number of skills."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from skills_app.catalog import services
from skills_app.models import Skill
from tests.views.html import parse

ALL = ["after_sale_apply", "order_change", "fault_diagnosis", "order_checkout", "iot_bundle"]


def codes(client, **params):
    return parse(client.get("/skills/", params).content).values("data-skill")


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"q": "order_change"}, ["after_sale_apply", "order_change"]),  # code, and a manual naming it
        ({"q": "CANCEL_ORDER"}, ["order_change"]),  # a gated tool, any case
        ({"q": "五笔订单"}, []),  # in no field
        ({"state": "disabled"}, ["fault_diagnosis"]),
        ({"state": "enabled"}, ["after_sale_apply", "order_change", "order_checkout", "iot_bundle"]),
        ({"kind": "manual"}, ["fault_diagnosis", "iot_bundle"]),  # manual-only skills: no tools
        ({"kind": "manual", "state": "enabled"}, ["iot_bundle"]),
        ({"state": "bogus"}, ALL),  # an unknown filter value is ignored
    ],
)
def test_search_and_filters(staff_client, bitmall, params, expected):
    services.skill_set_enabled(skill=Skill.objects.get(skill_code="fault_diagnosis"), enabled=False)
    assert codes(staff_client, **params) == expected


def test_search_reaches_the_manual_and_the_name(staff_client, bitmall):
    services.skill_update(
        skill=Skill.objects.get(skill_code="iot_bundle"), content="# 套装\n只在手册正文里出现的词：蓝牙网关。\n"
    )
    assert codes(staff_client, q="蓝牙网关") == ["iot_bundle"]
    name = Skill.objects.get(skill_code="order_checkout").name
    assert codes(staff_client, q=name) == ["order_checkout"]
    doc = parse(staff_client.get("/skills/", {"q": "蓝牙网关"}).content)
    assert doc.one("data-filter-count").text().strip() == "5 个技能中的 1 个"


def test_the_lint_filter_and_the_lints_of_each_row(staff_client, bitmall):
    assert codes(staff_client, lints="1") == []
    services.skill_update(skill=Skill.objects.get(skill_code="iot_bundle"), description="很长" * 130)
    services.skill_update(
        skill=Skill.objects.get(skill_code="fault_diagnosis"), content="排查完毕后调用 `cancel_order` 取消订单。"
    )
    assert codes(staff_client, lints="1") == ["fault_diagnosis", "iot_bundle"]
    doc = parse(staff_client.get("/skills/").content)
    row = doc.one("data-skill", "fault_diagnosis")
    assert row.one("data-row-lints")["data-row-lints"] == "1"
    assert row.one("data-lint").text() == (
        "手册提到了 cancel_order，但它由 order_change 管控：提到它不会放开任何工具。"
        "请加载 order_change，或在这里管控它。"
    )
    assert doc.one("data-skill", "iot_bundle").one("data-lint")["data-lint"] == "description_long"
    # submit_ticket needs confirmation and no skill gates it: a catalog-wide lint above the table
    assert doc.one("data-catalog-lints").values("data-lint-tool") == ["submit_ticket"]


def _queries(client) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get("/skills/", {"q": "order", "lints": "1", "state": "enabled"})
    assert response.status_code == 200
    return len(ctx.captured_queries)


def test_the_query_count_is_the_same_with_5_and_500_skills(staff_client, bitmall):
    assert Skill.objects.live().count() == 5
    with_5 = _queries(staff_client)
    Skill.objects.bulk_create(
        Skill(
            skill_code=f"bulk_{i:03d}",
            name=f"bulk {i}",
            description=f"批量技能 {i}",
            content=f"# {i}\norder",
            tool_ids=["query_cart"] if i % 2 else [],
            sort_order=100 + i,
        )
        for i in range(495)
    )
    assert Skill.objects.live().count() == 500
    assert _queries(staff_client) == with_5
