"""Skill pages: list (with enable/disable, delete, restore), detail, create/edit with a live
preview of the manual and of what the model gets (docs/design.md, docs/rule.md)."""

from __future__ import annotations

from dataclasses import replace

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST, require_safe

from skill_rule import Catalog, providers
from skill_rule import catalog as dom
from skill_rule.lints import lint_skill
from skill_rule.validation import normalize_tool_ids
from skills_app.catalog import selectors, services
from skills_app.catalog.forms import SkillForm, tool_picker
from skills_app.core.message_catalog import error_sentences
from skills_app.core.roles import EDITOR
from skills_app.models import Skill
from skills_app.releases import selectors as releases_selectors
from skills_app.reports import selectors as reports_selectors
from skills_app.reports.forms import bound_filter
from skills_app.templatetags.console import render_markdown
from skills_app.web.charts import PRIMARY, SOFT, Chart, console_today, day_label, days_zone
from skills_app.web.common import draft_html, paginate, role_required, safe_next, save_with
from skills_app.web.presenters import (
    DRAFT_CODE,
    catalog_with_skill,
    lint_sentence,
    manual_effect,
    payload_problem_sentence,
    shown_targets,
)

#: Skill list filters: ``state`` (enabled / disabled), ``kind=manual`` (manual-only skills: no
#: tool_ids), ``lints=1`` (skills with lints or problems such as an unregistered tool id).
LIST_STATES = ("enabled", "disabled")
#: Deleted skills per page of the list's "Deleted skills" section (``?deleted=N``).
DELETED_PER_PAGE = 20


def _matches(s: Skill, needle: str) -> bool:
    """Search over code, name, description, manual and tool ids (case-insensitive)."""
    return any(
        needle in field.lower() for field in (s.skill_code, s.name, s.description, s.content, " ".join(s.tool_ids))
    )


@role_required
@require_safe
def skill_list(request: HttpRequest) -> HttpResponse:
    """Live skills with their gated tools, lints and the tool counts; deleted skills with restore.

    ``?q=`` searches code, name, description and manual; ``state``, ``kind`` and ``lints`` filter
    (see ``LIST_STATES``). Live skills are shown ``PER_PAGE`` a page (``?page=N``), deleted
    ones ``DELETED_PER_PAGE`` (``?deleted=N``). A fixed number of queries whatever the number of
    skills (``tests/views/test_skill_list.py`` counts them with 5 and 500 skills). The page's
    content is rendered once per draft change, query, language and role (``draft_html``)."""
    return render(
        request,
        "skills/list.html",
        {"content": draft_html(request, "skills/_list.html", lambda: _skill_list_context(request))},
    )


def removal_confirmations(skill: Skill, catalog: Catalog) -> tuple[str, str]:
    """``(disable, delete)``: what a skill list row asks before disabling or deleting ``skill`` —
    the registered tools only it gates, which either releases to every conversation (docs/rule.md);
    ``disable`` is ``""`` when disabling releases none (no question then). Deleting a skill that
    releases none says why: it is disabled, other enabled skills gate its tools too, or it gates
    none."""
    code = skill.skill_code
    mine = [t for t in normalize_tool_ids(list(skill.tool_ids)) if t in catalog.gated_set]
    alone = [t for t in mine if catalog.gating_skills.get(t) == (code,)] if skill.enabled else []
    if alone:
        values = {"code": code, "tools": ", ".join(alone)}
        return (
            ngettext(
                "Disable %(code)s? It alone gates %(tools)s: that tool will be released to every conversation.",
                "Disable %(code)s? It alone gates %(tools)s: these tools will be released to every conversation.",
                len(alone),
            )
            % values,
            ngettext(
                "Delete %(code)s? It alone gates %(tools)s: that tool will be released to every "
                "conversation. You can restore it later.",
                "Delete %(code)s? It alone gates %(tools)s: these tools will be released to every "
                "conversation. You can restore it later.",
                len(alone),
            )
            % values,
        )
    if not skill.enabled:
        delete = _("Delete %(code)s? It is disabled, so deleting it releases no tool. You can restore it later.")
    elif mine:
        delete = _(
            "Delete %(code)s? No tool is released: other enabled skills gate %(tools)s too. You can restore it later."
        )
    else:
        delete = _("Delete %(code)s? It gates no tool, so deleting it releases none. You can restore it later.")
    return "", delete % {"code": code, "tools": ", ".join(mine)}


