"""Console pages of docs/mcp.md with the real demo MCP server: servers (secrets masked, Sync
now), sync history, the tool page (schema, annotations, confirmation, test call), the node editor
(synced tools offered; disabling a gated node refused unless forced), broken skills everywhere."""

from __future__ import annotations

import html
import sys

import pytest

from skills_app.mcp.services import mcp_server_save
from skills_app.mcp.sync import mcp_server_sync
from skills_app.models import SECRET_MASK, IntentNode, McpServer, McpSyncRecord, McpTool, Skill
from tests.mcp.support import set_variant, stdio_server
from tests.views.html import parse


@pytest.fixture
def staff_client(staff_client):
    """The staff client reading the console in English (sentences below are the English ones)."""
    staff_client.cookies["django_language"] = "en"
    return staff_client


@pytest.fixture
def admin_client(client, django_user_model):
    """A superuser (the only one who may create or change an MCP server record), in English."""
    client.force_login(django_user_model.objects.create_user(username="root", password="x-pass-123", is_superuser=True))
    client.cookies["django_language"] = "en"
    return client


def text(response) -> str:
    return html.unescape(response.content.decode())


@pytest.fixture
def synced(bitmall):
    server = stdio_server()
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    return server


def test_server_secrets_are_shown_masked_and_kept_when_the_mask_is_posted_back(staff_client, admin_client, db):
    mcp_server_save(
        name="crm",
        transport="streamable-http",
        url="http://127.0.0.1:9/mcp",
        headers={"Authorization": "Bearer top-secret-token"},
    )
    page = staff_client.get("/mcp/").content.decode()
    assert "top-secret-token" not in page
    assert parse(page).one("data-masked-headers").text().strip() == f"Authorization: {SECRET_MASK}"
    edit = admin_client.get("/mcp/crm/edit").content.decode()
    assert "top-secret-token" not in edit and f"Authorization: {SECRET_MASK}" in edit
    response = admin_client.post(
        "/mcp/crm/edit",
        {
            "transport": "streamable-http",
            "url": "http://127.0.0.1:9/mcp",
            "timeout_seconds": "7",
            "headers": f"Authorization: {SECRET_MASK}\nX-Tenant: shop-1",
            "enabled": "on",
        },
    )
    assert response.status_code == 302
    server = McpServer.objects.get(name="crm")
    assert server.headers == {"Authorization": "Bearer top-secret-token", "X-Tenant": "shop-1"}
    assert server.timeout_seconds == 7
    # the mask under a renamed header stands for nothing stored: refused next to the field, nothing lost
    response = admin_client.post(
        "/mcp/crm/edit",
        {
            "transport": "streamable-http",
            "url": "http://127.0.0.1:9/mcp",
            "timeout_seconds": "9",
            "headers": f"authorization: {SECRET_MASK}\nX-Tenant: shop-1",
            "enabled": "on",
        },
    )
    assert response.status_code == 200
    assert parse(response.content).one("data-errors-for", "headers").text() == (
        f"'authorization': {SECRET_MASK} stands for a stored value, but none is stored under this name; type the value."
    )
    server.refresh_from_db()
    assert (server.headers, server.timeout_seconds) == (
        {"Authorization": "Bearer top-secret-token", "X-Tenant": "shop-1"},
        7,
    )


