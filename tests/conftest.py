"""Shared fixtures: the demo catalogs loaded through the real services, and logged-in clients."""
from __future__ import annotations

import pytest

from skills_app.demo_catalogs import demo_load


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    """PBKDF2 costs ~0.3 s per user; tests are not about password hashing."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _private_var_dir(settings, tmp_path):
    """Backups and other files written under VAR_DIR go to the test's own folder."""
    settings.VAR_DIR = tmp_path / "var"


@pytest.fixture
def bitmall(db):
    """The bitmall demo catalog (seed 000) in the test database."""
    return demo_load(name="bitmall")


@pytest.fixture
def returns(db):
    """The returns demo catalog (seed 004) in the test database."""
    return demo_load(name="returns")


def user_with_role(django_user_model, username: str, role: str, password: str | None = None):
    """A user in the group ``role`` (viewer / editor / publisher, docs/roles.md)."""
    from skills_app.roles import assign

    user = django_user_model.objects.create_user(username=username, password=password or f"{username}-pass-123")
    assign(user, role)
    return user


@pytest.fixture
def staff_user(db, django_user_model):
    """A console user with the publisher role (may do everything but the Django admin)."""
    return user_with_role(django_user_model, "ops", "publisher", "ops-pass-123")


@pytest.fixture
def staff_client(client, staff_user):
    """A Django test client logged in as a publisher."""
    client.force_login(staff_user)
    return client


@pytest.fixture
def runtime_key(db):
    """A runtime API key (``releases.api_key_create``): ``.key`` is the secret, ``.record`` the row."""
    from skills_app.releases import COMMAND_LINE, api_key_create

    return api_key_create(user=COMMAND_LINE, name="test-runtime")


@pytest.fixture
def api_client(runtime_key):
    """A DRF client sending a runtime API key (``Authorization: Bearer <key>``)."""
    from rest_framework.test import APIClient

    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Bearer {runtime_key.key}")
    return c
