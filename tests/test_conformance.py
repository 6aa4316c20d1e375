"""The conformance corpus (``conformance/corpus.json``, docs/runtime-api.md "Conformance corpus"):
the committed file is what the rule's tables give today, and ``skill_client.client.RuntimeClient``
— fetching each catalog over HTTP exactly as a runtime would, answering locally — passes every case.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skill_client.conformance import (
    CORPUS_PATH,
    answers,
    client_implementation,
    corpus_diff,
    corpus_text,
    expected,
    main,
    run_corpus,
    serve_catalogs,
)

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / CORPUS_PATH
COMMITTED: dict[str, Any] = json.loads(FILE.read_text(encoding="utf-8"))
REGENERATE = f"python manage.py export_conformance {CORPUS_PATH}"


# --- the file is current -----------------------------------------------------------------------


def test_the_committed_corpus_is_what_the_tables_give_now(db) -> None:
    from tests.conformance_cases import build_corpus

    fresh = build_corpus()
    if corpus_text(fresh) != FILE.read_text(encoding="utf-8"):
        summary = "\n  ".join(corpus_diff(COMMITTED, fresh) or ["the text differs (layout or key order)"])
        pytest.fail(f"{CORPUS_PATH} is stale; run `{REGENERATE}` and commit it:\n  {summary}", pytrace=False)


def test_the_corpus_holds_every_table_and_the_seed_numbers() -> None:
    from tests.call_round_cases import CASES as CALL_ROUND
    from tests.domain.test_guard_verdicts import CASES as GUARD
    from tests.domain.test_load_skill import REPEAT_CASES
    from tests.domain.test_round import ROUND_CASES
    from tests.transcript_cases import CASES as TRANSCRIPTS

    ids = [c["id"] for c in COMMITTED["cases"]]
    assert len(ids) == len(set(ids))
    for prefix, table in (
        ("transcripts", TRANSCRIPTS),
        ("round", ROUND_CASES),
        ("guard", GUARD),
        ("load_skill", REPEAT_CASES),
        ("call_round", CALL_ROUND),
    ):
        assert [i for i in ids if i.startswith(f"{prefix}/")] == [f"{prefix}/{c.id}" for c in table]
    from tests.ambiguous_cases import API_CALL_CASES, CALL_CASES
    from tests.ambiguous_cases import CASES as AMBIGUOUS

    AMBIGUOUS_CALLS = [*CALL_CASES, *API_CALL_CASES]

    by_id = {c["id"]: c for c in COMMITTED["cases"]}
    assert [i for i in ids if i.startswith("ambiguous/")] == [f"ambiguous/{c.id}" for c in AMBIGUOUS] + [
        f"ambiguous/call/{c.id}" for c in AMBIGUOUS_CALLS
    ]
    assert all(
        by_id[f"ambiguous/{c.id}"]["messages_text"] == c.text and "messages" not in by_id[f"ambiguous/{c.id}"]
        for c in AMBIGUOUS
    )  # the exact text: a duplicate key survives
    assert [by_id[f"ambiguous/call/{c.id}"]["check_call"][0]["call_text"] for c in AMBIGUOUS_CALLS] == [
        c.text for c in AMBIGUOUS_CALLS
    ]
    cancel = [c for c in COMMITTED["cases"] if c["id"].startswith("scenarios/bitmall/cancel-iphone/")]
    assert [c["round"]["count"] for c in cancel] == [11, 13, 13]
    gated = ["apply_after_sale", "cancel_order", "change_address", "update_cart_item", "create_order", "pay_order"]
    assert [[t for t in gated if t in c["round"]["masked"]] for c in cancel] == [
        gated,
        ["apply_after_sale", "update_cart_item", "create_order", "pay_order"],
        ["apply_after_sale", "update_cart_item", "create_order", "pay_order"],
    ]
    assert [(v["verdict"], v["reason"]) for v in (c["check_call"][0]["answer"] for c in cancel)] == [
        ("allowed", None),
        ("allowed", None),
        ("confirm", None),
    ]
    assert {
        name: e["catalog"]["release"] for name, e in COMMITTED["catalogs"].items() if name.startswith("bitmall")
    } == {"bitmall": 1, "bitmall-order-change-v2": 2, "bitmall-support-lite": 3, "bitmall-system-prompt": 4}
    placed = [c for c in COMMITTED["cases"] if c["id"].startswith("placement/system-prompt/cancel-iphone/")]
    assert [c["round"]["count"] for c in placed] == [11, 13, 13]
    assert [len(c["round"]["catalog_text"].split("\n")) for c in placed] == [5, 5, 5]
    assert COMMITTED["catalogs"]["bitmall-system-prompt"]["catalog"]["catalog_placement"] == "system_prompt"
    assert not any("catalog_text" in c["round"] for c in COMMITTED["cases"] if c["catalog"] != "bitmall-system-prompt")


def test_the_diff_names_the_changed_case_and_field() -> None:
    stale = copy.deepcopy(COMMITTED)
    stale["cases"][0]["round"]["count"] += 1
    del stale["cases"][1]
    lines = corpus_diff(stale, COMMITTED)
    first, second = COMMITTED["cases"][0], COMMITTED["cases"][1]
    assert lines == [
        f"case {first['id']!r}: changed (round.count: {first['round']['count'] + 1} → {first['round']['count']})",
        f"case {second['id']!r}: new",
    ]
    assert corpus_diff(COMMITTED, COMMITTED) == []
    assert corpus_diff(None, COMMITTED) == ["the file does not exist"]


def test_check_exits_1_naming_the_stale_case_and_the_command(tmp_path) -> None:
    stale = copy.deepcopy(COMMITTED)
    stale["cases"][0]["round"]["count"] += 1
    path = tmp_path / "corpus.json"
    path.write_text(corpus_text(stale), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("SKILL_CONSOLE_DB", "DJANGO_SETTINGS_MODULE")}
    env.update(SKILL_CONSOLE_VAR_DIR=str(tmp_path / "var"), SKILL_CONSOLE_SQLITE=str(tmp_path / "unused.sqlite3"))
    run = subprocess.run(
        [sys.executable, "manage.py", "export_conformance", str(path), "--check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stderr
    assert f"{path} is stale; run `python manage.py export_conformance {path}`:" in run.stderr
    assert f"case {COMMITTED['cases'][0]['id']!r}: changed (round.count:" in run.stderr
    assert path.read_text(encoding="utf-8") == corpus_text(stale)  # --check writes nothing


# --- the Python client passes it ---------------------------------------------------------------


@pytest.fixture(scope="module")
def clients(tmp_path_factory):
    """One ``RuntimeClient`` per catalog of the corpus, each fetched from ``serve_catalogs``."""
    cache = tmp_path_factory.mktemp("conformance-cache")
    with serve_catalogs(COMMITTED) as url:
        yield {name: client_implementation(url, name, cache) for name in COMMITTED["catalogs"]}


@pytest.mark.parametrize("case", COMMITTED["cases"], ids=[c["id"] for c in COMMITTED["cases"]])
def test_the_python_client_passes_the_case(clients, case) -> None:
    client = clients[case["catalog"]]
    assert client.stale is False and client.release == COMMITTED["catalogs"][case["catalog"]]["catalog"]["release"]
    assert answers(client, case, COMMITTED["catalogs"][case["catalog"]]["manuals"]) == expected(case)


def test_the_runner_reports_a_case_the_implementation_answers_otherwise(clients, tmp_path, capsys) -> None:
    assert run_corpus(COMMITTED, clients.__getitem__) == []
    wrong = copy.deepcopy(COMMITTED)
    case = next(c for c in wrong["cases"] if c["id"].startswith("scenarios/bitmall/cancel-iphone/"))
    case["check_call"][0]["answer"]["verdict"] = "refused"
    assert run_corpus(wrong, clients.__getitem__) == [
        f'{case["id"]}: check_call[0].answer.verdict: "refused" → "allowed" (expected → got)'
    ]
    path = tmp_path / "corpus.json"
    path.write_text(corpus_text(wrong), encoding="utf-8")
    assert main([str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f'{case["id"]}: check_call[0].answer.verdict: "refused" → "allowed" (expected → got)',
        f"{len(wrong['cases'])} cases, 1 failed",
    ]


def test_without_sentences_a_reworded_message_passes_and_a_changed_code_does_not(clients) -> None:
    wrong = copy.deepcopy(COMMITTED)
    case = next(c for c in wrong["cases"] if c["round"]["warnings"])
    case["round"]["warnings"][0]["message"] = "reworded"
    guard = next(c for c in wrong["cases"] if c["id"] == "guard/a masked tool")
    guard["check_call"][0]["answer"]["message"] = "reworded"
    unknown = next(
        c for c in wrong["cases"] if c.get("load_skill") and c["load_skill"][0]["answer"]["state"] == "error"
    )
    unknown["load_skill"][0]["answer"].update(content="reworded", content_sha256="0" * 64)
    assert len(run_corpus(wrong, clients.__getitem__)) == 3
    assert run_corpus(wrong, clients.__getitem__, sentences=False) == []
    code = case["round"]["warnings"][0]["code"]
    case["round"]["warnings"][0]["code"] = "other_code"
    assert run_corpus(wrong, clients.__getitem__, sentences=False) == [
        f'{case["id"]}: round.warnings[0].code: "other_code" → "{code}" (expected → got)'
    ]


def test_the_readme_loop_runs_over_the_whole_corpus() -> None:
    """conformance/README.md's Python loop (the one an implementer translates) passes as written."""
    import re

    readme = (ROOT / "conformance" / "README.md").read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert '"conformance/corpus.json"' in code
    code = code.replace('"conformance/corpus.json"', repr(str(FILE)))  # the loop reads it from the repository root
    exec(compile(code, "conformance/README.md", "exec"), {})  # noqa: S102 — the repository's own doc


