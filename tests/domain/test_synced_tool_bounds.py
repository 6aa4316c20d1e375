"""The bounds of a synced MCP tool's definition (``skill_rule.limits``, docs/mcp.md "Bounded
definitions"): table-driven, each row the exact problems returned, at and just past each bound."""

from __future__ import annotations

import pytest

from skill_rule.limits import (
    SYNCED_TOOL_DESCRIPTION_MAX_LENGTH,
    SYNCED_TOOL_SCHEMA_MAX_BYTES,
    SYNCED_TOOL_TITLE_MAX_LENGTH,
)
from skill_rule.snapshot import canonical_json
from skill_rule.tooldefs import canonical_size, synced_tool_bound_problems

OBJECT = {"type": "object"}
#: ``{"description":"…","type":"object"}`` is 34 bytes around the text: a schema of exactly ``n`` bytes.
SKELETON = len(canonical_json({"description": "", "type": "object"}))


def schema_of(size: int, *, char: str = "a") -> dict:
    """An object schema whose canonical JSON is exactly ``size`` bytes (``char`` of 1 or 3 bytes)."""
    room = size - SKELETON
    width = len(char.encode())
    assert room % width == 0
    schema = {"type": "object", "description": char * (room // width)}
    assert canonical_size(schema) == size
    return schema


def test_the_bounds_are_the_named_values():
    assert (SYNCED_TOOL_TITLE_MAX_LENGTH, SYNCED_TOOL_DESCRIPTION_MAX_LENGTH, SYNCED_TOOL_SCHEMA_MAX_BYTES) == (
        1_024,
        8_192,
        65_536,
    )


def test_canonical_size_is_the_byte_length_of_the_snapshot_canonical_json():
    for value in ({"b": 1, "a": ["物流", None]}, OBJECT, {"enum": [f"x{n}" for n in range(50)]}):
        assert canonical_size(value) == len(canonical_json(value))
    assert canonical_size({"d": "物"}) == 11  # {"d":"物"}: 8 ASCII bytes and one 3-byte character


CASES = [
    # (id, title, description, input_schema, output_schema, expected problems (code, sentence))
    ("all at their bounds", "t" * 1_024, "d" * 8_192, schema_of(65_536), schema_of(65_536), []),
    (
        "title one past",
        "标" * 1_025,
        "",
        OBJECT,
        None,
        [("tool_title_too_long", "title is 1,025 characters; the limit is 1,024")],
    ),
    (
        "description one past, counted in characters not bytes",
        "",
        "述" * 8_193,
        OBJECT,
        None,
        [("tool_description_too_long", "description is 8,193 characters; the limit is 8,192")],
    ),
    (
        "inputSchema one byte past",
        "",
        "",
        schema_of(65_537),
        None,
        [("tool_schema_too_large", "inputSchema is 65,537 bytes of canonical JSON; the limit is 65,536")],
    ),
    (
        "a schema is counted in bytes: 21,835 Chinese characters make 65,539",
        "",
        "",
        schema_of(SKELETON + 3 * 21_835, char="物"),
        None,
        [("tool_schema_too_large", "inputSchema is 65,539 bytes of canonical JSON; the limit is 65,536")],
    ),
    (
        "outputSchema past too",
        "",
        "",
        OBJECT,
        schema_of(70_000),
        [("tool_schema_too_large", "outputSchema is 70,000 bytes of canonical JSON; the limit is 65,536")],
    ),
    (
        "every bound at once, in field order",
        "t" * 2_000,
        "d" * 1_000_000,
        schema_of(4_000_000),
        schema_of(65_537),
        [
            ("tool_title_too_long", "title is 2,000 characters; the limit is 1,024"),
            ("tool_description_too_long", "description is 1,000,000 characters; the limit is 8,192"),
            ("tool_schema_too_large", "inputSchema is 4,000,000 bytes of canonical JSON; the limit is 65,536"),
            ("tool_schema_too_large", "outputSchema is 65,537 bytes of canonical JSON; the limit is 65,536"),
        ],
    ),
]


@pytest.mark.parametrize(
    ("title", "description", "input_schema", "output_schema", "expected"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_synced_tool_bound_problems(title, description, input_schema, output_schema, expected):
    problems = synced_tool_bound_problems(
        title=title, description=description, input_schema=input_schema, output_schema=output_schema
    )
    assert [(p.code, str(p)) for p in problems] == expected
