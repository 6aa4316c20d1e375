"""Publishing in a real browser (docs/releases.md): publish from the console, see the release in
the list, move ``production`` to it, open the diff between two releases; screenshots of the
publish and releases pages in /tmp/shots."""

from __future__ import annotations

import pytest

from skills_app.catalog import services
from skills_app.models import Release, ReleaseLabel, Skill
from skills_app.releases.services import COMMAND_LINE, release_publish
from tests.browser.conftest import SHOTS, login

pytestmark = pytest.mark.browser


def test_publish_list_label_and_diff(page, console):
    release_publish(user=COMMAND_LINE, note="demo catalog 'bitmall'")
    skill = Skill.objects.get(skill_code="fault_diagnosis")
    services.skill_update(skill=skill, content=skill.content + "\n\n## 新增\n先确认设备型号。")
    login(page, console)

    page.keyboard.press("g")
    page.keyboard.press("e")
    page.wait_for_url(f"{console}/releases/")
    page.click("[data-shortcut-new]")
    page.wait_for_url(f"{console}/publish/")
    assert page.locator("[data-gate-open]").is_visible()
    assert page.locator("[data-skill-changed='fault_diagnosis'] [data-manual-diff] .d-add").first.inner_text() == "+"
    page.screenshot(path=str(SHOTS / "publish.png"), full_page=True)

    page.fill("#id_note", "故障排查手册补充型号确认")
    page.press("#id_note", "Control+Enter")
    page.wait_for_url(f"{console}/releases/2/")
    assert Release.objects.get(number=2).note == "故障排查手册补充型号确认"

    page.goto(f"{console}/releases/")
    assert page.locator("tr[data-release]").evaluate_all("rows => rows.map(r => r.dataset.release)") == ["2", "1"]
    page.fill("[data-label-form] input[name=label]", "production")
    page.select_option("[data-label-form] select[name=release]", "2")
    page.click("[data-label-form] button[type=submit]")
    page.wait_for_url(f"{console}/releases/")
    assert page.locator("tr[data-release='2'] [data-label='production']").is_visible()
    assert ReleaseLabel.objects.get(name="production").release.number == 2
    assert page.locator("tr[data-move='production']").count() == 1
    page.screenshot(path=str(SHOTS / "releases.png"), full_page=True)

    page.select_option("[data-diff-form] select[name=from]", "1")
    page.select_option("[data-diff-form] select[name=to]", "2")
    page.click("[data-diff-form] button[type=submit]")
    page.wait_for_url(f"{console}/releases/diff?from=1&to=2")
    assert page.locator("[data-skill-changed='fault_diagnosis'] [data-field='version']").is_visible()
    page.screenshot(path=str(SHOTS / "release-diff.png"), full_page=True)


def test_create_a_runtime_key_shown_once(page, console):
    login(page, console)
    page.goto(f"{console}/api-keys/")
    page.fill("[data-key-form] input[name=name]", "ragent-prod")
    page.press("[data-key-form] input[name=name]", "Enter")
    page.wait_for_selector("[data-created-key]")
    key = page.inner_text("[data-key]").strip()
    assert key.count(".") == 1 and len(key) > 30
    page.screenshot(path=str(SHOTS / "api-keys.png"), full_page=True)
    page.goto(f"{console}/api-keys/")
    assert key not in page.content()
    assert page.locator("[data-key-row='ragent-prod'][data-revoked='0']").count() == 1


def test_the_release_page_shows_the_hashes_the_runtime_api_serves(page, console):
    """Issue 29, item 9: what the page names "snapshot sha256", "ETag" and "catalog body sha256"
    is exactly what a runtime gets from the live server's ``GET /api/v1/runtime/catalog``."""
    import json
    import urllib.request

    from skills_app.keys.services import api_key_create

    release_publish(user=COMMAND_LINE, note="demo catalog 'bitmall'")
    key = api_key_create(user=COMMAND_LINE, name="checker").key
    request = urllib.request.Request(f"{console}/api/v1/runtime/catalog", headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        etag, body = answer.headers["ETag"], json.loads(answer.read())
    login(page, console)
    page.goto(f"{console}/releases/1/")
    assert page.locator("[data-snapshot-sha256]").inner_text() == etag.strip('"') == Release.objects.get().sha256
    assert page.locator("[data-etag]").inner_text() == f"ETag: {etag}"
    assert page.locator("[data-body-sha256]").inner_text() == body["sha256"] != etag.strip('"')
    assert page.locator("dl.meta dt").all_inner_texts()[:3] == ["快照 sha256", "运行时看到的 ETag", "目录正文 sha256"]
    page.screenshot(path=str(SHOTS / "release-hashes.png"), full_page=True)