def test_a_stdio_server_needs_a_command(admin_client, db):
    response = admin_client.post("/mcp/new", {"name": "fs", "transport": "stdio", "timeout_seconds": "20"})
    assert response.status_code == 200
    assert "a stdio server needs a command." in text(response)
    assert not McpServer.objects.filter(name="fs").exists()


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        (
            {"transport": "streamable-http", "url": "http://127.0.0.1:9/mcp", "headers": "X-Ok: 1\nBad Name: x"},
            "headers",
            "header 'Bad Name' is not a valid HTTP header name (no spaces, colons or non-ASCII characters).",
        ),
        (
            {"transport": "streamable-http", "url": "http://127.0.0.1:9/mcp", "headers": "X-Tenant: café 中"},
            "headers",
            "the value of header 'X-Tenant' must be printable ASCII (other text cannot be sent in an HTTP header).",
        ),
        (
            {"transport": "stdio", "command": sys.executable, "env": "1BAD=x"},
            "env",
            "environment variable '1BAD': a name is letters, digits and _, not starting with a digit.",
        ),
    ],
    ids=["header name with a space", "non-ASCII header value", "env name with a leading digit"],
)
def test_headers_and_environment_that_could_never_be_sent_are_refused_at_save(admin_client, db, fields, field, message):
    """Found by a fresh user: they were saved and only failed at the next sync, as a raw transport
    error naming no line. Now the save is refused, the record not written, the text kept."""
    response = admin_client.post("/mcp/new", {"name": "crm", "timeout_seconds": "20", **fields})
    assert response.status_code == 200
    assert message in text(response)
    assert not McpServer.objects.filter(name="crm").exists()
    assert parse(response.content).one("name", field, tag="textarea").text().strip() == fields[field]


@pytest.mark.parametrize("name", ["my server", "shop🛒", "a/b", "Shop"])
def test_a_server_name_off_the_pattern_is_refused_in_words(admin_client, db, name):
    response = admin_client.post(
        "/mcp/new", {"name": name, "transport": "stdio", "command": sys.executable, "timeout_seconds": "20"}
    )
    assert response.status_code == 200
    assert (
        f"{name!r} is not a server name: a lowercase letter first, then 1–39 lowercase letters, digits, _ or -."
        in text(response)
    )
    assert not McpServer.objects.exists()


def test_the_service_says_the_same_sentence_for_a_name_off_the_pattern_in_either_language(db):
    """The sentence is the model field's own (its validator's message), so the admin, the demo
    loader and scripts calling ``mcp_server_save`` read what the form shows."""
    from django.core.exceptions import ValidationError
    from django.utils import translation

    said = {}
    for language, name in (("zh-hans", "Shop"), ("en", "9lives")):
        with translation.override(language), pytest.raises(ValidationError) as refused:
            mcp_server_save(name=name, transport="stdio", command=sys.executable)
        with translation.override(language):  # the message is lazy: read it in its language
            said[language] = (refused.value.message_dict, [e.code for e in refused.value.error_dict["name"]])
    assert said == {
        "zh-hans": (
            {"name": ["'Shop' 不是合法的服务器名称：须以小写字母开头，其后为 1–39 个小写字母、数字、_ 或 -。"]},
            ["server_name_invalid"],
        ),
        "en": (
            {
                "name": [
                    "'9lives' is not a server name: a lowercase letter first, then 1–39 lowercase letters, "
                    "digits, _ or -."
                ]
            },
            ["server_name_invalid"],
        ),
    }
    assert not McpServer.objects.exists()


def test_a_nul_in_an_environment_value_is_refused_by_the_service_too(db):
    """The form refuses a NUL before the service sees it; the admin, the demo loader and scripts
    reach ``mcp_server_save`` directly."""
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        mcp_server_save(name="fs", transport="stdio", command=sys.executable, env={"GOOD": "a\x00b"})
    assert refused.value.message_dict == {"env": ["environment variable 'GOOD': the value contains a NUL character."]}
    assert not McpServer.objects.filter(name="fs").exists()


