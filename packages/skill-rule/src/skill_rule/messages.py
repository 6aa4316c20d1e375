"""Messages retained in a conversation's context (docs/transcripts.md).

``parse_messages`` accepts the console's own shape, OpenAI's chat shape (assistant ``tool_calls``
with ``function.arguments`` as a JSON string), Anthropic's Messages shape (``tool_use`` /
``tool_result`` content blocks) and OpenAI's Responses API input items (``function_call`` /
``function_call_output`` …, ``_expand_responses``) and returns frozen ``Message`` objects. A bad *old* argument never
refuses the list: it becomes a warning on the message (``Message.problems``); only a body that is
not a message list (wrong types, unknown roles or block types, over the limits) raises
``MessageError``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import jsontext
from .errors import MessageError, Problem, ScriptError
from .limits import MAX_CALLS_PER_ROUND, MAX_CALLS_PER_SCRIPT, MAX_MESSAGES, MAX_SCRIPT_CHARS

ROLES = ("user", "assistant", "tool", "system")
_ROLE_SET = frozenset(ROLES)
#: Roles accepted on input and the role they are read as (OpenAI's newer ``developer`` role is a
#: system message).
ROLE_ALIASES: dict[Any, str] = {"developer": "system"}  # read with whatever role a message names
STATES = ("success", "error")
#: ``state`` / ``status`` values (any case) read as a failed tool result (docs/transcripts.md).
ERROR_STATES = frozenset({"error", "failed", "failure"})
#: ``status`` values (any case) read as a successful tool result; any other status reads as failed.
SUCCESS_STATUSES = frozenset({"success", "succeeded", "ok", "completed", "complete", "done"})
#: Content block types whose ``text`` is read as text (OpenAI content parts, Anthropic blocks).
TEXT_BLOCKS = frozenset({"text", "input_text", "output_text", "refusal"})
#: Content block types that carry no text and no call: read as nothing.
NON_TEXT_BLOCKS = frozenset(
    {
        "image",
        "image_url",
        "input_image",
        "input_audio",
        "file",
        "input_file",
        "document",
        "thinking",
        "redacted_thinking",
    }
)
TOOL_USE = "tool_use"
#: The keys ``_is_error`` reads.
_ERROR_FLAG_KEYS = frozenset({"state", "status", "is_error", "isError"})
#: Every ``state`` value a tool result may carry (any case).
_KNOWN_STATES = frozenset({*STATES, *ERROR_STATES})
TOOL_RESULT = "tool_result"


@dataclass(frozen=True)
class ToolCall:
    """One call the model made: ``arguments`` is the decoded JSON object.

    ``problem`` is set (a ``Problem``) when the arguments as sent were not a JSON object — the
    call then has no arguments (``{}``); a double-encoded object is decoded once more and also
    carries a ``problem`` (docs/transcripts.md, "Arguments").
    """

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    id: str = ""
    problem: Problem | None = field(default=None, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": dict(self.arguments)}


@dataclass(frozen=True)
class Message:
    """A retained message. ``state`` is ``success`` unless the tool result carries an error flag.

    ``index`` is the 0-based position of the message in the list as received (an Anthropic user
    message holding several ``tool_result`` blocks is read as several ``tool`` messages sharing
    its index); ``None`` for messages built in code. ``problems`` are the warnings found while
    reading it (bad arguments of its calls).
    """

    role: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    state: str = "success"
    metadata: Mapping[str, Any] = field(default_factory=dict)
    index: int | None = field(default=None, compare=False)
    problems: tuple[Problem, ...] = field(default=(), compare=False)

    def as_dict(self) -> dict[str, Any]:
        """The docs/runtime-api.md JSON shape (empty fields omitted)."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [c.as_dict() for c in self.tool_calls]
        if self.role == "tool":
            out["tool_call_id"] = self.tool_call_id
            out["state"] = self.state
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        return out


def build_frozen(cls: type, values: dict[str, Any]) -> Any:
    """An instance of the frozen dataclass ``cls`` (``Message``, ``ToolCall``) holding ``values``,
    which name every one of its fields: what its ``__init__`` makes, without the
    ``object.__setattr__`` per field that makes a frozen dataclass ~3× slower to build — and a
    runtime request reads up to ``MAX_MESSAGES`` of them (docs/benchmarks.md, "rounds"). Equal,
    hashable and immutable like one built by ``cls(**values)``; ``values`` (a dict of its own,
    not used after) becomes the instance's ``__dict__``."""
    obj: Any = object.__new__(cls)
    object.__setattr__(obj, "__dict__", values)  # ``values`` becomes its attributes: no second dict
    return obj


def _block_type(part: Mapping[str, Any]) -> str | None:
    kind = part.get("type")
    return kind if isinstance(kind, str) else None


