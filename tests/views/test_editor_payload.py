"""The skill editor's live preview says what the provider targets would refuse with the draft in
the catalog (docs/providers.md): the round with every manual loaded, this draft among them — its
catalog line is in load_skill's description, so a longer description can make that tool too long
for OpenAI Chat Completions (1,024 characters)."""

from __future__ import annotations

from dataclasses import replace

from skill_rule.payload import load_skill_definition
from skills_app.catalog import selectors
from skills_app.models import Skill
from tests.views.html import parse
from tests.views.test_skills import edit_data

LONG = "退" * 480


def _rows(doc):
    return [
        (p["data-target"], p["data-tool"], p["data-rule"], p["data-action"]) for p in doc.select("data-payload-problem")
    ]


def _lengthen_after_sale():
    """Another skill, saved with a 480-character description: the catalog is near OpenAI's limit."""
    other = Skill.objects.get(skill_code="after_sale_apply")
    other.description = LONG
    other.save()


def _expected_length(description: str) -> int:
    draft = selectors.catalog_draft()
    changed = replace(draft.skill("order_change"), description=description)
    others = tuple(s for s in draft.skills if s.code != "order_change")
    return len(load_skill_definition(draft.with_skills((*others, changed))).description)


def test_the_live_preview_names_a_load_skill_description_past_openai_limit(staff_client, bitmall):
    _lengthen_after_sale()
    skill = Skill.objects.get(skill_code="order_change")
    staff_client.cookies["django_language"] = "en"
    # the catalog as saved: 1,024 characters or fewer, nothing refused, no panel
    assert _expected_length(skill.description) <= 1024
    doc = parse(staff_client.post("/skills/order_change/preview", edit_data(skill), HTTP_HX_REQUEST="true").content)
    assert doc.select("data-editor-payload-problems") == []
    assert doc.select("data-payload-problem") == []

    description = "说" * 490
    expected = _expected_length(description)
    assert expected == 1371  # the header and five lines, two of them 480 and 490 characters long
    response = staff_client.post(
        "/skills/order_change/preview", edit_data(skill, description=description), HTTP_HX_REQUEST="true"
    )
    doc = parse(response.content)
    assert doc.one("data-editor-payload-problems")["data-editor-payload-problems"] == "1"
    assert _rows(doc) == [("openai_chat", "load_skill", "description_length", "refused")]
    text = " ".join(doc.one("data-payload-problem").text().split())
    assert text == (
        f"refused OpenAI Chat Completions refuses load_skill: its description has {expected} characters, at most 1024"
    )
    skill.refresh_from_db()
    assert skill.description != description  # the preview never saves


def test_the_editor_page_and_the_new_skill_preview_show_it_too_in_chinese(staff_client, bitmall):
    """The editor page itself (its first live-preview panel) and a skill not created yet (the
    draft's code is blank), in the default language."""
    _lengthen_after_sale()
    doc = parse(staff_client.get("/skills/order_change/edit").content)
    assert doc.select("data-payload-problem") == []

    data = {
        "skill_code": "",
        "name": "新业务",
        "description": "说" * 490,
        "content": "# 手册\n",
        "tool_ids": [],
        "sort_order": "0",
        "enabled": "on",
    }
    doc = parse(staff_client.post("/skills/new-preview", data, HTTP_HX_REQUEST="true").content)
    assert _rows(doc) == [("openai_chat", "load_skill", "description_length", "refused")]
    text = " ".join(doc.one("data-payload-problem").text().split())
    assert "load_skill" in text and "1024" in text
    assert "refuses" not in text  # the sentence is translated


def test_with_the_catalog_in_the_system_prompt_the_long_line_refuses_nothing(staff_client, bitmall):
    """docs/runtime-api.md, "Where the catalog goes": under ``system_prompt`` load_skill's
    description is the header alone, so the same draft raises no provider problem, and the
    editor says the line goes to the system prompt's catalog."""
    from skills_app.catalog import services

    _lengthen_after_sale()
    services.catalog_placement_set(placement="system_prompt")
    skill = Skill.objects.get(skill_code="order_change")
    data = edit_data(skill, description="说" * 490)
    doc = parse(staff_client.post("/skills/order_change/preview", data, HTTP_HX_REQUEST="true").content)
    assert doc.select("data-payload-problem") == []
    label = doc.one("data-catalog-placement")
    assert label["data-catalog-placement"] == "system_prompt"
    assert label.text() == "它在系统提示技能清单（catalog_text）中的一行："
    services.catalog_placement_set(placement="tool_description")
    doc = parse(staff_client.post("/skills/order_change/preview", data, HTTP_HX_REQUEST="true").content)
    assert doc.one("data-catalog-placement").text() == "它在 load_skill 技能目录中的一行："
    assert _rows(doc) == [("openai_chat", "load_skill", "description_length", "refused")]
