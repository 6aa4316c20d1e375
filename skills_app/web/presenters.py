"""Shapes the console pages render, computed with the pure core (``skill_rule``).

Nothing here reads or writes the database: callers pass a ``domain.Catalog`` (usually
``selectors.catalog_draft()``) and get plain dataclasses back. Sentences shown to the operator
(guard verdicts, compaction/eviction notes, restriction warnings, unmet expectations) are built
here in the active language from the domain's structured fields; the domain's English lines are
shown as-is only when they have no recognizable shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from html import escape as html_escape
from typing import Any

from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from skill_rule import (
    ALLOWED,
    CONFIRM,
    Catalog,
    Message,
    RoundView,
    Simulation,
    Skill,
    ToolCall,
    Verdict,
    compute_round,
    providers,
)
from skill_rule.limits import CATALOG_IN_SYSTEM_PROMPT, LOAD_SKILL
from skill_rule.lints import tools_mentioned
from skill_rule.payload import ANTHROPIC, OPENAI, PayloadDiff, payload_chars, payload_diff, tools_payload
from skill_rule.providers import PayloadProblem
from skills_app.core.message_catalog import (
    EXPECTATION_LABELS,
    LINT_CODES,
    MESSAGES_BY_CODE,
    NAMING_CODES,
    SYNC_CAUSE_CODES,
    SYNC_FAILURE_CODES,
    SYNC_LIST_SEPARATOR,
    SYNC_MESSAGES,
    VERDICT_MESSAGES,
    WARNING_CODES,
    sync_entry_consistent,
    sync_message_plain,
)

DRAFT_CODE = "__draft__"


# --------------------------------------------------------------------------------------------
# "What the model gets" for a skill being edited
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ManualEffect:
    """The round before and after the manual of ``skill`` is loaded, in a catalog where ``skill``
    (saved or not) replaces the stored skill of the same code.

    ``releases``: tools masked without the manual and visible with it. ``shared``: tool → other
    enabled skills that gate it too (any one of them releases it). ``mentioned_masked``: tools
    the body names that stay masked after loading it, with the skill that would release them —
    mentioning a tool unlocks nothing (docs/rule.md). ``unregistered``: tool_ids that are no
    registered MCP tool.
    """

    skill: Skill
    without: RoundView
    with_manual: RoundView
    releases: tuple[str, ...]
    shared: dict[str, tuple[str, ...]]
    mentioned_masked: tuple[tuple[str, str], ...]
    unregistered: tuple[str, ...]
    #: The catalog's placement is ``system_prompt``: the skill's line is in ``catalog_text``, not
    #: in ``load_skill``'s description (docs/runtime-api.md, "Where the catalog goes").
    in_system_prompt: bool = False

    @property
    def is_new(self) -> bool:
        return self.skill.code == DRAFT_CODE


def catalog_with_skill(catalog: Catalog, skill: Skill, *, replaces: str | None = None) -> Catalog:
    """``catalog`` with ``skill`` in place of the skill coded ``replaces`` (or ``skill.code``)."""
    drop = replaces or skill.code
    skills = tuple(s for s in catalog.skills if s.code != drop) + (skill,)
    return catalog.with_skills(skills)


def loaded_messages(catalog: Catalog, skill: Skill) -> tuple[Message, ...]:
    """A retained ``load_skill`` call and its full result with the marker (docs/rule.md)."""
    call = ToolCall(name=LOAD_SKILL, arguments={"skill_code": skill.code}, id="preview_load")
    return (
        Message(role="assistant", tool_calls=(call,)),
        Message(
            role="tool",
            content=skill.content,
            tool_call_id=call.id,
            state="success",
            metadata={catalog.marker_key: skill.code, "skill_version": skill.version},
        ),
    )


def manual_effect(catalog: Catalog, skill: Skill, *, replaces: str | None = None) -> ManualEffect:
    """Compute the round with and without ``skill``'s manual loaded (no database, nothing saved).

    ``skill.code`` may be empty for a skill not created yet; it is then simulated as a draft code.
    """
    if not skill.code:
        skill = replace(skill, code=DRAFT_CODE)
    registered = set(catalog.mcp_tool_names)
    unregistered = tuple(t for t in skill.tool_ids if t not in registered)
    # Ids a save would refuse (builtins, unknown or disabled tools) gate nothing in the preview.
    skill = replace(skill, tool_ids=tuple(t for t in skill.tool_ids if t in registered))
    cat = catalog_with_skill(catalog, skill, replaces=replaces)
    without = compute_round(cat, ())
    with_manual = compute_round(cat, loaded_messages(cat, skill))
    releases = tuple(t for t in with_manual.visible if t in without.masked)
    shared = {t: tuple(c for c in cat.gating_skills.get(t, ()) if c != skill.code) for t in skill.tool_ids}
    shared = {t: codes for t, codes in shared.items() if codes}
    # masked tools the body names (one pass of one regex, lints.tools_mentioned), in registration order
    named = set(tools_mentioned(skill.content, frozenset(t for t in with_manual.masked if t not in skill.tool_ids)))
    mentioned = [(tool, with_manual.masked[tool]) for tool in cat.mcp_tool_names if tool in named]
    return ManualEffect(
        skill=skill,
        without=without,
        with_manual=with_manual,
        releases=releases,
        shared=shared,
        mentioned_masked=tuple(mentioned),
        unregistered=unregistered,
        in_system_prompt=catalog.catalog_placement == CATALOG_IN_SYSTEM_PROMPT,
    )


# --------------------------------------------------------------------------------------------
# Simulation → page
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CallRow:
    """One call of a round. ``sentence`` is the guard's verdict said in the active language from
    the verdict's structured fields (safe HTML, names in ``<code>``); ``detail`` the JSON-Schema
    detail of an ``invalid_arguments`` refusal, shown as code; ``message`` the domain's English
    sentence (what the model itself receives as the error result)."""

    name: str
    arguments: str
    verdict: str
    reason: str | None
    skill_code: str | None
    message: str
    result: str
    state: str
    already_loaded: bool
    sentence: SafeString | str = ""
    detail: str | None = None


@dataclass(frozen=True)
class Note:
    """A simulation note (compaction, eviction, restriction warning) in the active language:
    ``text`` is safe HTML; ``raw`` the domain's own line; ``known`` False when the line had no
    recognizable shape and ``text`` is ``raw`` under a translated label."""

    text: SafeString
    raw: str
    known: bool
    kind: str = ""
    at_start: bool = False  # an event before the first round ("after round 0")


@dataclass(frozen=True)
class PayloadSummary:
    """What the model is sent in one round, without the JSON itself (that is loaded on demand):
    ``chars`` maps ``openai`` / ``anthropic`` to the size of the ``tools`` array in characters
    (``domain.payload.payload_chars``); ``diff`` compares it with the previous round's array
    (tools added, removed, definitions changed); ``tools`` the names, in payload order."""

    tools: tuple[str, ...]
    chars: dict[str, int]
    diff: PayloadDiff | None
    #: what the configured provider targets (and the two shown) refuse, rewrote or find over budget
    problems: tuple[PayloadProblem, ...] = ()

    @property
    def over_budget(self) -> bool:
        """True when some target finds this round's payload over its budget (characters)."""
        return any(p.action == providers.OVER_BUDGET for p in self.problems)

    @property
    def refused(self) -> bool:
        """True when some target would refuse this round's request."""
        return any(p.refuses for p in self.problems)

    @property
    def problem_rows(self) -> list[tuple[PayloadProblem, SafeString]]:
        """``(problem, sentence)`` in the active language, target by target."""
        return [(p, payload_problem_sentence(p)) for p in self.problems]

    @property
    def tools_param(self) -> str:
        """The ``tools`` query parameter of the on-demand payload view (names joined by commas)."""
        return ",".join(self.tools)


