"""The preview names what each provider target says about a round's tools array
(docs/providers.md): a refusal, a rewrite shown as a change, and the matrix marking the rounds
over budget — in Debian's Chromium, at 1280 and 390 px. Screenshots go to /tmp/shots/."""

from __future__ import annotations

from dataclasses import replace

import pytest

from skills_app.catalog import services
from skills_app.models import McpTool
from tests.browser.conftest import SHOTS, login

pytestmark = pytest.mark.browser


def test_the_preview_shows_payload_problems_and_rounds_over_budget(page, console):
    tool = McpTool.objects.get(name="query_order")
    tool.input_schema = {"type": "object"}  # rewritten for OpenAI (properties: {})
    tool.description = "查" * 1030  # refused by OpenAI (at most 1024)
    tool.save()
    services.payload_targets_set(targets=["openai_chat", "anthropic_messages"], budgets={"anthropic_messages": 4500})
    login(page, console)
    page.goto(f"{console}/preview/?scenario=cancel-iphone")
    page.wait_for_selector('section[data-round="3"]')
    rows = page.eval_on_selector_all(
        'section[data-round="1"] [data-payload-problem]',
        "els => els.map(e => [e.dataset.target, e.dataset.tool, e.dataset.rule, e.dataset.action, e.innerText])",
    )
    assert rows == [
        [
            "openai_chat",
            "query_order",
            "description_length",
            "refused",
            "拒绝 OpenAI Chat Completions 拒绝 query_order：描述有 1030 个字符，最多 1024 个",
        ],
        [
            "openai_chat",
            "query_order",
            "object_without_properties",
            "rewritten",
            '已改写 已为 OpenAI Chat Completions 改写：query_order 在 根 处补上 "properties": {}（保存的模式不变）',
        ],
    ]
    # rounds 2 and 3 carry two more tools: over the Anthropic budget, and marked in the matrix
    assert page.locator('section[data-round="2"] [data-payload-problem][data-rule="payload_budget"]').count() == 1
    marked = page.eval_on_selector_all("[data-matrix-over-budget]", "els => els.map(e => e.dataset.matrixOverBudget)")
    assert marked == ["2", "3"]
    page.set_viewport_size({"width": 1280, "height": 900})
    page.locator('section[data-round="1"] [data-payload-problems]').scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "preview-payload-problems-1280.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator('section[data-round="1"] [data-payload-problems]').scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "preview-payload-problems-390.png"))
    page.locator("[data-matrix]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "preview-payload-matrix-390.png"))


def test_the_publish_page_lists_the_provider_problem_to_tick_off(page, console):
    from skills_app.releases.services import COMMAND_LINE, release_publish

    release_publish(user=COMMAND_LINE, note="demo")
    tool = McpTool.objects.get(name="query_order")
    tool.input_schema = {**tool.input_schema, "anyOf": [{"required": ["order_no"]}]}
    tool.save()
    login(page, console)
    page.goto(f"{console}/publish/")
    box = page.locator('[data-payload-reason] input[name="override"]')
    assert box.get_attribute("value") == "payload:anthropic_messages:query_order:top_level_combinator"
    page.set_viewport_size({"width": 1280, "height": 900})
    page.locator("[data-payload-reasons]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "publish-payload-1280.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("[data-payload-reasons]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "publish-payload-390.png"))
    box.check()
    page.fill("#id_note", "anyOf stays")
    page.fill("#id_override_note", "Claude is not used yet")
    page.click("[data-publish]")
    page.wait_for_url(f"{console}/releases/2/")


def test_the_tool_page_names_the_target_that_refuses_it(page, console):
    tool = McpTool.objects.get(name="query_order")
    tool.input_schema = {**tool.input_schema, "oneOf": [{"required": ["order_no"]}]}
    tool.save()
    login(page, console)
    page.goto(f"{console}/tools/mcp/query_order/")
    problem = page.locator("[data-provider-problems] [data-payload-problem]")
    assert problem.get_attribute("data-target") == "anthropic_messages"
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("[data-provider-targets]").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"tool-provider-targets-{width}.png"))


def test_the_skill_editor_live_preview_names_the_load_skill_refusal(page, console):
    """Typing a long description makes load_skill's description (the catalog lines) too long for
    OpenAI Chat Completions: the live preview says so as it is typed; nothing is saved."""
    from skill_rule.payload import load_skill_definition
    from skills_app.catalog import selectors
    from skills_app.models import Skill

    other = Skill.objects.get(skill_code="after_sale_apply")
    other.description = "退" * 480
    other.save()
    login(page, console)
    page.goto(f"{console}/skills/order_change/edit")
    page.wait_for_selector("[data-manual-preview]")
    assert page.locator("[data-payload-problem]").count() == 0
    page.fill("#id_description", "说" * 490)
    page.wait_for_selector("[data-editor-payload-problems] [data-payload-problem]")
    rows = page.eval_on_selector_all(
        "[data-editor-payload-problems] [data-payload-problem]",
        "els => els.map(e => [e.dataset.target, e.dataset.tool, e.dataset.rule, e.dataset.action, e.innerText])",
    )
    draft = selectors.catalog_draft()
    edited = tuple(replace(s, description="说" * 490) if s.code == "order_change" else s for s in draft.skills)
    length = len(load_skill_definition(draft.with_skills(edited)).description)
    assert length == 1371
    assert rows == [
        [
            "openai_chat",
            "load_skill",
            "description_length",
            "refused",
            f"拒绝 OpenAI Chat Completions 拒绝 load_skill：描述有 {length} 个字符，最多 1024 个",
        ]
    ]
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.locator("[data-editor-payload-problems]").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"skill-edit-payload-problems-{width}.png"))
    assert Skill.objects.get(skill_code="order_change").description != "说" * 490  # the preview never saves
