"""Issue 29 item 2 in a real browser: a skill deleted and restored from the skill list reads, on
the Chinese audit and history pages, as 已删除 and 已恢复 — never "changed", never a new version,
never an English field label. Screenshots at 1280 and 390 px go to /tmp/shots/."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import SHOTS, login

pytestmark = pytest.mark.browser


def test_a_delete_and_a_restore_from_the_list_read_as_such_on_the_chinese_audit_page(page, console):
    login(page, console)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.accept()))
    page.click('[data-skill="order_change"] button.btn-danger')
    page.wait_for_selector('[data-deleted-skill="order_change"]')
    page.click('[data-deleted-skill="order_change"] button[data-row-focus]')
    page.wait_for_selector('[data-skill="order_change"]')
    assert len(dialogs) == 1
    page.goto(f"{console}/audit/?kind=skill&record=order_change")
    rows = page.locator("[data-entry]")
    assert [a.strip() for a in rows.locator("[data-action]").all_inner_texts()] == ["已恢复", "已删除", "新建"]
    assert rows.nth(0).locator("[data-change]").count() == rows.nth(1).locator("[data-change]").count() == 0
    audit_text = page.inner_text("[data-audit]")
    assert not re.search(r"deleted|restored|changed|version", audit_text), audit_text
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SHOTS / f"i29-audit-delete-{width}.png"), full_page=True)
    page.goto(f"{console}/skills/order_change/history")
    revisions = page.locator("[data-revision]")
    assert [a.strip() for a in revisions.locator("[data-action]").all_inner_texts()] == ["已恢复", "已删除", "新建"]
    assert [v.strip() for v in revisions.locator("td.num").all_inner_texts()] == ["v1", "v1", "v1"]
    page.click("[data-revision] >> nth=1 >> [data-diff-link]")
    page.wait_for_selector("[data-field-diff]")
    assert page.inner_text('[data-field="deleted_at"] td >> nth=0').strip() == "删除时间"
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SHOTS / f"i29-history-delete-{width}.png"), full_page=True)
