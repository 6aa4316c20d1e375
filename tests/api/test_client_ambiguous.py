"""Ambiguous JSON through ``RuntimeClient`` (docs/runtime-api.md, "Python client"): the messages an
agent holds after reading JSON with ``jsontext.loads`` — or Python values JSON cannot write (``NaN``,
an int past ±(2^53−1), an int of 5,001 digits) — get the answers the server gives their JSON:
the exact loaded skills, warnings and verdicts of tests/ambiguous_cases.py, never a ValueError.

The client is built on the catalog the server serves (``GET runtime/catalog`` and the manuals,
through ``catalog_from_runtime``) without a live server: ``make_local_client``."""

from __future__ import annotations

import time

import pytest

from skill_client.client import RuntimeClient, _Copy, catalog_from_runtime
from skill_rule import MessageError, jsontext
from skills_app.catalog import selectors
from tests.ambiguous_cases import API_CALL_CASES, BIG, CALL_CASES, CASES, CallCase, Case
from tests.api.support import CATALOG, skill_url
from tests.transcript_cases import MANUAL_V1 as MANUAL  # the demo's published manual

#: An int of 5,001 digits as an agent may hold one (Python reads it only in pieces; ``str()`` refuses it).
HUGE = 10**5000 + 1


def make_local_client(api_client, tmp_path) -> RuntimeClient:
    """A ``RuntimeClient`` holding the served release as its copy (no HTTP: the round is local)."""
    body = api_client.get(CATALOG).json()
    manuals = {s["code"]: api_client.get(skill_url(s["code"])).json()["content"] for s in body["skills"]}
    client = RuntimeClient("http://127.0.0.1:9", "unused", cache_dir=tmp_path, report=False)  # nowhere to report
    client._copy = _Copy(
        body=body, manuals=manuals, etag=None, catalog=catalog_from_runtime(body, manuals), checked_at=time.time()
    )
    return client


@pytest.fixture
def client(bitmall, api_client, tmp_path) -> RuntimeClient:
    return make_local_client(api_client, tmp_path)


@pytest.fixture
def order(bitmall):
    return [s.code for s in selectors.catalog_draft().enabled_skills]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_client_reads_ambiguous_json_as_the_server_does(client, order, case: Case) -> None:
    messages = jsontext.loads(case.text)
    view = client.round(messages)
    assert list(view.loaded) == case.loaded_in(order)
    assert dict(view.masked) == case.masked()
    assert [(w.code, w.params["index"]) for w in view.warnings] == list(case.warnings)
    if case.first is not None:
        assert view.warnings[0] == case.first
    verdict = client.check_call(messages, {"name": "cancel_order", "arguments": {"order_no": "88239"}})
    expected = ("confirm", None) if "order_change" in case.loaded else ("refused", "masked")
    assert (verdict.verdict, verdict.reason) == expected
    assert client.load_skill(messages, "order_change").already_loaded is ("order_change" in case.loaded)


@pytest.mark.parametrize("case", [*CALL_CASES, *API_CALL_CASES], ids=lambda c: c.id)
def test_the_client_refuses_an_ambiguous_current_call(client, case: CallCase) -> None:
    verdict = client.check_call([], jsontext.loads(case.text))
    assert (verdict.verdict, verdict.reason, verdict.message) == (case.verdict, case.reason, case.message)


def _load(**metadata) -> list[dict]:
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": "order_change"}}],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": MANUAL,
            "metadata": {"ragent_loaded_skill": "order_change", **metadata},
        },
    ]


@pytest.mark.parametrize(
    ("messages", "loaded", "warnings", "first"),
    [
        (_load(skill_version=1), ["order_change"], [], None),
        (
            _load(skill_version=float("nan")),
            [],
            [("message_ambiguous", 1)],
            "messages[1]: ambiguous JSON (metadata.skill_version: NaN is not a JSON number); its results are read as "
            "failed and its calls as having no arguments, so it loads nothing",
        ),
        (
            _load(skill_version=HUGE),
            [],
            [("message_ambiguous", 1)],
            "messages[1]: ambiguous JSON (metadata.skill_version: integer is outside ±(2^53−1)); its results are read as "
            "failed and its calls as having no arguments, so it loads nothing",
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": HUGE}}],
                },
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "content": MANUAL,
                    "metadata": {"ragent_loaded_skill": "order_change"},
                },
            ],
            [],
            [("arguments_ambiguous", 0), ("marker_mismatch", 1)],
            None,
        ),
        (
            [{"role": "tool", "tool_call_id": HUGE, "content": MANUAL}],
            [],
            [("message_ambiguous", 0), ("result_unpaired", 0)],
            None,
        ),
    ],
)
def test_python_values_json_cannot_write_are_read_as_ambiguous(
    client, order, messages, loaded, warnings, first
) -> None:
    view = client.round(messages)
    assert (list(view.loaded), [(w.code, w.params["index"]) for w in view.warnings]) == (loaded, warnings)
    if first is not None:
        assert view.warnings[0] == first


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"order_no": 10**30},
            "invalid arguments for 'query_order': call (query_order): arguments are ambiguous JSON "
            "(order_no: integer is outside ±(2^53−1)); read as no arguments",
        ),
        (
            {"order_no": HUGE},
            "invalid arguments for 'query_order': call (query_order): arguments are ambiguous JSON "
            "(order_no: integer is outside ±(2^53−1)); read as no arguments",
        ),
        (
            {"order_no": "88239", "x": [float("inf")]},
            "invalid arguments for 'query_order': call (query_order): arguments are ambiguous JSON (x[0]: Infinity is not "
            "a JSON number); read as no arguments",
        ),
        (
            '{"order_no": %s}' % BIG,
            "invalid arguments for 'query_order': call (query_order): arguments are ambiguous "
            "JSON (order_no: integer with 5001 digits is outside ±(2^53−1)); read as no arguments",
        ),
    ],
)
def test_python_arguments_json_cannot_write_are_refused(client, arguments, message) -> None:
    verdict = client.check_call([], {"name": "query_order", "arguments": arguments})
    assert (verdict.verdict, verdict.reason, verdict.message) == ("refused", "invalid_arguments", message)


@pytest.mark.parametrize("call", [None, 5, {"arguments": {}}, {"name": 10**5000}, {"function": {"name": ""}}])
def test_a_call_without_a_name_is_a_message_error(client, call) -> None:
    with pytest.raises(MessageError, match="call: a call"):
        client.check_call([], call)
