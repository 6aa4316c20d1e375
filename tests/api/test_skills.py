"""GET /api/v1/runtime/skills/{code} (docs/runtime-api.md): 200 manual, 404 unknown or disabled, 400 malformed."""

from __future__ import annotations

import hashlib

import pytest

from skills_app.catalog import services
from skills_app.models import Skill
from tests.api.support import error_of, publish, skill_url

ON_OFFER = "after_sale_apply, order_change, fault_diagnosis, order_checkout, iot_bundle"
PATTERN = "must start with a lowercase letter and use only lowercase letters, digits and single '_' or '-' separators."


def test_returns_the_manual_and_its_version(bitmall, api_client):
    skill = Skill.objects.get(skill_code="order_change")
    response = api_client.get(skill_url("order_change"))
    assert response.status_code == 200
    assert response.json() == {
        "release": 1,
        "code": "order_change",
        "name": skill.name,
        "version": skill.version,
        "content": skill.content,
        "content_sha256": hashlib.sha256(skill.content.encode("utf-8")).hexdigest(),
        "tool_ids": ["cancel_order", "change_address"],
        "tools": [
            {"name": "cancel_order", "server": None, "mcp_name": None},
            {"name": "change_address", "server": None, "mcp_name": None},
        ],
    }


def test_an_edit_is_served_with_the_new_version_once_published(bitmall, api_client):
    skill = Skill.objects.get(skill_code="order_change")
    services.skill_update(skill=skill, content="# 订单修改\n\n新版手册。")
    body = api_client.get(skill_url("order_change")).json()
    assert (body["release"], body["content"], body["version"]) == (1, skill.content, skill.version)
    assert publish() == 2
    body = api_client.get(skill_url("order_change")).json()
    assert (body["release"], body["content"], body["version"]) == (2, "# 订单修改\n\n新版手册。", skill.version + 1)


def test_unknown_code_is_404_naming_the_skills_on_offer(bitmall, api_client):
    error = error_of(api_client.get(skill_url("no_such_skill")), 404)
    assert error == {
        "code": "skill_not_found",
        "message": f"skill 'no_such_skill' is unknown or disabled; skills on offer: {ON_OFFER}",
        "details": {"skill_code": "no_such_skill", "known": ON_OFFER.split(", ")},
    }


def test_disabled_skill_is_404(bitmall, api_client):
    services.skill_set_enabled(skill=Skill.objects.get(skill_code="iot_bundle"), enabled=False)
    publish()
    error = error_of(api_client.get(skill_url("iot_bundle")), 404)
    assert error["code"] == "skill_not_found"
    assert error["message"] == (
        "skill 'iot_bundle' is unknown or disabled; skills on offer: "
        "after_sale_apply, order_change, fault_diagnosis, order_checkout"
    )


def test_deleted_skill_is_404(bitmall, api_client):
    services.skill_delete(skill=Skill.objects.get(skill_code="fault_diagnosis"))
    publish()
    assert error_of(api_client.get(skill_url("fault_diagnosis")), 404)["code"] == "skill_not_found"


@pytest.mark.parametrize(
    ("raw", "code", "message"),
    [
        ("..%2F..%2Fsecret", "../../secret", f"skill code '../../secret' {PATTERN}"),
        ("..", "..", f"skill code '..' {PATTERN}"),
        ("Bad", "Bad", f"skill code 'Bad' {PATTERN}"),
        ("order__change", "order__change", f"skill code 'order__change' {PATTERN}"),
        ("a", "a", "skill code 'a' must be 2–64 characters long."),
        ("a" * 65, "a" * 65, f"skill code '{'a' * 65}' must be 2–64 characters long."),
    ],
)
def test_malformed_code_is_400_before_anything_is_read(
    bitmall, api_client, django_assert_max_num_queries, raw, code, message
):
    with django_assert_max_num_queries(2):  # the key lookup and its last-used stamp only
        response = api_client.get(skill_url(raw))
    assert error_of(response, 400) == {
        "code": "invalid_skill_code",
        "message": message,
        "details": {"skill_code": code},
    }


def test_an_unknown_release_is_404(bitmall, api_client):
    assert error_of(api_client.get(skill_url("order_change"), {"release": 2}), 404)["code"] == "release_not_found"
