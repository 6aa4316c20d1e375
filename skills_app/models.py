"""Records of docs/design.md. Field limits come from ``skill_rule.limits`` (named once)."""

from __future__ import annotations

import re
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
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework_api_key.models import AbstractAPIKey
from simple_history.models import HistoricalRecords

from skill_rule.limits import (
    BUILTIN_TOOL_NAMES,
    DEFAULT_LOAD_SKILL_HEADER,
    DESCRIPTION_MAX_LENGTH,
    INTENT_CODE_MAX_LENGTH,
    INTENT_DESCRIPTION_MAX_LENGTH,
    LOAD_SKILL_HEADER_MAX_LENGTH,
    NAME_MAX_LENGTH,
    SKILL_CODE_MAX_LENGTH,
    SKILL_CODE_PATTERN,
    TOOL_NAME_MAX_LENGTH,
    TOOL_TITLE_MAX_LENGTH,
)
from skill_rule.tooldefs import read_annotations, validate_tool_definition, validate_tool_name

from .message_catalog import translate_error


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
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children")
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices, default=Kind.SYSTEM)
    mcp_tool_id = models.CharField(_("MCP tool id"), max_length=TOOL_NAME_MAX_LENGTH, blank=True)
    require_confirm = models.BooleanField(_("require confirmation"), default=False)
    description = models.CharField(_("description"), max_length=INTENT_DESCRIPTION_MAX_LENGTH, blank=True)
    examples = models.JSONField(_("examples"), default=list, blank=True)
    sort_order = models.IntegerField(_("sort order"), default=0)
    enabled = models.BooleanField(_("enabled"), default=True)
    deleted_at = models.DateTimeField(null=True, blank=True)

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


#: A server's stable name: what model-facing names of clashing tools are prefixed with.
MCP_SERVER_NAME_MAX_LENGTH = 40
MCP_SERVER_NAME_PATTERN = r"\A[a-z][a-z0-9_-]{1,39}\Z"
#: Seconds a sync may take per server (connect, initialize, every tools/list page).
MCP_SYNC_TIMEOUT_DEFAULT = 20.0


