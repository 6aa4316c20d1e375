"""Field-by-field diff of two revisions of one record (docs/roles.md "History"), in plain Python.

A revision is a mapping of field → value (a row of django-simple-history's historical table,
read by ``skills_app.history.selectors``). The manual (``content``) gets the same unified line diff the
release diff shows (``releases.manual_diff``); other fields their before and after values.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .releases import FieldChange, manual_diff

#: The fields of a skill revision the history page compares, in the order it shows them.
SKILL_HISTORY_FIELDS = ("name", "description", "content", "tool_ids", "sort_order", "enabled", "version", "deleted_at")
#: Fields holding multi-line text: diffed line by line.
TEXT_FIELDS = frozenset({"content", "script"})


def revision_diff(
    before: Mapping[str, Any], after: Mapping[str, Any], fields: Iterable[str]
) -> tuple[FieldChange, ...]:
    """The fields of ``fields`` whose values differ between two revisions, in that order. For a
    text field (``TEXT_FIELDS``) ``lines`` is the unified line diff; for the others it is empty.
    A field missing from a revision counts as ``None``."""
    out = []
    for name in fields:
        x, y = before.get(name), after.get(name)
        if x == y:
            continue
        lines = manual_diff(x or "", y or "") if name in TEXT_FIELDS else ()
        out.append(FieldChange(name, x, y, lines))
    return tuple(out)
