"""The registered tools (docs/design.md): the intent tree with its MCP nodes, which skills gate each
tool, and the builtins."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from django.views.decorators.http import require_safe

from .. import selectors
from ..domain import catalog as dom
from .common import role_required


@role_required
@require_safe
def tool_tree(request: HttpRequest) -> HttpResponse:
    """Intent nodes in tree order; for each MCP node its tool, ``require_confirm``, availability,
    the enabled skills that gate it (and disabled ones, which gate nothing)."""
    catalog = selectors.catalog_draft()
    rows = selectors.mcp_nodes()
    registered_by = {r.tool_id: r.node.pk for r in rows}
    available = {r.tool_id: r.available for r in rows}
    definitions = {r.tool_id: r.definition for r in rows}
    gating: dict[str, list[str]] = {}
    dormant: dict[str, list[str]] = {}
    for s in sorted(catalog.skills, key=lambda s: s.order_key):
        for t in s.tool_ids:
            (gating if s.enabled else dormant).setdefault(t, []).append(s.code)
    nodes = []
    for n in selectors.intent_tree_order():
        tool = n.mcp_tool_id.strip()
        is_mcp = n.kind == "MCP" and n.is_leaf and bool(tool)
        nodes.append({
            "node": n,
            "tool": tool,
            "is_mcp": is_mcp,
            "duplicate": is_mcp and registered_by.get(tool) != n.pk,
            "available": available.get(tool, False),
            "definition": definitions.get(tool),
            "confirm": definitions[tool].confirm_from(n.require_confirm) if definitions.get(tool) else n.require_confirm,
            "input_schema": _pretty(definitions[tool].input_schema) if definitions.get(tool) else "",
            "annotations": _pretty(definitions[tool].annotations) if definitions.get(tool) else "",
            "gated_by": gating.get(tool, []),
            "dormant": dormant.get(tool, []),
        })
    builtins = [t for t in catalog.registered_tools if t.kind == dom.BUILTIN]
    return render(request, "tools/tree.html", {
        "nodes": nodes,
        "builtins": builtins,
        "load_skill_registered": any(t.name == "load_skill" for t in builtins),
        "mcp_count": len(catalog.mcp_tool_names),
        "gated_count": len(catalog.gated_tool_ids),
        "broken": selectors.broken_skills(),
    })


def _pretty(value) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True)
