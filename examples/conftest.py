"""Fixtures for the example agent tests: plain OpenAI clients, no agentsnap import.

Recording/normal runs start a session-wide FakeOpenAI playing ``fake_model.respond``
and point ``OPENAI_BASE_URL`` at it. Replay runs (``--agentsnap-replay``) start
nothing: ``OPENAI_BASE_URL`` defaults to a dead local port so a call that escapes
replay fails fast instead of reaching the internet.
"""

from __future__ import annotations

import os
from typing import Iterator

import openai
import pytest

from fake_model import respond
from tests.fake_provider import FakeOpenAI

DEAD_BASE_URL = "http://127.0.0.1:9/v1"  # discard port: nothing listens there


@pytest.fixture(scope="session", autouse=True)
def openai_environment(pytestconfig: pytest.Config) -> Iterator[FakeOpenAI | None]:
    """Set ``OPENAI_BASE_URL``/``OPENAI_API_KEY`` for the session; yields the fake server or None."""
    replay = pytestconfig.getoption("agentsnap_replay", default=False)
    with pytest.MonkeyPatch.context() as mp:
        if "OPENAI_API_KEY" not in os.environ:
            mp.setenv("OPENAI_API_KEY", "sk-fake-examples")
        if replay:
            if "OPENAI_BASE_URL" not in os.environ:
                mp.setenv("OPENAI_BASE_URL", DEAD_BASE_URL)
            yield None
            return
        with FakeOpenAI() as fake:
            fake.respond_with(respond)
            mp.setenv("OPENAI_BASE_URL", fake.base_url)
            yield fake


@pytest.fixture
def openai_client() -> Iterator[openai.OpenAI]:
    """``openai.OpenAI`` configured from the environment, without retries."""
    client = openai.OpenAI(base_url=os.environ.get("OPENAI_BASE_URL"), max_retries=0)
    yield client
    client.close()


@pytest.fixture
def async_openai_client() -> openai.AsyncOpenAI:
    """``openai.AsyncOpenAI`` configured from the environment, without retries.

    Use it inside ``asyncio.run(...)`` (one event loop per test); ``async with``
    it in the test to close its connections on that loop.
    """
    return openai.AsyncOpenAI(base_url=os.environ.get("OPENAI_BASE_URL"), max_retries=0)