def _content_text(content: Any, index: int, *, where: str = "content") -> str:
    """Text of a message's (or a tool_result block's) content: a string, ``None``, or a list of
    blocks. Text blocks are joined; image/thinking-like blocks read as nothing; any other block
    type is refused (``MessageError`` naming the message and the type)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for k, part in enumerate(content):
            if isinstance(part, str):
                parts.append(part)
                continue
            if not isinstance(part, Mapping):
                raise MessageError(f"{where}[{k}] must be a text or a content block object", index=index)
            kind = _block_type(part)
            if kind is None and part.get("type") is not None:  # {} / [] / 5: no block type at all
                raise MessageError(f"{where}[{k}]: block type {shown(part.get('type'))} is not understood", index=index)
            if kind is None and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif kind in TEXT_BLOCKS:
                text = part.get("text", part.get("refusal", ""))
                if not isinstance(text, str):
                    raise MessageError(f"{where}[{k}] ({kind}) has no text", index=index)
                parts.append(text)
            elif kind in NON_TEXT_BLOCKS:
                continue
            else:
                raise MessageError(f"{where}[{k}]: block type {_repr(part.get('type'))} is not understood", index=index)
        return "".join(parts)
    raise MessageError(f"content must be a string, got {type(content).__name__}", index=index)


def parse_arguments(
    raw: Any, *, name: str, index: int | None = None, position: int | None = None
) -> tuple[dict[str, Any], Problem | None]:
    """Read a call's ``arguments`` (an object, or JSON text of one, as OpenAI sends them).

    Returns ``(arguments, problem)``. Absent / empty text → ``({}, None)``. Text that is not JSON
    (``arguments_unparseable``), JSON that is not an object — ``null``, a list, a number, a string
    (``arguments_not_object``) → ``({}, problem)``. An object encoded twice (a JSON string holding
    JSON text of an object) is decoded once more → ``(object, problem arguments_double_encoded)``.
    JSON that readers disagree on — a key twice, an integer outside ±(2^53−1), ``1e400``, ``NaN``, a
    lone surrogate, in the text or in an object marked by ``jsontext.loads`` — → ``({}, problem
    arguments_ambiguous)``. ``problem.params`` hold ``index`` (message, 0-based, may be ``None``),
    ``number`` (1-based), ``position``, ``tool`` (and ``cause``). Never raises (docs/transcripts.md,
    "Arguments" and "Ambiguous JSON").
    """
    if type(raw) is dict:  # pragma: no mutate
        return dict(raw), None
    params = {
        "index": index,
        "number": None if index is None else index + 1,
        "position": position,
        "tool": name,
        "where": f"messages[{index}]: " if index is not None else "",
        "call": f"tool_calls[{position}] ({name})" if position is not None else f"call ({name})",
    }
    value = raw
    if isinstance(value, str) and not isinstance(value, jsontext.AmbiguousValue):
        if not value.strip():
            return {}, None
        try:
            value = jsontext.loads(value)
        except jsontext.JsonTextError as exc:
            return {}, Problem(
                "arguments_unparseable",
                "%(where)s%(call)s: arguments are not valid JSON (%(cause)s); read as no arguments",
                {**params, "cause": exc.msg},
            )
        if isinstance(value, str) and not isinstance(value, jsontext.AmbiguousValue):
            try:
                inner = jsontext.loads(value)
            except jsontext.JsonTextError:
                inner = None  # pragma: no mutate
            if isinstance(inner, Mapping):
                reason = jsontext.ambiguity_of(inner)
                if reason is not None:
                    return {}, ambiguous_arguments(params, reason)
                return dict(inner), Problem(
                    "arguments_double_encoded",
                    "%(where)s%(call)s: arguments are JSON text inside a JSON string; decoded once more",
                    params,
                )
    cause = jsontext.ambiguity_of(value)
    if cause is not None:
        return {}, ambiguous_arguments(params, cause)
    if isinstance(value, Mapping):
        return dict(value), None
    kind = "null" if value is None else type(value).__name__
    return {}, Problem(
        "arguments_not_object",
        "%(where)s%(call)s: arguments are %(kind)s, not a JSON object; read as no arguments",
        {**params, "kind": kind},
    )


def ambiguous_arguments(params: Mapping[str, Any], cause: str) -> Problem:
    """``arguments_ambiguous``: JSON that readers disagree on (a key twice, an integer outside
    ±(2^53−1), ``1e400``, ``NaN``, a lone surrogate; ``jsontext``) — read as no arguments, since the
    tool might run with other values than the guard saw (docs/transcripts.md, "Ambiguous JSON")."""
    return Problem(
        "arguments_ambiguous",
        "%(where)s%(call)s: arguments are ambiguous JSON (%(cause)s); read as no arguments",
        {**params, "cause": cause},
    )


#: Where each call shape carries its name and arguments (docs/transcripts.md, "A call named twice").
_ARGUMENT_KEYS = ("arguments", "input")


def carrier_conflict(raw: Any) -> str | None:
    """Why a call object names its tool or gives its arguments in two places — OpenAI's
    ``function`` beside a top-level ``name`` that differs or a top-level ``arguments`` / ``input``,
    or both ``arguments`` and ``input`` — so that runtimes reading different places would run
    different calls; ``None`` when it carries each once (or twice the same). Fail closed: such a
    retained call has no arguments (``arguments_ambiguous``), such a current call is refused
    ``invalid_arguments`` (docs/transcripts.md, "A call named twice")."""
    if not isinstance(raw, Mapping):
        return None
    function = raw.get("function")
    if isinstance(function, Mapping):
        if "name" in raw and raw["name"] != function.get("name"):
            return f"name {shown(raw['name'])} beside function.name {shown(function.get('name'))}"
        for key in _ARGUMENT_KEYS:
            if key in raw and raw[key] != function.get("arguments"):
                return f"{key} beside function.arguments"
        return None
    if all(key in raw for key in _ARGUMENT_KEYS) and raw["arguments"] != raw["input"]:
        return "arguments beside input"
    return None


def ambiguous_call(name: str, cause: str) -> Problem:
    """``arguments_ambiguous`` of a *current* call (check-call's ``call``, the client's) that is
    ambiguous outside its arguments — a key twice in it, or a name or arguments given twice
    (``call_ambiguity``, ``carrier_conflict``): the guard refuses it ``invalid_arguments``
    (docs/transcripts.md, "A call named twice"). One sentence for the API, the domain and the client."""
    return Problem(
        "arguments_ambiguous",
        "call (%(tool)s): the call is ambiguous JSON (%(cause)s); read as no arguments",
        {"index": None, "number": None, "position": None, "tool": name, "cause": cause},
    )


def _parse_call(raw: Any, index: int, position: int, notes: list[Problem]) -> ToolCall:
    """One call as sent → ``ToolCall``. A present ``id`` that is not a string (``5``, ``true``,
    ``{}``) is read as no id and appends ``call_id_invalid`` to ``notes`` (required: the pairing
    reads that warning on the message, so such a call can never be answered — docs/transcripts.md,
    "Doubtful types")."""
    if type(raw) is not dict:  # pragma: no mutate
        if not isinstance(raw, Mapping):
            raise MessageError(f"tool_calls[{position}] must be an object", index=index)
    function = raw.get("function")
    if isinstance(function, Mapping):  # OpenAI shape
        name = function.get("name")
        arguments: Any = function.get("arguments", {})
    else:
        name = raw.get("name")
        arguments = raw.get("input", {}) if raw.get("type") == TOOL_USE else raw.get("arguments", {})
    if not isinstance(name, str) or not name:
        raise MessageError(f"tool_calls[{position}] has no tool name", index=index)
    if type(arguments) is dict:  # pragma: no mutate
        args, problem = dict(arguments), None
    else:
        args, problem = parse_arguments(arguments, name=name, index=index, position=position)
    twice = carrier_conflict(raw)
    if twice is not None:
        args, problem = (
            {},
            ambiguous_arguments(
                {
                    "index": index,
                    "number": index + 1,
                    "position": position,
                    "tool": name,
                    "where": f"messages[{index}]: ",
                    "call": f"tool_calls[{position}] ({name})",
                },
                twice,
            ),
        )
    call_id = raw.get("id")
    if type(call_id) is not str:  # pragma: no mutate
        if isinstance(call_id, str):  # a string jsontext marked (a lone surrogate): message_ambiguous says why
            call_id = str(call_id)
        elif call_id is not None:
            notes.append(
                Problem(
                    "call_id_invalid",
                    "messages[%(index)s]: tool_calls[%(position)s] (%(tool)s): the id is %(value)s, not a string; no "
                    "result can answer this call",
                    {
                        "index": index,
                        "number": index + 1,
                        "position": position,
                        "tool": name,
                        "value": shown(call_id),
                        "field": f"tool_calls[{position}] ({name}) id",
                    },
                )
            )
            call_id = ""
        else:
            call_id = ""
    return build_frozen(ToolCall, {"name": name, "arguments": args, "id": call_id, "problem": problem})


def _repr(value: Any) -> str:
    """``repr(value)``, or ``<int>`` for a value whose repr fails (an int past 4,300 digits)."""
    try:
        return repr(value)
    except (ValueError, RecursionError):
        return f"<{type(value).__name__}>"


def shown(value: Any) -> str:
    """A value as a warning quotes it, cut to 60 characters (57 and ``...``): a string in single
    quotes like every name in a warning (``'true'``), anything else as JSON writes it (``null``,
    ``true``, ``["alpha"]``) — what the sender wrote, not Python's ``None`` / ``True``."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)  # pragma: no mutate
        except (TypeError, ValueError, RecursionError):  # not JSON (a message built in code): Python's spelling
            text = _repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_error(raw: Mapping[str, Any], index: int, where: str = "") -> tuple[bool, Problem | None]:
    """``(failed, warning)`` of a tool result by every common error flag (docs/transcripts.md,
    "Failed results"). Fail closed: a ``status`` that is neither a success nor an error value, or an
    ``is_error`` / ``isError`` that is neither true nor false (``0``, ``null``, ``"false"``), reads
    as failed — a load_skill result that may have failed never counts as a loaded manual — with a
    warning naming the message and the flag; so does a ``state`` that is not a string (``null``,
    ``5``). An unknown ``state`` text (``"done"``) raises ``MessageError``."""
    if _ERROR_FLAG_KEYS.isdisjoint(raw):  # no flag at all (most messages): one pass in C
        return False, None
    state = raw.get("state")
    doubtful = None
    if "state" in raw and not isinstance(state, str):  # null, 5, true: a doubtful type reads as failed
        doubtful = ("state", state)
        state = None
    if state is not None and state.lower() not in _KNOWN_STATES:
        raise MessageError(f"{where}state must be success or error, got {_repr(state)}", index=index)
    failed = doubtful is not None or (state is not None and state.lower() in ERROR_STATES)
    if "status" in raw:
        status = raw["status"]
        said = status.lower() if isinstance(status, str) else None
        if said in ERROR_STATES:
            failed = True
        elif said not in SUCCESS_STATUSES and doubtful is None:
            doubtful = ("status", status)
    for key in ("is_error", "isError"):
        if key in raw and raw[key] is not False:
            failed = True
            if raw[key] is not True and doubtful is None:
                doubtful = (key, raw[key])
    if doubtful is None:
        return failed, None
    return True, Problem(
        "error_flag_ambiguous",
        "messages[%(index)s]: %(block)s%(flag)s is %(value)s, which says neither success nor "
        "failure; the result is read as failed",
        {"index": index, "number": index + 1, "block": where, "flag": doubtful[0], "value": shown(doubtful[1])},
    )


