"""``/preferences/time-zone``: choose the time zone the console's times are shown in (kept in the
session, activated by ``core.zones.TimeZoneMiddleware``)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from skills_app.core import roles, zones
from skills_app.preferences.forms import TimeZoneForm
from skills_app.web.common import role_required, safe_next


@role_required(write=roles.VIEWER)  # anyone with a role chooses their own zone
@require_http_methods(["GET", "POST"])
def time_zone(request: HttpRequest) -> HttpResponse:
    """GET: the form, with the zone in use. POST ``time_zone`` (an IANA name, blank = the server's
    default) and an optional local ``next``: kept in the session, then back to ``next`` (or this
    page); an unknown name is a 400 with the form saying which name and why."""
    if request.method == "POST":
        form = TimeZoneForm(request.POST)
        if form.is_valid():
            name = form.cleaned_data["time_zone"]
            if name:
                request.session[zones.SESSION_KEY] = name
                timezone.activate(zones.zone_get(name))
            else:
                request.session.pop(zones.SESSION_KEY, None)
                timezone.deactivate()
            label = zones.zone_label(timezone.get_current_timezone())
            messages.success(request, _("Times are now shown in %(zone)s.") % {"zone": label})
            return redirect(safe_next(request, "skills:time_zone"))
        status = 400
    else:
        form = TimeZoneForm(initial={"time_zone": request.session.get(zones.SESSION_KEY, "")})
        status = 200
    context = {"form": form, "server_zone": settings.TIME_ZONE, "next": request.GET.get("next", "")}
    return render(request, "preferences/time_zone.html", context, status=status)
