"""No 5xx from any JSON anywhere (docs/transcripts.md, "Ambiguous JSON"): arbitrary JSON values —
huge and non-finite numbers, deep nesting, lone surrogates, duplicate keys, every type in every
field — thrown at every parse path: the strict reader, the three runtime POST endpoints, the
preview's paste box, the scenario script reader, the import readers and the client. None may raise
anything but its documented error, or answer 5xx. Bounded: a few dozen examples per path."""

from __future__ import annotations

import json
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skill_client.client import RuntimeClient
from skill_rule import MessageError, ScriptError, jsontext, parse_script
from skill_rule.skill_files import Dataset, parse_properties, parse_skill_md
from tests.api.support import CHECK_CALL, LOAD_SKILL, ROUNDS

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Number literals readers disagree on (written into JSON text as they are).
ODD_NUMBERS = [
    "1" * 5001,
    "9007199254740993",
    "-9007199254740993",
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "-Infinity",
    "0",
    "-0",
    "1.5",
    "9007199254740991",
]
ODD_STRINGS = [
    '"\\ud800"',
    '"\\udfff x"',
    '"\\ud83d\\ude00"',
    '""',
    '"load_skill"',
    '"order_change"',
    '"user"',
    '"tool"',
    '"assistant"',
    '"c1"',
    '"\\u0000"',
    '"{\\"skill_code\\": \\"order_change\\"}"',
    '"{\\"a\\": 1, \\"a\\": 2}"',
    '"{\\"n\\": %s}"' % ("9" * 5001),
]
KEYS = [
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "metadata",
    "id",
    "name",
    "arguments",
    "function",
    "type",
    "input",
    "state",
    "status",
    "is_error",
    "ragent_loaded_skill",
    "skill_version",
    "skill_code",
    "evicted",
    "text",
    "tool_use_id",
    "\\ud800",
]


def _text_of(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """JSON text: arrays of ``children`` and objects whose keys may repeat."""
    return st.one_of(
        st.lists(children, max_size=4).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(st.sampled_from(KEYS), children), max_size=5).map(
            lambda kv: "{" + ", ".join(f'"{k}": {v}' for k, v in kv) + "}"
        ),
    )


JSON_TEXT = st.recursive(
    st.one_of(
        st.sampled_from(ODD_NUMBERS),
        st.sampled_from(ODD_STRINGS),
        st.sampled_from(["null", "true", "false"]),
        st.integers().map(str),
        st.text(max_size=8).map(lambda t: json.dumps(t)),
    ),
    _text_of,
    max_leaves=25,
)
#: A message list as text: mostly objects with message keys (any values), some anything.
MESSAGES_TEXT = st.lists(st.one_of(_text_of(JSON_TEXT), JSON_TEXT), max_size=5).map(
    lambda xs: "[" + ", ".join(xs) + "]"
)
DEEP = st.integers(min_value=1, max_value=3000).map(lambda n: "[" * n + "]" * n)

PY_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([10**30, -(10**30)]),
    st.builds(lambda: 10**5000 + 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(["\ud800", "user", "tool", "assistant", "load_skill", "order_change", "c1"]),
)
PY_VALUE = st.recursive(
    PY_LEAF,
    lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.sampled_from(KEYS), c, max_size=5)),
    max_leaves=20,
)
PY_MESSAGE = st.dictionaries(st.sampled_from(KEYS), PY_VALUE, max_size=6)


@SETTINGS
@given(st.one_of(JSON_TEXT, MESSAGES_TEXT, DEEP, st.text(max_size=30)))
def test_the_reader_raises_only_its_own_error(text: str) -> None:
    try:
        value = jsontext.loads(text)
    except jsontext.JsonTextError:
        return
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # nothing it returns breaks an encoder


@pytest.fixture
def raw(api_client):
    def _raw(url: str, text: str):
        return api_client.generic("POST", url, text.encode("utf-8"), content_type="application/json")

    return _raw


def _well_formed(response, keys: set[str]) -> None:
    assert response.status_code < 500, response.content[:300]
    body = json.loads(response.content)
    assert set(body) == {"error"} if response.status_code >= 400 else keys <= set(body)


