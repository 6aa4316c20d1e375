"""Skill pages: list, create/edit through the services, live preview that never saves."""

from __future__ import annotations

import pytest

from skills_app.catalog import services
from skills_app.models import IntentNode, Skill
from tests.views.html import parse

MANUAL = "# 取消订单\n\n先用 `query_order` 查订单，再 `cancel_order`。\n"


def new_skill_data(**overrides):
    data = {
        "skill_code": "refund_fast",
        "name": "极速退款",
        "description": "用户要求极速退款时加载。",
        "content": MANUAL,
        "tool_ids": ["cancel_order"],
        "sort_order": "60",
        "enabled": "on",
    }
    data.update(overrides)
    return data


# ---- list -----------------------------------------------------------------------------------
def test_list_shows_live_skills_with_their_gated_tools_and_the_counts(staff_client, bitmall):
    doc = parse(staff_client.get("/skills/").content)
    assert doc.values("data-skill") == [
        "after_sale_apply",
        "order_change",
        "fault_diagnosis",
        "order_checkout",
        "iot_bundle",
    ]
    order_change = doc.one("data-skill", "order_change")
    assert order_change.values("data-gated-tool") == ["cancel_order", "change_address"]
    stats = {n["data-stat"]: n.by_tag("div")[0].text().strip() for n in doc.select("data-stat")}
    assert stats["registered"] == "17" and stats["gated"] == "6" and stats["free"] == "8"
    assert doc.select("data-consequence")


def test_root_url_is_the_skill_list(staff_client, bitmall):
    assert parse(staff_client.get("/").content).values("data-skill")[:1] == ["after_sale_apply"]


def test_list_query_count_does_not_grow_with_the_skills(staff_client, bitmall, django_assert_max_num_queries):
    # the cap: session, user, the role's permissions, catalog, lints, MCP availability…; the point is the equality below
    with django_assert_max_num_queries(14) as before:
        staff_client.get("/skills/")
    for i in range(12):
        services.skill_create(
            skill_code=f"extra_{i}",
            name=f"extra {i}",
            description="extra skill",
            content="body",
            tool_ids=["query_cart"],
        )
    services.skill_delete(skill=Skill.objects.get(skill_code="extra_0"))
    with django_assert_max_num_queries(14) as after:
        response = staff_client.get("/skills/")
    assert len(after.captured_queries) == len(before.captured_queries)
    doc = parse(response.content)
    assert len(doc.select("data-skill")) == 16 and doc.values("data-deleted-skill") == ["extra_0"]


def test_server_side_filter(staff_client, bitmall):
    doc = parse(staff_client.get("/skills/", {"q": "cancel_order"}).content)
    assert doc.values("data-skill") == ["order_change"]


def test_disable_releases_the_tools_and_keeps_the_version(staff_client, bitmall):
    response = staff_client.post("/skills/order_change/enabled", {"enabled": "0"}, follow=True)
    skill = Skill.objects.get(skill_code="order_change")
    assert (skill.enabled, skill.version) == (False, 1)  # the manual did not change (docs/roles.md)
    doc = parse(response.content)
    assert doc.one("data-skill", "order_change")["data-enabled"] == "0"
    assert doc.one("data-stat", "gated").by_tag("div")[0].text().strip() == "4"
    rounds = parse(staff_client.get("/preview/", {"scenario": "cancel-iphone"}).content).select(
        "data-round", tag="section"
    )
    assert rounds[0]["data-count"] == "13"  # cancel_order and change_address released everywhere


def test_enable_again(staff_client, bitmall):
    services.skill_set_enabled(skill=Skill.objects.get(skill_code="order_change"), enabled=False)
    staff_client.post("/skills/order_change/enabled", {"enabled": "1"})
    assert Skill.objects.get(skill_code="order_change").enabled is True


def test_toggle_needs_post(staff_client, bitmall):
    assert staff_client.get("/skills/order_change/enabled").status_code == 405


