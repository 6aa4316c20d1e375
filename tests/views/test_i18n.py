"""Chinese by default, English through Django's set_language view."""

from __future__ import annotations

from tests.views.html import parse


def nav(doc):
    return {n["data-nav"]: n.text().strip() for n in doc.select("data-nav")}


def test_default_language_is_chinese(staff_client, bitmall):
    doc = parse(staff_client.get("/skills/").content)
    assert doc.by_tag("html")[0]["lang"] == "zh-hans"
    assert nav(doc) == {
        "skills": "技能",
        "preview": "预览",
        "scenarios": "场景",
        "restrictions": "访问配置与阶段",
        "tools": "工具",
        "releases": "发布",
        "insights": "运行洞察",
        "fleet": "运行实例",
        "audit": "审计",
    }


def test_switching_to_english(staff_client, bitmall):
    response = staff_client.post("/i18n/setlang/", {"language": "en", "next": "/preview/?scenario=cancel-iphone"})
    assert response.status_code == 302 and response["Location"] == "/preview/?scenario=cancel-iphone"
    doc = parse(staff_client.get(response["Location"]).content)
    assert doc.by_tag("html")[0]["lang"] == "en"
    assert nav(doc)["skills"] == "Skills" and nav(doc)["restrictions"] == "Profiles & stages"
    assert (nav(doc)["insights"], nav(doc)["fleet"]) == ("Insights", "Fleet")
    assert "Round 1" in doc.one("data-round", "1").text()
    lang = {b["data-lang"]: b["aria-pressed"] for b in doc.select("data-lang")}
    assert lang == {"zh-hans": "false", "en": "true"}


def test_switching_back_to_chinese(staff_client, bitmall):
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    staff_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    assert nav(parse(staff_client.get("/skills/").content))["skills"] == "技能"


def test_service_errors_are_shown_in_chinese_and_still_name_the_value(staff_client, bitmall):
    doc = parse(
        staff_client.post(
            "/skills/new",
            {
                "skill_code": "x_skill",
                "name": "x",
                "description": "x",
                "content": "x",
                "tool_ids": ["load_skill"],
            },
        ).content
    )
    text = doc.one("data-errors-for", "tool_ids").text()
    assert "load_skill" in text and "内置工具" in text


def test_login_page_is_translated(client, db):
    doc = parse(client.get("/accounts/login/").content)
    assert "登录" in doc.by_tag("h1")[0].text()
