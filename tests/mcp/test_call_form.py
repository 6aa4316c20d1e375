"""The MCP tool page's test call as a form built from the tool's inputSchema (issue 29, item 7), as
MCP Inspector offers it: a field per argument — text, number, a list for an enum, true / false /
not sent for a boolean, one value a line for an array of those, ticks for an array of an enum,
a JSON value box for any other shape — required as the schema says, checked against the schema
with jsonschema, the values sent as the arguments JSON. The raw JSON box stays, and is all a
schema the form cannot stand for gets. The browser side: tests/browser/test_small_things.py."""

from __future__ import annotations

import json

import pytest
from django.utils import translation

from skills_app.mcp.forms import ToolArgumentsForm, argument_kind, call_form_problem
from skills_app.mcp.sync import mcp_server_sync
from skills_app.models import McpTool
from tests.mcp.support import stdio_server
from tests.views.html import parse

#: One argument of each kind the form offers, and two it types as JSON.
SCHEMA = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "description": "the code", "pattern": "^[0-9]+$", "maxLength": 8},
        "count": {"type": "integer", "minimum": 1, "maximum": 5, "default": 2},
        "price": {"type": "number", "minimum": 0},
        "colour": {"type": "string", "enum": ["红", "green"]},
        "gift": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
        "sizes": {"type": "array", "items": {"type": "integer"}},
        "days": {"type": "array", "items": {"enum": ["mon", "tue", "wed"]}},
        "address": {"type": "object", "properties": {"city": {"type": "string"}}},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    },
    "required": ["code", "gift"],
    "additionalProperties": False,
}


def _data(form: ToolArgumentsForm, **values) -> dict:
    """POST data for ``form``'s fields named by argument."""
    keys = {row["name"]: row["key"] for row in form.rows}
    return {keys[name]: value for name, value in values.items()}


def test_each_property_gets_the_field_its_schema_asks_for():
    assert [argument_kind(p) for p in SCHEMA["properties"].values()] == [
        ("string", ""),
        ("integer", ""),
        ("number", ""),
        ("enum", ""),
        ("boolean", ""),
        ("array", "string"),
        ("array", "integer"),
        ("array", "enum"),
        ("json", ""),
        ("json", ""),
    ]
    form = ToolArgumentsForm(schema=SCHEMA)
    rows = {row["name"]: row for row in form.rows}
    assert {n: (r["type"], r["required"]) for n, r in rows.items()} == {
        "code": ("string", True),
        "count": ("integer", False),
        "price": ("number", False),
        "colour": ("enum", False),
        "gift": ("boolean", True),
        "tags": ("string[]", False),
        "sizes": ("integer[]", False),
        "days": ("enum[]", False),
        "address": ("JSON", False),
        "either": ("JSON", False),
    }
    assert form.initial_arguments() == {"count": 2}  # the schema's default is filled in
    address = parse(str(form[rows["address"]["key"]])).by_tag("textarea")[0]
    assert address.text().strip() == ""  # an empty JSON value box, not "null"


def test_the_values_become_the_arguments_json_and_an_empty_optional_one_is_not_sent():
    form = ToolArgumentsForm(schema=SCHEMA)
    data = _data(
        form,
        code="0042",
        count="3",
        price="9.5",
        colour=json.dumps("红", ensure_ascii=False),
        gift="false",
        tags="new\n\n  sale  \n",
        sizes="38\n40",
        days=[json.dumps("mon"), json.dumps("wed")],
        address='{"city": "上海"}',
        either="",
    )
    bound = ToolArgumentsForm(data, schema=SCHEMA)
    assert bound.is_valid(), bound.errors
    assert bound.arguments == {
        "code": "0042",  # a string stays a string
        "count": 3,
        "price": 9.5,
        "colour": "红",
        "gift": False,  # false is sent, not dropped
        "tags": ["new", "sale"],
        "sizes": [38, 40],
        "days": ["mon", "wed"],
        "address": {"city": "上海"},
    }
    bound = ToolArgumentsForm(_data(form, code="7", gift="true", price="3"), schema=SCHEMA)
    assert bound.is_valid(), bound.errors
    assert bound.arguments == {"code": "7", "gift": True, "price": 3}  # 3, not 3.0


def test_required_and_the_schemas_limits_are_said_at_the_field():
    form = ToolArgumentsForm(schema=SCHEMA)
    with translation.override("en"):
        bound = ToolArgumentsForm(_data(form, code="12ab", count="9", sizes="38\nL", tags="a\nb\nc"), schema=SCHEMA)
        assert not bound.is_valid()
        errors = {row["name"]: bound.errors.get(row["key"]) for row in bound.rows if row["key"] in bound.errors}
    assert errors == {
        "gift": ["This field is required."],
        "count": ["Ensure this value is less than or equal to 5."],
        "sizes": ["value 2: Enter a whole number."],
    }
    # the field checks passed: jsonschema has its say, on the argument's field, in the page's language
    with translation.override("zh-hans"):
        bound = ToolArgumentsForm(_data(form, code="12ab", gift="true", tags="a\nb\nc"), schema=SCHEMA)
        assert not bound.is_valid()
        errors = {row["name"]: bound.errors.get(row["key"]) for row in bound.rows if row["key"] in bound.errors}
    assert errors == {
        "code": ["不符合 inputSchema 的模式 ^[0-9]+$。"],
        "tags": ["最多填写 2 个值。"],
    }


