"""Release pages (docs/releases.md): the list with labels and their moves, one release, the diff
between two releases, the publish page (diff against the latest release, every saved scenario
re-run, the gate with tick-offs), rollback, label moves and the runtime API keys.

Every view wears ``role_required`` (docs/roles.md); every write also asks ``releases.can_publish``
(the one permission check) and calls one service.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_POST, require_safe

from skill_rule.releases import CatalogDiff, GateReason, ScenarioRun, catalog_diff, gate
from skills_app import models
from skills_app.core.message_catalog import MESSAGES_BY_CODE, error_sentences
from skills_app.core.roles import PUBLISHER, VIEWER
from skills_app.keys import selectors as keys_selectors
from skills_app.keys import services as keys_services
from skills_app.releases import selectors as releases_selectors
from skills_app.releases import services as releases_services
from skills_app.reports import selectors as reports_selectors
from skills_app.web.common import forbidden, paginate, role_required
from skills_app.web.presenters import diff_line_kind, failure_sentence, payload_problem_sentence, say

SUGGESTED_LABELS = ("production", "staging")


# --- presenting -------------------------------------------------------------------------------


#: The field names of a diff (``skill_rule.releases.SKILL_FIELDS`` and ``TOOL_FIELDS``) in the active
#: language, as the models name them (``Skill``, ``McpTool``, ``IntentNode.kind``); a field not
#: listed is shown by its name.
FIELD_LABELS = {
    "name": gettext_lazy("name"),
    "description": gettext_lazy("description"),
    "tool_ids": gettext_lazy("gated tools"),
    "sort_order": gettext_lazy("sort order"),
    "version": gettext_lazy("version"),
    "content": gettext_lazy("manual"),
    "kind": gettext_lazy("kind"),
    "title": gettext_lazy("title"),
    "inputSchema": gettext_lazy("inputSchema"),
    "annotations": gettext_lazy("annotations"),
    "server": gettext_lazy("MCP server"),
    "mcp_name": gettext_lazy("tool name on the server"),
}


def field_label(field: str) -> str:
    """A diff's field name in the active language (``FIELD_LABELS``)."""
    return str(FIELD_LABELS.get(field, field))


@dataclass(frozen=True)
class DiffPage:
    """A ``CatalogDiff`` laid out for ``releases/_diff.html``: field changes with line kinds and
    each field's name in the active language (``label``), skills' and tools'."""

    diff: CatalogDiff
    skills_changed: list[dict[str, Any]]
    tools_changed: list[dict[str, Any]]

    @property
    def empty(self) -> bool:
        return self.diff.empty


def diff_page(diff: CatalogDiff) -> DiffPage:
    """The diff with every manual line tagged ``hunk``/``del``/``add``/``ctx`` for the template."""
    rows = []
    for item in diff.skills_changed:
        changes = [
            {
                "field": c.field,
                "label": field_label(c.field),
                "before": c.before,
                "after": c.after,
                "lines": [(diff_line_kind(line), line) for line in c.lines],
            }
            for c in item.changes
        ]
        rows.append({"code": item.name, "changes": changes})
    tools = [
        {"name": item.name, "changes": [{"field": c.field, "label": field_label(c.field)} for c in item.changes]}
        for item in diff.tools_changed
    ]
    return DiffPage(diff=diff, skills_changed=rows, tools_changed=tools)


