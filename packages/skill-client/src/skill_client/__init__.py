"""The runtime client of Skill Console (docs/runtime-api.md, "Python client"), Django-free.

``RuntimeClient`` (``skill_client.client``) fetches the published catalog and answers rounds,
``load_skill`` and ``check-call`` locally with the rule (``skill_rule``);
``skill_client.conformance`` is the conformance corpus and its runner
(``python -m skill_client.conformance``). Install: ``pip install packages/skill-rule packages/skill-client``.
"""

from .client import (
    FETCHED,
    NOT_MODIFIED,
    STALE,
    ApiError,
    AuthenticationError,
    CacheCorruptError,
    CatalogUnavailableError,
    ClientError,
    Refresh,
    RuntimeClient,
    catalog_from_runtime,
)

__all__ = [
    "ApiError",
    "AuthenticationError",
    "CacheCorruptError",
    "CatalogUnavailableError",
    "ClientError",
    "FETCHED",
    "NOT_MODIFIED",
    "Refresh",
    "RuntimeClient",
    "STALE",
    "catalog_from_runtime",
]
