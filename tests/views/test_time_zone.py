"""Time zones (issue 29, item 3): ``SKILL_CONSOLE_TIME_ZONE`` sets the server's zone and an unknown
name stops the start-up; every page with times names the zone it shows them in; a user chooses
their own (``/preferences/time-zone``, Django's ``timezone.activate`` from the session)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.utils import timezone

from skills_app.catalog import services
from skills_app.models import Release, Skill
from skills_app.releases.services import COMMAND_LINE, release_publish
from tests.conftest import user_with_role

ROOT = Path(__file__).resolve().parent.parent.parent
#: 2026-01-15 12:00 UTC: 20:00 in Shanghai (UTC+08:00), 17:30 in Kolkata (UTC+05:30, no summer time).
WHEN = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


def _settings_time_zone(tmp_path, value: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "console.settings",
        "SKILL_CONSOLE_TIME_ZONE": value,
        "SKILL_CONSOLE_VAR_DIR": str(tmp_path / "var"),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "packages/skill-rule/src"), str(ROOT)]),
    }
    code = "import django; django.setup(); from django.conf import settings; print(settings.TIME_ZONE)"
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_the_server_zone_is_the_environment_variable(tmp_path):
    done = _settings_time_zone(tmp_path, "Europe/Berlin")
    assert (done.returncode, done.stdout) == (0, "Europe/Berlin\n")


def test_an_unknown_zone_stops_the_start_up_naming_it(tmp_path):
    done = _settings_time_zone(tmp_path, "Mars/Olympus_Mons")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "django.core.exceptions.ImproperlyConfigured: SKILL_CONSOLE_TIME_ZONE='Mars/Olympus_Mons' is not a time "
        "zone of the IANA database this host knows (zoneinfo.available_timezones()); use a name such as "
        "Asia/Shanghai, Europe/Berlin or UTC"
    )


@pytest.fixture
def release(bitmall):
    made = release_publish(user=COMMAND_LINE, note="demo catalog 'bitmall'")
    Release.objects.filter(pk=made.pk).update(created_at=WHEN)  # a fixed instant (the row is never saved again)
    return made


def test_pages_name_their_zone_and_a_user_chooses_theirs(staff_client, release):
    page = staff_client.get("/releases/1/").content.decode()
    assert "<dd data-published-at>2026-01-15 20:00:00</dd>" in page
    assert '<span data-time-zone="UTC+08:00 Asia/Shanghai">UTC+08:00 Asia/Shanghai</span> （服务器默认）' in page

    answer = staff_client.post("/preferences/time-zone", {"time_zone": "Asia/Kolkata", "next": "/releases/1/"})
    assert (answer.status_code, answer["Location"]) == (302, "/releases/1/")
    page = staff_client.get("/releases/1/").content.decode()
    assert "时间现在按 UTC+05:30 Asia/Kolkata 显示。" in page
    assert "<dd data-published-at>2026-01-15 17:30:00</dd>" in page
    assert '<span data-time-zone="UTC+05:30 Asia/Kolkata">UTC+05:30 Asia/Kolkata</span> ·' in page

    staff_client.post("/preferences/time-zone", {"time_zone": ""})  # back to the server's default
    assert "<dd data-published-at>2026-01-15 20:00:00</dd>" in staff_client.get("/releases/1/").content.decode()


def test_the_form_lists_every_zone_and_refuses_an_unknown_one(staff_client, release):
    from zoneinfo import available_timezones

    form = staff_client.get("/preferences/time-zone").content.decode()
    assert form.count("<option value=") == len(available_timezones()) + 1  # + the server's default
    assert '<option value="" selected>服务器默认（Asia/Shanghai）</option>' in form
    answer = staff_client.post("/preferences/time-zone", {"time_zone": "../../etc/passwd"})
    assert answer.status_code == 400
    assert (
        "“../../etc/passwd”不是 IANA 时区数据库中的时区；请从列表中选择（例如 Asia/Shanghai、Europe/Berlin 或 UTC）。"
        in answer.content.decode()
    )
    assert "<dd data-published-at>2026-01-15 20:00:00</dd>" in staff_client.get("/releases/1/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_kept_skill_list_is_never_shown_in_another_users_zone(bitmall_nothing_kept, django_user_model):
    """The skill list is kept rendered per draft (docs/design.md): its deleted skills' times follow
    each user's zone, not the zone of whoever rendered it first."""
    skill = services.skill_delete(skill=Skill.objects.get(skill_code="iot_bundle"))
    shanghai = timezone.localtime(skill.deleted_at, ZoneInfo("Asia/Shanghai")).strftime("%Y-%m-%d %H:%M")
    kolkata = timezone.localtime(skill.deleted_at, ZoneInfo("Asia/Kolkata")).strftime("%Y-%m-%d %H:%M")
    first, second = Client(), Client()
    first.force_login(user_with_role(django_user_model, "ops", "publisher"))
    second.force_login(user_with_role(django_user_model, "kolkata", "publisher"))  # same role: one key but the zone
    assert f'<td class="nowrap small muted">{shanghai}</td>' in first.get("/skills/").content.decode()
    second.post("/preferences/time-zone", {"time_zone": "Asia/Kolkata"})
    page = second.get("/skills/").content.decode()
    assert f'<td class="nowrap small muted">{kolkata}</td>' in page
    assert shanghai not in page
