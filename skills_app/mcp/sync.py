"""Syncing MCP servers with the official ``mcp`` SDK's client (docs/mcp.md).

``mcp_server_sync`` connects to one server (stdio or streamable HTTP), initializes, lists every
tool following ``nextCursor``, all under the server's time limit, and then — only when the whole
list arrived — applies it in one transaction: tools are added, updated or marked removed
(never deleted), model-facing names assigned (``domain.naming``), and a ``McpSyncRecord`` written
with the added / removed / changed tools, the nodes that became unavailable and the skills that
broke. A server that errors, hangs past the limit or dies mid-list leaves the previous tool set
untouched; the failure is recorded. ``mcp_tool_call`` sends one ``tools/call`` (the tools page's
test call).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import tempfile
from dataclasses import dataclass, field
from typing import Any

import anyio
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from skill_rule import providers
from skill_rule.limits import TOOL_TITLE_MAX_LENGTH
from skill_rule.naming import assign_model_names
from skill_rule.tooldefs import read_annotations, synced_tool_bound_problems, validate_tool_definition
from skills_app.catalog import selectors
from skills_app.core.message_catalog import AUTO_RELEASE_NOTES, SYNC_MESSAGES, problem_entry, sync_entry
from skills_app.models import ConsoleSettings, IntentNode, McpServer, McpSyncRecord, McpTool, Skill

#: A server that keeps answering with new cursors is cut off after this many pages.
MAX_PAGES = 1000
#: Fields compared between two syncs of a tool; the first three get a line diff in the record.
COMPARED = ("input_schema", "output_schema", "annotations", "title", "description")
WIRE = {"input_schema": "inputSchema", "output_schema": "outputSchema"}


class SyncError(Exception):
    """Talking to the server failed; the message says how (and carries the end of its stderr), in
    English: a sentence of ``SYNC_MESSAGES`` (the pages match it to show it in their language,
    ``web.presenters.sync_cause_html``) or the error the server or its SDK raised."""


def _say(code: str, **params: Any) -> str:
    """The English sentence of ``SYNC_MESSAGES[code]`` with ``params`` (a failure's cause, stored as
    text: ``McpSyncRecord.message``)."""
    return SYNC_MESSAGES[code] % params


@dataclass(frozen=True)
class ListedTool:
    """One tool as ``tools/list`` returned it (MCP wire keys turned into fields)."""

    name: str
    title: str = ""
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict)
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] = field(default_factory=dict)


def _title(data: dict[str, Any]) -> str:
    """A dumped ``tools/list`` entry's title as the server sent it: ``title``, else the
    annotations' ``title``, else ``""``."""
    return data.get("title") or (data.get("annotations") or {}).get("title") or ""


def _listed(tool: Any) -> ListedTool:
    """A ``tools/list`` entry as stored: the title cut to what a tool row holds, so a longer one is
    not read as changed at every sync (the record compares the stored row with this)."""
    data = tool.model_dump(by_alias=True, exclude_none=True)  # the fields read are JSON already
    title = _title(data)
    return ListedTool(
        name=data["name"],
        title=title[:TOOL_TITLE_MAX_LENGTH],
        description=data.get("description") or "",
        input_schema=data.get("inputSchema") or {"type": "object"},
        output_schema=data.get("outputSchema"),
        annotations=data.get("annotations") or {},
    )


class _Session:
    """Async context manager: an initialized ``ClientSession`` to ``server`` over its transport."""

    def __init__(self, server: McpServer, errlog: Any) -> None:
        self.server, self.errlog = server, errlog

    async def __aenter__(self):
        from contextlib import AsyncExitStack

        from mcp import ClientSession, StdioServerParameters, stdio_client

        self.stack = AsyncExitStack()
        await self.stack.__aenter__()
        try:
            if self.server.transport == McpServer.Transport.STDIO:
                params = StdioServerParameters(
                    command=self.server.command,
                    args=list(self.server.args or []),
                    env=dict(self.server.env or {}) or None,
                )
                read, write = await self.stack.enter_async_context(stdio_client(params, errlog=self.errlog))
            else:
                from mcp.client.streamable_http import streamable_http_client
                from mcp.shared._httpx_utils import create_mcp_http_client

                client = await self.stack.enter_async_context(
                    create_mcp_http_client(headers=dict(self.server.headers or {}))
                )
                read, write = await self.stack.enter_async_context(
                    streamable_http_client(self.server.url, http_client=client)
                )
            session = await self.stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            return session
        except BaseException:
            await self.stack.__aexit__(None, None, None)
            raise

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self.stack.__aexit__(*exc)


