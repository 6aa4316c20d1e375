"""The rule's test tables as the conformance corpus (``packages/skill-client/src/skill_client/conformance.py``,
``conformance/corpus.json``; docs/runtime-api.md, "Conformance corpus").

Nothing here is a copy: each source below is imported and turned into corpus cases, so a row added
to a table is in the corpus once it is regenerated (``python manage.py export_conformance``), and
the staleness test (``tests/test_conformance.py``) fails until it is.

- ``tests/transcript_cases.py`` — every real-world transcript shape, on the bitmall demo as
  published with ``order_change`` at version 2 (its three runners' catalog): loaded, masked and
  warnings as the table states them; the guard's verdict on ``cancel_order`` as the runners assert
  it; the ``load_skill('order_change')`` answer computed.
- ``tests/domain/test_round.py`` ``ROUND_CASES`` — loaded / masked / visible on the tiny shop of
  ``tests/domain/factories.py`` (one catalog per distinct variant).
- ``tests/domain/test_guard_verdicts.py`` ``CASES`` — every branch of the guard, each verdict whole.
- ``tests/domain/test_load_skill.py`` ``REPEAT_CASES`` — the repeat-load rule: the full manual or
  the stub.
- the demo scenarios (``skills_app/demo/*/scenarios``) — each round of each scenario as the
  simulator runs it on the published demo (cancel-iphone: the seed's 11, 13, 13 tools and the six
  gated tools of docs/demo.md, masked then released), its expectations checked, every call's verdict
  and every ``load_skill`` answer.
- ``tests/test_withheld.py`` — the tool outside the access profile, withheld, never masked.
- the ``system_prompt`` catalog placement (docs/runtime-api.md, "Where the catalog goes") —
  cancel-iphone's rounds on bitmall published with it: each round's ``catalog_text`` too.
- ``tests/call_round_cases.py`` — the round of a call (parallel calls in one assistant message) on
  bitmall as first published (``order_change`` at version 1): each call's verdict, reason and skill
  code as the table states them, the call in the shape the case sends it.
- ``tests/ambiguous_cases.py`` — ambiguous JSON (docs/transcripts.md): message lists and calls as
  their exact JSON text (the case fields ``messages_text`` and ``call_text``), on bitmall as first
  published.

``build_corpus`` needs an empty database (the demo catalogs are loaded and published through the
real services, so the catalog body is the one the console serves): the management command makes a
throwaway one, the staleness test has pytest-django's.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from skill_client.conformance import CorpusBuilder, CorpusError
from skill_rule import Catalog, compute_round, parse_messages, parse_script, simulate
from skill_rule.limits import LOAD_SKILL

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "skills_app" / "demo"
CANCEL = {"name": "cancel_order", "arguments": {"order_no": "88239"}}


def _publish(note: str) -> tuple[Catalog, dict[str, Any]]:
    """Publish the draft as the next release (no gate: the corpus records what the rule answers,
    not whether a publisher would) and return the catalog the runtime answers from for it and the
    body ``GET runtime/catalog?release=N`` serves."""
    from skill_rule.runtime_catalog import catalog_body
    from skill_rule.snapshot import catalog_to_snapshot
    from skills_app.catalog import selectors
    from skills_app.releases import services as releases
    from skills_app.runtime.catalog_reads import runtime_served

    release = releases.release_create(
        snapshot=catalog_to_snapshot(selectors.catalog_draft()), user=releases.COMMAND_LINE, note=note
    )
    catalog = runtime_served(release=release.number).catalog
    body = json.loads(release.catalog_json)
    if body != json.loads(json.dumps(catalog_body(catalog), ensure_ascii=False)):
        raise CorpusError(f"release {release.number}: the stored body is not the catalog it serves")
    return catalog, body


def build_corpus() -> dict[str, Any]:
    """The whole corpus (``CorpusBuilder.corpus()``), built in the current database, which must
    hold no catalog. Writes the demo catalogs and releases there: run it in a throwaway database
    or a transaction that is rolled back."""
    from skills_app.catalog import selectors, services
    from skills_app.catalog.demo import demo_load

    builder = CorpusBuilder()
    demo_load(name="bitmall")
    bitmall_1 = _register(
        builder, "bitmall", "demo catalog 'bitmall'", "the bitmall demo (seed 000, docs/demo.md) as release 1"
    )
    from tests.transcript_cases import MANUAL

    skill = selectors.skill_get(code="order_change")
    services.skill_update(skill=skill, content=MANUAL)  # as tests/transcript_cases.py order_change_v2()
    bitmall_2 = _register(
        builder,
        "bitmall-order-change-v2",
        "order_change at version 2",
        "bitmall with order_change's manual saved again (version 2; version 1 is an "
        "earlier published manual), the catalog of tests/transcript_cases.py",
    )
    _transcripts(builder, bitmall_2)
    _scenarios(builder, "bitmall", bitmall_1)
    _call_round_table(builder, bitmall_1)
    _ambiguous_table(builder, bitmall_1)
    _withheld(builder)
    _system_prompt(builder)
    _round_table(builder)
    _guard_table(builder)
    _repeat_load_table(builder)
    with tempfile.TemporaryDirectory() as backups:
        demo_load(name="returns", replace=True, backup_dir=Path(backups))
    returns = _register(
        builder, "returns", "demo catalog 'returns'", "the returns demo (seed 004): access profiles and stages"
    )
    _scenarios(builder, "returns", returns)
    return builder.corpus()


def _register(builder: CorpusBuilder, name: str, publish_note: str, note: str) -> str:
    """Publish the draft and register the release as catalog ``name`` with the body it is served as."""
    catalog, body = _publish(publish_note)
    return builder.catalog(name, catalog, body=body, note=note)


# --- the sources -------------------------------------------------------------------------------


def _transcripts(builder: CorpusBuilder, catalog: str) -> None:
    from tests.transcript_cases import CASES, ORDER_CHANGE_VERSION

    held = builder.catalogs[catalog].catalog
    if held.skill("order_change").version != ORDER_CHANGE_VERSION:
        raise CorpusError(f"catalog {catalog!r}: order_change is not at version {ORDER_CHANGE_VERSION}")
    order = [s.code for s in held.enabled_skills]
    for case in CASES:
        stated_call = (
            {"verdict": "confirm", "reason": None}
            if "order_change" in case.loaded
            else {"verdict": "refused", "reason": "masked", "skill_code": "order_change"}
        )
        builder.case(
            f"transcripts/{case.id}",
            catalog,
            case.messages,
            source="tests/transcript_cases.py",
            note=case.note,
            stated_round={"loaded": [code for code in order if code in case.loaded], "masked": case.masked()},
            calls=[(CANCEL, stated_call)],
            loads=[("order_change", None)],
        )
        got = builder.cases[-1]["round"]["warnings"]
        if [(w["code"], w["index"]) for w in got] != list(case.warnings):
            raise CorpusError(
                f"case {case.id!r}: the table says warnings {list(case.warnings)}, "
                f"the domain gives {[(w['code'], w['index']) for w in got]}"
            )


def _scenarios(builder: CorpusBuilder, demo: str, catalog: str) -> None:
    """Each round of each scenario of the demo: the messages retained when it is computed, the
    calls of that assistant step and the answers to them. A scenario that compacts or evicts is
    left out (its rounds are no prefix of one transcript)."""
    held = builder.catalogs[catalog].catalog
    for path in sorted((DEMO / demo / "scenarios").glob("*.yaml")):
        source = f"skills_app/demo/{demo}/scenarios/{path.name}"
        _script_rounds(
            builder,
            catalog,
            held,
            parse_script(path.read_text(encoding="utf-8"), source=source),
            source,
            f"scenarios/{demo}/{path.stem}",
        )


def _script_rounds(
    builder: CorpusBuilder,
    catalog: str,
    held: Catalog,
    script,
    source: str,
    prefix: str,
    stated: dict[str, Any] | None = None,
) -> None:
    if any(step.kind in ("compact", "evict") for step in script.steps):
        return
    options = {
        "access_profile": script.access_profile,
        "stage": script.stage,
        "allowed_tools": list(script.allowed_tools) if script.allowed_tools is not None else None,
    }
    sim = simulate(held, script, budget=None)
    messages = [m.as_dict() for m in sim.messages]
    at = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
    if sim.stopped is not None or len(at) != len(sim.rounds):
        raise CorpusError(f"{source}: the simulation did not run every round")
    for number, (sim_round, index) in enumerate(zip(sim.rounds, at), start=1):
        if sim_round.failures:
            raise CorpusError(f"{source}: round {number} misses its expectations: {'; '.join(sim_round.failures)}")
        context = messages[:index]
        live = {k: v for k, v in options.items() if v is not None}
        if compute_round(held, parse_messages(context), **live) != sim_round.view:
            raise CorpusError(f"{source}: round {number} is not the round of its retained messages")
        calls = messages[index].get("tool_calls") or []
        want = dict(stated or {})
        if "count" in sim_round.expect:
            want["count"] = sim_round.expect["count"]
        builder.case(
            f"{prefix}/round {number}",
            catalog,
            context,
            source=source,
            restrictions=options,
            stated_round=want,
            calls=[
                (
                    {"name": c["name"], "arguments": c["arguments"]},
                    {"verdict": outcome.verdict.verdict, "reason": outcome.verdict.reason},
                )
                for c, outcome in zip(calls, sim_round.calls)
            ],
            loads=[(c["arguments"].get("skill_code"), None) for c in calls if c["name"] == LOAD_SKILL],
        )


def _withheld(builder: CorpusBuilder) -> None:
    """tests/test_withheld.py: its access profile added to bitmall and published, its script's rounds."""
    from skills_app.catalog import services
    from tests.test_withheld import MASKED, PROFILE, SCRIPT, WITHHELD

    services.access_profile_save(name="support_lite", tools=PROFILE)
    catalog = _register(
        builder,
        "bitmall-support-lite",
        "access profile support_lite",
        "bitmall (order_change at version 2) with the access profile support_lite of tests/test_withheld.py",
    )
    _script_rounds(
        builder,
        catalog,
        builder.catalogs[catalog].catalog,
        parse_script(SCRIPT),
        "tests/test_withheld.py",
        "withheld/after-sale-outside-profile",
        {"masked": MASKED, "withheld": WITHHELD},
    )


