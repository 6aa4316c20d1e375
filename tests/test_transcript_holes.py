"""Smaller holes of issue 7 (docs/transcripts.md): tool definitions refused where they enter,
one-line descriptions, the edit form's base_version, and padded skill codes."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from skill_rule import SkillValidationError
from skill_rule.validation import ToolRegistry, clean_skill
from skills_app.mcp import services
from skills_app.models import McpTool, Skill
from tests.api.support import CHECK_CALL, LOAD_SKILL, error_of, publish_draft


# --- tool definitions enter validated -----------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "schema", "field", "message"),
    [
        (
            "cancel_\u043erder",
            {"type": "object"},
            "name",
            "tool name 'cancel_\u043erder' must be 1–64 ASCII letters, digits, '_' or '-' (what OpenAI and Anthropic "
            "accept).",
        ),
        (
            "ok_tool",
            {"type": "object", "properties": {"a": {"$ref": "#/x"}}},
            "input_schema",
            "inputSchema $ref '#/x' does not resolve.",
        ),
        ("ok_tool", {"type": "string"}, "input_schema", 'inputSchema must have "type": "object", got \'string\'.'),
    ],
)
def test_mcp_tool_save_refuses_a_bad_definition_and_saves_nothing(db, settings, name, schema, field, message):
    settings.LANGUAGE_CODE = "en"
    with pytest.raises(ValidationError) as exc:
        services.mcp_tool_save(name=name, input_schema=schema)
    assert exc.value.message_dict[field] == [message]
    assert not McpTool.objects.exists()


def test_the_admin_refuses_a_lookalike_tool_name_with_a_form_error(admin_client, bitmall):
    response = admin_client.post(
        "/admin/skills_app/mcptool/add/",
        {
            "name": "pay_\u043erder",
            "title": "",
            "description": "",
            "input_schema": '{"type": "object"}',
            "annotations": "{}",
            "server": "",
        },
    )
    assert response.status_code == 200
    assert "pay_\u043erder" in response.content.decode() and "ASCII" in response.content.decode()
    assert not McpTool.objects.filter(name="pay_\u043erder").exists()


def test_the_admin_refuses_a_lookalike_tool_id_on_an_intent_node(admin_client, bitmall):
    from skills_app.models import IntentNode

    parent = IntentNode.objects.filter(level=1).first()
    response = admin_client.post(
        "/admin/skills_app/intentnode/add/",
        {
            "intent_code": "lookalike",
            "name": "x",
            "parent": parent.pk,
            "kind": "MCP",
            "mcp_tool_id": "cancel_\u043erder",
            "description": "",
            "examples": "[]",
            "sort_order": "0",
            "enabled": "on",
        },
    )
    assert response.status_code == 200
    assert not IntentNode.objects.filter(intent_code="lookalike").exists()


# --- one-line descriptions ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "brk",
    ["\n", "\r", "\u2028", "\u2029", "\u0085", "\v", "\f"],
    ids=["LF", "CR", "U+2028", "U+2029", "U+0085", "VT", "FF"],
)
def test_a_description_with_any_line_break_is_refused(brk):
    with pytest.raises(SkillValidationError) as exc:
        clean_skill(
            skill_code="ab",
            name="A",
            description=f"first{brk}second",
            content="# m",
            tool_ids=(),
            registry=ToolRegistry(enabled=frozenset()),
        )
    assert [p.code for p in exc.value.problems["description"]] == ["description_multiline"]


# --- base_version is required on edit ----------------------------------------------------------
def test_an_edit_without_base_version_is_refused_and_saves_nothing(staff_client, bitmall):
    skill = Skill.objects.get(skill_code="order_change")
    data = {
        "name": skill.name,
        "description": skill.description,
        "content": skill.content + "\n新的一行\n",
        "tool_ids": list(skill.tool_ids),
        "sort_order": str(skill.sort_order),
        "enabled": "on",
    }
    response = staff_client.post("/skills/order_change/edit", data)
    assert response.status_code == 200
    assert "表单没有说明你编辑的是哪个版本" in response.content.decode()
    skill.refresh_from_db()
    assert skill.version == 1 and not skill.content.endswith("新的一行\n")


# --- padded codes: load-skill and check-call both refuse, naming the code ------------------------
def test_a_padded_code_is_refused_by_load_skill_and_check_call(bitmall, api_client):
    publish_draft()
    error = error_of(
        api_client.post(LOAD_SKILL, format="json", data={"messages": [], "skill_code": "order_change\n"}), 400
    )
    assert error["code"] == "invalid_skill_code" and error["details"] == {"skill_code": "order_change\n"}
    verdict = api_client.post(
        CHECK_CALL,
        format="json",
        data={"messages": [], "call": {"name": "load_skill", "arguments": {"skill_code": "order_change\n"}}},
    ).json()
    assert (verdict["verdict"], verdict["reason"]) == ("refused", "unknown_skill")
    assert verdict["message"].startswith("unknown skill 'order_change\\n'; skills on offer: ")


def test_a_padded_tool_name_is_an_unknown_tool_not_trimmed(bitmall, api_client):
    publish_draft()
    verdict = api_client.post(
        CHECK_CALL, format="json", data={"messages": [], "call": {"name": "query_order\n", "arguments": {}}}
    ).json()
    assert (verdict["verdict"], verdict["reason"]) == ("refused", "unknown_tool")
    assert verdict["message"].startswith("unknown tool 'query_order\\n'; tools on offer: ")
