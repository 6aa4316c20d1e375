"""What the publish page shows and refuses with (``domain/releases.py``, docs/releases.md): the
exact diff of two catalogs field by field, the manual's line diff, the scenario re-runs' changed
rounds and errors, and every gate reason's exact code, sentence, params, key and override. Every
catalog is built inside its test (see docs/testing.md, "Score")."""

from __future__ import annotations

from dataclasses import replace

from skill_rule import Catalog, Restriction, Skill, Tool
from skill_rule.errors import Problem, ScriptError
from skill_rule.releases import (
    CatalogDiff,
    FieldChange,
    GateReason,
    ItemChange,
    PublishReview,
    ScenarioRun,
    blocking,
    catalog_diff,
    check_dangling_tools,
    check_scenarios,
    check_something_changed,
    check_tool_definitions,
    check_unavailable_tools,
    gate,
    manual_diff,
    rerun_scenarios,
)
from skill_rule.scripts import parse_script
from skill_rule.simulator import simulate


def _tools() -> tuple[Tool, ...]:
    return (
        Tool("load_skill", "builtin"),
        Tool("refund", require_confirm=True),
        Tool("cancel"),
        Tool("ship"),
        Tool("export"),
    )


def _skill(code: str, tool_ids: tuple[str, ...], sort_order: int = 10, **fields) -> Skill:
    values = dict(
        code=code,
        name=code.title(),
        description=f"for {code}",
        content=f"# {code}",
        tool_ids=tool_ids,
        sort_order=sort_order,
    )
    values.update(fields)
    return Skill(**values)


def _review(draft: Catalog, **fields) -> PublishReview:
    values = dict(
        draft=draft,
        sha256="a" * 64,
        latest_number=None,
        latest_sha256=None,
        latest=None,
        diff=CatalogDiff(),
        scenarios=(),
    )
    values.update(fields)
    return PublishReview(**values)


# --- the manual's line diff -------------------------------------------------------------------


def test_a_manual_diff_shows_two_lines_of_context_around_a_change():
    """Two unchanged lines either side of a change, in one hunk; the file headers left out."""
    before = "\n".join(f"line {i}" for i in range(1, 9))
    after = before.replace("line 5", "line five")
    assert manual_diff(before, after) == (
        "@@ -3,5 +3,5 @@",
        " line 3",
        " line 4",
        "-line 5",
        "+line five",
        " line 6",
        " line 7",
    )


def test_a_removed_markdown_rule_and_an_added_plus_line_stay_in_the_manual_diff():
    """A manual line ``---`` removed is the diff line ``----``, a line ``++x`` added is ``+++x``:
    both are shown (only the two file headers are dropped)."""
    assert manual_diff("# a\n---\nbody", "# a\nbody") == ("@@ -1,3 +1,2 @@", " # a", "----", " body")
    assert manual_diff("# a\nbody", "# a\n++x\nbody") == ("@@ -1,2 +1,3 @@", " # a", "+++x", " body")


# --- the catalog diff -------------------------------------------------------------------------


def test_every_field_of_a_changed_skill_is_listed_with_its_exact_values():
    """Name, description, tool ids (as lists), sort order, version and manual, in that order."""
    before = Catalog(tools=_tools(), skills=(_skill("alpha", ("refund", "cancel")),))
    after = Catalog(
        tools=_tools(),
        skills=(
            _skill("alpha", ("refund",), 30, name="Alpha 2", description="new", version=2, content="# alpha\nmore"),
        ),
    )
    [change] = catalog_diff(before, after).skills_changed
    assert change == ItemChange(
        "alpha",
        (
            FieldChange("name", "Alpha", "Alpha 2"),
            FieldChange("description", "for alpha", "new"),
            FieldChange("tool_ids", ["refund", "cancel"], ["refund"]),
            FieldChange("sort_order", 10, 30),
            FieldChange("version", 1, 2),
            FieldChange("content", "# alpha", "# alpha\nmore", ("@@ -1 +1,2 @@", " # alpha", "+more")),
        ),
    )


