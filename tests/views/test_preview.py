"""The preview / simulate page (docs/simulator.md): real numbers read from the rendered HTML."""

from __future__ import annotations

import json

import pytest

from skills_app.models import Scenario, Skill
from tests.views.html import parse

URL = "/preview/"
GATED = ["apply_after_sale", "cancel_order", "change_address", "update_cart_item", "create_order", "pay_order"]
BUILTINS = ["search_knowledge", "load_skill", "flush_memory"]


def rounds_of(doc):
    return doc.select("data-round", tag="section")


def visible(round_node, kind=None):
    return [
        n["data-visible-tool"] for n in round_node.select("data-visible-tool") if kind is None or n["data-kind"] == kind
    ]


@pytest.fixture
def cancel_iphone(staff_client, bitmall):
    response = staff_client.get(URL, {"scenario": "cancel-iphone"})
    assert response.status_code == 200
    return parse(response.content)


def test_cancel_iphone_shows_11_13_13_tools(cancel_iphone):
    rounds = rounds_of(cancel_iphone)
    assert [(r["data-round"], r["data-count"]) for r in rounds] == [("1", "11"), ("2", "13"), ("3", "13")]
    for r in rounds:
        assert len(visible(r)) == int(r["data-count"])
        assert r.one("data-count-value").text().strip() == r["data-count"]


def test_cancel_order_is_masked_in_round_1_and_visible_in_rounds_2_and_3(cancel_iphone):
    r1, r2, r3 = rounds_of(cancel_iphone)
    assert "cancel_order" not in visible(r1)
    assert r1.one("data-masked-tool", "cancel_order")["data-skill"] == "order_change"
    assert "cancel_order" in visible(r2) and "cancel_order" in visible(r3)
    assert r2.values("data-newly-released") == ["cancel_order", "change_address"]
    assert r2.values("data-loaded") == ["order_change"] and r1.values("data-loaded") == []


def test_builtins_are_listed_apart_from_mcp_tools(cancel_iphone):
    r1 = rounds_of(cancel_iphone)[0]
    assert visible(r1, "builtin") == BUILTINS
    assert visible(r1, "mcp") == [
        "query_order",
        "query_logistics",
        "query_after_sale",
        "search_product",
        "query_cart",
        "query_coupons",
        "submit_ticket",
        "current_date",
    ]


def test_matrix_is_six_gated_tools_by_three_rounds(cancel_iphone):
    cells = cancel_iphone.select("data-matrix-tool", tag="td")
    assert len(cells) == 18
    states = {(c["data-matrix-tool"], int(c["data-matrix-round"])): c["data-state"] for c in cells}
    assert [c["data-matrix-row"] for c in cancel_iphone.select("data-matrix-row")] == GATED
    released = {("cancel_order", 2), ("cancel_order", 3), ("change_address", 2), ("change_address", 3)}
    for tool in GATED:
        for n in (1, 2, 3):
            assert states[(tool, n)] == ("released" if (tool, n) in released else "masked"), (tool, n)


def test_round_3_cancel_order_stops_at_a_confirmation(cancel_iphone):
    r1, r2, r3 = rounds_of(cancel_iphone)
    assert r1.one("data-call", "load_skill")["data-verdict"] == "allowed"
    assert r2.one("data-call", "query_order")["data-verdict"] == "allowed"
    assert r3.one("data-call", "cancel_order")["data-verdict"] == "confirm"
    assert cancel_iphone.one("data-simulation")["data-passed"] == "1"


