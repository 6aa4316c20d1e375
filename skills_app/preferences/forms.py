"""The time-zone form (``/preferences/time-zone``): one IANA name from
``zoneinfo.available_timezones()``, or blank for the server's default (``TIME_ZONE``)."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from skills_app.core import zones


def _choices() -> list[tuple[str, str]]:
    default = _("Server default (%(zone)s)") % {"zone": settings.TIME_ZONE}
    return [("", default), *((name, name) for name in zones.zone_names())]


class ZoneSelect(forms.Select):
    """A select whose zone names are marked ``translate="no"`` (IANA identifiers, not words: a
    browser's page translation leaves them alone); the server's default stays translatable."""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if value:
            option["attrs"]["translate"] = "no"
        return option


class TimeZoneForm(forms.Form):
    """Validates the chosen zone; an unknown name is refused naming it."""

    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        required=False,
        choices=_choices,
        widget=ZoneSelect,
        error_messages={
            "invalid_choice": _(
                "“%(value)s” is not a time zone of the IANA database; choose one of the list (for example "
                "Asia/Shanghai, Europe/Berlin or UTC)."
            )
        },
    )
