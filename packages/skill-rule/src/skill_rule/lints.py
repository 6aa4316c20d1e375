"""Lints: warnings about a catalog that never block a save or a publish (docs/lints.md).

Plain Python over a ``Catalog``; the editor (live), the skill list and the publish page show them.
Every lint has a stable ``code`` and an English ``template`` with ``%(name)s`` parameters; pages
translate by code (``skills_app.web.presenters.lint_sentence``).

=========================  ===============================================================
code                       when
=========================  ===============================================================
``description_long``       a description over ``DESCRIPTION_LINT_LENGTH`` (250) characters
``manual_long``            a manual over ``MANUAL_LINT_LENGTH`` (20,000) characters
``mention_unregistered``   the manual names a tool that is not registered (a snake_case name
                           in backticks or before ``(`` that is no registered tool, builtin,
                           skill code or argument name of a registered tool)
``mention_gated_elsewhere`` the manual names a tool another enabled skill gates and this one
                           does not: the mention unlocks nothing
``gated_read_only``        the skill gates a plainly read-only tool (``annotations.readOnlyHint``
                           is true, ``destructiveHint`` not true, no hint of another type:
                           ``tooldefs.read_annotations``; with no annotations synced: the node
                           has no require_confirm)
``confirm_ungated``        a require_confirm MCP tool that no enabled skill gates
``description_duplicate``  two skills have the same description (after trimming spaces)
=========================  ===============================================================
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .catalog import BUILTIN, Catalog, Skill, Tool
from .limits import DESCRIPTION_LINT_LENGTH, MANUAL_LINT_LENGTH
from .tooldefs import read_annotations

DESCRIPTION_LONG = "description_long"
MANUAL_LONG = "manual_long"
MENTION_UNREGISTERED = "mention_unregistered"
MENTION_GATED_ELSEWHERE = "mention_gated_elsewhere"
GATED_READ_ONLY = "gated_read_only"
CONFIRM_UNGATED = "confirm_ungated"
DESCRIPTION_DUPLICATE = "description_duplicate"

#: English templates by code; the parameters are those of ``Lint.params``.
TEMPLATES = {
    DESCRIPTION_LONG: "the description is %(length)s characters long; keep it within %(limit)s "
    "(the model reads it in every round)",
    MANUAL_LONG: "the manual is %(length)s characters long; keep it within %(limit)s (it fills the context "
    "while loaded)",
    MENTION_UNREGISTERED: "the manual names '%(tool)s', which is not a registered tool",
    MENTION_GATED_ELSEWHERE: "the manual names '%(tool)s', which %(owners)s gates: mentioning it unlocks "
    "nothing, load %(owners)s or gate it here",
    GATED_READ_ONLY: "gates '%(tool)s', a read-only tool: hiding it behind a manual only slows the model down",
    CONFIRM_UNGATED: "'%(tool)s' needs confirmation but no skill gates it: the model gets it without a manual",
    DESCRIPTION_DUPLICATE: "the description is the same as that of %(others)s: the model cannot tell them apart",
}

#: One pass over a manual: a snake_case name in backticks, a snake_case name before "(", or any
#: other identifier-like word (checked against the registered names).
_SNAKE = r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+"
_TOKENS = re.compile(
    rf"`(?P<code>{_SNAKE})`|(?<![A-Za-z0-9_])(?P<call>{_SNAKE})\(|(?<![A-Za-z0-9_])(?P<word>[A-Za-z][A-Za-z0-9_]*)"
)


@dataclass(frozen=True)
class Lint:
    """One warning. ``skill`` is the code it is about (``None`` for a catalog-wide lint such as
    ``confirm_ungated``); ``tool`` the tool it names, if any; ``params`` fill ``TEMPLATES[code]``."""

    code: str
    skill: str | None
    tool: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def message(self) -> str:
        """The English sentence."""
        return TEMPLATES[self.code] % dict(self.params)

    def as_dict(self) -> dict[str, Any]:
        """JSON shape: ``{"code", "skill", "tool", "message", "params"}``."""
        return {
            "code": self.code,
            "skill": self.skill,
            "tool": self.tool,
            "message": self.message,
            "params": dict(self.params),
        }


def is_read_only(tool: Tool) -> bool:
    """A tool that only reads (docs/lints.md): once MCP annotations are synced, one that is
    *plainly* read-only (``tooldefs.read_annotations``: ``readOnlyHint`` exactly true, no
    ``destructiveHint: true``, no hint of another type) — the lint never advises ungating a tool
    whose hints are contradictory or doubtful; without annotations, a tool whose node has no
    ``require_confirm``."""
    if tool.annotations:
        return read_annotations(tool.annotations, tool=tool.name).plainly_read_only
    return not tool.require_confirm


def manual_mentions(content: str, registered: frozenset[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(registered tools named, other tool-like names)`` in a manual, each in first-mention order.

    One pass of one compiled regex: a registered name counts wherever it stands as a word; an
    unregistered name counts only in backticks or before ``(`` (prose words are not tool names).
    """
    named: dict[str, None] = {}
    strangers: dict[str, None] = {}
    for m in _TOKENS.finditer(content):
        token = m.group("code") or m.group("call") or m.group("word")
        if token in registered:
            named.setdefault(token)
        elif m.group("word") is None:
            strangers.setdefault(token)
    return tuple(named), tuple(strangers)


