"""The MCP work that runs as background tasks (django-q2, docs/deploy.md "Background jobs"): a
server's sync ("Sync now" and the periodic re-sync) and the tools page's test call. A web request
only writes the sync's record as ``running`` (``mcp_sync.sync_begin``) and queues the task; the
task worker (``manage.py qcluster``) does the work and finishes the record, and the pages poll
for the outcome. ``manage.py sync_mcp`` runs the same sync in its own process (``mcp_server_sync``).

With ``SKILL_CONSOLE_TASKS_INLINE`` (the tests) a queued task runs at once in the asking process,
through django-q2's own ``sync`` mode.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core import signing

from skills_app.core.message_catalog import SYNC_MESSAGES
from skills_app.mcp.sync import (
    CallOutcome,
    SyncAlreadyRunning,
    SyncError,
    mcp_sync_run,
    mcp_tool_call,
    sync_begin,
    sync_claim,
    sync_finish,
)
from skills_app.models import McpServer, McpSyncRecord, McpTool

logger = logging.getLogger(__name__)

#: The schedule of the periodic re-sync (``SKILL_CONSOLE_MCP_RESYNC_MINUTES``), by name.
RESYNC_SCHEDULE = "mcp-resync"
#: Salt of a test call's token (``tool_call_enqueue``).
CALL_SALT = "skills_app.mcp.tasks.test_call"


def _clock() -> float:
    """Now, in seconds since the epoch (what a test call's token holds)."""
    return time.time()


def _task_timeout(server: McpServer) -> int:
    """Seconds the worker lets a task of ``server`` run before the task library stops it: the
    server's own time limit (the sync's, which ends it first) plus the margin."""
    return math.ceil(float(server.timeout_seconds) + float(settings.SKILL_CONSOLE_TASK_MARGIN))


def _queue(func: str, *args: Any, name: str, timeout: int) -> str:
    """Queue ``func(*args)`` for the worker (at once in this process when inline); the task's id."""
    from django_q.tasks import async_task

    return async_task(
        func, *args, task_name=name, timeout=timeout, save=True, sync=bool(settings.SKILL_CONSOLE_TASKS_INLINE)
    )


# --- sync ---------------------------------------------------------------------------------------


def sync_task(record_id: int) -> str:
    """The task: the sync record ``record_id`` stands for (``mcp_sync.sync_claim`` first: a
    record finished or abandoned meanwhile is left as it is). Whatever stops the sync before it
    finishes its record (the task library's time limit, a bug) finishes it as failed with the
    cause, then is raised for the task library to record. Returns the record's outcome."""
    record = sync_claim(record_id)
    if record is None:
        return "skipped"
    try:
        return mcp_sync_run(record).outcome
    except BaseException as exc:  # noqa: B036 — the TimeoutException the library raises too; the row must not stay running
        sync_finish(
            record.server,
            record,
            ok=False,
            message=SYNC_MESSAGES["sync_failed"]
            % {
                "server": record.server.name,
                "cause": SYNC_MESSAGES["sync_task_stopped"] % {"error": f"{exc.__class__.__name__}: {exc}"},
            },
        )
        raise


def sync_enqueue(*, server: McpServer, trigger: str, user: Any = None) -> McpSyncRecord:
    """Write the ``running`` record and queue its sync. Raises ``SyncAlreadyRunning`` (nothing
    written). When the task cannot be queued (the broker is unreachable) the record is finished as
    failed with the cause. Returns the record as it stands after queuing (finished when inline)."""
    record = sync_begin(server=server, trigger=trigger, user=user)
    try:
        _queue(
            "skills_app.mcp.tasks.sync_task",
            record.pk,
            name=f"sync {server.name} #{record.pk}",
            timeout=_task_timeout(server),
        )
    except Exception as exc:  # noqa: BLE001 — whatever the broker raised: the record says it, the page shows it
        if not settings.SKILL_CONSOLE_TASKS_INLINE:
            logger.warning("could not queue the sync of MCP server %s: %s", server.name, exc)
            return sync_finish(
                server,
                record,
                ok=False,
                message=SYNC_MESSAGES["sync_failed"]
                % {
                    "server": server.name,
                    "cause": SYNC_MESSAGES["sync_not_queued"] % {"error": f"{exc.__class__.__name__}: {exc}"},
                },
            )
        logger.exception("the inline sync of MCP server %s failed", server.name)
    record.refresh_from_db()
    return record


def resync_all() -> list[str]:
    """The periodic re-sync (the schedule ``RESYNC_SCHEDULE``): queue a sync of every enabled
    server (trigger ``schedule``), skipping one whose sync is still running. Returns what it did,
    one line a server (the task's result)."""
    done = []
    for server in McpServer.objects.filter(enabled=True).order_by("name"):
        try:
            record = sync_enqueue(server=server, trigger="schedule")
        except SyncAlreadyRunning:
            done.append(f"{server.name}: already running")
            continue
        done.append(f"{server.name}: record {record.pk} {record.outcome}")
    return done


def schedules_ensure(**_kwargs: Any) -> None:
    """Make the worker's schedule match ``SKILL_CONSOLE_MCP_RESYNC_MINUTES``: a re-sync every N
    minutes, or none at 0 (after every ``migrate``: a ``post_migrate`` receiver)."""
    from django_q.models import Schedule

    minutes = int(settings.SKILL_CONSOLE_MCP_RESYNC_MINUTES)
    if minutes <= 0:
        Schedule.objects.filter(name=RESYNC_SCHEDULE).delete()
        return
    Schedule.objects.update_or_create(
        name=RESYNC_SCHEDULE,
        defaults={
            "func": "skills_app.mcp.tasks.resync_all",
            "schedule_type": Schedule.MINUTES,
            "minutes": minutes,
            "repeats": -1,
        },
    )


# --- test call ----------------------------------------------------------------------------------


def tool_call_task(tool_name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The task: one ``tools/call`` of the tool named ``tool_name`` (``mcp_sync.mcp_tool_call``):
    ``{"is_error", "text"}`` of the answer, or ``{"error": sentence}`` when there was none."""
    tool = McpTool.objects.select_related("mcp_server").filter(name=tool_name).first()
    if tool is None:
        return {"error": f"tool '{tool_name}' no longer exists"}
    try:
        outcome = mcp_tool_call(tool=tool, arguments=arguments)
    except SyncError as exc:
        return {"error": str(exc)}
    return {"is_error": outcome.is_error, "text": outcome.text}


def tool_call_enqueue(*, tool: McpTool, arguments: dict[str, Any]) -> str:
    """Queue a test call of ``tool``; a signed token naming the task, the tool and when it was
    asked for (``tool_call_state`` reads it back). Raises ``SyncError`` when the task cannot be
    queued."""
    limit = _task_timeout(tool.mcp_server) if tool.mcp_server else int(settings.SKILL_CONSOLE_TASK_MARGIN)
    try:
        task_id = _queue(
            "skills_app.mcp.tasks.tool_call_task", tool.name, arguments, name=f"test call {tool.name}", timeout=limit
        )
    except Exception as exc:  # noqa: BLE001 — the broker's error, in words on the page
        raise SyncError(
            f"the test call of '{tool.name}' could not be queued: {exc.__class__.__name__}: {exc}"
        ) from None
    return signing.dumps({"task": task_id, "tool": tool.name, "at": _clock(), "limit": limit}, salt=CALL_SALT)


@dataclass(frozen=True)
class CallState:
    """Where a queued test call stands: ``pending`` (then ``waited`` seconds so far), else
    ``outcome`` (the server answered) or ``error`` (the sentence why there is no answer)."""

    pending: bool = False
    waited: int = 0
    outcome: CallOutcome | None = None
    error: str = ""


def tool_call_state(token: str, *, tool: McpTool) -> CallState | None:
    """The state of the test call ``token`` stands for; ``None`` for a token that is not one of
    ``tool``'s (forged, or another tool's). A call still without a result past its time limit is
    reported as lost (its worker was stopped, or none runs)."""
    from django_q.models import Task

    try:
        data = signing.loads(token, salt=CALL_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("tool") != tool.name:
        return None
    task = Task.objects.filter(id=data["task"]).first()
    if task is None:
        waited = max(0, int(_clock() - float(data["at"])))
        if waited > float(data["limit"]):
            return CallState(
                error=f"no answer within {data['limit']} seconds: the task worker running the test call "
                "was stopped, or no task worker is running (manage.py qcluster)"
            )
        return CallState(pending=True, waited=waited)
    result = task.result
    if not task.success or not isinstance(result, dict):
        cause = str(result).split(" : ", 1)[0].strip() or "?"
        return CallState(error=f"the test call failed in the task worker: {cause}")
    if "error" in result:
        return CallState(error=str(result["error"]))
    return CallState(outcome=CallOutcome(is_error=bool(result.get("is_error")), text=str(result.get("text", ""))))