def test_running_with_htmx_renders_only_the_results_and_pushes_a_link(staff_client, bitmall):
    response = staff_client.post(
        URL, {"scenario": "cancel-iphone", "script": "", "profile": "", "stage": ""}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert [r["data-count"] for r in rounds_of(parse(response.content))] == ["11", "13", "13"]
    assert response["HX-Push-Url"] == "/preview/?scenario=cancel-iphone"


def test_post_without_htmx_renders_the_full_page(staff_client, bitmall):
    script = Scenario.objects.get(name="cancel-iphone").script
    response = staff_client.post(URL, {"scenario": "", "script": script})
    doc = parse(response.content)
    assert doc.by_tag("html")
    assert [r["data-count"] for r in rounds_of(doc)] == ["11", "13", "13"]


def test_pasted_script_that_drops_the_manual_masks_its_tools_again(staff_client, bitmall):
    script = (
        "name: compacted\n"
        "steps:\n"
        "  - user: cancel it\n"
        "  - assistant: {calls: [{load_skill: {skill_code: order_change}}]}\n"
        "  - compact: {drop: [2, 3]}\n"
        "  - assistant: {calls: [{cancel_order: {order_no: '88239'}}]}\n"
    )
    doc = parse(staff_client.post(URL, {"script": script}).content)
    r1, r2 = rounds_of(doc)
    assert (r1["data-count"], r2["data-count"]) == ("11", "11")
    call = r2.one("data-call", "cancel_order")
    assert (call["data-verdict"], call["data-reason"]) == ("refused", "masked")
    assert doc.select("data-event-after", "1")


def test_yaml_error_shows_the_line_and_keeps_the_pasted_text(staff_client, bitmall):
    script = "name: broken\nsteps:\n  - user: hi\n  - shout: loud\n  - assistant: {}\n"
    doc = parse(staff_client.post(URL, {"script": script}).content)
    error = doc.one("data-script-error")
    assert error["data-line"] == "4"
    assert "shout" in error.text()
    assert doc.one("data-script-area").text() == script
    assert not rounds_of(doc)


def test_invalid_yaml_syntax_points_at_its_line(staff_client, bitmall):
    script = "steps:\n  - user: hi\n  - assistant: {calls: [\n"
    doc = parse(staff_client.post(URL, {"script": script}).content)
    error = doc.one("data-script-error")
    assert error["data-line"].isdigit() and "invalid YAML" in error.text()


def test_unknown_stage_is_an_error_that_lists_the_stages_on_offer(staff_client, returns):
    doc = parse(staff_client.get(URL, {"scenario": "return-query", "stage": "shipping"}).content)
    error = doc.one("data-restriction-error")
    assert error["data-kind"] == "stage"
    assert "shipping" in error.text()
    assert [n.text() for n in error.select("data-on-offer")] == ["prepare", "query"]
    assert not rounds_of(doc)


def test_unknown_profile_in_a_pasted_script_lists_the_profiles_on_offer(staff_client, returns):
    script = "access_profile: guest\nsteps:\n  - user: hi\n  - assistant: {}\n"
    doc = parse(staff_client.post(URL, {"script": script}).content)
    error = doc.one("data-restriction-error")
    assert error["data-kind"] == "access profile"
    assert [n.text() for n in error.select("data-on-offer")] == ["member_full", "no_business_tools"]


def test_return_prepare_no_tools_shows_no_mcp_tool_in_any_round(staff_client, returns):
    doc = parse(staff_client.get(URL, {"scenario": "return-prepare-no-tools"}).content)
    rounds = rounds_of(doc)
    assert len(rounds) == 2
    assert doc.one("data-profile").text() == "no_business_tools" and doc.one("data-stage").text() == "prepare"
    for r in rounds:
        assert visible(r, "mcp") == []
        assert r.select("data-no-mcp")
        assert visible(r, "builtin") == BUILTINS
    assert rounds[1].one("data-call", "order_query")["data-verdict"] == "refused"


def test_choosing_no_profile_overrides_the_scripts_profile(staff_client, returns):
    doc = parse(staff_client.get(URL, {"scenario": "return-prepare-no-tools", "profile": "-"}).content)
    r2 = rounds_of(doc)[1]
    assert doc.one("data-profile").text() == "—"
    assert visible(r2, "mcp") == ["order_query", "prepare_return"]  # the stage still applies


def test_pasted_json_transcript_is_replayed(staff_client, bitmall):
    from skills_app.models import Skill

    manual = Skill.objects.get(skill_code="order_change").content  # only a whole manual loads
    messages = [
        {"role": "user", "content": "取消 88239"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "load_skill", "arguments": {"skill_code": "order_change"}}],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": manual,
            "state": "success",
            "metadata": {"ragent_loaded_skill": "order_change", "skill_version": 1},
        },
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "cancel_order", "arguments": '{"order_no": "88239"}'},
                }
            ],
        },
    ]
    doc = parse(staff_client.post(URL, {"script": json.dumps(messages, ensure_ascii=False)}).content)
    rounds = rounds_of(doc)
    assert [r["data-count"] for r in rounds] == ["11", "13"]
    assert rounds[1].one("data-call", "cancel_order")["data-verdict"] == "confirm"


