"""The skill lifecycle through ``skills_app.catalog.services`` with exact values: a skill created disabled
stays disabled (it gates nothing), a soft-deleted skill cannot be edited, and deleting twice
changes nothing the second time (docs/rule.md: disabling or deleting releases the tools)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from skill_rule import compute_round
from skills_app.catalog import selectors, services
from skills_app.models import Skill

NEW = {
    "skill_code": "refund_help",
    "name": "退款说明",
    "description": "用户询问退款时加载",
    "content": "# 退款\n先查订单。",
    "tool_ids": ["query_after_sale"],
}


def test_a_skill_created_disabled_is_stored_disabled_and_gates_nothing(bitmall) -> None:
    created = services.skill_create(**NEW, enabled=False)
    stored = Skill.objects.get(pk=created.pk)
    assert (created.enabled, stored.enabled, stored.version) == (False, False, 1)
    round_ = compute_round(selectors.catalog_draft(), [])
    assert "query_after_sale" in round_.visible
    assert "query_after_sale" not in round_.masked


def test_a_skill_created_enabled_gates_its_tools_at_once(bitmall) -> None:
    services.skill_create(**NEW)
    assert dict(compute_round(selectors.catalog_draft(), []).masked)["query_after_sale"] == "refund_help"


def test_a_soft_deleted_skill_cannot_be_updated_and_nothing_changes(bitmall) -> None:
    skill = Skill.objects.live().get(skill_code="order_change")
    deleted = services.skill_delete(skill=skill)
    assert deleted.version == 1
    with pytest.raises(ValidationError) as exc:
        services.skill_update(skill=deleted, name="改名", expected_version=1)
    assert exc.value.messages == ["skill 'order_change' is deleted; restore it before editing."]
    stored = Skill.objects.get(pk=skill.pk)
    assert (stored.name, stored.version, stored.deleted_at is not None) == (skill.name, 1, True)


def test_deleting_a_deleted_skill_again_keeps_its_version_and_deletion_time(bitmall) -> None:
    skill = Skill.objects.live().get(skill_code="order_change")
    first = services.skill_delete(skill=skill)
    second = services.skill_delete(skill=first)
    stored = Skill.objects.get(pk=skill.pk)
    assert (first.version, second.version, stored.version) == (1, 1, 1)
    assert stored.deleted_at == first.deleted_at


def test_deleting_and_restoring_keep_the_manuals_version_and_restoring_again_does_nothing(bitmall) -> None:
    """Issue 29 item 2: the version is the manual's (docs/roles.md); a delete and a restore leave
    the manual as it was, so they keep it (they bumped it 1 → 2 → 3 before)."""
    skill = Skill.objects.live().get(skill_code="order_change")
    deleted = services.skill_delete(skill=skill)
    restored = services.skill_restore(skill=deleted)
    again = services.skill_restore(skill=restored)
    assert (deleted.version, restored.version, again.version) == (1, 1, 1)
    assert [r.version for r in Skill.history.filter(id=skill.pk)] == [1, 1, 1]
    assert Skill.objects.get(pk=skill.pk).deleted_at is None
