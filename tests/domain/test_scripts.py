"""Scenario scripts (docs/simulator.md): the YAML forms that parse, and every malformed form refused with
its file, 1-based line and cause."""

from __future__ import annotations

from textwrap import dedent

import pytest

from skill_rule import ScriptError, Step, ToolCall, parse_script


def test_the_design_example_parses_into_its_steps() -> None:
    script = parse_script(
        dedent("""\
        name: cancel-iphone
        access_profile: null      # or a profile name
        stage: null               # or a stage name
        steps:
          - user: 那台iPhone 18 Pro Max我不想要了，还没发货吧？帮我取消
          - assistant: {calls: [{load_skill: {skill_code: order_change}}]}
          - assistant: {calls: [{query_order: {}}], results: {query_order: 五笔订单…}}
          - assistant: {calls: [{cancel_order: {order_no: "88239"}}]}
          - compact: {drop: [2, 3]}        # remove retained messages by 1-based index
          - evict: {tool: load_skill}      # replace those tool results with the placeholder
        """),
        source="cancel.yaml",
    )
    assert (script.name, script.access_profile, script.stage, script.source) == (
        "cancel-iphone",
        None,
        None,
        "cancel.yaml",
    )
    assert script.steps == (
        Step(kind="user", line=5, text="那台iPhone 18 Pro Max我不想要了，还没发货吧？帮我取消"),
        Step(kind="assistant", line=6, calls=(ToolCall("load_skill", {"skill_code": "order_change"}, id="call_1"),)),
        Step(
            kind="assistant",
            line=7,
            calls=(ToolCall("query_order", {}, id="call_2"),),
            results={"query_order": "五笔订单…"},
        ),
        Step(kind="assistant", line=8, calls=(ToolCall("cancel_order", {"order_no": "88239"}, id="call_3"),)),
        Step(kind="compact", line=9, drop=(2, 3)),
        Step(kind="evict", line=10, evict_tool="load_skill"),
    )


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        pytest.param(
            "- user: hi\n- assistant: hello\n",
            (Step("user", 1, text="hi"), Step("assistant", 2, text="hello")),
            id="a bare list of steps; assistant as text is what it says",
        ),
        pytest.param("- assistant:\n", (Step("assistant", 1),), id="an empty assistant step"),
        pytest.param(
            "- system: be brief\n- assistant: {say: ok, calls: [lookup]}\n",
            (
                Step("system", 1, text="be brief"),
                Step("assistant", 2, text="ok", calls=(ToolCall("lookup", {}, id="call_1"),)),
            ),
            id="a call given by name only",
        ),
        pytest.param(
            "- assistant:\n    calls:\n      - name: lookup\n        arguments: {q: x}\n      - ship: null\n",
            (
                Step(
                    "assistant",
                    1,
                    calls=(ToolCall("lookup", {"q": "x"}, id="call_1"), ToolCall("ship", {}, id="call_2")),
                ),
            ),
            id="name/arguments form and null arguments",
        ),
        pytest.param(
            "- assistant:\n    calls: [refund]\n    results: {refund: {content: nope, state: error}}\n",
            (
                Step(
                    "assistant",
                    1,
                    calls=(ToolCall("refund", {}, id="call_1"),),
                    results={"refund": {"content": "nope", "state": "error"}},
                ),
            ),
            id="a result with an error state",
        ),
        pytest.param(
            "- assistant: {calls: []}\n  expect: {count: 3, includes: [a]}\n",
            (Step("assistant", 1, expect={"count": 3, "includes": ["a"]}),),
            id="expect beside the assistant key",
        ),
        pytest.param(
            "- assistant:\n    expect: {masked: {a: b}, loaded: []}\n",
            (Step("assistant", 1, expect={"masked": {"a": "b"}, "loaded": []}),),
            id="expect inside the assistant step",
        ),
        pytest.param(
            "- user: hi\n- compact: {drop: 1}\n- evict: {index: [1, 2], tool: t}\n- assistant: x\n",
            (
                Step("user", 1, text="hi"),
                Step("compact", 2, drop=(1,)),
                Step("evict", 3, drop=(1, 2), evict_tool="t"),
                Step("assistant", 4, text="x"),
            ),
            id="compact with one index; evict by index and tool",
        ),
    ],
)
def test_valid_forms(text: str, steps: tuple[Step, ...]) -> None:
    assert parse_script(text).steps == steps


def test_call_ids_are_unique_even_when_steps_share_a_line() -> None:
    script = parse_script("[{assistant: {calls: [a, b]}}, {assistant: {calls: [a]}}]")
    assert [c.id for step in script.steps for c in step.calls] == ["call_1", "call_2", "call_3"]


def test_script_level_restrictions_are_read() -> None:
    script = parse_script(
        "name: s\naccess_profile: clerk\nstage: query\nallowed_tools: [a, b]\nsteps: [{assistant: x}]\n"
    )
    assert (script.access_profile, script.stage, script.allowed_tools) == ("clerk", "query", ("a", "b"))