def test_only_a_superuser_registers_or_changes_a_server_since_its_command_runs_on_this_host(staff_client, db):
    """A publisher (the highest group role) may sync a registered server, never register one: a
    stdio command is run as the console's own user (docs/roles.md)."""
    mcp_server_save(name="crm", transport="stdio", command="/nonexistent/mcp-server")
    proof = {
        "name": "rce",
        "transport": "stdio",
        "command": "/bin/sh",
        "args": "-c\ntouch /tmp/never",
        "timeout_seconds": "5",
        "enabled": "on",
    }
    response = staff_client.post("/mcp/new", proof)
    assert response.status_code == 403
    assert parse(response.content).one("data-needed-role")["data-needed-role"] == "administrator"
    assert "This needs the administrator role; your role is publisher. Nothing was changed." in text(response)
    assert staff_client.post("/mcp/crm/edit", {**proof, "name": "crm"}).status_code == 403
    assert staff_client.get("/mcp/new").status_code == 403
    assert list(McpServer.objects.values_list("name", "command")) == [("crm", "/nonexistent/mcp-server")]
    page = parse(staff_client.get("/mcp/").content)
    assert not page.select("data-shortcut-new")  # no "New server" button, no edit link
    assert page.one("data-sync-now", "crm")  # syncing a registered server stays theirs


def test_sync_now_syncs_and_the_history_lists_removed_tools_and_broken_skills(staff_client, bitmall):
    server = mcp_server_save(
        name="bitmall",
        transport="stdio",
        command=sys.executable,
        args=["-m", "skills_app.demo.bitmall_mcp"],
        timeout_seconds=60,
    )
    response = staff_client.post("/mcp/bitmall/sync")
    assert response.status_code == 302 and response["Location"] == "/mcp/bitmall/syncs"
    record = McpSyncRecord.objects.get()
    assert (record.outcome, record.trigger, record.started_by_name) == ("ok", "console", "ops")
    set_variant(server, "v2")
    staff_client.cookies["django_language"] = "zh-hans"  # the flash in the page's language
    flashed = parse(staff_client.post("/mcp/bitmall/sync", follow=True).content).select("class", "success")
    assert [li.text() for li in flashed] == [  # the first sync's (English, not shown yet), then this one's
        "Synced bitmall: 14 tools; 14 added; 0 removed; 0 changed",
        "已同步 bitmall：13 个工具；新增 0 个，移除 1 个，变更 1 个; 失效的技能: order_change",
    ]
    staff_client.cookies["django_language"] = "en"
    doc = parse(staff_client.get("/mcp/bitmall/syncs").content)
    newest = doc.select("data-sync")[0]
    assert newest.values("data-removed") == ["change_address"]
    assert newest.values("data-unavailable-node") == ["change_address_topic"]
    assert newest.values("data-broken-skill") == ["order_change"]
    assert newest.values("data-changed") == ["query_order"]
    assert "started by ops (console)" in newest.text()
    mcp_server_sync(server=server, trigger="cron")  # no user: the trigger is said once
    doc = parse(staff_client.get("/mcp/bitmall/syncs").content)
    said = " ".join(doc.select("data-sync")[0].text().split())
    assert "started by cron" in said and "cron (cron)" not in said
    assert (
        doc.select("data-sync-message")[1].text().strip()
        == "13 tools; 0 added; 1 removed; 1 changed; broken skills: order_change"
    )
    staff_client.cookies["django_language"] = "zh-hans"
    zh = parse(staff_client.get("/mcp/bitmall/syncs").content).select("data-sync-message")[1].text().strip()
    assert zh == "13 个工具；新增 0 个，移除 1 个，变更 1 个; 失效的技能: order_change"
    staff_client.cookies["django_language"] = "en"
    # broken everywhere: skill list, editor, preview, publish page (refused), tools page
    listing = parse(staff_client.get("/skills/").content)
    assert listing.values("data-broken") == ["order_change"]
    for url in ("/skills/order_change/edit", "/preview/", "/publish/", "/tools/"):
        page = parse(staff_client.get(url).content)
        assert page.one("data-broken-skills").values("data-broken-skill") == ["order_change"], url
    publish = text(staff_client.get("/publish/"))
    assert "change_address" in publish and "no longer offers" in publish


