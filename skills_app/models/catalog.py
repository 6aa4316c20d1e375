"""Records of docs/design.md. Field limits come from ``skill_rule.limits`` (named once)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.validators import (
    MaxLengthValidator,
    MinLengthValidator,
    ProhibitNullCharactersValidator,
    RegexValidator,
)
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from simple_history.models import HistoricalRecords

from skill_rule import providers
from skill_rule.limits import (
    BUILTIN_TOOL_NAMES,
    CATALOG_IN_SYSTEM_PROMPT,
    CATALOG_IN_TOOL_DESCRIPTION,
    DEFAULT_CATALOG_PLACEMENT,
    DEFAULT_LOAD_SKILL_HEADER,
    DEFAULT_PAYLOAD_TARGETS,
    DESCRIPTION_MAX_LENGTH,
    INTENT_CODE_MAX_LENGTH,
    INTENT_DESCRIPTION_MAX_LENGTH,
    LOAD_SKILL_HEADER_MAX_LENGTH,
    NAME_MAX_LENGTH,
    SKILL_CODE_MAX_LENGTH,
    SKILL_CODE_PATTERN,
    TOOL_NAME_MAX_LENGTH,
)
from skill_rule.tooldefs import validate_tool_name
from skills_app.models.mcp import _tool_problem_text


class IntentNode(models.Model):
    """A node of the intent tree. An *MCP node* is an enabled, non-deleted leaf of kind MCP with a
    non-blank ``mcp_tool_id`` (docs/design.md); its tool is registered for the agent."""

    class Level(models.IntegerChoices):
        DOMAIN = 0, _("domain")
        CATEGORY = 1, _("category")
        TOPIC = 2, _("topic")

    class Kind(models.TextChoices):
        KB = "KB", _("knowledge base")
        SYSTEM = "SYSTEM", _("system")
        MCP = "MCP", _("MCP tool")

    intent_code = models.CharField(_("intent code"), max_length=INTENT_CODE_MAX_LENGTH, unique=True)
    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH)
    level = models.PositiveSmallIntegerField(_("level"), choices=Level.choices, default=Level.DOMAIN)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children", verbose_name=_("parent node")
    )
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices, default=Kind.SYSTEM)
    mcp_tool_id = models.CharField(_("MCP tool id"), max_length=TOOL_NAME_MAX_LENGTH, blank=True)
    require_confirm = models.BooleanField(_("require confirmation"), default=False)
    description = models.CharField(_("description"), max_length=INTENT_DESCRIPTION_MAX_LENGTH, blank=True)
    examples = models.JSONField(_("examples"), default=list, blank=True)
    sort_order = models.IntegerField(_("sort order"), default=0)
    enabled = models.BooleanField(_("enabled"), default=True)
    deleted_at = models.DateTimeField(_("deleted at"), null=True, blank=True)

    #: every change is a historical record: who, when, what (docs/roles.md)
    history = HistoricalRecords()

    class Meta:
        ordering = ["level", "sort_order", "intent_code"]
        verbose_name = _("intent node")
        verbose_name_plural = _("intent nodes")

    def __str__(self) -> str:
        return f"{self.intent_code} ({self.name})"

    def clean(self) -> None:
        """Only MCP nodes name a tool, never a reserved builtin name; three levels at most."""
        from django.core.exceptions import ValidationError

        errors: dict[str, str] = {}
        tool_id = (self.mcp_tool_id or "").strip()
        if self.kind != self.Kind.MCP and tool_id:
            errors["mcp_tool_id"] = _("only MCP nodes name a tool id.")
        elif tool_id in BUILTIN_TOOL_NAMES:
            errors["mcp_tool_id"] = _("'%(name)s' is a reserved builtin tool name.") % {"name": tool_id}
        elif tool_id and validate_tool_name(tool_id):
            errors["mcp_tool_id"] = _tool_problem_text(validate_tool_name(tool_id)[0])
        if self.parent_id is not None:
            parent = self.parent
            if parent.level >= self.Level.TOPIC:
                errors["parent"] = _("'%(code)s' is a topic (level 2); the tree has three levels.") % {
                    "code": parent.intent_code
                }
            elif self.level != parent.level + 1:
                self.level = parent.level + 1
        elif self.level != self.Level.DOMAIN:
            self.level = self.Level.DOMAIN
        if errors:
            raise ValidationError(errors)


class BuiltinTool(models.Model):
    """An in-process tool with a reserved name (``search_knowledge``, ``load_skill``,
    ``flush_memory``)."""

    name = models.CharField(_("name"), max_length=TOOL_NAME_MAX_LENGTH, unique=True)
    description = models.TextField(_("description"), blank=True)
    parameters = models.JSONField(_("parameters"), default=dict)
    sort_order = models.IntegerField(_("sort order"), default=0)

    class Meta:
        ordering = ["sort_order", "name"]
        verbose_name = _("builtin tool")
        verbose_name_plural = _("builtin tools")

    def __str__(self) -> str:
        return self.name


class SkillQuerySet(models.QuerySet):
    """``live()`` = not soft-deleted; ``deleted()`` = soft-deleted (restorable)."""

    def live(self) -> SkillQuerySet:
        """Skills that are not soft-deleted."""
        return self.filter(deleted_at__isnull=True)

    def deleted(self) -> SkillQuerySet:
        """Soft-deleted skills."""
        return self.filter(deleted_at__isnull=False)


class Skill(models.Model):
    """A skill manual (docs/design.md). ``tool_ids`` are the MCP tools it gates; ``version`` goes up by
    one on every saved change; deletion is soft (``deleted_at``) and restorable."""

    skill_code = models.CharField(
        _("skill code"),
        max_length=SKILL_CODE_MAX_LENGTH,
        validators=[RegexValidator(SKILL_CODE_PATTERN)],
    )
    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH)
    description = models.CharField(_("description"), max_length=DESCRIPTION_MAX_LENGTH)
    content = models.TextField(_("manual"))
    tool_ids = models.JSONField(_("gated tools"), default=list, blank=True)
    sort_order = models.IntegerField(_("sort order"), default=0)
    enabled = models.BooleanField(_("enabled"), default=True)
    version = models.PositiveIntegerField(_("version"), default=1)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    deleted_at = models.DateTimeField(_("deleted at"), null=True, blank=True)

    objects = SkillQuerySet.as_manager()
    #: every change (enabling and disabling too) is a historical record; ``/skills/<code>/history``
    #: diffs and restores them (docs/roles.md)
    history = HistoricalRecords()

    class Meta:
        ordering = ["sort_order", "skill_code"]
        verbose_name = _("skill")
        verbose_name_plural = _("skills")
        constraints = [
            models.UniqueConstraint(
                fields=["skill_code"], condition=Q(deleted_at__isnull=True), name="unique_live_skill_code"
            ),
        ]

    def __str__(self) -> str:
        return self.skill_code


class Restriction(models.Model):
    """Common shape of access profiles and stages: a name and a set of MCP tool names."""

    name = models.CharField(
        _("name"), max_length=NAME_MAX_LENGTH, unique=True, validators=[RegexValidator(SKILL_CODE_PATTERN)]
    )
    description = models.CharField(_("description"), max_length=DESCRIPTION_MAX_LENGTH, blank=True)
    tools = models.JSONField(pgettext_lazy("record field", "tools"), default=list, blank=True)

    class Meta:
        abstract = True
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class AccessProfile(Restriction):
    """What a user may use: the model's MCP tools are intersected with it (seed 004)."""

    history = HistoricalRecords()

    class Meta(Restriction.Meta):
        verbose_name = _("access profile")
        verbose_name_plural = _("access profiles")


