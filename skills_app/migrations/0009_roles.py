"""The three roles (viewer, editor, publisher) as Django groups, and a first historical record of
every row that existed before history was kept (docs/roles.md)."""

from django.db import migrations
from django.utils import timezone

TRACKED = ("Skill", "IntentNode", "McpTool", "Scenario", "AccessProfile", "Stage")


def create_roles(apps, schema_editor):
    from skills_app.core.roles import ensure_roles

    ensure_roles(apps, create_missing_permissions=True)


def history_baseline(apps, schema_editor):
    """One ``~`` record per existing row ("history started"), so every record has a revision to
    diff and restore from."""
    now = timezone.now()
    for name in TRACKED:
        model = apps.get_model("skills_app", name)
        historical = apps.get_model("skills_app", f"Historical{name}")
        fields = [f.attname for f in model._meta.concrete_fields]
        rows = []
        for obj in model._base_manager.all().iterator():
            if historical.objects.filter(id=obj.pk).exists():
                continue
            rows.append(
                historical(
                    **{f: getattr(obj, f) for f in fields},
                    history_date=now,
                    history_type="~",
                    history_change_reason="history started",
                )
            )
        historical.objects.bulk_create(rows)


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("skills_app", "0008_history"),
    ]

    operations = [
        migrations.RunPython(create_roles, migrations.RunPython.noop),
        migrations.RunPython(history_baseline, migrations.RunPython.noop),
    ]
