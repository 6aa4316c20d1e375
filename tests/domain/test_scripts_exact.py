"""Scenario scripts, exactly (issue 11, mutation testing of ``domain/scripts.py``): the defaults a
script gets, scalars read as the text typed, and every refusal not in ``test_scripts.py`` with its
line and cause."""

from __future__ import annotations

import pytest

from skill_rule import ScriptError, Step, ToolCall, parse_script
from skill_rule.limits import MAX_CALLS_PER_ROUND, MAX_ROUNDS, MAX_SCRIPT_CHARS


def test_a_bare_list_of_steps_is_an_untitled_script_without_restrictions() -> None:
    script = parse_script("- user: hi\n- assistant: x\n")
    assert (
        script.name,
        script.description,
        script.access_profile,
        script.stage,
        script.allowed_tools,
        script.source,
    ) == ("untitled", "", None, None, None, "<script>")


def test_script_fields_are_read_and_blank_restrictions_are_none() -> None:
    script = parse_script(
        "name: 12\ndescription: about refunds\naccess_profile: ''\nstage: ''\nallowed_tools: []\n"
        "steps: [{assistant: x}]\n",
        source="s.yaml",
    )
    assert (
        script.name,
        script.description,
        script.access_profile,
        script.stage,
        script.allowed_tools,
        script.source,
    ) == ("12", "about refunds", None, None, (), "s.yaml")


def test_numbers_dates_and_booleans_are_read_as_the_text_typed() -> None:
    script = parse_script(
        "- user: 88239\n"
        "- system: 2026-03-02\n"
        "- assistant: yes\n"
        "- assistant:\n"
        "    say: 3.5\n"
        "    calls: [lookup, ship]\n"
        "    results: {lookup: 88239, ship: {content: '7'}}\n"
    )
    assert script.steps == (
        Step("user", 1, text="88239"),
        Step("system", 2, text="2026-03-02"),
        Step("assistant", 3, text="yes"),
        Step(
            "assistant",
            4,
            text="3.5",
            calls=(ToolCall("lookup", {}, id="call_1"), ToolCall("ship", {}, id="call_2")),
            results={"lookup": "88239", "ship": {"content": "7"}},
        ),
    )


def test_a_call_in_the_name_form_gets_the_scripts_own_id_and_its_arguments_or_none() -> None:
    script = parse_script(
        "- assistant:\n    calls:\n      - {name: lookup, id: mine}\n      - name: ship\n"
        "      - {name: export, arguments: {q: x}, id: theirs}\n"
    )
    assert script.steps[0].calls == (
        ToolCall("lookup", {}, id="call_1"),
        ToolCall("ship", {}, id="call_2"),
        ToolCall("export", {"q": "x"}, id="call_3"),
    )


def test_compact_and_evict_take_one_index_or_a_list() -> None:
    script = parse_script(
        "- assistant:\n    calls: [a]\n- compact: {drop: 2}\n- evict: {tool: a}\n- evict: {index: 1}\n- assistant: {}\n"
    )
    assert script.steps[1:] == (
        Step("compact", 3, drop=(2,)),
        Step("evict", 4, evict_tool="a"),
        Step("evict", 5, drop=(1,)),
        Step("assistant", 6),
    )


