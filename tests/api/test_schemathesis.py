"""A bounded schemathesis run against the live test server (real HTTP, real database): every
runtime endpoint of the OpenAPI schema, positive and negative inputs, token-authenticated.
No answer may be a 5xx, and every answer must match the schema: a documented status code, the
documented content type and a body that validates against the documented response schema.

Bounded: ``MAX_EXAMPLES`` generated cases per operation, no shrinking, no example database —
the whole module stays well under a minute on a busy 2-core machine.
"""
from __future__ import annotations

import os

import pytest
import schemathesis
from schemathesis import GenerationMode
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from skills_app.demo_catalogs import demo_load

#: Cases per operation and mode; ``SKILL_CONSOLE_FUZZ_EXAMPLES=200`` runs a deeper search locally.
MAX_EXAMPLES = int(os.environ.get("SKILL_CONSOLE_FUZZ_EXAMPLES", "6"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def runtime_token(transactional_db, django_user_model) -> str:
    """The bitmall demo committed to the database the live server reads, and a staff user's token."""
    from rest_framework.authtoken.models import Token

    demo_load(name="bitmall")
    from skills_app.roles import assign

    user = django_user_model.objects.create_user(username="fuzz", password="fuzz-pass-123")
    assign(user, "publisher")
    return Token.objects.create(user=user).key


RUNTIME_OPERATIONS = [
    "GET /api/v1/runtime/catalog",
    "GET /api/v1/runtime/skills/{code}",
    "POST /api/v1/runtime/check-call",
    "POST /api/v1/runtime/load-skill",
    "POST /api/v1/runtime/rounds",
]


def runtime_operations(base_url: str) -> list[schemathesis.APIOperation]:
    """The runtime operations of the schema the live server serves (``/api/v1/schema``)."""
    config = schemathesis.Config.from_dict({"generation": {"max-examples": MAX_EXAMPLES, "no-shrink": True}})
    schema = schemathesis.openapi.from_url(f"{base_url}/api/v1/schema?format=json", config=config)
    return [result.ok() for result in schema.include(path_regex=r"^/api/v1/runtime/").get_all_operations()]


# ``schemathesis.pytest.from_fixture`` (lazy schemas) breaks on this pytest (``Function._nodeid``
# is gone), so each operation's strategy is driven with Hypothesis's ``@given`` directly.
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["positive", "negative"])
def test_runtime_api_answers_within_its_schema(live_server, runtime_token, mode):
    operations = runtime_operations(live_server.url)
    assert sorted(op.label for op in operations) == sorted(RUNTIME_OPERATIONS)
    headers = {"Authorization": f"Token {runtime_token}"}
    for operation in operations:

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
        def call(case: schemathesis.Case) -> None:
            case.call_and_validate(base_url=live_server.url, headers=headers, checks=CHECKS, timeout=30)

        call()
