"""Small helpers shared by the console views."""
from __future__ import annotations

from django.http import HttpRequest
from django.shortcuts import resolve_url
from django.utils.http import url_has_allowed_host_and_scheme


def safe_next(request: HttpRequest, default: str, *args, **kwargs) -> str:
    """The ``next`` parameter when it points at this site, else ``default`` resolved."""
    nxt = request.POST.get("next") or request.GET.get("next")
    if nxt and url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()},
                                              require_https=request.is_secure()):
        return nxt
    return resolve_url(default, *args, **kwargs)
