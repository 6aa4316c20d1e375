"""``GET /healthz`` and the JSON error handlers of ``skills_app/core/faults.py`` in the embedded setup
(SQLite, local-memory cache). The same against PostgreSQL and Redis, up and down, is in
``tests/production/``."""

from __future__ import annotations

import json

from django.test import RequestFactory

from skills_app.core import faults


def test_healthz_reports_the_database_and_the_cache(client, db):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "no-store" in response["Cache-Control"]
    vendor = response.json()["database"]["vendor"]
    assert response.json() == {
        "status": "ok",
        "database": {"ok": True, "vendor": vendor},
        "cache": {"ok": True, "backend": "locmem"},
    }
    assert client.post("/healthz").status_code == 405


def test_api_errors_from_django_itself_are_json():
    request = RequestFactory().get("/api/v1/whatever")
    for response, status, code in (
        (faults.bad_request(request), 400, "bad_request"),
        (faults.permission_denied(request), 403, "permission_denied"),
        (faults.page_not_found(request), 404, "not_found"),
        (faults.server_error(request), 500, "server_error"),
        (faults.csrf_failure(request, reason="CSRF cookie not set."), 403, "csrf_failed"),
    ):
        assert response.status_code == status
        assert response["Content-Type"] == "application/json"
        assert json.loads(response.content)["error"]["code"] == code


def test_console_errors_stay_pages(db):
    request = RequestFactory().get("/skills/nope/")
    response = faults.server_error(request)
    assert response.status_code == 500 and b'data-error-page="500"' in response.content