def test_malformed_transcript_names_the_message(staff_client, bitmall):
    doc = parse(staff_client.post(URL, {"script": '[{"role": "user"}, {"role": "robot"}]'}).content)
    error = doc.one("data-message-error")
    assert error["data-index"] == "1" and "robot" in error.text()


def test_unknown_saved_scenario_is_reported(staff_client, bitmall):
    doc = parse(staff_client.get(URL, {"scenario": "nope"}).content)
    assert "nope" in doc.one("data-form-error").text()


def test_empty_page_runs_nothing(staff_client, bitmall):
    doc = parse(staff_client.get(URL).content)
    assert not rounds_of(doc)
    assert [o.get("value") for o in doc.by_tag("option") if o.get("value") == "cancel-iphone"]


def test_preview_saves_nothing(staff_client, bitmall):
    before = list(Skill.objects.values_list("skill_code", "version"))
    staff_client.post(URL, {"scenario": "cancel-iphone"})
    assert list(Skill.objects.values_list("skill_code", "version")) == before


def test_preview_needs_a_login(client, bitmall):
    response = client.get(URL, {"scenario": "cancel-iphone"})
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


# ---- guard sentences, notes and expectations in the page's language -------------------------
GUARD_SCRIPT = (
    "name: guard\n"
    "steps:\n"
    "  - user: hi\n"
    "  - assistant: {calls: [{cancel_order: {order_no: '88239'}}, {no_such_tool: {}}, "
    "{load_skill: {skill_code: nope}}]}\n"
    "  - assistant: {calls: [{query_order: {order_no: '12'}}]}\n"
)


def guard_messages(doc):
    return {
        c["data-call"]: c.one("data-guard-message") for c in doc.select("data-call") if c.select("data-guard-message")
    }


def codes(node):
    return [n.text() for n in node.by_tag("code")]


def test_guard_refusals_are_said_in_chinese_from_the_verdicts_fields(staff_client, bitmall):
    doc = parse(staff_client.post(URL, {"script": GUARD_SCRIPT}).content)
    msgs = guard_messages(doc)
    masked = msgs["cancel_order"]
    assert "屏蔽" in masked.text() and codes(masked) == ["cancel_order", "order_change"]
    unknown = msgs["no_such_tool"]
    assert "不是已注册的工具" in unknown.text()
    assert codes(unknown)[0] == "no_such_tool" and "search_knowledge" in codes(unknown)
    assert "cancel_order" not in codes(unknown)  # on offer = what this round shows
    skill = msgs["load_skill"]
    assert "nope" in codes(skill) and "order_change" in codes(skill) and "技能" in skill.text()
    invalid = msgs["query_order"]
    assert "参数无效" in invalid.text()
    detail = invalid.one("data-guard-detail").text()
    assert detail.startswith("order_no:") and "invalid arguments" not in detail
    for node in msgs.values():
        assert "tools on offer" not in node.text() and "first" not in node.text()


def test_guard_refusals_in_english(staff_client, bitmall):
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    msgs = guard_messages(parse(staff_client.post(URL, {"script": GUARD_SCRIPT}).content))
    assert "is masked: load the manual" in msgs["cancel_order"].text()
    assert msgs["query_order"].text().startswith("Invalid arguments for query_order:")


@pytest.mark.parametrize(
    "profile, stage, reason, words, names",
    [
        ("member_full", "query", "stage", "阶段", ["query", "submit"]),
        ("no_business_tools", "query", "not_permitted", "访问配置", ["no_business_tools", "submit"]),
    ],
)
def test_profile_and_stage_refusals_name_the_profile_or_stage(
    staff_client, returns, profile, stage, reason, words, names
):
    script = f"access_profile: {profile}\nstage: {stage}\nsteps:\n  - user: hi\n  - assistant: {{calls: [{{submit: {{}}}}]}}\n"
    doc = parse(staff_client.post(URL, {"script": script}).content)
    call = doc.one("data-call", "submit")
    assert call["data-reason"] == reason
    message = call.one("data-guard-message")
    assert words in message.text() and sorted(codes(message)) == sorted(names)


