"""``skill_client.client.RuntimeClient`` against a live server (real HTTP, real database; docs/runtime-api.md,
"Python client"): its local answers equal the server's endpoints over the demo scenarios, a publish is
seen on the next refresh, and without the console it answers from its last good copy, flagged stale —
or refuses clearly when it has none it can trust.
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import stat
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections import Counter
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from skill_client.client import (
    FETCHED,
    NOT_MODIFIED,
    STALE,
    ApiError,
    AuthenticationError,
    CacheCorruptError,
    CatalogUnavailableError,
    RuntimeClient,
)
from skill_rule import parse_messages, parse_script
from skill_rule.limits import LOAD_SKILL
from skill_rule.payload import UnknownToolsFormatError, payload_chars
from skill_rule.providers import payload_problems, targets_for_format
from skill_rule.simulator import eviction_placeholder, neutral_result
from skill_rule.snapshot import catalog_to_snapshot
from skills_app.catalog import services as catalog_services
from skills_app.catalog.demo import demo_load
from skills_app.keys.services import api_key_create, api_key_revoke
from skills_app.mcp import services as mcp_services
from skills_app.models import Release, Skill
from skills_app.releases.services import COMMAND_LINE, label_move, release_publish_first
from tests.api.support import BITMALL_GATED, CANCEL_IPHONE, USER, loaded, publish

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "skills_app" / "demo"
SCENARIOS = sorted((p.parent.parent.name, p.stem) for p in DEMO.glob("*/scenarios/*.yaml"))


# --- a live console with a published demo -----------------------------------------------------


def publish_demo(name: str = "bitmall") -> None:
    demo_load(name=name)
    release_publish_first(note=f"demo catalog '{name}'")


@pytest.fixture
def key(transactional_db) -> str:
    """A runtime API key, committed where the live server reads it."""
    return api_key_create(user=COMMAND_LINE, name="agent").key


@pytest.fixture
def bitmall_live(live_server, key) -> str:
    """The bitmall demo published as release 1 on the live server; returns its URL."""
    publish_demo("bitmall")
    return live_server.url


@pytest.fixture
def make_client(tmp_path, key):
    """``make_client(url, **options)`` → a ``RuntimeClient`` with the test's key and its own cache folder,
    reporting off unless ``report=True`` is given (then closed when the test ends): a sender thread
    left running would post into the next test's database. Reporting is tested in
    tests/test_client_reports.py."""
    made: list[RuntimeClient] = []

    def make(url: str, **options: Any) -> RuntimeClient:
        options.setdefault("cache_dir", tmp_path / "cache")
        options.setdefault("timeout", 30)  # a loaded CI machine; the server answers in milliseconds
        options.setdefault("report", False)
        client = RuntimeClient(url, options.pop("api_key", key), **options)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close(timeout=10)


def server_post(url: str, key: str, endpoint: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """POST JSON to ``/api/v1/runtime/<endpoint>`` of the live server → ``(status, body)``."""
    request = urllib.request.Request(
        f"{url}/api/v1/runtime/{endpoint}",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def free_port() -> int:
    """A port nothing listens on (bound, then closed): connecting is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- an agent loop over a scenario, comparing every answer with the server ---------------------


def same_as_server(local: dict[str, Any], served: dict[str, Any]) -> None:
    """Every field the server answered, the client answers the same."""
    assert {k: local.get(k) for k in served} == served


