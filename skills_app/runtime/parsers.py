"""The runtime API's JSON parser (docs/runtime-api.md, "Errors"; docs/transcripts.md, "Ambiguous JSON").

``StrictJSONParser`` reads a request body with ``skill_rule.jsontext.loads``, the one strict
reader: JSON that readers disagree on is marked, never guessed. Then:

- text that is not JSON → DRF's ``ParseError`` (400 ``malformed_json``, as before);
- a key twice at the top level of the body (``{"messages": [], "messages": [...]}``) → 400
  ``malformed_json`` naming the key (``details.key``): which list a runtime meant cannot be known;
- ``messages`` and ``call`` are read by the domain, fail closed (``message_ambiguous``,
  ``arguments_ambiguous``; a round is always computed);
- any other top-level field holding an ambiguity (``"release": 1e400``) → 400 ``malformed_json``
  naming the field.
"""

from __future__ import annotations

import codecs
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from skill_rule import jsontext
from skill_rule.limits import REPORT_MAX_BATCH_BYTES
from skills_app.runtime.errors import ApiError, ReportTooLargeError

#: The body fields the domain reads, ambiguity and all (see the module).
DOMAIN_READ = frozenset({"messages", "call"})


class AmbiguousBodyError(ApiError):
    """A request body that JSON readers disagree on at its top level (400 ``malformed_json``):
    ``details`` = ``{"key": the field, "cause": why}``."""

    code = "malformed_json"
    status_code = 400

    def __init__(self, key: str, cause: str, where: str) -> None:
        super().__init__(
            f"JSON parse error - {where}; JSON readers disagree on which value counts",
            details={"key": key, "cause": cause},
        )


def check_body(value: Any, domain_read: frozenset[str] = DOMAIN_READ) -> None:
    """Raise ``AmbiguousBodyError`` for a top-level duplicate key or an ambiguous field other than
    ``domain_read`` (see the module)."""
    if not isinstance(value, jsontext.AmbiguousDict):
        return
    if value.duplicates:
        key = value.duplicates[0]
        cause = f"key {jsontext.quoted(key)} appears twice"
        raise AmbiguousBodyError(key, cause, f"{cause} in the body")
    for key, field in value.items():
        cause = jsontext.ambiguity_of(field)
        if cause is not None and key not in domain_read:
            raise AmbiguousBodyError(key, cause, f"{key}: {cause}")


class StrictJSONParser(JSONParser):
    """DRF's ``JSONParser`` reading with ``jsontext.loads`` (see the module)."""

    #: The top-level fields whose ambiguities the domain reads itself (``check_body``).
    domain_read: frozenset[str] = DOMAIN_READ

    def read(self, stream: Any, parser_context: Any) -> bytes:
        """The body's bytes (``b""`` without a body)."""
        return stream.read() if stream is not None else b""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        data = self.read(stream, parser_context)
        try:
            text = codecs.decode(data, encoding) if encoding.lower().replace("-", "") != "utf8" else data
            value = jsontext.loads(text)
        except jsontext.JsonTextError as exc:
            if exc.msg == jsontext.TOO_DEEP:
                raise ParseError("the JSON body is nested too deeply") from None
            raise ParseError(f"JSON parse error - {exc}") from None
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        check_body(value, self.domain_read)
        return value


class ReportsParser(StrictJSONParser):
    """``POST runtime/reports``: a body over ``REPORT_MAX_BATCH_BYTES`` is refused (413
    ``report_too_large``) after reading at most one byte more, and ambiguities inside ``records``
    are read by ``skill_rule.reports`` — refused naming the record and the field."""

    domain_read = frozenset({"records"})

    def read(self, stream: Any, parser_context: Any) -> bytes:
        data = stream.read(REPORT_MAX_BATCH_BYTES + 1) if stream is not None else b""
        if len(data) > REPORT_MAX_BATCH_BYTES:
            request = parser_context.get("request")
            length = request.META.get("CONTENT_LENGTH") if request is not None else None
            raise ReportTooLargeError(int(length) if length and str(length).isdigit() else None)
        return data