def test_compaction_and_eviction_notes_are_translated(staff_client, bitmall):
    script = (
        "steps:\n"
        "  - user: cancel it\n"
        "  - assistant: {calls: [{load_skill: {skill_code: order_change}}]}\n"
        "  - evict: {tool: load_skill}\n"
        "  - assistant: {calls: [{cancel_order: {order_no: '88239'}}]}\n"
        "  - compact: {drop: [2, 3]}\n"
        "  - assistant: hello\n"
    )
    doc = parse(staff_client.post(URL, {"script": script}).content)
    evict = doc.one("data-event-after", "1")
    assert evict["data-event-kind"] == "evict" and "after round" not in evict.text()
    assert codes(evict) == ["3", "load_skill(order_change)"] and "占位" in evict.text()
    compact = doc.one("data-event-after", "2")
    assert compact["data-event-kind"] == "compact" and codes(compact) == ["2", "3"]
    assert "压缩" in compact.text() and "retained" not in compact.text()


def test_a_script_without_expect_does_not_claim_all_expectations_met(staff_client, bitmall):
    doc = parse(staff_client.post(URL, {"script": GUARD_SCRIPT}).content)
    pill = doc.one("data-expectations")
    assert pill["data-expectations"] == "none"
    assert "未设置预期" in pill.text() and "全部" not in pill.text()


def test_some_rounds_checked_says_how_many(staff_client, bitmall):
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    script = (
        "steps:\n"
        "  - user: hi\n"
        "  - assistant: {calls: [{load_skill: {skill_code: order_change}}]}\n"
        "    expect: {count: 11}\n"
        "  - assistant: {calls: [{query_order: {}}]}\n"
        "  - assistant: fine\n"
        "    expect: {includes: [cancel_order]}\n"
    )
    pill = parse(staff_client.post(URL, {"script": script}).content).one("data-expectations")
    assert pill["data-expectations"] == "met" and pill.text().strip() == "2 of 3 rounds checked, all met"


def test_unmet_expectations_are_translated(staff_client, bitmall):
    script = "steps:\n  - user: hi\n  - assistant: ok\n    expect: {count: 99, includes: [cancel_order]}\n"
    doc = parse(staff_client.post(URL, {"script": script}).content)
    assert doc.one("data-expectations")["data-expectations"] == "failed"
    failures = [li.text() for li in doc.one("data-round-failures").by_tag("li")]
    assert failures == ["✕ 预期 99 个工具，实际 11 个", "✕ 预期 cancel_order 可见"]


def test_a_nul_character_is_reported_with_its_line(staff_client, bitmall):
    script = "steps:\n  - user: hi\x00there\n  - assistant: ok\n"
    doc = parse(staff_client.post(URL, {"script": script}).content)
    error = doc.one("data-form-error").text()
    assert "NUL" in error and "第 2 行" in error
    assert "选择" not in error  # not "choose a saved scenario or paste a script"
    assert not rounds_of(doc)


def test_a_nul_character_in_english(staff_client, bitmall):
    staff_client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    response = staff_client.post(URL, {"script": "name: x\x00\nsteps: []\n"}, HTTP_HX_REQUEST="true")
    error = parse(response.content).one("data-form-error").text()
    assert "NUL character" in error and "line 1, column 8" in error


def test_a_control_character_is_a_script_error_with_its_line_not_a_500(staff_client, bitmall):
    """PyYAML's reader refuses a control character (a bell pasted from a terminal) before parsing;
    the page names its line and code point like any invalid YAML (it answered 500 before)."""
    script = "steps:\n  - user: hi\n  - user: ring\x07\n  - assistant: ok\n"
    response = staff_client.post(URL, {"script": script})
    assert response.status_code == 200
    error = parse(response.content).one("data-script-error")
    assert error.one("data-error-line").text() == "第 3 行"
    assert error.one("data-error-cause").text() == (
        "invalid YAML: unacceptable character #x0007: special characters are not allowed"
    )