@dataclass(frozen=True)
class RefusedTool:
    """A ``tools/list`` entry the sync refuses (``_read_page``): ``name`` its ``name`` when that is
    a text, else ``#<n>`` (its 0-based position in the whole list). ``reason`` ``schema``: the
    SDK's own model of a tool refuses it, ``cause`` the first validation error as ``field:
    message``; ``bounds``: it is past a bound of a synced definition
    (``tooldefs.synced_tool_bound_problems``), ``cause`` every bound it breaks, joined by ``; ``,
    and ``problems`` those bounds (``Problem``: a page translates them)."""

    name: str
    cause: str
    reason: str = "schema"
    problems: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Listing:
    """What ``tools/list`` returned, every page read: the valid ``tools`` and the ``refused`` ones,
    each in listing order."""

    tools: list[ListedTool]
    refused: list[RefusedTool] = field(default_factory=list)


def _first_error(exc: Any) -> str:
    """``field: message`` of a pydantic ``ValidationError``'s first error (``(item)`` when it is
    about the entry as a whole; the ``tools.0`` of a page holding one entry left out)."""
    error = exc.errors(include_url=False)[0]
    loc = tuple(error.get("loc", ()))
    if loc[:2] == ("tools", 0):
        loc = loc[2:]
    where = ".".join(str(p) for p in loc) or "(item)"
    return f"{where}: {error.get('msg', '')}"


async def _raw_page(session: Any, params: Any) -> Any:
    """One ``tools/list`` answer as the server sent it (JSON, not yet validated), sent the way the
    SDK's ``ClientSession.send_request`` sends it (its stamp: protocol version headers and
    ``_meta``; its read timeout). The SDK validates a whole page at once — one bad tool would fail
    the list (docs/mcp.md, "One invalid tool") — so the page is read raw and each entry checked on
    its own by ``_read_page``. These are the session's private parts the SDK's own
    ``mcp.client.subscriptions`` uses; a newer SDK without them falls back to ``list_tools``."""
    import mcp_types as types

    dispatcher, stamp = getattr(session, "_dispatcher", None), getattr(session, "_stamp", None)
    if dispatcher is None or stamp is None:  # pragma: no cover — the SDK this is pinned to has both
        result = await session.list_tools(params=params)
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)
    data = types.ListToolsRequest(params=params).model_dump(by_alias=True, mode="json", exclude_none=True)
    opts: dict[str, Any] = {}
    stamp(data, opts)
    timeout = getattr(session, "_session_read_timeout_seconds", None)
    if timeout is not None:  # pragma: no cover — the console sets no read timeout; the sync's time limit rules
        opts["timeout"] = timeout
    raw = await dispatcher.send_raw_request(data["method"], data.get("params"), opts)
    # what send_request does to a raw result before validating it: a negative ttlMs floored, a
    # later protocol revision's fields dropped
    from mcp.client import session as sdk

    if isinstance(raw, dict):
        clamp = getattr(sdk, "_clamp_inbound_ttl", None)
        if clamp is not None:
            clamp(raw)
        later = getattr(sdk, "_later_revision_fields", None)
        if later is not None:
            foreign = later("tools/list", getattr(session, "protocol_version", None) or "2025-11-25")
            raw = {key: value for key, value in raw.items() if key not in foreign}
    return raw


def _surface_check(version: str, data: dict[str, Any]) -> None:
    """``data`` (a ``tools/list`` result) against the protocol version's result schema, as
    ``send_request`` checks it; raises pydantic's ``ValidationError`` (a ``ValueError``). A version
    the SDK has no schema for checks nothing (``send_request`` skips it too)."""
    from mcp_types import methods
    from pydantic import ValidationError

    try:
        methods.validate_server_result("tools/list", version, data)
    except ValidationError:
        raise
    except (KeyError, ValueError):  # pragma: no cover — a version the SDK negotiated is one it knows
        pass


