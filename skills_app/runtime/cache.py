"""What the runtime API reads per request, cached (docs/runtime-api.md, "Caching" and "When the
database is down").

Three layers:

1. **Which release a selector points at** (``default`` = the ``production`` label else the latest
   release, ``release-N``, ``label-NAME``) → a ``Pointer`` (release id, number, sha256, label).
   Cached in Django's cache (Redis when ``SKILL_CONSOLE_REDIS_URL`` is set) under the current
   *generation* for ``settings.SKILL_CONSOLE_RUNTIME_LOOKUP_TTL`` seconds (default 5). Every
   write of a release or a label bumps the generation (``bump_generation``, from the model
   signals, at once and again on commit), so every process sees a publish, a label move or a
   rollback on its next request; the TTL bounds staleness if a bump is lost (Redis down).
2. **The release itself** — a per-process LRU of ``LRU_SIZE`` (8) ``Entry`` objects keyed by
   ``(number, sha256)``: the snapshot, the stored catalog body (``Release.catalog_json``) and the
   domain ``Catalog`` built from it once. Releases are immutable, so an entry never goes stale.
3. **The last release each selector was answered from** (for a database that cannot be
   reached): this process's memory, then the cache (key ``runtime:last:<selector>``, no
   timeout), then the file ``VAR_DIR/runtime/<selector>.json`` (mode 0600). Written when a
   selector's release changes, read only on a database fault.

Runtime API keys get the same treatment: the hashes of the usable keys (``held_keys``) are kept
in the cache and in ``VAR_DIR/runtime/keys`` (0600), refreshed on every key write and at least
every ``KEYS_REFRESH`` seconds while the database answers; ``key_from_held`` verifies a key
against them when the database is down. An unknown key is never accepted.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from cachetools import LRUCache
from django.conf import settings
from django.core.cache import cache
from django.db import InterfaceError, OperationalError, transaction

from skill_rule.catalog import Catalog
from skill_rule.runtime_catalog import catalog_body_json
from skill_rule.snapshot import catalog_from_snapshot
from skills_app.core.private import private_dir, write_private

logger = logging.getLogger("skills_app.runtime.cache")

#: Exceptions that say the database cannot be reached or used right now.
DATABASE_FAULTS = (OperationalError, InterfaceError)
GENERATION_KEY = "runtime:generation"
KEYS_KEY = "runtime:keys"
#: Releases whose ``Catalog`` a process keeps (docs/runtime-api.md, "Caching").
LRU_SIZE = 8
#: Seconds between two refreshes of the held key hashes while the database answers.
KEYS_REFRESH = 60
DEFAULT = "default"
PRODUCTION = "production"


def lookup_ttl() -> float:
    """Seconds a selector → release lookup lives in the cache (``SKILL_CONSOLE_RUNTIME_LOOKUP_TTL``)."""
    return float(getattr(settings, "SKILL_CONSOLE_RUNTIME_LOOKUP_TTL", 5))


def selector_key(*, release: int | None = None, label: str | None = None) -> str:
    """The name of a selector: ``release-N``, ``label-NAME`` or ``default``. Labels follow the
    skill-code pattern, so the name is also a safe file name."""
    if release is not None:
        return f"release-{int(release)}"
    if label:
        return f"label-{label}"
    return DEFAULT


@dataclass(frozen=True)
class Pointer:
    """Where a selector points: the release's primary key, number and ``sha256`` (the ETag), and
    the label that chose it (``production`` for the default when that label exists)."""

    release_id: int
    number: int
    sha256: str
    label: str | None = None


@dataclass
class Entry:
    """One release held by this process: its snapshot, its stored catalog body and the domain
    ``Catalog`` (built on first use)."""

    number: int
    sha256: str
    snapshot: dict
    body: str | None = None
    _catalog: Catalog | None = field(default=None, repr=False)
    _bytes: bytes | None = field(default=None, repr=False)

    @property
    def catalog(self) -> Catalog:
        """The ``Catalog`` of the snapshot (``Catalog.release`` = ``number``), built once."""
        if self._catalog is None:
            self._catalog = catalog_from_snapshot(self.snapshot, release=self.number)
        return self._catalog

    @property
    def body_json(self) -> str:
        """The ``GET runtime/catalog`` body text; rendered from the catalog when not stored."""
        if self.body is None:
            self.body = catalog_body_json(self.catalog)
        return self.body

    @property
    def body_bytes(self) -> bytes:
        """``body_json`` UTF-8 encoded, once per process (a 2,000-tool catalog is ~1.3 MB)."""
        if getattr(self, "_bytes", None) is None:  # an Entry pickled before this field has none
            self._bytes = self.body_json.encode("utf-8")
        return self._bytes


_lock = threading.Lock()
_entries: LRUCache[tuple[int, str], Entry] = LRUCache(maxsize=LRU_SIZE)  # under _lock
_held: dict[str, tuple[Entry, str | None]] = {}
_held_keys: dict[str, Any] | None = None
_keys_refreshed = 0.0


def clear_process_cache() -> None:
    """Forget everything this process holds (the LRU, the held releases and keys). Tests call it
    between tests; the shared cache and the files are untouched."""
    global _held_keys, _keys_refreshed
    with _lock:
        _entries.clear()
        _held.clear()
        _held_keys = None
        _keys_refreshed = 0.0


# --- the generation -----------------------------------------------------------------------------


def generation() -> int | None:
    """The current generation of the release lookups, created when missing (a value based on the
    clock, so a generation lost with an evicted key is never reused); ``None`` when the cache
    cannot be reached (then nothing is cached)."""
    value = cache.get(GENERATION_KEY)
    if value is None:
        cache.add(GENERATION_KEY, time.time_ns(), timeout=None)
        value = cache.get(GENERATION_KEY)
    return value


def bump_generation() -> None:
    """Make every cached lookup obsolete (a release or a label was written). Never raises: a
    cache that cannot be reached is logged, and the lookups then expire within their TTL."""
    try:
        cache.incr(GENERATION_KEY)
    except ValueError:
        cache.set(GENERATION_KEY, time.time_ns(), timeout=None)
    except Exception as exc:  # Redis unreachable: ResilientRedisCache.incr raises
        logger.warning(
            "runtime cache generation not bumped (%s); lookups expire within %ss", type(exc).__name__, lookup_ttl()
        )


def releases_changed(**kwargs: Any) -> None:
    """Signal receiver (``post_save``/``post_delete`` of ``Release`` and ``ReleaseLabel``): bump
    the generation now and again when the transaction commits, so no process caches the old
    pointer in between."""
    bump_generation()
    transaction.on_commit(bump_generation)


# --- selector → release -------------------------------------------------------------------------


def _query_pointer(*, release: int | None, label: str | None) -> Pointer | None:
    from skills_app.models import Release, ReleaseLabel

    if release is not None:
        row = Release.objects.filter(number=release).values_list("pk", "number", "sha256").first()
        return Pointer(*row) if row else None
    name = label or PRODUCTION
    row = ReleaseLabel.objects.filter(name=name).values_list("release_id", "release__number", "release__sha256").first()
    if row:
        return Pointer(*row, label=name)
    if label:
        return None
    row = Release.objects.order_by("-number").values_list("pk", "number", "sha256").first()
    return Pointer(*row) if row else None


def lookup(*, release: int | None = None, label: str | None = None) -> Pointer | None:
    """The release a selector points at (see the module docstring), ``None`` when there is none
    (unknown release or label; nothing published). From the cache when it holds the answer for
    the current generation, else one or two queries (never the snapshot). Raises the database's
    ``OperationalError`` / ``InterfaceError`` when it cannot be reached."""
    gen = generation()
    key = f"runtime:pointer:{gen}:{selector_key(release=release, label=label)}"
    if gen is not None:
        cached = cache.get(key)
        if cached is not None:
            return Pointer(*cached)
    pointer = _query_pointer(release=release, label=label)
    if pointer is not None and gen is not None:
        cache.set(key, [pointer.release_id, pointer.number, pointer.sha256, pointer.label], timeout=lookup_ttl())
    return pointer


# --- the releases held --------------------------------------------------------------------------


def _remember_entry(entry: Entry) -> Entry:
    with _lock:
        key = (entry.number, entry.sha256)
        held = _entries.get(key)
        if held is not None:
            return held
        _entries[key] = entry
        return entry


def cached_entry(pointer: Pointer) -> Entry | None:
    """The release ``pointer`` names if this process holds it (no query), else ``None``."""
    with _lock:
        return _entries.get((pointer.number, pointer.sha256))


def entry(pointer: Pointer) -> Entry:
    """The release ``pointer`` names, from this process's LRU or loaded once (one query for the
    snapshot and the stored body; a row written before ``catalog_json`` existed gets it filled
    here, once). Raises a database fault when it cannot be loaded."""
    from skills_app.models import Release

    found = cached_entry(pointer)
    if found is not None:
        return found
    snapshot, body = Release.objects.filter(pk=pointer.release_id).values_list("snapshot", "catalog_json").get()
    loaded = Entry(number=pointer.number, sha256=pointer.sha256, snapshot=snapshot, body=body)
    if body is None:
        Release.objects.filter(pk=pointer.release_id, catalog_json__isnull=True).update(catalog_json=loaded.body_json)
    return _remember_entry(loaded)


def _runtime_dir() -> Path:
    return Path(settings.VAR_DIR) / "runtime"


def _write_file(path: Path, data: Any) -> None:
    """Write JSON to ``path`` (0600) through a temporary file and a rename, so a reader never
    sees half a file."""
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    write_private(tmp, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    os.replace(tmp, path)


def hold(selector: str, pointer: Pointer, held: Entry) -> None:
    """Remember that ``selector`` was last answered from ``held``: in memory, and — when it
    changed for this process — in the cache and in ``VAR_DIR/runtime/<selector>.json``. Never
    raises for a cache or a file that cannot be written (logged)."""
    with _lock:
        previous = _held.get(selector)
        _held[selector] = (held, pointer.label)
    if previous is not None and (previous[0].number, previous[0].sha256) == (held.number, held.sha256):
        return
    record = {
        "number": held.number,
        "sha256": held.sha256,
        "label": pointer.label,
        "snapshot": held.snapshot,
        "body": held.body,
    }
    cache.set(f"runtime:last:{selector}", record, timeout=None)
    try:
        _write_file(_runtime_dir() / f"{selector}.json", record)
    except OSError as exc:
        logger.warning("could not keep the last release of %s under var/runtime: %s", selector, exc)


def held(selector: str) -> tuple[Entry, str | None] | None:
    """The last release ``selector`` was answered from, for a database that cannot be reached:
    this process's memory, then the cache, then ``VAR_DIR/runtime/<selector>.json``; with the
    label it was chosen by. ``None`` when none of them holds one."""
    with _lock:
        found = _held.get(selector)
    if found is not None:
        return found
    record = cache.get(f"runtime:last:{selector}")
    if record is None:
        try:
            record = json.loads((_runtime_dir() / f"{selector}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
    try:
        loaded = Entry(
            number=int(record["number"]),
            sha256=str(record["sha256"]),
            snapshot=record["snapshot"],
            body=record.get("body"),
        )
        loaded.catalog  # noqa: B018 — a record that does not read back is no release
    except Exception as exc:  # a damaged file or cache entry: nothing held
        logger.warning("the last release held for %s cannot be read: %s", selector, type(exc).__name__)
        return None
    loaded = _remember_entry(loaded)
    with _lock:
        _held.setdefault(selector, (loaded, record.get("label")))
    return loaded, record.get("label")


# --- API keys -----------------------------------------------------------------------------------


def _keys_record() -> dict[str, Any]:
    from skills_app.models import RuntimeKey

    keys = {}
    for pk, prefix, name, hashed, read_drafts, expiry in RuntimeKey.objects.filter(revoked=False).values_list(
        "pk", "prefix", "name", "hashed_key", "read_drafts", "expiry_date"
    ):
        keys[prefix] = {
            "id": pk,
            "name": name,
            "hashed_key": hashed,
            "read_drafts": read_drafts,
            "expiry": expiry.isoformat() if expiry else None,
        }
    return {"refreshed_at": time.time(), "keys": keys}


def refresh_keys(**kwargs: Any) -> None:
    """Re-read the usable runtime keys (hashes only) and keep them in memory, in the cache and in
    ``VAR_DIR/runtime/keys`` (0600). Called on every key write (signal: at once, and on commit)
    and by ``keys_seen`` at most every ``KEYS_REFRESH`` seconds. A database fault leaves what is
    held as it is."""
    global _held_keys, _keys_refreshed
    try:
        record = _keys_record()
    except DATABASE_FAULTS:
        return
    with _lock:
        _held_keys, _keys_refreshed = record, time.monotonic()
    cache.set(KEYS_KEY, record, timeout=None)
    try:
        _write_file(_runtime_dir() / "keys", record)
    except OSError as exc:
        logger.warning("could not keep the runtime key hashes under var/runtime: %s", exc)


def keys_changed(**kwargs: Any) -> None:
    """Signal receiver (``post_save``/``post_delete`` of ``RuntimeKey``): refresh the held keys
    now and when the transaction commits, so a revoked key is never held past its revocation."""
    refresh_keys()
    transaction.on_commit(refresh_keys)


def keys_seen() -> None:
    """A key was verified against the database: refresh the held key hashes when they are older
    than ``KEYS_REFRESH`` seconds in this process (one query a minute per process)."""
    if _held_keys is None or time.monotonic() - _keys_refreshed > KEYS_REFRESH:
        refresh_keys()


def key_from_held(key: str):
    """Verify ``key`` against the newest held key hashes (memory, cache, file) while the database
    cannot be reached. Returns an unsaved ``RuntimeKey`` (``id``, ``name``, ``prefix``,
    ``read_drafts``, ``expiry_date``) for a key that was usable when last seen, ``False`` for any
    other key (unknown, revoked before the last refresh, wrong secret), and ``None`` when nothing
    is held at all (the caller answers 503)."""
    from skills_app.models import RuntimeKey

    candidates = [_held_keys, cache.get(KEYS_KEY)]
    try:
        candidates.append(json.loads((_runtime_dir() / "keys").read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pass
    records = [c for c in candidates if isinstance(c, dict) and isinstance(c.get("keys"), dict)]
    if not records:
        return None
    newest = max(records, key=lambda r: r.get("refreshed_at") or 0)
    prefix = key.partition(".")[0]
    item = newest["keys"].get(prefix)
    if not isinstance(item, dict) or not RuntimeKey.objects.key_generator.verify(key, str(item.get("hashed_key"))):
        return False
    expiry = datetime.fromisoformat(item["expiry"]) if item.get("expiry") else None
    return RuntimeKey(
        id=item["id"],
        prefix=prefix,
        name=item["name"],
        hashed_key=item["hashed_key"],
        read_drafts=bool(item["read_drafts"]),
        expiry_date=expiry,
        revoked=False,
    )
