"""Syncing the real demo MCP server (docs/mcp.md) over stdio and streamable HTTP."""

from __future__ import annotations

import copy
import io
import sys

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.management import call_command

from skill_rule import simulate
from skill_rule.releases import gate
from skills_app.catalog import selectors
from skills_app.catalog.services import skill_update
from skills_app.demo.bitmall_mcp import V2_CHANGED, V2_REMOVED
from skills_app.mcp.services import mcp_server_save
from skills_app.mcp.sync import (
    ListedTool,
    SyncError,
    _describe,
    _listed,
    _run,
    demo_server_args,
    mcp_server_sync,
    only_call_targets_changed,
    schema_diff,
)
from skills_app.models import BuiltinTool, McpServer, McpSyncRecord, McpTool, Skill
from skills_app.releases.selectors import draft_sha256, publish_review, release_latest
from tests.mcp.support import http_demo, set_variant, stdio_server

pytestmark = pytest.mark.django_db(transaction=False)

BITMALL_TOOLS = [
    "query_order",
    "query_logistics",
    "query_after_sale",
    "apply_after_sale",
    "cancel_order",
    "change_address",
    "search_product",
    "query_cart",
    "query_coupons",
    "update_cart_item",
    "create_order",
    "pay_order",
    "submit_ticket",
    "current_date",
]


def tool_rows(server) -> dict[str, McpTool]:
    return {t.name: t for t in McpTool.objects.filter(mcp_server=server)}


def snapshot_of(server) -> list[tuple]:
    return sorted(
        (t.name, t.tool_name, repr(t.input_schema), t.removed_at) for t in McpTool.objects.filter(mcp_server=server)
    )


def test_stdio_sync_stores_the_14_tools_with_schemas_and_annotations(bitmall):
    server = stdio_server()
    record = mcp_server_sync(server=server, trigger="test")
    assert (record.outcome, record.message) == ("ok", "14 tools; 14 added; 0 removed; 0 changed")
    rows = tool_rows(server)
    assert sorted(rows) == sorted(BITMALL_TOOLS)
    cancel = rows["cancel_order"]
    assert cancel.tool_name == "cancel_order"
    assert cancel.input_schema["required"] == ["order_no"]
    assert cancel.annotations == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    assert rows["query_order"].annotations["readOnlyHint"] is True
    # confirmation follows the annotations: the seven write tools confirm, as the demo always had it
    draft = selectors.catalog_draft()
    assert sorted(t.name for t in draft.tools if t.require_confirm) == sorted(
        [
            "apply_after_sale",
            "cancel_order",
            "change_address",
            "update_cart_item",
            "create_order",
            "pay_order",
            "submit_ticket",
        ]
    )
    server.refresh_from_db()
    assert (server.last_sync_ok, server.last_sync_message) == (True, record.message)
    # a second sync changes nothing
    again = mcp_server_sync(server=server, trigger="test")
    assert (again.added, again.removed, again.changed) == ([], [], [])


def test_seed_rounds_are_unchanged_after_the_sync(bitmall):
    from skill_rule.scripts import parse_script
    from skills_app.models import Scenario

    mcp_server_sync(server=stdio_server(), trigger="test")
    sim = simulate(selectors.catalog_draft(), parse_script(Scenario.objects.get(name="cancel-iphone").script))
    assert [r.view.count for r in sim.rounds] == [11, 13, 13]


def test_streamable_http_sync_stores_the_14_tools(bitmall):
    with http_demo() as url:
        server = mcp_server_save(
            name="bitmall-http",
            transport="streamable-http",
            url=url,
            headers={"X-Api-Key": "s3cret"},
            timeout_seconds=60,
        )
        record = mcp_server_sync(server=server, trigger="test")
    assert record.outcome == "ok", record.message
    assert record.tool_count == 14
    # the demo YAML's definitions were adopted by the first server that listed them
    assert len(tool_rows(server)) == 14
    assert tool_rows(server)["apply_after_sale"].input_schema["properties"]["type"]["enum"] == [
        "退货退款",
        "换货",
        "仅退款",
    ]


def test_v2_removes_a_tool_changes_a_schema_and_breaks_the_skill(bitmall):
    server = stdio_server()
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    record = mcp_server_sync(server=set_variant(server, "v2"), trigger="test")
    assert record.outcome == "ok", record.message
    assert record.removed == [V2_REMOVED]
    assert [c["tool"] for c in record.changed] == [V2_CHANGED]
    assert record.changed[0]["fields"] == ["inputSchema"]
    assert any('+    "channel": {' in line for line in record.changed[0]["diff"])
    assert record.unavailable_nodes == [{"node": "change_address_topic", "tool": "change_address"}]
    assert record.broken_skills == [{"skill": "order_change", "tools": ["change_address"]}]
    assert record.message == "13 tools; 0 added; 1 removed; 1 changed; broken skills: order_change"
    # never silently deleted: the row stays, flagged
    assert McpTool.objects.get(name="change_address").removed_at is not None
    assert selectors.broken_skills() == {"order_change": [("change_address", "unavailable")]}
    reasons = [(r.code, str(r.message)) for r in gate(publish_review())]
    assert (
        "gate_unavailable",
        "skill 'order_change' is broken: it gates 'change_address', which MCP server "
        "'bitmall' no longer offers (sync the server again, or remove the tool from the skill)",
    ) in reasons
    # syncing v1 again brings it back
    back = mcp_server_sync(server=set_variant(server, "v1"), trigger="test")
    assert (back.added, back.removed) == ([V2_REMOVED], [])
    assert selectors.broken_skills() == {}


