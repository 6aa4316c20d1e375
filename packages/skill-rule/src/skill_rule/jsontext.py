"""The one strict reader of JSON text (docs/transcripts.md, "Ambiguous JSON").

Every path that reads JSON text — the runtime API's request bodies (``skills_app.runtime.parsers``),
the preview's paste box (``messages.parse_transcript``), a call's ``arguments`` sent as JSON text
(``messages.parse_arguments``, the client too) — reads it with ``loads``. Python's ``json`` with
hooks; plain Python, no Django.

JSON that readers disagree on is **marked, never guessed** (RFC 8259 §4 leaves duplicate names to
the reader; RFC 7493 I-JSON §2.2 bounds interoperable integers at ±(2^53−1)):

- a key appearing twice in one object (first-wins and last-wins readers differ; the last value is
  kept, as Python does, and the object is marked);
- an integer outside ±(2^53−1) (JavaScript rounds it; Python refuses one of more than 4,300
  digits) — no Python int of more than 17 digits is ever built;
- a number that overflows a double (``1e400``) and the ``NaN`` / ``Infinity`` / ``-Infinity``
  literals (not JSON at all, but Python's reader takes them);
- a lone UTF-16 surrogate in a string or key (``"\\ud800"``): it cannot be written as UTF-8.

A doubtful number is replaced by an ``AmbiguousValue`` (a ``str`` holding its text, cut); a string
with a lone surrogate by an ``AmbiguousValue`` holding the text with each lone surrogate replaced
by U+FFFD — so no value ``loads`` returns ever breaks an encoder later. Every object or array on
the path to such a value (or holding a duplicate key) is an ``AmbiguousDict`` / ``AmbiguousList``
(subclasses of ``dict`` / ``list``) whose ``ambiguity`` is a short English cause with its path
relative to that container, e.g. ``"key 'order_no' appears twice"`` or ``"metadata.a: integer
with 5001 digits is outside ±(2^53−1)"``. Readers check ``isinstance`` in O(1) (``ambiguity_of``);
text without any ambiguity costs nothing more than ``json.loads``.
"""

from __future__ import annotations

import functools
import json
import math
import re
from typing import Any

#: The largest integer every JSON reader holds exactly (RFC 7493 §2.2: IEEE 754 doubles).
MAX_SAFE_INTEGER = 2**53 - 1
#: Characters of a doubtful literal kept in its ``AmbiguousValue``.
_SHOWN_CHARS = 24
_SURROGATE = re.compile("[\ud800-\udfff]")
#: ``\\u`` escapes of a surrogate (a valid pair too: decoded, it is checked again).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
#: ``JsonTextError.msg`` for nesting deeper than Python's stack.
TOO_DEEP = "nested too deeply"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


class JsonTextError(Exception):
    """Text that is not JSON at all (or nested too deeply to read): ``msg`` (the cause, as
    ``json.JSONDecodeError`` words it), ``lineno`` and ``colno`` (1-based) and ``pos`` (0-based
    character) — all ``None`` when there is no position (nesting too deep, bytes not UTF-8). The only exception ``loads`` raises."""

    def __init__(self, msg: str, lineno: int | None = None, colno: int | None = None, pos: int | None = None) -> None:
        self.msg, self.lineno, self.colno, self.pos = msg, lineno, colno, pos
        where = f": line {lineno} column {colno} (char {pos})" if lineno is not None else ""
        super().__init__(f"{msg}{where}")


class _Marked:
    """What the three marked types share: ``reason`` (why) and ``path`` (where, relative to the
    value: ``""`` for itself, ``"metadata.a"``, ``"[0].order_no"``); ``ambiguity`` joins them."""

    reason: str = ""
    path: str = ""

    @property
    def ambiguity(self) -> str:
        return f"{self.path}: {self.reason}" if self.path else self.reason


class AmbiguousValue(_Marked, str):
    """A doubtful number or a string holding a lone surrogate, as text (see the module)."""

    def __new__(cls, text: str, reason: str) -> AmbiguousValue:
        obj = str.__new__(cls, text)
        obj.reason = reason
        return obj


class AmbiguousDict(_Marked, dict[Any, Any]):
    """An object holding an ambiguity: ``ambiguity`` (the first, with its relative path) and
    ``duplicates`` (the keys that appear more than once directly in it, in order)."""

    duplicates: tuple[str, ...] = ()


class AmbiguousList(_Marked, list[Any]):
    """An array holding an ambiguity somewhere inside: ``ambiguity`` with its relative path."""


AMBIGUOUS_TYPES = (AmbiguousValue, AmbiguousDict, AmbiguousList)


def ambiguity_of(value: Any) -> str | None:
    """The cause of ``value``'s ambiguity (a marked container or value from ``loads``), or
    ``None``. O(1)."""
    return value.ambiguity if isinstance(value, _Marked) else None


