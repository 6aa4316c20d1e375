"""What every feature's forms share: ``ServiceForm`` (a service's refusal put back on the
form's fields, translated by code through ``core.message_catalog``) and the NUL-character checks.

Forms only validate: no form writes the database (STYLE "Forms validate; services write"). A view
binds a form, and when it is valid calls ONE service of its feature (``web.common.save_with``)
with the arguments the form gives (``service_arguments()``); the service validates everything
again and saves in one transaction. When it refuses (``ValidationError``) the messages — which
name the offending value, e.g. ``'load_skill' is a builtin tool …`` — land on the form's fields,
and nothing is saved."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import ProhibitNullCharactersValidator
from django.utils.translation import gettext

from skills_app.core.message_catalog import iter_errors, translate_error


class ServiceForm(forms.Form):
    """A form whose valid data a service writes (the view calls it; the form never does)."""

    #: An error on a field this form does not have is shown as a non-field error; ``True`` leads
    #: it with the field's name (``tools: …``).
    name_unknown_fields = True

    def add_service_errors(self, exc: ValidationError) -> None:
        """Put a service's ``ValidationError`` on the form's fields, each error translated by its
        code (``message_catalog.translate_error``); errors of fields the form lacks become
        non-field errors. Call it after ``is_valid()``; the form is invalid afterwards."""
        for field, error in iter_errors(exc):
            text = translate_error(error)
            target = field if field in self.fields else None
            if target is None and field is not None and self.name_unknown_fields:
                text = f"{field}: {text}"
            self.add_error(target, text)


class AnyValueMultipleChoiceField(forms.MultipleChoiceField):
    """A multiple choice that accepts any submitted value: the service decides and names the
    offending id (a builtin, an unknown id, a disabled node's tool) instead of Django's generic
    "not one of the available choices"."""

    def valid_value(self, value: str) -> bool:
        return True


def nul_position(text: str) -> tuple[int, int] | None:
    """``(line, column)`` (1-based) of the first NUL character of ``text``, or ``None``."""
    at = (text or "").find("\x00")
    if at < 0:
        return None
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def allow_nul(field: forms.Field) -> None:
    """Drop Django's generic "Null characters are not allowed." so ``clean()`` can say where."""
    field.validators = [v for v in field.validators if not isinstance(v, ProhibitNullCharactersValidator)]


def nul_error(text: str) -> str | None:
    """The sentence saying where a pasted script holds a NUL character (no YAML or JSON parser
    accepts one), or ``None``."""
    where = nul_position(text)
    if where is None:
        return None
    return gettext(
        "The script contains a NUL character (\\0) at line %(line)s, column %(column)s: remove it and try again."
    ) % {"line": where[0], "column": where[1]}


def same_text(a: str, b: str) -> bool:
    """Whether two pasted texts are the same once line endings, trailing spaces and the blank
    lines around them are ignored (a textarea's round trip changes those)."""
    norm = lambda s: "\n".join(line.rstrip() for line in s.replace("\r\n", "\n").strip().split("\n"))  # noqa: E731
    return norm(a) == norm(b)