def test_the_tool_page_shows_schema_and_annotations_and_sends_test_calls(staff_client, synced):
    doc = parse(staff_client.get("/tools/mcp/cancel_order/").content)
    assert '"order_no"' in doc.one("data-input-schema").text()
    assert '"destructiveHint": true' in doc.one("data-annotations").text()
    assert doc.one("data-effective-confirm")["data-effective-confirm"] == "on"
    # a read-only tool runs at once
    doc = parse(
        staff_client.post(
            "/tools/mcp/query_logistics/", {"action": "call", "arguments": '{"order_no": "88239"}'}
        ).content
    )
    assert doc.one("data-call-result")["data-call-result"] == "ok"
    assert "SF1234567890" in doc.one("data-call-result").text()
    # a write tool needs the confirmation box
    doc = parse(
        staff_client.post("/tools/mcp/cancel_order/", {"action": "call", "arguments": '{"order_no": "88239"}'}).content
    )
    assert "tick the box to confirm" in doc.one("data-call-error").text()
    doc = parse(
        staff_client.post(
            "/tools/mcp/cancel_order/", {"action": "call", "arguments": '{"order_no": "88239"}', "confirmed": "1"}
        ).content
    )
    assert "已取消" in doc.one("data-call-result").text()
    # the server validates arguments against the schema
    doc = parse(staff_client.post("/tools/mcp/query_order/", {"action": "call", "arguments": '{"limit": 0}'}).content)
    assert doc.one("data-call-result")["data-call-result"] == "error"


def test_the_operators_confirmation_setting_wins_and_is_recorded(staff_client, synced):
    from skills_app.catalog import selectors

    staff_client.post("/tools/mcp/query_order/", {"action": "confirm", "require_confirm": "on"})
    tool = McpTool.objects.get(name="query_order")
    assert (tool.require_confirm_override, tool.confirm_set_by) == (True, "ops")
    assert selectors.catalog_draft().tool("query_order").require_confirm is True
    mcp_server_sync(server=synced, trigger="test")  # a sync keeps the operator's setting
    assert selectors.catalog_draft().tool("query_order").require_confirm is True
    refused = staff_client.post(
        "/tools/mcp/query_order/", {"action": "confirm", "require_confirm": "maybe"}, follow=True
    )
    assert "Unknown confirmation setting 'maybe'" in text(refused) and "Nothing was changed." in text(refused)
    assert McpTool.objects.get(name="query_order").require_confirm_override is True  # not reset
    staff_client.post("/tools/mcp/query_order/", {"action": "confirm", "require_confirm": ""})
    assert selectors.catalog_draft().tool("query_order").require_confirm is False


def test_the_node_editor_offers_synced_tools_and_refuses_to_disable_a_gated_node(staff_client, synced):
    doc = parse(staff_client.get("/tools/nodes/cancel_order_topic/edit").content)
    options = [o["value"] for o in doc.by_tag("option") if o.get("value") and o.parent.get("name") == "mcp_tool_id"]
    assert "cancel_order" in options and len(options) == 14
    form = {
        "name": "取消订单",
        "parent": "order_change",
        "kind": "MCP",
        "mcp_tool_id": "cancel_order",
        "description": "x",
        "sort_order": "10",
    }  # enabled unticked
    response = staff_client.post("/tools/nodes/cancel_order_topic/edit", form)
    assert response.status_code == 200
    assert (
        "intent node 'cancel_order_topic' registers tool 'cancel_order', which skills order_change gate; "
        "disabling or deleting it would break them (force it to flag them broken)"
    ) in text(response)
    assert IntentNode.objects.get(intent_code="cancel_order_topic").enabled is True
    response = staff_client.post("/tools/nodes/cancel_order_topic/edit", {**form, "force": "on"})
    assert response.status_code == 302
    from skills_app.catalog import selectors

    assert selectors.broken_skills() == {"order_change": [("cancel_order", "unregistered")]}
    # deleting is refused the same way
    response = staff_client.post("/tools/nodes/change_address_topic/delete")
    assert response.status_code == 302
    assert IntentNode.objects.get(intent_code="change_address_topic").deleted_at is None


