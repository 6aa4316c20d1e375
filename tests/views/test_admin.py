"""Every record is registered in the admin."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "model", ["skill", "scenario", "accessprofile", "stage", "intentnode", "mcptool", "builtintool", "consolesettings"]
)
def test_admin_changelist_opens(admin_client, bitmall, model):
    assert admin_client.get(f"/admin/skills_app/{model}/").status_code == 200


def test_skill_admin_is_read_only_and_links_to_the_console(admin_client, bitmall):
    response = admin_client.get("/admin/skills_app/skill/")
    assert b"/skills/order_change/edit" in response.content
    assert admin_client.get("/admin/skills_app/skill/add/").status_code == 403
