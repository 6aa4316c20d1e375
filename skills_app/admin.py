"""Django admin for the records of docs/design.md.

Records with a service (skills, scenarios, access profiles, stages) are read-only here: their
rules live in the features' services (``skills_app.catalog.services`` …) and the console pages call them, so the admin links to the
console instead of writing around the rules. Intent nodes are saved through
``services.intent_node_save`` (level follows the parent); tool definitions through
``services.mcp_tool_save``.
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from skills_app.catalog import services as catalog_services
from skills_app.core import roles
from skills_app.core.message_catalog import MESSAGES_BY_CODE
from skills_app.mcp import services as mcp_services
from skills_app.models import (
    SECRET_MASK,
    AccessProfile,
    BuiltinTool,
    ConsoleSettings,
    IntentNode,
    LabelMove,
    McpServer,
    McpSyncRecord,
    McpTool,
    Release,
    ReleaseLabel,
    RuntimeKey,
    Scenario,
    Skill,
    Stage,
)
from skills_app.web.presenters import naming_warning_html, sync_cause_html, sync_message_html


class ReadOnlyAdmin(admin.ModelAdmin):
    """Browse only: writes go through the console, which calls the services."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Skill)
class SkillAdmin(ReadOnlyAdmin):
    list_display = ("skill_code", "name", "enabled", "version", "sort_order", "tools", "deleted_at", "console_link")
    list_filter = ("enabled", ("deleted_at", admin.EmptyFieldListFilter))
    search_fields = ("skill_code", "name", "description")
    ordering = ("deleted_at", "sort_order", "skill_code")

    @admin.display(description=_("gated tools"))
    def tools(self, obj: Skill) -> str:
        return ", ".join(obj.tool_ids)

    @admin.display(description=_("console"))
    def console_link(self, obj: Skill) -> str:
        if obj.deleted_at is not None:
            return "—"
        return format_html('<a href="{}">{}</a>', reverse("skills:skill_edit", args=[obj.skill_code]), _("edit"))


@admin.register(Scenario)
class ScenarioAdmin(ReadOnlyAdmin):
    list_display = ("name", "catalog", "description", "updated_at", "run_link")
    search_fields = ("name", "description")

    @admin.display(description=_("preview"))
    def run_link(self, obj: Scenario) -> str:
        return format_html('<a href="{}?scenario={}">{}</a>', reverse("skills:preview"), obj.name, _("run"))

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("skills_app.delete_scenario")


@admin.register(AccessProfile)
class AccessProfileAdmin(ReadOnlyAdmin):
    list_display = ("name", "description", "tool_list")

    @admin.display(description=_("tools"))
    def tool_list(self, obj: AccessProfile) -> str:
        return ", ".join(obj.tools)

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("skills_app.delete_accessprofile")


@admin.register(Stage)
class StageAdmin(ReadOnlyAdmin):
    list_display = ("name", "description", "tool_list")

    @admin.display(description=_("tools"))
    def tool_list(self, obj: Stage) -> str:
        return ", ".join(obj.tools)

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("skills_app.delete_stage")


