"""One error shape for the whole API: ``{"error": {"code", "message", "details"}}`` with the right
4xx (docs/runtime-api.md), from DRF, the domain and Django alike."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.test import APIClient

from skills_app.runtime.exception_handlers import api_exception_handler
from tests.api.support import CATALOG, CHECK_CALL, LOAD_SKILL, ROUNDS, USER, error_of, skill_url

ENDPOINTS = [
    ("get", CATALOG),
    ("get", skill_url("order_change")),
    ("post", ROUNDS),
    ("post", LOAD_SKILL),
    ("post", CHECK_CALL),
]


# --- authentication ---------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "url"), ENDPOINTS)
def test_without_a_token_every_endpoint_is_401_json(bitmall, method, url):
    response = getattr(APIClient(), method)(url, {}, format="json") if method == "post" else APIClient().get(url)
    error = error_of(response, 401)
    assert error["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == 'Bearer realm="skill-console runtime"'


@pytest.mark.parametrize("language", [None, "zh-hans", "en"])
def test_the_api_speaks_english_whatever_the_request_language(bitmall, language):
    """Issue 29 item 5: the 401 was Chinese (the console's default language) while every other API
    message is English; the API has one language, English (docs/runtime-api.md "Errors")."""
    headers = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    response = APIClient().get(CATALOG, **headers)
    assert error_of(response, 401) == {
        "code": "not_authenticated",
        "message": "Authentication credentials were not provided.",
        "details": {},
    }
    assert response["Content-Language"] == "en"
    missing = APIClient().get("/api/v1/runtime/nothing-here", **headers)
    assert missing.status_code == 404 and missing["Content-Language"] == "en"


def test_drf_s_own_messages_and_every_api_answer_are_english_for_a_chinese_request(bitmall, api_client, settings):
    """DRF translates its own messages (405, 415, 401 …) into the request's language; under /api/
    nothing is translated and every answer says ``Content-Language: en`` — the error handlers'
    JSON, the schema and /healthz too (skills_app.core.faults.ApiInEnglishMiddleware)."""
    chinese = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
    put = api_client.put(CATALOG, {}, format="json", **chinese)
    assert error_of(put, 405)["message"] == 'Method "PUT" not allowed.'
    form = api_client.post(ROUNDS, "x=1", content_type="application/x-www-form-urlencoded", **chinese)
    assert error_of(form, 415)["message"] == 'Unsupported media type "application/x-www-form-urlencoded" in request.'
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    big = api_client.post(ROUNDS, {"messages": [{"role": "user", "content": "x" * 2000}]}, format="json", **chinese)
    assert error_of(big, 413)["message"] == "the request body is larger than 1000 bytes"
    for response in (put, form, big, api_client.get(CATALOG, **chinese)):
        assert response["Content-Language"] == "en"
    for url in ("/api/v1/schema", "/healthz"):
        assert APIClient().get(url, **chinese)["Content-Language"] == "en"


def test_the_console_s_pages_keep_their_language_around_api_calls(bitmall, client):
    assert APIClient().get(CATALOG, HTTP_ACCEPT_LANGUAGE="zh-hans")["Content-Language"] == "en"
    page = client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert page["Content-Language"] == "zh-hans" and "登录" in page.content.decode()


def test_an_unknown_key_is_401(bitmall):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer notakey.not-a-real-key")
    response = client.get(CATALOG, HTTP_ACCEPT_LANGUAGE="en")
    assert error_of(response, 401) == {
        "code": "authentication_failed",
        "message": "the API key is unknown or revoked.",
        "details": {},
    }
    assert response["WWW-Authenticate"] == 'Bearer realm="skill-console runtime"'


def test_a_drf_token_header_is_no_runtime_key(bitmall):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef")
    assert error_of(client.get(CATALOG), 401)["code"] == "not_authenticated"


def test_a_console_session_works_too(bitmall, staff_client):
    assert staff_client.get(CATALOG).status_code == 200


# --- request bodies ---------------------------------------------------------------------------


@pytest.mark.parametrize("url", [ROUNDS, LOAD_SKILL, CHECK_CALL])
def test_malformed_json_is_400(bitmall, api_client, url):
    response = api_client.post(url, data='{"messages": [', content_type="application/json")
    error = error_of(response, 400)
    assert error["code"] == "malformed_json"
    assert error["message"] == "JSON parse error - Expecting value: line 1 column 15 (char 14)"
    assert error["details"] == {}


def test_a_form_post_is_415(bitmall, api_client):
    response = api_client.post(ROUNDS, {"messages": "[]"}, HTTP_ACCEPT_LANGUAGE="en")
    error = error_of(response, 415)
    assert error["code"] == "unsupported_media_type"
    assert error["message"].startswith('Unsupported media type "multipart/form-data')


def test_a_wrong_method_is_405(bitmall, api_client):
    error = error_of(api_client.get(ROUNDS, HTTP_ACCEPT_LANGUAGE="en"), 405)
    assert error == {"code": "method_not_allowed", "message": 'Method "GET" not allowed.', "details": {}}


def test_an_unknown_path_is_a_json_404(bitmall, api_client):
    error = error_of(api_client.get("/api/v1/runtime/nothing-here"), 404)
    assert error == {
        "code": "not_found",
        "message": "no API endpoint at '/api/v1/runtime/nothing-here'.",
        "details": {},
    }


def test_missing_messages_is_400_invalid_with_field_details(bitmall, post):
    error = error_of(post(ROUNDS, {}, HTTP_ACCEPT_LANGUAGE="en"), 400)
    assert error == {
        "code": "invalid",
        "message": "messages: This field is required.",
        "details": {"messages": ["This field is required."]},
    }


def test_field_errors_are_listed_by_path(bitmall, post):
    body = {"messages": [], "allowed_tools": ["query_order", {"x": 1}], "stage": None, "release": "x"}
    error = error_of(post(ROUNDS, body, HTTP_ACCEPT_LANGUAGE="en"), 400)
    assert error["code"] == "invalid"
    assert error["details"] == {"allowed_tools.1": ["Not a valid string."], "release": ["A valid integer is required."]}
    assert error["message"] == "allowed_tools.1: Not a valid string.; release: A valid integer is required."


def test_a_body_that_is_not_an_object_is_400(bitmall, post):
    error = error_of(post(ROUNDS, [USER], HTTP_ACCEPT_LANGUAGE="en"), 400)
    assert error["code"] == "invalid"
    assert error["details"] == {"non_field_errors": ["Invalid data. Expected a dictionary, but got list."]}


# --- messages ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("messages", "index", "cause"),
    [
        (
            [USER, {"role": "robot", "content": "hi"}],
            1,
            "role must be one of user, assistant, tool, system, got 'robot'",
        ),
        ([USER, USER, "text"], 2, "a message must be a JSON object"),
        (
            [{"role": "assistant", "function_call": {"name": "load_skill", "arguments": "{}"}}],
            0,
            "legacy 'function_call' is not understood; send 'tool_calls' (OpenAI) or 'tool_use' blocks (Anthropic)",
        ),
        (
            [USER, {"role": "assistant", "content": [{"type": "mcp_tool_use", "id": "m", "name": "x"}]}],
            1,
            "content[0]: block type 'mcp_tool_use' is not understood",
        ),
        ([{"role": "tool", "content": "x", "state": "done"}], 0, "state must be success or error, got 'done'"),
        ([{"role": "user", "content": 42}], 0, "content must be a string, got int"),
    ],
)
@pytest.mark.parametrize("url", [ROUNDS, LOAD_SKILL, CHECK_CALL])
def test_malformed_messages_are_400_naming_the_index(bitmall, post, url, messages, index, cause):
    body = {"messages": messages, "skill_code": "order_change", "call": {"name": "query_order"}}
    assert error_of(post(url, body), 400) == {
        "code": "invalid_messages",
        "message": f"messages[{index}]: {cause}",
        "details": {"index": index, "cause": cause},
    }


def test_messages_that_are_not_a_list_are_400(bitmall, post):
    assert error_of(post(ROUNDS, {"messages": {"role": "user"}}), 400) == {
        "code": "invalid_messages",
        "message": "messages must be a JSON list",
        "details": {"index": None, "cause": "messages must be a JSON list"},
    }


# --- Django validation errors (services raise them) -------------------------------------------


def test_django_validation_errors_map_to_400_invalid():
    exc = DjangoValidationError(
        {
            "tool_ids": ["'load_skill' is a builtin tool and can never be gated by a skill."],
            "__all__": ["nothing saved."],
        }
    )
    response = api_exception_handler(exc, {})
    assert response.status_code == 400
    assert response.data == {
        "error": {
            "code": "invalid",
            "message": "tool_ids: 'load_skill' is a builtin tool and can never be gated by a skill.; "
            "non_field_errors: nothing saved.",
            "details": {
                "tool_ids": ["'load_skill' is a builtin tool and can never be gated by a skill."],
                "non_field_errors": ["nothing saved."],
            },
        }
    }


def test_unexpected_exceptions_are_left_to_django():
    assert api_exception_handler(RuntimeError("boom"), {}) is None


# --- refusals found by breaking it ------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ({"messages": [], "profile": "nope"}, "profile"),
        ({"messages": [], "stagee": "query"}, "stagee"),
    ],
)
def test_a_misspelt_key_is_400_naming_it_never_no_restriction(api_client, returns, body, key):
    error = error_of(api_client.post(ROUNDS, body, format="json"), 400)
    assert error["code"] == "invalid"
    assert error["details"][key][0].startswith(f"unknown field '{key}'; fields: access_profile, allowed_tools, ")


def test_an_empty_stage_or_profile_means_none(api_client, returns):
    response = api_client.post(ROUNDS, {"messages": [], "stage": "", "access_profile": ""}, format="json")
    assert response.status_code == 200
    assert response.json()["withheld"] == {}


def test_a_deeply_nested_body_is_400_json(api_client, bitmall):
    body = '{"messages": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    response = api_client.post(ROUNDS, body, content_type="application/json")
    assert error_of(response, 400) == {
        "code": "malformed_json",
        "message": "the JSON body is nested too deeply",
        "details": {},
    }


def test_a_body_over_the_upload_limit_is_413_json(api_client, bitmall, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = {"messages": [{"role": "user", "content": "x" * 2000}]}
    error = error_of(api_client.post(ROUNDS, body, format="json"), 413)
    assert error == {
        "code": "request_too_large",
        "message": "the request body is larger than 1000 bytes",
        "details": {"limit": 1000},
    }


def test_too_many_messages_are_refused_with_the_limit(api_client, bitmall):
    from skill_rule.limits import MAX_MESSAGES

    body = {"messages": [{"role": "user", "content": "hi"}] * (MAX_MESSAGES + 1)}
    error = error_of(api_client.post(ROUNDS, body, format="json"), 400)
    assert error["code"] == "invalid_messages"
    assert error["message"] == f"{MAX_MESSAGES + 1} messages; at most {MAX_MESSAGES} are accepted"


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/runtime/skills/order%0Achange",  # a line break in the code (schemathesis found this)
        "/api/v1/runtime/skills/%0A",
    ],
)
def test_a_skill_code_with_a_line_break_is_refused_as_json(bitmall, api_client, path):
    error = error_of(api_client.get(path), 400)
    assert error["code"] == "invalid_skill_code"


def test_an_unknown_path_with_a_line_break_answers_json_404(bitmall, api_client):
    response = api_client.get("/api/v1/runtime/nothing%0Ahere")
    assert error_of(response, 404)["code"] == "not_found"