@pytest.mark.parametrize(
    "variant, message",
    [
        ("hang", "server 'bitmall': no complete answer within the time limit of 5 seconds"),
        (
            "die",
            "server 'bitmall': MCPError: Connection closed (server stderr: bitmall_mcp: dying mid-list (variant 'die'))",
        ),
        ("loop", "server 'bitmall': tools/list repeated cursor '5'; the list never ends"),
        ("endless", "server 'bitmall': tools/list still had a next cursor after 1000 pages"),
    ],
)
def test_a_failing_server_leaves_the_previous_tool_set_untouched(bitmall, variant, message):
    server = stdio_server()
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    before = snapshot_of(server)
    record = mcp_server_sync(server=set_variant(server, variant), trigger="test")
    assert (record.outcome, record.message) == ("failed", message)
    assert snapshot_of(server) == before
    server.refresh_from_db()
    assert (server.last_sync_ok, server.last_sync_message) == (False, record.message)
    assert selectors.broken_skills() == {}
    # one record, written at the end, saying when the sync began (before the server was asked)
    stored = McpSyncRecord.objects.filter(server=server).order_by("id").last()
    assert (stored.pk, stored.outcome, stored.message) == (record.pk, "failed", message)
    if variant == "hang":  # the time limit (5 s) ran out between the start and the end
        assert (stored.finished_at - stored.started_at).total_seconds() >= 5


def test_a_failing_http_server_leaves_the_previous_tool_set_untouched(bitmall):
    with http_demo() as url:
        server = mcp_server_save(name="shop-http", transport="streamable-http", url=url, timeout_seconds=60)
        assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    before = snapshot_of(server)
    with http_demo("die") as url:
        server = mcp_server_save(
            name="shop-http", transport="streamable-http", url=url, timeout_seconds=60, instance=server
        )
        record = mcp_server_sync(server=server, trigger="test")
    assert (record.outcome, record.message) == (
        "failed",
        "server 'shop-http': RemoteProtocolError: Server disconnected without sending a response.",
    )
    assert snapshot_of(server) == before


def test_an_http_server_gets_the_headers_of_its_record(bitmall):
    """A server that asks for a bearer token syncs with the token in the record's headers and
    refuses the sync without it (the headers reach the server on every request)."""
    with http_demo(token="s3cret") as url:
        server = mcp_server_save(
            name="shop-http",
            transport="streamable-http",
            url=url,
            timeout_seconds=60,
            headers={"Authorization": "Bearer s3cret"},
        )
        synced = mcp_server_sync(server=server, trigger="test")
        assert (synced.outcome, synced.tool_count) == ("ok", 14)
        server = mcp_server_save(
            name="shop-http", transport="streamable-http", url=url, timeout_seconds=60, headers={}, instance=server
        )
        refused = mcp_server_sync(server=server, trigger="test")
    # the SDK reports a 401 to initialize without its status
    assert (refused.outcome, refused.message) == (
        "failed",
        "server 'shop-http': MCPError: Server returned an error response",
    )


def test_an_unreachable_server_is_a_recorded_failure(db):
    server = mcp_server_save(name="nowhere", transport="stdio", command="/nonexistent/mcp-server", timeout_seconds=3)
    record = mcp_server_sync(server=server, trigger="test")
    assert (record.outcome, record.message) == (
        "failed",
        "server 'nowhere': FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/mcp-server'",
    )


