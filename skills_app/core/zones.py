"""Time zones (issue 29, item 3): the server's default is ``TIME_ZONE`` (``SKILL_CONSOLE_TIME_ZONE``,
console/settings.py), each user may choose another for their session (``/preferences/time-zone``).

Django's own per-user support does the work: ``TimeZoneMiddleware`` calls
``django.utils.timezone.activate`` with the zone kept in the session, and every template's
``|date`` and every ``timezone.localtime()`` then speak that zone; ``context_processor`` gives the
pages the label they show in the footer ("UTC+08:00 Asia/Shanghai")."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

#: The session key holding the zone a user chose (an IANA name); absent = the server's default.
SESSION_KEY = "console_time_zone"


@lru_cache(maxsize=1)
def zone_names() -> tuple[str, ...]:
    """Every IANA time zone name this host knows (``zoneinfo.available_timezones()``), sorted."""
    return tuple(sorted(available_timezones()))


def zone_get(name: str | None) -> ZoneInfo | None:
    """The ``ZoneInfo`` named ``name``, or ``None`` when ``name`` is empty or not one of
    ``zone_names()`` (never a file path: ``ZoneInfo`` alone would try one)."""
    if not name or name not in zone_names():
        return None
    return ZoneInfo(name)


def zone_label(zone: Any, when: datetime | None = None) -> str:
    """``"UTC+08:00 Asia/Shanghai"``: the offset from UTC of ``zone`` at ``when`` (now by default;
    a zone with summer time has two) and its name."""
    moment = timezone.localtime(when or timezone.now(), zone)
    offset = moment.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    sign = "+" if minutes >= 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours:02d}:{rest:02d} {getattr(zone, 'key', str(zone))}"


class TimeZoneMiddleware:
    """Activates the zone the user chose (kept in the session under ``SESSION_KEY``) for the
    request, else the server's ``TIME_ZONE``; a name this host no longer knows is dropped."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = getattr(request, "session", None)
        zone = zone_get(session.get(SESSION_KEY)) if session is not None else None
        if zone is not None:
            timezone.activate(zone)
        else:
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


def context_processor(request: Any) -> dict[str, Any]:
    """``console_time_zone``: the label of the zone the page's times are shown in and whether
    the user chose it (``chosen``) or it is the server's default."""
    session = getattr(request, "session", None)
    chosen = session is not None and zone_get(session.get(SESSION_KEY)) is not None
    return {"console_time_zone": {"label": zone_label(timezone.get_current_timezone()), "chosen": chosen}}
