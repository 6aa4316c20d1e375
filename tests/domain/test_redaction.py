"""Redaction of conversation samples (``skill_rule.redaction``; docs/runtime-api.md "Samples";
issue 26, item 3): what each kind of message keeps, replay fidelity — the rule and the guard give
the same answers on the redacted messages as on the originals, over every conversation of the
conformance corpus and over generated ones — and no user text in the redacted JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from skill_client.client import catalog_from_runtime
from skill_client.conformance import case_call, case_messages
from skill_rule import compute_round, parse_messages
from skill_rule.redaction import redact_messages
from skill_rule.reports import first_unredacted
from skill_rule.rules import check_call

from .factories import shop
from .test_transcript_property import MESSAGE

CORPUS = json.loads((Path(__file__).resolve().parents[2] / "conformance" / "corpus.json").read_text("utf-8"))
CATALOGS = {name: catalog_from_runtime(c["catalog"], c["manuals"]) for name, c in CORPUS["catalogs"].items()}
#: The verdicts the guard reaches before it reads a call's arguments (docs/runtime-api.md "Samples").
BEFORE_ARGUMENTS = {"unknown_tool", "masked", "not_permitted", "stage"}
#: The warnings a redacted sample cannot give again (see ``skill_rule.redaction``).
NOT_REPLAYED = {"message_ambiguous"}
MARKER = "ragent_loaded_skill"


def round_of(catalog, messages, **restrictions) -> tuple:
    view = compute_round(catalog, parse_messages(messages), **restrictions)
    codes = sorted(w.code for w in view.warnings if getattr(w, "code", None) not in NOT_REPLAYED)
    return view.visible, dict(view.masked), view.loaded, dict(view.withheld), codes


def replayed(messages: Any, **options: Any) -> list[dict[str, Any]]:
    """The redacted messages as a sample carries them: through JSON and back."""
    return json.loads(json.dumps(redact_messages(messages, **options), ensure_ascii=False))


def one_call(call: dict[str, Any], **options: Any) -> dict[str, Any]:
    return redact_messages([{"role": "assistant", "content": "", "tool_calls": [call]}], **options)[0]["tool_calls"][0]


# --- what each message keeps --------------------------------------------------------------------

ROWS = [
    ("user text → its length", [{"role": "user", "content": "退掉 iPhone"}],
     [{"role": "user", "content": "", "redacted": {"chars": 9}}]),
    ("system text too; an empty text notes nothing", [{"role": "system", "content": "你是客服"},
                                                      {"role": "user", "content": ""}],
     [{"role": "system", "content": "", "redacted": {"chars": 4}}, {"role": "user", "content": ""}]),
    ("assistant text → length; load_skill keeps skill_code, its result is kept whole",
     [{"role": "assistant", "content": "先看手册",
       "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": "alpha"}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "# alpha manual", "metadata": {MARKER: "alpha", "skill_version": 1}}],
     [{"role": "assistant", "content": "", "redacted": {"chars": 4},
       "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": "alpha"}}]},
      {"role": "tool", "content": "# alpha manual", "tool_call_id": "c1", "state": "success",
       "metadata": {MARKER: "alpha", "skill_version": 1}}]),
    ("another tool: arguments → {} and their length; its result → length; other metadata → null",
     [{"role": "assistant", "content": "",
       "tool_calls": [{"id": "c2", "name": "cancel", "arguments": {"order_no": "88239"}}]},
      {"role": "tool", "tool_call_id": "c2", "content": "已取消 88239", "state": "error", "metadata": {"ms": 3}}],
     [{"role": "assistant", "content": "",
       "tool_calls": [{"id": "c2", "name": "cancel", "arguments": {}, "redacted": {"chars": 20}}]},
      {"role": "tool", "content": "", "redacted": {"chars": 9}, "tool_call_id": "c2", "state": "error",
       "metadata": {"ms": None}}]),
    ("a skill_code that is no skill code → '?', other load_skill keys → null",
     [{"role": "assistant", "content": "",
       "tool_calls": [{"id": "c3", "name": "load_skill", "arguments": {"skill_code": "我的地址是…", "why": "x"}}]}],
     [{"role": "assistant", "content": "",
       "tool_calls": [{"id": "c3", "name": "load_skill", "arguments": {"why": None, "skill_code": "?"}}]}]),
    ("arguments that were no object keep their problem, not their text",
     [{"role": "assistant", "content": "",
       "tool_calls": [{"id": "c4", "type": "function", "function": {"name": "cancel", "arguments": "{order 88239"}}]}],
     [{"role": "assistant", "content": "", "tool_calls": [{"id": "c4", "name": "cancel", "arguments": "{"}]}]),
]  # fmt: skip


@pytest.mark.parametrize(("what", "messages", "redacted"), ROWS, ids=[r[0] for r in ROWS])
def test_what_each_message_keeps(what, messages, redacted) -> None:
    assert redact_messages(messages) == redacted
    assert first_unredacted(redacted) is None  # what the console checks on ingest
    assert round_of(shop(), redacted) == round_of(shop(), messages)


def test_keep_arguments_keeps_every_call_s_arguments() -> None:
    call = {"id": "c2", "name": "cancel", "arguments": {"order_no": "88239"}}
    assert one_call(call, keep_arguments=True) == call
    assert first_unredacted([{"role": "assistant", "content": "", "tool_calls": [call]}]) == 0
    assert first_unredacted([{"role": "assistant", "content": "", "tool_calls": [call]}], keep_arguments=True) is None


# --- replay fidelity: the conformance corpus --------------------------------------------------


@pytest.mark.parametrize("case", CORPUS["cases"], ids=[c["id"] for c in CORPUS["cases"]])
def test_the_corpus_replays_the_same_on_the_redacted_messages(case) -> None:
    catalog = CATALOGS[case["catalog"]]
    options = dict(case.get("restrictions") or {})
    original = parse_messages(case_messages(case))
    free_text = any(p.code == "arguments_free_text" for m in original for p in m.problems)
    for keep in (False, True):
        redacted = replayed(original, keep_arguments=keep, marker_key=catalog.marker_key)
        want, got = round_of(catalog, original, **options), round_of(catalog, redacted, **options)
        if free_text:  # read back as arguments_unparseable (skill_rule.redaction): the rest is the same
            want, got = want[:4], got[:4]
        assert got == want
        for check in case.get("check_call", []):
            call = case_call(check)
            if not isinstance(call, dict) or ("function" in call and not isinstance(call["function"], dict)):
                continue
            as_read = one_call(call, keep_arguments=True, marker_key=catalog.marker_key)
            before = check_call(catalog, original, as_read, **options)
            after = check_call(catalog, redacted, one_call(call, keep_arguments=keep), **options)
            if keep or before.name == "load_skill" or before.reason in BEFORE_ARGUMENTS:
                assert (after.verdict, after.reason, after.skill_code) == (
                    before.verdict,
                    before.reason,
                    before.skill_code,
                )


def test_the_demo_scenario_replays_and_keeps_no_user_text() -> None:
    """The seed session (cancel-iphone) of the corpus: the user's text is gone, the round is the same."""
    case = next(
        c for c in CORPUS["cases"] if c["id"] == "transcripts/reused id call_0: each result answers its own call"
    )
    text = case["messages"][0]["content"]
    catalog = CATALOGS[case["catalog"]]
    redacted = replayed(case["messages"], marker_key=catalog.marker_key)
    assert text not in json.dumps(redacted, ensure_ascii=False)
    assert round_of(catalog, redacted) == round_of(catalog, case["messages"])


