"""``Release.catalog_json``: the runtime catalog body stored with each release (docs/runtime-api.md,
"Caching"), filled here for the releases published before it existed."""

from django.db import migrations, models


def fill_catalog_json(apps, schema_editor):
    """Render every stored release's body with the same plain-Python function the publish uses
    (``skill_rule.runtime_catalog``; no model code). A snapshot that cannot be read stays ``None``
    and is answered as before (``runtime_cache`` fills it on first read)."""
    from skill_rule.runtime_catalog import catalog_body_json
    from skill_rule.snapshot import SnapshotError, catalog_from_snapshot

    Release = apps.get_model("skills_app", "Release")
    for pk, number, snapshot in (
        Release.objects.filter(catalog_json__isnull=True).values_list("pk", "number", "snapshot").iterator()
    ):
        try:
            body = catalog_body_json(catalog_from_snapshot(snapshot, release=number))
        except (SnapshotError, TypeError, ValueError, KeyError):
            continue
        Release.objects.filter(pk=pk).update(catalog_json=body)


class Migration(migrations.Migration):
    dependencies = [
        ("skills_app", "0012_console_settings_draft_token"),
    ]

    operations = [
        migrations.AddField(
            model_name="release",
            name="catalog_json",
            field=models.TextField(blank=True, editable=False, null=True, verbose_name="catalog JSON"),
        ),
        migrations.RunPython(fill_catalog_json, migrations.RunPython.noop),
    ]
