"""Writes of the simulator: saved scenarios (docs/design.md "The simulator"). Atomic and
validated in full: a script that does not parse is refused with its line, and nothing is saved."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from skill_rule.errors import ScriptError
from skill_rule.scripts import parse_script
from skills_app.core.writes import problem, save_new
from skills_app.models import AccessProfile, Scenario, Stage


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
    line and cause otherwise), and the access profile and stage it names must exist
    (``scenario_unknown_access_profile`` / ``scenario_unknown_stage``, listing those that do: such
    a scenario could never run, and would block every publish). ``create=True`` (the console's "new scenario") never replaces: a
    name that exists — or that another request creates at the same moment — is refused
    (``scenario_name_taken`` on ``name``)."""
    try:
        parsed = parse_script(script, source=f"scenario '{name}'")
    except ScriptError as exc:
        raise ValidationError({"script": [problem("script_invalid", "%(message)s", message=exc.message)]}) from None
    unknown = _unknown_restrictions(parsed.access_profile, parsed.stage)
    if unknown:
        raise ValidationError({"script": unknown})
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


def _unknown_restrictions(access_profile: str | None, stage: str | None) -> list[ValidationError]:
    """One error per restriction the script names that the catalog does not define."""
    errors = []
    for value, model, code, kind in (
        (access_profile, AccessProfile, "scenario_unknown_access_profile", "access profile"),
        (stage, Stage, "scenario_unknown_stage", "stage"),
    ):
        if value is None:
            continue
        known = list(model.objects.order_by("name").values_list("name", flat=True))
        if value not in known:
            errors.append(
                problem(
                    code,
                    "the script names %(kind)s '%(name)s', which does not exist; defined: %(known)s.",
                    kind=kind,
                    name=value,
                    known=", ".join(known) or "—",
                )
            )
    return errors
