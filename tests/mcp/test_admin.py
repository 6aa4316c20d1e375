"""The Django admin's MCP server records (docs/mcp.md): a synced server can be deleted (its sync
history goes with it, its tools stay as orphans), and its secrets — header and environment
values — are never on its pages."""

from __future__ import annotations

import sys

import pytest

from skills_app.mcp.services import mcp_server_save
from skills_app.mcp.sync import mcp_server_sync
from skills_app.models import SECRET_MASK, McpServer, McpSyncRecord, McpTool
from tests.mcp.support import stdio_server


@pytest.fixture
def root_client(client, django_user_model):
    """A superuser (staff, so the admin opens), reading it in English."""
    client.force_login(django_user_model.objects.create_superuser(username="root", password="x-pass-123"))
    client.cookies["django_language"] = "en"
    return client


def test_a_synced_server_record_is_deleted_in_the_admin_with_its_syncs_keeping_its_tools_as_orphans(
    root_client, bitmall
):
    """Found on a fresh clone: the sync records are read-only in the admin, and the server's
    deletion cascades to them, so the admin refused it (403, "your account doesn't have permission
    to delete … MCP sync") and the orphan flow of docs/mcp.md could not be reached."""
    server = stdio_server()
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    tools = list(McpTool.objects.filter(mcp_server=server).values_list("pk", flat=True))
    assert len(tools) == 14 and McpSyncRecord.objects.filter(server=server).count() == 1
    url = f"/admin/skills_app/mcpserver/{server.pk}/delete/"
    assert root_client.get(url).status_code == 200
    response = root_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not McpServer.objects.filter(pk=server.pk).exists()
    assert not McpSyncRecord.objects.filter(server_id=server.pk).exists()
    kept = McpTool.objects.filter(pk__in=tools)
    assert len(kept) == 14
    assert {(t.mcp_server_id, t.server) for t in kept} == {(None, "bitmall")}
    assert all(t.orphaned for t in kept)


def test_sync_records_are_still_never_added_or_changed_by_hand(root_client, bitmall):
    server = stdio_server()
    record = mcp_server_sync(server=server, trigger="test")
    assert root_client.get("/admin/skills_app/mcpsyncrecord/add/").status_code == 403
    response = root_client.post(f"/admin/skills_app/mcpsyncrecord/{record.pk}/change/", {"trigger": "forged"})
    assert response.status_code == 403
    assert McpSyncRecord.objects.get(pk=record.pk).trigger == "test"


def test_the_admin_never_shows_environment_or_header_values(root_client, db):
    """Found on a fresh clone: ``headers`` was left out of the admin form, ``env`` was not — its
    textarea held the values in clear."""
    server = mcp_server_save(
        name="crm",
        transport="stdio",
        command=sys.executable,
        args=["-V"],
        env={"TOKEN": "s3cret-value"},
        headers={"Authorization": "Bearer s3cret-value"},
    )
    url = f"/admin/skills_app/mcpserver/{server.pk}/change/"
    page = root_client.get(url).content.decode()
    assert "s3cret-value" not in page
    assert f"TOKEN: {SECRET_MASK}" in page and f"Authorization: {SECRET_MASK}" in page
    assert 'name="env"' not in page and 'name="headers"' not in page
    response = root_client.post(
        url,
        {
            "name": "crm",
            "transport": "stdio",
            "command": sys.executable,
            "args": '["-V"]',
            "url": "",
            "timeout_seconds": "30",
            "enabled": "on",
        },
    )
    assert response.status_code == 302
    server.refresh_from_db()
    assert (server.env, server.headers, server.timeout_seconds) == (
        {"TOKEN": "s3cret-value"},
        {"Authorization": "Bearer s3cret-value"},
        30,
    )
