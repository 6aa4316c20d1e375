"""What a fresh user broke in issue 22's first cut (session 21), each through the runtime API and
the client with exact answers:

- a message or a content block whose ``type`` is no string (``[]``, ``{}``, ``5``) gave a 500 on
  every endpoint and a ``TypeError`` in the client: it is a 400 ``invalid_messages`` naming the
  message (docs/transcripts.md, "Shapes accepted"), a ``MessageError`` in the client;
- a lone surrogate or an integer past ±(2^53−1) outside a call's arguments in a retained message
  was marked by the server (``message_ambiguous``, nothing loads) but read as plain by the client,
  which then released ``cancel_order``: both now read it fail closed.
"""

from __future__ import annotations

import json

import pytest

from skill_rule import MessageError
from tests.api.test_client_ambiguous import make_local_client
from tests.transcript_cases import MANUAL_V1 as MANUAL

URL = "/api/v1/runtime/"
USER = {"role": "user", "content": "那台iPhone我不想要了，帮我取消"}
LOAD = {
    "role": "assistant",
    "content": "",
    "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": "order_change"}}],
}
CANCEL = {"id": "z", "name": "cancel_order", "arguments": {"order_no": "88239"}}

NOT_A_TYPE = [
    (
        [{"role": "user", "content": "hi", "type": []}],
        "messages[0]: type must be a string (an OpenAI Responses item type), got []",
    ),
    (
        [{"role": "user", "content": "hi", "type": {}}],
        "messages[0]: type must be a string (an OpenAI Responses item type), got {}",
    ),
    (
        [USER, {"type": [1], "call_id": "c1", "output": "x"}],
        "messages[1]: type must be a string (an OpenAI Responses item type), got [1]",
    ),
    (
        [{"role": "user", "content": [{"type": {}, "text": "x"}]}],
        "messages[0]: content[0]: block type {} is not understood",
    ),
    (
        [
            USER,
            LOAD,
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "c1", "content": [{"type": 5, "text": MANUAL}]}],
            },
        ],
        "messages[2]: content[0].content[0]: block type 5 is not understood",
    ),
]


def _post(api_client, endpoint: str, body: dict) -> tuple[int, dict]:
    response = api_client.post(URL + endpoint, data=json.dumps(body), content_type="application/json")
    return response.status_code, response.json()


@pytest.mark.parametrize(("messages", "message"), NOT_A_TYPE)
def test_a_type_that_is_no_string_is_a_400_naming_the_message(bitmall, api_client, tmp_path, messages, message) -> None:
    for endpoint, extra in (
        ("rounds", {}),
        ("check-call", {"call": CANCEL}),
        ("load-skill", {"skill_code": "order_change"}),
    ):
        status, body = _post(api_client, endpoint, {"messages": messages, **extra})
        assert (status, body["error"]["code"], body["error"]["message"]) == (400, "invalid_messages", message), endpoint
    client = make_local_client(api_client, tmp_path)
    with pytest.raises(MessageError) as caught:
        client.round(messages)
    assert str(caught.value) == message


RESULT = {"role": "tool", "tool_call_id": "c1", "content": MANUAL}
DOUBTFUL = [
    ("a lone surrogate after the manual", [USER, LOAD, {**RESULT, "content": MANUAL + "\ud800"}]),
    (
        "a lone surrogate in the result's metadata",
        [USER, LOAD, {**RESULT, "metadata": {"ragent_loaded_skill": "order_change", "note": "\udfff"}}],
    ),
    (
        "an integer past 2^53 in the result's metadata",
        [USER, LOAD, {**RESULT, "metadata": {"ragent_loaded_skill": "order_change", "skill_version": 2**60}}],
    ),
]


@pytest.mark.parametrize(("label", "messages"), DOUBTFUL, ids=[d[0] for d in DOUBTFUL])
def test_the_client_reads_doubtful_values_outside_arguments_as_the_server_does(
    bitmall, api_client, tmp_path, label, messages
) -> None:
    # the JSON text a runtime sends (json.dumps escapes a lone surrogate as \udXXX; the server marks it)
    status, served = _post(api_client, "rounds", {"messages": messages})
    assert status == 200, served
    assert (served["loaded"], [(w["code"], w["index"]) for w in served["warning_details"]]) == (
        [],
        [("message_ambiguous", 2)],
    )
    status, verdict = _post(api_client, "check-call", {"messages": messages, "call": CANCEL})
    assert (verdict["verdict"], verdict["reason"], verdict["skill_code"]) == ("refused", "masked", "order_change")
    client = make_local_client(api_client, tmp_path)
    view = client.round(messages)
    assert (list(view.loaded), [(w.code, w.params["index"]) for w in view.warnings]) == ([], [("message_ambiguous", 2)])
    local = client.check_call(messages, CANCEL)
    assert (local.verdict, local.reason, local.skill_code) == ("refused", "masked", "order_change")
    # a long number inside a string is no integer: the walk finds nothing, the manual loads
    plain = [USER, LOAD, {**RESULT, "metadata": {"ragent_loaded_skill": "order_change", "trace": "1" * 30}}]
    assert list(client.round(plain).loaded) == ["order_change"]


