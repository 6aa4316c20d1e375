"""Forms of the simulator: the preview's transcript and restrictions, and a saved scenario. They
only validate (STYLE "Forms validate; services write"); a scenario is saved by
``simulation.services.scenario_save``."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from skill_rule import catalog as dom
from skill_rule.limits import DESCRIPTION_MAX_LENGTH, NAME_MAX_LENGTH, SKILL_CODE_PATTERN
from skills_app.core.message_catalog import MESSAGES_BY_CODE
from skills_app.simulation import selectors
from skills_app.web.forms import ServiceForm, allow_nul, nul_error, same_text

# --------------------------------------------------------------------------------------------
# Preview / simulate
# --------------------------------------------------------------------------------------------
NO_RESTRICTION = "-"


class PreviewForm(forms.Form):
    """What to simulate: a saved scenario, or a pasted YAML script / JSON transcript, with an
    optional access profile and stage. Empty profile/stage = as the script says; ``-`` = none.
    Profile and stage are free text on purpose: an unknown name must reach the domain, which
    refuses it with the names on offer (docs/rule.md)."""

    scenario = forms.CharField(label=_("Saved scenario"), required=False)
    script = forms.CharField(
        label=_("Script (YAML) or transcript (JSON)"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 14, "class": "mono", "spellcheck": "false"}),
    )
    profile = forms.CharField(label=_("Access profile"), required=False)
    stage = forms.CharField(label=_("Stage"), required=False)

    def __init__(
        self, *args: Any, scenarios: list[Any] = (), catalog: dom.Catalog | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        allow_nul(self.fields["script"])
        self.scenarios = {s.name: s for s in scenarios}
        self.catalog = catalog
        self.fields["scenario"].widget = forms.Select(
            choices=[("", gettext("— pasted script —"))] + [(n, n) for n in self.scenarios]
        )
        for field, table in (
            ("profile", catalog.profiles if catalog else {}),
            ("stage", catalog.stages if catalog else {}),
        ):
            choices = [("", gettext("as the script says")), (NO_RESTRICTION, gettext("none (no restriction)"))]
            choices += [(n, n) for n in sorted(table)]
            asked = (self.data.get(self.add_prefix(field)) or "") if self.is_bound else ""
            if asked and asked not in dict(choices):  # keep an unknown name visible (the domain refuses it)
                choices.append((asked, gettext("%(name)s (unknown)") % {"name": asked}))
            self.fields[field].widget = forms.Select(choices=choices)

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        name = (data.get("scenario") or "").strip()
        text = data.get("script") or ""
        nul = nul_error(text)
        if nul is not None:  # a pasted script, but one no parser can read: say where
            self.add_error("script", nul)
            return data
        saved = self.scenarios.get(name) if name else None
        if name and saved is None:
            on_offer = ", ".join(self.scenarios) or gettext("none saved")
            self.add_error(
                "scenario",
                gettext("No saved scenario '%(name)s'; scenarios: %(names)s") % {"name": name, "names": on_offer},
            )
            return data
        if saved is not None and (not text.strip() or same_text(text, saved.script)):
            data["source_text"], data["source_name"], data["saved"] = saved.script, f"scenario '{saved.name}'", saved
        elif text.strip():
            data["source_text"], data["source_name"], data["saved"] = text, "<pasted>", None
        else:
            raise ValidationError(gettext("Choose a saved scenario or paste a script."), code="empty")
        return data

    @staticmethod
    def restriction(value: str | None) -> str | None:
        """Form value → ``simulate`` argument: empty → ``None`` (the script's), ``-`` → ``""`` (none)."""
        if not value:
            return None
        return "" if value == NO_RESTRICTION else value


# --------------------------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------------------------
#: Names of scenarios, profiles and stages follow the skill-code pattern; the refusal says so
#: (Django's default "Enter a valid value." does not say what is allowed).
NAME_RULE = RegexValidator(
    SKILL_CODE_PATTERN,
    message=_(
        "Use a lowercase letter first, then lowercase letters, digits and single _ or - separators "
        "(no spaces, no capitals), e.g. cancel-iphone."
    ),
    code="name_pattern",
)


class ScenarioForm(ServiceForm):
    """Create or replace a saved scenario: a valid form gives the arguments of
    ``services.scenario_save`` (the script must parse; the service's error names the line)."""

    name = forms.CharField(
        label=_("Name"),
        max_length=NAME_MAX_LENGTH,
        validators=[NAME_RULE],
        help_text=_("Lowercase letters, digits, single _ or -, e.g. cancel-iphone."),
        widget=forms.TextInput(attrs={"class": "mono", "autocomplete": "off"}),
    )
    description = forms.CharField(
        label=_("Description"),
        max_length=DESCRIPTION_MAX_LENGTH,
        required=False,
        help_text=_("Shown in the Chinese console (and in English when no English one is given)."),
    )
    description_en = forms.CharField(
        label=_("Description (English)"),
        max_length=DESCRIPTION_MAX_LENGTH,
        required=False,
        help_text=_("Shown in the English console."),
    )
    script = forms.CharField(
        label=_("Script (YAML)"),
        strip=False,
        widget=forms.Textarea(attrs={"rows": 22, "class": "mono", "spellcheck": "false"}),
    )

    def __init__(self, *args: Any, scenario: Any = None, **kwargs: Any) -> None:
        self.scenario = scenario
        if scenario is not None and "initial" not in kwargs:
            kwargs["initial"] = {
                "name": scenario.name,
                "description": scenario.description,
                "description_en": getattr(scenario, "description_en", ""),
                "script": scenario.script,
            }
        super().__init__(*args, **kwargs)
        allow_nul(self.fields["script"])
        if scenario is not None:
            self.fields["name"].disabled = True

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        nul = nul_error(data.get("script") or "")
        if nul is not None:
            self.add_error("script", nul)
        if self.errors:
            return data
        name = data["name"].strip()
        if self.scenario is None and selectors.scenario_get(name=name) is not None:
            self.add_error("name", str(MESSAGES_BY_CODE["scenario_name_taken"]) % {"name": name})
        return data

    def service_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``services.scenario_save`` (valid form): a new scenario is
        created (``create``, never replacing one), an edited one keeps its catalog, and its stored
        English description when the POST does not carry one."""
        data = self.cleaned_data
        extra = {}
        if self.add_prefix("description_en") in self.data:  # absent from the POST: keep the stored one
            extra["description_en"] = data.get("description_en") or ""
        return {
            "name": data["name"].strip(),
            "script": data["script"],
            "description": data.get("description") or "",
            "catalog": self.scenario.catalog if self.scenario else "",
            "create": self.scenario is None,
            **extra,
        }
