"""ORACLE (reference copy, tests only — see __init__.py). Reading the evidence in a retained transcript (docs/transcripts.md): which call each tool
result answers, which results are loaded manuals, and the warnings a round carries when the
evidence is ambiguous or malformed.

One principle decides every case: when the evidence is ambiguous, a gated tool stays masked and
the round says why (a warning naming the message, 0-based ``index`` and 1-based ``number`` in
``Problem.params``); the round is always computed. Plain Python, no Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from skill_rule.errors import Problem
from skill_rule.limits import LOAD_SKILL
from skill_rule.messages import Message, ToolCall
from skill_rule.transcript import read_answer

#: Issue 22: a call id or result id of the wrong JSON type (``call_id_invalid``) answers nothing;
#: calls sharing one id that differ (a load_skill among them) are a guess (``groups``).

#: The "already loaded" stub a repeat ``load_skill`` returns (docs/rule.md, "Repeat load"), defined
#: once: ``ALREADY_LOADED_TEMPLATE % {"name", "code", "version"}``. ``ALREADY_LOADED_PATTERN``
#: recognises it (surrounding whitespace ignored) so that a stub never counts as a loaded manual,
#: with or without metadata.
ALREADY_LOADED_TEMPLATE = (
    "技能「%(name)s」（%(code)s，v%(version)s）的手册已在上下文中，无需重复加载；请按上文手册继续。"
)
ALREADY_LOADED_PATTERN = re.compile(
    r"\A\s*技能「.*」（(?P<code>[^，）]*)，v(?P<version>[0-9]+)）的手册已在上下文中，无需重复加载；请按上文手册继续。\s*\Z",
    re.DOTALL,
)
#: Metadata key the stub carries (``{"already_loaded": true, ...}``); never a marker.
ALREADY_LOADED_KEY = "already_loaded"


def already_loaded_stub(*, name: str, code: str, version: int) -> str:
    """The stub text for a skill (``ALREADY_LOADED_TEMPLATE`` filled in)."""
    return ALREADY_LOADED_TEMPLATE % {"name": name, "code": code, "version": version}


def is_already_loaded_stub(message: Message) -> bool:
    """True when a tool result is the product's "already loaded" stub: metadata
    ``already_loaded: true`` or content matching ``ALREADY_LOADED_PATTERN``."""
    return message.metadata.get(ALREADY_LOADED_KEY) is True or bool(ALREADY_LOADED_PATTERN.match(message.content))


def _where(message: Message, position: int) -> dict[str, Any]:
    index = message.index if message.index is not None else position
    return {"index": index, "number": index + 1}


@dataclass(frozen=True)
class Pairing:
    """Which call each tool result answers.

    ``answers`` maps a tool message's position (in the list given) to ``(assistant position,
    call position)``; a result that answers nothing is absent. ``warnings`` are ``Problem``s.
    """

    answers: Mapping[int, tuple[int, int]]
    warnings: tuple[Problem, ...]
    #: (assistant position, id) → the differing calls sharing that id (issue 22)
    groups: Mapping[tuple[int, str], tuple[ToolCall, ...]] = None  # type: ignore[assignment]

    def call_of(self, messages: tuple[Message, ...], position: int) -> ToolCall | None:
        """The call the tool message at ``position`` answers, or ``None``."""
        hit = self.answers.get(position)
        return None if hit is None else messages[hit[0]].tool_calls[hit[1]]


def pair_results(messages: tuple[Message, ...]) -> Pairing:
    """Pair every tool result with the call it answers (docs/transcripts.md, "Pairing").

    A result with id ``X`` answers the nearest *preceding* call with id ``X`` that no earlier
    result answered; when that assistant message holds several unanswered calls with id ``X``
    they are answered by position (first result → first call), with a ``duplicate_call_id``
    warning on the message. A result with an empty or missing id answers the call of the
    assistant message right before it only when that message makes exactly one call and that call
    has no id either; otherwise it answers nothing (``result_id_missing``). A result with an id that no preceding unanswered
    call has answers nothing (``result_unpaired``). Calls without an id in a message with several
    calls can never be answered (``call_id_missing``).
    """
    open_calls: dict[str, list[tuple[int, int]]] = {}
    answered: set[tuple[int, int]] = set()
    answers: dict[int, tuple[int, int]] = {}
    warnings: list[Problem] = []
    groups: dict[tuple[int, str], tuple[ToolCall, ...]] = {}
    for pos, m in enumerate(messages):
        if m.role == "assistant" and m.tool_calls:
            seen: dict[str, int] = {}
            for k, c in enumerate(m.tool_calls):
                if c.id:
                    seen[c.id] = seen.get(c.id, 0) + 1
                    open_calls.setdefault(c.id, []).append((pos, k))
            for call_id, n in seen.items():
                if n > 1:
                    same = [c for c in m.tool_calls if c.id == call_id]
                    if any(c.name == LOAD_SKILL for c in same) and any(
                        (c.name, c.arguments.get("skill_code") if c.name == LOAD_SKILL else None)
                        != (same[0].name, same[0].arguments.get("skill_code") if same[0].name == LOAD_SKILL else None)
                        for c in same
                    ):
                        groups[(pos, call_id)] = tuple(same)
                    warnings.append(
                        Problem(
                            "duplicate_call_id",
                            "messages[%(index)s]: %(count)s calls share the id '%(call_id)s'; their results are paired "
                            "by position",
                            {**_where(m, pos), "call_id": call_id, "count": n},
                        )
                    )
            bad = {p.params["position"] for p in m.problems if p.code == "call_id_invalid"}
            missing = [c.name for k, c in enumerate(m.tool_calls) if not c.id and k not in bad]
            if missing and len(m.tool_calls) > 1:
                warnings.append(
                    Problem(
                        "call_id_missing",
                        "messages[%(index)s]: calls without an id (%(tools)s) among several calls; no result can "
                        "answer them",
                        {**_where(m, pos), "tools": ", ".join(missing), "tool_list": missing},
                    )
                )
        elif m.role == "tool":
            if m.tool_call_id:
                candidates = open_calls.get(m.tool_call_id) or []
                if not candidates:
                    warnings.append(
                        Problem(
                            "result_unpaired",
                            "messages[%(index)s]: the tool result for id '%(call_id)s' answers no earlier "
                            "unanswered call; without a marker it loads nothing",
                            {**_where(m, pos), "call_id": m.tool_call_id},
                        )
                    )
                    continue
                nearest = candidates[-1][0]
                pick = next(c for c in candidates if c[0] == nearest)
                candidates.remove(pick)
            else:
                if any(p.code == "call_id_invalid" for p in m.problems):
                    continue
                prev = messages[pos - 1] if pos > 0 else None
                pick = (pos - 1, 0)
                if (
                    prev is None
                    or prev.role != "assistant"
                    or len(prev.tool_calls) != 1
                    or prev.tool_calls[0].id
                    or pick in answered
                    or any(p.code == "call_id_invalid" for p in prev.problems)
                ):
                    warnings.append(
                        Problem(
                            "result_id_missing",
                            "messages[%(index)s]: a tool result without an id that does not directly follow an "
                            "assistant message with exactly one call without an id; without a marker it loads nothing",
                            _where(m, pos),
                        )
                    )
                    continue
            answered.add(pick)
            answers[pos] = pick
    return Pairing(answers=answers, warnings=tuple(warnings), groups=groups)


@dataclass(frozen=True)
class LoadedManual:
    """A retained tool result that counts as a loaded manual: its ``position`` in the messages,
    the message ``index`` as received, the skill ``code`` and the ``version`` its metadata names
    (``None`` when it names none)."""

    position: int
    index: int
    code: str
    version: int | None


@dataclass(frozen=True)
class Evidence:
    """What a transcript proves: the loaded manuals (in message order) and the warnings."""

    manuals: tuple[LoadedManual, ...]
    warnings: tuple[Problem, ...]

    @property
    def codes(self) -> frozenset[str]:
        return frozenset(m.code for m in self.manuals)


def is_evicted(message: Message, eviction_prefix: str) -> bool:
    """True when a tool result was replaced by the eviction placeholder (docs/rule.md): content
    starting with ``eviction_prefix``, or ``metadata.evicted`` present and not ``false`` (a value
    that is neither true nor false reads as evicted: docs/transcripts.md, fail closed)."""
    return message.metadata.get("evicted", False) is not False or message.content.startswith(eviction_prefix)


def read_evidence(
    messages: Iterable[Message], *, marker_key: str, eviction_prefix: str, published: Mapping = {}
) -> Evidence:
    """Every retained tool result that counts as a loaded manual, and the warnings of the
    transcript (docs/transcripts.md, "What counts as a loaded manual").

    A tool result loads skill ``s`` when all hold: state success (no error flag); not evicted;
    not the "already loaded" stub; content not empty or whitespace; and either its metadata
    carries ``marker_key == s`` (the console's own shape; when it also answers a ``load_skill``
    call, that call must ask for ``s``, else ``marker_mismatch``), or it has no metadata at all
    (OpenAI / Anthropic shape) and answers (see ``pair_results``) a ``load_skill`` call whose
    ``skill_code`` is ``s``. Codes are not checked
    against a catalog here.
    """
    msgs = tuple(messages)
    pairing = pair_results(msgs)
    warnings: list[Problem] = [p for m in msgs for p in m.problems]
    warnings.extend(pairing.warnings)
    manuals: list[LoadedManual] = []
    for pos, m in enumerate(msgs):
        if m.role != "tool":
            continue
        # the verdict on one result is the product's own (session 19: fail closed on doubtful
        # metadata and on results that answer no call); this oracle checks the pairing and the
        # linear reading around it
        call = pairing.call_of(msgs, pos)
        group = pairing.groups.get((pairing.answers[pos][0], call.id)) if call is not None else None
        manual, warning = read_answer(
            m, pos, call, group, marker_key=marker_key, eviction_prefix=eviction_prefix, published=published
        )
        if warning is not None:
            warnings.append(warning)
        if manual is not None:
            manuals.append(
                LoadedManual(position=manual.position, index=manual.index, code=manual.code, version=manual.version)
            )
    return Evidence(manuals=tuple(manuals), warnings=tuple(warnings))


def outdated_warnings(evidence: Evidence, versions: Mapping[str, tuple[int, tuple[str, ...]]]) -> tuple[Problem, ...]:
    """``manual_outdated`` for every loaded skill whose retained manuals are all of an older
    version than the skill now has (``versions``: code → (current version, tool_ids)).

    The console keeps no history of a skill's tool_ids, so the warning names the tools the skill
    gates *now* — the ones the old manual may not mention but releases (docs/transcripts.md).
    A manual without a version is taken as current (no warning).
    """
    out: list[Problem] = []
    by_code: dict[str, list[LoadedManual]] = {}
    for m in evidence.manuals:
        if m.code in versions:
            by_code.setdefault(m.code, []).append(m)
    latest: dict[str, LoadedManual] = {}
    for code, manuals in by_code.items():
        current = versions[code][0]
        if all(m.version is not None and m.version < current for m in manuals):
            latest[code] = max(manuals, key=lambda m: (m.version, m.position))
    for code, m in latest.items():
        current, tools = versions[code]
        if m.version is not None and m.version < current:
            out.append(
                Problem(
                    "manual_outdated",
                    "messages[%(index)s]: the retained manual of '%(skill)s' is version %(version)s, the skill is now "
                    "version %(current)s; it releases %(tools)s, which that manual may not mention",
                    {
                        "index": m.index,
                        "number": m.index + 1,
                        "skill": code,
                        "version": m.version,
                        "current": current,
                        "tools": ", ".join(tools) or "no tool",
                        "tool_list": list(tools),
                    },
                )
            )
    return tuple(out)
