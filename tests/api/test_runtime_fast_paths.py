"""The runtime API's fast paths answer exactly what the slower ones did (docs/benchmarks.md):
the key lookup compiled once (``auth.usable_key``), the orjson renderer
(``renderers.RuntimeJSONRenderer``) and no query validation without a query string."""

from __future__ import annotations

import json
from datetime import timedelta
from types import MappingProxyType

import pytest
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy

from skills_app.keys.services import api_key_create, api_key_revoke
from skills_app.models import RuntimeKey
from skills_app.releases.services import COMMAND_LINE
from skills_app.runtime.auth import usable_key
from skills_app.runtime.renderers import RuntimeJSONRenderer


@pytest.mark.django_db
def test_a_usable_key_is_found_with_every_field_as_the_library_reads_it(runtime_key):
    found = usable_key(runtime_key.key)
    library = RuntimeKey.objects.get_from_key(runtime_key.key)
    assert found is not None and found.pk == runtime_key.record.pk == library.pk
    assert {f.attname: getattr(found, f.attname) for f in RuntimeKey._meta.concrete_fields} == {
        f.attname: getattr(library, f.attname) for f in RuntimeKey._meta.concrete_fields
    }
    assert found.name == "test-runtime" and found.revoked is False and found.read_drafts is False


@pytest.mark.django_db
def test_a_wrong_secret_with_a_known_prefix_an_unknown_prefix_and_a_revoked_key_find_nothing(runtime_key):
    prefix, _, secret = runtime_key.key.partition(".")
    assert usable_key(f"{prefix}.{secret[::-1]}") is None
    assert usable_key(f"zzzzzzzz.{secret}") is None
    assert usable_key("") is None
    api_key_revoke(user=COMMAND_LINE, name="test-runtime")
    assert usable_key(runtime_key.key) is None


@pytest.mark.django_db
def test_an_expired_key_is_found_and_refused_by_the_api_as_expired(client, bitmall):
    made = api_key_create(user=COMMAND_LINE, name="short-lived")
    RuntimeKey.objects.filter(pk=made.record.pk).update(expiry_date=timezone.now() - timedelta(minutes=1))
    assert usable_key(made.key).has_expired is True
    answer = client.get("/api/v1/runtime/catalog", HTTP_AUTHORIZATION=f"Bearer {made.key}")
    assert answer.status_code == 401
    assert answer.json()["error"]["message"] == "the API key has expired."


@pytest.mark.django_db
def test_the_last_use_is_recorded_as_an_aware_time(api_client, bitmall, runtime_key):
    assert api_client.get("/api/v1/runtime/catalog").status_code == 200
    used = RuntimeKey.objects.get(pk=runtime_key.record.pk).last_used_at
    assert used is not None and used.tzinfo is not None
    assert timezone.now() - used < timedelta(minutes=1)


def test_the_renderer_writes_compact_utf8_json_as_json_dumps_reads_it():
    data = {
        "masked": {"cancel_order": "order_change"},
        "loaded": ["订单"],
        "count": 3,
        "none": None,
        "ok": True,
        "ratio": 0.5,
    }
    body = RuntimeJSONRenderer().render(data)
    assert body == json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def test_the_renderer_escapes_the_line_separators_as_drf_did():
    body = RuntimeJSONRenderer().render({"content": "a\u2028b\u2029c"})
    assert body == b'{"content":"a\\u2028b\\u2029c"}'
    assert json.loads(body) == {"content": "a\u2028b\u2029c"}


def test_the_renderer_writes_any_mapping_as_an_object_and_lazy_text_as_text():
    with translation.override("en"):
        body = RuntimeJSONRenderer().render(
            {"masked": MappingProxyType({"t": "s"}), 3: gettext_lazy("Not found."), "tuple": ("a", "b")}
        )
    assert json.loads(body) == {"masked": {"t": "s"}, "3": "Not found.", "tuple": ["a", "b"]}


def test_the_renderer_answers_no_bytes_for_no_data():
    assert RuntimeJSONRenderer().render(None) == b""


@pytest.mark.django_db
def test_a_misspelt_query_parameter_is_still_refused_and_no_query_serves_the_default(api_client, bitmall):
    assert api_client.get("/api/v1/runtime/catalog").json()["release"] == 1
    refused = api_client.get("/api/v1/runtime/catalog?relase=1")
    assert refused.status_code == 400
    assert "unknown query parameter 'relase'" in json.dumps(refused.json(), ensure_ascii=False)


def test_what_orjson_refuses_is_written_by_the_standard_encoder_with_escapes():
    body = RuntimeJSONRenderer().render({"release": 10**26, "id": "\ud800x", "name": "订单"})
    assert body == b'{"release":100000000000000000000000000,"id":"\\ud800x","name":"\\u8ba2\\u5355"}'