def test_every_field_of_a_changed_tool_is_listed_with_its_exact_values():
    """Kind, title, description, inputSchema, annotations, server and real MCP name, in that
    order; the schema under its JSON name; an unchanged tool is not listed."""
    before = Catalog(tools=(Tool("ship"), Tool("export")))
    after = Catalog(
        tools=(
            Tool(
                "ship",
                "builtin",
                "Ship",
                "ships it",
                {"type": "object", "required": ["a"]},
                {"readOnlyHint": True},
                server="shop",
                mcp_name="do_ship",
            ),
            Tool("export"),
        )
    )
    assert catalog_diff(before, after).tools_changed == (
        ItemChange(
            "ship",
            (
                FieldChange("kind", "mcp", "builtin"),
                FieldChange("title", "", "Ship"),
                FieldChange("description", "", "ships it"),
                FieldChange("inputSchema", {"type": "object"}, {"type": "object", "required": ["a"]}),
                FieldChange("annotations", {}, {"readOnlyHint": True}),
                FieldChange("server", None, "shop"),
                FieldChange("mcp_name", None, "do_ship"),
            ),
        ),
    )


def test_a_stored_schema_of_the_wrong_shape_is_compared_as_stored():
    """A schema stored as a list differs from the object and is listed as it is."""
    before = Catalog(tools=(Tool("ship", input_schema=[1]),))
    after = Catalog(tools=(Tool("ship", input_schema={"type": "object"}),))
    assert catalog_diff(before, after).tools_changed == (
        ItemChange("ship", (FieldChange("inputSchema", [1], {"type": "object"}),)),
    )
    assert catalog_diff(before, Catalog(tools=(Tool("ship", input_schema=[1]),))).tools_changed == ()


def test_added_removed_gated_released_and_confirm_changes_are_exact():
    """Skills and tools added and removed, tools entering and leaving the gate, and the
    confirmation flag's before and after, each in catalog order."""
    before = Catalog(tools=_tools(), skills=(_skill("alpha", ("refund", "cancel")), _skill("beta", ("ship",), 20)))
    tools = (
        Tool("load_skill", "builtin"),
        Tool("refund"),
        Tool("cancel", require_confirm=True),
        Tool("ship"),
        Tool("extra"),
    )
    after = Catalog(tools=tools, skills=(_skill("alpha", ("refund", "cancel")), _skill("gamma", ("extra", "ship"), 5)))
    diff = catalog_diff(before, after)
    assert (diff.skills_added, diff.skills_removed) == (("gamma",), ("beta",))
    assert (diff.tools_added, diff.tools_removed) == (("extra",), ("export",))
    assert (diff.newly_gated, diff.newly_released) == (("extra",), ())
    assert dict(diff.confirm_changed) == {"refund": (True, False), "cancel": (False, True)}
    back = catalog_diff(after, before)
    assert (back.newly_gated, back.newly_released) == ((), ("extra",))


def test_restriction_changes_name_the_kind_and_the_restriction_sorted():
    """An access profile or stage added, removed, or with other tools or description:
    ``access_profile:<name>`` / ``stage:<name>``, sorted; an unchanged one is not listed."""
    same = Restriction("same", frozenset({"ship"}), "kept")
    before = Catalog(
        tools=_tools(),
        profiles={"reader": Restriction("reader", frozenset({"ship"})), "same": same},
        stages={"wrap": Restriction("wrap", frozenset({"ship"}), "closing"), "same": same},
    )
    after = Catalog(
        tools=_tools(),
        profiles={
            "reader": Restriction("reader", frozenset({"ship", "cancel"})),
            "same": same,
            "new": Restriction("new", frozenset()),
        },
        stages={"wrap": Restriction("wrap", frozenset({"ship"}), "closing now"), "same": same},
    )
    assert catalog_diff(before, after).restrictions_changed == (
        "access_profile:new",
        "access_profile:reader",
        "stage:wrap",
    )
    gone = Catalog(tools=_tools(), profiles={"same": same}, stages={"same": same})
    assert catalog_diff(before, gone).restrictions_changed == ("access_profile:reader", "stage:wrap")


