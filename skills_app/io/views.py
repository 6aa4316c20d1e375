"""Import and export of skill files in the console (docs/import-export.md): upload a folder as a
zip or single files, see the per-file report of a check (nothing written), then import; download
every live skill as a zip in either format."""

from __future__ import annotations

import hashlib

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from skill_rule.errors import Problem
from skill_rule.limits import IMPORT_MAX_FILES, IMPORT_MAX_UPLOAD_BYTES
from skill_rule.skill_files import Dataset, FileIssue, SkillFileError, read_files, read_zip, zip_files
from skills_app.core.message_catalog import problem_text
from skills_app.io import services as skill_io
from skills_app.io.forms import SkillExportForm, SkillImportForm
from skills_app.models import Skill
from skills_app.web.common import staff_required


def issue_text(issue: FileIssue) -> str:
    """``file:line: cause`` with the cause in the active language."""
    where = f"{issue.source}:{issue.line}" if issue.line is not None else issue.source
    field = f"{issue.field}: " if issue.field else ""
    return f"{where}: {field}{problem_text(issue.cause)}"


def dataset_digest(dataset: Dataset) -> str:
    """sha256 of the files (paths and bytes): the import button applies exactly what was checked."""
    digest = hashlib.sha256()
    for path in sorted(dataset.files):
        digest.update(path.encode("utf-8") + b"\0" + hashlib.sha256(dataset.files[path]).digest())
    for path in sorted(dataset.refused):
        digest.update(b"refused\0" + path.encode("utf-8"))
    return digest.hexdigest()


def dataset_from_upload(files: list) -> Dataset:
    """One zip, or single files. Raises ``SkillFileError`` naming the upload and the cause."""
    if len(files) > IMPORT_MAX_FILES:
        raise SkillFileError(
            Problem("import_upload_too_many", "more than %(max)s files; upload a zip", {"max": IMPORT_MAX_FILES}),
            source="upload",
        )
    for f in files:
        if f.size > IMPORT_MAX_UPLOAD_BYTES:
            raise SkillFileError(
                Problem(
                    "import_upload_too_big",
                    "is %(size)s bytes; at most %(max)s bytes may be uploaded",
                    {"size": f.size, "max": IMPORT_MAX_UPLOAD_BYTES},
                ),
                source=f.name,
            )
    zips = [f for f in files if f.name.lower().endswith(".zip")]
    if zips:
        if len(files) > 1:
            raise SkillFileError(
                Problem("import_zip_and_files", "upload one zip, or single files without a zip"), source="upload"
            )
        return read_zip(zips[0].read(), label=zips[0].name)
    return read_files([(f.name, f.read()) for f in files], label="upload")


def common_folder(paths: list[str]) -> str:
    """``"top/"`` when two or more paths all sit in the same top folder (a zipped folder), else
    ``""``: the report shows it once instead of on every row."""
    tops = {p.split("/", 1)[0] + "/" for p in paths if "/" in p}
    if len(paths) >= 2 and len(tops) == 1 and all("/" in p for p in paths):
        return tops.pop()
    return ""


@staff_required
def skill_import(request: HttpRequest) -> HttpResponse:
    """GET: the upload form and the export download. POST ``action=check``: the per-file report of
    a dry run (nothing written). POST ``action=apply``: import what was checked (the ``checked``
    digest must match the files sent) and show the report of what was written."""
    form = SkillImportForm(request.POST or None, request.FILES or None)
    report = digest = None
    stale = False
    if request.method == "POST" and form.is_valid():
        try:
            dataset = dataset_from_upload(form.cleaned_data["files"])
        except SkillFileError as exc:
            form.add_error("files", issue_text(exc.issue))
        else:
            digest = dataset_digest(dataset)
            apply = request.POST.get("action") == "apply"
            if apply and form.cleaned_data["checked"] != digest:
                apply, stale = False, True
            report = skill_io.skills_import(
                dataset=dataset, partial=form.cleaned_data["partial"], dry_run=not apply, user=request.user
            )
    prefix = common_folder([e.source for e in report.entries]) if report else ""
    context = {
        "form": form,
        "report": report,
        "prefix": prefix,
        "rows": [
            (
                e,
                e.source[len(prefix) :],
                [issue_text(i) for i in e.errors],
                [issue_text(i) for i in e.warnings],
                problem_text(e.note) if e.note else "",
            )
            for e in report.entries
        ]
        if report
        else [],
        "digest": digest,
        "stale": stale,
        "export_form": SkillExportForm(),
        "live_count": Skill.objects.live().count(),
    }
    if request.htmx:
        return render(request, "skills/_import_report.html", context)
    return render(request, "skills/import.html", context)


@staff_required
def skill_export(request: HttpRequest) -> HttpResponse:
    """Every live skill as a zip in ``?format=properties`` (default) or ``skill-md``; the files sit
    in one folder named like the zip."""
    form = SkillExportForm(request.GET or None)
    fmt = form.cleaned_data["format"] if form.is_valid() else "properties"
    name = f"skills-{fmt}-{timezone.now():%Y%m%d-%H%M%S}"
    data = zip_files(skill_io.skills_export(format=fmt), folder=name)
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{name}.zip"'
    return response
