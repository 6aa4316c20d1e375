"""A real task worker for the tests that need one: ``manage.py qcluster`` (django-q2) in a process of
its own, on the test's own database.

The test database is not the one ``console/settings.py`` names: pytest-django renamed it in this
process only (SQLite: a file per test process, ``skill-console-test-<pid>.sqlite3``; PostgreSQL:
``test_<name>``). The worker is pointed at it with the settings' own variables
(``SKILL_CONSOLE_SQLITE`` / ``PGDATABASE``), so it reads and writes the rows the test (and its live
server) see — which takes a test whose writes are committed (``transactional_db``, or
``django_db(transaction=True)``), not one rolled back at its end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def worker_env(**extra: str) -> dict[str, str]:
    """The environment of a process that uses this test's database (and no inline tasks)."""
    from django.conf import settings
    from django.db import connection

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "console.settings",
        "SKILL_CONSOLE_TASKS_INLINE": "0",
        "SKILL_CONSOLE_VAR_DIR": str(settings.VAR_DIR),
        "PYTHONUNBUFFERED": "1",
        # the queue's packages are signed with the secret key: the worker needs this one
        "SKILL_CONSOLE_SECRET_KEY": settings.SECRET_KEY,
    }
    if connection.vendor == "sqlite":
        env["SKILL_CONSOLE_SQLITE"] = connection.settings_dict["NAME"]
    else:
        env["SKILL_CONSOLE_DB"], env["PGDATABASE"] = "postgres", connection.settings_dict["NAME"]
    env.update(extra)
    return env


@contextlib.contextmanager
def task_worker(log: Path, **extra_env: str) -> Iterator[subprocess.Popen]:
    """Run ``manage.py qcluster`` (its output in ``log``) until the block ends; it is then stopped
    with SIGTERM (SIGKILL after 20 s), with every process it started (its own session: a test that
    kills it kills the whole group)."""
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=ROOT,
            env=worker_env(**extra_env),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield proc
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    pass
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the sentinel and its workers too, whatever is left
            proc.wait(5)
