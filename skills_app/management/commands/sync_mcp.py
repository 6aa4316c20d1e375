"""``python manage.py sync_mcp [SERVER …] [--demo] [--trigger NAME]`` — sync MCP servers (docs/mcp.md)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from skills_app.mcp.sync import (
    DEMO_SERVER_NAME,
    SyncAlreadyRunning,
    demo_publish_call_targets,
    demo_server_ensure,
    mcp_server_sync,
)
from skills_app.models import ConsoleSettings, McpServer
from skills_app.releases.services import PublishRefused


class Command(BaseCommand):
    help = (
        "Sync MCP servers' tools (every enabled server, or the ones named). The same sync as the console's "
        "'Sync now' button; run it from cron or a systemd timer for servers whose tools change. "
        "Exits with status 1 when a sync failed."
    )

    def add_arguments(self, parser):
        parser.add_argument("servers", nargs="*", help="server names (default: every enabled server)")
        parser.add_argument(
            "--demo",
            action="store_true",
            help=f"register the bitmall demo server ('{DEMO_SERVER_NAME}', stdio) when the database "
            "holds the bitmall demo, then sync it (what make run does)",
        )
        parser.add_argument("--trigger", default="command", help="recorded as what started the sync (e.g. cron)")

    def handle(self, *args, servers: list[str], demo: bool, trigger: str, **options):
        if demo:
            if ConsoleSettings.current().catalog_name != "bitmall":
                self.stdout.write("the database does not hold the bitmall demo; no demo MCP server registered")
                return
            server, created = demo_server_ensure()
            if created:
                self.stdout.write(
                    f"registered the demo MCP server '{server.name}' (stdio: {server.command} {' '.join(server.args)})"
                )
            servers = [server.name]
        if servers:
            found = {s.name: s for s in McpServer.objects.filter(name__in=servers)}
            missing = [n for n in servers if n not in found]
            if missing:
                known = ", ".join(McpServer.objects.values_list("name", flat=True)) or "none"
                raise CommandError(f"unknown MCP server {', '.join(missing)}; servers: {known}")
            targets = [found[n] for n in servers]
        else:
            targets = list(McpServer.objects.filter(enabled=True))
            if not targets:
                self.stdout.write("no enabled MCP server to sync")
                return
        failed = 0
        for server in targets:
            try:  # here, in this process (the console's "Sync now" queues the same sync for the task worker)
                record = mcp_server_sync(server=server, trigger=trigger)
            except SyncAlreadyRunning as exc:  # the sync under way will bring the tools up to date
                self.stdout.write(f"sync of '{server.name}' skipped: {exc}")
                continue
            if record.outcome == "ok":
                self.stdout.write(f"synced '{server.name}': {record.message}")
                for warning in record.warning_texts:
                    self.stdout.write(f"  warning: {warning}")
            else:
                failed += 1
                self.stderr.write(f"sync of '{server.name}' failed: {record.message}")
        if demo and not failed:
            self._publish_call_targets()
        if failed:
            raise CommandError(f"{failed} of {len(targets)} syncs failed; the previous tools were kept")

    def _publish_call_targets(self) -> None:
        """``make run``: publish the call targets the first sync filled in (docs/mcp.md)."""
        try:
            release = demo_publish_call_targets()
        except PublishRefused as exc:
            self.stdout.write("the call targets were not published:")
            for reason in exc.reasons:
                self.stdout.write(f"  - {reason.message}")
            return
        if release is not None:
            self.stdout.write(
                f"published release {release.number} ({release.note}); the runtime maps calls back to the server"
            )
