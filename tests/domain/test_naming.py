"""Model-facing names of MCP tools (docs/mcp.md, ``domain.naming``): table-driven cases."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from skill_rule.naming import assign_model_names, is_model_name, short_hash

SEVENTY = "a" * 30 + "." + "b" * 39  # 70 characters, one dot


@dataclass(frozen=True)
class NamingCase:
    id: str
    server: str
    tools: tuple[str, ...]
    expected: dict[str, str]  # real name -> model-facing name
    taken: dict[str, str] = field(default_factory=dict)
    held: dict[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()


CASES = [
    NamingCase(
        "valid names are kept",
        "shop",
        ("query_order", "cancel-order"),
        {"query_order": "query_order", "cancel-order": "cancel-order"},
    ),
    NamingCase("dots become dashes", "fs", ("files.read",), {"files.read": "files-read"}),
    NamingCase(
        "70 characters: cut to 55, underscore, 8-digit hash",
        "fs",
        (SEVENTY,),
        {SEVENTY: ("a" * 30 + "-" + "b" * 24) + "_" + short_hash("fs", SEVENTY)},
    ),
    NamingCase(
        "read-file and read.file in one server: the exact name keeps it, the other is hashed",
        "fs",
        ("read.file", "read-file"),
        {"read-file": "read-file", "read.file": "read-file_" + short_hash("fs", "read.file")},
        warnings=(
            "tool 'read.file' of server 'fs' is offered as 'read-file_"
            + short_hash("fs", "read.file")
            + "': its name becomes 'read-file', like 'read-file'",
        ),
    ),
    NamingCase(
        "read.file and read:file (neither exact): both hashed",
        "fs",
        ("read.file", "read:file"),
        {
            "read.file": "read-file_" + short_hash("fs", "read.file"),
            "read:file": "read-file_" + short_hash("fs", "read:file"),
        },
        warnings=(
            "tool 'read.file' of server 'fs' is offered as 'read-file_"
            + short_hash("fs", "read.file")
            + "': its name becomes 'read-file', like 'read:file'",
            "tool 'read:file' of server 'fs' is offered as 'read-file_"
            + short_hash("fs", "read:file")
            + "': its name becomes 'read-file', like 'read.file'",
        ),
    ),
    NamingCase(
        "send_email on a second server is prefixed with its server, never last-registered-wins",
        "mailer-b",
        ("send_email",),
        {"send_email": "mailer-b__send_email"},
        taken={"send_email": "mailer-a"},
        warnings=(
            "tool 'send_email' of server 'mailer-b' is offered as 'mailer-b__send_email': "
            "'send_email' is the name of server 'mailer-a'",
        ),
    ),
    NamingCase(
        "the first server keeps send_email on its next sync (held)",
        "mailer-a",
        ("send_email",),
        {"send_email": "send_email"},
        taken={"mailer-b__send_email": "mailer-b"},
        held={"send_email": "send_email"},
    ),
    NamingCase(
        "a builtin's name is never an MCP tool's",
        "kb",
        ("load_skill", "search_knowledge"),
        {"load_skill": "kb__load_skill", "search_knowledge": "kb__search_knowledge"},
        warnings=(
            "tool 'load_skill' of server 'kb' is offered as 'kb__load_skill': 'load_skill' is the name "
            "of a builtin tool",
            "tool 'search_knowledge' of server 'kb' is offered as 'kb__search_knowledge': "
            "'search_knowledge' is the name of a builtin tool",
        ),
    ),
    NamingCase(
        "a held name stays while nothing else claims it",
        "shop",
        ("query_order",),
        {"query_order": "shop__query_order"},
        held={"query_order": "shop__query_order"},
    ),
    NamingCase(
        "a name listed twice offers neither",
        "shop",
        ("ping", "ping", "pong"),
        {"pong": "pong"},
        refused=("ping",),
        warnings=("server 'shop' lists tool 'ping' 2 times; none of them is offered",),
    ),
    NamingCase("an empty sanitised name", "x1", ("...",), {"...": "---"}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_model_facing_names(case: NamingCase) -> None:
    naming = assign_model_names(case.server, case.tools, taken=case.taken, held=case.held)
    assert naming.by_tool() == case.expected
    assert naming.warnings == case.warnings
    assert naming.refused == case.refused
    for t in naming.tools:
        assert is_model_name(t.model_name), t
    assert len(set(naming.by_tool().values())) == len(naming.tools)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_names_do_not_depend_on_listing_order(case: NamingCase) -> None:
    forward = assign_model_names(case.server, case.tools, taken=case.taken, held=case.held)
    backward = assign_model_names(case.server, tuple(reversed(case.tools)), taken=case.taken, held=case.held)
    assert forward.by_tool() == backward.by_tool()


def test_seventy_characters_fit_in_64() -> None:
    name = assign_model_names("fs", (SEVENTY,)).tools[0].model_name
    assert len(name) == 64
