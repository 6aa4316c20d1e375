"""Model-facing names, exact values (docs/mcp.md, "Model-facing names"; issue 11 triage of
``domain.naming``): the hash digits, the server prefix and its fitting, which held names are kept,
and the warnings word for word. Each expected name is written out, not rebuilt with the code."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from skill_rule.naming import (
    HASH_LENGTH,
    MODEL_NAME_MAX_LENGTH,
    assign_model_names,
    fit,
    is_model_name,
    sanitize,
    short_hash,
    with_hash,
)

LONG_SERVER = "s" * 60


def test_the_hash_is_the_first_8_hex_digits_of_sha256_of_server_nul_tool() -> None:
    # sha256(b"fs\x00read.file"), sha256(b"s\x00load_skill") by hand
    assert short_hash("fs", "read.file") == "a70c2700"
    assert short_hash("s", "load_skill") == "5e2487ed"
    assert (HASH_LENGTH, MODEL_NAME_MAX_LENGTH) == (8, 64)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("read.file", "read-file"),
        ("a b/c:d", "a-b-c-d"),
        ("ok_Name-9", "ok_Name-9"),
        ("", "tool"),
        ("é", "-"),
    ],
)
def test_sanitize_replaces_each_character_outside_the_model_alphabet_by_a_dash(name, expected) -> None:
    assert sanitize(name) == expected


def test_fit_keeps_64_characters_and_cuts_65_to_55_plus_hash() -> None:
    assert fit("a" * 64, server="s", tool_name="t") == "a" * 64
    assert fit("a" * 65, server="s", tool_name="t") == "a" * 55 + "_" + short_hash("s", "t")
    assert len(fit("a" * 65, server="s", tool_name="t")) == 64


def test_with_hash_always_appends_and_never_exceeds_64() -> None:
    assert with_hash("abc", server="s", tool_name="a.b") == "abc_407e8e5c"
    assert with_hash("b" * 64, server="s", tool_name="a.b") == "b" * 55 + "_407e8e5c"


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("a", True),
        ("a" * 64, True),
        ("a" * 65, False),
        ("", False),
        ("a.b", False),
        (None, False),
        ("a-b_C9", True),
    ],
)
def test_is_model_name(name, ok) -> None:
    assert is_model_name(name) is ok


@dataclass(frozen=True)
class Exact:
    id: str
    server: str
    tools: tuple[str, ...]
    expected: dict[str, str]
    taken: dict[str, str] = field(default_factory=dict)
    held: dict[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()


CASES = [
    Exact(
        "the server prefix is sanitised too",
        "my.srv",
        ("load_skill",),
        {"load_skill": "my-srv__load_skill"},
        warnings=(
            "tool 'load_skill' of server 'my.srv' is offered as 'my-srv__load_skill': "
            "'load_skill' is the name of a builtin tool",
        ),
    ),
    Exact(
        "a prefixed name another server holds is hashed as well",
        "s",
        ("load_skill",),
        {"load_skill": "s__load_skill_5e2487ed"},
        taken={"s__load_skill": "other"},
        warnings=(
            "tool 'load_skill' of server 's' is offered as 's__load_skill_5e2487ed': "
            "'load_skill' is the name of a builtin tool",
        ),
    ),
    Exact(
        "a prefixed name longer than 64 is fitted",
        LONG_SERVER,
        ("send",),
        {"send": "s" * 55 + "_5414d058"},
        taken={"send": "a"},
        warnings=(
            f"tool 'send' of server '{LONG_SERVER}' is offered as '{'s' * 55}_5414d058': "
            "'send' is the name of server 'a'",
        ),
    ),
    Exact(
        "a name a definition typed in without a server holds",
        "s",
        ("send",),
        {"send": "s__send"},
        taken={"send": ""},
        warnings=(
            "tool 'send' of server 's' is offered as 's__send': "
            "'send' is the name of a tool definition typed in without a server",
        ),
    ),
    Exact(
        "three tools becoming a-b: the exact one keeps it, both others are hashed",
        "s",
        ("a.b", "a:b", "a-b"),
        {"a.b": "a-b_407e8e5c", "a:b": "a-b_c68aff7a", "a-b": "a-b"},
        held={"a.b": "a-b"},
        warnings=(
            "tool 'a.b' of server 's' is offered as 'a-b_407e8e5c': its name becomes 'a-b', like 'a-b', 'a:b'",
            "tool 'a:b' of server 's' is offered as 'a-b_c68aff7a': its name becomes 'a-b', like 'a-b', 'a.b'",
        ),
    ),
    Exact(
        "with no exact name, the tool that held it keeps it",
        "s",
        ("a.b", "a:b"),
        {"a.b": "a-b_407e8e5c", "a:b": "a-b"},
        held={"a:b": "a-b"},
        warnings=("tool 'a.b' of server 's' is offered as 'a-b_407e8e5c': its name becomes 'a-b', like 'a:b'",),
    ),
    Exact("a held name another tool's name claims is not kept", "s", ("x", "y"), {"x": "x", "y": "y"}, held={"x": "y"}),
    Exact("a name two tools held is kept by neither", "s", ("x", "y"), {"x": "x", "y": "y"}, held={"x": "z", "y": "z"}),
    Exact("a held name that is not a model name is dropped", "s", ("x",), {"x": "x"}, held={"x": "bad name"}),
    Exact("a held builtin name is dropped", "s", ("x",), {"x": "x"}, held={"x": "load_skill"}),
    Exact(
        "a held name another server now holds is dropped", "s", ("x",), {"x": "x"}, held={"x": "t"}, taken={"t": "o"}
    ),
    Exact("a held name still kept after the conflict went away", "s", ("x",), {"x": "s__x"}, held={"x": "s__x"}),
    Exact(
        "a prefixed name held again keeps its warning while the conflict lasts",
        "mailer-b",
        ("send_email",),
        {"send_email": "mailer-b__send_email"},
        taken={"send_email": "mailer-a"},
        held={"send_email": "mailer-b__send_email"},
        warnings=(
            "tool 'send_email' of server 'mailer-b' is offered as 'mailer-b__send_email': "
            "'send_email' is the name of server 'mailer-a'",
        ),
    ),
    Exact(
        "a held name other than the new one drops the warning about the new one",
        "kb",
        ("load_skill",),
        {"load_skill": "kb_search"},
        held={"load_skill": "kb_search"},
    ),
    Exact(
        "names listed several times are refused in name order, with their counts",
        "s",
        ("q", "p", "p", "q", "p", "r"),
        {"r": "r"},
        refused=("p", "q"),
        warnings=(
            "server 's' lists tool 'p' 3 times; none of them is offered",
            "server 's' lists tool 'q' 2 times; none of them is offered",
        ),
    ),
    Exact("an empty real name is offered as tool", "s", ("",), {"": "tool"}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_exact_model_facing_names_and_warnings(case: Exact) -> None:
    naming = assign_model_names(case.server, case.tools, taken=case.taken, held=case.held)
    assert naming.by_tool() == case.expected
    assert naming.warnings == case.warnings
    assert naming.refused == case.refused
    assert [t.tool_name for t in naming.tools] == [n for n in dict.fromkeys(case.tools) if n in case.expected]
    assert all(t.server == case.server for t in naming.tools)
    # a tool not renamed has the empty warning "" (never None): pages show it as text
    assert tuple(t.warning for t in naming.tools if t.warning != "") == case.warnings[len(case.refused) :]


def test_builtins_can_be_given() -> None:
    naming = assign_model_names("s", ("load_skill", "mine"), builtins=("mine",))
    assert naming.by_tool() == {"load_skill": "load_skill", "mine": "s__mine"}


def test_a_name_a_hashed_sibling_already_took_is_hashed_again() -> None:
    # a.b and a:b both become a-b (neither exact: both hashed); a.b's hashed name is the real name
    # of a third tool, which must not share it. (Its warning calls the name "another tool's held
    # name": the wording is not pinned here.)
    naming = assign_model_names("s", ("a.b", "a:b", "a-b_407e8e5c"))
    assert naming.by_tool() == {"a.b": "a-b_407e8e5c", "a:b": "a-b_c68aff7a", "a-b_407e8e5c": "a-b_407e8e5c_5f215c7c"}
    assert naming.warnings[2].startswith(
        "tool 'a-b_407e8e5c' of server 's' is offered as 'a-b_407e8e5c_5f215c7c': its name becomes 'a-b_407e8e5c'"
    )
