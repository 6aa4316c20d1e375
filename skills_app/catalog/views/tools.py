"""The registered tools (docs/design.md): the intent tree with its MCP nodes, which skills gate each
tool, and the builtins."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from skill_rule import catalog as dom
from skills_app.catalog import selectors
from skills_app.catalog.forms import tool_search
from skills_app.web.common import draft_html, paginate, role_required

#: Intent-tree rows per page: the tree is paged in tree order (a catalog of 2,000 MCP tools is
#: no page to scroll), ``?q=`` searches the whole tree first.
PER_PAGE = 100


@role_required
@require_safe
def tool_tree(request: HttpRequest) -> HttpResponse:
    """Intent nodes in tree order, ``PER_PAGE`` a page (``?page=``); for each MCP node its tool,
    ``require_confirm``, availability, the enabled skills that gate it (and disabled ones, which
    gate nothing). ``?q=`` keeps the nodes whose code, name, tool or gating skills contain it
    (case-insensitive). Schemas are pretty-printed for the rows of the page only. The page's
    content is rendered once per draft change, query, language and role (``draft_html``)."""
    return render(
        request,
        "tools/tree.html",
        {"content": draft_html(request, "tools/_tree.html", lambda: _tool_tree_context(request))},
    )


def _tool_tree_context(request: HttpRequest) -> dict:
    catalog = selectors.catalog_draft()
    rows = selectors.mcp_nodes()
    registered_by = {r.tool_id: r.node.pk for r in rows}
    available = {r.tool_id: r.available for r in rows}
    definitions = {r.tool_id: r.definition for r in rows}
    gating = catalog.gating_skills
    dormant: dict[str, list[str]] = {}  # disabled skills: they gate nothing
    for s in sorted(catalog.skills, key=lambda s: s.order_key):
        if not s.enabled:
            for t in s.tool_ids:
                dormant.setdefault(t, []).append(s.code)
    q = (request.GET.get("q") or "").strip()
    needle = q.lower()
    tree = selectors.intent_tree_order()
    if needle:
        tree = [
            n
            for n in tree
            if any(
                needle in text.lower()
                for text in (
                    n.intent_code,
                    n.name,
                    n.mcp_tool_id.strip(),
                    *gating.get(n.mcp_tool_id.strip(), ()),
                    *dormant.get(n.mcp_tool_id.strip(), ()),
                )
            )
        ]
    page = paginate(request, tree, PER_PAGE)
    nodes = []
    for n in page.object_list:  # the rows of this page only
        tool = n.mcp_tool_id.strip()
        is_mcp = n.kind == "MCP" and n.is_leaf and bool(tool)
        definition = definitions.get(tool)
        nodes.append(
            {
                "node": n,
                "tool": tool,
                "is_mcp": is_mcp,
                "duplicate": is_mcp and registered_by.get(tool) != n.pk,
                "available": available.get(tool, False),
                "definition": definition,
                "confirm": definition.confirm_from(n.require_confirm) if definition else n.require_confirm,
                "input_schema": _pretty(definition.input_schema) if definition else "",
                "annotations": _pretty(definition.annotations) if definition else "",
                "gated_by": gating.get(tool, []),
                "dormant": dormant.get(tool, []),
            }
        )
    builtins = [t for t in catalog.registered_tools if t.kind == dom.BUILTIN]
    return {
        "nodes": nodes,
        "page": page,
        "q": q,
        "builtins": builtins,
        "load_skill_registered": any(t.name == "load_skill" for t in builtins),
        "mcp_count": len(catalog.mcp_tool_names),
        "gated_count": len(catalog.gated_tool_ids),
        "broken": selectors.broken_skills(),
    }


def _pretty(value) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)


#: The field names a tool picker posts: the skill editor's ``tool_ids``, the restriction editor's ``tools``.
PICKER_FIELDS = ("tool_ids", "tools")
#: A query longer than this is cut (no tool id, title or skill code is this long).
PICKER_QUERY_MAX = 200


@role_required(expired_htmx_template="includes/tool_picker_expired.html")
@require_safe
def tool_options(request: HttpRequest) -> HttpResponse:
    """The search of a tool picker past ``limits.PICKER_FULL_LIST_MAX`` registered tools (htmx,
    ``templates/includes/tool_picker.html``): ``GET /tools/options?q=…&name=tool_ids&selected=…``
    answers an HTML fragment of at most ``limits.PICKER_SEARCH_MAX`` unticked checkbox labels
    (``forms.tool_search``: ``q`` in the tool id, title or a gating skill's code, any case, in
    registration order; the ``selected`` ids left out), named ``name``, plus a line saying how
    many more match. Read-only, any console role. ``name`` other than ``PICKER_FIELDS`` is a 400
    naming it; any ``q`` is a query (one that matches nothing: an empty list). A session that
    ended answers a note in the results, so the editor keeps its text."""
    name = request.GET.get("name") or PICKER_FIELDS[0]
    if name not in PICKER_FIELDS:
        reason = _("'name' must be one of %(names)s; got %(value)r.") % {
            "names": ", ".join(PICKER_FIELDS),
            "value": name[:80],
        }
        return render(request, "400.html", {"reason": reason}, status=400)
    q = (request.GET.get("q") or "").strip()[:PICKER_QUERY_MAX]
    found, total = tool_search(
        selectors.mcp_nodes(), q, request.GET.getlist("selected"), selectors.catalog_draft().gating_skills
    )
    return render(
        request,
        "includes/tool_picker_results.html",
        {"options": found, "name": name, "q": q, "more": total - len(found)},
    )