@admin.register(IntentNode)
class IntentNodeAdmin(admin.ModelAdmin):
    list_display = ("intent_code", "name", "level", "kind", "mcp_tool_id", "require_confirm", "enabled", "sort_order")
    list_filter = ("kind", "level", "enabled", "require_confirm")
    search_fields = ("intent_code", "name", "mcp_tool_id", "description")
    fields = (
        "intent_code",
        "name",
        "parent",
        "kind",
        "mcp_tool_id",
        "require_confirm",
        "description",
        "examples",
        "sort_order",
        "enabled",
    )

    def get_readonly_fields(self, request, obj=None):
        return ("intent_code",) if obj is not None else ()

    def get_form(self, request, obj=None, **kwargs):
        """The admin has no "force": disabling or unbinding a node whose tool skills gate is
        refused here, naming the skills (the console's node editor can force it; docs/mcp.md)."""
        base = super().get_form(request, obj, **kwargs)

        class GuardedForm(base):
            def clean(self):
                data = super().clean()
                node = self.instance
                if node is not None and node.pk:
                    original = IntentNode.objects.get(pk=node.pk)
                    skills = catalog_services.intent_node_gating_skills(
                        node=original,
                        enabled=bool(data.get("enabled")),
                        kind=data.get("kind"),
                        mcp_tool_id=data.get("mcp_tool_id") or "",
                    )
                    if skills:
                        from django.core.exceptions import ValidationError

                        raise ValidationError(
                            MESSAGES_BY_CODE["node_gated"],
                            code="node_gated",
                            params={
                                "code": original.intent_code,
                                "tool": original.mcp_tool_id,
                                "skills": ", ".join(skills),
                            },
                        )
                return data

        return GuardedForm

    def save_model(self, request, obj: IntentNode, form, change) -> None:
        saved = catalog_services.intent_node_save(
            intent_code=obj.intent_code,
            name=obj.name,
            kind=obj.kind,
            parent=obj.parent,
            mcp_tool_id=obj.mcp_tool_id,
            require_confirm=obj.require_confirm,
            description=obj.description,
            examples=obj.examples or [],
            sort_order=obj.sort_order,
            enabled=obj.enabled,
        )
        obj.pk = saved.pk

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # disable instead: a node is never silently deleted (docs/design.md)


@admin.register(McpTool)
class McpToolAdmin(admin.ModelAdmin):
    """Typed-in definitions are edited here; a synced tool's definition belongs to its server
    (read-only), only the operator's confirmation setting can change (recorded)."""

    list_display = ("name", "tool_name", "mcp_server", "title", "removed_at", "require_confirm_override")
    list_filter = ("mcp_server", ("removed_at", admin.EmptyFieldListFilter))
    search_fields = ("name", "tool_name", "title", "description")
    exclude = ("naming_warning",)  # written by the sync; shown in the reader's language (naming_warning_shown)
    SYNCED = (
        "name",
        "tool_name",
        "mcp_server",
        "server",
        "title",
        "description",
        "input_schema",
        "output_schema",
        "annotations",
        "naming_warning_shown",
        "synced_at",
        "removed_at",
        "confirm_set_by",
        "confirm_set_at",
    )

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.mcp_server_id is not None:
            return self.SYNCED
        if obj is not None and obj.naming_warning:
            return ("name", "naming_warning_shown", "confirm_set_by", "confirm_set_at")
        return ("name", "confirm_set_by", "confirm_set_at") if obj is not None else ("confirm_set_by", "confirm_set_at")

    @admin.display(description=_("naming warning"))
    def naming_warning_shown(self, obj: McpTool) -> str:
        """Why the tool got a name other than its own, in the reader's language (``naming_warning``)."""
        return naming_warning_html(obj.naming_warning) if obj.naming_warning else "—"

    def save_model(self, request, obj: McpTool, form, change) -> None:
        if obj.mcp_server_id is not None:
            mcp_services.mcp_tool_set_confirm(tool=obj, require_confirm=obj.require_confirm_override, user=request.user)
            return
        saved = mcp_services.mcp_tool_save(
            name=obj.name,
            title=obj.title,
            description=obj.description,
            input_schema=obj.input_schema,
            annotations=obj.annotations,
            server=obj.server,
        )
        if "require_confirm_override" in form.changed_data:
            mcp_services.mcp_tool_set_confirm(
                tool=saved, require_confirm=obj.require_confirm_override, user=request.user
            )
        obj.pk = saved.pk


