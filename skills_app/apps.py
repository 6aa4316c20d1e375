from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SkillsAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "skills_app"
    verbose_name = _("Skill Console")
