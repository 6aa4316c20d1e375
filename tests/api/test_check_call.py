"""POST /api/v1/runtime/check-call: the execution guard (docs/rule.md) — never trust what the model
was shown."""

from __future__ import annotations

import json

import pytest

from tests.api.support import CHECK_CALL, USER, error_of, loaded

KEYS = ["release", "verdict", "reason", "skill_code", "message", "target"]
ON_OFFER_ROUND_1 = (
    "search_knowledge, load_skill, flush_memory, query_order, query_logistics, query_after_sale, "
    "search_product, query_cart, query_coupons, submit_ticket, current_date"
)
SKILLS = "after_sale_apply, order_change, fault_diagnosis, order_checkout, iot_bundle"


def check(post, messages, name, arguments=None, **extra):
    response = post(CHECK_CALL, {"messages": messages, "call": {"name": name, "arguments": arguments or {}}, **extra})
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == KEYS
    return body


def test_a_masked_tool_is_refused_with_the_skill_to_load(bitmall, post):
    assert check(post, [USER], "cancel_order", {"order_no": "88239"}) == {
        "release": 1,
        "verdict": "refused",
        "reason": "masked",
        "skill_code": "order_change",
        "message": "tool 'cancel_order' is masked: load_skill('order_change') first",
        "target": None,
    }


def test_an_unknown_tool_is_refused_with_the_names_on_offer(bitmall, post):
    body = check(post, [USER], "drop_database")
    assert (body["verdict"], body["reason"], body["skill_code"]) == ("refused", "unknown_tool", None)
    assert body["message"] == f"unknown tool 'drop_database'; tools on offer: {ON_OFFER_ROUND_1}"


def test_invalid_arguments_are_refused_after_loading(bitmall, post):
    body = check(post, [USER, *loaded("order_change")], "cancel_order", {})
    assert (body["verdict"], body["reason"]) == ("refused", "invalid_arguments")
    assert body["message"] == "invalid arguments for 'cancel_order': (arguments): 'order_no' is a required property"


def test_a_loaded_write_tool_stops_at_confirmation(bitmall, post):
    assert check(post, [USER, *loaded("order_change")], "cancel_order", {"order_no": "88239"}) == {
        "release": 1,
        "verdict": "confirm",
        "reason": None,
        "skill_code": None,
        "message": "'cancel_order' needs the user's confirmation before it runs",
        "target": None,  # the demo YAML's definitions have no server (tests/api/test_call_target.py syncs one)
    }


def test_a_read_only_tool_is_allowed(bitmall, post):
    body = check(post, [USER], "query_order", {})
    assert (body["verdict"], body["reason"], body["message"]) == ("allowed", None, "'query_order' may run")


def test_load_skill_with_a_path_is_refused_as_unknown_skill(bitmall, post):
    body = check(post, [USER], "load_skill", {"skill_code": "../../secret"})
    assert (body["verdict"], body["reason"], body["skill_code"]) == ("refused", "unknown_skill", None)
    assert body["message"] == f"unknown skill '../../secret'; skills on offer: {SKILLS}"


def test_load_skill_with_a_known_code_is_allowed(bitmall, post):
    body = check(post, [USER], "load_skill", {"skill_code": "order_change"})
    assert (body["verdict"], body["skill_code"]) == ("allowed", "order_change")


def test_arguments_as_a_json_string_are_accepted(bitmall, post):
    body = check(post, [USER, *loaded("order_change")], "cancel_order", json.dumps({"order_no": "88239"}))
    assert body["verdict"] == "confirm"


def test_an_openai_shaped_call_is_accepted(bitmall, post):
    response = post(
        CHECK_CALL,
        {
            "messages": [USER],
            "call": {
                "id": "call_9",
                "type": "function",
                "function": {"name": "cancel_order", "arguments": '{"order_no": "88239"}'},
            },
        },
    )
    assert response.status_code == 200
    assert (response.json()["reason"], response.json()["skill_code"]) == ("masked", "order_change")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            "{order_no:",
            "invalid arguments for 'query_order': call (query_order): arguments are not valid JSON "
            "(Expecting property name enclosed in double quotes); read as no arguments",
        ),
        (
            [1, 2],
            "invalid arguments for 'query_order': call (query_order): arguments are list, not a JSON object; "
            "read as no arguments",
        ),
        (
            "[1]",
            "invalid arguments for 'query_order': call (query_order): arguments are list, not a JSON object; "
            "read as no arguments",
        ),
        (
            None,
            "invalid arguments for 'query_order': call (query_order): arguments are null, not a JSON object; "
            "read as no arguments",
        ),
    ],
)
def test_malformed_arguments_of_the_call_are_a_refused_verdict_not_a_400(bitmall, post, arguments, message):
    response = post(CHECK_CALL, {"messages": [], "call": {"name": "query_order", "arguments": arguments}})
    assert response.status_code == 200, response.content
    assert response.json() == {
        "release": 1,
        "verdict": "refused",
        "reason": "invalid_arguments",
        "skill_code": None,
        "message": message,
        "target": None,
    }


def test_call_is_required(bitmall, post):
    error = error_of(post(CHECK_CALL, {"messages": []}), 400)
    assert (error["code"], list(error["details"])) == ("invalid", ["call"])


def test_call_name_is_required(bitmall, post):
    error = error_of(post(CHECK_CALL, {"messages": [], "call": {"arguments": {}}}), 400)
    assert list(error["details"]) == ["call.name"]


# --- returns: profile and stage ---------------------------------------------------------------


def test_outside_the_access_profile_is_refused_not_permitted(returns, post):
    body = check(
        post,
        [*loaded("return")],
        "order_query",
        {"order_no": "A3003"},
        access_profile="no_business_tools",
        stage="prepare",
    )
    assert (body["verdict"], body["reason"]) == ("refused", "not_permitted")
    assert body["message"] == "tool 'order_query' is not permitted by access profile 'no_business_tools'"


def test_outside_the_stage_is_refused_stage(returns, post):
    body = check(post, [], "submit", {"draft_id": "D1"}, stage="prepare")
    assert (body["verdict"], body["reason"]) == ("refused", "stage")
    assert body["message"] == "tool 'submit' is not allowed in stage 'prepare'"


def test_outside_explicit_allowed_tools_is_refused_not_permitted(returns, post):
    body = check(post, [*loaded("return")], "order_query", {"order_no": "A3003"}, allowed_tools=["policy_search"])
    assert body["reason"] == "not_permitted"
    assert body["message"] == "tool 'order_query' is not permitted by the allowed tool list"


def test_inside_profile_and_stage_runs(returns, post):
    body = check(
        post, [*loaded("return")], "order_query", {"order_no": "A3003"}, access_profile="member_full", stage="prepare"
    )
    assert body["verdict"] == "allowed"


def test_unknown_stage_is_400(returns, post):
    error = error_of(post(CHECK_CALL, {"messages": [], "call": {"name": "submit"}, "stage": "ship"}), 400)
    assert (error["code"], error["details"]["known"]) == ("unknown_restriction", ["prepare", "query"])


def test_a_call_name_that_is_no_string_is_a_400_not_a_tool_named_by_its_text(bitmall, post):
    from tests.api.support import CHECK_CALL

    for name in (123, True, 1.5):
        response = post(CHECK_CALL, {"messages": [], "call": {"name": name}})
        assert response.status_code == 400, name
        assert response.json()["error"]["code"] == "invalid"
        assert "call.name" in response.json()["error"]["message"]