def _skill_list_context(request: HttpRequest) -> dict:
    catalog = selectors.catalog_draft()
    q = (request.GET.get("q") or "").strip()
    every = selectors.skill_list(include_deleted=True, with_manual=bool(q))  # the search reads manuals
    live = [s for s in every if s.deleted_at is None]
    deleted = [s for s in every if s.deleted_at is not None]
    mcp_names = set(catalog.mcp_tool_names)
    lints = selectors.catalog_lints(catalog)  # sentences are made below for the page's rows only
    lints_by_skill: dict[str, list] = {}
    for lint in lints:
        if lint.skill is not None:
            lints_by_skill.setdefault(lint.skill, []).append(lint)
    state = request.GET.get("state") if request.GET.get("state") in LIST_STATES else ""
    manual_only = request.GET.get("kind") == "manual"
    with_lints = request.GET.get("lints") == "1"
    total = len(live)
    if q:
        live = [s for s in live if _matches(s, q.lower())]
    if state:
        live = [s for s in live if s.enabled == (state == "enabled")]
    if manual_only:
        live = [s for s in live if not s.tool_ids]
    if with_lints:
        live = [s for s in live if lints_by_skill.get(s.skill_code) or any(t not in mcp_names for t in s.tool_ids)]
    registered = catalog.registered_tools
    gated = catalog.gated_tool_ids
    free = [t for t in catalog.mcp_tool_names if t not in catalog.gated_set]
    live_codes = {s.skill_code for s in every if s.deleted_at is None}
    page = paginate(request, live)
    deleted_page = paginate(request, deleted, DELETED_PER_PAGE, param="deleted")
    shown = list(page.object_list)
    context = {
        "skills": shown,
        "page": page,
        "deleted_page": deleted_page,
        "rows": [(s, [lint_sentence(lint) for lint in lints_by_skill.get(s.skill_code, ())]) for s in shown],
        "confirmations": {s.skill_code: removal_confirmations(s, catalog) for s in shown},
        "catalog_lints": [lint_sentence(lint) for lint in lints if lint.skill is None],
        "deleted": list(deleted_page.object_list),
        "live_codes": live_codes,
        "mcp_names": mcp_names,
        "q": q,
        "state": state,
        "manual_only": manual_only,
        "with_lints": with_lints,
        "filtered": bool(q or state or manual_only or with_lints),
        "total": total,
        "stats": {
            "registered": len(registered),
            "builtins": len([t for t in registered if t.kind == dom.BUILTIN]),
            "mcp": len(catalog.mcp_tool_names),
            "gated": len(gated),
            "free": len(free),
            "enabled": len(catalog.enabled_skills),
            "live": total,
        },
        "gated_tools": gated,
        "free_tools": free,
        "matching": len(live),
        "broken": selectors.broken_skills(shown),
    }
    return context


def _live_or_404(code: str) -> Skill:
    skill = selectors.skill_get(code=code)
    if skill is None:
        raise Http404(f"no live skill '{code}'")
    return skill


@role_required
@require_safe
def skill_detail(request: HttpRequest, code: str) -> HttpResponse:
    """One skill: fields, gated tools, the manual as safe HTML, what loading it changes, and what
    production did with it (``_production``; ``?release=&since=&until=`` as on the insights page)."""
    skill = _live_or_404(code)
    catalog = selectors.catalog_draft()
    stored = next(s for s in catalog.skills if s.code == skill.skill_code)
    return render(
        request,
        "skills/detail.html",
        {
            "skill": skill,
            "effect": manual_effect(catalog, stored),
            "mcp_names": set(catalog.mcp_tool_names),
            "gated_by": catalog.gating_skills,
            **_production(request, skill),
        },
    )


