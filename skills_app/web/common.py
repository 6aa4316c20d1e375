"""Small helpers shared by the console views: the role guard every console view wears
(``role_required``, docs/roles.md), and the safe ``next`` parameter."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import render, resolve_url
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _
from django_htmx.http import HttpResponseClientRedirect

from skills_app.catalog.draft_cache import draft_fragment
from skills_app.core import roles

#: ``?expired=`` on the login URL: why the user is sent there (registration/login.html says it).
EXPIRED_UNSAVED = "unsaved"  # a plain form POST arrived after the session ended: nothing was saved
EXPIRED = "1"  # an htmx request arrived after the session ended


def safe_next(request: HttpRequest, default: str, *args, **kwargs) -> str:
    """The ``next`` parameter when it points at this site, else ``default`` resolved."""
    nxt = request.POST.get("next") or request.GET.get("next")
    if nxt and url_has_allowed_host_and_scheme(
        nxt, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return nxt
    return resolve_url(default, *args, **kwargs)


#: Rows per page of the console's list pages (skills, deleted skills, scenarios, releases, syncs).
PER_PAGE = 50


def paginate(request: HttpRequest, queryset, per_page: int = PER_PAGE, *, param: str = "page") -> Page:
    """One page of ``queryset`` (a QuerySet: counted and sliced in the database, or a list) for
    ``?<param>=N``, with Django's ``Paginator.get_page``: a missing, non-numeric or out-of-range
    number gives the first or the last page, never an error. The page carries ``param`` and
    ``query`` (the request's other query parameters, url-encoded, so a pager link keeps a filter)
    for ``templates/includes/pager.html``."""
    page = Paginator(queryset, per_page).get_page(request.GET.get(param))
    query = request.GET.copy()
    query.pop(param, None)
    page.param = param  # type: ignore[attr-defined]
    page.query = query.urlencode()  # type: ignore[attr-defined]
    return page


def draft_html(request: HttpRequest, template: str, context: Callable[[], dict[str, Any]]) -> SafeString:
    """``template`` rendered for ``request`` with ``context()``, kept until the draft changes
    (``draft_cache.draft_fragment``): a page whose content is derived from the draft only (the
    skill list, the tools page) renders its rows once per change instead of on every visit.

    The key holds everything else such a fragment may depend on: the template, the path and
    every query parameter, the active language and time zone, the user's ``console_can`` flags and role (what
    ``roles.context_processor`` gives the template: a viewer never gets an editor's buttons). A
    fragment never holds a CSRF token: it is rendered with a random placeholder in its place,
    kept with the HTML, and replaced by this request's token (``get_token``, as the template tag
    would) on every use. ``context`` is called only when the fragment is rendered."""
    flags = roles.context_processor(request)
    key = (
        "draft_html",
        template,
        request.path,
        tuple(sorted(request.GET.lists())),
        get_language(),
        timezone.get_current_timezone_name(),  # the times a fragment shows (core.zones)
        tuple(sorted(flags["console_can"].items())),
        flags["console_role"],
    )

    def build() -> tuple[str, str]:
        placeholder = secrets.token_hex(16)
        return placeholder, render_to_string(template, {**context(), "csrf_token": placeholder}, request)

    placeholder, html = draft_fragment(tuple(map(_hashable, key)), build)
    if placeholder in html:
        html = html.replace(placeholder, get_token(request))
    return mark_safe(html)  # noqa: S308 — rendered by the template engine (autoescaped)


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value


def is_console_user(user) -> bool:
    """Who may use the console: a user holding a role (viewer, editor, publisher) or a superuser."""
    return roles.can_view(user)


def _local(request: HttpRequest, url: str | None) -> str | None:
    """``url`` as a path on this site (``/skills/?q=x``), or None when it points elsewhere."""
    if not url or not url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return None
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def page_url(request: HttpRequest) -> str:
    """The page the user is looking at: htmx's ``HX-Current-URL`` for an htmx request, the
    ``Referer`` for a form POST (an action endpoint such as ``…/delete`` is no page to come back
    to), else the requested URL — always a path on this site."""
    if request.htmx:
        found = _local(request, request.htmx.current_url)
    elif request.method == "POST":
        found = _local(request, request.headers.get("Referer"))
    else:
        found = None
    return found or request.get_full_path()


def login_url(request: HttpRequest, *, expired: str | None = None) -> str:
    """``LOGIN_URL`` with ``?next=`` the current page (and ``expired`` when given)."""
    base = resolve_url(settings.LOGIN_URL)
    if expired:
        base = f"{base}?expired={expired}"
    return redirect_to_login(page_url(request), base)["Location"]


def to_login(request: HttpRequest, *, expired_htmx_template: str | None = None) -> HttpResponse:
    """The answer to an anonymous request (no session, or it expired).

    - htmx: ``HX-Redirect`` to the login page (``HttpResponseClientRedirect``) — never the login
      form swapped into a panel; or, with ``expired_htmx_template``, that fragment (the skill
      editor's live preview fires while the user types: navigating away would drop the text);
    - a form POST: nothing was saved; the login page says so (``?expired=unsaved``);
    - otherwise Django's ``redirect_to_login`` (``?next=`` the page)."""
    if request.htmx:
        url = login_url(request, expired=EXPIRED)
        if expired_htmx_template:
            return render(request, expired_htmx_template, {"login_url": url})
        return HttpResponseClientRedirect(url)
    if request.method == "POST":
        return HttpResponseRedirect(login_url(request, expired=EXPIRED_UNSAVED))
    return redirect_to_login(request.get_full_path(), resolve_url(settings.LOGIN_URL))


def wants_json(request: HttpRequest) -> bool:
    """True when the client asks for JSON (``Accept: application/json``), not an HTML page."""
    accept = request.headers.get("Accept", "")
    return "application/json" in accept and "text/html" not in accept


def _refuse(request: HttpRequest, template: str, context: dict, detail: str) -> HttpResponse:
    if wants_json(request):
        return JsonResponse({"detail": detail, **{k: v for k, v in context.items() if isinstance(v, str)}}, status=403)
    response = render(request, template, context, status=403)
    if request.htmx:
        response["HX-Redirect"] = page_url(request)
    return response


def not_staff(request: HttpRequest) -> HttpResponse:
    """403 for a logged-in user who holds no role: a page that says why and what to do. To htmx,
    the same 403 with ``HX-Redirect`` to the current page, so the whole page shows it (htmx does
    not swap a 4xx response); to a JSON client, ``{"detail": …}``."""
    return _refuse(
        request,
        "registration/not_staff.html",
        {},
        _("Your account has no role in Skill Console (viewer, editor or publisher)."),
    )


ROLE_NAMES = {
    roles.VIEWER: gettext_lazy("viewer"),
    roles.EDITOR: gettext_lazy("editor"),
    roles.PUBLISHER: gettext_lazy("publisher"),
    roles.ADMINISTRATOR: gettext_lazy("administrator"),
}


def forbidden(request: HttpRequest, needed: str) -> HttpResponse:
    """403 for a user whose role is too low for this page or write (``needed``: the role it
    takes): the console's 403 page naming both roles; nothing was changed. htmx and JSON as in
    ``not_staff``."""
    current = roles.role_of(request.user)
    context = {
        "needed_role": needed,
        "current_role": current or "",
        "needed_role_name": str(ROLE_NAMES[needed]),
        "current_role_name": str(ROLE_NAMES.get(current, "—")),
    }
    detail = _("This needs the %(needed)s role; your role is %(current)s. Nothing was changed.") % {
        "needed": context["needed_role_name"],
        "current": context["current_role_name"],
    }
    return _refuse(request, "403.html", context, detail)


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def role_required(
    view: Callable | None = None,
    *,
    read: str = roles.VIEWER,
    write: str = roles.EDITOR,
    expired_htmx_template: str | None = None,
):
    """Every console view wears this (outermost). ``read``: the role a GET/HEAD needs; ``write``:
    the role any other method needs (docs/roles.md). Anonymous → the login page (see
    ``to_login``); logged in without any role → 403 ``registration/not_staff.html``; a role too
    low → 403 ``403.html`` naming the role it takes (``forbidden``). Superusers pass everything.

    Built on Django's auth tools (``redirect_to_login``, groups and ``has_perm``);
    ``user_passes_test`` alone cannot tell the three refusals apart."""

    def decorate(fn: Callable) -> Callable:
        @wraps(fn)
        def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not request.user.is_authenticated:
                return to_login(request, expired_htmx_template=expired_htmx_template)
            if not is_console_user(request.user):
                return not_staff(request)
            needed = read if request.method in SAFE_METHODS else write
            if not roles.allows(request.user, needed):
                return forbidden(request, needed)
            return fn(request, *args, **kwargs)

        guarded.staff_required = True  # type: ignore[attr-defined]
        guarded.roles = (read, write)  # type: ignore[attr-defined]
        return guarded

    return decorate(view) if view is not None else decorate


def staff_required(view: Callable | None = None, *, expired_htmx_template: str | None = None):
    """``role_required`` with its defaults: reading takes the viewer role, any write the editor
    role. (The name is older than the roles; a view that publishes asks for ``PUBLISHER``.)"""
    return role_required(view, expired_htmx_template=expired_htmx_template)


def save_with(form: Any, service: Callable[..., Any]) -> Any:
    """Call ``service`` (one function of a feature's ``services``) with a valid ``form``'s
    ``service_arguments()`` and return what it saved; when it refuses (``ValidationError``), put
    the refusal on the form's fields (``add_service_errors``) and return ``None``. Forms only
    validate (STYLE "Forms validate; services write"); the service's transaction makes the write
    whole or nothing."""
    try:
        return service(**form.service_arguments())
    except ValidationError as exc:
        form.add_service_errors(exc)
        return None