def _read_page(raw: Any, version: str, start: int) -> tuple[list[ListedTool], list[RefusedTool], str | None]:
    """``(valid tools, refused entries, next cursor)`` of one raw ``tools/list`` page: the page
    itself (everything but its tools) is checked against the protocol version's result schema —
    a broken page is a ``SyncError`` — then each entry on its own against the SDK's ``Tool``
    (``mcp_types``, as ``list_tools`` would); ``start`` is the position of the page's first
    entry in the whole list. An entry the SDK accepts that is past a bound of a synced definition
    (its title, description or a schema too large: ``tooldefs.synced_tool_bound_problems``,
    docs/mcp.md "Bounded definitions") is refused too, with every bound it breaks. A valid entry
    keeps its ``annotations`` as the server wrote them (the SDK's model would read ``"true"`` as
    true: docs/mcp.md, "Confirmation")."""
    import mcp_types as types
    from pydantic import ValidationError

    if not isinstance(raw, dict) or not isinstance(raw.get("tools"), list):
        raise SyncError(_say("sync_no_tool_list"))
    try:
        _surface_check(version, {**raw, "tools": []})
        page = types.ListToolsResult.model_validate({**raw, "tools": []}, by_name=False)
    except ValidationError as exc:
        raise SyncError(_say("sync_not_a_page", error=_first_error(exc))) from None
    tools: list[ListedTool] = []
    refused: list[RefusedTool] = []
    for k, item in enumerate(raw["tools"]):
        name = item.get("name") if isinstance(item, dict) else None
        label = name if isinstance(name, str) and name else f"#{start + k}"
        try:
            tool = types.Tool.model_validate(item, by_name=False)
            _surface_check(version, {**raw, "tools": [item]})  # the entry as the page's only tool
        except ValidationError as exc:
            refused.append(RefusedTool(label, _first_error(exc)))
            continue
        listed = _listed(tool)
        bounds = synced_tool_bound_problems(
            title=_title(tool.model_dump(by_alias=True, exclude_none=True)),
            description=listed.description,
            input_schema=listed.input_schema,
            output_schema=listed.output_schema,
        )
        if bounds:
            refused.append(RefusedTool(label, "; ".join(bounds), reason="bounds", problems=bounds))
            continue
        if isinstance(item.get("annotations"), dict):  # as written, not as the SDK's model reads them
            listed = dataclasses.replace(listed, annotations=dict(item["annotations"]))
        tools.append(listed)
    return tools, refused, page.next_cursor


