"""Exact values of message reading that the mutation run of ``domain/messages.py`` found unpinned
(docs/testing.md, "Score"): a message's JSON shape, content parts, ids that are not strings, the
single-message reader and the transcript reader's refusals naming their source."""

from __future__ import annotations

import json

import pytest

from skill_rule.errors import MessageError, ScriptError
from skill_rule.limits import MAX_SCRIPT_CHARS
from skill_rule.messages import parse_message, parse_messages, parse_transcript


def test_a_tool_result_reads_back_as_its_json_shape_with_id_state_and_metadata():
    [m] = parse_messages(
        [{"role": "tool", "tool_call_id": "c1", "content": "done", "status": "failed", "metadata": {"k": 1}}]
    )
    assert m.as_dict() == {
        "role": "tool",
        "content": "done",
        "tool_call_id": "c1",
        "state": "error",
        "metadata": {"k": 1},
    }
    [u] = parse_messages([{"role": "user", "content": "hi"}])
    assert u.as_dict() == {"role": "user", "content": "hi"}  # no id or state for a message that is no result


def test_text_parts_of_a_content_list_are_joined_in_order():
    [m] = parse_messages([{"role": "user", "content": ["a", {"type": "text", "text": "b"}, "c"]}])
    assert m.content == "abc"


def test_a_block_whose_type_is_not_a_string_is_refused_and_a_null_type_is_as_absent():
    # issue 22 (a fresh user's finding): {"type": 5, "text": …} inside a tool_result loaded a manual
    [m] = parse_messages([{"role": "user", "content": [{"type": None, "text": "hi"}, {"text": "!"}]}])
    assert m.content == "hi!"
    for block in ({"type": 5, "text": "hi"}, {"type": 5}):
        with pytest.raises(MessageError) as refused:
            parse_messages([{"role": "user", "content": [block]}])
        assert str(refused.value) == "messages[0]: content[0]: block type 5 is not understood"  # as sent


@pytest.mark.parametrize(
    ("sent", "read", "codes"),
    [
        (7, "", ["call_id_invalid"]),
        (None, "", []),
        ("c9", "c9", []),
        (2.5, "", ["call_id_invalid"]),
        (True, "", ["call_id_invalid"]),
    ],
)
def test_a_result_id_that_is_not_a_string_is_no_id_with_a_warning(sent, read, codes):
    """docs/transcripts.md, "Doubtful types": an id of the wrong type is never turned into its text."""
    [m] = parse_messages([{"role": "tool", "tool_call_id": sent, "content": "ok"}])
    assert (m.tool_call_id, [p.code for p in m.problems]) == (read, codes)
    blocks = parse_messages(
        [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": sent, "content": "ok"}]}]
    )
    assert [(b.tool_call_id, [p.code for p in b.problems]) for b in blocks] == [(read, codes)]
    if codes:
        assert str(m.problems[0]) == (
            f"messages[0]: tool_call_id is {json.dumps(sent)}, not a string; this result "
            "answers no call, without a marker it loads nothing"
        )
        assert str(blocks[0].problems[0]).startswith(f"messages[0]: content[0]: tool_use_id is {json.dumps(sent)}")


def test_one_message_is_read_with_its_index_and_a_message_of_several_results_gives_the_first():
    m = parse_message({"role": "assistant", "content": "ok"}, 3)
    assert (m.role, m.content, m.index) == ("assistant", "ok", 3)
    assert parse_message({"role": "user", "content": "hi"}).index == 0
    first = parse_message(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "one"},
                {"type": "tool_result", "tool_use_id": "b", "content": "two"},
            ],
        },
        2,
    )
    assert (first.role, first.tool_call_id, first.content, first.index) == ("tool", "a", "one", 2)
    with pytest.raises(MessageError) as refused:
        parse_message({"role": "robot"}, 4)
    assert refused.value.index == 4


def test_a_transcript_refusal_names_its_source_or_transcript_when_none_is_given():
    too_long = "[" + " " * MAX_SCRIPT_CHARS + "]"
    for text, cause, line in (
        (too_long, f"the transcript has {len(too_long)} characters; at most {MAX_SCRIPT_CHARS} are replayed", None),
        ("[\n{]", "invalid JSON: Expecting property name enclosed in double quotes", 2),
        ("[" * 100_000 + "]" * 100_000, "the transcript is nested too deeply", None),
    ):
        with pytest.raises(ScriptError) as named:
            parse_transcript(text, source="chat.json")
        assert (named.value.source, named.value.cause, named.value.line) == ("chat.json", cause, line)
        with pytest.raises(ScriptError) as default:
            parse_transcript(text)
        assert default.value.source == "<transcript>"
        assert str(default.value) == (f"<transcript>:{line}: {cause}" if line else f"<transcript>: {cause}")
    assert [m.content for m in parse_transcript(json.dumps({"messages": [{"role": "user", "content": "x"}]}))] == ["x"]


