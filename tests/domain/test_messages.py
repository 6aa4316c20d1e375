"""Message lists (console, OpenAI and Anthropic shapes): errors name the 0-based index; bad old
arguments are warnings, never errors (docs/transcripts.md)."""

from __future__ import annotations

import pytest

from skill_rule import Message, MessageError, ToolCall, parse_messages

OK = {"role": "user", "content": "hi"}


@pytest.mark.parametrize(
    ("raw", "index", "message"),
    [
        pytest.param({"role": "user"}, None, "messages must be a JSON list", id="not a list"),
        pytest.param([OK, "hello"], 1, "messages[1]: a message must be a JSON object", id="a bare string"),
        pytest.param(
            [OK, OK, {"role": "bot", "content": "x"}],
            2,
            "messages[2]: role must be one of user, assistant, tool, system, got 'bot'",
            id="unknown role",
        ),
        pytest.param(
            [{"content": "x"}],
            0,
            "messages[0]: role must be one of user, assistant, tool, system, got None",
            id="no role",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": [{"id": "c1", "arguments": {}}]}],
            0,
            "messages[0]: tool_calls[0] has no tool name",
            id="a call without a name",
        ),
        pytest.param(
            [OK, OK, OK, {"role": "tool", "tool_call_id": "c", "state": "done"}],
            3,
            "messages[3]: state must be success or error, got 'done'",
            id="unknown state",
        ),
        pytest.param(
            [{"role": "assistant", "content": "", "function_call": {"name": "x", "arguments": "{}"}}],
            0,
            "messages[0]: legacy 'function_call' is not understood; send 'tool_calls' (OpenAI) or "
            "'tool_use' blocks (Anthropic)",
            id="legacy function_call",
        ),
        pytest.param(
            [OK, {"role": "assistant", "content": [{"type": "server_tool_use", "id": "s", "name": "w"}]}],
            1,
            "messages[1]: content[0]: block type 'server_tool_use' is not understood",
            id="unknown block type",
        ),
        pytest.param(
            [{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}],
            0,
            "messages[0]: content[0]: block type 'tool_use' belongs to an assistant message",
            id="tool_use in a user message",
        ),
        pytest.param(
            [{"role": "user", "content": 5}], 0, "messages[0]: content must be a string, got int", id="content a number"
        ),
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
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "load_skill", "arguments": '{"skill_code": "order_change"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "# manual"},
    ]
    assert parse_messages(raw) == (
        Message(role="system", content="be kind"),
        Message(
            role="assistant",
            content="",
            tool_calls=(ToolCall(name="load_skill", arguments={"skill_code": "order_change"}, id="call_1"),),
        ),
        Message(role="tool", content="# manual", tool_call_id="call_1", state="success"),
    )


def test_a_messages_envelope_and_the_console_shape_are_accepted() -> None:
    raw = {
        "messages": [
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": "x",
                "state": "error",
                "metadata": {"ragent_loaded_skill": "a"},
            },
            {"role": "assistant", "tool_calls": [{"id": "c2", "name": "t", "arguments": ""}]},
        ]
    }
    first, second = parse_messages(raw)
    assert (first.state, dict(first.metadata)) == ("error", {"ragent_loaded_skill": "a"})
    assert second.tool_calls == (ToolCall(name="t", arguments={}, id="c2"),)


def test_a_message_round_trips_through_its_json_shape() -> None:
    msgs = parse_messages(
        [
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "t", "arguments": {"a": 1}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "r", "state": "success", "metadata": {"k": "v"}},
        ]
    )
    assert parse_messages([m.as_dict() for m in msgs]) == msgs


def test_a_record_built_without_its_init_equals_hashes_and_stays_frozen_like_one_built_with_it():
    import dataclasses

    from skill_rule.messages import Message, ToolCall, build_frozen

    values = {
        "role": "tool",
        "content": "ok",
        "tool_calls": (),
        "tool_call_id": "c1",
        "state": "success",
        "metadata": {"k": 1},
        "index": 4,
        "problems": (),
    }
    fast = build_frozen(Message, values)
    assert fast == Message(**values) and type(fast) is Message
    assert fast.index == 4 and fast.problems == ()
    call = build_frozen(ToolCall, {"name": "t", "arguments": {}, "id": "x", "problem": None})
    assert call == ToolCall(name="t", id="x") and hash(call.name) == hash("t")
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.content = "changed"


def test_parsed_messages_carry_every_field_of_the_record():
    import dataclasses

    from skill_rule.messages import Message, parse_messages

    parsed = parse_messages(
        [
            {"role": "assistant", "content": "x", "tool_calls": [{"id": "a", "name": "t", "arguments": {"k": 1}}]},
            {"role": "tool", "tool_call_id": "a", "content": "r"},
        ]
    )
    for m in parsed:
        assert set(vars(m)) == {f.name for f in dataclasses.fields(Message)}
        assert set(vars(m.tool_calls[0])) == {"name", "arguments", "id", "problem"} if m.tool_calls else True
    assert parsed[0].tool_calls[0].arguments == {"k": 1}
    assert parsed[1] == Message(role="tool", content="r", tool_call_id="a", index=1)


