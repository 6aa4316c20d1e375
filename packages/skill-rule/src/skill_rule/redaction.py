"""Redaction of a conversation sample (docs/runtime-api.md, "Samples"): the retained messages of a
round with everything the rule and the guard do not read replaced by its length.

``redact_messages(messages)`` takes the messages a round was computed on (any shape
``parse_messages`` reads, or ``Message`` objects) and returns a list of messages in the console's
own shape (``Message.as_dict``) that ``parse_messages`` reads back to the same round:

- the text of ``user``, ``system`` and ``assistant`` messages → ``""``, with ``"redacted":
  {"chars": N}`` on the message (N = characters of the text; absent when there was none);
- a tool result that may be a manual — it answers a ``load_skill`` call, or carries the marker
  (``marker_key``) — is kept whole: its content is the manual (the console's own text), and the
  rule checks it holds a whole published manual; any other tool result's content → ``""`` with
  ``"redacted": {"chars": N}``. ``state`` and ``tool_call_id`` are kept;
- metadata: the keys the rule reads (the marker, ``skill_version``, ``evicted``,
  ``already_loaded``) keep their values, any other key is kept with the value ``null`` (a result
  with metadata but no marker loads nothing: that must stay so);
- call ids and tool names are kept; the arguments of ``load_skill`` keep ``skill_code`` when it
  is a skill code (a string of the skill-code pattern, or ``""``), ``"?"`` for any other string
  (no skill: the same verdict), ``null`` for a value that is no string; its other keys are kept
  with ``null``. Every other call's arguments → ``{}`` with ``"redacted": {"chars": N}`` on the
  call (N = characters of the arguments' canonical JSON). ``keep_arguments=True`` keeps every
  call's arguments as they were read;
- what the reader warned of is kept in a form that gives the same warning (arguments that were
  not a JSON object, metadata that was no object, an id that was no string). A message of JSON
  readers disagree on (``message_ambiguous``: a key twice) cannot be written again as plain JSON:
  its results are kept as failed and its calls without arguments — how the rule read it — and
  only that warning is lost; free text given as arguments (``arguments_free_text``) reads
  back as ``arguments_unparseable``.

Replay fidelity (tests/domain/test_redaction.py): ``compute_round`` on the redacted messages gives
the same visible, masked and loaded tools, withheld tools and warning codes; ``check_call`` of a
redacted call gives the same verdict, reason and skill code for ``load_skill`` and for every
verdict the guard reaches before the argument check (unknown tool, invalid definition, masked,
not permitted, stage). The argument check of other tools (``invalid_arguments`` against the
tool's schema, and so ``allowed`` / ``confirm`` after it) reads the arguments: replaying it needs
``keep_arguments=True`` (the client's ``sample_arguments``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .limits import DEFAULT_MARKER_KEY, LOAD_SKILL, is_valid_skill_code
from .messages import Message, ToolCall, as_messages
from .transcript import ALREADY_LOADED_KEY, pair_results

#: Metadata keys whose values the rule reads (besides the marker key).
KEPT_METADATA = ("skill_version", "evicted", ALREADY_LOADED_KEY)
#: ``Sample.redaction``: what a sample's messages hold.
REDACTED, ARGUMENTS = "redacted", "arguments"
MODES = (REDACTED, ARGUMENTS)

#: Arguments text that gives the same reading problem again (``messages.parse_arguments``).
_PROBLEM_ARGUMENTS = {
    "arguments_unparseable": "{",
    "arguments_ambiguous": '{"a": 1, "a": 1}',
    "arguments_double_encoded": '"{}"',
    "arguments_free_text": "{",
}
_NOT_OBJECT = {"NoneType": "null", "list": "[]", "int": "0", "float": "0.5", "bool": "true", "str": '"?"'}


def _chars(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str))


def _code_of(value: Any) -> Any:
    if not isinstance(value, str):
        return None
    return value if value == "" or is_valid_skill_code(value) else "?"


def _call(call: ToolCall, position: int, invalid_ids: set[int], *, keep_arguments: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"id": call.id if position not in invalid_ids else 0, "name": call.name}
    problem = call.problem
    if keep_arguments:
        out["arguments"] = dict(call.arguments)
    elif call.name == LOAD_SKILL:
        args = {key: None for key in call.arguments if key != "skill_code"}
        if "skill_code" in call.arguments:
            args["skill_code"] = _code_of(call.arguments["skill_code"])
        out["arguments"] = args
    else:
        out["arguments"] = {}
        if call.arguments:
            out["redacted"] = {"chars": _chars(dict(call.arguments))}
    if problem is not None:  # the same reading problem again, nothing of what was sent
        if problem.code == "arguments_not_object":
            out["arguments"] = _NOT_OBJECT.get(str(problem.params.get("kind")), "null")
        elif problem.code in _PROBLEM_ARGUMENTS:
            text = _PROBLEM_ARGUMENTS[problem.code]
            if problem.code == "arguments_double_encoded":
                text = json.dumps(json.dumps(out["arguments"], ensure_ascii=False), ensure_ascii=False)
            out["arguments"] = text
    return out


def _metadata(meta: Mapping[str, Any], marker_key: str) -> dict[str, Any]:
    kept = (marker_key, *KEPT_METADATA)
    return {key: (value if key in kept else None) for key, value in meta.items()}


def redact_messages(
    messages: Iterable[Message | Mapping[str, Any]],
    *,
    keep_arguments: bool = False,
    marker_key: str = DEFAULT_MARKER_KEY,
) -> list[dict[str, Any]]:
    """The redacted copy of ``messages`` (see the module), in the console's shape. Raises
    ``MessageError`` for a list ``parse_messages`` refuses (the round refused it too)."""
    msgs = as_messages(messages)
    pairing = pair_results(msgs)
    out: list[dict[str, Any]] = []
    for pos, m in enumerate(msgs):
        codes = {p.code for p in m.problems}
        invalid_ids = {
            int(p.params["position"])
            for p in m.problems
            if p.code == "call_id_invalid" and isinstance(p.params.get("position"), int)
        }
        item: dict[str, Any] = {"role": m.role, "content": ""}
        if m.role == "tool":
            call = pairing.call_of(msgs, pos)
            manual = (call is not None and call.name == LOAD_SKILL) or marker_key in m.metadata
            if manual:
                item["content"] = m.content
            elif m.content:
                item["redacted"] = {"chars": len(m.content)}
            item["tool_call_id"] = m.tool_call_id if "call_id_invalid" not in codes else 0
            if "error_flag_ambiguous" in codes:
                item["status"] = "incomplete"  # read as failed, with the same warning
            else:
                item["state"] = m.state if "message_ambiguous" not in codes else "error"
        elif m.content:
            item["redacted"] = {"chars": len(m.content)}
        if m.tool_calls:
            item["tool_calls"] = [
                _call(c, k, invalid_ids, keep_arguments=keep_arguments) for k, c in enumerate(m.tool_calls)
            ]
        elif "tool_calls_invalid" in codes:
            item["tool_calls"] = "?"
        if "metadata_invalid" in codes:
            item["metadata"] = "?"
        elif m.metadata:
            item["metadata"] = _metadata(m.metadata, marker_key)
        out.append(item)
    return out
