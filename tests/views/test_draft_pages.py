"""The skill list and the tools page render their content once per draft change and keep it
(``views.common.draft_html``, ``draft_cache.draft_fragment``): a committed write shows at once, a
kept page never crosses roles or languages, and never holds anyone's CSRF token."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.test import Client

from skills_app.catalog import draft_cache, services
from skills_app.models import IntentNode, Skill
from tests.conftest import user_with_role
from tests.views.html import parse

# outside a transaction: pages are kept
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("bitmall_nothing_kept")]


def login(django_user_model, name: str, role: str, **kwargs) -> Client:
    client = Client(**kwargs)
    client.force_login(user_with_role(django_user_model, name, role))
    return client


def kept() -> int:
    return len(draft_cache._fragments)


def row(client: Client, code: str, url: str = "/skills/"):
    return parse(client.get(url).content).one("data-skill", code)


def test_a_kept_list_is_served_until_a_committed_write_then_shows_the_new_value_at_once(django_user_model):
    editor = login(django_user_model, "ed", "editor")
    assert row(editor, "order_change").one("class", "name").text() == "订单修改"
    assert kept() == 1
    # a write that bypasses the services' signals leaves the draft token as it is: the kept page is served
    Skill.objects.filter(skill_code="order_change").update(name="不经服务的改名")
    assert row(editor, "order_change").one("class", "name").text() == "订单修改"
    assert kept() == 1
    services.skill_update(skill=Skill.objects.get(skill_code="order_change"), name="订单修改（新）")
    assert row(editor, "order_change").one("class", "name").text() == "订单修改（新）"
    assert row(editor, "order_change").by_tag("td")[-2].text() == "v2"
    assert kept() == 2  # the old token's page is simply never asked for again


def test_a_viewer_never_gets_the_editors_kept_page_nor_the_editor_the_viewers(django_user_model):
    editor = login(django_user_model, "ed", "editor")
    viewer = login(django_user_model, "vi", "viewer")
    for _ in range(2):
        for client, can_edit in ((editor, True), (viewer, False), (editor, True)):
            r = row(client, "order_change")
            assert [a.text() for a in r.by_tag("a") if a.text() == "编辑"] == (["编辑"] if can_edit else [])
            assert len(r.by_tag("form")) == (2 if can_edit else 0)  # enable switch and delete
            assert len(r.select("data-enabled-state")) == (0 if can_edit else 1)
    assert kept() == 2


def test_the_tools_page_keeps_the_node_edit_links_for_editors_only(django_user_model):
    editor = login(django_user_model, "ed", "editor")
    viewer = login(django_user_model, "vi", "viewer")
    for client, links in ((viewer, []), (editor, ["/tools/nodes/query_order_topic/edit"]), (viewer, [])):
        node = parse(client.get("/tools/").content).one("data-node", "query_order_topic")
        assert [a["href"] for a in node.by_tag("a") if "/edit" in a["href"]] == links
    assert kept() == 2


def test_the_chinese_page_never_gets_english_kept_rows(django_user_model):
    editor = login(django_user_model, "ed", "editor")

    def heading(client):
        return parse(client.get("/skills/").content).one("id", "live-title").text()

    assert heading(editor) == "现有技能"
    editor.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert heading(editor) == "Live skills"
    assert row(editor, "order_change").select("data-row-focus")[0]["aria-label"] == "Enabled: order_change"
    editor.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    assert heading(editor) == "现有技能"
    assert kept() == 2


def test_every_query_is_a_page_of_its_own(django_user_model):
    editor = login(django_user_model, "ed", "editor")
    assert parse(editor.get("/skills/", {"state": "disabled"}).content).values("data-skill") == []
    assert parse(editor.get("/skills/").content).values("data-skill") == [
        "after_sale_apply",
        "order_change",
        "fault_diagnosis",
        "order_checkout",
        "iot_bundle",
    ]
    assert parse(editor.get("/skills/", {"q": "cancel_order"}).content).values("data-skill") == ["order_change"]
    assert parse(editor.get("/tools/", {"q": "logistics"}).content).values("data-mcp-tool") == ["query_logistics"]
    assert kept() == 4


def test_a_kept_page_holds_no_csrf_token_each_user_posts_its_forms_with_their_own(django_user_model):
    first = login(django_user_model, "ed1", "editor", enforce_csrf_checks=True)
    second = login(django_user_model, "ed2", "editor", enforce_csrf_checks=True)
    first.get("/skills/")  # kept with a placeholder in place of the token
    ((placeholder, html),) = draft_cache._fragments.values()
    assert placeholder in html and "csrfmiddlewaretoken" in html
    form = row(second, "iot_bundle").by_tag("form")[0]  # served from the kept page
    table = parse(second.get("/skills/").content).one("id", "skills-table")
    tokens = {i["value"] for i in table.select("name", "csrfmiddlewaretoken")}
    assert len(tokens) == 1 and placeholder not in tokens  # one token for the rows, as one template render gives
    token = form.select("name", "csrfmiddlewaretoken")[0]["value"]
    assert token != placeholder
    response = second.post(form["action"], {"csrfmiddlewaretoken": token, "enabled": "0"})
    assert response.status_code == 302
    assert Skill.objects.get(skill_code="iot_bundle").enabled is False
    # the first editor's token is refused for the second editor's session, as without any keeping
    other = first.get("/skills/")
    first_token = parse(other.content).one("id", "skills-table").select("name", "csrfmiddlewaretoken")[0]["value"]
    assert second.post(form["action"], {"csrfmiddlewaretoken": first_token, "enabled": "1"}).status_code == 403


def test_inside_a_transaction_nothing_is_kept(django_user_model):
    editor = login(django_user_model, "ed", "editor")
    with transaction.atomic():
        node = IntentNode.objects.get(mcp_tool_id="query_logistics")
        node.name = "物流（未提交）"
        node.save()
        assert (
            parse(editor.get("/tools/").content).one("data-node", node.intent_code).text().count("物流（未提交）") == 1
        )
        assert kept() == 0
        transaction.set_rollback(True)
    assert "物流（未提交）" not in parse(editor.get("/tools/").content).one("data-node", node.intent_code).text()
    assert kept() == 1
