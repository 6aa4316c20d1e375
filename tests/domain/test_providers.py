"""Provider profiles (skill_rule.providers, docs/providers.md): one row per rule of every profile,
with the exact problem returned; the budget, the rewrite, and the gate over a catalog built here."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from skill_rule import BUILTIN, Catalog, Skill, Tool
from skill_rule.payload import OPENAI, payload_chars, tools_payload
from skill_rule.providers import (
    ANTHROPIC_MESSAGES,
    DEFAULT_PAYLOAD_BUDGET,
    GEMINI,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    PROFILES,
    PayloadProblem,
    all_loaded_visible,
    budget_problems,
    payload_problems,
    target_payload,
    target_problems,
    tool_target_problems,
)
from skill_rule.releases import PublishReview, blocking, catalog_diff, check_payloads, gate, rerun_scenarios
from skill_rule.snapshot import body_sha256, catalog_from_snapshot, catalog_to_snapshot

OBJ = {"type": "object", "properties": {}}


def _catalog(*tools: Tool, skills: tuple[Skill, ...] = (), **settings) -> Catalog:
    return Catalog(tools=tools, skills=skills, **settings)


def _one(target: str, tool: Tool) -> tuple[PayloadProblem, ...]:
    catalog = _catalog(tool)
    return payload_problems(catalog, [tool.name], [target])


# One row per rule of every profile: target, the tool, the exact problems.
RULES = [
    # OpenAI Chat Completions
    (
        OPENAI_CHAT,
        Tool("a.b", input_schema=OBJ),
        [(OPENAI_CHAT, "a.b", "name_pattern", "^[a-zA-Z0-9_-]+$", "a.b", "refused", "")],
    ),
    (OPENAI_CHAT, Tool("n" * 65, input_schema=OBJ), [(OPENAI_CHAT, "n" * 65, "name_length", 64, 65, "refused", "")]),
    (
        OPENAI_CHAT,
        Tool("long", description="d" * 1025, input_schema=OBJ),
        [(OPENAI_CHAT, "long", "description_length", 1024, 1025, "refused", "")],
    ),
    (
        OPENAI_CHAT,
        Tool("bare", input_schema={"type": "object"}),
        [(OPENAI_CHAT, "bare", "object_without_properties", "properties", None, "rewritten", "")],
    ),
    (
        OPENAI_CHAT,
        Tool("list", input_schema={"type": "object", "properties": {"paths": {"type": "array"}}}),
        [(OPENAI_CHAT, "list", "array_without_items", "items", None, "refused", "properties.paths")],
    ),
    # OpenAI Responses
    (
        OPENAI_RESPONSES,
        Tool("a.b", input_schema=OBJ),
        [(OPENAI_RESPONSES, "a.b", "name_pattern", "^[a-zA-Z0-9_-]+$", "a.b", "refused", "")],
    ),
    # Anthropic Messages
    (
        ANTHROPIC_MESSAGES,
        Tool("a.b", input_schema=OBJ),
        [(ANTHROPIC_MESSAGES, "a.b", "name_pattern", "^[a-zA-Z0-9_-]{1,128}$", "a.b", "refused", "")],
    ),
    (
        ANTHROPIC_MESSAGES,
        Tool("n" * 129, input_schema=OBJ),
        [
            (ANTHROPIC_MESSAGES, "n" * 129, "name_pattern", "^[a-zA-Z0-9_-]{1,128}$", "n" * 129, "refused", ""),
            (ANTHROPIC_MESSAGES, "n" * 129, "name_length", 128, 129, "refused", ""),
        ],
    ),
    (
        ANTHROPIC_MESSAGES,
        Tool("either", input_schema={"type": "object", "properties": {}, "anyOf": [{"required": ["a"]}]}),
        [(ANTHROPIC_MESSAGES, "either", "top_level_combinator", "none", "anyOf", "refused", "")],
    ),
    # Gemini function calling
    (
        GEMINI,
        Tool("9lives", input_schema=OBJ),
        [(GEMINI, "9lives", "name_pattern", "^[a-zA-Z_][a-zA-Z0-9_.:-]*$", "9lives", "refused", "")],
    ),
    (GEMINI, Tool("g" * 65, input_schema=OBJ), [(GEMINI, "g" * 65, "name_length", 64, 65, "refused", "")]),
]


@pytest.mark.parametrize(("target", "tool", "expected"), RULES, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(RULES)])
def test_each_rule_of_each_profile_gives_its_exact_problem(target, tool, expected):
    assert [tuple(p.as_dict().values()) for p in _one(target, tool)] == expected


# One row per rule of the whole array: target, how many tools ("查询"-described, schema OBJ), the
# target's budget in characters (None: the default), the exact problems. The one-tool array (tool "t0") is
# 112 characters in the Chat Completions shape, 99 in Responses', 83 in Anthropic's, 81 in Gemini's.
ARRAY_RULES = [
    (OPENAI_CHAT, 129, None, [(OPENAI_CHAT, None, "tool_count", 128, 129, "refused", "")]),
    (OPENAI_CHAT, 1, 111, [(OPENAI_CHAT, None, "payload_budget", 111, 112, "over_budget", "")]),
    (OPENAI_RESPONSES, 1, 98, [(OPENAI_RESPONSES, None, "payload_budget", 98, 99, "over_budget", "")]),
    (ANTHROPIC_MESSAGES, 1, 82, [(ANTHROPIC_MESSAGES, None, "payload_budget", 82, 83, "over_budget", "")]),
    (GEMINI, 1, 80, [(GEMINI, None, "payload_budget", 80, 81, "over_budget", "")]),
]


@pytest.mark.parametrize(
    ("target", "count", "budget", "expected"), ARRAY_RULES, ids=[f"{r[0]}-{r[1]}-{r[2]}" for r in ARRAY_RULES]
)
def test_each_array_rule_of_each_profile_gives_its_exact_problem(target, count, budget, expected):
    tools = tuple(Tool(f"t{i}", description="查询", input_schema=OBJ) for i in range(count))
    catalog = _catalog(*tools, payload_budgets={} if budget is None else {target: budget})
    names = [t.name for t in tools]
    assert [tuple(p.as_dict().values()) for p in payload_problems(catalog, names, [target])] == expected
    # one short of the rule: nothing (128 tools; a budget equal to the size)
    fewer = names[:-1] if count > 1 else names
    roomy = _catalog(*tools, payload_budgets={} if budget is None else {target: budget + 1})
    assert payload_problems(roomy, fewer, [target]) == ()


def test_every_rule_of_every_profile_has_a_row_and_a_source():
    """Each rule a profile checks is a row of RULES or ARRAY_RULES (the budget for every
    profile), with a cited source."""
    checked = {(t, row[2]) for t, _, rows in RULES for row in rows}
    checked |= {(t, row[2]) for t, _, _, rows in ARRAY_RULES for row in rows}
    assert {(code, "payload_budget") for code in PROFILES} <= checked
    for code, p in PROFILES.items():
        rules = {
            "name_pattern": p.name_pattern,
            "name_length": p.name_max_length,
            "description_length": p.description_max_length,
            "object_without_properties": p.object_needs_properties or None,
            "array_without_items": p.array_needs_items or None,
            "top_level_combinator": p.no_top_level_combinator or None,
        }
        for rule, value in rules.items():
            if value is not None:
                assert (code, rule) in checked, (code, rule)
                assert p.sources[rule].startswith("https://github.com/"), (code, rule)
        if p.max_tools is not None:
            assert (code, "tool_count") in checked
            assert p.sources["tool_count"].startswith("https://github.com/")


def test_a_name_every_target_accepts_gives_nothing():
    tool = Tool(
        "query_order",
        description="查询订单",
        input_schema={"type": "object", "properties": {"n": {"type": "array", "items": {}}}},
    )
    assert [p for t in PROFILES for p in _one(t, tool)] == []


def test_too_many_tools_openai_chat_refuses_past_128():
    tools = tuple(Tool(f"t{i}", input_schema=OBJ) for i in range(147))
    catalog = _catalog(*tools)
    names = [t.name for t in tools]
    assert [p.as_dict() for p in payload_problems(catalog, names, [OPENAI_CHAT])] == [
        {
            "target": "openai_chat",
            "tool": None,
            "rule": "tool_count",
            "limit": 128,
            "actual": 147,
            "action": "refused",
            "path": "",
        }
    ]
    assert payload_problems(catalog, names[:128], [OPENAI_CHAT]) == ()
    assert payload_problems(catalog, names, [ANTHROPIC_MESSAGES]) == ()  # no cited count for Anthropic


def test_the_budget_counts_characters_of_the_target_payload():
    """chars equals payload_chars of the wire array; past the budget: over_budget with both numbers."""
    tools = (Tool("a", description="甲" * 100, input_schema=OBJ), Tool("b", input_schema=OBJ))
    catalog = _catalog(*tools, payload_budgets={OPENAI_CHAT: 150})
    tp = target_payload(catalog, ["a", "b"], OPENAI_CHAT)
    assert tp.chars == payload_chars(tools_payload(catalog, ["a", "b"], OPENAI)) == 317
    assert (tp.budget, tp.over_budget) == (150, True)
    assert [p.as_dict() for p in tp.problems] == [
        {
            "target": "openai_chat",
            "tool": None,
            "rule": "payload_budget",
            "limit": 150,
            "actual": 317,
            "action": "over_budget",
            "path": "",
        }
    ]
    # the default budget applies to a target the setting leaves out
    assert target_payload(catalog, ["a", "b"], ANTHROPIC_MESSAGES).budget == DEFAULT_PAYLOAD_BUDGET
    assert target_payload(_catalog(), [], OPENAI_CHAT).chars == 2  # "[]"


def test_the_rewrite_is_in_the_openai_payload_only_and_the_stored_schema_is_unchanged():
    schema = {"type": "object", "properties": {"filter": {"type": "object"}}}
    tool = Tool("find", input_schema=schema)
    catalog = _catalog(tool)
    [item] = tools_payload(catalog, ["find"], OPENAI)
    assert item["function"]["parameters"] == {
        "type": "object",
        "properties": {"filter": {"type": "object", "properties": {}}},
    }
    assert schema == {"type": "object", "properties": {"filter": {"type": "object"}}}
    assert catalog.tool("find").input_schema == schema
    assert [p.as_dict() for p in payload_problems(catalog, ["find"], [OPENAI_CHAT])] == [
        {
            "target": "openai_chat",
            "tool": "find",
            "rule": "object_without_properties",
            "limit": "properties",
            "actual": None,
            "action": "rewritten",
            "path": "properties.filter",
        }
    ]
    anthropic = target_payload(catalog, ["find"], ANTHROPIC_MESSAGES)
    assert anthropic.tools[0]["input_schema"] == schema and anthropic.problems == ()


def test_the_load_skill_description_grows_with_the_catalog_and_is_refused_past_1024():
    skills = tuple(Skill(f"s{i}", f"技能{i}", "说" * 490, "# m") for i in range(2))
    catalog = _catalog(Tool("load_skill", BUILTIN, input_schema=OBJ), skills=skills)
    [p] = payload_problems(catalog, ["load_skill"], [OPENAI_CHAT])
    assert (p.tool, p.rule, p.limit, p.actual) == (
        "load_skill",
        "description_length",
        1024,
        1141,
    )  # 139 + 1 + 2 × 500 + 1
    assert tool_target_problems(catalog, "load_skill") == (p,)


def test_targets_and_budgets_travel_in_the_snapshot_and_defaults_keep_the_hash():
    tools = (Tool("a", input_schema=OBJ),)
    plain = _catalog(*tools)
    assert "payload_targets" not in catalog_to_snapshot(plain)["settings"]
    assert body_sha256(catalog_to_snapshot(plain)) == body_sha256(
        catalog_to_snapshot(_catalog(*tools, payload_targets=[OPENAI_CHAT, ANTHROPIC_MESSAGES]))
    )
    custom = _catalog(*tools, payload_targets=(GEMINI,), payload_budgets={GEMINI: 900})
    snap = catalog_to_snapshot(custom)
    assert (snap["settings"]["payload_targets"], snap["settings"]["payload_budgets"]) == (["gemini"], {"gemini": 900})
    back = catalog_from_snapshot(json.loads(json.dumps(snap)))
    assert (back.payload_targets, dict(back.payload_budgets)) == (("gemini",), {"gemini": 900})
    assert [(c.field, c.before, c.after) for c in catalog_diff(plain, custom).settings_changed] == [
        ("payload_targets", ["openai_chat", "anthropic_messages"], ["gemini"]),
        ("payload_budgets", {}, {"gemini": 900}),
    ]


def test_a_setting_names_known_targets_and_sane_budgets():
    assert target_problems(["openai_chat", "gemini"]) == []
    assert target_problems(["openai", "gemini", "gemini"]) == [
        "unknown payload target 'openai'; known: openai_chat, openai_responses, anthropic_messages, gemini",
        "payload target 'gemini' is listed twice",
    ]
    assert budget_problems({"openai_chat": 5000}) == []
    assert budget_problems({"nope": 1, "gemini": 0, "openai_chat": True}) == [
        "unknown payload target 'nope' in the budgets; known: openai_chat, openai_responses, anthropic_messages, gemini",
        "the budget of 'gemini' must be a whole number of characters from 1 to 10000000",
        "the budget of 'openai_chat' must be a whole number of characters from 1 to 10000000",
    ]


# --- the publish gate ----------------------------------------------------------------------------

SCRIPT = """
name: flow
steps:
  - user: hi
  - assistant: {calls: [{load_skill: {skill_code: alpha}}]}
  - assistant: {calls: []}
