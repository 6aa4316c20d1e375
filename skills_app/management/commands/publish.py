"""``python manage.py publish --note TEXT`` — publish the draft as a new release (prints its
number); ``publish --rollback N`` — a new release copying release N (docs/releases.md)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from skills_app.releases.services import COMMAND_LINE, PublishRefused, release_publish, release_rollback


class Command(BaseCommand):
    help = (
        "Publish the draft as a new release and print its number; refusals are listed and the "
        "exit status is non-zero. --rollback N publishes a copy of release N instead."
    )

    def add_arguments(self, parser):
        parser.add_argument("--note", default="", help="what changed and why (required to publish)")
        parser.add_argument("--rollback", type=int, default=None, metavar="N", help="publish a copy of release N")
        parser.add_argument(
            "--label",
            action="append",
            default=[],
            metavar="NAME",
            help="also move this label (e.g. production) to the new release; repeatable",
        )
        parser.add_argument(
            "--override",
            action="append",
            default=[],
            metavar="KEY",
            help="tick off an unmet scenario expectation (its key as listed); needs --override-note",
        )
        parser.add_argument("--override-note", default="", help="why the ticked-off expectations may stay unmet")

    def handle(
        self,
        *args,
        note: str,
        rollback: int | None,
        label: list[str],
        override: list[str],
        override_note: str,
        **options,
    ):
        try:
            if rollback is not None:
                release = release_rollback(user=COMMAND_LINE, number=rollback, note=note)
            else:
                release = release_publish(
                    user=COMMAND_LINE, note=note, overrides=override, override_note=override_note, move_labels=label
                )
        except PublishRefused as exc:
            lines = ["publish refused:"]
            for reason in exc.reasons:
                lines.append(
                    f"  - {reason.message}" + (f"   [override key: {reason.key}]" if reason.overridable else "")
                )
            raise CommandError("\n".join(lines)) from None
        except ValidationError as exc:
            raise CommandError("publish refused: " + "; ".join(exc.messages)) from None
        self.stdout.write(str(release.number))
