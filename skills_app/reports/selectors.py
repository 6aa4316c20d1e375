"""Reads of runtime reports for the insight and fleet pages (docs/design.md "Reports"): the per-day
rollups and the instances — never the raw rows, whose number grows with traffic. Each read is one
query whatever the number of rows behind it."""

from __future__ import annotations

from collections import defaultdict
from datetime import date

from django.db.models import Sum

from skills_app.models import ReportRollup, RuntimeInstance


def rollup_totals(*, since: date, until: date, release: int | None = None) -> dict[str, dict[str, int]]:
    """``{dimension: {key: count}}`` summed over the days ``since`` to ``until`` (both included; dates in
    the console's ``TIME_ZONE``)
    for one release (0 = none or the draft) or, with ``release`` ``None``, for all of them
    (``skill_rule.reports.DIMENSIONS`` says what each dimension counts). One query."""
    rows = ReportRollup.objects.filter(day__gte=since, day__lte=until)
    if release is not None:
        rows = rows.filter(release=release)
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for dimension, key, total in (
        rows.values_list("dimension", "key").annotate(total=Sum("count")).order_by("dimension", "key")
    ):
        out[dimension][key] = int(total)
    return dict(out)


def rollup_table(*, since: date, until: date) -> dict[tuple[date, int, str, str], int]:
    """Every rollup counter of the days ``since`` to ``until``: ``(day, release, dimension, key) →
    count``. One query."""
    rows = ReportRollup.objects.filter(day__gte=since, day__lte=until).order_by("day", "release", "dimension", "key")
    return {(r.day, r.release, r.dimension, r.key): r.count for r in rows}


def instance_list() -> list[RuntimeInstance]:
    """Every runtime instance, the one seen last first. One query."""
    return list(RuntimeInstance.objects.order_by("-last_seen", "key_prefix", "instance"))
