"""Exact values of the restrictions, the catalog warnings and the round shape of ``domain.rules``
that a page or client relies on (issue 11: the mutation-testing triage of ``resolve_restrictions``,
``_catalog_warnings``, ``_round_shape`` and their helpers). Library tests: call, assert, no database.

Every test builds its own catalog: the rule keeps derived values on the catalog object
(``Catalog.derived``), so a catalog shared between tests would answer from what an earlier test
computed."""

from __future__ import annotations

import pytest

from skill_rule import MCP, Catalog, Tool, UnknownRestrictionError, compute_round, resolve_restrictions
from skill_rule.rules import Restrictions

from .factories import BUILTINS, builtin_tools, loaded, mcp_tools, shop, skill

RESTRICTION_TEMPLATE = "%(kind)s '%(name)s' lists tools that are no longer registered: %(tools)s"
ALLOWED_TEMPLATE = "allowed tools that are not registered: %(tools)s"
DANGLING_TEMPLATE = "skill '%(skill)s' gates tools that are no longer registered: %(tools)s"


def problems(items):
    """Warnings as a page reads them: the sentence, the code, the template and the params."""
    return [(str(p), p.code, p.template, dict(p.params)) for p in items]


def stale_shop() -> Catalog:
    return shop(
        profiles={"clerk": {"lookup", "zeta_gone", "alpha_gone"}, "guest": {"export"}},
        stages={"late": {"ship", "lookup", "b_gone", "a_gone"}, "early": {"lookup"}},
    )


def test_each_restriction_warns_with_its_code_and_the_unregistered_tools_sorted() -> None:
    """The warnings come in the order profile, stage, allowed list; each names the missing tools in
    alphabetical order as text and as a list (the console lays the list out); a builtin in the
    allowed list is no stranger."""
    r = resolve_restrictions(
        stale_shop(),
        access_profile="clerk",
        stage="late",
        allowed_tools=["lookup", "search_knowledge", "zz", "aa", "ship"],
    )
    assert problems(r.warnings) == [
        (
            "access profile 'clerk' lists tools that are no longer registered: alpha_gone, zeta_gone",
            "restriction_unregistered",
            RESTRICTION_TEMPLATE,
            {
                "kind": "access profile",
                "name": "clerk",
                "tools": "alpha_gone, zeta_gone",
                "tool_list": ["alpha_gone", "zeta_gone"],
            },
        ),
        (
            "stage 'late' lists tools that are no longer registered: a_gone, b_gone",
            "restriction_unregistered",
            RESTRICTION_TEMPLATE,
            {"kind": "stage", "name": "late", "tools": "a_gone, b_gone", "tool_list": ["a_gone", "b_gone"]},
        ),
        (
            "allowed tools that are not registered: aa, zz",
            "allowed_unregistered",
            ALLOWED_TEMPLATE,
            {"tools": "aa, zz", "tool_list": ["aa", "zz"]},
        ),
    ]
    assert type(r.warnings) is tuple


def test_resolved_restrictions_keep_the_names_and_only_the_registered_mcp_tools() -> None:
    r = resolve_restrictions(
        stale_shop(), access_profile="clerk", stage="late", allowed_tools=["lookup", "search_knowledge", "zz", "ship"]
    )
    assert r == Restrictions(
        profile="clerk",
        stage="late",
        explicit=frozenset({"lookup", "ship"}),
        profile_tools=frozenset({"lookup"}),
        stage_tools=frozenset({"ship", "lookup"}),
        warnings=r.warnings,
    )
    assert len(r.warnings) == 3


