"""The MCP sync's own messages in the page's language (issue 29): every warning a sync records is
an entry of ``message_catalog.SYNC_MESSAGES`` (code, params, English text), the cause of a failure
and a tool's naming warning are its English sentences, matched to the same catalog; pages show
them in Chinese or English, with what the server wrote (a name, its error, its stderr) as written,
marked ``translate="no"``. The command line keeps the English; a record written before (plain
text), or an entry that no longer fits its template, is shown as stored — never a 500."""

from __future__ import annotations

import io
import re
import sys
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone, translation

from skill_rule import providers
from skill_rule.naming import assign_model_names
from skill_rule.tooldefs import read_annotations, synced_tool_bound_problems, validate_tool_definition
from skills_app.core.message_catalog import (
    NAMING_CODES,
    SYNC_CAUSE_CODES,
    SYNC_FAILURE_CODES,
    SYNC_LIST_SEPARATOR,
    SYNC_MESSAGES,
    sync_entry,
    sync_entry_consistent,
)
from skills_app.mcp.services import mcp_server_save
from skills_app.mcp.sync import _apply, _say, abandoned_message, payload_entry
from skills_app.models import McpSyncRecord, McpTool
from skills_app.web.presenters import naming_warning_html, sync_cause_html, sync_message_html
from tests.mcp.support import stdio_server
from tests.views.html import parse
from tests.views.test_untranslated import english_runs, shown_text

PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def _zh(html) -> str:
    with translation.override("zh-hans"):
        return str(html() if callable(html) else html)


def _findings(html: str) -> list[str]:
    """English runs of ``html`` a Chinese page would show outside ``translate="no"``."""
    return [run for _where, text in shown_text(parse(f"<p>{html}</p>"), "zh-hans") for run in english_runs(text)]


@pytest.mark.parametrize("code", sorted(SYNC_MESSAGES))
def test_every_sync_message_has_a_chinese_sentence_with_the_same_placeholders(code):
    english = SYNC_MESSAGES[code]
    with translation.override("zh-hans"):
        chinese = translation.gettext(english)
    assert chinese != english and re.search(r"[\u4e00-\u9fff]", chinese), code
    assert sorted(PLACEHOLDER.findall(chinese)) == sorted(PLACEHOLDER.findall(english)), code
    # what the crawl reads: nothing but the placeholders' values stays English
    assert not _findings(PLACEHOLDER.sub("<span translate='no'>x</span>", chinese)), chinese


def test_the_sentences_of_one_message_are_separated_the_chinese_way():
    # each language named: the one active here is whatever an earlier test's request left behind
    with translation.override("en"):
        english = str(SYNC_LIST_SEPARATOR)
    assert (_zh(SYNC_LIST_SEPARATOR), english) == ("；", "; ")


def _domain_problems():
    """Every ``Problem`` the domain puts into a sync warning, one of each code at least."""
    from skill_rule.naming import with_hash

    # listed twice (x), a collision (read.file → read-file), another server's name (q), a typed-in
    # definition's (b), a builtin's (load_skill), a name read.file's rename took (read-file_<hash>)
    renamed = with_hash("read-file", server="shop", tool_name="read.file")
    names = ["read.file", "read-file", "x", "x", "q", "b", "load_skill", renamed]
    yield from assign_model_names("shop", names, taken={"q": "crm", "b": ""}).warnings
    yield from read_annotations({"readOnlyHint": True, "destructiveHint": True}, tool="t").problems
    yield from read_annotations({"readOnlyHint": "true"}, tool="t").problems
    yield from synced_tool_bound_problems(
        title="t" * 2000, description="d" * 9000, input_schema={"enum": ["x" * 70000]}
    )
    yield from validate_tool_definition("bad name", "text")
    yield from validate_tool_definition("t", {"type": "string"})
    yield from validate_tool_definition("t", {"type": "object", "$schema": "urn:nope"})
    yield from validate_tool_definition("t", {"type": "object", "properties": {"r": {"$ref": "#/nowhere"}}})
    yield from validate_tool_definition("t", {"type": "object", "properties": {"n": {"type": "nope"}}})


def test_the_domains_sentences_are_the_catalogs():
    """The naming rule's, the hints', the bounds' and the definitions' templates are the catalog's
    (a reworded one would be shown as stored, in English, on the Chinese pages)."""
    seen = set()
    for problem in _domain_problems():
        assert SYNC_MESSAGES.get(problem.code) == problem.template, problem.code
        seen.add(problem.code)
    assert seen == {c for c in SYNC_MESSAGES if not c.startswith("sync_")}