def _system_prompt(builder: CorpusBuilder) -> None:
    """docs/runtime-api.md, "Where the catalog goes": bitmall published with the catalog in the
    system prompt; the rounds of cancel-iphone carry ``catalog_text`` (the placement is set back
    to the default afterwards)."""
    from skills_app.catalog import services

    services.catalog_placement_set(placement="system_prompt")
    catalog = _register(
        builder,
        "bitmall-system-prompt",
        "catalog in the system prompt",
        "bitmall (order_change at version 2, the access profile support_lite) with catalog_placement "
        "system_prompt: every round answers catalog_text, one line per enabled skill",
    )
    services.catalog_placement_set(placement="tool_description")
    source = "skills_app/demo/bitmall/scenarios/cancel-iphone.yaml"
    _script_rounds(
        builder,
        catalog,
        builder.catalogs[catalog].catalog,
        parse_script(
            (DEMO / "bitmall" / "scenarios" / "cancel-iphone.yaml").read_text(encoding="utf-8"), source=source
        ),
        source,
        "placement/system-prompt/cancel-iphone",
    )


def _call_round_table(builder: CorpusBuilder, catalog: str) -> None:
    """tests/call_round_cases.py: each call checked in its round on bitmall as first published
    (order_change at version 1), the call in the shape the case sends it; its verdict, reason and
    skill code as the table states them."""
    from tests.call_round_cases import CASES

    held = builder.catalogs[catalog].catalog
    if held.skill("order_change").version != 1:
        raise CorpusError(f"catalog {catalog!r}: order_change is not at version 1")
    for case in CASES:
        verdict, reason, skill_code = case.expected
        builder.case(
            f"call_round/{case.id}",
            catalog,
            case.messages,
            source="tests/call_round_cases.py",
            calls=[(case.call, {"verdict": verdict, "reason": reason, "skill_code": skill_code})],
        )