def payload_summaries(catalog: Catalog, visible_lists: list[tuple[str, ...]]) -> list[PayloadSummary]:
    """One ``PayloadSummary`` per round (``visible_lists`` = each round's ``RoundView.visible``).

    A payload is computed once per distinct visible list (a 200-round run repeats a handful), so
    the cost grows with the distinct lists, not with the rounds.
    """
    cache: dict[tuple[str, ...], tuple[list[dict[str, Any]], dict[str, int], tuple[PayloadProblem, ...]]] = {}
    out: list[PayloadSummary] = []
    previous: list[dict[str, Any]] | None = None
    targets = shown_targets(catalog)
    for names in visible_lists:
        if names not in cache:
            openai = tools_payload(catalog, names, OPENAI)
            anthropic = tools_payload(catalog, names, ANTHROPIC)
            cache[names] = (
                openai,
                {OPENAI: payload_chars(openai), ANTHROPIC: payload_chars(anthropic)},
                providers.payload_problems(catalog, names, targets),
            )
        tools, chars, problems = cache[names]
        out.append(
            PayloadSummary(
                tools=tuple(t["function"]["name"] for t in tools),
                chars=chars,
                diff=None
                if previous is None
                else PayloadDiff()
                if previous is tools
                else payload_diff(previous, tools),
                problems=problems,
            )
        )
        previous = tools
    return out


