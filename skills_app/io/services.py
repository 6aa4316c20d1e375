"""Import and export of skill files (docs/import-export.md): the writes behind
``manage.py import_skills`` / ``export_skills`` and the console's import page.

Parsing is plain Python (``domain/skill_files.py``); every write goes through ``services.skill_create``
and ``services.skill_update``, so tool ids are checked against the intent tree and versions move
exactly as they do in the editor — there is no second validation path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import transaction

from skill_rule.catalog import Skill as DomainSkill
from skill_rule.errors import Problem
from skill_rule.skill_files import Dataset, FileIssue, SkillDeclaration, export_files, parse_dataset
from skills_app.catalog import services
from skills_app.models import Skill

CREATED, UPDATED, UNCHANGED, ERROR, IGNORED = "created", "updated", "unchanged", "error", "ignored"
#: The fields an import compares and writes (``version`` follows from ``services.skill_update``).
FIELDS = ("name", "description", "content", "tool_ids", "sort_order", "enabled")


@dataclass(frozen=True)
class ImportEntry:
    """One file of the report: ``status`` is created / updated / unchanged / error / ignored;
    ``changed`` names the fields an update changes; ``errors`` and ``warnings`` are ``FileIssue``
    (``str()``: ``file:line: cause``; the cause a translatable ``Problem``); ``note`` says why an
    ignored file was not read."""

    source: str
    status: str
    skill_code: str = ""
    changed: tuple[str, ...] = ()
    errors: tuple[FileIssue, ...] = ()
    warnings: tuple[FileIssue, ...] = ()
    note: Problem | str = ""
    version: int | None = None


@dataclass
class ImportReport:
    """The per-file report of ``skills_import``. ``written`` is True when the changes were
    committed (False for a dry run, and for an all-or-nothing import that had an error)."""

    label: str
    entries: list[ImportEntry] = field(default_factory=list)
    dry_run: bool = False
    partial: bool = False
    written: bool = False

    def count(self, status: str) -> int:
        """How many files have ``status``."""
        return sum(1 for e in self.entries if e.status == status)

    @property
    def errors(self) -> int:
        return self.count(ERROR)

    @property
    def held_back(self) -> bool:
        """True when the files without errors are (or, in a dry run, would be) held back: an
        all-or-nothing import with at least one error writes nothing."""
        return self.errors > 0 and not self.partial

    @property
    def no_skill_file(self) -> bool:
        """True when every file was ignored: none is a skill file (``*.properties`` or SKILL.md),
        so there was nothing to import — not "everything is already as the files say"."""
        return all(e.status == IGNORED for e in self.entries)

    @property
    def counts(self) -> dict[str, int]:
        """Files per status, every status present (0 when none)."""
        return {s: self.count(s) for s in (CREATED, UPDATED, UNCHANGED, ERROR, IGNORED)}

    def summary(self) -> str:
        """One English line: what was (or would be) done."""
        c = self.counts
        counts = (
            f"{c[CREATED]} created, {c[UPDATED]} updated, {c[UNCHANGED]} unchanged, "
            f"{c[ERROR]} with errors, {c[IGNORED]} ignored"
        )
        if self.dry_run and self.held_back:
            return (
                f"dry run, nothing written; importing would write nothing: {c[ERROR]} file(s) have errors "
                f"(all or nothing; --partial imports the rest): {counts}"
            )
        if self.no_skill_file:
            counts += "; no skill file was found (*.properties or SKILL.md), nothing to import"
        if self.dry_run:
            return f"dry run, nothing written: {counts}"
        if not self.written:
            return f"nothing imported: {c[ERROR]} file(s) have errors (all or nothing; --partial imports the rest): {counts}"
        return counts


class _Rollback(Exception):
    pass


def _problem(error: ValidationError) -> Problem:
    return Problem(error.code or "", error.message, error.params or {})


def _messages(exc: ValidationError, decl: SkillDeclaration) -> tuple[FileIssue, ...]:
    """The service's refusal, one ``FileIssue`` per message, at the line of the field it names."""
    out: list[FileIssue] = []
    if hasattr(exc, "error_dict"):
        for field_name, errors in exc.error_dict.items():
            file, line = decl.where(field_name) if field_name != NON_FIELD_ERRORS else (decl.source, None)
            label = "" if field_name == NON_FIELD_ERRORS else field_name
            out.extend(FileIssue(file, line, _problem(e), field=label) for e in errors)
    else:
        out.extend(FileIssue(decl.source, None, _problem(e)) for e in exc.error_list)
    return tuple(out)


def _values(skill: Skill) -> dict[str, Any]:
    return {f: list(getattr(skill, f)) if f == "tool_ids" else getattr(skill, f) for f in FIELDS}