def _result_id(value: Any, index: int, key: str, notes: list[Problem], where: str = "") -> str:
    """A tool result's ``tool_call_id`` / ``tool_use_id``: a string as sent, absent or ``null`` →
    ``""``. Any other type (``5``, ``true``, ``{}``) → ``""`` with ``call_id_invalid`` in
    ``notes``: the result answers no call (``transcript.EvidenceReader``; docs/transcripts.md)."""
    if type(value) is str or value is None:  # pragma: no mutate
        return value or ""
    if isinstance(value, str):  # a string jsontext marked (a lone surrogate): a string; message_ambiguous says why
        return str(value)
    notes.append(
        Problem(
            "call_id_invalid",
            "messages[%(index)s]: %(block)s%(key)s is %(value)s, not a string; this result answers no call, without "
            "a marker it loads nothing",
            {
                "index": index,
                "number": index + 1,
                "block": where,
                "key": key,
                "value": shown(value),
                "field": f"{where}{key}",
            },
        )
    )
    return ""


def _metadata(value: Any, index: int, notes: list[Problem], where: str = "") -> dict[str, Any]:
    """A message's (or a ``tool_result`` block's) ``metadata``: an object as sent (``{}`` is no
    metadata), absent or ``null`` → ``{}``. Any other type (``[]``, ``false``, ``0``, ``""``,
    ``[1]``) → ``{}`` with ``metadata_invalid`` in ``notes``: a tool result with it loads nothing
    (``transcript.read_result``; docs/transcripts.md, "Doubtful types")."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    notes.append(
        Problem(
            "metadata_invalid",
            "messages[%(index)s]: %(block)smetadata is %(value)s, not an object; read as untrusted, the message "
            "loads nothing",
            {"index": index, "number": index + 1, "block": where, "value": shown(value)},
        )
    )
    return {}


# --- OpenAI Responses API input items (docs/transcripts.md, "OpenAI Responses") ----------------

#: Responses items that are calls of the model, and the tool results answering them.
RESPONSES_CALLS = frozenset({"function_call", "custom_tool_call"})
RESPONSES_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
#: Every Responses item type read (``message`` items are read as the chat shape: role + content).
RESPONSES_ITEMS = (
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "reasoning",
)


@dataclass(frozen=True)
class _Turn:
    """Consecutive Responses items that are one model response (``_grouped``): an assistant
    ``message`` item and / or ``function_call`` / ``custom_tool_call`` items (``reasoning`` items
    among them read as nothing), each as ``(index, item)``."""

    items: tuple[tuple[int, Any], ...]


def _item_type(item: Any) -> Any:
    """An item's ``type`` when it is a string, else ``None`` (``_expand`` refuses a non-string one)."""
    kind = item.get("type") if isinstance(item, Mapping) else None
    return kind if isinstance(kind, str) else None