def shown_targets(catalog: Catalog) -> tuple[str, ...]:
    """The targets the preview checks: the configured ones, then the two whose shapes it shows
    (OpenAI Chat Completions, Anthropic Messages) — a rewrite in a shown array is never silent."""
    targets = providers.targets_for_format(catalog, OPENAI)
    own = providers.FORMAT_TARGETS[ANTHROPIC]
    return targets if own in targets else (*targets, own)


@dataclass(frozen=True)
class RoundRow:
    index: int
    line: int | None
    count: int
    loaded: tuple[str, ...]
    builtins: tuple[str, ...]
    mcp_visible: tuple[str, ...]
    masked: tuple[tuple[str, str], ...]
    withheld: tuple[tuple[str, str], ...]
    newly_visible: tuple[str, ...]
    newly_hidden: tuple[str, ...]
    newly_released: tuple[str, ...]
    newly_masked: tuple[str, ...]
    delta: int | None
    calls: tuple[CallRow, ...]
    say: str
    user: str
    context_size: int
    expect: dict[str, Any]
    failures: tuple[SafeString, ...]
    events_after: tuple[Note, ...]
    confirm_tools: frozenset[str]
    payload: PayloadSummary | None = None
    same_view: bool = False  # visible, masked, withheld and loaded as in the round before

    #: A shown round (``Fold`` says True): templates tell the two apart by this.
    is_fold = False

    @property
    def unchanged(self) -> bool:
        """True when the round shows nothing the round before it did not: the same tools and
        loaded manuals, no expectation, no note after it, and only allowed calls that load no
        manual. Only such rounds fold in a long run (``fold_rounds``)."""
        return (
            self.index > 1
            and self.same_view
            and not self.expect
            and not self.failures
            and not self.events_after
            and all(c.verdict == ALLOWED and c.name != LOAD_SKILL for c in self.calls)
        )


#: A run with more rounds than this folds its runs of unchanged rounds (issue 10: the preview
#: bounds what it renders; the full result stays downloadable as JSON).
FOLD_ABOVE = 20
#: The fewest consecutive unchanged rounds that fold into one summary row.
FOLD_MIN = 2


@dataclass(frozen=True)
class Fold:
    """Consecutive unchanged rounds ``first``–``last`` shown as one summary row ("N rounds with no
    change") that loads them when expanded; ``count`` tools in each of them."""

    first: int
    last: int
    count: int

    is_fold = True

    @property
    def rounds(self) -> int:
        """How many rounds the fold holds."""
        return self.last - self.first + 1

    @property
    def span(self) -> str:
        """``"first-last"``: the ``rounds`` parameter that renders them (``parse_span``)."""
        return f"{self.first}-{self.last}"


def fold_rounds(
    rows: tuple[RoundRow, ...], *, above: int = FOLD_ABOVE, minimum: int = FOLD_MIN
) -> tuple[RoundRow | Fold, ...]:
    """``rows`` with every run of at least ``minimum`` consecutive ``unchanged`` rounds replaced
    by one ``Fold`` — only when there are more than ``above`` rounds; otherwise ``rows`` as given."""
    if len(rows) <= above:
        return tuple(rows)
    out: list[RoundRow | Fold] = []
    run: list[RoundRow] = []

    def flush() -> None:
        if len(run) >= minimum:
            out.append(Fold(first=run[0].index, last=run[-1].index, count=run[0].count))
        else:
            out.extend(run)
        run.clear()

    for row in rows:
        if row.unchanged:
            run.append(row)
        else:
            flush()
            out.append(row)
    flush()
    return tuple(out)


