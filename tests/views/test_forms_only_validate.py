"""Forms validate, services write (STYLE "Forms validate; services write", issue 24).

Binding valid data to any console form and reading ``is_valid()`` / ``errors`` leaves every table
as it was — the records, their history (``simple_history``) and the audit entries — while the view
that uses the form still saves the record through its service."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.http import QueryDict

from skills_app.catalog import selectors
from skills_app.catalog.forms import IntentNodeForm, RestrictionForm, SkillForm
from skills_app.mcp.forms import McpServerForm
from skills_app.models import AccessProfile, IntentNode, McpServer, Scenario, Skill, Stage
from skills_app.reports.forms import InsightsFilterForm
from skills_app.simulation.forms import PreviewForm, ScenarioForm
from tests.views.test_scenarios import SCRIPT


def row_counts() -> dict[str, int]:
    """Rows of every table of every installed app, by model label."""
    return {m._meta.label: m._base_manager.count() for m in apps.get_models()}


def bound(data: dict) -> QueryDict:
    """``data`` as a POST body (lists become repeated keys, as a browser sends them)."""
    post = QueryDict(mutable=True)
    for key, value in data.items():
        if isinstance(value, list):
            post.setlist(key, value)
        else:
            post[key] = value
    return post


def _skill_new():
    return SkillForm(
        bound(
            {
                "skill_code": "brand_new",
                "name": "Brand new",
                "description": "When a brand is new.",
                "content": "# Manual\nSay hello.",
                "tool_ids": ["cancel_order"],
                "sort_order": "5",
                "enabled": "on",
            }
        )
    )


def _skill_edit():
    skill = Skill.objects.get(skill_code="order_change", deleted_at__isnull=True)
    return SkillForm(
        bound(
            {
                "name": skill.name,
                "description": skill.description,
                "content": skill.content + "\nMore.",
                "tool_ids": list(skill.tool_ids),
                "sort_order": str(skill.sort_order),
                "enabled": "on",
                "base_version": str(skill.version),
                "base_enabled": "1",
                "base_sort_order": str(skill.sort_order),
            }
        ),
        skill=skill,
    )


def _scenario_new():
    return ScenarioForm(bound({"name": "quick", "description": "d", "script": SCRIPT}))


def _scenario_edit():
    scenario = Scenario.objects.get(name="cancel-iphone")
    return ScenarioForm(
        bound({"name": "cancel-iphone", "description": "new words", "script": SCRIPT}), scenario=scenario
    )


def _restriction(kind: str):
    def build():
        return RestrictionForm(
            bound({"name": f"new-{kind}", "description": "d", "tools": ["cancel_order"]}), kind=kind, existing=()
        )

    return build


def _server_new():
    return McpServerForm(
        bound(
            {
                "name": "crm",
                "transport": "streamable-http",
                "url": "http://127.0.0.1:9/mcp",
                "timeout_seconds": "20",
                "enabled": "on",
            }
        )
    )


def _node_new():
    return IntentNodeForm(
        bound(
            {
                "intent_code": "brand_topic",
                "name": "Brand",
                "parent": "",
                "kind": "SYSTEM",
                "sort_order": "3",
                "enabled": "on",
            }
        ),
        parents=IntentNode.objects.filter(deleted_at__isnull=True, level__lt=2),
    )


def _preview():
    return PreviewForm(
        bound({"script": SCRIPT}), scenarios=list(Scenario.objects.all()), catalog=selectors.catalog_draft()
    )


FORMS = {
    "skill-create": _skill_new,
    "skill-edit": _skill_edit,
    "scenario-create": _scenario_new,
    "scenario-edit": _scenario_edit,
    "profile": _restriction("profile"),
    "stage": _restriction("stage"),
    "mcp-server": _server_new,
    "intent-node": _node_new,
    "preview": _preview,
    "insights-filter": lambda: InsightsFilterForm(
        bound({"release": "1", "since": "2026-11-01", "until": "2026-11-30"}), releases=[1]
    ),
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_a_valid_form_writes_nothing(bitmall, name):
    before = row_counts()
    assert {"skills_app.HistoricalSkill", "skills_app.Skill", "skills_app.Scenario"} <= set(before)
    form = FORMS[name]()
    assert not hasattr(form, "save")  # no form saves: the view calls the service
    assert form.is_valid(), form.errors
    assert form.errors == {}
    assert row_counts() == before


def test_a_valid_skill_form_gives_the_service_its_arguments(bitmall):
    form = _skill_new()
    assert form.is_valid()
    assert form.service_arguments() == {
        "skill_code": "brand_new",
        "user": None,
        "name": "Brand new",
        "description": "When a brand is new.",
        "content": "# Manual\nSay hello.",
        "tool_ids": ["cancel_order"],
        "sort_order": 5,
        "enabled": True,
    }
    edit = _skill_edit()
    assert edit.is_valid()
    arguments = edit.service_arguments()
    assert set(arguments) == {"skill", "user", "expected_version", "name", "description", "content", "tool_ids"}
    assert arguments["expected_version"] == arguments["skill"].version


def test_the_views_save_through_their_services(staff_client, admin_client, bitmall):
    before = row_counts()
    assert (
        staff_client.post(
            "/skills/new",
            {
                "skill_code": "brand_new",
                "name": "Brand new",
                "description": "When a brand is new.",
                "content": "# Manual",
                "sort_order": "0",
                "enabled": "on",
            },
        ).status_code
        == 302
    )
    assert staff_client.post("/scenarios/new", {"name": "quick", "script": SCRIPT}).status_code == 302
    assert (
        staff_client.post("/restrictions/profile/new", {"name": "guest", "tools": ["cancel_order"]}).status_code == 302
    )
    assert staff_client.post("/restrictions/stage/new", {"name": "late", "tools": []}).status_code == 302
    assert (
        admin_client.post(
            "/mcp/new",
            {
                "name": "crm",
                "transport": "streamable-http",
                "url": "http://127.0.0.1:9/mcp",
                "timeout_seconds": "20",
                "enabled": "on",
            },
        ).status_code
        == 302
    )
    assert (
        staff_client.post(
            "/tools/nodes/new",
            {"intent_code": "brand_topic", "name": "Brand", "kind": "SYSTEM", "sort_order": "3", "enabled": "on"},
        ).status_code
        == 302
    )
    assert Skill.objects.get(skill_code="brand_new").history.count() == 1
    assert Scenario.objects.filter(name="quick").exists()
    assert AccessProfile.objects.get(name="guest").tools == ["cancel_order"]
    assert Stage.objects.filter(name="late").exists()
    assert McpServer.objects.get(name="crm").url == "http://127.0.0.1:9/mcp"
    assert IntentNode.objects.get(intent_code="brand_topic").level == 0  # no parent: a root
    after = row_counts()
    for label in (
        "skills_app.Skill",
        "skills_app.HistoricalSkill",
        "skills_app.Scenario",
        "skills_app.AccessProfile",
        "skills_app.Stage",
        "skills_app.McpServer",
        "skills_app.IntentNode",
    ):
        assert after[label] == before[label] + 1, label


def test_a_refusal_of_the_service_lands_on_the_field_and_saves_nothing(staff_client, bitmall):
    before = row_counts()
    response = staff_client.post(
        "/skills/new",
        {
            "skill_code": "brand_new",
            "name": "Brand new",
            "description": "When a brand is new.",
            "content": "# Manual",
            "tool_ids": ["load_skill"],
            "sort_order": "0",
            "enabled": "on",
        },
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    assert "&#x27;load_skill&#x27; is a builtin tool and can never be gated by a skill." in response.content.decode()
    assert row_counts() == before


@pytest.fixture
def admin_client(django_user_model):
    """A superuser (the only one who may register an MCP server)."""
    from django.test import Client

    root = Client()
    root.force_login(django_user_model.objects.create_user(username="root", password="x-pass-123", is_superuser=True))
    return root