def _production(request: HttpRequest, skill: Skill) -> dict:
    """The "In production" card of a skill's page, read from the report rollups
    (``reports.selectors.skill_insights``): its loads, the rounds it was loaded in, the calls to a
    masked tool that named it as the manual to load, the confirmations asked for the tools it
    gates, and a chart of its loads per day. A bad filter shows its error and no numbers (the page
    itself still answers)."""
    releases = [n for n, _note in releases_selectors.release_choices()]
    form = bound_filter(request.GET, releases=releases, today=console_today())
    context: dict = {"production_form": form, "production": None, "days_zone": days_zone()}
    if form.is_bound and not form.is_valid():
        return context
    since, until, release = form.period(console_today())
    data = reports_selectors.skill_insights(
        code=skill.skill_code, tools=tuple(skill.tool_ids), since=since, until=until, release=release
    )
    context.update(
        production=data,
        production_chart=Chart(
            "chart-skill-loads",
            _("Loads of this skill per day"),
            [day_label(day) for day, _loads, _rounds in data.per_day],
            [
                (_("load_skill calls"), PRIMARY, [loads for _day, loads, _rounds in data.per_day]),
                (_("Rounds with it loaded"), SOFT, [rounds for _day, _loads, rounds in data.per_day]),
            ],
        ),
        production_share=round(100 * data.rounds / data.all_rounds) if data.all_rounds else None,
    )
    return context


def _editor_context(form: SkillForm, catalog: Catalog, skill: Skill | None) -> dict:
    """The editor page: the form, the tool picker and the initial live-preview panel."""
    preview_form = SkillForm(
        form.data if form.is_bound else None, skill=skill, preview=True, initial=None if form.is_bound else form.initial
    )
    return {
        "form": form,
        "skill": skill,
        "tool_picker": tool_picker(selectors.mcp_nodes(), form.selected_tool_ids(), catalog.gating_skills),
        **_preview_context(preview_form, catalog, skill),
        # After a refused save each error stands next to its field; the panel does not repeat them.
        **({"problems": []} if form.is_bound else {}),
    }


def _preview_context(form: SkillForm, catalog: Catalog, skill: Skill | None) -> dict:
    """Bind-validate-compute, never save (STYLE "Preview never saves")."""
    if form.is_bound:
        form.is_valid()
        draft = form.draft
    else:
        init = form.initial
        draft = dom.Skill(
            code=init.get("skill_code") or "",
            name=init.get("name") or "",
            description=init.get("description") or "",
            content=init.get("content") or "",
            tool_ids=tuple(init.get("tool_ids") or ()),
            sort_order=init.get("sort_order") or 0,
            enabled=bool(init.get("enabled", True)),
            version=(skill.version if skill else 1),
        )
    effect = manual_effect(catalog, draft, replaces=skill.skill_code if skill else None) if draft else None
    lints = ()
    payload_rows: list = []
    if draft is not None:  # docs/lints.md: warnings about the unsaved draft, never blocking
        linted = draft if draft.code else replace(draft, code=DRAFT_CODE)
        in_catalog = catalog_with_skill(catalog, linted, replaces=skill.skill_code if skill else None)
        lints = tuple(lint_sentence(lint) for lint in lint_skill(in_catalog, linted.code))
        # docs/providers.md: the round with every manual loaded (this draft among them: its
        # catalog line in load_skill's description, its tools visible) against the targets
        problems_all = providers.payload_problems(
            in_catalog, providers.all_loaded_visible(in_catalog), shown_targets(in_catalog)
        )
        payload_rows = [(p, payload_problem_sentence(p)) for p in problems_all]
    modified = bool(form.is_bound and skill is not None and draft is not None and _differs(draft, skill))
    problems = []
    if form.is_bound:
        for field, errors in form.errors.items():
            label = form.fields[field].label if field in form.fields else ""
            problems += [(label, e) for e in errors]
    return {
        "manual_html": render_markdown(draft.content if draft else ""),
        "lints": lints,
        "payload_problems": payload_rows,
        "effect": effect,
        "draft": draft,
        "problems": problems,
        "is_edit": skill is not None,
        "is_modified": modified,
        "skill": skill,
    }