def parse_span(text: str | None, total: int) -> tuple[int, int] | None:
    """``"a-b"`` (1-based, inclusive, ``1 ≤ a ≤ b ≤ total``) as ``(a, b)``; ``None`` for anything else."""
    first, sep, last = (text or "").partition("-")
    if not sep or not first.isdigit() or not last.isdigit():
        return None
    a, b = int(first), int(last)
    return (a, b) if 1 <= a <= b <= total else None


@dataclass(frozen=True)
class MatrixCell:
    round: int
    state: str
    owner: str | None
    fold: str = ""  # "first-last" when the cell stands for a fold of unchanged rounds


@dataclass(frozen=True)
class SimulationPage:
    """Everything the results panel shows for one simulation."""

    sim: Simulation
    rounds: tuple[RoundRow, ...]
    matrix: tuple[tuple[str, tuple[MatrixCell, ...]], ...]
    events_before: tuple[Note, ...]
    failures: tuple[str, ...]
    skill_names: dict[str, str]
    warnings: tuple[Note, ...] = ()
    items: tuple[RoundRow | Fold, ...] = ()

    @property
    def matrix_columns(self) -> tuple[RoundRow | Fold, ...]:
        """The matrix's columns: one per shown round and one per fold (``items``)."""
        return self.items

    @property
    def rendered_rounds(self) -> int:
        """Rounds rendered in full (folded ones are not)."""
        return sum(1 for i in self.items if not i.is_fold)

    @property
    def folded_rounds(self) -> int:
        """Rounds folded into summary rows."""
        return sum(i.rounds for i in self.items if i.is_fold)

    @property
    def matrix_states(self) -> frozenset[str]:
        """The states that occur in the matrix (the legend explains only those)."""
        return frozenset(c.state for _, cells in self.matrix for c in cells)

    @property
    def rounds_checked(self) -> int:
        """How many rounds carry an ``expect`` (a transcript replay has none)."""
        return sum(1 for r in self.rounds if r.expect)


# --------------------------------------------------------------------------------------------
# Sentences in the active language, built from the domain's structured fields. The domain's own
# English lines are matched only where they have a fixed shape; anything else is shown as-is.
# --------------------------------------------------------------------------------------------
def _codes(values: list | tuple) -> SafeString:
    """``<code>a</code>, <code>b</code>, …`` with every value escaped (``conditional_escape``).
    An unmet "masked" expectation may name ~2,000 tools: plain strings are joined on NUL and
    escaped in one pass, then the NULs become the tags — unless a value holds a NUL itself."""
    if set(map(type, values)) == {str}:  # plain strings only (no SafeString, no number): one C pass
        text = html_escape("\0".join(values))
        if text.count("\0") == len(values) - 1:
            return mark_safe("<code>" + text.replace("\0", "</code>, <code>") + "</code>")  # noqa: S308 — escaped
    return mark_safe(", ".join(format_html("<code>{}</code>", v) for v in values))  # noqa: S308


def _code(value: Any) -> SafeString:
    if isinstance(value, (list, tuple)):
        if not value:
            return format_html('<span class="none">{}</span>', gettext("none"))
        return _codes(value)
    return format_html("<code>{}</code>", value)


def say(template: str, **params: Any) -> SafeString:
    """``template`` (already translated, ``%(name)s`` placeholders) as safe HTML, every parameter
    escaped and set in ``<code>`` (a list as a comma-separated run of codes)."""
    return mark_safe(conditional_escape(template) % {k: _code(v) for k, v in params.items()})  # noqa: S308


