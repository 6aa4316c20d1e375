"""The insights page and the fleet page (issue 26 item 5; docs/design.md "Runtime reports").

Both read the rollups and the instances through ``reports.selectors`` — never the raw rows — and
every role may read them (``role_required``'s default: viewer). Each chart is drawn in the browser
by Chart.js (vendored: ``static/skills_app/vendor/chartjs/``, MIT) from a ``json_script`` block
(``web.charts.Chart``), and its numbers are in a table right below it, for keyboard and screen-reader
users and for anyone who would rather read.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from skill_rule.reports import PERCENTILES
from skills_app.core.message_catalog import REASON_LABELS
from skills_app.releases import selectors as releases_selectors
from skills_app.reports import selectors
from skills_app.reports.forms import InsightsFilterForm, bound_filter
from skills_app.web.charts import MASKED, PRIMARY, RELEASED, SOFT, Chart, console_today, day_label, days_zone
from skills_app.web.common import role_required


def filter_form(request: HttpRequest) -> InsightsFilterForm:
    """The release and date-range filter of ``request``'s query string, every release a choice."""
    releases = [number for number, _note in releases_selectors.release_choices()]
    return bound_filter(request.GET, releases=releases, today=console_today())


def reason_label(reason: str) -> str:
    label = REASON_LABELS.get(reason)
    return str(label) if label is not None else reason


def _insight_charts(data: selectors.Insights) -> dict[str, Chart]:
    return {
        "per_day": Chart(
            "chart-per-day",
            _("Rounds and conversations per day"),
            [day_label(day) for day, _n in data.per_day],
            [
                (_("Rounds"), PRIMARY, [n["rounds"] for _d, n in data.per_day]),
                (_("Conversations"), RELEASED, [n["conversations"] for _d, n in data.per_day]),
            ],
        ),
        "loads": Chart(
            "chart-loads",
            _("Loads per skill"),
            [s.code for s in data.skills],
            [
                (_("load_skill calls"), PRIMARY, [s.loads for s in data.skills]),
                (_("Rounds with it loaded"), SOFT, [s.rounds for s in data.skills]),
            ],
            horizontal=True,
        ),
        "masked": Chart(
            "chart-masked",
            _("Attempts to call a masked tool"),
            [f"{tool} → {manual}" if manual else tool for tool, manual, _n in data.masked_calls],
            [(_("Attempts"), MASKED, [n for _t, _m, n in data.masked_calls])],
            horizontal=True,
        ),
        "refusals": Chart(
            "chart-refusals",
            _("Refusals by reason"),
            [reason_label(reason) for reason, _n in data.refusals],
            [(_("Refusals"), MASKED, [n for _r, n in data.refusals])],
            horizontal=True,
        ),
    }


@role_required
@require_safe
def insights(request: HttpRequest) -> HttpResponse:
    """What production did, per release and date range, read from the rollups: rounds and
    conversations (per day), loads per skill, skills never loaded, attempts to call a masked tool
    (per tool, with the manual to load), refusals by reason, confirmations asked, rounds that
    served an outdated manual, warning codes and ``tools_chars`` percentiles. A bad filter shows
    its error (400) and no numbers."""
    form = filter_form(request)
    context: dict[str, Any] = {"form": form, "days_zone": days_zone(), "data": None}
    if form.is_bound and not form.is_valid():
        return render(request, "reports/insights.html", context, status=400)
    since, until, release = form.period(console_today())
    data = selectors.insights(since=since, until=until, release=release)
    context.update(
        data=data,
        charts=_insight_charts(data),
        percentiles=[(p, data.tools_chars[p]) for p in (*PERCENTILES, 100)] if data.tools_chars else [],
        reason_labels={reason: reason_label(reason) for reason, _n in data.refusals},
        instances=len(selectors.instance_list()),
    )
    return render(request, "reports/insights.html", context)


@role_required
@require_safe
def fleet(request: HttpRequest) -> HttpResponse:
    """Every runtime instance: its key, the release and label it holds, client version, last seen,
    stale, last refresh; an instance on a release that no label points to (nor the default) is
    flagged, as is one whose label now points elsewhere. Above them, how many instances hold each
    release."""
    rows = selectors.fleet()
    per_release = Counter(r.instance.release for r in rows)
    known = {r.instance.release for r in rows if r.known}
    return render(
        request,
        "reports/fleet.html",
        {
            "rows": rows,
            "per_release": [
                (number, n, number in known)
                for number, n in sorted(per_release.items(), key=lambda item: (item[0] is None, -(item[0] or 0)))
            ],
            "stale": sum(1 for r in rows if r.instance.stale),
            "unlabelled": sum(1 for r in rows if r.unlabelled),
            "labels": releases_selectors.label_list(),
            "default_release": selectors.default_release(),
        },
    )
