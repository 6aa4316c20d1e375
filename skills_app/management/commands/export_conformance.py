"""``python manage.py export_conformance [PATH] [--check]`` — write the conformance corpus
(docs/runtime-api.md, "Conformance corpus"; default ``conformance/corpus.json``) from the rule's
test tables (``tests/conformance_cases.py``), or with ``--check`` say whether the file is current.

The demo catalogs are loaded and published in a throwaway database (in memory on SQLite; Django's
test database elsewhere) with a cache of its own, so the console's own database and cache are
never touched and the file depends on nothing but the code and the tables: no dates, no ids.
Run it from the repository root (the tables live in ``tests/``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from skill_client.conformance import CORPUS_PATH, CorpusError, corpus_diff, corpus_text

#: The cache the throwaway database is read through (never a shared Redis holding another database's lookups).
PRIVATE_CACHE = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "export-conformance"}
}


def generate() -> dict:
    """The corpus, built in a throwaway database that is dropped afterwards."""
    from django.db import connection, transaction
    from django.test.utils import override_settings

    from skills_app.runtime import cache as runtime_cache

    try:
        from tests.conformance_cases import build_corpus
    except ImportError as exc:
        raise CommandError(
            f"the rule's test tables cannot be imported ({exc}); run the command from the "
            "repository root with the dev dependencies installed"
        ) from None
    settings = connection.settings_dict
    own_name = settings["NAME"]
    test = settings.setdefault("TEST", {})
    kept = test.get("NAME")
    # a name of its own: never the test database a test run (or another export) is using
    test["NAME"] = ":memory:" if settings["ENGINE"].endswith("sqlite3") else f"{own_name}_conformance_{os.getpid()}"
    with override_settings(CACHES=PRIVATE_CACHE):
        runtime_cache.clear_process_cache()
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        try:
            with transaction.atomic():  # the draft is built afresh inside a transaction (draft_cache)
                corpus = build_corpus()
                transaction.set_rollback(True)
        except CorpusError as exc:
            raise CommandError(f"{exc} — nothing written; the table's own tests say more") from None
        finally:
            connection.creation.destroy_test_db(own_name, verbosity=0)
            test["NAME"] = kept
            runtime_cache.clear_process_cache()
    return corpus


class Command(BaseCommand):
    help = (
        "Write the conformance corpus (the rule's cases as JSON for other runtimes) to PATH "
        f"(default {CORPUS_PATH}); --check only compares and exits 1 when the file is stale."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", default=str(CORPUS_PATH), help=f"default {CORPUS_PATH}")
        parser.add_argument(
            "--check",
            action="store_true",
            help="write nothing; exit 1 with a summary of the differences when PATH is not current",
        )

    def handle(self, *args, path: str, check: bool, **options):
        target = Path(path)
        corpus = generate()
        text = corpus_text(corpus)
        if check:
            try:
                old_text = target.read_text(encoding="utf-8")
            except FileNotFoundError:
                old_text = None
            if old_text == text:
                self.stdout.write(f"{target}: current ({len(corpus['cases'])} cases)")
                return
            try:
                old = json.loads(old_text) if old_text is not None else None
            except json.JSONDecodeError as exc:
                lines = [f"not JSON ({exc})"]
            else:
                lines = corpus_diff(old, corpus) or ["the text differs (layout or key order)"]
            self.stderr.write(f"{target} is stale; run `python manage.py export_conformance {path}`:")
            for line in lines:
                self.stderr.write(f"  {line}")
            raise SystemExit(1)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        self.stdout.write(f"wrote {target}: {len(corpus['catalogs'])} catalogs, {len(corpus['cases'])} cases")