@SETTINGS
@given(messages=st.one_of(MESSAGES_TEXT, JSON_TEXT), call=JSON_TEXT, extra=JSON_TEXT)
def test_the_runtime_endpoints_never_answer_5xx(bitmall, raw, messages, call, extra) -> None:
    _well_formed(raw(ROUNDS, '{"messages": %s}' % messages), {"loaded", "masked", "warnings"})
    _well_formed(raw(ROUNDS, '{"messages": %s, "stage": %s}' % (messages, extra)), {"loaded"})
    _well_formed(raw(CHECK_CALL, '{"messages": %s, "call": %s}' % (messages, call)), {"verdict"})
    _well_formed(
        raw(CHECK_CALL, '{"messages": [], "call": {"name": "query_order", "arguments": %s}}' % call), {"verdict"}
    )
    _well_formed(raw(LOAD_SKILL, '{"messages": %s, "skill_code": "order_change"}' % messages), {"content"})


@SETTINGS
@given(text=st.one_of(MESSAGES_TEXT, MESSAGES_TEXT.map(lambda t: '{"messages": %s, "messages": []}' % t), DEEP))
def test_the_paste_box_never_answers_5xx(bitmall, staff_client, text) -> None:
    assert staff_client.post("/preview/", {"script": text}).status_code == 200
    assert staff_client.post("/preview/result.json", {"script": text}).status_code in (200, 400)


YAML_SCALAR = st.one_of(
    st.sampled_from(
        [
            "1" * 5001,
            "0x" + "f" * 4000,
            "9007199254740993",
            ".inf",
            ".nan",
            "-.inf",
            '"\\ud800"',
            "'x'",
            "2024-13-45",
            "null",
            "yes",
            "~",
            "1e400",
            "1.0e+400",
        ]
    ),
    st.text(alphabet="abc xyz:-", max_size=6).map(json.dumps),
)
YAML_FLOW = st.recursive(
    YAML_SCALAR,
    lambda c: st.one_of(
        st.lists(c, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(st.sampled_from(["order_no", "q", "count", "drop", "say", "a"]), c), max_size=3).map(
            lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"
        ),
    ),
    max_leaves=8,
)


@SETTINGS
@given(value=YAML_FLOW, other=YAML_FLOW)
def test_the_script_reader_raises_only_script_errors(value, other) -> None:
    for text in (
        f"steps:\n  - user: {value}\n  - assistant:\n      calls:\n        - query_order: {value}\n",
        f"steps:\n  - assistant:\n      say: {value}\n      expect: {{count: {other}}}\n",
        f"name: {value}\nsteps:\n  - compact: {{drop: {other}}}\n  - assistant: {value}\n",
    ):
        try:
            parse_script(text)
        except ScriptError:
            pass


@SETTINGS
@given(value=YAML_FLOW, other=YAML_FLOW)
def test_the_import_readers_give_per_file_errors(value, other) -> None:
    md = f"---\nname: {value}\ndescription: {other}\nmetadata:\n  sort-order: {other}\n  display-name: {value}\n---\n# m\n"
    parsed = parse_skill_md("x/SKILL.md", md.encode("utf-8", "surrogatepass"))
    assert parsed.errors or parsed.declaration is not None
    props = f"skill-code=x\nname={value}\ndescription=\\ud800{other}\nsort-order={other}\ncontent-file=a.md\n"
    parsed = parse_properties("x/a.properties", props.encode(), Dataset(label="x", files={"x/a.md": b"# m"}))
    for issue in (*parsed.errors, *parsed.warnings):
        str(issue).encode("utf-8")


@pytest.fixture
def runtime_client(bitmall, api_client, tmp_path) -> RuntimeClient:
    from tests.api.test_client_ambiguous import make_local_client

    return make_local_client(api_client, tmp_path)


@SETTINGS
@given(
    messages=st.lists(st.one_of(PY_MESSAGE, PY_VALUE), max_size=5),
    call=PY_VALUE,
    arguments=PY_VALUE,
    text=MESSAGES_TEXT,
)
def test_the_client_raises_only_message_errors(runtime_client, messages, call, arguments, text) -> None:
    client = runtime_client
    try:
        text_messages = jsontext.loads(text)
    except jsontext.JsonTextError:
        text_messages = []
    for given_messages in (messages, text_messages):
        for ask in (
            partial(client.round, given_messages),
            partial(client.visible_tools, given_messages),
            partial(client.load_skill, given_messages, "order_change"),
            partial(client.check_call, given_messages, {"name": "query_order", "arguments": arguments}),
            partial(client.check_call, [], call),
        ):
            try:
                ask()
            except MessageError:
                pass
