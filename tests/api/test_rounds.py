"""POST /api/v1/runtime/rounds (docs/rule.md, docs/runtime-api.md; seed 000 session, seed 004 observations)."""

from __future__ import annotations

import pytest

from skills_app.catalog import services
from skills_app.models import Skill
from tests.api.support import (
    BITMALL_GATED,
    EVICTED,
    ROUNDS,
    USER,
    call,
    error_of,
    loaded,
    manual_of,
    openai_loaded,
    publish,
    result,
)

KEYS = [
    "release",
    "loaded",
    "masked",
    "visible",
    "count",
    "builtins",
    "mcp_visible",
    "withheld",
    "warnings",
    "warning_details",
]
AFTER_ORDER_CHANGE = {t: s for t, s in BITMALL_GATED.items() if s != "order_change"}


def round_of(post, messages, **extra):
    response = post(ROUNDS, {"messages": messages, **extra})
    assert response.status_code == 200, response.content
    return response.json()


# --- bitmall, the seed 000 session ------------------------------------------------------------


def test_round_1_of_the_seed_session_gives_11_tools_without_cancel_order(bitmall, post):
    for messages in ([], [USER]):
        body = round_of(post, messages)
        assert list(body) == KEYS
        assert body["count"] == 11
        assert "cancel_order" not in body["visible"]
        assert body["masked"] == BITMALL_GATED
        assert body["loaded"] == []
        assert body["release"] == 1


def test_empty_lists_are_present(bitmall, post):
    body = round_of(post, [])
    assert body["withheld"] == {} and body["warnings"] == [] and body["loaded"] == []
    assert body["visible"] == [
        "search_knowledge",
        "load_skill",
        "flush_memory",
        "query_order",
        "query_logistics",
        "query_after_sale",
        "search_product",
        "query_cart",
        "query_coupons",
        "submit_ticket",
        "current_date",
    ]
    assert body["builtins"] == ["search_knowledge", "load_skill", "flush_memory"]
    assert body["mcp_visible"] == body["visible"][3:]


def test_round_2_after_load_skill_with_the_marker_gives_13(bitmall, post):
    body = round_of(post, [USER, *loaded("order_change")])
    assert body["count"] == 13
    assert body["loaded"] == ["order_change"]
    assert body["masked"] == AFTER_ORDER_CHANGE
    assert "cancel_order" in body["visible"] and "change_address" in body["visible"]


def test_round_3_still_gives_13(bitmall, post):
    messages = [USER, *loaded("order_change"), call("query_order", {}, "c2"), result("共找到 5 笔订单", "c2")]
    body = round_of(post, messages)
    assert (body["count"], body["masked"]) == (13, AFTER_ORDER_CHANGE)


def test_openai_shaped_transcript_counts_the_same(bitmall, post):
    body = round_of(post, [USER, *openai_loaded("order_change")])
    assert body["count"] == 13
    assert body["masked"] == AFTER_ORDER_CHANGE


def test_openai_tool_result_answering_no_retained_call_loads_nothing(bitmall, post):
    messages = [USER, *openai_loaded("order_change")]
    messages[1]["tool_calls"][0]["id"] = "call_other"
    assert round_of(post, messages)["count"] == 11


@pytest.mark.parametrize(
    "tool_result",
    [
        result(EVICTED, metadata={"ragent_loaded_skill": "order_change", "skill_version": 1}),
        result(
            manual_of("order_change"),
            metadata={"ragent_loaded_skill": "order_change", "skill_version": 1, "evicted": True},
        ),
        result(
            manual_of("order_change"),
            state="error",
            metadata={"ragent_loaded_skill": "order_change", "skill_version": 1},
        ),
    ],
    ids=["evicted-placeholder", "evicted-flag", "error-state"],
)
def test_an_evicted_or_failed_manual_releases_nothing(bitmall, post, tool_result):
    body = round_of(post, [USER, call("load_skill", {"skill_code": "order_change"}), tool_result])
    assert body["count"] == 11
    assert body["loaded"] == []
    assert body["masked"] == BITMALL_GATED
    assert body["warnings"] == []  # the whole manual: eviction or failure alone keeps it out


def test_a_compacted_manual_takes_its_tools_with_it(bitmall, post):
    assert round_of(post, [USER, *loaded("order_change")])["count"] == 13
    assert round_of(post, [USER])["count"] == 11


def test_mentioning_a_tool_in_a_message_unlocks_nothing(bitmall, post):
    body = round_of(post, [USER, {"role": "assistant", "content": "我会调用 cancel_order 取消订单"}])
    assert "cancel_order" in body["masked"]


def test_disabling_a_skill_releases_its_tools_to_every_conversation(bitmall, post):
    services.skill_set_enabled(skill=Skill.objects.get(skill_code="order_change"), enabled=False)
    assert round_of(post, [USER])["count"] == 11  # the draft is not served until published
    publish()
    body = round_of(post, [USER])
    assert body["count"] == 13
    assert body["masked"] == AFTER_ORDER_CHANGE