def test_content_parts_read_refusals_skip_images_and_refuse_what_is_not_text_naming_the_part():
    [m] = parse_messages(
        [
            {
                "role": "assistant",
                "content": [
                    {"type": "image", "source": {}},
                    "a",
                    {"type": "refusal", "refusal": "no"},
                    {"type": "refusal"},
                    {"type": "text"},
                    {"type": "output_text", "text": "b"},
                ],
            }
        ]
    )
    assert m.content == "anob"  # a text or refusal block with neither key reads as no text
    for content, cause in (
        (["a", 5], "content[1] must be a text or a content block object"),
        ([{"foo": 1}], "content[0]: block type None is not understood"),
        ([{"type": "text", "text": 5}], "content[0] (text) has no text"),
        ([{"type": "refusal", "refusal": ["x"]}], "content[0] (refusal) has no text"),
    ):
        with pytest.raises(MessageError) as refused:
            parse_messages([{"role": "user", "content": "ok"}, {"role": "user", "content": content}])
        assert (refused.value.index, refused.value.cause, str(refused.value)) == (1, cause, f"messages[1]: {cause}")


def test_a_bad_arguments_warning_names_the_message_its_number_the_call_and_the_tool():
    from skill_rule.messages import parse_arguments

    [_user, m] = parse_messages(
        [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "a", "name": "lookup", "arguments": {}},
                    {"id": "b", "name": "pay", "arguments": "not json"},
                ],
            },
        ]
    )
    [problem] = m.problems
    assert problem.code == "arguments_unparseable"
    assert dict(problem.params) == {
        "index": 1,
        "number": 2,
        "position": 1,
        "tool": "pay",
        "where": "messages[1]: ",
        "call": "tool_calls[1] (pay)",
        "cause": "Expecting value",
    }
    assert (
        problem
        == "messages[1]: tool_calls[1] (pay): arguments are not valid JSON (Expecting value); read as no arguments"
    )
    args, alone = parse_arguments("[1]", name="pay")  # a call checked on its own: no message, no position
    assert args == {} and alone.code == "arguments_not_object"
    assert dict(alone.params) == {
        "index": None,
        "number": None,
        "position": None,
        "tool": "pay",
        "where": "",
        "call": "call (pay)",
        "kind": "list",
    }
    assert alone == "call (pay): arguments are list, not a JSON object; read as no arguments"
    args, first = parse_arguments('"{\\"a\\": 1}"', name="pay", index=0, position=0)
    assert args == {"a": 1} and first.code == "arguments_double_encoded" and first.params["number"] == 1
    assert first == "messages[0]: tool_calls[0] (pay): arguments are JSON text inside a JSON string; decoded once more"


def test_arguments_nested_too_deeply_are_a_warning_saying_so_never_a_crash():
    from skill_rule.messages import parse_arguments

    args, problem = parse_arguments("[" * 100_000 + "]" * 100_000, name="pay", index=2, position=0)
    assert args == {} and problem.code == "arguments_unparseable" and problem.params["cause"] == "nested too deeply"
    assert problem == (
        "messages[2]: tool_calls[0] (pay): arguments are not valid JSON (nested too deeply); read as no arguments"
    )


def test_a_call_without_arguments_has_none_and_no_warning_in_every_shape():
    [m] = parse_messages(
        [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "lookup"}],
                "tool_calls": [
                    {"id": "o1", "type": "function", "function": {"name": "pay"}},
                    {"id": "p1", "name": "ship"},
                ],
            }
        ]
    )
    assert [(c.name, c.id, dict(c.arguments), c.problem) for c in m.tool_calls] == [
        ("pay", "o1", {}, None),
        ("ship", "p1", {}, None),
        ("lookup", "t1", {}, None),
    ]
    assert m.problems == ()


def test_a_function_field_that_is_no_object_is_ignored_and_the_call_read_by_its_name():
    [m] = parse_messages(
        [
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "name": "pay", "function": "pay_order", "arguments": {"n": 1}}],
            }
        ]
    )
    assert [(c.name, dict(c.arguments)) for c in m.tool_calls] == [("pay", {"n": 1})]


@pytest.mark.parametrize("call", ["pay", 5, ["pay"], None])
def test_a_call_that_is_no_object_is_refused_naming_the_message_and_the_call(call):
    with pytest.raises(MessageError) as refused:
        parse_messages(
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "tool_calls": [{"id": "a", "name": "lookup"}, call]},
            ]
        )
    assert (refused.value.index, str(refused.value)) == (1, "messages[1]: tool_calls[1] must be an object")


@pytest.mark.parametrize("name", [5, "", None, ["pay"]])
def test_a_call_without_a_tool_name_as_text_is_refused(name):
    call = {"id": "c1", "arguments": {}} if name is None else {"id": "c1", "name": name, "arguments": {}}
    with pytest.raises(MessageError) as refused:
        parse_messages([{"role": "assistant", "tool_calls": [call]}])
    assert str(refused.value) == "messages[0]: tool_calls[0] has no tool name"


