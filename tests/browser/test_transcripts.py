"""A pasted Anthropic transcript in a real browser: read like an OpenAI one, the warnings of a
bad old message shown in the UI language (docs/transcripts.md). Screenshot in /tmp/shots/."""

from __future__ import annotations

import json

from tests.browser.conftest import SHOTS, login
from tests.transcript_cases import MANUAL_V1

TRANSCRIPT = [
    {"role": "user", "content": "那台iPhone 18 Pro Max我不想要了，帮我取消"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": "query_order", "arguments": '{"order_no": "88'}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_0", "content": "五笔订单…"},
    {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "load_skill", "input": {"skill_code": "order_change"}}
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": MANUAL_V1}]}
        ],
    },  # the whole published manual
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_2", "name": "cancel_order", "input": {"order_no": "88239"}}],
    },
]


def test_a_pasted_anthropic_transcript_releases_and_warns(console, page):
    login(page, console)
    page.goto(f"{console}/preview/")
    page.fill("#id_script", json.dumps(TRANSCRIPT, ensure_ascii=False, indent=1))
    page.focus("#id_script")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector('section[data-round="3"]')
    counts = page.eval_on_selector_all("section[data-round]", "els => els.map(e => e.dataset.count)")
    assert counts == ["11", "11", "13"]
    assert page.get_attribute('section[data-round="3"] [data-call="cancel_order"]', "data-verdict") == "confirm"
    warning = page.locator('[data-warning-code="arguments_unparseable"]')
    assert warning.get_attribute("data-warning-index") == "1"
    assert "第 2 条消息" in warning.inner_text() and "query_order" in warning.inner_text()
    page.screenshot(path=str(SHOTS / "preview-transcript-warnings-zh.png"), full_page=True)
