"""Reads of saved scenarios (one query each)."""

from __future__ import annotations

from skills_app.models import (
    Scenario,
)


def scenario_list() -> list[Scenario]:
    """Saved scenarios by name (one query)."""
    return list(scenario_queryset())


def scenario_queryset():
    """Saved scenarios by name, unevaluated (a list page counts and slices it in the database)."""
    return Scenario.objects.order_by("name")


def scenario_get(*, name: str) -> Scenario | None:
    """The saved scenario with this name, or ``None``."""
    if "\x00" in name:  # no name holds NUL (and PostgreSQL refuses it in a query): nothing found
        return None
    return Scenario.objects.filter(name=name).first()
