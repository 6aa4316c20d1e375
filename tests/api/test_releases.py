"""The runtime reads releases only (docs/releases.md): no release → 404 ``no_release``; the
default is the release labelled ``production``, else the latest; ``?release=N`` / ``?label=NAME``
pin one; ``?draft=1`` only for keys allowed to read drafts; ETag = the release sha256; runtime
keys open the runtime API only and a revoked key is refused at once."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from skills_app.catalog import services
from skills_app.keys.services import api_key_create, api_key_revoke
from skills_app.models import IntentNode, Release, Skill
from skills_app.releases.services import COMMAND_LINE, PublishRefused, label_move, release_rollback
from tests.api.support import CATALOG, CHECK_CALL, LOAD_SKILL, ROUNDS, USER, error_of, loaded, publish
from tests.views.html import parse

MASKED_R1 = {
    "apply_after_sale": "after_sale_apply",
    "cancel_order": "order_change",
    "change_address": "order_change",
    "update_cart_item": "order_checkout",
    "create_order": "order_checkout",
    "pay_order": "order_checkout",
}


def _command(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def _client(key: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return c


def test_empty_database_answers_no_release_then_load_demo_publishes_release_1(db, api_client):
    error = error_of(api_client.get(CATALOG, HTTP_ACCEPT_LANGUAGE="en"), 404)
    assert error == {
        "code": "no_release",
        "message": "no release has been published yet; publish one in the console (/publish/) or with "
        "'python manage.py publish --note TEXT'",
        "details": {"hint": "python manage.py publish --note TEXT"},
    }
    assert error_of(api_client.post(ROUNDS, {"messages": []}, format="json"), 404)["code"] == "no_release"

    assert "published release 1 (demo catalog 'bitmall'); the runtime serves it" in _command("load_demo")
    first = api_client.get(CATALOG)
    assert (first.status_code, first.json()["release"]) == (200, 1)
    assert first["ETag"] == f'"{Release.objects.get(number=1).sha256}"'
    assert api_client.get(CATALOG, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304

    skill = Skill.objects.get(skill_code="fault_diagnosis")
    services.skill_update(skill=skill, description="电器故障排查：先问型号与现象。")
    assert _command("publish", "--note", "second") == "2\n"
    second = api_client.get(CATALOG, HTTP_IF_NONE_MATCH=first["ETag"])
    assert (second.status_code, second.json()["release"]) == (200, 2)
    assert second["ETag"] == f'"{Release.objects.get(number=2).sha256}"' != first["ETag"]
    assert second["Cache-Control"] == "private, no-cache"


def test_release_1_serves_the_seed_session_11_13_13(bitmall, post):
    conversation = [USER, *loaded("order_change", call_id="c1")]
    query = {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "name": "query_order", "arguments": {}}]}
    rounds = [
        post(ROUNDS, {"messages": conversation[:1]}).json(),
        post(ROUNDS, {"messages": conversation}).json(),
        post(
            ROUNDS, {"messages": [*conversation, query, {"role": "tool", "tool_call_id": "c2", "content": "五笔订单"}]}
        ).json(),
    ]
    assert [(r["release"], r["count"]) for r in rounds] == [(1, 11), (1, 13), (1, 13)]
    assert rounds[0]["masked"] == MASKED_R1
    verdict = post(CHECK_CALL, {"messages": [USER], "call": {"name": "cancel_order", "arguments": {"order_no": "1"}}})
    assert (verdict.json()["verdict"], verdict.json()["reason"], verdict.json()["skill_code"]) == (
        "refused",
        "masked",
        "order_change",
    )


def test_load_skill_on_release_1_stub_on_repeat_and_full_body_after_eviction(bitmall, post):
    first = post(LOAD_SKILL, {"messages": [USER], "skill_code": "order_change"}).json()
    retained = [
        USER,
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": "order_change"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": first["content"], "metadata": first["metadata"]},
    ]
    again = post(LOAD_SKILL, {"messages": retained, "skill_code": "order_change"}).json()
    assert (again["release"], again["already_loaded"], "ragent_loaded_skill" in again["metadata"]) == (1, True, False)
    retained[-1] = {**retained[-1], "content": "[历史工具结果已省略，原长 2048 字]"}
    after = post(LOAD_SKILL, {"messages": retained, "skill_code": "order_change"}).json()
    assert (after["already_loaded"], after["content"]) == (False, first["content"])


def test_an_edit_changes_the_draft_not_the_runtime_until_published_and_rollback_restores(bitmall, post, staff_client):
    skill = Skill.objects.get(skill_code="order_change")
    services.skill_update(skill=skill, tool_ids=["cancel_order"])
    draft = staff_client.post(f"{ROUNDS}?draft=1", {"messages": [USER]}, content_type="application/json").json()
    assert (draft["release"], "change_address" in draft["masked"], draft["count"]) == (None, False, 12)
    preview = parse(staff_client.get("/preview/", {"scenario": "cancel-iphone"}).content)
    assert [r["data-count"] for r in preview.select("data-round", tag="section")] == ["12", "13", "13"]
    assert post(ROUNDS, {"messages": [USER]}).json()["masked"] == MASKED_R1

    assert publish() == 2
    served = post(ROUNDS, {"messages": [USER]}).json()
    assert (served["release"], served["count"], "change_address" in served["masked"]) == (2, 12, False)

    release_rollback(user=COMMAND_LINE, number=1, note="back")
    rolled = post(ROUNDS, {"messages": [USER]}).json()
    assert (rolled["release"], rolled["count"], rolled["masked"]) == (3, 11, MASKED_R1)
    assert Release.objects.get(number=3).sha256 == Release.objects.get(number=1).sha256
    assert Release.objects.get(number=3).rollback_of == 1


def test_production_label_wins_over_the_latest_and_labels_pin(bitmall, api_client):
    services.skill_update(skill=Skill.objects.get(skill_code="fault_diagnosis"), description="新版说明。")
    publish()
    assert api_client.get(CATALOG).json()["release"] == 2
    label_move(user=COMMAND_LINE, label="production", number=1)
    label_move(user=COMMAND_LINE, label="staging", number=2)
    assert api_client.get(CATALOG).json()["release"] == 1
    assert api_client.get(CATALOG, {"label": "staging"}).json()["release"] == 2
    assert api_client.get(CATALOG, {"release": 2}).json()["release"] == 2
    assert api_client.post(ROUNDS, {"messages": [], "label": "staging"}, format="json").json()["release"] == 2
    error = error_of(api_client.get(CATALOG, {"label": "canary"}), 404)
    assert error["message"] == "label 'canary' does not exist; labels: production, staging"
    both = error_of(api_client.get(CATALOG, {"label": "staging", "release": 1}), 400)
    assert both["code"] == "conflicting_selectors"


def test_draft_only_for_keys_allowed_to_read_drafts(bitmall, api_client):
    services.skill_update(skill=Skill.objects.get(skill_code="fault_diagnosis"), description="草稿说明。")
    error = error_of(api_client.get(CATALOG, {"draft": 1}), 403)
    assert error["code"] == "drafts_not_allowed"
    drafts = _client(api_key_create(user=COMMAND_LINE, name="preview", read_drafts=True).key)
    body = drafts.get(CATALOG, {"draft": 1}).json()
    assert body["release"] is None
    assert next(s for s in body["skills"] if s["code"] == "fault_diagnosis")["description"] == "草稿说明。"
    assert drafts.get(CATALOG).json()["release"] == 1


def test_a_revoked_key_is_401_at_once_and_last_use_is_recorded(bitmall, runtime_key):
    client = _client(runtime_key.key)
    assert client.get(CATALOG).status_code == 200
    runtime_key.record.refresh_from_db()
    assert runtime_key.record.last_used_at is not None
    api_key_revoke(user=COMMAND_LINE, name="test-runtime")
    assert error_of(client.get(CATALOG), 401)["code"] == "authentication_failed"


@pytest.mark.parametrize("url", ["/skills/", "/publish/", "/releases/", "/admin/"])
def test_a_runtime_key_opens_no_console_page(bitmall, runtime_key, client, url):
    response = client.get(url, HTTP_AUTHORIZATION=f"Bearer {runtime_key.key}")
    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_a_skill_gating_a_disabled_tool_refuses_publish_with_the_reason(bitmall):
    IntentNode.objects.filter(mcp_tool_id="cancel_order").update(enabled=False)
    with pytest.raises(PublishRefused) as refused:
        publish()
    assert [str(r.message) for r in refused.value.reasons] == [
        "skill 'order_change' gates cancel_order, which is not a registered tool (unknown, or its MCP node is disabled)"
    ]
