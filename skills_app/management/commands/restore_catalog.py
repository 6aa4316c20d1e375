"""``python manage.py restore_catalog FILE`` — put back a catalog saved by ``load_demo --replace``."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from skills_app.catalog.demo import DemoError, catalog_restore


class Command(BaseCommand):
    help = "Replace the catalog with a backup file (the current catalog is backed up first)."

    def add_arguments(self, parser):
        parser.add_argument("path", help="a JSON file written to var/backups/ by load_demo --replace")

    def handle(self, *args, path: str, **options):
        try:
            saved = catalog_restore(path=Path(path), backup_dir=settings.VAR_DIR / "backups")
        except DemoError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"restored the catalog from {path}; the one it replaced is in {saved}")
