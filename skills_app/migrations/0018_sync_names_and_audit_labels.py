import re

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """Issue 29: a sync record names the listed tools whose model-facing name is a live skill's code;
    the audited fields shown without a translated label get one (deleted at, created at, parent node); a label name refused states the rule."""

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
        migrations.AlterField(
            model_name="releaselabel",
            name="name",
            field=models.CharField(
                max_length=64,
                unique=True,
                validators=[
                    django.core.validators.RegexValidator(
                        re.compile("\\A[a-z](?:[a-z0-9]|[_-](?=[a-z0-9]))*\\Z"),
                        code="label_name_pattern",
                        message="label '%(value)s' must start with a lowercase letter and use only lowercase letters, digits and single '_' or '-' separators (like a skill code).",
                    )
                ],
                verbose_name="label",
            ),
        ),
    ]
