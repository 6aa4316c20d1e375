"""The models and the committed migrations agree (a missing migration fails here, not in CI's migrate)."""

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exc:  # makemigrations --check exits 1 when a migration is missing
        pytest.fail(f"models changed without a migration:\n{out.getvalue()} (exit {exc.code})")
    assert "No changes detected" in out.getvalue()


def test_roles_migration_makes_the_groups_and_a_first_revision_of_existing_rows(transactional_db):
    """0009_roles on a database that already holds a skill (written before history was kept)."""
    from django.contrib.auth.models import Group
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("skills_app", "0008_history")])
    old = executor.loader.project_state([("skills_app", "0008_history")]).apps
    old.get_model("skills_app", "Skill").objects.create(
        skill_code="legacy", name="旧技能", description="d", content="# 旧", version=4
    )
    Group.objects.filter(name__in=["viewer", "editor", "publisher"]).delete()
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    from skills_app.models import Skill

    (record,) = Skill.objects.get(skill_code="legacy").history.all()
    assert (record.history_type, record.history_change_reason, record.version, record.content) == (
        "~",
        "history started",
        4,
        "# 旧",
    )
    assert sorted(Group.objects.values_list("name", flat=True)) == ["editor", "publisher", "viewer"]


def test_release_catalog_json_migration_fills_the_releases_published_before_it(transactional_db):
    """0013_release_catalog_json renders the stored body of every older release with the function
    the publish uses (packages/skill-rule/src/skill_rule/runtime_catalog.py)."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from skill_rule.runtime_catalog import catalog_body_json
    from skill_rule.snapshot import body_sha256, catalog_from_snapshot, catalog_to_snapshot
    from skills_app.catalog.demo import demo_load
    from skills_app.catalog.selectors import catalog_draft

    demo_load(name="bitmall")
    snapshot = catalog_to_snapshot(catalog_draft())
    executor = MigrationExecutor(connection)
    executor.migrate([("skills_app", "0012_console_settings_draft_token")])
    old = executor.loader.project_state([("skills_app", "0012_console_settings_draft_token")]).apps
    old.get_model("skills_app", "Release").objects.create(
        number=1, snapshot=snapshot, sha256=body_sha256(snapshot), note="before catalog_json"
    )
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    from skills_app.models import Release

    assert Release.objects.get(number=1).catalog_json == catalog_body_json(catalog_from_snapshot(snapshot, release=1))


def test_the_release_migration_keeps_every_value_and_puts_the_large_columns_last(transactional_db):
    """0014 moves ``snapshot`` and ``catalog_json`` to the end of the release table with their values."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("skills_app", "0013_release_catalog_json")])
    old = executor.loader.project_state([("skills_app", "0013_release_catalog_json")]).apps
    Release = old.get_model("skills_app", "Release")
    Release.objects.create(
        number=1,
        snapshot={"skills": [{"code": "a_b"}], "format": 1},
        sha256="a" * 64,
        catalog_json='{"release":1}',
        note="first",
        overrides=["x"],
        override_note="why",
    )
    Release.objects.create(number=2, snapshot={"skills": []}, sha256="b" * 64, catalog_json=None, note="second")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    from skills_app.models import Release as Now

    assert list(
        Now.objects.order_by("number").values_list(
            "number", "snapshot", "sha256", "catalog_json", "note", "overrides", "override_note"
        )
    ) == [
        (1, {"skills": [{"code": "a_b"}], "format": 1}, "a" * 64, '{"release":1}', "first", ["x"], "why"),
        (2, {"skills": []}, "b" * 64, None, "second", [], ""),
    ]
    with connection.cursor() as cursor:
        columns = [c.name for c in connection.introspection.get_table_description(cursor, Now._meta.db_table)]
    assert sorted(columns[-2:]) == ["catalog_json", "snapshot"]
    assert columns.index("note") < columns.index("catalog_json")

    # undone with the releases in place, then done again: every value kept both ways
    executor = MigrationExecutor(connection)
    executor.migrate([("skills_app", "0013_release_catalog_json")])
    before = executor.loader.project_state([("skills_app", "0013_release_catalog_json")]).apps
    assert list(
        before.get_model("skills_app", "Release")
        .objects.order_by("number")
        .values_list("number", "snapshot", "catalog_json")
    ) == [(1, {"skills": [{"code": "a_b"}], "format": 1}, '{"release":1}'), (2, {"skills": []}, None)]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert list(Now.objects.order_by("number").values_list("number", "snapshot", "catalog_json")) == [
        (1, {"skills": [{"code": "a_b"}], "format": 1}, '{"release":1}'),
        (2, {"skills": []}, None),
    ]
