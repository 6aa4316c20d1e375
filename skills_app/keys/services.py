"""Writes of runtime API keys (docs/releases.md "Keys"): create (the secret is shown once) and
revoke. Publishers only (``releases.services.require_publisher``); atomic."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from skills_app.core.writes import field_error
from skills_app.models import (
    RuntimeKey,
)
from skills_app.releases.services import author_of, require_publisher


@dataclass(frozen=True)
class CreatedKey:
    """A key just made: the record, and the key itself — shown once, never stored."""

    record: RuntimeKey
    key: str


@transaction.atomic
def api_key_create(*, user: Any, name: str, read_drafts: bool = False) -> CreatedKey:
    """Create a runtime API key (stored as the library's hash). ``name`` must be unique among
    keys that are not revoked. Raises ``PermissionDenied`` or ``ValidationError``."""
    require_publisher(user)
    name = (name or "").strip()
    if not name:
        raise field_error("name", "key_name_required", "a key needs a name.")
    control = next((c for c in name if unicodedata.category(c) == "Cc"), None)
    if control is not None:  # a NUL would not even reach PostgreSQL (500); a bell garbles every list
        raise field_error(
            "name",
            "key_name_control",
            "a key name cannot contain a control character (%(char)s).",
            char=f"U+{ord(control):04X}",
        )
    if RuntimeKey.objects.filter(name=name, revoked=False).exists():
        raise field_error(
            "name",
            "key_name_taken",
            "a key named '%(name)s' already exists; revoke it first or pick another name.",
            name=name,
        )
    creator, _name = author_of(user)
    probe = RuntimeKey(name=name, read_drafts=read_drafts)
    probe.full_clean(exclude=["id", "prefix", "hashed_key"])  # pragma: no mutate
    record, key = RuntimeKey.objects.create_key(name=name, read_drafts=read_drafts, created_by=creator)
    return CreatedKey(record=record, key=key)


@transaction.atomic
def api_key_revoke(*, user: Any, name: str) -> int:
    """Revoke every usable key with this name (cannot be undone); returns how many. Raises
    ``ValidationError`` when none matches."""
    require_publisher(user)
    not_found = field_error("name", "key_not_found", "no usable key named '%(name)s'.", name=name)
    # no key name holds a NUL (``api_key_create``); PostgreSQL would refuse one in the query (500)
    if "\x00" in name:  # pragma: no mutate
        raise not_found
    keys = list(RuntimeKey.objects.select_for_update().filter(name=name, revoked=False))
    if not keys:
        raise not_found
    for k in keys:
        k.revoked = True
        k.save()
    return len(keys)
