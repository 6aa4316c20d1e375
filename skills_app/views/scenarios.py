"""Saved scenarios (docs/design.md, docs/simulator.md): list with each one's last result against the draft, a link
that runs it in the preview, and create/edit through ``services.scenario_save``."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST, require_safe
from django.urls import reverse
from django.utils.translation import gettext as _

from .. import selectors
from ..domain import DomainError, parse_script, simulate
from ..forms import ScenarioForm
from ..roles import EDITOR
from .common import role_required


@dataclass(frozen=True)
class ScenarioRow:
    """A saved scenario and how it runs against the draft catalog right now."""

    scenario: object
    rounds: int = 0
    counts: tuple[int, ...] = ()
    failures: tuple[str, ...] = ()
    error: str = ""
    expectations: int = 0

    @property
    def passed(self) -> bool:
        return not self.error and not self.failures


@role_required
@require_safe
def scenario_list(request: HttpRequest) -> HttpResponse:
    """Every saved scenario, re-run against the draft (as a publish would)."""
    catalog = selectors.catalog_draft()
    rows = []
    for s in selectors.scenario_list():
        try:
            sim = simulate(catalog, parse_script(s.script, source=f"scenario '{s.name}'"))
        except DomainError as exc:
            rows.append(ScenarioRow(scenario=s, error=exc.message))
            continue
        rows.append(ScenarioRow(scenario=s, rounds=len(sim.rounds), counts=tuple(r.view.count for r in sim.rounds),
                                failures=sim.failures, expectations=sum(1 for r in sim.rounds if r.expect)))
    return render(request, "scenarios/list.html", {"rows": rows})


def _edit(request: HttpRequest, scenario) -> HttpResponse:
    if request.method == "POST":
        form = ScenarioForm(request.POST, scenario=scenario)
        if form.is_valid() and form.instance is not None:
            messages.success(request, _("Scenario %(name)s saved.") % {"name": form.instance.name})
            if "run" in request.POST:
                return redirect(f"{reverse('skills:preview')}?{urlencode({'scenario': form.instance.name})}")
            return redirect("skills:scenario_list")
    else:
        form = ScenarioForm(scenario=scenario)
    return render(request, "scenarios/edit.html", {"form": form, "scenario": scenario})


@role_required(read=EDITOR, write=EDITOR)
def scenario_create(request: HttpRequest) -> HttpResponse:
    return _edit(request, None)


@role_required(read=EDITOR, write=EDITOR)
def scenario_edit(request: HttpRequest, name: str) -> HttpResponse:
    scenario = selectors.scenario_get(name=name)
    if scenario is None:
        raise Http404(f"no scenario '{name}'")
    return _edit(request, scenario)


@role_required(read=EDITOR, write=EDITOR)
@require_POST
def scenario_from_preview(request: HttpRequest) -> HttpResponse:
    """Save the script just run in the preview as a scenario in one click (the name comes from the
    script's ``name:``, editable in the results panel), then run it from its permalink. A refused
    name or script shows the scenario form with the text kept and the error next to its field."""
    data = {"name": (request.POST.get("name") or "").strip(), "script": request.POST.get("script") or "",
            "description": ""}
    form = ScenarioForm(data)
    if form.is_valid() and form.instance is not None:
        messages.success(request, _("Scenario %(name)s saved.") % {"name": form.instance.name})
        return redirect(f"{reverse('skills:preview')}?{urlencode({'scenario': form.instance.name})}")
    return render(request, "scenarios/edit.html", {"form": form, "scenario": None})
