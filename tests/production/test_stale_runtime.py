"""The runtime with its database gone (docs/runtime-api.md, "When the database is down"): gunicorn on
a real PostgreSQL database renamed away, Redis real or at a closed port. The runtime answers from
the last release it holds — this process's memory, then Redis, then ``var/runtime/<selector>.json``
— marked ``X-Skill-Console-Stale: 1`` with ``X-Skill-Console-Release``; with nothing held it answers
the JSON 503 ``database_unavailable``; API keys are still verified (a wrong one is refused)."""

from __future__ import annotations

import stat
from pathlib import Path

import requests

from tests.production.servers import Gunicorn, free_port, pg_rename

CATALOG = "/api/v1/runtime/catalog"
ROUNDS = "/api/v1/runtime/rounds"
#: The demo's order_change manual (release 1): only a whole published manual loads a skill.
MANUAL = (Path(__file__).resolve().parents[2] / "skills_app/demo/bitmall/manuals/order_change.md").read_text(
    encoding="utf-8"
)
LOAD = [
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": "order_change"}}],
    },
    {
        "role": "tool",
        "tool_call_id": "c1",
        "content": MANUAL,
        "state": "success",
        "metadata": {"ragent_loaded_skill": "order_change", "skill_version": 1},
    },
]


def _is_json(response: requests.Response) -> bool:
    return response.headers.get("Content-Type", "").startswith("application/json")


def _stale(response: requests.Response, status: int = 200) -> requests.Response:
    assert response.status_code == status, response.text[:300]
    assert response.headers["X-Skill-Console-Stale"] == "1"
    assert response.headers["X-Skill-Console-Release"] == "1"
    return response


def _unavailable(response: requests.Response) -> None:
    assert response.status_code == 503 and _is_json(response), response.text[:300]
    assert response.json()["error"]["code"] == "database_unavailable"
    assert set(response.json()["error"]) == {"code", "message", "details"}
    assert "X-Skill-Console-Stale" not in response.headers


def test_the_runtime_answers_the_last_release_it_holds_while_the_database_is_gone(seeded, app_env, tmp_path):
    # A lookup TTL of 0: every request asks the database which release is current (no cached pointer).
    env = {**app_env, "SKILL_CONSOLE_RUNTIME_LOOKUP_TTL": "0"}
    name = env["PGDATABASE"]
    key = {"Authorization": f"Bearer {seeded['key']}"}
    wrong = {"Authorization": f"Bearer {seeded['key'][:9]}{'x' * (len(seeded['key']) - 9)}"}
    server = Gunicorn(env, tmp_path / "gunicorn.log").start()
    try:
        fresh = server.get(CATALOG, headers=key)
        assert fresh.status_code == 200 and fresh.json()["release"] == 1
        assert fresh.headers["X-Skill-Console-Release"] == "1" and "X-Skill-Console-Stale" not in fresh.headers
        etag = fresh.headers["ETag"]
        assert requests.post(server.url + ROUNDS, json={"messages": []}, headers=key, timeout=30).status_code == 200
        held = tmp_path / "var" / "runtime"
        for file in ("default.json", "keys"):
            assert stat.S_IMODE((held / file).stat().st_mode) == 0o600, file

        pg_rename(name, f"{name}_gone")
        try:
            # From this process's memory: the same bytes, the same ETag, marked stale.
            stale = _stale(server.get(CATALOG, headers=key))
            assert stale.content == fresh.content and stale.headers["ETag"] == etag
            _stale(server.get(CATALOG, headers={**key, "If-None-Match": etag}), 304)
            rounds = _stale(requests.post(server.url + ROUNDS, json={"messages": LOAD}, headers=key, timeout=30))
            assert rounds.json()["loaded"] == ["order_change"] and rounds.json()["count"] == 13
            skill = _stale(server.get("/api/v1/runtime/skills/order_change", headers=key))
            assert skill.json()["code"] == "order_change"
            # A key is still verified: a wrong secret with a known prefix, and no key at all, are refused.
            refused = server.get(CATALOG, headers=wrong)
            assert refused.status_code == 401 and _is_json(refused)
            assert refused.json()["error"]["code"] == "authentication_failed"
            assert server.get(CATALOG).status_code in (401, 403, 503)
            # A selector this runtime never answered: nothing held for it.
            _unavailable(server.get(CATALOG, headers=key, params={"label": "canary"}))

            # A new process (nothing in memory): the last release from Redis.
            second = Gunicorn(env, tmp_path / "second.log").start()
            try:
                assert _stale(second.get(CATALOG, headers=key)).content == fresh.content
            finally:
                second.stop()
            # A new process with Redis gone too: from var/runtime (the keys as well).
            third = Gunicorn(
                {**env, "SKILL_CONSOLE_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"}, tmp_path / "third.log"
            ).start()
            try:
                assert _stale(third.get(CATALOG, headers=key)).content == fresh.content
                assert third.get(CATALOG, headers=wrong).status_code == 401
            finally:
                third.stop()
        finally:
            pg_rename(f"{name}_gone", name)

        back = server.get(CATALOG, headers=key)
        assert back.status_code == 200 and "X-Skill-Console-Stale" not in back.headers
    finally:
        server.stop()
    log = (tmp_path / "gunicorn.log").read_text()
    assert seeded["key"] not in log


def test_with_nothing_held_the_runtime_answers_the_json_503(seeded, app_env, tmp_path):
    env = {**app_env, "PGPORT": str(free_port())}
    server = Gunicorn(env, tmp_path / "gunicorn.log").start()
    try:
        key = {"Authorization": f"Bearer {seeded['key']}"}
        _unavailable(server.get(CATALOG, headers=key))
        _unavailable(requests.post(server.url + ROUNDS, json={"messages": []}, headers=key, timeout=30))
        assert server.get(CATALOG, headers=key).headers["Retry-After"] == "5"
    finally:
        server.stop()
