"""The field-by-field diff of two revisions of a record (``domain/history.py``) that the history
page shows (docs/roles.md "History"): which fields, in which order, their exact before and after
values, and the manual's line diff."""

from __future__ import annotations

from skill_rule.history import SKILL_HISTORY_FIELDS, TEXT_FIELDS, revision_diff


def test_the_history_page_compares_a_skills_fields_in_this_order():
    """The fields of a skill revision the page compares, in the order it lists them."""
    assert SKILL_HISTORY_FIELDS == (
        "name",
        "description",
        "content",
        "tool_ids",
        "sort_order",
        "enabled",
        "version",
        "deleted_at",
    )
    assert TEXT_FIELDS == {"content", "script"}


def test_every_changed_field_is_listed_in_the_order_asked_after_an_unchanged_one():
    """An unchanged field is skipped and the comparison goes on: every later change is listed, in
    the order of ``fields`` (not of the revisions)."""
    before = {"name": "Alpha", "description": "same", "sort_order": 10, "enabled": True, "version": 1}
    after = {"enabled": False, "version": 2, "sort_order": 10, "description": "same", "name": "Alpha 2"}
    changes = revision_diff(before, after, ("description", "sort_order", "version", "name", "enabled"))
    assert [(c.field, c.before, c.after, c.lines) for c in changes] == [
        ("version", 1, 2, ()),
        ("name", "Alpha", "Alpha 2", ()),
        ("enabled", True, False, ()),
    ]
    assert type(changes) is tuple


def test_two_equal_revisions_differ_in_nothing():
    """Equal values in every field give no change at all."""
    same = {"name": "a", "content": "x\ny", "tool_ids": ["t"]}
    assert revision_diff(same, dict(same), ("name", "content", "tool_ids")) == ()


def test_a_field_missing_from_a_revision_counts_as_none():
    """A field one revision lacks is ``None`` there: it differs from a value and equals ``None``."""
    changes = revision_diff({"deleted_at": "2026-12-01"}, {"name": "b"}, ("name", "deleted_at", "sort_order"))
    assert [(c.field, c.before, c.after, c.lines) for c in changes] == [
        ("name", None, "b", ()),
        ("deleted_at", "2026-12-01", None, ()),
    ]
    assert revision_diff({"name": None}, {}, ("name",)) == ()


def test_a_manual_written_from_nothing_is_a_line_diff_of_added_lines():
    """A manual that was empty (``None``) before: every line added, the before value kept as ``None``."""
    [change] = revision_diff({"content": None}, {"content": "first\nsecond"}, ("content",))
    assert (change.field, change.before, change.after) == ("content", None, "first\nsecond")
    assert change.lines == ("@@ -0,0 +1,2 @@", "+first", "+second")


def test_a_manual_emptied_is_a_line_diff_of_removed_lines():
    """A manual removed (``None`` after): every line removed, the after value kept as ``None``."""
    [change] = revision_diff({"content": "first\nsecond"}, {}, ("content",))
    assert (change.field, change.before, change.after) == ("content", "first\nsecond", None)
    assert change.lines == ("@@ -1,2 +0,0 @@", "-first", "-second")


def test_a_scenario_script_is_diffed_line_by_line_and_other_text_is_not():
    """``script`` is a text field like ``content``; a one-line ``name`` gets no line diff."""
    changes = revision_diff(
        {"script": "steps:\n  - user: hi", "name": "one\ntwo"},
        {"script": "steps:\n  - user: hello", "name": "one\nthree"},
        ("script", "name"),
    )
    assert [(c.field, c.lines) for c in changes] == [
        ("script", ("@@ -1,2 +1,2 @@", " steps:", "-  - user: hi", "+  - user: hello")),
        ("name", ()),
    ]
