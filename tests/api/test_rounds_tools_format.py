"""POST /api/v1/runtime/rounds with ``tools_format``: the exact tools array a chat API receives
(docs/runtime-api.md "What the model sees"; seed 000 session on the bitmall demo)."""

from __future__ import annotations

import json

import pytest

from skill_rule.limits import DEFAULT_LOAD_SKILL_HEADER
from skills_app.catalog import services
from skills_app.models import Skill
from tests.api.support import ROUNDS, USER, call, error_of, loaded, publish_draft, result

ENABLED_CODES = ["after_sale_apply", "order_change", "fault_diagnosis", "order_checkout", "iot_bundle"]
ORDER_CHANGE_LINE = (
    "- order_change（订单修改）：用户要取消订单或修改收货地址时加载：先查订单状态，按待支付、待发货、已发货、"
    "已签收四种状态分别处理，讲清退款与优惠券后再确认执行。"
)
ROUND_1 = [
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
ROUND_2 = [*ROUND_1[:6], "cancel_order", "change_address", *ROUND_1[6:]]
#: the cancel-iphone conversation before each of its three assistant steps
CONVERSATION = {
    1: [USER],
    2: [USER, *loaded("order_change")],
    3: [USER, *loaded("order_change"), call("query_order", {}, "c2"), result("共找到 5 笔订单", "c2")],
}


def compact(tools) -> str:
    return json.dumps(tools, ensure_ascii=False, separators=(",", ":"))


def rounds(post, n: int, fmt: str | None):
    body = {"messages": CONVERSATION[n]}
    if fmt is not None:
        body["tools_format"] = fmt
    response = post(ROUNDS, body)
    assert response.status_code == 200, response.content
    return response.json()


def openai_by_name(tools):
    assert all(set(t) == {"type", "function"} and t["type"] == "function" for t in tools)
    assert all(set(t["function"]) == {"name", "description", "parameters"} for t in tools)
    return {t["function"]["name"]: t["function"] for t in tools}


def anthropic_by_name(tools):
    assert all(set(t) == {"name", "description", "input_schema"} for t in tools)
    return {
        t["name"]: {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]} for t in tools
    }


BY_NAME = {"openai": openai_by_name, "anthropic": anthropic_by_name}


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_round_1_gives_11_tools_with_the_generated_load_skill_and_no_cancel_order(bitmall, post, fmt):
    body = rounds(post, 1, fmt)
    tools = BY_NAME[fmt](body["tools"])
    assert len(body["tools"]) == 11 and body["count"] == 11
    assert list(tools) == ROUND_1 == body["visible"]
    assert "cancel_order" not in tools
    load = tools["load_skill"]
    assert load["parameters"]["properties"]["skill_code"]["enum"] == ENABLED_CODES
    assert load["parameters"]["properties"]["skill_code"]["type"] == "string"
    assert load["parameters"]["required"] == ["skill_code"]
    lines = load["description"].split("\n")
    assert lines[:3] == DEFAULT_LOAD_SKILL_HEADER.split("\n")
    assert lines[2] == "部分业务工具在关联手册加载后才会出现在可用工具中，不要仅凭当前工具清单判断是否支持该任务"
    assert len(lines) == 3 + 5
    assert [line.split("（")[0] for line in lines[3:]] == [f"- {c}" for c in ENABLED_CODES]
    assert lines[4] == ORDER_CHANGE_LINE
    assert body["tools_chars"] == len(compact(body["tools"]))


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_rounds_2_and_3_give_13_tools_with_cancel_order_and_its_input_schema(bitmall, post, fmt, api_client):
    schema = api_client.get("/api/v1/runtime/catalog").json()
    cancel = next(t for t in schema["mcp_tools"] if t["name"] == "cancel_order")
    for n in (2, 3):
        body = rounds(post, n, fmt)
        tools = BY_NAME[fmt](body["tools"])
        assert len(body["tools"]) == 13
        assert list(tools) == ROUND_2 == body["visible"]
        assert tools["cancel_order"]["parameters"] == cancel["inputSchema"]
        assert tools["cancel_order"]["description"] == cancel["description"]
        assert cancel["inputSchema"]["required"] == ["order_no"]
        assert body["tools_chars"] == len(compact(body["tools"]))


def test_builtins_carry_their_registered_parameters(bitmall, post, api_client):
    builtins = {b["name"]: b for b in api_client.get("/api/v1/runtime/catalog").json()["builtins"]}
    tools = openai_by_name(rounds(post, 1, "openai")["tools"])
    for name in ("search_knowledge", "flush_memory"):
        assert tools[name]["parameters"] == builtins[name]["parameters"]
        assert tools[name]["description"] == builtins[name]["description"]


def test_the_two_formats_carry_the_same_definitions(bitmall, post):
    openai = openai_by_name(rounds(post, 2, "openai")["tools"])
    anthropic = anthropic_by_name(rounds(post, 2, "anthropic")["tools"])
    assert openai == anthropic


def test_names_is_the_default_and_the_shape_of_today(bitmall, post):
    default, names = rounds(post, 1, None), rounds(post, 1, "names")
    assert default == names
    assert "tools" not in default and "tools_chars" not in default
    assert default["count"] == 11


@pytest.mark.parametrize("value", ["xml", "OpenAI", "", "format"])
def test_an_unknown_tools_format_is_refused_naming_it(bitmall, post, value):
    error = error_of(post(ROUNDS, {"messages": [USER], "tools_format": value}), 400)
    assert error["code"] == "invalid"
    if value:
        assert error["details"] == {
            "tools_format": [f"unknown tools_format '{value}'; choose one of: names, openai, anthropic."]
        }
    else:
        assert list(error["details"]) == ["tools_format"]


def test_a_disabled_skill_leaves_the_enum_and_the_description(bitmall, post):
    services.skill_set_enabled(skill=Skill.objects.get(skill_code="iot_bundle"), enabled=False)
    publish_draft()
    load = openai_by_name(rounds(post, 1, "openai")["tools"])["load_skill"]
    assert load["parameters"]["properties"]["skill_code"]["enum"] == ENABLED_CODES[:4]
    assert "iot_bundle" not in load["description"]
    assert len(load["description"].split("\n")) == 3 + 4


def test_the_header_setting_opens_the_description(bitmall, post):
    services.load_skill_header_set(header="第一行\n第二行")
    publish_draft()
    load = openai_by_name(rounds(post, 1, "openai")["tools"])["load_skill"]
    assert load["description"].split("\n")[:3] == [
        "第一行",
        "第二行",
        "- after_sale_apply（售后申请）：用户要对已签收的商品退货、换货或仅退款时加载：核对售后条件、七天无理由规则和凭证，确认后提交售后申请。",
    ]
