"""History and audit pages (docs/roles.md): a skill's revisions with a field-by-field diff of
any two and a restore of an old one, and the audit log of every write."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib import messages
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST, require_safe

from skills_app.catalog import selectors, services
from skills_app.core.message_catalog import error_sentences
from skills_app.core.roles import EDITOR
from skills_app.history import selectors as history
from skills_app.history.forms import AuditFilterForm
from skills_app.models import Skill
from skills_app.web.common import paginate, role_required
from skills_app.web.presenters import diff_line_kind


def _live_or_404(code: str):
    skill = selectors.skill_get(code=code)
    if skill is None:
        raise Http404(f"no live skill '{code}'")
    return skill


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _show(value: Any) -> str:
    """A field value as the history shows it: lists joined, yes/no, dates in the local time."""
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "—"
    if isinstance(value, datetime.datetime):
        return date_format(timezone.localtime(value), "Y-m-d H:i:s")
    return str(value)


def _label(model: type, field: str) -> str:
    try:
        return str(model._meta.get_field(field).verbose_name)
    except FieldDoesNotExist:
        return field


def change_rows(changes, model: type = Skill) -> list[dict[str, Any]]:
    """``FieldChange``s laid out for ``history/_changes.html``: the field's name in the active
    language, values as text, manual lines tagged ``hunk``/``del``/``add``/``ctx``."""
    return [
        {
            "field": c.field,
            "label": _label(model, c.field),
            "before": _show(c.before),
            "after": _show(c.after),
            "lines": [(diff_line_kind(line), line) for line in c.lines],
        }
        for c in changes
    ]


@role_required
@require_safe
def skill_history(request: HttpRequest, code: str) -> HttpResponse:
    """Every revision of a skill (who, when, what changed) and the diff of two of them:
    ``?a=<revision>&b=<revision>`` (default: the latest against the one before). An editor can
    restore any revision whose values differ from the skill's current ones."""
    skill = _live_or_404(code)
    revisions = history.skill_revisions(skill)
    by_id = {r.history_id: r for r in revisions}
    error = ""
    a, b = _int(request.GET.get("a")), _int(request.GET.get("b"))
    if (request.GET.get("a") or request.GET.get("b")) and (a not in by_id or b not in by_id):
        wrong = [
            str(raw) if raw else "—"
            for raw, n in ((request.GET.get("a"), a), (request.GET.get("b"), b))
            if n not in by_id
        ]
        error = ngettext(
            "Revision %(ids)s is not a revision of %(code)s: choose two of its revisions below to compare.",
            "Revisions %(ids)s are not revisions of %(code)s: choose two of its revisions below to compare.",
            len(wrong),
        ) % {"ids": ", ".join(wrong), "code": code}
        a = b = None
    if a is None and b is None and revisions:
        b = revisions[0].history_id
        a = revisions[1].history_id if len(revisions) > 1 else None
    rows = []
    current = {f: getattr(skill, f) for f in services.EDITABLE_FIELDS}
    for i, rec in enumerate(revisions):
        older = revisions[i + 1] if i + 1 < len(revisions) else None
        changed = (
            [
                _label(Skill, c.field)
                for c in history.skill_revision_diff(older, rec)
                if c.field not in history.DELETION_FIELDS
            ]
            if older
            else []
        )
        rows.append(
            {
                "rec": rec,
                "action": history.revision_action(rec, older),
                "changed": changed,
                "older": older.history_id if older else None,
                "is_current": all(getattr(rec, f) == v for f, v in current.items()),
            }
        )
    diff = None
    if a is not None and b is not None:
        diff = change_rows(history.skill_revision_diff(by_id[a], by_id[b]))
    return render(
        request,
        "history/skill.html",
        {
            "skill": skill,
            "rows": rows,
            "a": by_id.get(a),
            "b": by_id.get(b),
            "diff": diff,
            "error": error,
        },
        status=400 if error else 200,
    )


@role_required(read=EDITOR, write=EDITOR)
@require_POST
def skill_revert(request: HttpRequest, code: str, history_id: int) -> HttpResponse:
    """Restore revision ``history_id`` as a new change (``services.skill_revert``)."""
    skill = _live_or_404(code)
    try:
        saved = services.skill_revert(skill=skill, history_id=history_id, user=request.user)
    except ValidationError as exc:
        text = "; ".join(error_sentences(exc))
        messages.error(request, _("Not restored: %(cause)s") % {"cause": text})
        return redirect("skills:skill_history", code=code)
    messages.success(
        request,
        _("Restored revision %(id)s: %(code)s is now version %(version)s.")
        % {"id": history_id, "code": code, "version": saved.version},
    )
    latest = history.skill_revisions(saved)[:2]
    url = reverse("skills:skill_history", kwargs={"code": code})
    if len(latest) == 2:
        url += f"?a={latest[1].history_id}&b={latest[0].history_id}"
    return redirect(url)


def _record_url(kind: str, label: str, history_id: int, live_codes: set[str]) -> str | None:
    """Where an audit entry's record can be looked at now (``None`` when nowhere); ``live_codes``:
    the codes of the page's skills that are live (``selectors.live_skill_codes``, one query a page)."""
    if kind == "skill":
        if label not in live_codes:
            return None
        return reverse("skills:skill_history", kwargs={"code": label}) + f"?b={history_id}"
    return {
        "scenario": reverse("skills:scenario_list"),
        "accessprofile": reverse("skills:restriction_list"),
        "stage": reverse("skills:restriction_list"),
        "intentnode": reverse("skills:tool_tree"),
        "mcptool": reverse("skills:tool_tree"),
    }.get(kind)


@role_required
@require_safe
def audit(request: HttpRequest) -> HttpResponse:
    """Every write to the audited records, newest first, 50 a page; filtered by person, record
    type, record and date range (``AuditFilterForm``). A bad filter shows its error and no rows."""
    kinds = [(k, label) for k, (_m, _f, label) in history.AUDITED.items()]
    form = AuditFilterForm(request.GET or None, users=history.audit_users(), kinds=kinds)
    page = entries = None
    if form.is_bound and not form.is_valid():
        status = 400
    else:
        status = 200
        data = form.cleaned_data if form.is_bound else {}
        flt = history.AuditFilter(
            user=data.get("user"),
            kind=data.get("kind") or "",
            record=(data.get("record") or "").strip(),
            since=data.get("since"),
            until=data.get("until"),
        )
        page = paginate(request, history.audit_queryset(flt), history.AUDIT_PAGE_SIZE)
        rows = history.audit_entries(list(page.object_list))
        live = selectors.live_skill_codes({e.label for e in rows if e.kind == "skill"})
        entries = [
            {
                "entry": e,
                "kind_label": history.AUDITED[e.kind][2],
                "url": _record_url(e.kind, e.label, e.history_id, live),
                "changes": change_rows(e.changes, history.AUDITED[e.kind][0]),
            }
            for e in rows
        ]
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "history/audit.html",
        {
            "form": form,
            "page": page,
            "entries": entries,
            "query": query.urlencode(),
            "filtered": any(v for k, v in request.GET.items() if k != "page"),
        },
        status=status,
    )