@admin.register(McpServer)
class McpServerAdmin(admin.ModelAdmin):
    """Header and environment values are secrets (docs/mcp.md): the admin shows their names only,
    each value as ``SECRET_MASK``, and never puts them in a form; edit them on the console page."""

    list_display = ("name", "transport", "enabled", "last_sync_at", "last_sync_ok", "console_link")
    exclude = ("headers", "env", "last_sync_message")  # last_sync_message: shown as last_sync_shown
    readonly_fields = ("env_names", "header_names", "last_sync_at", "last_sync_ok", "last_sync_shown")

    @admin.display(description=_("last sync outcome"))
    def last_sync_shown(self, obj: McpServer) -> str:
        """The last sync's line (English, as the command line wrote it); why it failed in the reader's language."""
        if obj.last_sync_ok is False:
            return sync_cause_html(obj.last_sync_message)
        return obj.last_sync_message or "—"

    @admin.display(description=_("headers"))
    def header_names(self, obj: McpServer) -> str:
        return ", ".join(f"{k}: {v}" for k, v in obj.masked_headers.items()) or "—"

    @admin.display(description=_("environment"))
    def env_names(self, obj: McpServer) -> str:
        return ", ".join(f"{k}: {SECRET_MASK}" for k in (obj.env or {})) or "—"

    @admin.display(description=_("console"))
    def console_link(self, obj: McpServer) -> str:
        return format_html('<a href="{}">{}</a>', reverse("skills:mcp_server_edit", args=[obj.name]), _("edit"))


@admin.register(McpSyncRecord)
class McpSyncRecordAdmin(ReadOnlyAdmin):
    """Never added or changed by hand. A superuser may delete them: deleting a server record
    deletes its sync history with it (the cascade needs this permission), keeping its tools as
    orphans (docs/mcp.md)."""

    list_display = ("server", "started_at", "trigger", "started_by_name", "outcome", "tool_count")
    list_filter = ("server", "outcome")
    # the outcome and the warnings in the reader's language (the stored English is what the command
    # line prints; the pages show the same sentences)
    exclude = ("message", "warnings")
    readonly_fields = ("message_shown", "warnings_shown")

    @admin.display(description=_("message"))
    def message_shown(self, obj: McpSyncRecord) -> str:
        return sync_cause_html(obj.message) if obj.outcome == McpSyncRecord.Outcome.FAILED else obj.message

    @admin.display(description=_("warnings"))
    def warnings_shown(self, obj: McpSyncRecord) -> str:
        lines = [sync_message_html(w) for w in obj.warnings or []]
        return format_html_join("", "<p>{}</p>", ((line,) for line in lines)) if lines else "—"

    def has_delete_permission(self, request, obj=None) -> bool:
        return roles.can_administer(request.user)


@admin.register(BuiltinTool)
class BuiltinToolAdmin(ReadOnlyAdmin):
    list_display = ("name", "sort_order", "description")


@admin.register(ConsoleSettings)
class ConsoleSettingsAdmin(admin.ModelAdmin):
    list_display = ("__str__", "marker_key", "eviction_prefix", "catalog_placement", "catalog_name")
    fields = (
        "marker_key",
        "eviction_prefix",
        "load_skill_header",
        "catalog_placement",
        "payload_targets",
        "payload_budgets",
        "catalog_name",
    )

    def has_add_permission(self, request) -> bool:
        return not ConsoleSettings.objects.exists()

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


# --- releases (docs/releases.md): immutable, browse only; publishing goes through /publish/ ----


@admin.register(Release)
class ReleaseAdmin(ReadOnlyAdmin):
    list_display = ("number", "short_sha", "author_name", "created_at", "note", "rollback_of")
    search_fields = ("note", "author_name")
    exclude = ("snapshot",)

    @admin.display(description="sha256")
    def short_sha(self, obj: Release) -> str:
        return obj.sha256[:12]


@admin.register(ReleaseLabel)
class ReleaseLabelAdmin(ReadOnlyAdmin):
    list_display = ("name", "release", "moved_at")


@admin.register(LabelMove)
class LabelMoveAdmin(ReadOnlyAdmin):
    list_display = ("label", "from_release", "to_release", "moved_by_name", "moved_at")


@admin.register(RuntimeKey)
class RuntimeKeyAdmin(ReadOnlyAdmin):
    """Keys are created and revoked on /api-keys/ or with ``manage.py api_key`` (shown once there)."""

    list_display = ("name", "prefix", "revoked", "read_drafts", "created", "last_used_at")
    exclude = ("hashed_key",)


# The library's own (unused) APIKey model: runtime keys are ``RuntimeKey``.
try:
    from rest_framework_api_key.models import APIKey

    admin.site.unregister(APIKey)
except (ImportError, admin.sites.NotRegistered):  # pragma: no cover
    pass
