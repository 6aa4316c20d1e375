"""One table of guard verdicts that depend on *the round of a call* (docs/rule.md, "The round of a
call") and on load_skill's own arguments, with the exact verdict each must give against the
bitmall demo catalog — through the domain's ``check_call``, ``POST runtime/check-call``, the
client's ``check_call``, the simulator (a YAML script) and the preview's replay of a pasted
transcript.

Runners: ``tests/domain/test_call_round_table.py`` (check_call, simulate, replay),
``tests/api/test_call_round_table.py``, ``tests/views/test_call_round_table.py`` (the paste box,
YAML and JSON) and ``tests/test_client_tables.py`` (the client against a live server).

Bitmall: cancel_order is gated by order_change and its node has ``require_confirm`` (confirm
once released).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

USER = {"role": "user", "content": "那台iPhone 18 Pro Max我不想要了，帮我取消"}
#: The demo's order_change manual as published (only a whole published manual loads, docs/transcripts.md).
from tests.transcript_cases import MANUAL_V1 as MANUAL  # noqa: E402

MARKER = "ragent_loaded_skill"
CANCEL_ARGS = {"order_no": "88239"}
MASKED = ("refused", "masked", "order_change")
CONFIRM = ("confirm", None, None)


def oa(call_id: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    if call_id is not None:
        call["id"] = call_id
    return call


def assistant(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def result(call_id: Any, content: str = MANUAL, **extra: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "tool", "content": content, **extra}
    if call_id is not None:
        msg["tool_call_id"] = call_id
    return msg


LOAD = oa("call_0", "load_skill", {"skill_code": "order_change"})
CANCEL = oa("call_1", "cancel_order", CANCEL_ARGS)
#: load_skill(order_change) and cancel_order in one assistant message, the load result appended.
SIDE_BY_SIDE = [USER, assistant(LOAD, CANCEL), result("call_0")]
#: …and the refused cancel_order's result: the turn is over.
TURN_DONE = [*SIDE_BY_SIDE, result("call_1", "tool 'cancel_order' is masked", state="error")]
#: The YAML script of the same step (the simulator numbers the calls call_1, call_2).
SIDE_BY_SIDE_YAML = (
    "steps:\n  - user: 取消\n  - assistant:\n      calls: [{load_skill: {skill_code: order_change}}, "
    '{cancel_order: {order_no: "88239"}}]\n'
)


@dataclass(frozen=True)
class Case:
    id: str
    #: the messages given to check-call
    messages: list[dict[str, Any]]
    #: the call checked, as a runtime sends it
    call: dict[str, Any]
    #: (verdict, reason, skill_code)
    expected: tuple[str, str | None, str | None]
    #: a YAML script whose last assistant step's last call is this call in this round
    script: str


def _yaml_call(call: dict[str, Any]) -> str:
    name = call.get("name") or call["function"]["name"]
    args = call.get("arguments") if "function" not in call else json.loads(call["function"]["arguments"])
    return json.dumps({name: args}, ensure_ascii=False)


def _next_turn(call: dict[str, Any], before: str = SIDE_BY_SIDE_YAML) -> str:
    return before + f"  - assistant:\n      calls: [{_yaml_call(call)}]\n"


CASES: tuple[Case, ...] = (
    Case(
        "load_skill and cancel_order side by side, the load result present: cancel_order is judged in its round",
        SIDE_BY_SIDE,
        CANCEL,
        MASKED,
        SIDE_BY_SIDE_YAML,
    ),
    Case(
        "side by side, both results present: still the round of the call", TURN_DONE, CANCEL, MASKED, SIDE_BY_SIDE_YAML
    ),
    Case(
        "side by side, the call in the OpenAI shape as the model sent it",
        SIDE_BY_SIDE,
        {"id": "call_1", "name": "cancel_order", "arguments": json.dumps(CANCEL_ARGS)},
        MASKED,
        SIDE_BY_SIDE_YAML,
    ),
    Case(
        "side by side without ids: the call is found by its name and arguments",
        [
            USER,
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"name": "load_skill", "arguments": {"skill_code": "order_change"}},
                    {"name": "cancel_order", "arguments": CANCEL_ARGS},
                ],
            },
            result(None, metadata={MARKER: "order_change", "skill_version": 1}),
        ],
        {"name": "cancel_order", "arguments": CANCEL_ARGS},
        MASKED,
        SIDE_BY_SIDE_YAML,
    ),
    Case(
        "side by side in the Anthropic shape",
        [
            USER,
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "load_skill",
                        "input": {"skill_code": "order_change"},
                    },
                    {"type": "tool_use", "id": "toolu_2", "name": "cancel_order", "input": CANCEL_ARGS},
                ],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": MANUAL}]},
        ],
        {"type": "tool_use", "id": "toolu_2", "name": "cancel_order", "input": CANCEL_ARGS},
        MASKED,
        SIDE_BY_SIDE_YAML,
    ),
    Case(
        "the same call checked before its assistant message is appended: judged on the messages as given",
        [USER],
        CANCEL,
        MASKED,
        SIDE_BY_SIDE_YAML,
    ),
    Case(
        "the next turn's cancel_order, already appended: the manual is in its round",
        [*TURN_DONE, assistant(oa("call_2", "cancel_order", CANCEL_ARGS))],
        oa("call_2", "cancel_order", CANCEL_ARGS),
        CONFIRM,
        _next_turn(CANCEL),
    ),
    Case(
        "the next turn's cancel_order, not appended yet",
        TURN_DONE,
        oa("call_2", "cancel_order", CANCEL_ARGS),
        CONFIRM,
        _next_turn(CANCEL),
    ),
    Case(
        "an id reused every turn (call_0): only the last assistant message carries the call",
        [
            USER,
            assistant(oa("call_0", "load_skill", {"skill_code": "order_change"})),
            result("call_0"),
            assistant(oa("call_0", "cancel_order", CANCEL_ARGS)),
        ],
        oa("call_0", "cancel_order", CANCEL_ARGS),
        CONFIRM,
        "steps:\n  - user: 取消\n  - assistant: {calls: [{load_skill: {skill_code: order_change}}]}\n"
        '  - assistant: {calls: [{cancel_order: {order_no: "88239"}}]}\n',
    ),
    Case(
        "an older message with the call's id is history: the call is judged on the messages as given",
        [*TURN_DONE, {"role": "assistant", "content": "手册已加载，现在取消"}],
        CANCEL,
        CONFIRM,
        _next_turn(CANCEL),
    ),
    # load_skill's own arguments against its published parameters (docs/rule.md, "The guard")
    Case(
        "load_skill with an extra key is refused, naming the key",
        [USER],
        {"name": "load_skill", "arguments": {"skill_code": "order_change", "reason": "用户要取消"}},
        ("refused", "invalid_arguments", None),
        "steps:\n  - user: 取消\n  - assistant: {calls: [{load_skill: {skill_code: order_change, reason: 用户要取消}}]}\n",
    ),
    Case(
        "load_skill of a code not on offer with an extra key: unknown_skill, as before",
        [USER],
        {"name": "load_skill", "arguments": {"skill_code": "nope", "reason": "x"}},
        ("refused", "unknown_skill", None),
        "steps:\n  - user: 取消\n  - assistant: {calls: [{load_skill: {skill_code: nope, reason: x}}]}\n",
    ),
    Case(
        "load_skill with its one parameter is allowed",
        [USER],
        {"name": "load_skill", "arguments": {"skill_code": "order_change"}},
        ("allowed", None, "order_change"),
        "steps:\n  - user: 取消\n  - assistant: {calls: [{load_skill: {skill_code: order_change}}]}\n",
    ),
)

#: The exact sentence of the extra-key refusal (docs/rule.md).
EXTRA_KEY_MESSAGE = "invalid arguments for 'load_skill': unexpected key 'reason'; its parameters: skill_code"


def carrier(case: Case) -> bool:
    """True when the checked call is in the last assistant message of ``case.messages`` (then a
    replay judges it there; otherwise the replay appends it as the next assistant message)."""
    from skill_rule import parse_messages
    from skill_rule.rules import call_round

    msgs = parse_messages(case.messages)
    return len(call_round(msgs, _as_tool_call(case.call))) != len(msgs)


def _as_tool_call(call: dict[str, Any]):
    from skill_client.client import _call
    from skill_rule.messages import ToolCall, parse_arguments

    plain = _call(call)
    args, problem = parse_arguments(plain["arguments"], name=plain["name"])
    return ToolCall(name=plain["name"], arguments=args, id=plain["id"], problem=problem)


def replayed(case: Case) -> tuple[list[dict[str, Any]], int]:
    """The transcript the preview replays for ``case`` and the position of the call among the
    calls of its last round."""
    from skill_rule import parse_messages

    if carrier(case):
        last = [m for m in parse_messages(case.messages) if m.role == "assistant"][-1]
        call = _as_tool_call(case.call)
        at = next(
            k
            for k, c in enumerate(last.tool_calls)
            if ((c.id == call.id) if call.id else (c.name == call.name and c.arguments == call.arguments))
        )
        return case.messages, at
    plain = _call_dict(case.call)
    return [*case.messages, {"role": "assistant", "content": "", "tool_calls": [plain]}], 0


def _call_dict(call: dict[str, Any]) -> dict[str, Any]:
    from skill_client.client import _call

    return dict(_call(call))
