"""``python manage.py api_key create NAME [--drafts]`` (shows the key once), ``api_key revoke
NAME``, ``api_key list`` — runtime API keys (docs/releases.md)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from skills_app.keys.selectors import api_key_list
from skills_app.keys.services import api_key_create, api_key_revoke
from skills_app.releases.services import COMMAND_LINE


class Command(BaseCommand):
    help = "Create, revoke or list the API keys agent runtimes send as 'Authorization: Bearer <key>'."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a key and print it (shown once; only its hash is kept)")
        create.add_argument("name")
        create.add_argument("--drafts", action="store_true", help="the key may also read the draft (?draft=1)")
        revoke = sub.add_parser("revoke", help="revoke every usable key with this name (cannot be undone)")
        revoke.add_argument("name")
        sub.add_parser("list", help="list keys with their last-used time")

    def handle(self, *args, action: str, **options):
        try:
            if action == "create":
                made = api_key_create(user=COMMAND_LINE, name=options["name"], read_drafts=options["drafts"])
                self.stdout.write(
                    f"runtime API key '{made.record.name}'"
                    f"{' (may read drafts)' if made.record.read_drafts else ''}: {made.key}"
                )
                self.stdout.write("shown once: only its hash is stored. Send it as 'Authorization: Bearer <key>'.")
            elif action == "revoke":
                count = api_key_revoke(user=COMMAND_LINE, name=options["name"])
                self.stdout.write(f"revoked {count} key(s) named '{options['name']}'")
            else:
                keys = api_key_list()
                if not keys:
                    self.stdout.write("no runtime API keys (create one: manage.py api_key create NAME)")
                for k in keys:
                    used = timezone.localtime(k.last_used_at).strftime("%Y-%m-%d %H:%M") if k.last_used_at else "never"
                    state = "revoked" if k.revoked else "usable"
                    self.stdout.write(
                        f"{k.name}\t{k.prefix}…\t{state}\tdrafts: {'yes' if k.read_drafts else 'no'}\tlast used: {used}"
                    )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
