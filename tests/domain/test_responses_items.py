"""OpenAI Responses API input items, the fourth transcript shape (docs/transcripts.md, "OpenAI
Responses"): exact messages, indexes and refusals (the loaded / masked / warnings table rows are in
tests/transcript_cases.py)."""

from __future__ import annotations

import json

import pytest

from skill_rule import Message, MessageError, ToolCall, parse_messages
from skill_rule.limits import MAX_CALLS_PER_ROUND
from skill_rule.messages import as_messages

USER = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "取消订单"}]}


def fc(call_id: str, name: str = "load_skill", **arguments) -> dict:
    return {
        "type": "function_call",
        "id": "fc_" + call_id,
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(arguments),
        "status": "completed",
    }


def test_one_response_is_one_assistant_message_at_the_index_of_its_first_item() -> None:
    raw = [
        USER,  # 0
        {"type": "reasoning", "id": "rs_1", "summary": []},  # 1: nothing
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "先查"}]},  # 2
        fc("c1", skill_code="order_change"),  # 3
        {"type": "reasoning", "id": "rs_2", "summary": []},  # 4: inside the response
        {"type": "custom_tool_call", "call_id": "c2", "name": "grep", "input": "88239"},  # 5
        {"type": "function_call_output", "call_id": "c1", "output": "# 订单变更"},  # 6
        {
            "type": "custom_tool_call_output",
            "call_id": "c2",
            "output": [{"type": "input_text", "text": "a"}, {"type": "input_image", "image_url": "x"}],
        },  # 7
        fc("c3", "query_order"),  # 8: a new response
        {"role": "tool", "tool_call_id": "c3", "content": "两笔订单"},  # 9: chat shape mixed in
    ]
    messages = parse_messages(raw)
    assert messages == (
        Message(role="user", content="取消订单"),
        Message(
            role="assistant",
            content="先查",
            tool_calls=(
                ToolCall(name="load_skill", arguments={"skill_code": "order_change"}, id="c1"),
                ToolCall(name="grep", arguments={}, id="c2"),
            ),
        ),
        Message(role="tool", content="# 订单变更", tool_call_id="c1"),
        Message(role="tool", content="a", tool_call_id="c2"),
        Message(role="assistant", content="", tool_calls=(ToolCall(name="query_order", arguments={}, id="c3"),)),
        Message(role="tool", content="两笔订单", tool_call_id="c3"),
    )
    assert [m.index for m in messages] == [0, 2, 6, 7, 8, 9]
    (problem,) = messages[1].problems
    assert (problem.code, problem.params["index"], problem.params["position"]) == ("arguments_free_text", 5, 1)
    assert str(problem) == (
        "messages[5]: custom_tool_call (grep): its input is free text, not JSON arguments; read as no arguments"
    )
    assert as_messages(raw) == messages  # raw dicts through as_messages: the same grouping


def test_reasoning_alone_reads_as_nothing_and_an_output_status_is_read_fail_closed() -> None:
    messages = parse_messages(
        [
            {"type": "reasoning", "id": "rs", "summary": []},
            fc("c1"),
            {"type": "function_call_output", "call_id": "c1", "output": "x", "status": "in_progress"},
        ]
    )
    assert [(m.role, m.index, m.state) for m in messages] == [("assistant", 1, "success"), ("tool", 2, "error")]
    assert [p.code for p in messages[1].problems] == ["error_flag_ambiguous"]


@pytest.mark.parametrize(
    ("raw", "index", "message"),
    [
        pytest.param(
            [USER, {"type": "web_search_call", "id": "ws", "status": "completed"}],
            1,
            "messages[1]: item type 'web_search_call' is not understood (OpenAI Responses items read: message, "
            "function_call, function_call_output, custom_tool_call, custom_tool_call_output, reasoning)",
            id="an item type not read",
        ),
        pytest.param(
            [{"type": 5}],
            0,
            "messages[0]: type must be a string (an OpenAI Responses item type), got 5",
            id="a type no text",
        ),
        pytest.param(
            [USER, fc("c1"), {"type": "function_call", "call_id": "c2", "arguments": "{}"}],
            2,
            "messages[2]: function_call has no tool name",
            id="a function_call without a name",
        ),
        pytest.param(
            [{"type": "custom_tool_call", "call_id": "c2", "name": "", "input": "x"}],
            0,
            "messages[0]: custom_tool_call has no tool name",
            id="a custom_tool_call with an empty name",
        ),
        pytest.param(
            [fc("c1"), {"type": "item_reference", "id": "fc_c1"}],
            1,
            "messages[1]: item type 'item_reference' is not understood (OpenAI Responses items read: message, "
            "function_call, function_call_output, custom_tool_call, custom_tool_call_output, reasoning)",
            id="an item reference is not followed",
        ),
        pytest.param(
            [{"type": "message", "role": "assistant", "content": [{"type": "output_audio"}]}],
            0,
            "messages[0]: content[0]: block type 'output_audio' is not understood",
            id="an unknown part type",
        ),
        pytest.param(
            [USER, *[fc(f"c{i}") for i in range(MAX_CALLS_PER_ROUND + 1)]],
            1,
            f"messages[1]: {MAX_CALLS_PER_ROUND + 1} calls in one message; at most {MAX_CALLS_PER_ROUND} calls "
            "per round are accepted",
            id="one response over the calls of a round",
        ),
    ],
)
def test_refusals_name_the_item(raw, index, message) -> None:
    with pytest.raises(MessageError) as exc:
        parse_messages(raw)
    assert (exc.value.index, exc.value.message) == (index, message)
