"""Saved scenarios (docs/design.md, docs/simulator.md): list with each one's cached result against the draft, a link
that runs it in the preview, and create/edit through ``services.scenario_save`` (the form only validates)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from skills_app.catalog import selectors as catalog_selectors
from skills_app.core.roles import EDITOR
from skills_app.simulation import results as scenario_results
from skills_app.simulation import selectors as simulation_selectors
from skills_app.simulation import services
from skills_app.simulation.forms import ScenarioForm
from skills_app.simulation.results import ScenarioResult, cached_results, catalog_sha256
from skills_app.web.common import paginate, role_required, save_with
from skills_app.web.presenters import failure_sentence


def _row(scenario, result: ScenarioResult | None) -> dict:
    """What ``scenarios/_row.html`` shows: the scenario, its result (``None``: not cached yet, the
    row loads it), and a time-budget stop in the active language."""
    stopped = result.stopped if result is not None else None
    return {
        "scenario": scenario,
        "result": result,
        "stopped_text": failure_sentence(stopped) if stopped is not None else "",
    }


@role_required
@require_safe
def scenario_list(request: HttpRequest) -> HttpResponse:
    """Saved scenarios, ``PER_PAGE`` a page, each with its result against the draft when the cache
    holds it (``scenario_results``: one cache read for the page). A row not cached yet loads its
    own result (``scenario_result``, htmx), so this page never runs a scenario."""
    page = paginate(request, simulation_selectors.scenario_queryset())
    scenarios = list(page.object_list)
    found = cached_results(scenarios, catalog_sha256(catalog_selectors.catalog_draft())) if scenarios else {}
    rows = [_row(s, found.get(s.name)) for s in scenarios]
    return render(request, "scenarios/list.html", {"rows": rows, "page": page})


def _scenario_or_404(name: str):
    scenario = simulation_selectors.scenario_get(name=name)
    if scenario is None:
        raise Http404(f"no scenario '{name}'")
    return scenario


@role_required
@require_safe
def scenario_result(request: HttpRequest, name: str) -> HttpResponse:
    """``GET /scenarios/<name>/result``: the scenario's row of the list with its result against
    the draft — from the cache, or run once now and cached (``scenario_results.scenario_result``)."""
    scenario = _scenario_or_404(name)
    result = scenario_results.scenario_result(scenario, catalog_selectors.catalog_draft())
    return render(request, "scenarios/_row.html", {"row": _row(scenario, result)})


@role_required
@require_safe
def scenario_result_json(request: HttpRequest, name: str) -> HttpResponse:
    """``GET /scenarios/<name>/result.json``: the full result against the draft as a download
    (``ScenarioResult.as_dict``: every round in the ``simulate --json`` shape). An unknown name
    is a JSON 404."""
    scenario = simulation_selectors.scenario_get(name=name)
    if scenario is None:
        return JsonResponse(
            {"error": {"code": "not_found", "message": f"no scenario '{name}'", "details": {}}}, status=404
        )
    result = scenario_results.scenario_result(scenario, catalog_selectors.catalog_draft())
    response = JsonResponse(result.as_dict(), json_dumps_params={"ensure_ascii": False})
    response["Content-Disposition"] = content_disposition_header(True, f"{scenario.name}.json")
    return response


def _edit(request: HttpRequest, scenario) -> HttpResponse:
    if request.method == "POST":
        form = ScenarioForm(request.POST, scenario=scenario)
        saved = save_with(form, services.scenario_save) if form.is_valid() else None
        if saved is not None:
            messages.success(request, _("Scenario %(name)s saved.") % {"name": saved.name})
            if "run" in request.POST:
                return redirect(f"{reverse('skills:preview')}?{urlencode({'scenario': saved.name})}")
            return redirect("skills:scenario_list")
    else:
        form = ScenarioForm(scenario=scenario)
    return render(request, "scenarios/edit.html", {"form": form, "scenario": scenario})


@role_required(read=EDITOR, write=EDITOR)
def scenario_create(request: HttpRequest) -> HttpResponse:
    return _edit(request, None)


@role_required(read=EDITOR, write=EDITOR)
def scenario_edit(request: HttpRequest, name: str) -> HttpResponse:
    return _edit(request, _scenario_or_404(name))


@role_required(read=EDITOR, write=EDITOR)
@require_POST
def scenario_from_preview(request: HttpRequest) -> HttpResponse:
    """Save the script just run in the preview as a scenario in one click (the name comes from the
    script's ``name:``, editable in the results panel), then run it from its permalink. A refused
    name or script shows the scenario form with the text kept and the error next to its field."""
    data = {
        "name": (request.POST.get("name") or "").strip(),
        "script": request.POST.get("script") or "",
        "description": "",
    }
    form = ScenarioForm(data)
    saved = save_with(form, services.scenario_save) if form.is_valid() else None
    if saved is not None:
        messages.success(request, _("Scenario %(name)s saved.") % {"name": saved.name})
        return redirect(f"{reverse('skills:preview')}?{urlencode({'scenario': saved.name})}")
    return render(request, "scenarios/edit.html", {"form": form, "scenario": None})
