"""Reading the evidence in a retained transcript (docs/transcripts.md): which call each tool
result answers, which results are loaded manuals, and the warnings a round carries when the
evidence is ambiguous or malformed.

One principle decides every case: when the evidence is ambiguous, a gated tool stays masked and
the round says why (a warning naming the message, 0-based ``index`` and 1-based ``number`` in
``Problem.params``); the round is always computed. Plain Python, no Django.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import Problem
from .limits import LOAD_SKILL
from .manuals import ManualDigest, held_version, normalise
from .messages import Message, ToolCall, build_frozen
from .messages import shown as _shown

#: The "already loaded" stub a repeat ``load_skill`` returns (docs/rule.md, "Repeat load"), defined
#: once: ``ALREADY_LOADED_TEMPLATE % {"name", "code", "version"}``. ``ALREADY_LOADED_PATTERN``
#: finds it anywhere in a result (``search``: a runtime's prefix or suffix around it changes
#: nothing) so that a stub never counts as a loaded manual, with or without metadata. The name
#: part is bounded (a skill name is at most 64 characters; 256 allowed) so the search stays linear.
ALREADY_LOADED_TEMPLATE = (
    "技能「%(name)s」（%(code)s，v%(version)s）的手册已在上下文中，无需重复加载；请按上文手册继续。"
)
ALREADY_LOADED_PATTERN = re.compile(
    r"技能「.{0,256}?」（(?P<code>[^，）]*)，v(?P<version>[0-9]+)）的手册已在上下文中，无需重复加载；请按上文手册继续。",
    re.DOTALL,
)
#: Metadata key the stub carries (``{"already_loaded": true, ...}``); never a marker.
ALREADY_LOADED_KEY = "already_loaded"


def already_loaded_stub(*, name: str, code: str, version: int) -> str:
    """The stub text for a skill (``ALREADY_LOADED_TEMPLATE`` filled in)."""
    return ALREADY_LOADED_TEMPLATE % {"name": name, "code": code, "version": version}


def is_already_loaded_stub(message: Message) -> bool:
    """True when a tool result is the product's "already loaded" stub: metadata
    ``already_loaded: true`` or content holding the stub sentence (``ALREADY_LOADED_PATTERN``,
    anywhere: a runtime may add a prefix or a suffix)."""
    return (
        message.metadata.get(ALREADY_LOADED_KEY) is True or ALREADY_LOADED_PATTERN.search(message.content) is not None
    )


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
    calls can never be answered (``call_id_missing``); nor can a call or result whose id is not a
    string (``call_id_invalid``, a warning of the message). The answers stay positional inside a
    group of calls sharing an id; what a result in a group of *differing* calls proves is
    ``read_answer``'s (docs/transcripts.md, "Pairing").

    One pass (``EvidenceReader`` reads the same way, one message at a time).
    """
    reader = EvidenceReader(marker_key="", eviction_prefix="", manuals=False)  # pragma: no mutate
    for m in messages:
        reader.append(m)
    return Pairing(answers=dict(reader._answers), warnings=tuple(reader._pair_warnings))


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
    #: Per skill code, in the order of its first manual: ``(has_unversioned, newest)`` — whether a
    #: manual names no version, and the manual with the highest ``(version, position)`` among those
    #: that do (``None`` if none). Kept by ``EvidenceReader`` so that a round reads it in
    #: O(codes), not O(manuals); built from ``manuals`` when absent.
    latest: Mapping[str, tuple[bool, LoadedManual | None]] | None = field(default=None, compare=False, repr=False)

    @property
    def codes(self) -> frozenset[str]:
        return frozenset(self.latest) if self.latest is not None else frozenset(m.code for m in self.manuals)

    def newest(self) -> Mapping[str, tuple[bool, LoadedManual | None]]:
        """``latest``, built from ``manuals`` when it was not kept."""
        return self.latest if self.latest is not None else _latest(self.manuals)


def _latest(manuals: Iterable[LoadedManual]) -> dict[str, tuple[bool, LoadedManual | None]]:
    out: dict[str, tuple[bool, LoadedManual | None]] = {}
    for m in manuals:
        _note(out, m)
    return out


