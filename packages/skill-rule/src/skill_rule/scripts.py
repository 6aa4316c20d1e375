"""Scenario scripts (docs/simulator.md): YAML → ``Script``, with file and line on every error."""

from __future__ import annotations

import datetime
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from .errors import ScriptError
from .limits import MAX_CALLS_PER_ROUND, MAX_ROUNDS, MAX_SCRIPT_CHARS
from .messages import ToolCall
from .yaml_reading import BigInteger, check_scalars, construct_bounded_int, line_at, refused_character

STEP_KINDS = ("user", "system", "assistant", "compact", "evict")
EXPECT_KEYS = ("count", "visible", "mcp_visible", "includes", "excludes", "masked", "loaded")


@dataclass(frozen=True)
class Step:
    """One script step. ``kind`` is one of ``STEP_KINDS``; ``line`` is 1-based in the source.

    * user/system: ``text``
    * assistant: ``text`` (what it says), ``calls``, ``results`` (tool name → content string or
      ``{"content", "state"}``), ``expect`` (per-round expectations, see ``EXPECT_KEYS``)
    * compact: ``drop`` — 1-based indices of retained messages to remove
    * evict: ``evict_tool`` (results of calls to this tool) and/or ``drop`` (1-based indices) —
      replaced by the eviction placeholder
    """

    kind: str
    line: int
    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    results: Mapping[str, Any] = field(default_factory=dict)
    expect: Mapping[str, Any] = field(default_factory=dict)
    drop: tuple[int, ...] = ()
    evict_tool: str | None = None


@dataclass(frozen=True)
class Script:
    """A parsed scenario: name, optional access profile / stage / allowed tools, and steps."""

    name: str
    steps: tuple[Step, ...]
    description: Any = ""
    access_profile: str | None = None
    stage: str | None = None
    allowed_tools: tuple[str, ...] | None = None
    source: str = "<script>"


