"""The skill history page, restoring a revision from it, the audit page, and what a viewer sees
(docs/roles.md)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from skills_app.catalog import services
from skills_app.models import Skill
from tests.conftest import user_with_role
from tests.views.html import parse


@pytest.fixture
def editor(db, django_user_model):
    return user_with_role(django_user_model, "erin", "editor")


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def viewer_client(client, django_user_model, db):
    client.force_login(user_with_role(django_user_model, "vera", "viewer"))
    return client


@pytest.fixture
def edited(bitmall, editor):
    """order_change: the demo's revision, then a rename with a longer manual, then disabled."""
    skill = Skill.objects.get(skill_code="order_change")
    first = skill.history.get()
    services.skill_update(
        skill=skill, user=editor, name="订单修改（二）", content=skill.content + "\n补充：改址前先确认。"
    )
    second = skill.history.latest("history_id")
    services.skill_set_enabled(skill=skill, enabled=False, user=editor)
    third = skill.history.latest("history_id")
    return {"first": first, "second": second, "third": third}


def fields(doc) -> dict[str, tuple[str, str]]:
    return {
        row["data-field"]: (row.one("data-before").text(), row.one("data-after").text())
        for row in doc.select("data-field", tag="tr")
    }


def test_the_history_page_lists_every_revision_newest_first_with_who_and_what(editor_client, edited):
    doc = parse(editor_client.get("/skills/order_change/history").content)
    rows = doc.select("data-revision", tag="tr")
    assert [int(r["data-revision"]) for r in rows] == [edited[k].history_id for k in ("third", "second", "first")]
    assert [r.one("data-who").text().strip() for r in rows] == ["erin", "erin", "manage.py"]
    assert [r.one("data-action")["data-action"] for r in rows] == ["changed", "changed", "created"]
    third_changed = [li.text() for li in rows[0].by_tag("li")]
    assert third_changed == ["已启用"]  # disabling: the enabled field only, no new version
    assert "data-current" in rows[0].attrs


def test_by_default_the_latest_revision_is_diffed_against_the_one_before(editor_client, edited):
    doc = parse(editor_client.get("/skills/order_change/history").content)
    assert (
        doc.one("data-revision-diff")["data-revision-diff"]
        == f"{edited['second'].history_id}-{edited['third'].history_id}"
    )
    assert fields(doc) == {"enabled": ("是", "否")}
    assert doc.select("data-line-diff") == []


def test_any_two_revisions_diff_field_by_field_with_the_manual_line_by_line(editor_client, edited):
    a, b = edited["first"].history_id, edited["third"].history_id
    doc = parse(editor_client.get(f"/skills/order_change/history?a={a}&b={b}").content)
    assert fields(doc) == {"name": ("订单修改", "订单修改（二）"), "enabled": ("是", "否"), "version": ("1", "2")}
    pre = doc.one("data-line-diff", "content")
    spans = [(s["class"], s.text()) for s in pre.by_tag("span")]
    assert spans[0][0] == "d-hunk" and spans[-1] == ("d-add", "+补充：改址前先确认。")
    assert [s for s in spans if s[0] == "d-del"] == []


def test_a_revision_of_another_skill_is_a_400_naming_the_problem(editor_client, edited):
    other = Skill.objects.get(skill_code="iot_bundle").history.get().history_id
    response = editor_client.get(f"/skills/order_change/history?a={other}&b={edited['third'].history_id}")
    assert response.status_code == 400
    assert parse(response.content).one("data-error").text() == (
        f"修订 {other} 不是 order_change 的修订：请在下面选择它的两个修订进行比较。"
    )
    editor_client.cookies["django_language"] = "en"
    english = editor_client.get(f"/skills/order_change/history?a={other}&b=x")
    assert parse(english.content).one("data-error").text() == (
        f"Revisions {other}, x are not revisions of order_change: choose two of its revisions below to compare."
    )


def test_restore_from_the_page_makes_a_new_version_with_the_old_fields(editor_client, edited):
    first = edited["first"]
    doc = parse(editor_client.get("/skills/order_change/history").content)
    assert doc.values("data-restore") == [str(edited["second"].history_id), str(first.history_id)]
    response = editor_client.post(f"/skills/order_change/history/{first.history_id}/restore", follow=True)
    skill = Skill.objects.get(skill_code="order_change")
    assert (skill.name, skill.content, skill.enabled, skill.version) == (first.name, first.content, True, 3)
    doc = parse(response.content)
    assert doc.one("data-revision-diff")  # lands on the diff of the restore
    assert fields(doc) == {"name": ("订单修改（二）", "订单修改"), "enabled": ("否", "是"), "version": ("2", "3")}
    newest = doc.select("data-revision", tag="tr")[0]
    assert newest.one("data-reason").text() == f"restored revision {first.history_id} (version 1)"
    assert f"已恢复修订 {first.history_id}：order_change 现在是版本 3。" in doc.one("role", "status").text()


