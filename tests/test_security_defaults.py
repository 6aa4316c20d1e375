"""Security defaults (issue 10, item 6; docs/deploy.md): no fixed admin password, files under var/
readable by their owner only from the start, and ``check --deploy`` clean with the documented
production settings."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from skills_app.catalog.demo import catalog_backup
from skills_app.core.private import private_dir, private_file, write_private

ROOT = Path(__file__).resolve().parent.parent


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def no_env_password(monkeypatch):
    monkeypatch.delenv("SKILL_CONSOLE_ADMIN_PASSWORD", raising=False)


def test_ensure_admin_generates_a_password_once_keeps_it_0600_and_prints_it(db, settings, no_env_password):
    first = run("ensure_admin")
    path = Path(settings.VAR_DIR) / "admin_password"
    password = path.read_text().strip()
    assert mode(path) == 0o600 and len(password) >= 20 and password != "admin"
    assert first.splitlines()[0] == f"admin login created: user 'admin', password '{password}' (kept in {path})"
    assert authenticate(username="admin", password=password) is not None
    assert authenticate(username="admin", password="admin") is None
    second = run("ensure_admin")  # the same password, printed again for `make run`
    assert second.splitlines()[0].startswith(f"admin login: user 'admin' (exists; password as first set — '{password}'")
    assert path.read_text().strip() == password


def test_the_environment_password_wins_and_is_neither_stored_nor_printed(db, settings, monkeypatch):
    monkeypatch.setenv("SKILL_CONSOLE_ADMIN_PASSWORD", "from-the-env-123")
    out = run("ensure_admin")
    assert "from-the-env-123" not in out
    assert (
        out.splitlines()[0] == "admin login created: user 'admin', password the value of SKILL_CONSOLE_ADMIN_PASSWORD"
    )
    assert not (Path(settings.VAR_DIR) / "admin_password").exists()
    assert authenticate(username="admin", password="from-the-env-123") is not None


def test_an_existing_login_is_never_changed(db, django_user_model, no_env_password):
    django_user_model.objects.create_superuser(username="admin", email="", password="chosen-by-ops-1")
    run("ensure_admin")
    assert authenticate(username="admin", password="chosen-by-ops-1") is not None


def test_private_files_are_0600_from_the_start_whatever_the_umask(tmp_path):
    old = os.umask(0o000)  # the widest umask: a file made with open() would be 0666
    try:
        made = write_private(tmp_path / "var" / "secret", "s3cret")
        empty = private_file(tmp_path / "var" / "db.sqlite3")
    finally:
        os.umask(old)
    assert mode(made) == 0o600 and mode(empty) == 0o600 and mode(tmp_path / "var") == 0o700
    with pytest.raises(FileExistsError):
        write_private(made, "other", exclusive=True)
    assert made.read_text() == "s3cret"


def test_catalog_backups_are_0600(bitmall, settings):
    path = catalog_backup(directory=Path(settings.VAR_DIR) / "backups", label="t")
    assert mode(path) == 0o600 and mode(path.parent) == 0o700


def test_a_fresh_var_dir_gets_a_0600_secret_key_and_database(tmp_path):
    """A new process on an empty var/: settings make the secret key and the SQLite file 0600."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKILL_CONSOLE_", "PG"))}
    env["SKILL_CONSOLE_VAR_DIR"] = str(tmp_path / "var")
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    var = tmp_path / "var"
    assert mode(var) == 0o700 and mode(var / "static") == 0o700
    for name in ("secret_key", "db.sqlite3"):
        assert mode(var / name) == 0o600, name
    for extra in var.glob("db.sqlite3-*"):  # WAL files take the database file's mode
        assert mode(extra) == 0o600, extra


def test_an_existing_wide_var_dir_is_narrowed_at_start(tmp_path):
    """A var/ an older version (or a hand with umask 022) left 0755, its files 0644: the next
    start (here ``migrate``) narrows it and what lies directly in it; nothing else changes."""
    var = tmp_path / "var"
    for folder in (var, var / "backups", var / "runtime", var / "bench"):
        folder.mkdir(parents=True)
        folder.chmod(0o755)
    for name, text in (("secret_key", "k" * 50), ("admin_password", "p" * 24), ("backups/old-bitmall.json", "[]")):
        (var / name).write_text(text)
        (var / name).chmod(0o644)
    (var / "runtime" / "note").symlink_to(tmp_path)  # a link is never followed (lchmod does not exist)
    tmp_path.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKILL_CONSOLE_", "PG"))}
    env["SKILL_CONSOLE_VAR_DIR"] = str(var)
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    for folder in (var, var / "backups", var / "runtime", var / "bench", var / "static"):
        assert mode(folder) == 0o700, folder
    for name in ("secret_key", "admin_password", "db.sqlite3"):
        assert mode(var / name) == 0o600, name
    assert (var / "secret_key").read_text() == "k" * 50  # narrowed, not rewritten
    assert mode(var / "backups" / "old-bitmall.json") == 0o644  # below the first level: its folder closes it
    assert mode(tmp_path) == 0o755  # var/'s parent is not ours to change