def _note(latest: dict[str, tuple[bool, LoadedManual | None]], m: LoadedManual) -> None:
    """Fold one manual into ``latest`` (see ``Evidence.latest``); manuals come in message order, so
    a later manual of the same version is the newer."""
    unversioned, newest = latest.get(m.code, (False, None))
    if m.version is None:
        unversioned = True
    elif newest is None or m.version >= newest.version:  # type: ignore[operator]  # newest is a versioned manual
        newest = m
    latest[m.code] = (unversioned, newest)


def is_evicted(message: Message, eviction_prefix: str) -> bool:
    """True when a tool result was replaced by the eviction placeholder (docs/rule.md): content
    starting with ``eviction_prefix``, or ``metadata.evicted`` present and not ``false`` (a value
    that is neither true nor false reads as evicted: docs/transcripts.md, fail closed)."""
    return message.metadata.get("evicted", False) is not False or message.content.startswith(eviction_prefix)


#: Skill code → the published manuals a result of it may hold (``Catalog.published_manuals``).
Published = Mapping[str, "tuple[ManualDigest, ...]"]
_NONE_PUBLISHED: Published = {}


def read_evidence(
    messages: Iterable[Message], *, marker_key: str, eviction_prefix: str, published: Published = _NONE_PUBLISHED
) -> Evidence:
    """Every retained tool result that counts as a loaded manual, and the warnings of the
    transcript (docs/transcripts.md, "What counts as a loaded manual").

    Each tool result is judged by ``read_result`` against the call it answers (``pair_results``;
    in a group of differing calls sharing an id, ``read_answer``: only a marker names the call):
    state success (no error flag); not evicted; not the "already loaded" stub; content not empty
    or whitespace; and either its metadata carries ``marker_key == s`` (the console's own shape;
    when it answers a call, that call must be ``load_skill`` asking for ``s``), or it has no
    metadata at all (OpenAI / Anthropic shape) and answers a ``load_skill`` call whose
    ``skill_code`` is ``s``; doubtful metadata fails closed with a warning. For a code in
    ``published`` (the catalog's ``published_manuals``) the content must also hold a whole
    published manual of ``s`` (else ``manual_incomplete``); a code not in it is read as before
    (the catalog does not gate by it). One pass over ``messages`` (``EvidenceReader``).
    """
    reader = EvidenceReader(marker_key=marker_key, eviction_prefix=eviction_prefix, published=published)
    for m in messages:
        reader.append(m)
    return reader.evidence()


