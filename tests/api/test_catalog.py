"""GET /api/v1/runtime/catalog (docs/runtime-api.md, docs/demo.md)."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from skills_app.catalog import services
from skills_app.models import Release, Skill
from tests.api.support import CATALOG, error_of, publish

BUILTINS = ["search_knowledge", "load_skill", "flush_memory"]
MCP_TOOLS = [
    "query_order",
    "query_logistics",
    "query_after_sale",
    "apply_after_sale",
    "cancel_order",
    "change_address",
    "search_product",
    "query_cart",
    "query_coupons",
    "update_cart_item",
    "create_order",
    "pay_order",
    "submit_ticket",
    "current_date",
]
WRITE_TOOLS = {
    "apply_after_sale",
    "cancel_order",
    "change_address",
    "update_cart_item",
    "create_order",
    "pay_order",
    "submit_ticket",
}
GATED = ["apply_after_sale", "cancel_order", "change_address", "update_cart_item", "create_order", "pay_order"]


def canonical_sha256(body: dict) -> str:
    rest = {k: v for k, v in body.items() if k != "sha256"}
    raw = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()


@pytest.fixture
def catalog(bitmall, api_client):
    response = api_client.get(CATALOG)
    assert response.status_code == 200
    return response


def test_catalog_has_the_documented_keys(catalog):
    assert list(catalog.json()) == [
        "release",
        "sha256",
        "marker_key",
        "eviction_prefix",
        "load_skill_header",
        "builtins",
        "mcp_tools",
        "skills",
        "gated_tool_ids",
        "access_profiles",
        "stages",
    ]


def test_catalog_serves_the_published_release(catalog):
    body = catalog.json()
    assert body["release"] == 1
    assert body["marker_key"] == "ragent_loaded_skill"
    assert body["eviction_prefix"] == "[历史工具结果已省略，原长 "


def test_builtins_come_first_with_their_parameters(catalog):
    builtins = catalog.json()["builtins"]
    assert [b["name"] for b in builtins] == BUILTINS
    assert set(builtins[0]) == {"name", "description", "parameters"}
    assert builtins[1]["parameters"]["required"] == ["skill_code"]


def test_mcp_tools_are_in_intent_tree_order(catalog):
    tools = catalog.json()["mcp_tools"]
    assert [t["name"] for t in tools] == MCP_TOOLS
    assert set(tools[0]) == {
        "name",
        "title",
        "description",
        "inputSchema",
        "annotations",
        "require_confirm",
        "server",
        "mcp_name",
    }
    # the demo YAML's definitions were typed in, not synced: no call target
    assert (tools[0]["server"], tools[0]["mcp_name"]) == (None, None)


def test_require_confirm_is_true_for_exactly_the_seven_write_tools(catalog):
    tools = catalog.json()["mcp_tools"]
    assert {t["name"] for t in tools if t["require_confirm"]} == WRITE_TOOLS


def test_mcp_tools_carry_schema_and_annotations(catalog):
    cancel = next(t for t in catalog.json()["mcp_tools"] if t["name"] == "cancel_order")
    assert cancel["title"] == "取消订单"
    assert cancel["inputSchema"]["required"] == ["order_no"]
    assert cancel["annotations"]["readOnlyHint"] is False


def test_skills_are_the_five_enabled_manuals_in_sort_order(catalog):
    skills = catalog.json()["skills"]
    assert [(s["code"], s["tool_ids"]) for s in skills] == [
        ("after_sale_apply", ["apply_after_sale"]),
        ("order_change", ["cancel_order", "change_address"]),
        ("fault_diagnosis", []),
        ("order_checkout", ["update_cart_item", "create_order", "pay_order"]),
        ("iot_bundle", []),
    ]
    assert set(skills[0]) == {"code", "name", "description", "tool_ids", "sort_order", "version", "content_sha256"}


def test_skills_carry_version_and_content_sha256_not_the_manual(catalog):
    served = {s["code"]: s for s in catalog.json()["skills"]}
    for skill in Skill.objects.live():
        assert served[skill.skill_code]["version"] == skill.version
        assert served[skill.skill_code]["sort_order"] == skill.sort_order
        assert served[skill.skill_code]["content_sha256"] == hashlib.sha256(skill.content.encode("utf-8")).hexdigest()


def test_gated_tool_ids_are_in_registration_order(catalog):
    assert catalog.json()["gated_tool_ids"] == GATED


def test_bitmall_defines_no_profiles_or_stages(catalog):
    assert catalog.json()["access_profiles"] == []
    assert catalog.json()["stages"] == []


def test_returns_catalog_lists_profiles_and_stages_with_tools_in_registration_order(returns, api_client):
    body = api_client.get(CATALOG).json()
    assert [(p["name"], p["tools"]) for p in body["access_profiles"]] == [
        ("member_full", ["policy_search", "order_query", "prepare_return", "submit"]),
        ("no_business_tools", []),
    ]
    assert [(s["name"], s["tools"]) for s in body["stages"]] == [
        ("prepare", ["order_query", "prepare_return"]),
        ("query", ["policy_search", "order_query"]),
    ]
    assert body["stages"][0]["description"].startswith("准备阶段")
    assert body["gated_tool_ids"] == ["policy_search", "order_query", "prepare_return"]


def test_sha256_is_the_canonical_json_of_the_body_without_it(catalog):
    body = catalog.json()
    assert body["sha256"] == canonical_sha256(body)


def test_strong_etag_is_the_quoted_release_sha256(catalog):
    assert catalog["ETag"] == f'"{Release.objects.get(number=1).sha256}"'
    assert catalog["Cache-Control"] == "private, no-cache"


def test_a_disabled_skill_leaves_the_catalog_and_releases_its_tools(bitmall, api_client):
    services.skill_set_enabled(skill=Skill.objects.get(skill_code="order_change"), enabled=False)
    assert "order_change" in [s["code"] for s in api_client.get(CATALOG).json()["skills"]]  # not yet published
    publish()
    body = api_client.get(CATALOG).json()
    assert "order_change" not in [s["code"] for s in body["skills"]]
    assert body["gated_tool_ids"] == ["apply_after_sale", "update_cart_item", "create_order", "pay_order"]


def test_load_skill_is_not_registered_while_no_skill_is_enabled(bitmall, api_client):
    for skill in Skill.objects.live():
        services.skill_set_enabled(skill=skill, enabled=False)
    publish()
    body = api_client.get(CATALOG).json()
    assert [b["name"] for b in body["builtins"]] == ["search_knowledge", "flush_memory"]
    assert body["skills"] == [] and body["gated_tool_ids"] == []


# --- ETag / If-None-Match (RFC 9110: weak comparison) -----------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        '"{sha}"',
        'W/"{sha}"',
        '"0000", "{sha}"',
        '"0000",W/"{sha}"',
        "*",
    ],
)
def test_if_none_match_answers_304_when_any_tag_matches(catalog, api_client, header):
    sha = catalog["ETag"].strip('"')
    response = api_client.get(CATALOG, HTTP_IF_NONE_MATCH=header.format(sha=sha))
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == f'"{sha}"'


@pytest.mark.parametrize("header", ['"0000"', 'W/"0000", "1111"', "{sha}", ""])
def test_if_none_match_answers_200_when_no_tag_matches(catalog, api_client, header):
    sha = catalog["ETag"].strip('"')
    response = api_client.get(CATALOG, HTTP_IF_NONE_MATCH=header.format(sha=sha))
    assert response.status_code == 200
    assert response["ETag"] == f'"{sha}"'
    assert response.json()["sha256"] == catalog.json()["sha256"]


def test_publishing_a_changed_skill_changes_the_etag(catalog, api_client):
    old_etag = catalog["ETag"]
    skill = Skill.objects.get(skill_code="order_change")
    services.skill_update(skill=skill, content=skill.content + "\n\n补充：取消前再次确认订单号。")
    assert api_client.get(CATALOG, HTTP_IF_NONE_MATCH=old_etag).status_code == 304  # the draft is not served
    publish()
    response = api_client.get(CATALOG, HTTP_IF_NONE_MATCH=old_etag)
    assert response.status_code == 200
    assert response["ETag"] != old_etag
    changed = next(s for s in response.json()["skills"] if s["code"] == "order_change")
    assert changed["version"] == skill.version + 1
    assert api_client.get(CATALOG, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


# --- releases ---------------------------------------------------------------------------------


def test_an_unknown_release_is_404(bitmall, api_client):
    error = error_of(api_client.get(CATALOG, {"release": 2}), 404)
    assert error == {
        "code": "release_not_found",
        "message": "release 2 does not exist; releases on offer: 1",
        "details": {"release": 2, "known": [1]},
    }


@pytest.mark.parametrize("value", ["abc", "0", "-1"])
def test_a_malformed_release_is_400(bitmall, api_client, value):
    error = error_of(api_client.get(CATALOG, {"release": value}), 400)
    assert error["code"] == "invalid"
    assert list(error["details"]) == ["release"]


# --- queries ----------------------------------------------------------------------------------


def _count_queries(client) -> int:
    """Queries of one request answered cold (as by a new process: nothing cached)."""
    from skills_app.runtime import cache as runtime_cache

    runtime_cache.bump_generation()
    runtime_cache.clear_process_cache()
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(CATALOG).status_code == 200
    return len(ctx.captured_queries)


def test_catalog_runs_a_fixed_number_of_queries(bitmall, api_client, django_assert_max_num_queries):
    # cold: key lookup + last-used stamp + production label + latest release + the release's stored
    # body, loaded once per process (tests/api/test_runtime_cache.py counts the warm requests)
    with django_assert_max_num_queries(5):
        assert api_client.get(CATALOG).status_code == 200
    before = _count_queries(api_client)
    for i in range(5):
        services.skill_create(
            skill_code=f"extra_{i}",
            name=f"extra {i}",
            description="extra manual",
            content="# extra",
            tool_ids=["query_cart", "current_date"],
            sort_order=100 + i,
        )
    services.access_profile_save(name="reader", tools=["query_order", "query_cart"])
    services.stage_save(name="browse", tools=["search_product"])
    publish()
    assert _count_queries(api_client) == before


def test_head_answers_the_etag_without_a_body(catalog, api_client):
    response = api_client.head(CATALOG)
    assert response.status_code == 200
    assert response.content == b""
    assert response["ETag"] == catalog["ETag"]
    assert api_client.head(CATALOG, HTTP_IF_NONE_MATCH=catalog["ETag"]).status_code == 304


def test_a_misspelt_query_parameter_is_a_400_naming_it_never_the_default_release(bitmall, api_client):
    response = api_client.get(CATALOG + "?relase=1")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert "unknown query parameter 'relase'; parameters: release, label, draft." in error["message"]
    assert api_client.get(CATALOG + "?release=1").status_code == 200
