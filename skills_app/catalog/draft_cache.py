"""The draft catalog, built once per change and process (docs/design.md, "The draft catalog cache").

Building the draft ``Catalog`` reads every builtin, MCP node, tool definition, skill, profile and
stage — about 13,000 model objects at 500 skills and 2,000 tools — and its derived views (the
schema checks of ``Catalog.tool_problems``, the round shapes) cost more again. The editor, the
preview, the publish page and the scenarios all need it on every request, yet it changes only when
staff write. So:

* ``ConsoleSettings.draft_token`` is a UUID that takes a fresh value after every *committed* write
  to one of ``DRAFT_MODELS`` (a ``post_save`` / ``post_delete`` receiver registers one
  ``transaction.on_commit`` per transaction; a rolled-back write changes nothing and bumps nothing).
  It lives in the database, so every process — gunicorn workers on SQLite with a local-memory
  cache included — sees it on its next request, in the query that reads the settings anyway.
* ``draft_catalog(settings, build)`` keeps the last ``KEEP`` catalogs of this process by token. A
  token is read *before* the catalog is built, so a build can only ever be newer than its token.
* Inside an atomic block (a service's transaction, a test's) the catalog is always built afresh
  and never kept: an uncommitted write must be seen by its own transaction and by nobody else.
* ``draft_fragment(key, build)`` keeps, by the same rules, a page's rendered HTML that depends on
  the draft and on ``key`` only (``views.common.draft_html``: the page, its query, the language,
  the user's role; never a CSRF token), ``FRAGMENTS_KEPT`` of them per process.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from cachetools import LRUCache
from django.db import connections, transaction

from skill_rule import Catalog

#: Tokens whose built values are kept per process (one per recent token: a reader that raced a write).
KEEP = 4
#: Rendered fragments kept per process (``draft_fragment``), the least recently used dropped first:
#: pages × filters × languages × roles of the current token (~200 kB each at 500 skills).
FRAGMENTS_KEPT = 48

_lock = threading.Lock()
#: Both least recently used first out (cachetools' ``LRUCache``; every access under ``_lock``).
_kept: LRUCache[uuid.UUID, dict[str, Any]] = LRUCache(maxsize=KEEP)
_fragments: LRUCache[tuple, Any] = LRUCache(maxsize=FRAGMENTS_KEPT)
_MISSING = object()
T = TypeVar("T")


def draft_catalog(settings: Any, build: Callable[[], Catalog], *, using: str = "default") -> Catalog:
    """The draft catalog for ``settings`` (a ``ConsoleSettings``, its ``draft_token`` read by the
    caller before anything else): this process's kept one for that token, else ``build()``, kept
    under the token unless the connection ``using`` is inside an atomic block or the settings row
    is not saved yet (its token is a fresh default each read). Thread-safe; never raises itself."""
    return draft_value("catalog", build, settings=settings, using=using)


def _keeping_token(settings: Any, using: str) -> str | None:
    """The draft token values are kept under now, or ``None`` when nothing may be kept: inside an
    atomic block (a write in it may not commit), or before the settings row is saved.
    ``settings``: the ``ConsoleSettings`` when the caller read it already, else read here."""
    if connections[using].in_atomic_block:
        return None
    if settings is None:
        from skills_app.models import ConsoleSettings

        settings = ConsoleSettings.current()
    token = getattr(settings, "draft_token", None)
    return None if token is None or settings._state.adding else token


def draft_value(name: str, build: Callable[[], T], *, settings: Any = None, using: str = "default") -> T:
    """Any value derived from the draft only (the intent tree in order, the MCP node rows, the
    broken skills …), kept like ``draft_catalog`` under (``draft_token``, ``name``). ``settings``:
    the ``ConsoleSettings`` when the caller read it already, else it is read here (one query) —
    but not inside an atomic block, where ``build()`` is simply called. Callers treat what they get
    as read-only: it is shared by every request of the process."""
    token = _keeping_token(settings, using)
    if token is None:
        return build()
    with _lock:
        values = _kept.get(token)
        if values is not None and name in values:
            return values[name]
    built = build()
    with _lock:
        values = _kept.get(token)
        if values is None:
            values = _kept[token] = {}
        values[name] = built
    return built


def draft_fragment(key: tuple, build: Callable[[], T], *, settings: Any = None, using: str = "default") -> T:
    """A value derived from the draft and from ``key`` alone — a page's rendered HTML, ``key``
    naming everything else it depends on (``views.common.draft_html``) — built once per
    (``draft_token``, ``key``) and kept in this process's LRU of ``FRAGMENTS_KEPT`` values, so a
    page is rendered again only after a committed write to the draft (or when pushed out). Built
    afresh and never kept inside an atomic block or before the settings row is saved, as
    ``draft_value``; ``settings`` likewise (read here when ``None``: one query). ``key`` must be
    hashable. Thread-safe; callers treat what they get as read-only."""
    token = _keeping_token(settings, using)
    if token is None:
        return build()
    full = (token, *key)
    with _lock:
        kept = _fragments.get(full, _MISSING)
    if kept is not _MISSING:
        return kept
    built = build()
    with _lock:
        _fragments[full] = built
    return built


def draft_forget() -> None:
    """Drop every kept catalog and fragment of this process (tests; never needed for correctness)."""
    with _lock:
        _kept.clear()
        _fragments.clear()


def _bump_token(using: str) -> None:
    from skills_app.models import ConsoleSettings

    ConsoleSettings.objects.using(using).filter(pk=1).update(draft_token=uuid.uuid4())


def draft_changed(sender: Any, *, using: str = "default", **kwargs: Any) -> None:
    """``post_save`` / ``post_delete`` receiver for ``DRAFT_MODELS``: a fresh ``draft_token`` once
    the transaction commits (at once outside one); one update per transaction however many rows
    it wrote (the callback already queued is recognised in ``connection.run_on_commit``)."""
    connection = connections[using]
    if connection.in_atomic_block and any(
        getattr(entry[1], "skill_console_draft_bump", False) for entry in connection.run_on_commit
    ):
        return

    def bump() -> None:
        _bump_token(using)

    bump.skill_console_draft_bump = True  # type: ignore[attr-defined]
    transaction.on_commit(bump, using=using)


def connect() -> None:
    """Connect ``draft_changed`` to every model the draft catalog is built from (``AppConfig.ready``)."""
    from django.db.models.signals import post_delete, post_save

    for model in draft_models():
        for signal in (post_save, post_delete):
            signal.connect(
                draft_changed, sender=model, dispatch_uid=f"skills_app.draft.{signal}.{model.__name__}", weak=False
            )


def draft_models() -> tuple[type, ...]:
    """The models whose rows the draft catalog (``selectors.catalog_draft``) reads."""
    from skills_app.models import (
        AccessProfile,
        BuiltinTool,
        ConsoleSettings,
        IntentNode,
        McpServer,
        McpTool,
        Skill,
        Stage,
    )

    return (AccessProfile, BuiltinTool, ConsoleSettings, IntentNode, McpServer, McpTool, Skill, Stage)