def walk(script, client: RuntimeClient, url: str, key: str) -> list[int]:
    """Run ``script`` as an agent would with the client, asking the server the same questions at
    every step (rounds in two formats, check-call for every call, load-skill for every allowed
    load); assert equal answers; return the tool count of each round."""
    restrictions = {
        "access_profile": script.access_profile,
        "stage": script.stage,
        "allowed_tools": list(script.allowed_tools) if script.allowed_tools is not None else None,
    }
    messages: list[dict[str, Any]] = []
    counts = []
    for step in script.steps:
        if step.kind in ("user", "system"):
            messages.append({"role": step.kind, "content": step.text})
        elif step.kind == "compact":
            drop = set(step.drop)
            messages = [m for i, m in enumerate(messages, start=1) if i not in drop]
        elif step.kind == "evict":
            assert step.evict_tool in (None, LOAD_SKILL), "this walk evicts load_skill results or indices only"
            catalog = client.catalog
            targets = set(step.drop) | {
                i
                for i, m in enumerate(messages, start=1)
                if step.evict_tool == LOAD_SKILL and m.get("metadata", {}).get(catalog.marker_key)
            }
            for i in targets:
                evicted = eviction_placeholder(catalog, parse_messages([messages[i - 1]])[0])
                messages[i - 1] = evicted.as_dict()
        elif step.kind == "assistant":
            view = client.round(messages, **restrictions)
            status, served = server_post(url, key, "rounds", {"messages": messages, **restrictions})
            assert status == 200, served
            same_as_server({"release": client.release, **view.as_dict()}, served)
            status, served = server_post(
                url, key, "rounds", {"messages": messages, **restrictions, "tools_format": "openai"}
            )
            assert client.visible_tools(messages, **restrictions) == served["tools"]
            problems = client.payload_problems(messages, **restrictions)
            assert [p.as_dict() for p in problems] == served["payload_problems"]
            counts.append(view.count)
            seen = list(messages)
            messages.append(
                {"role": "assistant", "content": step.text, "tool_calls": [c.as_dict() for c in step.calls]}
            )
            for c in step.calls:
                verdict = client.check_call(seen, c.as_dict(), **restrictions)
                status, served = server_post(
                    url, key, "check-call", {"messages": seen, "call": c.as_dict(), **restrictions}
                )
                assert status == 200, served
                same_as_server({"release": client.release, **verdict.as_dict(), "target": verdict.target}, served)
                result: dict[str, Any] = {"role": "tool", "tool_call_id": c.id, "state": "success"}
                if verdict.verdict == "refused":
                    result.update(content=verdict.message, state="error")
                elif c.name == LOAD_SKILL:
                    answer = client.load_skill(messages, c.arguments["skill_code"])
                    status, served = server_post(
                        url, key, "load-skill", {"messages": messages, "skill_code": c.arguments["skill_code"]}
                    )
                    assert status == 200, served
                    same_as_server({"release": client.release, **answer.as_dict()}, served)
                    result.update(content=answer.content, metadata=dict(answer.metadata))
                else:
                    raw = step.results.get(c.name)
                    result["content"] = (
                        neutral_result(c) if raw is None else raw if isinstance(raw, str) else raw["content"]
                    )
                messages.append(result)
    return counts


def test_cancel_iphone_gives_11_13_13_locally_as_the_server_does(bitmall_live, make_client, key):
    client = make_client(bitmall_live)
    script = parse_script((DEMO / "bitmall" / "scenarios" / "cancel-iphone.yaml").read_text(), source="cancel-iphone")
    assert walk(script, client, bitmall_live, key) == [11, 13, 13]
    assert client.release == 1 and not client.stale
    assert client.stats == Counter({FETCHED: 1})


EVICT_AND_RELOAD = f"""
name: evict-and-reload
steps:
  - user: {CANCEL_IPHONE}
  - assistant:
      calls: [{{load_skill: {{skill_code: order_change}}}}]
  - assistant:
      calls: [{{load_skill: {{skill_code: order_change}}}}]
  - evict: {{tool: load_skill}}
  - assistant:
      calls: [{{cancel_order: {{order_no: "88239"}}}}]
  - assistant:
      calls: [{{load_skill: {{skill_code: order_change}}}}]
  - compact: {{drop: [2, 3, 4, 5]}}
  - assistant:
      calls: [{{cancel_order: {{order_no: "88239"}}}}]
"""


def test_eviction_and_compaction_get_the_server_answers(bitmall_live, make_client, key):
    script = parse_script(EVICT_AND_RELOAD, source="evict-and-reload")
    # loaded in round 2 (the repeat is a stub), evicted before round 3, loaded again in round 4
    # (full body); compacting the first load and its stub away keeps the reload.
    assert walk(script, make_client(bitmall_live), bitmall_live, key) == [11, 13, 11, 11, 13]


@pytest.mark.parametrize(("demo", "scenario"), SCENARIOS, ids=[f"{d}/{s}" for d, s in SCENARIOS])
def test_every_demo_scenario_gets_the_server_answers(live_server, key, make_client, demo, scenario):
    publish_demo(demo)
    path = DEMO / demo / "scenarios" / f"{scenario}.yaml"
    script = parse_script(path.read_text(encoding="utf-8"), source=str(path))
    assert walk(script, make_client(live_server.url), live_server.url, key)


def test_the_client_reads_the_release_the_server_answers_from(bitmall_live, make_client):
    client = make_client(bitmall_live)
    assert catalog_to_snapshot(client.catalog) == Release.objects.get(number=1).snapshot
    view = client.round([USER])
    assert (view.count, dict(view.masked)) == (11, BITMALL_GATED)
    verdict = client.check_call([USER], {"name": "cancel_order", "arguments": {"order_no": "88239"}})
    assert (verdict.verdict, verdict.reason, verdict.skill_code) == ("refused", "masked", "order_change")
    assert (
        client.check_call(
            [USER, *loaded("order_change")],
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "cancel_order", "arguments": '{"order_no": "88239"}'},
            },
        ).verdict
        == "confirm"
    )
    tools = client.visible_tools([USER])
    assert len(tools) == 11
    load = next(t["function"] for t in tools if t["function"]["name"] == LOAD_SKILL)
    assert load["parameters"]["properties"]["skill_code"]["enum"] == [
        "after_sale_apply",
        "order_change",
        "fault_diagnosis",
        "order_checkout",
        "iot_bundle",
    ]
    assert client.visible_tools([USER], tools_format="names")[:3] == ["search_knowledge", "load_skill", "flush_memory"]


