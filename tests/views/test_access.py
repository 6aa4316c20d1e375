"""Who may use the console: every page of the ``skills`` namespace is for staff only (is_staff or
superuser). Anonymous → the login page (htmx: a client-side redirect, never the login form in a
panel); logged in without staff → 403 with a page that says why. The walk below covers every URL
pattern, so a new view without the guard fails here."""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.apps import apps
from django.urls import reverse
from django.utils import translation

from skills_app import services
from skills_app import urls as console_urls
from skills_app.models import AccessProfile, Skill

from .html import parse

PATTERNS = console_urls.urlpatterns
LOGIN = "/accounts/login/"


@pytest.fixture
def plain_user(db, django_user_model):
    return django_user_model.objects.create_user(username="guest", password="guest-pass-123")


@pytest.fixture
def plain_client(client, plain_user):
    """Logged in, but not staff."""
    client.force_login(plain_user)
    return client


@pytest.fixture
def samples(bitmall):
    """A value for every URL argument of the console, each naming a real object."""
    deleted = services.skill_create(skill_code="old_skill", name="old", description="old skill", content="body",
                                    tool_ids=["query_cart"])
    services.skill_delete(skill=deleted)
    profile = AccessProfile.objects.order_by("name").first() or services.access_profile_save(
        name="member_full", tools=["query_cart"])
    from skills_app.releases import COMMAND_LINE, release_publish

    release_publish(user=COMMAND_LINE, note="demo")
    services.mcp_server_save(name="sample-mcp", transport="stdio", command="/nonexistent/mcp-server")
    return {
        "server": "sample-mcp",
        "tool": "query_order",
        "intent": "cancel_order_topic",
        "number": 1,
        "code": "iot_bundle",
        "pk": deleted.pk,
        "kind": "profile",
        "name": {"scenario_edit": "cancel-iphone", "restriction_edit": profile.name},
    }


def url_of(pattern, samples) -> str:
    kwargs = {}
    for key in pattern.pattern.converters:
        assert key in samples, f"{pattern.name}: no sample value for <{key}>; add one to the samples fixture"
        value = samples[key]
        kwargs[key] = value[pattern.name] if isinstance(value, dict) else value
    return reverse(f"skills:{pattern.name}", kwargs=kwargs)


def snapshot() -> list:
    """Every row of every skills_app table (soft-deleted skills included)."""
    return [(m.__name__, list(m._base_manager.order_by("pk").values()))
            for m in apps.get_app_config("skills_app").get_models()]


# A POST body that would change something on every writing view.
WRITE = {"enabled": "0", "skill_code": "x_new", "name": "x", "description": "x", "content": "x",
         "tool_ids": ["query_cart"], "tools": ["query_cart"], "script": "name: x\nsteps: []\n"}


def test_the_walk_covers_every_console_url(samples):
    names = [p.name for p in PATTERNS]
    assert len(names) == len(set(names)) and len(names) >= 18
    assert all(url_of(p, samples).startswith("/") for p in PATTERNS)


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.name)
def test_a_user_without_staff_gets_403_on_get_and_post_and_nothing_changes(plain_client, samples, pattern):
    url = url_of(pattern, samples)
    before = snapshot()
    response = plain_client.get(url)
    assert response.status_code == 403, url
    parse(response.content).one("data-not-staff")
    response = plain_client.post(url, WRITE)
    assert response.status_code == 403, url
    response = plain_client.post(url, WRITE, headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/skills/"})
    assert response.status_code == 403 and response["HX-Redirect"] == "/skills/", url
    assert snapshot() == before


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.name)
def test_anonymous_is_sent_to_the_login_page(client, samples, pattern):
    url = url_of(pattern, samples)
    response = client.get(url)
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path == LOGIN and parse_qs(location.query)["next"] == [url]
    htmx = client.post(url, WRITE, headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/skills/"})
    if pattern.name in ("skill_preview", "skill_preview_new"):  # the editor keeps the typed text
        assert htmx.status_code == 200 and "HX-Redirect" not in htmx
        parse(htmx.content).one("data-session-expired")
    else:
        assert htmx.status_code == 200 and urlsplit(htmx["HX-Redirect"]).path == LOGIN


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.name)
def test_staff_and_superusers_get_in(client, django_user_model, samples, pattern):
    url = url_of(pattern, samples)
    staff = django_user_model.objects.create_user(username="s", password="x-pass-123", is_staff=True)
    root = django_user_model.objects.create_user(username="root", password="x-pass-123", is_superuser=True)
    for user in (staff, root):
        client.force_login(user)
        assert client.get(url).status_code in (200, 405), (url, user)  # 405: a POST-only action


def test_plain_user_cannot_delete_a_skill(plain_client, bitmall):
    response = plain_client.post("/skills/iot_bundle/delete")
    assert response.status_code == 403
    skill = Skill.objects.get(skill_code="iot_bundle")
    assert (skill.deleted_at, skill.version) == (None, 1)


def test_the_403_page_says_why_in_chinese_and_in_english(plain_client, bitmall):
    doc = parse(plain_client.get("/skills/").content)
    text = doc.one("data-not-staff").text()
    assert "guest" in text and "工作人员" in text and "管理员" in text
    assert doc.select("data-nav") == []  # no links to pages that would refuse too
    assert doc.one("data-user").text() == "guest"
    plain_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    text = parse(plain_client.get("/skills/").content).one("data-not-staff").text()
    assert "is not staff" in " ".join(text.split()) and "Ask an administrator" in text