def test_restoring_the_current_revision_is_refused_with_a_message(editor_client, edited):
    third = edited["third"].history_id
    response = editor_client.post(f"/skills/order_change/history/{third}/restore", follow=True)
    text = parse(response.content).one("role", "status").text()
    assert f"未恢复：技能 'order_change' 的内容已与修订 {third} 相同。" in text
    assert Skill.objects.get(skill_code="order_change").history.count() == 3


def test_a_viewer_reads_the_history_but_has_no_restore_button_and_a_restore_is_refused(viewer_client, edited):
    doc = parse(viewer_client.get("/skills/order_change/history").content)
    assert len(doc.select("data-revision", tag="tr")) == 3 and doc.select("data-restore") == []
    response = viewer_client.post(f"/skills/order_change/history/{edited['first'].history_id}/restore")
    assert response.status_code == 403
    assert Skill.objects.get(skill_code="order_change").history.count() == 3


# ---- audit -----------------------------------------------------------------------------------
def entries(doc) -> list[str]:
    return doc.values("data-entry")


def test_the_audit_page_lists_every_write_newest_first(viewer_client, edited):
    doc = parse(viewer_client.get("/audit/").content)
    rows = doc.select("data-entry", tag="tr")
    assert entries(doc)[:2] == ["skill:order_change", "skill:order_change"]
    assert rows[0].one("data-who").text().strip() == "erin"
    change = rows[0].one("data-change", "enabled")
    assert " ".join(change.text().split()) == "已启用: 是 → 否"
    # the demo load (29 nodes, 14 tools, 5 skills, 1 scenario) and erin's two changes; 50 a page
    assert (doc.one("data-audit-count")["data-audit-count"], len(rows)) == ("51", 50)


def test_the_audit_page_filters_by_person_record_and_date(viewer_client, edited, editor):
    doc = parse(viewer_client.get("/audit/", {"user": editor.pk}).content)
    assert entries(doc) == ["skill:order_change", "skill:order_change"]
    doc = parse(viewer_client.get("/audit/", {"kind": "scenario"}).content)
    assert entries(doc) == ["scenario:cancel-iphone"]
    doc = parse(viewer_client.get("/audit/", {"record": "iot_bundle"}).content)
    assert entries(doc) == ["skill:iot_bundle"]
    tomorrow = (timezone.localdate() + dt.timedelta(days=1)).isoformat()
    doc = parse(viewer_client.get("/audit/", {"since": tomorrow}).content)
    assert entries(doc) == [] and doc.one("data-audit-count")["data-audit-count"] == "0"


def test_an_end_date_before_the_start_date_is_refused_next_to_its_field(viewer_client, edited):
    response = viewer_client.get("/audit/", {"since": "2026-12-02", "until": "2026-12-01"})
    assert response.status_code == 400
    assert parse(response.content).one("data-field-error", "until").text() == "结束日期早于开始日期。"


def test_the_audit_page_is_paginated(viewer_client, bitmall, editor):
    skill = Skill.objects.get(skill_code="order_change")
    for i in range(55):
        services.skill_update(skill=skill, sort_order=100 + i, user=editor)
    doc = parse(viewer_client.get("/audit/", {"user": editor.pk}).content)
    assert len(entries(doc)) == 50 and doc.one("data-audit-count")["data-audit-count"] == "55"
    nxt = doc.one("data-page-next")["href"]
    assert nxt == f"?user={editor.pk}&page=2"
    doc = parse(viewer_client.get("/audit/" + nxt).content)
    assert len(entries(doc)) == 5


# ---- write controls are hidden from those who may not use them ---------------------------------
WRITE_PAGES = [
    "/skills/",
    "/skills/order_change/",
    "/skills/order_change/history",
    "/scenarios/",
    "/restrictions/",
    "/tools/",
    "/releases/",
    "/releases/1/",
    "/publish/",
    "/preview/?scenario=cancel-iphone",
    "/mcp/",
    "/tools/mcp/query_order/",
    "/skills/import",
]


def write_controls(doc) -> list[str]:
    """Forms that POST (other than log out and the language switch) and links to write pages."""
    found = []
    for form in doc.by_tag("form"):
        action = form.get("action") or ""
        # running a preview (or downloading its result) is a read (a viewer may); logging out and
        # the language switch too
        if form.get("method", "get").lower() == "post" and action not in (
            "/accounts/logout/",
            "/i18n/setlang/",
            "/preview/",
            "/preview/result.json",
        ):
            found.append(f"form {action or '(this page)'}")
    for a in doc.by_tag("a"):
        href = a.get("href") or ""
        if href.endswith(("/new", "/edit", "/api-keys/")) or "/admin/" in href:
            found.append(f"link {href}")
    return found