def quoted(text: Any) -> str:
    """A key or string as a cause quotes it: in single quotes, lone surrogates escaped
    (``'\\ud800'``), cut to 40 characters; a key that is no string as its ``repr``."""
    if not isinstance(text, str):
        try:
            return repr(text)[:40]
        except Exception:  # noqa: BLE001 — a value whose repr fails (an int past 4,300 digits)
            return type(text).__name__
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return "'" + (text if len(text) <= 40 else text[:37] + "...") + "'"


def _step(container: Any, key: Any) -> str:
    if isinstance(container, list):
        return f"[{key}]"
    return key if isinstance(key, str) and _NAME.match(key) else f"[{quoted(key)}]"


def _note(marked: _Marked, step: str, child: Any) -> None:
    """Record on ``marked`` that its child at ``step`` is ambiguous (the first one wins)."""
    if marked.reason:
        return
    marked.reason = child.reason
    path = child.path
    marked.path = step + ("." + path if path and not path.startswith("[") else path)


def _int(text: str, state: dict[str, Any]) -> Any:
    """``parse_int``: an int within ±(2^53−1), else an ``AmbiguousValue`` (never building an int of
    more than 16 digits)."""
    if len(text) < 16:  # the common case: fewer digits than 2**53 - 1 has
        return int(text)
    digits = len(text) - (text[0] == "-")
    if digits <= 16 and -MAX_SAFE_INTEGER <= int(text) <= MAX_SAFE_INTEGER:
        return int(text)
    if len(text) <= _SHOWN_CHARS:
        cause = f"integer {text} is outside ±(2^53−1)"
    else:
        cause = f"integer with {digits} digits is outside ±(2^53−1)"
    state["marked"] = True
    shown = text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."
    return AmbiguousValue(shown, cause)


def _float(text: str, state: dict[str, Any]) -> Any:
    """``parse_float``: a float, or an ``AmbiguousValue`` for one that overflows to infinity."""
    value = float(text)
    if math.isinf(value):
        state["marked"] = True
        shown = text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."
        return AmbiguousValue(shown, f"number {shown} is too large for a double")
    return value


def _constant(text: str, state: dict[str, Any]) -> Any:
    """``parse_constant``: ``NaN``, ``Infinity``, ``-Infinity`` — not JSON numbers."""
    state["marked"] = True
    return AmbiguousValue(text, f"{text} is not a JSON number")


