"""The call-round table (tests/call_round_cases.py) in the preview's paste box: the case's YAML
script (the simulator) and its transcript (replay) show the exact verdict of the call in the
round in which the model made it (docs/rule.md, "The round of a call")."""

from __future__ import annotations

import json

import pytest

from tests.call_round_cases import CASES, Case, replayed
from tests.views.html import parse

URL = "/preview/"


def verdicts(content: bytes) -> list[list[tuple[str, str, str | None, str | None]]]:
    doc = parse(content)
    return [
        [
            (c["data-call"], c["data-verdict"], c["data-reason"] or None, c["data-call-skill"] or None)
            for c in r.select("data-call")
        ]
        for r in doc.select("data-round")
    ]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_yaml_script_shows_the_verdict_of_its_round(bitmall, staff_client, case: Case) -> None:
    response = staff_client.post(URL, {"script": case.script})
    assert response.status_code == 200
    _name, *verdict = verdicts(response.content)[-1][-1]
    assert tuple(verdict) == case.expected


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_pasted_transcript_shows_the_verdict_of_its_round(bitmall, staff_client, case: Case) -> None:
    transcript, at = replayed(case)
    response = staff_client.post(URL, {"script": json.dumps(transcript, ensure_ascii=False)})
    assert response.status_code == 200
    _name, *verdict = verdicts(response.content)[-1][at]
    assert tuple(verdict) == case.expected
