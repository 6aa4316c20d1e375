"""The preview's paste box reads OpenAI Responses input items (docs/transcripts.md, "OpenAI
Responses"): the free-text warning in the page's language, an unknown item refused by name."""

from __future__ import annotations

import json

from tests.transcript_cases import AFTER_SALE, RS_SAYS, RS_USER, rs_load, rs_output
from tests.views.html import parse

URL = "/preview/"
NEXT = {"role": "assistant", "content": "好的"}


def paste(client, items):
    response = client.post(URL, {"script": json.dumps([*items, NEXT], ensure_ascii=False)})
    assert response.status_code == 200
    return parse(response.content)


def test_a_custom_tool_call_load_is_named_in_the_pages_language_and_loads_nothing(staff_client, bitmall):
    items = [
        RS_USER,
        RS_SAYS,
        {"type": "custom_tool_call", "call_id": "call_1", "name": "load_skill", "input": "order_change"},
        rs_output("call_1", kind="custom_tool_call_output"),
    ]
    staff_client.cookies["django_language"] = "en"
    doc = paste(staff_client, items)
    (warning,) = doc.select("data-warning")
    assert (warning["data-warning-code"], warning["data-warning-index"]) == ("arguments_free_text", "2")
    assert " ".join(warning.text().split()) == (
        "!Message 3: the custom tool call load_skill has free-text input, not JSON arguments; read as no arguments "
        "(a load_skill made so loads nothing)."
    )
    assert doc.select("data-round")[-1].values("data-loaded") == []
    staff_client.cookies["django_language"] = "zh-hans"
    (warning,) = paste(staff_client, items).select("data-warning")
    assert " ".join(warning.text().split()) == (
        "!第 3 条消息：自定义工具调用 load_skill 的输入是自由文本，不是 JSON 参数；按无参数读取（这样发起的 load_skill 不加载任何手册）。"
    )


def test_parallel_function_calls_are_one_round_in_the_preview(staff_client, bitmall):
    doc = paste(
        staff_client,
        [
            RS_USER,
            rs_load("call_1", "order_change"),
            rs_load("call_2", "after_sale_apply"),
            rs_output("call_1"),
            rs_output("call_2", AFTER_SALE),
        ],
    )
    assert doc.select("data-round")[-1].values("data-loaded") == ["after_sale_apply", "order_change"]
    assert doc.select("data-warning") == []


def test_an_item_type_not_read_is_refused_by_name(staff_client, bitmall):
    error = paste(staff_client, [RS_USER, {"type": "web_search_call", "id": "ws_1"}]).one("data-message-error")
    assert error["data-index"] == "1"
    assert error.one("class", "cause").text() == (
        "item type 'web_search_call' is not understood (OpenAI Responses items read: message, function_call, "
        "function_call_output, custom_tool_call, custom_tool_call_output, reasoning)"
    )


def test_a_transcript_of_responses_items_only_is_replayed_not_read_as_yaml(staff_client, bitmall):
    # no "role" anywhere (a fresh user's finding): read as a transcript, as the runtime API reads it
    items = [
        rs_load("call_1", "order_change"),
        rs_output("call_1"),
        {
            "type": "function_call",
            "call_id": "call_2",
            "name": "cancel_order",
            "arguments": json.dumps({"order_no": "88239"}),
        },
    ]
    text = json.dumps(items, ensure_ascii=False)
    assert '"role"' not in text
    response = staff_client.post(URL, {"script": text})
    assert response.status_code == 200
    doc = parse(response.content)
    assert doc.select("data-round")[-1].values("data-loaded") == ["order_change"]
