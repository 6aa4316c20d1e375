"""Reads of runtime API keys (never their secrets)."""

from __future__ import annotations

from skills_app.models import (
    RuntimeKey,
)


def api_key_list() -> list[RuntimeKey]:
    """Every runtime key, newest first (revoked ones too)."""
    return list(RuntimeKey.objects.order_by("revoked", "-created"))