def test_a_new_node_binds_a_synced_tool(staff_client, synced):
    Skill.objects.all()
    response = staff_client.post(
        "/tools/nodes/new",
        {
            "intent_code": "track_topic",
            "name": "查物流2",
            "parent": "order_query",
            "kind": "MCP",
            "mcp_tool_id": "query_logistics",
            "sort_order": "90",
            "enabled": "on",
        },
    )
    assert response.status_code == 302
    assert IntentNode.objects.get(intent_code="track_topic").level == 2


def test_the_admin_refuses_to_disable_a_gated_node_naming_the_skills(client, django_user_model, bitmall):
    root = django_user_model.objects.create_superuser(username="root", password="x-pass-123")
    client.force_login(root)
    client.cookies["django_language"] = "en"
    node = IntentNode.objects.get(intent_code="cancel_order_topic")
    response = client.post(
        f"/admin/skills_app/intentnode/{node.pk}/change/",
        {
            "name": node.name,
            "parent": node.parent_id,
            "kind": "MCP",
            "mcp_tool_id": "cancel_order",
            "require_confirm": "on",
            "description": node.description,
            "examples": "[]",
            "sort_order": node.sort_order,
        },
    )
    assert response.status_code == 200
    assert "which skills order_change gate" in html.unescape(response.content.decode())
    assert IntentNode.objects.get(pk=node.pk).enabled is True


def test_doubtful_hints_are_shown_on_the_tool_page_and_the_sync_record_and_never_ungated(staff_client, bitmall):
    """The ``hints`` variant (docs/mcp.md, "Confirmation"): the tool page names each doubtful hint
    and keeps confirmation on; the sync record lists the same warnings; the editor's lint advises
    ungating only the plainly read-only ``apply_after_sale``."""
    server = stdio_server("hints")
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    expected = {
        "apply_after_sale": ("off", []),
        "cancel_order": (
            "on",
            [
                "tool 'cancel_order': annotations say readOnlyHint true and destructiveHint true, "
                "which contradict each other; its calls need confirmation."
            ],
        ),
        "change_address": (
            "on",
            [
                "tool 'change_address': annotations.readOnlyHint is 'true', which MCP does not "
                "allow there (a hint is true or false, the annotations an object); its calls need "
                "confirmation."
            ],
        ),
    }
    for name, (confirm, problems) in expected.items():
        doc = parse(staff_client.get(f"/tools/mcp/{name}/").content)
        assert doc.one("data-effective-confirm")["data-effective-confirm"] == confirm, name
        shown = doc.select("data-annotation-problems")
        assert ([li.text() for li in shown[0].select("class", "warning")] if shown else []) == problems, name
    doc = parse(
        staff_client.post("/tools/mcp/cancel_order/", {"action": "call", "arguments": '{"order_no": "88239"}'}).content
    )
    assert doc.one("data-call-error").text().startswith("cancel_order is not plainly read-only")
    staff_client.cookies["django_language"] = "zh-hans"
    doc = parse(staff_client.get("/tools/mcp/cancel_order/").content)
    assert [li.text() for li in doc.one("data-annotation-problems").select("class", "warning")] == [
        "工具 'cancel_order'：annotations 同时声明 readOnlyHint 为 true 和 destructiveHint 为 true，两者互相矛盾；"
        "调用它需要确认。"
    ]
    staff_client.cookies["django_language"] = "en"
    history = parse(staff_client.get("/mcp/bitmall/syncs").content)
    assert [li.text() for li in history.one("data-sync-warnings").select("class", "warning")] == [
        "server 'bitmall': tool 'cancel_order': annotations say readOnlyHint true and destructiveHint true, which "
        "contradict each other; its calls need confirmation",
        "server 'bitmall': tool 'change_address': annotations.readOnlyHint is 'true', which MCP does not allow "
        "there (a hint is true or false, the annotations an object); its calls need confirmation",
    ]
    for code, lints in (("after_sale_apply", ["apply_after_sale"]), ("order_change", [])):
        editor = parse(staff_client.get(f"/skills/{code}/edit").content)
        assert [li["data-lint-tool"] for li in editor.select("data-lint", "gated_read_only")] == lints, code