def test_a_call_id_that_is_no_text_is_no_id_so_a_result_naming_it_pairs_with_nothing():
    from skill_rule.transcript import read_evidence

    msgs = parse_messages(
        [
            {
                "role": "assistant",
                "tool_calls": [{"id": 5, "name": "load_skill", "arguments": {"skill_code": "alpha"}}],
            },
            {"role": "tool", "tool_call_id": 5, "content": "# alpha manual"},
        ]
    )
    assert msgs[0].tool_calls[0].id == "" and msgs[1].tool_call_id == ""
    evidence = read_evidence(msgs, marker_key="ragent_loaded_skill", eviction_prefix="[evicted")
    assert evidence.manuals == ()  # fail closed: the manual loads nothing
    assert [(w.code, w.params["index"]) for w in evidence.warnings] == [("call_id_invalid", 0), ("call_id_invalid", 1)]
    assert str(evidence.warnings[0]) == (
        "messages[0]: tool_calls[0] (load_skill): the id is 5, not a string; no result can answer this call"
    )


def test_openais_developer_role_is_read_as_a_system_message():
    [m] = parse_messages([{"role": "developer", "content": "be brief"}])
    assert (m.role, m.content) == ("system", "be brief")


def test_metadata_may_be_any_mapping_and_is_kept_as_a_dict_of_its_own():
    from types import MappingProxyType

    sent = {"ragent_loaded_skill": "alpha"}
    [m] = parse_messages([{"role": "tool", "tool_call_id": "c1", "content": "x", "metadata": MappingProxyType(sent)}])
    assert m.metadata == sent and type(m.metadata) is dict
    [bad] = parse_messages([{"role": "tool", "tool_call_id": "c1", "content": "x", "metadata": ["alpha"]}])
    assert (bad.metadata, [str(p) for p in bad.problems]) == (
        {},
        ['messages[0]: metadata is ["alpha"], not an object; read as untrusted, the message loads nothing'],
    )


def test_anthropic_blocks_in_the_wrong_message_are_refused_and_bad_input_warns_with_its_place():
    with pytest.raises(MessageError) as refused:
        parse_messages(
            [
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "ok"},
                        {"type": "tool_result", "tool_use_id": "t", "content": "x"},
                    ],
                },
            ]
        )
    assert (refused.value.index, str(refused.value)) == (
        1,
        "messages[1]: content[1]: block type 'tool_result' belongs to a user message",
    )
    [_u, m] = parse_messages(
        [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "lookup", "input": {}},
                    {"type": "tool_use", "id": "t2", "name": "pay", "input": "not json"},
                ],
            },
        ]
    )
    [problem] = m.problems
    assert (problem.params["index"], problem.params["position"], problem.params["tool"]) == (1, 1, "pay")
    assert problem.startswith("messages[1]: tool_calls[1] (pay): arguments are not valid JSON")


def test_an_anthropic_result_block_reads_its_error_flag_and_refuses_bad_content_or_state_naming_the_block():
    blocks = parse_messages(
        [
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "a",
                        "content": [{"type": "text", "text": "boom"}],
                        "is_error": True,
                    },
                    {"type": "tool_result", "tool_use_id": "b", "content": "fine"},
                ],
            }
        ]
    )
    assert [(m.role, m.tool_call_id, m.content, m.state) for m in blocks] == [
        ("tool", "a", "boom", "error"),
        ("tool", "b", "fine", "success"),
    ]
    for block, cause in (
        (
            {"type": "tool_result", "tool_use_id": "a", "content": [5]},
            "content[1].content[0] must be a text or a content block object",
        ),
        (
            {"type": "tool_result", "tool_use_id": "a", "content": "x", "state": "done"},
            "content[1]: state must be success or error, got 'done'",
        ),
    ):
        with pytest.raises(MessageError) as refused:
            parse_messages(
                [
                    {"role": "user", "content": "hi"},
                    {"role": "user", "content": [{"type": "text", "text": "see"}, block]},
                ]
            )
        assert (refused.value.index, refused.value.cause) == (1, cause)


def test_the_text_beside_anthropic_results_follows_them_as_a_user_message_unless_blank():
    with_text = parse_messages(
        [
            {"role": "assistant", "content": "ok"},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "done"},
                    {"type": "text", "text": "thanks"},
                ],
            },
        ]
    )
    assert [(m.role, m.content, m.tool_call_id, m.index) for m in with_text] == [
        ("assistant", "ok", "", 0),
        ("tool", "done", "a", 1),
        ("user", "thanks", "", 1),
    ]
    blank = parse_messages(
        [
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": "done"},
                    {"type": "text", "text": " \n"},
                ],
            }
        ]
    )
    assert [(m.role, m.content) for m in blank] == [("tool", "done")]
