"""The floors ``make bench`` compares the runtime API with (docs/benchmarks.md), served by the same
gunicorn workers through the same middleware:

- ``catalog_floor`` — a bare Django view answering the bytes of ``GET /api/v1/runtime/catalog``
  from memory (read once per worker from ``BENCH_CATALOG_FILE``, which the driver writes from a
  real catalog response before it starts measuring);
- ``ParseFloor`` — a DRF ``APIView`` with the runtime API's parser, authentication and permission
  that only parses the JSON body and answers a small JSON object.
"""

from __future__ import annotations

import os
from functools import lru_cache

from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from skills_app.runtime.parsers import StrictJSONParser


@lru_cache(maxsize=1)
def _catalog_bytes() -> bytes:
    return open(os.environ["BENCH_CATALOG_FILE"], "rb").read()


def catalog_floor(request):
    """``GET /bench/floor/catalog``: the stored catalog bytes, as ``application/json``."""
    return HttpResponse(_catalog_bytes(), content_type="application/json")


class ParseFloor(APIView):
    """``POST /bench/floor/parse``: parse the body (``request.data``), answer how many messages it held."""

    #: the runtime API's own parser (issue 22: the strict reader that marks ambiguous JSON is part of
    #: reading a request, so the floor reads the body as the endpoints must)
    parser_classes = [StrictJSONParser]
    renderer_classes = [JSONRenderer]

    def post(self, request):
        data = request.data
        messages = data.get("messages") if isinstance(data, dict) else None
        return Response({"messages": len(messages) if isinstance(messages, list) else 0})
