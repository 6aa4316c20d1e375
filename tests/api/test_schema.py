"""The OpenAPI schema documents the runtime endpoints with their request and response bodies."""

from __future__ import annotations

import pytest
import yaml
from django.core.management import call_command
from rest_framework.test import APIClient

SCHEMA = "/api/v1/schema"
PATHS = {
    "/api/v1/runtime/catalog": ("get", None, "RuntimeCatalog"),
    "/api/v1/runtime/skills/{code}": ("get", None, "RuntimeSkill"),
    "/api/v1/runtime/rounds": ("post", "RoundsInput", "Round"),
    "/api/v1/runtime/load-skill": ("post", "LoadSkillInput", "LoadSkillResult"),
    "/api/v1/runtime/check-call": ("post", "CheckCallInput", "CheckCallVerdict"),
    "/api/v1/runtime/reports": ("post", "ReportBatch", "ReportsStored"),
}
#: Error statuses each operation documents besides 400 and 401 (reports names no release or skill).
ERRORS = dict.fromkeys(PATHS, ("404",)) | {"/api/v1/runtime/reports": ("403", "413")}


@pytest.fixture
def schema(db):
    response = APIClient().get(SCHEMA, {"format": "json"})
    assert response.status_code == 200
    return response.json()


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def test_schema_lists_exactly_the_runtime_endpoints(schema):
    assert {p for p in schema["paths"] if p.startswith("/api/v1/")} == set(PATHS)


@pytest.mark.parametrize("path", PATHS)
def test_each_operation_documents_its_bodies_and_errors(schema, path):
    method, request, response = PATHS[path]
    operation = schema["paths"][path][method]
    if request:
        assert operation["requestBody"]["content"]["application/json"]["schema"] == ref(request)
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == ref(response)
    for status in ("400", "401", *ERRORS[path]):
        assert operation["responses"][status]["content"]["application/json"]["schema"] == ref("Error")
    assert {"runtimeKey": []} in operation["security"]


def test_messages_are_documented_with_the_design_shape(schema):
    components = schema["components"]["schemas"]
    assert components["RoundsInput"]["properties"]["messages"]["items"] == ref("Message")
    assert set(components["Message"]["properties"]) == {
        "role",
        "content",
        "tool_calls",
        "tool_call_id",
        "state",
        "metadata",
    }
    assert components["CheckCallInput"]["properties"]["call"] == ref("CallInput")
    assert components["Error"]["properties"]["error"] == ref("ErrorBody")


def test_catalog_documents_the_304(schema):
    assert "304" in schema["paths"]["/api/v1/runtime/catalog"]["get"]["responses"]


def test_yaml_is_the_default_format(db):
    response = APIClient().get(SCHEMA)
    assert response.status_code == 200
    assert yaml.safe_load(response.content)["info"]["title"] == "Skill Console runtime API"


def test_schema_generates_without_warnings_and_validates(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert (tmp_path / "schema.yaml").read_text(encoding="utf-8").startswith("openapi: 3")