def _manage(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_sync_mcp_demo_registers_the_server_syncs_it_and_publishes_only_the_call_targets(db):
    """``make run``'s ``sync_mcp --demo``: the demo server record made with this Python, its 14
    tools synced, and the draft — the demo release plus the call targets the sync filled in —
    published at once; the second run registers, adds and publishes nothing."""
    assert "published release 1 (demo catalog 'bitmall')" in _manage("load_demo", "bitmall")
    first = _manage("sync_mcp", "--demo", "--trigger", "make run")
    assert first.splitlines() == [
        f"registered the demo MCP server 'bitmall' (stdio: {sys.executable} -m skills_app.demo.bitmall_mcp)",
        "synced 'bitmall': 14 tools; 14 added; 0 removed; 0 changed",
        "published release 2 (call targets of the synced demo MCP server 'bitmall'); the runtime maps calls back "
        "to the server",
    ]
    latest = release_latest()
    assert (latest.number, latest.author_name, draft_sha256() == latest.sha256) == (2, "manage.py", True)
    assert McpServer.objects.get(name="bitmall").args == ["-m", "skills_app.demo.bitmall_mcp"]
    again = _manage("sync_mcp", "--demo", "--trigger", "make run")
    assert again.splitlines() == ["synced 'bitmall': 14 tools; 0 added; 0 removed; 0 changed"]
    assert release_latest().number == 2


def test_sync_mcp_demo_publishes_nothing_when_the_draft_differs_by_more_than_call_targets(db):
    """A skill edited after the demo release: the sync's call targets are not published on
    their own (the edit would ride along unreviewed); release 1 stays the latest."""
    _manage("load_demo", "bitmall")
    skill = Skill.objects.get(skill_code="order_change")
    skill_update(skill=skill, description="改过的说明", expected_version=skill.version)
    out = _manage("sync_mcp", "--demo")
    assert out.splitlines()[-1] == "synced 'bitmall': 14 tools; 14 added; 0 removed; 0 changed"
    assert release_latest().number == 1


def test_sync_mcp_demo_keeps_a_demo_server_record_staff_changed_and_publishes_no_schema_change(db):
    """The ``bitmall`` record exists (staff pointed it at the v2 server): it is synced as it is,
    not registered again; v2 changes a schema and removes a tool, which are not call targets, so
    nothing is published."""
    _manage("load_demo", "bitmall")
    set_variant(stdio_server(), "v2")
    out = _manage("sync_mcp", "--demo")
    assert out.splitlines()[0] == "synced 'bitmall': 13 tools; 13 added; 0 removed; 0 changed"
    assert McpServer.objects.get(name="bitmall").args == ["-m", "skills_app.demo.bitmall_mcp", "--variant", "v2"]
    assert release_latest().number == 1


def test_sync_mcp_demo_publishes_nothing_before_the_demo_release(bitmall):
    """The demo loaded without ``load_demo``'s first release: the sync publishes no first release
    of its own (that is ``load_demo``'s, or staff's)."""
    out = _manage("sync_mcp", "--demo")
    assert out.splitlines()[-1] == "synced 'bitmall': 14 tools; 14 added; 0 removed; 0 changed"
    assert release_latest() is None


def _stored_query_order(**changes) -> McpTool:
    fields = dict(
        name="query_order",
        title="查询订单",
        description="按订单号查询",
        input_schema={
            "type": "object",
            "required": ["order_no"],
            "properties": {"order_no": {"type": "string"}, "limit": {"type": "integer", "description": "最多几条"}},
        },
        output_schema=None,
        annotations={"readOnlyHint": True, "openWorldHint": False},
    )
    return McpTool(**{**fields, **changes})


def _listed_as_stored(stored: McpTool, **changes) -> ListedTool:
    fields = dict(
        name=stored.name,
        title=stored.title,
        description=stored.description,
        input_schema=copy.deepcopy(stored.input_schema),
        output_schema=stored.output_schema,
        annotations=dict(stored.annotations),
    )
    return ListedTool(**{**fields, **changes})


def test_a_schema_diff_names_each_changed_field_by_its_wire_name_with_a_line_diff():
    """The sync record's diff (the server page's history): JSON fields as sorted, indented JSON
    (Chinese kept) with two lines of context, text fields as one line before and after."""
    stored = _stored_query_order()
    schema = copy.deepcopy(stored.input_schema)
    schema["properties"]["channel"] = {"type": "string"}
    listed = _listed_as_stored(
        stored,
        title="订单查询",
        input_schema=schema,
        output_schema={"type": "object"},
        annotations={"readOnlyHint": False, "openWorldHint": False},
    )
    assert schema_diff(stored, listed) == {
        "fields": ["inputSchema", "outputSchema", "annotations", "title"],
        "diff": [
            "--- inputSchema (before)",
            "+++ inputSchema (after)",
            "@@ -1,4 +1,7 @@",
            " {",
            '   "properties": {',
            '+    "channel": {',
            '+      "type": "string"',
            "+    },",
            '     "limit": {',
            '       "description": "最多几条",',
            "--- outputSchema (before)",
            "+++ outputSchema (after)",
            "@@ -0,0 +1,3 @@",
            "+{",
            '+  "type": "object"',
            "+}",
            "--- annotations (before)",
            "+++ annotations (after)",
            "@@ -1,4 +1,4 @@",
            " {",
            '   "openWorldHint": false,',
            '-  "readOnlyHint": true',
            '+  "readOnlyHint": false',
            " }",
            "--- title (before)",
            "+++ title (after)",
            "-查询订单",
            "+订单查询",
        ],
    }


def test_a_schema_diff_of_a_later_field_alone_and_of_nothing():
    stored = _stored_query_order()
    assert schema_diff(stored, _listed_as_stored(stored, description="按单号查")) == {
        "fields": ["description"],
        "diff": ["--- description (before)", "+++ description (after)", "-按订单号查询", "+按单号查"],
    }
    # no output schema stored and an empty one listed: the same
    assert schema_diff(stored, _listed_as_stored(stored, output_schema={})) is None


@pytest.mark.parametrize(
    ("exc", "line"),
    [
        (
            ExceptionGroup("task group", [ValueError("first line\nsecond line"), KeyError("x")]),
            "ValueError: first line",
        ),
        (
            BaseExceptionGroup("outer", [ExceptionGroup("inner", [OSError("  spawn failed  ")])]),
            "OSError: spawn failed",
        ),
        (TimeoutError(), "TimeoutError"),
        (RuntimeError("   \n  "), "RuntimeError"),
    ],
)
def test_a_failure_is_described_in_one_line_from_the_first_leaf_of_a_group(exc, line):
    """What a failed sync or call records: the class of the first exception a task group wraps and
    the first line of its message, or the class alone when the message is blank."""
    assert _describe(exc) == line


async def _in_a_task_group(exc: BaseException, errlog) -> None:
    import anyio

    async def fail() -> None:
        errlog.write("last words\n")
        raise exc

    async with anyio.create_task_group() as group:
        group.start_soon(fail)


async def _past_the_limit(errlog) -> None:
    import anyio

    errlog.write("still thinking\n")
    await anyio.sleep(5)


async def _timeout_inside(errlog) -> None:
    raise TimeoutError("timed out")


async def _long_stderr(errlog) -> None:
    errlog.write("x" * 100 + "y" * 398 + "\n\n")
    raise OSError("gone")


async def _bytes_on_stderr(errlog) -> None:
    import os

    os.write(errlog.fileno(), b"caf\xc3\xa9 \xff\xfe\n")  # what a server process writes: bytes, not always UTF-8
    raise OSError("gone")


@pytest.mark.parametrize(
    ("work", "message"),
    [
        # our own sentence, wrapped by the client's task group or not: as it stands, no stderr
        (
            lambda errlog: _in_a_task_group(SyncError("tools/list repeated cursor '5'; the list never ends"), errlog),
            "server 'slow': tools/list repeated cursor '5'; the list never ends",
        ),
        # the limit ran out: the time-limit sentence, with the server's stderr
        (
            _past_the_limit,
            "server 'slow': no complete answer within the time limit of 0.2 seconds (server stderr: still thinking)",
        ),
        # a TimeoutError of a socket inside, before the limit: not the time-limit sentence
        (_timeout_inside, "server 'slow': TimeoutError: timed out"),
        (
            lambda errlog: _in_a_task_group(TimeoutError(), errlog),
            "server 'slow': TimeoutError (server stderr: last words)",
        ),
        (
            lambda errlog: _in_a_task_group(OSError("  spawn failed\nat line 2"), errlog),
            "server 'slow': OSError: spawn failed (server stderr: last words)",
        ),
        # the last 400 characters of stderr, blank ends stripped; bytes that are no UTF-8 replaced
        (_long_stderr, "server 'slow': OSError: gone (server stderr: " + "y" * 398 + ")"),
        (_bytes_on_stderr, "server 'slow': OSError: gone (server stderr: café \ufffd\ufffd)"),
    ],
)
def test_a_failed_exchange_becomes_one_sync_error_naming_the_server_and_the_cause(work, message):
    """``_run``: every failure of the exchange is a ``SyncError`` whose message is the whole sentence
    a sync record or a test call shows (docs/mcp.md)."""
    server = McpServer(name="slow", transport="stdio", timeout_seconds=0.2)
    with pytest.raises(SyncError) as caught:
        _run(server, work)
    assert str(caught.value) == message


def test_a_finished_exchange_returns_what_the_work_returned():
    async def work(errlog):
        return ["query_order"]

    assert _run(McpServer(name="quick", transport="stdio", timeout_seconds=1), work) == ["query_order"]


def test_a_listed_tool_keeps_its_wire_fields_and_may_take_its_title_from_its_annotations():
    """``tools/list`` → ``ListedTool``: the title, else the annotations' title, else ""; no
    description is ""; an empty inputSchema is an object schema; the annotations as sent."""
    import mcp_types as types

    bare = types.Tool(name="q", input_schema={})
    assert _listed(bare) == ListedTool(
        name="q", title="", description="", input_schema={"type": "object"}, output_schema=None, annotations={}
    )
    annotated = types.Tool(
        name="q",
        description="查询",
        input_schema={"type": "object", "required": ["n"]},
        output_schema={"type": "object"},
        annotations=types.ToolAnnotations(title="查询（注解）", read_only_hint=True),
    )
    assert _listed(annotated) == ListedTool(
        name="q",
        title="查询（注解）",
        description="查询",
        input_schema={"type": "object", "required": ["n"]},
        output_schema={"type": "object"},
        annotations={"title": "查询（注解）", "readOnlyHint": True},
    )
    titled = types.Tool(
        name="q",
        title="查询订单",
        input_schema={"type": "object"},
        annotations=types.ToolAnnotations(title="查询（注解）"),
    )
    assert _listed(titled).title == "查询订单"


def test_a_title_longer_than_a_row_holds_is_stored_cut_and_not_changed_at_the_next_sync(db):
    """A server's 250-character title is stored as its first 200 characters (the column's length:
    a longer value would fail on PostgreSQL); the next sync of the same listing reports no change,
    since the listed title is cut the same way before the comparison."""
    import mcp_types as types

    from skills_app.mcp.sync import _apply

    server = mcp_server_save(name="long", transport="stdio", command=sys.executable)
    long_title = "长" * 199 + "ab" + "x" * 49
    listed = [_listed(types.Tool(name="q", title=long_title, input_schema={"type": "object"}))]
    assert listed[0].title == "长" * 199 + "a"
    first = _apply(server, listed, McpSyncRecord(server=server, trigger="test"))
    again = _apply(server, listed, McpSyncRecord(server=server, trigger="test"))
    assert (first.added, first.changed) == (["q"], [])
    assert (again.message, again.added, again.changed) == ("1 tools; 0 added; 0 removed; 0 changed", [], [])
    assert McpTool.objects.get(name="q").title == "长" * 199 + "a"


def test_a_listed_tool_with_an_invalid_input_schema_is_stored_with_every_problem_warned(db):
    """The sync stores what the server lists (the record is the server's truth) but warns, naming
    the tool, the server and each problem; the publish gate then refuses the definition."""
    import mcp_types as types

    from skills_app.mcp.sync import _apply

    server = mcp_server_save(name="odd", transport="stdio", command=sys.executable)
    schema = {"type": "string", "properties": {"x": {"type": "nope"}}}
    listed = [
        _listed(types.Tool(name="bad", input_schema=schema)),
        _listed(types.Tool(name="good", input_schema={"type": "object"})),
    ]
    record = _apply(server, listed, McpSyncRecord(server=server, trigger="test"))
    assert (record.outcome, record.message) == ("ok", "2 tools; 2 added; 0 removed; 0 changed")
    assert record.warning_texts == [
        "tool 'bad' of server 'odd' has an invalid definition: inputSchema must have \"type\": \"object\", got "
        "'string'; inputSchema is not a valid JSON Schema at properties/x/type: 'nope' is not valid under any of the "
        "given schemas (the publish gate refuses it while an MCP node registers it)"
    ]
    assert McpTool.objects.get(name="bad").input_schema == schema
    assert [r.code for r in gate(publish_review())] == []  # no node registers it yet
    from skills_app.catalog.services import intent_node_save

    intent_node_save(intent_code="bad_topic", name="坏工具", kind="MCP", mcp_tool_id="bad")
    assert [(r.code, str(r.message)) for r in gate(publish_review())] == [
        (
            "gate_tool_definition",
            'tool \'bad\' has an invalid definition: inputSchema must have "type": "object", '
            "got 'string'; inputSchema is not a valid JSON Schema at properties/x/type: 'nope' is not valid under any of "
            "the given schemas",
        )
    ]


def test_only_call_targets_changed_needs_a_change_and_nothing_but_targets(bitmall):
    """The demo's automatic publish after ``make run``'s sync: an unchanged draft is not "only call
    targets"; the sync's targets alone are; the targets with a skill edit are not."""
    from skill_rule.releases import catalog_diff

    before = selectors.catalog_draft()
    assert only_call_targets_changed(catalog_diff(before, before)) is False
    assert mcp_server_sync(server=stdio_server(), trigger="test").outcome == "ok"
    synced = selectors.catalog_draft()
    assert only_call_targets_changed(catalog_diff(before, synced)) is True
    skill = Skill.objects.get(skill_code="order_change")
    skill_update(skill=skill, description="改过的说明", expected_version=skill.version)
    assert only_call_targets_changed(catalog_diff(before, selectors.catalog_draft())) is False


def test_sync_mcp_demo_publishes_nothing_after_a_release_staff_made(db):
    """The latest release is not ``load_demo``'s (staff published since, even from the command
    line): the sync's call targets wait for staff to publish them."""
    _manage("load_demo", "bitmall")
    skill = Skill.objects.get(skill_code="order_change")
    skill_update(skill=skill, description="改过的说明", expected_version=skill.version)
    _manage("publish", "--note", "staff's wording")
    assert (release_latest().number, release_latest().author_name) == (2, "manage.py")
    _manage("sync_mcp", "--demo")
    assert release_latest().number == 2


def test_a_disabled_server_is_not_synced_and_the_failure_is_recorded_on_it(db, django_user_model):
    """Who started a sync, and what a failed one leaves: the record (outcome, message, who, the
    trigger) and the server's last-sync fields, in the database and on the instance passed."""
    staff = django_user_model.objects.create_user("ops", password="x")
    server = mcp_server_save(
        name="off", transport="stdio", command=sys.executable, args=["-c", "pass"], timeout_seconds=3, enabled=False
    )
    record = mcp_server_sync(server=server, user=staff, trigger="console")
    assert (record.outcome, record.message, record.started_by, record.started_by_name, record.trigger) == (
        "failed",
        "server 'off' is disabled; enable it to sync",
        staff,
        "ops",
        "console",
    )
    assert record.finished_at is not None and record.pk is not None
    assert (server.last_sync_ok, server.last_sync_message, server.last_sync_at) == (
        False,
        record.message,
        record.finished_at,
    )
    stored = McpServer.objects.get(pk=server.pk)
    assert (stored.last_sync_ok, stored.last_sync_message, stored.last_sync_at) == (
        False,
        record.message,
        record.finished_at,
    )
    by_cron = mcp_server_sync(server=server, user=AnonymousUser(), trigger="cron")
    assert (by_cron.started_by, by_cron.started_by_name) == (None, "cron")


def test_the_demo_server_runs_this_python_on_the_demo_module_in_a_variant():
    assert demo_server_args() == ["-m", "skills_app.demo.bitmall_mcp"]
    assert demo_server_args("v2") == ["-m", "skills_app.demo.bitmall_mcp", "--variant", "v2"]


def test_a_stdio_server_gets_the_environment_of_its_record(bitmall):
    """The record's ``env`` reaches the server process: the demo server reads its variant from
    ``BITMALL_MCP_VARIANT``, so v2's 13 tools come back."""
    server = mcp_server_save(
        name="bitmall",
        transport="stdio",
        command=sys.executable,
        args=demo_server_args(),
        env={"BITMALL_MCP_VARIANT": "v2"},
        timeout_seconds=60,
    )
    record = mcp_server_sync(server=server, trigger="test")
    assert (record.outcome, record.message) == ("ok", "13 tools; 13 added; 0 removed; 0 changed")


def test_a_typed_in_definition_naming_the_server_is_neither_taken_nor_removed_by_its_sync(bitmall):
    """Only this server's synced tools (and the orphans a deleted record of its name left) are
    its own: a definition staff typed in with the server's name but never synced stays as it is."""
    typed = McpTool.objects.create(name="manual_refund", server="bitmall", input_schema={"type": "object"})
    record = mcp_server_sync(server=stdio_server(), trigger="test")
    assert (record.outcome, record.removed) == ("ok", [])
    typed.refresh_from_db()
    assert (typed.removed_at, typed.mcp_server_id, typed.synced_at) == (None, None, None)


def test_a_sync_leaves_the_orphans_of_another_servers_deleted_record_alone(bitmall):
    """Orphans are taken back only by a server registered again under their server's name."""
    assert mcp_server_sync(server=stdio_server("dotted", name="shop"), trigger="test").outcome == "ok"
    McpServer.objects.filter(name="shop").delete()
    record = mcp_server_sync(server=stdio_server(), trigger="test")
    assert (record.outcome, record.removed) == ("ok", [])
    orphans = McpTool.objects.filter(server="shop")
    assert orphans.count() == 14
    assert {(t.mcp_server_id, t.removed_at) for t in orphans} == {(None, None)}


def test_a_second_server_listing_the_same_tool_names_gets_its_own_names_not_the_first_ones_tools(bitmall):
    """Two servers offering ``query_order``: the second's tools are named ``<server>__<name>``
    (with a warning); the first server's rows stay its own."""
    first = stdio_server()
    assert mcp_server_sync(server=first, trigger="test").outcome == "ok"
    second = stdio_server(name="other")
    record = mcp_server_sync(server=second, trigger="test")
    assert (record.outcome, record.message) == ("ok", "14 tools; 14 added; 0 removed; 0 changed")
    assert sorted(t.name for t in McpTool.objects.filter(mcp_server=second))[:2] == [
        "other__apply_after_sale",
        "other__cancel_order",
    ]
    assert McpTool.objects.filter(mcp_server=first).count() == 14
    assert McpTool.objects.get(name="query_order").mcp_server_id == first.pk


def test_a_typed_in_definition_holding_a_synced_tools_model_name_is_not_taken_over(bitmall):
    """A definition staff typed in as ``bitmall-query-order`` (never synced) keeps that name; the
    dotted server's ``bitmall.query-order`` is named around it."""
    typed = McpTool.objects.create(name="bitmall-query-order", input_schema={"type": "object"})
    McpTool.objects.create(name="bitmall-cancel-order", server="legacy", input_schema={"type": "object"})
    BuiltinTool.objects.create(name="bitmall-pay-order", description="a builtin the runtime added")
    server = stdio_server("dotted", name="shop")
    record = mcp_server_sync(server=server, trigger="test")
    assert record.outcome == "ok"
    typed.refresh_from_db()
    assert (typed.mcp_server_id, typed.synced_at, typed.tool_name) == (None, None, "")
    assert McpTool.objects.get(mcp_server=server, tool_name="bitmall.query-order").name == "shop__bitmall-query-order"
    # a BuiltinTool row's name is reserved like the three builtins
    assert McpTool.objects.get(mcp_server=server, tool_name="bitmall.pay-order").name == "shop__bitmall-pay-order"
    # the warnings name who holds each name: the server a typed-in definition names, a builtin, or
    # a definition typed in without a server
    assert record.warning_texts == [
        "tool 'bitmall.query-order' of server 'shop' is offered as 'shop__bitmall-query-order': 'bitmall-query-order' "
        "is the name of a tool definition typed in without a server",
        "tool 'bitmall.cancel-order' of server 'shop' is offered as 'shop__bitmall-cancel-order': "
        "'bitmall-cancel-order' is the name of server 'legacy'",
        "tool 'bitmall.pay-order' of server 'shop' is offered as 'shop__bitmall-pay-order': "
        "'bitmall-pay-order' is the name of a builtin tool",
    ]


def test_a_tool_listed_twice_is_offered_in_neither_copy_and_the_tools_after_it_are_kept(bitmall):
    """A server listing one real name twice (the ``twice`` variant: ``query_order`` first and
    again at the end) cannot say which definition is meant: neither is offered (the tool is removed
    like one the server dropped, its node unavailable), the warning says so, and every other tool,
    before or after the copies, is synced as usual (docs/mcp.md, naming rule)."""
    server = stdio_server()
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    record = mcp_server_sync(server=set_variant(server, "twice"), trigger="test")
    assert (record.outcome, record.message) == ("ok", "13 tools; 0 added; 1 removed; 0 changed")
    assert (record.tool_count, record.added, record.removed, record.changed) == (13, [], ["query_order"], [])
    assert record.warning_texts == ["server 'bitmall' lists tool 'query_order' 2 times; none of them is offered"]
    assert record.unavailable_nodes == [{"node": "query_order_topic", "tool": "query_order"}]
    rows = tool_rows(server)
    assert sorted(name for name, t in rows.items() if t.removed_at is None) == sorted(BITMALL_TOOLS[1:])
    assert rows["query_order"].removed_at is not None


def test_a_name_held_since_the_last_sync_stays_when_what_qualified_it_goes_away(bitmall):
    """``shop``'s ``bitmall.query-order`` was named ``shop__bitmall-query-order`` around a
    definition typed in as ``bitmall-query-order``; when that definition is deleted the next sync
    keeps the held name (the runtime and the skills refer to it), with no warning left."""
    typed = McpTool.objects.create(name="bitmall-query-order", input_schema={"type": "object"})
    server = stdio_server("dotted", name="shop")
    first = mcp_server_sync(server=server, trigger="test")
    assert first.warning_texts == [
        "tool 'bitmall.query-order' of server 'shop' is offered as 'shop__bitmall-query-order': 'bitmall-query-order' "
        "is the name of a tool definition typed in without a server"
    ]
    # the tool page shows the row's own copy of its warning; the other tools have none
    warned = {t.tool_name: t.naming_warning for t in McpTool.objects.filter(mcp_server=server) if t.naming_warning}
    assert warned == {"bitmall.query-order": first.warning_texts[0]}
    typed.delete()
    again = mcp_server_sync(server=server, trigger="test")
    assert (again.outcome, again.message, again.warnings) == ("ok", "14 tools; 0 added; 0 removed; 0 changed", [])
    held = McpTool.objects.get(mcp_server=server, tool_name="bitmall.query-order")
    assert (held.name, held.naming_warning) == ("shop__bitmall-query-order", "")
    assert not McpTool.objects.filter(name="bitmall-query-order").exists()


def test_an_orphan_its_server_had_already_dropped_is_taken_back_still_removed(bitmall):
    """``change_address`` left with v2, then the record was deleted (every row orphaned). The
    server registered again takes back all its orphans — the dropped one too, still removed since
    the sync that dropped it (not removed again, not offered), so nothing stays orphaned."""
    server = stdio_server()
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    assert mcp_server_sync(server=set_variant(server, "v2"), trigger="test").removed == [V2_REMOVED]
    dropped_at = McpTool.objects.get(name=V2_REMOVED).removed_at
    McpServer.objects.filter(name="bitmall").delete()
    assert set(selectors.orphaned_tools()) == set(BITMALL_TOOLS)
    again = set_variant(stdio_server(), "v2")
    record = mcp_server_sync(server=again, trigger="test")
    assert (record.outcome, record.message, record.removed) == ("ok", "13 tools; 13 added; 0 removed; 0 changed", [])
    assert selectors.orphaned_tools() == {}
    row = McpTool.objects.get(name=V2_REMOVED)
    assert (row.mcp_server_id, row.removed_at) == (again.pk, dropped_at)


def test_only_live_mcp_nodes_of_a_removed_tool_are_reported_unavailable(db):
    """The record's unavailable nodes are the nodes that register the removed tool: live MCP
    nodes, by intent code. A soft-deleted node, or a knowledge-base node left holding the tool's
    id (written before ``IntentNode.clean`` refused that), registers nothing and is not listed."""
    import mcp_types as types
    from django.utils import timezone

    from skills_app.catalog.services import intent_node_save
    from skills_app.mcp.sync import _apply
    from skills_app.models import IntentNode

    server = mcp_server_save(name="odd", transport="stdio", command=sys.executable)
    both = [_listed(types.Tool(name=n, input_schema={"type": "object"})) for n in ("keep", "gone")]
    _apply(server, both, McpSyncRecord(server=server, trigger="test"))
    for code in ("z_gone_topic", "a_gone_topic", "deleted_gone_topic"):
        intent_node_save(intent_code=code, name=code, kind="MCP", mcp_tool_id="gone")
    IntentNode.objects.filter(intent_code="deleted_gone_topic").update(deleted_at=timezone.now())
    kb = intent_node_save(intent_code="kb_topic", name="知识库", kind="KB")
    IntentNode.objects.filter(pk=kb.pk).update(mcp_tool_id="gone")
    from skills_app.catalog.services import skill_create

    for code in ("beta_gate", "alpha_gate"):  # two skills gating the tool: both broken, named in code order
        skill_create(skill_code=code, name=code, description="管住 gone", content="# 手册", tool_ids=["gone"])
    record = _apply(server, both[:1], McpSyncRecord(server=server, trigger="test"))
    assert (record.removed, record.message) == (
        ["gone"],
        "1 tools; 0 added; 1 removed; 0 changed; broken skills: alpha_gate, beta_gate",
    )
    assert record.broken_skills == [
        {"skill": "alpha_gate", "tools": ["gone"]},
        {"skill": "beta_gate", "tools": ["gone"]},
    ]
    assert record.unavailable_nodes == [
        {"node": "a_gone_topic", "tool": "gone"},
        {"node": "z_gone_topic", "tool": "gone"},
    ]


def test_one_invalid_tool_is_refused_by_name_and_the_valid_tools_still_arrive(bitmall):
    """The ``invalid`` variant lists, after its third tool, an entry whose ``inputSchema`` is a
    text and an entry without a name. The SDK's ``list_tools`` would refuse the whole list (one
    pydantic error); the sync checks each entry on its own: the 14 valid tools arrive, across
    the pages, and each refused entry is named — by its name, or by its position when it has none
    — with the cause (docs/mcp.md, "One invalid tool")."""
    server = stdio_server("invalid")
    record = mcp_server_sync(server=server, trigger="test")
    assert (record.outcome, record.message) == ("ok", "14 tools; 14 added; 0 removed; 0 changed")
    assert sorted(tool_rows(server)) == sorted(BITMALL_TOOLS)
    assert record.warning_texts == [
        "server 'bitmall' lists tool 'broken_lookup' with a definition the MCP schema refuses "
        "(inputSchema: Input should be a valid dictionary); it is not offered",
        "server 'bitmall' lists tool '#4' with a definition the MCP schema refuses "
        "(name: Field required); it is not offered",
    ]
    assert not McpTool.objects.filter(name="broken_lookup").exists()


def test_a_tool_turning_invalid_is_removed_like_one_no_longer_listed(bitmall):
    """A tool the server held and now lists with a refused definition is not kept with its old
    definition: it is removed (its node unavailable), fail closed."""
    from skills_app.mcp.sync import Listing, RefusedTool, _apply

    server = stdio_server()
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    listed = [ListedTool(name=n, input_schema={"type": "object"}) for n in BITMALL_TOOLS if n != "cancel_order"]
    record = _apply(
        server,
        listed,
        McpSyncRecord(server=server, trigger="test"),
        refused=[RefusedTool("cancel_order", "inputSchema: Input should be a valid dictionary")],
    )
    assert record.removed == ["cancel_order"]
    assert record.warning_texts[0] == (
        "server 'bitmall' lists tool 'cancel_order' with a definition the MCP schema "
        "refuses (inputSchema: Input should be a valid dictionary); it is not offered"
    )
    assert Listing(tools=[]).refused == []


def test_contradictory_or_doubtful_hints_mean_confirm_with_a_sync_warning_naming_the_tool(bitmall):
    """The ``hints`` variant: ``apply_after_sale`` plainly read-only, ``cancel_order`` read-only and
    destructive, ``change_address`` with ``readOnlyHint: "true"`` (a text; the SDK's model would
    read it as true). Only the plain one runs without confirmation; the other two confirm and the
    sync record names each with its hints; the annotations are stored as the server wrote them."""
    server = stdio_server("hints")
    record = mcp_server_sync(server=server, trigger="test")
    assert record.outcome == "ok"
    assert record.warning_texts == [
        "server 'bitmall': tool 'cancel_order': annotations say readOnlyHint true and destructiveHint true, "
        "which contradict each other; its calls need confirmation",
        "server 'bitmall': tool 'change_address': annotations.readOnlyHint is 'true', which MCP does not allow "
        "there (a hint is true or false, the annotations an object); its calls need confirmation",
    ]
    rows = tool_rows(server)
    assert rows["change_address"].annotations == {"readOnlyHint": "true", "destructiveHint": False}
    draft = selectors.catalog_draft()
    assert sorted(t.name for t in draft.tools if t.require_confirm) == sorted(
        ["cancel_order", "change_address", "update_cart_item", "create_order", "pay_order", "submit_ticket"]
    )
    from skill_rule.lints import lint_catalog

    assert [(x.skill, x.tool) for x in lint_catalog(draft) if x.code == "gated_read_only"] == [
        ("after_sale_apply", "apply_after_sale")
    ]


def test_a_valid_copy_of_a_refused_tool_is_not_offered_either(bitmall):
    """A server listing ``cancel_order`` twice, one copy refused by the MCP schema: which one is
    meant cannot be told, so neither is offered (as for a name listed twice, docs/mcp.md)."""
    from skills_app.mcp.sync import RefusedTool, _apply

    server = stdio_server()
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    listed = [ListedTool(name=n, input_schema={"type": "object"}) for n in BITMALL_TOOLS]
    record = _apply(
        server,
        listed,
        McpSyncRecord(server=server, trigger="test"),
        refused=[RefusedTool("cancel_order", "inputSchema: Input should be a valid dictionary")],
    )
    assert (record.tool_count, record.removed) == (13, ["cancel_order"])
    assert record.warning_texts == [
        "server 'bitmall' lists tool 'cancel_order' with a definition the MCP schema refuses (inputSchema: Input "
        "should be a valid dictionary); it is not offered",
        "server 'bitmall' lists tool 'cancel_order' again with a definition the MCP schema accepts; with one copy "
        "refused, neither is offered",
    ]


def test_a_page_is_read_entry_by_entry_and_a_broken_page_is_a_sync_error():
    """``_read_page`` (docs/mcp.md, "One invalid tool"): each entry against the SDK's ``Tool`` on
    its own, named by its name or its position in the whole list (``start`` + its place on the
    page); annotations kept as written; a page that is no ``tools/list`` result fails the sync."""
    from skills_app.mcp.sync import RefusedTool, _read_page

    page = {
        "tools": [
            {"name": "x", "inputSchema": "type: object"},
            {"inputSchema": {"type": "object"}},
            {"name": "ok", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "true"}},
            "not an entry",
            {"name": 7, "inputSchema": {"type": "object"}},
        ],
        "nextCursor": "10",
    }
    tools, refused, cursor = _read_page(page, "2025-11-25", 5)
    assert tools == [ListedTool(name="ok", input_schema={"type": "object"}, annotations={"readOnlyHint": "true"})]
    assert refused == [
        RefusedTool("x", "inputSchema: Input should be a valid dictionary"),
        RefusedTool("#6", "name: Field required"),
        RefusedTool("#8", "(item): Input should be a valid dictionary or instance of Tool"),
        RefusedTool("#9", "name: Input should be a valid string"),
    ]
    assert cursor == "10"
    with pytest.raises(SyncError, match=r"^tools/list answered without a list of tools$"):
        _read_page({"tools": {"name": "x"}}, "2025-11-25", 0)
    with pytest.raises(
        SyncError,
        match=r"^tools/list answered a page that is not a tools/list result "
        r"\(nextCursor: Input should be a valid string\)$",
    ):
        _read_page({"tools": [], "nextCursor": 5}, "2025-11-25", 0)