def payload_problem_sentence(problem: PayloadProblem | Mapping[str, Any]) -> SafeString:
    """One ``PayloadProblem`` (or its ``as_dict``) as a sentence in the active language, chosen by
    its rule (``payload_<rule>``, ``…_rewritten`` for a rewrite), values in ``<code>``."""
    p = problem.as_dict() if isinstance(problem, PayloadProblem) else dict(problem)
    key = f"payload_{p['rule']}" + ("_rewritten" if p["action"] == providers.REWRITTEN else "")
    template = MESSAGES_BY_CODE.get(key)
    label = providers.PROFILES[p["target"]].label if p["target"] in providers.PROFILES else p["target"]
    if template is None:
        return say("%(target)s: %(rule)s (%(limit)s, %(actual)s)", **{**p, "target": label})
    path = p["path"] or str(MESSAGES_BY_CODE["payload_schema_root"])
    return say(
        str(template),
        target=label,
        tool=p["tool"],
        limit=p["limit"],
        actual=p["actual"],
        path=path,
    )


def verdict_sentence(
    verdict: Verdict, *, view: RoundView, catalog: Catalog, access_profile: str | None, stage: str | None
) -> tuple[SafeString | str, str | None]:
    """The guard's verdict as ``(sentence, detail)`` in the active language (docs/rule.md Guard),
    from ``verdict.reason`` / ``skill_code`` / ``name`` and the simulation's profile and stage.
    ``detail`` is the JSON-Schema detail of ``invalid_arguments`` (shown as code). An unknown
    reason falls back to the domain's ``message``."""
    name, reason = verdict.name, verdict.reason
    told = lambda key: str(VERDICT_MESSAGES[key])  # noqa: E731
    if verdict.verdict == ALLOWED:
        if name == LOAD_SKILL and verdict.skill_code:
            return say(told("allowed_load_skill"), skill=verdict.skill_code), None
        return say(told("allowed"), tool=name), None
    if verdict.verdict == CONFIRM:
        return say(told("confirm"), tool=name), None
    if reason == "masked" and verdict.skill_code:
        return say(told("masked"), tool=name, skill=verdict.skill_code), None
    if reason == "unknown_tool":
        return say(told("unknown_tool"), tool=name, tools=list(view.visible)), None
    if reason == "unknown_skill":
        code = verdict.arguments.get("skill_code") if verdict.arguments else None
        offer = [sk.code for sk in catalog.enabled_skills]
        if code is None or code == "":
            return say(told("unknown_skill_missing"), skills=offer), None
        shown = code if isinstance(code, str) else json.dumps(code, ensure_ascii=False)
        return say(told("unknown_skill"), skill=shown, skills=offer), None
    if reason == "not_permitted":
        if access_profile:
            return say(told("not_permitted_profile"), tool=name, profile=access_profile), None
        return say(told("not_permitted"), tool=name), None
    if reason == "stage" and stage:
        return say(told("stage"), tool=name, stage=stage), None
    if reason == "invalid_tool_definition":
        return say(told("invalid_tool_definition"), tool=name), None
    if reason == "invalid_arguments":
        prefix = f"invalid arguments for '{name}': "
        detail = verdict.message[len(prefix) :] if verdict.message.startswith(prefix) else verdict.message
        return say(told("invalid_arguments"), tool=name), detail
    return verdict.message, None


def _told(code: str) -> str:
    """The sentence of ``code`` (``message_catalog.MESSAGES_BY_CODE``) in the active language."""
    return str(MESSAGES_BY_CODE[code])


def _param(problem: Any, key: str) -> Any:
    return getattr(problem, "params", {}).get(key)


def event_note(event: str) -> Note:
    """A compaction / eviction event of ``Simulation.events`` in the active language, chosen by
    the event's ``code`` (a ``domain.Problem``); anything else is kept as-is under a label."""
    code = getattr(event, "code", None)
    at_start = _param(event, "round") == 0
    if code == "compacted":
        retained = _param(event, "retained")
        tail = ngettext("%(n)s message is retained.", "%(n)s messages are retained.", retained) % {"n": retained}
        removed = say(_told("compacted"), indices=_param(event, "indices"))
        return Note(format_html("{} {}", removed, tail), event, True, "compact", at_start)
    if code == "evicted":
        items = [i.split(": ", 1)[-1] for i in (_param(event, "items") or [])]
        return Note(say(_told("evicted"), indices=_param(event, "indices"), what=items), event, True, "evict", at_start)
    if code == "evict_none_of_tool":
        return Note(say(_told("evict_none_of_tool"), tool=_param(event, "tool")), event, True, "evict", at_start)
    if code == "evict_none":
        return Note(format_html("{}", _told("evict_none")), event, True, "evict", at_start)
    return Note(format_html("{} <code>{}</code>", gettext("Context change:"), event), event, False)


