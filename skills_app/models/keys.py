"""Records of docs/design.md. Field limits come from ``skill_rule.limits`` (named once)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from rest_framework_api_key.models import AbstractAPIKey


class RuntimeKey(AbstractAPIKey):
    """An API key of an agent runtime (djangorestframework-api-key: only a hash is stored).

    ``read_drafts`` lets the key ask for ``?draft=1``; ``last_used_at`` is refreshed at most once a
    minute; revoking (``revoked``) cannot be undone and takes effect on the next request."""

    read_drafts = models.BooleanField(_("may read drafts"), default=False)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta(AbstractAPIKey.Meta):
        verbose_name = _("runtime API key")
        verbose_name_plural = _("runtime API keys")
