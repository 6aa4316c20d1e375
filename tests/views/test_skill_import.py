"""The import/export page (docs/import-export.md): upload a zip or single files, see the per-file
report of a check (nothing written), import exactly what was checked, download the export."""

from __future__ import annotations

import io
import zipfile

from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from skill_rule.skill_files import read_zip, zip_files
from skills_app.io.services import skills_export
from skills_app.models import Skill
from tests.views.html import parse

RECORD = ("skill_code", "name", "description", "content", "tool_ids", "sort_order", "enabled")


def records() -> dict[str, tuple]:
    return {s.skill_code: tuple(getattr(s, f) for f in RECORD) for s in Skill.objects.live()}


def upload(data: bytes, name: str = "skills.zip") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def export_zip(fmt: str = "skill-md", *, break_one: bool = False) -> bytes:
    files = skills_export(format=fmt)
    if break_one:
        text = files["order-change/SKILL.md"].decode().splitlines(keepends=True)
        text[2] = "description: 取消订单: 或修改地址\n"
        files["order-change/SKILL.md"] = "".join(text).encode()
    return zip_files(files, folder="set")


def entries(doc) -> dict[str, str]:
    return {row["data-import-entry"]: row["data-status"] for row in doc.select("data-import-entry")}


def test_the_page_offers_upload_and_export(staff_client, bitmall):
    doc = parse(staff_client.get("/skills/import").content)
    form = doc.one("data-import-form")
    assert form["enctype"] == "multipart/form-data" and form["hx-post"] == "/skills/import"
    file_input = form.one("name", "files", tag="input")
    assert (
        file_input["type"] == "file"
        and "multiple" in file_input.attrs
        and file_input["accept"] == ".zip,.properties,.md"
    )
    assert doc.select("data-import-report") == []
    export = doc.one("data-export")
    assert [o["value"] for o in export.by_tag("option")] == ["properties", "skill-md"]
    assert "5" in export.text()
    assert parse(staff_client.get("/skills/").content).one("data-import-link")["href"] == "/skills/import"


def test_check_shows_the_per_file_report_and_writes_nothing(staff_client, bitmall):
    data = export_zip()
    Skill.objects.filter(skill_code="order_change").delete()
    before = records()
    doc = parse(staff_client.post("/skills/import", {"files": upload(data), "action": "check"}).content)
    report = doc.one("data-import-report")
    assert (report["data-dry-run"], report["data-written"]) == ("1", "0")
    assert entries(doc) == {
        "set/after-sale-apply/SKILL.md": "unchanged",
        "set/fault-diagnosis/SKILL.md": "unchanged",
        "set/iot-bundle/SKILL.md": "unchanged",
        "set/order-change/SKILL.md": "created",
        "set/order-checkout/SKILL.md": "unchanged",
    }
    assert doc.one("data-import-summary").text() == "检查：未写入任何内容。导入将会："
    assert doc.one("data-import-apply").text().strip() == "导入 1 个文件"
    assert records() == before


def test_apply_imports_exactly_what_was_checked(staff_client, bitmall):
    data = export_zip()
    full = records()
    Skill.objects.filter(skill_code="order_change").delete()
    checked = parse(staff_client.post("/skills/import", {"files": upload(data), "action": "check"}).content)
    digest = checked.one("name", "checked", tag="input")["value"]
    response = staff_client.post(
        "/skills/import", {"files": upload(data), "action": "apply", "checked": digest}, headers={"HX-Request": "true"}
    )
    doc = parse(response.content)
    assert doc.one("data-import-report")["data-written"] == "1"
    assert entries(doc)["set/order-change/SKILL.md"] == "created"
    assert doc.one("data-import-summary").text() == "已导入。"
    assert records() == full
    assert Skill.objects.get(skill_code="order_change").updated_by.username == "ops"


def test_apply_with_other_files_than_checked_only_checks(staff_client, bitmall):
    data = export_zip()
    Skill.objects.filter(skill_code="order_change").delete()
    doc = parse(
        staff_client.post("/skills/import", {"files": upload(data), "action": "apply", "checked": "0" * 64}).content
    )
    doc.one("data-import-stale")
    assert doc.one("data-import-report")["data-dry-run"] == "1"
    assert not Skill.objects.filter(skill_code="order_change").exists()