def _text(value: str) -> str:
    return (value or "").replace("\r\n", "\n").strip()


def _differs(draft: dom.Skill, skill: Skill) -> bool:
    """True when what the editor holds differs from the saved skill (so the preview is of
    unsaved changes); browsers send CRLF line ends, which are no change."""
    return (
        _text(draft.name) != _text(skill.name)
        or _text(draft.description) != _text(skill.description)
        or _text(draft.content) != _text(skill.content)
        or tuple(draft.tool_ids) != tuple(normalize_tool_ids(list(skill.tool_ids)))
        or draft.sort_order != skill.sort_order
        or draft.enabled != skill.enabled
    )


@role_required(read=EDITOR, write=EDITOR)
def skill_create(request: HttpRequest) -> HttpResponse:
    """New skill: a valid ``SkillForm`` goes to ``services.skill_create``; errors name the value."""
    if request.method == "POST":  # the draft catalog is read only to show the form (again)
        form = SkillForm(request.POST, user=request.user)
        created = save_with(form, services.skill_create) if form.is_valid() else None
        if created is not None:
            messages.success(
                request,
                _("Skill %(code)s created (version %(v)s).") % {"code": created.skill_code, "v": created.version},
            )
            return redirect("skills:skill_detail", code=created.skill_code)
    else:
        form = SkillForm(initial={"enabled": True, "sort_order": 0, "content": "", "tool_ids": []})
    return render(request, "skills/edit.html", _editor_context(form, selectors.catalog_draft(), None))


@role_required(read=EDITOR, write=EDITOR)
def skill_edit(request: HttpRequest, code: str) -> HttpResponse:
    """Edit a skill (code read-only) through ``services.skill_update``; a saved change bumps
    ``version`` (service rule)."""
    skill = _live_or_404(code)
    if request.method == "POST":  # the draft catalog is read only to show the form again, after the save
        form = SkillForm(request.POST, skill=skill, user=request.user)
        saved = save_with(form, services.skill_update) if form.is_valid() else None
        if saved is not None:
            if saved.version == skill.version:
                messages.info(
                    request,
                    _("No change: %(code)s stays at version %(v)s.") % {"code": skill.skill_code, "v": skill.version},
                )
            else:
                messages.success(
                    request,
                    _("Skill %(code)s saved as version %(v)s.") % {"code": skill.skill_code, "v": saved.version},
                )
            return redirect("skills:skill_detail", code=skill.skill_code)
        if form.stale is not None:  # the page now works from the version saved meanwhile
            skill = _live_or_404(code)
    else:
        form = SkillForm(skill=skill)
    return render(request, "skills/edit.html", _editor_context(form, selectors.catalog_draft(), skill))


@role_required(read=EDITOR, write=EDITOR, expired_htmx_template="skills/_session_expired.html")
@require_POST
def skill_preview(request: HttpRequest, code: str | None = None) -> HttpResponse:
    """Live preview for the editor (htmx): the manual as safe HTML and the round with and without
    it, computed from the bound form with the edited skill in place. Never saves.

    It fires while the user types: when the session has ended, the panel says so (and the text
    stays in the editor) instead of sending the browser to the login page."""
    skill = _live_or_404(code) if code else None
    catalog = selectors.catalog_draft()
    form = SkillForm(request.POST, skill=skill, preview=True)
    return render(request, "skills/_live_preview.html", _preview_context(form, catalog, skill))


def row_anchor(code: str) -> str:
    """The id of a live skill's enable switch in the list (``#skill-<code>``): redirecting to it
    puts the keyboard focus back on the row of the action (the browser focuses a focusable
    fragment target; console.js does too)."""
    return f"skill-{code}"