def test_delete_then_restore(staff_client, bitmall):
    doc = parse(staff_client.post("/skills/order_change/delete", follow=True).content)
    assert "order_change" not in doc.values("data-skill")
    assert doc.values("data-deleted-skill") == ["order_change"]
    deleted = Skill.objects.get(skill_code="order_change")
    assert deleted.deleted_at is not None
    doc = parse(staff_client.post(f"/skills/deleted/{deleted.pk}/restore", follow=True).content)
    assert "order_change" in doc.values("data-skill")
    assert Skill.objects.live().filter(skill_code="order_change").exists()


def test_restore_is_refused_when_the_code_is_taken(staff_client, bitmall):
    old = Skill.objects.get(skill_code="iot_bundle")
    services.skill_delete(skill=old)
    services.skill_create(skill_code="iot_bundle", name="new", description="new one", content="x")
    response = staff_client.post(f"/skills/deleted/{old.pk}/restore", follow=True)
    assert "iot_bundle" in response.content.decode()
    old.refresh_from_db()
    assert old.deleted_at is not None


# ---- create ---------------------------------------------------------------------------------
def test_create_saves_through_the_service(staff_client, bitmall):
    response = staff_client.post("/skills/new", new_skill_data())
    assert response.status_code == 302 and response["Location"] == "/skills/refund_fast/"
    skill = Skill.objects.get(skill_code="refund_fast")
    assert (skill.tool_ids, skill.version, skill.sort_order, skill.enabled) == (["cancel_order"], 1, 60, True)


@pytest.mark.parametrize(
    "tool_id, words",
    [
        ("load_skill", "内置工具"),
        ("no_such_tool", "MCP"),
    ],
)
def test_create_refuses_a_bad_tool_id_naming_it_and_saves_nothing(staff_client, bitmall, tool_id, words):
    count = Skill.objects.count()
    response = staff_client.post("/skills/new", new_skill_data(tool_ids=["cancel_order", tool_id]))
    assert response.status_code == 200
    doc = parse(response.content)
    errors = doc.one("data-errors-for", "tool_ids").text()
    assert tool_id in errors and words in errors
    assert Skill.objects.count() == count
    option = doc.one("data-tool-option", tool_id)  # kept visible, still ticked
    assert "is-unregistered" in option["class"] and option.by_tag("input")[0].get("checked") is not None


def test_create_refuses_a_disabled_nodes_tool(staff_client, bitmall):
    IntentNode.objects.filter(mcp_tool_id="current_date").update(enabled=False)
    count = Skill.objects.count()
    doc = parse(staff_client.post("/skills/new", new_skill_data(tool_ids=["current_date"])).content)
    errors = doc.one("data-errors-for", "tool_ids").text()
    assert "current_date" in errors
    assert Skill.objects.count() == count
    assert "is-unregistered" in doc.one("data-tool-option", "current_date")["class"]


def test_create_refuses_a_taken_code_and_a_bad_code(staff_client, bitmall):
    count = Skill.objects.count()
    doc = parse(staff_client.post("/skills/new", new_skill_data(skill_code="order_change")).content)
    assert "order_change" in doc.one("data-errors-for", "skill_code").text()
    doc = parse(staff_client.post("/skills/new", new_skill_data(skill_code="Bad Code")).content)
    assert "Bad Code" in doc.one("data-errors-for", "skill_code").text()
    assert Skill.objects.count() == count


