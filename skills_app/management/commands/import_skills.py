"""``python manage.py import_skills PATH [--dry-run] [--partial]`` — import skill files
(docs/import-export.md): a folder, a zip, or one ``.properties`` / ``SKILL.md`` file."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from skill_rule.skill_files import SkillFileError, read_path
from skills_app.io.services import ERROR, IGNORED, skills_import


class Command(BaseCommand):
    help = (
        "Import skills from Ragent declaration files (*.properties) and Agent Skills folders (SKILL.md): "
        "a folder, a zip or one file. All or nothing unless --partial."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="a folder, a .zip, or one .properties / SKILL.md file")
        parser.add_argument("--dry-run", action="store_true", help="check and report; write nothing")
        parser.add_argument(
            "--partial", action="store_true", help="import the files that are fine even when others have errors"
        )

    def handle(self, *args, path: str, dry_run: bool, partial: bool, **options):
        try:
            dataset = read_path(path)
        except SkillFileError as exc:
            raise CommandError(str(exc)) from None
        report = skills_import(dataset=dataset, partial=partial, dry_run=dry_run)
        for entry in report.entries:
            detail = ""
            if entry.changed:
                detail = f" ({', '.join(entry.changed)})"
            elif entry.status == IGNORED:
                detail = f": {entry.note}"
            code = f" {entry.skill_code}" if entry.skill_code else ""
            stream = self.stderr if entry.status == ERROR else self.stdout
            stream.write(f"{entry.status:<9} {entry.source}{code}{detail}")
            for message in entry.errors:
                self.stderr.write(f"  error: {message}")
            for message in entry.warnings:
                self.stdout.write(f"  warning: {message}")
        self.stdout.write(report.summary())
        if report.errors:
            raise CommandError(
                f"{report.errors} file(s) with errors" + ("" if report.written or dry_run else "; nothing was imported")
            )
