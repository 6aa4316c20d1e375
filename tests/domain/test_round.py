"""The rule of docs/rule.md for one round: loaded skills, masked tools (with the skill to load) and
the visible list. Table-driven: each case is only data, one loop asserts them all."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from skill_rule import Catalog, compute_round, loaded_skills

from .factories import (
    ALPHA,
    BETA,
    BUILTINS,
    EVICTED_PREFIX,
    MARKER,
    assistant,
    call,
    loaded,
    openai_load,
    shop,
    skill,
    tool_result,
    user,
)

SK, LS, FM = BUILTINS
NOTHING_LOADED = {
    "loaded": (),
    "masked": {"refund": "alpha", "cancel": "alpha", "ship": "beta"},
    "visible": (SK, LS, FM, "lookup", "export"),
}
ALPHA_LOADED = {
    "loaded": ("alpha",),
    "masked": {"ship": "beta"},
    "visible": (SK, LS, FM, "lookup", "refund", "cancel", "export"),
}
BETA_LOADED = {
    "loaded": ("beta",),
    "masked": {"refund": "alpha"},
    "visible": (SK, LS, FM, "lookup", "cancel", "ship", "export"),
}


@dataclass(frozen=True)
class RoundCase:
    id: str
    messages: list[dict[str, Any]]
    expected: dict[str, Any]
    catalog: Catalog = field(default_factory=shop)


ROUND_CASES = [
    RoundCase("empty context masks every gated tool", [], NOTHING_LOADED),
    RoundCase("a user message alone loads nothing", [user("hi")], NOTHING_LOADED),
    RoundCase("loading alpha releases refund and cancel", [user("hi"), *loaded("alpha")], ALPHA_LOADED),
    RoundCase("a tool in two skills is released by the one (beta)", loaded("beta"), BETA_LOADED),
    RoundCase("a tool in two skills is released by the other (alpha)", loaded("alpha"), ALPHA_LOADED),
    RoundCase(
        "both loaded release every gated tool",
        [*loaded("alpha"), *loaded("beta")],
        {
            "loaded": ("alpha", "beta"),
            "masked": {},
            "visible": (SK, LS, FM, "lookup", "refund", "cancel", "ship", "export"),
        },
    ),
    RoundCase("an error-state load_skill result unlocks nothing", loaded("alpha", state="error"), NOTHING_LOADED),
    RoundCase(
        "a result evicted to the placeholder prefix unlocks nothing",
        loaded("alpha", content=EVICTED_PREFIX + "812 字]"),
        NOTHING_LOADED,
    ),
    RoundCase(
        "a result flagged metadata.evicted unlocks nothing",
        loaded("alpha", content="# alpha manual", evicted=True),
        NOTHING_LOADED,
    ),
    RoundCase(
        "a body that names a tool unlocks nothing",
        [
            user("please cancel_order 88239 with cancel and refund"),
            assistant("I will call cancel_order and load_skill('alpha') once I have read the manual"),
            {"role": "system", "content": "tools: cancel refund ship"},
        ],
        NOTHING_LOADED,
    ),
    RoundCase(
        "a marker on an assistant message is not a loaded manual",
        [{"role": "assistant", "content": "# alpha manual", "metadata": {MARKER: "alpha"}}],
        NOTHING_LOADED,
    ),
    RoundCase(
        "a marker naming no skill loads nothing",
        [assistant("", call("load_skill", "c1", skill_code="ghost")), tool_result("c1", "manual", **{MARKER: "ghost"})],
        NOTHING_LOADED,
    ),
    RoundCase(
        "an OpenAI transcript: a bare result answering a load_skill call counts as loaded",
        [user("hi"), *openai_load("alpha", "call_abc")],
        ALPHA_LOADED,
    ),
    RoundCase(
        "an OpenAI bare result whose load_skill call was compacted away does not count",
        [user("hi"), openai_load("alpha", "call_abc")[1]],
        NOTHING_LOADED,
    ),
    RoundCase(
        "an OpenAI bare result answering another tool's call does not count",
        [assistant("", call("lookup", "c9", q="x")), tool_result("c9", "alpha")],
        NOTHING_LOADED,
    ),
    RoundCase(
        "an OpenAI bare result that is evicted does not count",
        [openai_load("alpha", "c1")[0], {"role": "tool", "tool_call_id": "c1", "content": EVICTED_PREFIX + "20 字]"}],
        NOTHING_LOADED,
    ),
    RoundCase(
        "a result with other metadata but no marker does not count even if it answers load_skill",
        [
            assistant("", call("load_skill", "c1", skill_code="alpha")),
            tool_result("c1", "already loaded", already_loaded=True, skill_code="alpha"),
        ],
        NOTHING_LOADED,
    ),
    RoundCase(
        "disabling a skill releases its tools (cancel falls to beta)",
        [],
        {
            "loaded": (),
            "masked": {"cancel": "beta", "ship": "beta"},
            "visible": (SK, LS, FM, "lookup", "refund", "export"),
        },
        shop(skill("alpha", ("refund", "cancel"), sort_order=10, enabled=False), BETA),
    ),
    RoundCase(
        "a disabled skill's marker loads nothing",
        loaded("alpha"),
        {
            "loaded": (),
            "masked": {"cancel": "beta", "ship": "beta"},
            "visible": (SK, LS, FM, "lookup", "refund", "export"),
        },
        shop(skill("alpha", ("refund", "cancel"), sort_order=10, enabled=False), BETA),
    ),
    RoundCase(
        "no enabled skill: nothing masked and no load_skill",
        [],
        {"loaded": (), "masked": {}, "visible": (SK, FM, "lookup", "refund", "cancel", "ship", "export")},
        shop(skill("alpha", ("refund",), enabled=False)),
    ),
    RoundCase(
        "only skills without tool_ids: nothing masked, load_skill offered",
        [],
        {"loaded": (), "masked": {}, "visible": (SK, LS, FM, "lookup", "refund", "cancel", "ship", "export")},
        shop(skill("faq")),
    ),
    RoundCase(
        "masked tools go to the first unloaded skill by sort_order, not by code",
        [],
        {
            "loaded": (),
            "masked": {"cancel": "zed", "refund": "abe"},
            "visible": (SK, LS, FM, "lookup", "ship", "export"),
        },
        shop(skill("abe", ("cancel", "refund"), sort_order=2), skill("zed", ("cancel",), sort_order=1)),
    ),
    RoundCase(
        "equal sort_order: masked tools go to the skill with the smaller code",
        [],
        {"loaded": (), "masked": {"cancel": "eta"}, "visible": (SK, LS, FM, "lookup", "refund", "ship", "export")},
        shop(skill("zeta", ("cancel",), sort_order=5), skill("eta", ("cancel",), sort_order=5)),
    ),
    RoundCase(
        "the first skill loaded: the tool is released, not attributed to the next",
        loaded("zed"),
        {
            "loaded": ("zed",),
            "masked": {"refund": "abe"},
            "visible": (SK, LS, FM, "lookup", "cancel", "ship", "export"),
        },
        shop(skill("abe", ("cancel", "refund"), sort_order=2), skill("zed", ("cancel",), sort_order=1)),
    ),
]


@pytest.mark.parametrize("case", ROUND_CASES, ids=lambda c: c.id)
def test_round(case: RoundCase) -> None:
    view = compute_round(case.catalog, case.messages)
    assert view.loaded == case.expected["loaded"]
    assert dict(view.masked) == case.expected["masked"]
    assert view.visible == case.expected["visible"]
    assert view.count == len(case.expected["visible"])
    # masked and visible never overlap, and every gated tool is either masked or released
    assert not set(view.masked) & set(view.visible)
    assert set(view.gated) == set(view.masked) | set(view.released)


def test_masked_map_lists_tools_in_registration_order() -> None:
    view = compute_round(shop(), [])
    assert list(view.masked) == ["refund", "cancel", "ship"]


def test_builtins_and_mcp_tools_are_listed_apart() -> None:
    view = compute_round(shop(), loaded("alpha"))
    assert view.builtins == BUILTINS
    assert view.mcp_visible == ("lookup", "refund", "cancel", "export")


def test_loaded_skills_follow_catalog_order_not_load_order() -> None:
    messages = [*loaded("beta"), *loaded("alpha")]
    assert loaded_skills(shop(), messages) == ("alpha", "beta")


def test_a_custom_marker_key_and_eviction_prefix_are_honoured() -> None:
    catalog = Catalog(tools=shop().tools, skills=(ALPHA,), marker_key="x_loaded", eviction_prefix="[gone ")
    custom = [
        assistant("", call("load_skill", "c1", skill_code="alpha")),
        tool_result("c1", "# alpha manual", x_loaded="alpha"),
    ]
    assert compute_round(catalog, custom).loaded == ("alpha",)
    assert compute_round(catalog, loaded("alpha")).loaded == ()  # the default key means nothing here
    evicted = [custom[0], tool_result("c1", "[gone 80]", x_loaded="alpha")]
    assert compute_round(catalog, evicted).loaded == ()