def test_load_skill_gives_the_stub_on_repeat_and_the_body_after_eviction(bitmall_live, make_client):
    client = make_client(bitmall_live)
    asked = [
        USER,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": "order_change"}}],
        },
    ]
    first = client.load_skill(asked, "order_change")
    assert first.content.startswith("# 订单修改")
    assert dict(first.metadata) == {"ragent_loaded_skill": "order_change", "skill_version": 1}
    retained = [
        *asked,
        {"role": "tool", "tool_call_id": "c1", "content": first.content, "metadata": dict(first.metadata)},
    ]
    again = client.load_skill(retained, "order_change")
    assert again.already_loaded and "无需重复加载" in again.content
    retained[-1]["content"] = "[历史工具结果已省略，原长 2048 字]"
    assert client.load_skill(retained, "order_change").content == first.content
    unknown = client.load_skill([USER], "refund")
    assert unknown.state == "error" and "skills on offer: after_sale_apply, order_change" in unknown.content


@pytest.mark.parametrize(
    "schema",
    [[1, 2], {"type": "object", "properties": {"order_no": {"$ref": "#/$defs/missing"}}}],
    ids=["a list", "an unresolvable $ref"],
)
def test_a_release_with_a_broken_tool_definition_gets_the_server_answers(bitmall_live, make_client, key, schema):
    """A release written before the tool-definition rule (raw SQL, then the low-level release_create,
    as tests/api/test_bad_tool_definition.py does): the client warns and refuses as the server does."""
    from django.db import connection

    from skills_app.catalog import selectors
    from skills_app.models import McpTool
    from skills_app.releases import services as releases

    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {McpTool._meta.db_table} SET input_schema = %s WHERE name = %s",
            [json.dumps(schema), "query_order"],
        )
    releases.release_create(
        snapshot=catalog_to_snapshot(selectors.catalog_draft()),
        user=COMMAND_LINE,
        note="written before the tool-definition rule",
    )
    client = make_client(bitmall_live)
    assert client.release == 2
    _status, served = server_post(bitmall_live, key, "rounds", {"messages": [USER], "tools_format": "anthropic"})
    view = client.round([USER])
    tools = client.visible_tools([USER], tools_format="anthropic")
    # payload_problems: the rule's, on the catalog the client holds (docs/providers.md)
    problems = [p.as_dict() for p in client.payload_problems([USER], tools_format="anthropic")]
    assert problems == [
        p.as_dict()
        for p in payload_problems(client.catalog, view.visible, targets_for_format(client.catalog, "anthropic"))
    ]
    local = {"release": 2, **view.as_dict(), "tools": tools, "tools_chars": payload_chars(tools)}
    same_as_server({**local, "payload_problems": problems}, served)
    assert view.warnings and view.as_dict()["warning_details"][0]["code"] == "tool_definition_invalid"
    call = {"name": "query_order", "arguments": {}}
    _status, served = server_post(bitmall_live, key, "check-call", {"messages": [USER], "call": call})
    verdict = client.check_call([USER], call)
    assert verdict.reason == "invalid_tool_definition"
    same_as_server({"release": 2, **verdict.as_dict()}, served)


def test_the_payload_problems_of_a_round_are_the_servers(bitmall_live, make_client, key):
    """docs/providers.md: a release where query_order's description is past OpenAI's 1,024
    characters and its schema has no ``properties`` (ticked off with a reason): the client names
    the refusal and the rewrite as ``rounds`` does, per format; the rewrite is in its array."""
    from skills_app.models import McpTool

    tool = McpTool.objects.get(name="query_order")
    tool.description = "查" * 1030
    tool.input_schema = {"type": "object"}
    tool.save()
    assert publish("query_order past OpenAI's limits") == 2
    client = make_client(bitmall_live)
    for fmt in ("openai", "anthropic"):
        _status, served = server_post(bitmall_live, key, "rounds", {"messages": [USER], "tools_format": fmt})
        assert [p.as_dict() for p in client.payload_problems([USER], tools_format=fmt)] == served["payload_problems"]
    assert [(p.target, p.tool, p.rule, p.limit, p.actual, p.action) for p in client.payload_problems([USER])] == [
        ("openai_chat", "query_order", "description_length", 1024, 1030, "refused"),
        ("openai_chat", "query_order", "object_without_properties", "properties", None, "rewritten"),
    ]
    order = next(t["function"] for t in client.visible_tools([USER]) if t["function"]["name"] == "query_order")
    assert order["parameters"] == {"type": "object", "properties": {}}
    with pytest.raises(UnknownToolsFormatError):
        client.payload_problems([USER], tools_format="names")