def test_settings_changes_are_listed_only_against_a_release():
    """Every setting that differs, in setting order, with before and after; the first release
    (nothing before) lists none, whatever its settings."""
    before = Catalog(tools=_tools())
    after = Catalog(tools=_tools(), marker_key="mk", load_skill_header="Header")
    assert catalog_diff(before, after).settings_changed == (
        FieldChange("marker_key", before.marker_key, "mk"),
        FieldChange("load_skill_header", before.load_skill_header, "Header"),
    )
    first = catalog_diff(None, after)
    assert first.settings_changed == ()
    assert first.tools_added == ("refund", "cancel", "ship", "export")  # no skill: load_skill not registered


def test_a_diff_with_any_one_difference_is_not_empty():
    """``empty`` is true only when every part is empty."""
    assert CatalogDiff().empty
    parts = dict(
        skills_added=("a",),
        skills_removed=("a",),
        skills_changed=(ItemChange("a", ()),),
        tools_added=("t",),
        tools_removed=("t",),
        tools_changed=(ItemChange("t", ()),),
        newly_gated=("t",),
        newly_released=("t",),
        confirm_changed={"t": (False, True)},
        restrictions_changed=("stage:s",),
        settings_changed=(FieldChange("marker_key", "a", "b"),),
    )
    for name, value in parts.items():
        assert not CatalogDiff(**{name: value}).empty, name


# --- scenarios --------------------------------------------------------------------------------

SCRIPT = """
steps:
  - user: refund please
  - assistant: {calls: [{load_skill: {skill_code: alpha}}], expect: {count: 4}}
  - assistant: {calls: [{refund: {}}]}
"""


def test_a_scenario_that_does_not_run_names_itself_in_the_error():
    """The error of a script that no longer parses names the scenario as its source."""
    [run] = rerun_scenarios(Catalog(tools=_tools()), None, {"broken": "steps: []\n"})
    assert run == ScenarioRun("broken", None, error="scenario 'broken':1: 'steps' must be a non-empty list")
    assert run.failures == ("scenario 'broken':1: 'steps' must be a non-empty list",)


def test_against_no_release_or_a_release_it_fails_on_every_round_is_changed():
    """With no latest release, or one the scenario cannot run against, every round counts as
    changed; against an equal release none does."""
    draft = Catalog(
        tools=_tools(),
        skills=(_skill("alpha", ("refund", "cancel")),),
        stages={"s": Restriction("s", frozenset({"refund"}))},
    )
    [first] = rerun_scenarios(draft, None, {"flow": SCRIPT})
    assert first.changed_rounds == (1, 2)
    latest = Catalog(tools=_tools(), skills=draft.skills)  # no stage 's'
    staged = "stage: s\n" + SCRIPT
    [run] = rerun_scenarios(draft, latest, {"flow": staged})
    assert run.error == "" and run.simulation is not None and run.changed_rounds == (1, 2)
    [same] = rerun_scenarios(draft, draft, {"flow": staged})
    assert same.changed_rounds == ()


def test_a_round_is_changed_when_its_calls_verdict_changes():
    """Same count and tools, but a call allowed before and stopped for confirmation now: that
    round (and only it) is changed."""
    skills = (_skill("alpha", ("refund", "cancel")),)
    latest = Catalog(tools=(Tool("load_skill", "builtin"), Tool("refund"), Tool("cancel")), skills=skills)
    draft = Catalog(
        tools=(Tool("load_skill", "builtin"), Tool("refund", require_confirm=True), Tool("cancel")), skills=skills
    )
    [run] = rerun_scenarios(draft, latest, {"flow": SCRIPT})
    assert run.changed_rounds == (2,)


