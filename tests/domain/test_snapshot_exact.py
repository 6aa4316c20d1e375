"""A release snapshot's exact shape and reading it back (``domain/snapshot.py``, docs/releases.md):
the JSON a runtime is served and hashed, its format number, the order of restrictions and their
tools, the defaults a sparse snapshot loads with, and the exact refusal for a broken one. Every
catalog is built inside its test (see docs/testing.md, "Score")."""

from __future__ import annotations

import hashlib

import pytest

from skill_rule import Catalog, Restriction, Skill, Tool
from skill_rule.limits import DEFAULT_EVICTION_PREFIX, DEFAULT_LOAD_SKILL_HEADER, DEFAULT_MARKER_KEY
from skill_rule.snapshot import (
    SNAPSHOT_FORMAT,
    SnapshotError,
    body_sha256,
    canonical_json,
    catalog_from_snapshot,
    catalog_to_snapshot,
    setting_names,
)


def _tools() -> tuple[Tool, ...]:
    return (
        Tool("load_skill", "builtin"),
        Tool(
            "refund",
            title="Refund",
            description="refund an order",
            input_schema={"type": "object", "required": ["o"]},
            annotations={"destructiveHint": True},
            require_confirm=True,
        ),
        Tool("cancel"),
        Tool("ship"),
    )


def _skill(code: str, tool_ids: tuple[str, ...], sort_order: int, *, enabled: bool = True, version: int = 1) -> Skill:
    return Skill(
        code=code,
        name=code.title(),
        description=f"for {code}",
        content=f"# {code}",
        tool_ids=tool_ids,
        sort_order=sort_order,
        enabled=enabled,
        version=version,
    )


def _read(snapshot: dict, message: str) -> None:
    with pytest.raises(SnapshotError) as raised:
        catalog_from_snapshot(snapshot)
    assert str(raised.value) == message


def test_canonical_json_is_compact_sorted_utf8():
    """The bytes hashed: keys sorted at every level, no spaces, non-ASCII kept as UTF-8."""
    data = {"z": [1, {"b": True, "a": None}], "é": "取消"}
    assert canonical_json(data) == '{"z":[1,{"a":null,"b":true}],"é":"取消"}'.encode()
    assert body_sha256(data) == hashlib.sha256('{"z":[1,{"a":null,"b":true}],"é":"取消"}'.encode()).hexdigest()


def test_the_settings_a_snapshot_carries():
    """Every scalar setting of a catalog, the collections and the release number left out."""
    assert setting_names() == (
        "marker_key",
        "eviction_prefix",
        "load_skill_header",
        "catalog_placement",
        "payload_targets",
        "payload_budgets",
    )


def test_the_catalog_placement_is_written_only_when_it_is_the_system_prompt():
    """``catalog_placement`` at its default is left out (a catalog that never chose one keeps its
    sha256); ``system_prompt`` is written and read back; any other value is a ``SnapshotError``."""
    default = Catalog(tools=(), load_skill_header="Header")
    assert catalog_to_snapshot(default)["settings"] == {
        "marker_key": "ragent_loaded_skill",
        "eviction_prefix": "[历史工具结果已省略，原长 ",
        "load_skill_header": "Header",
    }
    chosen = catalog_to_snapshot(Catalog(tools=(), load_skill_header="Header", catalog_placement="system_prompt"))
    assert chosen["settings"]["catalog_placement"] == "system_prompt"
    assert catalog_from_snapshot(chosen).catalog_placement == "system_prompt"
    assert catalog_from_snapshot(catalog_to_snapshot(default)).catalog_placement == "tool_description"
    chosen["settings"]["catalog_placement"] = "banner"
    with pytest.raises(SnapshotError) as exc:
        catalog_from_snapshot(chosen)
    assert (
        str(exc.value) == "settings: 'catalog_placement' must be one of tool_description, system_prompt, not 'banner'"
    )