@pytest.mark.django_db
def test_a_release_number_past_64_bits_is_a_json_404_naming_it(api_client, bitmall):
    answer = api_client.get("/api/v1/runtime/catalog?release=99999999999999999999999999")
    assert answer.status_code == 404
    error = json.loads(answer.content)["error"]
    assert (error["code"], error["details"]["release"]) == ("release_not_found", 99999999999999999999999999)
    # in a body, an integer past ±(2^53−1) is ambiguous JSON (docs/transcripts.md): a 400 naming the field
    posted = api_client.post("/api/v1/runtime/rounds", {"messages": [], "release": 18446744073709551616}, format="json")
    error = json.loads(posted.content)["error"]
    assert (posted.status_code, error["code"], error["details"]) == (
        400,
        "malformed_json",
        {"key": "release", "cause": "integer 18446744073709551616 is outside ±(2^53−1)"},
    )


@pytest.mark.django_db
def test_a_lone_surrogate_in_an_old_message_is_echoed_escaped_never_a_500(api_client, bitmall):
    body = json.dumps({"messages": [{"role": "tool", "tool_call_id": "\ud800", "content": "x"}]})
    assert "\\ud800" in body  # sent as JSON sends it: an escape, not a UTF-8 byte sequence
    answer = api_client.post("/api/v1/runtime/rounds", body, content_type="application/json")
    assert answer.status_code == 200
    assert b"\\ud800" in answer.content
    # a lone surrogate is ambiguous JSON (docs/transcripts.md): the result loads nothing, the id reads as U+FFFD
    assert [w["code"] for w in json.loads(answer.content)["warning_details"]] == [
        "message_ambiguous",
        "result_unpaired",
    ]


@pytest.mark.django_db
def test_a_key_holding_a_nul_character_is_401_on_every_database(client, bitmall):
    for header in ("Bearer ab\x00cd.efgh", "Bearer \x00"):
        answer = client.get("/api/v1/runtime/catalog", HTTP_AUTHORIZATION=header)
        assert answer.status_code == 401
        assert answer.json()["error"]["message"] == "the API key is unknown or revoked."


@pytest.mark.django_db
def test_a_query_parameter_given_twice_is_refused_naming_it(api_client, bitmall):
    answer = api_client.get("/api/v1/runtime/catalog?release=1&release=1")
    assert answer.status_code == 400
    assert "query parameter 'release' is given 2 times; give it once." in json.dumps(answer.json())


def test_an_answer_with_other_non_ascii_text_is_written_as_it_is_and_an_ascii_one_untouched():
    renderer = RuntimeJSONRenderer()
    assert renderer.render({"name": "取消订单", "note": "é\u2027"}) == '{"name":"取消订单","note":"é\u2027"}'.encode()
    assert renderer.render({"visible": ("cancel_order", "pay_order"), "count": 2}) == (
        b'{"visible":["cancel_order","pay_order"],"count":2}'
    )
    # a separator after plenty of non-ASCII text is still escaped, and only it
    assert (
        renderer.render({"content": "手册" * 500 + "\u2029"}) == ('{"content":"' + "手册" * 500 + '\\u2029"}').encode()
    )


def test_each_input_serializer_binds_its_own_field_copies_and_keeps_no_state_between_requests():
    from skills_app.runtime.views import CheckCallApi, RoundsApi

    bad = RoundsApi.InputSerializer(data={"messages": [], "allowed_tools": ["pay_order", {"x": 1}], "stage": 7})
    with translation.override("en"):
        assert not bad.is_valid()
        assert bad.errors == {"allowed_tools": {1: ["Not a valid string."]}}
    good = RoundsApi.InputSerializer(data={"messages": [], "allowed_tools": ["pay_order"], "stage": "paying"})
    assert good.is_valid(), good.errors
    assert good.validated_data["allowed_tools"] == ["pay_order"] and good.validated_data["stage"] == "paying"
    assert good.restrictions() == {"access_profile": None, "stage": "paying", "allowed_tools": ["pay_order"]}
    for name, field in good.fields.items():
        assert field.parent is good and field.field_name == name and field is not bad.fields[name]
        assert RoundsApi.InputSerializer._declared_fields[name].parent is None  # the declared field is never bound
    first, second = CheckCallApi.InputSerializer(data={}), CheckCallApi.InputSerializer(data={})
    assert first.fields["call"] is not second.fields["call"]
    assert first.fields["call"].fields["name"] is not second.fields["call"].fields["name"]  # nested: deep copies
    assert first.fields["call"].fields["name"].parent is first.fields["call"]


@pytest.mark.parametrize("fmt", ["api", "xml", "json"])
def test_a_format_query_parameter_is_an_unknown_parameter_named_in_a_400(api_client, bitmall, fmt):
    for answer in (
        api_client.get(f"/api/v1/runtime/catalog?format={fmt}"),
        api_client.post(f"/api/v1/runtime/rounds?format={fmt}", {"messages": []}, format="json"),
    ):
        assert answer.status_code == 400 and answer["Content-Type"] == "application/json"
        error = answer.json()["error"]
        assert error["code"] == "invalid" and list(error["details"]) == ["format"]
        assert "unknown query parameter 'format'; parameters: release, label, draft." in error["details"]["format"][0]
