"""Demo catalogs shipped in ``skills_app/demo/<name>/`` (bitmall from seed 000, returns from seed 004).

``demo_load`` writes one through the same services the editor uses, in one transaction, and is
idempotent: running it twice leaves the same rows (skill versions only move when text changed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import connection, transaction
from django.utils import timezone

from skills_app.catalog import services as catalog_services
from skills_app.core.private import private_dir, write_private
from skills_app.mcp import services as mcp_services
from skills_app.models import AccessProfile, ConsoleSettings, IntentNode, McpTool, Scenario, Skill, Stage
from skills_app.simulation import services as simulation_services

DEMO_DIR = Path(__file__).resolve().parent.parent / "demo"
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
    skipped: bool = False
    backup: Path | None = None


def demo_names() -> list[str]:
    """Names of the demo catalogs on disk."""
    return sorted(p.name for p in DEMO_DIR.iterdir() if (p / "catalog.yaml").is_file())


def _read_text(path: Path, what: str = "file") -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DemoError(f"{path}: {what} not found") from None


_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_yaml(path: Path, text: str | None = None) -> Any:
    """The YAML of ``path`` (``text`` when the caller already read it); errors name file and line."""
    try:
        # libyaml's safe loader when PyYAML has it (the demo YAML is ~10× faster to read), else Python's.
        return yaml.load(_read_text(path) if text is None else text, Loader=_SAFE_LOADER)  # noqa: S506 — a safe loader
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
            node = catalog_services.intent_node_save(
                intent_code=item["code"],
                name=item["name"],
                kind=item.get("kind", "SYSTEM"),
                parent=parent,
                mcp_tool_id=item.get("mcp_tool_id", ""),
                require_confirm=bool(item.get("require_confirm", False)),
                description=item.get("description", ""),
                examples=item.get("examples", []),
                sort_order=order * 10,
                enabled=item.get("enabled", True),
            )
            created += 1
        codes.append(node.intent_code)
        created += _walk_nodes(item.get("children", []), node, codes)
    return created


def _staff_built() -> bool:
    """True when skills or intent nodes exist that no demo put there (no demo name recorded)."""
    return Skill.objects.exists() or IntentNode.objects.exists()


def _holds_other_data(name: str) -> str | None:
    """Why loading demo ``name`` would mix catalogs, or ``None`` when it is safe."""
    current = ConsoleSettings.current().catalog_name
    if current == name:
        return None
    if current:
        return f"the database holds the '{current}' demo catalog"
    if _staff_built():
        return "the database holds a catalog that staff built"
    return None


#: The catalog's tables, in an order that lets a backup be loaded back (parents first).
CATALOG_MODELS = (McpTool, IntentNode, Skill, AccessProfile, Stage, Scenario)


def catalog_backup(*, directory: Path, label: str) -> Path:
    """Write every catalog record (soft-deleted skills included) and the settings row to
    ``directory/<UTC time>-<label>.json`` with Django's JSON serializer; return the path. The file
    is read back by ``catalog_restore`` (``manage.py restore_catalog FILE``)."""
    private_dir(directory)
    stamp = timezone.now().strftime("%Y%m%dT%H%M%S%fZ")
    path = directory / f"{stamp}-{label or 'catalog'}.json"
    objects: list[Any] = []
    for model in CATALOG_MODELS:
        qs = model.objects.all()
        if model is IntentNode:
            qs = qs.order_by("level", "pk")
        objects.extend(qs)
    objects.extend(ConsoleSettings.objects.all())
    write_private(path, serializers.serialize("json", objects, indent=1, ensure_ascii=False))  # 0600
    return path


def catalog_counts() -> dict[str, int]:
    """How many records of each catalog table exist (skills counted with the soft-deleted)."""
    return {model._meta.verbose_name_plural.__str__(): model.objects.count() for model in CATALOG_MODELS}


def _catalog_clear() -> None:
    Scenario.objects.all().delete()
    AccessProfile.objects.all().delete()
    Stage.objects.all().delete()
    Skill.objects.all().delete()
    for level in (2, 1, 0):  # children before parents (PROTECT on parent)
        IntentNode.objects.filter(level=level).delete()
    McpTool.objects.all().delete()


@transaction.atomic
def catalog_restore(*, path: Path, backup_dir: Path) -> Path:
    """Replace the catalog with the one saved in ``path`` by ``catalog_backup``, after backing up
    the current one to ``backup_dir`` (returned). All or nothing; raises ``DemoError`` naming the
    file and the cause when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError) as exc:
        raise DemoError(f"{path}: cannot read the backup ({exc.__class__.__name__})") from None
    allowed = {m._meta.label_lower for m in CATALOG_MODELS} | {ConsoleSettings._meta.label_lower}
    objects = _backup_records(path, text, allowed)
    if not any(isinstance(o.object, (Skill, IntentNode)) for o in objects):
        raise DemoError(f"{path}: holds no skills and no intent nodes; the catalog was left as it is")
    saved = catalog_backup(directory=backup_dir, label=f"before-restore-{ConsoleSettings.current().catalog_name}")
    _catalog_clear()
    ConsoleSettings.objects.all().delete()
    users = set(get_user_model().objects.values_list("pk", flat=True))
    for obj in objects:
        if isinstance(obj.object, Skill) and obj.object.updated_by_id not in users:
            obj.object.updated_by_id = None  # the editor's account does not exist on this database
        obj.save()
    _reset_sequences()
    return saved


