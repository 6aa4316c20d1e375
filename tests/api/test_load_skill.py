"""POST /api/v1/runtime/load-skill: the load_skill tool result under the repeat-load rule (docs/rule.md)."""

from __future__ import annotations

import pytest

from skills_app.catalog import services
from skills_app.models import Skill
from tests.api.support import EVICTED, LOAD_SKILL, MARKER, USER, call, error_of, publish, result

ON_OFFER = "after_sale_apply, order_change, fault_diagnosis, order_checkout, iot_bundle"


def load(post, messages, code="order_change"):
    response = post(LOAD_SKILL, {"messages": messages, "skill_code": code})
    assert response.status_code == 200, response.content
    return response.json()


def retained(body, call_id="c1"):
    """The call and the result a runtime appends after a load-skill answer."""
    return [
        call("load_skill", {"skill_code": "order_change"}, call_id),
        result(body["content"], call_id, state=body["state"], metadata=body["metadata"]),
    ]


def test_first_load_returns_the_full_manual_with_the_marker(bitmall, post):
    skill = Skill.objects.get(skill_code="order_change")
    assert load(post, [USER]) == {
        "release": 1,
        "state": "success",
        "content": skill.content,
        "metadata": {MARKER: "order_change", "skill_version": skill.version},
        "already_loaded": False,
        "version": skill.version,
    }


def test_repeat_load_returns_a_stub_without_the_marker(bitmall, post):
    skill = Skill.objects.get(skill_code="order_change")
    first = load(post, [USER])
    again = load(post, [USER, *retained(first)])
    assert again["already_loaded"] is True
    assert again["state"] == "success"
    assert MARKER not in again["metadata"]
    assert again["metadata"] == {"already_loaded": True, "skill_code": "order_change", "skill_version": skill.version}
    assert again["content"] != skill.content
    assert "order_change" in again["content"]


def test_the_stub_itself_does_not_count_as_a_loaded_manual(bitmall, post):
    first = load(post, [USER])
    stub = load(post, [USER, *retained(first)])
    # the full result compacted away, only the stub retained → the full body again
    assert load(post, [USER, *retained(stub, "c2")])["already_loaded"] is False


def test_after_eviction_the_full_manual_comes_back(bitmall, post):
    first = load(post, [USER])
    evicted = {**first, "content": EVICTED}
    again = load(post, [USER, *retained(evicted)])
    assert again["already_loaded"] is False
    assert again["metadata"][MARKER] == "order_change"
    assert again["content"] == first["content"]


def test_after_an_error_result_the_full_manual_comes_back(bitmall, post):
    first = load(post, [USER])
    failed = {**first, "state": "error"}
    assert load(post, [USER, *retained(failed)])["already_loaded"] is False


def test_a_new_version_returns_the_full_manual_again(bitmall, post):
    first = load(post, [USER])
    skill = Skill.objects.get(skill_code="order_change")
    services.skill_update(skill=skill, content=skill.content + "\n\n新增：取消后告知退款时效。")
    publish()
    again = load(post, [USER, *retained(first)])
    assert again["already_loaded"] is False
    assert again["version"] == first["version"] + 1
    assert again["metadata"] == {MARKER: "order_change", "skill_version": first["version"] + 1}
    assert again["content"].endswith("新增：取消后告知退款时效。")


def test_unknown_code_is_404_naming_the_skills_on_offer(bitmall, post):
    error = error_of(post(LOAD_SKILL, {"messages": [], "skill_code": "no_such_skill"}), 404)
    assert error == {
        "code": "skill_not_found",
        "message": f"unknown skill 'no_such_skill'; skills on offer: {ON_OFFER}",
        "details": {"skill_code": "no_such_skill", "known": ON_OFFER.split(", ")},
    }


def test_disabled_code_is_404(bitmall, post):
    services.skill_set_enabled(skill=Skill.objects.get(skill_code="order_change"), enabled=False)
    publish()
    error = error_of(post(LOAD_SKILL, {"messages": [], "skill_code": "order_change"}), 404)
    assert error["code"] == "skill_not_found"
    assert error["details"]["known"] == ["after_sale_apply", "fault_diagnosis", "order_checkout", "iot_bundle"]


@pytest.mark.parametrize("code", ["../../secret", "Order_Change", "x"])
def test_malformed_code_is_400(bitmall, post, code):
    error = error_of(post(LOAD_SKILL, {"messages": [], "skill_code": code}), 400)
    assert error["code"] == "invalid_skill_code"
    assert error["details"] == {"skill_code": code}
    assert error["message"].startswith(f"skill code '{code}' must")


def test_skill_code_is_required(bitmall, post):
    error = error_of(post(LOAD_SKILL, {"messages": []}), 400)
    assert error["code"] == "invalid"
    assert list(error["details"]) == ["skill_code"]
