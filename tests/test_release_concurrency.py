"""Two publishes at the same instant never share a number nor lose a snapshot (docs/releases.md).

Real threads, each with its own database connection, against the real database (SQLite with WAL and
IMMEDIATE transactions by default; PostgreSQL under ``make test-postgres``)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from skill_rule.snapshot import body_sha256
from skills_app.catalog.demo import demo_load
from skills_app.models import Release
from skills_app.releases.services import COMMAND_LINE, PublishRefused, release_create, release_publish

pytestmark = pytest.mark.django_db(transaction=True)


def _in_threads(*targets):
    """Run each target in its own thread, released together by a barrier; return results/errors."""
    barrier = threading.Barrier(len(targets))
    results: list = [None] * len(targets)

    def run(i, target):
        try:
            barrier.wait(timeout=10)
            results[i] = target()
        except Exception as exc:  # noqa: BLE001 — reported to the test
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, t)) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_two_concurrent_releases_get_consecutive_numbers_and_keep_their_snapshots():
    snapshots = [{"format": 1, "tools": [], "skills": [], "settings": {}, "n": i} for i in range(2)]
    results = _in_threads(
        *[(lambda s=s: release_create(snapshot=s, user=COMMAND_LINE, note=f"thread {s['n']}")) for s in snapshots]
    )
    assert all(isinstance(r, Release) for r in results), results
    assert sorted(r.number for r in results) == [1, 2]
    stored = {r.number: r for r in Release.objects.all()}
    assert len(stored) == 2
    for r in results:
        assert stored[r.number].snapshot == r.snapshot
        assert stored[r.number].sha256 == body_sha256(r.snapshot)
    assert sorted(s["n"] for s in (x.snapshot for x in stored.values())) == [0, 1]


def test_two_concurrent_publishes_of_one_draft_write_one_release():
    demo_load(name="bitmall")
    results = _in_threads(
        lambda: release_publish(user=COMMAND_LINE, note="a"),
        lambda: release_publish(user=COMMAND_LINE, note="b"),
    )
    published = [r for r in results if isinstance(r, Release)]
    refused = [r for r in results if isinstance(r, PublishRefused)]
    assert len(published) == 1 and len(refused) == 1, results
    assert [str(x.message) for x in refused[0].reasons] == ["nothing changed since release 1"]
    assert list(Release.objects.values_list("number", flat=True)) == [1]