def test_one_bad_skill_md_names_file_and_line_and_offers_no_import(staff_client, bitmall):
    data = export_zip(break_one=True)
    Skill.objects.all().delete()
    doc = parse(staff_client.post("/skills/import", {"files": upload(data), "action": "check"}).content)
    row = doc.one("data-import-entry", "set/order-change/SKILL.md")
    assert row["data-status"] == "error"
    assert row.one("data-entry-errors").text() == (
        "set/order-change/SKILL.md:3: YAML 前置元数据无效：mapping values are not allowed here"
    )
    assert doc.select("data-import-apply") == []
    doc.one("data-import-blocked")
    # the check says what the import would do: all or nothing, so the good files are held back too
    assert doc.one("data-import-summary").text() == (
        "检查：未写入任何内容。导入这些文件将不会导入任何内容：部分文件有错误（全部或全不）。"
    )
    assert doc.one("data-import-held").text() == "4 个未导入（本身无错误，一并暂缓）"
    assert sorted(r.text() for r in doc.select("class", "io-status io-created")) == ["未导入"] * 4
    # with "partial" the rest can be imported
    doc = parse(
        staff_client.post("/skills/import", {"files": upload(data), "action": "check", "partial": "on"}).content
    )
    assert doc.one("data-import-summary").text() == "检查：未写入任何内容。导入将会："
    assert sorted(r.text() for r in doc.select("class", "io-status io-created")) == ["新建"] * 4
    assert doc.one("data-import-apply").text().strip() == "导入 4 个没有错误的文件"
    digest = doc.one("name", "checked", tag="input")["value"]
    staff_client.post("/skills/import", {"files": upload(data), "action": "apply", "partial": "on", "checked": digest})
    assert sorted(records()) == ["after_sale_apply", "fault_diagnosis", "iot_bundle", "order_checkout"]


def test_all_or_nothing_apply_imports_nothing_when_a_file_has_errors(staff_client, bitmall):
    data = export_zip(break_one=True)
    Skill.objects.all().delete()
    digest = parse(staff_client.post("/skills/import", {"files": upload(data), "action": "check"}).content).one(
        "name", "checked", tag="input"
    )["value"]
    doc = parse(
        staff_client.post("/skills/import", {"files": upload(data), "action": "apply", "checked": digest}).content
    )
    assert doc.one("data-import-report")["data-written"] == "0"
    assert doc.one("data-import-summary").text() == "没有导入任何内容：部分文件有错误（全部或全不）。"
    assert Skill.objects.count() == 0
    # the files without errors are not said to be "created": they were held back with the rest
    assert doc.one("data-import-held").text() == "4 个未导入（本身无错误，一并暂缓）"
    assert sorted(r.text() for r in doc.select("class", "io-status io-created")) == ["未导入"] * 4


def test_single_files_a_declaration_with_its_manual(staff_client, bitmall):
    files = [
        upload(
            "skill-code=price_protect\nname=价保\ndescription=价保申请\ncontent-file=m.md\n"
            "tool-ids=query_order\n".encode(),
            "price.properties",
        ),
        upload("# 价保\n".encode(), "m.md"),
    ]
    doc = parse(staff_client.post("/skills/import", {"files": files, "action": "check"}).content)
    assert entries(doc) == {"price.properties": "created"}


def test_an_unsafe_zip_is_refused_with_the_cause(staff_client, bitmall):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("../evil.properties", "x")
    cause = "evil.zip: 条目“../evil.properties”的路径不安全（绝对路径、“..”或“\\”）；拒绝整个压缩包"
    doc = parse(
        staff_client.post("/skills/import", {"files": upload(buffer.getvalue(), "evil.zip"), "action": "check"}).content
    )
    assert doc.one("data-errors-for", "files").text() == cause  # shown once, next to its field
    assert doc.select("data-import-errors") == [] and doc.select("data-import-report") == []
    doc = parse(
        staff_client.post(
            "/skills/import",
            {"files": upload(buffer.getvalue(), "evil.zip"), "action": "check"},
            headers={"HX-Request": "true"},
        ).content
    )
    assert doc.one("data-import-errors").text() == cause


