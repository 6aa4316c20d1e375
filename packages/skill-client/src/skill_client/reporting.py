"""What a ``RuntimeClient`` tells the console about production (docs/runtime-api.md, "Python client",
"Reporting"): its rounds, guarded calls and heartbeats as ``POST runtime/reports`` records
(``skill_rule.reports`` is their shape), sent from a background thread.

The agent's thread only *enqueues*: a round or a call puts one small tuple on a bounded queue (a
lock, an append) and returns; building the JSON, the HTTP request, the retries and the back-off
happen in the sender thread, so reporting never makes a round wait on the network and never
raises into the agent's code (a fault is logged, logger ``skill_client.reporting``).

**The queue** holds at most ``max_queue`` records, the batch being sent included. When it is full
the oldest record waiting is dropped and counted (``dropped``); the next heartbeat sent carries
the drops the console has not been told of yet (its ``dropped``, so the sum over the heartbeats
stored is the number of records lost — a dropped heartbeat hands its own count on).

**Sending.** A batch is every record waiting, up to ``REPORT_MAX_RECORDS`` and
``REPORT_MAX_BATCH_BYTES`` of JSON (the rest waits for the next batch). It is sent when
``interval`` seconds have passed since the last send, at once when a full batch waits, and on
``flush()`` / ``close()``. A record keeps the id it was given when first sent, so a batch sent
again after a timeout is stored once (the console keeps one record per key and id).

- no answer (refused, reset, timeout), a 5xx, ``408`` or ``429`` → the batch goes back to the
  front of the queue and is sent again after a back-off: 0.5 s, doubling up to ``max_backoff``,
  with jitter (each wait is between half and all of the step), never shorter than a
  ``Retry-After``; a long outage keeps the newest ``max_queue`` records;
- any other answer outside 2xx (``400 invalid_report``, ``401`` / ``403``, ``413``) → the batch is
  dropped, counted and logged with the console's message: retrying it would be refused again.

**Closing.** ``close(timeout)`` adds a last heartbeat, sends what is queued and stops the thread;
what is still unsent after ``timeout`` seconds is dropped and counted. Every reporter still open
at interpreter exit is closed (``atexit``), all of them within ``EXIT_TIMEOUT`` seconds. A process
forked from one that reports starts with an empty queue and a sender of its own.
"""

from __future__ import annotations

import atexit
import itertools
import json
import logging
import os
import random
import re
import socket
import threading
import time
import urllib.error
import urllib.request
import uuid
import weakref
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from http.client import HTTPException
from typing import Any

from skill_rule.limits import (
    REPORT_MAX_BATCH_BYTES,
    REPORT_MAX_LIST_ITEMS,
    REPORT_MAX_RECORDS,
    REPORT_NAME_MAX_CHARS,
    REPORT_SAMPLE_MAX_BYTES,
    REPORT_SAMPLE_MAX_MESSAGES,
)

LOG = logging.getLogger("skill_client.reporting")

#: Seconds ``atexit`` gives all open reporters together to send what they hold.
EXIT_TIMEOUT = 5.0
#: The first back-off step (seconds); each failure in a row doubles it, up to ``max_backoff``.
FIRST_BACKOFF = 0.5
#: Statuses besides the 5xx worth sending the same batch again for: the console is busy.
RETRY_STATUSES = frozenset({408, 429})

_BODY_OVERHEAD = len(b'{"records":[]}')
_CONTROL = frozenset(chr(c) for c in (*range(0x20), *range(0x7F, 0xA0)))

#: Queue entries made on the agent's thread (built into records by the sender):
#: ``("round", at, release, sha256, label, conversation, position, view, tools_chars)``,
#: ``("call", at, release, sha256, conversation, position, tool, verdict, reason, skill_code)``,
#: ``("heartbeat", at, fields)``,
#: ``("sample", at, release, sha256, label, conversation, position, redaction, messages)`` (the
#: messages already redacted by the client).
Entry = tuple[Any, ...]


@dataclass(slots=True)
class _Ready:
    """A record built and encoded: what is sent, and sent again unchanged on a retry."""

    kind: str
    data: bytes
    dropped: int = 0  # a heartbeat: the drops it tells the console of