def warning_note(warning: str) -> Note:
    """A warning of a simulation or a round in the active language, chosen by its ``code``
    (a ``domain.Problem``); raw text when it has none."""
    code, tools = getattr(warning, "code", None), _param(warning, "tool_list")
    if code == "restriction_unregistered":
        template = _told(
            "restriction_unregistered_profile"
            if _param(warning, "kind") == "access profile"
            else "restriction_unregistered_stage"
        )
        return Note(say(template, name=_param(warning, "name"), tools=tools), warning, True)
    if code == "allowed_unregistered":
        return Note(say(_told("allowed_unregistered"), tools=tools), warning, True)
    if code == "skill_gates_unregistered":
        return Note(say(_told("skill_gates_unregistered"), skill=_param(warning, "skill"), tools=tools), warning, True)
    if code == "time_budget":
        numbers = {k: conditional_escape(str(_param(warning, k))) for k in ("done", "total", "budget")}
        return Note(
            mark_safe(conditional_escape(_told("time_budget")) % numbers),  # noqa: S308 — every part escaped
            warning,
            True,
        )
    if code in WARNING_CODES:
        params = {k: v for k, v in getattr(warning, "params", {}).items() if isinstance(v, (str, int))}
        try:
            return Note(say(_told(code), **params), warning, True, code)
        except (KeyError, TypeError, ValueError):
            pass
    return Note(format_html("{}", warning), warning, False)


def failure_sentence(failure: str) -> SafeString:
    """An unmet expectation (``simulator.check_expectations``) in the active language, chosen by
    its ``code``; raw text when it has none."""
    code = getattr(failure, "code", None)
    params = dict(getattr(failure, "params", {}))
    if code == "time_budget":  # a run stopped by its time budget fails (docs/simulator.md, "Limits")
        return warning_note(failure).text
    if code == "expect_count":
        return say(_told("expect_count"), want=params["want"], got=params["got"])
    if code in ("expect_list", "expect_masked") and "missing_list" in params:
        label = EXPECTATION_LABELS.get(params["what"], params["what"])
        parts = []
        if params["missing_list"]:
            parts.append(say(gettext("missing %(tools)s"), tools=params["missing_list"]))
        if params["unexpected_list"]:
            parts.append(say(gettext("unexpected %(tools)s"), tools=params["unexpected_list"]))
        if not parts:
            parts.append(
                say(
                    gettext("the same names in another order: expected %(want)s, got %(got)s"),
                    want=params["want"],
                    got=params["got"],
                )
            )
        difference = (
            parts[0]
            if len(parts) == 1
            else mark_safe(  # noqa: S308 — parts are safe
                conditional_escape(gettext("%(first)s; %(second)s")) % {"first": parts[0], "second": parts[1]}
            )
        )
        return mark_safe(  # noqa: S308 — parts are safe
            conditional_escape(gettext("%(what)s: %(difference)s"))
            % {"what": conditional_escape(label), "difference": difference}
        )
    if code == "expect_list":
        return say(_told(f"expect_list_{params['what']}"), want=str(params["want"]), got=str(params["got"]))
    if code == "expect_visible":
        return say(_told("expect_visible"), tool=params["tool"])
    if code == "expect_hidden":
        return say(_told("expect_hidden"), tool=params["tool"])
    if code == "expect_masked":
        return say(_told("expect_masked"), want=str(params["want"]), got=str(params["got"]))
    return format_html("{}", failure)


def _all_warnings(sim: Simulation) -> list[str]:
    """A stop on the time budget, the simulation's warnings, then each distinct warning of its
    rounds (once, in order)."""
    seen: list[str] = []
    stopped = (sim.stopped,) if sim.stopped is not None else ()
    for w in (*stopped, *sim.warnings, *(w for r in sim.rounds for w in r.view.warnings)):
        if w not in seen:
            seen.append(w)  # keeps the Problem (its code) for warning_note
    return seen


