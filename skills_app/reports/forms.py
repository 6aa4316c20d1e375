"""The insight pages' filter (docs/design.md "Runtime reports"): a release and a date range. It
only validates; the view fills in what was left empty (``InsightsFilterForm.period``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

#: Days the range covers when the filter leaves it open: the last 30, today included.
DEFAULT_DAYS = 30
#: The longest range one page shows (a year and a day): its charts and tables stay readable.
MAX_DAYS = 367
#: How a date input holds its value (``<input type="date">`` takes nothing else).
ISO_DATE = "%Y-%m-%d"
#: The ``release`` value for the draft (reports of ``release: null``; rollups of release 0).
DRAFT = 0


class InsightsFilterForm(forms.Form):
    """``release`` (empty: every release; ``0``: the draft; else a release number that exists),
    ``since`` and ``until`` (dates in the console's time zone, both included; each optional).
    ``until`` before ``since`` and a range longer than ``MAX_DAYS`` are refused with a message."""

    release = forms.TypedChoiceField(label=_("Release"), required=False, coerce=int, empty_value=None)
    # ISO dates whatever the language: a type=date input shows nothing for "2026/11/06" (zh's format)
    since = forms.DateField(
        label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}, format=ISO_DATE)
    )
    until = forms.DateField(
        label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}, format=ISO_DATE)
    )

    def __init__(self, *args: Any, releases: Iterable[int] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["release"].choices = [
            ("", _("every release")),
            *((n, gettext("Release #%(n)s") % {"n": n}) for n in releases),
            (DRAFT, _("the draft (no release)")),
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until:
            if until < since:
                self.add_error("until", gettext("The end date is before the start date."))
            elif (until - since).days + 1 > MAX_DAYS:
                self.add_error(
                    "until",
                    gettext("A range covers at most %(max)s days; this one covers %(n)s.")
                    % {"max": MAX_DAYS, "n": (until - since).days + 1},
                )
        return data

    def period(self, today: date) -> tuple[date, date, int | None]:
        """``(since, until, release)`` of a valid (or unbound) form: an empty ``until`` is
        ``today``, an empty ``since`` ``DEFAULT_DAYS`` days up to ``until``."""
        data = self.cleaned_data if self.is_bound else {}
        until = data.get("until") or (today if not data.get("since") else max(today, data["since"]))
        since = data.get("since") or until - timedelta(days=DEFAULT_DAYS - 1)
        if (until - since).days + 1 > MAX_DAYS:  # an open end after a long-ago start
            until = since + timedelta(days=MAX_DAYS - 1)
        return since, until, data.get("release")


#: The query parameters of the filter: a query string holding none of them shows the defaults.
FIELDS = ("release", "since", "until")


def bound_filter(query: Mapping[str, Any], *, releases: Iterable[int], today: date) -> InsightsFilterForm:
    """The filter bound to ``query`` (a request's ``GET``) when it sets any of ``FIELDS``, else
    unbound, showing the defaults it stands for: every release, the last ``DEFAULT_DAYS`` days up
    to ``today``."""
    if any(query.get(name) for name in FIELDS):
        return InsightsFilterForm(query, releases=releases)
    since = today - timedelta(days=DEFAULT_DAYS - 1)
    return InsightsFilterForm(None, releases=releases, initial={"since": since, "until": today})