class EvidenceReader:
    """``read_evidence`` kept up to date as messages are appended (docs/rule.md, "Cost").

    ``append(m)`` reads one message in O(calls of m) — the pairing state (open calls by id, the
    answers) and the loaded manuals are kept, never rebuilt — so reading a transcript
    message by message costs O(messages + calls) in all, and ``evidence()`` after any prefix
    equals ``read_evidence`` of that prefix. ``replace(position, m)`` swaps in a message with the
    same role, calls and ``tool_call_id`` (an eviction placeholder): only that message is read
    again. ``messages`` is the list read so far (do not mutate it; build a new reader after a
    compaction, which shifts positions). With ``manuals=False`` only the pairing is kept.
    ``published``: as for ``read_evidence`` (the catalog's ``published_manuals``).
    """

    def __init__(
        self, *, marker_key: str, eviction_prefix: str, manuals: bool = True, published: Published = _NONE_PUBLISHED
    ) -> None:
        self.marker_key = marker_key
        self.eviction_prefix = eviction_prefix
        self.published = published
        self.messages: list[Message] = []
        self._read_manuals = manuals
        self._open_calls: dict[str, list[tuple[int, int]]] = {}
        self._answers: dict[int, tuple[int, int]] = {}
        #: (assistant position, id) → the calls sharing that id there, when positional pairing
        #: is a guess that changes which skill loads (``_is_guess``)
        self._groups: dict[tuple[int, str], tuple[ToolCall, ...]] = {}
        self._message_problems: list[Problem] = []
        self._pair_warnings: list[Problem] = []
        #: position → what the tool result there proves (a manual) or why it proves nothing.
        self._manuals: dict[int, LoadedManual] = {}
        self._manual_warnings: dict[int, Problem] = {}
        self._latest: dict[str, tuple[bool, LoadedManual | None]] = {}
        #: skill code → the versions its retained manuals name (``None`` for none): the repeat-load check
        self._versions: dict[str, set[int | None]] = {}
        self._evidence: Evidence | None = None

    def __len__(self) -> int:
        return len(self.messages)

    def append(self, m: Message) -> None:
        """Read one more message (appended at the end)."""
        pos = len(self.messages)
        self.messages.append(m)
        self._evidence = None
        if m.problems:
            self._message_problems.extend(m.problems)
        role = m.role
        if role == "tool" or (role == "assistant" and m.tool_calls):  # nothing to pair in the others
            self._pair(m, pos)
            if role == "tool" and self._read_manuals:
                self._read_result(m, pos)

    def replace(self, position: int, m: Message) -> None:
        """Swap the message at ``position`` for ``m`` (same role, calls and ``tool_call_id``, e.g.
        an eviction placeholder) and read that one result again."""
        old = self.messages[position]
        if (old.role, old.tool_calls, old.tool_call_id) != (m.role, m.tool_calls, m.tool_call_id):
            raise ValueError("replace() keeps a message's role, calls and tool_call_id")
        self.messages[position] = m
        self._evidence = None
        self._manuals.pop(position, None)
        self._manual_warnings.pop(position, None)
        if self._read_manuals and m.role == "tool":
            self._read_result(m, position)
            # keep both maps in message order (a re-read result may land at the end)
            self._manuals = dict(sorted(self._manuals.items()))
            self._manual_warnings = dict(sorted(self._manual_warnings.items()))
        self._latest = _latest(self._manuals.values())
        self._versions = {}
        for manual in self._manuals.values():
            self._versions.setdefault(manual.code, set()).add(manual.version)

    def holds_manual(self, code: str, version: int) -> bool:
        """True when a retained manual of ``code`` is of ``version`` or names no version — the
        repeat-load test of docs/rule.md, in O(1)."""
        versions = self._versions.get(code, ())
        return None in versions or version in versions

    @property
    def manuals(self) -> tuple[LoadedManual, ...]:
        """The loaded manuals so far, in message order."""
        return self.evidence().manuals

    def evidence(self) -> Evidence:
        """``read_evidence`` of the messages read so far (built once per change)."""
        if self._evidence is None:
            self._evidence = Evidence(
                manuals=tuple(self._manuals.values()),
                warnings=(*self._message_problems, *self._pair_warnings, *self._manual_warnings.values()),
                latest=dict(self._latest),
            )
        return self._evidence

    def _pair(self, m: Message, pos: int) -> None:
        """One step of ``pair_results``: ``m`` is a tool result or an assistant message making
        calls (``append`` pairs no other)."""
        warnings = self._pair_warnings
        if m.role == "tool":
            if m.tool_call_id:
                candidates = self._open_calls.get(m.tool_call_id) or []
                if not candidates:
                    warnings.append(
                        Problem(
                            "result_unpaired",
                            "messages[%(index)s]: the tool result for id '%(call_id)s' answers no earlier "
                            "unanswered call; without a marker it loads nothing",
                            {**_where(m, pos), "call_id": m.tool_call_id},
                        )
                    )
                    return
                # the nearest message's calls with this id sit at the end of the list, in order
                nearest = candidates[-1][0]
                first = len(candidates) - 1
                while first > 0 and candidates[first - 1][0] == nearest:
                    first -= 1
                pick = candidates.pop(first)
            else:
                if _has_problem(m, "call_id_invalid"):
                    return  # an id of the wrong type answers nothing: its own warning says so
                prev = self.messages[pos - 1]  # at position 0, ``m`` itself: no assistant message
                if (
                    prev.role != "assistant"
                    or len(prev.tool_calls) != 1
                    or prev.tool_calls[0].id
                    or _has_problem(prev, "call_id_invalid")
                ):  # a call whose id was no string: never answered
                    warnings.append(
                        Problem(
                            "result_id_missing",
                            "messages[%(index)s]: a tool result without an id that does not directly follow an "
                            "assistant message with exactly one call without an id; without a marker it loads nothing",
                            _where(m, pos),
                        )
                    )
                    return
                pick = (pos - 1, 0)  # a call without an id: only the result right after it can answer it
            self._answers[pos] = pick
        elif len(m.tool_calls) == 1:  # the common case: no id to share
            only = m.tool_calls[0]
            if only.id:
                self._open_calls.setdefault(only.id, []).append((pos, 0))
        else:  # several calls
            seen: dict[str, int] = {}
            for k, c in enumerate(m.tool_calls):
                if c.id:
                    seen[c.id] = seen.get(c.id, 0) + 1
                    self._open_calls.setdefault(c.id, []).append((pos, k))
            for call_id, n in seen.items():
                if n > 1:
                    group = tuple(c for c in m.tool_calls if c.id == call_id)
                    if _is_guess(group):
                        self._groups[(pos, call_id)] = group
                    warnings.append(
                        Problem(
                            "duplicate_call_id",
                            "messages[%(index)s]: %(count)s calls share the id '%(call_id)s'; their results are paired "
                            "by position",
                            {**_where(m, pos), "call_id": call_id, "count": n},
                        )
                    )
            invalid = (
                {p.params.get("position") for p in m.problems if p.code == "call_id_invalid"} if m.problems else ()
            )
            missing = [c.name for k, c in enumerate(m.tool_calls) if not c.id and k not in invalid]
            if missing:
                warnings.append(
                    Problem(
                        "call_id_missing",
                        "messages[%(index)s]: calls without an id (%(tools)s) among several calls; no result can "
                        "answer them",
                        {**_where(m, pos), "tools": ", ".join(missing), "tool_list": missing},
                    )
                )

    def _read_result(self, m: Message, pos: int) -> None:
        """One step of ``read_evidence``: what the tool result at ``pos`` proves (``read_result``)."""
        hit = self._answers.get(pos)
        call = None if hit is None else self.messages[hit[0]].tool_calls[hit[1]]
        group = self._groups.get((hit[0], call.id)) if self._groups and call is not None else None  # type: ignore[index]  # a call: a hit
        manual, warning = read_answer(
            m,
            pos,
            call,
            group,
            marker_key=self.marker_key,
            eviction_prefix=self.eviction_prefix,
            published=self.published,
        )
        if warning is not None:
            self._manual_warnings[pos] = warning
        if manual is not None:
            self._manuals[pos] = manual
            if pos == len(self.messages) - 1:  # appended: fold it in (a replace() rebuilds both)
                _note(self._latest, manual)
                self._versions.setdefault(manual.code, set()).add(manual.version)


