"""Forms of the import and export page (docs/import-export.md): files or a zip, and the export's
format. They only validate; ``io.services.skills_import`` writes."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


# ---- import and export of skill files (docs/import-export.md) -------------------------------
class MultipleFileInput(forms.ClearableFileInput):
    """A file input that accepts several files (Django's documented way)."""

    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A list of uploaded files (one or more)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> list:
        """The cleaned files, or ``ValidationError`` with one message per refused file, each led by
        the file's name (Django's own message, e.g. an empty file, names none)."""
        single = super().clean
        if not (isinstance(data, (list, tuple)) and data):
            return [single(None if isinstance(data, (list, tuple)) else data, initial)]
        cleaned, refused = [], []
        for upload in data:
            try:
                cleaned.append(single(upload, initial))
            except ValidationError as exc:
                refused.extend(
                    gettext("%(file)s: %(problem)s") % {"file": getattr(upload, "name", "") or "?", "problem": problem}
                    for problem in exc.messages
                )
        if refused:
            raise ValidationError(refused)
        return cleaned


class SkillImportForm(forms.Form):
    """The import page: a zip of a folder, or single ``.properties`` / ``SKILL.md`` / manual files."""

    files = MultipleFileField(
        label=_("Files"),
        help_text=_("One .zip of a folder, or single files: *.properties with the manuals they name, or a SKILL.md."),
        widget=MultipleFileInput(attrs={"accept": ".zip,.properties,.md"}),
    )
    partial = forms.BooleanField(
        label=_("Import the files that are fine even when others have errors"),
        required=False,
        help_text=_("Off: all or nothing — one error and nothing is imported."),
    )
    checked = forms.CharField(required=False, widget=forms.HiddenInput)


class SkillExportForm(forms.Form):
    """The export download: which format."""

    format = forms.ChoiceField(
        label=_("Format"),
        initial="properties",
        choices=(
            ("properties", _("Ragent declaration files (.properties + manuals)")),
            ("skill-md", _("Agent Skills folders (SKILL.md)")),
        ),
    )