INVALID = [
    (
        "access_profile not a name",
        "access_profile: [a]\nsteps: [{assistant: x}]\n",
        1,
        "'access_profile' must be a name or null",
    ),
    ("steps not a list", "steps: x\n", 1, "'steps' must be a non-empty list"),
    ("no steps key, on line 1", "name: x\ndescription: y\n", 1, "'steps' must be a non-empty list"),
    (
        "an unknown key beside a kind, named with it",
        "steps:\n  - user: hi\n    zz: 1\n  - assistant: x\n",
        2,
        "a step needs exactly one of user, system, assistant, compact, evict (found: user, zz)",
    ),
    (
        "two unknown assistant keys named in order",
        "steps:\n  - assistant: {say: x, zz: 1, aa: 2}\n",
        2,
        "unknown assistant key aa, zz; known: say, calls, results, expect",
    ),
    (
        "expect beside assistant, on its own line",
        "steps:\n  - assistant: x\n    expect: {count: true}\n",
        3,
        "expect.count must be an integer",
    ),
    (
        "compact a list naming drop",
        "steps:\n  - user: hi\n  - compact: [drop]\n  - assistant: x\n",
        3,
        "'compact' must be {drop: [1-based indices]}",
    ),
    (
        "stage not a name, on its line",
        "name: x\nsteps: [{assistant: x}]\nstage: [a]\n",
        3,
        "'stage' must be a name or null",
    ),
    (
        "allowed_tools not a list, on its line",
        "name: x\nsteps: [{assistant: x}]\nallowed_tools: a\n",
        3,
        "'allowed_tools' must be a list of tool names",
    ),
    (
        "the first of two NULs, after a blank first line",
        "\nsteps:\n  - user: a\x00\n  - user: b\x00\n",
        3,
        "the script contains a NUL character",
    ),
    (
        "an alias, on the line it is used",
        "a: &x hi\nsteps:\n  - user: *x\n  - assistant: x\n",
        3,
        "YAML aliases (*x) are not accepted in scripts: write the value out",
    ),
    (
        "a control character, on its line",
        "steps:\n  - user: hi\n\n  - user: a\x07\n",
        4,
        "invalid YAML: unacceptable character #x0007: special characters are not allowed",
    ),
    (
        "an impossible date, on its line",
        "steps:\n  - user: hi\n  - compact: {drop: [2024-13-45]}\n",
        3,
        "invalid YAML: cannot read this date (month must be in 1..12)",
    ),
    (
        "an integer past ±(2^53−1) is no index (never built: 4,301 digits), on its line",
        "steps:\n  - compact: {drop: [" + "9" * 4301 + "]}\n",
        2,
        "compact.drop must be a list of 1-based message indices",
    ),
    (
        "a key twice in one mapping, on its second line",
        "steps:\n  - assistant:\n      calls:\n        - query_order:\n            order_no: '88239'\n"
        "            order_no: '10001'\n",
        6,
        "key 'order_no' appears twice in one mapping; give it once",
    ),
    (
        "an integer past ±(2^53−1) in a call's arguments, on the call's line",
        "steps:\n  - assistant:\n      calls:\n        - query_order: {order_no: 9007199254740993}\n",
        4,
        "arguments of 'query_order': the integer 9007199254740993 is outside ±(2^53−1); quote it as text",
    ),
    (
        "5,001 digits in a call's arguments, on the call's line",
        "steps:\n  - assistant:\n      calls:\n        - query_order: {order_no: " + "1" * 5001 + "}\n",
        4,
        "arguments of 'query_order': the integer 111111111111111111111... is outside ±(2^53−1); quote it as text",
    ),
    (
        "a hex integer of 16,000 bits in a call's arguments, on the call's line",
        "steps:\n  - assistant:\n      calls:\n        - query_order: {n: 0x" + "f" * 4000 + "}\n",
        4,
        "arguments of 'query_order': the integer 0xfffffffffffffffffff... is outside ±(2^53−1); quote it as text",
    ),
    (
        ".inf in a call's arguments, on the call's line",
        "steps:\n  - assistant:\n      calls:\n        - query_order: {n: [1, .inf]}\n",
        4,
        "arguments of 'query_order': inf is not a JSON number",
    ),
    (
        "a lone surrogate, on its line",
        'steps:\n  - user: hi\n  - user: "a\\ud800"\n  - assistant: x\n',
        3,
        "a lone surrogate (\\ud800) is not text; write the character itself",
    ),
    (
        "a non-character, on its line",
        "steps:\n  - user: a\ufffe\n",
        2,
        "invalid YAML: unacceptable character #xfffe: special characters are not allowed",
    ),
    (
        "an unclosed flow sequence, where it was opened",
        "steps: [\n  {user: hi},\n  {assistant: x}\n",
        4,
        "invalid YAML: expected ',' or ']', but got '<stream end>' (while parsing a flow sequence opened at line 1)",
    ),
    (
        "a mapping value where none is allowed, no opening named",
        "steps:\n  - user: a: b\n",
        2,
        "invalid YAML: mapping values are not allowed here",
    ),
    ("user null", "steps:\n  - user: null\n  - assistant: x\n", 2, "'user' must be text"),
    (
        "unknown keys named in order, line of the first",
        "name: x\nzz: 1\naa: 2\nsteps: [{assistant: x}]\n",
        3,
        "unknown key aa, zz; known: name, description, access_profile, stage, allowed_tools, steps",
    ),
    ("a list of no steps", "- 1\n", 1, "a step must be a mapping with one of: user, system, assistant, compact, evict"),
    (
        "an empty step",
        "steps:\n  - {}\n  - assistant: x\n",
        2,
        "a step must be a mapping with one of: user, system, assistant, compact, evict",
    ),
    ("system not text", "steps:\n  - system: {a: 1}\n  - assistant: x\n", 2, "'system' must be text"),
    (
        "assistant a list",
        "steps:\n  - assistant: [a]\n",
        2,
        "'assistant' must be text or {say, calls, results, expect}",
    ),
    ("say not text", "steps:\n  - assistant:\n      say: [a]\n", 3, "'say' must be text"),
    (
        "calls not a list, on the line of its value",
        "steps:\n  - assistant:\n      say: hi\n      calls: lookup\n",
        4,
        "'calls' must be a list of {tool_name: {arguments}}",
    ),
    (
        "a call without a name",
        "steps:\n  - assistant:\n      calls:\n        - name: ''\n",
        4,
        "a call has no tool name",
    ),
    (
        "a call named by a number",
        "steps:\n  - assistant:\n      calls:\n        - {5: {}}\n",
        4,
        "a call has no tool name",
    ),
    (
        "a call that is a number",
        "steps:\n  - assistant:\n      calls:\n        - 5\n",
        4,
        "each call must be a single {tool_name: {arguments}} mapping",
    ),
    (
        "a result content not text",
        "steps:\n  - assistant:\n      results: {a: {content: [x]}}\n",
        3,
        "result of 'a' must be text or {content, state: success|error}",
    ),
    (
        "expect twice",
        "steps:\n  - assistant:\n      expect: {count: 1}\n    expect: {count: 2}\n",
        2,
        "'expect' is given twice (inside and beside 'assistant'); keep one",
    ),
    (
        "two unknown expectations named in order",
        "steps:\n  - assistant:\n      expect: {visble: [a], cout: 1}\n",
        3,
        "unknown expectation cout, visble; known: count, visible, mcp_visible, includes, excludes, masked, loaded",
    ),
    ("expect not a mapping", "steps:\n  - assistant:\n      expect: [a]\n", 3, "'expect' must be a mapping"),
    (
        "expect count a boolean",
        "steps:\n  - assistant:\n      expect: {count: true}\n",
        3,
        "expect.count must be an integer",
    ),
    (
        "expect mcp_visible not a list",
        "steps:\n  - assistant:\n      expect: {mcp_visible: a}\n",
        3,
        "expect.mcp_visible must be a list of names",
    ),
    (
        "expect includes not names",
        "steps:\n  - assistant:\n      expect: {includes: [[a]]}\n",
        3,
        "expect.includes must be a list of names",
    ),
    (
        "expect excludes not names",
        "steps:\n  - assistant:\n      expect: {excludes: [a, 2]}\n",
        3,
        "expect.excludes must be a list of names",
    ),
    (
        "expect loaded not names",
        "steps:\n  - assistant:\n      expect: {loaded: [1]}\n",
        3,
        "expect.loaded must be a list of names",
    ),
    (
        "expect masked neither list nor mapping",
        "steps:\n  - assistant:\n      expect: {masked: x}\n",
        3,
        "expect.masked must be a list of tools or a {tool: skill} mapping",
    ),
    (
        "expect on a compact step",
        "steps:\n  - user: hi\n  - compact: {drop: [1]}\n    expect: {count: 1}\n  - assistant: x\n",
        3,
        "'expect' belongs to an assistant step",
    ),
    (
        "compact with another key",
        "steps:\n  - user: hi\n  - compact: {drop: [1], x: 1}\n  - assistant: x\n",
        3,
        "'compact' must be {drop: [1-based indices]}",
    ),
    (
        "compact index a boolean",
        "steps:\n  - user: hi\n  - compact: {drop: [true]}\n  - assistant: x\n",
        3,
        "compact.drop must be a list of 1-based message indices",
    ),
    (
        "evict index not a number",
        "steps:\n  - evict: {index: a}\n  - assistant: x\n",
        2,
        "evict.index must be a list of 1-based message indices",
    ),
    (
        "evict empty",
        "steps:\n  - evict: {}\n  - assistant: x\n",
        2,
        "'evict' must be {tool: name} or {index: [1-based indices]}",
    ),
    (
        "evict not a mapping",
        "steps:\n  - evict: x\n  - assistant: x\n",
        2,
        "'evict' must be {tool: name} or {index: [1-based indices]}",
    ),
    (
        "evict tool not a name",
        "steps:\n  - evict: {tool: [a]}\n  - assistant: x\n",
        2,
        "evict.tool must be a tool name",
    ),
    ("a NUL character", "steps:\n  - user: a\x00\n", 2, "the script contains a NUL character"),
]