INVALID = [
    (
        "bad YAML",
        "steps:\n  - user: hi\n   - assistant: x\n",
        3,
        "invalid YAML: expected <block end>, but found '<block sequence start>'",
    ),
    (
        "unclosed flow",
        "steps:\n  - user: hi\n  - assistant: {calls: [\n",
        4,
        "invalid YAML: expected the node content, but found '<stream end>'",
    ),
    ("empty", "", 1, "the script is empty"),
    ("a scalar", "hello\n", 1, "a script is a mapping with 'steps' or a list of steps"),
    (
        "unknown top-level key",
        "name: x\nstep: []\n",
        2,
        "unknown key step; known: name, description, access_profile, stage, allowed_tools, steps",
    ),
    ("no steps", "name: x\nsteps: []\n", 2, "'steps' must be a non-empty list"),
    ("stage not a name", "stage: [a]\nsteps: [{assistant: x}]\n", 1, "'stage' must be a name or null"),
    (
        "allowed_tools not names",
        "allowed_tools: a\nsteps: [{assistant: x}]\n",
        1,
        "'allowed_tools' must be a list of tool names",
    ),
    (
        "no assistant step",
        "steps:\n  - user: hi\n",
        2,
        "a script needs at least one assistant step (a round sits before each)",
    ),
    (
        "unknown step key",
        "steps:\n  - user: hi\n  - shout: x\n",
        3,
        "a step needs exactly one of user, system, assistant, compact, evict (found: shout)",
    ),
    (
        "two step kinds",
        "steps:\n  - user: hi\n    assistant: x\n",
        2,
        "a step needs exactly one of user, system, assistant, compact, evict (found: user, assistant)",
    ),
    (
        "a step not a mapping",
        "steps:\n  - assistant: x\n  - hello\n",
        3,
        "a step must be a mapping with one of: user, system, assistant, compact, evict",
    ),
    ("user not text", "steps:\n  - user: [a]\n  - assistant: x\n", 2, "'user' must be text"),
    (
        "expect on a user step",
        "steps:\n  - user: hi\n    expect: {count: 1}\n  - assistant: x\n",
        2,
        "'expect' belongs to an assistant step",
    ),
    (
        "unknown assistant key",
        "steps:\n  - assistant:\n      call: [x]\n",
        3,
        "unknown assistant key call; known: say, calls, results, expect",
    ),
    (
        "calls not a list",
        "steps:\n  - user: hi\n  - assistant:\n      calls: lookup\n",
        4,
        "'calls' must be a list of {tool_name: {arguments}}",
    ),
    (
        "a call with two tools",
        "steps:\n  - assistant:\n      calls:\n        - {a: {}, b: {}}\n",
        4,
        "each call must be a single {tool_name: {arguments}} mapping",
    ),
    (
        "call arguments not a mapping",
        "steps:\n  - assistant:\n      calls:\n        - lookup: [1]\n",
        4,
        "arguments of 'lookup' must be a mapping",
    ),
    (
        "results not a mapping",
        "steps:\n  - assistant:\n      results: [a]\n",
        3,
        "'results' must map tool names to text",
    ),
    (
        "a result with a bad state",
        "steps:\n  - assistant:\n      results: {a: {content: x, state: oops}}\n",
        3,
        "result of 'a' must be text or {content, state: success|error}",
    ),
    (
        "expect unknown key",
        "steps:\n  - user: hi\n  - assistant:\n      calls: []\n      expect:\n        visble: [a]\n",
        6,
        "unknown expectation visble; known: count, visible, mcp_visible, includes, excludes, masked, loaded",
    ),
    (
        "expect count not an integer",
        "steps:\n  - assistant:\n      expect: {count: '11'}\n",
        3,
        "expect.count must be an integer",
    ),
    (
        "expect visible not a list",
        "steps:\n  - assistant:\n      expect: {visible: a}\n",
        3,
        "expect.visible must be a list of names",
    ),
    (
        "compact without drop",
        "steps:\n  - compact: [1]\n  - assistant: x\n",
        2,
        "'compact' must be {drop: [1-based indices]}",
    ),
    (
        "compact index zero",
        "steps:\n  - user: hi\n  - compact: {drop: [0]}\n  - assistant: x\n",
        3,
        "compact.drop must be a list of 1-based message indices",
    ),
    (
        "evict with an unknown key",
        "steps:\n  - evict: {tools: x}\n  - assistant: x\n",
        2,
        "'evict' must be {tool: name} or {index: [1-based indices]}",
    ),
]


@pytest.mark.parametrize(("text", "line", "cause"), [pytest.param(t, ln, c, id=i) for i, t, ln, c in INVALID])
def test_invalid_forms_name_file_line_and_cause(text: str, line: int, cause: str) -> None:
    with pytest.raises(ScriptError) as exc:
        parse_script(text, source="scenarios/x.yaml")
    err = exc.value
    assert (err.source, err.line, err.cause) == ("scenarios/x.yaml", line, cause)
    assert err.message == f"scenarios/x.yaml:{line}: {cause}"
