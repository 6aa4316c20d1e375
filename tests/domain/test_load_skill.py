"""Repeat load (docs/rule.md): a full result of the current version still retained -> a short stub
without the marker; evicted, compacted away or a newer version -> the full manual again with a new
marker; unknown or disabled codes -> an error before anything is read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from skill_rule import compute_round, load_skill

from .factories import EVICTED_PREFIX, MARKER, assistant, call, loaded, openai_load, shop, skill, tool_result, user

ALPHA_V2 = skill("alpha", ("refund", "cancel"), sort_order=10, version=2, content="# alpha manual v2\nsecret steps")
CATALOG = shop(ALPHA_V2, skill("off", ("ship",), enabled=False, content="# off manual\nsecret steps"))
FULL = {"content": ALPHA_V2.content, "metadata": {MARKER: "alpha", "skill_version": 2}, "already_loaded": False}
STUB_META = {"already_loaded": True, "skill_code": "alpha", "skill_version": 2}


@dataclass(frozen=True)
class RepeatCase:
    id: str
    messages: list[dict[str, Any]]
    full: bool


REPEAT_CASES = [
    RepeatCase("a first load returns the full manual with the marker", [user("hi")], True),
    RepeatCase(
        "the current version still retained -> a short stub",
        loaded("alpha", version=2, content=ALPHA_V2.content),
        False,
    ),
    RepeatCase(
        "retained among other messages -> a short stub",
        [user("hi"), *loaded("alpha", version=2, content=ALPHA_V2.content), user("and now?"), assistant("ok")],
        False,
    ),
    RepeatCase(
        "an OpenAI bare result of the current manual (its text names the version) -> a short stub",
        openai_load("alpha", "c1", content=ALPHA_V2.content),
        False,
    ),
    RepeatCase(
        "an OpenAI bare result of version 1's manual -> the full manual again (docs/transcripts.md)",
        openai_load("alpha", "c1"),
        True,
    ),
    RepeatCase(
        "the current manual with metadata naming version 1: the text wins -> a short stub",
        loaded("alpha", version=1, content=ALPHA_V2.content),
        False,
    ),
    RepeatCase(
        "the head of the current manual cut by a tool-output limit -> the full manual again",
        loaded("alpha", version=2, content=ALPHA_V2.content[:10] + "…[truncated 1800 chars]"),
        True,
    ),
    RepeatCase(
        "an evicted body (placeholder prefix) -> the full manual again",
        loaded("alpha", version=2, content=EVICTED_PREFIX + "40 字]"),
        True,
    ),
    RepeatCase(
        "an evicted body (metadata.evicted) -> the full manual again", loaded("alpha", version=2, evicted=True), True
    ),
    RepeatCase("compacted away (only the call is left) -> the full manual again", loaded("alpha", version=2)[:1], True),
    RepeatCase("an older version retained -> the full manual again", loaded("alpha", version=1), True),
    RepeatCase("an error-state result -> the full manual again", loaded("alpha", version=2, state="error"), True),
    RepeatCase(
        "only a stub retained (it carries no marker) -> the full manual again",
        [assistant("", call("load_skill", "c2", skill_code="alpha")), tool_result("c2", "already loaded", **STUB_META)],
        True,
    ),
    RepeatCase(
        "another skill's manual retained -> the full manual",
        [
            assistant("", call("load_skill", "c3", skill_code="beta")),
            tool_result("c3", "# beta", **{MARKER: "beta", "skill_version": 2}),
        ],
        True,
    ),
]


@pytest.mark.parametrize("case", REPEAT_CASES, ids=lambda c: c.id)
def test_repeat_load(case: RepeatCase) -> None:
    result = load_skill(CATALOG, case.messages, "alpha")
    assert result.state == "success"
    assert result.version == 2
    if case.full:
        assert {
            "content": result.content,
            "metadata": dict(result.metadata),
            "already_loaded": result.already_loaded,
        } == FULL
    else:
        assert result.already_loaded is True
        assert dict(result.metadata) == STUB_META
        assert MARKER not in result.metadata
        assert ALPHA_V2.content not in result.content and "alpha" in result.content


def test_a_stub_result_in_context_does_not_count_as_loaded() -> None:
    """The stub carries no marker: if the full manual leaves the context, its tools go with it."""
    stub = load_skill(CATALOG, loaded("alpha", version=2, content=ALPHA_V2.content), "alpha")
    assert stub.already_loaded is True
    messages = [
        assistant("", call("load_skill", "c9", skill_code="alpha")),
        tool_result("c9", stub.content, **dict(stub.metadata)),
    ]
    assert compute_round(CATALOG, messages).loaded == ()


def test_a_full_result_in_context_counts_as_loaded() -> None:
    full = load_skill(CATALOG, [], "alpha")
    messages = [
        assistant("", call("load_skill", "c9", skill_code="alpha")),
        tool_result("c9", full.content, **dict(full.metadata)),
    ]
    assert compute_round(CATALOG, messages).loaded == ("alpha",)


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("../../secret", id="a path"),
        pytest.param("off", id="a disabled skill"),
        pytest.param("gamma", id="an unknown code"),
        pytest.param("ALPHA", id="a malformed code"),
    ],
)
def test_unknown_or_disabled_codes_are_refused_before_anything_is_read(code) -> None:
    result = load_skill(CATALOG, loaded("alpha", version=2), code)
    assert result.state == "error"
    assert dict(result.metadata) == {}
    assert result.already_loaded is False and result.version is None
    assert result.content == f"unknown skill {code!r}; skills on offer: alpha"
    assert "secret steps" not in result.content


@pytest.mark.parametrize("code", [None, "", ["alpha"], 7], ids=["none", "empty", "a list", "a number"])
def test_a_missing_or_non_text_code_is_refused_saying_what_is_needed(code) -> None:
    result = load_skill(CATALOG, loaded("alpha", version=2), code)
    assert (result.state, result.content, dict(result.metadata)) == (
        "error",
        "load_skill needs a skill_code (text)",
        {},
    )
