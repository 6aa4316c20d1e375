"""A bounded schemathesis run against the live test server (real HTTP, real database): every
runtime endpoint of the OpenAPI schema, positive and negative inputs, sent with a valid runtime
API key (``Authorization: Bearer``, skills_app/runtime/auth.py) against the published bitmall demo.
No answer may be a 5xx, and every answer must match the schema: a documented status code, the
documented content type and a body that validates against the documented response schema.

So that the run can fail, it also asserts what it reached: every runtime operation of the schema
answered, none with 401 (the key was accepted), and the run saw 2xx and 4xx answers — positive
inputs are served (every operation answers 2xx at least once), negative ones refused with a 4xx.
In positive mode each operation also gets one valid
request of the published demo as an explicit example (``VALID``): random codes and messages
rarely name a published skill. A wrong key makes every answer a 401 and fails the test.

Bounded: ``MAX_EXAMPLES`` generated cases per operation, no shrinking, no example database —
the whole module stays well under a minute on a busy 2-core machine.
"""

from __future__ import annotations

import os
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, example, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from skills_app.catalog.demo import demo_load

#: Cases per operation and mode; ``SKILL_CONSOLE_FUZZ_EXAMPLES=200`` runs a deeper search locally.
MAX_EXAMPLES = int(os.environ.get("SKILL_CONSOLE_FUZZ_EXAMPLES", "8"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def runtime_bearer(transactional_db) -> str:
    """The bitmall demo published as release 1 in the database the live server reads, and the
    ``Authorization`` header of a runtime API key (as ``api_client`` of tests/conftest.py sends it)."""
    from skills_app.keys.services import api_key_create
    from skills_app.releases.services import COMMAND_LINE, release_publish_first

    demo_load(name="bitmall")
    release_publish_first(note="demo catalog 'bitmall'")
    return f"Bearer {api_key_create(user=COMMAND_LINE, name='fuzz').key}"


RUNTIME_OPERATIONS = [
    "GET /api/v1/runtime/catalog",
    "GET /api/v1/runtime/skills/{code}",
    "POST /api/v1/runtime/check-call",
    "POST /api/v1/runtime/load-skill",
    "POST /api/v1/runtime/reports",
    "POST /api/v1/runtime/rounds",
]


USER = {"role": "user", "content": "cancel my order"}
#: A heartbeat of a minute ago: generated times (``format: date-time``) mostly fall outside the
#: bounds a record's ``at`` must keep (docs/runtime-api.md, "Reports") and are refused with a 400.
HEARTBEAT = {
    "id": "fuzz-heartbeat-1",
    "kind": "heartbeat",
    "at": (datetime.now(UTC) - timedelta(minutes=1)).isoformat(),
    "instance": "fuzz-host",
    "client_version": "skill-console-client/0.1.0",
    "stale": False,
}
#: One request per operation that the published bitmall demo serves with 200 (tests/api holds
#: the exact answers): the keyword arguments of ``APIOperation.Case``.
VALID = {
    "GET /api/v1/runtime/catalog": {},
    "GET /api/v1/runtime/skills/{code}": {"path_parameters": {"code": "order_change"}},
    "POST /api/v1/runtime/check-call": {"body": {"messages": [USER], "call": {"name": "query_order", "arguments": {}}}},
    "POST /api/v1/runtime/load-skill": {"body": {"messages": [USER], "skill_code": "order_change"}},
    "POST /api/v1/runtime/reports": {"body": {"records": [HEARTBEAT]}},
    "POST /api/v1/runtime/rounds": {"body": {"messages": [USER]}},
}


def runtime_operations(base_url: str) -> list[schemathesis.APIOperation]:
    """The runtime operations of the schema the live server serves (``/api/v1/schema``)."""
    config = schemathesis.Config.from_dict({"generation": {"max-examples": MAX_EXAMPLES, "no-shrink": True}})
    schema = schemathesis.openapi.from_url(f"{base_url}/api/v1/schema?format=json", config=config)
    return [result.ok() for result in schema.include(path_regex=r"^/api/v1/runtime/").get_all_operations()]


# ``schemathesis.pytest.from_fixture`` (lazy schemas) breaks on this pytest (``Function._nodeid``
# is gone), so each operation's strategy is driven with Hypothesis's ``@given`` directly.
@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["positive", "negative"])
def test_runtime_api_answers_within_its_schema(live_server, runtime_bearer, mode):
    operations = runtime_operations(live_server.url)
    assert sorted(op.label for op in operations) == sorted(RUNTIME_OPERATIONS)
    headers = {"Authorization": runtime_bearer}
    seen: dict[str, list[int]] = defaultdict(list)  # operation → the status of each answer
    for operation in operations:
        valid = VALID[operation.label]
        body = {"media_type": "application/json"} if "body" in valid else {}
        explicit = [operation.Case(**valid, **body)] if mode is GenerationMode.POSITIVE else []

        @given(case=operation.as_strategy(generation_mode=mode))
        @(example(case=explicit[0]) if explicit else (lambda f: f))
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.generate],
        )
        def call(case: schemathesis.Case) -> None:
            response = case.call_and_validate(base_url=live_server.url, headers=headers, checks=CHECKS, timeout=30)
            seen[operation.label].append(response.status_code)  # noqa: B023 (call() runs at once, in this iteration)

        call()

    assert sorted(seen) == sorted(RUNTIME_OPERATIONS), "an operation was never called"
    refused = {label: codes.count(401) for label, codes in seen.items() if 401 in codes}
    assert not refused, f"the runtime key was refused (401): {refused}"
    statuses = {code for codes in seen.values() for code in codes}
    # 2xx per operation is asserted in positive mode (below); every mode sees 4xx answers.
    assert any(400 <= s < 500 for s in statuses), dict(seen)
    if mode is GenerationMode.POSITIVE:  # valid inputs reach every view and are served
        unserved = sorted(label for label, codes in seen.items() if not any(200 <= s < 300 for s in codes))
        assert not unserved, f"no 2xx answer from {unserved}: {dict(seen)}"
    else:  # invalid inputs are refused by every view with a 4xx
        unrefused = sorted(label for label, codes in seen.items() if not any(400 <= s < 500 for s in codes))
        assert not unrefused, f"no 4xx answer from {unrefused}: {dict(seen)}"