def _has_problem(m: Message, code: str) -> bool:
    return any(p.code == code for p in m.problems) if m.problems else False


def _is_guess(group: tuple[ToolCall, ...]) -> bool:
    """True when the calls sharing one id in one assistant message (``group``) make positional
    pairing a guess that changes which skill loads: a ``load_skill`` among them and not all the
    same (tool name, and ``skill_code`` for ``load_skill``). docs/transcripts.md, "Pairing"."""
    if not any(c.name == LOAD_SKILL for c in group):
        return False
    kinds = {(c.name, repr(c.arguments.get("skill_code")) if c.name == LOAD_SKILL else None) for c in group}
    return len(kinds) > 1


def read_answer(
    m: Message,
    pos: int,
    call: ToolCall | None,
    group: tuple[ToolCall, ...] | None,
    *,
    marker_key: str,
    eviction_prefix: str,
    published: Published = _NONE_PUBLISHED,
) -> tuple[LoadedManual | None, Problem | None]:
    """``read_result`` of the tool result ``m`` paired by position with ``call`` of ``group`` —
    the differing calls sharing its id in one assistant message (``None`` when the pairing is
    certain: one call, or identical calls). Then the position is a guess: the result is judged
    against the group's ``load_skill`` call asking for the skill its marker (``marker_key``)
    names, or, without such a marker, proves nothing — ``pairing_ambiguous`` naming the result's
    message and the id (a failed result: no warning, it proves nothing anyway). Never a manual
    credited to a skill whose own load may have failed (docs/transcripts.md, "Pairing")."""
    if group is None or call is None:
        return read_result(m, pos, call, marker_key=marker_key, eviction_prefix=eviction_prefix, published=published)
    marker = m.metadata.get(marker_key)
    if isinstance(marker, str) and marker:
        for c in group:
            if c.name == LOAD_SKILL and c.arguments.get("skill_code") == marker:
                return read_result(
                    m, pos, c, marker_key=marker_key, eviction_prefix=eviction_prefix, published=published
                )
    if m.state != "success":
        return None, None
    return None, Problem(
        "pairing_ambiguous",
        "messages[%(index)s]: the tool result for id '%(call_id)s' may answer any of %(count)s different calls "
        "sharing that id (%(calls)s); without a marker naming one of their skills it loads nothing",
        {**_where(m, pos), "call_id": call.id, "count": len(group), "calls": ", ".join(_call_label(c) for c in group)},
    )


