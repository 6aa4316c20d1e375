"""One table of real-world transcript shapes (docs/transcripts.md) with the exact ``loaded``
skills and warnings each must give against the bitmall demo catalog (order_change at version 2).

Run by three runners: the domain (``tests/domain/test_transcript_table.py``), the ``rounds`` and
``check-call`` endpoints (``tests/api/test_transcript_table.py``) and the preview's paste box
(``tests/views/test_transcript_table.py``). ``masked`` follows from ``loaded``: every gated tool
minus what the loaded manuals release, owned as seed 000's second table says.

The catalog (``order_change_v2``): the demo published as release 1 (order_change at version 1,
its manual ``MANUAL_V1``), then order_change's manual saved as version 2 (``MANUAL``). A result
loads a skill only when it holds a whole published manual of it (docs/transcripts.md), so the
results carry the real manuals.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skill_rule.transcript import already_loaded_stub
from tests.api.support import BITMALL_GATED

MARKER = "ragent_loaded_skill"
_MANUALS = Path(__file__).resolve().parent.parent / "skills_app" / "demo" / "bitmall" / "manuals"
#: order_change's manual at version 1 (the demo's file, published in release 1) and at version 2.
MANUAL_V1 = (_MANUALS / "order_change.md").read_text(encoding="utf-8")
MANUAL = MANUAL_V1 + "\n## 第 2 版补充\n取消前先 query_order 确认状态。\n"
#: after_sale_apply's manual (version 1, unchanged).
AFTER_SALE = (_MANUALS / "after_sale_apply.md").read_text(encoding="utf-8")
USER = {"role": "user", "content": "那台iPhone 18 Pro Max我不想要了，帮我取消"}
#: Seed 000, second table: gated tool → the manual that releases it (named once, in tests/api/support.py).
GATED = BITMALL_GATED
#: The version the table's catalog holds order_change at (one saved change after the demo load).
ORDER_CHANGE_VERSION = 2


def order_change_v2() -> None:
    """The table's catalog in the database (the ``bitmall`` fixture loaded): publish the demo as
    release 1, then save order_change's manual as ``MANUAL`` (version 2, in the draft)."""
    from skills_app.catalog import selectors, services
    from tests.api.support import publish_draft

    publish_draft()
    services.skill_update(skill=selectors.skill_get(code="order_change"), content=MANUAL)


def oa_call(call_id: Any, name: str, arguments: Any) -> dict[str, Any]:
    """OpenAI assistant message with one call; ``arguments`` given as sent (str or raw)."""
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": arguments}}
    if call_id is not None:
        call["id"] = call_id
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def load(call_id: Any, code: str) -> dict[str, Any]:
    return oa_call(call_id, "load_skill", json.dumps({"skill_code": code}))


def oa_result(call_id: Any, content: Any = MANUAL, **flags: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "tool", "content": content, **flags}
    if call_id is not None:
        msg["tool_call_id"] = call_id
    return msg


def an_load(call_id: str, code: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "先加载手册"},
            {"type": "tool_use", "id": call_id, "name": "load_skill", "input": {"skill_code": code}},
        ],
    }


def an_result(call_id: Any, content: Any = MANUAL, **flags: Any) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": content, **flags}]}


def rs_call(call_id: str | None, name: str, arguments: Any) -> dict[str, Any]:
    """An OpenAI Responses ``function_call`` item (``arguments`` JSON text as sent)."""
    item: dict[str, Any] = {
        "type": "function_call",
        "id": "fc_" + (call_id or "x"),
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }
    if call_id is not None:
        item["call_id"] = call_id
    return item


def rs_load(call_id: str | None, code: str) -> dict[str, Any]:
    return rs_call(call_id, "load_skill", json.dumps({"skill_code": code}))


def rs_output(
    call_id: str | None, output: Any = MANUAL, kind: str = "function_call_output", **flags: Any
) -> dict[str, Any]:
    item: dict[str, Any] = {"type": kind, "output": output, **flags}
    if call_id is not None:
        item["call_id"] = call_id
    return item


