"""Shared fixtures: the demo catalogs loaded through the real services, and logged-in clients."""

from __future__ import annotations

import os
import tempfile

import pytest

from skills_app.catalog.demo import demo_load

#: Set in the process that built the migrated template database of a ``--reuse-db`` run (below);
#: a process forked from it (mutmut's one per mutant) inherits it with the environment.
TEMPLATE_DB_ENV = "SKILL_CONSOLE_TEST_TEMPLATE_DB"


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, django_db_blocker, request):
    """One SQLite test database file per process (console/settings.py names it by pid when the
    settings are read), also in a process forked after that, as mutmut forks one per mutant
    (docs/testing.md): two forks at once never share, nor drop, one file.

    With ``--reuse-db`` (only mutation runs pass it: ``[tool.mutmut]`` in pyproject.toml) that file
    starts as a copy of a template the first such session of the process tree migrated; Django then
    runs ``migrate`` on it as on any kept database (nothing left to apply) instead of building it
    from the migrations again, and the copy is removed when the session ends."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    own = None
    if db["ENGINE"].endswith("sqlite3") and not os.environ.get("SKILL_CONSOLE_TEST_SQLITE"):
        own = os.path.join(tempfile.gettempdir(), f"skill-console-test-{os.getpid()}.sqlite3")
        db.setdefault("TEST", {})["NAME"] = own
        if request.config.getoption("reuse_db"):
            _remove_sqlite(own)
            _copy_sqlite(_template_db(django_db_blocker), own)
        else:
            own = None
    yield
    if own:
        from django.db import connections

        connections.close_all()
        _remove_sqlite(own)


def _template_db(django_db_blocker) -> str:
    """The path of a test database freshly built by the migrations (Django's ``create_test_db``,
    as pytest-django builds one), built once per process tree: the first call makes it and names
    it in ``TEMPLATE_DB_ENV``; the process that built it removes it when it exits."""
    import atexit

    from django.db import connection

    path = os.environ.get(TEMPLATE_DB_ENV, "")
    if path and os.path.exists(path):
        return path
    path = os.path.join(tempfile.gettempdir(), f"skill-console-test-template-{os.getpid()}.sqlite3")
    _remove_sqlite(path)
    test, name = connection.settings_dict["TEST"], connection.settings_dict["NAME"]
    own_name, test["NAME"] = test.get("NAME"), path
    try:
        with django_db_blocker.unblock():
            connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
            connection.creation.destroy_test_db(name, verbosity=0, keepdb=True)  # closes, keeps the file
    finally:
        test["NAME"] = own_name
    os.environ[TEMPLATE_DB_ENV] = path
    builder = os.getpid()
    atexit.register(lambda: os.getpid() == builder and _remove_sqlite(path))
    return path


def _copy_sqlite(source: str, target: str) -> None:
    """Copy an SQLite database with SQLite's backup (whatever of it is still in a ``-wal`` file too)."""
    import sqlite3

    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def _remove_sqlite(path: str) -> None:
    for leftover in (path, f"{path}-wal", f"{path}-shm", f"{path}-journal"):
        if os.path.exists(leftover):
            os.remove(leftover)


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    """PBKDF2 costs ~0.3 s per user; tests are not about password hashing."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_login_throttle(settings):
    """django-axes counts failed logins; tests that log in many times must not lock each other out.
    ``tests/test_login_throttle.py`` turns it back on."""
    settings.AXES_ENABLED = False


@pytest.fixture(autouse=True)
def _tasks_inline(settings):
    """Background tasks (skills_app/mcp/tasks.py) run at once in the process that queues them
    (django-q2's ``sync`` mode), so a view test reads the outcome in its response.
    ``tests/browser/test_sync_worker.py`` and ``tests/mcp/test_tasks.py`` turn it off and run a
    real worker."""
    settings.SKILL_CONSOLE_TASKS_INLINE = True


@pytest.fixture(autouse=True)
def _private_var_dir(settings, tmp_path):
    """Backups and other files written under VAR_DIR go to the test's own folder."""
    settings.VAR_DIR = tmp_path / "var"


@pytest.fixture
def bitmall(db):
    """The bitmall demo catalog (seed 000) in the test database."""
    return demo_load(name="bitmall")


@pytest.fixture
def bitmall_nothing_kept():
    """The bitmall demo catalog with this process's kept draft values and pages dropped before and
    after the test (``draft_cache``; for ``transaction=True`` tests, where pages are kept)."""
    from skills_app.catalog import draft_cache

    draft_cache.draft_forget()
    demo_load(name="bitmall")
    yield
    draft_cache.draft_forget()


@pytest.fixture
def returns(db):
    """The returns demo catalog (seed 004) in the test database."""
    return demo_load(name="returns")


def user_with_role(django_user_model, username: str, role: str, password: str | None = None):
    """A user in the group ``role`` (viewer / editor / publisher, docs/roles.md)."""
    from skills_app.core.roles import assign

    user = django_user_model.objects.create_user(username=username, password=password or f"{username}-pass-123")
    assign(user, role)
    return user


@pytest.fixture
def staff_user(db, django_user_model):
    """A console user with the publisher role (may do everything but the Django admin)."""
    return user_with_role(django_user_model, "ops", "publisher", "ops-pass-123")


@pytest.fixture
def staff_client(client, staff_user):
    """A Django test client logged in as a publisher."""
    client.force_login(staff_user)
    return client


@pytest.fixture
def runtime_key(db):
    """A runtime API key (``releases.api_key_create``): ``.key`` is the secret, ``.record`` the row."""
    from skills_app.keys.services import api_key_create
    from skills_app.releases.services import COMMAND_LINE

    return api_key_create(user=COMMAND_LINE, name="test-runtime")


@pytest.fixture
def api_client(runtime_key):
    """A DRF client sending a runtime API key (``Authorization: Bearer <key>``)."""
    from rest_framework.test import APIClient

    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Bearer {runtime_key.key}")
    return c


@pytest.fixture(autouse=True)
def _fresh_runtime_cache():
    """The runtime lookups and the scenario results live in Django's cache and each process's
    release LRU (skills_app/runtime/cache.py, scenario_results.py): every test starts with both
    empty, as a new process would (a local-memory cache is cleared; a shared Redis never is — its
    lookups are made obsolete, and scenario result keys carry the catalog digest)."""
    from django.conf import settings
    from django.core.cache import cache

    from skills_app.runtime import cache as runtime_cache
    from skills_app.simulation import results as scenario_results

    if settings.CACHES["default"]["BACKEND"].endswith("LocMemCache"):
        cache.clear()
    else:  # a shared Redis (SKILL_CONSOLE_REDIS_URL set): never flush it, make the lookups obsolete
        runtime_cache.bump_generation()
        cache.delete(runtime_cache.KEYS_KEY)
    runtime_cache.clear_process_cache()
    scenario_results.forget()
    yield
    runtime_cache.clear_process_cache()
    scenario_results.forget()