def _clean(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def _leaf(value: Any, surrogates: bool) -> Any:
    """A scalar as kept: a string holding a lone surrogate becomes an ``AmbiguousValue``."""
    if surrogates and type(value) is str:
        found = _SURROGATE.search(value)
        if found is not None:
            return AmbiguousValue(_clean(value), f"string holds a lone surrogate \\u{ord(found.group()):04x}")
    return value


def _pairs(pairs: list[tuple[str, Any]], state: dict[str, Any]) -> dict[str, Any]:
    """``object_pairs_hook``: a plain dict, or an ``AmbiguousDict`` when a key appears twice or a
    value is a marked number or object (values are built first: objects mark themselves
    bottom-up; arrays, which have no hook, are marked by ``_mark``)."""
    out = dict(pairs)
    if len(out) == len(pairs):
        if not state["marked"]:  # nothing marked yet: no value of this object can be (the common case)
            return out
        for _, value in pairs:
            if type(value) is AmbiguousValue or type(value) is AmbiguousDict:
                break
        else:
            return out
    state["marked"] = True
    marked = AmbiguousDict(out)
    if len(out) != len(pairs):
        seen: set[str] = set()
        dups: list[str] = []
        for key, _ in pairs:
            if key in seen and key not in dups:
                dups.append(key)
            seen.add(key)
        marked.duplicates = tuple(dups)
        marked.reason = f"key {quoted(dups[0])} appears twice"
    else:
        for key, value in pairs:
            if isinstance(value, _Marked):
                _note(marked, _step(out, key), value)
                break
    return marked


def _items(c: Any) -> list[tuple[Any, Any]]:
    return list(c.items()) if isinstance(c, dict) else list(enumerate(c))


def _mark(root: Any, surrogates: bool) -> Any:
    """The tree with every container on the path to an ambiguity marked: iterative, post-order
    (arrays have no hook, and a string's lone surrogate is seen only here)."""
    if not isinstance(root, (dict, list)):
        return _leaf(root, surrogates)
    # a frame: [container, its items, next position, rebuilt (key, child) pairs, pending key]
    stack: list[list[Any]] = [[root, _items(root), 0, [], None]]
    while True:
        frame = stack[-1]
        container, items, pos, children, _ = frame
        if pos < len(items):
            key, child = items[pos]
            frame[2] = pos + 1
            if isinstance(child, (dict, list)) and child:
                frame[4] = key
                stack.append([child, _items(child), 0, [], None])
            else:
                children.append((key, _leaf(child, surrogates)))
            continue
        stack.pop()
        built = _rebuild(container, children, surrogates)
        if not stack:
            return built
        parent = stack[-1]
        parent[3].append((parent[4], built))


def _rebuild(container: Any, children: list[tuple[Any, Any]], surrogates: bool) -> Any:
    """``container`` again from its (possibly replaced) children, marked when one is."""
    bad = next((c for c in children if isinstance(c[1], _Marked)), None)
    if isinstance(container, dict):
        bad_key = None
        if surrogates:
            bad_key = next((k for k, _ in children if isinstance(k, str) and _SURROGATE.search(k)), None)
        duplicates = container.duplicates if isinstance(container, AmbiguousDict) else ()
        if bad is None and bad_key is None and not duplicates:
            if type(container) is dict and all(a is b for (_, a), b in zip(children, container.values())):
                return container
            return dict(children)
        if bad_key is not None:
            children = [(_clean(k) if isinstance(k, str) else k, v) for k, v in children]
        out = AmbiguousDict(children)
        out.duplicates = duplicates
        if duplicates:
            out.reason = container.reason  # type: ignore[attr-defined]  # duplicates come only from an AmbiguousDict
        elif bad_key is not None:
            out.reason = f"key {quoted(bad_key)} holds a lone surrogate"
        else:
            _note(out, _step(out, bad[0]), bad[1])  # type: ignore[index]  # no duplicates, no bad key: a bad child
        return out
    if bad is None:
        if type(container) is list and all(a is b for (_, a), b in zip(children, container)):
            return container
        return [v for _, v in children]
    out_list = AmbiguousList(v for _, v in children)
    _note(out_list, f"[{bad[0]}]", bad[1])
    return out_list


def loads(text: str | bytes) -> Any:
    """The value of JSON ``text`` with every ambiguity marked (see the module). Raises only
    ``JsonTextError`` — for text that is not JSON, bytes that are not UTF-8, or nesting too deep
    to read."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonTextError(f"not UTF-8 text (byte {exc.start})") from None
        if text.startswith("\ufeff"):
            raise JsonTextError("Unexpected UTF-8 BOM (decode using utf-8-sig)", 1, 1, 0)
    state: dict[str, Any] = {"marked": False}
    try:
        value = json.loads(
            text,
            object_pairs_hook=functools.partial(_pairs, state=state),
            parse_int=functools.partial(_int, state=state),
            parse_float=functools.partial(_float, state=state),
            parse_constant=functools.partial(_constant, state=state),
        )
    except json.JSONDecodeError as exc:
        raise JsonTextError(exc.msg, exc.lineno, exc.colno, exc.pos) from None
    except RecursionError:
        raise JsonTextError(TOO_DEEP) from None
    surrogates = (not text.isascii() and bool(_SURROGATE.search(text))) or bool(_SURROGATE_ESCAPE.search(text))
    if state["marked"] or surrogates:
        value = _mark(value, surrogates)
    return value


def mark(value: Any) -> Any:
    """A Python value (JSON-like: what an agent holds after its own ``json.loads``) with the same
    marks ``loads`` would give its JSON text: ints outside ±(2^53−1), non-finite floats and lone
    surrogates become ``AmbiguousValue`` and the containers on their path are marked. Other
    Python types are kept as they are. One iterative pass; never raises."""
    return _mark(_python_leaves(value), True)


def _empty_like(container: Any) -> Any:
    """An empty copy of a dict or list; an ``AmbiguousDict`` from ``loads`` keeps its duplicate keys."""
    if isinstance(container, AmbiguousDict) and container.duplicates:
        out = AmbiguousDict()
        out.duplicates, out.reason = container.duplicates, container.reason
        return out
    return {} if isinstance(container, dict) else []


def _python_leaves(value: Any) -> Any:
    """``value`` with its doubtful Python scalars replaced (iterative)."""

    def fix(v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return v
        if isinstance(v, int):
            if -MAX_SAFE_INTEGER <= v <= MAX_SAFE_INTEGER:
                return v
            return AmbiguousValue("integer", "integer is outside ±(2^53−1)")
        if math.isfinite(v):
            return v
        text = "NaN" if math.isnan(v) else "Infinity" if v > 0 else "-Infinity"
        return AmbiguousValue(text, f"{text} is not a JSON number")

    if not isinstance(value, (dict, list)):
        return fix(value)
    root: Any = _empty_like(value)
    # depth first with explicit iterators: ``on_path`` holds the containers being copied, so a
    # value that contains itself is cut (a container shared by two branches is copied twice)
    stack = [(value, root, iter(value.items() if isinstance(value, dict) else enumerate(value)))]
    on_path = {id(value)}
    while stack:
        src, dst, items = stack[-1]
        for key, child in items:
            if isinstance(child, (dict, list)) and id(child) not in on_path:
                new: Any = _empty_like(child)
                on_path.add(id(child))
                stack.append((child, new, iter(child.items() if isinstance(child, dict) else enumerate(child))))
            elif isinstance(child, (dict, list)):
                new = AmbiguousValue("cycle", "a value contains itself")
            else:
                new = fix(child)
            if isinstance(dst, dict):
                dst[key] = new
            else:
                dst.append(new)
            if stack[-1][0] is not src:
                break
        else:
            stack.pop()
            on_path.discard(id(src))
    return root
