from django.db import migrations, models

import skills_app.models.catalog


class Migration(migrations.Migration):
    dependencies = [
        ("skills_app", "0018_sync_names_and_audit_labels"),
    ]

    operations = [
        migrations.AddField(
            model_name="consolesettings",
            name="payload_targets",
            field=models.JSONField(
                default=skills_app.models.catalog._default_payload_targets,
                error_messages={"blank": "name at least one provider target, as a list."},
                help_text="The provider APIs the tools payload must be accepted by: openai_chat, openai_responses, anthropic_messages, gemini.",
                verbose_name="provider targets",
            ),
        ),
        migrations.AddField(
            model_name="consolesettings",
            name="payload_budgets",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="Target → the most characters a tools payload may have (absent: the target's default).",
                verbose_name="tools payload budgets",
            ),
        ),
    ]
