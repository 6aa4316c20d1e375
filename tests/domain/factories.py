"""Small hand-built domain catalogs and message builders for the library tests (no database).

The shop below is deliberately tiny so that every expected list in a test can be read off it:

* builtins ``search_knowledge``, ``load_skill``, ``flush_memory``;
* MCP tools, in registration order: ``lookup`` (free, needs ``q``), ``refund`` (confirm),
  ``cancel`` (confirm, needs ``order_no``), ``ship``, ``export``;
* skills ``alpha`` (sort 10) → [refund, cancel] and ``beta`` (sort 20) → [cancel, ship];
  ``cancel`` is gated by both.
"""

from __future__ import annotations

import json
from typing import Any

from skill_rule import BUILTIN, MCP, Catalog, Restriction, Skill, Tool
from skill_rule.limits import DEFAULT_EVICTION_PREFIX, DEFAULT_MARKER_KEY
from skill_rule.manuals import digest

MARKER = DEFAULT_MARKER_KEY
EVICTED_PREFIX = DEFAULT_EVICTION_PREFIX
BUILTINS = ("search_knowledge", "load_skill", "flush_memory")
MCP_TOOLS = ("lookup", "refund", "cancel", "ship", "export")

_OBJECT = {"type": "object", "additionalProperties": False}


def builtin_tools() -> tuple[Tool, ...]:
    return (
        Tool(
            "search_knowledge",
            BUILTIN,
            input_schema={**_OBJECT, "properties": {"query": {"type": "string"}}, "required": ["query"]},
        ),
        Tool(
            "load_skill",
            BUILTIN,
            input_schema={**_OBJECT, "properties": {"skill_code": {"type": "string"}}, "required": ["skill_code"]},
        ),
        Tool("flush_memory", BUILTIN, input_schema=dict(_OBJECT, properties={})),
    )


def mcp_tools() -> tuple[Tool, ...]:
    return (
        Tool(
            "lookup",
            MCP,
            input_schema={**_OBJECT, "properties": {"q": {"type": "string", "minLength": 1}}, "required": ["q"]},
        ),
        Tool("refund", MCP, require_confirm=True),
        Tool(
            "cancel",
            MCP,
            require_confirm=True,
            input_schema={
                **_OBJECT,
                "properties": {"order_no": {"type": "string", "pattern": "^[0-9]+$"}},
                "required": ["order_no"],
            },
        ),
        Tool("ship", MCP),
        Tool("export", MCP),
    )


def manual(code: str, version: int = 1) -> str:
    """The default manual of skill ``code`` at ``version`` (``skill``): ``# alpha manual`` for
    version 1, ``# alpha manual v3`` for version 3 — what ``loaded`` returns by default, so a
    loaded result holds the whole published manual of that version (docs/transcripts.md)."""
    return f"# {code} manual" if version == 1 else f"# {code} manual v{version}"


def skill(
    code: str,
    tool_ids: tuple[str, ...] = (),
    *,
    sort_order: int = 0,
    enabled: bool = True,
    version: int = 1,
    content: str | None = None,
) -> Skill:
    return Skill(
        code=code,
        name=code.title(),
        description=f"load for {code}",
        content=content if content is not None else manual(code, version),
        tool_ids=tuple(tool_ids),
        sort_order=sort_order,
        enabled=enabled,
        version=version,
    )


def earlier_manuals(skills: tuple[Skill, ...]) -> dict[str, tuple]:
    """The earlier published manuals of each skill at version > 1: the default manuals of its
    versions 1 … version − 1 (as if each had been published), for ``Catalog.earlier_manuals``."""
    return {s.code: tuple(digest(manual(s.code, v), v) for v in range(1, s.version)) for s in skills if s.version > 1}


ALPHA = skill("alpha", ("refund", "cancel"), sort_order=10)
BETA = skill("beta", ("cancel", "ship"), sort_order=20)


def shop(
    *skills: Skill, profiles: dict[str, set[str]] | None = None, stages: dict[str, set[str]] | None = None
) -> Catalog:
    """The tiny shop with the given skills (default: alpha and beta)."""
    skills = skills if skills else (ALPHA, BETA)
    return Catalog(
        tools=builtin_tools() + mcp_tools(),
        skills=skills,
        earlier_manuals=earlier_manuals(skills),
        profiles={n: Restriction(n, frozenset(t)) for n, t in (profiles or {}).items()},
        stages={n: Restriction(n, frozenset(t)) for n, t in (stages or {}).items()},
    )


# --- messages -------------------------------------------------------------------------------


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str = "", *calls: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        out["tool_calls"] = list(calls)
    return out


def call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def tool_result(call_id: str, content: str, *, state: str = "success", **metadata: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": content, "state": state}
    if metadata:
        out["metadata"] = metadata
    return out


def loaded(
    code: str,
    *,
    call_id: str | None = None,
    version: int = 1,
    state: str = "success",
    content: str | None = None,
    **extra_meta: Any,
) -> list[dict[str, Any]]:
    """An assistant ``load_skill`` call and its full result carrying the marker."""
    cid = call_id or f"load_{code}"
    meta = {MARKER: code, "skill_version": version, **extra_meta}
    return [
        assistant("", call("load_skill", cid, skill_code=code)),
        tool_result(cid, content if content is not None else manual(code, version), state=state, **meta),
    ]


def openai_load(code: str, call_id: str, *, content: str | None = None) -> list[dict[str, Any]]:
    """An OpenAI chat-format ``load_skill`` call (arguments as a JSON string) and its bare result."""
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": "load_skill", "arguments": json.dumps({"skill_code": code})},
                },
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": content if content is not None else manual(code)},
    ]
