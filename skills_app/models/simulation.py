"""Records of docs/design.md. Field limits come from ``skill_rule.limits`` (named once)."""

from __future__ import annotations

from django.core.validators import (
    RegexValidator,
)
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from skill_rule.limits import (
    DESCRIPTION_MAX_LENGTH,
    NAME_MAX_LENGTH,
    SKILL_CODE_PATTERN,
)


class Scenario(models.Model):
    """A saved simulation: a YAML script (docs/simulator.md) with optional per-round expectations."""

    name = models.CharField(
        _("name"), max_length=NAME_MAX_LENGTH, unique=True, validators=[RegexValidator(SKILL_CODE_PATTERN)]
    )
    description = models.CharField(_("description"), max_length=DESCRIPTION_MAX_LENGTH, blank=True)
    description_en = models.CharField(_("description (English)"), max_length=DESCRIPTION_MAX_LENGTH, blank=True)
    script = models.TextField(_("script"))
    catalog = models.CharField(_("demo catalog"), max_length=64, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords()

    class Meta:
        ordering = ["name"]
        verbose_name = _("scenario")
        verbose_name_plural = _("scenarios")

    def __str__(self) -> str:
        return self.name

    def description_for(self, language: str | None) -> str:
        """The description in ``language`` (``en…`` → English when there is one), else the default."""
        if language and language.startswith("en") and self.description_en:
            return self.description_en
        return self.description