def _grouped(raw: Any) -> Iterable[tuple[int, Any]]:
    """``(index, item)`` of every received item, consecutive Responses call items (with the
    assistant ``message`` and ``reasoning`` items right before, among or after them) gathered into
    one ``_Turn`` at the index of its first item — only a tool result or a user item ends it: the model's one response is one assistant message, so its parallel calls share
    one round (docs/transcripts.md, "OpenAI Responses"). A list without such items is read as
    ``enumerate`` gives it."""
    turn: list[tuple[int, Any]] = []
    for i, item in enumerate(raw):
        kind = _item_type(item)
        if kind in RESPONSES_CALLS or (
            turn and (kind == "reasoning" or (kind == "message" and item.get("role") == "assistant"))
        ):  # after the calls too: one response
            turn.append((i, item))
            continue
        if turn:
            yield turn[0][0], _Turn(tuple(turn))
            turn = []
        if kind == "message" and item.get("role") == "assistant":
            turn = [(i, item)]
            continue
        yield i, item
    if turn:
        yield turn[0][0], _Turn(tuple(turn))


def _responses_call(item: Mapping[str, Any], index: int, position: int, notes: list[Problem]) -> ToolCall:
    """A ``function_call`` item (``{"call_id", "name", "arguments": JSON text}``) or a
    ``custom_tool_call`` item (``{"call_id", "name", "input": free text}``) → a ``ToolCall`` with
    ``call_id`` as its id. A custom tool's input is never read as JSON arguments: the call has no
    arguments and the problem ``arguments_free_text`` (fail closed: a load_skill made that way
    asks for no skill)."""
    kind = item["type"]
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise MessageError(f"{kind} has no tool name", index=index)
    call_id = item.get("call_id")
    if call_id is not None and not isinstance(call_id, str):
        notes.append(
            Problem(
                "call_id_invalid",
                "messages[%(index)s]: %(field)s is %(value)s, not a string; no result can answer this call",
                {
                    "index": index,
                    "number": index + 1,
                    "position": position,
                    "tool": name,
                    "value": shown(call_id),
                    "field": f"{kind} ({name}) call_id",
                },
            )
        )
    call_id = call_id if isinstance(call_id, str) else ""
    if kind == "function_call":
        raw = item.get("arguments", {})
        if type(raw) is dict:  # pragma: no mutate
            args, problem = dict(raw), None
        else:
            args, problem = parse_arguments(raw, name=name, index=index)
        return ToolCall(name=name, arguments=args, id=call_id, problem=problem)
    return ToolCall(name=name, arguments={}, id=call_id, problem=free_text_problem(name, index, position))


