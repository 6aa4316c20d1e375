"""Who may call the runtime API (docs/releases.md, "API keys").

- An agent runtime sends ``Authorization: Bearer <key>``: a ``RuntimeKey`` made by
  djangorestframework-api-key (only the library's hash is stored). A revoked, expired or unknown
  key answers 401 ``authentication_failed`` at once (the key is looked up on every request).
  While the database cannot be reached, keys are verified against the hashes of the usable keys
  held from when it could (``skills_app.runtime.cache``); an unknown key is never accepted.
- A logged-in console user (any role, docs/roles.md) may call it too; a console login never needs a key.
- Runtime keys open the runtime API only: console pages use Django sessions and ignore the header.
- Runtime reports (``POST runtime/reports``) take a runtime key only (``IsRuntimeKey``): a key may
  write reports and no endpoint reads them back — keys have no other scope than ``read_drafts``.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import AnonymousUser
from django.db import router
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission
from rest_framework_api_key.permissions import KeyParser

from skills_app.models import RuntimeKey
from skills_app.runtime import cache as runtime_cache

#: ``last_used_at`` is written at most this often per key (a write per request would serialise
#: every runtime call on SQLite).
LAST_USED_RESOLUTION = timedelta(minutes=1)


class BearerKeyParser(KeyParser):
    """``Authorization: Bearer <key>`` (the library's parser reads ``Api-Key <key>``)."""

    keyword = "Bearer"


#: The query of ``usable_key`` compiled once per database alias: ``(sql, params, prefix index)``.
_usable_key_sql: dict[str, tuple[str, tuple, int]] = {}
_PREFIX_PLACEHOLDER = "\x00prefix\x00"
#: The columns ``usable_key`` reads (every field of the model).
_KEY_FIELDS = tuple(f.attname for f in RuntimeKey._meta.concrete_fields)


def usable_key(key: str) -> RuntimeKey | None:
    """The usable (not revoked) ``RuntimeKey`` whose hash ``key`` matches, else ``None``; expiry
    is the caller's check (``has_expired``). The same answer as the library's
    ``RuntimeKey.objects.get_from_key`` (its queryset ``get_usable_keys().get(prefix=…)``, its
    hasher's ``is_valid``), with the query compiled by the ORM once per database instead of on
    every runtime request (building a queryset costs ~0.3 ms, most of a 304's time;
    docs/benchmarks.md). Raises the database's ``OperationalError`` / ``InterfaceError`` when it
    cannot be reached. A key holding a NUL character is no key (``None``)."""
    if "\x00" in key:  # no key holds one, and PostgreSQL refuses it in a text parameter (a 500)
        return None
    prefix = key.partition(".")[0]
    alias = router.db_for_read(RuntimeKey)
    compiled = _usable_key_sql.get(alias)
    if compiled is None:
        query = RuntimeKey.objects.get_usable_keys().filter(prefix=_PREFIX_PLACEHOLDER).values_list(*_KEY_FIELDS)
        sql, params = query.query.get_compiler(using=alias).as_sql()
        compiled = _usable_key_sql[alias] = (sql, tuple(params), list(params).index(_PREFIX_PLACEHOLDER))
    sql, params, at = compiled
    found = list(RuntimeKey.objects.raw(sql, (*params[:at], prefix, *params[at + 1 :])).using(alias))
    if not found:
        return None
    runtime_key = found[0]
    return runtime_key if runtime_key.is_valid(key) else None


class RuntimeKeyAuthentication(BaseAuthentication):
    """DRF authentication by runtime API key → ``(AnonymousUser(), RuntimeKey)``.

    No ``Authorization: Bearer`` header → ``None`` (other authenticators run). A key that is not
    usable → ``AuthenticationFailed`` (401, ``WWW-Authenticate: Bearer``)."""

    parser = BearerKeyParser()

    def authenticate(self, request):
        key = self.parser.get(request)
        if key is None:
            return None
        try:
            runtime_key = usable_key(key.strip())
        except runtime_cache.DATABASE_FAULTS as exc:
            return self._while_database_down(key.strip(), exc)
        if runtime_key is None:
            raise exceptions.AuthenticationFailed("the API key is unknown or revoked.")
        if runtime_key.has_expired:
            raise exceptions.AuthenticationFailed("the API key has expired.")
        runtime_cache.keys_seen()
        now = timezone.now()
        if runtime_key.last_used_at is None or now - runtime_key.last_used_at >= LAST_USED_RESOLUTION:
            RuntimeKey.objects.filter(pk=runtime_key.pk).update(last_used_at=now)
            runtime_key.last_used_at = now
        return AnonymousUser(), runtime_key

    def _while_database_down(self, key: str, exc: Exception):
        """The database cannot be reached: verify ``key`` against the key hashes held from when it
        could (``runtime_cache.key_from_held``). Nothing held → the database error propagates
        (503 ``database_unavailable``); an unknown or wrong key → 401, as always."""
        held = runtime_cache.key_from_held(key)
        if held is None:
            raise exc
        if held is False:
            raise exceptions.AuthenticationFailed("the API key is unknown or revoked.")
        if held.has_expired:
            raise exceptions.AuthenticationFailed("the API key has expired.")
        return AnonymousUser(), held

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="skill-console runtime"'


def request_key(request) -> RuntimeKey | None:
    """The runtime key that authenticated ``request`` (``None`` for a console session)."""
    auth = getattr(request, "auth", None)
    return auth if isinstance(auth, RuntimeKey) else None


class IsRuntimeClient(BasePermission):
    """A valid runtime key, or a logged-in console user holding a role (docs/roles.md)."""

    def has_permission(self, request, view) -> bool:
        from skills_app.web.common import is_console_user

        if request_key(request) is not None:
            return True
        user = getattr(request, "user", None)
        return bool(user is not None and is_console_user(user))


class IsRuntimeKey(BasePermission):
    """A valid runtime key only (``POST runtime/reports``): reports are what a runtime saw in
    production, stored per key; a console session is no runtime and is refused (403
    ``runtime_key_required``). No key at all answers 401, as everywhere."""

    message = (
        "reports are written by an agent runtime with its runtime API key (Authorization: Bearer <key>); "
        "a console session cannot write them"
    )
    code = "runtime_key_required"

    def has_permission(self, request, view) -> bool:
        return request_key(request) is not None


def may_read_drafts(request) -> bool:
    """``?draft=1`` is for a key made with ``--drafts`` or a console user who may publish."""
    from skills_app.releases.selectors import can_publish

    key = request_key(request)
    if key is not None:
        return key.read_drafts
    user = getattr(request, "user", None)
    return bool(user is not None and can_publish(user))


from drf_spectacular.extensions import OpenApiAuthenticationExtension  # noqa: E402


class RuntimeKeySchema(OpenApiAuthenticationExtension):
    """OpenAPI: the runtime key is an HTTP bearer scheme named ``runtimeKey``."""

    target_class = "skills_app.runtime.auth.RuntimeKeyAuthentication"
    name = "runtimeKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A runtime API key (`manage.py api_key create NAME`): `Authorization: Bearer <key>`.",
        }
