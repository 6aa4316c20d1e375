"""Preview / simulate (docs/simulator.md): run a saved scenario, a pasted YAML script or a pasted JSON
transcript against the draft catalog and show every round and the gated-tool matrix.

``GET /preview/?scenario=cancel-iphone[&profile=…][&stage=…]`` runs directly, so a result is a
link. ``POST`` runs pasted text; with htmx only the results panel is re-rendered.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_POST, require_safe
from django_htmx.http import push_url

from skill_rule import (
    Catalog,
    MessageError,
    ScriptError,
    UnknownRestrictionError,
    parse_script,
    parse_transcript,
    replay,
    simulate,
)
from skill_rule.limits import LOAD_SKILL
from skill_rule.payload import ANTHROPIC, OPENAI, catalog_text, load_skill_definition, payload_chars, tools_payload
from skills_app.catalog import selectors as catalog_selectors
from skills_app.core.roles import VIEWER
from skills_app.simulation import selectors as simulation_selectors
from skills_app.simulation.forms import PreviewForm
from skills_app.web.common import role_required
from skills_app.web.presenters import parse_span, simulation_page

FORM_KEYS = ("scenario", "script", "profile", "stage")
#: A pasted script up to this length gets a permalink carrying the script itself (``?script=``);
#: longer ones are best saved as a scenario (one click in the results panel).
PERMALINK_MAX_CHARS = 6_000
#: At most this many names in one payload request (a catalog's registered tools fit many times).
PAYLOAD_MAX_TOOLS = 1000
EXCERPT_CONTEXT = 3


def looks_like_transcript(text: str) -> bool:
    """A pasted JSON message list (docs/runtime-api.md, OpenAI chat, Anthropic or OpenAI Responses
    items — which may carry ``"type"`` and no ``"role"`` at all) rather than a YAML script."""
    stripped = text.lstrip()
    return stripped[:1] in ("[", "{") and ('"role"' in stripped or '"type"' in stripped)


def _excerpt(text: str, line: int | None) -> list[tuple[int, str, bool]]:
    """Lines around ``line`` as ``(number, text, is_the_line)`` to show where a script breaks."""
    if not line:
        return []
    lines = text.splitlines() or [""]
    lo, hi = max(1, line - EXCERPT_CONTEXT), min(len(lines), line + EXCERPT_CONTEXT)
    return [(n, lines[n - 1], n == line) for n in range(lo, hi + 1)]


def run(catalog: Catalog, data: dict[str, Any]) -> dict[str, Any]:
    """Parse and simulate the form's source; returns the template context of the results panel
    (``page`` on success, or ``script_error`` / ``message_error`` / ``restriction_error``)."""
    text, source = data["source_text"], data["source_name"]
    profile = PreviewForm.restriction(data.get("profile"))
    stage = PreviewForm.restriction(data.get("stage"))
    kind = "transcript" if looks_like_transcript(text) else "script"
    try:
        if kind == "transcript":
            sim = replay(
                catalog, parse_transcript(text), name="transcript", access_profile=profile or None, stage=stage or None
            )
        else:
            sim = simulate(catalog, parse_script(text, source=source), access_profile=profile, stage=stage)
    except ScriptError as exc:
        return {"kind": kind, "script_error": exc, "excerpt": _excerpt(text, exc.line)}
    except MessageError as exc:
        return {"kind": kind, "message_error": exc}
    except UnknownRestrictionError as exc:
        return {"kind": kind, "restriction_error": exc}
    return {"kind": kind, "page": simulation_page(sim, catalog)}


@role_required(read=VIEWER, write=VIEWER)
def preview(request: HttpRequest) -> HttpResponse:
    """The simulate page; see the module docstring for the parameters."""
    catalog = catalog_selectors.catalog_draft()
    scenarios = simulation_selectors.scenario_list()
    params = request.POST if request.method == "POST" else request.GET
    bound = any(k in params for k in FORM_KEYS)
    data = None
    if bound:
        data = params.copy()
        saved = next((s for s in scenarios if s.name == data.get("scenario")), None)
        if saved is not None and not (data.get("script") or "").strip():
            data["script"] = saved.script  # show what runs, ready to be tweaked
    form = PreviewForm(data, scenarios=scenarios, catalog=catalog)
    context: dict[str, Any] = {
        "form": form,
        "catalog": catalog,
        "scenarios": scenarios,
        "scenario_scripts": {s.name: s.script for s in scenarios},
        "ran": False,
    }
    link = None
    if bound and form.is_valid():
        context.update(run(catalog, form.cleaned_data))
        context["ran"] = True
        context["source_name"] = form.cleaned_data["source_name"]
        context["source_text"] = form.cleaned_data["source_text"]
        saved = form.cleaned_data.get("saved")
        context["saved_scenario"] = saved
        if saved is not None:
            query = {"scenario": saved.name}
        elif len(form.cleaned_data["source_text"]) <= PERMALINK_MAX_CHARS:
            query = {"script": form.cleaned_data["source_text"]}  # the run is its own link
        else:
            query = None
        if query is not None:
            query.update({k: form.cleaned_data[k] for k in ("profile", "stage") if form.cleaned_data.get(k)})
            link = f"{reverse('skills:preview')}?{urlencode(query)}"
    context["link"] = link
    if request.htmx and request.method == "POST" and "rounds" in params and context.get("page") is not None:
        # a fold being expanded: only its rounds (parse_span; a bad span shows none)
        page = context["page"]
        span = parse_span(params.get("rounds"), len(page.rounds))
        rows = page.rounds[span[0] - 1 : span[1]] if span else ()
        return render(request, "preview/_rounds.html", {**context, "rows": rows})
    if request.htmx and request.method == "POST":
        response = render(request, "preview/_results.html", context)
        return push_url(response, link or reverse("skills:preview"))
    return render(request, "preview/page.html", context)


def _json_error(status: int, code: str, message: str, details: dict | None = None) -> JsonResponse:
    return JsonResponse(
        {"error": {"code": code, "message": message, "details": details or {}}},
        status=status,
        json_dumps_params={"ensure_ascii": False},
    )


@role_required(read=VIEWER, write=VIEWER)
@require_POST
def preview_result_json(request: HttpRequest) -> HttpResponse:
    """``POST /preview/result.json`` with the preview form's fields (``scenario``, ``script``,
    ``profile``, ``stage``): the whole simulation as a JSON download — every round, folded or
    not, in the ``simulate --json`` shape (``Simulation.as_dict``). A form that does not validate
    or a source that cannot run answers 400 with ``{"error": {"code", "message", "details"}}``
    (codes ``invalid_form``, ``invalid_script``, ``invalid_messages``, ``unknown_restriction``)."""
    catalog = catalog_selectors.catalog_draft()
    scenarios = simulation_selectors.scenario_list()
    data = request.POST.copy()
    saved = next((s for s in scenarios if s.name == data.get("scenario")), None)
    if saved is not None and not (data.get("script") or "").strip():
        data["script"] = saved.script
    form = PreviewForm(data, scenarios=scenarios, catalog=catalog)
    if not form.is_valid():
        errors = {f: [str(e) for e in errs] for f, errs in form.errors.items()}
        return _json_error(400, "invalid_form", "; ".join(e for errs in errors.values() for e in errs), errors)
    result = run(catalog, form.cleaned_data)
    error = result.get("script_error") or result.get("message_error") or result.get("restriction_error")
    if error is not None:
        return _json_error(400, error.code, error.message, error.details)
    sim = result["page"].sim
    response = JsonResponse(sim.as_dict(), json_dumps_params={"ensure_ascii": False})
    response["Content-Disposition"] = content_disposition_header(True, f"{sim.scenario or 'simulation'}.json")
    return response


@role_required
@require_safe
def preview_payload(request: HttpRequest) -> HttpResponse:
    """``GET /preview/payload?tools=a,b,c`` — the ``tools`` array of one round in both formats,
    pretty-printed, with its size in characters (docs/runtime-api.md "What the model sees").

    The preview page loads it into a round only when asked (htmx, when the round's payload panel
    is opened), so a long run does not carry every round's JSON. ``tools`` is the round's visible
    list; it is rendered against the current draft catalog, and a name the draft no longer
    registers is listed as such (it is not in the payload). When ``load_skill`` is among them, its
    generated description is also shown as plain text, as the model reads it, with its size in
    characters; under the ``system_prompt`` placement (docs/runtime-api.md, "Where the catalog
    goes") that description is the header alone and the catalog block for the system prompt
    (``catalog_text``) is shown beside it with its size.
    """
    names = [n for n in (request.GET.get("tools") or "").split(",") if n.strip()][:PAYLOAD_MAX_TOOLS]
    catalog = catalog_selectors.catalog_draft()
    unknown = [n for n in names if catalog.tool(n) is None]
    formats = []
    for fmt, label in ((OPENAI, "OpenAI"), (ANTHROPIC, "Anthropic")):
        tools = tools_payload(catalog, names, fmt)
        formats.append(
            {
                "fmt": fmt,
                "label": label,
                "chars": payload_chars(tools),
                "count": len(tools),
                "json": json.dumps(tools, ensure_ascii=False, indent=2),
            }
        )
    load = load_skill_definition(catalog) if LOAD_SKILL in names else None
    block = catalog_text(catalog)
    return render(
        request,
        "preview/_payload.html",
        {
            "formats": formats,
            "unknown": unknown,
            "load_skill_description": load.description if load else None,
            "load_skill_chars": len(load.description) if load else 0,
            "in_system_prompt": block is not None,
            "catalog_text": block or "",
            "catalog_chars": len(block or ""),
        },
    )
