"""Message lists (docs/runtime-api.md shape and OpenAI's chat shape): errors name the 0-based index."""
from __future__ import annotations

import pytest

from skills_app.domain import Message, MessageError, ToolCall, parse_messages

OK = {"role": "user", "content": "hi"}


@pytest.mark.parametrize(
    ("raw", "index", "message"),
    [
        pytest.param({"role": "user"}, None, "messages must be a JSON list", id="not a list"),
        pytest.param([OK, "hello"], 1, "messages[1]: a message must be a JSON object", id="a bare string"),
        pytest.param([OK, OK, {"role": "bot", "content": "x"}], 2,
                     "messages[2]: role must be one of user, assistant, tool, system, got 'bot'", id="unknown role"),
        pytest.param([{"content": "x"}], 0,
                     "messages[0]: role must be one of user, assistant, tool, system, got None", id="no role"),
        pytest.param([OK, {"role": "assistant", "tool_calls": {"name": "x"}}], 1,
                     "messages[1]: tool_calls must be a list", id="tool_calls not a list"),
        pytest.param([{"role": "assistant", "tool_calls": [{"id": "c1", "arguments": {}}]}], 0,
                     "messages[0]: tool_calls[0] has no tool name", id="a call without a name"),
        pytest.param([OK, {"role": "assistant", "tool_calls": [
            {"id": "c1", "name": "ok", "arguments": {}},
            {"id": "c2", "type": "function", "function": {"name": "cancel_order", "arguments": "{order_no: 1}"}}]}],
            1, "messages[1]: tool_calls[1] (cancel_order): arguments are not valid JSON: "
               "Expecting property name enclosed in double quotes", id="OpenAI arguments that are not JSON"),
        pytest.param([{"role": "assistant", "tool_calls": [{"name": "x", "arguments": [1]}]}], 0,
                     "messages[0]: tool_calls[0] (x): arguments must be a JSON object", id="arguments a list"),
        pytest.param([OK, OK, OK, {"role": "tool", "tool_call_id": "c", "state": "failed"}], 3,
                     "messages[3]: state must be success or error, got 'failed'", id="unknown state"),
        pytest.param([{"role": "tool", "metadata": ["x"]}], 0, "messages[0]: metadata must be an object",
                     id="metadata not an object"),
        pytest.param([{"role": "user", "content": 5}], 0, "messages[0]: content must be a string, got int",
                     id="content a number"),
    ],
)
def test_parse_errors_name_the_index(raw, index, message) -> None:
    with pytest.raises(MessageError) as exc:
        parse_messages(raw)
    assert exc.value.index == index
    assert exc.value.message == message


def test_openai_shape_is_read_into_calls_with_decoded_arguments() -> None:
    raw = [
        {"role": "system", "content": [{"type": "text", "text": "be "}, {"type": "text", "text": "kind"}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "load_skill", "arguments": '{"skill_code": "order_change"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "# manual"},
    ]
    assert parse_messages(raw) == (
        Message(role="system", content="be kind"),
        Message(role="assistant", content="", tool_calls=(
            ToolCall(name="load_skill", arguments={"skill_code": "order_change"}, id="call_1"),)),
        Message(role="tool", content="# manual", tool_call_id="call_1", state="success"),
    )


def test_a_messages_envelope_and_the_console_shape_are_accepted() -> None:
    raw = {"messages": [{"role": "tool", "tool_call_id": "c1", "content": "x", "state": "error",
                         "metadata": {"ragent_loaded_skill": "a"}},
                        {"role": "assistant", "tool_calls": [{"id": "c2", "name": "t", "arguments": ""}]}]}
    first, second = parse_messages(raw)
    assert (first.state, dict(first.metadata)) == ("error", {"ragent_loaded_skill": "a"})
    assert second.tool_calls == (ToolCall(name="t", arguments={}, id="c2"),)


def test_a_message_round_trips_through_its_json_shape() -> None:
    msgs = parse_messages([
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "t", "arguments": {"a": 1}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "r", "state": "success", "metadata": {"k": "v"}},
    ])
    assert parse_messages([m.as_dict() for m in msgs]) == msgs