@pytest.mark.parametrize(
    "rule",
    sorted(
        c.removeprefix("sync_payload_")
        for c in SYNC_MESSAGES
        if c.startswith("sync_payload_") and not c.endswith("_at")
    ),
)
@pytest.mark.parametrize("path", ["", "properties.tags"])
def test_what_a_provider_refuses_fills_its_sentence(rule, path):
    entry = payload_entry(providers.PayloadProblem("openai_chat", "either", rule, 1024, 1100, path=path))
    assert entry["code"] in SYNC_MESSAGES and sync_entry_consistent(entry), entry
    assert entry["text"] == providers.problem_text(
        providers.PayloadProblem("openai_chat", "either", rule, 1024, 1100, path=path)
    )
    assert re.search(r"[\u4e00-\u9fff]", _zh(lambda: sync_message_html(entry)))


def _failures():
    """Every failure sentence the sync writes, with a cause of the server's (as raised) or the console's."""
    yield _say("sync_failed", server="bitmall", cause="MCPError: Connection closed")
    yield _say(
        "sync_failed_stderr", server="bitmall", cause="MCPError: Connection closed", stderr="dying (variant 'die')"
    )
    yield _say("sync_disabled", server="crm")
    yield _say("sync_abandoned", deadline="2026-12-01 10:00:00")
    yield _say("sync_failed", server="slow", cause=_say("sync_time_limit", limit="5"))
    yield _say("sync_failed", server="b", cause=_say("sync_no_tool_list"))
    yield _say(
        "sync_failed", server="b", cause=_say("sync_not_a_page", error="nextCursor: Input should be a valid string")
    )
    yield _say("sync_failed", server="b", cause=_say("sync_cursor_repeated", cursor="'5'"))
    yield _say("sync_failed", server="b", cause=_say("sync_endless", pages=1000))
    yield _say(
        "sync_failed", server="b", cause=_say("sync_task_stopped", error="TaskTimeout: Task exceeded (120 seconds)")
    )
    yield _say("sync_failed", server="b", cause=_say("sync_not_queued", error="OperationalError: no such table"))


@pytest.mark.parametrize("message", list(_failures()))
def test_why_a_sync_failed_is_said_in_the_pages_language_with_the_servers_words_as_written(message):
    with translation.override("en"):
        english = str(sync_cause_html(message))
    assert parse(f"<p>{english}</p>").text() == message  # the English page: the sentence as stored
    chinese = _zh(lambda: sync_cause_html(message))
    assert re.search(r"[\u4e00-\u9fff]", chinese) and not _findings(chinese), chinese
    if "MCPError" in message:  # the server's error and stderr as written, not translated
        assert '<span translate="no">MCPError: Connection closed</span>' in chinese


def test_every_failure_and_cause_of_the_catalog_is_matched():
    from skills_app.web.presenters import sync_sentence_entry

    codes = set()
    for message in _failures():
        entry = sync_sentence_entry(message, SYNC_FAILURE_CODES)
        codes.add(entry["code"])
        cause = sync_sentence_entry(entry["params"].get("cause", ""), SYNC_CAUSE_CODES)
        codes.add(cause["code"] if cause else "(the server's)")
    assert codes == {*SYNC_FAILURE_CODES, *SYNC_CAUSE_CODES, "(the server's)"}


def test_a_naming_warning_is_said_in_the_pages_language():
    warnings = [w for w in _domain_problems() if w.code in NAMING_CODES]
    assert {w.code for w in warnings} == set(NAMING_CODES)
    for w in warnings:
        with translation.override("en"):
            assert parse(f"<p>{naming_warning_html(str(w))}</p>").text() == str(w)
        chinese = _zh(lambda w=w: naming_warning_html(str(w)))
        assert re.search(r"[\u4e00-\u9fff]", chinese) and not _findings(chinese), chinese


@pytest.mark.parametrize(
    "stored",
    [
        "server 'bitmall' lists tool 'x' 2 times; none of them is offered",  # a record written before codes
        {"code": "sync_hint", "params": {"server": "a", "problem": "b"}, "text": "reworded since"},
        {"code": "no_such_code", "params": {}, "text": "from a newer console"},
        {"code": "sync_hint", "params": {"server": "a"}, "text": "a placeholder without its value"},
        {"code": "sync_hint", "params": "not a mapping", "text": "odd"},
        {"text": "no code"},
        None,
        7,
    ],
)
def test_a_warning_that_is_no_entry_of_the_catalog_is_shown_as_stored(stored):
    shown = _zh(lambda: sync_message_html(stored))
    expected = stored.get("text", "") if isinstance(stored, dict) else str(stored)
    assert parse(f"<p>{shown}</p>").text() == expected


def test_an_entry_within_an_entry_that_no_longer_fits_is_shown_as_stored_inside_the_translated_sentence():
    inner = {"code": "annotations_contradictory", "params": {"tool": "'t'"}, "text": "reworded"}
    outer = sync_entry("sync_hint", server="a", problem=inner)
    shown = _zh(lambda: sync_message_html(outer))
    assert parse(f"<p>{shown}</p>").text() == "服务器 'a'：reworded"


