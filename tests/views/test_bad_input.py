"""No 5xx from bad input in the console (issue 10, item 7): a NUL byte in a code or a name (in the
URL, the query and the forms — PostgreSQL refuses NUL in text), deeply nested JSON in a pasted
transcript, two creates of one name at the same moment (one wins, the other gets a form error —
never a 500, never a silent replace), and ``POST /skills/<code>/enabled`` taking an explicit
boolean only. Runs on SQLite and, under ``make test-postgres``, on PostgreSQL."""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from skills_app import urls as console_urls
from skills_app.catalog import services as catalog_services
from skills_app.models import AccessProfile, Scenario, Skill, Stage
from skills_app.simulation import services as simulation_services
from tests.conftest import user_with_role
from tests.views.html import parse

NUL = "\x00"
SCRIPT = "name: {name}\nsteps:\n  - user: hi\n  - assistant: {{calls: [{{query_order: {{}}}}]}}\n"


def _urls_with_nul() -> list[tuple[str, str]]:
    """Every console URL pattern with ``a<NUL>b`` in each of its arguments."""
    out = []
    for pattern in console_urls.urlpatterns:
        kwargs = {
            key: (7 if conv.__class__.__name__ == "IntConverter" else f"a{NUL}b")
            for key, conv in pattern.pattern.converters.items()
        }
        if not any(isinstance(v, str) for v in kwargs.values()):
            continue
        try:
            url = reverse(f"skills:{pattern.name}", kwargs=kwargs)
        except Exception:  # noqa: BLE001 — a converter that refuses NUL cannot even build the URL
            url = reverse(
                f"skills:{pattern.name}", kwargs={k: ("x" if isinstance(v, str) else v) for k, v in kwargs.items()}
            ).replace("/x/", "/a%00b/")
        out.append((pattern.name, url))
    return out


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "url"), _urls_with_nul(), ids=[n for n, _ in _urls_with_nul()])
def test_a_nul_byte_in_a_url_is_a_404_never_a_500(bitmall, staff_client, name, url):
    assert NUL in url or "%00" in url
    assert staff_client.get(url).status_code in (404, 405), url
    assert staff_client.post(url, {"enabled": "0", "name": "x"}).status_code in (404, 400), url


@pytest.mark.parametrize(
    "query",
    [
        {"scenario": f"cancel{NUL}-iphone"},
        {"script": f"name: x{NUL}\nsteps: []\n"},
        {"profile": f"a{NUL}"},
        {"stage": f"a{NUL}"},
        {"q": f"order{NUL}"},
        {"state": NUL},
        {"from": f"1{NUL}", "to": "1"},
    ],
)
@pytest.mark.parametrize(
    "path",
    ["/skills/", "/preview/", "/scenarios/", "/releases/", "/releases/diff", "/restrictions/", "/tools/", "/publish/"],
)
def test_a_nul_byte_in_the_query_never_answers_500(bitmall, staff_client, path, query):
    assert staff_client.get(path, query).status_code in (200, 400, 404)


@pytest.mark.parametrize(
    ("url", "data", "field"),
    [
        ("/skills/new", {"skill_code": f"ab{NUL}c", "name": "n", "description": "d", "content": "c"}, "skill_code"),
        ("/skills/new", {"skill_code": "abc", "name": f"n{NUL}", "description": "d", "content": "c"}, "name"),
        ("/scenarios/new", {"name": f"cancel{NUL}", "script": SCRIPT.format(name="x")}, "name"),
        ("/restrictions/profile/new", {"name": f"vip{NUL}", "tools": ["query_order"]}, "name"),
        ("/restrictions/stage/new", {"name": f"vip{NUL}", "tools": ["query_order"]}, "name"),
        ("/scenarios/from-preview", {"name": f"x{NUL}", "script": SCRIPT.format(name="x")}, "name"),
    ],
)
def test_a_nul_byte_in_a_form_is_a_form_error(bitmall, staff_client, url, data, field):
    before = (Skill.objects.count(), Scenario.objects.count(), AccessProfile.objects.count(), Stage.objects.count())
    response = staff_client.post(url, data)
    assert response.status_code == 200
    page = parse(response.content)
    assert page.select("data-errors-for", field) or page.select("data-error-summary"), response.content[:300]
    assert (
        Skill.objects.count(),
        Scenario.objects.count(),
        AccessProfile.objects.count(),
        Stage.objects.count(),
    ) == before