@pytest.mark.parametrize(
    ("kwargs", "want"),
    [
        pytest.param(
            {"access_profile": "guest"},
            Restrictions(profile="guest", profile_tools=frozenset({"export"})),
            id="a profile alone",
        ),
        pytest.param(
            {"stage": "early"}, Restrictions(stage="early", stage_tools=frozenset({"lookup"})), id="a stage alone"
        ),
        pytest.param(
            {"allowed_tools": ["export", "load_skill"]},
            Restrictions(explicit=frozenset({"export"})),
            id="an allowed list alone",
        ),
        pytest.param(
            {"access_profile": "", "stage": "early"},
            Restrictions(stage="early", stage_tools=frozenset({"lookup"})),
            id="an empty profile name",
        ),
        pytest.param(
            {"access_profile": "guest", "stage": ""},
            Restrictions(profile="guest", profile_tools=frozenset({"export"})),
            id="an empty stage name",
        ),
        pytest.param({"allowed_tools": []}, Restrictions(explicit=frozenset()), id="an empty allowed list"),
    ],
)
def test_each_restriction_resolves_on_its_own(kwargs, want) -> None:
    assert resolve_restrictions(stale_shop(), **kwargs) == want


def test_no_restriction_is_the_shared_unrestricted_value() -> None:
    from skill_rule.rules import _UNRESTRICTED

    assert resolve_restrictions(stale_shop()) is _UNRESTRICTED


@pytest.mark.parametrize(
    ("kwargs", "details"),
    [
        pytest.param(
            {"access_profile": "admin", "stage": "late"},
            {"kind": "access profile", "name": "admin", "known": ["clerk", "guest"]},
            id="profile",
        ),
        pytest.param(
            {"access_profile": "clerk", "stage": "night"},
            {"kind": "stage", "name": "night", "known": ["early", "late"]},
            id="stage",
        ),
    ],
)
def test_an_unknown_restriction_names_its_kind_its_name_and_the_sorted_names_on_offer(kwargs, details) -> None:
    with pytest.raises(UnknownRestrictionError) as exc:
        resolve_restrictions(stale_shop(), **kwargs)
    assert (exc.value.kind, exc.value.name, exc.value.known, exc.value.details) == (
        details["kind"],
        details["name"],
        details["known"],
        details,
    )


# --- the warnings of the catalog ---------------------------------------------------------------


def test_a_round_warns_of_invalid_definitions_then_restrictions_then_skills_gating_missing_tools() -> None:
    broken = Tool("broken", MCP, input_schema={"type": 5})
    catalog = Catalog(
        tools=builtin_tools() + mcp_tools() + (broken,),
        skills=(
            skill("alpha", ("refund", "vanished", "gone"), sort_order=10),
            skill("beta", ("ship",), sort_order=20),
            skill("gamma", ("lost",), sort_order=30),
        ),
        profiles=stale_shop().profiles,
    )
    view = compute_round(catalog, [], access_profile="clerk")
    got = problems(view.warnings)
    assert [code for _, code, _, _ in got] == [
        "tool_definition_invalid",
        "restriction_unregistered",
        "skill_gates_unregistered",
        "skill_gates_unregistered",
    ]
    assert got[2:] == [
        (
            "skill 'alpha' gates tools that are no longer registered: vanished, gone",
            "skill_gates_unregistered",
            DANGLING_TEMPLATE,
            {"skill": "alpha", "tools": "vanished, gone", "tool_list": ["vanished", "gone"]},
        ),
        (
            "skill 'gamma' gates tools that are no longer registered: lost",
            "skill_gates_unregistered",
            DANGLING_TEMPLATE,
            {"skill": "gamma", "tools": "lost", "tool_list": ["lost"]},
        ),
    ]
    assert got[0][3]["tool"] == "broken"


def test_a_catalog_without_problems_gives_rounds_without_warnings() -> None:
    assert compute_round(shop(), []).warnings == ()


# --- the round shape ---------------------------------------------------------------------------