def test_the_403_page_offers_another_account(plain_client, bitmall):
    doc = parse(plain_client.get("/skills/iot_bundle/edit").content)
    form = doc.one("data-switch-account").parent
    nxt = next(i["value"] for i in form.by_tag("input") if i.get("name") == "next")
    response = plain_client.post(form["action"], {"next": nxt})
    assert response.status_code == 302 and response["Location"] == f"{LOGIN}?next=/skills/iot_bundle/edit"


# ---- expired sessions -----------------------------------------------------------------------
def test_htmx_run_after_the_session_expired_redirects_the_page_to_login(client, bitmall):
    response = client.post("/preview/", {"scenario": "cancel-iphone"}, headers={
        "HX-Request": "true", "HX-Current-URL": "http://testserver/preview/?scenario=cancel-iphone"})
    assert response.status_code == 200 and response.content == b""
    target = urlsplit(response["HX-Redirect"])
    assert target.path == LOGIN
    assert parse_qs(target.query) == {"next": ["/preview/?scenario=cancel-iphone"], "expired": ["1"]}
    doc = parse(client.get(response["HX-Redirect"]).content)
    assert doc.one("data-session-expired").text().strip() == "会话已过期，请重新登录后继续。"


def test_htmx_current_url_of_another_site_is_not_used(client, bitmall):
    response = client.post("/preview/", {"scenario": "cancel-iphone"}, headers={
        "HX-Request": "true", "HX-Current-URL": "https://evil.example/phish"})
    assert parse_qs(urlsplit(response["HX-Redirect"]).query)["next"] == ["/preview/"]


def test_live_preview_after_the_session_expired_keeps_the_text_in_the_editor(client, bitmall):
    response = client.post("/skills/order_change/preview", {"content": "typed"}, headers={
        "HX-Request": "true", "HX-Current-URL": "http://testserver/skills/order_change/edit"})
    assert response.status_code == 200 and "HX-Redirect" not in response
    panel = parse(response.content).one("data-session-expired")
    assert "会话已过期" in panel.text() and "复制" in panel.text()
    link = urlsplit(panel.one("data-login-link")["href"])
    assert link.path == LOGIN and parse_qs(link.query)["next"] == ["/skills/order_change/edit"]


def test_saving_the_editor_after_the_session_expired_says_the_edit_was_not_saved(client, staff_user, bitmall):
    response = client.post("/skills/order_change/edit", {"name": "changed", "content": "lost text"},
                           headers={"Referer": "http://testserver/skills/order_change/edit"})
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path == LOGIN
    assert parse_qs(location.query) == {"next": ["/skills/order_change/edit"], "expired": ["unsaved"]}
    assert Skill.objects.get(skill_code="order_change").version == 1
    doc = parse(client.get(response["Location"]).content)
    note = doc.one("data-session-expired", "unsaved")
    assert note["role"] == "alert" and "没有保存" in note.text()
    login_form = next(f for f in doc.by_tag("form") if f.get("action") == LOGIN)
    assert next(i["value"] for i in login_form.by_tag("input") if i.get("name") == "next") == "/skills/order_change/edit"
    with translation.override("en"):
        client.cookies["django_language"] = "en"
        text = parse(client.get(response["Location"]).content).one("data-session-expired", "unsaved").text()
    assert "session expired" in text and "not saved" in text
    # Logging in goes back to the editor.
    back = client.post(response["Location"], {"username": "ops", "password": "ops-pass-123",
                                              "next": "/skills/order_change/edit"})
    assert back.status_code == 302 and back["Location"] == "/skills/order_change/edit"


def test_an_action_after_the_session_expired_comes_back_to_the_page_it_was_on(client, bitmall):
    response = client.post("/skills/iot_bundle/delete", headers={"Referer": "http://testserver/skills/?q=iot"})
    assert parse_qs(urlsplit(response["Location"]).query)["next"] == ["/skills/?q=iot"]
    assert Skill.objects.get(skill_code="iot_bundle").deleted_at is None


def test_a_plain_visit_to_the_login_page_says_nothing_about_sessions(client, db):
    assert parse(client.get(f"{LOGIN}?next=/skills/iot_bundle/edit").content).select("data-session-expired") == []


# ---- the "n" shortcut lands in the first field --------------------------------------------
@pytest.mark.parametrize(("url", "first"), [("/skills/new", "skill_code"), ("/scenarios/new", "name"),
                                            ("/restrictions/profile/new", "name")])
def test_create_forms_ask_for_focus_on_their_first_field(staff_client, bitmall, url, first):
    form = parse(staff_client.get(url).content).one("data-autofocus", tag="form")
    fields = [n for n in form.iter() if n.tag in ("input", "textarea", "select") and n.get("type") != "hidden"]
    assert fields[0]["name"] == first


def test_edit_forms_do_not_steal_the_focus(staff_client, bitmall):
    assert parse(staff_client.get("/skills/order_change/edit").content).select("data-autofocus") == []
    assert parse(staff_client.get("/scenarios/cancel-iphone/edit").content).select("data-autofocus") == []
