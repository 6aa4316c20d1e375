"""The preview shows what the model is sent per round (docs/runtime-api.md "What the model sees"):
size in characters, the diff against the previous round, and the tools JSON loaded on demand
behind an OpenAI / Anthropic toggle — driven with the keyboard in Debian's Chromium.
Screenshots go to /tmp/shots/."""

from __future__ import annotations

import json

import pytest

from skill_rule import compute_round
from skill_rule.payload import payload_chars, tools_payload
from skills_app.catalog import selectors
from tests.browser.conftest import SHOTS, login

pytestmark = pytest.mark.browser


def test_round_payload_json_loads_on_demand_and_toggles_format(page, console):
    login(page, console)
    page.goto(f"{console}/preview/?scenario=cancel-iphone")
    page.wait_for_selector('section[data-round="3"]')
    assert page.locator("pre.payload-pre").count() == 0  # no JSON until a round is opened
    catalog = selectors.catalog_draft()
    round_1 = tools_payload(catalog, compute_round(catalog, ()).visible, "openai")
    shown = page.inner_text('section[data-round="1"] [data-payload-chars="openai"]')
    assert shown == f"{payload_chars(round_1)} 个字符"
    assert page.locator('section[data-round="1"] [data-payload-chars="anthropic"]').is_hidden()
    added = page.eval_on_selector_all(
        'section[data-round="2"] [data-payload-added]', "els => els.map(e => e.dataset.payloadAdded)"
    )
    assert added == ["cancel_order", "change_address"]
    assert page.locator('section[data-round="3"] [data-payload-same]').count() == 1

    summary = page.locator('section[data-round="2"] details.payload summary')
    summary.focus()
    page.keyboard.press("Enter")  # opens the details: htmx fetches this round's JSON once
    openai_pre = page.locator('section[data-round="2"] [data-payload-json="openai"] pre')
    openai_pre.wait_for()
    tools = json.loads(openai_pre.inner_text())
    assert len(tools) == 13 and tools[1]["function"]["name"] == "load_skill"
    assert tools[1]["function"]["parameters"]["properties"]["skill_code"]["enum"] == [
        "after_sale_apply",
        "order_change",
        "fault_diagnosis",
        "order_checkout",
        "iot_bundle",
    ]
    assert page.locator('section[data-round="2"] [data-payload-json="anthropic"]').is_hidden()
    page.screenshot(path=str(SHOTS / "preview-payload-openai-zh.png"), full_page=True)

    page.check('input[name="payload_format"][value="anthropic"]')
    anthropic_pre = page.locator('section[data-round="2"] [data-payload-json="anthropic"] pre')
    anthropic_pre.wait_for(state="visible")
    assert set(json.loads(anthropic_pre.inner_text())[6]) == {"name", "description", "input_schema"}
    assert openai_pre.is_hidden()
    page.locator('section[data-round="2"]').scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "preview-payload-anthropic-zh.png"), full_page=False)

    # the choice is remembered for the next run
    page.goto(f"{console}/preview/?scenario=cancel-iphone")
    page.wait_for_selector('section[data-round="3"]')
    assert page.is_checked('input[name="payload_format"][value="anthropic"]')
    assert page.locator('section[data-round="1"] [data-payload-chars="anthropic"]').is_visible()


def test_the_payload_row_in_english(page, console):
    login(page, console)
    page.goto(f"{console}/preview/?scenario=cancel-iphone")
    page.click('button[data-lang="en"]')
    page.wait_for_selector('html[lang="en"] section[data-round="3"]')
    assert page.inner_text('section[data-round="3"] [data-payload-same]') == "same tools array as the previous round"
    page.locator('section[data-round="1"] details.payload summary').click()
    page.locator('section[data-round="1"] [data-payload-json="openai"] pre').wait_for()
    head = page.inner_text('section[data-round="1"] [data-payload-json="openai"] .small')
    assert head.startswith("OpenAI · 11 tools · ") and head.endswith("characters as compact JSON (shown indented)")
    page.locator('section[data-round="1"]').scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "preview-payload-en.png"), full_page=False)


def test_the_catalog_in_the_system_prompt_is_shown_with_its_size(page, console):
    """Issue 23 item 3: with the ``system_prompt`` placement the round's payload panel shows the
    catalog block for the system prompt (catalog_text) with its size in characters, beside the
    load_skill description, now the header alone, with its size; at 1280 and 390 px."""
    from skill_rule.limits import DEFAULT_LOAD_SKILL_HEADER
    from skill_rule.payload import catalog_text
    from skills_app.catalog import services

    services.catalog_placement_set(placement="system_prompt")
    expected = catalog_text(selectors.catalog_draft())
    assert len(expected.split("\n")) == 5
    login(page, console)
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{console}/preview/?scenario=cancel-iphone")
        page.wait_for_selector('section[data-round="3"]')
        summary = page.locator('section[data-round="1"] details.payload summary')
        summary.focus()
        page.keyboard.press("Enter")
        block = page.locator('section[data-round="1"] [data-payload-catalog-text]')
        block.wait_for()
        assert block.locator("pre").inner_text() == expected
        assert block.get_attribute("data-chars") == str(len(expected))
        assert block.locator("[data-payload-catalog-chars]").inner_text() == f"{len(expected)} 个字符"
        assert block.locator(".small").inner_text().startswith("放进系统提示的技能清单（catalog_text")
        load = page.locator('section[data-round="1"] [data-payload-load-skill]')
        assert load.locator("pre").inner_text() == DEFAULT_LOAD_SKILL_HEADER
        assert (
            load.locator("[data-payload-load-skill-chars]").inner_text() == f"{len(DEFAULT_LOAD_SKILL_HEADER)} 个字符"
        )
        tools = json.loads(page.locator('section[data-round="1"] [data-payload-json="openai"] pre').inner_text())
        assert tools[1]["function"]["description"] == DEFAULT_LOAD_SKILL_HEADER
        assert len(tools[1]["function"]["parameters"]["properties"]["skill_code"]["enum"]) == 5
        block.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"preview-catalog-text-{width}.png"), full_page=False)


def test_the_default_placement_shows_the_catalog_in_load_skill_with_its_size(page, console):
    login(page, console)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{console}/preview/?scenario=cancel-iphone")
    page.wait_for_selector('section[data-round="3"]')
    page.locator('section[data-round="1"] details.payload summary').click()
    load = page.locator('section[data-round="1"] [data-payload-load-skill]')
    load.wait_for()
    description = load.locator("pre").inner_text()
    assert len(description.split("\n")) == 3 + 5
    assert load.locator("[data-payload-load-skill-chars]").inner_text() == f"{len(description)} 个字符"
    assert page.locator('section[data-round="1"] [data-payload-catalog-text]').count() == 0
    load.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "preview-catalog-in-load-skill-1280.png"), full_page=False)