def _call_label(c: ToolCall) -> str:
    return f"{LOAD_SKILL}({_shown(c.arguments.get('skill_code'))})" if c.name == LOAD_SKILL else c.name


def read_result(
    m: Message,
    pos: int,
    call: ToolCall | None,
    *,
    marker_key: str,
    eviction_prefix: str,
    published: Published = _NONE_PUBLISHED,
) -> tuple[LoadedManual | None, Problem | None]:
    """What one retained tool result proves (docs/transcripts.md, "What counts as a loaded
    manual"): ``(manual, warning)`` — the ``LoadedManual`` it counts as (or ``None``) and the
    warning saying why it loads nothing or what about it is doubtful (or ``None``).

    ``m`` is a tool result at ``pos`` in the list read; ``call`` is the call it answers
    (``pair_results``), ``None`` when it answers none — then only the marker can make it a manual
    (docs/rule.md: the marker is the runtime's own record that the body is the manual; its call
    may have been compacted away). Fail closed:
    a flag that is neither true nor false (``metadata.evicted`` or ``already_loaded`` of ``"true"``,
    ``1``, ``null``) reads as set, a marker that is no skill code or a result with metadata but no
    marker loads nothing, a marker on a result of another tool than ``load_skill`` loads nothing —
    each with a warning naming the message. An unreadable ``skill_version`` (not a whole number of
    at least 1) loads the manual as naming no version, with a warning.

    For a code in ``published`` the whitespace-normalised content (``manuals.normalise``) must hold
    a whole published manual of that skill (``manuals.held_version``; text around it allowed):
    else ``manual_incomplete`` and nothing loads. The manual's version is then the version whose
    text it holds, whatever ``metadata.skill_version`` says (docs/transcripts.md, "A whole
    published manual").
    """
    meta = m.metadata
    if m.state != "success":
        return None, None  # a failed result: never a manual
    if m.problems and _has_problem(m, "metadata_invalid"):
        return None, None  # metadata of the wrong type: untrusted, its own warning says so
    if "evicted" in meta and not isinstance(meta["evicted"], bool):
        return None, Problem(
            "evicted_ambiguous",
            "messages[%(index)s]: metadata.evicted is %(value)s, not true or false; read as evicted",
            {**_where(m, pos), "value": _shown(meta["evicted"])},
        )
    if ALREADY_LOADED_KEY in meta and not isinstance(meta[ALREADY_LOADED_KEY], bool):
        return None, Problem(
            "already_loaded_ambiguous",
            "messages[%(index)s]: metadata.already_loaded is %(value)s, not true or false; read as the "
            "already-loaded stub, it loads nothing",
            {**_where(m, pos), "value": _shown(meta[ALREADY_LOADED_KEY])},
        )
    if is_evicted(m, eviction_prefix) or is_already_loaded_stub(m):
        return None, None
    has_marker = marker_key in meta
    marker = meta.get(marker_key)
    if call is None and not has_marker:
        return None, None  # answers no call, carries no marker: the pairing's warning says so
    if call is not None and call.name != LOAD_SKILL:
        if not has_marker:
            return None, None  # an ordinary tool result
        return None, Problem(
            "marker_not_load_skill",
            "messages[%(index)s]: the result carries the marker %(marker)s but answers %(tool)s, not load_skill; "
            "it loads nothing",
            {**_where(m, pos), "marker": _shown(marker), "tool": call.name},
        )
    asked = call.arguments.get("skill_code") if call is not None else None
    if has_marker and not (isinstance(marker, str) and marker):
        return None, Problem(
            "marker_invalid",
            "messages[%(index)s]: metadata.%(key)s is %(value)s, not a skill code; it loads nothing",
            {**_where(m, pos), "key": marker_key, "value": _shown(marker)},
        )
    if not has_marker and not isinstance(asked, str):
        return None, None  # load_skill asked for no skill (its arguments warning says why)
    if has_marker and call is not None and asked != marker:
        return None, Problem(
            "marker_mismatch",
            "messages[%(index)s]: the result carries the manual of '%(skill)s' but answers "
            "load_skill(%(asked)s); it loads nothing",
            {**_where(m, pos), "skill": marker, "asked": repr(asked)},
        )
    if not has_marker and meta:
        return None, Problem(
            "marker_missing",
            "messages[%(index)s]: the load_skill result for '%(skill)s' has metadata without %(key)s; it loads nothing",
            {**_where(m, pos), "skill": asked, "key": marker_key},
        )
    code: Any = marker if has_marker else asked  # a JSON value, a string when it names a skill
    if not m.content.strip():
        return None, Problem(
            "manual_empty",
            "messages[%(index)s]: the load_skill result for '%(skill)s' is empty; it loads nothing",
            {**_where(m, pos), "skill": code},
        )
    manuals = published.get(code)
    if manuals is not None:  # a skill the catalog publishes: only a whole published manual of it loads
        held = held_version(normalise(m.content), manuals)
        if held is None:
            return None, Problem(
                "manual_incomplete",
                "messages[%(index)s]: the load_skill result for '%(skill)s' does not hold a whole published manual "
                "of it (%(chars)s characters); it loads nothing",
                {**_where(m, pos), "skill": code, "chars": len(m.content)},
            )
        return build_frozen(
            LoadedManual,
            {  # the text names the version, not the metadata
                "position": pos,
                "index": m.index if m.index is not None else pos,
                "code": code,
                "version": held,
            },
        ), None
    version = meta.get("skill_version")
    warning = None
    if version is not None and not (isinstance(version, int) and not isinstance(version, bool) and version >= 1):
        warning = Problem(
            "skill_version_invalid",
            "messages[%(index)s]: metadata.skill_version is %(value)s, not a version number; the manual of "
            "'%(skill)s' counts as naming no version",
            {**_where(m, pos), "value": _shown(version), "skill": code},
        )
        version = None
    manual = build_frozen(
        LoadedManual,
        {"position": pos, "index": m.index if m.index is not None else pos, "code": code, "version": version},
    )
    return manual, warning


def outdated_warnings(evidence: Evidence, versions: Mapping[str, tuple[int, tuple[str, ...]]]) -> tuple[Problem, ...]:
    """``manual_outdated`` for every loaded skill whose retained manuals are all of an older
    version than the skill now has (``versions``: code → (current version, tool_ids)).

    The console keeps no history of a skill's tool_ids, so the warning names the tools the skill
    gates *now* — the ones the old manual may not mention but releases (docs/transcripts.md).
    A manual without a version is taken as current (no warning).
    """
    out: list[Problem] = []
    latest: dict[str, LoadedManual] = {}
    for code, (unversioned, newest) in evidence.newest().items():
        if code not in versions or unversioned or newest is None:
            continue
        if newest.version < versions[code][0]:  # type: ignore[operator]  # the newest is older: all are
            latest[code] = newest
    for code, m in latest.items():  # each is older than its skill (checked above)
        current, tools = versions[code]
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
