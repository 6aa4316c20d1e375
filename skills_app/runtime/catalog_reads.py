"""What the runtime API serves: one catalog (a release; the draft only on request) and its
canonical JSON form.

``runtime_served`` / ``runtime_catalog`` is the single place that decides *which* catalog a runtime
request sees; every endpoint goes through it, through the cached lookups of
``skills_app.runtime.cache``. ``catalog_payload`` (``skill_rule.runtime_catalog``, re-exported) is
the JSON body of ``GET runtime/catalog`` without its ``sha256``; ``body_sha256`` (from
``skill_rule.snapshot``) hashes the canonical form of it.
"""

from __future__ import annotations

from skill_rule import Catalog
from skill_rule.runtime_catalog import catalog_body, catalog_body_json, catalog_payload, content_sha256
from skill_rule.snapshot import body_sha256, canonical_json
from skills_app.catalog import selectors
from skills_app.models import Release, ReleaseLabel
from skills_app.releases.selectors import draft_sha256
from skills_app.runtime import cache as runtime_cache
from skills_app.runtime.errors import (
    ConflictingSelectorsError,
    DraftsNotAllowedError,
    LabelNotFoundError,
    NoReleaseError,
    ReleaseNotFoundError,
)

__all__ = [
    "RELEASE_HEADER",
    "STALE_HEADER",
    "Served",
    "body_sha256",
    "canonical_json",
    "catalog_body",
    "catalog_body_json",
    "catalog_payload",
    "content_sha256",
    "runtime_catalog",
    "runtime_served",
]


class Served:
    """What one runtime request is answered from (docs/runtime-api.md, "Caching").

    ``number`` is the release number (``None`` for the draft), ``sha256`` the strong ETag value
    (the release's ``sha256``; for the draft the hash of its snapshot), ``label`` the label that
    chose it (if any), ``stale`` true when the database could not be reached and the answer comes
    from the last release this process, the cache or ``var/runtime`` holds. ``catalog`` (the
    domain ``Catalog``) and ``body_json`` (the stored ``GET runtime/catalog`` body) are loaded on
    first use — a 304 needs neither.
    """

    def __init__(
        self,
        *,
        sha256: str,
        number: int | None,
        label: str | None = None,
        catalog: Catalog | None = None,
        pointer: runtime_cache.Pointer | None = None,
        selector: str = runtime_cache.DEFAULT,
        entry: runtime_cache.Entry | None = None,
        stale: bool = False,
    ) -> None:
        self.sha256, self.number, self.label, self.stale = sha256, number, label, stale
        self._catalog, self._pointer, self._selector, self._entry = catalog, pointer, selector, entry

    def _release(self) -> runtime_cache.Entry:
        if self._entry is None:
            try:
                loaded = runtime_cache.entry(self._pointer)
            except runtime_cache.DATABASE_FAULTS:
                held = runtime_cache.held(self._selector)
                if held is None:
                    raise
                loaded, self.stale = held[0], True
                self.number, self.sha256 = loaded.number, loaded.sha256
            else:
                runtime_cache.hold(self._selector, self._pointer, loaded)
            self._entry = loaded
        return self._entry

    @property
    def catalog(self) -> Catalog:
        """The ``Catalog`` (``Catalog.release`` = the number; ``None`` for the draft)."""
        if self._catalog is None:
            self._catalog = self._release().catalog
        return self._catalog

    @property
    def body_json(self) -> str:
        """The ``GET runtime/catalog`` body: the release's stored text, or the draft's, rendered."""
        if self._entry is None and self._pointer is None:
            return catalog_body_json(self.catalog)
        return self._release().body_json

    @property
    def body_bytes(self) -> bytes:
        """``body_json`` as the UTF-8 bytes sent: a release's are encoded once per process."""
        if self._entry is None and self._pointer is None:
            return self.body_json.encode("utf-8")
        return self._release().body_bytes

    def headers(self) -> dict[str, str]:
        """``X-Skill-Console-Release`` (the number, for a release) and, on a stale answer,
        ``X-Skill-Console-Stale: 1``."""
        out = {}
        if self.number is not None:
            out[RELEASE_HEADER] = str(self.number)
        if self.stale:
            out[STALE_HEADER] = "1"
        return out


RELEASE_HEADER = "X-Skill-Console-Release"
STALE_HEADER = "X-Skill-Console-Stale"


def runtime_served(
    *, release: int | None = None, label: str | None = None, draft: bool = False, drafts_allowed: bool = False
) -> Served:
    """Decide which catalog a runtime request sees (docs/releases.md, "What the runtime serves").

    - ``draft=True`` → the live draft, only when ``drafts_allowed`` (a key made with ``--drafts``
      or a publisher's console session), else ``DraftsNotAllowedError`` (403);
    - ``release=N`` → release ``N`` (``ReleaseNotFoundError``, 404, when unknown);
    - ``label=NAME`` → the release the label points at (``LabelNotFoundError``, 404);
    - nothing → the release labelled ``production``, else the latest release; with no release at
      all ``NoReleaseError`` (404 ``no_release``) — never the draft.

    Two selectors at once → ``ConflictingSelectorsError`` (400). Which release a selector points
    at comes from ``runtime_cache.lookup`` (cached for a few seconds under a generation every
    publish and label move bumps, so the very next request sees them). When the database cannot
    be reached, the answer is the last release this selector was served from (``stale``); with
    none held the database error propagates (503 ``database_unavailable``, skills_app/core/faults.py).
    """
    chosen = [name for name, value in (("release", release), ("label", label), ("draft", draft)) if value]
    if len(chosen) > 1:
        raise ConflictingSelectorsError(chosen)
    if draft:
        if not drafts_allowed:
            raise DraftsNotAllowedError()
        catalog = selectors.catalog_draft()
        return Served(catalog=catalog, sha256=draft_sha256(catalog), number=None)
    selector = runtime_cache.selector_key(release=release, label=label)
    try:
        pointer = runtime_cache.lookup(release=release, label=label or None)
    except runtime_cache.DATABASE_FAULTS:
        held = runtime_cache.held(selector)
        if held is None:
            raise
        entry, held_label = held
        return Served(
            sha256=entry.sha256, number=entry.number, label=held_label, selector=selector, entry=entry, stale=True
        )
    if pointer is None:
        if release is not None:
            raise ReleaseNotFoundError(release, known=_known())
        if label:
            raise LabelNotFoundError(
                label, known=list(ReleaseLabel.objects.order_by("name").values_list("name", flat=True))
            )
        raise NoReleaseError()
    return Served(sha256=pointer.sha256, number=pointer.number, label=pointer.label, pointer=pointer, selector=selector)


def runtime_catalog(
    *, release: int | None = None, label: str | None = None, draft: bool = False, drafts_allowed: bool = False
) -> Catalog:
    """The catalog a runtime request is answered from: ``runtime_served(...).catalog``. The single
    switch point every runtime endpoint goes through."""
    return runtime_served(release=release, label=label, draft=draft, drafts_allowed=drafts_allowed).catalog


def _known() -> list[int]:
    return list(Release.objects.order_by("number").values_list("number", flat=True))