def free_text_problem(name: str, index: int | None = None, position: int | None = None) -> Problem:
    """``arguments_free_text``: a ``custom_tool_call``'s ``input`` is free text, never read as
    JSON arguments — in a retained message (``index``, 0-based; ``position`` among its calls) it
    is a warning and the call has no arguments; as ``check-call``'s current call (``index``
    ``None``) the guard refuses it ``invalid_arguments`` (docs/transcripts.md, "OpenAI Responses")."""
    return Problem(
        "arguments_free_text",
        "%(where)scustom_tool_call (%(tool)s): its input is free text, not JSON arguments; read as no arguments",
        {
            "index": index,
            "number": None if index is None else index + 1,
            "position": position,
            "tool": name,
            "where": f"messages[{index}]: " if index is not None else "",
        },
    )


def _expand_responses(items: tuple[tuple[int, Any], ...]) -> list[Message]:
    """OpenAI Responses input items → ``Message`` objects (docs/transcripts.md, "OpenAI
    Responses"). ``items`` is one item, or a ``_Turn``'s items — then one assistant message at the
    first item's index holding the text of its ``message`` item and every call, in order.
    ``function_call_output`` / ``custom_tool_call_output`` → a ``tool`` message answering
    ``call_id`` (``output`` a text or a list of content parts; its ``status`` read like any tool
    result's: ``in_progress`` / ``incomplete`` → failed, ``error_flag_ambiguous``); ``reasoning``
    → nothing. Any other item type → ``MessageError`` naming the item and its type."""
    first = items[0][0]
    texts: list[str] = []
    calls: list[ToolCall] = []
    problems: list[Problem] = []
    for index, item in items:
        kind = item.get("type")
        # an item readers disagree on outside its arguments fails closed (docs/transcripts.md, "Ambiguous JSON")
        doubt_json = message_ambiguity(item) if kind != "message" and type(item) is jsontext.AmbiguousDict else None
        if doubt_json is not None:
            problems.append(_ambiguous_message(index, doubt_json))
        if kind == "message":
            (m,) = _expand(item, index)  # an assistant message item: read as the chat shape
            texts.append(m.content)
            calls.extend(m.tool_calls)
            problems.extend(m.problems)
        elif kind in RESPONSES_CALLS:
            calls.append(_responses_call(item, index, len(calls), problems))
            if calls[-1].problem is not None:
                problems.append(calls[-1].problem)
            if doubt_json is not None:
                calls[-1] = build_frozen(ToolCall, {**calls[-1].__dict__, "arguments": {}})
        elif kind == "reasoning":
            continue
        elif kind in RESPONSES_OUTPUTS:
            failed, doubt = _is_error(item, index)
            failed = failed or doubt_json is not None
            notes: list[Problem] = [p for p in (doubt, problems[-1] if doubt_json else None) if p is not None]
            call_id = _result_id(item.get("call_id"), index, "call_id", notes)
            metadata = _metadata(item.get("metadata"), index, notes)
            return [
                Message(
                    role="tool",
                    content=_content_text(item.get("output"), index, where="output"),
                    tool_call_id=call_id,
                    state="error" if failed else "success",
                    metadata=metadata,
                    index=index,
                    problems=tuple(notes),
                )
            ]
        else:
            raise MessageError(
                f"item type {shown(kind)} is not understood (OpenAI Responses items read: "
                f"{', '.join(RESPONSES_ITEMS)})",
                index=index,
            )
    if not texts and not calls:
        return []  # reasoning only
    return [
        Message(
            role="assistant", content="".join(texts), tool_calls=tuple(calls), index=first, problems=tuple(problems)
        )
    ]


