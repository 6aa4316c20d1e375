"""The transcript table (tests/transcript_cases.py) pasted into the preview's paste box: the round
after the transcript shows the exact loaded skills, masked tools and warnings."""

from __future__ import annotations

import json

import pytest

from skills_app.catalog import selectors
from tests.transcript_cases import CASES, Case, expected_loaded_in_catalog_order, order_change_v2
from tests.views.html import parse

URL = "/preview/"
NEXT = {"role": "assistant", "content": "好的"}


@pytest.fixture
def catalog_v2(bitmall):
    order_change_v2()
    return [s.code for s in selectors.catalog_draft().enabled_skills]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_paste_box_reads_the_transcript(catalog_v2, staff_client, case: Case) -> None:
    response = staff_client.post(URL, {"script": json.dumps([*case.messages, NEXT], ensure_ascii=False)})
    assert response.status_code == 200
    doc = parse(response.content)
    last = doc.select("data-round")[-1]
    assert last.values("data-loaded") == expected_loaded_in_catalog_order(case, catalog_v2)
    masked = {n["data-masked-tool"]: n["data-skill"] for n in last.select("data-masked-tool")}
    assert masked == case.masked()
    shown = [(n["data-warning-code"], int(n["data-warning-index"])) for n in doc.select("data-warning")]
    assert shown == list(case.warnings)
