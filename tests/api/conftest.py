"""Fixtures of the runtime API tests (the demo catalogs and ``api_client`` come from tests/conftest.py)."""
from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def post(api_client):
    """``post(url, body)`` → response, JSON-encoded through the token-authenticated client."""

    def _post(url: str, body: Any, **extra: Any):
        return api_client.post(url, body, format="json", **extra)

    return _post
