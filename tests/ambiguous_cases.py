"""One table of ambiguous JSON (docs/transcripts.md, "Ambiguous JSON") with the exact loaded skills,
warnings and verdicts each must give against the bitmall demo catalog (release 1, as loaded).

Messages and calls are given as JSON **text** — a duplicate key cannot be written as a Python dict —
and run through the domain (``tests/domain/test_ambiguous_json.py``, read with ``jsontext.loads``),
the runtime API (``tests/api/test_ambiguous_json.py``, posted as raw bytes), the preview's paste box
(``tests/views/test_ambiguous_json.py``) and the Python client (``tests/api/test_client_ambiguous.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from tests.api.support import BITMALL_GATED

BIG = "1" * 5001  # past Python's 4,300-digit limit: a ValueError (a 500) before jsontext
#: The demo's order_change manual as published: only a whole published manual loads (docs/transcripts.md).
from tests.transcript_cases import MANUAL_V1 as MANUAL  # noqa: E402

USER = '{"role": "user", "content": "那台iPhone我不想要了，帮我取消"}'


def oa_load(arguments_text: str, call_id: str = "call_1", *, function_extra: str = "", call_extra: str = "") -> str:
    """An OpenAI assistant message calling load_skill with ``arguments_text``: JSON text escaped for
    inside a JSON string (it starts with ``{\\"``: sent as OpenAI sends it, a string), or an object."""
    arguments = f'"{arguments_text}"' if arguments_text.startswith('{\\"') else arguments_text
    return (
        '{"role": "assistant", "content": null, "tool_calls": [{"id": "%s"%s, "type": "function", '
        '"function": {"name": "load_skill"%s, "arguments": %s}}]}' % (call_id, call_extra, function_extra, arguments)
    )


def oa_result(call_id: str = "call_1", *, extra: str = "", content: str = MANUAL) -> str:
    return '{"role": "tool", "tool_call_id": "%s"%s, "content": %s}' % (call_id, extra, json.dumps(content))


GOOD_ARGS = '{\\"skill_code\\": \\"order_change\\"}'


@dataclass(frozen=True)
class Case:
    id: str
    #: JSON text of the message list.
    text: str
    loaded: frozenset[str]
    #: (code, 0-based message index) of every warning, in order.
    warnings: tuple[tuple[str, int], ...] = ()
    #: The exact sentence of the first warning (when given).
    first: str | None = None

    def masked(self) -> dict[str, str]:
        return {t: s for t, s in BITMALL_GATED.items() if s not in self.loaded}

    def loaded_in(self, order: list[str]) -> list[str]:
        return [code for code in order if code in self.loaded]


def _list(*messages: str) -> str:
    return "[" + ", ".join(messages) + "]"


OC = frozenset({"order_change"})
NONE: frozenset[str] = frozenset()

CASES = [
    Case("control: a plain load releases order_change", _list(USER, oa_load(GOOD_ARGS), oa_result()), OC),
    Case(
        "skill_code twice in the arguments text",
        _list(
            USER,
            oa_load('{\\"skill_code\\": \\"after_sale_apply\\", \\"skill_code\\": \\"order_change\\"}'),
            oa_result(),
        ),
        NONE,
        (("arguments_ambiguous", 1),),
        "messages[1]: tool_calls[0] (load_skill): arguments are ambiguous JSON (key 'skill_code' appears twice); "
        "read as no arguments",
    ),
    Case(
        "skill_code twice with the same value, arguments an object",
        _list(USER, oa_load('{"skill_code": "order_change", "skill_code": "order_change"}'), oa_result()),
        NONE,
        (("arguments_ambiguous", 1),),
    ),
    Case(
        "a 5,001-digit integer in the arguments text (was a 500)",
        _list(USER, oa_load('{\\"skill_code\\": \\"order_change\\", \\"n\\": %s}' % BIG), oa_result()),
        NONE,
        (("arguments_ambiguous", 1),),
        "messages[1]: tool_calls[0] (load_skill): arguments are ambiguous JSON (n: integer with 5001 digits is "
        "outside ±(2^53−1)); read as no arguments",
    ),
    Case(
        "2^53 + 1 in an arguments object",
        _list(USER, oa_load('{"skill_code": "order_change", "n": 9007199254740993}'), oa_result()),
        NONE,
        (("arguments_ambiguous", 1),),
        "messages[1]: tool_calls[0] (load_skill): arguments are ambiguous JSON (n: integer 9007199254740993 is "
        "outside ±(2^53−1)); read as no arguments",
    ),
    Case(
        "2^53 − 1 is a plain number",
        _list(USER, oa_load('{"skill_code": "order_change", "n": 9007199254740991}'), oa_result()),
        OC,
    ),
    Case(
        "1e400 nested in the arguments",
        _list(USER, oa_load('{"skill_code": "order_change", "opts": [{"x": 1e400}]}'), oa_result()),
        NONE,
        (("arguments_ambiguous", 1),),
        "messages[1]: tool_calls[0] (load_skill): arguments are ambiguous JSON (opts[0].x: number 1e400 is too "
        "large for a double); read as no arguments",
    ),
    Case(
        "NaN in the arguments text",
        _list(USER, oa_load('{\\"skill_code\\": \\"order_change\\", \\"n\\": NaN}'), oa_result()),
        NONE,
        (("arguments_ambiguous", 1),),
    ),
    Case(
        "a lone surrogate in the arguments",
        _list(USER, oa_load('{"skill_code": "order_change", "note": "\\ud800"}'), oa_result()),
        NONE,
        (("arguments_ambiguous", 1),),
        "messages[1]: tool_calls[0] (load_skill): arguments are ambiguous JSON (note: string holds a lone surrogate "
        "\\ud800); read as no arguments",
    ),
    Case(
        "tool_call_id twice in the result",
        _list(USER, oa_load(GOOD_ARGS), oa_result(extra=', "tool_call_id": "call_1"')),
        NONE,
        (("message_ambiguous", 2),),
        "messages[2]: ambiguous JSON (key 'tool_call_id' appears twice); its results are read as failed and its "
        "calls as having no arguments, so it loads nothing",
    ),
    Case(
        "content twice in the result",
        _list(USER, oa_load(GOOD_ARGS), oa_result(extra=', "content": "# other"')),
        NONE,
        (("message_ambiguous", 2),),
    ),
    Case(
        "a 5,001-digit skill_version in the marked result",
        _list(
            USER,
            '{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "load_skill", '
            '"arguments": {"skill_code": "order_change"}}]}',
            '{"role": "tool", "tool_call_id": "c1", "content": %s, "metadata": '
            '{"ragent_loaded_skill": "order_change", "skill_version": %s}}' % (json.dumps(MANUAL), BIG),
        ),
        NONE,
        (("message_ambiguous", 2),),
        "messages[2]: ambiguous JSON (metadata.skill_version: integer with 5001 digits is outside ±(2^53−1)); its "
        "results are read as failed and its calls as having no arguments, so it loads nothing",
    ),
    Case(
        "the call's id twice: the result answering it loads nothing",
        _list(USER, oa_load(GOOD_ARGS, call_extra=', "id": "call_1"'), oa_result()),
        NONE,
        (("message_ambiguous", 1),),
        "messages[1]: ambiguous JSON (tool_calls[0]: key 'id' appears twice); its results are read as failed and "
        "its calls as having no arguments, so it loads nothing",
    ),
    Case(
        "function.name twice",
        _list(USER, oa_load(GOOD_ARGS, function_extra=', "name": "load_skill"'), oa_result()),
        NONE,
        (("message_ambiguous", 1),),
        "messages[1]: ambiguous JSON (tool_calls[0].function: key 'name' appears twice); its results are read as "
        "failed and its calls as having no arguments, so it loads nothing",
    ),
    Case(
        "an ambiguous old user message never blocks a later load",
        _list('{"role": "user", "content": "hi", "metadata": {"t": NaN}}', oa_load(GOOD_ARGS), oa_result()),
        OC,
        (("message_ambiguous", 0),),
        "messages[0]: ambiguous JSON (metadata.t: NaN is not a JSON number); its results are read as failed and its "
        "calls as having no arguments, so it loads nothing",
    ),
    Case(
        "role twice in a user message",
        _list('{"role": "user", "role": "user", "content": "hi"}', oa_load(GOOD_ARGS), oa_result()),
        OC,
        (("message_ambiguous", 0),),
    ),
    Case(
        "Anthropic tool_use input with skill_code twice",
        _list(
            USER,
            '{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "load_skill", '
            '"input": {"skill_code": "order_change", "skill_code": "order_change"}}]}',
            '{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "# m"}]}',
        ),
        NONE,
        (("arguments_ambiguous", 1),),
        "messages[1]: tool_calls[0] (load_skill): arguments are ambiguous JSON (key 'skill_code' appears twice); "
        "read as no arguments",
    ),
    Case(
        "Anthropic tool_result block with is_error twice",
        _list(
            USER,
            '{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "load_skill", '
            '"input": {"skill_code": "order_change"}}]}',
            '{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": true, '
            '"is_error": false, "content": "# m"}]}',
        ),
        NONE,
        (("message_ambiguous", 2),),
        "messages[2]: ambiguous JSON (content[0]: key 'is_error' appears twice); its results are read as failed and "
        "its calls as having no arguments, so it loads nothing",
    ),
]


@dataclass(frozen=True)
class CallCase:
    id: str
    #: JSON text of check-call's ``call``.
    text: str
    verdict: str
    reason: str | None
    message: str


CALL_CASES = [
    CallCase(
        "control",
        '{"name": "query_order", "arguments": {"order_no": "88239"}}',
        "allowed",
        None,
        "'query_order' may run",
    ),
    CallCase(
        "order_no twice, arguments an object",
        '{"name": "query_order", "arguments": {"order_no": "88239", "order_no": "10001"}}',
        "refused",
        "invalid_arguments",
        "invalid arguments for 'query_order': call (query_order): arguments are ambiguous JSON (key 'order_no' "
        "appears twice); read as no arguments",
    ),
    CallCase(
        "order_no twice, arguments JSON text (OpenAI)",
        '{"id": "c9", "type": "function", "function": {"name": "query_order", '
        '"arguments": "{\\"order_no\\": \\"88239\\", \\"order_no\\": \\"10001\\"}"}}',
        "refused",
        "invalid_arguments",
        "invalid arguments for 'query_order': call (query_order): arguments are ambiguous JSON (key 'order_no' "
        "appears twice); read as no arguments",
    ),
    CallCase(
        "a 5,001-digit integer in the arguments text (was a 500)",
        '{"name": "query_order", "arguments": "{\\"order_no\\": %s}"}' % BIG,
        "refused",
        "invalid_arguments",
        "invalid arguments for 'query_order': call (query_order): arguments are ambiguous JSON (order_no: "
        "integer with 5001 digits is outside ±(2^53−1)); read as no arguments",
    ),
    CallCase(
        "2^53 + 1 in the arguments",
        '{"name": "query_order", "arguments": {"order_no": 9007199254740993}}',
        "refused",
        "invalid_arguments",
        "invalid arguments for 'query_order': call (query_order): arguments are ambiguous JSON (order_no: "
        "integer 9007199254740993 is outside ±(2^53−1)); read as no arguments",
    ),
    CallCase(
        "Infinity in the arguments",
        '{"name": "query_order", "arguments": {"order_no": "88239", "x": Infinity}}',
        "refused",
        "invalid_arguments",
        "invalid arguments for 'query_order': call (query_order): arguments are ambiguous JSON (x: Infinity is "
        "not a JSON number); read as no arguments",
    ),
    CallCase(
        "load_skill with skill_code twice",
        '{"name": "load_skill", "arguments": {"skill_code": "order_change", "skill_code": "order_change"}}',
        "refused",
        "invalid_arguments",
        "invalid arguments for 'load_skill': call (load_skill): arguments are ambiguous JSON (key 'skill_code' "
        "appears twice); read as no arguments",
    ),
]

#: Calls ambiguous outside their arguments: only the API reads the call as JSON text (the domain and
#: the client are given a call already read).
API_CALL_CASES = [
    CallCase(
        "name twice",
        '{"name": "cancel_order", "name": "query_order", "arguments": {"order_no": "88239"}}',
        "refused",
        "invalid_arguments",
        "invalid arguments for 'query_order': call (query_order): the call is ambiguous JSON (key 'name' appears "
        "twice); read as no arguments",
    ),
    CallCase(
        "arguments twice",
        '{"name": "query_order", "arguments": {"order_no": "88239"}, "arguments": {"order_no": "10001"}}',
        "refused",
        "invalid_arguments",
        "invalid arguments for 'query_order': call (query_order): the call is ambiguous JSON (key 'arguments' "
        "appears twice); read as no arguments",
    ),
]
