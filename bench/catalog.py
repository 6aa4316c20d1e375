"""The large catalog of ``make bench`` (docs/benchmarks.md): the bitmall demo topped up to
``SKILLS`` skills and ``TOOLS`` MCP tools.

The generated part is plain data (``generated_spec``), deterministic (no randomness), so every run
measures the same catalog:

- ``TOOLS`` minus the demo's tools MCP tools ``bench_t0000`` … on an intent tree of 10 domains ×
  10 categories × topics (one MCP leaf per tool), each with a small ``inputSchema`` of its own (two
  properties, one an enum; the text differs per tool) and ``readOnlyHint`` on every other tool;
- ``SKILLS`` minus the demo's skills skills ``bench_s000`` …, each gating 4 of those tools (a tool
  is gated by one skill at most), with a manual of about 1,500 characters that names its tools
  and two tools of the neighbouring skill.

``domain_catalog()`` is the same catalog as a ``skill_rule.Catalog`` in memory (what the
test checks); ``build(path_kind)`` writes the demo or the large catalog into the database Django is
configured with, publishes it as a release and makes a runtime API key and a publisher.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

SKILLS = 500
TOOLS = 2000
DOMAINS = 10
CATEGORIES = 10
TOOLS_PER_SKILL = 4
DEMO = "bitmall"
DEMO_DIR = Path(__file__).resolve().parent.parent / "skills_app" / "demo" / DEMO
#: The console user the page measurements log in as (publisher) and the runtime key's name.
USER = "bench"
KEY_NAME = "bench"


def demo_yaml() -> dict[str, Any]:
    """The bitmall demo's ``catalog.yaml`` as data."""
    return yaml.safe_load((DEMO_DIR / "catalog.yaml").read_text(encoding="utf-8"))


def tool_name(i: int) -> str:
    return f"bench_t{i:04d}"


def skill_code(i: int) -> str:
    return f"bench_s{i:03d}"