def _expand(raw: Any, index: int) -> list[Message]:
    """One received message → the ``Message`` objects it holds (an Anthropic user message with
    ``tool_result`` blocks → one ``tool`` message per block, then a user message with its text)."""
    if type(raw) is jsontext.AmbiguousDict:  # JSON that readers disagree on (docs/transcripts.md, "Ambiguous JSON")
        return _read_ambiguous(raw, index)
    if type(raw) is not dict:  # pragma: no mutate
        if isinstance(raw, Message):
            return [raw]
        if type(raw) is _Turn:  # consecutive OpenAI Responses items read as one response (``_grouped``)
            return _expand_responses(raw.items)
        if not isinstance(raw, Mapping):
            raise MessageError("a message must be a JSON object", index=index)
    kind = raw.get("type")
    if kind is not None and not isinstance(kind, str):  # {} / [] / 5: unhashable or no item type — never a 500
        raise MessageError(f"type must be a string (an OpenAI Responses item type), got {shown(kind)}", index=index)
    if kind not in (None, "message"):  # an OpenAI Responses item (a "message" item is role + content)
        return _expand_responses(((index, raw),))
    role = raw.get("role")
    if type(role) is not str or role not in _ROLE_SET:  # pragma: no mutate
        if role is not None and not isinstance(role, str):  # an object or a list is unhashable: never a 500
            kinds: dict[type, str] = {dict: "an object", list: "a list"}
            kind = kinds.get(type(role), type(role).__name__)
            raise MessageError(f"role must be one of {', '.join(ROLES)}, got {kind}", index=index)
        role = ROLE_ALIASES.get(role, role)
        if role not in ROLES:
            raise MessageError(f"role must be one of {', '.join(ROLES)}, got {role!r}", index=index)
    if raw.get("function_call") is not None:
        raise MessageError(
            "legacy 'function_call' is not understood; send 'tool_calls' (OpenAI) or 'tool_use' blocks (Anthropic)",
            index=index,
        )
    notes: list[Problem] = []  # doubtful types (docs/transcripts.md): read as absent, with a warning
    raw_calls = raw.get("tool_calls")
    if type(raw_calls) is not list:  # pragma: no mutate
        if isinstance(raw_calls, list):  # a list jsontext marked (AmbiguousList): read, its marks judged per call
            pass
        elif raw_calls is not None:
            notes.append(
                Problem(
                    "tool_calls_invalid",
                    "messages[%(index)s]: tool_calls is %(value)s, not a list; read as no calls",
                    {"index": index, "number": index + 1, "value": shown(raw_calls)},
                )
            )
            raw_calls = []
        else:
            raw_calls = []
    metadata = raw.get("metadata")
    if type(metadata) is not dict:  # pragma: no mutate
        metadata = _metadata(metadata, index, notes)
    content = raw.get("content")
    blocks: list[tuple[int, Mapping[str, Any]]] = []
    if type(content) is str:  # pragma: no mutate
        text = content
    elif isinstance(content, list):
        kept = []
        for k, part in enumerate(content):
            kind = _block_type(part) if isinstance(part, Mapping) else None
            if kind in (TOOL_USE, TOOL_RESULT):
                blocks.append((k, part))
            else:
                kept.append(part)
        text = _content_text(kept, index)
    else:
        text = _content_text(content, index)
    if not raw_calls:
        calls = []
    elif len(raw_calls) == 1:  # the common case: one call a message
        calls = [_parse_call(raw_calls[0], index, 0, notes)]
    else:
        calls = [_parse_call(c, index, i, notes) for i, c in enumerate(raw_calls)]
    results: list[Message] = []
    for k, block in blocks:
        kind = block["type"]
        if kind == TOOL_USE:
            if role != "assistant":
                raise MessageError(f"content[{k}]: block type 'tool_use' belongs to an assistant message", index=index)
            calls.append(_parse_call(block, index, len(calls), notes))
        else:
            if role != "user":
                raise MessageError(f"content[{k}]: block type 'tool_result' belongs to a user message", index=index)
            failed, doubt = _is_error(block, index, f"content[{k}]: ")
            block_notes: list[Problem] = []
            block_id = _result_id(block.get("tool_use_id"), index, "tool_use_id", block_notes, f"content[{k}]: ")
            block_meta = _metadata(block.get("metadata"), index, block_notes, f"content[{k}]: ")
            results.append(
                Message(
                    role="tool",
                    content=_content_text(block.get("content"), index, where=f"content[{k}].content"),
                    tool_call_id=block_id,
                    state="error" if failed else "success",
                    metadata=block_meta,
                    index=index,
                    problems=(*block_notes, *((doubt,) if doubt is not None else ())),
                )
            )
    problems = tuple([c.problem for c in calls if c.problem is not None]) if calls else ()  # pragma: no mutate
    if notes:
        problems = (*notes, *problems)
    state = "success"
    if role == "tool" and not _ERROR_FLAG_KEYS.isdisjoint(raw):  # only a tool result can fail
        failed, doubt = _is_error(raw, index)
        state = "error" if failed else "success"
        if doubt is not None:
            problems = (*problems, doubt)
    call_id = raw.get("tool_call_id")
    if call_id is None:  # pragma: no mutate
        call_id = ""
    elif type(call_id) is not str:  # pragma: no mutate
        late: list[Problem] = []
        call_id = _result_id(call_id, index, "tool_call_id", late)
        problems = (*problems, *late)
    if results:
        # the user message's own doubtful fields (never a result's): on the user message after the results
        tail = [Message(role="user", content=text, index=index, problems=problems)] if text.strip() or problems else []
        return results + tail
    return [
        build_frozen(
            Message,
            {
                "role": role,
                "content": text,
                "tool_calls": tuple(calls),
                "tool_call_id": call_id,
                "state": state,
                "metadata": dict(metadata),
                "index": index,
                "problems": problems,
            },
        )
    ]