def test_ensure_admin_and_backups_narrow_their_existing_folders(db, settings, no_env_password, bitmall):
    var = Path(settings.VAR_DIR)
    (var / "backups").mkdir(parents=True)
    for folder in (var, var / "backups"):
        folder.chmod(0o755)
    run("ensure_admin")
    assert mode(var) == 0o700 and mode(var / "admin_password") == 0o600
    path = catalog_backup(directory=var / "backups", label="t")
    assert mode(var / "backups") == 0o700 and mode(path) == 0o600


def test_private_dir_makes_missing_parents_0700_and_leaves_existing_ones(tmp_path):
    tmp_path.chmod(0o755)
    old = os.umask(0o000)
    try:
        made = private_dir(tmp_path / "a" / "b")
    finally:
        os.umask(old)
    assert mode(tmp_path / "a") == 0o700 and mode(made) == 0o700 and mode(tmp_path) == 0o755
    made.chmod(0o750)
    assert mode(private_dir(made)) == 0o700 and mode(tmp_path) == 0o755
    lone = private_file(made / "db.sqlite3")
    lone.chmod(0o640)
    assert mode(private_file(lone)) == 0o600


#: docs/deploy.md's production block, read from the doc itself so the two never drift apart.
def documented_production_env() -> dict[str, str]:
    text = (ROOT / "docs" / "deploy.md").read_text()
    block = re.search(r"```sh\n# production\.env[^\n]*\n(.*?)```", text, re.S)
    assert block, "docs/deploy.md has no production.env block"
    pairs = [line.split("=", 1) for line in block.group(1).splitlines() if "=" in line and not line.startswith("#")]
    return {k.strip(): v.strip() for k, v in pairs}


def _check_deploy(extra: dict[str, str], tmp_path) -> subprocess.CompletedProcess:
    # the browser tests set DJANGO_ALLOW_ASYNC_UNSAFE in this process (Playwright's event loop); a
    # deployment never has it, and check --deploy rightly refuses it (async.E001)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("SKILL_CONSOLE_") and k != "DJANGO_ALLOW_ASYNC_UNSAFE"
    }
    env.update({"SKILL_CONSOLE_VAR_DIR": str(tmp_path / "var"), **extra})
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_check_deploy_is_clean_with_the_documented_production_settings(tmp_path):
    production = documented_production_env()
    assert {
        "SKILL_CONSOLE_SSL_REDIRECT",
        "SKILL_CONSOLE_HSTS_SECONDS",
        "SKILL_CONSOLE_SECURE_COOKIES",
        "SKILL_CONSOLE_CSRF_TRUSTED_ORIGINS",
        "SKILL_CONSOLE_PROXY_SSL_HEADER",
    } <= set(production)
    done = _check_deploy(production, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (0 silenced)." in done.stdout
    without = _check_deploy({}, tmp_path)  # the laptop defaults: each HTTPS warning is there
    assert without.returncode != 0
    for code in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert code in without.stdout + without.stderr, code


def test_the_production_settings_take_effect(tmp_path):
    code = (
        "from django.conf import settings as s; print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS, "
        "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.CSRF_TRUSTED_ORIGINS, s.SECURE_PROXY_SSL_HEADER)"
    )
    # the browser tests set DJANGO_ALLOW_ASYNC_UNSAFE in this process (Playwright's event loop); a
    # deployment never has it, and check --deploy rightly refuses it (async.E001)
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("SKILL_CONSOLE_") and k != "DJANGO_ALLOW_ASYNC_UNSAFE"
    }
    env.update({"SKILL_CONSOLE_VAR_DIR": str(tmp_path / "var"), **documented_production_env()})
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.stdout.strip().splitlines()[-1] == (
        "True 31536000 True True ['https://console.example.com'] ('HTTP_X_FORWARDED_PROTO', 'https')"
    ), done.stderr


def test_the_printed_curl_example_names_the_url_make_run_serves(db):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("ensure_admin", "--url", "http://127.0.0.1:8765/", stdout=out)
    lines = [line for line in out.getvalue().splitlines() if "try: curl" in line]
    assert len(lines) == 1 and lines[0].endswith(" http://127.0.0.1:8765/api/v1/runtime/catalog")
