"""``GET /healthz`` — is this app process able to serve: the database and the cache, each checked
with a round trip (docs/deploy.md, "Health check"). For load balancers and monitors: no login, no
details beyond the kind of failure, never cached.

200 ``{"status": "ok", "database": {"ok": true, "vendor": "postgresql"}, "cache": {"ok": true,
"backend": "redis"}}``; 503 with ``"status": "unavailable"`` and ``"ok": false, "error":
"OperationalError"`` on the part that failed.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import caches
from django.db import connections
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

PROBE_KEY = "healthz:probe"


def _database() -> dict[str, Any]:
    connection = connections["default"]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any failure means "cannot serve"; the class names it
        connection.close_if_unusable_or_obsolete()
        return {"ok": False, "vendor": connection.vendor, "error": type(exc).__name__}
    return {"ok": True, "vendor": connection.vendor}


def _cache() -> dict[str, Any]:
    cache = caches["default"]
    backend = "redis" if hasattr(cache, "ping") else type(cache).__name__.removesuffix("Cache").lower()
    try:
        if hasattr(cache, "ping"):
            cache.ping()
        else:
            cache.set(PROBE_KEY, 1, 10)
            if cache.get(PROBE_KEY) != 1:
                raise RuntimeError("the cache lost a value just written")
    except Exception as exc:
        return {"ok": False, "backend": backend, "error": type(exc).__name__}
    return {"ok": True, "backend": backend}


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database and the cache answer, else 503 (see the module docstring)."""
    database, cache_state = _database(), _cache()
    ok = database["ok"] and cache_state["ok"]
    body = {"status": "ok" if ok else "unavailable", "database": database, "cache": cache_state}
    return JsonResponse(body, status=200 if ok else 503)
