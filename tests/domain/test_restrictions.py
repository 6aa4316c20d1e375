"""Access profiles and stages (docs/design.md, docs/rule.md, seed 004): they restrict MCP tools only, an unknown
name is an error, and a tool missing from the registry drops out with a warning."""

from __future__ import annotations

import pytest

from skill_rule import UnknownRestrictionError, compute_round, resolve_restrictions

from .factories import BUILTINS, loaded, shop

PROFILES = {"clerk": {"lookup", "cancel", "ship"}, "guest": set(), "stale": {"lookup", "retired_tool"}}
STAGES = {"query": {"lookup", "export"}, "act": {"cancel", "refund", "ship", "lookup"}}


def catalog():
    return shop(profiles=PROFILES, stages=STAGES)


@pytest.mark.parametrize(
    ("profile", "stage", "messages", "mcp_visible", "withheld"),
    [
        pytest.param(None, None, [], ("lookup", "export"), {}, id="no restriction"),
        pytest.param(
            "clerk",
            None,
            [],
            ("lookup",),
            {"refund": "not_permitted", "export": "not_permitted"},
            id="a profile drops MCP tools outside it, gated or not",
        ),
        pytest.param(
            None,
            "query",
            [],
            ("lookup", "export"),
            {"refund": "stage", "cancel": "stage", "ship": "stage"},
            id="a stage withholds the gated tools outside it",
        ),
        pytest.param(
            "clerk",
            "query",
            [],
            ("lookup",),
            {"refund": "not_permitted", "cancel": "stage", "ship": "stage", "export": "not_permitted"},
            id="profile and stage intersect",
        ),
        pytest.param(
            "clerk",
            "act",
            loaded("alpha") + loaded("beta"),
            ("lookup", "cancel", "ship"),
            {"refund": "not_permitted", "export": "not_permitted"},
            id="released tools outside the profile stay hidden",
        ),
        pytest.param(
            None,
            "act",
            loaded("alpha"),
            ("lookup", "refund", "cancel"),
            {"export": "stage"},
            id="a stage drops released tools outside it",
        ),
        pytest.param(
            "guest",
            None,
            loaded("alpha"),
            (),
            {
                "lookup": "not_permitted",
                "refund": "not_permitted",
                "cancel": "not_permitted",
                "ship": "not_permitted",
                "export": "not_permitted",
            },
            id="an empty profile leaves only the builtins",
        ),
    ],
)
def test_restrictions_apply_to_mcp_tools_only(profile, stage, messages, mcp_visible, withheld) -> None:
    view = compute_round(catalog(), messages, access_profile=profile, stage=stage)
    assert view.mcp_visible == mcp_visible
    assert view.builtins == BUILTINS  # builtins are never subject to profiles or stages
    assert view.visible == BUILTINS + mcp_visible
    assert dict(view.withheld) == withheld


def test_masked_lists_only_tools_that_loading_the_manual_would_make_visible() -> None:
    """docs/rule.md: a gated tool outside the profile or stage is withheld, never "masked → load X"."""
    view = compute_round(catalog(), [], access_profile="clerk")
    assert dict(view.masked) == {"cancel": "alpha", "ship": "beta"}
    assert dict(view.withheld) == {"refund": "not_permitted", "export": "not_permitted"}
    assert view.released == ()


def test_an_empty_profile_masks_nothing_and_withholds_every_mcp_tool() -> None:
    view = compute_round(catalog(), [], access_profile="guest")
    assert dict(view.masked) == {}
    assert set(view.withheld) == {"lookup", "refund", "cancel", "ship", "export"}


def test_loading_a_manual_never_releases_a_withheld_tool() -> None:
    view = compute_round(catalog(), loaded("alpha"), access_profile="clerk")
    assert view.released == ("cancel",)
    assert dict(view.withheld) == {"refund": "not_permitted", "export": "not_permitted"}
    assert dict(view.masked) == {"ship": "beta"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param(
            {"access_profile": "admin"},
            "unknown access profile 'admin'; access profiles on offer: clerk, guest, stale",
            id="unknown profile",
        ),
        pytest.param({"stage": "refund"}, "unknown stage 'refund'; stages on offer: act, query", id="unknown stage"),
        pytest.param(
            {"access_profile": "clerk", "stage": "ship"},
            "unknown stage 'ship'; stages on offer: act, query",
            id="unknown stage with a known profile",
        ),
    ],
)
def test_an_unknown_name_is_an_error_listing_the_names_on_offer(kwargs, message) -> None:
    with pytest.raises(UnknownRestrictionError) as exc:
        compute_round(catalog(), [], **kwargs)
    assert exc.value.message == message


def test_an_unknown_name_is_an_error_even_when_none_are_defined() -> None:
    with pytest.raises(UnknownRestrictionError) as exc:
        resolve_restrictions(shop(), stage="query")
    assert exc.value.message == "unknown stage 'query'; stages on offer: none defined"
    assert exc.value.details == {"kind": "stage", "name": "query", "known": []}


def test_a_profile_listing_an_unregistered_tool_warns_and_drops_it() -> None:
    view = compute_round(catalog(), [], access_profile="stale")
    assert view.mcp_visible == ("lookup",)
    assert view.warnings == ("access profile 'stale' lists tools that are no longer registered: retired_tool",)


def test_a_stage_losing_a_tool_from_the_registry_warns_instead_of_failing() -> None:
    base = catalog()
    without_export = type(base)(
        tools=tuple(t for t in base.tools if t.name != "export"),
        skills=base.skills,
        profiles=base.profiles,
        stages=base.stages,
    )
    view = compute_round(without_export, [], stage="query")
    assert view.mcp_visible == ("lookup",)
    assert view.warnings == ("stage 'query' lists tools that are no longer registered: export",)


def test_an_explicit_allowed_list_narrows_mcp_tools_and_warns_about_strangers() -> None:
    view = compute_round(catalog(), [], allowed_tools=["export", "search_knowledge", "nope"])
    assert view.visible == BUILTINS + ("export",)
    assert view.warnings == ("allowed tools that are not registered: nope",)


def test_no_restriction_named_resolves_to_none_and_an_empty_name_to_none_too():
    for kwargs in ({}, {"access_profile": "", "stage": ""}):
        r = resolve_restrictions(catalog(), **kwargs)
        assert (r.profile, r.stage, r.explicit, r.profile_tools, r.stage_tools, r.warnings) == (
            None,
            None,
            None,
            None,
            None,
            (),
        )
        assert r.permits("refund") and r.permits("anything")


def test_an_explicit_empty_allowed_list_restricts_to_nothing():
    r = resolve_restrictions(catalog(), allowed_tools=[])
    assert r.explicit == frozenset() and not r.permits("lookup")
