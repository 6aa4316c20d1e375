"""The tool picker's search in a real browser (issue 10): past ``limits.PICKER_FULL_LIST_MAX``
registered tools (lowered to 5 here: the live server runs in a thread of this process) the skill
editor lists only the ticked tools; from the keyboard, Tab reaches the search box, Enter searches
(and never submits the editor), Tab reaches a result and Space ticks it; Save keeps it.
Screenshot: /tmp/shots/picker-search.png."""

from __future__ import annotations

import pytest

from skill_rule import limits
from skills_app.models import Skill
from tests.browser.conftest import SHOTS, login

pytestmark = pytest.mark.browser


def focused(page) -> dict:
    return page.evaluate("""() => { const a = document.activeElement;
        return {tag: a.tagName, type: a.type || '', value: a.value || '', picker: a.getAttribute('data-picker-search'),
                result: !!a.closest('[data-picker-results]'), checked: !!a.checked}; }""")


def search(page, text: str) -> None:
    """Type ``text`` in the focused search box and press Enter: the results come at once."""
    page.keyboard.press("Control+a")
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def test_search_tick_and_save_from_the_keyboard(page, console, monkeypatch):
    monkeypatch.setattr(limits, "PICKER_FULL_LIST_MAX", 5)
    login(page, console)
    page.goto(f"{console}/skills/order_change/edit")
    chosen = page.locator("[data-picker-chosen] [data-tool-option]")
    assert chosen.evaluate_all("ls => ls.map(l => l.dataset.toolOption)") == ["cancel_order", "change_address"]

    page.focus('input[name="tool_ids"][value="change_address"]')
    page.keyboard.press("Tab")
    assert focused(page)["picker"] == "tool_ids"
    search(page, "order")
    results = page.locator("[data-picker-results] [data-tool-option]")
    page.wait_for_function("() => document.querySelectorAll('[data-picker-results] [data-tool-option]').length === 4")
    page.wait_for_timeout(600)  # the typing trigger repeats the same search: skipped, nothing replaced
    assert page.url == f"{console}/skills/order_change/edit"  # Enter did not submit the editor
    assert results.evaluate_all("ls => ls.map(l => l.dataset.toolOption)") == [
        "query_order",
        "update_cart_item",
        "create_order",
        "pay_order",
    ]
    page.keyboard.press("Tab")
    assert focused(page) == {
        "tag": "INPUT",
        "type": "checkbox",
        "value": "query_order",
        "picker": None,
        "result": True,
        "checked": False,
    }
    page.keyboard.press("Space")
    assert focused(page)["checked"] is True
    page.screenshot(path=str(SHOTS / "picker-search.png"), full_page=False, clip=_picker_box(page))

    # a second search: the ticked result moves to the ticked list and is left out of the answer
    page.focus("[data-picker-search]")
    search(page, "pay")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-picker-results] [data-tool-option]')]"
        ".map(l => l.dataset.toolOption).join() === 'pay_order'"
    )
    assert chosen.evaluate_all("ls => ls.map(l => l.dataset.toolOption)") == [
        "cancel_order",
        "change_address",
        "query_order",
    ]
    page.keyboard.press("Tab")
    assert focused(page)["value"] == "pay_order"
    page.keyboard.press("Space")

    page.keyboard.press("Control+Enter")
    page.wait_for_url(f"{console}/skills/order_change/")
    skill = Skill.objects.get(skill_code="order_change")
    assert (skill.tool_ids, skill.version) == (["cancel_order", "change_address", "query_order", "pay_order"], 2)


def _picker_box(page) -> dict:
    page.locator("[data-field=tool_ids]").scroll_into_view_if_needed()
    box = page.locator("[data-field=tool_ids]").bounding_box()
    return {"x": box["x"] - 8, "y": box["y"] - 8, "width": box["width"] + 16, "height": box["height"] + 16}
