# The skill catalog's placement (issue 23, item 3): a setting carried in every release.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("skills_app", "0019_payload_targets"),
    ]

    operations = [
        migrations.AddField(
            model_name="consolesettings",
            name="catalog_placement",
            field=models.CharField(
                choices=[
                    ("tool_description", "in load_skill's description (one line per skill)"),
                    ("system_prompt", "in the system prompt (catalog_text); load_skill keeps the header"),
                ],
                default="tool_description",
                help_text="Where the model reads the list of skills. Use the system prompt when the catalog is too "
                "long for one tool description of the model's provider; the runtime then puts catalog_text in its "
                "system prompt.",
                max_length=32,
                verbose_name="skill catalog placement",
            ),
        ),
    ]