def test_one_invalid_tool_is_named_on_the_sync_record_page(staff_client, bitmall):
    server = stdio_server("invalid")
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    history = parse(staff_client.get("/mcp/bitmall/syncs").content)
    assert history.one("data-sync-message").text().strip() == "14 tools; 14 added; 0 removed; 0 changed"
    assert [li.text() for li in history.one("data-sync-warnings").select("class", "warning")] == [
        "server 'bitmall' lists tool 'broken_lookup' with a definition the MCP schema refuses (inputSchema: Input "
        "should be a valid dictionary); it is not offered",
        "server 'bitmall' lists tool '#4' with a definition the MCP schema refuses (name: Field required); it is "
        "not offered",
    ]


@pytest.mark.parametrize(
    ("url", "start"),
    [("file:///etc/passwd", "file://"), ("gopher://example.com/", "gopher://"), ("ftp://example.com/mcp", "ftp://")],
    ids=["file", "gopher", "ftp"],
)
def test_an_mcp_url_of_another_scheme_than_http_is_refused_by_naming_the_rule(admin_client, db, url, start):
    """Found by a break-in: ``file:///…`` and ``gopher://…`` got URLField's "Enter a valid URL.", and
    ``ftp://`` was saved, to fail only at the next sync. The MCP client speaks HTTP only."""
    fields = {"name": "crm", "transport": "streamable-http", "url": url, "timeout_seconds": "20"}
    response = admin_client.post("/mcp/new", fields)
    assert response.status_code == 200
    assert f"only http:// and https:// URLs can be used; this one starts with '{start}'." in text(response)
    assert "Enter a valid URL" not in text(response)
    assert not McpServer.objects.filter(name="crm").exists()
    admin_client.cookies["django_language"] = "zh-hans"
    chinese = text(admin_client.post("/mcp/new", fields))
    assert f"只能使用 http:// 或 https:// 开头的 URL；这个 URL 以“{start}”开头。" in chinese


def test_an_https_mcp_url_is_still_saved(admin_client, db):
    fields = {
        "name": "crm",
        "transport": "streamable-http",
        "url": "https://mcp.example.com/mcp",
        "timeout_seconds": "20",
    }
    response = admin_client.post("/mcp/new", fields)
    assert response.status_code == 302
    assert McpServer.objects.get(name="crm").url == "https://mcp.example.com/mcp"


def test_a_synced_tool_named_like_a_live_skill_is_warned_on_the_sync_record_and_still_synced(staff_client, bitmall):
    """Issue 29 item 6, the reverse: a server listing ``search_product`` while a live skill has
    that code (made before codes were checked against tools, so through the ORM here). The sync is
    never refused — all 14 tools arrive — and its record names the clash, in the page's language."""
    Skill.objects.create(skill_code="search_product", name="选品", description="选品时加载", content="# 选品\n")
    server = stdio_server()
    record = mcp_server_sync(server=server, trigger="test")
    assert (record.outcome, record.tool_count) == ("ok", 14)
    assert record.named_like_skills == [{"tool": "search_product", "skill": "search_product"}]
    doc = parse(staff_client.get(f"/mcp/{server.name}/syncs").content)
    assert " ".join(doc.one("data-named-like-skills").text().split()) == (
        "Named like a skill: search_product = search_product. The model is offered a tool and a skill (in "
        "load_skill) of one name. A skill code cannot change: make a skill under another code and delete this "
        "one, or bind the tool to no intent node."
    )
    staff_client.cookies["django_language"] = "zh-hans"
    doc = parse(staff_client.get(f"/mcp/{server.name}/syncs").content)
    assert " ".join(doc.one("data-named-like-skills").text().split()) == (
        "与技能同名: search_product = search_product. 模型会同时得到同名的工具和技能（在 load_skill 中）。"
        "技能代码不能修改：请用另一个代码新建技能并删除这个，或不要把该工具挂到任何意图节点上。"
    )
    assert mcp_server_sync(server=server, trigger="test").named_like_skills == record.named_like_skills