def test_a_round_is_changed_when_a_newly_added_round_has_no_counterpart():
    """A draft run with more rounds than the release run: the extra rounds are changed."""
    catalog = Catalog(tools=_tools(), skills=(_skill("alpha", ("refund", "cancel")),))

    def run(c, name, script):
        sim = simulate(c, parse_script(script, source=name))
        if c is catalog:
            return sim
        return replace(sim, rounds=sim.rounds[:1])

    older = Catalog(tools=_tools(), skills=catalog.skills)
    [ran] = rerun_scenarios(catalog, older, {"flow": SCRIPT}, run=run)
    assert ran.changed_rounds == (2,)


def test_a_passed_runner_is_used_for_both_catalogs_and_its_refusal_reported():
    """``run`` replaces the plain parse-and-simulate, for the draft and the release alike."""
    seen = []

    def run(c, name, script):
        seen.append((c, name, script))
        raise ScriptError("cached refusal", source=name)

    draft, latest = Catalog(tools=_tools()), Catalog(tools=(Tool("ship"),))
    [ran] = rerun_scenarios(draft, latest, {"flow": "x"}, run=run)
    assert ran == ScenarioRun("flow", None, error="flow: cached refusal")
    assert seen == [(draft, "flow", "x")]

    def simulated(c, name, script):
        seen.append((c, name))
        return simulate(c, parse_script(script, source=name))

    seen.clear()
    [ok] = rerun_scenarios(draft, latest, {"flow": SCRIPT}, run=simulated)
    assert ok.error == "" and ok.simulation is not None
    assert seen == [(draft, "flow"), (latest, "flow")]


# --- the gate ---------------------------------------------------------------------------------


def test_a_dangling_tool_reason_lists_the_skills_unknown_tools_but_not_unavailable_ones():
    """Code ``gate_dangling``, the sentence, and params with the joined and the listed tools;
    a tool its server no longer offers is left to ``gate_unavailable``."""
    draft = Catalog(
        tools=_tools(), skills=(_skill("alpha", ("refund", "ghost", "gone", "void")), _skill("beta", ("gone",), 20))
    )
    [reason] = check_dangling_tools(_review(draft, unavailable={"gone": "shop"}))
    assert reason == GateReason(
        Problem(
            "gate_dangling",
            "skill '%(code)s' gates %(tools)s, which is not a registered tool (unknown, or its MCP node is disabled)",
            {"code": "alpha", "tools": "ghost, void", "tool_list": ["ghost", "void"]},
        )
    )
    assert str(reason.message) == (
        "skill 'alpha' gates ghost, void, which is not a registered tool (unknown, or its MCP node is disabled)"
    )
    assert (reason.code, reason.key, reason.overridable) == ("gate_dangling", "", False)
    assert dict(reason.message.params) == {"code": "alpha", "tools": "ghost, void", "tool_list": ["ghost", "void"]}


def test_an_unavailable_and_an_orphaned_tool_each_block_with_their_server():
    """One blocking reason per skill and tool: the deleted server record first named as such."""
    draft = Catalog(tools=_tools(), skills=(_skill("alpha", ("gone", "lost", "ghost")),))
    reasons = check_unavailable_tools(
        _review(draft, unavailable={"gone": "shop", "lost": "old"}, orphaned={"lost": "old"})
    )
    assert [(r.code, str(r.message), dict(r.message.params), r.key, r.overridable) for r in reasons] == [
        (
            "gate_unavailable",
            "skill 'alpha' is broken: it gates 'gone', which MCP server 'shop' no longer offers "
            "(sync the server again, or remove the tool from the skill)",
            {"code": "alpha", "tool": "gone", "server": "shop"},
            "",
            False,
        ),
        (
            "gate_orphaned",
            "skill 'alpha' is broken: it gates 'lost', whose MCP server record 'old' was deleted "
            "(register the server again and sync it, or remove the tool from the skill)",
            {"code": "alpha", "tool": "lost", "server": "old"},
            "",
            False,
        ),
    ]