class _ScriptLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader that refuses aliases while it composes, in the one pass that also
    builds the node tree (for line numbers) and the data: a script never needs ``*alias``, and an
    alias chain a few hundred bytes long expands to gigabytes."""

    def __init__(self, text: str, *, source: str) -> None:
        super().__init__(text)
        self.source = source

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]  # PyYAML's stubs leave it untyped
            raise ScriptError(
                f"YAML aliases (*{event.anchor}) are not accepted in scripts: write the value out",
                source=self.source,
                line=event.start_mark.line + 1,
            )
        return super().compose_node(parent, index)  # pragma: no mutate

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A mapping; a key given twice in it is refused naming its second line (PyYAML would
        keep the last silently; docs/simulator.md)."""
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                twice = key in seen
            except TypeError:  # an unhashable key: PyYAML's own refusal follows
                continue
            if twice:
                raise ScriptError(
                    f"key {key!r} appears twice in one mapping; give it once",
                    source=self.source,
                    line=key_node.start_mark.line + 1,
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _construct_str(loader: _ScriptLoader, node: yaml.ScalarNode) -> str:
    """A string; one holding a lone UTF-16 surrogate (``"\\ud800"``) is refused naming its line:
    it is not text and no page or JSON answer could show it."""
    value = loader.construct_yaml_str(node)
    found = _SURROGATE.search(value)
    if found is not None:
        raise ScriptError(
            f"a lone surrogate (\\u{ord(found.group()):04x}) is not text; write the character itself",
            source=loader.source,
            line=node.start_mark.line + 1,
        )
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")
check_scalars(_ScriptLoader)
_ScriptLoader.add_constructor("tag:yaml.org,2002:str", _construct_str)
_ScriptLoader.add_constructor("tag:yaml.org,2002:int", construct_bounded_int)


def _line(node: yaml.Node | None, default: int = 1) -> int:
    return node.start_mark.line + 1 if node is not None else default


def _mapping_child(node: yaml.Node | None, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return v
    return None


def _seq_child(node: yaml.Node | None, index: int) -> yaml.Node | None:
    if isinstance(node, yaml.SequenceNode) and 0 <= index < len(node.value):  # pragma: no mutate
        return node.value[index]
    return None


def _as_typed(value: Any, node: yaml.Node | None) -> Any:
    """A plain scalar the way it was typed: YAML reads ``88239``, ``2026-03-02`` or ``yes`` as a
    number, a date or a boolean, but in a user turn or a tool result they are text."""
    if isinstance(value, (bool, int, float, datetime.date, BigInteger)) and isinstance(node, yaml.ScalarNode):
        return node.value
    return value


def _parse_calls(raw: Any, node: yaml.Node | None, source: str) -> tuple[ToolCall, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        # ``node`` is the value of the step's ``calls`` key, there whenever ``raw`` is
        raise ScriptError("'calls' must be a list of {tool_name: {arguments}}", source=source, line=_line(node))
    calls: list[ToolCall] = []
    for i, item in enumerate(raw):
        item_line = _line(_seq_child(node, i))  # ``node`` is the list ``raw`` was read from: item ``i`` is in it
        if isinstance(item, Mapping) and "name" in item and set(item) <= {"name", "arguments", "id"}:
            name, args = item["name"], item.get("arguments") or {}
        elif isinstance(item, Mapping) and len(item) == 1:
            name, args = next(iter(item.items()))
            args = {} if args is None else args
        elif isinstance(item, str):
            name, args = item, {}
        else:
            raise ScriptError(
                "each call must be a single {tool_name: {arguments}} mapping", source=source, line=item_line
            )
        if not isinstance(name, str) or not name:
            raise ScriptError("a call has no tool name", source=source, line=item_line)
        if not isinstance(args, Mapping):
            raise ScriptError(f"arguments of '{name}' must be a mapping", source=source, line=item_line)
        odd = _not_json(args)
        if odd is not None:
            raise ScriptError(f"arguments of '{name}': {odd}", source=source, line=item_line)
        calls.append(ToolCall(name=name, arguments=dict(args)))
    return tuple(calls)


def _not_json(value: Any) -> str | None:
    """Why a call's arguments hold a value JSON readers disagree on — an integer outside
    ±(2^53−1) (``BigInteger``), ``.inf`` or ``.nan`` — or ``None`` (docs/transcripts.md,
    "Ambiguous JSON": the console never simulates a call it could not send)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, BigInteger):
            return (
                f"the integer {item if len(item) <= 24 else item[:21] + '...'} is outside ±(2^53−1); quote it as text"
            )
        if isinstance(item, float) and not math.isfinite(item):
            return f"{item} is not a JSON number"
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _parse_expect(raw: Any, source: str, line: int) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ScriptError("'expect' must be a mapping", source=source, line=line)
    unknown = sorted(set(raw) - set(EXPECT_KEYS))
    if unknown:
        raise ScriptError(
            f"unknown expectation {', '.join(unknown)}; known: {', '.join(EXPECT_KEYS)}", source=source, line=line
        )
    if "count" in raw and (not isinstance(raw["count"], int) or isinstance(raw["count"], bool)):
        raise ScriptError("expect.count must be an integer", source=source, line=line)
    for key in ("visible", "mcp_visible", "includes", "excludes", "loaded"):
        if key in raw and not (isinstance(raw[key], list) and all(isinstance(x, str) for x in raw[key])):
            raise ScriptError(f"expect.{key} must be a list of names", source=source, line=line)
    if "masked" in raw and not isinstance(raw["masked"], (list, Mapping)):
        raise ScriptError("expect.masked must be a list of tools or a {tool: skill} mapping", source=source, line=line)
    return dict(raw)


def _parse_indices(raw: Any, what: str, source: str, line: int) -> tuple[int, ...]:
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 1 for i in raw):
        raise ScriptError(f"{what} must be a list of 1-based message indices", source=source, line=line)
    return tuple(raw)


def _parse_step(raw: Any, node: yaml.Node | None, source: str) -> Step:
    line = _line(node)
    if not isinstance(raw, Mapping) or not raw:
        raise ScriptError(f"a step must be a mapping with one of: {', '.join(STEP_KINDS)}", source=source, line=line)
    kinds = [k for k in raw if k in STEP_KINDS]
    extra = sorted(set(raw) - set(STEP_KINDS) - {"expect"})
    if len(kinds) != 1 or extra:
        found = ", ".join(str(k) for k in raw)
        raise ScriptError(
            f"a step needs exactly one of {', '.join(STEP_KINDS)} (found: {found})", source=source, line=line
        )
    kind = kinds[0]
    body = raw[kind]
    body_node = _mapping_child(node, kind)
    body_line = _line(body_node, line)  # pragma: no mutate
    if kind in ("user", "system"):
        body = _as_typed(body, body_node)
        if not isinstance(body, str):
            raise ScriptError(f"'{kind}' must be text", source=source, line=body_line)
        if "expect" in raw:
            raise ScriptError("'expect' belongs to an assistant step", source=source, line=line)
        return Step(kind=kind, line=line, text=body)
    if kind == "assistant":
        if body is None:
            body = {}
        body = _as_typed(body, body_node)  # ``assistant: yes`` says "yes", as ``say: yes`` does
        if isinstance(body, str):
            body = {"say": body}
        if not isinstance(body, Mapping):
            raise ScriptError(
                "'assistant' must be text or {say, calls, results, expect}", source=source, line=body_line
            )
        unknown = sorted(set(body) - {"say", "calls", "results", "expect"})
        if unknown:
            raise ScriptError(
                f"unknown assistant key {', '.join(unknown)}; known: say, calls, results, expect",
                source=source,
                line=body_line,
            )
        say = _as_typed(body.get("say"), _mapping_child(body_node, "say")) or ""
        if not isinstance(say, str):
            raise ScriptError("'say' must be text", source=source, line=body_line)
        calls = _parse_calls(body.get("calls"), _mapping_child(body_node, "calls"), source)
        results = body.get("results") or {}
        if not isinstance(results, Mapping):
            raise ScriptError("'results' must map tool names to text", source=source, line=body_line)
        results_node = _mapping_child(body_node, "results")
        results = {name: _as_typed(value, _mapping_child(results_node, str(name))) for name, value in results.items()}
        for tool_name, result in results.items():
            ok = isinstance(result, str) or (
                isinstance(result, Mapping)
                and isinstance(result.get("content", ""), str)
                and result.get("state", "success") in ("success", "error")
            )
            if not ok:
                raise ScriptError(
                    f"result of '{tool_name}' must be text or {{content, state: success|error}}",
                    source=source,
                    line=body_line,
                )
        if "expect" in body and "expect" in raw:
            raise ScriptError(
                "'expect' is given twice (inside and beside 'assistant'); keep one", source=source, line=line
            )
        expect_raw = body.get("expect") if "expect" in body else raw.get("expect")
        expect_node = _mapping_child(body_node, "expect") or _mapping_child(node, "expect")
        expect = _parse_expect(expect_raw, source, _line(expect_node, line))  # pragma: no mutate
        return Step(kind=kind, line=line, text=say, calls=calls, results=dict(results), expect=expect)
    if "expect" in raw:
        raise ScriptError("'expect' belongs to an assistant step", source=source, line=line)
    if kind == "compact":
        if not isinstance(body, Mapping) or "drop" not in body or set(body) != {"drop"}:
            raise ScriptError("'compact' must be {drop: [1-based indices]}", source=source, line=body_line)
        return Step(kind=kind, line=line, drop=_parse_indices(body["drop"], "compact.drop", source, body_line))
    # evict
    if not isinstance(body, Mapping) or not body or set(body) - {"tool", "index"}:
        raise ScriptError("'evict' must be {tool: name} or {index: [1-based indices]}", source=source, line=body_line)
    tool = body.get("tool")
    if tool is not None and not isinstance(tool, str):
        raise ScriptError("evict.tool must be a tool name", source=source, line=body_line)
    drop = _parse_indices(body["index"], "evict.index", source, body_line) if "index" in body else ()
    return Step(kind=kind, line=line, evict_tool=tool, drop=drop)


def _number_calls(steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """Give every call a script-wide unique id ``call_1``, ``call_2`` … in order. Ids built from
    line numbers collide when several steps share a line (flow style), and a bare result answering
    a colliding ``load_skill`` id would count as a loaded manual."""
    out: list[Step] = []
    n = 0
    for step in steps:
        calls = []
        for c in step.calls:
            n += 1
            calls.append(replace(c, id=f"call_{n}"))
        if calls:
            step = replace(step, calls=tuple(calls))
        out.append(step)
    return tuple(out)


def parse_script(text: str, *, source: str = "<script>") -> Script:
    """Parse a scenario script (docs/simulator.md).

    Accepts either a mapping with ``steps`` (plus optional ``name``, ``description``,
    ``access_profile``, ``stage``, ``allowed_tools``) or a bare list of steps. Raises
    ``ScriptError(source, line, cause)`` for invalid YAML or a malformed step.
    """
    if len(text) > MAX_SCRIPT_CHARS:
        raise ScriptError(
            f"the script has {len(text)} characters; at most {MAX_SCRIPT_CHARS} are simulated", source=source
        )
    if "\x00" in text:
        raise ScriptError("the script contains a NUL character", source=source, line=line_at(text, text.index("\x00")))
    try:
        # the reader refuses control characters as it is made, so it is made inside the try
        loader = _ScriptLoader(text, source=source)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except RecursionError:
        raise ScriptError("the script is nested too deeply", source=source) from None
    except yaml.reader.ReaderError as exc:
        line, cause = refused_character(text, exc)
        raise ScriptError(f"invalid YAML: {cause}", source=source, line=line) from None
    except yaml.MarkedYAMLError as exc:
        # the scanner, parser, composer and constructor: PyYAML's loader gives each a problem_mark
        mark, context, opened = exc.problem_mark, exc.context, exc.context_mark
        problem = exc.problem or str(exc)  # pragma: no mutate
        if (
            isinstance(context, str)
            and context.startswith("while parsing a flow")
            and opened is not None
            and mark is not None
            and opened.line != mark.line
        ):
            # an unclosed bracket is only noticed at the end: say where it was opened
            problem += f" ({context} opened at line {opened.line + 1})"
        line = mark.line + 1 if mark is not None else None  # pragma: no mutate
        raise ScriptError(f"invalid YAML: {problem}", source=source, line=line) from None
    except yaml.YAMLError as exc:  # pragma: no mutate
        raise ScriptError(f"invalid YAML: {exc}", source=source) from None  # pragma: no mutate
    if data is None:
        raise ScriptError("the script is empty", source=source, line=1)
    name = "untitled"
    meta: Mapping[str, Any]
    if isinstance(data, list):
        steps_raw, steps_node, meta = data, node, {}
    elif isinstance(data, Mapping):
        unknown = sorted(set(data) - {"name", "description", "access_profile", "stage", "allowed_tools", "steps"})
        if unknown:
            bad = _mapping_child(node, unknown[0])
            raise ScriptError(
                f"unknown key {', '.join(unknown)}; known: name, description, access_profile, stage, allowed_tools, steps",
                source=source,
                line=_line(bad),
            )
        steps_raw, steps_node, meta = data.get("steps"), _mapping_child(node, "steps"), data
        name = str(data.get("name") or name)
    else:
        raise ScriptError("a script is a mapping with 'steps' or a list of steps", source=source, line=1)
    if not isinstance(steps_raw, list) or not steps_raw:
        raise ScriptError("'steps' must be a non-empty list", source=source, line=_line(steps_node))
    for key in ("access_profile", "stage"):
        if meta.get(key) is not None and not isinstance(meta.get(key), str):
            raise ScriptError(f"'{key}' must be a name or null", source=source, line=_line(_mapping_child(node, key)))
    allowed = meta.get("allowed_tools")
    if allowed is not None and not (isinstance(allowed, list) and all(isinstance(x, str) for x in allowed)):
        raise ScriptError(
            "'allowed_tools' must be a list of tool names",
            source=source,
            line=_line(_mapping_child(node, "allowed_tools")),
        )
    steps = tuple(_parse_step(raw, _seq_child(steps_node, i), source) for i, raw in enumerate(steps_raw))
    assistants = [s for s in steps if s.kind == "assistant"]
    if len(assistants) > MAX_ROUNDS:
        raise ScriptError(
            f"the script has {len(assistants)} rounds; at most {MAX_ROUNDS} are simulated",
            source=source,
            line=assistants[MAX_ROUNDS].line,
        )
    # The calls in all cannot pass MAX_CALLS_PER_SCRIPT here: it is MAX_ROUNDS × MAX_CALLS_PER_ROUND
    # (docs/limits.md; tests/domain/test_linear_limits.py pins it). Transcripts, whose messages
    # are not rounds, count them in all (domain/messages.py).
    for number, step in enumerate(assistants, start=1):
        if len(step.calls) > MAX_CALLS_PER_ROUND:
            raise ScriptError(
                f"round {number} makes {len(step.calls)} calls; at most {MAX_CALLS_PER_ROUND} "
                f"calls per round are simulated",
                source=source,
                line=step.line,
            )
    steps = _number_calls(steps)
    if not any(s.kind == "assistant" for s in steps):
        raise ScriptError(
            "a script needs at least one assistant step (a round sits before each)",
            source=source,
            line=_line(steps_node),
        )
    return Script(
        name=name,
        steps=steps,
        description=meta.get("description") or "",
        access_profile=meta.get("access_profile") or None,
        stage=meta.get("stage") or None,
        allowed_tools=tuple(allowed) if allowed is not None else None,
        source=source,
    )