"""


def _review(draft: Catalog, scripts: dict[str, str] | None = None) -> PublishReview:
    return PublishReview(
        draft=draft,
        sha256=body_sha256(catalog_to_snapshot(draft)),
        latest_number=None,
        latest_sha256=None,
        latest=None,
        diff=catalog_diff(None, draft),
        scenarios=rerun_scenarios(draft, None, scripts or {}),
    )


def _gate_catalog(*extra: Tool, skills: tuple[Skill, ...] | None = None, **settings) -> Catalog:
    base = (Tool("load_skill", BUILTIN, input_schema=OBJ), Tool("refund", input_schema=OBJ))
    skills = skills if skills is not None else (Skill("alpha", "甲", "退款时加载", "# alpha", ("refund",)),)
    return Catalog(tools=base + extra, skills=skills, **settings)


CASES = {
    "missing properties": (
        Tool("bare", input_schema={"type": "object", "properties": {"f": {"type": "object"}}}),
        None,
    ),  # rewritten for OpenAI: no refusal
    "missing items": (
        Tool("list", input_schema={"type": "object", "properties": {"paths": {"type": "array"}}}),
        (
            "payload:openai_chat:list:array_without_items",
            "OpenAI Chat Completions would refuse the request: the schema of 'list' has an array without 'items' "
            "at 'properties.paths' (first: scenario 'flow' round 1; rounds: 3)",
        ),
    ),
    "top-level anyOf": (
        Tool("either", input_schema={"type": "object", "properties": {}, "anyOf": [{"required": ["a"]}]}),
        (
            "payload:anthropic_messages:either:top_level_combinator",
            "Anthropic Messages would refuse the request: the schema of 'either' has 'anyOf' at the top level "
            "(first: scenario 'flow' round 1; rounds: 3)",
        ),
    ),
    "long description": (
        Tool("wordy", description="x" * 1500, input_schema=OBJ),
        (
            "payload:openai_chat:wordy:description_length",
            "OpenAI Chat Completions would refuse the request: the description of 'wordy' has 1500 characters; "
            "at most 1024 (first: scenario 'flow' round 1; rounds: 3)",
        ),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_gate_refuses_each_case_and_a_reason_overrides_it(case):
    tool, expected = CASES[case]
    review = _review(_gate_catalog(tool), {"flow": SCRIPT})
    reasons = check_payloads(review)
    if expected is None:
        assert reasons == []
        return
    assert [(r.key, str(r.message), r.overridable) for r in reasons] == [(*expected, True)]
    assert blocking(gate(review), []) != () and blocking(gate(review), [expected[0]]) == ()


def test_the_gate_refuses_too_many_tools_in_the_round_with_every_manual_loaded():
    """Gated tools hidden in every scenario round still count: every manual loaded shows them all."""
    gated = tuple(Tool(f"g{i}", input_schema=OBJ) for i in range(130))
    skills = (Skill("alpha", "甲", "退款时加载", "# alpha", tuple(t.name for t in gated)),)
    review = _review(
        _gate_catalog(*gated, skills=skills), {"flow": "name: flow\nsteps:\n  - user: hi\n  - assistant: {calls: []}\n"}
    )
    assert len(all_loaded_visible(review.draft)) == 132
    [reason] = check_payloads(review)
    assert (reason.key, str(reason.message)) == (
        "payload:openai_chat::tool_count",
        "OpenAI Chat Completions would refuse the request: 132 tools in one request; at most 128 "
        "(first: the round with every manual loaded; rounds: 1)",
    )
    assert blocking(gate(review), [reason.key]) == ()


def test_the_gate_refuses_an_oversized_load_skill_description():
    skills = tuple(Skill(f"s{i}", f"技能{i}", "说" * 490, "# m", ("refund",)) for i in range(2))
    review = _review(_gate_catalog(skills=skills))
    [reason] = check_payloads(review)
    assert (reason.key, str(reason.message)) == (
        "payload:openai_chat:load_skill:description_length",
        "OpenAI Chat Completions would refuse the request: the description of 'load_skill' has 1141 characters; "
        "at most 1024 (first: the round with every manual loaded; rounds: 1)",
    )


def test_a_scenario_round_over_budget_is_a_gate_reason_per_scenario():
    review = _review(_gate_catalog(payload_budgets={ANTHROPIC_MESSAGES: 400}), {"flow": SCRIPT})
    rounds = review.scenarios[0].simulation.rounds
    sizes = [target_payload(review.draft, r.view.visible, ANTHROPIC_MESSAGES).chars for r in rounds]
    assert (
        sizes == [payload_chars(tools_payload(review.draft, r.view.visible, "anthropic")) for r in rounds] == [373, 457]
    )
    [reason] = check_payloads(review)
    assert (reason.key, str(reason.message), reason.overridable) == (
        "payload:anthropic_messages:budget:flow",
        "scenario 'flow' round 2: the tools payload for Anthropic Messages is 457 characters, over its budget of 400 "
        "(rounds of this scenario over it: 1)",
        True,
    )


def test_only_the_configured_targets_are_checked():
    review = _review(_gate_catalog(Tool("a.b", input_schema=OBJ), payload_targets=(GEMINI,)))
    assert check_payloads(review) == []
    review = _review(replace(review.draft, payload_targets=(OPENAI_RESPONSES,)))
    assert [r.key for r in check_payloads(review)] == ["payload:openai_responses:a.b:name_pattern"]


def test_a_draft_catalog_checks_load_skill_again_and_reuses_the_tool_checks():
    """The editor's draft (``Catalog.with_skills``): the MCP tools' checks are the origin's (kept
    under a TOOLS_ONLY key), load_skill is checked for the draft's own catalog lines."""
    wordy = Tool("wordy", description="x" * 1500, input_schema=OBJ)
    catalog = _catalog(Tool("load_skill", BUILTIN, input_schema=OBJ), wordy, skills=(Skill("a", "甲", "短", "# m"),))
    visible = all_loaded_visible(catalog)
    assert [(p.tool, p.rule) for p in payload_problems(catalog, visible, [OPENAI_CHAT])] == [
        ("wordy", "description_length")
    ]
    draft = catalog.with_skills(tuple(Skill(f"s{i}", f"技能{i}", "说" * 490, "# m") for i in range(2)))
    assert [(p.tool, p.rule, p.actual) for p in payload_problems(draft, visible, [OPENAI_CHAT])] == [
        ("load_skill", "description_length", 1141),
        ("wordy", "description_length", 1500),
    ]
    before = target_payload(catalog, ["wordy"], OPENAI_CHAT).tools[0]
    assert target_payload(draft, ["wordy"], OPENAI_CHAT).tools[0] is before  # checked once
    # back to the origin: its own load_skill, unchanged
    assert [p.tool for p in payload_problems(catalog, visible, [OPENAI_CHAT])] == ["wordy"]