@pytest.mark.parametrize("restriction", [{}, {"stage": "late"}], ids=["unrestricted", "a stage"])
def test_a_loaded_code_that_is_no_enabled_skill_loads_nothing(restriction) -> None:
    """A manual of a disabled or unknown skill in the transcript releases nothing (docs/rule.md)."""
    catalog = shop(
        skill("alpha", ("refund", "cancel"), sort_order=10),
        skill("beta", ("ship",), enabled=False),
        stages={"late": {"refund", "cancel", "ship", "lookup"}},
    )
    view = compute_round(catalog, loaded("beta") + loaded("gamma") + loaded("alpha"), **restriction)
    assert (view.loaded, view.released) == (("alpha",), ("refund", "cancel"))
    assert compute_round(catalog, loaded("beta") + loaded("gamma"), **restriction).loaded == ()


def test_loading_a_skill_that_gates_an_unregistered_tool_releases_its_registered_ones() -> None:
    catalog = shop(
        skill("alpha", ("refund", "vanished"), sort_order=10), skill("beta", ("cancel", "ship"), sort_order=20)
    )
    view = compute_round(catalog, loaded("alpha"))
    assert view.released == ("refund",)
    assert dict(view.masked) == {"cancel": "beta", "ship": "beta"}
    assert view.visible == BUILTINS + ("lookup", "refund", "export")


def test_one_catalog_answers_each_loaded_set_and_restriction_with_its_own_round() -> None:
    catalog = shop(profiles={"clerk": {"lookup", "cancel", "ship"}}, stages={"late": {"ship", "export"}})
    rounds = [
        ({}, [], ("lookup", "export"), {"refund": "alpha", "cancel": "alpha", "ship": "beta"}, {}),
        ({}, loaded("beta"), ("lookup", "cancel", "ship", "export"), {"refund": "alpha"}, {}),
        (
            {"access_profile": "clerk"},
            loaded("beta"),
            ("lookup", "cancel", "ship"),
            {},
            {"refund": "not_permitted", "export": "not_permitted"},
        ),
        (
            {"stage": "late"},
            loaded("beta"),
            ("ship", "export"),
            {},
            {"lookup": "stage", "refund": "stage", "cancel": "stage"},
        ),
        ({}, loaded("alpha"), ("lookup", "refund", "cancel", "export"), {"ship": "beta"}, {}),
    ]
    for _ in range(2):  # the second pass reads the shapes the first one kept
        for restriction, messages, mcp_visible, masked, withheld in rounds:
            view = compute_round(catalog, messages, **restriction)
            assert (view.mcp_visible, dict(view.masked), dict(view.withheld)) == (mcp_visible, masked, withheld)


def test_a_round_shape_is_computed_once_per_loaded_set_and_kept_on_the_catalog() -> None:
    """docs/rule.md, "Cost": a second round with the same loaded set and restrictions reuses the
    shape the first one computed (the same tuples), while each round gets its own masked and
    withheld mappings to keep."""
    catalog = shop()
    first, second = compute_round(catalog, loaded("alpha")), compute_round(catalog, loaded("alpha") + [])
    assert second.visible is first.visible and second.mcp_visible is first.mcp_visible
    assert second.masked == first.masked and second.masked is not first.masked
    other = compute_round(catalog, loaded("beta"))
    assert other.visible is not first.visible


def test_a_catalog_keeps_at_most_the_bounded_number_of_round_shapes_dropping_the_oldest() -> None:
    from skill_rule.rules import ROUND_SHAPE_CACHE_SIZE

    codes = [f"s{i}" for i in range(ROUND_SHAPE_CACHE_SIZE + 2)]
    catalog = shop(*(skill(code, ("refund",)) for code in codes))
    views = [compute_round(catalog, loaded(code)) for code in codes]
    shapes = catalog.derived("_rules_round_shapes", dict)
    assert len(shapes) == ROUND_SHAPE_CACHE_SIZE
    assert [key[3] for key in shapes] == [frozenset({code}) for code in codes[2:]]
    assert compute_round(catalog, loaded(codes[-1])).visible is views[-1].visible
    assert compute_round(catalog, loaded(codes[0])).visible is not views[0].visible
