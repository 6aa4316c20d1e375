"""Records of docs/design.md. Field limits come from ``skill_rule.limits`` (named once)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import (
    RegexValidator,
)
from django.db import models
from django.utils.translation import gettext_lazy as _

from skill_rule.limits import (
    SKILL_CODE_PATTERN,
)
from skills_app.core.message_catalog import MESSAGES_BY_CODE

#: A label name: the same pattern as a skill code (``production``, ``staging``, ``canary-2``).
LABEL_NAME_MAX_LENGTH = 64


PUBLISH_PERMISSION = "skills_app.publish_release"


class Release(models.Model):
    """An immutable snapshot of everything the rule reads (docs/releases.md).

    ``number`` is 1, 2, 3 … (strictly increasing, assigned under a lock by
    ``releases.release_create``); ``snapshot`` is ``domain.snapshot.catalog_to_snapshot`` of the
    catalog; ``sha256`` the hash of its canonical JSON; ``catalog_json`` the runtime catalog body
    served for it (docs/runtime-api.md, "Caching"). ``overrides`` lists the unmet scenario
    expectations a publisher ticked off, ``override_note`` why. ``rollback_of`` is the release a
    rollback copied. Rows are never updated: ``save`` refuses an existing row.
    """

    number = models.PositiveIntegerField(_("number"), unique=True)
    sha256 = models.CharField(_("sha256"), max_length=64)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("author"),
    )
    author_name = models.CharField(_("author"), max_length=150, blank=True)
    created_at = models.DateTimeField(_("published at"), auto_now_add=True)
    note = models.TextField(_("note"))
    overrides = models.JSONField(_("overridden expectations"), default=list, blank=True)
    override_note = models.TextField(_("override reason"), blank=True)
    rollback_of = models.PositiveIntegerField(_("rollback of"), null=True, blank=True)
    # The two large columns come last in the table (migration 0014): on SQLite, reading a column
    # stored after a 1.3 MB value walks its overflow pages.
    snapshot = models.JSONField(_("snapshot"))
    #: The body of ``GET runtime/catalog`` for this release, exactly as answered
    #: (``runtime_catalog.catalog_body_json``), stored at publish so the API never rebuilds it.
    #: ``None`` only on a row written before it existed until ``runtime_cache`` fills it once.
    catalog_json = models.TextField(_("catalog JSON"), null=True, blank=True, editable=False)  # noqa: DJ001 — None: not filled yet

    class Meta:
        ordering = ["-number"]
        verbose_name = _("release")
        permissions = [("publish_release", "Can publish releases, move labels and manage runtime API keys")]

    def __str__(self) -> str:
        return f"release {self.number}"

    def save(self, *args, **kwargs) -> None:
        """Create only: a release is immutable once written."""
        if not self._state.adding:
            raise ValueError(f"release {self.number} is immutable; publish a new release instead")
        super().save(*args, **kwargs)


class ReleaseLabel(models.Model):
    """A named pointer to a release (``production``, ``staging``, any name); moved by
    ``releases.label_move``, each move recorded as a ``LabelMove``."""

    name = models.CharField(
        _("label"),
        max_length=LABEL_NAME_MAX_LENGTH,
        unique=True,
        validators=[
            RegexValidator(
                SKILL_CODE_PATTERN,
                # the rule stated, not Django's "Enter a valid value." (issue 29)
                message=MESSAGES_BY_CODE["label_name_pattern"],
                code="label_name_pattern",
            )
        ],
    )
    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="labels", verbose_name=_("release"))
    moved_at = models.DateTimeField(_("moved at"), auto_now=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("release label")

    def __str__(self) -> str:
        return self.name


class LabelMove(models.Model):  # noqa: DJ008 — the history pages and the admin list it by its fields
    """One move of a label: from which release (``None`` = the label was created) to which, who, when."""

    label = models.CharField(_("label"), max_length=LABEL_NAME_MAX_LENGTH, db_index=True)
    from_release = models.ForeignKey(Release, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    to_release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="+")
    moved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    moved_by_name = models.CharField(max_length=150, blank=True)
    moved_at = models.DateTimeField(_("moved at"), auto_now_add=True)

    class Meta:
        ordering = ["-moved_at", "-id"]
        verbose_name = _("label move")
