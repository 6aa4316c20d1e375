"""Scenario expectations are the publish gate: each kind of ``expect`` must be able to fail, and
says exactly what was wrong (docs/simulator.md, ``expect``)."""

from __future__ import annotations

from textwrap import dedent

from skill_rule import parse_script, simulate
from skill_rule.simulator import check_expectations

from .factories import shop


def first_round(text: str):
    sim = simulate(shop(), parse_script(dedent(text), source="t.yaml"))
    return sim.rounds[0].view, sim


def test_excludes_fails_when_the_tool_is_visible() -> None:
    view, _ = first_round("- assistant: {}\n")
    assert "lookup" in view.visible
    assert check_expectations(view, {"excludes": ["lookup", "refund"]}) == ("expected 'lookup' not to be visible",)
    assert check_expectations(view, {"excludes": ["refund", "cancel"]}) == ()


def test_excludes_in_a_script_is_reported_as_an_unmet_expectation() -> None:
    _, sim = first_round("- assistant: {expect: {excludes: [lookup]}}\n")
    assert sim.failures == ("round 1: expected 'lookup' not to be visible",)
    assert sim.passed is False


def test_masked_as_a_list_compares_the_set_of_masked_tools() -> None:
    view, _ = first_round("- assistant: {}\n")
    assert sorted(view.masked) == ["cancel", "refund", "ship"]
    assert check_expectations(view, {"masked": ["ship", "refund", "cancel"]}) == ()
    failures = check_expectations(view, {"masked": ["refund", "cancel"]})
    assert failures == ("masked: unexpected ship",)
    assert failures[0].code == "expect_masked"
    assert check_expectations(view, {"masked": []}) == ("masked: unexpected refund, cancel, ship",)


def test_masked_as_a_mapping_compares_the_skill_to_load_too() -> None:
    view, _ = first_round("- assistant: {}\n")
    assert dict(view.masked) == {"refund": "alpha", "cancel": "alpha", "ship": "beta"}
    assert check_expectations(view, {"masked": {"refund": "alpha", "cancel": "alpha", "ship": "beta"}}) == ()
    assert check_expectations(view, {"masked": {"refund": "alpha", "cancel": "beta", "ship": "beta"}}) == (
        "expected masked {'refund': 'alpha', 'cancel': 'beta', 'ship': 'beta'}, "
        "got {'refund': 'alpha', 'cancel': 'alpha', 'ship': 'beta'}",
    )


def test_masked_list_in_a_script_fails_the_run() -> None:
    _, sim = first_round("- assistant: {expect: {masked: [refund]}}\n")
    assert sim.failures == ("round 1: masked: unexpected cancel, ship",)
    assert sim.passed is False
