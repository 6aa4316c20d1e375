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