def test_a_schema_the_form_cannot_stand_for_gets_the_json_box_only():
    assert call_form_problem(SCHEMA) is None
    assert call_form_problem({"type": "object"}) is None  # no arguments: a form with none
    with translation.override("en"):
        assert call_form_problem({"type": "object", "properties": {}, "oneOf": [{}, {}]}) == (
            "its inputSchema ties the arguments together (oneOf)"
        )
        assert call_form_problem({"type": "object", "properties": {}, "required": ["x"]}) == (
            "its inputSchema requires arguments it does not describe: x"
        )
        assert call_form_problem("type: object") == "its inputSchema is not an object schema"


@pytest.fixture
def editor_client(staff_client):
    staff_client.cookies["django_language"] = "en"
    return staff_client


@pytest.fixture
def synced(bitmall):
    server = stdio_server()
    assert mcp_server_sync(server=server, trigger="test").outcome == "ok"
    return server


def _answer(doc) -> dict:
    """The demo server's answer: it echoes the arguments it was sent."""
    return json.loads(doc.one("data-call-result").by_tag("pre")[0].text())


def test_the_tool_page_sends_the_forms_values_as_the_arguments(editor_client, synced):
    page = parse(editor_client.get("/tools/mcp/query_order/").content)
    fields = {a["data-argument"]: a for a in page.select("data-argument")}
    # one field per property, in the stored schema's key order: the declared one on SQLite, jsonb's
    # (shorter keys first) on PostgreSQL, which keeps no key order (Django's JSONField is jsonb there)
    assert sorted(fields) == ["limit", "order_no", "status"]
    assert list(fields) == list(McpTool.objects.get(name="query_order").input_schema["properties"])
    assert page.one("data-raw-json")  # the JSON box stays
    assert json.loads(page.one("data-raw-json").by_tag("textarea")[0].text()) == {"limit": 10}  # the default
    form = ToolArgumentsForm(schema=McpTool.objects.get(name="query_order").input_schema)
    data = _data(form, order_no="88239", status=json.dumps("已发货", ensure_ascii=False), limit="10")
    doc = parse(editor_client.post("/tools/mcp/query_order/", {"action": "call", "mode": "form", **data}).content)
    sent = {"limit": 10, "order_no": "88239", "status": "已发货"}
    assert json.loads(doc.one("data-call-sent").by_tag("code")[0].text()) == sent
    assert _answer(doc)["arguments"] == sent
    # a value the schema refuses is said at its field, and nothing is sent
    doc = parse(
        editor_client.post(
            "/tools/mcp/query_order/", {"action": "call", "mode": "form", **_data(form, order_no="12")}
        ).content
    )
    assert not doc.select("data-call-sent") and not doc.select("data-call-result")
    assert doc.one("data-call-form-errors")
    assert (
        doc.one("data-errors-for", "order_no").text() == "Does not match the pattern ^[0-9]{5,20}$ of the inputSchema."
    )


def test_a_write_tools_form_needs_the_confirmation_box_and_sends_arrays(editor_client, synced):
    schema = McpTool.objects.get(name="apply_after_sale").input_schema
    form = ToolArgumentsForm(schema=schema)
    data = _data(
        form,
        order_no="88239",
        sku_id="SKU-1",
        type=json.dumps("换货", ensure_ascii=False),
        reason="尺码不合适",
        quantity="1",
        photo_urls="https://example.com/a.png\nhttps://example.com/b.png",
    )
    doc = parse(editor_client.post("/tools/mcp/apply_after_sale/", {"action": "call", "mode": "form", **data}).content)
    assert "tick the box to confirm" in doc.one("data-call-error").text()
    doc = parse(
        editor_client.post(
            "/tools/mcp/apply_after_sale/", {"action": "call", "mode": "form", "confirmed": "1", **data}
        ).content
    )
    assert _answer(doc)["arguments"] == {
        "order_no": "88239",
        "sku_id": "SKU-1",
        "type": "换货",
        "reason": "尺码不合适",
        "quantity": 1,
        "photo_urls": ["https://example.com/a.png", "https://example.com/b.png"],
    }


def test_the_json_box_still_sends_what_it_holds_and_fills_the_form(editor_client, synced):
    # raw JSON is sent as typed, even what the schema refuses (the server's answer is the test)
    doc = parse(editor_client.post("/tools/mcp/query_order/", {"action": "call", "arguments": '{"limit": 0}'}).content)
    assert doc.one("data-call-result")["data-call-result"] == "error"
    assert doc.one("data-raw-json").get("open") is not None  # the JSON box stays open
    doc = parse(
        editor_client.post(
            "/tools/mcp/query_order/", {"action": "call", "mode": "json", "arguments": '{"order_no": "88239"}'}
        ).content
    )
    assert doc.one("data-call-result")["data-call-result"] == "ok"
    order_no = doc.one("data-argument", "order_no").by_tag("input")[0]
    assert order_no["value"] == "88239"  # the form shows what the JSON held, and no more:
    assert doc.one("data-argument", "limit").by_tag("input")[0].get("value") is None  # not the default 10


def test_a_tool_whose_schema_the_form_cannot_stand_for_offers_the_json_box_alone(editor_client, synced):
    tool = McpTool.objects.get(name="query_logistics")
    tool.input_schema = {"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"required": ["a"]}]}
    tool.save(update_fields=["input_schema"])
    doc = parse(editor_client.get("/tools/mcp/query_logistics/").content)
    assert not doc.select("data-call-form") and not doc.select("data-raw-json")
    assert doc.one("data-no-call-form").text() == (
        "No form for these arguments: its inputSchema ties the arguments together (anyOf). Write them as a JSON object."
    )
    assert doc.one("data-test-call").by_tag("textarea")[0]["name"] == "arguments"