@pytest.fixture
def released(bitmall):
    from skills_app.releases.services import COMMAND_LINE, release_publish

    release_publish(user=COMMAND_LINE, note="first")
    services.skill_update(skill=Skill.objects.get(skill_code="order_change"), name="改名")
    return bitmall


@pytest.mark.parametrize("url", WRITE_PAGES)
def test_a_viewer_sees_no_write_control(viewer_client, released, url):
    doc = parse(viewer_client.get(url).content)
    assert write_controls(doc) == [], url


def test_an_editor_sees_draft_controls_but_no_publishing_ones(editor_client, released):
    assert "link /skills/new" in write_controls(parse(editor_client.get("/skills/").content))
    assert write_controls(parse(editor_client.get("/releases/").content)) == []
    publish = parse(editor_client.get("/publish/").content)
    assert write_controls(publish) == [] and publish.one("data-publisher-only")


def test_a_publisher_sees_the_publishing_controls(staff_client, released):
    controls = write_controls(parse(staff_client.get("/releases/").content))
    assert "form /releases/labels" in controls and "link /api-keys/" in controls
    assert parse(staff_client.get("/publish/").content).one("data-publish-form")


def test_an_editor_save_keeps_a_disable_made_meanwhile(editor_client, bitmall, django_user_model):
    """Disabling makes no new version, so the editor's form (opened before) must not re-enable."""
    doc = parse(editor_client.get("/skills/order_change/edit").content)
    hidden = {i["name"]: i.get("value") for i in doc.by_tag("input") if i.get("type") == "hidden"}
    assert (hidden["base_version"], hidden["base_enabled"], hidden["base_sort_order"]) == ("1", "1", "20")
    skill = Skill.objects.get(skill_code="order_change")
    services.skill_set_enabled(skill=skill, enabled=False)  # someone else, meanwhile
    response = editor_client.post(
        "/skills/order_change/edit",
        {
            "name": "订单修改（新名）",
            "description": skill.description,
            "content": skill.content,
            "tool_ids": skill.tool_ids,
            "sort_order": "20",
            "enabled": "on",
            "base_version": "1",
            "base_enabled": "1",
            "base_sort_order": "20",
        },
    )
    assert response.status_code == 302
    saved = Skill.objects.get(skill_code="order_change")
    assert (saved.name, saved.enabled, saved.version) == ("订单修改（新名）", False, 2)


# ---- a delete and a restore tell the truth (issue 29 item 2) ---------------------------------
def test_a_delete_and_a_restore_read_as_such_in_chinese_with_no_version_bump_and_no_english(
    client, django_user_model, bitmall, editor
):
    """A soft delete showed as "changed", bumped v1 → v2 and listed "deleted at" in English on the
    Chinese page. Now: 已删除 then 已恢复, v1 throughout, the delete not listed again as a change."""
    skill = Skill.objects.get(skill_code="order_change")
    services.skill_delete(skill=skill, user=editor)
    services.skill_restore(skill=skill, user=editor)
    client.force_login(user_with_role(django_user_model, "vera", "viewer"))
    client.cookies["django_language"] = "zh-hans"
    doc = parse(client.get("/audit/", {"record": "order_change", "kind": "skill"}).content)
    rows = doc.select("data-entry")
    assert [r.one("data-action")["data-action"] for r in rows] == ["restored", "deleted", "created"]
    assert [r.one("data-action").text() for r in rows] == ["已恢复", "已删除", "新建"]
    assert [r.select("data-change") for r in rows[:2]] == [[], []]
    assert "deleted at" not in doc.text() and "restored" not in doc.one("data-audit").text()
    page = parse(client.get("/skills/order_change/history").content)
    revisions = page.select("data-revision")
    assert [r.one("data-action").text() for r in revisions] == ["已恢复", "已删除", "新建"]
    assert [r.select("class", "num")[0].text() for r in revisions] == ["v1", "v1", "v1"]
    assert [[c.text() for c in r.select("class", "chip chip-muted")] for r in revisions[:2]] == [[], []]
    a, b = revisions[2]["data-revision"], revisions[1]["data-revision"]
    diff = parse(client.get("/skills/order_change/history", {"a": a, "b": b}).content)
    assert [(r["data-field"], r.by_tag("td")[0].text()) for r in diff.select("data-field")] == [
        ("deleted_at", "删除时间")
    ]
