"""What a new user tripped on (issue 9, item 7): each bullet as a test with its exact message."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.test import RequestFactory
from django.views.defaults import server_error

from skills_app.catalog import services
from skills_app.models import Scenario, Skill
from tests.views.html import parse


def edit_data(skill: Skill, **changes) -> dict:
    data = {
        "name": skill.name,
        "description": skill.description,
        "content": skill.content,
        "tool_ids": list(skill.tool_ids),
        "sort_order": skill.sort_order,
        "enabled": "on" if skill.enabled else "",
        "base_version": skill.version,
    }
    data.update(changes)
    return {k: v for k, v in data.items() if v != ""}


def field_errors(doc, field: str) -> list[str]:
    node = doc.select("data-errors-for", field)
    return [li.text() for n in node for li in n.by_tag("li")]


# --- CRLF and saves that change nothing -----------------------------------------------------
def test_a_rename_posted_with_crlf_keeps_the_manual_and_its_sha256(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    before = hashlib.sha256(skill.content.encode()).hexdigest()
    staff_client.post(
        "/skills/order_change/edit",
        edit_data(skill, name="订单变更（新）", content=skill.content.replace("\n", "\r\n")),
    )
    skill.refresh_from_db()
    assert (skill.name, skill.version) == ("订单变更（新）", 2)
    assert "\r" not in skill.content
    assert hashlib.sha256(skill.content.encode()).hexdigest() == before


def test_a_save_that_changes_nothing_makes_no_version(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    response = staff_client.post(
        "/skills/order_change/edit", edit_data(skill, content=skill.content.replace("\n", "\r\n")), follow=True
    )
    skill.refresh_from_db()
    assert skill.version == 1
    assert "没有修改：order_change 仍为版本 1。" in response.content.decode()


def test_the_service_normalises_lone_cr_too(bitmall):
    skill = services.skill_update(skill=Skill.objects.get(skill_code="iot_bundle"), content="# a\r\nb\rc\n")
    assert skill.content == "# a\nb\nc\n"


# --- refusals with a message, each once next to its field ------------------------------------
@pytest.mark.parametrize("code", ["load_skill", "search_knowledge", "flush_memory"])
def test_a_skill_code_may_not_be_a_builtin_tool_name(staff_client, bitmall, code):
    doc = parse(
        staff_client.post(
            "/skills/new", {"skill_code": code, "name": "x", "description": "d", "content": "# m", "enabled": "on"}
        ).content
    )
    assert field_errors(doc, "skill_code") == [f"技能代码 '{code}' 是内置工具的名称，请换一个代码。"]
    assert not Skill.objects.filter(skill_code=code).exists()


def test_an_over_long_description_is_refused_with_a_message_never_cut(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    text = "长" * 513
    response = staff_client.post("/skills/order_change/edit", edit_data(skill, description=text))
    doc = parse(response.content)
    assert field_errors(doc, "description") == ["描述有 513 个字符，最多 512 个。"]
    textarea = doc.one("data-field", "description").by_tag("textarea")[0]
    assert textarea.get("maxlength") is None  # the browser would cut the text without a word
    assert textarea.text().strip() == text  # the typed text is kept
    skill.refresh_from_db()
    assert skill.version == 1


def test_each_field_error_is_shown_once(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    html = staff_client.post("/skills/order_change/edit", edit_data(skill, description="长" * 600)).content.decode()
    assert html.count("描述有 600 个字符，最多 512 个。") == 1
    summary = parse(html).one("data-error-summary")
    assert [a["href"] for a in summary.select("data-error-link")] == ["#id_description"]


@pytest.mark.parametrize(
    ("url", "extra"),
    [
        ("/scenarios/new", {"script": "steps:\n  - user: hi\n"}),
        ("/restrictions/profile/new", {}),
        ("/restrictions/stage/new", {}),
    ],
)
def test_names_of_scenarios_profiles_and_stages_say_what_is_allowed(staff_client, bitmall, url, extra):
    doc = parse(staff_client.post(url, {"name": "My Scenario", **extra}).content)
    assert field_errors(doc, "name") == [
        "请以小写字母开头，之后只用小写字母、数字和单个 _ 或 - 分隔（不含空格和大写字母），例如 cancel-iphone。"
    ]


# --- the preview: user message, save as scenario, permalink, unmet expectation ---------------
SCRIPT = """name: my-check
steps:
  - user: 我要取消订单 88239
  - assistant: {calls: [{load_skill: {skill_code: order_change}}], expect: {mcp_visible: [query_order, cancel_order]}}
