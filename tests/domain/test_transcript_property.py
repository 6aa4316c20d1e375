"""Property (docs/transcripts.md): whatever messages are added, removed or reordered, a gated
tool is released only when a successful, non-stub result holding the whole manual of a skill gating
it (whitespace-normalised, text around it allowed) answers, after it, a ``load_skill`` call of that
skill with the same id.

The oracle below reads the raw JSON itself (its own reading of ids, error flags, content and
arguments) and checks a *necessary* condition — it is deliberately not the implementation's
pairing algorithm.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skill_rule import compute_round, parse_messages
from skill_rule.rules import load_skill

from .factories import shop

CATALOG = shop()  # alpha → [refund, cancel], beta → [cancel, ship]
GATING = {"refund": {"alpha"}, "cancel": {"alpha", "beta"}, "ship": {"beta"}}
CODES = ["alpha", "beta", "gamma"]
IDS = ["c1", "c2", "call_0", "", None]
#: ids of the wrong JSON type (issue 22: never an id) beside the text "5"
ODD_IDS = [*IDS, 5, "5", True]
#: metadata a result without the marker may carry: absent, no metadata, or doubtful (issue 22)
METADATA = ["absent", "absent", "absent", None, {}, [], False, 0, "", [1], {"evicted": True}, {"latency_ms": 3}]
STUB_WORDS = "无需重复加载"


def _args(code: str, how: str) -> Any:
    plain = {"skill_code": code}
    return {
        "object": plain,
        "json": json.dumps(plain),
        "double": json.dumps(json.dumps(plain)),
        "truncated": json.dumps(plain)[:-3],
        "null": None,
        "list": [code],
    }[how]


@st.composite
def openai_call(draw) -> dict[str, Any]:
    calls = []
    for _ in range(draw(st.integers(1, 2))):
        c: dict[str, Any] = {
            "type": "function",
            "function": {
                "name": draw(st.sampled_from(["load_skill", "load_skill", "lookup"])),
                "arguments": _args(
                    draw(st.sampled_from(CODES)),
                    draw(st.sampled_from(["json", "json", "double", "truncated", "null", "list"])),
                ),
            },
        }
        cid = draw(st.sampled_from(ODD_IDS))
        if cid is not None:
            c["id"] = cid
        calls.append(c)
    return {"role": "assistant", "content": "", "tool_calls": calls}


#: Each skill's whole manual (tests/domain/factories.py: ``# alpha manual``), and texts around it.
MANUALS = {s.code: s.content for s in CATALOG.skills}


def _content(draw) -> Any:
    manual = MANUALS[draw(st.sampled_from(["alpha", "beta"]))]
    return draw(
        st.sampled_from(
            [
                "# manual",
                manual,
                manual,
                "",
                "   ",
                None,
                "技能「A」（alpha，v1）的手册已在上下文中，无需重复加载；请按上文手册继续。",
                "技能「A」（alpha，v1）的手册已在上下文中，无需重复加载；请按上文手册继续。\n[took 3 ms]",
                [{"type": "text", "text": manual}],
                "<out>\n" + manual + "\n</out>",  # wrapped: loads
                manual.replace(" ", "\n\t "),  # re-flowed: loads
                manual[:-1],
                manual[:5] + "…[truncated 1800 chars]",
                "#",  # cut: never loads
            ]
        )
    )


@st.composite
def openai_result(draw) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "tool", "content": _content(draw)}
    meta = draw(st.sampled_from(METADATA))
    if meta != "absent":
        msg["metadata"] = meta
    cid = draw(st.sampled_from(ODD_IDS))
    if cid is not None:
        msg["tool_call_id"] = cid
    flag = draw(
        st.sampled_from(["none", "none", "state_error", "state_FAILED", "is_error", "isError", "status", "state_null"])
    )
    msg.update(
        {
            "none": {},
            "state_error": {"state": "error"},
            "state_FAILED": {"state": "FAILED"},
            "is_error": {"is_error": True},
            "isError": {"isError": True},
            "status": {"status": "error"},
            "state_null": {"state": None},
        }[flag]
    )
    return msg


@st.composite
def anthropic_call(draw) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [
            {
                "type": "tool_use",
                "id": draw(st.sampled_from(["t1", "t2"])),
                "name": "load_skill",
                "input": {"skill_code": draw(st.sampled_from(CODES))},
            }
        ],
    }


@st.composite
def anthropic_result(draw) -> dict[str, Any]:
    block = {
        "type": "tool_result",
        "tool_use_id": draw(st.sampled_from(["t1", "t2", 5])),
        "content": _content(draw),
        "is_error": draw(st.booleans()),
    }
    meta = draw(st.sampled_from(METADATA))
    if meta != "absent":
        block["metadata"] = meta
    return {"role": "user", "content": [block]}


MESSAGE = st.one_of(
    st.just({"role": "user", "content": "hi"}), openai_call(), openai_result(), anthropic_call(), anthropic_result()
)


# --- the oracle: its own reading of the raw JSON ---------------------------------------------
#: an id no result can match (a call id of the wrong JSON type, or one shared by differing calls)
NEVER = object()


def _calls(raw: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(id, requested skill code or None) of every load_skill call in a raw assistant message.
    An id that is not a string is no id and can never be answered; so is an id shared in the
    message by calls that differ (name or code): no marker is generated, so nothing pairs there."""
    out = _raw_calls(raw)
    kinds: dict[Any, set] = {}
    for cid, key in out:
        if isinstance(cid, str) and cid:
            kinds.setdefault(cid, set()).add(key)
    return [
        (
            NEVER if not isinstance(cid, str) or len(kinds.get(cid, ())) > 1 else cid,
            key[1] if key[0] == "load_skill" else None,
        )
        for cid, key in out
    ]


