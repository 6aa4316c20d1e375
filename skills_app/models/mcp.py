"""Records of docs/design.md. Field limits come from ``skill_rule.limits`` (named once)."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.core.validators import (
    RegexValidator,
)
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from skill_rule.limits import (
    TOOL_NAME_MAX_LENGTH,
    TOOL_TITLE_MAX_LENGTH,
)
from skill_rule.tooldefs import read_annotations, validate_tool_definition
from skills_app.core.message_catalog import sync_message_plain, translate_error

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

    def clean_fields(self, exclude: Any = None) -> None:
        """Django's field checks, with a URL of another scheme than http or https (``file:``,
        ``gopher:``, ``ftp:`` …) refused by naming the rule instead of URLField's generic "Enter a
        valid URL.": the MCP SDK's streamable HTTP client speaks only HTTP (docs/mcp.md)."""
        from urllib.parse import urlsplit

        from django.core.exceptions import ValidationError

        skip = set(exclude or ())
        errors: dict[str, list[ValidationError]] = {}
        url = (self.url or "").strip()
        if "url" not in skip and url:
            scheme = urlsplit(url).scheme.lower() if ":" in url else ""
            if scheme not in ("http", "https"):
                errors["url"] = [
                    ValidationError(
                        _("only http:// and https:// URLs can be used; this one starts with '%(start)s'."),
                        code="mcp_url_scheme",
                        params={"start": url[: len(scheme) + 3] if scheme else url[:12]},
                    )
                ]
                skip.add("url")
        try:
            super().clean_fields(exclude=skip)
        except ValidationError as exc:
            errors = exc.update_error_dict(errors)
        if errors:
            raise ValidationError(errors)

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
    ``unavailable_nodes`` and ``broken_skills`` after the sync, ``named_like_skills``:
    ``[{"tool", "skill"}]`` — a listed tool whose model-facing name is a live skill's code (the
    model would see both under one name; issue 29), naming ``warnings`` (each
    ``{"code", "params", "text"}``: ``message_catalog.sync_entry``, shown in the page's language;
    plain English sentences in records written before, shown as stored). ``message`` is English:
    the counts, or why the sync failed (pages match it to the catalog's sentences)."""

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
    named_like_skills = models.JSONField(_("named like a skill"), default=list, blank=True)
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

    @property
    def warning_texts(self) -> list[str]:
        """The ``warnings`` as English sentences (what the command line prints): each entry's
        ``text`` (``message_catalog.sync_entry``), a warning recorded as plain text as it is."""
        return [sync_message_plain(w) for w in self.warnings or []]


def _tool_problem_text(problem):
    """A tool-definition ``Problem`` in the active language (by code), with its params."""
    return translate_error(problem)
