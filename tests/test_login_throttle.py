"""Login throttling with django-axes (docs/deploy.md, "Security defaults"): after
``AXES_FAILURE_LIMIT`` failed logins for one username from one address, that pair is locked out —
even the right password is refused with a 429 page that says so in the user's language — while
another address, or another username, still logs in. A success resets the count. (Every other
test runs with django-axes off, ``tests/conftest.py``.)"""

from __future__ import annotations

import pytest
from django.test import Client

from tests.views.html import parse

LOGIN = "/accounts/login/"
PASSWORD = "right-pass-123"


@pytest.fixture
def throttled(settings, db, django_user_model):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 3
    django_user_model.objects.create_user(username="ops", password=PASSWORD, is_staff=True)
    django_user_model.objects.create_user(username="other", password=PASSWORD, is_staff=True)


def _login(client: Client, username: str, password: str, addr: str = "10.0.0.1", lang: str = "en"):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=addr, HTTP_ACCEPT_LANGUAGE=lang)


def test_three_failures_lock_the_username_at_that_address_out(throttled):
    client = Client()
    for _ in range(2):
        response = _login(client, "ops", "wrong")
        assert response.status_code == 200 and b"didn't match" in response.content
    locked = _login(client, "ops", "wrong")
    assert locked.status_code == 429
    page = parse(locked.content)
    page.one("data-locked-out")
    assert "Too many failed logins" in page.text()
    assert "locked out from your address after 3 failed logins. Try again in 15 minutes." in page.text()
    # Even the right password is refused now, and the user stays logged out.
    assert _login(client, "ops", PASSWORD).status_code == 429
    assert client.get("/skills/").status_code == 302
    chinese = _login(client, "ops", PASSWORD, lang="zh-hans")
    assert chinese.status_code == 429 and "登录失败次数过多" in parse(chinese.content).text()
    # Another username, or the same one from another address, is not locked.
    assert _login(Client(), "other", PASSWORD).status_code == 302
    assert _login(Client(), "ops", PASSWORD, addr="10.0.0.2").status_code == 302


def test_a_success_resets_the_count(throttled):
    client = Client()
    for _ in range(2):
        assert _login(client, "ops", "wrong").status_code == 200
    assert _login(client, "ops", PASSWORD).status_code == 302
    client.post("/accounts/logout/")
    for _ in range(2):
        assert _login(client, "ops", "wrong").status_code == 200
    assert _login(client, "ops", PASSWORD).status_code == 302


def test_the_admin_login_is_throttled_too(throttled):
    client = Client()
    for _ in range(3):
        _login_admin = client.post("/admin/login/", {"username": "ops", "password": "wrong"}, REMOTE_ADDR="10.0.0.9")
    assert _login_admin.status_code == 429