def test_new_skill_form_lists_registered_tools_in_registration_order(staff_client, bitmall):
    doc = parse(staff_client.get("/skills/new").content)
    assert doc.values("data-tool-option") == [
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


# ---- edit -----------------------------------------------------------------------------------
def edit_data(skill, **overrides):
    data = {
        "name": skill.name,
        "description": skill.description,
        "content": skill.content,
        "tool_ids": list(skill.tool_ids),
        "sort_order": str(skill.sort_order),
        "enabled": "on",
        "base_version": str(skill.version),
    }
    data.update(overrides)
    return data


@pytest.mark.parametrize("hidden", [{"base_version": None}, {"base_version": "abc"}, {"base_sort_order": "1.5"}])
def test_a_missing_or_tampered_hidden_field_is_said_at_the_top_and_saves_nothing(staff_client, bitmall, hidden):
    """The hidden fields say what the page showed (the version edited, the flags); without them, or
    with a value no page writes, the save is refused with the one sentence that says what to do —
    never a summary linking to a field the page does not show. The text typed is kept."""
    skill = Skill.objects.get(skill_code="order_change")
    data = {k: v for k, v in {**edit_data(skill, content="改过的手册\n"), **hidden}.items() if v is not None}
    response = staff_client.post("/skills/order_change/edit", data)
    assert response.status_code == 200
    doc = parse(response.content)
    assert doc.one("data-errors-for", "__all__").text() == (
        "表单没有说明你编辑的是哪个版本，因此什么都没有保存；请重新加载页面后再编辑。"
    )
    assert doc.select("data-error-link") == []
    assert doc.one("name", "content", tag="textarea").text().strip() == "改过的手册"
    skill.refresh_from_db()
    assert skill.version == 1
    if hidden.get("base_version", "") is not None:  # the live preview says the same of a tampered value
        problems = parse(staff_client.post("/skills/order_change/preview", data).content).one("data-preview-problems")
        assert [li.text() for li in problems.by_tag("li")] == [
            "表单没有说明你编辑的是哪个版本，因此什么都没有保存；请重新加载页面后再编辑。"
        ]


def test_edit_bumps_the_version_and_keeps_the_code(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    response = staff_client.post(
        "/skills/order_change/edit", edit_data(skill, content=skill.content + "\n补充一条。\n", skill_code="hacked")
    )
    assert response.status_code == 302
    skill.refresh_from_db()
    assert (skill.skill_code, skill.version) == ("order_change", 2)
    assert skill.content.endswith("补充一条。\n")
    assert not Skill.objects.filter(skill_code="hacked").exists()


def test_edit_without_change_keeps_the_version(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    staff_client.post("/skills/order_change/edit", edit_data(skill))
    skill.refresh_from_db()
    assert skill.version == 1


def test_edit_refuses_a_builtin_and_saves_nothing(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    doc = parse(
        staff_client.post(
            "/skills/order_change/edit", edit_data(skill, tool_ids=["cancel_order", "flush_memory"])
        ).content
    )
    assert "flush_memory" in doc.one("data-errors-for", "tool_ids").text()
    skill.refresh_from_db()
    assert (skill.version, skill.tool_ids) == (1, ["cancel_order", "change_address"])


def test_edit_from_a_stale_page_is_refused(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    stale = edit_data(skill, content="mine")
    services.skill_update(skill=skill, content="theirs")
    doc = parse(staff_client.post("/skills/order_change/edit", stale).content)
    assert doc.select("data-errors-for", "__all__")
    skill.refresh_from_db()
    assert (skill.content, skill.version) == ("theirs", 2)


def test_edit_page_shows_the_code_read_only(staff_client, bitmall):
    doc = parse(staff_client.get("/skills/order_change/edit").content)
    code = [n for n in doc.by_tag("input") if n.get("name") == "skill_code"][0]
    assert code.get("disabled") is not None and code["value"] == "order_change"


def test_unknown_skill_is_404(staff_client, bitmall):
    assert staff_client.get("/skills/nope/edit").status_code == 404
    assert staff_client.get("/skills/nope/").status_code == 404


# ---- live preview ---------------------------------------------------------------------------
def test_live_preview_renders_safe_markdown_and_what_the_model_gets_without_saving(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    before = (Skill.objects.count(), skill.version, skill.content)
    data = edit_data(
        skill,
        content="# 新手册\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert(1)</script>",
        tool_ids=["cancel_order"],
    )
    response = staff_client.post("/skills/order_change/preview", data, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    doc = parse(response.content)
    manual = doc.one("data-manual-preview")
    assert manual.by_tag("h1")[0].text() == "新手册" and manual.by_tag("table")
    assert not doc.by_tag("script")  # raw HTML is shown as text, never run (render_markdown docstring)
    assert "<script>alert(1)</script>" in manual.text()
    effect = doc.one("data-effect")
    assert (effect["data-effect-without"], effect["data-effect-with"]) == ("12", "13")  # change_address freed
    assert effect.values("data-releases") == ["cancel_order"]
    skill.refresh_from_db()
    assert (Skill.objects.count(), skill.version, skill.content) == before


def test_live_preview_of_a_new_skill_shows_what_its_manual_releases(staff_client, bitmall):
    data = new_skill_data(skill_code="", tool_ids=["query_cart", "load_skill"])
    doc = parse(staff_client.post("/skills/new-preview", data).content)
    effect = doc.one("data-effect")
    assert (effect["data-effect-without"], effect["data-effect-with"]) == ("10", "11")
    assert effect.values("data-releases") == ["query_cart"]
    problems = doc.one("data-preview-problems").text()
    assert "load_skill" in problems
    assert not Skill.objects.filter(name="极速退款").exists()


def test_live_preview_says_when_a_mentioned_tool_stays_masked(staff_client, bitmall):
    data = new_skill_data(content="先调用 create_order 下单。", tool_ids=[])
    doc = parse(staff_client.post("/skills/new-preview", data).content)
    assert "create_order" in doc.one("data-mentioned-masked").text()


def test_live_preview_needs_post(staff_client, bitmall):
    assert staff_client.get("/skills/order_change/preview").status_code == 405


# ---- detail ---------------------------------------------------------------------------------
def test_detail_renders_the_manual_as_html(staff_client, bitmall):
    services.skill_update(
        skill=Skill.objects.get(skill_code="iot_bundle"),
        content="## 步骤\n1. 先查\n2. 再办\n\n<img src=x onerror=alert(1)>",
    )
    doc = parse(staff_client.get("/skills/iot_bundle/").content)
    manual = doc.one("data-manual")
    assert manual.by_tag("h2")[0].text() == "步骤" and len(manual.by_tag("li")) == 2
    assert all("onerror" not in img.attrs for img in manual.by_tag("img"))
    assert doc.one("data-version")["data-version"] == "2"


def test_detail_shows_what_loading_the_manual_releases(staff_client, bitmall):
    doc = parse(staff_client.get("/skills/order_change/").content)
    effect = doc.one("data-effect")
    assert (effect["data-effect-without"], effect["data-effect-with"]) == ("11", "13")
    assert effect.values("data-releases") == ["cancel_order", "change_address"]


def test_edit_page_keeps_a_stored_tool_of_a_disabled_node_visible_as_an_error(staff_client, bitmall):
    IntentNode.objects.filter(mcp_tool_id="change_address").update(enabled=False)
    doc = parse(staff_client.get("/skills/order_change/edit").content)
    option = doc.one("data-tool-option", "change_address")
    assert "is-unregistered" in option["class"] and option.by_tag("input")[0].get("checked") is not None
    assert doc.values("data-tool-option")[-1] == "change_address"  # after the registered tools
    skill = Skill.objects.get(skill_code="order_change")
    doc = parse(staff_client.post("/skills/order_change/edit", edit_data(skill)).content)
    assert "change_address" in doc.one("data-errors-for", "tool_ids").text()


# ---- stale save: keep the text, overwrite knowingly -----------------------------------------
def test_a_stale_save_keeps_the_typed_text_and_offers_to_overwrite(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    mine = skill.content + "\n我的补充。\n"
    stale = edit_data(skill, content=mine, name="我的名字")
    services.skill_update(skill=skill, content=skill.content.replace("订单", "订单号", 1))  # someone else: v2
    doc = parse(staff_client.post("/skills/order_change/edit", stale).content)
    summary = doc.one("data-error-summary")
    assert summary["role"] == "alert"
    message = summary.one("data-errors-for", "__all__").text()
    assert "版本 2" in message and "覆盖" in message
    assert doc.one("data-field", "content").by_tag("textarea")[0].text().lstrip("\n") == mine
    assert [n for n in doc.by_tag("input") if n.get("name") == "name"][0]["value"] == "我的名字"
    base = [n for n in doc.by_tag("input") if n.get("name") == "base_version"][0]
    assert base["value"] == "2"  # saving again overwrites version 2, knowingly
    box = doc.one("data-stale")
    assert box["data-stale-version"] == "2"
    assert (
        box.one("data-stale-link")["href"] == "/skills/order_change/"
        and box.one("data-stale-link")["target"] == "_blank"
    )
    diff = box.one("data-stale-diff")
    added = [n.text() for n in diff.by_tag("span") if n["class"] == "d-add"]
    removed = [n.text() for n in diff.by_tag("span") if n["class"] == "d-del"]
    assert "+我的补充。" in added and removed and all(r.startswith("-") for r in removed)
    assert "名称" in box.one("data-stale-fields").text()
    skill.refresh_from_db()
    assert skill.version == 2 and "我的补充" not in skill.content

    again = {**stale, "base_version": base["value"]}
    response = staff_client.post("/skills/order_change/edit", again)
    assert response.status_code == 302
    skill.refresh_from_db()
    assert (skill.version, skill.content, skill.name) == (3, mine, "我的名字")


def test_a_stale_save_in_english_says_what_happens_next(staff_client, bitmall):
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    skill = Skill.objects.get(skill_code="order_change")
    stale = edit_data(skill, content="mine")
    services.skill_update(skill=skill, content="theirs")
    doc = parse(staff_client.post("/skills/order_change/edit", stale).content)
    message = doc.one("data-errors-for", "__all__").text()
    assert "save again to overwrite version 2" in message and "new tab" in message
    assert doc.one("data-stale").select("data-stale-diff")


def test_a_stale_diff_shows_a_removed_markdown_rule_as_a_deletion():
    """In the stale-save diff only the two file headers are ``head``: a manual line ``---``
    removed (diff line ``----``) is a deletion, a line ``++x`` added an addition."""
    from skills_app.catalog.forms import StaleEdit

    saved = Skill(
        skill_code="order_change",
        name="n",
        description="d",
        content="# a\n---\nbody",
        tool_ids=[],
        sort_order=0,
        enabled=True,
        version=2,
    )
    typed = {
        "content": "# a\n++x\nbody",
        "name": "n",
        "description": "d",
        "tool_ids": [],
        "sort_order": 0,
        "enabled": True,
    }
    diff = StaleEdit.build(saved, base=1, typed=typed).diff
    assert [kind for kind, _ in diff] == ["head", "head", "hunk", "ctx", "del", "add", "ctx"]
    assert [line for kind, line in diff if kind in ("del", "add")] == ["----", "+++x"]


def test_a_stale_save_over_a_deleted_skill_says_so(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    stale = edit_data(skill, content="mine")
    services.skill_delete(skill=skill)
    response = staff_client.post("/skills/order_change/edit", stale)
    assert response.status_code == 404  # the page is gone: no live skill to edit


# ---- focus after actions and refused saves ---------------------------------------------------
def test_toggle_returns_to_the_rows_switch(staff_client, bitmall):
    response = staff_client.post("/skills/order_change/enabled", {"enabled": "0"})
    assert response["Location"] == "/skills/#skill-order_change"
    row = parse(staff_client.get("/skills/").content).one("data-skill", "order_change")
    switch = row.one("data-row-focus")
    assert (switch["id"], switch["role"]) == ("skill-order_change", "switch")


def test_delete_returns_to_the_deleted_row_and_restore_to_the_live_row(staff_client, bitmall):
    pk = Skill.objects.get(skill_code="order_change").pk
    response = staff_client.post("/skills/order_change/delete")
    assert response["Location"] == f"/skills/#deleted-skill-{pk}"
    row = parse(staff_client.get("/skills/").content).one("data-deleted-skill", "order_change")
    restore = row.one("data-row-focus")
    assert (restore.tag, restore["id"]) == ("button", f"deleted-skill-{pk}")
    response = staff_client.post(f"/skills/deleted/{pk}/restore")
    assert response["Location"] == "/skills/#skill-order_change"


def test_a_refused_save_marks_the_field_and_summarizes_with_a_link(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    doc = parse(staff_client.post("/skills/order_change/edit", edit_data(skill, name="", description="")).content)
    summary = doc.one("data-error-summary")
    assert summary["role"] == "alert" and summary["tabindex"] == "-1"
    assert [a["href"] for a in summary.select("data-error-link")] == ["#id_name", "#id_description"]
    name = [n for n in doc.by_tag("input") if n.get("name") == "name"][0]
    assert name["aria-invalid"] == "true" and "id_name_error" in name["aria-describedby"]
    assert doc.one("data-errors-for", "name")["id"] == "id_name_error"


# ---- "with your unsaved changes" only once something changed ---------------------------------
def test_the_effect_label_is_neutral_until_the_form_differs(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    doc = parse(staff_client.get("/skills/order_change/edit").content)
    assert doc.one("data-effect-state")["data-effect-state"] == "unchanged"
    same = edit_data(skill, content=skill.content.replace("\n", "\r\n"))  # what a browser sends
    doc = parse(staff_client.post("/skills/order_change/preview", same).content)
    assert doc.one("data-effect-state")["data-effect-state"] == "unchanged"
    doc = parse(staff_client.post("/skills/order_change/preview", edit_data(skill, content="改了")).content)
    assert doc.one("data-effect-state")["data-effect-state"] == "modified"
    assert "未保存" in doc.one("data-effect-state").text()


# ---- manual rendering -------------------------------------------------------------------------
def render(content):
    from skills_app.templatetags.console import render_markdown

    return parse(str(render_markdown(content)))


def test_images_render_as_links_never_as_img():
    doc = render("看图 ![示意图](https://t.example/p.gif) 结束")
    assert not doc.by_tag("img")
    link = doc.by_tag("a")[0]
    assert (link["href"], link.text()) == ("https://t.example/p.gif", "示意图")
    assert "结束" in doc.text()


def test_an_unclosed_style_cannot_hide_the_rest_of_the_manual():
    doc = render("# 手册\n\n<style>\n\nbody{display:none}\n\n## 第二节\n\n继续。")
    assert not doc.by_tag("style")
    assert [h.text() for h in doc.by_tag("h2")] == ["第二节"] and "继续。" in doc.text()
    assert "<style>" in doc.text()  # raw HTML is shown as text


def test_raw_html_is_text_and_javascript_links_lose_their_href():
    doc = render("a <b onclick=x()>b</b> [x](javascript:alert(1)) [ok](https://example.com)")
    assert not doc.by_tag("b") and "<b onclick=x()>" in doc.text()
    links = doc.by_tag("a")
    assert [(a.get("href"), a.text()) for a in links] == [("https://example.com", "ok")]
    assert "[x](javascript:alert(1))" in doc.text()  # not a link: shown as the text that was typed


def test_a_run_of_brackets_renders_and_keeps_the_text():
    # Python-Markdown took 16 s on this (quadratic); the renderer must stay fast on any input
    doc = render("[" * 10000 + "(" * 5000)
    assert doc.text().count("[") == 10000


def test_pages_carry_an_inline_favicon(staff_client, bitmall):
    icons = [n for n in parse(staff_client.get("/skills/").content).by_tag("link") if n.get("rel") == "icon"]
    assert len(icons) == 1 and icons[0]["href"].startswith("data:image/svg+xml,")


def test_a_nul_in_a_skill_code_is_named_a_nul_not_an_empty_string(staff_client, bitmall):
    """Found by a break-in: Django's own Chinese for "Null characters are not allowed." reads
    "empty strings are not allowed" (不允许是用空字符串), beside a code that is not empty."""
    count = Skill.objects.count()
    response = staff_client.post("/skills/new", new_skill_data(skill_code="refund\x00fast"))
    assert response.status_code == 200
    assert parse(response.content).one("data-errors-for", "skill_code").text() == "不能包含 NUL 字符（\\0）。"
    assert "空字符串" not in response.content.decode()
    assert Skill.objects.count() == count


def test_create_refuses_a_code_that_is_a_tools_name_naming_it_in_chinese_and_english(staff_client, bitmall):
    """Issue 29 item 6: ``query_order`` was accepted as a skill code; the editor refuses it next to
    the code, naming the tool, in the page's language."""
    count = Skill.objects.count()
    doc = parse(staff_client.post("/skills/new", new_skill_data(skill_code="query_order")).content)
    assert doc.one("data-errors-for", "skill_code").text() == (
        "技能代码 'query_order' 是 MCP 工具 'query_order' 的名称；模型会同时看到同名的技能和工具。请换一个代码。"
    )
    staff_client.cookies["django_language"] = "en"
    doc = parse(staff_client.post("/skills/new", new_skill_data(skill_code="query_order")).content)
    assert doc.one("data-errors-for", "skill_code").text() == (
        "skill code 'query_order' is the name of the MCP tool 'query_order'; the model would see a skill and a "
        "tool of one name. Choose another code."
    )
    assert Skill.objects.count() == count