def _under(step: str, value: Any) -> str | None:
    """``value``'s ambiguity with ``step`` before its path (``metadata.a: NaN is …``), or ``None``."""
    if not isinstance(value, jsontext.AMBIGUOUS_TYPES):
        return None
    path = value.path
    where = step + ("." + path if path and not path.startswith("[") else path)
    return f"{where}: {value.reason}"


def call_ambiguity(call: Any) -> str | None:
    """The ambiguity of a call (or ``tool_use`` block) outside what ``_parse_call`` reads as its
    arguments (those are ``arguments_ambiguous``), or ``None``."""
    if not isinstance(call, jsontext.AmbiguousDict):
        return jsontext.ambiguity_of(call)
    if call.duplicates:
        return call.reason
    function = call.get("function")
    skip = None if isinstance(function, Mapping) else "input" if call.get("type") == TOOL_USE else "arguments"
    for key, value in call.items():
        if key == skip:
            continue
        if key == "function" and isinstance(value, jsontext.AmbiguousDict):
            if value.duplicates:
                return f"function: {value.reason}"
            cause = next(
                (
                    _under(f"function.{k}", v)
                    for k, v in value.items()
                    if k != "arguments" and isinstance(v, jsontext.AMBIGUOUS_TYPES)
                ),
                None,
            )
        else:
            cause = _under(key, value)
        if cause is not None:
            return cause
    return None


def message_ambiguity(raw: jsontext.AmbiguousDict) -> str | None:
    """Where and why a received message is ambiguous JSON outside its calls' arguments (a key
    twice in it, in ``metadata`` or a call; a doubtful number or a lone surrogate anywhere else),
    e.g. ``"metadata.skill_version: integer with 5001 digits is outside ±(2^53−1)"``; ``None``
    when only arguments are (docs/transcripts.md, "Ambiguous JSON")."""
    if raw.duplicates:
        return raw.reason
    for key, value in raw.items():
        if key == "tool_calls" and isinstance(value, list):
            for i, call in enumerate(value):
                cause = call_ambiguity(call)
                if cause is not None:
                    return _prefixed(f"tool_calls[{i}]", cause)
        elif key == "content" and isinstance(value, list):
            for k, part in enumerate(value):
                if isinstance(part, Mapping) and part.get("type") == TOOL_USE:
                    cause = call_ambiguity(part)
                    if cause is not None:
                        return _prefixed(f"content[{k}]", cause)
                elif isinstance(part, jsontext.AMBIGUOUS_TYPES):
                    return _under(f"content[{k}]", part)
        elif isinstance(value, jsontext.AMBIGUOUS_TYPES):
            return _under(key, value)
    return None


def _prefixed(step: str, cause: str) -> str:
    """``cause`` (``"key 'name' appears twice"`` or ``"function.name: …"``) under ``step``."""
    head, sep, _ = cause.partition(": ")
    if sep and " " not in head:  # it starts with a path
        return f"{step}{'' if head.startswith('[') else '.'}{cause}"
    return f"{step}: {cause}"