def test_a_zip_and_files_together_are_refused(staff_client, bitmall):
    doc = parse(
        staff_client.post(
            "/skills/import", {"files": [upload(export_zip()), upload(b"x", "a.md")], "action": "check"}
        ).content
    )
    assert doc.one("data-errors-for", "files").text() == "upload: 请上传一个 zip，或不带 zip 的单个文件"


def test_an_empty_file_is_refused_by_its_name_with_the_others(staff_client, bitmall):
    """Django's "the submitted file is empty" names no file; among several uploads the user must
    know which one (each refused file named, nothing checked or written)."""
    before = records()
    files = [upload(b"", "order_change.properties"), upload(b"# manual", "order_change.md"), upload(b"", "b.md")]
    doc = parse(staff_client.post("/skills/import", {"files": files, "action": "check"}).content)
    assert [e.text() for e in doc.one("data-errors-for", "files").by_tag("li")] == [
        "order_change.properties：提交的是空文件。",
        "b.md：提交的是空文件。",
    ]
    assert doc.select("data-import-report") == []
    assert records() == before


def test_no_file_is_a_field_error(staff_client, bitmall):
    doc = parse(staff_client.post("/skills/import", {"action": "check"}).content)
    assert doc.one("data-errors-for", "files").text() == "该字段是必填项。"


def test_the_report_in_english(staff_client, bitmall):
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    doc = parse(staff_client.post("/skills/import", {"files": upload(export_zip()), "action": "check"}).content)
    assert doc.one("data-import-summary").text() == "Check: nothing was written. Importing would do this:"
    assert (
        doc.one("data-import-nothing").text() == "Nothing to import: every skill in these files is already as they say."
    )


def test_export_downloads_a_zip_that_imports_back_as_the_same_records(staff_client, bitmall):
    for fmt, first in (("properties", "after_sale_apply.properties"), ("skill-md", "after-sale-apply/SKILL.md")):
        response = staff_client.get(f"/skills/export?format={fmt}")
        assert response.status_code == 200 and response["Content-Type"] == "application/zip"
        disposition = response["Content-Disposition"]
        assert disposition.startswith(f'attachment; filename="skills-{fmt}-') and disposition.endswith('.zip"')
        folder = disposition.split('"')[1][:-4]
        dataset = read_zip(response.content)
        assert sorted(dataset.files)[0] == f"{folder}/{first}"
        before = records()
        Skill.objects.all().delete()
        staff_client.post("/skills/import", {"files": upload(response.content), "action": "check"})
        doc = parse(staff_client.post("/skills/import", {"files": upload(response.content), "action": "check"}).content)
        digest = doc.one("name", "checked", tag="input")["value"]
        staff_client.post("/skills/import", {"files": upload(response.content), "action": "apply", "checked": digest})
        assert records() == before


def test_export_of_an_unknown_format_falls_back_to_properties(staff_client, bitmall):
    response = staff_client.get("/skills/export?format=xml")
    assert 'filename="skills-properties-' in response["Content-Disposition"]


def test_the_report_names_file_and_line_in_english_too(staff_client, bitmall):
    data = export_zip(break_one=True)
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    doc = parse(staff_client.post("/skills/import", {"files": upload(data), "action": "check"}).content)
    assert doc.one("data-import-entry", "set/order-change/SKILL.md").one("data-entry-errors").text() == (
        "set/order-change/SKILL.md:3: invalid YAML front matter: mapping values are not allowed here"
    )


def test_service_refusals_and_nested_causes_are_translated(staff_client, bitmall):
    files = [
        upload(
            "skill-code=price_protect\nname=价保\ndescription=价保申请\ncontent-file=m.md\n"
            "tool-ids=query_order,nope\nenabled=yes\n".encode(),
            "price.properties",
        ),
        upload(b"# m\n", "m.md"),
        upload(b"---\nname: x\ndescription: d\nallowed-tools: 5\n---\n# x\n", "SKILL.md"),
    ]
    doc = parse(staff_client.post("/skills/import", {"files": files, "action": "check"}).content)
    assert doc.one("data-import-entry", "price.properties").one("data-entry-errors").text() == (
        "price.properties:6: enabled 必须是 true 或 false，而不是 'yes'"
    )
    assert doc.one("data-import-entry", "SKILL.md").one("data-entry-errors").text() == (
        "SKILL.md:4: allowed-tools 必须是以空格分隔的工具名（或列表），而不是数字（5）"
    )
    files[0] = upload(
        "skill-code=price_protect\nname=价保\ndescription=价保申请\ncontent-file=m.md\n"
        "tool-ids=query_order,nope\n".encode(),
        "price.properties",
    )
    files[1] = upload(b"# m\n", "m.md")
    doc = parse(staff_client.post("/skills/import", {"files": files[:2], "action": "check"}).content)
    assert doc.one("data-import-entry", "price.properties").one("data-entry-errors").text() == (
        "price.properties:5: tool_ids: “nope”不是任何 MCP 节点的工具。"
    )