def reason_sentence(reason: GateReason) -> SafeString:
    """A gate reason in the active language, chosen by its code (raw English otherwise)."""
    p = reason.message.params
    told = lambda: str(MESSAGES_BY_CODE[reason.code])  # noqa: E731
    if reason.code == "gate_dangling":
        return say(told(), code=p["code"], tools=p["tool_list"])
    if reason.code in ("gate_unavailable", "gate_orphaned"):
        return say(told(), code=p["code"], tool=p["tool"], server=p["server"])
    if reason.code == "gate_unchanged":
        return say(told(), number=p["number"])
    if reason.code == "gate_scenario_error":
        return say(told(), name=p["name"], cause=p["cause"])
    if reason.code == "gate_scenario":
        return say(told(), name=p["name"], failure=p["failure"])
    if reason.code in ("gate_payload", "gate_payload_budget"):
        if p.get("scenario") is None:
            where = conditional_escape(str(MESSAGES_BY_CODE["gate_where_all_loaded"]))
        else:
            where = say(str(MESSAGES_BY_CODE["gate_where_round"]), name=p["scenario"], round=p["round"])
        if reason.code == "gate_payload":
            problem = payload_problem_sentence(p["problem_item"])
            return mark_safe(  # noqa: S308 — every part is escaped by say()
                conditional_escape(told())
                % {"target": conditional_escape(p["target"]), "problem": problem, "where": where, "count": p["count"]}
            )
        return mark_safe(  # noqa: S308 — every part is escaped by say()
            conditional_escape(told())
            % {
                "where": where,
                "target": conditional_escape(p["target"]),
                "actual": p["actual"],
                "limit": p["limit"],
                "count": p["count"],
            }
        )
    return format_html("{}", reason.message)


@dataclass(frozen=True)
class Failure:
    key: str
    round: int | None
    sentence: SafeString
    ticked: bool


@dataclass(frozen=True)
class ScenarioRow:
    run: ScenarioRun
    rounds: list[dict[str, Any]]
    failures: list[Failure]


def _scenario_rows(runs: tuple[ScenarioRun, ...], ticked: set[str]) -> list[ScenarioRow]:
    rows = []
    for run in runs:
        if run.simulation is None:
            key = f"scenario:{run.name}:{run.error}"
            rows.append(ScenarioRow(run, [], [Failure(key, None, format_html("{}", run.error), key in ticked)]))
            continue
        rounds = [
            {
                "index": r.index,
                "count": r.view.count,
                "changed": r.index in run.changed_rounds,
                "failed": bool(r.failures),
            }
            for r in run.simulation.rounds
        ]
        failures = []
        for r in run.simulation.rounds:
            for f in r.failures:
                key = f"scenario:{run.name}:round {r.index}: {f}"
                failures.append(Failure(key, r.index, failure_sentence(f), key in ticked))
        rows.append(ScenarioRow(run, rounds, failures))
    return rows


def _require_publisher(request: HttpRequest) -> HttpResponse | None:
    if releases_selectors.can_publish(request.user):
        return None
    return forbidden(request, PUBLISHER)


# --- pages ------------------------------------------------------------------------------------


@role_required
@require_safe
def release_list(request: HttpRequest) -> HttpResponse:
    """Every release (number, sha256, author, time, note, labels), the labels with a move form,
    the latest label moves, and a form to open the diff between two releases. ``PER_PAGE``
    releases a page (``?page=N``); the pickers list every release by number."""
    page = paginate(request, releases_selectors.release_page_queryset())
    return render(
        request,
        "releases/list.html",
        {
            "releases": list(page.object_list),
            "page": page,
            "release_choices": releases_selectors.release_choices(),
            "labels": releases_selectors.label_list(),
            "moves": releases_selectors.label_moves(),
            "suggested_labels": SUGGESTED_LABELS,
            "can_publish": releases_selectors.can_publish(request.user),
        },
    )


