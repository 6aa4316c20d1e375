"""The bitmall demo's MCP server (docs/mcp.md), on the official ``mcp`` SDK's low-level ``Server``.

It offers the 14 bitmall tools of ``skills_app/demo/bitmall/catalog.yaml`` with their
``inputSchema`` and ``annotations``, validates call arguments against the schema and answers
with canned data. ``tools/list`` is paginated (``--page-size``, default 5) so clients must follow
``nextCursor``.

Run it::

    python -m skills_app.demo.bitmall_mcp                          # stdio
    python -m skills_app.demo.bitmall_mcp --http --port 8765        # streamable HTTP on 127.0.0.1
    python -m skills_app.demo.bitmall_mcp --http --token s3cret     # … asking for a bearer token

``--variant`` (or the ``BITMALL_MCP_VARIANT`` environment variable) picks a server for tests:

- ``v1`` (default): the 14 tools;
- ``v2``: ``change_address`` removed and ``query_order``'s schema changed (a ``channel`` argument);
- ``hang``: the second page of ``tools/list`` never answers;
- ``die``: the process exits while answering the second page of ``tools/list``;
- ``dotted``: the 14 tools under MCP names no model API accepts (``bitmall.cancel-order`` …,
  ``dotted_name``), so the sync gives them other model-facing names (``bitmall-cancel-order``)
  and a runtime must map calls back (docs/mcp.md, "How a runtime maps calls back");
- ``shapes``: the 14 tools, four of which answer ``tools/call`` in the other shapes a server may
  use (``SHAPES``): text around an image, structured content only, text beside structured
  content, and a process that exits mid-call;
- ``loop``: the second page of ``tools/list`` names itself as the next cursor again;
- ``endless``: ``tools/list`` answers empty pages, each with a new next cursor, for ever;
- ``twice``: the 14 tools, then ``query_order`` listed a second time (``TWICE``, another
  description), as a proxy merging two backends might: the sync offers neither copy;
- ``invalid``: the 14 tools with two entries the MCP schema refuses among them (``INVALID``: one
  named ``broken_lookup`` whose ``inputSchema`` is a text, one without a name), as a server not
  built on this SDK might send: the sync refuses those two by name (or position) and keeps the 14;
- ``hints``: the 14 tools, three with other annotations (``HINTS``): ``apply_after_sale`` plainly
  read-only, ``cancel_order`` read-only *and* destructive, ``change_address`` with
  ``readOnlyHint: "true"`` (a text) — the sync reads the last two fail-closed (docs/mcp.md,
  "Confirmation");
- ``oversized``: the 14 tools, three past the bounds of a synced definition (``OVERSIZED_*``: a
  20,000-character description, an inputSchema over 64 KiB, a 2,000-character title): the sync
  refuses those three, naming each bound, and keeps the other 11 (docs/mcp.md, "Bounded definitions").

``invalid`` and ``hints`` send their tools as written, past the SDK's own check of what a server
answers (``_send_as_written``): the SDK would never let its own server send them.

Only this file and the catalog YAML are read; no Django import, so the server starts fast.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import os
import sys
from pathlib import Path
from typing import Any

import jsonschema
import yaml

CATALOG = Path(__file__).resolve().parent / "bitmall" / "catalog.yaml"
VARIANTS = (
    "v1",
    "v2",
    "hang",
    "die",
    "dotted",
    "shapes",
    "loop",
    "endless",
    "twice",
    "invalid",
    "hints",
    "oversized",
)
#: What the v2 variant removes and whose schema it changes (tests and docs/mcp.md name them).
V2_REMOVED = "change_address"
V2_CHANGED = "query_order"
#: The tool the ``twice`` variant lists a second time.
TWICE = "query_order"
#: The entries the ``invalid`` variant lists after the third tool (wire keys; the MCP schema refuses both).
INVALID: list[dict[str, Any]] = [
    {"name": "broken_lookup", "description": "inputSchema 是一段文字", "inputSchema": "type: object"},
    {"description": "没有名字的工具", "inputSchema": {"type": "object"}},
]
#: The ``oversized`` variant (docs/mcp.md, "Bounded definitions"): past the bounds of a synced
#: definition (``skill_rule.limits``), ``query_logistics``' description is 20,000 characters and
#: ``search_product``'s inputSchema gets a property whose enum of 8,000 SKU ids makes it more than
#: 64 KiB of canonical JSON; ``query_cart``'s title is 2,000 characters. The other 11 tools are as in v1.
OVERSIZED_DESCRIPTION = "query_logistics"
OVERSIZED_SCHEMA = "search_product"
OVERSIZED_TITLE = "query_cart"
OVERSIZED_DESCRIPTION_LENGTH = 20_000
OVERSIZED_TITLE_LENGTH = 2_000
OVERSIZED_ENUM = [f"SKU-{n:06d}" for n in range(8_000)]
#: The ``hints`` variant's annotations by tool (sent as written).
HINTS: dict[str, dict[str, Any]] = {
    "apply_after_sale": {"readOnlyHint": True, "destructiveHint": False},
    "cancel_order": {"readOnlyHint": True, "destructiveHint": True},
    "change_address": {"readOnlyHint": "true", "destructiveHint": False},
}

#: Canned answers by tool (JSON, as a real backend would send).
CANNED: dict[str, Any] = {
    "query_order": {
        "orders": [
            {
                "order_no": "88239",
                "status": "待发货",
                "items": [{"sku_id": "IP18PM-256-BLK", "name": "iPhone 18 Pro Max 256G", "quantity": 1}],
                "amount": 9999.0,
            },
            {
                "order_no": "88102",
                "status": "已签收",
                "items": [{"sku_id": "AIRP-4", "name": "降噪耳机", "quantity": 1}],
                "amount": 1299.0,
            },
        ]
    },
    "query_logistics": {
        "carrier": "顺丰速运",
        "tracking_no": "SF1234567890",
        "events": [{"time": "2026-11-30 18:02", "text": "快件已到达【上海转运中心】"}],
    },
    "query_after_sale": {"after_sales": [{"after_sale_no": "AS20261130001", "status": "审核中"}]},
    "apply_after_sale": {"after_sale_no": "AS20261201001", "status": "待审核"},
    "cancel_order": {"order_no": "88239", "status": "已取消", "refund": "9999.00 元原路退回，1–3 个工作日到账"},
    "change_address": {"status": "已修改"},
    "search_product": {
        "products": [{"sku_id": "IP18PM-256-BLK", "name": "iPhone 18 Pro Max 256G", "price": 9999.0, "stock": 12}]
    },
    "query_cart": {"items": [{"sku_id": "AIRP-4", "quantity": 1, "checked": True}], "subtotal": 1299.0},
    "query_coupons": {"usable": [{"coupon_id": "C100", "title": "满1000减100"}], "unusable": []},
    "update_cart_item": {"status": "已更新"},
    "create_order": {"order_no": "88240", "status": "待支付", "amount": 1199.0},
    "pay_order": {"order_no": "88240", "status": "待发货"},
    "submit_ticket": {"ticket_no": "T20261201001", "status": "已受理"},
    "current_date": {"date": "2026-12-01", "weekday": "星期二", "timezone": "Asia/Shanghai"},
}


#: The ``shapes`` variant's answers to ``tools/call``: the content parts (``("text", …)`` or
#: ``("image", mime type)``) and the structured content; ``pay_order`` exits instead.
SHAPES: dict[str, tuple[list[tuple[str, str]], Any]] = {
    "query_order": ([("text", "订单 88239"), ("image", "image/png"), ("text", "已发货")], None),
    "query_logistics": ([], {"carrier": "顺丰", "waybill": "SF1234567890"}),
    "cancel_order": ([("text", "已取消")], {"cancelled": True}),
}


def dotted_name(name: str) -> str:
    """The ``dotted`` variant's MCP name of a bitmall tool: ``cancel_order`` → ``bitmall.cancel-order``."""
    return "bitmall." + name.replace("_", "-")


