"""The publish page refuses a draft a configured provider target would refuse (docs/providers.md),
lists each problem, and publishes once it is ticked off with a reason — like an unmet expectation."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from skills_app.models import McpTool, Release
from skills_app.releases.services import COMMAND_LINE, PublishRefused, release_publish
from tests.views.html import parse

KEY = "payload:anthropic_messages:query_order:top_level_combinator"


@pytest.fixture
def combinator(bitmall):
    release_publish(user=COMMAND_LINE, note="demo")
    tool = McpTool.objects.get(name="query_order")
    tool.input_schema = {**tool.input_schema, "anyOf": [{"required": ["order_no"]}]}
    tool.save()


def test_the_demo_publishes_with_no_provider_problem(staff_client, bitmall):
    doc = parse(staff_client.get("/publish/").content)
    assert doc.select("data-payload-reason") == [] and doc.one("data-gate-open") is not None


def test_a_refused_round_is_listed_and_publishes_once_ticked_off_with_a_reason(staff_client, combinator):
    doc = parse(staff_client.get("/publish/").content)
    assert doc.one("data-payload-refused")["data-payload-refused"] == "1"
    [reason] = doc.select("data-payload-reason")
    assert " ".join(reason.text().split()) == (
        "Anthropic Messages 会拒绝整个请求：Anthropic Messages 拒绝 query_order：模式顶层有 anyOf"
        "（首次：场景 cancel-iphone 第 1 轮；涉及轮次：4）"
    )
    assert [i["value"] for i in doc.select("name", tag="input") if i["name"] == "override"] == [KEY]
    response = staff_client.post("/publish/", {"note": "anyOf", "override": [KEY]})
    assert response.status_code == 400 and Release.objects.count() == 1  # a tick needs its reason
    response = staff_client.post("/publish/", {"note": "anyOf"})
    assert response.status_code == 400 and Release.objects.count() == 1
    response = staff_client.post("/publish/", {"note": "anyOf", "override": [KEY], "override_note": "Claude off"})
    assert response.status_code == 302
    assert (Release.objects.get(number=2).overrides, Release.objects.get(number=2).override_note) == (
        [KEY],
        "Claude off",
    )


def test_the_service_refuses_naming_the_problem(combinator):
    with pytest.raises(PublishRefused) as caught:
        release_publish(user=COMMAND_LINE, note="anyOf")
    assert [r.key for r in caught.value.reasons] == [KEY]
    assert str(caught.value.reasons[0].message) == (
        "Anthropic Messages would refuse the request: the schema of 'query_order' has 'anyOf' at the top level "
        "(first: scenario 'cancel-iphone' round 1; rounds: 4)"
    )
    with pytest.raises(ValidationError):
        release_publish(user=COMMAND_LINE, note="anyOf", overrides=[KEY])  # no reason given
    assert release_publish(user=COMMAND_LINE, note="anyOf", overrides=[KEY], override_note="Claude off").number == 2