@role_required
@require_safe
def release_detail(request: HttpRequest, number: int) -> HttpResponse:
    """One release: who, when, note, overrides, labels, what it serves and the hashes a runtime
    checks it by (``release_hashes``), how many runtime instances hold it (their latest heartbeat),
    rollback."""
    release = releases_selectors.release_get(number=number)
    if release is None:  # named: not the generic 404's "a skill or scenario may have been renamed"
        reason = _("Release %(number)s does not exist: the releases are listed on the Releases page.")
        return render(request, "404.html", {"reason": reason % {"number": number}}, status=404)
    catalog = releases_selectors.release_catalog(release)
    previous = models.Release.objects.filter(number__lt=number).order_by("-number").first()
    return render(
        request,
        "releases/detail.html",
        {
            "release": release,
            "catalog": catalog,
            "hashes": releases_selectors.release_hashes(release),
            "previous": previous,
            "labels": list(release.labels.all()),
            "can_publish": releases_selectors.can_publish(request.user),
            "latest": releases_selectors.release_latest(),
            "instances": reports_selectors.instances_serving(number=release.number, sha256=release.sha256),
        },
    )


@role_required
@require_safe
def release_diff(request: HttpRequest) -> HttpResponse:
    """``?from=a&to=b``: what changes when release ``b`` replaces release ``a``. Without both, the
    form to choose them."""
    if not request.GET.get("from") and not request.GET.get("to"):
        return render(request, "releases/diff.html", {"all": releases_selectors.release_choices()})
    try:
        a, b = int(request.GET.get("from", "")), int(request.GET.get("to", ""))
    except ValueError:
        return render(
            request,
            "releases/diff.html",
            {"error": _("Choose two releases to compare."), "all": releases_selectors.release_choices()},
            status=400,
        )
    old, new = releases_selectors.release_get(number=a), releases_selectors.release_get(number=b)
    missing = [n for n, r in ((a, old), (b, new)) if r is None]
    if missing:  # named, on the diff page with its form: never the generic "may have been renamed" 404
        return render(
            request,
            "releases/diff.html",
            {
                "error": ngettext(
                    "Release %(numbers)s does not exist; choose releases from the list.",
                    "Releases %(numbers)s do not exist; choose releases from the list.",
                    len(set(missing)),
                )
                % {"numbers": ", ".join(str(n) for n in dict.fromkeys(missing))},
                "all": releases_selectors.release_choices(),
            },
            status=404,
        )
    diff = catalog_diff(releases_selectors.release_catalog(old), releases_selectors.release_catalog(new))
    return render(
        request,
        "releases/diff.html",
        {
            "old": old,
            "new": new,
            "page": diff_page(diff),
            "all": releases_selectors.release_choices(),
        },
    )


@role_required(read=VIEWER, write=PUBLISHER)
def publish(request: HttpRequest) -> HttpResponse:
    """GET: the review (diff against the latest release, every scenario re-run against the draft,
    the gate). POST: ``releases.release_publish`` with the note, the ticked-off expectations and
    their reason; refusals are listed on the same page, nothing is written then."""
    errors: list[str] = []
    ticked: set[str] = set()
    form = {"note": "", "override_note": "", "move_production": True}
    if request.method == "POST":
        denied = _require_publisher(request)
        if denied:
            return denied
        ticked = set(request.POST.getlist("override"))
        form = {
            "note": request.POST.get("note", ""),
            "override_note": request.POST.get("override_note", ""),
            "move_production": request.POST.get("move_production") == "1",
        }
        labels = (
            [releases_services.PRODUCTION]
            if form["move_production"]
            and models.ReleaseLabel.objects.filter(name=releases_services.PRODUCTION).exists()
            else []
        )
        try:
            release = releases_services.release_publish(
                user=request.user,
                note=form["note"],
                overrides=sorted(ticked),
                override_note=form["override_note"],
                move_labels=labels,
            )
        except releases_services.PublishRefused:
            errors.append(_("Not published: the gate refused (reasons below)."))
        except ValidationError as exc:
            errors.extend(exc.messages)
        except PermissionDenied:
            return forbidden(request, PUBLISHER)
        else:
            messages.success(request, _("Published release %(number)s.") % {"number": release.number})
            return redirect("skills:release_detail", number=release.number)
    review = releases_selectors.publish_review()
    reasons = gate(review)
    blocking = [r for r in reasons if not r.overridable]
    scenario_rows = _scenario_rows(review.scenarios, ticked)
    unmet = sum(len(row.failures) for row in scenario_rows)
    return render(
        request,
        "releases/publish.html",
        {
            "review": review,
            "page": diff_page(review.diff),
            "blocking": [reason_sentence(r) for r in blocking],
            # what a configured provider target would refuse (docs/providers.md): overridable, ticked off like an expectation
            "payload_reasons": [
                Failure(r.key, None, reason_sentence(r), r.key in ticked)
                for r in reasons
                if r.code in ("gate_payload", "gate_payload_budget")
            ],
            "scenarios": scenario_rows,
            "unmet": unmet,
            "errors": errors,
            "form": form,
            "has_production": models.ReleaseLabel.objects.filter(name=releases_services.PRODUCTION).exists(),
            "can_publish": releases_selectors.can_publish(request.user),
        },
        status=400 if errors else 200,
    )