def tool_specs(variant: str = "v1") -> list[dict[str, Any]]:
    """The tool definitions this server offers, as dicts with MCP's wire keys (``name``, ``title``,
    ``description``, ``inputSchema``, ``annotations``), in catalog order. ``variant`` is one of
    ``VARIANTS``; ``v2`` drops ``V2_REMOVED`` and adds a ``channel`` argument to ``V2_CHANGED``;
    ``twice`` lists ``TWICE`` again at the end; ``oversized`` makes three tools too large to
    sync (``OVERSIZED_DESCRIPTION``, ``OVERSIZED_SCHEMA``, ``OVERSIZED_TITLE``);
    ``dotted`` renames every tool with ``dotted_name`` (each spec keeps its catalog name in
    ``x-bitmall-name``, not sent on the wire)."""
    with CATALOG.open(encoding="utf-8") as fh:
        tools = copy.deepcopy(yaml.safe_load(fh)["tools"])
    if variant == "v2":
        tools = [t for t in tools if t["name"] != V2_REMOVED]
        for t in tools:
            if t["name"] == V2_CHANGED:
                t["inputSchema"]["properties"]["channel"] = {
                    "type": "string",
                    "description": "下单渠道",
                    "enum": ["app", "web", "mini-program"],
                }
    if variant == "twice":
        again = copy.deepcopy(next(t for t in tools if t["name"] == TWICE))
        tools.append({**again, "description": again["description"] + "（第二个后端）"})
    if variant == "hints":
        for t in tools:
            if t["name"] in HINTS:
                t["annotations"] = dict(HINTS[t["name"]])
    if variant == "oversized":
        for t in tools:
            if t["name"] == OVERSIZED_DESCRIPTION:
                t["description"] = ("物流" * OVERSIZED_DESCRIPTION_LENGTH)[:OVERSIZED_DESCRIPTION_LENGTH]
            if t["name"] == OVERSIZED_SCHEMA:
                t["inputSchema"]["properties"]["sku_id"] = {"type": "string", "enum": list(OVERSIZED_ENUM)}
            if t["name"] == OVERSIZED_TITLE:
                t["title"] = "购" * OVERSIZED_TITLE_LENGTH
    for t in tools:
        t["x-bitmall-name"] = t["name"]
        if variant == "dotted":
            t["name"] = dotted_name(t["name"])
    return tools


