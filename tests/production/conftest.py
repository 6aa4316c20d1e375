"""The production tests start real gunicorn processes against a real PostgreSQL and Redis. They
run in the PostgreSQL suite (``make test-postgres``, which ``.ci/run`` runs) and are skipped in the
SQLite one. Each test gets its own copy of a database migrated and seeded once per module."""

from __future__ import annotations

import os
import re
import uuid

import pytest

from tests.production.servers import PG, REDIS_HOST, REDIS_PORT, child_env, manage, pg_database, reachable

ADMIN_PASSWORD = "prod-test-" + uuid.uuid4().hex[:12]


def pytest_collection_modifyitems(config, items):
    reason = None
    if os.environ.get("SKILL_CONSOLE_DB") != "postgres":
        reason = "starts gunicorn on PostgreSQL and Redis: runs under make test-postgres"
    elif not reachable(PG["host"], PG["port"]):
        reason = f"PostgreSQL is not reachable at {PG['host']}:{PG['port']}"
    elif not reachable(REDIS_HOST, REDIS_PORT):
        reason = f"Redis is not reachable at {REDIS_HOST}:{REDIS_PORT}"
    if reason:
        here = os.path.dirname(__file__)
        for item in items:
            if str(item.fspath).startswith(here):
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A PostgreSQL database migrated, with the bitmall demo published as release 1, the admin
    login (password ``ADMIN_PASSWORD``) and a runtime API key: ``{"name", "key"}``."""
    var = tmp_path_factory.mktemp("seed-var")
    with pg_database() as name:
        env = child_env(
            SKILL_CONSOLE_DB="postgres",
            PGDATABASE=name,
            PGHOST=PG["host"],
            PGPORT=PG["port"],
            PGUSER=PG["user"],
            SKILL_CONSOLE_VAR_DIR=var,
            SKILL_CONSOLE_ADMIN_PASSWORD=ADMIN_PASSWORD,
        )
        manage(env, "migrate", "--noinput", "-v0")
        manage(env, "load_demo")
        manage(env, "ensure_admin")
        out = manage(env, "api_key", "create", "prod-test")
        key = re.search(r"\b([A-Za-z0-9]{8}\.[A-Za-z0-9]{20,})\b", out).group(1)
        yield {"name": name, "key": key}


@pytest.fixture
def app_env(seeded, tmp_path):
    """The environment of an app process on a fresh copy of the seeded database and its own Redis
    key prefix (``SKILL_CONSOLE_REDIS_URL`` at the machine's Redis); ``var`` shared by the processes."""
    with pg_database(template=seeded["name"]) as name:
        var = tmp_path / "var"
        yield child_env(
            SKILL_CONSOLE_DB="postgres",
            PGDATABASE=name,
            PGHOST=PG["host"],
            PGPORT=PG["port"],
            PGUSER=PG["user"],
            SKILL_CONSOLE_VAR_DIR=var,
            SKILL_CONSOLE_REDIS_URL=f"redis://{REDIS_HOST}:{REDIS_PORT}/0",
            SKILL_CONSOLE_CACHE_PREFIX=f"sc-test-{uuid.uuid4().hex[:8]}",
        )