# --- properties: generated conversations --------------------------------------------------------

SECRET = st.text(alphabet=st.characters(codec="utf-8", categories=["L", "N"]), min_size=6, max_size=30)


@st.composite
def conversation(draw) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]]]:
    """Messages of the transcript property (calls, results, stubs, odd ids and flags) with user
    and assistant messages and call arguments holding secrets; the secrets; and the same
    messages with each secret written as as many "·" (a character no secret holds)."""
    messages, secrets, blanked = [], [], []
    for raw in draw(st.lists(MESSAGE, max_size=8)):
        secret = draw(SECRET)
        secrets.append(secret)
        messages.append(with_secret(raw, secret))
        blanked.append(with_secret(raw, "·" * len(secret)))
    return messages, secrets, blanked


def with_secret(raw: dict[str, Any], secret: str) -> dict[str, Any]:
    if raw.get("role") == "user":
        return {"role": "user", "content": f"user says {secret}"}
    if raw.get("role") == "assistant" and isinstance(raw.get("content"), str):
        calls = [*raw.get("tool_calls", []), {"id": "x9", "name": "lookup", "arguments": {"q": secret}}]
        return {**raw, "content": f"assistant says {secret}", "tool_calls": calls}
    return raw


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(conversation())
@example(([{"role": "user", "content": "user says 0tent0"}], ["0tent0"],
          [{"role": "user", "content": "user says ······"}]))  # CI, stop 33: "tent" is in "content"  # fmt: skip