@pytest.mark.parametrize("depth", [300, 990, 100_000])
def test_a_pasted_transcript_nested_too_deeply_is_answered(bitmall, staff_client, depth):
    arguments = '{"a":' * depth + "1" + "}" * depth
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "query_order", "arguments": arguments}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "done"},
    ]
    assert staff_client.post("/preview/", {"script": json.dumps(messages)}).status_code == 200
    raw = "[" * depth + "]" * depth
    assert staff_client.post("/preview/", {"script": raw}).status_code == 200


@pytest.mark.parametrize("role", [{"x": 1}, ["user"]])
def test_a_pasted_transcript_with_a_role_object_names_the_message(bitmall, staff_client, role):
    messages = [{"role": "user", "content": "hi"}, {"role": role, "content": "x"}]
    response = staff_client.post("/preview/", {"script": json.dumps(messages)}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert b"messages[1]" in response.content or b"Message 2" in response.content


# --- POST /skills/<code>/enabled takes an explicit boolean --------------------------------------


@pytest.mark.parametrize("value", [None, "", "yes", "2", "enabled", "true ", ["1", "0"]])
def test_enabled_refuses_anything_but_a_boolean(bitmall, staff_client, value):
    data = {} if value is None else {"enabled": value}
    before = Skill.objects.get(skill_code="order_change")
    response = staff_client.post("/skills/order_change/enabled", data, HTTP_ACCEPT_LANGUAGE="en")
    if value == "true ":  # surrounding blanks are forgiven
        assert response.status_code == 302
        return
    assert response.status_code == 400
    reason = parse(response.content).one("data-reason").text()
    assert reason.startswith("'enabled' must be 1 or 0 (true or false) to enable or disable order_change; got ")
    after = Skill.objects.get(skill_code="order_change")
    assert (after.enabled, after.version) == (before.enabled, before.version)


@pytest.mark.parametrize(
    ("value", "enabled"), [("0", False), ("false", False), ("OFF", False), ("1", True), ("true", True), ("on", True)]
)
def test_enabled_takes_each_spelling_of_a_boolean(bitmall, staff_client, value, enabled):
    catalog_services.skill_set_enabled(skill=Skill.objects.get(skill_code="order_change"), enabled=not enabled)
    assert staff_client.post("/skills/order_change/enabled", {"enabled": value}).status_code == 302
    assert Skill.objects.get(skill_code="order_change").enabled is enabled


# --- two creates of one name at the same moment ---------------------------------------------------

CREATES = {
    "skill": (
        "/skills/new",
        lambda n, i: {
            "skill_code": n,
            "name": f"writer {i}",
            "description": f"writer {i}",
            "content": f"manual {i}",
            "enabled": "on",
            "sort_order": "0",
        },
        lambda n: list(Skill.objects.filter(skill_code=n).values_list("name", flat=True)),
    ),
    "scenario": (
        "/scenarios/new",
        lambda n, i: {"name": n, "script": SCRIPT.format(name=n), "description": f"writer {i}"},
        lambda n: list(Scenario.objects.filter(name=n).values_list("description", flat=True)),
    ),
    "profile": (
        "/restrictions/profile/new",
        lambda n, i: {"name": n, "description": f"writer {i}", "tools": ["query_order"]},
        lambda n: list(AccessProfile.objects.filter(name=n).values_list("description", flat=True)),
    ),
    "stage": (
        "/restrictions/stage/new",
        lambda n, i: {"name": n, "description": f"writer {i}", "tools": ["query_order"]},
        lambda n: list(Stage.objects.filter(name=n).values_list("description", flat=True)),
    ),
}


def _post_in_threads(user, url, bodies):
    """POST each body through its own logged-in client in its own thread (its own database
    connection), released together; returns the responses (or the exceptions)."""
    barrier = threading.Barrier(len(bodies))
    results: list = [None] * len(bodies)

    def run(i, body):
        try:
            client = Client()
            client.force_login(user)
            barrier.wait(timeout=10)
            results[i] = client.post(url, body, HTTP_ACCEPT_LANGUAGE="en")
        except Exception as exc:  # noqa: BLE001 — reported to the test
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, b)) for i, b in enumerate(bodies)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def _one_wins(results, stored, name):
    assert not [r for r in results if isinstance(r, Exception)], results
    statuses = sorted(r.status_code for r in results)
    assert statuses == [200, 302], statuses  # one saved and redirected, the other shown its form again
    loser = next(r for r in results if r.status_code == 200)
    errors = parse(loser.content).text()
    assert "already exists" in errors, errors[:500]
    winner = results.index(next(r for r in results if r.status_code == 302))
    assert stored == [f"writer {winner}"]  # the winner's text, never replaced by the loser's


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", list(CREATES))
def test_two_creates_of_one_name_at_once_one_wins(kind, django_user_model):
    from skills_app.catalog.demo import demo_load

    demo_load(name="bitmall")
    user = user_with_role(django_user_model, "racer", "editor")
    url, body, stored = CREATES[kind]
    name = "race-x" if kind != "skill" else "race_x"
    results = _post_in_threads(user, url, [body(name, 0), body(name, 1)])
    _one_wins(results, stored(name), name)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", list(CREATES))
