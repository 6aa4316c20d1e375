"""Import and export in a real browser (docs/import-export.md): download the export zip, upload it
back, read the per-file report of the check, import, and see a broken SKILL.md named with its
line; screenshots of the page at 1366 px and 390 px in /tmp/shots."""

from __future__ import annotations

import pytest

from skill_rule.skill_files import read_zip, zip_files
from skills_app.models import Skill
from tests.browser.conftest import SHOTS, login

pytestmark = pytest.mark.browser

RECORD = ("skill_code", "name", "description", "content", "tool_ids", "sort_order", "enabled")


def records() -> dict[str, tuple]:
    return {s.skill_code: tuple(getattr(s, f) for f in RECORD) for s in Skill.objects.live()}


def test_export_then_upload_the_zip_check_and_import(page, console, tmp_path):
    login(page, console)
    page.click("[data-import-link]")
    page.wait_for_url(f"{console}/skills/import")
    page.select_option("#id_format", "skill-md")
    with page.expect_download() as download_info:
        page.click("[data-export-download]")
    download = download_info.value
    assert download.suggested_filename.startswith("skills-skill-md-")
    exported = tmp_path / download.suggested_filename
    download.save_as(str(exported))
    full = records()

    # one skill is gone from the catalog and one SKILL.md is broken: the check names file and line
    Skill.objects.filter(skill_code="order_change").delete()
    files = read_zip(exported.read_bytes()).files
    folder = next(iter(files)).split("/")[0]
    broken = dict(files)
    path = f"{folder}/after-sale-apply/SKILL.md"
    lines = broken[path].decode().splitlines(keepends=True)
    lines[2] = "description: 售后: 退货\n"
    broken[path] = "".join(lines).encode()
    bad_zip = tmp_path / "broken.zip"
    bad_zip.write_bytes(zip_files(broken))
    page.set_input_files("#id_files", str(bad_zip))
    page.click("[data-import-check]")
    row = page.locator(f"[data-import-entry='{path}']")
    row.wait_for()
    assert row.get_attribute("data-status") == "error"
    assert row.locator("[data-entry-errors]").inner_text() == (
        f"{path}:3: YAML 前置元数据无效：mapping values are not allowed here"
    )
    assert page.locator("[data-import-blocked]").is_visible()
    assert page.locator("[data-import-apply]").count() == 0

    # the good zip: the check shows what would happen, the import does it
    page.set_input_files("#id_files", str(exported))
    page.click("[data-import-check]")
    page.locator(f"[data-import-entry='{path}'][data-status='unchanged']").wait_for()
    assert (
        page.locator(f"[data-import-entry='{folder}/order-change/SKILL.md']").get_attribute("data-status") == "created"
    )
    assert page.locator("[data-import-folder]").inner_text() == f"压缩包中 {folder}/ 文件夹里的文件："
    assert page.locator("[data-import-summary]").inner_text() == "检查：未写入任何内容。导入将会："
    assert "order_change" not in records()
    page.screenshot(path=str(SHOTS / "import-check-1366.png"), full_page=True)
    page.click("[data-import-apply]")
    page.locator("[data-import-report][data-written='1']").wait_for()
    assert page.locator("[data-import-summary]").inner_text() == "已导入。"
    assert records() == full
    page.set_viewport_size({"width": 1366, "height": 900})
    page.screenshot(path=str(SHOTS / "import-done-1366.png"), full_page=True)


def test_the_import_page_fits_a_phone(page, console, tmp_path):
    login(page, console)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{console}/skills/import")
    (tmp_path / "p.properties").write_text(
        "skill-code=price_protect\nname=价保\ndescription=价保申请\ncontent-file=m.md\ntool-ids=query_order,nope\n",
        encoding="utf-8",
    )
    (tmp_path / "m.md").write_text("# 价保\n", encoding="utf-8")
    page.set_input_files("#id_files", [str(tmp_path / "p.properties"), str(tmp_path / "m.md")])
    page.click("[data-import-check]")
    page.locator("[data-import-entry='p.properties'][data-status='error']").wait_for()
    assert page.locator("[data-import-entry='p.properties'] [data-entry-errors]").inner_text() == (
        "p.properties:5: tool_ids: “nope”不是任何 MCP 节点的工具。"
    )
    assert (
        page.locator("[data-import-entry='p.properties'] [data-entry-errors]").bounding_box()["x"]
        + page.locator("[data-import-entry='p.properties'] [data-entry-errors]").bounding_box()["width"]
        <= 390
    )
    assert page.locator("[data-import-blocked]").inner_text() == "修正有错误的文件后再检查。"
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    page.screenshot(path=str(SHOTS / "import-390.png"), full_page=True)