def _ambiguous_message(index: int, cause: str) -> Problem:
    """``message_ambiguous``: the message at ``index`` (0-based) is JSON readers disagree on
    outside its calls' arguments (``cause``, from ``message_ambiguity``)."""
    return Problem(
        "message_ambiguous",
        "messages[%(index)s]: ambiguous JSON (%(cause)s); its results are read as failed and its "
        "calls as having no arguments, so it loads nothing",
        {"index": index, "number": index + 1, "cause": cause},
    )


def _read_ambiguous(raw: jsontext.AmbiguousDict, index: int) -> list[Message]:
    """A message marked by ``jsontext.loads``: read as usual (its calls' ambiguous arguments are
    ``arguments_ambiguous``); when it is ambiguous elsewhere too, fail closed with
    ``message_ambiguous``: a tool result is read as failed and every call as having no
    arguments, so nothing loads through it (docs/transcripts.md, "Ambiguous JSON")."""
    messages = _expand(dict(raw), index)
    cause = message_ambiguity(raw)
    if cause is None:
        return messages
    problem = _ambiguous_message(index, cause)
    out = []
    for k, m in enumerate(messages):
        values = dict(m.__dict__)
        if m.role == "tool":
            values["state"] = "error"
        if m.tool_calls:
            values["tool_calls"] = tuple(build_frozen(ToolCall, {**c.__dict__, "arguments": {}}) for c in m.tool_calls)
        if k == 0:
            values["problems"] = (*m.problems, problem)
        out.append(build_frozen(Message, values))
    return out


def parse_message(raw: Any, index: int = 0) -> Message:
    """Turn one JSON message into a ``Message``; raises ``MessageError`` naming the index.

    An Anthropic user message holding ``tool_result`` blocks is several messages: use
    ``parse_messages`` for those (this returns the first)."""
    return _expand(raw, index)[0]


def parse_messages(raw: Any) -> tuple[Message, ...]:
    """Parse a JSON list of messages (docs/runtime-api.md or OpenAI chat shape).

    Raises ``MessageError`` with the 0-based index of the first bad message, also for a message
    making more than ``MAX_CALLS_PER_ROUND`` calls or the one passing ``MAX_CALLS_PER_SCRIPT``
    calls in all (docs/transcripts.md).
    """
    if isinstance(raw, Mapping) and "messages" in raw:
        raw = raw["messages"]
    if not isinstance(raw, (list, tuple)):
        raise MessageError("messages must be a JSON list")
    if len(raw) > MAX_MESSAGES:
        raise MessageError(f"{len(raw)} messages; at most {MAX_MESSAGES} are accepted")
    out: list[Message] = []
    calls = 0
    for i, item in _grouped(raw):
        for m in _expand(item, i):
            if len(m.tool_calls) > MAX_CALLS_PER_ROUND:
                raise MessageError(
                    f"{len(m.tool_calls)} calls in one message; at most {MAX_CALLS_PER_ROUND} "
                    f"calls per round are accepted",
                    index=i,
                )
            calls += len(m.tool_calls)
            if calls > MAX_CALLS_PER_SCRIPT:
                raise MessageError(
                    f"more than {MAX_CALLS_PER_SCRIPT} calls in the messages; at most "
                    f"{MAX_CALLS_PER_SCRIPT} are accepted",
                    index=i,
                )
            out.append(m)
    return tuple(out)


def parse_transcript(text: str, *, source: str = "<transcript>") -> tuple[Message, ...]:
    """Parse a pasted or uploaded transcript: JSON text holding a message list (or
    ``{"messages": [...]}``). Raises ``ScriptError`` with the line for invalid JSON, a text over
    the size limit or nesting too deep, and ``MessageError`` (index) for a malformed message."""
    if len(text) > MAX_SCRIPT_CHARS:
        raise ScriptError(
            f"the transcript has {len(text)} characters; at most {MAX_SCRIPT_CHARS} are replayed", source=source
        )
    try:
        raw = jsontext.loads(text)
    except jsontext.JsonTextError as exc:
        if exc.lineno is None:  # nested too deeply, the only error without a position for a str
            raise ScriptError("the transcript is nested too deeply", source=source) from None
        raise ScriptError(f"invalid JSON: {exc.msg}", source=source, line=exc.lineno) from None
    if isinstance(raw, jsontext.AmbiguousDict) and "messages" in raw.duplicates:
        raise ScriptError("key 'messages' appears twice; JSON readers disagree on which list counts", source=source)
    return parse_messages(raw)


def as_messages(items: Iterable[Message | Mapping[str, Any]]) -> tuple[Message, ...]:
    """Accept either parsed ``Message`` objects or raw dicts (raw dicts are read as by
    ``parse_messages``). A tuple holding only ``Message`` objects (what ``parse_messages``
    returns) is returned as it is."""
    if type(items) is tuple and all(type(m) is Message for m in items):
        return items
    return tuple(m for i, item in _grouped(list(items)) for m in _expand(item, i))
