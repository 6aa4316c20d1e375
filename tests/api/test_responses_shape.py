"""OpenAI Responses input items through the runtime API (docs/transcripts.md, "OpenAI
Responses"; docs/runtime-api.md): load-skill under the repeat-load rule, check-call with a
``function_call`` / ``custom_tool_call`` item as the call, and refusals naming the item."""

from __future__ import annotations

import json

import pytest

from skills_app.models import Skill
from tests.api.support import CHECK_CALL, LOAD_SKILL, ROUNDS, error_of
from tests.transcript_cases import RS_SAYS, RS_USER, rs_load, rs_output


def load(post, messages, code="order_change"):
    response = post(LOAD_SKILL, {"messages": messages, "skill_code": code})
    assert response.status_code == 200, response.content
    return response.json()


def test_load_skill_reads_a_responses_transcript_under_the_repeat_load_rule(bitmall, post):
    skill = Skill.objects.get(skill_code="order_change")
    first = load(post, [RS_USER, rs_load("call_1", "order_change")])
    assert (first["already_loaded"], first["content"]) == (False, skill.content)
    # its body retained as a function_call_output (no metadata: names no version) → the stub
    retained = [
        RS_USER,
        rs_load("call_1", "order_change"),
        rs_output("call_1", first["content"]),
        rs_load("call_2", "order_change"),
    ]
    again = load(post, retained)
    assert (again["already_loaded"], again["metadata"]) == (
        True,
        {"already_loaded": True, "skill_code": "order_change", "skill_version": skill.version},
    )
    # loaded through a custom tool (free text): nothing was loaded, the full manual comes again
    custom = [
        RS_USER,
        RS_SAYS,
        {"type": "custom_tool_call", "call_id": "call_1", "name": "load_skill", "input": "order_change"},
        rs_output("call_1", first["content"], kind="custom_tool_call_output"),
        rs_load("call_2", "order_change"),
    ]
    assert load(post, custom)["already_loaded"] is False
    # an output with status "incomplete" is failed: the full manual again
    failed = [
        RS_USER,
        rs_load("call_1", "order_change"),
        rs_output("call_1", first["content"], status="incomplete"),
        rs_load("call_2", "order_change"),
    ]
    assert load(post, failed)["already_loaded"] is False


@pytest.mark.parametrize(
    ("call", "verdict", "reason", "message"),
    [
        pytest.param(
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "cancel_order",
                "arguments": json.dumps({"order_no": "88239"}),
            },
            "refused",
            "masked",
            "tool 'cancel_order' is masked: load_skill('order_change') first",
            id="a function_call item",
        ),
        pytest.param(
            {"type": "function_call", "call_id": "call_1", "name": "query_order", "arguments": '{"limit": 0'},
            "refused",
            "invalid_arguments",
            "invalid arguments for 'query_order': call (query_order): arguments "
            "are not valid JSON (Expecting ',' delimiter); read as no arguments",
            id="its arguments truncated",
        ),
        pytest.param(
            {"type": "custom_tool_call", "call_id": "call_1", "name": "query_order", "input": "88239"},
            "refused",
            "invalid_arguments",
            "invalid arguments for 'query_order': custom_tool_call "
            "(query_order): its input is free text, not JSON arguments; read as no arguments",
            id="a custom_tool_call: never run on free text",
        ),
        pytest.param(
            {"type": "function_call", "call_id": "call_1", "name": "query_order", "arguments": "{}"},
            "allowed",
            None,
            "'query_order' may run",
            id="an ungated tool",
        ),
    ],
)
def test_check_call_takes_a_responses_call_item(bitmall, post, call, verdict, reason, message):
    response = post(CHECK_CALL, {"messages": [RS_USER], "call": call})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["verdict"], body["reason"], body["message"]) == (verdict, reason, message)


def test_an_item_type_not_read_is_a_400_naming_the_item(bitmall, post):
    error = error_of(
        post(
            ROUNDS, {"messages": [RS_USER, rs_load("c1", "order_change"), {"type": "computer_call", "call_id": "c2"}]}
        ),
        400,
    )
    assert (error["code"], error["details"]["index"]) == ("invalid_messages", 2)
    assert error["message"] == (
        "messages[2]: item type 'computer_call' is not understood (OpenAI Responses items "
        "read: message, function_call, function_call_output, custom_tool_call, "
        "custom_tool_call_output, reasoning)"
    )
