from django.db import migrations, models


class Migration(migrations.Migration):
    """A sync record names the listed tools whose model-facing name is a live skill's code (issue 29)."""

    dependencies = [
        ("skills_app", "0017_sync_running_deadline"),
    ]

    operations = [
        migrations.AddField(
            model_name="mcpsyncrecord",
            name="named_like_skills",
            field=models.JSONField(blank=True, default=list, verbose_name="named like a skill"),
        ),
    ]