def test_explicit_allowed_tools_drop_other_mcp_tools_with_a_warning(bitmall, post):
    body = round_of(post, [USER], allowed_tools=["query_order", "cancel_order", "no_such_tool"])
    assert body["mcp_visible"] == ["query_order"]
    assert body["visible"] == ["search_knowledge", "load_skill", "flush_memory", "query_order"]
    assert body["withheld"]["query_cart"] == "not_permitted"
    assert "cancel_order" not in body["withheld"]  # masked, not withheld
    assert body["warnings"] == ["allowed tools that are not registered: no_such_tool"]


# --- returns, the seed 004 observations -------------------------------------------------------


@pytest.mark.parametrize(
    ("skills", "extra", "mcp_visible", "withheld"),
    [
        # prepare_return is gated by the unloaded `return` but outside the stage: withheld, not masked
        (
            ["policy"],
            {"stage": "query", "access_profile": "member_full"},
            ["policy_search"],
            {"prepare_return": "stage", "submit": "stage"},
        ),
        (["return"], {"stage": "query"}, ["order_query"], {"prepare_return": "stage", "submit": "stage"}),
        (
            ["return"],
            {"stage": "prepare"},
            ["order_query", "prepare_return"],
            {"policy_search": "stage", "submit": "stage"},
        ),
        (
            ["return"],
            {"stage": "prepare", "access_profile": "no_business_tools"},
            [],
            {
                "policy_search": "not_permitted",
                "order_query": "not_permitted",
                "prepare_return": "not_permitted",
                "submit": "not_permitted",
            },
        ),
        ([], {}, ["submit"], {}),
    ],
    ids=["policy-query-member", "return-query", "return-prepare", "return-prepare-no-tools", "nothing-loaded"],
)
def test_seed_004_observations(returns, post, skills, extra, mcp_visible, withheld):
    messages = [{"role": "user", "content": "A3003那件外套能退吗"}]
    for i, code in enumerate(skills):
        messages += loaded(code, call_id=f"c{i}")
    body = round_of(post, messages, **extra)
    assert body["loaded"] == skills
    assert body["mcp_visible"] == mcp_visible
    assert body["withheld"] == withheld
    assert body["builtins"] == ["search_knowledge", "load_skill", "flush_memory"]


def test_unknown_stage_is_400_naming_the_stages_on_offer(returns, post):
    error = error_of(post(ROUNDS, {"messages": [], "stage": "ship"}), 400)
    assert error == {
        "code": "unknown_restriction",
        "message": "unknown stage 'ship'; stages on offer: prepare, query",
        "details": {"kind": "stage", "name": "ship", "known": ["prepare", "query"]},
    }


def test_unknown_access_profile_is_400_naming_the_profiles_on_offer(returns, post):
    error = error_of(post(ROUNDS, {"messages": [], "access_profile": "admin"}), 400)
    assert error["code"] == "unknown_restriction"
    assert error["message"] == (
        "unknown access profile 'admin'; access profiles on offer: member_full, no_business_tools"
    )


def test_a_stage_in_a_catalog_without_stages_is_400(bitmall, post):
    error = error_of(post(ROUNDS, {"messages": [], "stage": "query"}), 400)
    assert error["message"] == "unknown stage 'query'; stages on offer: none defined"


def test_a_round_reads_a_fixed_number_of_queries_however_long_the_transcript(
    bitmall, post, django_assert_max_num_queries
):
    messages = [USER]
    for i, code in enumerate(["after_sale_apply", "order_change", "fault_diagnosis", "order_checkout"] * 10):
        messages += loaded(code, call_id=f"c{i}")
    with django_assert_max_num_queries(8):
        assert round_of(post, messages)["count"] == 17


# --- release ----------------------------------------------------------------------------------


def test_an_unknown_release_in_the_body_or_query_is_404(bitmall, post):
    assert error_of(post(ROUNDS, {"messages": [], "release": 3}), 404)["details"] == {"release": 3, "known": [1]}
    assert error_of(post(f"{ROUNDS}?release=3", {"messages": []}), 404)["code"] == "release_not_found"


def test_release_null_is_the_latest(bitmall, post):
    assert round_of(post, [], release=None)["release"] == 1


def test_two_different_releases_are_400(bitmall, post):
    error = error_of(post(f"{ROUNDS}?release=2", {"messages": [], "release": 3}), 400)
    assert error["details"] == {"release": ["release 3 in the body and 2 in the query differ."]}


@pytest.mark.parametrize("tools_format", [None, "openai", "anthropic"])
def test_the_answer_sent_as_it_is_agrees_with_the_documented_output_serializer(bitmall, post, tools_format):
    """``RoundsApi`` sends ``RoundView.as_dict()`` without copying it through its OutputSerializer:
    the serializer (which the OpenAPI schema is made from) must give back exactly the same JSON."""
    from skills_app.runtime.views import RoundsApi

    extra = {"tools_format": tools_format} if tools_format else {}
    body = round_of(
        post, [USER, *loaded("order_change"), {"role": "tool", "tool_call_id": "nope", "content": "x"}], **extra
    )
    assert RoundsApi.OutputSerializer(body).data == body
    assert list(body)[: len(KEYS)] == KEYS
