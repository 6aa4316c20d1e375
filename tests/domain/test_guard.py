"""The execution guard of docs/rule.md (``check_call``): never trust what the model was shown.

Order: unknown tool → masked → access profile → stage → inputSchema → require_confirm → allowed;
``load_skill`` with an unknown, disabled or malformed code is refused before anything is read."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from skill_rule import ALLOWED, CONFIRM, REFUSED, check_call

from .factories import loaded, shop, skill

CATALOG = shop(
    skill("alpha", ("refund", "cancel"), sort_order=10),
    skill("beta", ("cancel", "ship"), sort_order=20),
    skill("off", ("export",), enabled=False),
    profiles={"clerk": {"lookup", "cancel", "ship"}},
    stages={"query": {"lookup", "cancel", "export"}, "dispatch": {"ship"}},
)
ALPHA = loaded("alpha")
BOTH = loaded("alpha") + loaded("beta")


@dataclass(frozen=True)
class GuardCase:
    id: str
    call: dict[str, Any]
    verdict: str
    reason: str | None
    skill_code: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    profile: str | None = None
    stage: str | None = None
    message_has: tuple[str, ...] = ()


GUARD_CASES = [
    GuardCase(
        "an unknown tool is refused with the names on offer",
        {"name": "drop_table"},
        REFUSED,
        "unknown_tool",
        message_has=(
            "unknown tool 'drop_table'; tools on offer: search_knowledge, load_skill, flush_memory, lookup, export",
        ),
    ),
    GuardCase(
        "a masked tool is refused with the skill to load",
        {"name": "cancel", "arguments": {"order_no": "1"}},
        REFUSED,
        "masked",
        "alpha",
        message_has=("load_skill('alpha')",),
    ),
    GuardCase("a tool masked by beta names beta", {"name": "ship"}, REFUSED, "masked", "beta", messages=ALPHA),
    GuardCase(
        "a gated tool outside the profile is not permitted, not masked (loading alpha would not show it)",
        {"name": "refund"},
        REFUSED,
        "not_permitted",
        profile="clerk",
        message_has=("access profile 'clerk'",),
    ),
    GuardCase(
        "masked comes before the stage for a tool inside it",
        {"name": "cancel"},
        REFUSED,
        "masked",
        "alpha",
        profile="clerk",
        stage="query",
    ),
    GuardCase(
        "masked comes before invalid arguments",
        {"name": "cancel", "arguments": {"bogus": 1}},
        REFUSED,
        "masked",
        "alpha",
    ),
    GuardCase(
        "a released tool outside the profile is not permitted",
        {"name": "refund"},
        REFUSED,
        "not_permitted",
        messages=ALPHA,
        profile="clerk",
        message_has=("access profile 'clerk'",),
    ),
    GuardCase(
        "a free tool outside the profile is not permitted",
        {"name": "export"},
        REFUSED,
        "not_permitted",
        profile="clerk",
    ),
    GuardCase(
        "the profile comes before the stage",
        {"name": "refund"},
        REFUSED,
        "not_permitted",
        messages=ALPHA,
        profile="clerk",
        stage="query",
    ),
    GuardCase(
        "a tool outside the stage is refused with reason stage",
        {"name": "ship"},
        REFUSED,
        "stage",
        messages=BOTH,
        profile="clerk",
        stage="query",
        message_has=("stage 'query'",),
    ),
    GuardCase(
        "the stage comes before invalid arguments",
        {"name": "cancel", "arguments": {}},
        REFUSED,
        "stage",
        messages=ALPHA,
        stage="dispatch",
    ),
    GuardCase(
        "arguments are validated against inputSchema",
        {"name": "lookup", "arguments": {}},
        REFUSED,
        "invalid_arguments",
        message_has=("'q' is a required property",),
    ),
    GuardCase(
        "an argument breaking a pattern is refused naming the field",
        {"name": "cancel", "arguments": {"order_no": "8823x"}},
        REFUSED,
        "invalid_arguments",
        messages=ALPHA,
        message_has=("order_no:",),
    ),
    GuardCase(
        "invalid arguments come before confirmation",
        {"name": "cancel", "arguments": {}},
        REFUSED,
        "invalid_arguments",
        messages=ALPHA,
    ),
    GuardCase(
        "a require_confirm tool stops at confirmation",
        {"name": "cancel", "arguments": {"order_no": "88239"}},
        CONFIRM,
        None,
        messages=ALPHA,
        profile="clerk",
        stage="query",
    ),
    GuardCase("a released tool without require_confirm runs", {"name": "ship"}, ALLOWED, None, messages=BOTH),
    GuardCase("a free tool with valid arguments runs", {"name": "lookup", "arguments": {"q": "order"}}, ALLOWED, None),
    GuardCase(
        "arguments may arrive as a JSON string", {"name": "lookup", "arguments": '{"q": "order"}'}, ALLOWED, None
    ),
    GuardCase(
        "builtins ignore profiles and stages",
        {"name": "search_knowledge", "arguments": {"query": "x"}},
        ALLOWED,
        None,
        profile="clerk",
        stage="query",
    ),
    GuardCase(
        "builtin arguments are validated too",
        {"name": "search_knowledge", "arguments": {}},
        REFUSED,
        "invalid_arguments",
    ),
    GuardCase(
        "load_skill of an enabled skill is allowed",
        {"name": "load_skill", "arguments": {"skill_code": "beta"}},
        ALLOWED,
        None,
        "beta",
        profile="clerk",
        stage="query",
    ),
    GuardCase(
        "load_skill with a path is refused as an unknown skill",
        {"name": "load_skill", "arguments": {"skill_code": "../../secret"}},
        REFUSED,
        "unknown_skill",
        message_has=("'../../secret'", "skills on offer: alpha, beta"),
    ),
    GuardCase(
        "load_skill of a disabled skill is refused as an unknown skill",
        {"name": "load_skill", "arguments": {"skill_code": "off"}},
        REFUSED,
        "unknown_skill",
    ),
    GuardCase(
        "load_skill of a code that matches no skill is refused",
        {"name": "load_skill", "arguments": {"skill_code": "gamma"}},
        REFUSED,
        "unknown_skill",
    ),
    GuardCase(
        "load_skill without a code is refused as invalid arguments",
        {"name": "load_skill", "arguments": {}},
        REFUSED,
        "invalid_arguments",
    ),
    GuardCase(
        "load_skill with a non-text code is refused as invalid arguments",
        {"name": "load_skill", "arguments": {"skill_code": 7}},
        REFUSED,
        "invalid_arguments",
    ),
]


@pytest.mark.parametrize("case", GUARD_CASES, ids=lambda c: c.id)
def test_guard(case: GuardCase) -> None:
    verdict = check_call(CATALOG, case.messages, case.call, access_profile=case.profile, stage=case.stage)
    assert (verdict.verdict, verdict.reason, verdict.skill_code) == (case.verdict, case.reason, case.skill_code)
    for text in case.message_has:
        assert text in verdict.message


def test_load_skill_is_an_unknown_tool_when_no_skill_is_enabled() -> None:
    catalog = shop(skill("off", ("export",), enabled=False))
    verdict = check_call(catalog, [], {"name": "load_skill", "arguments": {"skill_code": "off"}})
    assert (verdict.verdict, verdict.reason) == (REFUSED, "unknown_tool")
    assert "load_skill" not in verdict.message.split("tools on offer: ")[1].split(", ")


def test_the_guard_checks_the_messages_it_is_given_not_what_the_model_was_shown() -> None:
    """A model that calls a tool it was shown in an earlier round, after the manual left the
    context, is refused."""
    assert check_call(CATALOG, ALPHA, {"name": "refund"}).verdict == CONFIRM
    assert check_call(CATALOG, [], {"name": "refund"}).reason == "masked"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(
            "{not json",
            "invalid arguments for 'lookup': call (lookup): arguments are not valid JSON "
            "(Expecting property name enclosed in double quotes); read as no arguments",
            id="a broken JSON string",
        ),
        pytest.param(
            "[1, 2]",
            "invalid arguments for 'lookup': call (lookup): arguments are list, not a JSON object; "
            "read as no arguments",
            id="a JSON list",
        ),
        pytest.param(
            [1, 2],
            "invalid arguments for 'lookup': call (lookup): arguments are list, not a JSON object; "
            "read as no arguments",
            id="a list",
        ),
        pytest.param(
            None,
            "invalid arguments for 'lookup': call (lookup): arguments are null, not a JSON object; "
            "read as no arguments",
            id="null",
        ),
        pytest.param(
            json.dumps(json.dumps({"q": "x"})),
            "invalid arguments for 'lookup': call (lookup): arguments are "
            "JSON text inside a JSON string; decoded once more",
            id="double-encoded",
        ),
    ],
)
def test_malformed_arguments_of_the_current_call_are_refused_not_raised(arguments, message) -> None:
    verdict = check_call(CATALOG, [], {"name": "lookup", "arguments": arguments})
    assert (verdict.verdict, verdict.reason, verdict.message) == (REFUSED, "invalid_arguments", message)


def test_an_invalid_argument_of_megabytes_gives_a_bounded_refusal_that_counts_the_cut():
    import jsonschema

    from skill_rule.limits import ARGUMENT_ERROR_MAX_CHARS

    huge = "8" * 2_500_000 + "x"  # breaks the order_no pattern; jsonschema quotes the whole value
    verdict = check_call(CATALOG, ALPHA, {"name": "cancel", "arguments": {"order_no": huge}})
    assert (verdict.verdict, verdict.reason) == (REFUSED, "invalid_arguments")
    schema = CATALOG.tool("cancel").input_schema
    detail = "order_no: " + next(jsonschema.Draft202012Validator(dict(schema)).iter_errors({"order_no": huge})).message
    cut = f"{detail[:ARGUMENT_ERROR_MAX_CHARS]}… ({len(detail) - ARGUMENT_ERROR_MAX_CHARS} more characters)"
    assert cut in verdict.message
    assert len(verdict.message) < 1_000
