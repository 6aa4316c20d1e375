"""Every branch of the guard (``rules.guard`` through ``check_call``) answers with one exact verdict:
name, verdict, reason, skill code, message, the arguments as read, and the MCP target. A runtime
shows the message, the simulator and the transcript page show the arguments, and a runtime routes
an allowed or confirmed call by ``server`` / ``tool`` (docs/runtime-api.md ``check-call``, docs/mcp.md).
Issue 11: the mutation-testing triage of ``guard``. Library tests: no database."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from skill_rule import ALLOWED, CONFIRM, MCP, REFUSED, Catalog, Restriction, Tool, check_call
from skill_rule.rules import Verdict

from .factories import ALPHA, BETA, builtin_tools, loaded, mcp_tools, skill

CATALOG = Catalog(
    tools=builtin_tools()
    + mcp_tools()
    + (
        Tool("shop_refund", MCP, require_confirm=True, server="shop", mcp_name="refund"),
        Tool("shop_track", MCP, server="shop", mcp_name="track"),
        # passes every definition check, but validating an argument against it recurses without end
        Tool("loop", MCP, input_schema={"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}}),
    ),
    skills=(ALPHA, BETA),
    profiles={"clerk": Restriction("clerk", frozenset({"lookup", "cancel", "ship"}))},
    stages={"query": Restriction("query", frozenset({"lookup", "cancel", "export"}))},
)
NOT_JSON_OBJECT = "arguments are list, not a JSON object; read as no arguments"


@dataclass(frozen=True)
class Case:
    id: str
    call: dict[str, Any]
    expected: Verdict
    messages: list[dict[str, Any]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)


CASES = [
    Case(
        "load_skill with arguments that are no object",
        {"name": "load_skill", "arguments": "[1]"},
        Verdict(
            "load_skill",
            REFUSED,
            "invalid_arguments",
            None,
            f"invalid arguments for 'load_skill': call (load_skill): {NOT_JSON_OBJECT}",
            {},
        ),
    ),
    Case(
        "load_skill with an empty code",
        {"name": "load_skill", "arguments": {"skill_code": ""}},
        Verdict(
            "load_skill",
            REFUSED,
            "invalid_arguments",
            None,
            "invalid arguments for 'load_skill': skill_code: a skill code (text) is required",
            {"skill_code": ""},
        ),
    ),
    Case(
        "load_skill of an unknown code",
        {"name": "load_skill", "arguments": {"skill_code": "gamma", "x": 1}},
        Verdict(
            "load_skill",
            REFUSED,
            "unknown_skill",
            None,
            "unknown skill 'gamma'; skills on offer: alpha, beta",
            {"skill_code": "gamma", "x": 1},
        ),
    ),
    Case(
        "load_skill of an enabled skill",
        {"name": "load_skill", "arguments": {"skill_code": "beta"}},
        Verdict("load_skill", ALLOWED, None, "beta", "load the manual of 'beta'", {"skill_code": "beta"}),
    ),
    Case(
        "a masked tool",
        {"name": "cancel", "arguments": {"order_no": "1"}},
        Verdict(
            "cancel",
            REFUSED,
            "masked",
            "alpha",
            "tool 'cancel' is masked: load_skill('alpha') first",
            {"order_no": "1"},
        ),
    ),
    Case(
        "a tool outside the access profile",
        {"name": "export", "arguments": {"a": 1}},
        Verdict(
            "export",
            REFUSED,
            "not_permitted",
            None,
            "tool 'export' is not permitted by access profile 'clerk'",
            {"a": 1},
        ),
        options={"access_profile": "clerk"},
    ),
    Case(
        "a tool outside the allowed list",
        {"name": "export", "arguments": {"a": 1}},
        Verdict(
            "export",
            REFUSED,
            "not_permitted",
            None,
            "tool 'export' is not permitted by the allowed tool list",
            {"a": 1},
        ),
        options={"allowed_tools": ["lookup"]},
    ),
    Case(
        "a released tool outside the stage",
        {"name": "ship", "arguments": {"a": 1}},
        Verdict("ship", REFUSED, "stage", None, "tool 'ship' is not allowed in stage 'query'", {"a": 1}),
        messages=loaded("beta"),
        options={"stage": "query"},
    ),
    Case(
        "arguments that are no object",
        {"name": "lookup", "arguments": "[1]"},
        Verdict(
            "lookup",
            REFUSED,
            "invalid_arguments",
            None,
            f"invalid arguments for 'lookup': call (lookup): {NOT_JSON_OBJECT}",
            {},
        ),
    ),
    Case(
        "arguments breaking the schema",
        {"name": "lookup", "arguments": {"q": ""}},
        Verdict(
            "lookup",
            REFUSED,
            "invalid_arguments",
            None,
            "invalid arguments for 'lookup': q: '' should be non-empty",
            {"q": ""},
        ),
    ),
    Case(
        "a schema the validator chokes on",
        {"name": "loop", "arguments": {"a": 1}},
        Verdict(
            "loop",
            REFUSED,
            "invalid_tool_definition",
            None,
            "tool 'loop' has an invalid definition and cannot be called: RecursionError",
            {"a": 1},
        ),
    ),
    Case(
        "an MCP tool that needs confirmation names where it runs",
        {"name": "shop_refund", "arguments": {"r": 1}},
        Verdict(
            "shop_refund",
            CONFIRM,
            None,
            None,
            "'shop_refund' needs the user's confirmation before it runs",
            {"r": 1},
            "shop",
            "refund",
        ),
    ),
    Case(
        "an allowed MCP tool names where it runs",
        {"name": "shop_track", "arguments": {"n": "7"}},
        Verdict("shop_track", ALLOWED, None, None, "'shop_track' may run", {"n": "7"}, "shop", "track"),
    ),
    Case(
        "an allowed tool typed in without a server runs by its name",
        {"name": "ship", "arguments": {"a": 1}},
        Verdict("ship", ALLOWED, None, None, "'ship' may run", {"a": 1}),
        messages=loaded("beta"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_each_branch_of_the_guard_gives_its_exact_verdict(case: Case) -> None:
    verdict = check_call(CATALOG, case.messages, case.call, **case.options)
    assert verdict == case.expected  # every field compares: arguments, server and tool too


def test_a_skill_stored_with_a_malformed_code_cannot_be_loaded_even_when_enabled() -> None:
    """The code check stands on its own: a row written past validation (by hand in SQL) with a code
    that is no skill code is refused, not loaded."""
    catalog = Catalog(tools=builtin_tools() + mcp_tools(), skills=(skill("Bad Code", ("export",)),))
    verdict = check_call(catalog, [], {"name": "load_skill", "arguments": {"skill_code": "Bad Code"}})
    assert (verdict.verdict, verdict.reason, verdict.skill_code) == (REFUSED, "unknown_skill", None)


def test_the_guard_builds_a_tools_validator_once_per_catalog_and_reuses_it() -> None:
    """docs/rule.md, "Cost": the JSON-Schema validator of a tool is built on the first call to it
    and kept on the catalog, so a later call only validates."""
    from skill_rule.rules import _validators

    from .factories import shop

    catalog = shop()
    schema = catalog.tool("lookup").input_schema
    assert check_call(catalog, [], {"name": "lookup", "arguments": {"q": "a"}}).verdict == ALLOWED
    cached = dict(_validators(catalog))
    assert list(cached) == [id(schema)]
    assert cached[id(schema)].schema is schema  # the validator itself is kept, not a placeholder
    assert check_call(catalog, [], {"name": "lookup", "arguments": {"q": ""}}).reason == "invalid_arguments"
    assert _validators(catalog)[id(schema)] is cached[id(schema)]


NOTE = Tool(
    "note",
    MCP,
    input_schema={
        "type": "object",
        "properties": {
            "text": {"type": "string", "maxLength": 1},
            "lines": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer"}}}},
        },
    },
)


def _refusal(arguments: dict[str, Any]) -> str:
    verdict = check_call(
        Catalog(tools=builtin_tools() + (NOTE,), skills=()), [], {"name": "note", "arguments": arguments}
    )
    assert (verdict.verdict, verdict.reason) == (REFUSED, "invalid_arguments")
    return verdict.message


def test_an_invalid_nested_argument_is_named_by_its_path_joined_with_slashes() -> None:
    assert _refusal({"lines": [{"qty": 1}, {"qty": "2"}]}) == (
        "invalid arguments for 'note': lines/1/qty: '2' is not of type 'integer'"
    )


def test_an_argument_error_of_exactly_the_limit_is_kept_whole_and_one_past_it_is_cut_and_counted() -> None:
    from skill_rule.limits import ARGUMENT_ERROR_MAX_CHARS

    def detail(text: str) -> str:
        return f"text: {text!r} is too long"

    at_limit = "x" * (ARGUMENT_ERROR_MAX_CHARS - len(detail("")))
    assert len(detail(at_limit)) == ARGUMENT_ERROR_MAX_CHARS
    assert _refusal({"text": at_limit}) == f"invalid arguments for 'note': {detail(at_limit)}"
    past = at_limit + "y"
    assert _refusal({"text": past}) == (
        f"invalid arguments for 'note': {detail(past)[:ARGUMENT_ERROR_MAX_CHARS]}… (1 more characters)"
    )
