"""Helpers every feature's services use to refuse and to save (docs/design.md "The house"):
errors that carry a code and params so a page can say them in its language
(``core.message_catalog.translate_error``), and a save that turns a lost unique race into that
error instead of a 500."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction


def problem(error_code: str, template: str, /, **params: Any) -> ValidationError:
    """A Django ``ValidationError`` whose ``code`` and ``params`` let a page translate it
    (``message_catalog.translate_error``); ``str()`` of it is the English sentence naming the value."""
    return ValidationError(template, code=error_code, params=params or None)


def field_error(field: str, code: str, message: str, **params: Any) -> ValidationError:
    """A ``ValidationError`` on ``field`` whose one message carries ``code`` and ``params`` (Django
    drops a ``code`` given beside a dict of messages, so it goes on the message itself), so a page
    can say it in its language (``message_catalog.translate_error``)."""
    return ValidationError({field: [ValidationError(message, code=code, params=params or None)]})


def save_new(obj: Any, taken: ValidationError) -> None:
    """Save ``obj`` in a savepoint; a unique constraint that another transaction won meanwhile (two
    creates of one name at once, PostgreSQL) raises ``taken`` instead of an ``IntegrityError``
    (a 500), and nothing is saved. (SQLite's IMMEDIATE transactions serialise the two: the second
    sees the first's row in its own check.)"""
    try:
        with transaction.atomic():
            obj.save()
    except IntegrityError:
        raise taken from None