#: A call that names its tool or gives its arguments twice: runtimes reading different places run
#: different calls, so the guard refuses it (docs/transcripts.md, "A call named twice").
TWICE = [
    (
        {"name": "cancel_order", "type": "function", "function": {"name": "query_order", "arguments": "{}"}},
        "query_order",
        "name 'cancel_order' beside function.name 'query_order'",
    ),
    (
        {
            "id": "c9",
            "type": "function",
            "arguments": {"order_no": "1"},
            "function": {"name": "query_order", "arguments": "{}"},
        },
        "query_order",
        "arguments beside function.arguments",
    ),
    (
        {"name": "query_order", "arguments": {}, "input": {"order_no": "not-a-number"}},
        "query_order",
        "arguments beside input",
    ),
]


@pytest.mark.parametrize(("call", "tool", "cause"), TWICE)
def test_a_call_named_twice_is_refused_by_the_server_and_the_client(
    bitmall, api_client, tmp_path, call, tool, cause
) -> None:
    message = (
        f"invalid arguments for '{tool}': call ({tool}): the call is ambiguous JSON ({cause}); read as no arguments"
    )
    status, verdict = _post(api_client, "check-call", {"messages": [USER], "call": call})
    assert (status, verdict["verdict"], verdict["reason"], verdict["message"]) == (
        200,
        "refused",
        "invalid_arguments",
        message,
    )
    local = make_local_client(api_client, tmp_path).check_call([USER], call)
    assert (local.verdict, local.reason, local.message) == ("refused", "invalid_arguments", message)
    same = {**call, "name": tool} if "function" in call and "name" in call else None
    if same is not None:  # the same name in both places is no ambiguity
        assert make_local_client(api_client, tmp_path).check_call([USER], same).reason != "invalid_arguments"


def test_a_retained_load_skill_named_twice_loads_nothing(bitmall, api_client, tmp_path) -> None:
    messages = [
        USER,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "name": "query_order",
                    "type": "function",
                    "function": {"name": "load_skill", "arguments": json.dumps({"skill_code": "order_change"})},
                }
            ],
        },
        RESULT,
    ]
    status, served = _post(api_client, "rounds", {"messages": messages})
    assert (status, served["loaded"], [(w["code"], w["index"]) for w in served["warning_details"]]) == (
        200,
        [],
        [("arguments_ambiguous", 1)],
    )
    assert served["warnings"][0] == (
        "messages[1]: tool_calls[0] (load_skill): arguments are ambiguous JSON (name "
        "'query_order' beside function.name 'load_skill'); read as no arguments"
    )
    view = make_local_client(api_client, tmp_path).round(messages)
    assert (list(view.loaded), [w.code for w in view.warnings]) == ([], ["arguments_ambiguous"])


def test_a_responses_message_after_the_calls_is_the_same_response(bitmall, api_client, tmp_path) -> None:
    """[function_call load_skill, function_call cancel_order, assistant message, the load's output]:
    the message item after the calls is part of the model's one response, so cancel_order was
    chosen before the manual was read (refused masked), as with the message before the calls."""
    from tests.transcript_cases import RS_USER, rs_load, rs_output

    cancel = {
        "type": "function_call",
        "call_id": "call_2",
        "name": "cancel_order",
        "arguments": json.dumps({"order_no": "88239"}),
    }
    says = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "好的"}]}
    for messages in (
        [RS_USER, rs_load("call_1", "order_change"), cancel, says, rs_output("call_1", MANUAL)],
        [RS_USER, says, rs_load("call_1", "order_change"), cancel, rs_output("call_1", MANUAL)],
    ):
        status, verdict = _post(api_client, "check-call", {"messages": messages, "call": cancel})
        assert (status, verdict["verdict"], verdict["reason"], verdict["skill_code"]) == (
            200,
            "refused",
            "masked",
            "order_change",
        )
        local = make_local_client(api_client, tmp_path).check_call(messages, cancel)
        assert (local.verdict, local.reason) == ("refused", "masked")
        status, served = _post(api_client, "rounds", {"messages": messages})
        assert served["loaded"] == ["order_change"]  # the manual is read: the next call is in a new round