class _JsonAnswers:
    """The client's answers as the endpoints' JSON bodies (what an implementation behind HTTP or
    another language hands back): ``rounds``, ``check-call`` (with ``target``), ``load-skill``."""

    def __init__(self, client) -> None:
        self.client = client

    def round(self, messages, **restrictions):
        body = json.loads(json.dumps(self.client.round(messages, **restrictions).as_dict()))
        if self.client.catalog_text() is not None:  # rounds answers it under the system_prompt placement
            body["catalog_text"] = self.client.catalog_text()
        return body

    def check_call(self, messages, call, **restrictions):
        verdict = self.client.check_call(messages, call, **restrictions)
        return {**verdict.as_dict(), "target": verdict.target}

    def load_skill(self, messages, skill_code):
        return self.client.load_skill(messages, skill_code).as_dict()


def test_an_implementation_answering_the_endpoints_json_passes_too(clients) -> None:
    assert run_corpus(COMMITTED, lambda name: _JsonAnswers(clients[name])) == []


def test_a_value_a_table_states_that_the_domain_does_not_give_stops_the_export() -> None:
    from skill_client.conformance import CorpusBuilder, CorpusError
    from tests.domain.factories import loaded, shop

    builder = CorpusBuilder()
    name = builder.catalog("shop", shop())
    assert builder.catalog("again", shop()) == name  # the same catalog is registered once
    builder.case(
        "ok",
        name,
        loaded("alpha"),
        source="here",
        stated_round={"loaded": ["alpha"]},
        calls=[({"name": "ship", "arguments": {}}, {"verdict": "refused", "reason": "masked"})],
    )
    with pytest.raises(CorpusError) as exc:
        builder.case("wrong", name, loaded("alpha"), source="here", stated_round={"loaded": ["beta"]})
    assert str(exc.value) == "case 'wrong': the table says round loaded = ['beta'], the domain gives ['alpha']"
    with pytest.raises(CorpusError) as exc:
        builder.case("wrong call", name, [], source="here", calls=[({"name": "ship"}, {"skill_code": "alpha"})])
    assert str(exc.value) == (
        "case 'wrong call': the table says check_call 'ship' skill_code = 'alpha', the domain gives 'beta'"
    )
    with pytest.raises(CorpusError, match="case 'ok': the id is used twice"):
        builder.case("ok", name, [], source="here")
    assert [c["id"] for c in builder.corpus()["cases"]] == ["ok"]


def test_a_text_case_is_read_with_the_strict_reader() -> None:
    """``messages_text`` / ``call_text`` are read with ``jsontext.loads`` (docs/runtime-api.md,
    "Conformance corpus"): the duplicate key is marked, not kept silently."""
    from skill_client.conformance import case_call, case_messages
    from skill_rule import jsontext

    by_id = {c["id"]: c for c in COMMITTED["cases"]}
    messages = case_messages(by_id["ambiguous/tool_call_id twice in the result"])
    assert jsontext.ambiguity_of(messages) == "[2]: key 'tool_call_id' appears twice"
    call = case_call(by_id["ambiguous/call/order_no twice, arguments an object"]["check_call"][0])
    assert jsontext.ambiguity_of(call) == "arguments: key 'order_no' appears twice"
    plain = next(c for c in COMMITTED["cases"] if c["id"].startswith("transcripts/"))
    assert case_messages(plain) is plain["messages"]
