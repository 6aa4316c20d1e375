"""The one place where every API error becomes ``{"error": {"code", "message", "details"}}``
(docs/runtime-api.md; HackSoft Django-Styleguide ``api/exception_handlers.py``).

| raised                                         | status        | ``code``                                |
|------------------------------------------------|---------------|-----------------------------------------|
| ``skill_rule.DomainError`` subclasses   | ``exc.status_code`` or 400 | ``exc.code`` (``invalid_messages``, ``unknown_restriction``, ``release_not_found`` …) |
| ``django.core.exceptions.ValidationError``     | 400           | ``invalid``                             |
| DRF ``ValidationError``                        | 400           | ``invalid``                             |
| DRF ``ParseError`` (malformed JSON body)       | 400           | ``malformed_json``                      |
| other DRF ``APIException`` (401, 403, 404, 405, 415, 429 …) | its status | its code (``not_authenticated``, ``authentication_failed``, ``not_found`` …) |
| ``Http404`` / Django ``PermissionDenied``      | 404 / 403     | ``not_found`` / ``permission_denied``   |

Validation ``details`` map a field path (``call.arguments``, ``allowed_tools.0``; errors that
belong to no field under ``non_field_errors``) to its list of messages. Anything else is not an
API error: the handler returns ``None`` and Django answers 500.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS, RequestDataTooBig
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import set_rollback

from skill_rule import DomainError
from skills_app.core.faults import too_large

INVALID = "invalid"
MALFORMED_JSON = "malformed_json"


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """The error JSON of docs/runtime-api.md."""
    return {"error": {"code": code, "message": message, "details": details or {}}}


def _flatten(detail: Any, prefix: str, out: dict[str, list[str]]) -> None:
    """Flatten DRF's nested error structure into ``{"a.b": ["msg", …]}``."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = str(key)
            if name == api_settings.NON_FIELD_ERRORS_KEY and prefix:
                name = ""
            _flatten(value, f"{prefix}.{name}".strip(".") if prefix else name, out)
    elif isinstance(detail, list) and all(not isinstance(item, (dict, list)) for item in detail):
        out.setdefault(prefix or api_settings.NON_FIELD_ERRORS_KEY, []).extend(str(item) for item in detail)
    elif isinstance(detail, list):
        for index, item in enumerate(detail):
            if item:
                _flatten(item, f"{prefix}.{index}" if prefix else str(index), out)
    else:
        out.setdefault(prefix or api_settings.NON_FIELD_ERRORS_KEY, []).append(str(detail))


def field_errors(detail: Any) -> dict[str, list[str]]:
    """DRF ``ValidationError.detail`` as ``{field path: [messages]}``."""
    out: dict[str, list[str]] = {}
    _flatten(detail, "", out)
    return out


def _summary(errors: dict[str, list[str]]) -> str:
    return "; ".join(f"{field}: {' '.join(messages)}" for field, messages in errors.items())


def _django_field_errors(exc: DjangoValidationError) -> dict[str, list[str]]:
    if hasattr(exc, "error_dict"):
        return {
            (api_settings.NON_FIELD_ERRORS_KEY if field == NON_FIELD_ERRORS else field): list(messages)
            for field, messages in exc.message_dict.items()
        }
    return {api_settings.NON_FIELD_ERRORS_KEY: list(exc.messages)}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF ``EXCEPTION_HANDLER``: render ``exc`` as the error JSON, or return ``None`` (→ 500).

    Keeps DRF's ``WWW-Authenticate`` header on 401 (set by ``APIView.handle_exception`` from the
    first authenticator, ``RuntimeKeyAuthentication`` → ``Bearer``) and ``Retry-After`` on 429, and
    rolls back an atomic request as DRF's own handler does.
    """
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    headers: dict[str, str] = {}
    if isinstance(exc, DomainError):
        status_code = getattr(exc, "status_code", 400)
        body = error_body(exc.code, exc.message, exc.details)
    elif isinstance(exc, DjangoValidationError):
        status_code = 400
        errors = _django_field_errors(exc)
        body = error_body(INVALID, _summary(errors), errors)
    elif isinstance(exc, exceptions.APIException):
        status_code = exc.status_code
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(int(exc.wait))
        if isinstance(exc, exceptions.ValidationError):
            errors = field_errors(exc.detail)
            body = error_body(INVALID, _summary(errors), errors)
        elif isinstance(exc, exceptions.ParseError):
            body = error_body(MALFORMED_JSON, str(exc.detail))
        else:
            code = getattr(exc.detail, "code", None) or exc.default_code
            details = {"wait": int(exc.wait)} if getattr(exc, "wait", None) else {}
            body = error_body(str(code), str(exc.detail), details)
    elif isinstance(exc, RequestDataTooBig):
        status_code = 413
        body = error_body(*too_large())
    elif isinstance(exc, RecursionError):
        status_code = 400
        body = error_body(MALFORMED_JSON, "the JSON body is nested too deeply")
    else:
        return None

    set_rollback()
    return Response(body, status=status_code, headers=headers)
