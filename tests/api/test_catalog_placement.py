"""Where the catalog goes (docs/runtime-api.md, "Where the catalog goes"; issue 23 item 3): a
catalog of 60 skills published with the ``system_prompt`` placement answers ``catalog_text`` with
60 lines, ``load_skill``'s description is the header alone and its ``skill_code`` enum keeps all 60
codes; at the default placement nothing of the answers changes."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from skill_rule.limits import DEFAULT_LOAD_SKILL_HEADER
from skill_rule.payload import SKILL_CODE_DESCRIPTION_SYSTEM_PROMPT
from skills_app.catalog import services
from skills_app.models import ConsoleSettings, Release
from skills_app.releases import services as releases
from tests.api.support import CATALOG, ROUNDS, USER

BITMALL_LINES = [
    "- after_sale_apply（售后申请）：用户要对已签收的商品退货、换货或仅退款时加载：核对售后条件、七天无理由规则和凭证，"
    "确认后提交售后申请。",
    "- order_change（订单修改）：用户要取消订单或修改收货地址时加载：先查订单状态，按待支付、待发货、已发货、已签收四种"
    "状态分别处理，讲清退款与优惠券后再确认执行。",
    "- fault_diagnosis（故障诊断）：用户反映购买的设备不工作、报错或异常时加载：按步骤排查常见故障，排查无果再提交报修工单。",
    "- order_checkout（下单结算）：用户要加购、结算、下单或付款时加载：核对购物车和优惠券，先建单再支付，每一步金额都要用户确认。",
    "- iot_bundle（智能家居套装）：用户咨询智能家居套装或多件智能设备搭配时加载：核对网关协议、App 生态和安装条件，"
    "给出兼容的组合建议。",
]
BITMALL_CODES = ["after_sale_apply", "order_change", "fault_diagnosis", "order_checkout", "iot_bundle"]
EXTRA_CODES = [f"extra_{n:02d}" for n in range(1, 56)]
EXTRA_LINES = [f"- extra_{n:02d}（附加业务{n:02d}）：第 {n:02d} 类附加业务的处理说明。" for n in range(1, 56)]


def add_55_skills() -> None:
    """55 skills after bitmall's five (sort_order 100…154): 60 in all."""
    for n in range(1, 56):
        services.skill_create(
            skill_code=f"extra_{n:02d}",
            name=f"附加业务{n:02d}",
            description=f"第 {n:02d} 类附加业务的处理说明。",
            content=f"# 附加业务 {n:02d}\n\n按步骤处理。",
            sort_order=99 + n,
        )


def publish(note: str) -> Release:
    return releases.release_publish(user=releases.COMMAND_LINE, note=note)


def rounds(post, **body):
    response = post(ROUNDS, {"messages": [USER], **body})
    assert response.status_code == 200, response.content
    return response.json()


def test_sixty_skills_in_the_system_prompt(bitmall, post, api_client):
    add_55_skills()
    # in load_skill's description (the default) the 60 lines are too long for OpenAI Chat
    # Completions: the publish gate refuses it (docs/providers.md)
    with pytest.raises(releases.PublishRefused) as refused:
        publish("60 skills, catalog in load_skill")
    assert [r.key for r in refused.value.reasons] == ["payload:openai_chat:load_skill:description_length"]
    assert Release.objects.count() == 1
    services.catalog_placement_set(placement="system_prompt")
    release = publish("60 skills, catalog in the system prompt")
    assert (release.number, release.snapshot["settings"]["catalog_placement"]) == (2, "system_prompt")

    answer = rounds(post, tools_format="openai")
    assert answer["release"] == 2
    lines = answer["catalog_text"].split("\n")
    assert len(lines) == 60
    assert lines == BITMALL_LINES + EXTRA_LINES
    load = next(t["function"] for t in answer["tools"] if t["function"]["name"] == "load_skill")
    assert load["description"] == DEFAULT_LOAD_SKILL_HEADER
    code = load["parameters"]["properties"]["skill_code"]
    assert code["enum"] == BITMALL_CODES + EXTRA_CODES
    assert len(code["enum"]) == 60
    assert code["description"] == "要加载的手册编码（skill_code），取值见系统提示中的手册清单。"
    assert code["description"] == SKILL_CODE_DESCRIPTION_SYSTEM_PROMPT
    assert answer["count"] == 11  # the extra skills gate nothing
    assert answer["payload_problems"] == []  # load_skill is the header alone: every target accepts it

    # the same block with the names format and with anthropic: it depends on the catalog alone
    assert rounds(post)["catalog_text"] == answer["catalog_text"]
    anthropic = rounds(post, tools_format="anthropic")
    assert anthropic["catalog_text"] == answer["catalog_text"]
    assert next(t for t in anthropic["tools"] if t["name"] == "load_skill")["description"] == DEFAULT_LOAD_SKILL_HEADER

    body = api_client.get(CATALOG).json()
    assert body["catalog_placement"] == "system_prompt"
    assert list(body)[:6] == [
        "release",
        "sha256",
        "marker_key",
        "eviction_prefix",
        "load_skill_header",
        "catalog_placement",
    ]


def test_the_default_placement_changes_nothing(bitmall, post, api_client):
    """At ``tool_description`` the answers, the catalog body and the snapshot carry no new key:
    release 1's sha256 is what the draft still hashes to."""
    answer = rounds(post, tools_format="openai")
    assert "catalog_text" not in answer
    load = next(t["function"] for t in answer["tools"] if t["function"]["name"] == "load_skill")
    assert load["description"].split("\n")[3:] == BITMALL_LINES
    assert "catalog_placement" not in api_client.get(CATALOG).json()
    assert "catalog_placement" not in Release.objects.get(number=1).snapshot["settings"]
    from skills_app.releases.selectors import draft_sha256

    assert draft_sha256() == Release.objects.get(number=1).sha256


def test_back_to_the_tool_description(bitmall, post):
    services.catalog_placement_set(placement="system_prompt")
    publish("catalog in the system prompt")
    assert rounds(post)["catalog_text"] == "\n".join(BITMALL_LINES)
    services.catalog_placement_set(placement="tool_description")
    release = publish("catalog back in load_skill")
    assert "catalog_placement" not in release.snapshot["settings"]
    assert "catalog_text" not in rounds(post)
    assert release.sha256 == Release.objects.get(number=1).sha256


def test_an_unknown_placement_is_refused_and_nothing_is_saved(bitmall):
    with pytest.raises(ValidationError) as exc:
        services.catalog_placement_set(placement="banner")
    assert exc.value.message_dict == {"catalog_placement": ["值 'banner' 不是有效选项。"]}
    assert ConsoleSettings.current().catalog_placement == "tool_description"
