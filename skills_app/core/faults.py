"""What the site answers when a dependency fails or a page does not exist (docs/deploy.md, "Faults").

- The database cannot be reached (PostgreSQL down, refused, dropped or renamed; SQLite locked
  past its timeout): 503 with ``Retry-After`` — the console's own page ``503.html`` (both
  languages, rendered without the database), or the error JSON under ``/api/``.
- Under ``/api/`` every error is JSON ``{"error": {"code", "message", "details"}}`` — 400, 403
  (CSRF too), 404, 500 and 503 — never Django's HTML page (``handler400`` … ``handler500`` below are
  installed by ``console/urls.py``).
- Under ``/api/`` (and ``/healthz``) every answer is in one language, English, whatever
  ``Accept-Language``, the language cookie or the session say, with ``Content-Language: en``
  (``ApiInEnglishMiddleware``; docs/runtime-api.md "Errors").
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from typing import Any

from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils import translation
from django.views import defaults
from django.views.csrf import csrf_failure as django_csrf_failure

logger = logging.getLogger("skills_app.core.faults")

API_PREFIX = "/api/"
#: Seconds a client is asked to wait before trying again after a 503.
RETRY_AFTER = 5
DATABASE_UNAVAILABLE = "database_unavailable"


def is_api(request: HttpRequest) -> bool:
    """True for a request under ``/api/`` (or ``/healthz``): it is answered in JSON only."""
    path = request.path_info or request.path or ""
    return path.startswith(API_PREFIX) or path == "/healthz"


def is_database_fault(exc: BaseException | None) -> bool:
    """True when ``exc`` says the database cannot be reached or used right now (connection refused
    or lost, database missing, lock timeout) — not a bug in a query."""
    return isinstance(exc, (OperationalError, InterfaceError))


def json_error(
    status: int, code: str, message: str, details: dict[str, Any] | None = None, **headers: str
) -> JsonResponse:
    """The API's error JSON (docs/runtime-api.md) with ``status``."""
    response = JsonResponse(
        {"error": {"code": code, "message": message, "details": details or {}}},
        status=status,
        json_dumps_params={"ensure_ascii": False},
    )
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def unavailable(request: HttpRequest, exc: BaseException | None = None) -> HttpResponse:
    """503 for a database that cannot be reached: JSON under /api/, else ``503.html`` (rendered
    without a request context, so without the database: no user, no nav)."""
    logger.error(
        "database unavailable for %s %s: %s", request.method, request.path, type(exc).__name__ if exc else "unknown"
    )
    if is_api(request):
        return json_error(
            503,
            DATABASE_UNAVAILABLE,
            "the database cannot be reached right now; nothing was changed, try again shortly",
            {"retry_after": RETRY_AFTER},
            Retry_After=str(RETRY_AFTER),
        )
    html = loader.get_template("503.html").render({"path": request.path})
    response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    return response


class ApiInEnglishMiddleware:
    """The API speaks one language, English: a runtime matches on ``code`` and logs ``message``,
    the console's pages are the translated ones. Under ``/api/`` (and ``/healthz``) the request is
    answered with English active — DRF's own messages (the 401's "Authentication credentials were
    not provided.", a 405, a 415), the error handlers' JSON and the schema alike — and the answer
    says so (``Content-Language: en``); the Swagger UI page alone (``_is_docs_page``) keeps the
    reader's language for its bar back to the console. After ``LocaleMiddleware`` (console/settings.py), whose
    choice it overrides; the language active before is restored afterwards."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.docs_path: str | None = None  # reversed at the first API request, not on each one

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_api(request) or self._is_docs_page(request):
            return self.get_response(request)
        request.LANGUAGE_CODE = "en"
        with translation.override("en"):
            response = self.get_response(request)  # rendered inside: DRF and templates in English
        response["Content-Language"] = "en"
        return response

    def _is_docs_page(self, request: HttpRequest) -> bool:
        """``/api/v1/docs``, the Swagger UI page a person reads: its bar back to the console is in
        the console's language (Swagger UI itself is English); the schema it reads stays English."""
        if self.docs_path is None:
            from django.urls import reverse

            self.docs_path = reverse("api:docs")
        return request.path_info == self.docs_path


class DependencyFaultMiddleware:
    """Turns a database fault raised by a view into ``unavailable()`` (503), so a console page
    says the database is down instead of "Something went wrong", and an API client gets JSON."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_database_fault(exception):
            return unavailable(request, exception)
        return None


class RefuseNulMiddleware:
    """A NUL byte in a URL argument (``/skills/a%00b/``) is a 404 before any view runs: no code
    or name holds one, and PostgreSQL refuses NUL in a query (which would be a 500)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view: Callable, args: tuple, kwargs: dict) -> HttpResponse | None:
        if any("\x00" in str(value) for value in (*args, *kwargs.values())):
            if is_api(request):
                return None  # the API's views refuse a malformed code with their own 400
            raise Http404("no page has a NUL byte in its address")
        return None


