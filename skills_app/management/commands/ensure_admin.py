"""``python manage.py ensure_admin`` — make sure a staff login exists and print it, and make the
first runtime API key (printed once: only its hash is stored)."""
from __future__ import annotations

import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from skills_app.models import RuntimeKey
from skills_app.releases import COMMAND_LINE, api_key_create

#: The key ``make run`` creates for a local agent runtime.
LOCAL_KEY_NAME = "local-runtime"


class Command(BaseCommand):
    help = "Create the local admin login if missing (password from SKILL_CONSOLE_ADMIN_PASSWORD, default 'admin') and print it; create the first runtime API key (shown once)."

    def add_arguments(self, parser):
        parser.add_argument("--username", default=os.environ.get("SKILL_CONSOLE_ADMIN_USER", "admin"))

    def handle(self, *args, username: str, **options):
        User = get_user_model()
        password = os.environ.get("SKILL_CONSOLE_ADMIN_PASSWORD", "admin")
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User.objects.create_superuser(username=username, email="", password=password)
            self.stdout.write(f"admin login created: user '{username}', password '{password}'")
        else:
            self.stdout.write(
                f"admin login: user '{username}' (exists; password as first set — "
                f"'{password}' unless it was changed since)"
            )
        if RuntimeKey.objects.filter(name=LOCAL_KEY_NAME).exists():
            self.stdout.write(f"runtime API key '{LOCAL_KEY_NAME}' exists (shown only when it was created; "
                              "make another: manage.py api_key create NAME)")
        else:
            made = api_key_create(user=COMMAND_LINE, name=LOCAL_KEY_NAME)
            self.stdout.write(f"runtime API key '{LOCAL_KEY_NAME}' (shown once, keep it): {made.key}")
            self.stdout.write(f"  try: curl -H 'Authorization: Bearer {made.key}' http://127.0.0.1:8000/api/v1/runtime/catalog")
