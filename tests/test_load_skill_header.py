"""The load_skill description header: a setting carried with the catalog (services, selectors,
runtime catalog JSON). docs/runtime-api.md "What the model sees"."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from skill_rule.limits import DEFAULT_LOAD_SKILL_HEADER, LOAD_SKILL_HEADER_MAX_LENGTH
from skills_app.catalog import selectors, services
from skills_app.models import ConsoleSettings
from tests.api.support import publish_draft


def test_the_draft_catalog_carries_the_default_header(bitmall):
    assert selectors.catalog_draft().load_skill_header == DEFAULT_LOAD_SKILL_HEADER


def test_a_saved_header_is_read_by_the_draft_and_served_in_the_catalog_json(bitmall, api_client):
    services.load_skill_header_set(header="第一行\r\n第二行\n\n")
    assert selectors.catalog_draft().load_skill_header == "第一行\n第二行"
    publish_draft()  # the runtime serves releases only
    body = api_client.get("/api/v1/runtime/catalog").json()
    assert body["load_skill_header"] == "第一行\n第二行"


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("", "the load_skill description header cannot be blank."),
        (" \n\t ", "the load_skill description header cannot be blank."),
        (
            "长" * (LOAD_SKILL_HEADER_MAX_LENGTH + 1),
            f"Ensure this value has at most {LOAD_SKILL_HEADER_MAX_LENGTH} characters (it has {LOAD_SKILL_HEADER_MAX_LENGTH + 1}).",
        ),
    ],
)
def test_a_blank_or_too_long_header_is_refused_and_nothing_is_saved(bitmall, header, message):
    with translation.override("en"):
        with pytest.raises(ValidationError) as exc:
            services.load_skill_header_set(header=header)
        assert exc.value.message_dict == {"load_skill_header": [message]}
    assert ConsoleSettings.current().load_skill_header == DEFAULT_LOAD_SKILL_HEADER


def test_a_header_at_the_limit_is_accepted(bitmall):
    services.load_skill_header_set(header="长" * LOAD_SKILL_HEADER_MAX_LENGTH)
    assert len(ConsoleSettings.current().load_skill_header) == LOAD_SKILL_HEADER_MAX_LENGTH


def test_a_whitespace_only_header_is_refused_by_the_model_too(db):
    row = ConsoleSettings(pk=1, load_skill_header=" \n\u3000 ")
    with translation.override("en"):
        with pytest.raises(ValidationError) as exc:
            row.full_clean()
        assert exc.value.message_dict == {"load_skill_header": ["the load_skill description header cannot be blank."]}
