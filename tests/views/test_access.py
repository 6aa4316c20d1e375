"""Who may use the console (docs/roles.md): every page of the ``skills`` namespace needs a role —
viewer (reads, runs previews), editor (edits the draft), publisher (publishes) — or a superuser.
Anonymous → the login page (htmx: a client-side redirect, never the login form in a panel);
logged in without a role → 403 with a page that says why; a role too low → 403 naming the role
it takes, and nothing changes. ``TABLE`` holds the exact status of every URL pattern for every
role, GET and POST; a pattern without a row fails the walk, so a new view must be added here."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.apps import apps
from django.db import transaction
from django.urls import reverse
from django.utils import translation

from skills_app import urls as console_urls
from skills_app.catalog import services as catalog_services
from skills_app.mcp import services as mcp_services
from skills_app.models import AccessProfile, RuntimeKey, Skill
from tests.conftest import user_with_role
from tests.views.html import parse

PATTERNS = console_urls.urlpatterns
LOGIN = "/accounts/login/"


@pytest.fixture
def plain_user(db, django_user_model):
    return django_user_model.objects.create_user(username="guest", password="guest-pass-123")


@pytest.fixture
def plain_client(client, plain_user):
    """Logged in, but holding no role."""
    client.force_login(plain_user)
    return client


@pytest.fixture
def samples(bitmall):
    """A value for every URL argument of the console, each naming a real object."""
    deleted = catalog_services.skill_create(
        skill_code="old_skill", name="old", description="old skill", content="body", tool_ids=["query_cart"]
    )
    catalog_services.skill_delete(skill=deleted)
    profile = AccessProfile.objects.order_by("name").first() or catalog_services.access_profile_save(
        name="member_full", tools=["query_cart"]
    )
    from skills_app.releases.services import COMMAND_LINE, release_publish

    release_publish(user=COMMAND_LINE, note="demo")
    mcp_services.mcp_server_save(name="sample-mcp", transport="stdio", command="/nonexistent/mcp-server")
    iot = Skill.objects.get(skill_code="iot_bundle")
    first_revision = iot.history.earliest("history_id").history_id
    catalog_services.skill_update(skill=iot, name="IoT bundle, renamed")
    return {
        "server": "sample-mcp",
        "tool": "query_order",
        "intent": "cancel_order_topic",
        "number": 1,
        "code": "iot_bundle",
        "pk": deleted.pk,
        "history_id": first_revision,
        "kind": "profile",
        "name": {
            "scenario_edit": "cancel-iphone",
            "scenario_result": "cancel-iphone",
            "scenario_result_json": "cancel-iphone",
            "restriction_edit": profile.name,
        },
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
    return [
        (m.__name__, list(m._base_manager.order_by("pk").values()))
        for m in apps.get_app_config("skills_app").get_models()
    ]


# A POST body that would change something on every writing view.
WRITE = {
    "enabled": "0",
    "skill_code": "x_new",
    "name": "x",
    "description": "x",
    "content": "x",
    "tool_ids": ["query_cart"],
    "tools": ["query_cart"],
    "script": "name: x\nsteps: []\n",
}


def test_the_walk_covers_every_console_url(samples):
    names = [p.name for p in PATTERNS]
    assert len(names) == len(set(names)) and len(names) >= 18
    assert all(url_of(p, samples).startswith("/") for p in PATTERNS)


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.name)
def test_a_user_without_a_role_gets_403_on_get_and_post_and_nothing_changes(plain_client, samples, pattern):
    url = url_of(pattern, samples)
    before = snapshot()
    response = plain_client.get(url)
    assert response.status_code == 403, url
    parse(response.content).one("data-not-staff")
    response = plain_client.post(url, WRITE)
    assert response.status_code == 403, url
    response = plain_client.post(
        url, WRITE, headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/skills/"}
    )
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
    if pattern.name in ("skill_preview", "skill_preview_new", "tool_options"):  # the editor keeps the typed text
        assert htmx.status_code == 200 and "HX-Redirect" not in htmx
        parse(htmx.content).one("data-session-expired")
    else:
        assert htmx.status_code == 200 and urlsplit(htmx["HX-Redirect"]).path == LOGIN


# ---- the authorization table ------------------------------------------------------------------
ROLES = ("anonymous", "viewer", "editor", "publisher")
LOGIN_REDIRECT = (302, 302)
#: Reading pages: every role reads; a POST is refused below editor and not allowed (405) above.
PAGE = {"anonymous": LOGIN_REDIRECT, "viewer": (200, 403), "editor": (200, 405), "publisher": (200, 405)}
#: A POST-only write of the draft: GET is refused below editor, then 405.
DRAFT_ACTION = {"anonymous": LOGIN_REDIRECT, "viewer": (403, 403), "editor": (405, 302), "publisher": (405, 302)}
#: A form page of the draft (GET shows the form, POST saves: 302).
DRAFT_FORM = {"anonymous": LOGIN_REDIRECT, "viewer": (403, 403), "editor": (200, 302), "publisher": (200, 302)}
#: The same, where ``WRITE`` is not a valid body: the form comes back with its errors (200).
DRAFT_FORM_REFUSED = {"anonymous": LOGIN_REDIRECT, "viewer": (403, 403), "editor": (200, 200), "publisher": (200, 200)}
#: MCP server records: superusers only (a stdio command runs on the host, docs/roles.md).
ADMIN_FORM = {"anonymous": LOGIN_REDIRECT, "viewer": (403, 403), "editor": (403, 403), "publisher": (403, 403)}
#: A POST-only write of releases and labels.
RELEASE_ACTION = {"anonymous": LOGIN_REDIRECT, "viewer": (403, 403), "editor": (403, 403), "publisher": (405, 302)}

#: URL name → role → (GET status, POST status with ``WRITE``). Every pattern has a row.
TABLE = {
    "home": PAGE,
    "skill_list": PAGE,
    "skill_create": DRAFT_FORM,
    "skill_preview_new": {
        "anonymous": LOGIN_REDIRECT,
        "viewer": (403, 403),
        "editor": (405, 200),
        "publisher": (405, 200),
    },
    "skill_restore": DRAFT_ACTION,
    "skill_detail": PAGE,
    "skill_edit": DRAFT_FORM_REFUSED,
    "skill_preview": {"anonymous": LOGIN_REDIRECT, "viewer": (403, 403), "editor": (405, 200), "publisher": (405, 200)},
    "skill_set_enabled": DRAFT_ACTION,
    "skill_delete": DRAFT_ACTION,
    "skill_history": PAGE,
    "skill_revert": DRAFT_ACTION,
    "preview": {"anonymous": LOGIN_REDIRECT, "viewer": (200, 200), "editor": (200, 200), "publisher": (200, 200)},
    "preview_payload": PAGE,
    # the preview's JSON download: POST only, any role (WRITE's script has no round: a JSON 400)
    "preview_result_json": {
        "anonymous": LOGIN_REDIRECT,
        "viewer": (405, 400),
        "editor": (405, 400),
        "publisher": (405, 400),
    },
    "scenario_list": PAGE,
    "scenario_create": DRAFT_FORM_REFUSED,
    "scenario_from_preview": {
        "anonymous": LOGIN_REDIRECT,
        "viewer": (403, 403),
        "editor": (405, 200),
        "publisher": (405, 200),
    },
    "scenario_edit": DRAFT_FORM_REFUSED,
    "scenario_result": PAGE,
    "scenario_result_json": PAGE,
    "restriction_list": PAGE,
    "restriction_create": DRAFT_FORM,
    "restriction_edit": DRAFT_FORM,
    "tool_tree": PAGE,
    # the tool pickers' search (htmx, read-only): an HTML fragment for every role
    "tool_options": PAGE,
    "release_list": PAGE,
    "release_diff": PAGE,
    "label_move": RELEASE_ACTION,
    "release_detail": PAGE,
    "release_rollback": RELEASE_ACTION,
    # viewers and editors read the review; only a publisher publishes (no note: 400 naming it)
    "publish": {"anonymous": LOGIN_REDIRECT, "viewer": (200, 403), "editor": (200, 403), "publisher": (200, 400)},
    # runtime API keys are the publisher's alone, even to look at (a created key: 200, shown once)
    "api_keys": {"anonymous": LOGIN_REDIRECT, "viewer": (403, 403), "editor": (403, 403), "publisher": (200, 200)},
    "audit": PAGE,
    "insights": PAGE,
    "fleet": PAGE,
    # import: viewers see the page (the export box); checking or importing files takes an editor
    "skill_import": {"anonymous": LOGIN_REDIRECT, "viewer": (200, 403), "editor": (200, 200), "publisher": (200, 200)},
    "skill_export": {"anonymous": LOGIN_REDIRECT, "viewer": (200, 403), "editor": (200, 200), "publisher": (200, 200)},
    "mcp_server_list": PAGE,
    "mcp_server_create": ADMIN_FORM,
    "mcp_server_edit": ADMIN_FORM,
    "mcp_server_sync": DRAFT_ACTION,
    "mcp_sync_history": PAGE,
    # a tool's definition is read by all; a test call to its server (POST) takes an editor
    "mcp_tool_detail": {
        "anonymous": LOGIN_REDIRECT,
        "viewer": (200, 403),
        "editor": (200, 200),
        "publisher": (200, 200),
    },
    "node_create": DRAFT_FORM_REFUSED,
    "node_edit": DRAFT_FORM_REFUSED,
    "node_delete": DRAFT_ACTION,
    # one's own time zone (kept in the session): any role; a POST saves and goes back (302)
    "time_zone": {"anonymous": LOGIN_REDIRECT, "viewer": (200, 302), "editor": (200, 302), "publisher": (200, 302)},
}


def test_the_table_has_a_row_for_every_url_pattern_and_every_role():
    names = [p.name for p in PATTERNS]
    missing = [n for n in names if n not in TABLE]
    assert missing == [], f"add a row to TABLE for: {', '.join(missing)}"
    assert sorted(TABLE) == sorted(names), "TABLE names a URL pattern that no longer exists"
    assert all(set(row) == set(ROLES) for row in TABLE.values())


def _client_as(client, django_user_model, role: str):
    if role != "anonymous":
        client.force_login(user_with_role(django_user_model, f"as_{role}", role))
    return client


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.name)
def test_authorization_table(client, django_user_model, samples, pattern):
    """Each role on a fresh copy of the same data (a savepoint rolled back after each role)."""
    url = url_of(pattern, samples)
    assert pattern.name in TABLE, f"{pattern.name}: no row in TABLE"
    users = {role: user_with_role(django_user_model, f"as_{role}", role) for role in ROLES if role != "anonymous"}
    got_table = {}
    for role in ROLES:
        with transaction.atomic():
            client.logout()
            if role != "anonymous":
                client.force_login(users[role])
            before = snapshot()
            got = client.get(url)
            assert snapshot() == before, (url, role, "a GET changed something")
            posted = client.post(url, WRITE)
            got_table[role] = (got.status_code, posted.status_code)
            if posted.status_code in (403, 405) or role == "anonymous":
                assert snapshot() == before, (url, role, "a refused POST changed something")
            for response in (got, posted):
                if response.status_code == 403:
                    needed = parse(response.content).one("data-needed-role")
                    assert needed["data-current-role"] == role
                    assert needed["data-needed-role"] in ("editor", "publisher", "administrator")
            transaction.set_rollback(True)
    assert got_table == TABLE[pattern.name], url


def test_superusers_pass_every_check(client, django_user_model, samples):
    root = django_user_model.objects.create_user(username="root", password="x-pass-123", is_superuser=True)
    client.force_login(root)
    for pattern in PATTERNS:
        url = url_of(pattern, samples)
        expected = 200 if TABLE[pattern.name] is ADMIN_FORM else TABLE[pattern.name]["publisher"][0]
        assert client.get(url).status_code == expected, url


def test_staff_status_alone_gives_no_role(client, django_user_model, samples):
    staff = django_user_model.objects.create_user(username="s", password="x-pass-123", is_staff=True)
    client.force_login(staff)
    assert client.get("/skills/").status_code == 403


def test_a_viewer_write_through_htmx_is_a_403_that_redirects_the_page(client, django_user_model, samples):
    c = _client_as(client, django_user_model, "viewer")
    before = snapshot()
    response = c.post(
        "/skills/iot_bundle/enabled",
        {"enabled": "0"},
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/skills/"},
    )
    assert response.status_code == 403 and response["HX-Redirect"] == "/skills/"
    assert snapshot() == before


def test_a_json_client_gets_a_json_403_naming_the_roles(client, django_user_model, samples):
    c = _client_as(client, django_user_model, "editor")
    response = c.post("/api-keys/", {"name": "k"}, headers={"Accept": "application/json"})
    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    assert response.json() == {
        "detail": "此操作需要“发布者”角色；你的角色是“编辑者”。没有做任何更改。",
        "needed_role": "publisher",
        "current_role": "editor",
        "needed_role_name": "发布者",
        "current_role_name": "编辑者",
    }
    assert not RuntimeKey.objects.exists()


def test_the_403_page_names_the_role_it_takes_in_both_languages(client, django_user_model, samples):
    c = _client_as(client, django_user_model, "viewer")
    text = " ".join(parse(c.get("/skills/new").content).one("data-needed-role").text().split())
    assert text == "此操作需要“编辑者”角色；你的角色是“查看者”。没有做任何更改。"
    c.post("/i18n/setlang/", {"language": "en", "next": "/"})
    text = " ".join(parse(c.get("/skills/new").content).one("data-needed-role").text().split())
    assert text == "This needs the editor role; your role is viewer. Nothing was changed."


def test_plain_user_cannot_delete_a_skill(plain_client, bitmall):
    response = plain_client.post("/skills/iot_bundle/delete")
    assert response.status_code == 403
    skill = Skill.objects.get(skill_code="iot_bundle")
    assert (skill.deleted_at, skill.version) == (None, 1)


def test_the_403_page_says_why_in_chinese_and_in_english(plain_client, bitmall):
    doc = parse(plain_client.get("/skills/").content)
    text = doc.one("data-not-staff").text()
    assert "guest" in text and "没有任何角色" in text and "管理员" in text
    assert doc.select("data-nav") == []  # no links to pages that would refuse too
    assert doc.one("data-user").text() == "guest"
    plain_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    text = parse(plain_client.get("/skills/").content).one("data-not-staff").text()
    assert "has no role" in " ".join(text.split()) and "Ask an administrator" in text


def test_the_403_page_offers_another_account(plain_client, bitmall):
    doc = parse(plain_client.get("/skills/iot_bundle/edit").content)
    form = doc.one("data-switch-account").parent
    nxt = next(i["value"] for i in form.by_tag("input") if i.get("name") == "next")
    response = plain_client.post(form["action"], {"next": nxt})
    assert response.status_code == 302 and response["Location"] == f"{LOGIN}?next=/skills/iot_bundle/edit"


# ---- expired sessions -----------------------------------------------------------------------
def test_htmx_run_after_the_session_expired_redirects_the_page_to_login(client, bitmall):
    response = client.post(
        "/preview/",
        {"scenario": "cancel-iphone"},
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/preview/?scenario=cancel-iphone"},
    )
    assert response.status_code == 200 and response.content == b""
    target = urlsplit(response["HX-Redirect"])
    assert target.path == LOGIN
    assert parse_qs(target.query) == {"next": ["/preview/?scenario=cancel-iphone"], "expired": ["1"]}
    doc = parse(client.get(response["HX-Redirect"]).content)
    assert doc.one("data-session-expired").text().strip() == "会话已过期，请重新登录后继续。"


def test_htmx_current_url_of_another_site_is_not_used(client, bitmall):
    response = client.post(
        "/preview/",
        {"scenario": "cancel-iphone"},
        headers={"HX-Request": "true", "HX-Current-URL": "https://evil.example/phish"},
    )
    assert parse_qs(urlsplit(response["HX-Redirect"]).query)["next"] == ["/preview/"]


def test_live_preview_after_the_session_expired_keeps_the_text_in_the_editor(client, bitmall):
    response = client.post(
        "/skills/order_change/preview",
        {"content": "typed"},
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/skills/order_change/edit"},
    )
    assert response.status_code == 200 and "HX-Redirect" not in response
    panel = parse(response.content).one("data-session-expired")
    assert "会话已过期" in panel.text() and "复制" in panel.text()
    link = urlsplit(panel.one("data-login-link")["href"])
    assert link.path == LOGIN and parse_qs(link.query)["next"] == ["/skills/order_change/edit"]


def test_saving_the_editor_after_the_session_expired_says_the_edit_was_not_saved(client, staff_user, bitmall):
    response = client.post(
        "/skills/order_change/edit",
        {"name": "changed", "content": "lost text"},
        headers={"Referer": "http://testserver/skills/order_change/edit"},
    )
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path == LOGIN
    assert parse_qs(location.query) == {"next": ["/skills/order_change/edit"], "expired": ["unsaved"]}
    assert Skill.objects.get(skill_code="order_change").version == 1
    doc = parse(client.get(response["Location"]).content)
    note = doc.one("data-session-expired", "unsaved")
    assert note["role"] == "alert" and "没有保存" in note.text()
    login_form = next(f for f in doc.by_tag("form") if f.get("action") == LOGIN)
    assert (
        next(i["value"] for i in login_form.by_tag("input") if i.get("name") == "next") == "/skills/order_change/edit"
    )
    with translation.override("en"):
        client.cookies["django_language"] = "en"
        text = parse(client.get(response["Location"]).content).one("data-session-expired", "unsaved").text()
    assert "session expired" in text and "not saved" in text
    # Logging in goes back to the editor.
    back = client.post(
        response["Location"], {"username": "ops", "password": "ops-pass-123", "next": "/skills/order_change/edit"}
    )
    assert back.status_code == 302 and back["Location"] == "/skills/order_change/edit"


def test_an_action_after_the_session_expired_comes_back_to_the_page_it_was_on(client, bitmall):
    response = client.post("/skills/iot_bundle/delete", headers={"Referer": "http://testserver/skills/?q=iot"})
    assert parse_qs(urlsplit(response["Location"]).query)["next"] == ["/skills/?q=iot"]
    assert Skill.objects.get(skill_code="iot_bundle").deleted_at is None


def test_a_plain_visit_to_the_login_page_says_nothing_about_sessions(client, db):
    assert parse(client.get(f"{LOGIN}?next=/skills/iot_bundle/edit").content).select("data-session-expired") == []


# ---- the "n" shortcut lands in the first field --------------------------------------------
@pytest.mark.parametrize(
    ("url", "first"), [("/skills/new", "skill_code"), ("/scenarios/new", "name"), ("/restrictions/profile/new", "name")]
)
def test_create_forms_ask_for_focus_on_their_first_field(staff_client, bitmall, url, first):
    form = parse(staff_client.get(url).content).one("data-autofocus", tag="form")
    fields = [n for n in form.iter() if n.tag in ("input", "textarea", "select") and n.get("type") != "hidden"]
    assert fields[0]["name"] == first


def test_edit_forms_do_not_steal_the_focus(staff_client, bitmall):
    assert parse(staff_client.get("/skills/order_change/edit").content).select("data-autofocus") == []
    assert parse(staff_client.get("/scenarios/cancel-iphone/edit").content).select("data-autofocus") == []


def test_no_password_reset_by_mail_is_offered(client, db):
    """Found by a break-in: /accounts/password_reset/ said a mail was sent, with no mail backend.
    Only log in and log out are served (docs/deploy.md "Accounts")."""
    for path in ("/accounts/password_reset/", "/accounts/password_reset/done/", "/accounts/password_change/"):
        assert client.get(path).status_code == 404, path
    assert client.get("/accounts/login/").status_code == 200
    assert "password_reset" not in client.get("/accounts/login/").content.decode()