RS_USER = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": USER["content"]}]}
RS_SAYS = {
    "type": "message",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "先加载手册", "annotations": []}],
}
RS_REASONING = {"type": "reasoning", "id": "rs_1", "summary": []}


@dataclass(frozen=True)
class Case:
    id: str
    messages: list[dict[str, Any]]
    loaded: frozenset[str]
    #: (code, 0-based message index) of every transcript warning, in order.
    warnings: tuple[tuple[str, int], ...] = ()
    note: str = field(default="", compare=False)

    def masked(self) -> dict[str, str]:
        return {t: s for t, s in GATED.items() if s not in self.loaded}


def _two_calls(first_id: str | None, second_id: str | None) -> dict[str, Any]:
    calls = []
    for cid, code in ((first_id, "order_change"), (second_id, "after_sale_apply")):
        c: dict[str, Any] = {
            "type": "function",
            "function": {"name": "load_skill", "arguments": json.dumps({"skill_code": code})},
        }
        if cid is not None:
            c["id"] = cid
        calls.append(c)
    return {"role": "assistant", "content": "", "tool_calls": calls}


STUB = already_loaded_stub(name="订单修改", code="order_change", version=ORDER_CHANGE_VERSION)

CASES: tuple[Case, ...] = (
    # 1. pairing
    Case(
        "reused id call_0: each result answers its own call",
        [
            USER,
            load("call_0", "order_change"),
            oa_result("call_0"),
            load("call_0", "after_sale_apply"),
            oa_result("call_0", AFTER_SALE),
        ],
        frozenset({"order_change", "after_sale_apply"}),
    ),
    Case(
        "a result before its call answers nothing",
        [USER, oa_result("call_0"), load("call_0", "order_change")],
        frozenset(),
        (("result_unpaired", 1),),
    ),
    Case(
        "a result with an id no call has answers nothing",
        [USER, load("a", "order_change"), oa_result("b")],
        frozenset(),
        (("result_unpaired", 2),),
    ),
    Case(
        "a reused id: the second result does not answer the older call again",
        [USER, load("call_0", "order_change"), oa_result("call_0", state="error"), oa_result("call_0")],
        frozenset(),
        (("result_unpaired", 3),),
    ),
    # calls sharing one id (issue 22 item 2): positional pairing only when the calls are the same
    Case(
        "two different load_skill calls sharing an id: an unmarked result is a guess and loads nothing",
        [USER, _two_calls("dup", "dup"), oa_result("dup", state="error"), oa_result("dup")],
        frozenset(),
        (("duplicate_call_id", 1), ("pairing_ambiguous", 3)),
        note="was loaded {after_sale_apply} by position before issue 22",
    ),
    Case(
        "results out of order in a group: the manual of one skill never loads the other, whose load failed",
        [USER, _two_calls("dup", "dup"), oa_result("dup", AFTER_SALE), oa_result("dup", state="error")],
        frozenset(),
        (("duplicate_call_id", 1), ("pairing_ambiguous", 2)),
    ),
    Case(
        "a group with markers: each result loads the skill its marker names, in any order",
        [
            USER,
            _two_calls("dup", "dup"),
            oa_result("dup", AFTER_SALE, metadata={MARKER: "after_sale_apply"}),
            oa_result("dup", state="error", metadata={MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION}),
        ],
        frozenset({"after_sale_apply"}),
        (("duplicate_call_id", 1),),
    ),
    Case(
        "a marker naming a skill no call of the group asked for loads nothing",
        [USER, _two_calls("dup", "dup"), oa_result("dup", metadata={MARKER: "order_checkout"})],
        frozenset(),
        (("duplicate_call_id", 1), ("pairing_ambiguous", 2)),
    ),
    Case(
        "load_skill and another tool sharing an id: the other tool's result never loads the manual",
        [
            USER,
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "d",
                        "type": "function",
                        "function": {"name": "load_skill", "arguments": json.dumps({"skill_code": "order_change"})},
                    },
                    {"id": "d", "type": "function", "function": {"name": "query_order", "arguments": "{}"}},
                ],
            },
            oa_result("d", "订单 88239：待发货"),
            oa_result("d", state="error"),
        ],
        frozenset(),
        (("duplicate_call_id", 1), ("pairing_ambiguous", 2)),
    ),
    Case(
        "identical load_skill calls sharing an id keep positional pairing",
        [
            USER,
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": "dup",
                        "type": "function",
                        "function": {"name": "load_skill", "arguments": json.dumps({"skill_code": "order_change"})},
                    }
                    for _ in range(2)
                ],
            },
            oa_result("dup", state="error"),
            oa_result("dup"),
        ],
        frozenset({"order_change"}),
        (("duplicate_call_id", 1),),
    ),
    Case(
        "a result without id right after a one-call message answers that call",
        [USER, load(None, "order_change"), oa_result(None)],
        frozenset({"order_change"}),
    ),
    Case(
        "a result with an empty id right after a one-call message answers that call",
        [USER, load("", "order_change"), oa_result("")],
        frozenset({"order_change"}),
    ),
    Case(
        "a result without id never answers a call that has one",
        [USER, load("c1", "order_change"), oa_result(None)],
        frozenset(),
        (("result_id_missing", 2),),
    ),
    Case(
        "a result without id after a two-call message answers nothing",
        [USER, _two_calls(None, None), oa_result(None)],
        frozenset(),
        (("call_id_missing", 1), ("result_id_missing", 2)),
    ),
    Case(
        "a result without id that does not follow the call answers nothing",
        [USER, load(None, "order_change"), USER, oa_result(None)],
        frozenset(),
        (("result_id_missing", 3),),
    ),
    # 2. bad old arguments never wedge
    Case(
        "truncated JSON arguments of an old load_skill: a warning, no arguments, nothing loaded",
        [USER, oa_call("c1", "load_skill", '{"skill_code": "order_ch'), oa_result("c1")],
        frozenset(),
        (("arguments_unparseable", 1),),
    ),
    Case(
        "double-encoded arguments are decoded once more, with a warning",
        [USER, oa_call("c1", "load_skill", json.dumps(json.dumps({"skill_code": "order_change"}))), oa_result("c1")],
        frozenset({"order_change"}),
        (("arguments_double_encoded", 1),),
    ),
    Case(
        "null arguments: a warning, no arguments",
        [USER, oa_call("c1", "load_skill", None), oa_result("c1")],
        frozenset(),
        (("arguments_not_object", 1),),
    ),
    Case(
        "a double-encoded string that is no object: a warning, no arguments",
        [USER, oa_call("c1", "load_skill", json.dumps("order_change")), oa_result("c1")],
        frozenset(),
        (("arguments_not_object", 1),),
    ),
    Case(
        "bad arguments of an old unrelated call do not block a later load",
        [
            USER,
            oa_call("q1", "query_order", "{oops"),
            oa_result("q1", "五笔订单"),
            load("c1", "order_change"),
            oa_result("c1"),
        ],
        frozenset({"order_change"}),
        (("arguments_unparseable", 1),),
    ),
    # 3. failed, empty and stub results never load
    Case("state FAILED (any case)", [USER, load("c1", "order_change"), oa_result("c1", state="FAILED")], frozenset()),
    Case("state Error (any case)", [USER, load("c1", "order_change"), oa_result("c1", state="Error")], frozenset()),
    Case("is_error true", [USER, load("c1", "order_change"), oa_result("c1", is_error=True)], frozenset()),
    Case("isError true (MCP)", [USER, load("c1", "order_change"), oa_result("c1", isError=True)], frozenset()),
    Case('status "error"', [USER, load("c1", "order_change"), oa_result("c1", status="error")], frozenset()),
    Case("Anthropic is_error", [USER, an_load("t1", "order_change"), an_result("t1", is_error=True)], frozenset()),
    # an error flag that says neither success nor failure: read as failed, with a warning (fail closed)
    Case(
        "is_error 0 reads as failed",
        [USER, load("c1", "order_change"), oa_result("c1", is_error=0)],
        frozenset(),
        (("error_flag_ambiguous", 2),),
    ),
    Case(
        "isError null reads as failed",
        [USER, load("c1", "order_change"), oa_result("c1", isError=None)],
        frozenset(),
        (("error_flag_ambiguous", 2),),
    ),
    Case(
        'status "timeout" reads as failed',
        [USER, load("c1", "order_change"), oa_result("c1", status="timeout")],
        frozenset(),
        (("error_flag_ambiguous", 2),),
    ),
    Case(
        "Anthropic is_error null reads as failed",
        [USER, an_load("t1", "order_change"), an_result("t1", is_error=None)],
        frozenset(),
        (("error_flag_ambiguous", 2),),
    ),
    Case(
        'status "success" (LangChain) and is_error false load',
        [USER, load("c1", "order_change"), oa_result("c1", status="success", is_error=False)],
        frozenset({"order_change"}),
    ),
    Case("empty content", [USER, load("c1", "order_change"), oa_result("c1", "")], frozenset(), (("manual_empty", 2),)),
    Case(
        "null content", [USER, load("c1", "order_change"), oa_result("c1", None)], frozenset(), (("manual_empty", 2),)
    ),
    Case(
        "whitespace-only content",
        [USER, load("c1", "order_change"), oa_result("c1", " \n\t ")],
        frozenset(),
        (("manual_empty", 2),),
    ),
    Case(
        "the already-loaded stub without metadata",
        [USER, load("c1", "order_change"), oa_result("c1", STUB)],
        frozenset(),
    ),
    Case(
        "the already-loaded stub with its metadata",
        [
            USER,
            load("c1", "order_change"),
            oa_result("c1", STUB, metadata={"already_loaded": True, "skill_code": "order_change"}),
        ],
        frozenset(),
    ),
    Case(
        "a marker result that answers a load_skill of another skill loads nothing",
        [
            USER,
            load("c1", "after_sale_apply"),
            oa_result("c1", metadata={MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION}),
        ],
        frozenset(),
        (("marker_mismatch", 2),),
    ),
    # 3b. the marker: the runtime's own record, so it counts without its call (compacted away), but
    # doubtful metadata never releases a tool (fail closed, docs/transcripts.md)
    Case(
        "a marker result whose call was compacted away still loads, with the pairing's warning",
        [USER, oa_result("zz", metadata={MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION})],
        frozenset({"order_change"}),
        (("result_unpaired", 1),),
    ),
    Case(
        "a marker on the result of another tool loads nothing",
        [
            USER,
            oa_call("q1", "query_order", "{}"),
            oa_result("q1", metadata={MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION}),
        ],
        frozenset(),
        (("marker_not_load_skill", 2),),
    ),
    Case(
        "a marker that is no skill code loads nothing",
        [USER, load("c1", "order_change"), oa_result("c1", metadata={MARKER: 123})],
        frozenset(),
        (("marker_invalid", 2),),
    ),
    Case(
        "an empty marker loads nothing",
        [USER, load("c1", "order_change"), oa_result("c1", metadata={MARKER: ""})],
        frozenset(),
        (("marker_invalid", 2),),
    ),
    Case(
        "a load_skill result with metadata but no marker loads nothing",
        [USER, load("c1", "order_change"), oa_result("c1", metadata={"latency_ms": 30})],
        frozenset(),
        (("marker_missing", 2),),
    ),
    Case(
        'evicted "true" (text) reads as evicted',
        [
            USER,
            load("c1", "order_change"),
            oa_result(
                "c1", metadata={MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION, "evicted": "true"}
            ),
        ],
        frozenset(),
        (("evicted_ambiguous", 2),),
    ),
    Case(
        "evicted 1 reads as evicted",
        [USER, load("c1", "order_change"), oa_result("c1", metadata={MARKER: "order_change", "evicted": 1})],
        frozenset(),
        (("evicted_ambiguous", 2),),
    ),
    Case(
        "evicted false keeps the manual",
        [
            USER,
            load("c1", "order_change"),
            oa_result("c1", metadata={MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION, "evicted": False}),
        ],
        frozenset({"order_change"}),
    ),
    Case(
        'already_loaded "true" (text) reads as the stub',
        [
            USER,
            load("c1", "order_change"),
            oa_result("c1", metadata={MARKER: "order_change", "already_loaded": "true"}),
        ],
        frozenset(),
        (("already_loaded_ambiguous", 2),),
    ),
    Case(
        'skill_version "2" (text) beside the whole current manual: the text names the version, no warning',
        [USER, load("c1", "order_change"), oa_result("c1", metadata={MARKER: "order_change", "skill_version": "2"})],
        frozenset({"order_change"}),
    ),
    # 4. Anthropic shape
    Case(
        "Anthropic tool_use / tool_result with text content",
        [USER, an_load("toolu_1", "order_change"), an_result("toolu_1")],
        frozenset({"order_change"}),
    ),
    Case(
        "Anthropic tool_result with content blocks",
        [USER, an_load("toolu_1", "order_change"), an_result("toolu_1", [{"type": "text", "text": MANUAL}])],
        frozenset({"order_change"}),
    ),
    Case(
        "Anthropic tool_result with empty blocks loads nothing",
        [USER, an_load("toolu_1", "order_change"), an_result("toolu_1", [])],
        frozenset(),
        (("manual_empty", 2),),
    ),
    # 4b. doubtful JSON types (issue 22 item 8): read as absent and untrusted, never a 400, never a load
    *(
        Case(
            f"metadata {json.dumps(bad)} on a load_skill result loads nothing",
            [USER, load("c1", "order_change"), oa_result("c1", metadata=bad)],
            frozenset(),
            (("metadata_invalid", 2),),
            note='[], false, 0, "" loaded before issue 22; [1], true were a 400',
        )
        for bad in ([], False, 0, "", [1], True, "order_change")
    ),
    Case(
        "metadata {} is no metadata: the OpenAI pairing loads",
        [USER, load("c1", "order_change"), oa_result("c1", metadata={})],
        frozenset({"order_change"}),
    ),
    Case(
        "metadata null is no metadata",
        [USER, load("c1", "order_change"), oa_result("c1", metadata=None)],
        frozenset({"order_change"}),
    ),
    *(
        Case(
            f"tool_calls {json.dumps(bad)} reads as no calls, with a warning",
            [USER, {"role": "assistant", "content": "好的", "tool_calls": bad}, oa_result("c1")],
            frozenset(),
            (("tool_calls_invalid", 1), ("result_unpaired", 2)),
            note="read as [] silently before issue 22",
        )
        for bad in ({}, 0, "", True)
    ),
    Case(
        "tool_calls null is no calls", [USER, {"role": "assistant", "content": "好的", "tool_calls": None}], frozenset()
    ),
    Case(
        "a call id 5 and a result id 5: neither is an id, nothing pairs",
        [USER, load(5, "order_change"), oa_result(5)],
        frozenset(),
        (("call_id_invalid", 1), ("call_id_invalid", 2)),
        note="the result's 5 was read as '5' before issue 22",
    ),
    Case(
        "a call id '5' and a result id 5: the result answers nothing",
        [USER, load("5", "order_change"), oa_result(5)],
        frozenset(),
        (("call_id_invalid", 2),),
        note="loaded order_change before issue 22",
    ),
    Case(
        "a call id 5 is never answered by the id-less result after it",
        [USER, load(5, "order_change"), oa_result(None)],
        frozenset(),
        (("call_id_invalid", 1), ("result_id_missing", 2)),
    ),
    Case(
        "a result id true after an id-less call answers nothing",
        [USER, load(None, "order_change"), oa_result(True)],
        frozenset(),
        (("call_id_invalid", 2),),
    ),
    Case(
        "a result id of the wrong type with the marker still loads (the runtime's own record)",
        [
            USER,
            load("c1", "order_change"),
            oa_result(7, metadata={MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION}),
        ],
        frozenset({"order_change"}),
        (("call_id_invalid", 2),),
    ),
    Case(
        "an Anthropic tool_use id 5 and tool_result id 5 pair with nothing",
        [
            USER,
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": 5, "name": "load_skill", "input": {"skill_code": "order_change"}}
                ],
            },
            an_result(5),
        ],
        frozenset(),
        (("call_id_invalid", 1), ("call_id_invalid", 2)),
    ),
    Case(
        "state null reads as failed, with a warning",
        [USER, load("c1", "order_change"), oa_result("c1", state=None)],
        frozenset(),
        (("error_flag_ambiguous", 2),),
        note="loaded before issue 22",
    ),
    Case(
        'status "OK" and state "SUCCESS" (any case) load',
        [USER, load("c1", "order_change"), oa_result("c1", status="OK", state="SUCCESS")],
        frozenset({"order_change"}),
    ),
    # metadata on an Anthropic tool_result block is read like a tool message's metadata
    Case(
        "Anthropic tool_result with metadata evicted true loads nothing",
        [USER, an_load("t1", "order_change"), an_result("t1", metadata={"evicted": True})],
        frozenset(),
        note="loaded before issue 22: the block's metadata was ignored",
    ),
    Case(
        "Anthropic tool_result with metadata without the marker loads nothing",
        [USER, an_load("t1", "order_change"), an_result("t1", metadata={"latency_ms": 30})],
        frozenset(),
        (("marker_missing", 2),),
    ),
    Case(
        "Anthropic tool_result with a marker whose call was compacted away loads",
        [USER, an_result("t1", metadata={MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION})],
        frozenset({"order_change"}),
        (("result_unpaired", 1),),
    ),
    Case(
        "Anthropic tool_result with metadata [] loads nothing",
        [USER, an_load("t1", "order_change"), an_result("t1", metadata=[])],
        frozenset(),
        (("metadata_invalid", 2),),
    ),
    Case(
        "an id-less Anthropic tool_result block after another block answers nothing",
        [
            USER,
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "load_skill", "input": {"skill_code": "after_sale_apply"}},
                    {"type": "tool_use", "name": "load_skill", "input": {"skill_code": "order_change"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": AFTER_SALE},
                    {"type": "tool_result", "content": MANUAL},
                ],
            },
        ],
        frozenset({"after_sale_apply"}),
        (("call_id_missing", 1), ("result_id_missing", 2)),
    ),
    # 5. versions
    Case(
        "a retained manual older than the skill: loaded, with a warning naming the tools",
        [
            USER,
            load("c1", "order_change"),
            oa_result("c1", MANUAL_V1, metadata={MARKER: "order_change", "skill_version": 1}),
        ],
        frozenset({"order_change"}),
        (("manual_outdated", 2),),
    ),
    Case(
        "a retained manual of the current version: no warning",
        [
            USER,
            load("c1", "order_change"),
            oa_result("c1", metadata={MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION}),
        ],
        frozenset({"order_change"}),
    ),
    # 6. OpenAI Responses API input items (docs/transcripts.md, "OpenAI Responses")
    Case(
        "Responses function_call / function_call_output",
        [RS_USER, rs_load("call_1", "order_change"), rs_output("call_1")],
        frozenset({"order_change"}),
    ),
    Case(
        "Responses: reasoning, an assistant message and two parallel calls are one response",
        [
            RS_USER,
            RS_REASONING,
            RS_SAYS,
            rs_load("call_1", "order_change"),
            rs_load("call_2", "after_sale_apply"),
            rs_output("call_2", AFTER_SALE),
            rs_output("call_1"),
        ],
        frozenset({"order_change", "after_sale_apply"}),
    ),
    Case(
        "Responses output as a list of input_text parts",
        [RS_USER, rs_load("call_1", "order_change"), rs_output("call_1", [{"type": "input_text", "text": MANUAL}])],
        frozenset({"order_change"}),
    ),
    Case(
        "Responses output status incomplete: failed, with a warning",
        [RS_USER, rs_load("call_1", "order_change"), rs_output("call_1", status="incomplete")],
        frozenset(),
        (("error_flag_ambiguous", 2),),
    ),
    Case(
        "Responses output status completed: loaded",
        [RS_USER, rs_load("call_1", "order_change"), rs_output("call_1", status="completed")],
        frozenset({"order_change"}),
    ),
    Case(
        "Responses truncated arguments: a warning naming the item, nothing loaded",
        [RS_USER, RS_SAYS, rs_call("call_1", "load_skill", '{"skill_code": "order_ch'), rs_output("call_1")],
        frozenset(),
        (("arguments_unparseable", 2),),
    ),
    Case(
        "Responses custom_tool_call load_skill: free text loads nothing, with a warning naming the item",
        [
            RS_USER,
            RS_SAYS,
            {"type": "custom_tool_call", "call_id": "call_1", "name": "load_skill", "input": "order_change"},
            rs_output("call_1", kind="custom_tool_call_output"),
        ],
        frozenset(),
        (("arguments_free_text", 2),),
    ),
    Case(
        "Responses output for an unknown call_id answers nothing",
        [RS_USER, rs_load("call_1", "order_change"), rs_output("call_9")],
        frozenset(),
        (("result_unpaired", 2),),
    ),
    Case(
        "Responses items mixed with the chat shape",
        [
            USER,
            rs_load("call_1", "order_change"),
            oa_result("call_1"),
            load("c2", "after_sale_apply"),
            rs_output("c2", AFTER_SALE),
        ],
        frozenset({"order_change", "after_sale_apply"}),
    ),
    # 7. only a whole published manual releases tools (docs/transcripts.md, "A whole published manual")
    Case(
        "one character with the marker loads nothing",
        [
            USER,
            load("c1", "order_change"),
            oa_result("c1", "#", metadata={MARKER: "order_change", "skill_version": ORDER_CHANGE_VERSION}),
        ],
        frozenset(),
        (("manual_incomplete", 2),),
    ),
    Case(
        "the head of the manual cut by the runtime's tool-output limit loads nothing",
        [USER, load("c1", "order_change"), oa_result("c1", MANUAL[:400] + "…[truncated 1800 chars]")],
        frozenset(),
        (("manual_incomplete", 2),),
    ),
    Case(
        "the whole manual wrapped in a runtime's prefix and suffix loads",
        [
            USER,
            load("c1", "order_change"),
            oa_result("c1", "<tool_output>\n" + MANUAL + "\n</tool_output>\n[took 12 ms]"),
        ],
        frozenset({"order_change"}),
    ),
    Case(
        "the whole manual with its whitespace re-flowed loads",
        [USER, load("c1", "order_change"), oa_result("c1", "  " + MANUAL.replace("\n", "\r\n\r\n").replace(" ", "\t"))],
        frozenset({"order_change"}),
    ),
    Case(
        "the already-loaded stub with a runtime's suffix loads nothing, without a warning",
        [USER, load("c1", "order_change"), oa_result("c1", STUB + "\n[took 3 ms]")],
        frozenset(),
    ),
    Case(
        "the already-loaded stub inside a runtime's wrapper loads nothing",
        [USER, load("c1", "order_change"), oa_result("c1", "<tool_output>" + STUB + "</tool_output>")],
        frozenset(),
    ),
    Case(
        "an earlier published manual without metadata loads, as that version",
        [USER, load("c1", "order_change"), oa_result("c1", MANUAL_V1)],
        frozenset({"order_change"}),
        (("manual_outdated", 2),),
    ),
    Case(
        "the current manual whose metadata names version 1: the text names the version, no warning",
        [USER, load("c1", "order_change"), oa_result("c1", metadata={MARKER: "order_change", "skill_version": 1})],
        frozenset({"order_change"}),
    ),
    Case(
        "a text never published (a draft edit in the middle) loads nothing",
        [USER, load("c1", "order_change"), oa_result("c1", MANUAL.replace("不要自行猜测", "自行挑一笔"))],
        frozenset(),
        (("manual_incomplete", 2),),
    ),
    Case(
        "another skill's whole manual for load_skill(order_change) loads nothing",
        [USER, load("c1", "order_change"), oa_result("c1", AFTER_SALE)],
        frozenset(),
        (("manual_incomplete", 2),),
    ),
)


def stub_expected(case: Case) -> bool:
    """Whether ``load_skill(order_change)`` after the case's messages is the already-loaded stub
    (docs/rule.md, "Repeat load"): order_change loaded, and by its current manual (a manual held
    at an older version carries ``manual_outdated``)."""
    return "order_change" in case.loaded and not any(code == "manual_outdated" for code, _ in case.warnings)


def expected_loaded_in_catalog_order(case: Case, order: list[str]) -> list[str]:
    return [code for code in order if code in case.loaded]