@pytest.mark.parametrize(("text", "line", "cause"), [pytest.param(t, ln, c, id=i) for i, t, ln, c in INVALID])
def test_more_invalid_forms_name_file_line_and_cause(text: str, line: int, cause: str) -> None:
    with pytest.raises(ScriptError) as exc:
        parse_script(text, source="scenarios/x.yaml")
    err = exc.value
    assert (err.source, err.line, err.cause) == ("scenarios/x.yaml", line, cause)


def test_a_script_of_exactly_the_size_limit_is_parsed_and_one_more_character_is_refused() -> None:
    head = "steps:\n  - assistant: x\n#"
    text = head + "x" * (MAX_SCRIPT_CHARS - len(head))
    assert len(text) == MAX_SCRIPT_CHARS and len(parse_script(text).steps) == 1
    with pytest.raises(ScriptError) as exc:
        parse_script(text + "x", source="big.yaml")
    assert (exc.value.source, exc.value.line, exc.value.cause) == (
        "big.yaml",
        None,
        f"the script has {MAX_SCRIPT_CHARS + 1} characters; at most {MAX_SCRIPT_CHARS} are simulated",
    )


def test_exactly_the_round_limit_is_simulated_and_one_more_is_refused_at_its_line() -> None:
    text = "steps:\n" + "  - assistant: {}\n" * MAX_ROUNDS
    assert sum(s.kind == "assistant" for s in parse_script(text + "  - user: hi\n").steps) == MAX_ROUNDS
    with pytest.raises(ScriptError) as exc:
        parse_script(text + "  - user: hi\n  - assistant: {}\n", source="long.yaml")
    assert (exc.value.source, exc.value.line, exc.value.cause) == (
        "long.yaml",
        MAX_ROUNDS + 3,
        f"the script has {MAX_ROUNDS + 1} rounds; at most {MAX_ROUNDS} are simulated",
    )


def test_a_round_of_too_many_calls_is_named_with_its_number_source_and_line() -> None:
    calls = ", ".join(f"{{t{k}: {{}}}}" for k in range(MAX_CALLS_PER_ROUND + 1))
    with pytest.raises(ScriptError) as exc:
        parse_script(f"steps:\n  - assistant: x\n  - user: hi\n  - assistant: {{calls: [{calls}]}}\n", source="c.yaml")
    assert (exc.value.source, exc.value.line, exc.value.cause) == (
        "c.yaml",
        4,
        f"round 2 makes {MAX_CALLS_PER_ROUND + 1} calls; at most {MAX_CALLS_PER_ROUND} calls per round are simulated",
    )


def test_deep_nesting_is_refused_naming_the_source_and_no_line() -> None:
    with pytest.raises(ScriptError) as exc:
        parse_script("steps: " + "[" * 5000 + "]" * 5000, source="deep.yaml")
    assert (exc.value.source, exc.value.line, exc.value.cause) == ("deep.yaml", None, "the script is nested too deeply")