def test_a_sync_with_warnings_and_a_failure_is_shown_in_chinese_and_printed_in_english(
    bitmall, client, django_user_model
):
    """The ``invalid`` variant through the console's Sync now: the flash and the history page in
    Chinese, the refused tool's name and the SDK's cause as written; ``sync_mcp`` prints the
    English sentences; the record stores the entries; a disabled server's failure is flashed in
    Chinese; the admin shows both in the reader's language."""
    server = stdio_server("invalid")
    user = django_user_model.objects.create_superuser(username="root", password="x-pass-123")
    client.force_login(user)
    client.cookies["django_language"] = "zh-hans"
    response = client.post("/mcp/bitmall/sync", follow=True)
    record = McpSyncRecord.objects.get(server=server)
    assert [w["code"] for w in record.warnings] == ["sync_refused_schema", "sync_refused_schema"]
    assert record.warnings[0]["params"] == {
        "server": "bitmall",
        "tool": "broken_lookup",
        "error": "inputSchema: Input should be a valid dictionary",
    }
    doc = parse(response.content)
    flashed = [" ".join(li.text().split()) for li in doc.select("class", "warning") if li.tag == "li"]
    expected = [
        "服务器 'bitmall' 列出的工具 'broken_lookup' 的定义不符合 MCP schema（inputSchema: Input should be a valid "
        "dictionary）；不提供该工具",
        "服务器 'bitmall' 列出的工具 '#4' 的定义不符合 MCP schema（name: Field required）；不提供该工具",
    ]
    assert flashed[:2] == expected  # the flash, then the record's card
    assert [li.text() for li in doc.one("data-sync-warnings").select("class", "warning")] == expected
    out = io.StringIO()
    call_command("sync_mcp", "bitmall", stdout=out)
    assert (
        "  warning: server 'bitmall' lists tool 'broken_lookup' with a definition the MCP schema refuses "
        "(inputSchema: Input should be a valid dictionary); it is not offered" in out.getvalue()
    )
    admin = parse(client.get(f"/admin/skills_app/mcpsyncrecord/{record.pk}/change/").content)
    assert "服务器 'bitmall' 列出的工具 'broken_lookup'" in admin.text()
    mcp_server_save(name="crm", transport="stdio", command=sys.executable, enabled=False)
    failed = parse(client.post("/mcp/crm/sync", follow=True).content)
    (said,) = [li.text() for li in failed.select("class", "error") if li.tag == "li"]
    assert said.endswith("服务器 'crm' 已停用；启用后才能同步"), said
    assert "server 'crm' is disabled" in McpSyncRecord.objects.get(server__name="crm").message  # English stored
    listing = parse(client.get("/mcp/").content).one("data-server", "crm").one("data-last-sync-line")
    assert listing.text() == "服务器 'crm' 已停用；启用后才能同步"


def test_an_abandoned_sync_and_a_renamed_tool_are_said_in_chinese(db, client, django_user_model):
    """Two servers listing one tool (``_apply``, as their syncs would): the second's is renamed,
    its tool page and the admin say why in Chinese; its next sync finds a record left running past
    its deadline and finishes it as abandoned, said in Chinese on the history page."""
    import mcp_types as types

    from skills_app.mcp.sync import _listed

    first = mcp_server_save(name="bitmall", transport="stdio", command=sys.executable)
    second = mcp_server_save(name="shop", transport="stdio", command=sys.executable)
    listed = [_listed(types.Tool(name="query_order", input_schema={"type": "object"}))]
    _apply(first, listed, McpSyncRecord.objects.create(server=first, trigger="test"))
    record = _apply(second, listed, McpSyncRecord.objects.create(server=second, trigger="test"))
    assert record.warning_texts == [
        "tool 'query_order' of server 'shop' is offered as 'shop__query_order': 'query_order' is the name of "
        "server 'bitmall'"
    ]
    tool = McpTool.objects.get(name="shop__query_order")
    assert tool.naming_warning == record.warning_texts[0]  # the row's copy, English
    client.force_login(django_user_model.objects.create_superuser(username="root", password="x-pass-123"))
    client.cookies["django_language"] = "zh-hans"
    said = "服务器 'shop' 的工具 'query_order' 以 'shop__query_order' 的名称提供：'query_order' 已是服务器 'bitmall' 的工具名称"
    page = parse(client.get("/tools/mcp/shop__query_order/").content)
    assert page.one("data-naming-warning").text() == said
    assert said in parse(client.get(f"/admin/skills_app/mcptool/{tool.pk}/change/").content).text()
    past = timezone.now() - timedelta(minutes=5)
    left = McpSyncRecord.objects.create(server=second, outcome="running", started_at=past, deadline_at=past)
    from skills_app.mcp.sync import sync_begin

    sync_begin(server=second, trigger="test")
    left.refresh_from_db()
    assert left.message == abandoned_message(left)  # English stored
    card = parse(client.get(f"/mcp/shop/syncs?record={left.pk}", headers={"HX-Request": "true"}).content)
    assert card.one("data-sync-message").text().startswith("已放弃：到截止时间（")
    assert not _findings(str(sync_cause_html(left.message)))
