"""Charts of the console pages (the insights page, a skill's page): the shape a view fills and the
template hands to ``static/skills_app/charts.js`` in a ``json_script`` block, drawn by Chart.js
(vendored under ``static/skills_app/vendor/chartjs/``, its MIT license beside it; never a CDN).
Every chart's numbers are also in a table on the page (``templates/reports/_chart.html`` draws the
canvas; the table is the page's own), so nothing is only in a picture.

Also the days the rollups count in: dates in the console's ``TIME_ZONE``, whatever zone the user
chose for the page's times (``console_today``, ``days_zone``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.utils import timezone

from skills_app.core.zones import zone_label

#: Colours of a series: custom properties of console.css ``:root`` (charts.js reads their values).
PRIMARY, SOFT, MASKED, RELEASED, CONFIRM = "--primary", "--chart-soft", "--masked", "--released", "--confirm"


@dataclass(frozen=True)
class Chart:
    """One chart: ``id`` names its ``json_script`` block (and, with ``-canvas``, its canvas);
    ``title`` is its heading and the canvas's accessible name; ``labels`` the categories (days,
    skills, tools), ``series`` ``(label, colour, values)``; ``horizontal`` lays the bars sideways
    (long names read better that way)."""

    id: str
    title: str
    labels: list[str]
    series: list[tuple[str, str, list[int]]]
    horizontal: bool = False

    @property
    def data(self) -> dict[str, Any]:
        """What ``charts.js`` reads."""
        return {
            "labels": self.labels,
            "series": [{"label": label, "color": color, "data": values} for label, color, values in self.series],
            "horizontal": self.horizontal,
        }

    @property
    def empty(self) -> bool:
        return not any(any(values) for _label, _color, values in self.series)


def console_today() -> date:
    """Today in the console's ``TIME_ZONE``: the days the rollups count in."""
    return timezone.localdate(timezone=timezone.get_default_timezone())


def days_zone() -> str:
    """The label of the zone the rollups' days are dates in ("UTC+08:00 Asia/Shanghai")."""
    return zone_label(timezone.get_default_timezone())


def day_label(day: date) -> str:
    """A day on a chart's axis: ``12-05`` (the table beside it gives the whole date)."""
    return day.strftime("%m-%d")