def _raw_calls(raw: dict[str, Any]) -> list[tuple[Any, tuple[str, Any]]]:
    out = []
    if raw["role"] != "assistant":
        return out
    for c in raw.get("tool_calls") or []:
        f = c["function"]
        args = f["arguments"]
        for _ in range(2):  # JSON text, or JSON text inside a JSON string
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    args = None
        code = args.get("skill_code") if isinstance(args, dict) and f["name"] == "load_skill" else None
        out.append((c["id"] if c.get("id") is not None else "", (f["name"], json.dumps(code))))
    for block in raw["content"] if isinstance(raw["content"], list) else []:
        if block.get("type") == "tool_use":
            out.append((block["id"], ("load_skill", json.dumps(block["input"].get("skill_code")))))
    return [(cid, (name, json.loads(code))) for cid, (name, code) in out]


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content)
    return content or ""


def _good_results(raw: dict[str, Any]) -> list[tuple[str, str]]:
    """``(id, text)`` of the results in a raw message that could carry a manual: no error flag of
    any kind, non-blank text that is not the stub."""
    out = []
    if raw["role"] == "tool":
        failed = (
            str(raw.get("state", "")).lower() in ("error", "failed", "none")
            or raw.get("is_error")
            or raw.get("isError")
            or raw.get("status") == "error"
        )
        items = [(raw.get("tool_call_id"), raw.get("content"), failed, raw.get("metadata"))]
    elif raw["role"] == "user" and isinstance(raw["content"], list):
        items = [(b["tool_use_id"], b["content"], b["is_error"], b.get("metadata")) for b in raw["content"]]
    else:
        items = []
    for rid, content, failed, meta in items:
        text = _text(content)
        # no marker is generated: only a result without metadata (absent, null or {}) may load
        if not failed and text.strip() and STUB_WORDS not in text and meta in (None, {}):
            out.append((rid if isinstance(rid, str) else (NEVER if rid is not None else ""), text))
    return out


def _holds_manual(text: str, code: str) -> bool:
    """The oracle's own reading of "a whole manual": the manual's words, in order, one space
    apart, inside the text's words one space apart."""
    return " ".join(MANUALS[code].split()) in " ".join(text.split())


def has_evidence(raw_messages: list[dict[str, Any]], code: str) -> bool:
    """Some good result holding the whole manual of ``code`` after a load_skill(code) call answers
    it: same non-empty id, or no id right after a message that makes exactly that one call."""
    for i, call_msg in enumerate(raw_messages):
        calls = _calls(call_msg)
        for cid, asked in calls:
            if asked != code:
                continue
            for j in range(i + 1, len(raw_messages)):
                for rid, text in _good_results(raw_messages[j]):
                    if cid is NEVER or rid is NEVER or not _holds_manual(text, code):
                        continue
                    if cid and rid == cid:
                        return True
                    if not cid and not rid and j == i + 1 and len(call_msg.get("tool_calls") or []) == 1:
                        return True
    return False


def assert_released_only_with_evidence(raw: list[dict[str, Any]]) -> None:
    view = compute_round(CATALOG, parse_messages(raw))
    for tool in view.released:
        assert any(has_evidence(raw, code) for code in GATING[tool]), (tool, raw)
    for code in view.loaded:
        assert has_evidence(raw, code), (code, raw)


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.lists(MESSAGE, max_size=8))
def test_a_tool_is_released_only_by_valid_evidence(raw) -> None:
    assert_released_only_with_evidence(raw)


@SETTINGS
@given(st.lists(MESSAGE, min_size=1, max_size=8), st.data())
def test_adding_removing_or_reordering_messages_never_releases_without_evidence(raw, data) -> None:
    shuffled = data.draw(st.permutations(raw))
    assert_released_only_with_evidence(shuffled)
    drop = data.draw(st.integers(0, len(raw) - 1))
    assert_released_only_with_evidence(raw[:drop] + raw[drop + 1 :])
    extra = data.draw(MESSAGE)
    at = data.draw(st.integers(0, len(raw)))
    assert_released_only_with_evidence(raw[:at] + [extra] + raw[at:])


@SETTINGS
@given(st.lists(MESSAGE, max_size=8), st.sampled_from(["alpha", "beta"]))
def test_reading_never_raises_and_a_repeat_load_is_a_stub_only_with_evidence(raw, code) -> None:
    result = load_skill(CATALOG, parse_messages(raw), code)
    if result.already_loaded:
        assert has_evidence(raw, code)


def test_the_property_is_not_vacuous_a_whole_manual_loads_and_a_cut_one_does_not() -> None:
    """The generated results load a skill when they hold its whole manual (wrapped or re-flowed)
    and never when it is cut, so the properties above check something."""

    def round_with(content: Any) -> tuple[str, ...]:
        return compute_round(
            CATALOG,
            parse_messages(
                [
                    {
                        "role": "assistant",
                        "content": "",
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "load_skill", "arguments": '{"skill_code": "alpha"}'},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": content},
                ]
            ),
        ).loaded

    alpha = MANUALS["alpha"]
    assert [
        round_with(c)
        for c in (
            alpha,
            "<out>\n" + alpha + "\n</out>",
            alpha.replace(" ", "\n\t "),
            alpha[:-1],
            alpha[:5] + "…[truncated 1800 chars]",
            "#",
            MANUALS["beta"],
        )
    ] == [("alpha",), ("alpha",), ("alpha",), (), (), (), ()]