async def _list_all(server: McpServer, errlog: Any) -> Listing:
    import mcp_types as types

    listing = Listing(tools=[])
    async with _Session(server, errlog) as session:
        version = getattr(session, "protocol_version", None) or "2025-11-25"
        cursor: str | None = None  # pragma: no mutate
        seen: set[str] = set()
        for _page in range(MAX_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None  # pragma: no mutate
            tools, refused, cursor = _read_page(
                await _raw_page(session, params), version, len(listing.tools) + len(listing.refused)
            )
            listing.tools.extend(tools)
            listing.refused.extend(refused)
            if not cursor:
                return listing
            if cursor in seen:
                raise SyncError(_say("sync_cursor_repeated", cursor=repr(cursor)))
            seen.add(cursor)
    raise SyncError(_say("sync_endless", pages=MAX_PAGES))


def _leaf(exc: BaseException) -> BaseException:
    """The first exception an exception group wraps, through any nesting (the client's task
    groups wrap what happens inside them); ``exc`` itself when it is not a group."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _describe(exc: BaseException) -> str:
    """One line for an exception: its class and the first non-blank line of its message, or the
    class alone when the message is blank (exception groups unwrapped to their first leaf)."""
    exc = _leaf(exc)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__


def payload_entry(problem: providers.PayloadProblem) -> dict[str, Any]:
    """What a provider target refuses in a tool, as an entry of a sync warning: code
    ``sync_payload_<rule>`` (``…_at`` at a path of the schema), its params, and the English
    sentence ``providers.problem_text`` says (an entry of no code for a rule the catalog does not
    know: shown as it is)."""
    code = f"sync_payload_{problem.rule}"
    if problem.path and f"{code}_at" in SYNC_MESSAGES:  # a schema rule, at a path
        code += "_at"
    text = providers.problem_text(problem)
    params = {"tool": problem.tool, "limit": problem.limit, "actual": problem.actual, "path": problem.path}
    if code not in SYNC_MESSAGES:
        return {"code": "", "params": {}, "text": text}
    return {"code": code, "params": params, "text": text}


def _run(server: McpServer, work) -> Any:
    """Run ``work(errlog)`` (a coroutine function) under the server's time limit; translate every
    failure into ``SyncError`` naming the server and the cause. The cause is our own ``SyncError``'s
    sentence as it stands (wrapped by a task group or not, no stderr), the time-limit sentence when
    and only when the limit ran out (a ``TimeoutError`` of a socket inside is described like any
    other failure), else ``_describe``, with the end of the server's stderr (docs/mcp.md)."""
    limit = float(server.timeout_seconds)
    scopes: list[anyio.CancelScope] = []
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:  # pragma: no mutate

        async def main():
            with anyio.fail_after(limit) as scope:
                scopes.append(scope)
                return await work(errlog)

        try:
            return anyio.run(main)
        except (Exception, BaseExceptionGroup) as exc:  # noqa: B036 — transport, protocol, spawn errors and task groups wrapping a cancellation
            leaf = _leaf(exc)
            if isinstance(leaf, SyncError):
                raise SyncError(_say("sync_failed", server=server.name, cause=str(leaf))) from None
            if scopes and scopes[0].cancel_called:
                cause = _say("sync_time_limit", limit=f"{limit:g}")
            else:
                cause = _describe(leaf)
        errlog.seek(0)
        tail = errlog.read()[-400:].strip()
    if tail:
        raise SyncError(_say("sync_failed_stderr", server=server.name, cause=cause, stderr=tail))
    raise SyncError(_say("sync_failed", server=server.name, cause=cause))


def fetch_tools(server: McpServer) -> Listing:
    """Every tool ``server`` lists (initialize, then ``tools/list`` following ``nextCursor``),
    within ``server.timeout_seconds`` for the whole exchange: the valid tools and the refused
    entries (``_read_page``). Raises ``SyncError``."""
    return _run(server, lambda errlog: _list_all(server, errlog))


@dataclass(frozen=True)
class CallOutcome:
    """A test call's answer: ``is_error`` and the text of its content blocks (JSON of structured
    content when there is no text)."""

    is_error: bool
    text: str


def mcp_tool_call(*, tool: McpTool, arguments: dict[str, Any]) -> CallOutcome:
    """Send ``tools/call`` for ``tool`` (by its real name) with ``arguments`` to its server.
    Raises ``SyncError`` when the tool has no server or the call fails (docs/mcp.md, "Test call")."""
    server = tool.mcp_server
    if server is None:
        if tool.orphaned:
            raise SyncError(
                f"tool '{tool.name}' is orphaned: the record of its MCP server '{tool.server}' "
                "was deleted; there is nothing to call"
            )
        raise SyncError(f"tool '{tool.name}' was not synced from a server; there is nothing to call")
    return _call(server, tool.real_name, arguments)


def mcp_call_target(*, target: dict[str, str], arguments: dict[str, Any]) -> CallOutcome:
    """Send ``tools/call`` where a ``check-call`` verdict's ``target`` (``{"server", "tool"}``,
    ``domain.Tool.call_target``) points: the MCP server record named ``server``, the real tool
    name ``tool``. What a runtime does after the guard allowed a call (docs/mcp.md, "How a runtime
    maps calls back"). Raises ``SyncError`` for a target that is no ``{"server", "tool"}`` of
    texts, a server record that does not exist (deleted: fail closed) or is disabled, or a failed
    call."""
    if (
        not isinstance(target, dict)
        or not isinstance(target.get("server"), str)
        or not isinstance(target.get("tool"), str)
    ):
        raise SyncError(f"a call target is {{'server': …, 'tool': …}}, not {target!r}")
    server = McpServer.objects.filter(name=target["server"]).first()
    if server is None:
        raise SyncError(
            f"MCP server '{target['server']}' is not registered (its record was deleted?); "
            f"tool '{target['tool']}' cannot be called"
        )
    if not server.enabled:
        raise SyncError(f"MCP server '{server.name}' is disabled; tool '{target['tool']}' cannot be called")
    return _call(server, target["tool"], arguments)


def _call(server: McpServer, real_name: str, arguments: dict[str, Any]) -> CallOutcome:
    """One ``tools/call`` of ``real_name`` on ``server`` under its time limit."""

    import mcp_types as types

    async def work(errlog):
        async with _Session(server, errlog) as session:
            result = await session.call_tool(real_name, arguments)
        # the text parts, one per line (images and resources have none); else the structured content
        text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent) and c.text)
        if not text and result.structured_content is not None:
            text = json.dumps(
                result.structured_content,
                ensure_ascii=False,  # pragma: no mutate
            )
        return CallOutcome(is_error=result.is_error, text=text)

    return _run(server, work)


