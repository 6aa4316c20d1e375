"""The draft catalog is built once per committed change and process (skills_app/catalog/draft_cache.py):
kept until a write commits, never kept inside a transaction, never renewed by a rolled-back write."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from skills_app.catalog import draft_cache, selectors, services
from skills_app.models import ConsoleSettings, IntentNode, Skill

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("bitmall_nothing_kept")]


def token():
    return ConsoleSettings.objects.get(pk=1).draft_token


def test_a_second_read_reuses_the_built_catalog_in_one_query():
    first = selectors.catalog_draft()
    with CaptureQueriesContext(connection) as ctx:
        second = selectors.catalog_draft()
    assert second is first
    assert len(ctx.captured_queries) == 1  # the settings row and its token
    assert len(first.skills) == 5 and len(first.mcp_tool_names) == 14


def test_a_committed_skill_update_is_seen_on_the_next_read():
    before, old = selectors.catalog_draft(), token()
    services.skill_update(
        skill=Skill.objects.get(skill_code="order_change"), description="Change or cancel an order (edited)"
    )
    assert token() != old
    after = selectors.catalog_draft()
    assert after is not before
    assert {s.code: s.description for s in after.skills}["order_change"] == "Change or cancel an order (edited)"


def test_a_node_disabled_in_the_admin_way_masks_its_tool_from_the_next_read():
    before = selectors.catalog_draft()
    assert "query_logistics" in before.mcp_tool_names
    node = IntentNode.objects.get(mcp_tool_id="query_logistics")
    node.enabled = False
    node.save()
    assert "query_logistics" not in selectors.catalog_draft().mcp_tool_names


def test_a_rolled_back_write_keeps_the_token_and_the_catalog():
    before, old = selectors.catalog_draft(), token()
    with pytest.raises(RuntimeError):
        with transaction.atomic():
            Skill.objects.filter(skill_code="order_change").delete()
            raise RuntimeError("roll back")
    assert token() == old
    assert selectors.catalog_draft() is before
    assert before.skill("order_change") is not None


def test_inside_a_transaction_the_catalog_is_built_afresh_and_sees_its_own_write():
    before = selectors.catalog_draft()
    with transaction.atomic():
        Skill.objects.filter(skill_code="order_change").update(enabled=False)  # no signal
        inside = selectors.catalog_draft()
        assert inside is not before
        assert inside.skill("order_change") is None and before.skill("order_change") is not None
        assert selectors.catalog_draft() is not inside  # never kept
        transaction.set_rollback(True)
    assert selectors.catalog_draft() is before


def test_many_writes_in_one_transaction_renew_the_token_once():
    old = token()
    with CaptureQueriesContext(connection) as ctx:
        with transaction.atomic():
            for skill in Skill.objects.all():
                skill.sort_order += 1
                skill.save()
    updates = [q["sql"] for q in ctx.captured_queries if "draft_token" in q["sql"]]
    assert len(updates) == 1
    assert token() != old


def test_no_more_than_keep_catalogs_are_held():
    for i in range(draft_cache.KEEP + 3):
        skill = Skill.objects.get(skill_code="order_change")
        skill.sort_order = 100 + i
        skill.save()
        selectors.catalog_draft()
    assert len(draft_cache._kept) == draft_cache.KEEP


def test_the_broken_skills_banner_and_the_node_rows_are_kept_until_a_write():
    assert selectors.broken_skills() == {}
    rows = selectors.mcp_nodes()
    tree = selectors.intent_tree_order()
    with CaptureQueriesContext(connection) as ctx:
        assert selectors.broken_skills() == {}
        assert [r.tool_id for r in selectors.mcp_nodes()] == [r.tool_id for r in rows]
        assert [n.pk for n in selectors.intent_tree_order()] == [n.pk for n in tree]
    assert len(ctx.captured_queries) == 3  # the settings row, once per call
    node = IntentNode.objects.get(mcp_tool_id="cancel_order")
    node.enabled = False
    node.save()  # the admin's way, or the tree editor's
    assert selectors.broken_skills() == {"order_change": [("cancel_order", "unregistered")]}
    assert "cancel_order" not in {r.tool_id for r in selectors.mcp_nodes()}


def test_the_publish_review_keeps_its_diff_with_the_draft_per_latest_release():
    from skill_rule.snapshot import catalog_to_snapshot
    from skills_app.releases import selectors as releases_selectors
    from skills_app.releases import services as releases_services

    nothing_published = releases_selectors.publish_review()
    assert releases_selectors.publish_review().diff is nothing_published.diff  # compared once per draft
    assert len(nothing_published.diff.skills_added) == 5  # every enabled skill is new
    releases_services.release_create(
        snapshot=catalog_to_snapshot(selectors.catalog_draft()), user=releases_services.COMMAND_LINE, note="first"
    )
    against_1 = releases_selectors.publish_review()  # the same draft, a new latest release: compared again
    assert against_1.diff is not nothing_published.diff and against_1.diff.empty
    services.skill_update(skill=Skill.objects.get(skill_code="order_change"), description="改过的描述")
    after_edit = releases_selectors.publish_review()
    assert [c.name for c in after_edit.diff.skills_changed] == ["order_change"]
    assert releases_selectors.publish_review().diff is after_edit.diff


def test_the_publish_review_names_the_latest_release_by_number_and_sha256_read_with_its_row():
    from skill_rule.snapshot import catalog_to_snapshot
    from skills_app.releases import selectors as releases_selectors
    from skills_app.releases import services as releases_services

    first = releases_services.release_create(
        snapshot=catalog_to_snapshot(selectors.catalog_draft()), user=releases_services.COMMAND_LINE, note="first"
    )
    review = releases_selectors.publish_review()
    assert (review.latest_number, review.latest_sha256) == (1, first.sha256)
    services.skill_update(skill=Skill.objects.get(skill_code="order_change"), description="改过的描述")
    second = releases_services.release_create(
        snapshot=catalog_to_snapshot(selectors.catalog_draft()), user=releases_services.COMMAND_LINE, note="second"
    )
    review = releases_selectors.publish_review()
    assert (review.latest_number, review.latest_sha256) == (2, second.sha256) and second.sha256 != first.sha256
