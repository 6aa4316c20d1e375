"""No 5xx from bad input (issue 10, item 7): a ``role`` that is an object or a list, JSON nested
past the recursion limit inside an ``arguments`` string, every /api/ 404 in JSON, and the OpenAPI
schema stating the limits the code enforces (``packages/skill-rule/src/skill_rule/limits.py``)."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from skill_rule.limits import MAX_MESSAGES, SKILL_CODE_MAX_LENGTH, TOOL_NAME_MAX_LENGTH
from tests.api.support import CHECK_CALL, LOAD_SKILL, ROUNDS, USER, error_of


@pytest.mark.parametrize(("role", "kind"), [({"name": "user"}, "an object"), (["user"], "a list"), (7, "int")])
@pytest.mark.parametrize("url", [ROUNDS, CHECK_CALL, LOAD_SKILL])
def test_a_role_that_is_not_text_is_400_naming_the_message(bitmall, post, url, role, kind):
    body = {
        "messages": [USER, {"role": role, "content": "x"}],
        "skill_code": "order_change",
        "call": {"name": "query_order", "arguments": {}},
    }
    if url != LOAD_SKILL:
        body.pop("skill_code")
    if url != CHECK_CALL:
        body.pop("call")
    error = error_of(post(url, body), 400)
    assert error["code"] == "invalid_messages"
    assert error["message"] == f"messages[1]: role must be one of user, assistant, tool, system, got {kind}"
    assert error["details"]["index"] == 1


def _deep(depth: int, kind: str) -> str:
    return ("[" * depth + "]" * depth) if kind == "list" else ('{"a":' * depth + "1" + "}" * depth)


@pytest.mark.parametrize("depth", [200, 900, 5_000, 100_000])
@pytest.mark.parametrize("kind", ["list", "object"])
def test_deeply_nested_arguments_in_a_message_are_a_warning_not_a_500(bitmall, post, depth, kind):
    messages = [
        USER,
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "query_order", "arguments": _deep(depth, kind)}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    response = post(ROUNDS, {"messages": messages})
    assert response.status_code == 200, response.content[:300]
    body = response.json()
    assert body["count"] == 11  # nothing loaded: the round is computed all the same
    if depth >= 900 or kind == "list":
        assert [w["code"] for w in body["warning_details"]] in (["arguments_unparseable"], ["arguments_not_object"])
        assert body["warning_details"][0]["index"] == 1


@pytest.mark.parametrize("depth", [200, 900, 5_000, 100_000])
@pytest.mark.parametrize("kind", ["list", "object"])
def test_deeply_nested_arguments_of_the_checked_call_are_refused_not_a_500(bitmall, post, depth, kind):
    call = {"name": "query_order", "arguments": _deep(depth, kind)}
    response = post(CHECK_CALL, {"messages": [USER], "call": call})
    assert response.status_code in (200, 400), response.content[:300]
    if response.status_code == 200:
        assert response.json()["verdict"] == "refused"
        assert response.json()["reason"] == "invalid_arguments"
    else:
        assert error_of(response, 400)["code"] in ("malformed_json", "invalid")


def test_a_body_nested_too_deeply_is_400_json(bitmall, api_client):
    body = '{"messages": ' + "[" * 100_000 + "]" * 100_000 + "}"
    response = api_client.post(ROUNDS, body, content_type="application/json")
    assert error_of(response, 400)["code"] == "malformed_json"


@pytest.mark.parametrize(
    "path",
    [
        "/api/",
        "/api/v2/runtime/catalog",
        "/api/v1/nope",
        "/api/v1/runtime/skills/no_such_skill",
        "/api/v1/runtime/catalog?release=99",
        "/api/nope%00",
        "/api/v1/runtime/skills/a%00b",
    ],
)
def test_every_api_404_is_json(bitmall, api_client, path):
    response = api_client.get(path)
    assert response.status_code in (404, 400), path
    assert response["Content-Type"].startswith("application/json"), path
    body = json.loads(response.content)
    assert set(body["error"]) == {"code", "message", "details"}


def test_api_404_without_a_key_is_json_too(db):
    for path in ("/api/", "/api/v1/", "/api/x/y"):
        response = APIClient().get(path)
        assert response.status_code in (401, 404) and response["Content-Type"].startswith("application/json")


def test_a_csrf_failure_under_api_is_json(bitmall, staff_user):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(staff_user)
    response = client.post(ROUNDS, {"messages": [USER]}, format="json")
    assert error_of(response, 403)["code"] in ("permission_denied", "csrf_failed")


# --- the OpenAPI schema states the limits the code enforces ------------------------------------


@pytest.fixture
def schema(db, staff_client):
    response = staff_client.get("/api/v1/schema?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def _component(schema, name):
    return schema["components"]["schemas"][name]


def test_the_schema_states_the_message_limit_and_the_code_enforces_it(schema, post, bitmall):
    for name in ("RoundsInput", "CheckCallInput", "LoadSkillInput"):
        assert _component(schema, name)["properties"]["messages"]["maxItems"] == MAX_MESSAGES, name
    error = error_of(post(ROUNDS, {"messages": [USER] * (MAX_MESSAGES + 1)}), 400)
    assert error["message"] == f"{MAX_MESSAGES + 1} messages; at most {MAX_MESSAGES} are accepted"


def test_the_schema_states_name_and_code_lengths(schema, post, bitmall):
    assert _component(schema, "CallInput")["properties"]["name"]["maxLength"] == TOOL_NAME_MAX_LENGTH
    code = _component(schema, "LoadSkillInput")["properties"]["skill_code"]
    assert code["maxLength"] == SKILL_CODE_MAX_LENGTH and code["minLength"] == 2 and code["pattern"]
    param = next(
        p for p in schema["paths"]["/api/v1/runtime/skills/{code}"]["get"]["parameters"] if p["name"] == "code"
    )
    assert param["schema"]["maxLength"] == SKILL_CODE_MAX_LENGTH
    too_long = {"name": "x" * (TOOL_NAME_MAX_LENGTH + 1), "arguments": {}}
    assert error_of(post(CHECK_CALL, {"messages": [USER], "call": too_long}), 400)["code"] == "invalid"
    error = error_of(post(LOAD_SKILL, {"messages": [USER], "skill_code": "a" * (SKILL_CODE_MAX_LENGTH + 1)}), 400)
    assert error["code"] in ("invalid_skill_code", "invalid")


def test_the_schema_states_the_body_size_limit(schema):
    from django.conf import settings

    assert str(settings.DATA_UPLOAD_MAX_MEMORY_SIZE) in schema["info"]["description"]
