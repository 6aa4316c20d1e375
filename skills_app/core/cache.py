"""The shared cache of every app process: Django's own Redis backend, degraded to a miss when Redis
cannot be reached (docs/deploy.md, "Faults").

A cache is never the truth here: sessions are ``cached_db`` (the database holds them) and the
release cache falls back to the database. So a Redis that is down, restarting or behind a closed
port must slow a request down by at most the socket timeout — never answer 500. Every operation
that fails with a ``redis`` connection or timeout error logs one warning (logger
``skills_app.core.cache``; the key, never the value) and answers as a miss: ``get`` → ``default``,
``add``/``touch``/``delete``/``has_key`` → ``False``, ``get_many`` → ``{}``, ``set_many`` → every
key (not stored). ``incr`` still raises (a counter cannot be guessed). ``ping()`` raises, for
``/healthz``.

A failed ``delete`` (an invalidation while Redis is down) is logged: entries written before the
outage live until their timeout, so cache release lookups with a short timeout.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger("skills_app.core.cache")

#: What counts as "Redis cannot be reached".
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)


class ResilientRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` whose reads and writes answer a miss when
    Redis is unreachable (see the module docstring)."""

    def _miss(self, operation: str, key: Any, exc: Exception, value: Any) -> Any:
        logger.warning("cache %s %r: Redis unreachable (%s); answered as a miss", operation, key, type(exc).__name__)
        return value

    def _guard(self, operation: str, key: Any, fallback: Any, call, *args, **kwargs):
        try:
            return call(*args, **kwargs)
        except UNREACHABLE as exc:
            return self._miss(operation, key, exc, fallback)

    def ping(self) -> bool:
        """Round-trip to Redis (``PING``); raises the ``redis`` error when it cannot be reached."""
        return bool(self._cache.get_client(write=True).ping())


def _wrap(name: str, fallback: Any) -> None:
    parent = getattr(RedisCache, name)

    def method(self, *args, **kwargs):
        key = args[0] if args else kwargs.get("key", kwargs.get("keys", kwargs.get("data")))
        value = fallback(args, kwargs) if callable(fallback) else fallback
        return self._guard(name, key, value, parent.__get__(self), *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"``RedisCache.{name}``; a miss when Redis is unreachable."
    setattr(ResilientRedisCache, name, method)


def _get_default(args: tuple, kwargs: dict) -> Any:
    return args[1] if len(args) > 1 else kwargs.get("default")


def _set_many_failed(args: tuple, kwargs: dict) -> list:
    data = args[0] if args else kwargs.get("data", {})
    return list(data)


for _name, _fallback in (
    ("add", False),
    ("get", _get_default),
    ("set", None),
    ("touch", False),
    ("delete", False),
    ("get_many", lambda args, kwargs: {}),
    ("has_key", False),
    ("set_many", _set_many_failed),
    ("delete_many", None),
    ("clear", False),
):
    _wrap(_name, _fallback)
