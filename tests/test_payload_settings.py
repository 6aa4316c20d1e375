"""The provider-target setting (docs/providers.md): saved through its service, refused with a clear
error naming the item, carried into the draft catalog and its snapshot."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from skill_rule.snapshot import catalog_to_snapshot
from skills_app.catalog import selectors, services
from skills_app.models import ConsoleSettings


@pytest.mark.django_db
def test_targets_and_budgets_are_saved_and_travel_with_the_draft():
    services.payload_targets_set(targets=["gemini", "openai_chat"], budgets={"gemini": 9000})
    draft = selectors.catalog_draft()
    assert (draft.payload_targets, dict(draft.payload_budgets)) == (("gemini", "openai_chat"), {"gemini": 9000})
    settings = catalog_to_snapshot(draft)["settings"]
    assert (settings["payload_targets"], settings["payload_budgets"]) == (["gemini", "openai_chat"], {"gemini": 9000})


@pytest.mark.django_db
def test_the_defaults_are_openai_chat_and_anthropic_messages():
    assert ConsoleSettings.current().payload_targets == ["openai_chat", "anthropic_messages"]
    assert selectors.catalog_draft().payload_targets == ("openai_chat", "anthropic_messages")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("targets", "budgets", "field", "message"),
    [
        ([], {}, "payload_targets", "name at least one provider target, as a list."),
        (
            ["openai"],
            {},
            "payload_targets",
            "unknown provider target 'openai'; known: openai_chat, openai_responses, anthropic_messages, gemini",
        ),
        (["gemini", "gemini"], {}, "payload_targets", "a provider target is listed twice."),
        (
            ["gemini"],
            {"claude": 5},
            "payload_budgets",
            "unknown provider target 'claude'; known: openai_chat, openai_responses, anthropic_messages, gemini",
        ),
        (
            ["gemini"],
            {"gemini": 0},
            "payload_budgets",
            "the budget of gemini must be a whole number of characters from 1 to 10000000.",
        ),
    ],
)
def test_a_bad_setting_is_refused_naming_the_item_and_nothing_is_saved(targets, budgets, field, message):
    with translation.override("en"):  # the messages are lazy: read them in the language too
        with pytest.raises(ValidationError) as caught:
            services.payload_targets_set(targets=targets, budgets=budgets)
        assert caught.value.message_dict == {field: [message]}
    assert not ConsoleSettings.objects.exists()
