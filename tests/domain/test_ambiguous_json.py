"""Ambiguous JSON through the domain (docs/transcripts.md, "Ambiguous JSON"): the reader's marks
(``jsontext``), and the table of tests/ambiguous_cases.py through ``compute_round`` and
``check_call`` on the bitmall catalog — exact loaded skills, warnings and verdicts."""

from __future__ import annotations

import pytest

from skill_rule import check_call, compute_round, jsontext, parse_messages
from skill_rule.errors import ScriptError
from skill_rule.messages import parse_arguments, parse_transcript
from skills_app.catalog import selectors
from tests.ambiguous_cases import BIG, CALL_CASES, CASES, CallCase, Case

READER = [
    ('{"a": 1, "a": 2}', jsontext.AmbiguousDict, "key 'a' appears twice", {"a": 2}),
    ('{"messages": [], "messages": [1]}', jsontext.AmbiguousDict, "key 'messages' appears twice", {"messages": [1]}),
    ("[1e400]", jsontext.AmbiguousList, "[0]: number 1e400 is too large for a double", ["1e400"]),
    (
        '{"m": [{"x": {"y": %s}}]}' % BIG,
        jsontext.AmbiguousDict,
        "m[0].x.y: integer with 5001 digits is outside ±(2^53−1)",
        {"m": [{"x": {"y": "111111111111111111111..."}}]},
    ),
    ('{"a": NaN}', jsontext.AmbiguousDict, "a: NaN is not a JSON number", {"a": "NaN"}),
    ("[-Infinity]", jsontext.AmbiguousList, "[0]: -Infinity is not a JSON number", ["-Infinity"]),
    ('"\\ud800"', jsontext.AmbiguousValue, "string holds a lone surrogate \\ud800", "\ufffd"),
    ('{"\\udc00": 1}', jsontext.AmbiguousDict, "key '\\udc00' holds a lone surrogate", {"\ufffd": 1}),
    (
        "[[[9007199254740993]]]",
        jsontext.AmbiguousList,
        "[0][0][0]: integer 9007199254740993 is outside ±(2^53−1)",
        [[["9007199254740993"]]],
    ),
    (
        "-9007199254740992",
        jsontext.AmbiguousValue,
        "integer -9007199254740992 is outside ±(2^53−1)",
        "-9007199254740992",
    ),
    (
        '{"a": {"b": [1, {"c": Infinity}]}}',
        jsontext.AmbiguousDict,
        "a.b[1].c: Infinity is not a JSON number",
        {"a": {"b": [1, {"c": "Infinity"}]}},
    ),
    (
        '{"odd key": {"k": 1, "k": 2}}',
        jsontext.AmbiguousDict,
        "['odd key']: key 'k' appears twice",
        {"odd key": {"k": 2}},
    ),
    # not ambiguous: plain types, nothing marked
    ("9007199254740991", int, None, 9007199254740991),
    ('[-9007199254740991, 1.5e308, "\\ud83d\\ude00"]', list, None, [-9007199254740991, 1.5e308, "😀"]),
    ('{"a": {"b": 1}, "c": [1, 2]}', dict, None, {"a": {"b": 1}, "c": [1, 2]}),
]


@pytest.mark.parametrize(("text", "kind", "cause", "value"), READER, ids=[r[0][:40] for r in READER])
def test_the_reader_marks_what_readers_disagree_on(text, kind, cause, value) -> None:
    read = jsontext.loads(text)
    assert type(read) is kind
    assert jsontext.ambiguity_of(read) == cause
    assert read == value


@pytest.mark.parametrize(
    ("text", "msg", "line"),
    [
        ("[", "Expecting value", 1),
        ('{"a": 1}x', "Extra data", 1),
        ("\n\n{'a': 1}", "Expecting property name enclosed in double quotes", 3),
        ("[" * 100_000, "nested too deeply", None),
        (b"\xff", "not UTF-8 text (byte 0)", None),
    ],
)
def test_text_that_is_not_json_is_the_one_documented_error(text, msg, line) -> None:
    with pytest.raises(jsontext.JsonTextError) as caught:
        jsontext.loads(text)
    assert (caught.value.msg, caught.value.lineno) == (msg, line)


