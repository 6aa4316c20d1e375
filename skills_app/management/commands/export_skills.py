"""``python manage.py export_skills PATH --format properties|skill-md`` — write every live skill as
files (docs/import-export.md): into the folder PATH, or into a zip when PATH ends in ``.zip``."""

from __future__ import annotations

import os
import shutil
import tempfile
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
        try:
            if target.suffix.lower() == ".zip":
                if target.exists():
                    raise CommandError(f"{target}: already exists; choose another name")
                _write_zip(target, zip_files(files))
            else:
                if target.exists() and (not target.is_dir() or any(target.iterdir())):
                    raise CommandError(f"{target}: exists and is not an empty folder; nothing written")
                _write_folder(target, files)
        except OSError as exc:
            where = exc.filename or target
            raise CommandError(f"{target}: cannot write {where} ({exc.strerror or exc}); nothing written") from None
        skills = sum(1 for rel in files if rel.endswith((".properties", "/SKILL.md")))
        self.stdout.write(f"exported {skills} skill(s) as {format} to {target}")


def _write_zip(target: Path, data: bytes) -> None:
    """Write the zip beside ``target`` under a temporary name, then rename it: all or nothing."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def _write_folder(target: Path, files: dict[str, bytes]) -> None:
    """Write every file into a temporary folder beside ``target``, then rename it to ``target``
    (an empty ``target`` is replaced): a failed write leaves nothing behind."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial"))
    try:
        for rel, data in files.items():
            out = partial / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
        if target.is_dir():
            target.rmdir()  # empty (checked above)
        partial.rename(target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