def _call_row(c: Any, view: RoundView, sim: Simulation, catalog: Catalog) -> CallRow:
    sentence, detail = verdict_sentence(
        c.verdict, view=view, catalog=catalog, access_profile=sim.access_profile, stage=sim.stage
    )
    return CallRow(
        name=c.verdict.name,
        arguments=json.dumps(dict(c.verdict.arguments), ensure_ascii=False),
        verdict=c.verdict.verdict,
        reason=c.verdict.reason,
        skill_code=c.verdict.skill_code,
        message=c.verdict.message,
        result=c.result,
        state=c.state,
        already_loaded=c.already_loaded,
        sentence=sentence,
        detail=detail,
    )


def simulation_page(sim: Simulation, catalog: Catalog) -> SimulationPage:
    """Turn a ``Simulation`` into rows: per round the visible tools (builtins apart from MCP
    tools), masked tools with the skill to load, withheld tools, the diff against the previous
    round, the calls with their verdicts, unmet expectations and the compaction/eviction notes
    that follow it; then the gated-tool matrix with the owning skill of every masked cell."""
    after: dict[int, list[Note]] = {}
    before: list[Note] = []
    for e in sim.events:
        note = event_note(e)
        after_round = _param(e, "round")
        if after_round:
            after.setdefault(after_round, []).append(note)
        else:
            before.append(note)
    confirm = frozenset(t.name for t in catalog.tools if t.require_confirm)
    rows = []
    prev_count: int | None = None
    prev_view = None
    payloads = payload_summaries(catalog, [r.view.visible for r in sim.rounds])
    for r, payload in zip(sim.rounds, payloads):
        v = r.view
        rows.append(
            RoundRow(
                index=r.index,
                line=r.line,
                count=v.count,
                loaded=v.loaded,
                builtins=v.builtins,
                mcp_visible=v.mcp_visible,
                masked=tuple(v.masked.items()),
                withheld=tuple(v.withheld.items()),
                newly_visible=r.newly_visible,
                newly_hidden=r.newly_hidden,
                newly_released=r.newly_released,
                newly_masked=r.newly_masked,
                delta=None if prev_count is None else v.count - prev_count,
                calls=tuple(_call_row(c, v, sim, catalog) for c in r.calls),
                say=r.say,
                user=r.user,
                context_size=r.context_size,
                expect=dict(r.expect),
                failures=tuple(failure_sentence(f) for f in r.failures),
                events_after=tuple(after.get(r.index, ())),
                confirm_tools=confirm,
                payload=payload,
                same_view=prev_view is not None
                and (prev_view.visible, prev_view.loaded, dict(prev_view.masked), dict(prev_view.withheld))
                == (v.visible, v.loaded, dict(v.masked), dict(v.withheld)),
            )
        )
        prev_count = v.count
        prev_view = v
    items = fold_rounds(tuple(rows))
    # one column per item: a fold's rounds all have the state of its first round
    columns = [(i.first if i.is_fold else i.index, i.span if i.is_fold else "") for i in items]
    matrix = tuple(
        (
            tool,
            tuple(
                MatrixCell(
                    round=index, state=states[index - 1], owner=sim.rounds[index - 1].view.masked.get(tool), fold=span
                )
                for index, span in columns
            ),
        )
        for tool, states in sim.matrix.items()
    )
    return SimulationPage(
        sim=sim,
        rounds=tuple(rows),
        matrix=matrix,
        events_before=tuple(before),
        failures=sim.failures,
        skill_names={s.code: s.name for s in catalog.skills},
        warnings=tuple(warning_note(w) for w in _all_warnings(sim)),
        items=items,
    )


# --------------------------------------------------------------------------------------------
# Lints (docs/lints.md) in the active language
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LintRow:
    """A lint for a page: ``code``, the skill and tool it is about, and ``text`` (safe HTML in
    the active language, names in ``<code>``)."""

    code: str
    skill: str | None
    tool: str | None
    text: SafeString


def lint_sentence(lint: Any) -> LintRow:
    """A ``domain.lints.Lint`` as a ``LintRow`` in the active language."""
    template = MESSAGES_BY_CODE.get(lint.code) if lint.code in LINT_CODES else None
    params = dict(lint.params)
    if template is None:
        text = format_html("{}", lint.message)
    else:
        shown = {k: params[k] for k in ("length", "limit", "tool") if k in params}
        if "owner_list" in params:
            shown["owners"] = params["owner_list"]
        if "other_list" in params:
            shown["others"] = params["other_list"]
        if "length" in shown:
            shown = {**shown, "length": f"{shown['length']:,}", "limit": f"{shown['limit']:,}"}
        text = say(str(template), **shown)
    return LintRow(code=lint.code, skill=lint.skill, tool=lint.tool, text=text)


