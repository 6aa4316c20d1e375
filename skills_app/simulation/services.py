"""Writes of the simulator: saved scenarios (docs/design.md "The simulator"). Atomic and
validated in full: a script that does not parse is refused with its line, and nothing is saved."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from skill_rule.errors import ScriptError
from skill_rule.scripts import parse_script
from skills_app.core.writes import problem, save_new
from skills_app.models import (
    Scenario,
)


@transaction.atomic
def scenario_save(
    *,
    name: str,
    script: str,
    description: str = "",
    catalog: str = "",
    description_en: str | None = None,
    create: bool = False,
) -> Scenario:
    """Create or replace a saved scenario. The script must parse (``ValidationError`` naming the
    line and cause otherwise). ``create=True`` (the console's "new scenario") never replaces: a
    name that exists — or that another request creates at the same moment — is refused
    (``scenario_name_taken`` on ``name``)."""
    try:
        parse_script(script, source=f"scenario '{name}'")
    except ScriptError as exc:
        raise ValidationError({"script": [problem("script_invalid", "%(message)s", message=exc.message)]}) from None
    taken = ValidationError(
        {"name": [problem("scenario_name_taken", "A scenario named '%(name)s' already exists.", name=name)]}
    )
    existing = Scenario.objects.filter(name=name).first()
    if create and existing is not None:
        raise taken
    obj = existing or Scenario(name=name)
    obj.script, obj.description, obj.catalog = script, description, catalog
    if description_en is not None:
        obj.description_en = description_en
    obj.full_clean(validate_unique=False)  # pragma: no mutate
    save_new(obj, taken)
    return obj
