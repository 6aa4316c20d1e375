"""The runtime reads from the release, cached (docs/runtime-api.md, "Caching"): a 304 from the ETag
alone, a 200 from the stored body, one ``Catalog`` per release and process, and every publish,
label move and rollback seen on the very next request."""

from __future__ import annotations

import json
import stat

from django.conf import settings
from django.core.cache import cache

from skill_rule.snapshot import body_sha256
from skills_app.catalog import services
from skills_app.models import Release
from skills_app.releases.services import COMMAND_LINE, label_move, release_rollback
from skills_app.runtime import cache as runtime_cache
from tests.api.support import CATALOG, ROUNDS, loaded, publish, skill_url


def _warm(client) -> str:
    response = client.get(CATALOG)
    assert response.status_code == 200
    return response["ETag"]


def test_a_warm_304_runs_only_the_key_lookup(bitmall, api_client, django_assert_max_num_queries):
    etag = _warm(api_client)
    with django_assert_max_num_queries(1):  # the API key; which release is current comes from the cache
        response = api_client.get(CATALOG, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 304
    assert response["ETag"] == etag == f'"{Release.objects.get(number=1).sha256}"'
    assert response["X-Skill-Console-Release"] == "1"
    assert "X-Skill-Console-Stale" not in response


def test_a_warm_200_is_the_stored_body_without_a_query_for_the_release(
    bitmall, api_client, django_assert_max_num_queries
):
    _warm(api_client)
    with django_assert_max_num_queries(1):
        response = api_client.get(CATALOG)
    stored = Release.objects.get(number=1).catalog_json
    assert response.content == stored.encode("utf-8")
    body = json.loads(stored)
    assert body["release"] == 1
    assert body["sha256"] == body_sha256({k: v for k, v in body.items() if k != "sha256"})
    assert response["Content-Type"] == "application/json"


def test_the_other_endpoints_reuse_one_catalog_per_release_and_process(
    bitmall, api_client, django_assert_max_num_queries
):
    first = api_client.post(ROUNDS, {"messages": loaded("order_change")}, format="json")
    assert first.status_code == 200 and first.json()["loaded"] == ["order_change"]
    pointer = runtime_cache.lookup()
    catalog = runtime_cache.cached_entry(pointer).catalog
    with django_assert_max_num_queries(2):  # two requests: the API key of each, nothing else
        assert api_client.get(skill_url("order_change")).json()["version"] == catalog.skill("order_change").version
        assert api_client.post(ROUNDS, {"messages": []}, format="json").json()["count"] == 11
    assert runtime_cache.cached_entry(pointer).catalog is catalog


def test_a_publish_is_seen_on_the_next_request(bitmall, api_client):
    etag = _warm(api_client)
    services.skill_create(
        skill_code="gift_wrap",
        name="礼品包装",
        description="gift wrapping",
        content="# wrap",
        tool_ids=["query_cart"],
        sort_order=90,
    )
    assert publish() == 2
    response = api_client.get(CATALOG, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response.json()["release"] == 2
    assert "gift_wrap" in [s["code"] for s in response.json()["skills"]]
    assert api_client.get(skill_url("gift_wrap")).json()["release"] == 2


def test_a_label_move_and_a_rollback_are_seen_on_the_next_request(bitmall, api_client):
    services.skill_create(
        skill_code="gift_wrap",
        name="礼品包装",
        description="gift wrapping",
        content="# wrap",
        tool_ids=["query_cart"],
        sort_order=90,
    )
    publish()
    label_move(user=COMMAND_LINE, label="production", number=2)
    assert api_client.get(CATALOG).json()["release"] == 2
    assert api_client.get(CATALOG, {"label": "production"}).json()["release"] == 2
    label_move(user=COMMAND_LINE, label="production", number=1)
    assert api_client.get(CATALOG).json()["release"] == 1
    assert api_client.get(CATALOG, {"label": "production"}).json()["release"] == 1
    release_rollback(user=COMMAND_LINE, number=1, note="back to 1")  # release 3, production moves to it
    response = api_client.get(CATALOG)
    assert response.json()["release"] == 3 and response["X-Skill-Console-Release"] == "3"


def test_every_write_of_a_release_or_a_label_bumps_the_generation(bitmall):
    before = runtime_cache.generation()
    assert isinstance(before, int)
    services.skill_create(
        skill_code="gift_wrap",
        name="礼品包装",
        description="gift wrapping",
        content="# wrap",
        tool_ids=[],
        sort_order=90,
    )
    publish()
    after_publish = runtime_cache.generation()
    assert after_publish > before
    label_move(user=COMMAND_LINE, label="staging", number=1)
    assert runtime_cache.generation() > after_publish


def test_the_lookup_is_cached_under_the_generation_for_the_ttl(bitmall):
    pointer = runtime_cache.lookup()
    assert (pointer.number, pointer.label) == (1, None)
    key = f"runtime:pointer:{runtime_cache.generation()}:default"
    assert cache.get(key) == [pointer.release_id, 1, pointer.sha256, None]
    assert runtime_cache.lookup_ttl() == settings.SKILL_CONSOLE_RUNTIME_LOOKUP_TTL == 5
    runtime_cache.bump_generation()
    assert cache.get(f"runtime:pointer:{runtime_cache.generation()}:default") is None


def test_a_process_keeps_at_most_eight_releases(bitmall, api_client):
    for i in range(10):
        services.skill_create(
            skill_code=f"extra_{i}",
            name=f"extra {i}",
            description="extra manual",
            content="# extra",
            tool_ids=[],
            sort_order=100 + i,
        )
        number = publish(f"extra {i}")
        assert api_client.get(CATALOG, {"release": number}).status_code == 200
    held = [(n, s) for n, s in runtime_cache._entries]
    assert len(held) == runtime_cache.LRU_SIZE == 8
    assert [n for n, _ in held] == list(range(4, 12))


def test_a_release_written_before_catalog_json_gets_it_once_on_first_read(bitmall, api_client):
    Release.objects.filter(number=1).update(catalog_json=None)
    body = api_client.get(CATALOG).content.decode("utf-8")
    assert Release.objects.get(number=1).catalog_json == body
    assert json.loads(body)["release"] == 1


def test_the_last_release_and_the_key_hashes_are_kept_under_var_runtime_0600(bitmall, api_client, runtime_key):
    api_client.get(CATALOG)
    api_client.get(CATALOG, {"release": 1})
    folder = settings.VAR_DIR / "runtime"
    for name in ("default.json", "release-1.json", "keys"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600, name
    record = json.loads((folder / "default.json").read_text())
    assert (record["number"], record["sha256"]) == (1, Release.objects.get(number=1).sha256)
    keys = (folder / "keys").read_text()
    assert runtime_key.record.prefix in keys and runtime_key.key not in keys
    assert cache.get("runtime:last:default")["number"] == 1


def test_a_held_key_verifies_only_the_right_secret(bitmall, runtime_key):
    runtime_cache.refresh_keys()
    held = runtime_cache.key_from_held(runtime_key.key)
    assert (held.name, held.prefix, held.read_drafts) == ("test-runtime", runtime_key.record.prefix, False)
    prefix = runtime_key.record.prefix
    assert runtime_cache.key_from_held(prefix + ".wrong-secret-0000000000000000") is False
    assert runtime_cache.key_from_held("nobody00.x") is False


def test_a_revoked_key_leaves_the_held_hashes_at_once(bitmall, runtime_key):
    from skills_app.keys.services import api_key_revoke

    assert runtime_cache.key_from_held(runtime_key.key) is not False
    api_key_revoke(user=COMMAND_LINE, name="test-runtime")
    assert runtime_cache.key_from_held(runtime_key.key) is False
    assert runtime_key.record.prefix not in (settings.VAR_DIR / "runtime" / "keys").read_text()
