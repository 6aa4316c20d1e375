"""Ambiguous JSON pasted into the preview's paste box (docs/transcripts.md, "Ambiguous JSON"): the
round after the transcript shows the exact loaded skills, masked tools and warnings of
tests/ambiguous_cases.py; a 5,001-digit integer or a lone surrogate is no 500, and ``messages``
twice is refused naming the key. Scenario scripts refuse the same at their line."""

from __future__ import annotations

import pytest

from skills_app.catalog import selectors
from tests.ambiguous_cases import BIG, CASES, Case
from tests.views.html import parse

URL = "/preview/"
NEXT = '{"role": "assistant", "content": "好的"}'


@pytest.fixture
def order(bitmall):
    return [s.code for s in selectors.catalog_draft().enabled_skills]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_paste_box_reads_ambiguous_json_fail_closed(order, staff_client, case: Case) -> None:
    response = staff_client.post(URL, {"script": case.text[:-1] + ", " + NEXT + "]"})
    assert response.status_code == 200
    doc = parse(response.content)
    last = doc.select("data-round")[-1]
    assert last.values("data-loaded") == case.loaded_in(order)
    assert {n["data-masked-tool"]: n["data-skill"] for n in last.select("data-masked-tool")} == case.masked()
    assert [(n["data-warning-code"], int(n["data-warning-index"])) for n in doc.select("data-warning")] == list(
        case.warnings
    )
    download = staff_client.post("/preview/result.json", {"script": case.text[:-1] + ", " + NEXT + "]"})
    assert download.status_code == 200


@pytest.mark.parametrize(
    ("text", "cause"),
    [
        (
            '{"messages": [], "messages": [{"role": "user", "content": "hi"}]}',
            "key 'messages' appears twice; JSON readers disagree on which list counts",
        ),
        (
            'steps:\n  - assistant:\n      calls:\n        - query_order: {order_no: "88239", order_no: "10001"}\n',
            "key 'order_no' appears twice in one mapping; give it once",
        ),
        (
            "steps:\n  - assistant:\n      calls:\n        - query_order: {order_no: %s}\n" % BIG,
            "arguments of 'query_order': the integer 111111111111111111111... is outside ±(2^53−1); quote it as text",
        ),
        (
            'steps:\n  - user: "\\ud800"\n  - assistant: hi\n',
            "a lone surrogate (\\ud800) is not text; write the character itself",
        ),
    ],
)
def test_what_cannot_be_read_unambiguously_is_refused_naming_it(bitmall, staff_client, text, cause) -> None:
    response = staff_client.post("/preview/result.json", {"script": text})
    assert response.status_code == 400
    assert response.json()["error"]["details"]["cause"] == cause
    page = staff_client.post(URL, {"script": text})
    assert page.status_code == 200
    assert cause.replace("'", "&#x27;") in page.content.decode()


def test_a_lone_surrogate_in_a_pasted_transcript_is_no_500(bitmall, staff_client) -> None:
    text = '[{"role": "user", "content": "a\\ud800b"}, ' + NEXT + "]"
    response = staff_client.post(URL, {"script": text})
    assert response.status_code == 200
    doc = parse(response.content)
    assert [(n["data-warning-code"], int(n["data-warning-index"])) for n in doc.select("data-warning")] == [
        ("message_ambiguous", 0)
    ]
    assert staff_client.post("/preview/result.json", {"script": text}).status_code == 200
