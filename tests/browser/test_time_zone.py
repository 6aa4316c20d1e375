"""Choosing a time zone in the browser (issue 29, item 3): the footer of every page names the zone
its times are in; its link opens the form, and the chosen zone is used at once. Screenshots:
/tmp/shots/time-zone-*.png."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from skills_app.models import Release
from skills_app.releases.services import COMMAND_LINE, release_publish
from tests.browser.conftest import SHOTS, login

pytestmark = pytest.mark.browser


def test_the_footer_names_the_zone_and_its_link_changes_it(page, console):
    made = release_publish(user=COMMAND_LINE, note="demo catalog 'bitmall'")
    Release.objects.filter(pk=made.pk).update(created_at=datetime(2026, 1, 15, 12, 0, tzinfo=UTC))
    login(page, console)
    page.goto(f"{console}/releases/1/")
    footer = page.locator("[data-time-zone-footer]")
    assert footer.inner_text() == "时间按此时区显示： UTC+08:00 Asia/Shanghai （服务器默认） · 更改时区"
    assert page.locator("[data-published-at]").inner_text() == "2026-01-15 20:00:00"
    page.click("[data-time-zone-link]")
    page.wait_for_url(f"{console}/preferences/time-zone?next=/releases/1/")
    page.select_option("#id_time_zone", "Asia/Kolkata")
    page.screenshot(path=str(SHOTS / "time-zone-form.png"), full_page=True)
    page.click("[data-default-submit]")
    page.wait_for_url(f"{console}/releases/1/")
    assert page.locator(".messages .success").inner_text() == "时间现在按 UTC+05:30 Asia/Kolkata 显示。"
    assert footer.inner_text() == "时间按此时区显示： UTC+05:30 Asia/Kolkata · 更改时区"
    assert page.locator("[data-published-at]").inner_text() == "2026-01-15 17:30:00"
    page.screenshot(path=str(SHOTS / "time-zone-release.png"), full_page=True)
