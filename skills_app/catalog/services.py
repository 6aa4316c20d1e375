"""Writes of the draft catalog: skills (create, update, revert, enable, delete, restore),
restrictions (access profiles, stages), the intent tree and the ``load_skill`` header.

One function per action, keyword-only, atomic (``@transaction.atomic``), validated in full before
anything is saved (HackSoft Django-Styleguide). The editor, the API, the demo loader, the import and
the CLI all call these, so a rule lives in one place; a refusal is a ``ValidationError`` whose
messages carry a code (``core.writes.problem``) and nothing is saved."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from skill_rule.errors import SkillValidationError
from skill_rule.validation import clean_skill, normalize_tool_ids
from skills_app.catalog.selectors import mcp_nodes, mcp_tool_names, tool_registry
from skills_app.core.writes import problem, save_new
from skills_app.models import (
    AccessProfile,
    BuiltinTool,
    ConsoleSettings,
    IntentNode,
    Skill,
    Stage,
)

#: The builtin tools of docs/design.md in registration order: (name, description, parameters).
BUILTIN_TOOLS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (
        "search_knowledge",
        "检索知识库，返回与问题最相关的条目。",
        {
            "type": "object",
            "properties": {"query": {"type": "string", "minLength": 1}},
            "required": ["query"],
            "additionalProperties": False,
        },
    ),
    (
        "load_skill",
        "加载一份技能手册；手册在上下文中时，它所门控的工具才会提供给模型。",
        {
            "type": "object",
            "properties": {"skill_code": {"type": "string"}},
            "required": ["skill_code"],
            "additionalProperties": False,
        },
    ),
    (
        "flush_memory",
        "把当前对话要点写入长期记忆并清理上下文。",
        {"type": "object", "properties": {}, "additionalProperties": False},
    ),
)


def _django_error(exc: SkillValidationError) -> ValidationError:
    return ValidationError(
        {
            field: [problem(p.code, p.template, **dict(p.params)) for p in problems]
            for field, problems in exc.problems.items()
        }
    )


def builtin_tools_ensure() -> list[BuiltinTool]:
    """Create the three builtin tools if missing (idempotent); returns them in order."""
    out = []
    for order, (name, description, params) in enumerate(BUILTIN_TOOLS, start=1):
        obj, _ = BuiltinTool.objects.update_or_create(
            name=name, defaults={"description": description, "parameters": params, "sort_order": order}
        )
        out.append(obj)
    return out


def _code_taken(code: str) -> ValidationError:
    return ValidationError(
        {"skill_code": [problem("skill_code_taken", "a live skill with code '%(code)s' already exists.", code=code)]}
    )


def _check_code_free(code: str) -> None:
    """Refuse ``code`` when a live skill holds it (a deleted one never does: ``live()``)."""
    if Skill.objects.live().filter(skill_code=code).exists():
        raise _code_taken(code)


@transaction.atomic
def skill_create(
    *,
    skill_code: str,
    name: str,
    description: str,
    content: str,
    tool_ids: Iterable[str] | str | None = (),
    sort_order: int = 0,
    enabled: bool = True,
    user: Any = None,
) -> Skill:
    """Create a skill (docs/design.md). Raises ``django.core.exceptions.ValidationError`` mapping each
    bad field to messages that name the value (e.g. ``'load_skill' is a builtin tool …``, or a code
    that is an MCP tool's name: ``skill_code_tool``); nothing is saved then."""
    try:
        clean = clean_skill(
            skill_code=skill_code,
            name=name,
            description=description,
            content=content,
            tool_ids=tool_ids,
            registry=tool_registry(tool_ids),  # pragma: no mutate
            tool_names=mcp_tool_names([skill_code]),
        )
    except SkillValidationError as exc:
        raise _django_error(exc) from None
    _check_code_free(clean.skill_code)  # pragma: no mutate
    skill = Skill(  # version: the model's default, 1
        skill_code=clean.skill_code,
        name=clean.name,
        description=clean.description,
        content=clean.content,
        tool_ids=list(clean.tool_ids),
        sort_order=sort_order,
        enabled=enabled,
        updated_by=user if getattr(user, "pk", None) else None,
    )
    skill.full_clean(validate_constraints=False)  # pragma: no mutate
    _record_who(skill, user)
    save_new(skill, _code_taken(clean.skill_code))
    return skill


EDITABLE_FIELDS = ("name", "description", "content", "tool_ids", "sort_order", "enabled")


#: The fields whose change makes a new manual version (docs/roles.md "Versions and history"):
#: enabling, disabling or re-ordering a skill is in its history but keeps its version.
VERSIONED_FIELDS = ("name", "description", "content", "tool_ids")


def _record_who(obj: Any, user: Any, reason: str = "") -> None:
    """Tell django-simple-history who made the change (and why) on the record it is about to
    write. A request's user is recorded by its middleware anyway; this covers the CLI and tests."""
    if getattr(user, "pk", None):
        obj._history_user = user
    if reason:
        obj._change_reason = reason


@transaction.atomic
def skill_update(
    *, skill: Skill, user: Any = None, expected_version: int | None = None, reason: str = "", **changes: Any
) -> Skill:
    """Change a skill's editable fields (``skill_code`` is immutable). A save that changes nothing
    writes nothing; ``version`` goes up by one only when name, description, manual or tool_ids
    changed (``VERSIONED_FIELDS``) — enabling, disabling or a new sort order is saved (and in the
    history, with ``reason`` when given) under the same version. ``expected_version`` (the version the editor started from)
    refuses a save over someone else's newer save (code ``skill_stale``). Raises
    ``ValidationError`` (nothing saved) for bad fields, a deleted skill or an attempt to change the
    code."""
    unknown = set(changes) - set(EDITABLE_FIELDS) - {"skill_code"}
    if unknown:
        raise ValidationError({field: [problem("not_editable", "not an editable field.")] for field in sorted(unknown)})
    if "skill_code" in changes and changes["skill_code"] != skill.skill_code:
        raise ValidationError(
            {
                "skill_code": [
                    problem(
                        "skill_code_immutable",
                        "skill code '%(code)s' cannot be changed after creation.",
                        code=skill.skill_code,
                    )
                ]
            }
        )
    locked = Skill.objects.select_for_update().get(pk=skill.pk)
    if expected_version is not None and locked.version != expected_version:
        raise problem(
            "skill_stale",
            "This skill was saved as version %(current)s while you were editing version %(base)s. "
            "Reload the page to see the change, then edit again.",
            current=locked.version,
            base=expected_version,
        )
    if locked.deleted_at is not None:
        raise problem(
            "skill_deleted", "skill '%(code)s' is deleted; restore it before editing.", code=locked.skill_code
        )
    merged = {f: changes.get(f, getattr(locked, f)) for f in EDITABLE_FIELDS}
    try:
        clean = clean_skill(
            skill_code=locked.skill_code,
            name=merged["name"],
            description=merged["description"],
            content=merged["content"],
            tool_ids=merged["tool_ids"],
            registry=tool_registry(merged["tool_ids"]),  # pragma: no mutate
        )
    except SkillValidationError as exc:
        raise _django_error(exc) from None
    new_values = {
        "name": clean.name,
        "description": clean.description,
        "content": clean.content,
        "tool_ids": list(clean.tool_ids),
        "sort_order": int(merged["sort_order"]),
        "enabled": bool(merged["enabled"]),
    }
    changed = [f for f, v in new_values.items() if getattr(locked, f) != v]
    if not changed:
        return locked
    for f, v in new_values.items():
        setattr(locked, f, v)
    if any(f in VERSIONED_FIELDS for f in changed):
        locked.version += 1
    locked.updated_by = user if getattr(user, "pk", None) else None
    locked.full_clean(validate_constraints=False)  # pragma: no mutate
    _record_who(locked, user, reason)
    locked.save()
    return locked


@transaction.atomic
def skill_revert(*, skill: Skill, history_id: int, user: Any = None) -> Skill:
    """Restore an old revision of ``skill`` (a ``Skill.history`` record) as a new change, through
    ``skill_update``: the same validation (a tool no longer registered refuses the restore) and
    the same version rule (a new version when name, description, manual or tool_ids differ).
    The history record says which revision was restored. Raises ``ValidationError``:
    ``revision_not_found`` (not a revision of this skill), ``revision_current`` (the skill already
    holds those values), or the field errors of ``skill_update``."""
    record = Skill.history.filter(id=skill.pk, history_id=history_id).first()
    if record is None:
        raise problem(
            "revision_not_found",
            "revision %(id)s is not a revision of skill '%(code)s'.",
            id=history_id,
            code=skill.skill_code,
        )
    values = {f: getattr(record, f) for f in EDITABLE_FIELDS}
    current = Skill.objects.get(pk=skill.pk)
    if all(getattr(current, f) == v for f, v in values.items()):
        raise problem(
            "revision_current",
            "skill '%(code)s' already holds the values of revision %(id)s.",
            id=history_id,
            code=skill.skill_code,
        )
    return skill_update(
        skill=current, user=user, reason=f"restored revision {history_id} (version {record.version})", **values
    )


@transaction.atomic
def skill_set_enabled(*, skill: Skill, enabled: bool, user: Any = None) -> Skill:
    """Enable or disable a skill. Disabling releases its tools to every conversation (docs/rule.md)."""
    return skill_update(skill=skill, enabled=enabled, user=user)


@transaction.atomic
def skill_delete(*, skill: Skill, user: Any = None) -> Skill:
    """Soft-delete a skill (restorable); its tools are released to every conversation. The version
    stays: it is the manual's (docs/roles.md "Versions and history"), and a deleted skill is in no
    catalog. The history records it as a delete (``history.selectors.revision_action``)."""
    locked = Skill.objects.select_for_update().get(pk=skill.pk)
    if locked.deleted_at is None:
        locked.deleted_at = timezone.now()
        locked.updated_by = user if getattr(user, "pk", None) else None
        _record_who(locked, user)
        locked.save()
    return locked


@transaction.atomic
def skill_restore(*, skill: Skill, user: Any = None) -> Skill:
    """Restore a soft-deleted skill under the version it had (its manual is unchanged). Refused
    (``ValidationError``) when a live skill took its code, an MCP tool now has its name
    (``skill_code_tool``) or its tool_ids no longer validate."""
    locked = Skill.objects.select_for_update().get(pk=skill.pk)
    if locked.deleted_at is None:
        return locked
    _check_code_free(locked.skill_code)  # the skill itself is deleted, so not among the live
    try:
        clean_skill(
            skill_code=locked.skill_code,
            name=locked.name,
            description=locked.description,
            content=locked.content,
            tool_ids=locked.tool_ids,
            registry=tool_registry(locked.tool_ids),  # pragma: no mutate
            tool_names=mcp_tool_names([locked.skill_code]),
        )
    except SkillValidationError as exc:
        raise _django_error(exc) from None
    locked.deleted_at = None
    locked.updated_by = user if getattr(user, "pk", None) else None
    _record_who(locked, user)
    save_new(locked, _code_taken(locked.skill_code))
    return locked


def _restriction_save(model: type, *, name: str, description: str, tools: Iterable[str] | str, create: bool):
    names = normalize_tool_ids(tools)
    registered = {r.tool_id for r in mcp_nodes(include_unavailable=False)}  # pragma: no mutate
    unknown = [t for t in names if t not in registered]
    if unknown:
        raise ValidationError(
            {
                "tools": [
                    problem("tool_not_registered", "'%(tool_id)s' is not a registered MCP tool.", tool_id=t)
                    for t in unknown
                ]
            }
        )
    taken = ValidationError({"name": [problem("restriction_name_taken", "'%(name)s' already exists.", name=name)]})
    existing = model.objects.filter(name=name).first()
    if create and existing is not None:
        raise taken
    obj = existing or model(name=name)
    obj.description, obj.tools = description, list(names)
    obj.full_clean(validate_unique=False)  # pragma: no mutate
    save_new(obj, taken)
    return obj


@transaction.atomic
def access_profile_save(
    *, name: str, description: str = "", tools: Iterable[str] | str = (), create: bool = False
) -> AccessProfile:
    """Create or replace an access profile; every tool must be a registered MCP tool.
    ``create=True`` never replaces: a name that exists, or is created by another request at the same
    moment, is refused (``restriction_name_taken`` on ``name``)."""
    return _restriction_save(AccessProfile, name=name, description=description, tools=tools, create=create)


@transaction.atomic
def stage_save(*, name: str, description: str = "", tools: Iterable[str] | str = (), create: bool = False) -> Stage:
    """Create or replace a task stage; every tool must be a registered MCP tool (``create`` as
    for ``access_profile_save``)."""
    return _restriction_save(Stage, name=name, description=description, tools=tools, create=create)


def intent_node_gating_skills(
    *,
    node: IntentNode,
    enabled: bool = False,
    deleted: bool = False,
    kind: str | None = None,
    mcp_tool_id: str | None = None,
) -> list[str]:
    """Codes of the live, enabled skills that would lose a registered tool if ``node`` became
    ``enabled``/``deleted``/``kind``/``mcp_tool_id`` (docs/mcp.md, "Nodes"): the node registers a
    tool the skills gate and no other MCP node registers it. Empty when nothing would break."""
    old_tool = node.mcp_tool_id.strip()
    if (
        not node.pk
        or not old_tool
        or not node.enabled
        or node.deleted_at is not None
        or node.kind != IntentNode.Kind.MCP
    ):
        return []  # the node registers nothing today (or is not saved yet): changing it breaks nothing
    keeps = (
        enabled
        and not deleted
        and (kind or node.kind) == IntentNode.Kind.MCP
        and (mcp_tool_id if mcp_tool_id is not None else node.mcp_tool_id).strip() == old_tool
    )
    if keeps:
        return []
    if old_tool in _tools_registered_without(node.pk):
        return []
    return [
        s.skill_code
        for s in Skill.objects.live().filter(enabled=True)  # catalog order: Skill.Meta.ordering
        if old_tool in s.tool_ids
    ]


def _tools_registered_without(pk: int) -> set[str]:
    """Tool ids registered by MCP nodes other than node ``pk`` (``selectors.intent_tree_order``)."""
    from skills_app.catalog.selectors import intent_tree_order

    return {
        n.mcp_tool_id.strip()
        for n in intent_tree_order()
        if n.pk != pk and n.kind == IntentNode.Kind.MCP and n.is_leaf and n.mcp_tool_id.strip()
    }


def _refuse_if_gated(node: IntentNode, *, force: bool, **future: Any) -> list[str]:
    skills = intent_node_gating_skills(node=node, **future)
    if skills and not force:
        raise problem(
            "node_gated",
            "intent node '%(code)s' registers tool '%(tool)s', which skills %(skills)s gate; "
            "disabling or deleting it would break them (force it to flag them broken)",
            code=node.intent_code,
            tool=node.mcp_tool_id,
            skills=", ".join(skills),
        )
    return skills


@transaction.atomic
def intent_node_save(
    *,
    intent_code: str,
    name: str,
    kind: str,
    parent: IntentNode | None = None,
    mcp_tool_id: str = "",
    require_confirm: bool = False,
    description: str = "",
    examples: Iterable[str] = (),
    sort_order: int = 0,
    enabled: bool = True,
    force: bool = False,
) -> IntentNode:
    """Create or update an intent node by code; ``level`` follows the parent (0/1/2).

    Disabling a node, or unbinding its tool, when enabled skills gate the tool it alone
    registers is refused (``ValidationError`` code ``node_gated`` naming the skills) unless
    ``force`` — then those skills are broken (docs/mcp.md)."""
    mcp_tool_id = mcp_tool_id or ""  # a form's None: no tool
    node = IntentNode.objects.filter(intent_code=intent_code).first() or IntentNode(intent_code=intent_code)
    if node.pk:
        _refuse_if_gated(node, force=force, enabled=enabled, kind=kind, mcp_tool_id=mcp_tool_id)
    # the level follows the parent in IntentNode.clean (admin forms hit it too), run by full_clean
    # below; the level kept until then (the default, or the stored one) is a valid choice, so a
    # parent that is a topic is refused on the parent alone
    node.name, node.kind, node.parent = name, kind, parent
    node.mcp_tool_id, node.require_confirm = mcp_tool_id, require_confirm
    node.description, node.examples, node.sort_order, node.enabled = description, list(examples), sort_order, enabled
    node.deleted_at = None
    node.full_clean()
    node.save()
    return node


@transaction.atomic
def intent_node_delete(*, node: IntentNode, force: bool = False) -> list[str]:
    """Soft-delete an intent node (and refuse when it has live children). Refused like
    ``intent_node_save`` when enabled skills gate its tool, unless ``force``; returns the codes of
    the skills the deletion broke."""
    if IntentNode.objects.filter(parent=node, deleted_at__isnull=True).exists():
        raise problem(
            "node_has_children", "intent node '%(code)s' has child nodes; delete them first", code=node.intent_code
        )
    broken = _refuse_if_gated(
        node,
        force=force,
        deleted=True,  # pragma: no mutate
    )
    node.deleted_at = timezone.now()
    node.save(update_fields=["deleted_at"])
    return broken


@transaction.atomic
def load_skill_header_set(*, header: str) -> ConsoleSettings:
    """Set the header of the generated ``load_skill`` description (docs/runtime-api.md, "What the
    model sees"). Line endings are normalised to ``\\n`` and trailing blanks of the text stripped.

    Raises ``ValidationError`` on ``load_skill_header`` when the header is blank or longer than
    ``LOAD_SKILL_HEADER_MAX_LENGTH`` characters; nothing is saved then.
    """
    settings = ConsoleSettings.objects.select_for_update().filter(pk=1).first() or ConsoleSettings(pk=1)
    settings.load_skill_header = (header or "").replace("\r\n", "\n").replace("\r", "\n").rstrip()
    settings.full_clean()
    settings.save()
    return settings


@transaction.atomic
def payload_targets_set(*, targets: list[str], budgets: dict[str, int] | None = None) -> ConsoleSettings:
    """Set the provider targets every round's tools payload is checked against and their budgets
    in characters (``skill_rule.providers``, docs/providers.md); both travel in the next release.

    Raises ``ValidationError`` on ``payload_targets`` (empty, an unknown target, one twice) or
    ``payload_budgets`` (an unknown target, a budget that is no whole number from 1 to
    ``providers.MAX_PAYLOAD_BUDGET``); nothing is saved then.
    """
    settings = ConsoleSettings.objects.select_for_update().filter(pk=1).first() or ConsoleSettings(pk=1)
    settings.payload_targets = targets
    settings.payload_budgets = {} if budgets is None else budgets
    settings.full_clean()
    settings.save()
    return settings


@transaction.atomic
def catalog_placement_set(*, placement: str) -> ConsoleSettings:
    """Set where the model reads the skill catalog (docs/runtime-api.md, "Where the catalog goes"):
    ``tool_description`` (one line per enabled skill in ``load_skill``'s description, the default)
    or ``system_prompt`` (``load_skill`` keeps the header; the lines are ``catalog_text``). Carried
    in the next release. Raises ``ValidationError`` on ``catalog_placement`` for any other value;
    nothing is saved then.
    """
    settings = ConsoleSettings.objects.select_for_update().filter(pk=1).first() or ConsoleSettings(pk=1)
    settings.catalog_placement = placement
    settings.full_clean()
    settings.save()
    return settings
