"""Roles of the console (docs/roles.md): three Django groups holding Django permissions.

- **viewer** — every ``view_*`` permission of the app: reads every page, runs previews;
- **editor** — viewer + add/change/delete of the draft's records (skills, intent nodes, MCP
  tools, scenarios, access profiles, stages, settings);
- **publisher** — editor + ``skills_app.publish_release`` and the release, label and API-key
  records: publishes, rolls back, moves labels, manages runtime API keys.

Superusers hold every permission (Django's ``has_perm``), so they can do everything. One thing
only they can do: create or change an MCP server record (``ADMINISTRATOR``, ``can_administer``):
a stdio server's command runs on the console's host and a streamable-HTTP URL is fetched from it,
so registering one is running a program there — no group role grants it. Views ask
``can_view`` / ``can_edit`` / ``can_publish`` (the permission each role is marked by), never a
group name, so a permission granted to a user directly counts too.

The groups are made by migration ``0009_roles`` and topped up after every ``migrate`` by a
``post_migrate`` handler (``apps.SkillsAppConfig.ready``), so a permission added later (a new
model's ``view_*``) lands in the roles without another data migration. Topping up only adds: a
permission an administrator added to a group by hand stays.
"""

from __future__ import annotations

from typing import Any

VIEWER, EDITOR, PUBLISHER = "viewer", "editor", "publisher"
#: Roles from least to most; each holds every permission of the ones before it.
ROLES: tuple[str, ...] = (VIEWER, EDITOR, PUBLISHER)
#: Not a group: what only a superuser may do (``can_administer``).
ADMINISTRATOR = "administrator"

#: The permission that marks each role (what ``can_*`` asks).
VIEW_PERMISSION = "skills_app.view_skill"
EDIT_PERMISSION = "skills_app.change_skill"
PUBLISH_PERMISSION = "skills_app.publish_release"

#: Models of the draft an editor adds, changes and deletes.
DRAFT_MODELS = ("skill", "intentnode", "mcptool", "scenario", "accessprofile", "stage", "consolesettings")
#: Models only a publisher writes.
RELEASE_MODELS = ("release", "releaselabel", "labelmove", "runtimekey")
WRITE_ACTIONS = ("add", "change", "delete")


def role_codenames(role: str, view_codenames: list[str]) -> set[str]:
    """Codenames (app ``skills_app``) the group ``role`` holds. ``view_codenames``: every
    ``view_*`` codename the app has (historical models included), read from the database."""
    names = set(view_codenames)
    if role in (EDITOR, PUBLISHER):
        names |= {f"{action}_{model}" for model in DRAFT_MODELS for action in WRITE_ACTIONS}
    if role == PUBLISHER:
        names |= {f"{action}_{model}" for model in RELEASE_MODELS for action in WRITE_ACTIONS}
        names.add("publish_release")
    return names


def ensure_roles(apps: Any = None, *, create_missing_permissions: bool = False) -> dict[str, int]:
    """Create the three groups if missing and add every permission they lack (idempotent; never
    removes one). ``apps``: a migration's app registry (default: the live one). With
    ``create_missing_permissions`` the app's permissions are created first (a data migration runs
    before Django's ``post_migrate`` creates them). Returns role → number of permissions it holds."""
    if apps is None:
        from django.apps import apps as live_apps

        apps = live_apps
    if create_missing_permissions:
        from django.contrib.auth.management import create_permissions

        config = apps.get_app_config("skills_app")
        before = getattr(config, "models_module", None)
        config.models_module = before or True  # a migration's app stub has none; Django skips those
        try:
            create_permissions(config, apps=apps, verbosity=0)
        finally:
            config.models_module = before
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    app_perms = Permission.objects.filter(content_type__app_label="skills_app")
    by_codename = {p.codename: p for p in app_perms}
    views = sorted(c for c in by_codename if c.startswith("view_"))
    out = {}
    for role in ROLES:
        group, _created = Group.objects.get_or_create(name=role)
        wanted = [by_codename[c] for c in sorted(role_codenames(role, views)) if c in by_codename]
        group.permissions.add(*wanted)
        out[role] = group.permissions.filter(content_type__app_label="skills_app").count()
    return out


def post_migrate_ensure_roles(sender: Any, **kwargs: Any) -> None:
    """``post_migrate`` handler: keeps the roles in place once the app's permissions exist."""
    if getattr(sender, "name", None) != "skills_app":
        return
    ensure_roles(kwargs.get("apps"))


def _active(user: Any) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False) and getattr(user, "is_active", True))


def can_view(user: Any) -> bool:
    """May read every page and run previews: any role (or a superuser)."""
    return _active(user) and bool(
        user.has_perm(VIEW_PERMISSION) or user.has_perm(EDIT_PERMISSION) or user.has_perm(PUBLISH_PERMISSION)
    )


def can_edit(user: Any) -> bool:
    """May change the draft (skills, scenarios, profiles, stages, intent tree): editor or publisher."""
    return _active(user) and bool(user.has_perm(EDIT_PERMISSION))


def can_publish(user: Any) -> bool:
    """May publish, roll back, move labels and manage runtime API keys: publisher (or superuser)."""
    return _active(user) and bool(user.has_perm(PUBLISH_PERMISSION))


def can_administer(user: Any) -> bool:
    """May create and change MCP server records (their command, arguments, environment, URL and
    headers): a superuser only — whatever a stdio command says runs on the console's host
    (docs/roles.md, docs/mcp.md)."""
    return _active(user) and bool(getattr(user, "is_superuser", False))


CHECKS = {VIEWER: can_view, EDITOR: can_edit, PUBLISHER: can_publish, ADMINISTRATOR: can_administer}


def allows(user: Any, role: str) -> bool:
    """True when ``user`` may do what ``role`` (``VIEWER`` / ``EDITOR`` / ``PUBLISHER`` /
    ``ADMINISTRATOR``) may."""
    return CHECKS[role](user)


def role_of(user: Any) -> str | None:
    """The highest role ``user`` acts as, or ``None``: ``ADMINISTRATOR`` for a superuser (who may
    do what a publisher may and, alone, register MCP servers — the role the MCP pages and their
    403 name), else the highest group role whose permission the user holds."""
    if can_administer(user):
        return ADMINISTRATOR
    for role in reversed(ROLES):
        if allows(user, role):
            return role
    return None


def assign(user: Any, role: str) -> None:
    """Put ``user`` in the group ``role`` (only that one of the three). Raises ``KeyError`` for
    an unknown role name."""
    from django.contrib.auth.models import Group

    if role not in ROLES:
        raise KeyError(f"unknown role '{role}'; roles: {', '.join(ROLES)}")
    ensure_roles()
    user.groups.remove(*Group.objects.filter(name__in=ROLES).exclude(name=role))
    user.groups.add(Group.objects.get(name=role))
    for cache in ("_perm_cache", "_user_perm_cache", "_group_perm_cache"):
        user.__dict__.pop(cache, None)


def context_processor(request: Any) -> dict[str, Any]:
    """``console_can.view / .edit / .publish / .administer`` and ``console_role`` for every
    template, so pages hide the controls a user may not use."""
    user = getattr(request, "user", None)
    return {
        "console_can": {
            "view": can_view(user),
            "edit": can_edit(user),
            "publish": can_publish(user),
            "administer": can_administer(user),
        },
        "console_role": role_of(user),
    }