def _ambiguous_table(builder: CorpusBuilder, catalog: str) -> None:
    """tests/ambiguous_cases.py: each message list as its exact JSON text (``messages_text``: a
    duplicate key cannot survive a dict) on bitmall as first published — loaded, masked and
    warnings (and the first warning's sentence) as the table states them, the guard's verdict on
    ``cancel_order``, the ``load_skill('order_change')`` answer computed; each call of
    ``CALL_CASES`` as its JSON text (``call_text``) with no messages, its verdict, reason and
    sentence as stated — with ``API_CALL_CASES`` (a call ambiguous outside its arguments: a key
    twice in the call itself), which the client refuses as the API does."""
    from tests.ambiguous_cases import API_CALL_CASES, CALL_CASES, CASES

    held = builder.catalogs[catalog].catalog
    order = [s.code for s in held.enabled_skills]
    for case in CASES:
        stated_call = (
            {"verdict": "confirm", "reason": None}
            if "order_change" in case.loaded
            else {"verdict": "refused", "reason": "masked", "skill_code": "order_change"}
        )
        builder.case(
            f"ambiguous/{case.id}",
            catalog,
            case.text,
            source="tests/ambiguous_cases.py",
            stated_round={"loaded": case.loaded_in(order), "masked": case.masked()},
            calls=[(CANCEL, stated_call)],
            loads=[("order_change", None)],
        )
        got = builder.cases[-1]["round"]["warnings"]
        if [(w["code"], w["index"]) for w in got] != list(case.warnings) or (
            case.first is not None and got[0]["message"] != case.first
        ):
            raise CorpusError(
                f"case {case.id!r}: the table says warnings {list(case.warnings)} ({case.first!r}), "
                f"the domain gives {[(w['code'], w['index'], w['message']) for w in got]}"
            )
    for call_case in (*CALL_CASES, *API_CALL_CASES):
        stated = {"verdict": call_case.verdict, "reason": call_case.reason, "message": call_case.message}
        builder.case(
            f"ambiguous/call/{call_case.id}",
            catalog,
            [],
            source="tests/ambiguous_cases.py",
            calls=[(call_case.text, stated)],
        )


