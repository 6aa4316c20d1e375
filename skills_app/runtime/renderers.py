r"""The runtime API's JSON renderer (docs/runtime-api.md, "Caching").

``RuntimeJSONRenderer`` is drf-orjson-renderer's ``ORJSONRenderer`` (orjson: a ``rounds`` answer
names up to every gated tool — 2,000 on the benchmark catalog — and the standard library's
encoder was a fifth of that request's time, docs/benchmarks.md) made to answer what DRF's
``JSONRenderer`` answered before it:

- compact UTF-8 JSON, non-ASCII characters as they are;
- U+2028 and U+2029 escaped (``\u2028``), as DRF does and as the stored catalog body is
  (``runtime_catalog.catalog_body_json``), so a manual holding one reads the same in every answer;
- any ``Mapping`` (a read-only view of a dict) as an object — orjson alone serializes only
  ``dict``, and the library's fallback would turn another mapping into the list of its keys;
- keys that are not strings (an integer index) as strings, as ``json.dumps`` does;
- what orjson refuses — an integer past 64 bits (a release number sent as 10**26, echoed in a
  404's details), a lone surrogate (``"\ud800"`` sent in a tool call id, echoed in a warning) —
  by the standard library's encoder with ``\u`` escapes instead: valid JSON, never a 500.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson
from drf_orjson_renderer.renderers import ORJSONRenderer
from rest_framework.utils import encoders

_LINE_SEPARATORS = (("\u2028".encode(), b"\\u2028"), ("\u2029".encode(), b"\\u2029"))


class RuntimeJSONRenderer(ORJSONRenderer):
    """``application/json`` answers of the runtime API, rendered with orjson (see the module)."""

    options = orjson.OPT_NON_STR_KEYS

    @staticmethod
    def default(obj: Any) -> Any:
        """A value orjson does not know: a ``Mapping`` → ``dict``; the rest as the library does
        (lazy translations and UUIDs → text, decimals, iterables → lists)."""
        if isinstance(obj, Mapping):
            return dict(obj)
        return ORJSONRenderer.default(obj)

    def render(self, data: Any, media_type: str | None = None, renderer_context: Any = None) -> bytes:
        """``data`` as UTF-8 JSON bytes (``b""`` for ``None``, as the library does)."""
        try:
            body = super().render(data, media_type, renderer_context)
        except (TypeError, orjson.JSONEncodeError):  # JSONEncodeError is a TypeError; named for the reader
            return json.dumps(
                data,
                cls=encoders.JSONEncoder,
                ensure_ascii=True,
                separators=(",", ":"),
                default=RuntimeJSONRenderer.default,
            ).encode("ascii")
        if body.isascii():  # the common answer (tool names, codes, English warnings): nothing to escape.
            return body  # One pass in C; searching 55 KB for each separator took 0.08 ms (docs/benchmarks.md)
        for raw, escaped in _LINE_SEPARATORS:
            if raw in body:
                body = body.replace(raw, escaped)
        return body
