"""Shared fixtures for the agentsnap test suite."""

from __future__ import annotations

from typing import Iterator

import pytest

from tests.fake_provider import FakeOpenAI


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A started FakeOpenAI (fresh per test); ``.base_url`` is ``http://127.0.0.1:<port>/v1``."""
    with FakeOpenAI() as fake:
        yield fake
