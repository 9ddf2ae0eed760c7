"""Fixtures for the example agent tests: plain OpenAI / Anthropic clients, no agentsnap import.

Recording/normal runs start session-wide fake providers playing ``fake_model.respond``
(FakeOpenAI) and ``fake_model.respond_anthropic`` (FakeAnthropicAPI), and point
``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL`` at them (the SDKs and LangChain's chat
models read these). Replay runs (``--agentsnap-replay``) start nothing: the base
URLs default to a dead local port so a call that escapes replay fails fast
instead of reaching the internet.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import anthropic
import openai
import pytest
from fake_model import FakeAnthropicAPI, respond, respond_anthropic

from tests.fake_provider import FakeOpenAI

DEAD_BASE_URL = "http://127.0.0.1:9/v1"  # discard port: nothing listens there
DEAD_ANTHROPIC_URL = "http://127.0.0.1:9"


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


@pytest.fixture(scope="session", autouse=True)
def anthropic_environment(pytestconfig: pytest.Config) -> Iterator[FakeAnthropicAPI | None]:
    """Set ``ANTHROPIC_BASE_URL``/``ANTHROPIC_API_KEY`` for the session; yields the fake server or None."""
    replay = pytestconfig.getoption("agentsnap_replay", default=False)
    with pytest.MonkeyPatch.context() as mp:
        if "ANTHROPIC_API_KEY" not in os.environ:
            mp.setenv("ANTHROPIC_API_KEY", "sk-ant-fake-examples")
        if replay:
            if "ANTHROPIC_BASE_URL" not in os.environ:
                mp.setenv("ANTHROPIC_BASE_URL", DEAD_ANTHROPIC_URL)
            yield None
            return
        with FakeAnthropicAPI() as fake:
            fake.respond_with(respond_anthropic)
            mp.setenv("ANTHROPIC_BASE_URL", fake.base_url)
            yield fake


@pytest.fixture
def anthropic_client() -> Iterator[anthropic.Anthropic]:
    """``anthropic.Anthropic`` configured from the environment, without retries."""
    client = anthropic.Anthropic(max_retries=0)
    yield client
    client.close()


@pytest.fixture
def async_anthropic_client() -> anthropic.AsyncAnthropic:
    """``anthropic.AsyncAnthropic`` configured from the environment, without retries
    (``async with`` it inside the test's event loop)."""
    return anthropic.AsyncAnthropic(max_retries=0)
