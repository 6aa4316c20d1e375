"""The audit log's filter form (docs/roles.md "History and audit"). It only validates."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from skill_rule.limits import SKILL_CODE_MAX_LENGTH


class AuditFilterForm(forms.Form):
    """The audit page's filters (docs/roles.md): who, which record type, which record (its code
    or name, exact), and a date range (inclusive). Every field is optional; ``until`` before
    ``since`` is refused with a message."""

    user = forms.TypedChoiceField(label=_("Person"), required=False, coerce=int, empty_value=None)
    kind = forms.ChoiceField(label=_("Record type"), required=False)
    record = forms.CharField(label=_("Record (code or name)"), required=False, max_length=SKILL_CODE_MAX_LENGTH)
    since = forms.DateField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(
        self, *args: Any, users: Iterable[Any] = (), kinds: Iterable[tuple[str, Any]] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["user"].choices = [("", _("everyone"))] + [(u.pk, u.get_username()) for u in users]
        self.fields["kind"].choices = [("", _("every record type"))] + list(kinds)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("since") and data.get("until") and data["until"] < data["since"]:
            self.add_error("until", gettext("The end date is before the start date."))
        return data