#: How many distinct tool sets keep their compiled pattern (``_mention_pattern``).
MENTION_PATTERNS_CACHED = 64


@lru_cache(maxsize=MENTION_PATTERNS_CACHED)
def _mention_pattern(tools: frozenset[str]) -> re.Pattern[str]:
    """One alternation of every name in ``tools`` as a whole word (longest first, so ``order``
    never wins over ``order_no``), compiled once per tool set and kept (LRU)."""
    names = "|".join(re.escape(t) for t in sorted(tools, key=lambda t: (-len(t), t)))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{names})(?![A-Za-z0-9_])")


#: A run of the characters a whole-word mention may not touch (``_mention_pattern``'s guards).
_WORD_RUN = re.compile(r"[A-Za-z0-9_]+")
_NOT_WORD = re.compile(r"[^A-Za-z0-9_]")


def tools_mentioned(content: str, tools: frozenset[str] | set[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The names of ``tools`` that ``content`` (a manual) mentions as a whole word (not inside a
    longer identifier), each once, in first-mention order.

    One pass of one compiled alternation regex over the manual (``_mention_pattern``, cached per
    tool set), never a regex per tool: the editor calls it on every keystroke preview. When every
    name is made of ``[A-Za-z0-9_]`` only (the usual tool names), a whole-word mention of one is
    exactly a maximal run of those characters, so the manual's runs are looked up in the set
    instead — the same names in the same order, without an alternation of 2,000 names tried at
    every position. Empty ``tools`` or ``content`` mention nothing."""
    names = frozenset(t for t in tools if t)
    if not names or not content:  # pragma: no mutate
        return ()
    found: dict[str, None] = {}
    if _NOT_WORD.search("".join(names)) is None:  # pragma: no mutate
        for m in _WORD_RUN.finditer(content):
            if m.group(0) in names:
                found.setdefault(m.group(0))
        return tuple(found)
    for m in _mention_pattern(names).finditer(content):
        found.setdefault(m.group(0))
    return tuple(found)


def _argument_names(catalog: Catalog) -> frozenset[str]:
    """Every property name of every tool's ``inputSchema``: computed from the tools alone, once per
    catalog and shared with its ``with_skills`` copies (the editor's draft)."""

    def build() -> frozenset[str]:
        names: set[str] = set()
        for t in catalog.tools:
            props = t.input_schema.get("properties") if isinstance(t.input_schema, Mapping) else None
            if isinstance(props, Mapping):
                names.update(str(k) for k in props)
        return frozenset(names)

    return catalog.derived(Catalog.TOOLS_ONLY + "lints_argument_names", build)  # pragma: no mutate


def _skill_lints(
    skill: Skill,
    registered: frozenset[str],
    known: frozenset[str],
    owners: Mapping[str, tuple[str, ...]],
    tools: Mapping[str, Tool],
) -> list[Lint]:
    out: list[Lint] = []
    if len(skill.description) > DESCRIPTION_LINT_LENGTH:
        out.append(
            Lint(
                DESCRIPTION_LONG, skill.code, None, {"length": len(skill.description), "limit": DESCRIPTION_LINT_LENGTH}
            )
        )
    if len(skill.content) > MANUAL_LINT_LENGTH:
        out.append(Lint(MANUAL_LONG, skill.code, None, {"length": len(skill.content), "limit": MANUAL_LINT_LENGTH}))
    named, strangers = manual_mentions(skill.content, registered)
    for name in strangers:
        if name not in known:
            out.append(Lint(MENTION_UNREGISTERED, skill.code, name, {"tool": name}))
    for name in named:
        others = tuple(c for c in owners.get(name, ()) if c != skill.code)
        if others and name not in skill.tool_ids:
            out.append(
                Lint(
                    MENTION_GATED_ELSEWHERE,
                    skill.code,
                    name,
                    {"tool": name, "owners": ", ".join(others), "owner_list": list(others)},
                )
            )
    for name in skill.tool_ids:
        tool = tools.get(name)
        if tool is not None and is_read_only(tool):
            out.append(Lint(GATED_READ_ONLY, skill.code, name, {"tool": name}))
    return out


@dataclass(frozen=True)
class _Context:
    """What every skill's lints are checked against, built once per catalog (O(skills + tools))."""

    registered: frozenset[str]
    known: frozenset[str]
    owners: Mapping[str, tuple[str, ...]]
    tools: Mapping[str, Tool]
    by_description: Mapping[str, list[str]]


def _context(catalog: Catalog) -> _Context:
    registered = frozenset(t.name for t in catalog.registered_tools)
    codes = frozenset(s.code for s in catalog.skills)
    by_description: dict[str, list[str]] = {}
    for s in catalog.skills:
        key = " ".join(s.description.split())
        if key:
            by_description.setdefault(key, []).append(s.code)
    return _Context(
        registered=registered,
        # what a manual may name besides its registered tools (those are sorted out before this
        # check, ``manual_mentions``): builtins (``load_skill`` is unregistered with no skill
        # enabled), skill codes and argument names
        known=frozenset(catalog.builtin_names) | codes | _argument_names(catalog),
        owners=catalog.gating_skills,
        tools={t.name: t for t in catalog.registered_tools},
        by_description=by_description,
    )


def _lints_of(s: Skill, ctx: _Context) -> list[Lint]:
    out = _skill_lints(s, ctx.registered, ctx.known, ctx.owners, ctx.tools)
    same = [c for c in ctx.by_description.get(" ".join(s.description.split()), ()) if c != s.code]
    if same:
        out.append(Lint(DESCRIPTION_DUPLICATE, s.code, None, {"others": ", ".join(same), "other_list": same}))
    return out


def lint_catalog(catalog: Catalog) -> tuple[Lint, ...]:
    """Every lint of ``catalog``: per skill (in ``catalog.skills`` order, disabled ones included)
    its own lints and duplicate descriptions, then the catalog-wide ``confirm_ungated`` lints in
    registration order. Never raises for odd content; costs one regex pass per manual."""
    ctx = _context(catalog)
    out: list[Lint] = []
    for s in catalog.skills:
        out += _lints_of(s, ctx)
    gated = set(catalog.gated_tool_ids)
    for t in catalog.registered_tools:
        if t.kind != BUILTIN and t.require_confirm and t.name not in gated:
            out.append(Lint(CONFIRM_UNGATED, None, t.name, {"tool": t.name}))
    return tuple(out)


def lint_skill(catalog: Catalog, code: str) -> tuple[Lint, ...]:
    """The lints about the skill ``code`` of ``catalog`` (the editor passes a catalog in which
    the unsaved draft replaces the stored skill): exactly those of ``lint_catalog`` whose
    ``skill`` is ``code``, in the same order, at the cost of one regex pass over that manual
    only (plus O(skills + tools) to build what it is checked against)."""
    ctx = _context(catalog)
    out: list[Lint] = []
    for s in catalog.skills:
        if s.code == code:
            out += _lints_of(s, ctx)
    return tuple(out)
