"""Messages retained in a conversation's context (docs/runtime-api.md shape).

``parse_messages`` accepts the console's own shape and OpenAI's chat shape (assistant
``tool_calls`` with ``function.arguments`` as a JSON string) and returns frozen ``Message`` objects.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .errors import MessageError, ScriptError
from .limits import MAX_MESSAGES, MAX_SCRIPT_CHARS

ROLES = ("user", "assistant", "tool", "system")
#: Roles accepted on input and the role they are read as (OpenAI's newer ``developer`` role is a
#: system message).
ROLE_ALIASES = {"developer": "system"}
STATES = ("success", "error")


@dataclass(frozen=True)
class ToolCall:
    """One call the model made: ``arguments`` is the decoded JSON object."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    id: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": dict(self.arguments)}


@dataclass(frozen=True)
class Message:
    """A retained message. ``state`` is ``success`` unless the tool result says ``error``."""

    role: str
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    state: str = "success"
    metadata: Mapping[str, Any] = field(default_factory=dict)

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


def _content_text(content: Any, index: int) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        parts = []
        for part in content:
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
        return "".join(parts)
    raise MessageError(f"content must be a string, got {type(content).__name__}", index=index)


def _parse_call(raw: Any, index: int, position: int) -> ToolCall:
    if not isinstance(raw, Mapping):
        raise MessageError(f"tool_calls[{position}] must be an object", index=index)
    function = raw.get("function")
    if isinstance(function, Mapping):  # OpenAI shape
        name = function.get("name")
        arguments: Any = function.get("arguments", {})
    else:
        name = raw.get("name")
        arguments = raw.get("arguments", {})
    if not isinstance(name, str) or not name:
        raise MessageError(f"tool_calls[{position}] has no tool name", index=index)
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise MessageError(
                f"tool_calls[{position}] ({name}): arguments are not valid JSON: {exc.msg}", index=index
            ) from None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise MessageError(f"tool_calls[{position}] ({name}): arguments must be a JSON object", index=index)
    call_id = raw.get("id") or ""
    return ToolCall(name=name, arguments=dict(arguments), id=str(call_id))


def parse_message(raw: Any, index: int = 0) -> Message:
    """Turn one JSON message into a ``Message``; raises ``MessageError`` naming the index."""
    if isinstance(raw, Message):
        return raw
    if not isinstance(raw, Mapping):
        raise MessageError("a message must be a JSON object", index=index)
    role = raw.get("role")
    role = ROLE_ALIASES.get(role, role)
    if role not in ROLES:
        raise MessageError(f"role must be one of {', '.join(ROLES)}, got {role!r}", index=index)
    raw_calls = raw.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise MessageError("tool_calls must be a list", index=index)
    calls = tuple(_parse_call(c, index, i) for i, c in enumerate(raw_calls))
    state = raw.get("state") or "success"
    if state not in STATES:
        raise MessageError(f"state must be success or error, got {state!r}", index=index)
    metadata = raw.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise MessageError("metadata must be an object", index=index)
    return Message(
        role=role,
        content=_content_text(raw.get("content"), index),
        tool_calls=calls,
        tool_call_id=str(raw.get("tool_call_id") or ""),
        state=state,
        metadata=dict(metadata),
    )


def parse_messages(raw: Any) -> tuple[Message, ...]:
    """Parse a JSON list of messages (docs/runtime-api.md or OpenAI chat shape).

    Raises ``MessageError`` with the 0-based index of the first bad message.
    """
    if isinstance(raw, Mapping) and "messages" in raw:
        raw = raw["messages"]
    if not isinstance(raw, (list, tuple)):
        raise MessageError("messages must be a JSON list")
    if len(raw) > MAX_MESSAGES:
        raise MessageError(f"{len(raw)} messages; at most {MAX_MESSAGES} are accepted")
    return tuple(parse_message(m, i) for i, m in enumerate(raw))


def parse_transcript(text: str, *, source: str = "<transcript>") -> tuple[Message, ...]:
    """Parse a pasted or uploaded transcript: JSON text holding a message list (or
    ``{"messages": [...]}``). Raises ``ScriptError`` with the line for invalid JSON, a text over
    the size limit or nesting too deep, and ``MessageError`` (index) for a malformed message."""
    if len(text) > MAX_SCRIPT_CHARS:
        raise ScriptError(f"the transcript has {len(text)} characters; at most {MAX_SCRIPT_CHARS} are replayed",
                          source=source)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"invalid JSON: {exc.msg}", source=source, line=exc.lineno) from None
    except RecursionError:
        raise ScriptError("the transcript is nested too deeply", source=source) from None
    return parse_messages(raw)


def as_messages(items: Iterable[Message | Mapping[str, Any]]) -> tuple[Message, ...]:
    """Accept either parsed ``Message`` objects or raw dicts."""
    return tuple(parse_message(m, i) for i, m in enumerate(items))