def _apply(decl: SkillDeclaration, user: Any) -> ImportEntry:
    """Create or update one skill through the services; raises ``ValidationError`` (nothing saved)."""
    existing = Skill.objects.live().filter(skill_code=decl.skill_code).first()
    if existing is None:
        skill = services.skill_create(
            skill_code=decl.skill_code,
            name=decl.name,
            description=decl.description,
            content=decl.content,
            tool_ids=list(decl.tool_ids),
            sort_order=0 if decl.sort_order is None else decl.sort_order,
            enabled=True if decl.enabled is None else decl.enabled,
            user=user,
        )
        return ImportEntry(decl.source, CREATED, skill_code=skill.skill_code, version=skill.version)
    before = _values(existing)
    changes: dict[str, Any] = {
        "name": decl.name,
        "description": decl.description,
        "content": decl.content,
        "tool_ids": list(decl.tool_ids),
    }
    if decl.sort_order is not None:
        changes["sort_order"] = decl.sort_order
    if decl.enabled is not None:
        changes["enabled"] = decl.enabled
    skill = services.skill_update(skill=existing, user=user, **changes)
    after = _values(skill)
    changed = tuple(f for f in FIELDS if before[f] != after[f])
    warnings: list[FileIssue] = []
    released = [t for t in before["tool_ids"] if t not in after["tool_ids"]]
    if released:
        warnings.append(
            FileIssue(
                *decl.where("tool_ids"),
                Problem(
                    "import_releases",
                    "no longer gates %(tools)s: released to every conversation unless another enabled skill gates it",
                    {"tools": ", ".join(released)},
                ),
            )
        )
    if before["enabled"] and not after["enabled"]:
        warnings.append(
            FileIssue(
                *decl.where("enabled"),
                Problem(
                    "import_disables",
                    "the skill is disabled by this file; its tools are released to every conversation",
                ),
            )
        )
    return ImportEntry(
        decl.source,
        UPDATED if changed else UNCHANGED,
        skill_code=skill.skill_code,
        changed=changed,
        warnings=tuple(warnings),
        version=skill.version,
    )


def skills_import(*, dataset: Dataset, partial: bool = False, dry_run: bool = False, user: Any = None) -> ImportReport:
    """Import every declaration of ``dataset`` (docs/import-export.md) and return the per-file report.

    A skill whose code is live is updated (``sort_order``/``enabled`` only when the file sets them),
    else created; no skill is deleted. All or nothing: one transaction, rolled back when any file
    has an error — unless ``partial``, where each file is its own savepoint and the good ones are
    kept. ``dry_run`` runs every check and write the same way, then rolls everything back, so its
    report is exactly what the import would do. Never raises for a bad file: the report says why.
    """
    report = ImportReport(label=dataset.label, dry_run=dry_run, partial=partial)
    parsed = parse_dataset(dataset)
    try:
        with transaction.atomic():
            for item in parsed:
                if item.ignored is not None:
                    report.entries.append(ImportEntry(item.source, IGNORED, note=item.ignored))
                    continue
                warnings = item.warnings
                decl = item.declaration
                if decl is None:
                    report.entries.append(ImportEntry(item.source, ERROR, errors=item.errors, warnings=warnings))
                    continue
                try:
                    with transaction.atomic():
                        entry = _apply(decl, user)
                except ValidationError as exc:
                    report.entries.append(
                        ImportEntry(
                            item.source,
                            ERROR,
                            skill_code=decl.skill_code,
                            errors=_messages(exc, decl),
                            warnings=warnings,
                        )
                    )
                    continue
                report.entries.append(
                    ImportEntry(
                        entry.source,
                        entry.status,
                        skill_code=entry.skill_code,
                        changed=entry.changed,
                        warnings=warnings + entry.warnings,
                        version=entry.version,
                    )
                )
            if dry_run or (report.errors and not partial):
                raise _Rollback
    except _Rollback:
        report.written = False
    else:
        report.written = True
    return report


def skills_export(*, format: str) -> dict[str, bytes]:
    """Every live skill (enabled and disabled; deleted ones are not exported) as files in
    ``format`` (``properties`` or ``skill-md``): relative path → UTF-8 bytes, read back by
    ``skills_import`` as the same records. Raises ``ValueError`` for an unknown format."""
    skills = [
        DomainSkill(
            code=s.skill_code,
            name=s.name,
            description=s.description,
            content=s.content,
            tool_ids=tuple(s.tool_ids),
            sort_order=s.sort_order,
            enabled=s.enabled,
            version=s.version,
        )
        for s in Skill.objects.live().order_by("sort_order", "skill_code")
    ]
    return export_files(skills, format=format)
