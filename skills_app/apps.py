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
        token after every committed write it is built from (``skills_app/catalog/draft_cache.py``); and keep the
        task worker's schedule as the settings say."""
        from skills_app.catalog import draft_cache
        from skills_app.core.roles import post_migrate_ensure_roles

        draft_cache.connect()

        post_migrate.connect(post_migrate_ensure_roles, dispatch_uid="skills_app.ensure_roles")
        # the task worker's schedule follows SKILL_CONSOLE_MCP_RESYNC_MINUTES (skills_app/mcp/tasks.py)
        from skills_app.mcp.tasks import schedules_ensure

        post_migrate.connect(schedules_ensure, sender=self, dispatch_uid="skills_app.schedules_ensure")
        self._connect_runtime_cache()

    def _connect_runtime_cache(self) -> None:
        """Writes of releases and labels make the cached runtime lookups obsolete; writes of runtime
        keys refresh the key hashes held for a database outage (skills_app/runtime/cache.py)."""
        from django.db.models.signals import post_delete, post_save

        from skills_app.models import Release, ReleaseLabel, RuntimeKey
        from skills_app.runtime import cache as runtime_cache

        for model in (Release, ReleaseLabel):
            for signal in (post_save, post_delete):
                signal.connect(
                    runtime_cache.releases_changed,
                    sender=model,
                    dispatch_uid=f"runtime_cache.{model.__name__}.{signal is post_save}",
                )
        for signal in (post_save, post_delete):
            signal.connect(
                runtime_cache.keys_changed,
                sender=RuntimeKey,
                dispatch_uid=f"runtime_cache.RuntimeKey.{signal is post_save}",
            )
