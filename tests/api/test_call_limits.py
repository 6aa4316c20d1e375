"""The OpenAPI schema states the call limits the code enforces (issue 10 items 2 and 7): at most
``MAX_CALLS_PER_ROUND`` calls in one message (``maxItems`` of ``Message.tool_calls``) and
``MAX_CALLS_PER_SCRIPT`` in all (stated in the ``messages`` description), both refused with 400
``invalid_messages`` naming the message."""

from __future__ import annotations

import json

import pytest

from skill_rule.limits import MAX_CALLS_PER_ROUND, MAX_CALLS_PER_SCRIPT, MAX_MESSAGES
from tests.api.support import ROUNDS, USER, error_of


@pytest.fixture
def schema(db, staff_client):
    response = staff_client.get("/api/v1/schema?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def _calls(n: int, start: int = 0) -> dict:
    return {
        "role": "assistant",
        "tool_calls": [{"id": f"c{start + k}", "name": "query_order", "arguments": {}} for k in range(n)],
    }


def test_the_schema_states_the_call_limits(schema):
    components = schema["components"]["schemas"]
    assert components["Message"]["properties"]["tool_calls"]["maxItems"] == MAX_CALLS_PER_ROUND
    for name in ("RoundsInput", "CheckCallInput", "LoadSkillInput"):
        messages = components[name]["properties"]["messages"]
        assert messages["maxItems"] == MAX_MESSAGES, name
        assert (
            f"At most {MAX_MESSAGES} messages, {MAX_CALLS_PER_ROUND} calls per message and "
            f"{MAX_CALLS_PER_SCRIPT} calls in all"
        ) in messages["description"], name


def test_a_message_at_the_call_limit_is_answered(bitmall, post):
    response = post(ROUNDS, {"messages": [USER, _calls(MAX_CALLS_PER_ROUND)]})
    assert response.status_code == 200
    assert response.json()["count"] == 11  # seed 000: nothing loaded, 11 tools


def test_a_message_past_the_call_limit_is_400_naming_it(bitmall, post):
    error = error_of(post(ROUNDS, {"messages": [USER, _calls(MAX_CALLS_PER_ROUND + 1)]}), 400)
    assert error["code"] == "invalid_messages"
    assert error["message"] == (
        f"messages[1]: {MAX_CALLS_PER_ROUND + 1} calls in one message; at most "
        f"{MAX_CALLS_PER_ROUND} calls per round are accepted"
    )
    assert error["details"]["index"] == 1


def test_messages_past_the_calls_in_all_are_400_naming_the_message_that_passes(bitmall, post):
    full = MAX_CALLS_PER_SCRIPT // MAX_CALLS_PER_ROUND
    messages = [_calls(MAX_CALLS_PER_ROUND, k * MAX_CALLS_PER_ROUND) for k in range(full)] + [_calls(1, 10**6)]
    error = error_of(post(ROUNDS, {"messages": messages}), 400)
    assert error["code"] == "invalid_messages"
    assert error["message"] == (
        f"messages[{full}]: more than {MAX_CALLS_PER_SCRIPT} calls in the messages; "
        f"at most {MAX_CALLS_PER_SCRIPT} are accepted"
    )
