"""What scenario scripts (``scripts.py``) and SKILL.md front matter (``skill_files.py``) share about
reading YAML with PyYAML: the line of an offset, the sentence for a character the reader refuses,
and scalar constructors whose ``ValueError`` becomes a YAML error at the value's line. Plain Python.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import yaml


def line_at(text: str, offset: int) -> int:
    """The 1-based line of ``text`` that holds the character at ``offset`` (0-based, as
    ``str.index`` and PyYAML's reader give it)."""
    return text[:offset].count("\n") + 1


def refused_character(text: str, exc: Any) -> tuple[int, str]:
    """Where and why PyYAML's reader refused a character of ``text`` (a control character such as
    a pasted bell): ``(line, cause)`` — the 1-based ``line_at`` its offset and
    ``"unacceptable character #x0007: special characters are not allowed"``. ``exc`` is a
    ``yaml.reader.ReaderError``, which carries no mark, only ``position`` (the offset),
    ``character`` (the code point) and ``reason``. Scenario scripts and SKILL.md front matter
    both say it this way (docs/simulator.md, docs/skill-files.md)."""
    return line_at(text, exc.position), f"unacceptable character #x{exc.character:04x}: {exc.reason}"


def _construct_checked(
    what: str, construct: Callable[[Any, Any], Any], loader: yaml.SafeLoader, node: yaml.Node
) -> Any:
    """PyYAML's constructor of a scalar, with the ``ValueError`` it raises for a value its pattern
    matches but Python cannot make (``2024-13-45``, an integer of more than 4,300 digits) turned
    into a YAML error at the value's line (it would escape the parser otherwise)."""
    try:
        return construct(loader, node)
    except ValueError as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"cannot read this {what} ({exc})", node.start_mark
        ) from None


def check_scalars(loader: type[yaml.SafeLoader]) -> type[yaml.SafeLoader]:
    """Give ``loader`` (a ``SafeLoader`` subclass) the checked int and timestamp constructors;
    returns it. A value Python cannot make is then a ``ConstructorError`` whose problem is
    ``cannot read this date (month must be in 1..12)`` at the value's line."""
    loader.add_constructor(
        "tag:yaml.org,2002:int", functools.partial(_construct_checked, "number", yaml.SafeLoader.construct_yaml_int)
    )
    loader.add_constructor(
        "tag:yaml.org,2002:timestamp",
        functools.partial(_construct_checked, "date", yaml.SafeLoader.construct_yaml_timestamp),
    )
    return loader


#: The largest integer every JSON reader holds exactly (RFC 7493 §2.2; ``jsontext.MAX_SAFE_INTEGER``).
MAX_SAFE_INTEGER = 2**53 - 1


class BigInteger(str):
    """A YAML integer outside ±(2^53−1), kept as the text typed (``construct_bounded_int``): no
    Python int of it is built, so nothing later fails to write it; a reader that needs a number
    refuses it naming the line."""


def construct_bounded_int(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    """PyYAML's int, or a ``BigInteger`` for one outside ±(2^53−1) — never built when its text is
    longer than 40 characters (a 5,001-digit or a hex literal of 16,000 bits)."""
    text = node.value if isinstance(node.value, str) else ""
    if len(text) > 40:
        return BigInteger(text)
    value = _construct_checked("number", yaml.SafeLoader.construct_yaml_int, loader, node)
    if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        return value
    return BigInteger(text)
