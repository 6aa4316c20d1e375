"""``python manage.py load_demo [NAME] [--replace]`` — load a demo catalog idempotently."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from skills_app.catalog.demo import DEFAULT_DEMO, DemoError, demo_load, demo_names
from skills_app.core.message_catalog import AUTO_RELEASE_NOTES
from skills_app.releases.selectors import draft_sha256, release_latest
from skills_app.releases.services import PublishRefused, release_publish_first


class Command(BaseCommand):
    help = (
        "Load a demo catalog. Without NAME: top up the demo the database holds, or load "
        f"'{DEFAULT_DEMO}' into an empty database. Existing records are never overwritten."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", nargs="?", default=None, help=f"one of: {', '.join(demo_names())}")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="switch catalogs: back up the current catalog to var/backups/, then replace it",
        )

    def handle(self, *args, name: str | None, replace: bool, **options):
        try:
            summary = demo_load(name=name, replace=replace, backup_dir=settings.VAR_DIR / "backups")
        except DemoError as exc:
            raise CommandError(str(exc)) from None
        except ValidationError as exc:
            raise CommandError(f"demo '{name}': {'; '.join(exc.messages)}") from None
        if summary.skipped:
            self.stdout.write(
                "the database holds a catalog that staff built; no demo loaded "
                "(name one with: load_demo NAME --replace)"
            )
            return
        if summary.backup:
            self.stdout.write(
                f"saved the previous catalog to {summary.backup} "
                f"(restore it with: manage.py restore_catalog {summary.backup})"
            )
        verb = "switched to" if summary.replaced else "loaded"
        self.stdout.write(
            f"{verb} demo catalog '{summary.name}': {summary.nodes} intent nodes, {summary.tools} MCP tools, "
            f"{summary.skills} skills, {summary.profiles} access profiles, {summary.stages} stages, "
            f"scenarios: {', '.join(summary.scenarios) or 'none'}"
        )
        self._publish_first(summary.name)

    def _publish_first(self, name: str) -> None:
        """Publish the draft as release 1 when no release exists, so the runtime answers at once."""
        note = AUTO_RELEASE_NOTES["demo"] % {"name": name}
        try:
            release = release_publish_first(note=note)
        except PublishRefused as exc:
            self.stdout.write("not published (the runtime answers 404 no_release until a release exists):")
            for reason in exc.reasons:
                self.stdout.write(f"  - {reason.message}")
            return
        if release is not None:
            self.stdout.write(f"published release {release.number} ({note}); the runtime serves it")
            return
        latest = release_latest()
        if latest is not None and draft_sha256() != latest.sha256:
            self.stdout.write(
                f"the draft differs from release {latest.number}; the runtime serves releases only: "
                "publish on /publish/ or with: manage.py publish --note TEXT"
            )