def test_a_tool_a_configured_provider_refuses_is_warned_per_target_and_still_stored(db):
    """docs/providers.md: the sync names each configured target that would refuse the tool and why
    (a rewrite is no refusal); the tool is stored as listed."""
    import mcp_types as types

    from skills_app.mcp.sync import _apply

    server = mcp_server_save(name="wide", transport="stdio", command=sys.executable)
    either = {"type": "object", "properties": {"tags": {"type": "array"}}, "anyOf": [{"required": ["tags"]}]}
    listed = [
        _listed(types.Tool(name="either", description="d" * 1100, input_schema=either)),
        _listed(types.Tool(name="bare", input_schema={"type": "object"})),  # rewritten for OpenAI: no warning
    ]
    record = _apply(server, listed, McpSyncRecord(server=server, trigger="test"))
    assert record.warning_texts == [
        "tool 'either' of server 'wide' would make OpenAI Chat Completions refuse every request that offers it: "
        "the description of 'either' has 1100 characters; at most 1024; the schema of 'either' has an array "
        "without 'items' at 'properties.tags'",
        "tool 'either' of server 'wide' would make Anthropic Messages refuse every request that offers it: "
        "the schema of 'either' has 'anyOf' at the top level",
    ]
    assert McpTool.objects.get(name="either").input_schema == either


