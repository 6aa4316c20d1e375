"""Small helpers shared by the console views: the staff-only guard every console view wears, and
the safe ``next`` parameter."""
from __future__ import annotations

from functools import wraps
from typing import Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HttpResponseClientRedirect

#: ``?expired=`` on the login URL: why the user is sent there (registration/login.html says it).
EXPIRED_UNSAVED = "unsaved"  # a plain form POST arrived after the session ended: nothing was saved
EXPIRED = "1"                # an htmx request arrived after the session ended


def safe_next(request: HttpRequest, default: str, *args, **kwargs) -> str:
    """The ``next`` parameter when it points at this site, else ``default`` resolved."""
    nxt = request.POST.get("next") or request.GET.get("next")
    if nxt and url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()},
                                              require_https=request.is_secure()):
        return nxt
    return resolve_url(default, *args, **kwargs)


def is_console_user(user) -> bool:
    """Who may use the console: an authenticated staff user or superuser."""
    return bool(user.is_authenticated and (user.is_staff or user.is_superuser))


def _local(request: HttpRequest, url: str | None) -> str | None:
    """``url`` as a path on this site (``/skills/?q=x``), or None when it points elsewhere."""
    if not url or not url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()},
                                                      require_https=request.is_secure()):
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


def not_staff(request: HttpRequest) -> HttpResponse:
    """403 for a logged-in user who is not staff: a page that says why and what to do. To htmx,
    the same 403 with ``HX-Redirect`` to the current page, so the whole page shows it (htmx does
    not swap a 4xx response)."""
    response = render(request, "registration/not_staff.html", status=403)
    if request.htmx:
        response["HX-Redirect"] = page_url(request)
    return response


def staff_required(view: Callable | None = None, *, expired_htmx_template: str | None = None):
    """Every console view wears this (outermost): anonymous → the login page (see ``to_login``);
    logged in without ``is_staff`` (and not a superuser) → 403 ``registration/not_staff.html``.

    Built on Django's auth tools (``redirect_to_login``, the ``is_staff`` flag Django's admin
    uses); ``user_passes_test`` alone cannot tell the two refusals apart."""
    def decorate(fn: Callable) -> Callable:
        @wraps(fn)
        def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not request.user.is_authenticated:
                return to_login(request, expired_htmx_template=expired_htmx_template)
            if not is_console_user(request.user):
                return not_staff(request)
            return fn(request, *args, **kwargs)

        guarded.staff_required = True  # type: ignore[attr-defined]
        return guarded

    return decorate(view) if view is not None else decorate