def test_an_impossible_date_is_a_script_error_with_its_line_not_a_500(staff_client, bitmall):
    """PyYAML matches ``2024-13-45`` as a date and Python cannot make it: a script error at its
    line on the page and in the JSON result (both answered 500 before)."""
    script = "steps:\n  - user: hi\n  - compact: {drop: [2024-13-45]}\n  - assistant: ok\n"
    response = staff_client.post(URL, {"script": script})
    assert response.status_code == 200
    error = parse(response.content).one("data-script-error")
    assert error.one("data-error-line").text() == "第 3 行"
    assert error.one("data-error-cause").text() == "invalid YAML: cannot read this date (month must be in 1..12)"


def test_a_form_over_the_upload_limit_is_a_413_that_says_so_on_the_page_and_in_json(staff_client, bitmall, settings):
    """A 3 MB script (the limit is 2.5 MB): the page says how big a form may be and how to get the
    text back; ``result.json`` answers in JSON (both were a bare 400, the JSON one in HTML)."""
    script = "steps:\n  - user: " + "长" * 1_000_000 + "\n"
    page = staff_client.post(URL, {"script": script})
    assert page.status_code == 413
    assert parse(page.content).one("data-reason").text() == (
        "表单超过 2.5 MB，这是控制台一次能读取的上限；没有做任何更改。浏览器的“返回”按钮通常会保留你输入的内容。"
    )
    download = staff_client.post(URL + "result.json", {"script": script})
    assert (download.status_code, download["Content-Type"]) == (413, "application/json")
    assert download.json() == {
        "error": {
            "code": "request_too_large",
            "message": "the request body is larger than 2621440 bytes",
            "details": {"limit": 2621440},
        }
    }


def test_script_error_line_is_translated_and_the_cause_is_code(staff_client, bitmall):
    script = "name: broken\nsteps:\n  - user: hi\n  - shout: loud\n  - assistant: {}\n"
    error = parse(staff_client.post(URL, {"script": script}).content).one("data-script-error")
    assert error.one("data-error-line").text() == "第 4 行"
    assert error.one("data-error-cause").tag == "code"


def test_the_results_heading_can_take_the_focus(staff_client, bitmall):
    response = staff_client.post(URL, {"scenario": "cancel-iphone"}, HTTP_HX_REQUEST="true")
    head = parse(response.content).one("data-results-focus")
    assert head.tag == "h2" and head["tabindex"] == "-1"


def test_domain_notes_are_translated_by_code_and_plain_lines_kept_under_a_label():
    from django.utils import translation

    from skill_rule import compute_round, parse_script, resolve_restrictions, simulate
    from skill_rule.simulator import check_expectations
    from skills_app.web.presenters import event_note, failure_sentence, warning_note
    from tests.domain.factories import shop, skill

    catalog = shop(skill("order_change", ("cancel", "old_tool")), stages={"prepare": {"ship", "old_tool", "gone"}})
    stage_warning = resolve_restrictions(catalog, stage="prepare").warnings[0]
    dangling = compute_round(catalog, []).warnings[0]
    evict_none = simulate(
        catalog, parse_script("steps:\n  - assistant: {}\n  - evict: {tool: load_skill}\n  - assistant: {}\n")
    ).events[0]
    loaded_failure = check_expectations(compute_round(catalog, []), {"loaded": ["a"]})[0]
    with translation.override("zh-hans"):
        note = warning_note(stage_warning)
        assert note.known and "阶段" in note.text and "<code>gone</code>, <code>old_tool</code>" in note.text
        note = warning_note(dangling)
        assert note.known and "<code>order_change</code>" in note.text
        note = event_note(evict_none)
        assert note.known and note.kind == "evict" and "<code>load_skill</code>" in note.text
        odd = event_note("rewound <3> messages")
        assert not odd.known and "上下文变化" in odd.text and "&lt;3&gt;" in odd.text
        assert not warning_note("something new").known
        assert failure_sentence(loaded_failure) == "已加载技能：缺少 <code>a</code>"  # the difference, not two lists
        assert failure_sentence("a <new> kind") == "a &lt;new&gt; kind"
