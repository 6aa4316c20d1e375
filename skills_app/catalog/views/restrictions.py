"""Access profiles and task stages (docs/design.md, seed 004): the model's MCP tools are intersected
with both. Create/edit through ``services.access_profile_save`` / ``services.stage_save``."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from skill_rule import Catalog
from skills_app.catalog import selectors, services
from skills_app.catalog.forms import RESTRICTION_KINDS, RestrictionForm, tool_picker
from skills_app.core.roles import EDITOR
from skills_app.web.common import role_required, save_with


def _table(catalog: Catalog, kind: str):
    return catalog.profiles if kind == "profile" else catalog.stages


def _rows(catalog: Catalog, kind: str) -> list[dict]:
    """Each restriction with its tools in registration order, and the MCP tools it withholds."""
    order = catalog.mcp_tool_names
    rows = []
    for name in sorted(_table(catalog, kind)):
        r = _table(catalog, kind)[name]
        rows.append(
            {
                "name": r.name,
                "description": r.description,
                "tools": [t for t in order if t in r.tools] + sorted(t for t in r.tools if t not in order),
                "withheld": [t for t in order if t not in r.tools],
                "stale": sorted(t for t in r.tools if t not in order),
            }
        )
    return rows


@role_required
@require_safe
def restriction_list(request: HttpRequest) -> HttpResponse:
    catalog = selectors.catalog_draft()
    return render(
        request,
        "restrictions/list.html",
        {
            "profiles": _rows(catalog, "profile"),
            "stages": _rows(catalog, "stage"),
            "mcp_count": len(catalog.mcp_tool_names),
        },
    )


@role_required(read=EDITOR, write=EDITOR)
def restriction_edit(request: HttpRequest, kind: str, name: str | None = None) -> HttpResponse:
    """Create (``name`` None) or edit an access profile (``kind=profile``) or a stage."""
    if kind not in RESTRICTION_KINDS:
        raise Http404(kind)
    catalog = selectors.catalog_draft()
    table = _table(catalog, kind)
    obj = None
    if name is not None:
        obj = table.get(name)
        if obj is None:
            raise Http404(f"no {kind} '{name}'")
    if request.method == "POST":
        form = RestrictionForm(request.POST, kind=kind, obj=obj, existing=table.keys())
        service = services.access_profile_save if kind == "profile" else services.stage_save
        saved = save_with(form, service) if form.is_valid() else None
        if saved is not None:
            messages.success(
                request, _("%(kind)s %(name)s saved.") % {"kind": RESTRICTION_KINDS[kind], "name": saved.name}
            )
            return redirect("skills:restriction_list")
    else:
        initial = {"name": obj.name, "description": obj.description, "tools": sorted(obj.tools)} if obj else None
        form = RestrictionForm(kind=kind, obj=obj, existing=table.keys(), initial=initial)
    return render(
        request,
        "restrictions/edit.html",
        {
            "form": form,
            "kind": kind,
            "kind_label": RESTRICTION_KINDS[kind],
            "obj": obj,
            "tool_picker": tool_picker(selectors.mcp_nodes(), form.selected_tools()),
        },
    )