def name_of(value: Any) -> str:
    """A tool name or skill code as a record may carry it (1–``REPORT_NAME_MAX_CHARS`` characters,
    no control character): what the model sent, control characters as ``?``, cut to the limit."""
    text = value if isinstance(value, str) else str(value)
    if len(text) > REPORT_NAME_MAX_CHARS:
        text = text[:REPORT_NAME_MAX_CHARS]
    if any(c in _CONTROL for c in text):
        text = "".join("?" if c in _CONTROL else c for c in text)
    return text or "?"


def _time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat(timespec="microseconds")


class _Fork:
    """Bumped in a forked child: a reporter made before the fork starts over there."""

    generation = 0


def _after_fork() -> None:
    _Fork.generation += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)

_OPEN: weakref.WeakSet[Reporter] = weakref.WeakSet()


class _Process:
    """This process's instance id (made again in a forked child) and the clients named after it."""

    generation = -1
    instance = ""
    clients = 0


def default_instance() -> str:
    """An instance id for a client that was given none: ``<host>:<uuid4 hex>``, the UUID made once
    per process (and again in a forked child); the second client of a process gets ``….2``, the
    third ``….3``. The host name keeps only ``A–Z a–z 0–9 . _ -``, at most 24 of them."""
    if _Process.generation != _Fork.generation:
        host = re.sub(r"[^A-Za-z0-9._-]", "", socket.gethostname())[:24] or "host"
        _Process.generation, _Process.instance, _Process.clients = _Fork.generation, f"{host}:{uuid.uuid4().hex}", 0
    _Process.clients += 1
    return _Process.instance if _Process.clients == 1 else f"{_Process.instance}.{_Process.clients}"


@atexit.register
def _close_all() -> None:
    deadline = time.monotonic() + EXIT_TIMEOUT
    for reporter in list(_OPEN):
        reporter.close(timeout=max(0.0, deadline - time.monotonic()))