def test_a_catalog_without_call_targets_is_the_format_1_snapshot_exactly():
    """The whole format-1 snapshot: settings, every tool, the enabled skills by sort order, the
    restrictions by name with their tools in registration order (unknown tools last, by name)."""
    catalog = Catalog(
        tools=_tools(),
        skills=(
            _skill("beta", ("ship",), 20),
            _skill("off", ("cancel",), 5, enabled=False),
            _skill("alpha", ("refund", "cancel"), 10, version=3),
        ),
        profiles={
            "reader": Restriction(
                "reader", frozenset({"ship", "zeta", "refund", "alpha_gone", "cancel"}), "reads only"
            ),
            "clerk": Restriction("clerk", frozenset({"cancel"})),
        },
        stages={
            "wrap": Restriction("wrap", frozenset({"ship"}), "closing"),
            "browse": Restriction("browse", frozenset({"cancel", "refund"})),
        },
        marker_key="mk",
        eviction_prefix="[gone ",
        load_skill_header="Header",
    )
    assert catalog_to_snapshot(catalog) == {
        "format": 1,
        "settings": {"marker_key": "mk", "eviction_prefix": "[gone ", "load_skill_header": "Header"},
        "tools": [
            {
                "name": "load_skill",
                "kind": "builtin",
                "title": "",
                "description": "",
                "inputSchema": {"type": "object"},
                "annotations": {},
                "require_confirm": False,
            },
            {
                "name": "refund",
                "kind": "mcp",
                "title": "Refund",
                "description": "refund an order",
                "inputSchema": {"type": "object", "required": ["o"]},
                "annotations": {"destructiveHint": True},
                "require_confirm": True,
            },
            {
                "name": "cancel",
                "kind": "mcp",
                "title": "",
                "description": "",
                "inputSchema": {"type": "object"},
                "annotations": {},
                "require_confirm": False,
            },
            {
                "name": "ship",
                "kind": "mcp",
                "title": "",
                "description": "",
                "inputSchema": {"type": "object"},
                "annotations": {},
                "require_confirm": False,
            },
        ],
        "skills": [
            {
                "code": "alpha",
                "name": "Alpha",
                "description": "for alpha",
                "content": "# alpha",
                "tool_ids": ["refund", "cancel"],
                "sort_order": 10,
                "version": 3,
            },
            {
                "code": "beta",
                "name": "Beta",
                "description": "for beta",
                "content": "# beta",
                "tool_ids": ["ship"],
                "sort_order": 20,
                "version": 1,
            },
        ],
        "access_profiles": [
            {"name": "clerk", "description": "", "tools": ["cancel"]},
            {
                "name": "reader",
                "description": "reads only",
                "tools": ["refund", "cancel", "ship", "alpha_gone", "zeta"],
            },
        ],
        "stages": [
            {"name": "browse", "description": "", "tools": ["refund", "cancel"]},
            {"name": "wrap", "description": "closing", "tools": ["ship"]},
        ],
    }


@pytest.mark.parametrize(("server", "mcp_name"), [("shop", None), (None, "refund_order"), ("shop", "refund_order")])
def test_a_tool_with_a_call_target_makes_the_snapshot_format_2(server, mcp_name):
    """One tool with a server, or a real MCP name, or both, is enough for format 2; only what the
    tool has is written."""
    tools = (Tool("refund", server=server, mcp_name=mcp_name), Tool("ship"))
    snap = catalog_to_snapshot(Catalog(tools=tools))
    assert snap["format"] == 2 and SNAPSHOT_FORMAT == 3
    written = {k: v for k, v in (("server", server), ("mcp_name", mcp_name)) if v is not None}
    assert {k: snap["tools"][0][k] for k in ("server", "mcp_name") if k in snap["tools"][0]} == written
    assert "server" not in snap["tools"][1] and "mcp_name" not in snap["tools"][1]
    back = catalog_from_snapshot(snap)
    assert (back.tools[0].server, back.tools[0].mcp_name) == (server, mcp_name)
    assert back.tools == tools


def test_a_snapshot_reads_back_into_the_same_catalog_with_its_settings_and_release():
    """Round trip of everything a snapshot holds, with non-default settings and descriptions."""
    catalog = Catalog(
        tools=_tools(),
        skills=(_skill("alpha", ("refund",), 10, version=2), _skill("beta", ("ship",), 20)),
        profiles={"reader": Restriction("reader", frozenset({"refund"}), "reads only")},
        stages={"wrap": Restriction("wrap", frozenset({"ship"}), "closing")},
        marker_key="mk",
        eviction_prefix="[gone ",
        load_skill_header="Header",
    )
    back = catalog_from_snapshot(catalog_to_snapshot(catalog), release=7)
    assert back == Catalog(
        tools=catalog.tools,
        skills=catalog.skills,
        profiles=catalog.profiles,
        stages=catalog.stages,
        marker_key="mk",
        eviction_prefix="[gone ",
        load_skill_header="Header",
        release=7,
    )
    assert [s.enabled for s in back.skills] == [True, True]
    assert catalog_from_snapshot(catalog_to_snapshot(catalog)).release is None


def test_a_sparse_snapshot_loads_with_the_defaults():
    """No settings, no restrictions, a tool with only a name and kind: every default of a catalog
    and a tool; unknown settings are ignored."""
    back = catalog_from_snapshot({"tools": [{"name": "ship", "kind": "mcp"}], "skills": []})
    assert back == Catalog(tools=(Tool("ship"),))
    assert (back.marker_key, back.eviction_prefix, back.load_skill_header) == (
        DEFAULT_MARKER_KEY,
        DEFAULT_EVICTION_PREFIX,
        DEFAULT_LOAD_SKILL_HEADER,
    )
    tool = back.tools[0]
    assert (
        tool.title,
        tool.description,
        tool.input_schema,
        tool.annotations,
        tool.require_confirm,
        tool.server,
        tool.mcp_name,
    ) == ("", "", {"type": "object"}, {}, False, None, None)
    nulls = catalog_from_snapshot(
        {
            "settings": {"marker_key": "mk", "colour": "blue"},
            "tools": [{"name": "ship", "kind": "mcp", "title": None, "description": None, "require_confirm": 1}],
            "skills": [],
            "access_profiles": None,
            "stages": [{"name": "wrap", "tools": ["ship"], "description": None}],
        }
    )
    assert nulls.marker_key == "mk"
    assert (nulls.tools[0].title, nulls.tools[0].description, nulls.tools[0].require_confirm) == ("", "", True)
    assert dict(nulls.profiles) == {}
    assert dict(nulls.stages) == {"wrap": Restriction("wrap", frozenset({"ship"}), "")}