# --- refresh: 200, then 304, then a publish ------------------------------------------------------


def test_call_targets_are_answered_as_the_server_does(bitmall_live, make_client, key):
    """docs/mcp.md, "How a runtime maps calls back": the client maps a model-facing name to the
    server and real tool name of the release it holds, as check-call's ``target`` does."""
    from django.utils import timezone

    from skills_app.models import McpTool

    server = mcp_services.mcp_server_save(name="bitmall", transport="stdio", command="python", args=["-m", "x"])
    for tool in McpTool.objects.all():  # as a sync leaves them (save: the draft cache sees the change)
        tool.mcp_server, tool.server, tool.synced_at = server, "bitmall", timezone.now()
        tool.tool_name = "orders.cancel" if tool.name == "cancel_order" else tool.name
        tool.save()
    publish("bitmall synced: call targets")
    client = make_client(bitmall_live)
    assert client.call_target("cancel_order") == {"server": "bitmall", "tool": "orders.cancel"}
    assert client.call_target("query_order") == {"server": "bitmall", "tool": "query_order"}
    assert client.call_target("load_skill") is None
    with pytest.raises(
        LookupError, match=re.escape("unknown tool 'orders.cancel'; tools on offer: search_knowledge, ")
    ):
        client.call_target("orders.cancel")
    messages = [USER, *loaded("order_change")]
    call = {"name": "cancel_order", "arguments": {"order_no": "88239"}}
    verdict = client.check_call(messages, call)
    status, served = server_post(bitmall_live, key, "check-call", {"messages": messages, "call": call})
    assert status == 200, served
    assert (
        (verdict.verdict, verdict.target)
        == (served["verdict"], served["target"])
        == ("confirm", {"server": "bitmall", "tool": "orders.cancel"})
    )


def test_a_publish_is_seen_on_the_next_refresh(bitmall_live, make_client):
    client = make_client(bitmall_live)
    assert client.refresh().outcome == FETCHED
    etag = client.etag
    assert etag == f'"{Release.objects.get(number=1).sha256}"'
    assert (client.refresh().outcome, client.last_refresh.status) == (NOT_MODIFIED, 304)
    assert client.round([USER]).count == 11

    catalog_services.skill_update(skill=Skill.objects.get(skill_code="order_change"), tool_ids=["cancel_order"])
    assert client.refresh().outcome == NOT_MODIFIED  # an edit of the draft is not served
    number = publish("order_change gates cancel_order only")

    refresh = client.refresh()
    assert (refresh.outcome, refresh.status, refresh.release) == (FETCHED, 200, number)
    assert client.etag != etag and client.release == number == 2
    view = client.round([USER])
    assert view.count == 12 and "change_address" in view.visible
    assert client.stats == Counter({FETCHED: 2, NOT_MODIFIED: 2})


def test_the_copy_on_disk_is_private_and_written_whole(bitmall_live, make_client):
    client = make_client(bitmall_live)
    client.refresh()
    assert stat.S_IMODE(client.cache_path.stat().st_mode) == 0o600
    assert [p.name for p in client.cache_path.parent.iterdir()] == [client.cache_path.name]
    saved = json.loads(client.cache_path.read_text(encoding="utf-8"))
    assert saved["catalog"]["release"] == 1 and saved["etag"] == client.etag
    assert set(saved["manuals"]) == {
        "after_sale_apply",
        "order_change",
        "fault_diagnosis",
        "order_checkout",
        "iot_bundle",
    }


def test_a_label_is_followed(bitmall_live, make_client):
    staging = make_client(bitmall_live, label="staging")
    with pytest.raises(ApiError) as caught:
        staging.refresh()
    assert (caught.value.status, caught.value.code) == (404, "label_not_found")
    assert "label 'staging' does not exist" in str(caught.value)
    label_move(user=COMMAND_LINE, label="staging", number=1)
    assert staging.refresh().outcome == FETCHED and staging.release == 1
    with pytest.raises(ValueError, match="label or release, not both"):
        make_client(bitmall_live, label="staging", release=1)


# --- without the console -------------------------------------------------------------------------


