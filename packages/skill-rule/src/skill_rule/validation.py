"""Skill field rules of docs/design.md, in one place that every writer (editor, API, importer, demo
loader) calls through ``skills_app.catalog.services``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from .errors import Problem, SkillValidationError
from .limits import (
    BUILTIN_TOOL_NAMES,
    DESCRIPTION_MAX_LENGTH,
    LINE_BREAKS,
    NAME_MAX_LENGTH,
    SKILL_CODE_MAX_LENGTH,
    SKILL_CODE_MIN_LENGTH,
    is_valid_skill_code,
)


@dataclass(frozen=True)
class ToolRegistry:
    """What a skill's ``tool_ids`` are checked against.

    ``enabled`` = tool ids of MCP nodes (enabled, non-deleted leaf nodes of kind MCP);
    ``disabled`` = tool ids named only by disabled, deleted or non-leaf nodes (for a precise
    message); ``builtins`` = reserved builtin names.
    """

    enabled: frozenset[str]
    disabled: frozenset[str] = frozenset()
    builtins: frozenset[str] = frozenset(BUILTIN_TOOL_NAMES)


def normalize_tool_ids(raw: Iterable[str] | str | None) -> tuple[str, ...]:
    """Strip ids, drop blanks, remove duplicates keeping first-seen order.

    A string is split on commas, whitespace and newlines (the editor's text field).
    """
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = raw.replace(",", " ").split()
    out: list[str] = []
    for item in raw:
        tid = str(item).strip()
        if tid and tid not in out:
            out.append(tid)
    return tuple(out)


def normalize_newlines(text: str) -> str:
    """Browsers post textareas with CRLF: every ``\r\n`` and lone ``\r`` becomes ``\n``, so a
    save that changes nothing else keeps the manual (and its sha256) as it was (docs/design.md)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def validate_skill_code(code: str) -> list[Problem]:
    """Problems of a bad skill code (empty list when valid)."""
    if not isinstance(code, str) or not code:
        return [Problem("skill_code_required", "skill code is required.")]
    if not (SKILL_CODE_MIN_LENGTH <= len(code) <= SKILL_CODE_MAX_LENGTH):
        return [
            Problem(
                "skill_code_length",
                "skill code '%(code)s' must be %(min)s–%(max)s characters long.",
                {"code": code, "min": SKILL_CODE_MIN_LENGTH, "max": SKILL_CODE_MAX_LENGTH},
            )
        ]
    if code in BUILTIN_TOOL_NAMES:
        return [
            Problem(
                "skill_code_builtin",
                "skill code '%(code)s' is the name of a builtin tool; choose another code.",
                {"code": code},
            )
        ]
    if not is_valid_skill_code(code):
        return [
            Problem(
                "skill_code_pattern",
                "skill code '%(code)s' must start with a lowercase letter and use only lowercase letters, "
                "digits and single '_' or '-' separators.",
                {"code": code},
            )
        ]
    return []


def validate_code_not_a_tool(code: str, tool_names: Collection[str]) -> list[Problem]:
    """Problems of a new skill code that is the name of a tool the console knows (``tool_names``:
    MCP tools on intent nodes or synced; builtins are refused by ``validate_skill_code``): the
    model would be offered a "skill" in ``load_skill``'s enum named like a tool beside it (issue 29).
    Empty list when the code is free."""
    if code in tool_names:
        return [
            Problem(
                "skill_code_tool",
                "skill code '%(code)s' is the name of the MCP tool '%(tool)s'; the model would see a skill "
                "and a tool of one name. Choose another code.",
                {"code": code, "tool": code},
            )
        ]
    return []


def validate_tool_ids(tool_ids: Iterable[str], registry: ToolRegistry) -> list[Problem]:
    """Problems naming every tool id that is a builtin, unknown, or only on a disabled node."""
    problems: list[Problem] = []
    for tid in tool_ids:
        if tid in registry.builtins:
            problems.append(
                Problem(
                    "tool_id_builtin",
                    "'%(tool_id)s' is a builtin tool and can never be gated by a skill.",
                    {"tool_id": tid},
                )
            )
        elif tid in registry.enabled:
            continue
        elif tid in registry.disabled:
            problems.append(
                Problem(
                    "tool_id_disabled",
                    "'%(tool_id)s' belongs only to a disabled or deleted MCP node.",
                    {"tool_id": tid},
                )
            )
        else:
            problems.append(
                Problem("tool_id_unknown", "'%(tool_id)s' is not the tool of any MCP node.", {"tool_id": tid})
            )
    return problems


@dataclass(frozen=True)
class CleanSkill:
    """Validated, normalized skill fields."""

    skill_code: str
    name: str
    description: str
    content: str
    tool_ids: tuple[str, ...]


def clean_skill(
    *,
    skill_code: str,
    name: str,
    description: str,
    content: str,
    tool_ids: Iterable[str] | str | None,
    registry: ToolRegistry,
    tool_names: Collection[str] = (),
) -> CleanSkill:
    """Validate a skill's fields (docs/design.md) and return them normalized.

    ``tool_names``: the names of MCP tools a *new* code may not take (``validate_code_not_a_tool``;
    a skill being created or restored). An existing skill's code is fixed, so an update passes none.

    Raises ``SkillValidationError`` mapping each bad field to messages that name the value.
    Name ≤ 64 characters, description 1–512 characters on one line (no line break of any kind:
    ``\n``, ``\r``, U+0085, U+2028, U+2029 … — ``limits.LINE_BREAKS``), content non-blank markdown,
    tool ids normalized then checked against ``registry``.
    """
    errors: dict[str, list[Problem]] = {}
    code_problems = validate_skill_code(skill_code) or validate_code_not_a_tool(skill_code, tool_names)
    if code_problems:
        errors["skill_code"] = code_problems
    name = (name or "").strip()
    if not name:
        errors["name"] = [Problem("name_required", "name is required.")]
    elif len(name) > NAME_MAX_LENGTH:
        errors["name"] = [
            Problem(
                "name_too_long",
                "name has %(length)s characters; at most %(max)s allowed.",
                {"length": len(name), "max": NAME_MAX_LENGTH},
            )
        ]
    description = (description or "").strip()
    if not description:
        errors["description"] = [
            Problem(
                "description_required",
                "description is required (1–%(max)s characters, one line).",
                {"max": DESCRIPTION_MAX_LENGTH},
            )
        ]
    elif len(description) > DESCRIPTION_MAX_LENGTH:
        errors["description"] = [
            Problem(
                "description_too_long",
                "description has %(length)s characters; at most %(max)s allowed.",
                {"length": len(description), "max": DESCRIPTION_MAX_LENGTH},
            )
        ]
    elif any(ch in LINE_BREAKS for ch in description):
        errors["description"] = [
            Problem("description_multiline", "description must be a single line (the model sees it in a catalog).")
        ]
    content = normalize_newlines(content or "")
    if not content.strip():
        errors["content"] = [Problem("content_blank", "the manual (content) must not be blank.")]
    ids = normalize_tool_ids(tool_ids)
    id_problems = validate_tool_ids(ids, registry)
    if id_problems:
        errors["tool_ids"] = id_problems
    if errors:
        raise SkillValidationError(errors)
    return CleanSkill(skill_code=skill_code, name=name, description=description, content=content, tool_ids=ids)