def diff_line_kind(line: str) -> str:
    """The kind of one line of a unified diff, for the diff templates' colours: ``"hunk"`` (an
    ``@@`` header), ``"del"`` (``-``), ``"add"`` (``+``) or ``"ctx"`` (context)."""
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("-"):
        return "del"
    if line.startswith("+"):
        return "add"
    return "ctx"


# --------------------------------------------------------------------------------------------
# What an MCP sync recorded (its warnings, the cause of a failure, a tool's naming warning), in the
# active language (issue 29; ``message_catalog.SYNC_MESSAGES``). What the server said — its name,
# a tool's name, its error, its stderr — stays as written, marked ``translate="no"``.
# --------------------------------------------------------------------------------------------
def _as_written(value: Any) -> SafeString:
    return format_html('<span translate="no">{}</span>', value)


def _sync_param(value: Any) -> SafeString | str:
    if isinstance(value, dict):
        return sync_message_html(value)
    if isinstance(value, list):
        separator = conditional_escape(str(SYNC_LIST_SEPARATOR))
        return mark_safe(separator.join(sync_message_html(v) for v in value))  # noqa: S308 — each part escaped
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return _as_written(value)


def sync_message_html(message: Any) -> SafeString:
    """One sync message as safe HTML in the active language: an entry (``message_catalog.sync_entry``:
    code, params, English text) by its code, each text param as written (``translate="no"``), each
    entry param in this language too; anything else — a warning recorded as plain text before
    warnings had codes, an entry whose English no longer fills its template (``sync_entry_consistent``)
    — as stored, escaped."""
    if not sync_entry_consistent(message):
        return conditional_escape(sync_message_plain(message))
    template = conditional_escape(gettext(SYNC_MESSAGES[message["code"]]))
    return mark_safe(template % {k: _sync_param(v) for k, v in message["params"].items()})  # noqa: S308 — escaped


_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@cache
def _sentence(code: str) -> re.Pattern:
    """A regular expression matching the whole English sentence of ``SYNC_MESSAGES[code]``, a
    named group for each placeholder (as short as the rest of the sentence allows)."""
    template, parts, at = SYNC_MESSAGES[code], [], 0
    for m in _PLACEHOLDER.finditer(template):
        parts += [re.escape(template[at : m.start()]), f"(?P<{m.group(1)}>.*?)"]
        at = m.end()
    return re.compile("".join([*parts, re.escape(template[at:])]) + r"\Z", re.DOTALL)


def sync_sentence_entry(text: str, codes: Iterable[str]) -> dict[str, Any] | None:
    """The entry (code, params, ``text``) of the first of ``codes`` whose English sentence ``text``
    is, whole; ``None`` when it is none of them."""
    for code in codes:
        m = _sentence(code).match(text or "")
        if m:
            return {"code": code, "params": m.groupdict(), "text": text}
    return None


def sync_cause_html(message: str) -> SafeString:
    """Why a sync failed (``McpSyncRecord.message``, ``McpServer.last_sync_message``: English
    text) in the active language when it is a sentence of the console (``SYNC_FAILURE_CODES``,
    its cause one of ``SYNC_CAUSE_CODES`` or the server's error as raised); else as stored."""
    entry = sync_sentence_entry(message, SYNC_FAILURE_CODES)
    if entry is None:
        return conditional_escape(message)
    if "cause" in entry["params"]:
        entry["params"]["cause"] = (
            sync_sentence_entry(entry["params"]["cause"], SYNC_CAUSE_CODES) or (entry["params"]["cause"])
        )
    return sync_message_html(entry)


def naming_warning_html(warning: str) -> SafeString:
    """A tool's ``naming_warning`` (English text: why it got a name other than its own) in the
    active language when it is one of the naming rule's sentences (``NAMING_CODES``); else as stored."""
    return sync_message_html(sync_sentence_entry(warning, NAMING_CODES) or warning)
