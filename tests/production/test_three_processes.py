"""Three app processes (gunicorn), one PostgreSQL database, one Redis — the scale-out of
docs/deploy.md. A change made through one process is what the others serve on their next request:
the session made at one is honoured by the others, a publish through one is the catalog of all,
a label move through another is too. And no secret reaches the servers' logs."""

from __future__ import annotations

import requests

from tests.production.conftest import ADMIN_PASSWORD
from tests.production.servers import Gunicorn, login, post_form

CATALOG = "/api/v1/runtime/catalog"


def _catalog(server: Gunicorn, key: str, etag: str | None = None) -> requests.Response:
    headers = {"Authorization": f"Bearer {key}"}
    if etag:
        headers["If-None-Match"] = etag
    return server.get(CATALOG, headers=headers)


def test_a_publish_and_a_label_move_through_one_process_are_served_by_all(seeded, app_env, tmp_path):
    key = seeded["key"]
    servers = [Gunicorn(app_env, tmp_path / f"gunicorn-{i}.log") for i in range(3)]
    try:
        for server in servers:
            server.start()
        first = [_catalog(s, key) for s in servers]
        assert [r.status_code for r in first] == [200, 200, 200]
        assert {r.json()["release"] for r in first} == {1}
        etag_1 = first[0].headers["ETag"]
        assert {r.headers["ETag"] for r in first} == {etag_1}
        assert [_catalog(s, key, etag_1).status_code for s in servers] == [304, 304, 304]

        # Log in through process 0; the session is honoured by 1 and 2 (one database, one Redis).
        browser = requests.Session()
        assert login(browser, servers[0], "admin", ADMIN_PASSWORD).status_code == 302
        assert all(
            browser.get(s.url + "/skills/", timeout=30, allow_redirects=False).status_code == 200 for s in servers
        )

        # Change the draft through process 1, publish through process 2.
        assert post_form(browser, servers[1], "/skills/iot_bundle/enabled", {"enabled": "0"}).status_code == 302
        published = post_form(browser, servers[2], "/publish/", {"note": "iot_bundle off", "move_production": "1"})
        assert published.status_code == 302 and published.headers["Location"] == "/releases/2/"

        # Every process serves release 2 on its very next request; the old ETag no longer matches.
        second = [_catalog(s, key, etag_1) for s in servers]
        assert [r.status_code for r in second] == [200, 200, 200]
        assert {r.json()["release"] for r in second} == {2}
        assert all("iot_bundle" not in [sk["code"] for sk in r.json()["skills"]] for r in second)
        etag_2 = second[0].headers["ETag"]
        assert etag_2 != etag_1 and {r.headers["ETag"] for r in second} == {etag_2}

        # Move the production label back to release 1 through process 0: all serve release 1 again.
        moved = post_form(browser, servers[0], "/releases/labels", {"label": "production", "release": "1"})
        assert moved.status_code == 302
        third = [_catalog(s, key, etag_2) for s in servers]
        assert [r.status_code for r in third] == [200, 200, 200]
        assert {r.json()["release"] for r in third} == {1}
        assert {r.headers["ETag"] for r in third} == {etag_1}
        # The health check of each: database and Redis answer.
        for s in servers:
            health = s.get("/healthz")
            assert health.status_code == 200
            assert health.json() == {
                "status": "ok",
                "database": {"ok": True, "vendor": "postgresql"},
                "cache": {"ok": True, "backend": "redis"},
            }
    finally:
        for server in servers:
            server.stop()
    # Secrets never reach the logs: not the API key, the admin password, the session or the secret key.
    logs = "".join(p.read_text(errors="replace") for p in tmp_path.glob("gunicorn-*.log"))
    assert CATALOG in logs  # the access log is there …
    secret_key = (tmp_path / "var" / "secret_key").read_text().strip()
    for secret in (key, key.split(".")[1], ADMIN_PASSWORD, browser.cookies.get("sessionid"), secret_key):
        assert secret and secret not in logs  # … without any secret