@role_required(read=PUBLISHER, write=PUBLISHER)
@require_POST
def release_rollback(request: HttpRequest, number: int) -> HttpResponse:
    """A new release copying release ``number`` (which stays untouched)."""
    denied = _require_publisher(request)
    if denied:
        return denied
    try:
        release = releases_services.release_rollback(
            user=request.user, number=number, note=request.POST.get("note", "")
        )
    except releases_services.PublishRefused as exc:
        messages.error(request, "; ".join(str(reason_sentence(r)) for r in exc.reasons))
        return redirect("skills:release_detail", number=number)
    except ValidationError as exc:
        messages.error(request, "; ".join(exc.messages))
        return redirect("skills:release_list")
    messages.success(
        request,
        _("Rolled back: release %(new)s serves the snapshot of release %(old)s.")
        % {"new": release.number, "old": number},
    )
    return redirect("skills:release_detail", number=release.number)


@role_required(read=PUBLISHER, write=PUBLISHER)
@require_POST
def label_move(request: HttpRequest) -> HttpResponse:
    """Point a label (new or existing) at a release; the move is recorded."""
    denied = _require_publisher(request)
    if denied:
        return denied
    name = request.POST.get("label", "").strip()
    try:
        number = int(request.POST.get("release", ""))
        releases_services.label_move(user=request.user, label=name, number=number)
    except ValueError:
        messages.error(request, _("Choose a release for the label."))
    except ValidationError as exc:
        messages.error(
            request, _("Label %(name)s not moved: %(cause)s") % {"name": name or "—", "cause": "; ".join(exc.messages)}
        )
    else:
        messages.success(
            request, _("Label %(name)s now points at release %(number)s.") % {"name": name, "number": number}
        )
    return redirect("skills:release_list")


@role_required(read=PUBLISHER, write=PUBLISHER)
def api_keys(request: HttpRequest) -> HttpResponse:
    """Runtime API keys: list with last-used time, create (the key is shown once), revoke."""
    created = None
    errors: list[str] = []
    if request.method == "POST":
        denied = _require_publisher(request)
        if denied:
            return denied
        try:
            if "revoke" in request.POST:
                keys_services.api_key_revoke(user=request.user, name=request.POST["revoke"])
                messages.success(request, _("Key %(name)s revoked.") % {"name": request.POST["revoke"]})
                return redirect("skills:api_keys")
            created = keys_services.api_key_create(
                user=request.user, name=request.POST.get("name", ""), read_drafts=request.POST.get("read_drafts") == "1"
            )
        except ValidationError as exc:
            errors.extend(error_sentences(exc))
    response = render(
        request,
        "releases/api_keys.html",
        {
            "keys": keys_selectors.api_key_list(),
            "created": created,
            "errors": errors,
            "can_publish": releases_selectors.can_publish(request.user),
        },
        status=400 if errors else 200,
    )
    if created:
        response["Cache-Control"] = "no-store"  # the key is shown once; never from a cache
    return response