def test_redacted_messages_replay_the_same_round_and_hold_no_secret(drawn) -> None:
    messages, secrets, blanked = drawn
    catalog = shop()
    redacted = replayed(messages)
    assert round_of(catalog, redacted) == round_of(catalog, messages)
    assert first_unredacted(redacted) is None
    text = json.dumps(redacted, ensure_ascii=False)
    # The redaction's own words ("content", "redacted", the generated ids, the manuals) may hold a
    # piece of a secret by chance (secret "0tent0": "tent" is in "content"). The same conversation
    # with its secrets blanked gives that skeleton: a piece in the text but not in it is a leak.
    skeleton = json.dumps([replayed(blanked), MANUAL_TEXTS], ensure_ascii=False)
    for secret in secrets:
        for i in range(len(secret) - 3):  # no substring of 4 characters or more
            piece = secret[i : i + 4]
            assert piece not in text or piece in skeleton, (piece, secret)


MANUAL_TEXTS = [s.content for s in shop().skills]


# --- the console's check of a sample: any JSON is refused or stored, never a 500 ---------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
KEYS = st.sampled_from(["role", "content", "tool_calls", "tool_call_id", "metadata", "redacted", "state", "id"])
MESSAGE_LIKE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system"])},
    optional={"content": st.text(max_size=8) | JSON, "tool_calls": st.lists(st.dictionaries(KEYS, JSON), max_size=2),
              "tool_call_id": JSON, "metadata": JSON, "redacted": JSON, "state": JSON},
)  # fmt: skip


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(MESSAGE_LIKE | JSON, max_size=4), st.sampled_from(["redacted", "arguments"]))
def test_any_sample_is_refused_with_its_field_or_stored_redacted(messages, redaction) -> None:
    from datetime import UTC, datetime

    from skill_rule.reports import ReportError, parse_reports

    now = datetime.now(UTC)
    record = {"id": "s", "kind": "sample", "at": now.isoformat(), "instance": "i", "release": 1,
              "sha256": "0" * 64, "conversation": "c", "round": 1, "redaction": redaction, "messages": messages}  # fmt: skip
    try:
        (report,) = parse_reports({"records": [record]}, now=now, retention_days=30)
    except ReportError as exc:
        assert exc.index == 0 and exc.field is not None and exc.field.startswith(("messages", "redaction"))
    else:  # stored: redacting it again changes nothing, so no text beyond what the mode keeps
        stored = list(report.messages or ())
        assert first_unredacted(stored, keep_arguments=redaction == "arguments") is None
        for m in stored:
            if m["role"] in ("user", "system", "assistant"):
                assert m.get("content") in ("", None, [])