def _json_lines(value: Any) -> list[str]:
    if value is None:
        return []
    return json.dumps(
        value,
        indent=2,
        sort_keys=True,
        ensure_ascii=False,  # pragma: no mutate
    ).splitlines()


def schema_diff(before: McpTool, after: ListedTool) -> dict[str, Any] | None:
    """``{"fields": [wire names], "diff": [unified diff lines]}`` of what changed between the
    stored definition and the listed one, or ``None`` when nothing did (the sync record names the
    tool by the model-facing name it has after the sync)."""
    fields_changed, lines = [], []
    for name in COMPARED:
        old, new = getattr(before, name), getattr(after, name)
        if (old or None) == (new or None):
            continue
        wire = WIRE.get(name, name)
        fields_changed.append(wire)
        if name in ("input_schema", "output_schema", "annotations"):
            lines.extend(
                difflib.unified_diff(
                    _json_lines(old), _json_lines(new), f"{wire} (before)", f"{wire} (after)", lineterm="", n=2
                )
            )
        else:
            lines.extend([f"--- {wire} (before)", f"+++ {wire} (after)", f"-{old}", f"+{new}"])
    if not fields_changed:
        return None
    return {"fields": fields_changed, "diff": lines}


def _who(user: Any) -> tuple[Any, str]:
    if getattr(user, "pk", None):  # a saved user; not None, AnonymousUser or the command line
        return user, user.get_username()
    return None, ""


def sync_finish(server: McpServer, record: McpSyncRecord, *, ok: bool, message: str) -> McpSyncRecord:
    """Close a running sync record as succeeded or failed with ``message`` (finished now) and copy
    the outcome onto the server row (``last_sync_*``); returns the record (docs/mcp.md)."""
    now = timezone.now()
    record.outcome = McpSyncRecord.Outcome.OK if ok else McpSyncRecord.Outcome.FAILED
    record.message, record.finished_at = message, now
    record.save()
    McpServer.objects.filter(pk=server.pk).update(last_sync_at=now, last_sync_ok=ok, last_sync_message=message)
    server.last_sync_at, server.last_sync_ok, server.last_sync_message = now, ok, message
    return record


class SyncAlreadyRunning(Exception):
    """A sync of the server is under way (``record``, not past its deadline): no second one starts."""

    def __init__(self, record: McpSyncRecord) -> None:
        super().__init__(
            f"a sync of server '{record.server.name}' is already running (record {record.pk}, "
            f"started {timezone.localtime(record.started_at):%Y-%m-%d %H:%M:%S} by {record.started_by_name or '?'})"
        )
        self.record = record


def sync_deadline(server: McpServer, start: Any = None) -> Any:
    """When a sync of ``server`` started at ``start`` (default now) is abandoned if still running:
    its time limit plus ``SKILL_CONSOLE_TASK_MARGIN`` seconds (the worker's own time to start,
    write the record and be cut off by the task library)."""
    from datetime import timedelta

    from django.conf import settings

    return (start or timezone.now()) + timedelta(
        seconds=float(server.timeout_seconds) + float(settings.SKILL_CONSOLE_TASK_MARGIN)
    )


def abandoned_message(record: McpSyncRecord) -> str:
    """The recorded cause of an abandoned sync (English, like every recorded message)."""
    return _say("sync_abandoned", deadline=f"{timezone.localtime(record.deadline_at):%Y-%m-%d %H:%M:%S}")


