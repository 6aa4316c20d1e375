"""Print the request/response examples of docs/runtime-api.md by running the real code.

    SKILL_CONSOLE_VAR_DIR=$(mktemp -d) .venv/bin/python docs/examples/runtime_api_examples.py

Uses a fresh SQLite database under ``SKILL_CONSOLE_VAR_DIR`` (migrated, bitmall demo loaded, one
runtime API key, sent as ``Authorization: Bearer``) and Django's test client, so nothing is invented: every body below is
what the API answered. Long strings are cut to ``CUT`` characters and marked with ``…``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "console.settings")
if "SKILL_CONSOLE_VAR_DIR" not in os.environ:
    sys.exit("set SKILL_CONSOLE_VAR_DIR to an empty folder (the example database goes there)")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from skills_app.keys.services import api_key_create  # noqa: E402
from skills_app.releases.services import COMMAND_LINE  # noqa: E402

CUT = 160
USER = {"role": "user", "content": "那台iPhone 18 Pro Max我不想要了，还没发货吧？帮我取消"}
LOAD_CALL = {
    "role": "assistant",
    "content": "",
    "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": "order_change"}}],
}


def cut(value, depth=0):
    if isinstance(value, str):
        return value if len(value) <= CUT else value[:CUT] + "…"
    if isinstance(value, list):
        return [cut(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: cut(v, depth + 1) for k, v in value.items()}
    return value


def show(title, response, body=None, keep=None):
    print(f"\n### {title}")
    if body is not None:
        print("request:", json.dumps(body, ensure_ascii=False))
    headers = {k: response[k] for k in ("ETag", "Cache-Control") if response.has_header(k)}
    print("status:", response.status_code, json.dumps(headers) if headers else "")
    if response.content:
        data = response.json()
        if keep:
            data = keep(data)
        print(json.dumps(cut(data), ensure_ascii=False, indent=2))
    return response


def main():
    call_command("migrate", verbosity=0)
    call_command("load_demo", "bitmall", verbosity=0)
    client = APIClient()  # an agent runtime's key (docs/releases.md, "API keys")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key_create(user=COMMAND_LINE, name='examples').key}")
    post = lambda url, body: client.post(url, body, format="json")  # noqa: E731

    r = show(
        "GET catalog",
        client.get("/api/v1/runtime/catalog"),
        keep=lambda d: {**d, "mcp_tools": d["mcp_tools"][:1] + ["…13 more"]},
    )
    show("GET catalog with If-None-Match", client.get("/api/v1/runtime/catalog", HTTP_IF_NONE_MATCH=r["ETag"]))
    show("GET skills/order_change", client.get("/api/v1/runtime/skills/order_change"))
    round_1 = {"messages": [USER]}
    show("rounds, round 1", post("/api/v1/runtime/rounds", round_1), round_1)
    loaded = post("/api/v1/runtime/load-skill", {"messages": [USER, LOAD_CALL], "skill_code": "order_change"})
    show("load-skill, first load", loaded, {"messages": [USER, LOAD_CALL], "skill_code": "order_change"})
    result = {
        "role": "tool",
        "tool_call_id": "c1",
        "content": loaded.json()["content"],
        "state": "success",
        "metadata": loaded.json()["metadata"],
    }
    messages_2 = [USER, LOAD_CALL, result]
    show("rounds, round 2", post("/api/v1/runtime/rounds", {"messages": messages_2}))
    show(
        "load-skill, repeat", post("/api/v1/runtime/load-skill", {"messages": messages_2, "skill_code": "order_change"})
    )
    for fmt in ("openai", "anthropic"):
        body = {"messages": [USER], "tools_format": fmt}
        show(
            f"rounds, round 1, tools_format={fmt} (tools: load_skill and query_order shown)",
            post("/api/v1/runtime/rounds", body),
            body,
            keep=lambda d: {
                **d,
                "tools": [t for t in d["tools"] if (t.get("function") or t)["name"] in ("load_skill", "query_order")],
            },
        )
    full = post("/api/v1/runtime/rounds", {"messages": [USER], "tools_format": "openai"}).json()
    load_skill = next(t for t in full["tools"] if t["function"]["name"] == "load_skill")
    print("\n### load_skill description, as text\n" + load_skill["function"]["description"])
    call = {"name": "cancel_order", "arguments": {"order_no": "88239"}}
    show("check-call, round 1", post("/api/v1/runtime/check-call", {"messages": [USER], "call": call}))
    show(
        "check-call, after the manual is loaded",
        post("/api/v1/runtime/check-call", {"messages": messages_2, "call": call}),
    )
    bad = {"name": "cancel_order", "arguments": {"order_no": 88239}}
    show("check-call, bad arguments", post("/api/v1/runtime/check-call", {"messages": messages_2, "call": bad}))
    show(
        "check-call, unknown tool",
        post("/api/v1/runtime/check-call", {"messages": [USER], "call": {"name": "refund_all", "arguments": {}}}),
    )
    show("error: tools_format", post("/api/v1/runtime/rounds", {"messages": [USER], "tools_format": "xml"}))
    show("error: messages", post("/api/v1/runtime/rounds", {"messages": [{"role": "robot", "content": "hi"}]}))
    show("error: unknown skill", client.get("/api/v1/runtime/skills/refund"))
    show("error: malformed code", client.get("/api/v1/runtime/skills/Order%20Change"))
    show("error: no token", APIClient().get("/api/v1/runtime/catalog"))

    # POST runtime/reports: round 1 of cancel-iphone, its refused call and a heartbeat, as the
    # runtime reports them (times a minute ago, in the runtime's own offset)
    from datetime import UTC, datetime, timedelta, timezone

    sha256 = r["ETag"].strip('"')
    when = (datetime.now(UTC) - timedelta(minutes=1)).astimezone(timezone(timedelta(hours=8)))
    at = lambda s: (when + timedelta(seconds=s)).isoformat(timespec="seconds")  # noqa: E731
    common = {"instance": "ragent-7f9c:worker-2", "release": 1, "sha256": sha256, "conversation": "c-5f2a91"}
    batch = {
        "records": [
            {"id": "0f7c2d6e-r1", "kind": "round", "at": at(0), **common, "label": "production", "round": 1,
             "loaded": [], "masked": list(round_1_masked := post("/api/v1/runtime/rounds", round_1).json()["masked"]),
             "withheld": 0, "tools_chars": 4014, "warnings": []},
            {"id": "0f7c2d6e-c1", "kind": "call", "at": at(2), **common, "round": 1, "tool": "cancel_order",
             "verdict": "refused", "reason": "masked", "skill_code": round_1_masked["cancel_order"]},
            {"id": "0f7c2d6e-h1", "kind": "heartbeat", "at": at(3), "instance": common["instance"],
             "client_version": "skill-console-client/0.1.0", "stale": False, "release": 1, "sha256": sha256,
             "label": "production", "refresh": "not_modified"},
        ]
    }  # fmt: skip
    show("reports, a batch", post("/api/v1/runtime/reports", batch), batch)
    show("reports, the same batch again", post("/api/v1/runtime/reports", batch))
    unknown = {"records": [{**batch["records"][1], "id": "0f7c2d6e-c2", "tool": "refund_all", "reason": "unknown_tool",
                            "skill_code": None}]}  # fmt: skip
    show("reports, a tool the console does not know", post("/api/v1/runtime/reports", unknown), unknown)
    bad = {"records": [batch["records"][0], batch["records"][1], {**batch["records"][2], "id": "x", "stale": "no"}]}
    show("error: reports, a bad record", post("/api/v1/runtime/reports", bad))


if __name__ == "__main__":
    main()
