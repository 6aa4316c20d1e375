"""``python manage.py ensure_admin`` — make sure a staff login exists and print it, and make the
first runtime API key (printed once: only its hash is stored).

There is no fixed password: the first run generates one and keeps it in ``var/admin_password``
(mode ``0600``), so ``make run`` can print it every time; ``SKILL_CONSOLE_ADMIN_PASSWORD`` sets the
password instead (it is then neither stored nor printed). An existing login is never changed
(reset it with ``manage.py changepassword``). docs/deploy.md.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from skills_app.core.private import write_private
from skills_app.keys.services import api_key_create
from skills_app.models import RuntimeKey
from skills_app.releases.services import COMMAND_LINE

#: The key ``make run`` creates for a local agent runtime.
LOCAL_KEY_NAME = "local-runtime"
#: Where the generated admin password is kept (under ``settings.VAR_DIR``).
PASSWORD_FILE = "admin_password"
ENV_PASSWORD = "SKILL_CONSOLE_ADMIN_PASSWORD"


def password_file() -> Path:
    """``var/admin_password``: the generated password (``0600``)."""
    return Path(settings.VAR_DIR) / PASSWORD_FILE


def generated_password() -> str:
    """The password kept in ``var/admin_password``, generating it (URL-safe, 128 bits) the first
    time; two processes at once keep the first one's."""
    path = password_file()
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        pass
    password = secrets.token_urlsafe(16)
    try:
        write_private(path, password + "\n", exclusive=True)
    except FileExistsError:
        return path.read_text(encoding="utf-8").strip()
    return password


class Command(BaseCommand):
    help = (
        "Create the admin login if missing — password from SKILL_CONSOLE_ADMIN_PASSWORD, else generated "
        "once and kept in var/admin_password (0600) — and print it; create the first runtime API key "
        "(shown once)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--username", default=os.environ.get("SKILL_CONSOLE_ADMIN_USER", "admin"))
        parser.add_argument(
            "--url",
            default="http://127.0.0.1:8000",
            help="where the console is served, for the printed curl example (make run passes it)",
        )

    def handle(self, *args, username: str, **options):
        User = get_user_model()
        from_env = os.environ.get(ENV_PASSWORD) or None
        user = User.objects.filter(username=username).first()
        if from_env:
            shown = f"the value of {ENV_PASSWORD}"
        else:
            shown = f"'{generated_password()}' (kept in {password_file()})"
        if user is None:
            user = User.objects.create_superuser(username=username, email="", password=from_env or generated_password())
            self.stdout.write(f"admin login created: user '{username}', password {shown}")
        else:
            self.stdout.write(
                f"admin login: user '{username}' (exists; password as first set — {shown} "
                "unless it was changed since; reset: manage.py changepassword "
                f"{username})"
            )
        if RuntimeKey.objects.filter(name=LOCAL_KEY_NAME).exists():
            self.stdout.write(
                f"runtime API key '{LOCAL_KEY_NAME}' exists (shown only when it was created; "
                "make another: manage.py api_key create NAME)"
            )
        else:
            made = api_key_create(user=COMMAND_LINE, name=LOCAL_KEY_NAME)
            self.stdout.write(f"runtime API key '{LOCAL_KEY_NAME}' (shown once, keep it): {made.key}")
            self.stdout.write(
                f"  try: curl -H 'Authorization: Bearer {made.key}' {options['url'].rstrip('/')}/api/v1/runtime/catalog"
            )