@pytest.fixture
def own_server(transactional_db):
    """A live server of this test's own, which the test may stop."""
    from pytest_django.live_server_helper import LiveServer

    server = LiveServer("127.0.0.1")
    yield server
    if server.thread.is_alive():
        server.stop()


def test_after_the_server_is_stopped_the_last_copy_answers_flagged_stale(own_server, key, make_client, caplog):
    publish_demo("bitmall")
    client = make_client(own_server.url)
    counts = [client.round(m).count for m in ([USER], [USER, *loaded("order_change")])]
    assert counts == [11, 13] and not client.stale
    own_server.stop()

    with caplog.at_level(logging.WARNING, logger="skill_client.client"):
        refresh = client.refresh()
    assert (refresh.outcome, refresh.status, refresh.release) == (STALE, None, 1)
    assert client.stale and client.stale_reason.startswith(f"cannot reach the console at {own_server.url}")
    assert "answering from the last good copy (release 1" in caplog.text and "stale" in caplog.text
    assert client.round([USER]).count == 11
    assert client.check_call([USER], {"name": "cancel_order", "arguments": {"order_no": "88239"}}).reason == "masked"

    # A new agent process: no copy in memory, the one on disk answers.
    restarted = make_client(own_server.url)
    assert [restarted.round(m).count for m in ([USER], [USER, *loaded("order_change")])] == [11, 13]
    assert restarted.stale and restarted.last_refresh.outcome == STALE and restarted.release == 1