@pytest.mark.parametrize(
    ("role", "said"),
    [
        pytest.param({"name": "user"}, "got an object", id="an object"),
        pytest.param(["user"], "got a list", id="a list"),
        pytest.param(3, "got int", id="a number"),
    ],
)
def test_a_role_that_is_no_string_is_refused_naming_its_kind_and_the_message(role, said):
    with pytest.raises(MessageError) as refused:
        parse_messages([{"role": "user", "content": "hi"}, {"role": role, "content": "x"}])
    assert str(refused.value).endswith(f"role must be one of user, assistant, tool, system, {said}")
    assert refused.value.index == 1


def test_exactly_max_messages_are_accepted_and_one_more_is_refused_counting_them():
    from skill_rule.limits import MAX_MESSAGES

    assert len(parse_messages([{"role": "user", "content": "x"}] * MAX_MESSAGES)) == MAX_MESSAGES
    with pytest.raises(MessageError) as refused:
        parse_messages([{"role": "user", "content": "x"}] * (MAX_MESSAGES + 1))
    assert str(refused.value) == f"{MAX_MESSAGES + 1} messages; at most {MAX_MESSAGES} are accepted"


def test_as_messages_passes_a_parsed_tuple_through_and_reads_anything_else():
    from skill_rule.messages import as_messages

    parsed = parse_messages([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}])
    assert as_messages(parsed) is parsed
    again = as_messages(list(parsed))
    assert type(again) is tuple and again == parsed
    raw = ({"role": "user", "content": "a"}, {"role": "assistant", "content": "b"})
    read = as_messages(raw)
    assert all(type(m) is Message for m in read) and read == parsed
    assert [m.index for m in read] == [0, 1]
    assert [m.index for m in as_messages(({"role": "user", "content": "a"}, parsed[1]))] == [0, 1]


@pytest.mark.parametrize(
    ("flags", "state", "warning"),
    [
        ({"is_error": False}, "success", None),
        ({"isError": True}, "error", None),
        ({"status": "Completed", "is_error": False}, "success", None),
        ({"status": "FAILURE"}, "error", None),
        (
            {"is_error": 0},
            "error",
            "messages[0]: is_error is 0, which says neither success nor failure; the result is read as failed",
        ),
        (
            {"isError": "false"},
            "error",
            "messages[0]: isError is 'false', which says neither success nor failure; the result is read as failed",
        ),
        (
            {"status": None},
            "error",
            "messages[0]: status is null, which says neither success nor failure; the result is read as failed",
        ),
        (
            {"status": "error ", "is_error": False},
            "error",
            "messages[0]: status is 'error ', which says neither success nor failure; the result is read as failed",
        ),
        # the status is named first; a flag that says failure plainly wins either way
        (
            {"status": "cancelled", "is_error": 1},
            "error",
            "messages[0]: status is 'cancelled', which says neither success nor failure; the result is read as failed",
        ),
        (
            {"status": "ok", "is_error": 1},
            "error",
            "messages[0]: is_error is 1, which says neither success nor failure; the result is read as failed",
        ),
    ],
)
def test_an_error_flag_that_says_neither_success_nor_failure_fails_closed_with_a_warning(flags, state, warning):
    """docs/transcripts.md, "Failed results": a load_skill result that may have failed never counts as
    a loaded manual; the warning names the message and the flag."""
    (result,) = parse_messages([{"role": "tool", "tool_call_id": "a", "content": "x", **flags}])
    assert result.state == state
    assert [(p.code, str(p), p.params["number"]) for p in result.problems] == (
        [("error_flag_ambiguous", warning, 1)] if warning else []
    )


def test_a_doubtful_flag_on_an_anthropic_block_names_the_block_and_other_roles_have_no_state():
    user, text, assistant = parse_messages(
        [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "好"},
                    {"type": "tool_result", "tool_use_id": "t", "content": "x", "is_error": None},
                ],
            },
            {"role": "assistant", "content": "处理中", "status": "in_progress"},  # Responses API items carry a status
        ]
    )
    assert (user.role, user.state, [str(p) for p in user.problems]) == (
        "tool",
        "error",
        [
            "messages[0]: content[1]: is_error is null, which says neither success nor failure; the result is read as "
            "failed"
        ],
    )
    assert (text.role, text.content, text.problems) == ("user", "好", ())
    assert (assistant.state, assistant.problems) == ("success", ())


def test_a_status_that_is_no_error_flag_leaves_a_result_successful_and_failed_marks_it_failed():
    ok, failed = parse_messages(
        [
            {"role": "tool", "tool_call_id": "a", "content": "x", "status": "ok"},
            {"role": "tool", "tool_call_id": "b", "content": "x", "status": "Failed"},
        ]
    )
    assert (ok.state, failed.state) == ("success", "error")