class Reporter:
    """The queue and the sender thread of one client (see the module).

    ``url``: the console's ``…/api/v1/runtime/reports``; ``api_key`` its runtime key; ``timeout``
    seconds per request. ``instance`` names the runtime instance in every record (``None``:
    ``default_instance()``, made again in a forked child). ``conversation``
    turns the agent's conversation id into the pseudonym sent. ``beat()`` gives the heartbeat's
    fields of the client as it is now (``None`` once the client is gone). ``max_queue``,
    ``interval``, ``heartbeat_interval`` (seconds; ``0`` = none but those of refreshes and
    close), ``max_backoff``: see the module.
    """

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        instance: str | None,
        client_version: str,
        conversation: Callable[[str | None], str],
        beat: Callable[[], Mapping[str, Any] | None],
        timeout: float,
        max_queue: int = 10_000,
        interval: float = 2.0,
        heartbeat_interval: float = 60.0,
        max_backoff: float = 60.0,
    ) -> None:
        if max_queue < 1:
            raise ValueError(f"the report queue must hold at least 1 record, got {max_queue}")
        self.url, self.api_key, self.timeout = url, api_key, timeout
        self._own_instance = instance
        self.instance, self.client_version = instance or default_instance(), client_version
        self.max_queue, self.interval = max_queue, interval
        self.heartbeat_interval, self.max_backoff = heartbeat_interval, max_backoff
        self._conversation, self._beat = conversation, beat
        #: What was sent: ``batches`` and ``records`` the console answered 200 for, of which
        #: ``stored`` new and ``duplicates``; ``marked`` records; ``retries`` (failed sends),
        #: ``refused`` batches; ``dropped`` records, by why: ``queue_full``, ``refused``, ``unsent``.
        self.stats: Counter[str] = Counter()
        self._start()

    def _start(self) -> None:
        if getattr(self, "_generation", _Fork.generation) != _Fork.generation and self._own_instance is None:
            self.instance = default_instance()  # a forked child is another instance
        self._generation = _Fork.generation
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._queue: deque[tuple[int, Entry | _Ready]] = deque()
        self._inflight: list[tuple[int, Entry | _Ready]] = []
        self._seq = itertools.count(1)
        self._last_seq = 0
        self._dropped = 0  # records lost, in all
        self._untold = 0  # records lost that no heartbeat sent has counted yet
        self._failures = 0  # failed sends in a row
        self._retry_at = 0.0
        self._next_send = time.monotonic() + self.interval
        self._next_beat = time.monotonic() + self.heartbeat_interval if self.heartbeat_interval > 0 else float("inf")
        self._flushing = 0
        self._closing = False
        self._closed = False
        self._full_warned = False
        self._refusals: set[int] = set()
        self._down_since: float | None = None
        self._thread: threading.Thread | None = None
        self.stats.clear()

    # --- the agent's side (cheap, never raises) ----------------------------------------------

    @property
    def dropped(self) -> int:
        """Records dropped since the client was made: the queue full, a batch refused, or unsent
        at close."""
        return self._dropped

    @property
    def pending(self) -> int:
        """Records waiting to be sent or being sent."""
        return len(self._queue) + len(self._inflight)

    def add(self, entry: Entry) -> None:
        """Queue one record (an ``Entry``); when the queue is full, the oldest waiting is dropped."""
        try:
            if self._generation != _Fork.generation:
                self._start()  # a forked child: the parent sends what it queued
            if self._closed or self._closing:
                return
            with self._lock:
                if len(self._queue) + len(self._inflight) >= self.max_queue:
                    if self._queue:
                        self._lose(self._queue.popleft()[1], "queue_full")
                    else:  # all it holds is being sent: this one is the one left out
                        self._lose(entry, "queue_full")
                        return
                    if not self._full_warned:
                        self._full_warned = True
                        LOG.warning(
                            "reports: the queue is full (%d records); dropping the oldest and counting them",
                            self.max_queue,
                        )
                seq = next(self._seq)
                self._last_seq = seq
                self._queue.append((seq, entry))
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="skill-client-reports", daemon=True)
                    self._thread.start()
                    _OPEN.add(self)
                waiting = len(self._queue)
                if waiting == 1 or waiting == REPORT_MAX_RECORDS:  # the first record, a full batch: not every add
                    self._wake.notify()
        except Exception:  # noqa: BLE001 — reporting never breaks a round
            LOG.exception("reports: a record could not be queued")

    def heartbeat(self) -> bool:
        """Queue a heartbeat with the client's state now (after a refresh; the sender adds one every
        ``heartbeat_interval`` seconds); ``False`` when the client is gone."""
        self._next_beat = time.monotonic() + self.heartbeat_interval if self.heartbeat_interval > 0 else float("inf")
        try:
            fields = self._beat()
        except Exception:  # noqa: BLE001 — reporting never breaks a refresh
            LOG.exception("reports: the heartbeat could not be read")
            return True
        if fields is None:
            return False
        self.add(("heartbeat", time.time(), dict(fields)))
        return True

    def flush(self, timeout: float = 10.0) -> bool:
        """Send what is queued now, waiting at most ``timeout`` seconds; ``True`` when every record
        queued before the call has been sent (or dropped), ``False`` when some still wait (the console
        is unreachable: they are sent once it answers)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            target = self._last_seq
            self._flushing += 1
            self._wake.notify()
            try:
                while not self._flushed(target):
                    left = deadline - time.monotonic()
                    if left <= 0 or self._thread is None or not self._thread.is_alive():
                        return self._flushed(target)
                    self._wake.wait(left)
                return True
            finally:
                self._flushing -= 1

    def close(self, timeout: float = 5.0) -> bool:
        """Queue a last heartbeat, send everything and stop the sender, within ``timeout`` seconds;
        ``True`` when nothing was left unsent (what is left is dropped and counted)."""
        if self._closed or self._generation != _Fork.generation:
            return True
        if self._thread is not None and not self._closing:
            self.heartbeat()
        deadline = time.monotonic() + timeout
        with self._lock:
            self._closing = True
            self._wake.notify_all()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            self._closed = True
            left = list(self._queue)
            self._queue.clear()
            for _, entry in left:
                self._lose(entry, "unsent")
            self._wake.notify_all()
        _OPEN.discard(self)
        if left:
            LOG.warning("reports: %d records could not be sent before close and are dropped", len(left))
        return not left and not self._inflight

    def stop(self) -> None:
        """Send what is queued, then stop the sender, without waiting (a client garbage-collected)."""
        with self._lock:
            self._closing = True
            self._wake.notify_all()

    # --- bookkeeping (under the lock) -------------------------------------------------------------

    def _flushed(self, target: int) -> bool:
        if self._inflight and self._inflight[0][0] <= target:
            return False
        return not (self._queue and self._queue[0][0] <= target)

    def _lose(self, entry: Entry | _Ready, why: str) -> None:
        self._dropped += 1
        self._untold += 1 + (entry.dropped if isinstance(entry, _Ready) else 0)  # a heartbeat hands its count on
        self.stats["dropped"] += 1
        self.stats[f"dropped_{why}"] += 1

    # --- the sender thread ----------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            try:
                if not self._step():
                    return
            except Exception:  # noqa: BLE001 — the sender goes on
                LOG.exception("reports: the sender failed; going on")
                time.sleep(1.0)

    def _step(self) -> bool:
        """Wait for something to do, do it; ``False`` when the reporter is closed."""
        with self._lock:
            while True:
                if self._closed:
                    return False
                now = time.monotonic()
                if self._closing and not self._queue:
                    self._closed = True
                    self._wake.notify_all()
                    return False
                if not self._closing and now >= self._next_beat:
                    beat = True
                    break
                urgent = self._closing or self._flushing or len(self._queue) >= REPORT_MAX_RECORDS
                if self._queue and now >= self._retry_at and (urgent or now >= self._next_send):
                    beat = False
                    break
                wake = self._next_beat if not self._closing else float("inf")
                if self._queue:
                    wake = min(wake, max(self._retry_at, now if urgent else self._next_send))
                self._wake.wait(None if wake == float("inf") else max(0.0, wake - now))
        if beat and not self.heartbeat():  # the client is gone: send what it left, then stop
            self.stop()
        if not beat:
            self._send()
        return True

    def _send(self) -> None:
        with self._lock:
            taken = [self._queue.popleft() for _ in range(min(len(self._queue), REPORT_MAX_RECORDS))]
            self._inflight = taken
        batch: list[tuple[int, _Ready]] = []
        back: list[tuple[int, Entry | _Ready]] = []
        size = _BODY_OVERHEAD
        for seq, entry in taken:
            if back:
                back.append((seq, entry))
                continue
            ready = entry if isinstance(entry, _Ready) else self._build(entry)
            if ready is None:
                with self._lock:
                    self._lose(entry, "invalid")
                continue
            grow = len(ready.data) + (1 if batch else 0)
            if size + grow > REPORT_MAX_BATCH_BYTES:
                if not batch:
                    LOG.error("reports: a %s record of %d bytes is over the batch limit; dropped", ready.kind, grow)
                    with self._lock:
                        self._lose(ready, "invalid")
                    continue
                back.append((seq, ready))
                continue
            batch.append((seq, ready))
            size += grow
        with self._lock:
            if self._closed:  # close() gave up meanwhile
                for _, entry in back:
                    self._lose(entry, "unsent")
            else:
                self._queue.extendleft(reversed(back))
            self._inflight = list(batch)
            self._wake.notify_all()
        if not batch:
            with self._lock:
                self._inflight = []
                self._wake.notify_all()
            return
        body = b'{"records":[' + b",".join(r.data for _, r in batch) + b"]}"
        status, headers, data = self._post(body)
        now = time.monotonic()
        with self._lock:
            self._inflight = []
            self._next_send = now + self.interval
            if status == 200:
                self._delivered(batch, data)
            elif status is None or status >= 500 or status in RETRY_STATUSES:
                if self._closed:
                    for _, ready in batch:
                        self._lose(ready, "unsent")
                else:
                    self._queue.extendleft(reversed(batch))
                    self._backoff(now, status, headers, data, len(batch))
            else:
                for _, ready in batch:
                    self._lose(ready, "refused")
                self.stats["refused"] += 1
                # logged once per status until a batch gets through (a console without the endpoint: 404s)
                log = LOG.debug if status in self._refusals else LOG.error
                self._refusals.add(status)
                log(
                    "reports: the console refused a batch of %d records (%s %s); dropped, not sent again",
                    len(batch),
                    status,
                    _message(data),
                )
            self._wake.notify_all()

    def _delivered(self, batch: list[tuple[int, _Ready]], data: bytes) -> None:
        self._failures, self._retry_at, self._full_warned = 0, 0.0, False
        self._refusals.clear()
        if self._down_since is not None:
            LOG.info("reports: the console answers again (after %.1f s)", time.monotonic() - self._down_since)
            self._down_since = None
        self.stats["batches"] += 1
        self.stats["records"] += len(batch)
        try:
            answer = json.loads(data)
            self.stats["stored"] += int(answer.get("stored", 0))
            self.stats["duplicates"] += int(answer.get("duplicates", 0))
            self.stats["marked"] += len(answer.get("marked") or ())
        except (ValueError, TypeError, AttributeError):
            pass

    def _backoff(self, now: float, status: int | None, headers: Any, data: bytes, n: int) -> None:
        self._failures += 1
        self.stats["retries"] += 1
        step = min(self.max_backoff, FIRST_BACKOFF * 2 ** min(self._failures - 1, 30))
        delay = step / 2 + random.uniform(0, step / 2)
        retry_after = _retry_after(headers)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_backoff))
        self._retry_at = now + delay
        what = f"answered {status}" if status is not None else _message(data)
        if self._down_since is None:
            self._down_since = now
            LOG.warning(
                "reports: cannot send %d records (%s); they stay queued, retrying with back-off (next in %.1f s)",
                n,
                what,
                delay,
            )
        else:
            LOG.debug("reports: send failed again (%s); next try in %.1f s", what, delay)

    def _post(self, body: bytes) -> tuple[int | None, Any, bytes]:
        """One ``POST`` of a batch → ``(status, headers, body)``; status ``None`` and the cause as
        the body when there was no answer."""
        request = urllib.request.Request(
            self.url,
            data=body,
            method="POST",
            headers={
                "Authorization": f"Bearer {self.api_key}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, response.headers, response.read(1_000_000)
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, exc.headers, exc.read(100_000)
        except (urllib.error.URLError, HTTPException, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            return None, None, f"cannot reach the console at {self.url}: {reason}".encode()

    # --- records -------------------------------------------------------------------------------

    def _build(self, entry: Entry) -> _Ready | None:
        """The record of a queue entry, encoded (``None``, logged, when it cannot be built)."""
        try:
            kind = entry[0]
            record: dict[str, Any] = {"id": str(uuid.uuid4()), "kind": kind, "at": _time(entry[1])}
            record["instance"] = self.instance
            dropped = 0
            if kind == "round":
                _, _, release, sha256, label, conversation, position, view, tools_chars = entry
                record.update(
                    release=release,
                    sha256=sha256,
                    label=label,
                    conversation=self._conversation(conversation),
                    round=position,
                    loaded=list(view.loaded)[:REPORT_MAX_LIST_ITEMS],
                    masked=list(view.masked)[:REPORT_MAX_LIST_ITEMS],
                    withheld=len(view.withheld),
                    tools_chars=tools_chars,
                    warnings=list(view.warnings)[:REPORT_MAX_LIST_ITEMS],
                )
            elif kind == "call":
                _, _, release, sha256, conversation, position, tool, verdict, reason, skill_code = entry
                record.update(
                    release=release,
                    sha256=sha256,
                    conversation=self._conversation(conversation),
                    round=position,
                    tool=name_of(tool),
                    verdict=verdict,
                    reason=(reason or "refused") if verdict == "refused" else None,
                    skill_code=None if skill_code is None else name_of(skill_code),
                )
            elif kind == "sample":
                _, _, release, sha256, label, conversation, position, redaction, messages = entry
                size = len(json.dumps(messages, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
                if len(messages) > REPORT_SAMPLE_MAX_MESSAGES or size > REPORT_SAMPLE_MAX_BYTES:
                    raise ValueError(f"a sample of {len(messages)} messages, {size} bytes, is over its limits")
                record.update(
                    release=release,
                    sha256=sha256,
                    label=label,
                    conversation=self._conversation(conversation),
                    round=position,
                    redaction=redaction,
                    messages=messages,
                )
            else:
                record.update(client_version=self.client_version, **entry[2])
                with self._lock:
                    dropped, self._untold = self._untold, 0
                record["dropped"] = dropped
            try:
                data = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            except Exception:
                with self._lock:
                    self._untold += dropped
                raise
            return _Ready(kind, data, dropped)
        except Exception:  # noqa: BLE001 — one bad record never stops the others
            LOG.exception("reports: a record could not be built; dropped")
            return None


def _retry_after(headers: Any) -> float | None:
    try:
        value = headers.get("Retry-After") if headers is not None else None
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _message(data: bytes) -> str:
    """The console's error message in an answer, or the start of the body."""
    try:
        error = json.loads(data.decode("utf-8")).get("error") or {}
        return f"{error.get('code')}: {error.get('message')}"
    except (UnicodeDecodeError, ValueError, AttributeError):
        return data[:200].decode("utf-8", "replace")
