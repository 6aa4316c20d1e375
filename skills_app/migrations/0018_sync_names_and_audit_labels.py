import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """Issue 29: a sync record names the listed tools whose model-facing name is a live skill's code;
    the audited fields shown without a translated label get one (deleted at, created at, parent node)."""

    dependencies = [
        ("skills_app", "0017_sync_running_deadline"),
    ]

    operations = [
        migrations.AddField(
            model_name="mcpsyncrecord",
            name="named_like_skills",
            field=models.JSONField(blank=True, default=list, verbose_name="named like a skill"),
        ),
        migrations.AlterField(
            model_name="historicalintentnode",
            name="deleted_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="deleted at"),
        ),
        migrations.AlterField(
            model_name="historicalintentnode",
            name="parent",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="skills_app.intentnode",
                verbose_name="parent node",
            ),
        ),
        migrations.AlterField(
            model_name="historicalskill",
            name="created_at",
            field=models.DateTimeField(blank=True, editable=False, verbose_name="created at"),
        ),
        migrations.AlterField(
            model_name="historicalskill",
            name="deleted_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="deleted at"),
        ),
        migrations.AlterField(
            model_name="intentnode",
            name="deleted_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="deleted at"),
        ),
        migrations.AlterField(
            model_name="intentnode",
            name="parent",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="children",
                to="skills_app.intentnode",
                verbose_name="parent node",
            ),
        ),
        migrations.AlterField(
            model_name="skill",
            name="created_at",
            field=models.DateTimeField(auto_now_add=True, verbose_name="created at"),
        ),
        migrations.AlterField(
            model_name="skill",
            name="deleted_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="deleted at"),
        ),
    ]
