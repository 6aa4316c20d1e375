"""The linear rule and simulator return exactly what the reference implementation returned
(issue 10 item 2; docs/rule.md, "Cost").

``tests/domain/oracle/`` holds the code as it was before the rewrite (rescanning the history per
round and per call). Hypothesis generates transcripts and scripts — loads, repeated loads, masked
calls, evictions, compactions, flush_memory, stubs, markers, duplicate / missing call ids,
malformed arguments, outdated versions, restrictions — and every public result is compared:
``compute_round``, ``check_call``, ``load_skill``, ``loaded_by_message``, ``replay`` and
``simulate`` (rounds, matrix, events, warnings with their codes and params, final messages).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skill_rule import rules, simulator
from skill_rule.errors import DomainError
from skill_rule.messages import ToolCall
from skill_rule.scripts import Script, Step
from skill_rule.transcript import ALREADY_LOADED_TEMPLATE

from . import factories as f
from .oracle import rules as oracle_rules
from .oracle import simulator as oracle_simulator

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CATALOGS = {
    "shop": f.shop(),
    "versions": f.shop(
        f.skill("alpha", ("refund", "cancel"), sort_order=10, version=3),
        f.skill("beta", ("cancel", "ship"), sort_order=20, version=2),
        f.skill("gamma", ("export",), sort_order=5, enabled=False),
    ),
    "restricted": f.shop(
        profiles={"clerk": {"lookup", "cancel", "refund", "gone"}}, stages={"late": {"lookup", "ship", "cancel"}}
    ),
    "dangling": f.shop(f.skill("alpha", ("refund", "cancel", "vanished"), sort_order=10), f.BETA),
    "no_skills": f.shop(f.skill("alpha", ("refund",), enabled=False)),
}
RESTRICTIONS = [
    {},
    {"access_profile": "clerk"},
    {"stage": "late"},
    {"access_profile": "clerk", "stage": "late"},
    {"allowed_tools": ["lookup", "cancel", "nope"]},
]

CODES = st.sampled_from(["alpha", "beta", "gamma", "", "Alpha", "zz"])
IDS = st.sampled_from(["c1", "c2", "c3", "", None])
TOOLS = st.sampled_from(
    ["load_skill", "lookup", "refund", "cancel", "ship", "export", "flush_memory", "search_knowledge", "nope"]
)
ARGS = st.one_of(
    st.fixed_dictionaries(
        {}, optional={"skill_code": CODES, "q": st.sampled_from(["x", ""]), "order_no": st.sampled_from(["88", "x"])}
    ),
    st.sampled_from(['{"skill_code": "alpha"}', "{bad", "null", "[1]", json.dumps('{"skill_code": "beta"}'), ""]),
)


@st.composite
def calls(draw):
    call = {"name": draw(TOOLS), "arguments": draw(ARGS)}
    call_id = draw(IDS)
    if call_id is not None:
        call["id"] = call_id
    return call


@st.composite
def tool_results(draw):
    code = draw(CODES)
    metadata = draw(
        st.sampled_from(
            [
                None,
                {},
                {f.MARKER: code},
                {f.MARKER: code, "skill_version": draw(st.sampled_from([1, 2, 3, True, "2"]))},
                {f.MARKER: code, "evicted": True},
                {"already_loaded": True, "skill_code": code},
                {"other": 1},
            ]
        )
    )
    content = draw(
        st.sampled_from(
            [
                f"# {code} manual",
                "",
                "   ",
                f"{f.EVICTED_PREFIX}120 字]",
                "result",
                ALREADY_LOADED_TEMPLATE % {"name": "Alpha", "code": "alpha", "version": 1},
                # whole published manuals of other versions (the factories' texts), wrapped, cut, a stub with a suffix
                f.manual(code, 2),
                f.manual(code, 3),
                f"<out>\n{f.manual(code, 3)}\n</out>",
                f.manual(code, 3)[:9],
                ALREADY_LOADED_TEMPLATE % {"name": "Alpha", "code": "alpha", "version": 3} + " [3 ms]",
            ]
        )
    )
    message = {"role": "tool", "content": content}
    call_id = draw(IDS)
    if call_id is not None:
        message["tool_call_id"] = call_id
    if metadata is not None:
        message["metadata"] = metadata
    if draw(st.booleans()):
        message["state"] = draw(st.sampled_from(["success", "error"]))
    return message


@st.composite
def messages(draw):
    kind = draw(st.sampled_from(["user", "system", "assistant", "tool", "tool"]))
    if kind == "assistant":
        return {
            "role": "assistant",
            "content": draw(st.sampled_from(["", "ok"])),
            "tool_calls": draw(st.lists(calls(), max_size=3)),
        }
    if kind == "tool":
        return draw(tool_results())
    return {"role": kind, "content": draw(st.sampled_from(["hi", ""]))}


transcripts = st.lists(messages(), max_size=14)


def problems(items):
    """Warnings with what a page reads of them: text, code, params."""
    return [(str(p), getattr(p, "code", None), getattr(p, "params", None)) for p in items]


def view_shape(view):
    return view.as_dict(), problems(view.warnings)


def outcome(fn, *args, **kwargs):
    """The result, or the refusal (type and message) when the call raises a domain error."""
    try:
        return ("ok", fn(*args, **kwargs))
    except DomainError as exc:
        return ("error", type(exc).__name__, str(exc))


def simulation_shape(sim):
    doc = sim.as_dict()
    assert doc.pop("stopped", None) is None  # the one key the linear code adds (time budget)
    return {
        "doc": doc,
        "rounds": [(r.as_dict(), problems(r.view.warnings), problems(r.failures), r.say, r.line) for r in sim.rounds],
        "events": problems(sim.events),
        "warnings": problems(sim.warnings),
        "messages": [m.as_dict() for m in sim.messages],
    }


@SETTINGS
@given(
    transcript=transcripts,
    catalog=st.sampled_from(sorted(CATALOGS)),
    restriction=st.sampled_from(RESTRICTIONS),
    call=calls(),
    code=CODES,
)
def test_the_round_the_guard_and_load_skill_equal_the_oracle(transcript, catalog, restriction, call, code):
    cat = CATALOGS[catalog]
    if catalog != "restricted":
        restriction = {k: v for k, v in restriction.items() if k == "allowed_tools"}
    new = outcome(rules.compute_round, cat, transcript, **restriction)
    old = outcome(oracle_rules.compute_round, cat, transcript, **restriction)
    if new[0] == "ok":
        assert old[0] == "ok"
        assert view_shape(new[1]) == view_shape(old[1])
    else:
        assert new == old
        return
    assert (
        rules.check_call(cat, transcript, call, **restriction).as_dict()
        == oracle_rules.check_call(cat, transcript, call, **restriction).as_dict()
    )
    assert rules.load_skill(cat, transcript, code).as_dict() == oracle_rules.load_skill(cat, transcript, code).as_dict()
    msgs = rules.as_messages(transcript)
    assert rules.loaded_by_message(msgs, cat) == oracle_rules.loaded_by_message(msgs, cat)
    assert simulation_shape(simulator.replay(cat, transcript, **restriction)) == simulation_shape(
        oracle_simulator.replay(cat, transcript, **restriction)
    )


@st.composite
def steps(draw):
    kind = draw(st.sampled_from(["user", "system", "assistant", "assistant", "assistant", "compact", "evict"]))
    line = draw(st.integers(1, 40))
    if kind in ("user", "system"):
        return Step(kind=kind, line=line, text="hi")
    if kind == "assistant":
        made = []
        for c in draw(st.lists(calls(), max_size=4)):
            args = c["arguments"] if isinstance(c["arguments"], dict) else {}
            made.append(ToolCall(name=c["name"], arguments=args, id=c.get("id") or ""))
        results = draw(
            st.dictionaries(
                TOOLS, st.sampled_from(["done", {"content": "bad", "state": "error"}, {"content": ""}]), max_size=2
            )
        )
        expect = draw(
            st.sampled_from(
                [
                    {},
                    {"count": 7},
                    {"masked": ["refund", "cancel", "ship"]},
                    {"includes": ["cancel"], "excludes": ["ship"]},
                    {"loaded": ["alpha"]},
                    {"masked": {"refund": "alpha"}},
                    {"visible": ["lookup"]},
                ]
            )
        )
        return Step(kind=kind, line=line, text="", calls=tuple(made), results=results, expect=expect)
    indices = tuple(draw(st.lists(st.integers(1, 12), max_size=3)))
    if kind == "compact":
        return Step(kind=kind, line=line, drop=indices)
    tool = draw(st.sampled_from([None, "load_skill", "lookup", "cancel", "nope"]))
    return Step(kind=kind, line=line, evict_tool=tool, drop=indices if tool is None or draw(st.booleans()) else ())


@st.composite
def scripts(draw):
    body = draw(st.lists(steps(), min_size=1, max_size=16))
    numbered, n = [], 0
    unique_ids = draw(st.booleans())  # as parse_script numbers them, or the drawn (colliding) ids
    for step in body:
        if unique_ids and step.calls:
            new_calls = []
            for c in step.calls:
                n += 1
                new_calls.append(ToolCall(name=c.name, arguments=c.arguments, id=f"call_{n}"))
            step = Step(
                kind=step.kind,
                line=step.line,
                text=step.text,
                calls=tuple(new_calls),
                results=step.results,
                expect=step.expect,
            )
        numbered.append(step)
    return Script(name="generated", steps=tuple(numbered))


@SETTINGS
@given(script=scripts(), catalog=st.sampled_from(sorted(CATALOGS)), restriction=st.sampled_from(RESTRICTIONS))
def test_simulate_equals_the_oracle(script, catalog, restriction):
    cat = CATALOGS[catalog]
    if catalog != "restricted":
        restriction = {k: v for k, v in restriction.items() if k == "allowed_tools"}
    new = outcome(simulator.simulate, cat, script, **restriction)
    old = outcome(oracle_simulator.simulate, cat, script, **restriction)
    assert new[0] == old[0]
    if new[0] == "ok":
        assert simulation_shape(new[1]) == simulation_shape(old[1])
    else:
        assert new == old


def test_the_generators_reach_the_cases_that_matter():
    """Not a property: a fixed script through both, with a load, a repeat load (stub), a masked
    call, an eviction of the manual, a compaction and a reload — the cases the generators aim at."""
    s = lambda kind, **kw: Step(kind=kind, line=1, **kw)  # noqa: E731
    load = lambda n, code: ToolCall("load_skill", {"skill_code": code}, id=f"call_{n}")  # noqa: E731
    script = Script(
        name="fixed",
        steps=(
            s("user", text="cancel"),
            s("assistant", calls=(ToolCall("cancel", {"order_no": "1"}, id="call_1"), load(2, "alpha"))),
            s("assistant", calls=(load(3, "alpha"), ToolCall("cancel", {"order_no": "1"}, id="call_4"))),
            s("evict", evict_tool="load_skill"),
            s("assistant", calls=(ToolCall("flush_memory", {}, id="call_5"),)),
            s("compact", drop=(1, 2)),
            s("assistant", calls=(load(6, "beta"),)),
            s("assistant"),
        ),
    )
    new, old = simulator.simulate(f.shop(), script), oracle_simulator.simulate(f.shop(), script)
    assert simulation_shape(new) == simulation_shape(old)
    assert [r.view.count for r in new.rounds] == [5, 7, 5, 5, 7]
    assert [c.verdict.reason for c in new.rounds[0].calls] == ["masked", None]
    assert new.rounds[1].calls[0].already_loaded is True
    assert [e.code for e in new.events] == ["evicted", "compacted"]


@pytest.mark.parametrize("catalog", sorted(CATALOGS))
def test_an_empty_transcript_equals_the_oracle(catalog):
    cat = CATALOGS[catalog]
    assert view_shape(rules.compute_round(cat, ())) == view_shape(oracle_rules.compute_round(cat, ()))


@SETTINGS
@given(transcript=transcripts, evict=st.lists(st.integers(0, 13), max_size=3))
def test_the_reader_after_every_message_and_eviction_equals_a_full_read(transcript, evict):
    """``EvidenceReader`` fed message by message (then evicting some results) holds what the
    oracle's ``read_evidence`` finds in the same messages read at once."""
    from skill_rule.messages import as_messages
    from skill_rule.simulator import eviction_placeholder
    from skill_rule.transcript import EvidenceReader

    from .oracle import transcript as oracle_transcript

    cat = CATALOGS["versions"]
    try:
        msgs = as_messages(transcript)
    except DomainError:
        return
    keys = {"marker_key": cat.marker_key, "eviction_prefix": cat.eviction_prefix, "published": cat.published_manuals}

    def same(reader, messages):
        want = oracle_transcript.read_evidence(messages, **keys)
        got = reader.evidence()
        # the oracle has its own LoadedManual class: compare the fields
        assert [vars(m) for m in got.manuals] == [vars(m) for m in want.manuals]
        assert problems(got.warnings) == problems(want.warnings)
        assert got.codes == want.codes
        from skill_rule.transcript import outdated_warnings

        versions = {s.code: (s.version, s.tool_ids) for s in cat.enabled_skills}
        assert problems(outdated_warnings(got, versions)) == problems(
            oracle_transcript.outdated_warnings(want, versions)
        )

    reader = EvidenceReader(**keys)
    for k, m in enumerate(msgs):
        reader.append(m)
        same(reader, msgs[: k + 1])
    current = list(msgs)
    for i in evict:
        if i < len(current) and current[i].role == "tool":
            current[i] = eviction_placeholder(cat, current[i])
            reader.replace(i, current[i])
            same(reader, tuple(current))
