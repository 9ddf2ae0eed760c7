"""OpenRouter through the openai SDK: recognised by host, recorded over loopback, replayed offline.

There is no network here, so the SDK is pointed at the real base URL
``https://openrouter.ai/api/v1`` and given an ``httpx2`` client (``httpx``
before openai 3.0: whichever the SDK is built on) whose
transport (:func:`tests.fake_openai_extra.LoopbackTransport`) carries each
request over a real socket to :class:`tests.fake_openai_extra.FakeOpenRouter`.
agentsnap wraps ``Client.send``, above the transport, so it sees exactly the
request the SDK built for ``openrouter.ai``. In replay the transport is never
reached.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from agentsnap import AgentRecorder, SnapshotStore
from agentsnap.spec.provider_specs import classify
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.offline import Offline
from tests._support.roundtrip import arecord_then_replay, record_then_replay
from tests.fake_openai_extra import (
    OPENROUTER_MODEL,
    AsyncLoopbackTransport,
    FakeOpenRouter,
    LoopbackTransport,
    openai_http,
    openrouter_reply,
    openrouter_stream_reply,
)
from tests.fake_provider import FakeOpenAI, text_reply

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

API_KEY = "sk-or-v1-SECRET0123456789abcdef"
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
ROUTING = {
    "models": ["openai/gpt-4o-mini", "anthropic/claude-3.5-haiku"],
    "provider": {"sort": "price"},
}
# OpenRouter's usage reports prompt_tokens_details / completion_tokens_details too
OR_USAGE = {
    "input_tokens": 14,
    "output_tokens": 6,
    "total_tokens": 20,
    "cached_tokens": 0,
    "reasoning_tokens": 0,
}
# the HTTP library the installed SDK is built on: httpx2 from openai 3.0, httpx before
SDK_HTTP = openai_http()


@pytest.fixture
def fake() -> Iterator[FakeOpenRouter]:
    with FakeOpenRouter() as server:
        yield server


def sync_client(origin: str) -> openai.OpenAI:
    http = SDK_HTTP.Client(transport=LoopbackTransport(origin, SDK_HTTP))
    return openai.OpenAI(
        base_url=FakeOpenRouter.public_base_url, api_key=API_KEY, http_client=http, max_retries=0
    )


def async_client(origin: str) -> openai.AsyncOpenAI:
    http = SDK_HTTP.AsyncClient(transport=AsyncLoopbackTransport(origin, SDK_HTTP))
    return openai.AsyncOpenAI(
        base_url=FakeOpenRouter.public_base_url, api_key=API_KEY, http_client=http, max_retries=0
    )


def snapshot_data(directory: Path, name: str) -> dict[str, Any]:
    return SnapshotStore.read_file(
        SnapshotStore(directory).path_for(name)
    ).to_dict()  # as loaded: the file stores each call\'s messages once


def llm_steps(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in data["trace"] if s["type"] == "llm_call"]


def record_and_replay_sync(
    tmp_path: Path,
    name: str,
    fake: FakeOpenRouter,
    offline: Offline,
    run: Callable[[openai.OpenAI], Any],
) -> tuple[Any, Any]:
    origin = fake.origin
    trip = record_then_replay(
        tmp_path, name, offline, lambda: run(sync_client(origin)), stop=fake.stop
    )
    return trip.live, trip.replayed


def record_and_replay_async(
    tmp_path: Path,
    name: str,
    fake: FakeOpenRouter,
    offline: Offline,
    run: Callable[[openai.AsyncOpenAI], Any],
) -> tuple[Any, Any]:
    origin = fake.origin
    trip = arecord_then_replay(
        tmp_path, name, offline, lambda: run(async_client(origin)), stop=fake.stop
    )
    return trip.live, trip.replayed


def assert_same_completion(replayed: Any, live: Any) -> None:
    assert type(replayed) is type(live)
    assert replayed.model_dump() == live.model_dump()
    assert replayed.model_fields_set == live.model_fields_set


# --------------------------------------------------------------------------- recognition


@pytest.mark.parametrize(
    ("url", "user_agent", "provider"),
    [
        ("https://openrouter.ai/api/v1/chat/completions", "OpenAI/Python 3.57.0", "openrouter"),
        (
            "https://eu.openrouter.ai/api/v1/chat/completions",
            "AsyncOpenAI/Python 3.57.0",
            "openrouter",
        ),
        ("https://notopenrouter.ai/api/v1/chat/completions", "OpenAI/Python 3.57.0", "openai"),
        ("https://api.openai.com/v1/chat/completions", "OpenAI/Python 3.57.0", "openai"),
        ("https://openrouter.ai/api/v1/chat/completions", "my-app/1.0", None),
    ],
)
def test_spec_choice_by_host_and_user_agent(
    url: str, user_agent: str, provider: str | None
) -> None:
    spec = classify(SDK_HTTP.Request("POST", url, headers={"user-agent": user_agent}))
    assert (spec.name if spec else None) == provider


def test_openrouter_endpoints_use_the_openai_codecs() -> None:
    spec = classify(
        SDK_HTTP.Request(
            "POST", "https://openrouter.ai/api/v1/x", headers={"user-agent": "OpenAI/Python 3.57.0"}
        )
    )
    assert spec is not None
    assert spec.codec_for("/api/v1/chat/completions") == "openai_chat"
    assert spec.codec_for("/api/v1/responses") == "openai_responses"
    assert spec.codec_for("/api/v1/models") is None


# --------------------------------------------------------------------------- shapes


def test_create_sync_is_filed_under_openrouter(
    fake: FakeOpenRouter, tmp_path: Path, offline: Offline
) -> None:
    fake.script(openrouter_reply("Sunny, 21 C."))

    def run(client: openai.OpenAI) -> ChatCompletion:
        return client.chat.completions.create(
            model=OPENROUTER_MODEL, messages=MESSAGES, extra_body=ROUTING
        )

    live, rep = record_and_replay_sync(tmp_path, "or_create", fake, offline, run)
    assert type(live) is ChatCompletion
    assert_same_completion(rep, live)
    assert rep.model_extra is not None and rep.model_extra["provider"] == "OpenAI"
    (received,) = fake.requests
    assert received.path == "/api/v1/chat/completions"
    assert received.headers["authorization"] == f"Bearer {API_KEY}"
    assert received.body["models"] == ROUTING["models"]
    (step,) = llm_steps(snapshot_data(tmp_path, "or_create"))
    assert {
        k: step[k]
        for k in (
            "provider",
            "model",
            "messages",
            "response",
            "tokens",
            "usage",
            "stream",
            "status",
        )
    } == {
        "provider": "openrouter",
        "model": OPENROUTER_MODEL,
        "messages": MESSAGES,
        "response": "Sunny, 21 C.",
        "tokens": 20,
        "usage": OR_USAGE,
        "stream": False,
        "status": 200,
    }
    assert step["exchange"]["request"]["body"]["provider"] == {"sort": "price"}


def test_stream_sync_with_keepalive_comments_and_tool_calls(
    fake: FakeOpenRouter, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        openrouter_stream_reply(
            ["Let me ", "check."], tool_calls=[("call_or1", "get_weather", {"city": "Paris"})]
        )
    )

    def run(client: openai.OpenAI) -> list[ChatCompletionChunk]:
        stream = client.chat.completions.create(
            model=OPENROUTER_MODEL, messages=MESSAGES, tools=[WEATHER_TOOL], stream=True
        )
        assert isinstance(stream, openai.Stream)
        with stream:
            return list(stream)

    live, rep = record_and_replay_sync(tmp_path, "or_stream", fake, offline, run)
    assert [type(c) for c in rep] == [type(c) for c in live] and len(rep) == 7
    assert [c.model_dump() for c in rep] == [c.model_dump() for c in live]
    (step,) = llm_steps(snapshot_data(tmp_path, "or_stream"))
    assert step["exchange"]["response"]["chunks"][0] == ": OPENROUTER PROCESSING\n\n"
    assert (step["provider"], step["complete"], step["response"]) == (
        "openrouter",
        True,
        "Let me check.",
    )
    assert step["tool_requests"] == [
        {"id": "call_or1", "name": "get_weather", "args": {"city": "Paris"}}
    ]
    assert step["usage"] == OR_USAGE


def test_create_async(fake: FakeOpenRouter, tmp_path: Path, offline: Offline) -> None:
    fake.script(openrouter_reply(None, tool_calls=[("call_or2", "get_weather", {"city": "Rome"})]))

    async def run(client: openai.AsyncOpenAI) -> ChatCompletion:
        return await client.chat.completions.create(
            model=OPENROUTER_MODEL, messages=MESSAGES, tools=[WEATHER_TOOL]
        )

    live, rep = record_and_replay_async(tmp_path, "or_async", fake, offline, run)
    assert_same_completion(rep, live)
    assert fake.requests[0].headers["user-agent"].startswith("AsyncOpenAI/Python ")
    (step,) = llm_steps(snapshot_data(tmp_path, "or_async"))
    assert (step["provider"], step["tool_requests"]) == (
        "openrouter",
        [{"id": "call_or2", "name": "get_weather", "args": {"city": "Rome"}}],
    )


def test_stream_async(fake: FakeOpenRouter, tmp_path: Path, offline: Offline) -> None:
    fake.script(openrouter_stream_reply(["Sun", "ny."]))

    async def run(client: openai.AsyncOpenAI) -> list[ChatCompletionChunk]:
        stream = await client.chat.completions.create(
            model=OPENROUTER_MODEL, messages=MESSAGES, stream=True
        )
        assert isinstance(stream, openai.AsyncStream)
        return [chunk async for chunk in stream]

    live, rep = record_and_replay_async(tmp_path, "or_stream_async", fake, offline, run)
    assert [c.model_dump() for c in rep] == [c.model_dump() for c in live]
    (step,) = llm_steps(snapshot_data(tmp_path, "or_stream_async"))
    assert (step["provider"], step["response"], step["usage"]) == ("openrouter", "Sunny.", OR_USAGE)


def test_same_sdk_on_another_host_stays_openai(tmp_path: Path) -> None:
    """The host limit is what makes a call OpenRouter's: one recording, two providers."""
    with FakeOpenAI() as plain, FakeOpenRouter() as router:
        plain.script(text_reply("plain openai"))
        router.script(openrouter_reply("via openrouter"))
        with AgentRecorder("or_mixed", snapshot_dir=tmp_path):
            openai.OpenAI(
                base_url=plain.base_url, api_key=API_KEY, max_retries=0
            ).chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            sync_client(router.origin).chat.completions.create(
                model=OPENROUTER_MODEL, messages=MESSAGES
            )
    steps = llm_steps(snapshot_data(tmp_path, "or_mixed"))
    assert sorted((s["provider"], s["response"]) for s in steps) == [
        ("openai", "plain openai"),
        ("openrouter", "via openrouter"),
    ]
