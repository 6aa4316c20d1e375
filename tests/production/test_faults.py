"""Faults of a real dependency (docs/deploy.md, "Faults"): PostgreSQL at a closed port, the
database renamed away under a running server (and back), Redis at a closed port, stopped, and
started again. Console pages answer the friendly 503 page (both languages), JSON endpoints answer
JSON, ``/healthz`` says which part is down, and everything recovers without a restart."""

from __future__ import annotations

import requests

from tests.production.conftest import ADMIN_PASSWORD
from tests.production.servers import Gunicorn, RedisServer, free_port, login, pg_rename

CATALOG = "/api/v1/runtime/catalog"


def _is_json(response: requests.Response) -> bool:
    return response.headers.get("Content-Type", "").startswith("application/json")


def _assert_503_page(response: requests.Response, heading: str) -> None:
    assert response.status_code == 503
    assert response.headers["Content-Type"].startswith("text/html")
    assert response.headers["Retry-After"] == "5"
    assert 'data-error-page="503"' in response.text and heading in response.text


def test_postgresql_at_a_closed_port(seeded, app_env, tmp_path):
    env = {**app_env, "PGPORT": str(free_port())}
    server = Gunicorn(env, tmp_path / "gunicorn.log").start()
    try:
        browser = requests.Session()
        # Anonymous: to the login page (no database needed); the login page itself renders.
        assert server.get("/skills/").status_code == 302
        assert server.get("/accounts/login/").status_code == 200
        # Logging in needs the database: the 503 page, not "Something went wrong".
        _assert_503_page(login(browser, server, "admin", ADMIN_PASSWORD), "无法连接数据库")
        # A page with a session (read from the database): the 503 page in the user's language.
        cookie = {"sessionid": "x" * 32}
        _assert_503_page(
            server.get("/skills/", cookies=cookie, headers={"Accept-Language": "en"}), "The database cannot be reached"
        )
        _assert_503_page(
            server.get("/skills/", cookies=cookie, headers={"Accept-Language": "zh-hans"}), "无法连接数据库"
        )

        api = server.get(CATALOG, headers={"Authorization": f"Bearer {seeded['key']}"})
        assert api.status_code == 503 and _is_json(api)
        assert api.json()["error"]["code"] == "database_unavailable"
        for path in ("/api/v1/nope", "/api/", "/api/v2/x"):
            response = server.get(path)
            assert response.status_code == 404 and _is_json(response), path

        health = server.get("/healthz")
        assert health.status_code == 503
        assert health.json() == {
            "status": "unavailable",
            "database": {"ok": False, "vendor": "postgresql", "error": "OperationalError"},
            "cache": {"ok": True, "backend": "redis"},
        }
    finally:
        server.stop()
    assert ADMIN_PASSWORD not in (tmp_path / "gunicorn.log").read_text()


def test_the_database_renamed_away_and_back(seeded, app_env, tmp_path):
    name = app_env["PGDATABASE"]
    server = Gunicorn(app_env, tmp_path / "gunicorn.log").start()
    key = {"Authorization": f"Bearer {seeded['key']}"}
    try:
        browser = requests.Session()
        assert login(browser, server, "admin", ADMIN_PASSWORD).status_code == 302
        assert browser.get(server.url + "/skills/", timeout=30).status_code == 200
        assert server.get(CATALOG, headers=key).status_code == 200

        pg_rename(name, f"{name}_gone")  # every connection is cut; reconnecting finds no database
        try:
            page = browser.get(
                server.url + "/skills/", timeout=30, headers={"Accept-Language": "en"}, allow_redirects=False
            )
            _assert_503_page(page, "The database cannot be reached")
            api = server.get(CATALOG, headers=key)
            # JSON either way: 503, or the last release the runtime holds (marked stale).
            assert _is_json(api) and api.status_code in (200, 503), api.text[:300]
            if api.status_code == 503:
                assert api.json()["error"]["code"] == "database_unavailable"
            rounds = requests.post(
                server.url + "/api/v1/runtime/rounds", json={"messages": []}, headers=key, timeout=30
            )
            assert _is_json(rounds) and rounds.status_code in (200, 503)
            health = server.get("/healthz")
            assert health.status_code == 503 and health.json()["database"]["ok"] is False
        finally:
            pg_rename(f"{name}_gone", name)

        # Back without a restart: the same session works again.
        assert browser.get(server.url + "/skills/", timeout=30, allow_redirects=False).status_code == 200
        assert server.get(CATALOG, headers=key).status_code == 200
        assert server.get("/healthz").status_code == 200
    finally:
        server.stop()


def test_redis_at_a_closed_port_then_started_then_stopped(seeded, app_env, tmp_path):
    port = free_port()
    env = {**app_env, "SKILL_CONSOLE_REDIS_URL": f"redis://127.0.0.1:{port}/0"}
    server = Gunicorn(env, tmp_path / "gunicorn.log").start()
    redis = RedisServer(port)
    key = {"Authorization": f"Bearer {seeded['key']}"}
    try:
        # Nothing listens at the port: the cache is a miss, sessions live in the database.
        health = server.get("/healthz")
        assert health.status_code == 503
        assert health.json()["database"]["ok"] is True
        assert health.json()["cache"] == {"ok": False, "backend": "redis", "error": "ConnectionError"}
        browser = requests.Session()
        assert login(browser, server, "admin", ADMIN_PASSWORD).status_code == 302
        assert browser.get(server.url + "/skills/", timeout=30, allow_redirects=False).status_code == 200
        catalog = server.get(CATALOG, headers=key)
        assert catalog.status_code == 200 and catalog.json()["release"] == 1

        redis.start()
        assert server.get("/healthz").status_code == 200
        assert browser.get(server.url + "/skills/", timeout=30, allow_redirects=False).status_code == 200
        assert server.get(CATALOG, headers=key).status_code == 200

        redis.stop()  # stopped while the server runs: the open connections break
        health = server.get("/healthz")
        assert health.status_code == 503 and health.json()["cache"]["ok"] is False
        assert browser.get(server.url + "/skills/", timeout=30, allow_redirects=False).status_code == 200
        assert server.get(CATALOG, headers=key).status_code == 200
        other = requests.Session()
        assert login(other, server, "admin", ADMIN_PASSWORD).status_code == 302
        assert other.get(server.url + "/scenarios/", timeout=30, allow_redirects=False).status_code == 200
    finally:
        server.stop()
        redis.stop()
    log = (tmp_path / "gunicorn.log").read_text()
    assert "Redis unreachable" in log and ADMIN_PASSWORD not in log
