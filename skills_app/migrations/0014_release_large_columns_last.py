"""``Release.snapshot`` and ``Release.catalog_json`` moved to the end of the row.

SQLite stores a row's columns in table order, and a value past a page's room goes to a chain of
overflow pages: to read a column stored after a 1.3 MB snapshot (``note``, ``created_at``, the
author …) it walks that chain. Every row of the release list, the label list and the publish
review read so did — a millisecond or more per release shown, growing with the catalog
(docs/benchmarks.md). Django adds a field at the end of its table, so each large column is added
again under a new name, filled from the old one in one ``UPDATE``, the old one dropped and the new
one renamed: same names, same values, the small columns first; undone the same way back. (PostgreSQL keeps large values out
of line anyway; there this only rewrites the columns.) A field added to ``Release`` later lands
after these two again."""

from django.db import migrations, models
from django.db.models import F


def copy_to_the_end(apps, schema_editor):
    Release = apps.get_model("skills_app", "Release")
    Release.objects.update(snapshot_last=F("snapshot"), catalog_json_last=F("catalog_json"))


def copy_back(apps, schema_editor):
    Release = apps.get_model("skills_app", "Release")
    Release.objects.update(snapshot=F("snapshot_last"), catalog_json=F("catalog_json_last"))


class Migration(migrations.Migration):
    dependencies = [
        ("skills_app", "0013_release_catalog_json"),
    ]

    operations = [
        migrations.AddField(
            model_name="release",
            name="snapshot_last",
            field=models.JSONField(null=True, verbose_name="snapshot"),
        ),
        migrations.AddField(
            model_name="release",
            name="catalog_json_last",
            field=models.TextField(blank=True, editable=False, null=True, verbose_name="catalog JSON"),
        ),
        # nullable while both copies exist, so that undoing the RemoveField below re-adds a column
        # the rows can hold before copy_back fills it (and undoing this restores NOT NULL after)
        migrations.AlterField(
            model_name="release",
            name="snapshot",
            field=models.JSONField(null=True, verbose_name="snapshot"),
        ),
        migrations.RunPython(copy_to_the_end, copy_back),
        migrations.RemoveField(model_name="release", name="snapshot"),
        migrations.RemoveField(model_name="release", name="catalog_json"),
        migrations.RenameField(model_name="release", old_name="snapshot_last", new_name="snapshot"),
        migrations.RenameField(model_name="release", old_name="catalog_json_last", new_name="catalog_json"),
        migrations.AlterField(
            model_name="release",
            name="snapshot",
            field=models.JSONField(verbose_name="snapshot"),
        ),
    ]
