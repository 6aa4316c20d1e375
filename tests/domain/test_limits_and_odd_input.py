"""Input found by breaking the simulator: sizes, nesting, NUL, numbers as user text."""

from __future__ import annotations

import pytest

from skill_rule import ScriptError, parse_script, parse_transcript, simulate
from skill_rule.limits import MAX_ROUNDS, MAX_SCRIPT_CHARS

from .factories import shop, skill

CATALOG = shop(skill("alpha", ("refund",), sort_order=10))


def error_of(text: str) -> ScriptError:
    with pytest.raises(ScriptError) as exc:
        parse_script(text, source="s.yaml")
    return exc.value


def test_a_script_over_the_size_limit_is_refused_before_parsing():
    text = "steps:\n  - user: " + "x" * MAX_SCRIPT_CHARS
    err = error_of(text)
    assert (err.line, err.cause) == (
        None,
        f"the script has {len(text)} characters; at most {MAX_SCRIPT_CHARS} are simulated",
    )


def test_a_script_over_the_round_limit_names_the_first_round_too_many():
    text = "steps:\n" + "  - assistant: {}\n" * (MAX_ROUNDS + 1)
    err = error_of(text)
    assert (err.line, err.cause) == (
        MAX_ROUNDS + 2,
        f"the script has {MAX_ROUNDS + 1} rounds; at most {MAX_ROUNDS} are simulated",
    )


def test_a_nul_character_is_refused_with_its_line():
    err = error_of("steps:\n  - user: hi\n  - user: a\x00b\n")
    assert (err.line, err.cause) == (3, "the script contains a NUL character")


def test_deep_nesting_is_a_script_error_not_a_crash():
    err = error_of("steps: " + "[" * 5000 + "]" * 5000)
    assert err.cause == "the script is nested too deeply"


@pytest.mark.parametrize(
    ("raw", "text"), [("88239", "88239"), ("2026-03-02", "2026-03-02"), ("0123", "0123"), ("1.50", "1.50")]
)
def test_numbers_and_dates_a_user_types_stay_the_text_they_typed(raw, text):
    script = parse_script(f"steps:\n  - user: {raw}\n  - assistant: {{}}\n")
    assert script.steps[0].text == text


def test_a_transcript_with_bad_json_names_the_line():
    with pytest.raises(ScriptError) as exc:
        parse_transcript('[\n {"role": "user"},\n oops]', source="t.json")
    assert (exc.value.source, exc.value.line, exc.value.cause) == ("t.json", 3, "invalid JSON: Expecting value")


def test_a_deeply_nested_transcript_is_a_script_error():
    with pytest.raises(ScriptError) as exc:
        parse_transcript("[" * 100_000 + "]" * 100_000)
    assert exc.value.cause == "the transcript is nested too deeply"


def test_evicting_a_tool_with_no_results_says_so():
    sim = simulate(CATALOG, parse_script("steps:\n  - assistant: {}\n  - evict: {tool: nope}\n  - assistant: {}\n"))
    assert sim.events == ("after round 1: no retained tool results of 'nope' to evict",)


def test_rounds_without_expect_are_not_reported_as_checked():
    none_set = simulate(CATALOG, parse_script("steps:\n  - assistant: {}\n  - assistant: {}\n"))
    assert (none_set.checked_rounds, none_set.passed) == (0, True)
    one_wrong = simulate(CATALOG, parse_script("steps:\n  - assistant: {}\n  - assistant: {expect: {count: 4}}\n"))
    assert (one_wrong.checked_rounds, one_wrong.failures) == (1, ("round 2: expected 4 tools, got 7",))


def test_yaml_aliases_are_refused_so_a_tiny_script_cannot_expand_to_gigabytes():
    bomb = (
        "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 8))
        + "steps:\n  - assistant: {calls: [{search_knowledge: {query: *a7}}]}\n"
    )
    err = error_of(bomb)
    assert (err.line, err.cause) == (2, "YAML aliases (*a0) are not accepted in scripts: write the value out")


@pytest.mark.parametrize(("raw", "text"), [("yes", "yes"), ("no", "no"), ("2026-03-02", "2026-03-02"), ("5", "5")])
def test_tool_results_and_replies_typed_as_plain_words_stay_text(raw, text):
    script = parse_script(
        f"steps:\n  - user: {raw}\n  - assistant: {{say: {raw}, calls: [{{current_date: {{}}}}], "
        f"results: {{current_date: {raw}}}}}\n"
    )
    assert (script.steps[0].text, script.steps[1].text, script.steps[1].results["current_date"]) == (text, text, text)


def test_an_unclosed_bracket_says_where_it_was_opened():
    err = error_of('steps:\n  - user: hi\n  - assistant: {calls: [{cancel_order: {order_no: "1"}}]\n')
    assert (err.line, err.cause) == (
        4,
        "invalid YAML: expected ',' or '}', but got '<stream end>' (while parsing a flow mapping opened at line 3)",
    )


def test_a_transcript_over_the_size_limit_is_refused_before_it_is_parsed() -> None:
    text = '[{"role": "user", "content": "' + "x" * MAX_SCRIPT_CHARS + '"}]'
    with pytest.raises(ScriptError) as exc:
        parse_transcript(text, source="t.json")
    assert (exc.value.line, exc.value.cause) == (
        None,
        f"the transcript has {len(text)} characters; at most {MAX_SCRIPT_CHARS} are replayed",
    )


def test_a_transcript_just_under_the_size_limit_is_replayed() -> None:
    head, tail = '[{"role": "user", "content": "', '"}]'
    text = head + "x" * (MAX_SCRIPT_CHARS - len(head) - len(tail)) + tail
    assert len(text) == MAX_SCRIPT_CHARS
    assert len(parse_transcript(text, source="t.json")) == 1
