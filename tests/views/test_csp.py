"""The Content-Security-Policy (issue 24, item 9; console/settings.py): every page and fragment of
the console — each URL pattern of ``skills_app.urls`` (the walk of test_access.py), the login
page, the admin, the API and its docs, the error pages — answers with the one policy, and no page
holds what that policy refuses: an inline script, an ``on…=`` handler, a ``style=`` attribute or
a ``<style>`` element. The Swagger UI page alone lets its own inline script and style run, by this
response's nonce. tests/browser/test_csp.py checks the same in Chromium, where it counts."""

from __future__ import annotations

import re

import pytest

from skills_app import urls as console_urls
from tests.views.html import parse
from tests.views.test_access import samples, url_of  # noqa: F401 (a fixture)

#: The policy, directive by directive (django-csp writes them in no fixed order).
POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}


def policy_of(response) -> dict[str, list[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, f"{response.request['PATH_INFO']}: no Content-Security-Policy header"
    assert "Content-Security-Policy-Report-Only" not in response.headers
    directives = [part.split() for part in header.split(";") if part.strip()]
    return {d[0]: d[1:] for d in directives}


def inline_code(html: bytes) -> list[str]:
    """What the policy would refuse in ``html``: inline scripts (a JSON data block is no script),
    event-handler and style attributes, ``<style>`` elements, ``javascript:`` links."""
    found = []
    for node in parse(html).iter():
        if node.tag == "script" and not node.get("src") and node.get("type") != "application/json":
            found.append(f"<script> inline in {node.parent.tag if node.parent else '?'}")
        if node.tag == "style":
            found.append("<style>")
        for name, value in node.attrs.items():
            if name == "style" or name.startswith("on") or (value or "").strip().lower().startswith("javascript:"):
                found.append(f"<{node.tag} {name}={value!r}>")
    return found


def assert_policed(response) -> None:
    assert policy_of(response) == POLICY, response.request["PATH_INFO"]
    if response.get("Content-Type", "").startswith("text/html"):
        assert inline_code(response.content) == [], response.request["PATH_INFO"]


@pytest.fixture
def superuser_client(client, django_user_model):
    """Every console page opens to a superuser (the MCP server forms too)."""
    client.force_login(django_user_model.objects.create_superuser(username="root", password="root-pass-123"))
    return client


@pytest.mark.parametrize("pattern", console_urls.urlpatterns, ids=lambda p: p.name)
def test_every_console_page_has_the_policy_and_nothing_it_refuses(superuser_client, samples, pattern):
    url = url_of(pattern, samples)
    response = superuser_client.get(url)
    assert response.status_code in (200, 405), url
    assert_policed(response)


@pytest.mark.parametrize(
    "url",
    [
        "/preview/?scenario=cancel-iphone",
        "/skills/iot_bundle/edit",
        "/publish/",
        "/admin/",
        "/admin/skills_app/skill/",
        "/admin/skills_app/skill/add/",
        "/api/v1/runtime/catalog",  # a logged-in console user may call it: JSON, with the header too
        "/api/v1/schema",
        "/no/such/page",
        "/healthz",
    ],
)
def test_more_pages_answer_with_the_policy(superuser_client, samples, url):
    assert_policed(superuser_client.get(url))


def test_the_htmx_fragments_are_policed_too(superuser_client, samples):
    run = superuser_client.post("/preview/", {"scenario": "cancel-iphone"}, headers={"HX-Request": "true"})
    assert run.status_code == 200 and b"data-round" in run.content  # the results, their legend included
    assert_policed(run)
    live = superuser_client.post(
        "/skills/iot_bundle/preview", {"content": "# manual\n\nbody", "name": "x"}, headers={"HX-Request": "true"}
    )
    assert live.status_code == 200
    assert_policed(live)


def test_anonymous_pages_have_the_policy(client, db):
    for url in ("/accounts/login/", "/skills/", "/api/v1/runtime/catalog"):
        assert_policed(client.get(url))
    assert_policed(client.post("/accounts/login/", {"username": "nobody", "password": "wrong-pass-1"}))


def test_the_api_docs_run_their_inline_start_up_by_this_responses_nonce_only(client, db):
    response = client.get("/api/v1/docs")
    assert response.status_code == 200
    policy = policy_of(response)
    nonces = set(re.findall(r'nonce="([^"]+)"', response.content.decode()))
    assert len(nonces) == 1, nonces
    nonce = f"'nonce-{nonces.pop()}'"
    assert policy == {**POLICY, "script-src": ["'self'", nonce], "style-src": ["'self'", nonce]}
    html = parse(response.content)
    inline = [n for n in html.iter() if n.tag in ("script", "style") and not n.get("src")]
    assert [n.tag for n in inline] == ["style", "script"] and all(f"'nonce-{n['nonce']}'" == nonce for n in inline)
    assert 'url: "/api/v1/schema"' in response.content.decode()  # the library's start-up script, included
    assert policy_of(client.get("/api/v1/docs"))["script-src"] != policy["script-src"]  # a new nonce each time
