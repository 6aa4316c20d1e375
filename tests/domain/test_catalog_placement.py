"""Where the catalog goes (``skill_rule.payload``, docs/runtime-api.md "Where the catalog goes"):
under ``system_prompt`` the ``load_skill`` description is the header alone, its enum keeps every
enabled code and the lines are ``catalog_text``; under ``tool_description`` nothing changes."""

from __future__ import annotations

from dataclasses import replace

from skill_rule import compute_round
from skill_rule.limits import CATALOG_PLACEMENTS, DEFAULT_CATALOG_PLACEMENT, DEFAULT_LOAD_SKILL_HEADER
from skill_rule.payload import catalog_lines, catalog_text, load_skill_definition, tools_payload
from skill_rule.runtime_catalog import catalog_body

from .factories import ALPHA, BETA, shop

LINES = ["- alpha（Alpha）：load for alpha", "- beta（Beta）：load for beta"]


def in_prompt(catalog):
    return replace(catalog, catalog_placement="system_prompt")


def test_the_placements_and_the_default():
    assert (CATALOG_PLACEMENTS, DEFAULT_CATALOG_PLACEMENT) == (
        ("tool_description", "system_prompt"),
        "tool_description",
    )
    assert shop().catalog_placement == "tool_description"


def test_tool_description_keeps_the_lines_in_load_skill_and_gives_no_catalog_text():
    catalog = shop(BETA, ALPHA)
    assert catalog_text(catalog) is None
    assert catalog_lines(catalog) == tuple(LINES)
    definition = load_skill_definition(catalog)
    assert definition.description.split("\n") == [*DEFAULT_LOAD_SKILL_HEADER.split("\n"), *LINES]
    assert definition.parameters["properties"]["skill_code"]["description"] == (
        "要加载的手册编码（skill_code），取值见工具描述中的手册清单。"
    )


def test_system_prompt_moves_the_lines_to_catalog_text_and_keeps_the_enum():
    catalog = in_prompt(shop(BETA, ALPHA))
    assert catalog_text(catalog) == "- alpha（Alpha）：load for alpha\n- beta（Beta）：load for beta"
    definition = load_skill_definition(catalog)
    assert definition.description == DEFAULT_LOAD_SKILL_HEADER
    code = definition.parameters["properties"]["skill_code"]
    assert code == {
        "type": "string",
        "description": "要加载的手册编码（skill_code），取值见系统提示中的手册清单。",
        "enum": ["alpha", "beta"],
    }
    tools = tools_payload(catalog, compute_round(catalog, ()).visible, "anthropic")
    assert next(t for t in tools if t["name"] == "load_skill")["description"] == DEFAULT_LOAD_SKILL_HEADER


def test_a_header_ending_in_blank_lines_is_the_description_without_them():
    catalog = replace(in_prompt(shop()), load_skill_header="只看这一行\n\n")
    assert load_skill_definition(catalog).description == "只看这一行"


def test_no_enabled_skill_is_an_empty_catalog_text_and_no_load_skill():
    catalog = in_prompt(shop(replace(ALPHA, enabled=False)))
    assert (catalog_text(catalog), load_skill_definition(catalog)) == ("", None)


def test_the_catalog_body_names_the_placement_only_when_it_is_the_system_prompt():
    assert "catalog_placement" not in catalog_body(shop())
    body = catalog_body(in_prompt(shop()))
    assert body["catalog_placement"] == "system_prompt"
    assert list(body)[5] == "catalog_placement"