def sync_begin(*, server: McpServer, trigger: str, user: Any = None) -> McpSyncRecord:
    """Write the sync's record as ``running`` (who, when, ``trigger``, its deadline) before any
    work; ``mcp_sync_run`` (or the task running it) finishes it. A running record of the same server
    past its deadline is finished as abandoned first; one still under way raises
    ``SyncAlreadyRunning`` (checked and written under the server's row lock on PostgreSQL, SQLite's
    write lock, taken at ``BEGIN``, elsewhere)."""
    with transaction.atomic():
        McpServer.objects.select_for_update().filter(pk=server.pk).first()
        for running in McpSyncRecord.objects.filter(server=server, outcome=McpSyncRecord.Outcome.RUNNING):
            if not running.abandoned:
                running.server = server
                raise SyncAlreadyRunning(running)
            sync_finish(server, running, ok=False, message=abandoned_message(running))
        by, by_name = _who(user)
        now = timezone.now()
        return McpSyncRecord.objects.create(
            server=server,
            started_by=by,
            started_by_name=by_name or trigger,
            trigger=trigger,
            outcome=McpSyncRecord.Outcome.RUNNING,
            started_at=now,
            deadline_at=sync_deadline(server, now),
        )


def sync_claim(record_id: int) -> McpSyncRecord | None:
    """A worker starting the sync of record ``record_id``: the record (its deadline renewed from
    now: waiting in the queue does not eat into the sync's time limit), or ``None`` when there is
    nothing to do — the record is gone or finished, or it was abandoned meanwhile (then it is
    finished as such, and the server is not asked)."""
    with transaction.atomic():
        record = McpSyncRecord.objects.select_for_update().select_related("server").filter(pk=record_id).first()
        if record is None or record.outcome != McpSyncRecord.Outcome.RUNNING:
            return None
        if record.abandoned:
            sync_finish(record.server, record, ok=False, message=abandoned_message(record))
            return None
        record.deadline_at = sync_deadline(record.server)
        record.save(update_fields=["deadline_at"])
        return record


def mcp_server_sync(*, server: McpServer, trigger: str, user: Any = None) -> McpSyncRecord:
    """Sync ``server``'s tools (docs/mcp.md) here and now and return the ``McpSyncRecord`` (outcome
    ``ok`` or ``failed``; never raises for a server problem). ``trigger`` says what started it
    (``console``, ``command``, ``make run``, ``cron``…), ``user`` who. A failed sync changes no
    tool. The record is written as ``running`` first (``sync_begin``: raises
    ``SyncAlreadyRunning``) and finished by ``sync_finish``. The console and the scheduler run the same
    two steps as a background task (``mcp_tasks``)."""
    return mcp_sync_run(sync_begin(server=server, trigger=trigger, user=user))


def mcp_sync_run(record: McpSyncRecord) -> McpSyncRecord:
    """Do the sync a ``running`` record stands for and finish the record."""
    server = record.server
    if not server.enabled:
        return sync_finish(server, record, ok=False, message=_say("sync_disabled", server=server.name))
    try:
        listing = fetch_tools(server)
    except SyncError as exc:
        return sync_finish(server, record, ok=False, message=str(exc))
    return _apply(server, listing.tools, record, refused=listing.refused)