def test_oversized_definitions_are_refused_by_name_with_their_bound_and_the_other_tools_arrive(bitmall):
    """The ``oversized`` variant (a real stdio server): ``query_logistics`` with a 20,000-character
    description, ``search_product`` with a 104,464-byte inputSchema and ``query_cart`` with a
    2,000-character title are refused, each named with the bound it breaks (docs/mcp.md, "Bounded
    definitions"); the other 11 tools are stored as in v1."""
    from skills_app.demo.bitmall_mcp import OVERSIZED_DESCRIPTION, OVERSIZED_SCHEMA, OVERSIZED_TITLE

    server = stdio_server("oversized")
    record = mcp_server_sync(server=server, trigger="test")
    assert (record.outcome, record.message) == ("ok", "11 tools; 11 added; 0 removed; 0 changed")
    refused = [OVERSIZED_DESCRIPTION, OVERSIZED_SCHEMA, OVERSIZED_TITLE]
    assert refused == ["query_logistics", "search_product", "query_cart"]
    assert sorted(tool_rows(server)) == sorted(n for n in BITMALL_TOOLS if n not in refused)
    assert record.warning_texts == [
        "server 'bitmall' lists tool 'query_logistics' past the bounds of a synced definition (description is "
        "20,000 characters; the limit is 8,192); it is not offered",
        "server 'bitmall' lists tool 'search_product' past the bounds of a synced definition (inputSchema is "
        "104,464 bytes of canonical JSON; the limit is 65,536); it is not offered",
        "server 'bitmall' lists tool 'query_cart' past the bounds of a synced definition (title is 2,000 "
        "characters; the limit is 1,024); it is not offered",
    ]
    # the demo catalog's typed-in definitions of the three stay as they were: the sync took none over
    typed_in = McpTool.objects.filter(name__in=refused)
    assert sorted((t.name, t.mcp_server_id, len(t.description) < 200) for t in typed_in) == [
        ("query_cart", None, True),
        ("query_logistics", None, True),
        ("search_product", None, True),
    ]
    assert tool_rows(server)["query_order"].description == (
        "查询当前用户的订单；不传参数时返回最近的订单列表，可按订单号或状态筛选。"
    )


def test_a_tool_growing_past_a_bound_is_removed_like_one_no_longer_listed(bitmall):
    """Synced at v1, then the server lists ``search_product`` with an oversized schema: its old
    definition is not kept (fail closed), it is removed and its node unavailable."""
    server = stdio_server()
    assert mcp_server_sync(server=server, trigger="test").tool_count == 14
    record = mcp_server_sync(server=set_variant(server, "oversized"), trigger="test")
    assert (record.outcome, record.tool_count) == ("ok", 11)
    assert sorted(record.removed) == ["query_cart", "query_logistics", "search_product"]
    rows = McpTool.objects.filter(mcp_server=server, removed_at__isnull=False)
    assert sorted(rows.values_list("name", flat=True)) == ["query_cart", "query_logistics", "search_product"]
    assert "search_product" not in selectors.catalog_draft().mcp_tool_names