def _tool(i: int) -> dict[str, Any]:
    return {
        "name": tool_name(i),
        "title": f"基准工具 {i}",
        "description": f"基准目录的第 {i} 个工具：按编号查询或处理一条业务记录，返回处理结果。",
        "inputSchema": {
            "type": "object",
            "properties": {
                # each tool's schema differs (as real servers' do): a cache keyed by schema text
                # must not make 2,000 tools cost as much as one
                "record_no": {"type": "string", "description": f"第 {i} 类业务的记录编号", "pattern": "^[0-9]{4,20}$"},
                "mode": {"type": "string", "description": "处理方式", "enum": ["查询", "更新", "撤销"]},
            },
            "required": ["record_no"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": i % 2 == 0, "destructiveHint": False},
    }


def _manual(i: int, tools: list[str], neighbour: list[str]) -> str:
    steps = "\n".join(
        f"{n}. 调用 `{t}` 前先向用户确认记录编号；`{t}` 返回失败时说明原因，不要重复调用。"
        for n, t in enumerate(tools, start=1)
    )
    return (
        f"# 基准技能 {i}\n\n"
        f"本手册处理第 {i} 类业务。先核对用户身份和记录编号，再按下面的步骤处理。\n\n"
        f"## 步骤\n\n{steps}\n\n"
        f"## 注意事项\n\n"
        + "- 金额、地址和联系方式以系统返回为准，不要凭记忆回答。\n" * 8
        + f"- 与相邻业务有关时，可以提示用户加载对应手册后使用 `{neighbour[0]}` 或 `{neighbour[1]}`。\n"
        + "\n## 话术\n\n"
        + "处理完成后，用一句话复述结果并询问用户是否还有其他问题。\n" * 6
    )


def generated_spec(demo: dict[str, Any] | None = None) -> dict[str, Any]:
    """The generated part of the large catalog, topping the demo up to ``SKILLS`` / ``TOOLS``.

    Returns ``{"tools": [tool dict as in catalog.yaml], "domains": [{"code", "name",
    "categories": [{"code", "name", "tools": [names]}]}], "skills": [{"code", "name",
    "description", "content", "tool_ids", "sort_order"}]}``.
    """
    demo = demo if demo is not None else demo_yaml()
    n_tools = TOOLS - len(demo.get("tools", []))
    n_skills = SKILLS - len(demo.get("skills", []))
    if n_skills * TOOLS_PER_SKILL > n_tools:
        raise ValueError("not enough generated tools for the generated skills")
    tools = [_tool(i) for i in range(n_tools)]
    names = [t["name"] for t in tools]
    per_category = -(-n_tools // (DOMAINS * CATEGORIES))  # ceiling
    domains = []
    for d in range(DOMAINS):
        categories = []
        for c in range(CATEGORIES):
            start = (d * CATEGORIES + c) * per_category
            chunk = names[start : start + per_category]
            if chunk:
                categories.append({"code": f"bench_d{d}_c{c}", "name": f"基准类别 {d}-{c}", "tools": chunk})
        domains.append({"code": f"bench_d{d}", "name": f"基准领域 {d}", "categories": categories})
    skills = []
    for i in range(n_skills):
        own = names[i * TOOLS_PER_SKILL : (i + 1) * TOOLS_PER_SKILL]
        j = (i + 1) % n_skills
        neighbour = names[j * TOOLS_PER_SKILL : j * TOOLS_PER_SKILL + 2]
        skills.append(
            {
                "code": skill_code(i),
                "name": f"基准技能 {i}",
                "description": f"用户要办理第 {i} 类业务（记录查询、更新或撤销）时加载：核对编号后按步骤处理。",
                "content": _manual(i, own, neighbour),
                "tool_ids": own,
                "sort_order": 1000 + i,
            }
        )
    return {"tools": tools, "domains": domains, "skills": skills}


def domain_catalog():
    """The large catalog as a ``skill_rule.Catalog`` (no database): builtins, the demo's
    MCP tools in its intent-tree order then the generated ones, the demo's skills (manuals read
    from their files) and the generated ones."""
    from skill_rule import BUILTIN, MCP, Catalog, Skill, Tool
    from skill_rule.limits import BUILTIN_TOOL_NAMES

    demo = demo_yaml()
    spec = generated_spec(demo)
    defs = {t["name"]: t for t in demo.get("tools", []) + spec["tools"]}

    def leaves(items):
        for item in items:
            if item.get("kind") == "MCP" and item.get("mcp_tool_id"):
                yield item["mcp_tool_id"]
            yield from leaves(item.get("children", []))

    order = list(leaves(demo.get("nodes", []))) + [
        t for d in spec["domains"] for c in d["categories"] for t in c["tools"]
    ]
    tools = [Tool(name=n, kind=BUILTIN, input_schema={"type": "object"}) for n in BUILTIN_TOOL_NAMES]
    tools += [
        Tool(
            name=n,
            kind=MCP,
            title=defs[n].get("title", ""),
            description=defs[n].get("description", ""),
            input_schema=defs[n].get("inputSchema") or {"type": "object"},
            annotations=defs[n].get("annotations") or {},
        )
        for n in order
    ]
    skills = [
        Skill(
            code=s["code"],
            name=s["name"],
            description=s["description"],
            content=(DEMO_DIR / s["manual"]).read_text(encoding="utf-8"),
            tool_ids=tuple(s.get("tool_ids", [])),
            sort_order=s.get("sort_order", 0),
            enabled=s.get("enabled", True),
        )
        for s in demo.get("skills", [])
    ]
    skills += [
        Skill(
            code=s["code"],
            name=s["name"],
            description=s["description"],
            content=s["content"],
            tool_ids=tuple(s["tool_ids"]),
            sort_order=s["sort_order"],
        )
        for s in spec["skills"]
    ]
    return Catalog(tools=tuple(tools), skills=tuple(skills))


def _add_generated(spec: dict[str, Any]) -> None:
    """Write the generated tools, intent nodes and skills (bulk inserts with their history rows)."""
    from simple_history.utils import bulk_create_with_history

    from skills_app.models import IntentNode, McpTool, Skill

    bulk_create_with_history(
        [
            McpTool(
                name=t["name"],
                title=t["title"],
                description=t["description"],
                input_schema=t["inputSchema"],
                annotations=t["annotations"],
                server="bench",
            )
            for t in spec["tools"]
        ],
        McpTool,
        batch_size=500,
    )
    domains = bulk_create_with_history(
        [
            IntentNode(
                intent_code=d["code"],
                name=d["name"],
                level=0,
                kind="SYSTEM",
                sort_order=1000 + n * 10,
                description=f"{d['name']}的全部诉求。",
            )
            for n, d in enumerate(spec["domains"])
        ],
        IntentNode,
    )
    by_code = {n.intent_code: n for n in IntentNode.objects.filter(intent_code__in=[d.intent_code for d in domains])}
    categories = []
    for d in spec["domains"]:
        for n, c in enumerate(d["categories"]):
            categories.append(
                IntentNode(
                    intent_code=c["code"],
                    name=c["name"],
                    level=1,
                    kind="SYSTEM",
                    parent=by_code[d["code"]],
                    sort_order=(n + 1) * 10,
                    description=f"{c['name']}的诉求。",
                )
            )
    bulk_create_with_history(categories, IntentNode, batch_size=500)
    by_code = {n.intent_code: n for n in IntentNode.objects.filter(level=1, intent_code__startswith="bench_")}
    topics = []
    for d in spec["domains"]:
        for c in d["categories"]:
            for n, t in enumerate(c["tools"]):
                topics.append(
                    IntentNode(
                        intent_code=f"{t}_topic",
                        name=f"主题 {t}",
                        level=2,
                        kind="MCP",
                        mcp_tool_id=t,
                        parent=by_code[c["code"]],
                        sort_order=(n + 1) * 10,
                        require_confirm=int(t[-4:]) % 4 == 1,
                        description=f"用 {t} 处理一条记录。",
                        examples=[f"帮我处理记录 {t[-4:]}"],
                    )
                )
    bulk_create_with_history(topics, IntentNode, batch_size=500)
    bulk_create_with_history(
        [
            Skill(
                skill_code=s["code"],
                name=s["name"],
                description=s["description"],
                content=s["content"],
                tool_ids=s["tool_ids"],
                sort_order=s["sort_order"],
            )
            for s in spec["skills"]
        ],
        Skill,
        batch_size=500,
    )


def build(kind: str) -> str:
    """Fill the (migrated, empty) database: the bitmall demo, and for ``kind == "large"`` the
    generated part; then publish release 1 labelled ``production``, make the publisher ``USER``
    and a runtime API key. Returns the key (the caller stores it)."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from skills_app.catalog import draft_cache
    from skills_app.catalog.demo import demo_load
    from skills_app.core import roles
    from skills_app.keys import services as keys_services
    from skills_app.releases import services as releases_services

    demo_load(name=DEMO)
    if kind == "large":
        with transaction.atomic():
            _add_generated(generated_spec())
            # bulk_create sends no post_save: renew the draft catalog's token by hand (draft_cache.py)
            draft_cache.draft_changed(None)
    user = get_user_model().objects.create_user(username=USER, password="bench-pass-123")
    roles.assign(user, roles.PUBLISHER)
    note = f"make bench: {kind} catalog"
    try:
        releases_services.release_publish(
            user=releases_services.COMMAND_LINE, note=note, move_labels=[releases_services.PRODUCTION]
        )
    except releases_services.PublishRefused as refused:
        # The demo's scenario expects the demo's 11 tools; the generated gated tools add masked
        # ones. Those expectations are ticked off (any other reason still refuses).
        keys = [r.key for r in refused.reasons if r.overridable]
        releases_services.release_publish(
            user=releases_services.COMMAND_LINE,
            note=note,
            move_labels=[releases_services.PRODUCTION],
            overrides=keys,
            override_note="the bench catalog adds gated tools",
        )
    return keys_services.api_key_create(user=releases_services.COMMAND_LINE, name=KEY_NAME).key