class Stage(Restriction):
    """What a task stage allows: the model's MCP tools are intersected with it (seed 004)."""

    history = HistoricalRecords()

    class Meta(Restriction.Meta):
        verbose_name = _("stage")
        verbose_name_plural = _("stages")


def _default_payload_targets() -> list[str]:
    return list(DEFAULT_PAYLOAD_TARGETS)


class ConsoleSettings(models.Model):
    """The single row of settings carried in every release (docs/design.md): the loaded-skill marker
    key, the eviction placeholder prefix, the header of the generated ``load_skill`` description
    and where the skill catalog goes (``catalog_placement``, docs/runtime-api.md), and which demo
    catalog (if any) the data came from."""

    marker_key = models.CharField(
        _("loaded-skill marker key"),
        max_length=64,
        default="ragent_loaded_skill",
        validators=[RegexValidator(r"\A[A-Za-z_][A-Za-z0-9_.-]{2,63}\Z")],
    )
    # A short prefix would make ordinary tool results (a manual starting with "#", say) count as
    # evicted, so no manual could ever stay loaded.
    eviction_prefix = models.CharField(
        _("eviction placeholder prefix"),
        max_length=128,
        default="[历史工具结果已省略，原长 ",
        validators=[MinLengthValidator(6)],
    )
    catalog_name = models.CharField(_("catalog"), max_length=64, blank=True)
    # The lines above the skill catalog in load_skill's description; never blank (the model would
    # get a bare list with no instruction to load a manual first).
    load_skill_header = models.TextField(
        _("load_skill description header"),
        max_length=LOAD_SKILL_HEADER_MAX_LENGTH,
        default=DEFAULT_LOAD_SKILL_HEADER,
        error_messages={"blank": _("the load_skill description header cannot be blank.")},
        validators=[MaxLengthValidator(LOAD_SKILL_HEADER_MAX_LENGTH), ProhibitNullCharactersValidator()],
        help_text=_("Opens the description of load_skill; one line per enabled skill follows it."),
    )
    # The provider targets every round's tools payload is checked against, and their budgets in
    # characters (skill_rule.providers, docs/providers.md); carried in every release.
    payload_targets = models.JSONField(
        _("provider targets"),
        default=_default_payload_targets,
        error_messages={"blank": _("name at least one provider target, as a list.")},
        help_text=_(
            "The provider APIs the tools payload must be accepted by: openai_chat, openai_responses, anthropic_messages, gemini."
        ),
    )
    payload_budgets = models.JSONField(
        _("tools payload budgets"),
        default=dict,
        blank=True,
        help_text=_("Target → the most characters a tools payload may have (absent: the target's default)."),
    )

    class CatalogPlacement(models.TextChoices):
        """Where the model reads the skill catalog (docs/runtime-api.md, "Where the catalog goes")."""

        TOOL_DESCRIPTION = CATALOG_IN_TOOL_DESCRIPTION, _("in load_skill's description (one line per skill)")
        SYSTEM_PROMPT = CATALOG_IN_SYSTEM_PROMPT, _("in the system prompt (catalog_text); load_skill keeps the header")

    catalog_placement = models.CharField(
        _("skill catalog placement"),
        max_length=32,
        choices=CatalogPlacement.choices,
        default=DEFAULT_CATALOG_PLACEMENT,
        help_text=_(
            "Where the model reads the list of skills. Use the system prompt when the catalog is too long "
            "for one tool description of the model's provider; the runtime then puts catalog_text in its "
            "system prompt."
        ),
    )
    #: Changes (a fresh UUID) after every committed write to what the draft catalog is built from,
    #: so each process reuses its built draft ``Catalog`` until then (``skills_app/catalog/draft_cache.py``).
    #: Written with ``update()`` only: never a form field, never a save of this row.
    draft_token = models.UUIDField(default=uuid.uuid4, editable=False)

    class Meta:
        verbose_name = _("console settings")
        verbose_name_plural = _("console settings")

    def __str__(self) -> str:
        return f"settings ({self.catalog_name or 'custom'})"

    def clean(self) -> None:
        """The ``load_skill`` header is not whitespace only (empty is the field's own ``blank`` error)."""
        from django.core.exceptions import ValidationError

        if self.load_skill_header and not self.load_skill_header.strip():
            raise ValidationError({"load_skill_header": _("the load_skill description header cannot be blank.")})
        errors = {}
        known = ", ".join(providers.PROFILES)
        targets = self.payload_targets
        if not targets:
            pass  # the field's own "blank" error
        elif not isinstance(targets, list):
            errors["payload_targets"] = ValidationError(
                _("name at least one provider target, as a list."), code="payload_targets_shape"
            )
        elif providers.target_problems(targets):
            unknown = [t for t in targets if t not in providers.PROFILES]
            if unknown:
                errors["payload_targets"] = ValidationError(
                    _("unknown provider target %(target)s; known: %(known)s"),
                    code="payload_target_unknown",
                    params={"target": repr(unknown[0]), "known": known},
                )
            else:
                errors["payload_targets"] = ValidationError(
                    _("a provider target is listed twice."), code="payload_target_twice"
                )
        budgets = self.payload_budgets
        if not isinstance(budgets, dict):
            errors["payload_budgets"] = ValidationError(
                _("the budgets must be an object: target → characters."), code="payload_budgets_shape"
            )
        else:
            for target, budget in budgets.items():
                if target not in providers.PROFILES:
                    errors["payload_budgets"] = ValidationError(
                        _("unknown provider target %(target)s; known: %(known)s"),
                        code="payload_target_unknown",
                        params={"target": repr(target), "known": known},
                    )
                    break
                if providers.budget_problems({target: budget}):
                    errors["payload_budgets"] = ValidationError(
                        _("the budget of %(target)s must be a whole number of characters from 1 to %(max)s."),
                        code="payload_budget_invalid",
                        params={"target": target, "max": providers.MAX_PAYLOAD_BUDGET},
                    )
                    break
        if errors:
            raise ValidationError(errors)

    @classmethod
    def load(cls) -> ConsoleSettings:
        """The settings row for writing (created on first use)."""
        obj, _created = cls.objects.get_or_create(pk=1)
        return obj

    @classmethod
    def current(cls) -> ConsoleSettings:
        """The settings for reading: the saved row, or the defaults (never writes)."""
        return cls.objects.filter(pk=1).first() or cls(pk=1)
