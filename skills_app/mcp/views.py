"""MCP servers (docs/mcp.md): the server list with "Sync now", create/edit (secrets masked), the
sync history with schema diffs, one tool's definition (inputSchema, annotations, confirmation
setting) with a test call, and the intent-node editor that binds synced tools."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.http import require_POST, require_safe

from skill_rule import providers
from skills_app.catalog import selectors
from skills_app.catalog import services as catalog_services
from skills_app.catalog.forms import IntentNodeForm
from skills_app.core import roles
from skills_app.core.message_catalog import translate_error
from skills_app.mcp import services as mcp_services
from skills_app.mcp.forms import McpServerForm, ToolArgumentsForm, call_form_problem
from skills_app.mcp.sync import SyncAlreadyRunning, SyncError
from skills_app.mcp.tasks import sync_enqueue, tool_call_enqueue, tool_call_state
from skills_app.models import ConsoleSettings, IntentNode, McpServer, McpSyncRecord, McpTool
from skills_app.web.common import paginate, role_required, save_with, staff_required
from skills_app.web.presenters import (
    naming_warning_html,
    payload_problem_sentence,
    sync_cause_html,
    sync_message_html,
)

#: Syncs per page of a server's sync history.
SYNCS_PER_PAGE = 20


@staff_required
@require_safe
def server_list(request: HttpRequest) -> HttpResponse:
    """Every server with its transport, tool counts and last sync outcome (the line of its last
    finished sync in the active language, ``sync_line``; the server row keeps the English one of
    the command line)."""
    finished = (
        McpSyncRecord.objects.filter(server=OuterRef("pk"))
        .exclude(outcome=McpSyncRecord.Outcome.RUNNING)
        .order_by("-started_at", "-id")
        .values("pk")[:1]
    )
    servers = list(McpServer.objects.annotate(last_record=Subquery(finished)).order_by("name"))
    last = McpSyncRecord.objects.in_bulk([s.last_record for s in servers if s.last_record])
    counts: dict[int, list[int]] = {}
    for t in McpTool.objects.filter(mcp_server__isnull=False).only("mcp_server_id", "removed_at"):
        c = counts.setdefault(t.mcp_server_id, [0, 0])
        c[0 if t.removed_at is None else 1] += 1
    # a sync under way (or abandoned: its worker is gone) is said before the last finished one
    unfinished = {
        r.server_id: r
        for r in McpSyncRecord.objects.filter(outcome=McpSyncRecord.Outcome.RUNNING).order_by("started_at", "id")
    }
    rows = [
        {
            "server": s,
            "tools": counts.get(s.pk, [0, 0])[0],
            "removed": counts.get(s.pk, [0, 0])[1],
            "running": unfinished[s.pk] if s.pk in unfinished and unfinished[s.pk].running else None,
            "abandoned": unfinished[s.pk] if s.pk in unfinished and unfinished[s.pk].abandoned else None,
            "last_line": _last_line(s, last.get(s.last_record)),
        }
        for s in servers
    ]
    return render(request, "mcp/servers.html", {"rows": rows, "broken": selectors.broken_skills()})


def _last_line(server: McpServer, record: McpSyncRecord | None) -> str | SafeString:
    if record is None:  # its records were deleted: the server row's (English) line
        return server.last_sync_message if server.last_sync_ok else sync_cause_html(server.last_sync_message)
    record.server = server
    return sync_line(record)


@role_required(read=roles.ADMINISTRATOR, write=roles.ADMINISTRATOR)
def server_edit(request: HttpRequest, server: str | None = None) -> HttpResponse:
    """Create (``server`` None) or edit a server record; header and env values stay masked.
    Superusers only (``roles.ADMINISTRATOR``): a stdio command runs on this host, a URL is
    fetched from it — registering a server is running a program here (docs/roles.md)."""
    instance = get_object_or_404(McpServer, name=server) if server else None
    if request.method == "POST":
        form = McpServerForm(request.POST, instance=instance)
        if form.is_valid():
            saved = save_with(form, mcp_services.mcp_server_save)
            if saved is not None:
                messages.success(request, _("Saved MCP server %(name)s.") % {"name": saved.name})
                return redirect("skills:mcp_server_list")
    else:
        form = McpServerForm(instance=instance)
    return render(request, "mcp/server_edit.html", {"form": form, "server": instance})


def sync_summary(record: McpSyncRecord) -> str:
    """A successful sync in the active language: the counts and the skills it broke (the same
    sentence as the history page's; ``record.message`` is the English one of the command line)."""
    text = _("%(n)s tools; %(a)s added; %(d)s removed; %(c)s changed") % {
        "n": record.tool_count,
        "a": len(record.added),
        "d": len(record.removed),
        "c": len(record.changed),
    }
    if record.broken_skills:
        text += "; " + _("broken skills") + ": " + ", ".join(b["skill"] for b in record.broken_skills)
    return text


#: What started a sync, as the console and its commands record it (docs/mcp.md), in the active
#: language; any other trigger (``sync_mcp --trigger cron``, ``make run``) is shown as it was given.
TRIGGER_LABELS = {
    "console": pgettext_lazy("sync trigger", "console"),
    "command": pgettext_lazy("sync trigger", "command"),
    "schedule": pgettext_lazy("sync trigger", "schedule"),
}


def trigger_label(trigger: str) -> str:
    """``trigger`` in the active language when the console wrote it (``TRIGGER_LABELS``), else as given."""
    return str(TRIGGER_LABELS.get(trigger, trigger))


def _local(when) -> str:
    return timezone.localtime(when).strftime("%Y-%m-%d %H:%M:%S")


def sync_line(record: McpSyncRecord) -> str | SafeString:
    """The line the history page shows for a record: the counts of a successful sync, the cause of
    a failed one (in the active language: ``sync_cause_html``; the server's own words as it wrote
    them), why an abandoned one is read as failed, or how a running one stands."""
    if record.outcome == McpSyncRecord.Outcome.OK:
        return sync_summary(record)
    if record.abandoned:
        return _(
            "Abandoned: the sync was still running at its deadline (%(deadline)s: the server's time limit "
            "plus a margin), so whatever ran it is gone — the task worker was stopped or killed, or no task "
            "worker is running (make run starts one; docs/deploy.md). The previous tools were kept; "
            "sync again."
        ) % {"deadline": _local(record.deadline_at)}
    if record.outcome == McpSyncRecord.Outcome.RUNNING:
        return _(
            "Running: the task worker is asking the server (time limit %(limit)s s); this record is "
            "updated when it ends."
        ) % {"limit": f"{record.server.timeout_seconds:g}"}
    return sync_cause_html(record.message)


def _shown(record: McpSyncRecord, server: McpServer) -> McpSyncRecord:
    """``record`` with what its card shows in the active language: ``summary`` (``sync_line``),
    ``trigger_label`` and ``warning_lines`` (each warning: ``sync_message_html``)."""
    record.server = server
    record.summary, record.trigger_label = sync_line(record), trigger_label(record.trigger)
    record.warning_lines = [sync_message_html(w) for w in record.warnings or []]
    return record


def _with(template: str, **values: Any) -> SafeString:
    """``template`` (translated) as safe HTML, each value escaped unless already safe."""
    return mark_safe(conditional_escape(template) % {k: conditional_escape(v) for k, v in values.items()})  # noqa: S308


@role_required(read=roles.EDITOR, write=roles.EDITOR)
@require_POST
def server_sync(request: HttpRequest, server: str) -> HttpResponse:
    """ "Sync now": the same sync as ``manage.py sync_mcp``, run by the task worker: the record is
    written as running at once, the history page follows it to its outcome. A sync of the server
    still running is not started twice."""
    obj = get_object_or_404(McpServer, name=server)
    try:
        record = sync_enqueue(server=obj, user=request.user, trigger="console")
    except SyncAlreadyRunning as exc:
        messages.warning(
            request,
            _(
                "A sync of %(name)s is already running (started %(when)s by %(who)s); its "
                "outcome appears below when it ends."
            )
            % {"name": obj.name, "when": _local(exc.record.started_at), "who": exc.record.started_by_name or "—"},
        )
        return redirect("skills:mcp_sync_history", server=obj.name)
    if record.outcome == McpSyncRecord.Outcome.RUNNING:
        messages.info(
            request,
            _("Sync of %(name)s started; the record below shows its outcome when it ends.") % {"name": obj.name},
        )
    elif record.outcome == McpSyncRecord.Outcome.OK:
        messages.success(
            request, _("Synced %(name)s: %(message)s") % {"name": obj.name, "message": sync_summary(record)}
        )
        for warning in record.warnings:
            messages.warning(request, sync_message_html(warning))
    else:
        messages.error(
            request,
            _with(
                _("Sync of %(name)s failed; the previous tools were kept: %(message)s"),
                name=obj.name,
                message=sync_cause_html(record.message),
            ),
        )
    return redirect("skills:mcp_sync_history", server=obj.name)


@staff_required
@require_safe
def sync_history(request: HttpRequest, server: str) -> HttpResponse:
    """The server's syncs, newest first, ``SYNCS_PER_PAGE`` a page (``?page=N``), with added /
    removed / changed tools and schema diffs."""
    obj = get_object_or_404(McpServer, name=server)
    if request.htmx and "record" in request.GET:  # a running record's card polling for its outcome
        pk = request.GET["record"]
        if not pk.isdigit():
            raise Http404("no such sync record")
        record = _shown(get_object_or_404(obj.syncs, pk=pk), obj)
        return render(request, "mcp/_sync.html", {"server": obj, "r": record})
    page = paginate(request, obj.syncs.order_by("-started_at", "-id"), SYNCS_PER_PAGE)
    # the line the page shows (what "Sync now" flashes, or the failure) and the warnings, in this language
    records = [_shown(r, obj) for r in page.object_list]
    return render(request, "mcp/history.html", {"server": obj, "records": records, "page": page})


def _pretty(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) if value is not None else ""


@staff_required
def tool_detail(request: HttpRequest, tool: str) -> HttpResponse:
    """One tool's definition like MCP Inspector shows it, its confirmation setting (the operator's
    choice wins and is recorded), and a test call to its server: staff only; a tool that is not
    read-only needs the confirmation box ticked."""
    obj = get_object_or_404(McpTool.objects.select_related("mcp_server"), name=tool)
    if request.htmx and "call" in request.GET:  # a queued test call polling for its answer
        return _call_fragment(request, obj, request.GET["call"])
    needs_confirm = not obj.read_only
    if request.method == "POST" and request.POST.get("action") == "confirm":
        choices = {"": None, "on": True, "off": False}  # "" = follow the annotations
        chosen = request.POST.get("require_confirm", "")
        if chosen not in choices:  # never read an unknown value as "follow the annotations"
            messages.error(
                request,
                _(
                    "Unknown confirmation setting %(value)s: choose follow the annotations, always "
                    "confirm or never confirm. Nothing was changed."
                )
                % {"value": repr(chosen)},
            )
            return redirect("skills:mcp_tool_detail", tool=obj.name)
        mcp_services.mcp_tool_set_confirm(tool=obj, require_confirm=choices[chosen], user=request.user)
        messages.success(request, _("Saved the confirmation setting of %(name)s.") % {"name": obj.name})
        return redirect("skills:mcp_tool_detail", tool=obj.name)
    call = _test_call(request, obj, needs_confirm=needs_confirm)
    nodes = list(IntentNode.objects.filter(mcp_tool_id=obj.name, deleted_at__isnull=True).order_by("intent_code"))
    gated_by = [s.skill_code for s in selectors.skill_list() if obj.name in s.tool_ids]
    node_flag = nodes[0].require_confirm if nodes else False
    targets = list(ConsoleSettings.current().payload_targets)
    problems = providers.definition_problems(targets, obj.name, obj.description, obj.input_schema)
    return render(
        request,
        "mcp/tool.html",
        {
            "tool": obj,
            "naming_warning": naming_warning_html(obj.naming_warning) if obj.naming_warning else "",
            "input_schema": _pretty(obj.input_schema),
            "output_schema": _pretty(obj.output_schema),
            "annotations": _pretty(obj.annotations),
            "nodes": nodes,
            "gated_by": gated_by,
            "effective_confirm": obj.confirm_from(node_flag),
            "needs_confirm": needs_confirm,
            "annotation_problems": [translate_error(p) for p in obj.annotation_problems],
            # which configured provider targets refuse (or rewrite) it and why (docs/providers.md)
            "provider_problems": [(p, payload_problem_sentence(p)) for p in problems],
            "provider_targets": [providers.PROFILES[t].label for t in targets if t in providers.PROFILES],
            **call,
        },
    )


def _test_call(request: HttpRequest, tool: McpTool, *, needs_confirm: bool) -> dict[str, Any]:
    """The test call part of the tool page: the arguments form built from the tool's inputSchema
    (``ToolArgumentsForm``; none when ``call_form_problem`` says why) and the JSON box, and — on
    a POST with ``action=call`` — the call sent with the form's arguments (``mode=form``) or the
    JSON box's (``mode=json``, the default): queued for the task worker, its state read at once.
    A form with errors, JSON that is no object, or a tool needing the confirmation box unticked
    sends nothing."""
    out: dict[str, Any] = {
        "call_form": None,
        "call_form_problem": call_form_problem(tool.input_schema),
        "call_mode": "form",
        "arguments_text": "{}",
        "arguments_sent": "",
        "outcome": None,
        "call_error": "",
        "call_token": "",
        "call_waited": 0,
    }
    schema = tool.input_schema if out["call_form_problem"] is None else None
    posted = request.method == "POST" and request.POST.get("action") == "call"
    if not posted:
        if schema is not None:
            out["call_form"] = form = ToolArgumentsForm(schema=schema)
            out["arguments_text"] = _pretty(form.initial_arguments())
        return out
    arguments: Any = None
    if request.POST.get("mode") == "form" and schema is not None:
        out["call_form"] = form = ToolArgumentsForm(request.POST, schema=schema)
        if form.is_valid():
            arguments = form.arguments
            out["arguments_text"] = _pretty(arguments)
        else:
            out["arguments_text"] = request.POST.get("arguments", "{}")
    elif request.POST.get("mode") == "form":  # no form for this schema: only a forged POST gets here
        out["call_error"] = _("No form can be built from the inputSchema of %(name)s: %(why)s.") % {
            "name": tool.name,
            "why": out["call_form_problem"],
        }
    else:
        out["call_mode"] = "json"
        out["arguments_text"] = text = request.POST.get("arguments", "{}")
        try:
            arguments = json.loads(text or "{}")
        except json.JSONDecodeError as exc:
            out["call_error"] = _("The arguments are not JSON: %(cause)s (line %(line)s)") % {
                "cause": exc.msg,
                "line": exc.lineno,
            }
        else:
            if not isinstance(arguments, dict):
                out["call_error"] = _("The arguments must be a JSON object.")
                arguments = None
        if schema is not None:  # the form shows what the JSON holds, where a field can
            out["call_form"] = ToolArgumentsForm(schema=schema, values=arguments)
    if arguments is None:
        return out
    if needs_confirm and not request.POST.get("confirmed"):
        out["call_error"] = _(
            "%(name)s is not plainly read-only (readOnlyHint is not true, or its hints contradict "
            "each other or are no booleans): tick the box to confirm that the call may change data "
            "on the server."
        ) % {"name": tool.name}
        return out
    out["arguments_sent"] = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    try:  # run by the task worker; the page polls for the answer (at once when inline)
        token = tool_call_enqueue(tool=tool, arguments=arguments)
    except SyncError as exc:
        out["call_error"] = str(exc)
        return out
    state = tool_call_state(token, tool=tool)
    out["outcome"], out["call_error"] = state.outcome, state.error
    if state.pending:
        out["call_token"], out["call_waited"] = token, state.waited
    return out


def _call_fragment(request: HttpRequest, tool: McpTool, token: str) -> HttpResponse:
    """Where a queued test call of ``tool`` stands (``mcp/_call.html``): still pending (polling
    on), or the answer or the error. A token that is not this tool's: 404."""
    state = tool_call_state(token, tool=tool)
    if state is None:
        raise Http404("no such test call")
    return render(
        request,
        "mcp/_call.html",
        {
            "tool": tool,
            "outcome": state.outcome,
            "call_error": state.error,
            "call_token": token if state.pending else "",
            "call_waited": state.waited,
        },
    )


def _node_form(request: HttpRequest, instance: IntentNode | None) -> IntentNodeForm:
    parents = [
        n
        for n in IntentNode.objects.filter(deleted_at__isnull=True, level__lt=2).order_by(
            "level", "sort_order", "intent_code"
        )
        if instance is None or n.pk != instance.pk
    ]
    tools = McpTool.objects.select_related("mcp_server").order_by("mcp_server__name", "name")
    data = request.POST if request.method == "POST" else None
    return IntentNodeForm(data, instance=instance, parents=parents, tools=tools)


@role_required(read=roles.EDITOR, write=roles.EDITOR)
def node_edit(request: HttpRequest, intent: str | None = None) -> HttpResponse:
    """Create or edit an intent node in the console; MCP nodes bind a synced tool from the list.
    Disabling a node (or unbinding its tool) whose tool skills gate is refused naming the skills
    unless forced."""
    instance = get_object_or_404(IntentNode, intent_code=intent, deleted_at__isnull=True) if intent else None
    form = _node_form(request, instance)
    if request.method == "POST" and form.is_valid():
        saved = save_with(form, catalog_services.intent_node_save)
        if saved is not None:
            messages.success(request, _("Saved intent node %(code)s.") % {"code": saved.intent_code})
            return redirect("skills:tool_tree")
    return render(request, "mcp/node_edit.html", {"form": form, "node": instance})


@role_required(read=roles.EDITOR, write=roles.EDITOR)
@require_POST
def node_delete(request: HttpRequest, intent: str) -> HttpResponse:
    """Soft-delete a node; refused naming the skills that gate its tool unless ``force``."""
    from django.core.exceptions import ValidationError

    node = get_object_or_404(IntentNode, intent_code=intent, deleted_at__isnull=True)
    try:
        broken = catalog_services.intent_node_delete(node=node, force=bool(request.POST.get("force")))
    except ValidationError as exc:
        messages.error(request, translate_error(exc.error_list[0]))
        return redirect("skills:node_edit", intent=node.intent_code)
    messages.success(request, _("Deleted intent node %(code)s.") % {"code": node.intent_code})
    if broken:
        messages.warning(request, _("These skills are now broken: %(skills)s") % {"skills": ", ".join(broken)})
    return redirect("skills:tool_tree")