"""


def test_round_cards_show_the_user_message_that_led_to_the_round(staff_client, bitmall):
    doc = parse(staff_client.post("/preview/", {"script": SCRIPT}).content)
    assert doc.one("data-round", "1").one("data-user-message").text() == "我要取消订单 88239"


def test_an_unmet_expectation_shows_the_missing_and_unexpected_tools(staff_client, bitmall):
    doc = parse(staff_client.post("/preview/", {"script": SCRIPT}).content)
    (failure,) = doc.one("data-round", "1").one("data-round-failures").by_tag("li")
    assert failure.text() == (
        "✕ 可见 MCP 工具：缺少 cancel_order；多出 query_logistics, query_after_sale, search_product, "
        "query_cart, query_coupons, submit_ticket, current_date"
    )


def test_a_pasted_script_has_a_permalink_that_runs_it_again(staff_client, bitmall):
    doc = parse(staff_client.post("/preview/", {"script": SCRIPT, "profile": "-"}).content)
    link = doc.one("data-permalink")["href"]
    assert link.startswith("/preview/?script=")
    again = parse(staff_client.get(link).content)
    assert again.one("data-round", "1").one("data-user-message").text() == "我要取消订单 88239"
    assert again.one("data-simulation")["data-rounds"] == "1"


def test_a_pasted_script_is_saved_as_a_scenario_in_one_click(staff_client, bitmall):
    doc = parse(staff_client.post("/preview/", {"script": SCRIPT}).content)
    form = doc.one("data-save-scenario")
    fields = {n["name"]: n.get("value", "") for n in form.by_tag("input") if n.get("name")}
    assert fields["name"] == "my-check"
    response = staff_client.post(form["action"], {"name": fields["name"], "script": fields["script"]})
    assert response.status_code == 302 and response["Location"] == "/preview/?scenario=my-check"
    assert Scenario.objects.get(name="my-check").script == SCRIPT


def test_saving_under_a_taken_name_keeps_the_script_and_says_why(staff_client, bitmall):
    doc = parse(staff_client.post("/scenarios/from-preview", {"name": "cancel-iphone", "script": SCRIPT}).content)
    assert field_errors(doc, "name") == ["已存在名为“cancel-iphone”的场景。"]
    assert doc.one("data-field", "script").by_tag("textarea")[0].text().lstrip("\n") == SCRIPT


# --- pages, admin, API docs -----------------------------------------------------------------
def test_a_missing_page_is_a_friendly_404_in_the_console_style(staff_client, bitmall):
    response = staff_client.get("/skills/no_such_skill/")
    assert response.status_code == 404
    doc = parse(response.content)
    assert doc.one("data-error-page")["data-error-page"] == "404"
    assert doc.by_tag("h1")[0].text() == "找不到页面"
    assert doc.select("data-nav")  # the console's own top bar


def test_the_500_page_renders_without_a_request_context(db):
    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert 'data-error-page="500"' in response.content.decode()
    assert "/static/skills_app/console.css" in response.content.decode()


def test_the_403_page_is_in_the_console_style(rf, staff_user):
    from django.core.exceptions import PermissionDenied
    from django.views.defaults import permission_denied

    request = rf.get("/skills/")
    request.user = staff_user
    response = permission_denied(request, PermissionDenied())
    assert response.status_code == 403 and 'data-error-page="403"' in response.content.decode()


@pytest.mark.parametrize(
    ("model", "plural"),
    [("skill", "技能"), ("consolesettings", "控制台设置"), ("accessprofile", "访问配置"), ("scenario", "场景")],
)
def test_admin_plurals_are_right(admin_client, bitmall, model, plural):
    html = admin_client.get("/admin/").content.decode()
    assert f'href="/admin/skills_app/{model}/">{plural}</a>' in html
    assert "技能s" not in html and "settingss" not in html


def test_admin_plurals_in_english(admin_client, bitmall):
    admin_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    html = admin_client.get("/admin/").content.decode()
    assert ">Console settings</a>" in html and ">Skills</a>" in html and "settingss" not in html


def test_api_docs_render_the_schema_with_local_assets(staff_client):
    response = staff_client.get("/api/v1/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in a for a in assets)
    assert all(a.startswith("/") for a in assets), assets  # no CDN
    assert "/api/v1/schema" in html
