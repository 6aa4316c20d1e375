"""Whole published manuals: the normalisation, the digest of a published manual and the test
"does this tool result hold it" (docs/transcripts.md, "A whole published manual").

A ``load_skill`` result releases a skill's tools only when its content holds the complete text of
a manual the console published for that skill — the current one or an earlier published version —
after both are whitespace-normalised (``normalise``). A runtime may wrap the manual in a prefix or
a suffix; a manual cut by a tool-output limit, one character with the marker, or any text the
console never published holds none. Plain Python, no Django.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: Every character ``normalise`` treats as whitespace: exactly the characters Python's
#: ``str.split()`` (no argument) splits on, i.e. ``str.isspace()`` — listed here so a runtime in
#: another language normalises the same way (docs/transcripts.md lists them too;
#: tests/domain/test_manuals.py checks the list against all of Unicode).
WHITESPACE = (
    "\t\n\v\f\r"  # U+0009–U+000D
    "\x1c\x1d\x1e\x1f"  # U+001C–U+001F (file, group, record, unit separators)
    " "  # U+0020
    "\x85\xa0"  # U+0085 NEXT LINE, U+00A0 NO-BREAK SPACE
    "\u1680"  # OGHAM SPACE MARK
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"  # U+2000–U+200A
    "\u2028\u2029"  # LINE / PARAGRAPH SEPARATOR
    "\u202f\u205f\u3000"  # NARROW NO-BREAK, MEDIUM MATHEMATICAL, IDEOGRAPHIC SPACE
)

#: How many normalised characters of a manual its digest keeps as ``head`` (where a held copy starts).
HEAD_CHARS = 32


def normalise(text: str) -> str:
    """``text`` with every run of ``WHITESPACE`` characters replaced by one U+0020 and no
    whitespace at either end: ``"# 订单\\n\\n  取消 "`` → ``"# 订单 取消"``. O(len(text))."""
    return " ".join(text.split())


def text_sha256(normalised: str) -> str:
    """Hex SHA-256 (64 lowercase digits) of a normalised text, UTF-8 encoded."""
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ManualDigest:
    """What identifies one published manual of a skill without its text: ``version`` (the skill's
    version it was published as), ``sha256`` (``text_sha256`` of the normalised text), ``chars``
    (length of the normalised text in code points) and ``head`` (its first ``HEAD_CHARS``
    normalised characters, all of it when shorter). JSON shape ``{"version", "sha256", "chars",
    "head"}`` (``as_dict``) in release snapshots and ``GET runtime/catalog``."""

    version: int
    sha256: str
    chars: int
    head: str

    def as_dict(self) -> dict[str, Any]:
        return {"version": self.version, "sha256": self.sha256, "chars": self.chars, "head": self.head}


def digest(text: str, version: int) -> ManualDigest:
    """The ``ManualDigest`` of a manual ``text`` published as ``version``."""
    norm = normalise(text)
    return ManualDigest(version=version, sha256=text_sha256(norm), chars=len(norm), head=norm[:HEAD_CHARS])


def digest_from_dict(item: Any) -> ManualDigest | None:
    """A ``ManualDigest`` from its JSON shape, or ``None`` when ``item`` is not one (a missing key,
    a wrong type, a version below 1, a ``head`` that is not the start of ``chars`` characters):
    a digest that cannot be read accepts no manual (fail closed)."""
    if not isinstance(item, Mapping):
        return None
    version, sha, chars, head = (item.get(k) for k in ("version", "sha256", "chars", "head"))
    if not (isinstance(version, int) and not isinstance(version, bool) and version >= 1):
        return None
    if not (isinstance(chars, int) and not isinstance(chars, bool) and chars >= 0):
        return None
    if not (isinstance(sha, str) and len(sha) == 64 and isinstance(head, str) and len(head) == min(chars, HEAD_CHARS)):
        return None
    return ManualDigest(version=version, sha256=sha.lower(), chars=chars, head=head)


def holds(content: str, manual: ManualDigest) -> bool:
    """True when the normalised ``content`` holds the whole manual ``manual`` describes: some
    occurrence of ``manual.head`` starts a window of ``manual.chars`` characters whose
    ``text_sha256`` is ``manual.sha256`` (text before or after that window is allowed). Costs one
    hash of ``manual.chars`` characters per occurrence of the head (docs/rule.md, "Cost")."""
    size = manual.chars
    if size > len(content):
        return False
    start = content.find(manual.head)
    last = len(content) - size
    while 0 <= start <= last:
        if text_sha256(content[start : start + size]) == manual.sha256:
            return True
        start = content.find(manual.head, start + 1)
    return False


def held_version(content: str, manuals: Iterable[ManualDigest]) -> int | None:
    """The ``version`` of the first of ``manuals`` (the current one first, then the earlier ones,
    newest first) that the normalised ``content`` holds, or ``None`` when it holds none."""
    for manual in manuals:
        if holds(content, manual):
            return manual.version
    return None


def published_manuals(current: ManualDigest, earlier: Iterable[ManualDigest]) -> tuple[ManualDigest, ...]:
    """The manuals a result of one skill may hold, in the order ``held_version`` tries them: the
    current one, then every earlier one — of a version below the current one — whose text differs
    from it and from a newer one (the text wins: a text published as v1 and again as v3 is v3),
    newest first. A digest of the current version or above (a skill deleted and made again under
    the same code starts at version 1 anew) is left out: it accepts nothing."""
    out = [current]
    seen = {current.sha256}
    for m in sorted(earlier, key=lambda m: -m.version):
        if m.sha256 not in seen and m.version < current.version:
            seen.add(m.sha256)
            out.append(m)
    return tuple(out)
