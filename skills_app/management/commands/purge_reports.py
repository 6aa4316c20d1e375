"""``python manage.py purge_reports [--days N] [--dry-run]`` — delete the raw runtime reports
older than the retention period (``SKILL_CONSOLE_REPORTS_RETENTION_DAYS``, default 30 days). The
per-day rollups and the runtime instances are kept. Run it once a day (docs/deploy.md, "Runtime
reports": a systemd timer or a cron line)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from skills_app.reports.services import reports_purge, retention_days


class Command(BaseCommand):
    help = (
        "Delete raw runtime reports older than SKILL_CONSOLE_REPORTS_RETENTION_DAYS (default 30); "
        "the per-day rollups and the instances are kept."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--days", type=int, default=None, help="keep this many days instead of the setting (1 or more)"
        )
        parser.add_argument("--dry-run", action="store_true", help="count what would be deleted, delete nothing")

    def handle(self, *args, days: int | None, dry_run: bool, **options):
        days = retention_days() if days is None else days
        if days < 1:
            raise CommandError(f"--days must be 1 or more, got {days}")
        count, cutoff = reports_purge(days=days, dry_run=dry_run)
        verb = "would delete" if dry_run else "deleted"
        self.stdout.write(
            f"{verb} {count} raw report row(s) from before {cutoff.isoformat(timespec='seconds')} "
            f"(kept: {days} days); rollups and instances kept"
        )