def test_every_skill_file_cause_has_its_translatable_template():
    """The page translates causes by code: each code the domain and the importer raise must be in
    ``SKILL_FILE_MESSAGES`` with the very same English template."""
    import ast

    from skill_rule import skill_files
    from skills_app.core.message_catalog import SKILL_FILE_MESSAGES
    from skills_app.io import services as skill_io
    from skills_app.io import views as view_module

    found: dict[str, str] = {}
    for module in (skill_files, skill_io, view_module):
        tree = ast.parse(open(module.__file__, encoding="utf-8").read())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) in ("_p", "Problem")
                and len(node.args) >= 2
                and isinstance(node.args[0], ast.Constant)
            ):
                template = node.args[1]
                text = template.value if isinstance(template, ast.Constant) else getattr(skill_files, template.id)
                assert found.setdefault(node.args[0].value, text) == text, node.args[0].value
    assert len(found) >= 55
    with translation.override("en"):
        assert {code: str(SKILL_FILE_MESSAGES.get(code)) for code in found} == found


def test_up_to_the_import_limit_of_single_files_reaches_the_page_and_one_more_gets_its_sentence(staff_client, bitmall):
    """Found on a fresh clone: Django's own cap on uploaded files (100 by default) answered 101–500
    single files with a bare 400 "Bad request" before the page's limit ``IMPORT_MAX_FILES`` could
    speak; the setting now sits just above that limit."""
    from skill_rule.limits import IMPORT_MAX_FILES

    response = staff_client.post(
        "/skills/import",
        {"files": [upload(f"# manual {i}\n".encode(), f"m{i}.md") for i in range(101)], "action": "check"},
    )
    assert response.status_code == 200
    doc = parse(response.content)
    assert doc.select("data-errors-for", "files") == []
    assert entries(doc) == {f"m{i}.md": "ignored" for i in range(101)}  # checked one by one
    response = staff_client.post(
        "/skills/import",
        {
            "files": [upload(f"# manual {i}\n".encode(), f"m{i}.md") for i in range(IMPORT_MAX_FILES + 1)],
            "action": "check",
        },
    )
    assert response.status_code == 200
    doc = parse(response.content)
    assert doc.one("data-errors-for", "files").text() == f"upload: 超过 {IMPORT_MAX_FILES} 个文件；请上传一个 zip"
    assert doc.select("data-import-report") == []


def test_an_exported_declaration_and_its_manual_import_back_as_two_single_files(staff_client, bitmall):
    """Issue 29 item 1: the properties export names ``content-file=manuals/<code>.md``; its
    ``.properties`` and its manual uploaded as two single files import (by the manual's base
    name), as the page's help text says they do."""
    files = skills_export(format="properties")
    before = records()["order_change"]
    Skill.objects.filter(skill_code="order_change").delete()
    sent = [
        upload(files["order_change.properties"], "order_change.properties"),
        upload(files["manuals/order_change.md"], "order_change.md"),
    ]
    doc = parse(staff_client.post("/skills/import", {"files": sent, "action": "check"}).content)
    assert entries(doc) == {"order_change.properties": "created"}
    digest = doc.one("name", "checked", tag="input")["value"]
    sent = [
        upload(files["order_change.properties"], "order_change.properties"),
        upload(files["manuals/order_change.md"], "order_change.md"),
    ]
    staff_client.post("/skills/import", {"files": sent, "action": "apply", "checked": digest})
    assert records()["order_change"] == before
