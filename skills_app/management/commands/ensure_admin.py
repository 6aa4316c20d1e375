"""``python manage.py ensure_admin`` — make sure a staff login exists and print it."""
from __future__ import annotations

import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = "Create the local admin login if missing (password from SKILL_CONSOLE_ADMIN_PASSWORD, default 'admin') and print it with its API token."

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
        token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(f"runtime API token: {token.key}")
