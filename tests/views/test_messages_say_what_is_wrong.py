"""Issue 29 item 5: messages that say what is wrong, in the page's language — a refused label
name states the rule, a diff (or a page) of a release that does not exist names it, an upload
without a skill file says so, the console's own release notes are translated, and the delete
confirmation names the tools it releases (or says why it releases none). The API's one language:
tests/api/test_errors.py."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from skills_app.catalog import services
from skills_app.core.message_catalog import AUTO_RELEASE_NOTES, release_note_text
from skills_app.io.services import IGNORED, ImportEntry, ImportReport
from skills_app.models import LabelMove, ReleaseLabel, Skill
from skills_app.releases.services import COMMAND_LINE, release_publish, release_rollback
from tests.views.html import parse

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"


@pytest.fixture
def published(bitmall):
    return release_publish(user=COMMAND_LINE, note="demo")


def flashed(response) -> list[str]:
    return [" ".join(li.text().split()) for li in parse(response.content).select("class", "error")]


# --- a refused label name states the rule ------------------------------------------------------


def test_a_refused_label_name_states_the_rule_in_chinese_and_english(staff_client, published):
    response = staff_client.post("/releases/labels", {"label": "Prod!", "release": "1"}, follow=True)
    assert (
        "标签 Prod! 未移动：标签“Prod!”必须以小写字母开头，只能使用小写字母、数字和单个“_”或“-”分隔符（与技能代码相同）。"
        in flashed(response)
    )
    assert "输入一个有效的值" not in response.content.decode()  # Django's "Enter a valid value."
    staff_client.cookies["django_language"] = "en"
    response = staff_client.post("/releases/labels", {"label": "canary--2", "release": "1"}, follow=True)
    assert (
        "Label canary--2 not moved: label 'canary--2' must start with a lowercase letter and use only lowercase "
        "letters, digits and single '_' or '-' separators (like a skill code)." in flashed(response)
    )
    assert "Enter a valid value." not in response.content.decode()
    assert not LabelMove.objects.exists() and not ReleaseLabel.objects.exists()  # fail closed


def test_the_label_field_states_the_rule_before_the_form_is_sent(staff_client, published):
    field = parse(staff_client.get("/releases/").content).one("data-label-rule")
    assert field["title"] == "小写字母开头，之后只能是小写字母、数字和单个 _ 或 - 分隔符（与技能代码相同）。"
    staff_client.cookies["django_language"] = "en"
    field = parse(staff_client.get("/releases/").content).one("data-label-rule")
    assert field["title"] == (
        "A lowercase letter first, then lowercase letters, digits and single _ or - separators (like a skill code)."
    )


# --- a release that does not exist is named ------------------------------------------------------


def test_a_diff_with_a_release_that_does_not_exist_names_it(staff_client, published):
    response = staff_client.get("/releases/diff", {"from": "1", "to": "999"})
    assert response.status_code == 404
    doc = parse(response.content)
    assert doc.one("role", "alert").text() == "发布 999 不存在；请从列表中选择发布。"
    assert doc.select("name", "from", tag="select")  # the form to choose again is on the page
    assert "renamed" not in response.content.decode() and "重命名" not in response.content.decode()
    staff_client.cookies["django_language"] = "en"
    response = staff_client.get("/releases/diff", {"from": "1", "to": "999"})
    assert parse(response.content).one("role", "alert").text() == (
        "Release 999 does not exist; choose releases from the list."
    )
    doc = parse(staff_client.get("/releases/diff", {"from": "998", "to": "999"}).content)
    assert doc.one("role", "alert").text() == "Releases 998, 999 do not exist; choose releases from the list."


def test_the_page_of_a_release_that_does_not_exist_names_it(staff_client, published):
    response = staff_client.get("/releases/999/")
    assert response.status_code == 404
    assert parse(response.content).one("data-not-found-reason").text() == (
        "发布 999 不存在：所有发布都列在“发布”页面上。"
    )
    assert "重命名" not in response.content.decode()
    staff_client.cookies["django_language"] = "en"
    response = staff_client.get("/releases/999/")
    assert parse(response.content).one("data-not-found-reason").text() == (
        "Release 999 does not exist: the releases are listed on the Releases page."
    )
    # any other missing page keeps the general sentence
    other = parse(staff_client.get("/skills/nothing-here/").content).one("data-not-found-reason").text()
    assert "renamed" in other


# --- an upload without a skill file says so ----------------------------------------------------


def test_an_upload_without_a_skill_file_says_no_skill_file_was_found(staff_client, bitmall):
    files = [SimpleUploadedFile("logo.png", PNG, content_type="image/png")]
    doc = parse(staff_client.post("/skills/import", {"files": files, "action": "check"}).content)
    assert doc.one("data-no-skill-file").text() == (
        "没有可导入的内容：未找到技能文件。技能文件是 *.properties 声明文件或 SKILL.md；上面的文件都不是。"
    )
    assert "已经" not in doc.one("data-import-nothing").text()
    staff_client.cookies["django_language"] = "en"
    files = [SimpleUploadedFile("logo.png", PNG, content_type="image/png")]
    doc = parse(staff_client.post("/skills/import", {"files": files, "action": "check"}).content)
    assert doc.one("data-no-skill-file").text() == (
        "Nothing to import: no skill file was found. A skill file is a *.properties declaration or a SKILL.md; "
        "every file above is something else."
    )
    assert "already as they say" not in doc.one("data-import-nothing").text()


def test_the_command_line_summary_says_no_skill_file_was_found():
    report = ImportReport(
        label="upload", entries=[ImportEntry("logo.png", IGNORED, note="not a skill file")], dry_run=True
    )
    assert report.no_skill_file
    assert report.summary() == (
        "dry run, nothing written: 0 created, 0 updated, 0 unchanged, 0 with errors, 1 ignored; "
        "no skill file was found (*.properties or SKILL.md), nothing to import"
    )


# --- the console's own release notes in the page's language -------------------------------------


def test_the_consoles_own_release_notes_are_translated(staff_client, published):
    services.skill_update(skill=Skill.objects.get(skill_code="order_change"), name="订单修改（新）")
    release_publish(user=COMMAND_LINE, note="改名")
    rollback = release_rollback(user=COMMAND_LINE, number=1, note="")
    assert rollback.note == "rollback to release 1"  # stored in English, for the command line and the API
    doc = parse(staff_client.get(f"/releases/{rollback.number}/").content)
    assert doc.one("class", "sub").text() == "回滚到发布 1"
    listing = parse(staff_client.get("/releases/").content)
    assert "回滚到发布 1" in listing.text() and "rollback to release" not in listing.text()
    assert "改名" in listing.text()  # a person's note as written
    staff_client.cookies["django_language"] = "en"
    assert parse(staff_client.get(f"/releases/{rollback.number}/").content).one("class", "sub").text() == (
        "rollback to release 1"
    )


@pytest.mark.parametrize(
    ("note", "chinese"),
    [
        ("rollback to release 12", "回滚到发布 12"),
        ("demo catalog 'bitmall'", "演示目录“bitmall”"),
        (
            "call targets of the synced demo MCP server 'bitmall-demo'",
            "已同步的演示 MCP 服务器“bitmall-demo”的调用目标",
        ),
        ("rollback to release ", "rollback to release "),  # not the template filled: as written
        ("please rollback to release 3 later", "please rollback to release 3 later"),
        ("", ""),
    ],
)
def test_release_note_text_translates_the_consoles_notes_only(note, chinese):
    with translation.override("zh-hans"):
        assert release_note_text(note) == chinese
    with translation.override("en"):
        assert release_note_text(note) == note


def test_every_note_the_console_writes_has_one_placeholder_and_a_chinese_text():
    for template in AUTO_RELEASE_NOTES.values():
        assert template.count("%(") == 1, template
        with translation.override("zh-hans"):
            chinese = translation.gettext(template)
        placeholder = template[template.index("%(") : template.index(")s") + 2]
        assert chinese != template and placeholder in chinese, template


# --- the delete (and disable) confirmation says what is released -------------------------------


def _confirmations(client) -> dict[str, tuple[str | None, str]]:
    doc = parse(client.get("/skills/").content)
    out = {}
    for row in doc.select("data-skill", tag="tr"):
        forms = row.by_tag("form")
        disable = next(f.get("data-confirm") for f in forms if f["action"].endswith("/enabled"))
        delete = next(f["data-confirm"] for f in forms if "/delete" in f["action"])
        out[row["data-skill"]] = (disable, delete)
    return out


def test_the_delete_confirmation_names_the_tools_it_releases_or_says_it_releases_none(staff_client, bitmall):
    confirm = _confirmations(staff_client)
    assert confirm["order_change"] == (
        "停用 order_change？只有它门控 cancel_order, change_address：停用后将对所有对话放行。",
        "删除 order_change？只有它门控 cancel_order, change_address：删除后将对所有对话放行。之后可以恢复。",
    )
    assert confirm["fault_diagnosis"] == (
        None,
        "删除 fault_diagnosis？它不门控任何工具，删除不会放行任何工具。之后可以恢复。",
    )
    staff_client.cookies["django_language"] = "en"
    confirm = _confirmations(staff_client)
    assert confirm["after_sale_apply"] == (
        "Disable after_sale_apply? It alone gates apply_after_sale: that tool will be released to every conversation.",
        "Delete after_sale_apply? It alone gates apply_after_sale: that tool will be released to every "
        "conversation. You can restore it later.",
    )
    assert confirm["fault_diagnosis"] == (
        None,
        "Delete fault_diagnosis? It gates no tool, so deleting it releases none. You can restore it later.",
    )


def test_the_delete_confirmation_of_a_disabled_or_a_sharing_skill_releases_nothing(staff_client, bitmall):
    services.skill_set_enabled(skill=Skill.objects.get(skill_code="after_sale_apply"), enabled=False)
    services.skill_update(skill=Skill.objects.get(skill_code="iot_bundle"), tool_ids=["cancel_order"])
    staff_client.cookies["django_language"] = "en"
    confirm = _confirmations(staff_client)
    assert confirm["after_sale_apply"] == (
        None,
        "Delete after_sale_apply? It is disabled, so deleting it releases no tool. You can restore it later.",
    )
    # cancel_order is gated by order_change and iot_bundle: deleting either releases only what it alone gates
    assert confirm["order_change"][1] == (
        "Delete order_change? It alone gates change_address: that tool will be released to every conversation. "
        "You can restore it later."
    )
    assert confirm["iot_bundle"] == (
        None,
        "Delete iot_bundle? No tool is released: other enabled skills gate cancel_order too. You can restore it later.",
    )
    staff_client.cookies["django_language"] = "zh-hans"
    confirm = _confirmations(staff_client)
    assert confirm["after_sale_apply"][1] == "删除 after_sale_apply？它已停用，删除不会放行任何工具。之后可以恢复。"
    assert confirm["iot_bundle"][1] == (
        "删除 iot_bundle？不会放行任何工具：其他已启用的技能也门控 cancel_order。之后可以恢复。"
    )