def test_the_nested_duplicate_key_keeps_its_keys_and_the_top_names_them() -> None:
    read = jsontext.loads('{"x": 1, "x": 2, "y": {"z": 1, "z": 1}}')
    assert (read.duplicates, read["y"].duplicates) == (("x",), ("z",))


def test_python_values_are_marked_as_their_json_would_be() -> None:
    marked = jsontext.mark({"a": [10**30, 1.0], "b": {"c": float("nan")}, "d": "\ud800"})
    assert jsontext.ambiguity_of(marked) == "a[0]: integer is outside ±(2^53−1)"
    assert jsontext.ambiguity_of(marked["b"]) == "c: NaN is not a JSON number"
    assert marked["d"] == "\ufffd"
    cyclic: dict = {"a": 1}
    cyclic["self"] = cyclic
    assert jsontext.ambiguity_of(jsontext.mark(cyclic)) == "self: a value contains itself"
    shared = {"x": 1}
    assert jsontext.ambiguity_of(jsontext.mark({"p": shared, "q": [shared]})) is None


@pytest.mark.parametrize(
    ("raw", "code", "sentence"),
    [
        (
            '{"order_no": "88239", "order_no": "10001"}',
            "arguments_ambiguous",
            "messages[1]: tool_calls[0] (query_order): arguments are ambiguous JSON (key 'order_no' appears twice); read as "
            "no arguments",
        ),
        (
            '"{\\"order_no\\": \\"1\\", \\"order_no\\": \\"2\\"}"',
            "arguments_ambiguous",
            "messages[1]: tool_calls[0] (query_order): arguments are ambiguous JSON (key 'order_no' appears twice); read as "
            "no arguments",
        ),  # double-encoded and ambiguous inside: never decoded as a guess
        (
            '{"order_no": %s}' % BIG,
            "arguments_ambiguous",
            "messages[1]: tool_calls[0] (query_order): arguments are ambiguous JSON (order_no: integer with 5001 digits is "
            "outside ±(2^53−1)); read as no arguments",
        ),
    ],
)
def test_parse_arguments_reads_ambiguous_text_as_no_arguments(raw, code, sentence) -> None:
    args, problem = parse_arguments(raw, name="query_order", index=1, position=0)
    assert (args, problem.code, problem) == ({}, code, sentence)
    assert problem.params["cause"] in sentence


@pytest.fixture
def catalog(bitmall):
    return selectors.catalog_draft()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_compute_round_reads_ambiguous_json_fail_closed(catalog, case: Case) -> None:
    messages = parse_messages(jsontext.loads(case.text))
    view = compute_round(catalog, messages)
    assert list(view.loaded) == case.loaded_in([s.code for s in catalog.enabled_skills])
    assert dict(view.masked) == case.masked()
    assert [(w.code, w.params["index"]) for w in view.warnings] == list(case.warnings)
    if case.first is not None:
        assert view.warnings[0] == case.first
    verdict = check_call(catalog, messages, {"name": "cancel_order", "arguments": {"order_no": "88239"}})
    expected = ("confirm", None) if "order_change" in case.loaded else ("refused", "masked")
    assert (verdict.verdict, verdict.reason) == expected


@pytest.mark.parametrize("case", CALL_CASES, ids=lambda c: c.id)
def test_check_call_refuses_an_ambiguous_current_call(catalog, case: CallCase) -> None:
    verdict = check_call(
        catalog,
        [],
        jsontext.loads(case.text) if '"function"' not in case.text else {**jsontext.loads(case.text)["function"]},
    )
    assert (verdict.verdict, verdict.reason, verdict.message) == (case.verdict, case.reason, case.message)


def test_the_paste_box_reader_refuses_messages_twice_and_marks_the_rest() -> None:
    with pytest.raises(ScriptError) as caught:
        parse_transcript('{"messages": [], "messages": [{"role": "user", "content": "hi"}]}')
    assert caught.value.cause == "key 'messages' appears twice; JSON readers disagree on which list counts"
    (message,) = parse_transcript('[{"role": "tool", "tool_call_id": "c", "tool_call_id": "d", "content": "x"}]')
    assert (message.state, [p.code for p in message.problems]) == ("error", ["message_ambiguous"])