def _round_table(builder: CorpusBuilder) -> None:
    from tests.domain.test_round import ROUND_CASES

    for case in ROUND_CASES:
        catalog = builder.catalog("shop", case.catalog, note="the tiny shop of tests/domain/factories.py")
        stated = {
            "loaded": list(case.expected["loaded"]),
            "masked": case.expected["masked"],
            "visible": list(case.expected["visible"]),
            "count": len(case.expected["visible"]),
        }
        builder.case(
            f"round/{case.id}", catalog, case.messages, source="tests/domain/test_round.py", stated_round=stated
        )


def _guard_table(builder: CorpusBuilder) -> None:
    from tests.domain.test_guard_verdicts import CASES, CATALOG

    catalog = builder.catalog("guard-shop", CATALOG, note="the catalog of tests/domain/test_guard_verdicts.py")
    for case in CASES:
        want = case.expected
        stated = {
            "verdict": want.verdict,
            "reason": want.reason,
            "skill_code": want.skill_code,
            "message": want.message,
            "target": want.target,
        }
        builder.case(
            f"guard/{case.id}",
            catalog,
            case.messages,
            source="tests/domain/test_guard_verdicts.py",
            restrictions=case.options,
            calls=[(case.call, stated)],
        )


def _repeat_load_table(builder: CorpusBuilder) -> None:
    from tests.domain.test_load_skill import ALPHA_V2, CATALOG, FULL, REPEAT_CASES, STUB_META

    catalog = builder.catalog("shop-alpha-v2", CATALOG, note="the catalog of tests/domain/test_load_skill.py")
    for case in REPEAT_CASES:
        stated = (
            {"already_loaded": False, "version": 2, "metadata": FULL["metadata"], "state": "success"}
            if case.full
            else {"already_loaded": True, "version": 2, "metadata": STUB_META, "state": "success"}
        )
        builder.case(
            f"load_skill/{case.id}",
            catalog,
            case.messages,
            source="tests/domain/test_load_skill.py",
            loads=[(ALPHA_V2.code, stated)],
        )