class McpServer(models.Model):
    """An MCP server the agent uses (docs/mcp.md): how to reach it (``stdio``: ``command``,
    ``args``, ``env``; ``streamable-http``: ``url`` and ``headers``, which are secrets — pages
    show them masked, never in full), whether it is synced, and the outcome of its last sync."""

    class Transport(models.TextChoices):
        STDIO = "stdio", "stdio"
        HTTP = "streamable-http", "streamable HTTP"

    name = models.CharField(
        _("name"),
        max_length=MCP_SERVER_NAME_MAX_LENGTH,
        unique=True,
        validators=[
            RegexValidator(
                MCP_SERVER_NAME_PATTERN,
                code="server_name_invalid",
                message=_(
                    "%(value)r is not a server name: a lowercase letter first, then 1–39 lowercase "
                    "letters, digits, _ or -."
                ),
            )
        ],
        help_text=_("Stable name: lowercase letter first, then lowercase letters, digits, _ or -."),
    )
    transport = models.CharField(_("transport"), max_length=20, choices=Transport.choices, default=Transport.STDIO)
    command = models.CharField(_("command"), max_length=500, blank=True)
    args = models.JSONField(_("arguments"), default=list, blank=True)
    env = models.JSONField(_("environment"), default=dict, blank=True)
    url = models.URLField(_("URL"), max_length=500, blank=True)
    headers = models.JSONField(_("headers"), default=dict, blank=True)
    timeout_seconds = models.FloatField(_("time limit (seconds)"), default=MCP_SYNC_TIMEOUT_DEFAULT)
    enabled = models.BooleanField(_("enabled"), default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_sync_at = models.DateTimeField(_("last sync"), null=True, blank=True)
    last_sync_ok = models.BooleanField(_("last sync succeeded"), null=True, blank=True)
    last_sync_message = models.TextField(_("last sync outcome"), blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("MCP server")
        verbose_name_plural = _("MCP servers")

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        """stdio needs a command, streamable HTTP a URL; args a list of strings, env and headers
        string maps; the time limit between 1 and 600 seconds."""
        from django.core.exceptions import ValidationError

        errors: dict[str, str] = {}
        if self.transport == self.Transport.STDIO and not (self.command or "").strip():
            errors["command"] = _("a stdio server needs a command.")
        if self.transport == self.Transport.HTTP and not (self.url or "").strip():
            errors["url"] = _("a streamable HTTP server needs a URL.")
        if not isinstance(self.args, list) or not all(isinstance(a, str) for a in self.args):
            errors["args"] = _("arguments must be a list of strings.")
        for field in ("env", "headers"):
            value = getattr(self, field)
            if not isinstance(value, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()
            ):
                errors[field] = _("must map names to string values.")
            else:
                problem = (_header_problem if field == "headers" else _env_problem)(value)
                if problem:
                    errors[field] = problem
        if not (1 <= float(self.timeout_seconds or 0) <= 600):
            errors["timeout_seconds"] = _("the time limit must be between 1 and 600 seconds.")
        if errors:
            raise ValidationError(errors)

    @property
    def masked_headers(self) -> dict[str, str]:
        """Header name → ``SECRET_MASK`` (values are secrets; pages never show them)."""
        return dict.fromkeys(self.headers or {}, SECRET_MASK)


#: RFC 9110 "token": what an HTTP header name may be made of.
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: What an HTTP client sends as a header value: visible ASCII, spaces and tabs (no CR/LF).
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e]*")
#: A POSIX environment variable name.
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _header_problem(headers: dict[str, str]) -> str:
    """Why these headers could never be sent (the first bad one, by name), else "": caught at
    save time instead of as a transport error at the next sync."""
    for name, value in headers.items():
        if not _HEADER_NAME.fullmatch(name):
            return _("header %(name)s is not a valid HTTP header name (no spaces, colons or non-ASCII characters).") % {
                "name": repr(name)
            }
        if not _HEADER_VALUE.fullmatch(value):
            return _(
                "the value of header %(name)s must be printable ASCII (other text cannot be sent in an HTTP header)."
            ) % {"name": repr(name)}
    return ""


def _env_problem(env: dict[str, str]) -> str:
    """Why this environment could never be given to a process (the first bad variable), else ""."""
    for name, value in env.items():
        if not _ENV_NAME.fullmatch(name):
            return _("environment variable %(name)s: a name is letters, digits and _, not starting with a digit.") % {
                "name": repr(name)
            }
        if "\x00" in value:
            return _("environment variable %(name)s: the value contains a NUL character.") % {"name": repr(name)}
    return ""


#: What a page shows instead of a stored secret (an HTTP header value).
SECRET_MASK = "••••••"


class McpTool(models.Model):
    """An MCP tool definition as the server's ``tools/list`` returns it (docs/mcp.md).

    ``name`` is the model-facing name (``^[a-zA-Z0-9_-]{1,64}$``, unique; what intent nodes,
    ``tool_ids``, the catalog, the guard and the payload use); ``tool_name`` the server's real
    name (calls are mapped back to it). ``mcp_server`` is the server it was synced from (empty for
    a definition typed in or loaded from a demo YAML). ``removed_at``: the last sync no longer
    listed it — its nodes are *unavailable*. ``require_confirm_override`` is the operator's
    explicit setting (``None`` = follow the annotations: confirm unless plainly read-only),
    with who set it and when.
    """

    name = models.CharField(_("name"), max_length=TOOL_NAME_MAX_LENGTH, unique=True)
    title = models.CharField(_("title"), max_length=TOOL_TITLE_MAX_LENGTH, blank=True)
    description = models.TextField(_("description"), blank=True)
    input_schema = models.JSONField(_("inputSchema"), default=dict)
    output_schema = models.JSONField(_("outputSchema"), null=True, blank=True)
    annotations = models.JSONField(_("annotations"), default=dict, blank=True)
    server = models.CharField(_("MCP server"), max_length=100, blank=True)
    mcp_server = models.ForeignKey(
        McpServer, null=True, blank=True, on_delete=models.SET_NULL, related_name="tools", verbose_name=_("MCP server")
    )
    tool_name = models.CharField(_("tool name on the server"), max_length=TOOL_NAME_MAX_LENGTH, blank=True)
    naming_warning = models.TextField(_("naming warning"), blank=True)
    synced_at = models.DateTimeField(_("synced at"), null=True, blank=True)
    removed_at = models.DateTimeField(_("no longer offered since"), null=True, blank=True)
    require_confirm_override = models.BooleanField(_("require confirmation (operator)"), null=True, blank=True)
    confirm_set_by = models.CharField(_("confirmation set by"), max_length=150, blank=True)
    confirm_set_at = models.DateTimeField(_("confirmation set at"), null=True, blank=True)

    history = HistoricalRecords()

    class Meta:
        ordering = ["name"]
        verbose_name = _("MCP tool")
        verbose_name_plural = _("MCP tools")
        constraints = [
            models.UniqueConstraint(
                fields=["mcp_server", "tool_name"],
                condition=Q(mcp_server__isnull=False),
                name="unique_server_tool_name",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def real_name(self) -> str:
        """The name the server knows the tool by (``tool_name``, else ``name``)."""
        return self.tool_name or self.name

    @property
    def orphaned(self) -> bool:
        """True when the tool was synced from a server whose record has since been deleted
        (``mcp_server`` set to null, ``server`` still naming it): nothing can map a call to it,
        so it is unavailable (docs/mcp.md, "How a runtime maps calls back")."""
        return self.mcp_server_id is None and self.synced_at is not None

    @property
    def available(self) -> bool:
        """False once a sync no longer lists the tool, or its server record was deleted
        (``orphaned``; docs/mcp.md *unavailable*)."""
        return self.removed_at is None and not self.orphaned

    @property
    def read_only(self) -> bool:
        """The server's hints (untrusted) say *plainly* read-only: ``readOnlyHint`` exactly true,
        ``destructiveHint`` not true, no hint of another type (``domain.tooldefs.read_annotations``;
        docs/mcp.md, "Confirmation")."""
        return read_annotations(self.annotations, tool=self.name).plainly_read_only

    @property
    def annotation_problems(self) -> tuple:
        """Why the annotations were doubted (``annotations_invalid`` / ``annotations_contradictory``
        ``Problem``s, ``domain.tooldefs.read_annotations``); empty when they are plain."""
        return read_annotations(self.annotations, tool=self.name).problems

    def confirm_from(self, node_flag: bool) -> bool:
        """Whether a call stops at a confirmation card: the operator's setting when there is one;
        for a synced tool, confirm unless it is plainly read-only (``read_only``); else ``node_flag`` (the intent
        node's ``require_confirm``). docs/mcp.md, "Confirmation"."""
        if self.require_confirm_override is not None:
            return self.require_confirm_override
        if self.mcp_server_id is not None:
            return not self.read_only
        return node_flag

    def clean(self) -> None:
        """The tool-definition rule (``domain.tooldefs.validate_tool_definition``): an ASCII
        name OpenAI and Anthropic accept, an ``inputSchema`` that is a valid object schema whose
        every ``$ref`` resolves. Refusals carry the domain's ``code`` (translated by code)."""
        from django.core.exceptions import ValidationError

        errors: dict[str, list] = {}
        for problem in validate_tool_definition(self.name, self.input_schema):
            field = "name" if problem.code == "tool_name_invalid" else "input_schema"
            errors.setdefault(field, []).append(ValidationError(_tool_problem_text(problem), code=problem.code))
        if errors:
            raise ValidationError(errors)


class McpSyncRecord(models.Model):
    """One sync of one MCP server (docs/mcp.md): when, who or what started it (``trigger``:
    ``console``, ``command``, ``make run``…), the outcome, and what changed — ``added`` /
    ``removed`` tool names, ``changed``: ``[{"tool", "fields": [...], "diff": [lines]}]``,
    ``unavailable_nodes`` and ``broken_skills`` after the sync, naming ``warnings``."""

    class Outcome(models.TextChoices):
        OK = "ok", _("succeeded")
        FAILED = "failed", _("failed")
        #: written before the server is asked; the task then finishes it ``ok`` or ``failed``
        RUNNING = "running", _("running")

    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="syncs", verbose_name=_("MCP server"))
    #: when the sync was asked for: the record is written then, as ``running``, before any work
    #: (``mcp_sync.sync_begin``), and finished when the sync ends
    started_at = models.DateTimeField(_("started"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    #: a ``running`` record not finished by then was abandoned — its worker was stopped or killed,
    #: or no worker took it: the server's time limit plus ``SKILL_CONSOLE_TASK_MARGIN`` after the
    #: sync was asked for (renewed when a worker starts it)
    deadline_at = models.DateTimeField(_("abandoned after"), null=True, blank=True)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    started_by_name = models.CharField(_("started by"), max_length=150, blank=True)
    trigger = models.CharField(_("trigger"), max_length=40, blank=True)
    outcome = models.CharField(_("outcome"), max_length=10, choices=Outcome.choices)
    message = models.TextField(_("message"), blank=True)
    tool_count = models.PositiveIntegerField(_("tools listed"), default=0)
    added = models.JSONField(_("added"), default=list, blank=True)
    removed = models.JSONField(_("removed"), default=list, blank=True)
    changed = models.JSONField(_("schema changed"), default=list, blank=True)
    unavailable_nodes = models.JSONField(_("unavailable nodes"), default=list, blank=True)
    broken_skills = models.JSONField(_("broken skills"), default=list, blank=True)
    warnings = models.JSONField(_("warnings"), default=list, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        verbose_name = _("MCP sync")
        verbose_name_plural = _("MCP syncs")

    def __str__(self) -> str:
        return f"sync {self.pk} of {self.server_id}: {self.outcome}"

    @property
    def running(self) -> bool:
        """Still under way: ``running`` and its deadline not passed."""
        return self.outcome == self.Outcome.RUNNING and not self.abandoned

    @property
    def abandoned(self) -> bool:
        """``running`` past its deadline: whatever ran it is gone; it is read as failed (computed
        when read, so a worker killed with nothing left to write still leaves an explained row)."""
        return (
            self.outcome == self.Outcome.RUNNING and self.deadline_at is not None and timezone.now() > self.deadline_at
        )

    @property
    def failed(self) -> bool:
        return self.outcome == self.Outcome.FAILED or self.abandoned


def _tool_problem_text(problem):
    """A tool-definition ``Problem`` in the active language (by code), with its params."""
    return translate_error(problem)


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
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    deleted_at = models.DateTimeField(null=True, blank=True)

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
    tools = models.JSONField(_("tools"), default=list, blank=True)

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


class Scenario(models.Model):
    """A saved simulation: a YAML script (docs/simulator.md) with optional per-round expectations."""

    name = models.CharField(
        _("name"), max_length=NAME_MAX_LENGTH, unique=True, validators=[RegexValidator(SKILL_CODE_PATTERN)]
    )
    description = models.CharField(_("description"), max_length=DESCRIPTION_MAX_LENGTH, blank=True)
    description_en = models.CharField(_("description (English)"), max_length=DESCRIPTION_MAX_LENGTH, blank=True)
    script = models.TextField(_("script"))
    catalog = models.CharField(_("demo catalog"), max_length=64, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords()

    class Meta:
        ordering = ["name"]
        verbose_name = _("scenario")
        verbose_name_plural = _("scenarios")

    def __str__(self) -> str:
        return self.name

    def description_for(self, language: str | None) -> str:
        """The description in ``language`` (``en…`` → English when there is one), else the default."""
        if language and language.startswith("en") and self.description_en:
            return self.description_en
        return self.description


class ConsoleSettings(models.Model):
    """The single row of settings carried in every release (docs/design.md): the loaded-skill marker
    key, the eviction placeholder prefix, the header of the generated ``load_skill`` description
    (docs/runtime-api.md), and which demo catalog (if any) the data came from."""

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
    #: Changes (a fresh UUID) after every committed write to what the draft catalog is built from,
    #: so each process reuses its built draft ``Catalog`` until then (``skills_app/draft_cache.py``).
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

    @classmethod
    def load(cls) -> ConsoleSettings:
        """The settings row for writing (created on first use)."""
        obj, _created = cls.objects.get_or_create(pk=1)
        return obj

    @classmethod
    def current(cls) -> ConsoleSettings:
        """The settings for reading: the saved row, or the defaults (never writes)."""
        return cls.objects.filter(pk=1).first() or cls(pk=1)


#: A label name: the same pattern as a skill code (``production``, ``staging``, ``canary-2``).
LABEL_NAME_MAX_LENGTH = 64
PUBLISH_PERMISSION = "skills_app.publish_release"


class Release(models.Model):
    """An immutable snapshot of everything the rule reads (docs/releases.md).

    ``number`` is 1, 2, 3 … (strictly increasing, assigned under a lock by
    ``releases.release_create``); ``snapshot`` is ``domain.snapshot.catalog_to_snapshot`` of the
    catalog; ``sha256`` the hash of its canonical JSON; ``catalog_json`` the runtime catalog body
    served for it (docs/runtime-api.md, "Caching"). ``overrides`` lists the unmet scenario
    expectations a publisher ticked off, ``override_note`` why. ``rollback_of`` is the release a
    rollback copied. Rows are never updated: ``save`` refuses an existing row.
    """

    number = models.PositiveIntegerField(_("number"), unique=True)
    sha256 = models.CharField(_("sha256"), max_length=64)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("author"),
    )
    author_name = models.CharField(_("author"), max_length=150, blank=True)
    created_at = models.DateTimeField(_("published at"), auto_now_add=True)
    note = models.TextField(_("note"))
    overrides = models.JSONField(_("overridden expectations"), default=list, blank=True)
    override_note = models.TextField(_("override reason"), blank=True)
    rollback_of = models.PositiveIntegerField(_("rollback of"), null=True, blank=True)
    # The two large columns come last in the table (migration 0014): on SQLite, reading a column
    # stored after a 1.3 MB value walks its overflow pages.
    snapshot = models.JSONField(_("snapshot"))
    #: The body of ``GET runtime/catalog`` for this release, exactly as answered
    #: (``runtime_catalog.catalog_body_json``), stored at publish so the API never rebuilds it.
    #: ``None`` only on a row written before it existed until ``runtime_cache`` fills it once.
    catalog_json = models.TextField(_("catalog JSON"), null=True, blank=True, editable=False)  # noqa: DJ001 — None: not filled yet

    class Meta:
        ordering = ["-number"]
        verbose_name = _("release")
        permissions = [("publish_release", "Can publish releases, move labels and manage runtime API keys")]

    def __str__(self) -> str:
        return f"release {self.number}"

    def save(self, *args, **kwargs) -> None:
        """Create only: a release is immutable once written."""
        if not self._state.adding:
            raise ValueError(f"release {self.number} is immutable; publish a new release instead")
        super().save(*args, **kwargs)


class ReleaseLabel(models.Model):
    """A named pointer to a release (``production``, ``staging``, any name); moved by
    ``releases.label_move``, each move recorded as a ``LabelMove``."""

    name = models.CharField(
        _("label"), max_length=LABEL_NAME_MAX_LENGTH, unique=True, validators=[RegexValidator(SKILL_CODE_PATTERN)]
    )
    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="labels", verbose_name=_("release"))
    moved_at = models.DateTimeField(_("moved at"), auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("release label")

    def __str__(self) -> str:
        return self.name


class LabelMove(models.Model):  # noqa: DJ008 — the history pages and the admin list it by its fields
    """One move of a label: from which release (``None`` = the label was created) to which, who, when."""

    label = models.CharField(_("label"), max_length=LABEL_NAME_MAX_LENGTH, db_index=True)
    from_release = models.ForeignKey(Release, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    to_release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="+")
    moved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    moved_by_name = models.CharField(max_length=150, blank=True)
    moved_at = models.DateTimeField(_("moved at"), auto_now_add=True)

    class Meta:
        ordering = ["-moved_at", "-id"]
        verbose_name = _("label move")


class RuntimeKey(AbstractAPIKey):
    """An API key of an agent runtime (djangorestframework-api-key: only a hash is stored).

    ``read_drafts`` lets the key ask for ``?draft=1``; ``last_used_at`` is refreshed at most once a
    minute; revoking (``revoked``) cannot be undone and takes effect on the next request."""

    read_drafts = models.BooleanField(_("may read drafts"), default=False)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta(AbstractAPIKey.Meta):
        verbose_name = _("runtime API key")
        verbose_name_plural = _("runtime API keys")