def test_the_audit_row_of_a_synced_tool_names_its_server_once_by_name(staff_client, synced):
    """Issue 29 item 2: the sync's write of a demo tool listed "MCP server" twice, once as the
    server record's raw id. Now once: the ``server`` field, by name, in the page's language."""
    staff_client.cookies["django_language"] = "zh-hans"
    doc = parse(staff_client.get("/audit/", {"kind": "mcptool", "record": "cancel_order"}).content)
    newest = doc.select("data-entry")[0]
    assert newest.one("data-action")["data-action"] == "changed"
    changes = {c["data-change"]: " ".join(c.text().split()) for c in newest.select("data-change")}
    assert "mcp_server_id" not in changes
    assert changes["server"] == f"MCP 服务器: demo:bitmall → {synced.name}"
    assert [c.by_tag("strong")[0].text() for c in newest.select("data-change")].count("MCP 服务器") == 1


def test_an_intent_nodes_parent_reads_as_the_parent_nodes_code_in_the_audit(staff_client, bitmall):
    """A foreign key is shown as the record it points at: an intent node moved under another
    parent lists 上级节点: <old code> → <new code>, never the rows' ids."""
    node = IntentNode.objects.get(intent_code="change_address_topic")
    old = node.parent.intent_code
    node.parent = IntentNode.objects.get(intent_code="order_query")
    node.save()
    staff_client.cookies["django_language"] = "zh-hans"
    doc = parse(staff_client.get("/audit/", {"kind": "intentnode", "record": "change_address_topic"}).content)
    changes = [" ".join(c.text().split()) for c in doc.select("data-entry")[0].select("data-change")]
    assert changes == [f"上级节点: {old} → order_query"]


def test_the_tool_page_says_which_targets_refuse_it_and_why(staff_client, bitmall):
    """docs/providers.md: a demo tool every default target accepts, then one Anthropic refuses
    (in English: the fixture's language cookie; in Chinese after it)."""
    doc = parse(staff_client.get("/tools/mcp/query_order/").content)
    assert " ".join(doc.one("data-provider-ok").text().split()) == (
        "Every configured target accepts this definition: OpenAI Chat Completions, Anthropic Messages."
    )
    tool = McpTool.objects.get(name="query_order")
    tool.input_schema = {**tool.input_schema, "oneOf": [{"required": ["order_no"]}]}
    tool.save()
    staff_client.cookies["django_language"] = "zh-hans"
    doc = parse(staff_client.get("/tools/mcp/query_order/").content)
    assert [
        (p["data-target"], p["data-rule"], p["data-action"], " ".join(p.text().split()))
        for p in doc.select("data-payload-problem")
    ] == [
        (
            "anthropic_messages",
            "top_level_combinator",
            "refused",
            "拒绝 Anthropic Messages 拒绝 query_order：模式顶层有 oneOf",
        )
    ]


def test_oversized_tools_are_named_with_their_bound_on_the_sync_record_page(staff_client, bitmall):
    server = stdio_server("oversized")
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    history = parse(staff_client.get("/mcp/bitmall/syncs").content)
    assert history.one("data-sync-message").text().strip() == "11 tools; 11 added; 0 removed; 0 changed"
    assert [li.text() for li in history.one("data-sync-warnings").select("class", "warning")] == [
        "server 'bitmall' lists tool 'query_logistics' past the bounds of a synced definition (description is "
        "20,000 characters; the limit is 8,192); it is not offered",
        "server 'bitmall' lists tool 'search_product' past the bounds of a synced definition (inputSchema is "
        "104,464 bytes of canonical JSON; the limit is 65,536); it is not offered",
        "server 'bitmall' lists tool 'query_cart' past the bounds of a synced definition (title is 2,000 "
        "characters; the limit is 1,024); it is not offered",
    ]
