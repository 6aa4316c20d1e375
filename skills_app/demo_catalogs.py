"""Demo catalogs shipped in ``skills_app/demo/<name>/`` (bitmall from seed 000, returns from seed 004).

``demo_load`` writes one through the same services the editor uses, in one transaction, and is
idempotent: running it twice leaves the same rows (skill versions only move when text changed).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.core.exceptions import ValidationError
from django.db import transaction

from . import services
from .models import AccessProfile, ConsoleSettings, IntentNode, McpTool, Scenario, Skill, Stage

DEMO_DIR = Path(__file__).resolve().parent / "demo"
DEFAULT_DEMO = "bitmall"


class DemoError(Exception):
    """A demo catalog cannot be loaded; the message names the file (and line) and the cause."""


@dataclass
class DemoSummary:
    """Counts of what ``demo_load`` wrote."""

    name: str
    nodes: int = 0
    tools: int = 0
    skills: int = 0
    profiles: int = 0
    stages: int = 0
    scenarios: list[str] = field(default_factory=list)
    replaced: bool = False


def demo_names() -> list[str]:
    """Names of the demo catalogs on disk."""
    return sorted(p.name for p in DEMO_DIR.iterdir() if (p / "catalog.yaml").is_file())


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DemoError(f"{path}: file not found") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise DemoError(f"{path}{line}: invalid YAML: {getattr(exc, 'problem', exc)}") from None


def _walk_nodes(items: list[dict], parent: IntentNode | None, codes: list[str]) -> int:
    """Create the nodes that are missing (existing ones are left as staff edited them)."""
    created = 0
    for order, item in enumerate(items, start=1):
        node = IntentNode.objects.filter(intent_code=item["code"]).first()
        if node is None:
            node = services.intent_node_save(
                intent_code=item["code"], name=item["name"], kind=item.get("kind", "SYSTEM"), parent=parent,
                mcp_tool_id=item.get("mcp_tool_id", ""), require_confirm=bool(item.get("require_confirm", False)),
                description=item.get("description", ""), examples=item.get("examples", []),
                sort_order=order * 10, enabled=item.get("enabled", True),
            )
            created += 1
        codes.append(node.intent_code)
        created += _walk_nodes(item.get("children", []), node, codes)
    return created


def _holds_other_data(name: str) -> str | None:
    """Why loading demo ``name`` would mix catalogs, or ``None`` when it is safe."""
    current = ConsoleSettings.current().catalog_name
    if current == name:
        return None
    if current:
        return f"the database holds the '{current}' demo catalog"
    if Skill.objects.live().exists() or IntentNode.objects.filter(deleted_at__isnull=True).exists():
        return "the database holds a catalog that staff built"
    return None


@transaction.atomic
def demo_load(*, name: str = DEFAULT_DEMO, replace: bool = False) -> DemoSummary:
    """Load demo catalog ``name`` (idempotent, all or nothing).

    Records that already exist are left exactly as staff edited them; only missing ones are
    created. When the database holds another catalog (another demo, or one staff built), loading is
    refused unless ``replace`` is true; then live skills are soft-deleted (restorable) and intent
    nodes, tool definitions, profiles, stages and scenarios are removed before the demo is written. Raises ``DemoError`` naming the file and cause, or the service's ``ValidationError``.
    """
    if name not in demo_names():
        raise DemoError(f"unknown demo catalog '{name}'; demo catalogs: {', '.join(demo_names())}")
    root = DEMO_DIR / name
    catalog = _read_yaml(root / "catalog.yaml")
    summary = DemoSummary(name=name)
    conflict = _holds_other_data(name)
    if conflict and not replace:
        raise DemoError(
            f"{conflict}; run again with --replace to switch to '{name}' "
            f"(skills are soft-deleted and stay restorable)"
        )
    if conflict:
        summary.replaced = True
        for skill in Skill.objects.live():
            services.skill_delete(skill=skill)
        Scenario.objects.all().delete()
        AccessProfile.objects.all().delete()
        Stage.objects.all().delete()
        for level in (2, 1, 0):  # children before parents (PROTECT on parent)
            IntentNode.objects.filter(level=level).delete()
        McpTool.objects.all().delete()

    services.builtin_tools_ensure()
    tool_names = [t["name"] for t in catalog.get("tools", [])]
    for tool in catalog.get("tools", []):
        if McpTool.objects.filter(name=tool["name"]).exists():
            continue
        services.mcp_tool_save(
            name=tool["name"], title=tool.get("title", ""), description=tool.get("description", ""),
            input_schema=tool.get("inputSchema") or {"type": "object"}, annotations=tool.get("annotations") or {},
            server=f"demo:{name}",
        )
    summary.tools = len(tool_names)
    codes: list[str] = []
    _walk_nodes(catalog.get("nodes", []), None, codes)
    summary.nodes = len(codes)

    for spec in catalog.get("skills", []):
        manual_path = root / spec["manual"]
        try:
            content = manual_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise DemoError(f"{manual_path}: manual file not found (skill {spec['code']})") from None
        fields = {
            "name": spec["name"], "description": spec["description"], "content": content,
            "tool_ids": spec.get("tool_ids", []), "sort_order": spec.get("sort_order", 0),
            "enabled": spec.get("enabled", True),
        }
        summary.skills += 1
        if Skill.objects.live().filter(skill_code=spec["code"]).exists():
            continue  # staff may have edited it: never overwrite
        if not summary.replaced and Skill.objects.filter(skill_code=spec["code"]).exists():
            continue  # staff deleted it: a re-run does not resurrect it (restore is explicit)
        try:
            services.skill_create(skill_code=spec["code"], **fields)
        except ValidationError as exc:
            raise DemoError(f"{root / 'catalog.yaml'}: skill {spec['code']}: {'; '.join(exc.messages)}") from None

    for spec in catalog.get("profiles", []):
        if not AccessProfile.objects.filter(name=spec["name"]).exists():
            services.access_profile_save(name=spec["name"], description=spec.get("description", ""), tools=spec["tools"])
        summary.profiles += 1
    for spec in catalog.get("stages", []):
        if not Stage.objects.filter(name=spec["name"]).exists():
            services.stage_save(name=spec["name"], description=spec.get("description", ""), tools=spec["tools"])
        summary.stages += 1

    for rel in catalog.get("scenarios", []):
        path = root / rel
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise DemoError(f"{path}: scenario file not found") from None
        meta = _read_yaml(path)
        if not isinstance(meta, dict):
            raise DemoError(f"{path}: a scenario file is a mapping with name and steps")
        summary.scenarios.append(meta.get("name", path.stem))
        if Scenario.objects.filter(name=meta.get("name", path.stem)).exists():
            continue
        desc = meta.get("description", "")
        if isinstance(desc, dict):
            desc = desc.get("zh") or desc.get("en") or ""
        try:
            services.scenario_save(name=meta.get("name", path.stem), script=text, description=str(desc)[:512],
                                   catalog=name)
        except ValidationError as exc:
            raise DemoError(f"{path}: {'; '.join(exc.messages)}") from None

    settings = ConsoleSettings.load()
    settings.catalog_name = name
    settings.save()
    return summary
