"""Error types of the pure core.

Every error names the item it refuses and the cause; errors raised while reading a file also carry
the file name and the 1-based line, so a CLI can print ``file:line: cause`` and a page can point at
the offending line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Problem(str):
    """A sentence a UI can translate: it *is* the English sentence (a ``str``, so it prints, joins
    and compares as one), and carries a stable ``code``, the English ``template`` with
    ``%(name)s`` placeholders and the ``params`` that fill it. ``params`` may hold more than the
    template uses (e.g. a tool list beside its joined text) for a page to lay out.

    Used for refusals (skill validation), warnings (restrictions, dangling tool ids), simulator
    events and unmet expectations; pages translate by ``code`` instead of parsing the English.
    """

    code: str
    template: str
    params: Mapping[str, Any]

    def __new__(cls, code: str, template: str, params: Mapping[str, Any] | None = None) -> Problem:
        values = dict(params or {})
        obj = super().__new__(cls, template % values if values else template)
        obj.code, obj.template, obj.params = code, template, values
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as ``Problem(code, template, params)`` (``str``'s own reduce would call
        ``__new__`` with the sentence alone): a cached simulation keeps its problems' codes."""
        return (type(self), (self.code, self.template, dict(self.params)))


class DomainError(Exception):
    """Base class of every refusal raised by ``skill_rule``.

    ``code`` is a stable machine-readable reason (used as the API error code), ``message`` a
    human sentence that names the item and the cause, ``details`` a JSON-able mapping.
    """

    code = "invalid"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


class SkillValidationError(DomainError):
    """A skill's fields break a rule of docs/design.md.

    ``problems`` maps a field name (``skill_code``, ``name``, ``description``, ``content``,
    ``tool_ids``) to a list of ``Problem``; ``errors`` is the same as English sentences, each
    naming the offending value.
    """

    code = "invalid_skill"

    def __init__(self, problems: dict[str, list[Problem]]) -> None:
        self.problems = problems
        errors = {f: [str(p) for p in probs] for f, probs in problems.items()}
        self.errors = errors
        text = "; ".join(f"{field}: {' '.join(msgs)}" for field, msgs in errors.items())
        super().__init__(text, details={"fields": errors})


class ScriptError(DomainError):
    """A scenario script (YAML) or transcript (JSON) cannot be read.

    ``source`` is the file name (or ``<script>`` for pasted text), ``line`` the 1-based line of the
    offending item when known, ``cause`` what is wrong with it.
    """

    code = "invalid_script"

    def __init__(self, cause: str, *, source: str = "<script>", line: int | None = None) -> None:
        self.source = source
        self.line = line
        self.cause = cause
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {cause}", details={"source": source, "line": line, "cause": cause})


class MessageError(DomainError):
    """A message list does not have the shape of docs/runtime-api.md (``index`` is 0-based)."""

    code = "invalid_messages"

    def __init__(self, cause: str, *, index: int | None = None) -> None:
        self.index = index
        self.cause = cause
        where = f"messages[{index}]: " if index is not None else ""
        super().__init__(f"{where}{cause}", details={"index": index, "cause": cause})


class UnknownRestrictionError(DomainError):
    """An access profile or stage name that the catalog does not define (docs/rule.md: an unknown
    profile or stage name is an error, never "no restriction")."""

    code = "unknown_restriction"

    def __init__(self, kind: str, name: str, known: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.known = known
        on_offer = ", ".join(known) if known else "none defined"
        super().__init__(
            f"unknown {kind} '{name}'; {kind}s on offer: {on_offer}",
            details={"kind": kind, "name": name, "known": known},
        )
