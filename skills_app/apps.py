from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class SkillsAppConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "skills_app"
    verbose_name = _("Skill Console")

    def ready(self) -> None:
        """Keep the roles (viewer, editor, publisher) holding every permission they should, also
        permissions added after their migration (docs/roles.md); and renew the draft catalog's
        token after every committed write it is built from (``skills_app/draft_cache.py``)."""
        from . import draft_cache
        from .roles import post_migrate_ensure_roles

        draft_cache.connect()

        post_migrate.connect(post_migrate_ensure_roles, dispatch_uid="skills_app.ensure_roles")