def deleted_row_anchor(pk: int) -> str:
    """The id of a deleted skill's Restore button in the list (or of its row, focusable, when its
    code is taken and there is no button)."""
    return f"deleted-skill-{pk}"


def _to_list(anchor: str, default: str | None = None) -> HttpResponseRedirect:
    """Back to the list (or ``default``) with the row of the action as the fragment."""
    url = default or reverse("skills:skill_list")
    if "#" not in url:
        url = f"{url}#{anchor}"
    return HttpResponseRedirect(url)


def _refused(request: HttpRequest, exc: ValidationError) -> None:
    for text in error_sentences(exc):
        messages.error(request, text)


#: What ``POST /skills/<code>/enabled`` accepts (any case) and what each means.
ENABLED_VALUES = {"1": True, "true": True, "on": True, "0": False, "false": False, "off": False}


@role_required(read=EDITOR, write=EDITOR)
@require_POST
def skill_set_enabled(request: HttpRequest, code: str) -> HttpResponse:
    """Enable or disable through ``services.skill_set_enabled``. ``enabled`` must say which, as
    one of ``ENABLED_VALUES`` (``1`` / ``0``, ``true`` / ``false``, ``on`` / ``off``); anything else —
    missing, blank, ``yes``, repeated — is a 400 naming the value, and nothing changes."""
    skill = _live_or_404(code)
    values = request.POST.getlist("enabled")
    enabled = ENABLED_VALUES.get(values[0].strip().lower()) if len(values) == 1 else None
    if enabled is None:
        reason = _(
            "'enabled' must be 1 or 0 (true or false) to enable or disable %(code)s; got %(value)s. "
            "Nothing was changed."
        ) % {"code": code, "value": ", ".join(repr(v) for v in values) or _("nothing")}
        return render(request, "400.html", {"reason": reason}, status=400)
    try:
        saved = services.skill_set_enabled(skill=skill, enabled=enabled, user=request.user)
    except ValidationError as exc:
        _refused(request, exc)
    else:
        if enabled:
            messages.success(
                request,
                _("%(code)s enabled (version %(v)s): its tools are masked until its manual is loaded.")
                % {"code": code, "v": saved.version},
            )
        else:
            messages.warning(
                request,
                _("%(code)s disabled (version %(v)s): its tools are now released to every conversation.")
                % {"code": code, "v": saved.version},
            )
    return _to_list(row_anchor(code), safe_next(request, "skills:skill_list"))


@role_required(read=EDITOR, write=EDITOR)
@require_POST
def skill_delete(request: HttpRequest, code: str) -> HttpResponse:
    """Soft-delete through ``services.skill_delete`` (restorable from the list)."""
    skill = _live_or_404(code)
    services.skill_delete(skill=skill, user=request.user)
    messages.warning(
        request,
        _("%(code)s deleted: its tools are now released to every conversation. You can restore it below.")
        % {"code": code},
    )
    return _to_list(deleted_row_anchor(skill.pk))


@role_required(read=EDITOR, write=EDITOR)
@require_POST
def skill_restore(request: HttpRequest, pk: int) -> HttpResponse:
    """Restore a soft-deleted skill through ``services.skill_restore`` (refused when its code was
    taken or its tool_ids no longer validate — the message names which)."""
    skill = get_object_or_404(Skill.objects.deleted(), pk=pk)
    try:
        saved = services.skill_restore(skill=skill, user=request.user)
    except ValidationError as exc:
        _refused(request, exc)
        return _to_list(deleted_row_anchor(skill.pk))
    messages.success(request, _("%(code)s restored (version %(v)s).") % {"code": saved.skill_code, "v": saved.version})
    return _to_list(row_anchor(saved.skill_code))


__all__ = [
    "skill_list",
    "skill_detail",
    "skill_create",
    "skill_edit",
    "skill_preview",
    "skill_set_enabled",
    "skill_delete",
    "skill_restore",
]
