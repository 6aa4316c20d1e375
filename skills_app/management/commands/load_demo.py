"""``python manage.py load_demo [NAME] [--replace]`` — load a demo catalog idempotently."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from skills_app.demo_catalogs import DEFAULT_DEMO, DemoError, demo_load, demo_names


class Command(BaseCommand):
    help = "Load a demo catalog (default: bitmall). Idempotent: existing records are left as they are."

    def add_arguments(self, parser):
        parser.add_argument("name", nargs="?", default=DEFAULT_DEMO, help=f"one of: {', '.join(demo_names())}")
        parser.add_argument("--replace", action="store_true",
                            help="switch catalogs: soft-delete live skills and drop the current tree first")

    def handle(self, *args, name: str, replace: bool, **options):
        try:
            summary = demo_load(name=name, replace=replace)
        except DemoError as exc:
            raise CommandError(str(exc)) from None
        except ValidationError as exc:
            raise CommandError(f"demo '{name}': {'; '.join(exc.messages)}") from None
        verb = "switched to" if summary.replaced else "loaded"
        self.stdout.write(
            f"{verb} demo catalog '{summary.name}': {summary.nodes} intent nodes, {summary.tools} MCP tools, "
            f"{summary.skills} skills, {summary.profiles} access profiles, {summary.stages} stages, "
            f"scenarios: {', '.join(summary.scenarios) or 'none'}"
        )