def test_an_invalid_tool_definition_blocks_with_its_problems_joined():
    """Code ``gate_tool_definition``, the tool and its problems joined by ``; ``."""
    draft = Catalog(tools=(Tool("bad name", input_schema={"type": "string"}), Tool("ok")))
    [reason] = check_tool_definitions(_review(draft))
    assert reason.code == "gate_tool_definition"
    assert str(reason.message) == (
        "tool 'bad name' has an invalid definition: tool name 'bad name' must be 1–64 ASCII letters, digits, '_' "
        "or '-' (what OpenAI and Anthropic accept); inputSchema must have \"type\": \"object\", got 'string'"
    )
    assert reason.message.params["tool"] == "bad name"
    assert not reason.overridable


def test_scenario_reasons_are_overridable_by_their_key():
    """An unmet expectation: ``gate_scenario``; a scenario that does not run:
    ``gate_scenario_error``; both overridable, keyed ``scenario:<name>:<failure>``."""
    draft = Catalog(tools=_tools(), skills=(_skill("alpha", ("refund", "cancel")),))
    runs = rerun_scenarios(draft, None, {"broken": "steps: []\n", "flow": SCRIPT})
    reasons = check_scenarios(_review(draft, scenarios=runs))
    assert [(r.code, str(r.message), dict(r.message.params), r.key, r.overridable) for r in reasons] == [
        (
            "gate_scenario_error",
            "scenario 'broken' does not run: scenario 'broken':1: 'steps' must be a non-empty list",
            {"name": "broken", "cause": "scenario 'broken':1: 'steps' must be a non-empty list"},
            "scenario:broken:scenario 'broken':1: 'steps' must be a non-empty list",
            True,
        ),
        (
            "gate_scenario",
            "scenario 'flow': round 1: expected 4 tools, got 3",
            {"name": "flow", "failure": "round 1: expected 4 tools, got 3"},
            "scenario:flow:round 1: expected 4 tools, got 3",
            True,
        ),
    ]


def test_an_unchanged_draft_is_refused_naming_the_release_and_a_changed_one_is_not():
    """``gate_unchanged`` with the latest release's number, only when the hashes are equal."""
    draft = Catalog(tools=_tools())
    [reason] = check_something_changed(_review(draft, latest_number=3, latest_sha256="a" * 64))
    assert (reason.code, str(reason.message), dict(reason.message.params), reason.overridable) == (
        "gate_unchanged",
        "nothing changed since release 3",
        {"number": 3},
        False,
    )
    assert check_something_changed(_review(draft, latest_number=3, latest_sha256="b" * 64)) == []
    assert check_something_changed(_review(draft)) == []


def test_the_gate_lists_the_reasons_in_check_order():
    """Dangling, unavailable, definitions, scenarios, payloads, unchanged: that order, every reason."""
    draft = Catalog(
        tools=(Tool("load_skill", "builtin"), Tool("bad name"), Tool("refund")),
        skills=(_skill("alpha", ("refund", "ghost", "gone")),),
    )
    runs = (ScenarioRun("broken", None, error="it broke"),)
    review = _review(draft, scenarios=runs, unavailable={"gone": "shop"}, latest_number=2, latest_sha256="a" * 64)
    assert [r.code for r in gate(review)] == [
        "gate_dangling",
        "gate_unavailable",
        "gate_tool_definition",
        "gate_scenario_error",
        "gate_payload",  # 'bad name': OpenAI Chat Completions
        "gate_payload",  # and Anthropic Messages
        "gate_unchanged",
    ]
    assert [r.code for r in gate(review, [check_something_changed, check_dangling_tools])] == [
        "gate_unchanged",
        "gate_dangling",
    ]


def test_a_ticked_off_key_lifts_only_an_overridable_reason():
    """A blocking reason stays even when its key is ticked off; an overridable one goes only when
    its own key is."""
    hard = GateReason(Problem("gate_x", "hard"), key="k")
    soft = GateReason(Problem("gate_y", "soft"), key="k2", overridable=True)
    other = GateReason(Problem("gate_z", "other"), key="k3", overridable=True)
    assert blocking([hard, soft, other], ["k", "k2"]) == (hard, other)
    assert blocking([hard, soft, other], []) == (hard, soft, other)