@transaction.atomic
def _apply(
    server: McpServer, listed: list[ListedTool], record: McpSyncRecord, refused: list[RefusedTool] | None = None
) -> McpSyncRecord:
    """Write a complete tool list (one transaction; see ``mcp_server_sync``). ``refused``: the
    entries of the list that are no valid tool (``_read_page``), each named by a warning; a tool
    the server held under a refused name is marked removed like one no longer listed, and a valid
    entry under a refused entry's name is not offered either (which copy is meant cannot be told,
    as with a name listed twice)."""
    refused_names = {r.name for r in refused or ()}
    clashes = [t.name for t in listed if t.name in refused_names]
    if clashes:
        listed = [t for t in listed if t.name not in refused_names]
    # two syncs of one server wait for each other here (PostgreSQL; SQLite serialises every write)
    McpServer.objects.select_for_update().filter(pk=server.pk).first()  # pragma: no mutate
    now = timezone.now()
    # this server's tools, and the orphans a deleted record of the same name left (a server
    # registered again takes them back under the names they held: docs/mcp.md)
    own = Q(mcp_server=server) | Q(
        mcp_server__isnull=True,  # pragma: no mutate
        synced_at__isnull=False,
        server=server.name,
    )
    mine = {t.tool_name or t.name: t for t in McpTool.objects.filter(own)}
    listed_names = {t.name for t in listed}
    others = McpTool.objects.exclude(own)
    taken: dict[str, str] = {}
    adoptable: dict[str, McpTool] = {}
    for t in others:
        if t.mcp_server_id is None and t.name in listed_names and t.tool_name in ("", t.name):
            adoptable[t.name] = t  # a typed-in or demo-YAML definition of this very tool: the sync takes it over
        else:
            # who holds it: the server whose sync wrote it (a synced row's ``server`` is its record's
            # name, which never changes), the server a typed-in definition names, else "" (none)
            taken[t.name] = t.server
    builtins = selectors.builtin_tool_names()
    naming = assign_model_names(
        server.name, [t.name for t in listed], taken=taken, held={k: v.name for k, v in mine.items()}, builtins=builtins
    )
    names = naming.by_tool()
    notes = {t.tool_name: t.warning for t in naming.tools}
    # each warning a ``sync_entry``: its code and params, and the English sentence (docs/mcp.md)
    warnings = [
        sync_entry(
            "sync_refused_bounds", server=server.name, tool=r.name, problems=[problem_entry(p) for p in r.problems]
        )
        if r.reason == "bounds"
        else sync_entry("sync_refused_schema", server=server.name, tool=r.name, error=str(r.cause))
        for r in refused or ()
    ]
    warnings += [sync_entry("sync_refused_copy", server=server.name, tool=n) for n in dict.fromkeys(clashes)]
    warnings += [problem_entry(w) for w in naming.warnings]
    targets = list(ConsoleSettings.current().payload_targets)
    added, changed, kept = [], [], set()
    for tool in listed:
        if tool.name not in names:
            continue  # refused (listed twice)
        model_name = names[tool.name]
        row = mine.get(tool.name) or adoptable.get(model_name)
        fresh = row is None or row.removed_at is not None or row.mcp_server_id is None
        if row is None:
            row = McpTool()  # every field is set below
        elif not fresh:
            diff = schema_diff(row, tool)
            if diff is not None:
                changed.append({"tool": model_name, **diff})
        if fresh:
            added.append(model_name)
        row.name, row.tool_name, row.mcp_server, row.server = model_name, tool.name, server, server.name
        row.title, row.description = tool.title, tool.description
        row.input_schema, row.output_schema, row.annotations = tool.input_schema, tool.output_schema, tool.annotations
        row.naming_warning, row.synced_at, row.removed_at = notes[tool.name], now, None  # "" when not renamed
        for hint in read_annotations(tool.annotations, tool=tool.name).problems:
            warnings.append(sync_entry("sync_hint", server=server.name, problem=problem_entry(hint)))
        problems = validate_tool_definition(model_name, tool.input_schema)
        if problems:
            warnings.append(
                sync_entry(
                    "sync_invalid_definition",
                    tool=tool.name,
                    server=server.name,
                    problems=[problem_entry(p) for p in problems],
                )
            )
        # what each configured provider target refuses in it (docs/providers.md): a warning per tool and target
        refusals = [
            p
            for p in providers.definition_problems(targets, model_name, tool.description, tool.input_schema)
            if p.refuses
        ]
        for target in dict.fromkeys(p.target for p in refusals):
            warnings.append(
                sync_entry(
                    "sync_provider_refuses",
                    tool=model_name,
                    server=server.name,
                    target=providers.PROFILES[target].label,
                    problems=[payload_entry(p) for p in refusals if p.target == target],
                )
            )
        row.save()
        kept.add(row.pk)
    removed = []
    for row in mine.values():
        if row.pk not in kept and (row.removed_at is None or row.mcp_server_id is None):
            if row.removed_at is None:
                removed.append(row.name)
            row.removed_at = row.removed_at or now
            row.mcp_server = server  # an orphan taken back: removed now, no longer orphaned
            row.save(update_fields=["removed_at", "mcp_server"])  # pragma: no mutate
    removed_set = set(removed)
    unavailable_nodes = [
        {"node": n.intent_code, "tool": n.mcp_tool_id}
        for n in IntentNode.objects.filter(
            deleted_at__isnull=True, kind=IntentNode.Kind.MCP, mcp_tool_id__in=removed_set
        ).order_by("intent_code")
    ]
    broken = [
        {"skill": code, "tools": [t for t, _why in missing if t in removed_set]}
        for code, missing in selectors.broken_skills().items()
        if any(t in removed_set for t, _why in missing)
    ]
    record.named_like_skills = [  # never refused: a sync takes what the server offers; the page warns
        {"tool": code, "skill": code}
        for code in Skill.objects.live()
        .filter(skill_code__in=names.values())
        .order_by("skill_code")
        .values_list("skill_code", flat=True)
    ]
    record.tool_count = len(names)
    record.added, record.removed, record.changed = added, removed, changed
    record.unavailable_nodes, record.broken_skills, record.warnings = unavailable_nodes, broken, warnings
    parts = [f"{len(names)} tools", f"{len(added)} added", f"{len(removed)} removed", f"{len(changed)} changed"]
    if broken:
        parts.append("broken skills: " + ", ".join(b["skill"] for b in broken))
    return sync_finish(server, record, ok=True, message="; ".join(parts))