class RefuseInvalidUtf8Middleware:
    """A console form (``application/x-www-form-urlencoded``) whose field is not valid UTF-8 is a
    400 naming the field and the byte, before any view runs: Django decodes such bytes to U+FFFD
    (``errors="replace"``), so the text would be saved changed without a word (issue 29). The
    runtime API's JSON bodies are checked by its own parser (``runtime.parsers``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (
            request.method == "POST"
            and request.content_type == "application/x-www-form-urlencoded"
            and not is_api(request)
        ):
            problem = invalid_utf8_field(request.body)
            if problem is not None:
                return invalid_utf8(request, *problem)
        return self.get_response(request)


def invalid_utf8_field(body: bytes) -> tuple[str, int] | None:
    """``(field name, 1-based byte position in its value)`` of the first field of a url-encoded
    ``body`` whose name or value is not valid UTF-8 once percent-decoded, else ``None``."""
    from urllib.parse import unquote_to_bytes

    for pair in body.split(b"&"):
        raw_name, _, raw_value = pair.partition(b"=")
        name, value = (unquote_to_bytes(raw.replace(b"+", b" ")) for raw in (raw_name, raw_value))
        for part in (name, value):
            try:
                part.decode("utf-8")
            except UnicodeDecodeError as exc:
                return name.decode("utf-8", errors="replace"), exc.start + 1
    return None


def invalid_utf8(request: HttpRequest, field: str, position: int) -> HttpResponse:
    """The 400 of ``RefuseInvalidUtf8Middleware``: JSON for ``….json`` downloads, else ``400.html``."""
    from django.utils.translation import gettext

    if (request.path_info or "").endswith(".json"):
        return json_error(
            400,
            "invalid_utf8",
            f"form field '{field}' is not valid UTF-8 text (byte {position}); nothing was saved",
            {"field": field, "byte": position},
        )
    reason = gettext(
        "The form field “%(field)s” is not valid UTF-8 text (byte %(byte)s); nothing was saved. "
        "Paste the text again from a UTF-8 source."
    ) % {"field": field, "byte": position}
    html = loader.get_template("400.html").render(
        {"reason": reason, "heading": gettext("Text that is not UTF-8"), "status": 400}, request
    )
    return HttpResponse(html, status=400)


# --- error handlers (console/urls.py) --------------------------------------------------------


def too_large() -> tuple[str, str, dict[str, Any]]:
    """``(code, message, details)`` of a request body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (413):
    the one wording of the API's exception handler and ``bad_request`` (docs/runtime-api.md)."""
    from django.conf import settings

    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return "request_too_large", f"the request body is larger than {limit} bytes", {"limit": limit}


def request_limit(exception: Exception | None) -> tuple[int, str, str, dict[str, Any]] | None:
    """``(status, code, English message, details)`` when ``exception`` is one of Django's request
    limits, else ``None``: a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (``RequestDataTooBig``, 413),
    more fields than ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` (``TooManyFieldsSent``, 400) or more files than
    ``DATA_UPLOAD_MAX_NUMBER_FILES`` (``TooManyFilesSent``, 400). Each names its limit
    (docs/deploy.md "Request limits")."""
    from django.conf import settings
    from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent

    if isinstance(exception, RequestDataTooBig):
        return 413, *too_large()
    if isinstance(exception, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return 400, "too_many_fields", f"the request has more than {limit} form fields", {"limit": limit}
    if isinstance(exception, TooManyFilesSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        return 400, "too_many_files", f"the request uploads more than {limit} files", {"limit": limit}
    return None


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler400``: JSON under /api/ and for the console's ``….json`` downloads, else
    ``400.html``. A request over one of Django's limits says which and the limit
    (``request_limit``): a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is a 413 page headed
    "Request too large" (the limit in MB, with how to get the text back), too many fields or files a
    400 naming the count allowed."""
    from django.conf import settings
    from django.utils.translation import gettext

    limit = request_limit(exception)
    if is_api(request) or (request.path_info or "").endswith(".json"):
        if limit is not None:
            return json_error(*limit)
        return json_error(400, "bad_request", "the request could not be read")
    if limit is None:
        return defaults.bad_request(request, exception)
    status, code = limit[0], limit[1]
    if code == "request_too_large":
        heading = gettext("Request too large")
        reason = gettext(
            "The form is larger than %(size)s MB, the most the console reads at once; nothing was "
            "changed. Your browser's Back button usually keeps what you typed."
        ) % {"size": f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1_048_576:g}"}
    elif code == "too_many_fields":
        heading = gettext("Too many form fields")
        reason = gettext(
            "The form sends more than %(limit)s fields, the most the console reads at once; nothing was changed."
        ) % {"limit": settings.DATA_UPLOAD_MAX_NUMBER_FIELDS}
    else:
        heading = gettext("Too many files")
        reason = gettext(
            "The form uploads more than %(limit)s files, the most the console reads at once; nothing was "
            "changed. Put the files in one zip and upload that."
        ) % {"limit": settings.DATA_UPLOAD_MAX_NUMBER_FILES}
    html = loader.get_template("400.html").render({"reason": reason, "heading": heading, "status": status}, request)
    return HttpResponse(html, status=status)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler403``: JSON under /api/, else ``403.html``."""
    if is_api(request):
        return json_error(403, "permission_denied", "you may not do this")
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler404``: JSON under /api/ (naming the path), else ``404.html``."""
    if is_api(request):
        return json_error(404, "not_found", f"no API endpoint at '{request.path}'.")
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: a database fault that escaped the middleware (e.g. raised by another
    middleware) is a 503; under /api/ the answer is JSON; else ``500.html``."""
    exc = sys.exc_info()[1]
    if is_database_fault(exc):
        return unavailable(request, exc)
    if is_api(request):
        return json_error(500, "server_error", "the server hit an error and logged it; nothing was half-saved")
    return defaults.server_error(request)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: JSON 403 under /api/, else Django's page."""
    if is_api(request):
        return json_error(403, "csrf_failed", f"CSRF check failed: {reason}")
    return django_csrf_failure(request, reason=reason)