def test_no_copy_and_no_console_is_a_clear_error(make_client, tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    client = make_client(url)
    with pytest.raises(CatalogUnavailableError) as caught:
        client.round([USER])
    message = str(caught.value)
    assert message.startswith("no runtime catalog to answer from")
    assert f"cannot reach the console at {url}/api/v1/runtime/catalog" in message
    assert f"no saved copy at {client.cache_path}" in message


def corrupt(client: RuntimeClient, change) -> None:
    saved = json.loads(client.cache_path.read_text(encoding="utf-8"))
    change(saved)
    client.cache_path.write_text(json.dumps(saved, ensure_ascii=False), encoding="utf-8")


@pytest.mark.parametrize(
    ("change", "cause"),
    [
        (
            lambda s: s["manuals"].update(order_change="# 订单修改\n随便取消。"),
            "the manual of skill 'order_change' does not match its content_sha256",
        ),
        (lambda s: s["catalog"]["skills"][1].update(tool_ids=[]), "the catalog does not match its sha256"),
        (lambda s: s.update(base_url="http://elsewhere"), "saved for 'http://elsewhere'"),
    ],
    ids=["manual", "catalog", "other-console"],
)
def test_a_corrupt_copy_on_disk_is_refused_without_the_console(own_server, key, make_client, change, cause):
    publish_demo("bitmall")
    make_client(own_server.url).refresh()
    own_server.stop()
    client = make_client(own_server.url)
    corrupt(client, change)
    with pytest.raises(CacheCorruptError) as caught:
        client.round([USER])
    assert caught.value.path == client.cache_path and cause in caught.value.cause
    assert f"the saved copy {client.cache_path} is corrupt: " in str(caught.value)
    assert "cannot reach the console" in str(caught.value)


def test_a_copy_on_disk_that_is_not_json_is_refused(make_client):
    client = make_client(f"http://127.0.0.1:{free_port()}")
    client.cache_path.parent.mkdir(parents=True)
    client.cache_path.write_bytes(b'{"format": 1, "catal')
    with pytest.raises(CacheCorruptError, match="is corrupt: not JSON"):
        client.refresh()


def test_a_corrupt_copy_is_replaced_when_the_console_answers(bitmall_live, make_client, caplog):
    make_client(bitmall_live).refresh()
    client = make_client(bitmall_live)
    corrupt(client, lambda s: s["manuals"].update(order_change="tampered"))
    with caplog.at_level(logging.WARNING, logger="skill_client.client"):
        assert client.refresh().outcome == FETCHED
    assert "is corrupt: the manual of skill 'order_change' does not match" in caplog.text
    assert make_client(bitmall_live).load_skill([USER], "order_change").content.startswith("# 订单修改")


class BrokenConsole:
    """A real HTTP server in front of the live console: ``mode`` ``pass`` forwards requests,
    ``500`` answers a server error, ``garbage`` a 200 that is no catalog, ``tampered`` the
    catalog with a field changed (its sha256 no longer matches)."""

    def __init__(self, target: str) -> None:
        self.mode = "pass"
        console = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if console.mode == "500":
                    return self._send(500, {}, b"<h1>Server Error (500)</h1>")
                if console.mode == "garbage" and "/catalog" in self.path:
                    return self._send(200, {}, b"<html>login</html>")
                request = urllib.request.Request(target + self.path, headers=dict(self.headers))
                try:
                    with urllib.request.urlopen(request, timeout=10) as r:
                        status, headers, body = r.status, r.headers, r.read()
                except urllib.error.HTTPError as exc:
                    status, headers, body = exc.code, exc.headers, exc.read()
                if console.mode == "tampered" and status == 200 and "/catalog" in self.path:
                    data = json.loads(body)
                    data["gated_tool_ids"] = []
                    body = json.dumps(data).encode()
                self._send(status, {k: v for k, v in headers.items() if k in ("ETag", "Content-Type")}, body)

            def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def broken(bitmall_live):
    console = BrokenConsole(bitmall_live)
    yield console
    console.close()


@pytest.mark.parametrize(
    ("mode", "status", "reason"),
    [
        ("500", 500, "the console answered 500"),
        ("garbage", 200, "the catalog is not JSON"),
        ("tampered", 200, "the catalog answer is not a valid catalog: the catalog does not match its sha256"),
    ],
)
def test_a_5xx_or_garbage_keeps_the_last_copy_flagged_stale(broken, make_client, mode, status, reason):
    client = make_client(broken.url)
    assert client.refresh().outcome == FETCHED
    broken.mode = mode
    catalog_services.skill_update(skill=Skill.objects.get(skill_code="order_change"), tool_ids=["cancel_order"])
    publish("a release the broken console cannot deliver")
    refresh = client.refresh()
    assert (refresh.outcome, refresh.status, refresh.release) == (STALE, status, 1)
    assert refresh.reason.startswith(reason) and client.stale_reason == refresh.reason
    assert client.round([USER]).count == 11
    broken.mode = "pass"
    assert client.refresh().outcome == FETCHED and not client.stale and client.round([USER]).count == 12


# --- keys ---------------------------------------------------------------------------------------


def test_no_key_or_a_revoked_key_is_a_clear_error_never_masked_by_the_copy(bitmall_live, make_client):
    with pytest.raises(AuthenticationError) as caught:
        make_client(bitmall_live, api_key="").refresh()
    assert caught.value.status == 401 and caught.value.code in ("not_authenticated", "authentication_failed")

    client = make_client(bitmall_live)
    client.refresh()
    api_key_revoke(user=COMMAND_LINE, name="agent")
    with pytest.raises(AuthenticationError) as caught:
        client.refresh()
    assert (caught.value.status, caught.value.code) == (401, "authentication_failed")
    assert "the API key is unknown or revoked" in str(caught.value)
    assert client.stale and "401 authentication_failed" in client.stale_reason
    restarted = make_client(bitmall_live)  # a copy on disk does not hide the revocation
    for _ in range(2):
        with pytest.raises(AuthenticationError):
            restarted.round([USER])


def test_nothing_published_is_a_clear_error(live_server, make_client):
    with pytest.raises(ApiError) as caught:
        make_client(live_server.url).round([USER])
    assert (caught.value.status, caught.value.code) == (404, "no_release")
    assert "publish one in the console" in str(caught.value)


# --- no Django in the agent process -------------------------------------------------------------


def test_the_client_imports_no_django():
    code = (
        "import sys, skill_client.client; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'rest_framework'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT)},
    )
    assert out.stdout.strip() == "[]"


def test_the_readme_example_runs_against_a_live_server(bitmall_live, key, tmp_path):
    """The README's agent loop, as written, against the live server (its URL swapped in); it reports,
    and once it exits the console holds its three rounds, its three calls (one ``confirm``) and its
    heartbeats, under a pseudonym of its conversation id (issue 26, item 2)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Wiring an agent with the Python client", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert '"http://127.0.0.1:8000"' in example and len(example.splitlines()) <= 20
    script = tmp_path / "example.py"
    script.write_text(example.replace("http://127.0.0.1:8000", bitmall_live), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            # this checkout's rule and client, not whichever the environment installed
            "PYTHONPATH": os.pathsep.join(
                str(ROOT / p) for p in ("packages/skill-rule/src", "packages/skill-client/src", ".")
            ),
            "SKILL_CONSOLE_KEY": key,
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
        },
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "round 1: 11 tools, load_skill: allowed",
        "round 2: 13 tools, query_order: allowed",
        "round 3: 13 tools, cancel_order: confirm",
    ]
    assert (tmp_path / "cache" / "skill-console").is_dir()

    # What it reported, sent as it exited: nothing is left to wait for.
    from skills_app.models import RuntimeReport
    from skills_app.reports.selectors import instance_list, rollup_totals

    release = Release.objects.get(number=1)
    chat = RuntimeClient(bitmall_live, key, report=False).pseudonym("chat-1001")
    rounds = RuntimeReport.objects.filter(kind="round").order_by("round")
    assert [(r.conversation, r.round, r.loaded, len(r.masked), r.flags) for r in rounds] == [
        (chat, 1, [], 6, []),
        (chat, 2, ["order_change"], 4, []),
        (chat, 3, ["order_change"], 4, []),
    ]
    assert {(r.release, r.release_sha256, r.label, r.withheld) for r in rounds} == {(1, release.sha256, "", 0)}
    assert [r.tools_chars for r in rounds] == [4014, 4820, 4820]  # payload_chars of the arrays printed
    calls = RuntimeReport.objects.filter(kind="call").order_by("round")
    assert [(c.conversation, c.round, c.tool, c.verdict, c.reason, c.skill_code) for c in calls] == [
        (chat, 1, "load_skill", "allowed", "", "order_change"),
        (chat, 2, "query_order", "allowed", "", ""),
        (chat, 3, "cancel_order", "confirm", "", ""),
    ]
    beats = RuntimeReport.objects.filter(kind="heartbeat").order_by("at")
    assert [(b.release, b.stale, b.refresh) for b in beats] == [(1, False, "fetched"), (1, False, "fetched")]
    assert beats[0].client_version == "skill-console-client/0.1.0"
    assert len({r.instance for r in RuntimeReport.objects.all()}) == 1 and "chat-1001" not in str(
        list(RuntimeReport.objects.values_list("conversation", flat=True))
    )
    totals = rollup_totals(since=rounds[0].at.date() - timedelta(days=1), until=rounds[0].at.date() + timedelta(days=1))
    assert totals["rounds"] == {"": 3} and totals["conversations"] == {"": 1}
    assert totals["confirm"] == {"cancel_order": 1} and totals["load"] == {"order_change": 1}
    assert totals["loaded"] == {"order_change": 2} and "dropped" not in totals
    (instance,) = instance_list()
    assert (instance.instance, instance.release, instance.stale, instance.refresh) == (
        beats[0].instance,
        1,
        False,
        "fetched",
    )


def test_the_transcript_table_gets_the_same_answers_locally(bitmall_live, make_client):
    """Every row of tests/transcript_cases.py answered by the client from its copy of the catalog:
    the exact loaded skills, masked tools and warnings, the guard's verdict and the repeat-load stub
    — a whole published manual (current, or an earlier one served as ``earlier_manuals``) loads,
    a partial one does not; the client fetched no more than the catalog and the current manuals."""
    from tests.api.support import publish_draft
    from tests.transcript_cases import (
        CASES,
        MANUAL,
        ORDER_CHANGE_VERSION,
        STUB,
        expected_loaded_in_catalog_order,
        order_change_v2,
        stub_expected,
    )

    order_change_v2()  # the demo again as release 2, then order_change's manual as version 2
    publish_draft()
    client = make_client(bitmall_live)
    order = [s.code for s in client.catalog.enabled_skills]
    assert [d.version for d in client.catalog.earlier_manuals["order_change"]] == [1]
    for case in CASES:
        view = client.round(case.messages)
        assert (list(view.loaded), dict(view.masked), [(w.code, w.params["index"]) for w in view.warnings]) == (
            expected_loaded_in_catalog_order(case, order),
            case.masked(),
            list(case.warnings),
        ), case.id
        verdict = client.check_call(case.messages, {"name": "cancel_order", "arguments": {"order_no": "88239"}})
        want = ("confirm", None) if "order_change" in case.loaded else ("refused", "masked")
        assert (verdict.verdict, verdict.reason) == want, case.id
        result = client.load_skill(case.messages, "order_change")
        assert (result.already_loaded, result.content, result.version) == (
            (True, STUB, ORDER_CHANGE_VERSION) if stub_expected(case) else (False, MANUAL, ORDER_CHANGE_VERSION)
        ), case.id


# --- OpenAI Responses input items (docs/transcripts.md, "OpenAI Responses") --------------------


def test_responses_items_are_read_locally_as_the_server_reads_them(bitmall_live, make_client, key):
    """Every Responses row of the transcript table: the client's round equals the server's, with
    the table's exact loaded skills and warnings; check-call takes a ``function_call`` item as the
    call, and a ``custom_tool_call`` (free text) is refused ``invalid_arguments`` by both."""
    from tests.api.support import publish_draft
    from tests.transcript_cases import CASES, order_change_v2, rs_load

    order_change_v2()  # the table's catalog: order_change's manual at version 2, published
    publish_draft()
    client = make_client(bitmall_live)
    order = [s.code for s in client.catalog.enabled_skills]
    rows = [c for c in CASES if c.id.startswith("Responses")]
    assert len(rows) == 9
    for case in rows:
        view = client.round(case.messages)
        status, served = server_post(bitmall_live, key, "rounds", {"messages": case.messages})
        assert status == 200, served
        same_as_server({"release": client.release, **view.as_dict()}, served)
        assert list(view.loaded) == [c for c in order if c in case.loaded], case.id
        assert [(w.code, w.params["index"]) for w in view.warnings] == list(case.warnings), case.id
    messages = next(c for c in rows if c.loaded == frozenset({"order_change"})).messages
    for call, expected in (
        (
            {
                "type": "function_call",
                "call_id": "call_7",
                "name": "cancel_order",
                "arguments": json.dumps({"order_no": "88239"}),
            },
            ("confirm", None),
        ),
        (rs_load("call_8", "after_sale_apply"), ("allowed", None)),
        (
            {"type": "custom_tool_call", "call_id": "call_9", "name": "cancel_order", "input": "88239"},
            ("refused", "invalid_arguments"),
        ),
    ):
        verdict = client.check_call(messages, call)
        status, served = server_post(bitmall_live, key, "check-call", {"messages": messages, "call": call})
        assert status == 200, served
        same_as_server({"release": client.release, **verdict.as_dict()}, served)
        assert (served["verdict"], served["reason"]) == expected, call
    assert served["message"] == (
        "invalid arguments for 'cancel_order': custom_tool_call (cancel_order): its input "
        "is free text, not JSON arguments; read as no arguments"
    )
    status, served = server_post(
        bitmall_live, key, "rounds", {"messages": [{"type": "web_search_call", "id": "ws_1", "status": "completed"}]}
    )
    assert (status, served["error"]["code"], served["error"]["message"]) == (
        400,
        "invalid_messages",
        "messages[0]: item type 'web_search_call' is not understood (OpenAI Responses "
        "items read: message, function_call, function_call_output, custom_tool_call, "
        "custom_tool_call_output, reasoning)",
    )
    with pytest.raises(Exception, match="item type 'web_search_call' is not understood"):
        client.round([{"type": "web_search_call", "id": "ws_1", "status": "completed"}])


def test_the_catalog_in_the_system_prompt_is_given_as_the_server_gives_it(bitmall_live, make_client, key):
    """Issue 23 item 3 (docs/runtime-api.md, "Where the catalog goes"): at the default placement
    the client gives no ``catalog_text`` (``None``) and the server's answer has none; after a
    publish with ``system_prompt`` both give the same five lines, and the ``load_skill`` of
    ``visible_tools`` is the server's — the header alone, the enum of the five codes."""
    from skill_rule.limits import DEFAULT_LOAD_SKILL_HEADER

    client = make_client(bitmall_live)
    status, answer = server_post(bitmall_live, key, "rounds", {"messages": [USER]})
    assert (status, "catalog_text" in answer, client.catalog_text()) == (200, False, None)

    catalog_services.catalog_placement_set(placement="system_prompt")
    assert publish("catalog in the system prompt") == 2
    assert client.refresh().outcome == FETCHED
    status, answer = server_post(bitmall_live, key, "rounds", {"messages": [USER], "tools_format": "openai"})
    assert status == 200
    assert client.catalog_text() == answer["catalog_text"]
    assert client.catalog_text().split("\n") == [
        "- after_sale_apply（售后申请）：用户要对已签收的商品退货、换货或仅退款时加载：核对售后条件、七天无理由规则和凭证，"
        "确认后提交售后申请。",
        "- order_change（订单修改）：用户要取消订单或修改收货地址时加载：先查订单状态，按待支付、待发货、已发货、已签收"
        "四种状态分别处理，讲清退款与优惠券后再确认执行。",
        "- fault_diagnosis（故障诊断）：用户反映购买的设备不工作、报错或异常时加载：按步骤排查常见故障，排查无果再提交报修工单。",
        "- order_checkout（下单结算）：用户要加购、结算、下单或付款时加载：核对购物车和优惠券，先建单再支付，每一步金额都要"
        "用户确认。",
        "- iot_bundle（智能家居套装）：用户咨询智能家居套装或多件智能设备搭配时加载：核对网关协议、App 生态和安装条件，"
        "给出兼容的组合建议。",
    ]
    tools = client.visible_tools([USER])
    assert tools == answer["tools"]
    load = next(t["function"] for t in tools if t["function"]["name"] == LOAD_SKILL)
    assert load["description"] == DEFAULT_LOAD_SKILL_HEADER
    assert load["parameters"]["properties"]["skill_code"]["enum"] == [
        "after_sale_apply",
        "order_change",
        "fault_diagnosis",
        "order_checkout",
        "iot_bundle",
    ]