def build_server(variant: str = "v1", page_size: int = 5):
    """The SDK ``Server`` answering ``tools/list`` (paginated by ``page_size``; the cursor is the
    index of the next tool as a string) and ``tools/call`` for ``variant``."""
    specs = tool_specs(variant)
    if variant in ("invalid", "hints"):
        _send_as_written()
        wire = [{k: v for k, v in t.items() if k != "x-bitmall-name"} for t in specs]
        tools: list[Any] = wire[:3] + copy.deepcopy(INVALID) + wire[3:] if variant == "invalid" else wire
    else:
        tools = _sdk_tools(specs)
    return _build(variant, page_size, specs, tools, {t["name"]: t for t in specs})


def _sdk_tools(specs: list[dict[str, Any]]) -> list[Any]:
    """The SDK ``Tool`` of each spec."""
    import mcp_types as types

    return [
        types.Tool(
            name=t["name"],
            title=t.get("title"),
            description=t.get("description"),
            input_schema=t["inputSchema"],
            annotations=types.ToolAnnotations(
                read_only_hint=t.get("annotations", {}).get("readOnlyHint"),
                destructive_hint=t.get("annotations", {}).get("destructiveHint"),
                idempotent_hint=t.get("annotations", {}).get("idempotentHint"),
                open_world_hint=t.get("annotations", {}).get("openWorldHint"),
            )
            if t.get("annotations")
            else None,
        )
        for t in specs
    ]


def _send_as_written() -> None:
    """Let this process's server answer ``tools/list`` with its entries as written: the SDK's
    server checks every result against the protocol's schema before sending it (``runner``'s
    ``serialize_server_result``) and would refuse the ``invalid`` / ``hints`` entries. Only the
    demo server process runs this (never the console)."""
    from mcp.server import runner

    real = runner._methods

    class AsWritten:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        @staticmethod
        def serialize_server_result(method: str, version: str, data: Any, **kw: Any) -> Any:
            if method == "tools/list":
                return dict(data)
            return real.serialize_server_result(method, version, data, **kw)

    runner._methods = AsWritten()


