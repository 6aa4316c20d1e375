"""The rule of Skill Console, the pure core (docs/rule.md, docs/simulator.md; the distribution
``skill-console-rule``, packages/skill-rule). No Django import anywhere in this package."""

from .catalog import BUILTIN, MCP, Catalog, Restriction, Skill, Tool
from .errors import DomainError, MessageError, ScriptError, SkillValidationError, UnknownRestrictionError
from .lints import Lint, lint_catalog, lint_skill
from .messages import Message, ToolCall, parse_messages, parse_transcript
from .rules import (
    ALLOWED,
    CONFIRM,
    REFUSED,
    LoadResult,
    RoundView,
    Verdict,
    check_call,
    compute_round,
    load_skill,
    loaded_skills,
    resolve_restrictions,
)
from .scripts import Script, Step, parse_script
from .simulator import SimRound, Simulation, replay, simulate
from .validation import CleanSkill, ToolRegistry, clean_skill, normalize_tool_ids

__all__ = [
    "ALLOWED",
    "BUILTIN",
    "CONFIRM",
    "MCP",
    "REFUSED",
    "Catalog",
    "CleanSkill",
    "DomainError",
    "Lint",
    "LoadResult",
    "Message",
    "MessageError",
    "Restriction",
    "RoundView",
    "ScriptError",
    "SimRound",
    "Simulation",
    "Skill",
    "SkillValidationError",
    "Script",
    "Step",
    "Tool",
    "ToolCall",
    "ToolRegistry",
    "UnknownRestrictionError",
    "Verdict",
    "check_call",
    "clean_skill",
    "compute_round",
    "lint_catalog",
    "lint_skill",
    "load_skill",
    "loaded_skills",
    "normalize_tool_ids",
    "parse_messages",
    "parse_script",
    "parse_transcript",
    "replay",
    "resolve_restrictions",
    "simulate",
]