def test_a_create_that_loses_after_its_own_check_gets_a_form_error(kind, django_user_model):
    """The racy order forced: another transaction inserts the name (not yet committed) after this
    request's form found it free; it commits while this one saves. PostgreSQL: the unique index
    makes this insert wait, then fail; SQLite: this write waits at BEGIN IMMEDIATE, then its own
    check sees the row. Either way a form error, never a 500 or a replace."""
    from skills_app.catalog.demo import demo_load

    demo_load(name="bitmall")
    user = user_with_role(django_user_model, "late", "editor")
    url, body, stored = CREATES[kind]
    name = "race-y" if kind != "skill" else "race_y"
    inserted, done = threading.Event(), threading.Event()

    def other_writer():
        try:
            with transaction.atomic():
                if kind == "skill":
                    catalog_services.skill_create(skill_code=name, name="writer 0", description="writer 0", content="m")
                elif kind == "scenario":
                    simulation_services.scenario_save(
                        name=name, script=SCRIPT.format(name=name), description="writer 0", create=True
                    )
                elif kind == "profile":
                    catalog_services.access_profile_save(
                        name=name, description="writer 0", tools=["query_order"], create=True
                    )
                else:
                    catalog_services.stage_save(name=name, description="writer 0", tools=["query_order"], create=True)
                inserted.set()
                time.sleep(1.0)  # hold the uncommitted row while the request below checks and saves
        finally:
            done.set()
            connection.close()

    if connection.vendor == "sqlite":
        # SQLite: the other writer's BEGIN IMMEDIATE would block this thread's request from the
        # start (its session write waits), which is the serialised order; run them one after the other.
        thread = threading.Thread(target=other_writer)
        thread.start()
        inserted.wait(10)
        results = _post_in_threads(user, url, [body(name, 1)])
        thread.join(30)
    else:
        thread = threading.Thread(target=other_writer)
        thread.start()
        assert inserted.wait(10)
        results = _post_in_threads(user, url, [body(name, 1)])
        thread.join(30)
    assert done.is_set()
    response = results[0]
    assert not isinstance(response, Exception), response
    assert response.status_code == 200, response.status_code
    assert "already exists" in parse(response.content).text()
    assert stored(name) == ["writer 0"]
