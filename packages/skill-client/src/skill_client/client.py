"""A Python client of the runtime API that answers every round locally (docs/runtime-api.md,
"Python client").

``RuntimeClient`` fetches the published catalog (``GET runtime/catalog``) and the manuals of its
enabled skills (``GET runtime/skills/{code}``, pinned to that release), keeps the last good copy in
memory and on disk, and computes what the server's ``rounds``, ``load-skill`` and ``check-call``
endpoints would answer with the same domain code (``skill_rule``: ``compute_round``,
``load_skill``, ``check_call``; the rule is docs/rule.md). An agent's round never waits on the
network: only ``refresh()`` (and the very first use) does, with one conditional request
(``If-None-Match`` → ``304`` while nothing was published).

Failure handling (fail closed):

- the console unreachable, a timeout, a 5xx, or an answer that is no valid catalog (not JSON, a
  wrong shape, a body or manual that does not match its sha256) → the last good copy keeps
  answering, ``stale`` is ``True``, ``stale_reason`` says why and a warning is logged
  (logger ``skill_client.client``);
- no good copy at all (none held, none on disk, or the disk copy is corrupt) →
  ``CatalogUnavailableError`` naming each cause. Never an empty catalog: without the catalog the
  client cannot know which tools are gated, so it answers nothing;
- a clear refusal by the console (401/403: no, wrong or revoked key; 404: nothing published,
  unknown label or release; any other 4xx) → ``ApiError`` / ``AuthenticationError`` at once, never
  masked by a stale copy: those are for an operator to fix, not to wait out.

Reporting (``skill_client.reporting``; docs/runtime-api.md, "Reporting"): unless made with
``report=False``, the client tells the console what it answered — a ``round`` record per round
(``round()``, ``visible_tools()``), a ``call`` record per ``check_call()``, a ``heartbeat`` after
each refresh, every ``heartbeat_interval`` seconds and on ``close()`` — through a bounded queue and
a background thread that sends batches of ``POST runtime/reports``. A round only enqueues; nothing
of reporting ever raises into the agent's code or makes it wait. Conversation ids are sent as
pseudonyms (``pseudonym()``: an HMAC-SHA256), never as given. With ``sample_rate`` above 0 a
share of the conversations is sampled (``sampled()``: decided by the pseudonym, so every round of a
sampled conversation is), and each of their rounds also sends a ``sample`` record: the round's
retained messages redacted on the agent's thread before anything is queued
(``skill_rule.redaction.redact_messages``; ``sample_arguments=True`` keeps call arguments).

Plain Python: the standard library's ``urllib`` and ``skill_rule`` (no Django import), so it
runs inside an agent process that has no Django settings.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import importlib.metadata
import json
import logging
import os
import re
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from http.client import HTTPException
from pathlib import Path
from typing import Any, cast

from skill_rule import (
    BUILTIN,
    MCP,
    Catalog,
    LoadResult,
    Message,
    MessageError,
    RoundView,
    ToolCall,
    Verdict,
    check_call,
    compute_round,
    jsontext,
    load_skill,
    parse_messages,
)
from skill_rule.limits import REPORT_ID_PATTERN, REPORT_VERSION_PATTERN
from skill_rule.messages import (
    ambiguous_call,
    call_ambiguity,
    carrier_conflict,
    free_text_problem,
    parse_arguments,
)
from skill_rule.payload import (
    NAMES,
    PAYLOAD_FORMATS,
    UnknownToolsFormatError,
    catalog_text,
    payload_json,
    tools_payload,
)
from skill_rule.providers import PayloadProblem, payload_problems, targets_for_format
from skill_rule.redaction import ARGUMENTS, REDACTED, redact_messages
from skill_rule.rules import call_round
from skill_rule.snapshot import SnapshotError, body_sha256, catalog_from_snapshot, setting_names

from .reporting import Reporter, default_instance

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

LOG = logging.getLogger("skill_client.client")

#: ``Refresh.outcome`` values.
FETCHED = "fetched"  # 200: a new catalog (and its manuals) replaced the copy
NOT_MODIFIED = "not_modified"  # 304: the copy is still what the console serves
STALE = "stale"  # no usable answer: the last good copy answers, flagged stale

#: Version of the on-disk copy's layout (``RuntimeClient.cache_path``).
CACHE_FORMAT = 1
#: An answer longer than this (bytes) is refused as not a catalog.
MAX_BODY_BYTES = 32 * 1024 * 1024
API_PREFIX = "/api/v1/runtime/"
#: The conversation id of a round or call reported without one (``conversation=None``).
NO_CONVERSATION = "unnamed"
_SHA256_HEX = re.compile(r"\A[0-9a-f]{64}\Z")


def client_version() -> str:
    """``skill-console-client/<version>``: the version of this distribution as installed (its
    metadata), ``…/unknown`` when it runs from a source tree that was never installed."""
    try:
        version = importlib.metadata.version("skill-console-client")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    text = "".join(c for c in f"skill-console-client/{version}" if "!" <= c <= "~")[:64]
    return text if REPORT_VERSION_PATTERN.fullmatch(text) else "skill-console-client/unknown"


def _pseudonym(salt: bytes, conversation: str | None) -> str:
    if conversation is None:
        return NO_CONVERSATION
    return hmac.new(salt, conversation.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:32]


class ClientError(Exception):
    """Base of the errors ``RuntimeClient`` raises."""


class ApiError(ClientError):
    """The console refused the request with a 4xx and its JSON error shape
    (docs/runtime-api.md, "Errors"): ``status`` (int), ``code`` (e.g. ``no_release``,
    ``label_not_found``, ``release_not_found``), ``message`` (the console's sentence), ``url``."""

    def __init__(self, status: int, code: str, message: str, url: str) -> None:
        self.status, self.code, self.message, self.url = status, code, message, url
        super().__init__(f"{url} answered {status} {code}: {message}")


class AuthenticationError(ApiError):
    """401 or 403: no key, an unknown, expired or revoked key (``authentication_failed``), or a key
    not allowed what was asked. Make a key with ``manage.py api_key create NAME``
    (docs/releases.md, "Runtime API keys")."""


class CatalogUnavailableError(ClientError):
    """No good copy of the catalog to answer from: the console gave no usable answer and there is
    no copy in memory or on disk (or the disk copy is corrupt). ``causes`` lists each reason."""

    def __init__(self, causes: Iterable[str]) -> None:
        self.causes = tuple(causes)
        super().__init__(
            "no runtime catalog to answer from (nothing is masked or released without one): " + "; ".join(self.causes)
        )


class CacheCorruptError(CatalogUnavailableError):
    """The on-disk copy cannot be trusted (not JSON, a wrong layout, a body or manual that does not
    match its sha256, another console or selector); ``path`` and ``cause`` name it. Raised only
    when the console cannot replace it either; otherwise a fresh copy overwrites it (logged)."""

    def __init__(self, path: Path, cause: str, *, network: str | None = None) -> None:
        self.path, self.cause = path, cause
        causes = [f"the saved copy {path} is corrupt: {cause}"]
        if network:
            causes.insert(0, network)
        super().__init__(causes)


class _Unusable(Exception):
    """Internal: an answer (or its absence) that falls back to the last good copy."""


@dataclass(frozen=True)
class Refresh:
    """What one ``RuntimeClient.refresh()`` did.

    ``outcome``: ``fetched`` (200), ``not_modified`` (304) or ``stale`` (fell back to the last
    good copy); ``status`` the HTTP status of the catalog request (``None`` when there was no
    answer); ``release`` the release number now answered from; ``reason`` why it is stale.
    """

    outcome: str
    status: int | None
    release: int | None
    reason: str | None = None


@dataclass(frozen=True)
class _Copy:
    """One verified copy: the catalog body as served, the manuals by code, the ETag and the
    domain ``Catalog`` built from them; ``checked_at`` = Unix seconds of the console's last
    confirmation (a 200 or a 304)."""

    body: Mapping[str, Any]
    manuals: Mapping[str, str]
    etag: str | None
    catalog: Catalog
    checked_at: float

    @functools.cached_property
    def release_sha256(self) -> str:
        """The release's sha256 as reports name it: the ETag without its quotes (the sha256 the
        console stores with the release), else the body's own ``sha256``."""
        tag = (self.etag or "").removeprefix("W/").strip('"')
        return tag if _SHA256_HEX.fullmatch(tag) else str(self.body["sha256"])


def _sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def catalog_from_runtime(body: Mapping[str, Any], manuals: Mapping[str, str]) -> Catalog:
    """The domain ``Catalog`` that ``GET runtime/catalog`` describes, the manuals filled in.

    ``body`` is the catalog JSON (docs/runtime-api.md: ``release``, the settings ``marker_key``,
    ``eviction_prefix``, ``load_skill_header``, ``catalog_placement`` (absent: ``tool_description``),
    ``builtins`` ``[{name, description, parameters}]``,
    ``mcp_tools`` ``[{name, title, description, inputSchema, annotations, require_confirm, server,
    mcp_name}]`` (``server`` / ``mcp_name`` may be absent or null: no call target),
    ``skills`` ``[{code, name, description, tool_ids, sort_order, version, content_sha256,
    earlier_manuals?}]`` (``earlier_manuals``: the digests of earlier published manuals, read as a
    snapshot's — docs/transcripts.md, "A whole published manual"),
    ``access_profiles`` and ``stages`` ``[{name, description, tools}]``); ``manuals`` maps every
    skill code to its markdown (``GET runtime/skills/{code}``). Built through
    ``snapshot.catalog_from_snapshot``, the reader the server itself answers from, so the rule sees
    the same catalog. Checks nothing of the hashes (``RuntimeClient`` does). Raises
    ``SnapshotError`` naming the item for a missing key, a wrong type or a missing manual.
    """
    if not isinstance(body, Mapping):
        raise SnapshotError("catalog: must be a JSON object")

    def items(key: str) -> list[Mapping[str, Any]]:
        value = body.get(key)
        if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
            raise SnapshotError(f"catalog: '{key}' must be a list of objects")
        return value

    skills = []
    for i, s in enumerate(items("skills")):
        code: Any = s.get("code")
        if code not in manuals:
            raise SnapshotError(f"skills[{i}]: no manual for skill {code!r}")
        skills.append({**s, "content": manuals[code]})
    release = body.get("release")
    if release is not None and (not isinstance(release, int) or isinstance(release, bool)):
        raise SnapshotError("catalog: 'release' must be an integer or null")
    snapshot = {
        "settings": {name: body[name] for name in setting_names() if name in body},
        "tools": [
            {
                "name": t.get("name"),
                "kind": BUILTIN,
                "description": t.get("description") or "",
                "inputSchema": t.get("parameters", {"type": "object"}),
            }
            for t in items("builtins")
        ]
        + [{**t, "kind": MCP} for t in items("mcp_tools")],
        "skills": skills,
        "access_profiles": items("access_profiles"),
        "stages": items("stages"),
    }
    return catalog_from_snapshot(snapshot, release=release)


def _verified(body: Any, manuals: Any, etag: str | None, *, checked_at: float) -> _Copy:
    """A ``_Copy`` of ``body`` and ``manuals`` after checking them whole: the body's ``sha256``
    equals the hash of the rest of it (docs/runtime-api.md, "Caching"), every manual matches its
    skill's ``content_sha256``, and the domain can read the catalog. Raises ``ValueError`` naming
    the item otherwise."""
    if not isinstance(body, dict) or not isinstance(body.get("sha256"), str):
        raise ValueError("the catalog is not a JSON object with a 'sha256'")
    rest = {k: v for k, v in body.items() if k != "sha256"}
    if body_sha256(rest) != body["sha256"]:
        raise ValueError("the catalog does not match its sha256")
    if not isinstance(manuals, dict) or not all(isinstance(v, str) for v in manuals.values()):
        raise ValueError("the manuals are not a JSON object of texts")
    for s in body.get("skills") or []:
        code = s.get("code") if isinstance(s, dict) else None
        if code in manuals and _sha256_text(manuals[code]) != s.get("content_sha256"):
            raise ValueError(f"the manual of skill {code!r} does not match its content_sha256")
    try:
        catalog = catalog_from_runtime(body, manuals)
    except SnapshotError as exc:
        raise ValueError(f"the catalog cannot be read: {exc}") from None
    return _Copy(body=body, manuals=dict(manuals), etag=etag, catalog=catalog, checked_at=checked_at)


def _default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "skill-console"


class RuntimeClient:
    """The runtime API of one console, answered locally from the last good copy of its catalog.

    ``base_url``: the console, e.g. ``"http://127.0.0.1:8000"``. ``api_key``: a runtime key
    (``manage.py api_key create NAME``), sent as ``Authorization: Bearer <key>``. ``label`` /
    ``release``: which release to follow (at most one; neither = what the console serves by
    default: the release labelled ``production``, else the latest — docs/releases.md).
    ``cache_dir``: where the copy is kept (default ``$XDG_CACHE_HOME/skill-console`` or
    ``~/.cache/skill-console``), one file per console and selector, ``cache_path``, mode 0600,
    written whole (temporary file + rename). ``timeout``: seconds per HTTP request.

    ``refresh()`` talks to the console; the first call that needs the catalog refreshes once.
    Every other method computes locally and never touches the network, so it is safe to run
    ``refresh()`` from a timer thread while rounds are computed (a refresh swaps the copy whole).
    After each refresh: ``stale`` / ``stale_reason``, ``last_refresh`` and ``stats`` (a
    ``Counter`` of ``Refresh.outcome``).

    Reporting (see the module; ``report=False`` turns it off: no thread, no record):
    ``instance`` names this runtime instance in every record (default: the host name and a UUID
    made once per process, ``.2``, ``.3`` … for more clients in one process); ``report_queue``
    bounds the records held (default 10,000: when full the oldest is dropped and counted,
    ``dropped_reports``); ``report_interval`` is the seconds between sends while records wait;
    ``heartbeat_interval`` the seconds between heartbeats (``0``: only on refresh and close);
    ``report_backoff`` the longest wait between two tries while the console does not answer;
    ``report_salt`` the key of the conversation pseudonyms (default: derived from ``api_key``, so
    every process of a deployment makes the same pseudonym of a conversation). ``close()`` (or a
    ``with`` block) sends what is queued; so does the exit of the interpreter.

    Samples (docs/runtime-api.md, "Samples"; default off): ``sample_rate`` (0.0–1.0) is the share
    of conversations whose rounds each also send a ``sample`` record — the round's retained
    messages, redacted before they are queued: text and the results of tools other than
    ``load_skill`` become their length, call arguments are kept only for ``load_skill``, unless
    ``sample_arguments=True`` (every call's arguments kept). The decision is per conversation
    (``sampled()``), so a sampled conversation sends one sample per round.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        label: str | None = None,
        release: int | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        timeout: float = 10.0,
        report: bool = True,
        instance: str | None = None,
        report_queue: int = 10_000,
        report_interval: float = 2.0,
        heartbeat_interval: float = 60.0,
        report_backoff: float = 60.0,
        report_salt: str | bytes | None = None,
        sample_rate: float = 0.0,
        sample_arguments: bool = False,
    ) -> None:
        if not (isinstance(sample_rate, (int, float)) and 0.0 <= sample_rate <= 1.0):
            raise ValueError(f"sample_rate must be a number from 0.0 to 1.0, got {sample_rate!r}")
        self.sample_rate, self.sample_arguments = float(sample_rate), bool(sample_arguments)
        if label and release is not None:
            raise ValueError("give label or release, not both")
        if instance is not None and REPORT_ID_PATTERN.fullmatch(instance) is None:
            raise ValueError(f"instance must be 1–64 of A–Z a–z 0–9 . _ : -, got {instance!r}")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.label = label or None
        self.pinned_release = release
        self.timeout = timeout
        self.cache_dir = Path(cache_dir) if cache_dir is not None else _default_cache_dir()
        selector = f"label={self.label}" if self.label else f"release={release}" if release is not None else "default"
        self._selector = selector
        digest = hashlib.sha256(f"{self.base_url}\n{selector}".encode()).hexdigest()[:16]
        #: The file holding the last good copy for this console and selector.
        self.cache_path = self.cache_dir / f"runtime-catalog-{digest}.json"
        self._copy: _Copy | None = None
        self._lock = threading.Lock()
        self.stale = False
        self.stale_reason: str | None = None
        self.last_refresh: Refresh | None = None
        self.stats: Counter[str] = Counter()
        self._status: int | None = None  # HTTP status of the last catalog request
        if isinstance(report_salt, str):
            report_salt = report_salt.encode("utf-8")
        self._salt = (
            report_salt or hashlib.sha256(b"skill-console conversation pseudonyms\0" + api_key.encode()).digest()
        )
        self._sizes: tuple[Catalog | None, dict[tuple[str, str], int]] = (None, {})
        self._reporter: Reporter | None = None
        if report:
            self._reporter = Reporter(
                self.base_url + API_PREFIX + "reports",
                api_key,
                instance=instance,
                client_version=client_version(),
                conversation=functools.partial(_pseudonym, self._salt),
                beat=_weak_beat(self),
                timeout=timeout,
                max_queue=report_queue,
                interval=report_interval,
                heartbeat_interval=heartbeat_interval,
                max_backoff=report_backoff,
            )
            finalizer = weakref.finalize(self, self._reporter.stop)
            finalizer.atexit = False  # at exit the reporters are closed, each with its last heartbeat
            self.instance = self._reporter.instance
        else:
            self.instance = instance or default_instance()

    # --- reporting -----------------------------------------------------------------------------

    @property
    def reporting(self) -> bool:
        """Whether this client reports (``report=True``, the default)."""
        return self._reporter is not None

    @property
    def dropped_reports(self) -> int:
        """Records dropped unsent since the client was made: the queue full (the oldest go), a
        batch the console refused, or left at ``close()``. 0 without reporting."""
        return self._reporter.dropped if self._reporter is not None else 0

    @property
    def pending_reports(self) -> int:
        """Records queued or being sent."""
        return self._reporter.pending if self._reporter is not None else 0

    @property
    def report_stats(self) -> Counter[str]:
        """What reporting did: ``batches`` and ``records`` delivered (``stored`` new, ``duplicates``
        the console had), ``retries``, ``refused`` batches, ``dropped`` records (and by why:
        ``dropped_queue_full``, ``dropped_refused``, ``dropped_unsent``)."""
        return Counter(self._reporter.stats) if self._reporter is not None else Counter()

    def pseudonym(self, conversation: str) -> str:
        """The id reports carry for the agent's conversation id ``conversation``: the first 32 hex
        digits of HMAC-SHA256(``report_salt``, the id in UTF-8). The same for every process with
        the same salt; the console never sees the id itself."""
        return _pseudonym(self._salt, str(conversation))

    def sampled(self, conversation: str | None) -> bool:
        """Whether the rounds of the agent's conversation ``conversation`` send samples: the first
        8 bytes of SHA-256 of its pseudonym, read as a number below 2^64, fall under ``sample_rate``
        × 2^64 — the same answer for every round and every process with the same salt."""
        if self.sample_rate <= 0.0:
            return False
        digest = hashlib.sha256(_pseudonym(self._salt, conversation).encode("ascii")).digest()
        return int.from_bytes(digest[:8], "big") < self.sample_rate * 2**64

    def flush_reports(self, timeout: float = 10.0) -> bool:
        """Send the records queued now, waiting at most ``timeout`` seconds; ``True`` when all of
        them were sent (or dropped), ``False`` when the console did not answer in time (they stay
        queued and are sent once it does). Never raises."""
        return self._reporter.flush(timeout) if self._reporter is not None else True

    def close(self, timeout: float = 5.0) -> bool:
        """Stop reporting: a last heartbeat, then everything queued is sent within ``timeout``
        seconds; what is left is dropped (``dropped_reports``). ``True`` when nothing was left.
        The client still answers rounds afterwards (unreported). Never raises."""
        if self._reporter is None:
            return True
        try:
            return self._reporter.close(timeout)
        except Exception:  # noqa: BLE001 — reporting never raises into the agent
            LOG.exception("runtime reports: close failed")
            return False

    def __enter__(self) -> RuntimeClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _beat_fields(self) -> dict[str, Any]:
        """A heartbeat's fields of the client now (``skill_rule.reports``)."""
        copy, last = self._copy, self.last_refresh
        return {
            "stale": bool(self.stale),
            "release": copy.catalog.release if copy is not None else None,
            "sha256": copy.release_sha256 if copy is not None else None,
            "label": self.label,
            "refresh": last.outcome if last is not None else None,
        }

    def _report_round(
        self, copy: _Copy, msgs: tuple[Message, ...], view: RoundView, conversation: Any, tools_chars: int | None
    ) -> None:
        """Queue the ``round`` record of a round just computed (cheap; never raises)."""
        reporter = self._reporter
        if reporter is None:
            return
        try:
            position = 1 + sum(1 for m in msgs if m.role == "assistant")
            conv = None if conversation is None or conversation == "" else str(conversation)
            now = time.time()
            entry = ("round", now, copy.catalog.release, copy.release_sha256, self.label, conv, position)
            reporter.add((*entry, view, tools_chars))
            if self.sample_rate > 0.0 and self.sampled(conv):  # redacted here, before it is queued
                keep = self.sample_arguments
                redacted = redact_messages(msgs, keep_arguments=keep, marker_key=copy.catalog.marker_key)
                mode = ARGUMENTS if keep else REDACTED
                reporter.add(("sample", now, *entry[2:], mode, redacted))
        except Exception:  # noqa: BLE001 — reporting never breaks a round
            LOG.exception("runtime reports: a round could not be reported")

    def _report_call(
        self,
        copy: _Copy,
        msgs: tuple[Message, ...],
        call: ToolCall | Mapping[str, Any],
        verdict: Verdict,
        conversation: Any,
    ) -> None:
        """Queue the ``call`` record of a guarded call (cheap; never raises). Its round is the
        round of the call (docs/rule.md): the assistant messages before the one carrying it."""
        reporter = self._reporter
        if reporter is None:
            return
        try:
            if not isinstance(call, ToolCall):
                call_id = call.get("id")
                if isinstance(call_id, str) and call_id:
                    call = ToolCall(name=verdict.name, id=call_id)
                else:
                    arguments, _ = parse_arguments(call.get("arguments", {}), name=verdict.name)
                    call = ToolCall(name=verdict.name, arguments=arguments)
            position = 1 + sum(1 for m in call_round(msgs, call) if m.role == "assistant")
            conv = None if conversation is None or conversation == "" else str(conversation)
            release, sha256 = copy.catalog.release, copy.release_sha256
            entry = ("call", time.time(), release, sha256, conv, position, verdict.name, verdict.verdict)
            reporter.add((*entry, verdict.reason, verdict.skill_code))
        except Exception:  # noqa: BLE001 — reporting never breaks a call check
            LOG.exception("runtime reports: a call could not be reported")

    def _tools_chars(self, catalog: Catalog, fmt: str, tools: list[Any]) -> int:
        """``payload_chars(tools)`` from the size of each tool's definition, measured once per
        catalog and format (a definition depends on the catalog alone): no JSON text per round."""
        held, sizes = self._sizes
        if held is not catalog:
            sizes = {}
            self._sizes = (catalog, sizes)
        total = 2 + max(0, len(tools) - 1)  # [ ] and the commas
        for tool in tools:
            name = tool["function"]["name"] if fmt == "openai" else tool["name"]
            size = sizes.get((fmt, name))
            if size is None:
                size = sizes[(fmt, name)] = len(payload_json([tool])) - 2
            total += size
        return total

    # --- the copy ------------------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        """The domain ``Catalog`` answered from (refreshing once if none is held yet). Raises
        ``CatalogUnavailableError``, ``ApiError`` like ``refresh()``."""
        return self._held().catalog

    def _held(self) -> _Copy:
        copy = self._copy
        if copy is None:
            self.refresh()
            copy = self._copy
            assert copy is not None
        return copy

    @property
    def release(self) -> int | None:
        """The release number of the copy answered from (refreshing once if none is held)."""
        return self.catalog.release

    @property
    def etag(self) -> str | None:
        """The ETag of the held copy (the release's sha256 in quotes), or ``None``."""
        return self._copy.etag if self._copy else None

    def refresh(self) -> Refresh:
        """Revalidate the copy with the console: ``GET runtime/catalog`` with ``If-None-Match``.

        ``304`` → the copy stays (``not_modified``). ``200`` → the new catalog and the manuals of
        its enabled skills (those not already held, ``GET runtime/skills/{code}?release=N``) are
        checked whole (sha256s) and replace the copy in memory and on disk (``fetched``). No usable
        answer → the last good copy — in memory, else on disk — answers, flagged ``stale``, a
        warning logged (``stale``). Raises ``CatalogUnavailableError`` (``CacheCorruptError`` for
        a corrupt disk copy) when there is no good copy at all, ``AuthenticationError`` on 401/403
        and ``ApiError`` on another 4xx — never masked by a copy (a copy held still answers, with
        ``stale`` set: the agent decides whether to go on). With reporting on, a heartbeat with the
        outcome is queued.
        """
        try:
            return self._refresh()
        finally:
            if self._reporter is not None:
                self._reporter.heartbeat()

    def _refresh(self) -> Refresh:
        with self._lock:
            held, disk_problem = self._copy, None
            if held is None:  # a new process: the copy on disk, used once the console confirms it or is gone
                try:
                    held = self._read_disk()
                except CacheCorruptError as exc:
                    disk_problem = exc
                    LOG.warning("runtime catalog: ignoring %s; fetching a fresh copy", exc.causes[-1])
            self._status = None
            try:
                result = self._revalidate(held)
            except ApiError as exc:
                # The console refused: raised, never masked; a copy held is no longer confirmed.
                if self._copy is not None:
                    self.stale, self.stale_reason = True, str(exc)
                raise
            except _Unusable as exc:
                cause = str(exc)
                if disk_problem is not None:
                    raise CacheCorruptError(disk_problem.path, disk_problem.cause, network=cause) from None
                if held is None:
                    raise CatalogUnavailableError([cause, f"no saved copy at {self.cache_path}"]) from None
                self._copy = held
                result = Refresh(STALE, self._status, held.catalog.release, cause)
                self.stale, self.stale_reason = True, cause
                LOG.warning(
                    "runtime catalog: %s; answering from the last good copy (release %s, confirmed %s) — stale",
                    cause,
                    held.catalog.release,
                    _when(held.checked_at),
                )
            else:
                self.stale, self.stale_reason = False, None
            self.last_refresh = result
            self.stats[result.outcome] += 1
            return result

    def _revalidate(self, held: _Copy | None) -> Refresh:
        """One conditional GET of the catalog against ``held``; on success sets ``self._copy``.
        Raises ``_Unusable`` (fall back), ``ApiError`` (a 4xx)."""
        headers = {"If-None-Match": held.etag} if held is not None and held.etag else {}
        status, reply_headers, data = self._get("catalog", self._query(), headers)
        self._status = status
        now = time.time()
        if status == 304:
            if held is None:
                raise _Unusable("the console answered 304 to a request without a copy")
            self._copy = _Copy(held.body, held.manuals, held.etag, held.catalog, now)
            return Refresh(NOT_MODIFIED, 304, held.catalog.release)
        if status != 200:
            raise _Unusable(f"the console answered {status}")
        body = _json(data, "the catalog")
        if not isinstance(body, dict):
            raise _Unusable("the catalog answer is not a JSON object")
        release = body.get("release")
        have = dict(held.manuals) if held is not None else {}
        by_sha = {_sha256_text(text): text for text in have.values()}
        manuals: dict[str, str] = {}
        for s in body.get("skills") or []:
            if not isinstance(s, dict) or not isinstance(s.get("code"), str):
                raise _Unusable("the catalog answer is not a valid catalog: a skill without a code")
            if s.get("content_sha256") in by_sha:
                manuals[s["code"]] = by_sha[s["content_sha256"]]
                continue
            query = {"release": release} if isinstance(release, int) else self._query()
            code = urllib.parse.quote(s["code"], safe="")
            m_status, _, m_data = self._get(f"skills/{code}", query, {})
            if m_status != 200:
                raise _Unusable(f"the manual of skill '{s['code']}' answered {m_status}")
            manual = _json(m_data, f"the manual of skill '{s['code']}'")
            content = manual.get("content") if isinstance(manual, dict) else None
            if not isinstance(content, str):
                raise _Unusable(f"the manual of skill '{s['code']}' has no text 'content'")
            manuals[s["code"]] = content
        try:
            copy = _verified(body, manuals, reply_headers.get("ETag"), checked_at=now)
        except ValueError as exc:
            raise _Unusable(f"the catalog answer is not a valid catalog: {exc}") from None
        self._copy = copy
        self._write_disk(copy)
        LOG.info("runtime catalog: release %s fetched from %s", copy.catalog.release, self.base_url)
        return Refresh(FETCHED, 200, copy.catalog.release)

    def _query(self) -> dict[str, Any]:
        if self.label:
            return {"label": self.label}
        if self.pinned_release is not None:
            return {"release": self.pinned_release}
        return {}

    def _get(self, path: str, query: Mapping[str, Any], headers: Mapping[str, str]) -> tuple[int, Any, bytes]:
        """One GET under ``/api/v1/runtime/`` → ``(status, headers, body bytes)``. Raises
        ``_Unusable`` when there is no answer, ``AuthenticationError`` / ``ApiError`` on a 4xx."""
        url = self.base_url + API_PREFIX + path + (f"?{urllib.parse.urlencode(query)}" if query else "")
        request = urllib.request.Request(
            url, headers={"Authorization": f"Bearer {self.api_key}", "Accept": "application/json", **headers}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                status, reply_headers, data = response.status, response.headers, response.read(MAX_BODY_BYTES + 1)
        except urllib.error.HTTPError as exc:  # every status outside 2xx, 304 included
            with exc:
                status, reply_headers, data = exc.code, exc.headers, exc.read(MAX_BODY_BYTES + 1)
        except (urllib.error.URLError, HTTPException, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise _Unusable(f"cannot reach the console at {url}: {reason}") from None
        if len(data) > MAX_BODY_BYTES:
            raise _Unusable(f"{url} answered more than {MAX_BODY_BYTES} bytes")
        if 400 <= status < 500:
            code, message = _error_of(data)
            error = AuthenticationError if status in (401, 403) else ApiError
            raise error(status, code, message, url)
        return status, reply_headers, data

    def _read_disk(self) -> _Copy | None:
        """The verified copy at ``cache_path``; ``None`` when there is no file. Raises
        ``CacheCorruptError`` naming the file and the cause."""
        path = self.cache_path
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CacheCorruptError(path, f"cannot be read: {exc.strerror or exc}") from None
        try:
            saved = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            raise CacheCorruptError(path, f"not JSON ({exc})") from None
        if not isinstance(saved, dict) or saved.get("format") != CACHE_FORMAT:
            raise CacheCorruptError(path, f"not a saved catalog of format {CACHE_FORMAT}")
        if saved.get("base_url") != self.base_url or saved.get("selector") != self._selector:
            raise CacheCorruptError(
                path,
                f"saved for {saved.get('base_url')!r} ({saved.get('selector')}), "
                f"not {self.base_url!r} ({self._selector})",
            )
        etag, checked_at = saved.get("etag"), saved.get("checked_at")
        if not isinstance(checked_at, (int, float)) or not (etag is None or isinstance(etag, str)):
            raise CacheCorruptError(path, "'etag' or 'checked_at' has the wrong type")
        try:
            return _verified(saved.get("catalog"), saved.get("manuals"), etag, checked_at=float(checked_at))
        except ValueError as exc:
            raise CacheCorruptError(path, str(exc)) from None

    def _write_disk(self, copy: _Copy) -> None:
        """Save ``copy`` at ``cache_path`` whole: a 0600 temporary file in the same folder,
        fsynced, renamed over the old one. A failure is logged; the copy in memory still answers."""
        data = json.dumps(
            {
                "format": CACHE_FORMAT,
                "base_url": self.base_url,
                "selector": self._selector,
                "etag": copy.etag,
                "checked_at": copy.checked_at,
                "catalog": copy.body,
                "manuals": copy.manuals,
            },
            ensure_ascii=False,
            sort_keys=True,
        ).encode("utf-8")
        tmp = None
        try:
            self.cache_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.cache_dir, prefix=".runtime-catalog-", suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                os.fchmod(f.fileno(), 0o600)
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.cache_path)
            tmp = None
        except OSError as exc:
            LOG.warning("runtime catalog: cannot save the copy at %s: %s", self.cache_path, exc)
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass

    # --- the rule, locally ---------------------------------------------------------------------

    def round(
        self,
        messages: Iterable[Message | Mapping[str, Any]],
        *,
        access_profile: str | None = None,
        stage: str | None = None,
        allowed_tools: Iterable[str] | None = None,
        conversation: str | None = None,
    ) -> RoundView:
        """What the model is given this round (docs/rule.md), as ``POST runtime/rounds`` answers:
        ``RoundView`` with ``visible`` (names, registration order), ``masked`` (tool → skill to
        load), ``loaded``, ``withheld``, ``warnings``, ``count``; ``as_dict()`` gives the JSON
        fields. ``messages``: the messages retained in context now (docs/runtime-api.md shape,
        OpenAI or Anthropic). Raises ``MessageError`` (the server's 400 ``invalid_messages``),
        ``UnknownRestrictionError`` (400 ``unknown_restriction``).

        Reported as one ``round`` record (call ``round()`` or ``visible_tools()`` once per model
        call, not both): ``conversation`` is the agent's id of the conversation (sent as
        ``pseudonym(conversation)``; ``None`` → ``"unnamed"``), the round's position is 1 + the
        assistant messages retained."""
        copy, msgs, view = self._round(messages, access_profile, stage, allowed_tools)
        self._report_round(copy, msgs, view, conversation, None)
        return view

    def _round(
        self,
        messages: Iterable[Message | Mapping[str, Any]],
        access_profile: str | None,
        stage: str | None,
        allowed_tools: Iterable[str] | None,
    ) -> tuple[_Copy, tuple[Message, ...], RoundView]:
        copy = self._held()
        msgs = _messages(messages)
        view = compute_round(
            copy.catalog,
            msgs,
            access_profile=access_profile or None,
            stage=stage or None,
            allowed_tools=allowed_tools,
        )
        return copy, msgs, view

    def visible_tools(
        self,
        messages: Iterable[Message | Mapping[str, Any]],
        *,
        tools_format: str = "openai",
        access_profile: str | None = None,
        stage: str | None = None,
        allowed_tools: Iterable[str] | None = None,
        conversation: str | None = None,
    ) -> list[Any]:
        """The tools to give the model this round: with ``tools_format`` ``openai`` (default) or
        ``anthropic`` the exact array for the chat API (the ``tools`` of ``POST runtime/rounds``,
        ``load_skill`` generated from the enabled skills, docs/runtime-api.md "What the model
        sees"); with ``names`` the tool names. Raises ``UnknownToolsFormatError`` for another
        format, and what ``round()`` raises. Reported as ``round()`` is (``conversation``), with
        the array's ``tools_chars``."""
        if tools_format not in (NAMES, *PAYLOAD_FORMATS):
            raise UnknownToolsFormatError(tools_format)
        copy, msgs, view = self._round(messages, access_profile, stage, allowed_tools)
        if tools_format == NAMES:
            self._report_round(copy, msgs, view, conversation, None)
            return list(view.visible)
        tools = tools_payload(copy.catalog, view.visible, tools_format)
        if self._reporter is not None:
            try:
                chars: int | None = self._tools_chars(copy.catalog, tools_format, tools)
            except Exception:  # noqa: BLE001 — reporting never breaks a round
                chars = None
            self._report_round(copy, msgs, view, conversation, chars)
        return tools

    def payload_problems(
        self,
        messages: Iterable[Message | Mapping[str, Any]],
        *,
        tools_format: str = "openai",
        access_profile: str | None = None,
        stage: str | None = None,
        allowed_tools: Iterable[str] | None = None,
    ) -> tuple[PayloadProblem, ...]:
        """What the provider targets say about this round's ``visible_tools(messages,
        tools_format=…)`` array, as ``POST runtime/rounds`` answers it in ``payload_problems``
        (docs/providers.md): for each of the held release's ``payload_targets`` and the target whose
        shape ``tools_format`` is (``openai`` → OpenAI Chat Completions, ``anthropic`` → Anthropic
        Messages), each rule the round breaks — ``refused`` (the provider would answer 400 to the
        request), ``over_budget`` or ``rewritten`` (already applied in ``visible_tools``: never
        silently). ``PayloadProblem.as_dict()`` is the endpoint's JSON item. Raises
        ``UnknownToolsFormatError`` for a format other than ``openai`` / ``anthropic``, and what
        ``round()`` raises."""
        if tools_format not in PAYLOAD_FORMATS:
            raise UnknownToolsFormatError(tools_format)
        copy, _, view = self._round(messages, access_profile, stage, allowed_tools)  # not reported: a look at a round
        catalog = copy.catalog
        return payload_problems(catalog, view.visible, targets_for_format(catalog, tools_format))

    def catalog_text(self) -> str | None:
        """The skill catalog to put in the system prompt, as ``POST runtime/rounds`` answers it in
        ``catalog_text`` (docs/runtime-api.md, "Where the catalog goes"): under the held release's
        ``system_prompt`` placement, one line ``- code（name）：description`` per enabled skill
        (``""`` when none); ``None`` under ``tool_description`` (the lines are in ``load_skill``'s
        description of ``visible_tools``). The same every round of a release: it depends on the
        catalog alone, never on the messages."""
        return catalog_text(self.catalog)

    def load_skill(self, messages: Iterable[Message | Mapping[str, Any]], skill_code: Any) -> LoadResult:
        """The ``load_skill`` tool result under the repeat-load rule (docs/rule.md), as ``POST
        runtime/load-skill`` answers. ``messages`` are retained *including* the assistant's
        ``load_skill`` call. ``LoadResult``: ``content`` (the manual, or the short stub while the
        full one is retained), ``metadata`` (store it on the tool result message:
        ``{marker_key: code, "skill_version": v}``; the stub has no marker), ``already_loaded``,
        ``version``. An unknown, disabled or malformed code gives ``state == "error"`` and
        ``content`` naming the skills on offer (the server answers 404 / 400 with that text).
        Raises ``MessageError``."""
        return load_skill(self.catalog, _messages(messages), skill_code)

    def check_call(
        self,
        messages: Iterable[Message | Mapping[str, Any]],
        call: ToolCall | Mapping[str, Any],
        *,
        access_profile: str | None = None,
        stage: str | None = None,
        allowed_tools: Iterable[str] | None = None,
        conversation: str | None = None,
    ) -> Verdict:
        """The guard before a tool runs (docs/rule.md, "The guard"), as ``POST runtime/check-call``
        answers. ``call``: ``{"name", "arguments"}`` (an object or JSON text), OpenAI's ``{"id",
        "type": "function", "function": {...}}`` or an Anthropic ``tool_use`` block. ``Verdict``:
        ``verdict`` ``allowed`` / ``confirm`` / ``refused``, ``reason`` (``masked``,
        ``unknown_tool``, ``invalid_arguments`` …), ``skill_code``, ``message``, and ``target``
        (``{"server", "tool"}`` for an allowed or confirm call to a synced MCP tool). Raises
        ``MessageError`` for a call without a text ``name`` (the server's 400) or a message list
        the server refuses, ``UnknownRestrictionError``. Reported as one ``call`` record
        (``conversation`` as in ``round()``; its round is the round of the call)."""
        copy = self._held()
        msgs, parsed = _messages(messages), _call(call)
        verdict = check_call(
            copy.catalog,
            msgs,
            parsed,
            access_profile=access_profile or None,
            stage=stage or None,
            allowed_tools=allowed_tools,
        )
        self._report_call(copy, msgs, parsed, verdict, conversation)
        return verdict

    def call_target(self, name: str) -> dict[str, str] | None:
        """Where a call to the model-facing tool ``name`` goes: ``{"server": <MCP server record
        name>, "tool": <the tool's real name there>}`` (send ``tools/call`` with ``tool`` to
        ``server``), or ``None`` for a builtin or an MCP tool with no server (run it by ``name``).
        Only the mapping — run ``check_call`` first (its ``Verdict.target`` is the same for a call
        that may run). Raises ``LookupError`` naming the tools on offer when ``name`` is no
        registered tool of the held release (fail closed: never guess a server).
        docs/mcp.md, "How a runtime maps calls back"."""
        tool = self.catalog.tool(name) if isinstance(name, str) else None
        if tool is None:
            offer = ", ".join(t.name for t in self.catalog.registered_tools) or "none"
            raise LookupError(f"unknown tool {name!r}; tools on offer: {offer}")
        return tool.call_target


def _weak_beat(client: RuntimeClient) -> Callable[[], Mapping[str, Any] | None]:
    """The heartbeat fields of ``client`` without keeping it alive (``None`` once it is gone)."""
    ref = weakref.ref(client)

    def beat() -> Mapping[str, Any] | None:
        held = ref()
        return held._beat_fields() if held is not None else None

    return beat


def _messages(messages: Iterable[Message | Mapping[str, Any]]) -> tuple[Message, ...]:
    """Messages read exactly as the server reads a request's ``messages`` (``parse_messages``).

    Values JSON cannot write as the agent holds them — ``NaN``, an infinity, an int past 4,300
    digits, a value that contains itself, a type JSON does not have — are first marked as the
    server's reader marks the JSON text a runtime would send (``jsontext.mark``: ambiguous, fail
    closed; docs/transcripts.md, "Ambiguous JSON"). One pass in C finds them — a lone surrogate
    fails the UTF-8 encoding of the JSON text, an int past ±(2^53−1) is a run of 16 or more
    digits in it — and only then is the list walked (a walk of every round costs more than the
    round), so the client marks what the server's reader marks; call arguments are always marked
    (``_call``).
    Raises ``MessageError`` for a list the server would answer 400 for."""
    try:
        items = list(messages)
    except TypeError:
        raise MessageError("messages must be a JSON list") from None
    if all(isinstance(m, Message) for m in items):
        return tuple(cast(list[Message], items))
    raw = [m.as_dict() if isinstance(m, Message) else m for m in items]
    try:
        # ensure_ascii=False + encode: a lone surrogate fails here (UnicodeEncodeError is a ValueError)
        text = json.dumps(raw, allow_nan=False, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError, RecursionError):
        raw = [jsontext.mark(m) for m in raw]
    else:
        if _LONG_DIGITS.search(text) is not None:  # maybe an int past ±(2^53−1) (16+ digits): walk to see
            raw = [jsontext.mark(m) for m in raw]
    return parse_messages(raw)


#: A run of 16 or more digits in the JSON text of the messages: 2^53 has 16, so every integer past
#: ±(2^53−1) is such a run (a long number inside a string also matches: then the walk finds nothing).
_LONG_DIGITS = re.compile(rb"[0-9]{16,}")


def _call(call: ToolCall | Mapping[str, Any]) -> ToolCall | Mapping[str, Any]:
    """A call in any accepted shape → ``{"id", "name", "arguments"}`` (as the server's
    ``CallInputSerializer`` unwraps OpenAI and Anthropic shapes). Arguments given as an object
    are marked as the server's reader would mark their JSON (``jsontext.mark``): an int past
    ±(2^53−1), ``NaN`` or a lone surrogate in them is a refused ``invalid_arguments``. Raises
    ``MessageError`` for a call without a text ``name`` (the server's 400)."""
    if isinstance(call, ToolCall):
        return call
    if not isinstance(call, Mapping):
        raise MessageError("call: a call must be an object with 'name' and 'arguments'")
    twice = call_ambiguity(call) or carrier_conflict(call)  # a key twice (jsontext.loads) or a name given twice
    name = call["function"].get("name") if isinstance(call.get("function"), Mapping) else call.get("name")
    if twice is not None and isinstance(name, str) and name:
        # a name or arguments given twice: refused invalid_arguments, as by the server
        return ToolCall(name=name, arguments={}, id="", problem=ambiguous_call(name, twice))
    if isinstance(call.get("function"), Mapping):
        call = {"id": call.get("id") or "", **call["function"]}
    elif call.get("type") == "tool_use" and "input" in call:
        call = {"id": call.get("id") or "", "name": call.get("name"), "arguments": call["input"]}
    elif call.get("type") == "function_call":  # OpenAI Responses item
        call = {"id": call.get("call_id") or "", "name": call.get("name"), "arguments": call.get("arguments", {})}
    if not isinstance(call.get("name"), str) or not call["name"]:
        raise MessageError("call: a call needs a 'name' (text)")
    if call.get("type") == "custom_tool_call":  # free-text input: never arguments (refused invalid_arguments)
        call_id = call.get("call_id")
        return ToolCall(
            name=call["name"],
            arguments={},
            id=call_id if isinstance(call_id, str) else "",
            problem=free_text_problem(call["name"]),
        )
    arguments = call.get("arguments", {})
    if isinstance(arguments, (dict, list)) or (isinstance(arguments, (int, float)) and not isinstance(arguments, bool)):
        arguments = jsontext.mark(arguments)
    call_id = call.get("id")  # an id of another type is no id, as the server reads it
    return {"id": call_id if isinstance(call_id, str) else "", "name": call["name"], "arguments": arguments}


def _json(data: bytes, what: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise _Unusable(f"{what} is not JSON ({type(exc).__name__}: {exc})") from None


def _error_of(data: bytes) -> tuple[str, str]:
    """``(code, message)`` of the JSON error shape, or a placeholder for another body."""
    try:
        error = json.loads(data.decode("utf-8")).get("error") or {}
        return str(error.get("code") or "error"), str(error.get("message") or "")
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, AttributeError):
        return "error", data[:200].decode("utf-8", "replace")


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
