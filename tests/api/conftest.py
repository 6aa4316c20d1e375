"""Fixtures of the runtime API tests (the demo catalogs and ``api_client`` come from tests/conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest

from skills_app.catalog.demo import demo_load
from skills_app.releases.services import release_publish_first


@pytest.fixture
def bitmall(db):
    """The bitmall demo (seed 000) published as release 1, as ``load_demo`` does: the runtime
    serves releases only."""
    summary = demo_load(name="bitmall")
    release_publish_first(note="demo catalog 'bitmall'")
    return summary


@pytest.fixture
def returns(db):
    """The returns demo (seed 004) published as release 1."""
    summary = demo_load(name="returns")
    release_publish_first(note="demo catalog 'returns'")
    return summary


@pytest.fixture
def post(api_client):
    """``post(url, body)`` → response, JSON-encoded through the token-authenticated client."""

    def _post(url: str, body: Any, **extra: Any):
        return api_client.post(url, body, format="json", **extra)

    return _post