#: The demo's MCP server record (docs/mcp.md, "The demo server").
DEMO_SERVER_NAME = "bitmall"


def demo_server_args(variant: str = "v1") -> list[str]:
    """Arguments of the stdio demo server: ``-m skills_app.demo.bitmall_mcp`` (+ ``--variant``)."""
    return ["-m", "skills_app.demo.bitmall_mcp"] + (["--variant", variant] if variant != "v1" else [])


def demo_server_ensure() -> tuple[McpServer, bool]:
    """The ``bitmall`` stdio server record running the demo server with this Python; created when
    missing, left as staff edited it otherwise. Returns ``(server, created)``."""
    import sys

    from skills_app.mcp.services import mcp_server_save

    server = McpServer.objects.filter(name=DEMO_SERVER_NAME).first()
    if server is not None:
        return server, False
    return mcp_server_save(
        name=DEMO_SERVER_NAME, transport=McpServer.Transport.STDIO, command=sys.executable, args=demo_server_args()
    ), True


def only_call_targets_changed(diff: Any) -> bool:
    """True when a ``domain.releases.CatalogDiff`` changes nothing but tools' call targets
    (``server`` / ``mcp_name``) — and changes at least one."""
    if not diff.tools_changed:
        return False
    rest = (
        diff.skills_added,
        diff.skills_removed,
        diff.skills_changed,
        diff.tools_added,
        diff.tools_removed,
        diff.newly_gated,
        diff.newly_released,
        diff.confirm_changed,
        diff.restrictions_changed,
        diff.settings_changed,
    )
    return not any(rest) and all(c.field in ("server", "mcp_name") for item in diff.tools_changed for c in item.changes)


def demo_publish_call_targets() -> Any:
    """After ``make run``'s first sync of the demo server: when the latest release is the one
    ``load_demo`` published and the draft differs from it only by the call targets the sync
    filled in, publish the draft (note ``call targets of the synced demo MCP server 'bitmall'``)
    so the runtime maps calls back at once (docs/mcp.md). Returns the new ``Release`` or ``None``
    (nothing to do). Raises ``releases.PublishRefused`` like any publish."""
    from skill_rule.releases import catalog_diff
    from skills_app.releases import selectors as releases_selectors
    from skills_app.releases import services as releases_services

    latest = releases_selectors.release_latest()
    if latest is None or latest.author_name != "manage.py" or not latest.note.startswith("demo catalog "):
        return None
    if only_call_targets_changed(catalog_diff(releases_selectors.release_catalog(latest), selectors.catalog_draft())):
        return releases_services.release_publish(
            user=releases_services.COMMAND_LINE,
            note=AUTO_RELEASE_NOTES["demo_targets"] % {"server": DEMO_SERVER_NAME},
        )
    return None