def _backup_records(path: Path, text: str, allowed: set[str]) -> list[Any]:
    """The deserialized records of a backup's ``text``, checked before any is saved; raises
    ``DemoError`` naming the file and the cause in words — the line and column of a JSON error, the
    number of a record that is not one, the models a foreign file holds — never the deserializer's
    internals (issue 29: "string indices must be integers")."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DemoError(f"{path}: line {exc.lineno}, column {exc.colno}: not JSON ({exc.msg})") from None
    if not isinstance(data, list):
        kind = "an object" if isinstance(data, dict) else f"a {type(data).__name__}"
        raise DemoError(
            f"{path}: not a catalog backup: the file holds {kind}, not the list of records "
            "that load_demo --replace writes"
        )
    for number, record in enumerate(data, start=1):
        if not (
            isinstance(record, dict) and isinstance(record.get("model"), str) and isinstance(record.get("fields"), dict)
        ):
            raise DemoError(
                f'{path}: not a catalog backup: record {number} is not a saved record (an object with "model", "pk" and "fields")'
            )
    foreign = sorted({record["model"].lower() for record in data} - allowed)
    if foreign:
        raise DemoError(f"{path}: not a catalog backup (holds {', '.join(foreign)})")
    objects: list[Any] = []
    for number, record in enumerate(data, start=1):
        try:
            objects.extend(serializers.deserialize("python", [record]))
        except Exception as exc:  # DeserializationError wrapping a field's ValidationError, …
            cause = (str(exc).splitlines() or [exc.__class__.__name__])[0]
            raise DemoError(
                f"{path}: record {number} ({record['model']} {record.get('pk')!r}) cannot be read: {cause}"
            ) from None
    return objects


def _reset_sequences() -> None:
    """After rows were saved with explicit ids, move PostgreSQL's id sequences past them (what
    ``loaddata`` does); a no-op on SQLite."""
    statements = connection.ops.sequence_reset_sql(no_style(), [*CATALOG_MODELS, ConsoleSettings])
    if statements:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)


@transaction.atomic
def demo_load(*, name: str | None = None, replace: bool = False, backup_dir: Path | None = None) -> DemoSummary:
    """Load demo catalog ``name`` (idempotent, all or nothing).

    ``name=None`` tops up the demo the database already holds (or loads ``bitmall`` into an empty
    one; a catalog staff built is left alone: ``summary.skipped``). Records that already exist are
    left exactly as staff edited them; only missing ones are created, and a demo skill staff
    deleted is not resurrected. When the database holds another catalog, loading is refused unless
    ``replace`` is true: then the whole catalog is first written to a backup file in
    ``backup_dir`` (``summary.backup``; ``catalog_restore`` reads it back) and removed. Raises
    ``DemoError`` naming the file and cause, or the service's ``ValidationError``.
    """
    current = ConsoleSettings.current().catalog_name
    if name is None:
        if current:
            name = current
        elif _staff_built():
            return DemoSummary(name="", skipped=True)
        else:
            name = DEFAULT_DEMO
    if name not in demo_names():
        raise DemoError(f"unknown demo catalog '{name}'; demo catalogs: {', '.join(demo_names())}")
    root = DEMO_DIR / name
    catalog = _read_yaml(root / "catalog.yaml")
    summary = DemoSummary(name=name)
    conflict = _holds_other_data(name)
    if conflict and not replace:
        raise DemoError(
            f"{conflict}; run again with --replace to switch to '{name}' "
            f"(the current catalog is saved to a backup file first)"
        )
    if conflict:
        if backup_dir is None:
            raise DemoError("replacing a catalog needs a backup directory")
        summary.replaced = True
        summary.backup = catalog_backup(directory=backup_dir, label=current or "custom")
        _catalog_clear()

    catalog_services.builtin_tools_ensure()
    tool_names = [t["name"] for t in catalog.get("tools", [])]
    for tool in catalog.get("tools", []):
        if McpTool.objects.filter(name=tool["name"]).exists():
            continue
        try:  # the tool-definition rule (domain.tooldefs) runs in the service
            mcp_services.mcp_tool_save(
                name=tool["name"],
                title=tool.get("title", ""),
                description=tool.get("description", ""),
                input_schema=tool.get("inputSchema") or {"type": "object"},
                annotations=tool.get("annotations") or {},
                server=f"demo:{name}",
            )
        except ValidationError as exc:
            raise DemoError(f"{root / 'catalog.yaml'}: tool {tool['name']}: {'; '.join(exc.messages)}") from None
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
            "name": spec["name"],
            "description": spec["description"],
            "content": content,
            "tool_ids": spec.get("tool_ids", []),
            "sort_order": spec.get("sort_order", 0),
            "enabled": spec.get("enabled", True),
        }
        summary.skills += 1
        if Skill.objects.live().filter(skill_code=spec["code"]).exists():
            continue  # staff may have edited it: never overwrite
        if not summary.replaced and Skill.objects.filter(skill_code=spec["code"]).exists():
            continue  # staff deleted it: a re-run does not resurrect it (restore is explicit)
        try:
            catalog_services.skill_create(skill_code=spec["code"], **fields)
        except ValidationError as exc:
            raise DemoError(f"{root / 'catalog.yaml'}: skill {spec['code']}: {'; '.join(exc.messages)}") from None

    for spec in catalog.get("profiles", []):
        if not AccessProfile.objects.filter(name=spec["name"]).exists():
            catalog_services.access_profile_save(
                name=spec["name"], description=spec.get("description", ""), tools=spec["tools"]
            )
        summary.profiles += 1
    for spec in catalog.get("stages", []):
        if not Stage.objects.filter(name=spec["name"]).exists():
            catalog_services.stage_save(name=spec["name"], description=spec.get("description", ""), tools=spec["tools"])
        summary.stages += 1

    for rel in catalog.get("scenarios", []):
        path = root / rel
        text = _read_text(path, "scenario file")
        meta = _read_yaml(path, text)
        if not isinstance(meta, dict):
            raise DemoError(f"{path}: a scenario file is a mapping with name and steps")
        summary.scenarios.append(meta.get("name", path.stem))
        if Scenario.objects.filter(name=meta.get("name", path.stem)).exists():
            continue
        desc = meta.get("description", "")
        desc_en = ""
        if isinstance(desc, dict):
            desc, desc_en = desc.get("zh") or desc.get("en") or "", desc.get("en") or ""
        try:
            simulation_services.scenario_save(
                name=meta.get("name", path.stem),
                script=text,
                description=str(desc)[:512],
                description_en=str(desc_en)[:512],
                catalog=name,
            )
        except ValidationError as exc:
            raise DemoError(f"{path}: {'; '.join(exc.messages)}") from None

    settings = ConsoleSettings.load()
    settings.catalog_name = name
    settings.save()
    return summary
