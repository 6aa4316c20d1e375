"""The refusals' exact sentences and details (``domain/errors.py``), which the API answers and the
pages show; and a problem that survives pickling (a cached simulation keeps its codes)."""

from __future__ import annotations

import pickle

from skill_rule.errors import MessageError, Problem, SkillValidationError


def test_a_skill_refusal_joins_every_field_and_message_and_keeps_them_in_its_details():
    refused = SkillValidationError(
        {
            "skill_code": [Problem("code_pattern", "code 'A' is not snake_case"), Problem("code_short", "too short")],
            "tool_ids": [Problem("tool_unknown", "'x' is not registered")],
        }
    )
    assert str(refused) == "skill_code: code 'A' is not snake_case too short; tool_ids: 'x' is not registered"
    assert refused.message == str(refused)
    assert refused.details == {
        "fields": {"skill_code": ["code 'A' is not snake_case", "too short"], "tool_ids": ["'x' is not registered"]}
    }
    assert refused.code == "invalid_skill"


def test_a_message_refusal_keeps_its_index_and_cause_in_its_details():
    refused = MessageError("role must be one of user, assistant, tool, system, got 'robot'", index=3)
    assert str(refused) == "messages[3]: role must be one of user, assistant, tool, system, got 'robot'"
    assert refused.details == {"index": 3, "cause": "role must be one of user, assistant, tool, system, got 'robot'"}
    assert MessageError("messages must be a JSON list").details == {
        "index": None,
        "cause": "messages must be a JSON list",
    }


def test_a_problem_pickles_with_its_code_template_and_params():
    problem = Problem("manual_empty", "messages[%(index)s]: empty", {"index": 2, "skill": "alpha"})
    back = pickle.loads(pickle.dumps(problem))
    assert type(back) is Problem and back == "messages[2]: empty"
    assert (back.code, back.template, dict(back.params)) == (
        "manual_empty",
        "messages[%(index)s]: empty",
        {"index": 2, "skill": "alpha"},
    )


def test_a_script_refusal_names_its_source_and_line_and_keeps_them_in_its_details():
    from skill_rule.errors import ScriptError

    pasted = ScriptError("'steps' must be a non-empty list")
    assert str(pasted) == "<script>: 'steps' must be a non-empty list"
    assert pasted.details == {"source": "<script>", "line": None, "cause": "'steps' must be a non-empty list"}
    filed = ScriptError("'user' must be text", source="cancel.yaml", line=4)
    assert str(filed) == "cancel.yaml:4: 'user' must be text"
    assert filed.details == {"source": "cancel.yaml", "line": 4, "cause": "'user' must be text"}
