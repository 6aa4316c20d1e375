"""Reads of runtime reports for the insight and fleet pages (docs/design.md "Reports"): the per-day
rollups and the instances — never the raw rows, whose number grows with traffic. Each read is a
fixed number of queries whatever the number of rows behind it: ``insights`` (the insights page),
``skill_insights`` (a skill's page), ``fleet`` and ``instances_serving`` (the fleet page, a
release's page) build on the one-query reads above them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Q, Sum

from skill_rule.reports import masked_call_parts, tools_chars_percentiles
from skills_app.catalog.selectors import catalog_draft
from skills_app.models import Release, ReleaseLabel, ReportRollup, RuntimeInstance, RuntimeKey
from skills_app.runtime import cache as runtime_cache


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


def rollup_days(
    *, since: date, until: date, dimensions: Iterable[str], release: int | None = None
) -> dict[str, dict[date, int]]:
    """``{dimension: {day: count}}`` — each of ``dimensions`` summed over its keys, per day, for the
    days ``since`` to ``until`` and one release (``None``: all). Days without a count are absent.
    One query."""
    rows = ReportRollup.objects.filter(day__gte=since, day__lte=until, dimension__in=list(dimensions))
    if release is not None:
        rows = rows.filter(release=release)
    out: dict[str, dict[date, int]] = defaultdict(dict)
    for dimension, day, total in (
        rows.values_list("dimension", "day").annotate(total=Sum("count")).order_by("dimension", "day")
    ):
        out[dimension][day] = int(total)
    return dict(out)


def rollup_releases(*, since: date, until: date) -> list[int]:
    """The releases (0 = the draft) that have any rollup counter on the days ``since`` to
    ``until``, in order. One query."""
    return list(
        ReportRollup.objects.filter(day__gte=since, day__lte=until)
        .values_list("release", flat=True)
        .distinct()
        .order_by("release")
    )


@dataclass(frozen=True)
class SkillUse:
    """A skill the chosen releases serve, or that rounds loaded: ``loads`` load_skill calls allowed
    for it, ``rounds`` rounds in which it was loaded; ``name`` empty when no release of the range
    (nor the draft) holds it."""

    code: str
    name: str
    loads: int
    rounds: int


@dataclass(frozen=True)
class Insights:
    """What the insights page shows for the days ``since`` to ``until`` (dates in the console's
    ``TIME_ZONE``) and ``release`` (``None``: every release; 0: the draft), read from the rollups.

    ``per_day``: every day of the range → ``{"rounds", "conversations", "refused", "confirm"}``
    (0 where nothing was counted); ``skills``: loads per skill, most loaded first; ``never_loaded``:
    skills the releases of the range serve that no round loaded and no load_skill call asked for;
    ``masked_calls``: ``(tool, manual to load, count)``; ``refusals``: reason → count;
    ``confirms``: tool → count; ``warnings``: code → count; ``tools_chars``: percent → upper bound
    (``skill_rule.reports.tools_chars_percentiles``; 100 = the largest) or ``None``;
    ``releases``: the releases counted in the range."""

    since: date
    until: date
    release: int | None
    totals: dict[str, int]
    per_day: list[tuple[date, dict[str, int]]]
    skills: list[SkillUse]
    never_loaded: list[SkillUse]
    masked_calls: list[tuple[str, str, int]]
    refusals: list[tuple[str, int]]
    confirms: list[tuple[str, int]]
    warnings: list[tuple[str, int]]
    tools_chars: dict[int, int] | None
    releases: list[int]

    @property
    def empty(self) -> bool:
        return not any(self.totals.values())


#: The dimensions counted once per range on the insights page (``Insights.totals``).
TOTALS = ("rounds", "conversations", "calls", "refused", "masked_call", "confirm", "outdated", "withheld", "load")
#: The dimensions of the per-day chart (``Insights.per_day``).
PER_DAY = ("rounds", "conversations", "refused", "confirm")


def _by_count(counts: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def _days(since: date, until: date) -> list[date]:
    return [since + timedelta(days=i) for i in range((until - since).days + 1)]


def _served_skills(releases: Iterable[int]) -> dict[str, str]:
    """Code → name of the enabled skills of these releases (0: the draft), later releases' names
    winning; the releases' catalogs come from the runtime API's per-process copies."""
    numbers = sorted(set(releases))
    names: dict[str, str] = {}
    if 0 in numbers:
        names.update((s.code, s.name) for s in catalog_draft().enabled_skills)
    for pk, number, sha256 in (
        Release.objects.filter(number__in=[n for n in numbers if n])
        .order_by("number")
        .values_list("pk", "number", "sha256")
    ):
        catalog = runtime_cache.entry(runtime_cache.Pointer(pk, number, sha256)).catalog
        names.update((s.code, s.name) for s in catalog.enabled_skills)
    return names


def insights(*, since: date, until: date, release: int | None = None) -> Insights:
    """The insights of the days ``since`` to ``until`` for ``release`` (see ``Insights``). Reads the
    rollups only: four queries, plus the releases' catalogs this process has not loaded yet —
    whatever the number of raw rows behind them."""
    totals_by_key = rollup_totals(since=since, until=until, release=release)
    days = rollup_days(since=since, until=until, dimensions=PER_DAY, release=release)
    releases = rollup_releases(since=since, until=until) if release is None else [release]
    served = _served_skills(releases)
    loads, loaded = totals_by_key.get("load", {}), totals_by_key.get("loaded", {})
    used = set(loads) | set(loaded)
    skills = sorted(
        (SkillUse(code, served.get(code, ""), loads.get(code, 0), loaded.get(code, 0)) for code in used),
        key=lambda s: (-s.loads, -s.rounds, s.code),
    )
    never = [SkillUse(code, name, 0, 0) for code, name in sorted(served.items()) if code not in used]
    masked = sorted(
        ((*masked_call_parts(key), n) for key, n in totals_by_key.get("masked_call", {}).items()),
        key=lambda row: (-row[2], row[0], row[1]),
    )
    buckets = {int(key): n for key, n in totals_by_key.get("tools_chars", {}).items() if key.isdigit()}
    return Insights(
        since=since,
        until=until,
        release=release,
        totals={dimension: sum(totals_by_key.get(dimension, {}).values()) for dimension in TOTALS},
        per_day=[(day, {d: days.get(d, {}).get(day, 0) for d in PER_DAY}) for day in _days(since, until)],
        skills=skills,
        never_loaded=never,
        masked_calls=masked,
        refusals=_by_count(totals_by_key.get("refused", {})),
        confirms=_by_count(totals_by_key.get("confirm", {})),
        warnings=_by_count(totals_by_key.get("warning", {})),
        tools_chars=tools_chars_percentiles(buckets),
        releases=releases,
    )


@dataclass(frozen=True)
class SkillInsights:
    """One skill's numbers on its page, for the days ``since`` to ``until`` and ``release``
    (``None``: all): ``loads`` load_skill calls allowed for it, ``rounds`` rounds in which it was
    loaded out of ``all_rounds``; ``per_day`` every day → (loads, rounds); ``masked_calls`` the
    calls to a masked tool that named this manual to load, by tool; ``confirms`` the confirmations
    asked for the tools it gates, by tool."""

    code: str
    since: date
    until: date
    release: int | None
    loads: int
    rounds: int
    all_rounds: int
    per_day: list[tuple[date, int, int]]
    masked_calls: list[tuple[str, int]]
    confirms: list[tuple[str, int]]

    @property
    def masked_total(self) -> int:
        return sum(n for _tool, n in self.masked_calls)

    @property
    def confirm_total(self) -> int:
        return sum(n for _tool, n in self.confirms)

    @property
    def empty(self) -> bool:
        return not (self.loads or self.rounds or self.masked_calls or self.confirms)


def skill_insights(
    *, code: str, tools: Iterable[str] = (), since: date, until: date, release: int | None = None
) -> SkillInsights:
    """The numbers of the skill ``code`` (gating ``tools``) on its page (see ``SkillInsights``). One query."""
    rows = ReportRollup.objects.filter(day__gte=since, day__lte=until).filter(
        Q(dimension__in=("load", "loaded"), key=code)
        | Q(dimension="masked_call", key__endswith=f":{code}")
        | Q(dimension="confirm", key__in=list(tools))
        | Q(dimension="rounds")
    )
    if release is not None:
        rows = rows.filter(release=release)
    per_day: dict[date, list[int]] = defaultdict(lambda: [0, 0])
    masked: dict[str, int] = defaultdict(int)
    confirms: dict[str, int] = defaultdict(int)
    all_rounds = 0
    for dimension, key, day, total in (
        rows.values_list("dimension", "key", "day").annotate(total=Sum("count")).order_by("day")
    ):
        n = int(total)
        if dimension == "rounds":
            all_rounds += n
        elif dimension in ("load", "loaded"):
            per_day[day][0 if dimension == "load" else 1] += n
        elif dimension == "masked_call":
            tool, manual = masked_call_parts(key)
            if manual == code:
                masked[tool] += n
        else:
            confirms[key] += n
    return SkillInsights(
        code=code,
        since=since,
        until=until,
        release=release,
        loads=sum(v[0] for v in per_day.values()),
        rounds=sum(v[1] for v in per_day.values()),
        all_rounds=all_rounds,
        per_day=[
            (day, per_day[day][0], per_day[day][1]) if day in per_day else (day, 0, 0) for day in _days(since, until)
        ],
        masked_calls=_by_count(masked),
        confirms=_by_count(confirms),
    )


@dataclass(frozen=True)
class FleetRow:
    """A runtime instance on the fleet page: ``key_name`` the runtime key it reports with (empty
    when that key was deleted); ``known`` whether the console has the release it holds (that
    number with that sha256); ``unlabelled`` whether it holds a release that no label points to
    (nor the default: ``production``, else the latest release); ``label_release`` the release its
    label — the default when it pins none — points to now, when that is another one."""

    instance: RuntimeInstance
    key_name: str
    known: bool
    unlabelled: bool
    label_release: int | None


def default_release() -> int | None:
    """The release a runtime asking for none gets: the ``production`` label's, else the latest
    (docs/runtime-api.md, "Which release a request means"). One query at most two."""
    production = ReleaseLabel.objects.filter(name="production").values_list("release__number", flat=True).first()
    if production is not None:
        return production
    return Release.objects.order_by("-number").values_list("number", flat=True).first()


def fleet() -> list[FleetRow]:
    """Every runtime instance, the one seen last first, with what the fleet page says of it
    (``FleetRow``). Five queries, whatever the number of instances."""
    instances = instance_list()
    labels = dict(ReleaseLabel.objects.values_list("name", "release__number"))
    default = default_release()
    pointed = set(labels.values()) | ({default} if default is not None else set())
    numbers = {i.release for i in instances if i.release is not None}
    known = set(Release.objects.filter(number__in=numbers).values_list("number", "sha256"))
    keys = dict(RuntimeKey.objects.filter(prefix__in={i.key_prefix for i in instances}).values_list("prefix", "name"))
    rows = []
    for i in instances:
        now = labels.get(i.label) if i.label else default
        rows.append(
            FleetRow(
                instance=i,
                key_name=keys.get(i.key_prefix, ""),
                known=i.release is None or (i.release, i.release_sha256) in known,
                unlabelled=i.release is not None and i.release not in pointed,
                label_release=now if i.release is not None and now is not None and now != i.release else None,
            )
        )
    return rows


def instances_serving(*, number: int, sha256: str) -> int:
    """How many runtime instances hold the release ``number`` with this ``sha256`` by their latest
    heartbeat. One query."""
    return RuntimeInstance.objects.filter(release=number, release_sha256=sha256).count()
