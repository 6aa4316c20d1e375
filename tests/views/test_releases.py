"""Release pages (docs/releases.md): list, detail, diff, publish with the gate, rollback, labels
and runtime API keys — through the real services, asserting what the HTML says."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from skills_app.catalog import services
from skills_app.models import LabelMove, Release, RuntimeKey, Skill
from skills_app.releases.services import COMMAND_LINE, label_move, release_publish
from tests.views.html import parse

SCENARIO_KEY_R1 = "scenario:cancel-iphone:round 1: expected 11 tools, got 12"


@pytest.fixture
def published(bitmall):
    return release_publish(user=COMMAND_LINE, note="demo")


def _publish_page(client, **post):
    response = client.post("/publish/", post) if post else client.get("/publish/")
    return response, parse(response.content)


def test_publish_page_on_an_empty_history_publishes_release_1(staff_client, bitmall):
    response, doc = _publish_page(staff_client)
    assert response.status_code == 200
    assert doc.one("data-gate-open") is not None
    assert [(r["data-round"], r["data-count"], r["data-changed"]) for r in doc.select("data-round")] == [
        ("1", "11", "1"),
        ("2", "13", "1"),
        ("3", "13", "1"),
    ]
    response = staff_client.post("/publish/", {"note": "first"})
    assert response.status_code == 302 and response["Location"] == "/releases/1/"
    release = Release.objects.get(number=1)
    assert (release.note, release.author_name) == ("first", "ops")


def test_nothing_changed_is_refused_with_the_reason(staff_client, published):
    response, doc = _publish_page(staff_client, note="again")
    assert response.status_code == 400
    assert [r.text().strip() for r in doc.select("data-reason")] == ["自发布 1 以来没有任何变化"]
    assert Release.objects.count() == 1


def test_unmet_expectation_blocks_until_ticked_off_with_a_reason(staff_client, published):
    services.skill_update(skill=Skill.objects.get(skill_code="order_change"), tool_ids=["cancel_order"])
    response, doc = _publish_page(staff_client)
    assert doc.one("data-unmet")["data-unmet"] == "2"
    assert [r["data-changed"] for r in doc.select("data-round")] == ["1", "0", "0"]
    assert [i["value"] for i in doc.select("name", tag="input") if i["name"] == "override"] == [
        SCENARIO_KEY_R1,
        "scenario:cancel-iphone:round 1: masked: missing change_address",
    ]
    keys = [i["value"] for i in doc.select("name", tag="input") if i["name"] == "override"]
    response, doc = _publish_page(staff_client, note="only cancel", override=keys)
    assert response.status_code == 400
    assert [e.text().strip() for e in doc.select("data-error")] == [
        "write why the ticked-off expectations may stay unmet."
    ]
    response, doc = _publish_page(staff_client, note="only cancel", override=keys[:1], override_note="new policy")
    assert response.status_code == 400 and Release.objects.count() == 1
    response = staff_client.post("/publish/", {"note": "only cancel", "override": keys, "override_note": "new policy"})
    assert response.status_code == 302
    release = Release.objects.get(number=2)
    assert (release.overrides, release.override_note) == (sorted(keys), "new policy")


def test_list_detail_diff_labels_and_rollback(staff_client, published):
    services.skill_update(skill=Skill.objects.get(skill_code="fault_diagnosis"), content="# 故障排查\n\n新步骤。")
    release_publish(user=COMMAND_LINE, note="manual edit")
    response = staff_client.post("/releases/labels", {"label": "production", "release": "2"})
    assert response.status_code == 302
    doc = parse(staff_client.get("/releases/").content)
    assert [r["data-release"] for r in doc.select("data-release", tag="tr")] == ["2", "1"]
    assert doc.one("data-release", "2").one("data-label")["data-label"] == "production"
    [row] = doc.select("data-move")
    assert row.text().replace(" ", "").startswith("production—#2ops")
    move = LabelMove.objects.get()
    assert (move.label, move.from_release, move.to_release.number, move.moved_by_name) == ("production", None, 2, "ops")

    diff = parse(staff_client.get("/releases/diff", {"from": 1, "to": 2}).content)
    changed = diff.one("data-skill-changed", "fault_diagnosis")
    assert [f["data-field"] for f in changed.select("data-field")] == ["version"]
    assert "+新步骤。" in changed.one("data-manual-diff").text()

    detail = parse(staff_client.get("/releases/1/").content)
    assert detail.one("data-sha256").text().strip() == Release.objects.get(number=1).sha256
    response = staff_client.post("/releases/1/rollback", {"note": ""})
    assert response["Location"] == "/releases/3/"
    three = Release.objects.get(number=3)
    assert (three.rollback_of, three.note, three.labels.get().name) == (1, "rollback to release 1", "production")


def test_api_keys_page_shows_the_key_once_and_revokes(staff_client, bitmall):
    response = staff_client.post("/api-keys/", {"name": "ragent", "read_drafts": "1"})
    doc = parse(response.content)
    key = doc.one("data-key").text().strip()
    record = RuntimeKey.objects.get(name="ragent")
    assert record.read_drafts and key.startswith(record.prefix + ".") and key not in record.hashed_key
    assert response["Cache-Control"] == "no-store"
    listing = staff_client.get("/api-keys/")
    assert key not in listing.content.decode()
    assert parse(listing.content).one("data-key-row", "ragent")["data-revoked"] == "0"
    again = parse(staff_client.post("/api-keys/", {"name": "ragent"}).content)
    assert [e.text().strip() for e in again.select("data-error")] == [
        "名为“ragent”的密钥已存在；请先吊销它，或换一个名称。"
    ]
    blank = parse(staff_client.post("/api-keys/", {"name": " "}).content)
    assert [e.text().strip() for e in blank.select("data-error")] == ["密钥需要一个名称。"]
    staff_client.cookies["django_language"] = "en"
    english = parse(staff_client.post("/api-keys/", {"revoke": "ghost"}).content)
    assert [e.text().strip() for e in english.select("data-error")] == ["no usable key named 'ghost'."]
    staff_client.cookies["django_language"] = "zh-hans"
    staff_client.post("/api-keys/", {"revoke": "ragent"})
    assert RuntimeKey.objects.get(name="ragent").revoked


@pytest.mark.parametrize("url", ["/releases/", "/releases/1/", "/releases/diff?from=1&to=1", "/publish/", "/api-keys/"])
def test_pages_answer_in_english_too(staff_client, published, url):
    response = staff_client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200


def test_label_with_a_bad_name_is_refused(staff_client, published):
    response = staff_client.post("/releases/labels", {"label": "Prod!", "release": "1"}, follow=True)
    assert "Prod!" in response.content.decode()
    assert not LabelMove.objects.exists()
    with pytest.raises(ValidationError, match="release 9 does not exist"):
        label_move(user=COMMAND_LINE, label="x", number=9)


def test_the_release_page_shows_what_a_runtime_checks_it_by(staff_client, api_client, published):
    """Issue 29, item 9: the snapshot sha256, the ETag and the body's own sha256, each named, equal
    to what ``GET runtime/catalog`` answers for the release (two different hashes by design)."""
    services.skill_update(skill=Skill.objects.get(skill_code="iot_bundle"), name="IoT bundle")
    release_publish(user=COMMAND_LINE, note="second")
    served = api_client.get("/api/v1/runtime/catalog", {"release": 2})
    assert served.status_code == 200
    etag, body_sha256 = served["ETag"], served.json()["sha256"]
    assert etag.strip('"') != body_sha256
    doc = parse(staff_client.get("/releases/2/").content)
    assert doc.one("data-snapshot-sha256").text() == Release.objects.get(number=2).sha256 == etag.strip('"')
    assert doc.one("data-etag").text() == f"ETag: {etag}"
    assert doc.one("data-body-sha256").text() == body_sha256
    assert [dt.text() for dt in doc.by_tag("dt")][:3] == ["快照 sha256", "运行时看到的 ETag", "目录正文 sha256"]
