"""``domain/catalog.py``, exact values: a catalog's profiles and stages are its own read-only
copies, and a tool's JSON shape holds plain dicts of its own (issue 11: the mutation-testing
triage of the fifth round). Library tests: call, assert."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from skill_rule import Catalog, Restriction, Tool
from skill_rule.catalog import json_copy


def test_a_catalogs_profiles_and_stages_are_read_only_copies_of_what_it_was_given() -> None:
    profiles = {"clerk": Restriction("clerk", frozenset({"lookup"}))}
    stages = {"late": Restriction("late", frozenset({"ship"}))}
    catalog = Catalog(tools=(), profiles=profiles, stages=stages)
    profiles["admin"] = Restriction("admin", frozenset())
    stages["early"] = Restriction("early", frozenset())
    assert (list(catalog.profiles), list(catalog.stages)) == (["clerk"], ["late"])
    with pytest.raises(TypeError):
        catalog.profiles["admin"] = Restriction("admin", frozenset())  # type: ignore[index]
    with pytest.raises(TypeError):
        catalog.stages["early"] = Restriction("early", frozenset())  # type: ignore[index]


def test_json_copy_gives_a_mapping_as_a_plain_dict_of_its_own_and_anything_else_as_it_is() -> None:
    schema = MappingProxyType({"type": "object"})
    copied = json_copy(schema)
    assert type(copied) is dict and copied == {"type": "object"}
    stored = ["not", "an", "object"]
    assert json_copy(stored) is stored


def test_a_tools_json_shape_is_plain_json_that_does_not_share_its_dicts() -> None:
    tool = Tool(
        "lookup",
        input_schema=MappingProxyType({"type": "object"}),
        annotations=MappingProxyType({"readOnlyHint": True}),
    )
    out = tool.as_dict()
    assert json.loads(json.dumps(out)) == {
        "name": "lookup",
        "kind": "mcp",
        "title": "",
        "description": "",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
        "require_confirm": False,
    }
    out["inputSchema"]["type"] = "array"
    assert tool.input_schema["type"] == "object"