def test_a_stored_schema_of_the_wrong_shape_is_read_as_stored():
    """A tool's inputSchema or annotations that is no object stays as it is (the gate flags it)."""
    back = catalog_from_snapshot(
        {"tools": [{"name": "ship", "kind": "mcp", "inputSchema": [1], "annotations": "x"}], "skills": []}
    )
    assert (back.tools[0].input_schema, back.tools[0].annotations) == ([1], "x")


def test_a_snapshot_that_is_no_object_is_refused():
    """The exact refusals for a snapshot or its settings that is no JSON object."""
    _read([], "snapshot: must be a JSON object")  # type: ignore[arg-type]
    _read({"settings": ["mk"], "tools": [], "skills": []}, "snapshot: 'settings' must be an object")


@pytest.mark.parametrize(
    ("snapshot", "message"),
    [
        ({"skills": []}, "snapshot: missing 'tools'"),
        ({"tools": {}, "skills": []}, "snapshot: 'tools' must be list, not dict"),
        ({"tools": ["ship"], "skills": []}, "tools[0]: missing 'name'"),
        (
            {"tools": [{"name": "ship", "kind": "mcp"}, {"name": 3, "kind": "mcp"}], "skills": []},
            "tools[1]: 'name' must be str, not int",
        ),
        (
            {"tools": [{"name": "ship", "kind": "mcp", "server": 5}], "skills": []},
            "tools[0]: 'server' must be str, not int",
        ),
        (
            {"tools": [{"name": "ship", "kind": "mcp", "mcp_name": ["x"]}], "skills": []},
            "tools[0]: 'mcp_name' must be str, not list",
        ),
        ({"tools": [{"name": "ship"}], "skills": []}, "tools[0]: missing 'kind'"),
        ({"tools": []}, "snapshot: missing 'skills'"),
        ({"tools": [], "skills": {}}, "snapshot: 'skills' must be list, not dict"),
        ({"tools": [], "skills": [{"name": "A"}]}, "skills[0]: missing 'code'"),
        ({"tools": [], "skills": [{"code": "a", "description": ""}]}, "skills[0]: missing 'name'"),
        ({"tools": [], "skills": [{"code": "a", "name": "A"}]}, "skills[0]: missing 'description'"),
        (
            {"tools": [], "skills": [{"code": "a", "name": "A", "description": "", "content": "", "tool_ids": []}]},
            "skills[0]: missing 'sort_order'",
        ),
        (
            {
                "tools": [],
                "skills": [
                    {
                        "code": "a",
                        "name": "A",
                        "description": "",
                        "content": "",
                        "tool_ids": [],
                        "sort_order": True,
                        "version": 1,
                    }
                ],
            },
            "skills[0]: 'sort_order' must be int, not bool",
        ),
        (
            {
                "tools": [],
                "skills": [
                    {
                        "code": "a",
                        "name": "A",
                        "description": "",
                        "content": "",
                        "tool_ids": "x",
                        "sort_order": 1,
                        "version": 1,
                    }
                ],
            },
            "skills[0]: 'tool_ids' must be list, not str",
        ),
        ({"tools": [], "skills": [], "stages": [{"tools": []}]}, "stages[0]: missing 'name'"),
        (
            {"tools": [], "skills": [], "access_profiles": [{"name": "r", "tools": "x"}]},
            "access_profiles[0]: 'tools' must be list, not str",
        ),
    ],
)
def test_a_broken_snapshot_is_refused_naming_the_item_and_key(snapshot, message):
    """The exact refusal: the item (``tools[1]``, ``skills[0]`` …), the key and the wrong type."""
    _read(snapshot, message)


def test_a_skill_read_from_a_snapshot_keeps_every_field():
    """Each skill field comes from its own key; ``enabled`` is always true (only enabled skills
    are in a snapshot)."""
    [skill] = catalog_from_snapshot(
        {
            "tools": [],
            "skills": [
                {
                    "code": "a",
                    "name": "Name",
                    "description": "Desc",
                    "content": "Body",
                    "tool_ids": ["x", "y"],
                    "sort_order": 4,
                    "version": 9,
                }
            ],
        }
    ).skills
    assert skill == Skill(
        code="a",
        name="Name",
        description="Desc",
        content="Body",
        tool_ids=("x", "y"),
        sort_order=4,
        enabled=True,
        version=9,
    )