def _build(
    variant: str, page_size: int, specs: list[dict[str, Any]], tools: list[Any], by_name: dict[str, dict[str, Any]]
):
    import mcp_types as types
    from mcp.server.lowlevel import Server

    async def list_tools(ctx, params) -> types.ListToolsResult:
        cursor = getattr(params, "cursor", None) if params is not None else None
        start = int(cursor) if cursor else 0
        if start > 0 and variant == "hang":
            await asyncio.sleep(3600)
        if start > 0 and variant == "die":
            sys.stderr.write("bitmall_mcp: dying mid-list (variant 'die')\n")
            sys.stderr.flush()
            os._exit(3)
        if variant == "endless":
            return types.ListToolsResult(tools=[], next_cursor=str(start + 1))
        if start > 0 and variant == "loop":
            return types.ListToolsResult(tools=tools[start : start + page_size], next_cursor=str(start))
        end = start + page_size
        if variant in ("invalid", "hints"):  # entries as written (``_send_as_written``)
            return {"tools": tools[start:end], **({"nextCursor": str(end)} if end < len(tools) else {})}
        return types.ListToolsResult(tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None)

    async def call_tool(ctx, params) -> types.CallToolResult:
        if variant == "shapes" and params.name == "pay_order":
            sys.stderr.write("bitmall_mcp: exiting mid-call (variant 'shapes')\n")
            sys.stderr.flush()
            os._exit(3)
        if variant == "shapes" and params.name in SHAPES:
            parts, structured = SHAPES[params.name]
            content = [
                types.TextContent(type="text", text=value)
                if kind == "text"
                else types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type=value)
                for kind, value in parts
            ]
            return types.CallToolResult(content=content, structured_content=structured)
        spec = by_name.get(params.name)
        if spec is None:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"unknown tool '{params.name}'")], is_error=True
            )
        arguments = params.arguments or {}
        try:
            jsonschema.validate(arguments, spec["inputSchema"])
        except jsonschema.ValidationError as exc:
            where = "/".join(str(p) for p in exc.absolute_path) or "(arguments)"
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"invalid arguments at {where}: {exc.message}")],
                is_error=True,
            )
        answer = {"tool": params.name, "arguments": arguments, "result": CANNED.get(spec["x-bitmall-name"], {})}
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(answer, ensure_ascii=False))]
        )

    return Server(
        "bitmall-demo",
        version="1.0.0" if variant != "v2" else "2.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _serve_stdio(variant: str, page_size: int) -> None:
    from mcp.server.stdio import stdio_server

    server = build_server(variant, page_size)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def _require_token(app: Any, token: str) -> Any:
    """``app`` answering 401 to every HTTP request without ``Authorization: Bearer <token>`` (how a
    real server guards itself; tests check the console sends a server's headers)."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope.get("headers") or []).get(b"authorization") != expected:
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer")],
                }
            )
            await send({"type": "http.response.body", "body": b"a bearer token is required"})
            return
        await app(scope, receive, send)

    return guarded


def _serve_http(variant: str, page_size: int, host: str, port: int, token: str = "") -> None:
    import uvicorn

    server = build_server(variant, page_size)
    app = server.streamable_http_app(host=host, json_response=True)
    uvicorn.run(_require_token(app, token) if token else app, host=host, port=port, log_level="warning")


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve until stdin closes (stdio) or the process is stopped (HTTP)."""
    parser = argparse.ArgumentParser(description="The bitmall demo MCP server (docs/mcp.md).")
    parser.add_argument("--variant", choices=VARIANTS, default=os.environ.get("BITMALL_MCP_VARIANT", "v1"))
    parser.add_argument("--page-size", type=int, default=5)
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--token", default="", help="HTTP: refuse requests without 'Authorization: Bearer TOKEN'")
    args = parser.parse_args(argv)
    if args.http:
        _serve_http(args.variant, args.page_size, args.host, args.port, args.token)
    else:
        asyncio.run(_serve_stdio(args.variant, args.page_size))


if __name__ == "__main__":
    main()
