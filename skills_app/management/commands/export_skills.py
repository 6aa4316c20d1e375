"""``python manage.py export_skills PATH --format properties|skill-md`` — write every live skill as
files (docs/import-export.md): into the folder PATH, or into a zip when PATH ends in ``.zip``."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from skill_rule.skill_files import FORMATS, zip_files
from skills_app.io.services import skills_export


class Command(BaseCommand):
    help = "Export every live skill as Ragent declaration files or Agent Skills folders (a folder or a .zip)."

    def add_arguments(self, parser):
        parser.add_argument("path", help="a folder (created; must be empty) or a file name ending in .zip")
        parser.add_argument(
            "--format",
            choices=FORMATS,
            required=True,
            help="properties: <code>.properties + manuals/<code>.md; skill-md: <name>/SKILL.md",
        )

    def handle(self, *args, path: str, format: str, **options):
        files = skills_export(format=format)
        target = Path(path)
        if target.suffix.lower() == ".zip":
            if target.exists():
                raise CommandError(f"{target}: already exists; choose another name")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zip_files(files))
        else:
            if target.exists() and (not target.is_dir() or any(target.iterdir())):
                raise CommandError(f"{target}: exists and is not an empty folder; nothing written")
            for rel, data in files.items():
                out = target / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(data)
        skills = sum(1 for rel in files if rel.endswith((".properties", "/SKILL.md")))
        self.stdout.write(f"exported {skills} skill(s) as {format} to {target}")
