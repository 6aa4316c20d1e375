"""``RoundView.as_dict``: the rounds answer, as lists and dicts of its own or, for rendering, as
the view's own tuples and mappings (docs/runtime-api.md; the API renders the latter)."""

from __future__ import annotations

import json

from skill_rule import compute_round

from .factories import BUILTINS, loaded, shop, user

SK, LS, FM = BUILTINS


def _view():
    return compute_round(shop(), [user("退款"), *loaded("alpha", call_id="c1")])


def test_the_answer_holds_lists_and_dicts_of_its_own_by_default():
    view = _view()
    answer = view.as_dict()
    assert answer["loaded"] == ["alpha"] and answer["masked"] == {"ship": "beta"}
    assert answer["visible"] == [SK, LS, FM, "lookup", "refund", "cancel", "export"] and answer["count"] == 7
    assert answer["mcp_visible"] == ["lookup", "refund", "cancel", "export"] and answer["builtins"] == [SK, LS, FM]
    assert answer["released"] == ["refund", "cancel"] and answer["gated"] == ["refund", "cancel", "ship"]
    assert answer["withheld"] == {} and answer["warnings"] == [] and answer["warning_details"] == []
    answer["masked"]["ship"] = "changed"
    answer["visible"].append("changed")
    assert view.masked == {"ship": "beta"} and view.visible[-1] == "export"  # the view is untouched


def test_without_copies_the_answer_is_the_views_own_values_and_reads_as_the_same_json():
    view = _view()
    own = view.as_dict(copies=False)
    assert own["masked"] is view.masked and own["withheld"] is view.withheld
    assert own["visible"] is view.visible and own["mcp_visible"] is view.mcp_visible and own["loaded"] is view.loaded
    assert own["builtins"] is view.builtins and own["warnings"] is view.warnings
    assert list(own) == list(view.as_dict())
    assert json.dumps(own) == json.dumps(view.as_dict())
    only = view.as_dict(only={"masked", "count"}, copies=False)
    assert only == {"masked": {"ship": "beta"}, "count": 7} and only["masked"] is view.masked
