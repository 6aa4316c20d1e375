"""Access profiles and stages: list, create/edit through the services (errors name the tool)."""

from __future__ import annotations

from skills_app.models import AccessProfile, Stage
from tests.views.html import parse


def test_list_shows_profiles_and_stages_with_their_tools(staff_client, returns):
    doc = parse(staff_client.get("/restrictions/").content)
    assert doc.values("data-restriction") == [
        "profile:member_full",
        "profile:no_business_tools",
        "stage:prepare",
        "stage:query",
    ]
    assert doc.one("data-restriction", "stage:prepare").values("data-allowed-tool") == ["order_query", "prepare_return"]


def test_create_stage(staff_client, returns):
    response = staff_client.post("/restrictions/stage/new", {"name": "submit-only", "tools": ["submit"]})
    assert response.status_code == 302
    assert Stage.objects.get(name="submit-only").tools == ["submit"]


def test_unregistered_tool_is_refused_by_name(staff_client, returns):
    doc = parse(
        staff_client.post(
            "/restrictions/profile/new", {"name": "guest", "tools": ["policy_search", "teleport"]}
        ).content
    )
    assert "teleport" in doc.one("data-errors-for", "tools").text()
    assert "is-unregistered" in doc.one("data-tool-option", "teleport")["class"]
    assert not AccessProfile.objects.filter(name="guest").exists()


def test_edit_profile(staff_client, returns):
    response = staff_client.post(
        "/restrictions/profile/member_full/edit",
        {"name": "member_full", "description": "d", "tools": ["policy_search"]},
    )
    assert response.status_code == 302
    assert AccessProfile.objects.get(name="member_full").tools == ["policy_search"]


def test_create_refuses_an_existing_name(staff_client, returns):
    doc = parse(staff_client.post("/restrictions/stage/new", {"name": "query", "tools": []}).content)
    assert "query" in doc.one("data-errors-for", "name").text()
    assert Stage.objects.get(name="query").tools == ["policy_search", "order_query"]


def test_unknown_kind_or_name_is_404(staff_client, returns):
    assert staff_client.get("/restrictions/planet/new").status_code == 404
    assert staff_client.get("/restrictions/stage/nope/edit").status_code == 404
