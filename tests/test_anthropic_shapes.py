"""Every anthropic call shape, recorded against a fake server and replayed offline.

Runs on every release ``patches/anthropic.toml`` claims (0.40 to 2.x; see "SDK versions").

Each test runs the real ``anthropic`` SDK against :class:`tests.fake_anthropic.FakeAnthropic`
inside ``AgentRecorder``; then stops the server and runs the same code again inside
``AgentAsserter(mode="replay")`` with ``socket.connect`` refused, and checks that the
replayed objects are genuine SDK objects equal to the live ones.
"""

from __future__ import annotations

import asyncio
import functools
import json
import socket
import ssl
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import anthropic._base_client as anthropic_base_client
import anyio
import pydantic
import pytest
from anthropic._response import APIResponse, AsyncAPIResponse
from anthropic.lib.streaming import AsyncMessageStream, MessageStream
from anthropic.types import Message, RawMessageStreamEvent
from anthropic.types.beta import BetaMessage

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap.capture.quirks.stainless import REPLAY_RETRY_WAIT
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.offline import Offline
from tests._support.roundtrip import arecord_with, areplay_with, record_with, replay_with
from tests._support.sleeps import AsyncSleepSpy, SleepSpy
from tests.fake_anthropic import (
    DEFAULT_MODEL,
    ORG_ID,
    FakeAnthropic,
    count_tokens_reply,
    error_reply,
    stream_reply,
    stream_text_reply,
    text_block,
    text_reply,
    thinking_block,
    tool_use_block,
    tool_use_reply,
)

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

MODEL = DEFAULT_MODEL
API_KEY = "sk-ant-api03-SECRET-7f3a9c2e1b5d"
MESSAGES = [{"role": "user", "content": "Weather and time in Paris?"}]
WEATHER_TOOL = {
    "name": "get_weather",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
TIME_TOOL = {
    "name": "get_time",
    "input_schema": {"type": "object", "properties": {"tz": {"type": "string"}}},
}
TOOLS = [WEATHER_TOOL, TIME_TOOL]
TWO_TOOLS = (
    tool_use_block("toolu_A", "get_weather", {"city": "Paris"}),
    tool_use_block("toolu_B", "get_time", {"tz": "Europe/Paris"}),
)
TOOL_REQUESTS = [
    {"id": "toolu_A", "name": "get_weather", "args": {"city": "Paris"}},
    {"id": "toolu_B", "name": "get_time", "args": {"tz": "Europe/Paris"}},
]
BETAS = ["context-management-2025-06-27"]

# --------------------------------------------------------------------------- SDK versions
# The suite runs against every anthropic release the spec claims (patches/anthropic.toml,
# `versions`; nox -s sdk-matrix installs the oldest and the newest). Call shapes younger
# than the oldest release are skipped there, each with the release that introduced it, or
# driven through that release's own equivalent (beta count_tokens, LegacyAPIResponse, ...).

# the HTTP library the SDK is built on: httpx2 from 1.0.0, legacy httpx before
HTTP = (
    anthropic_base_client.httpx2
    if hasattr(anthropic_base_client, "httpx2")
    else anthropic_base_client.httpx
)
# a 529 raises OverloadedError from 0.47.0 (exported as anthropic.OverloadedError from 0.108.0);
# before, the generic InternalServerError (any status >= 500)
OVERLOADED: type[anthropic.APIStatusError] = getattr(
    anthropic._exceptions, "OverloadedError", anthropic.InternalServerError
)
# thinking content blocks (and their stream deltas) appeared in 0.47.0
HAS_THINKING = hasattr(anthropic.types, "ThinkingBlock")
try:  # messages.parse() and ParsedMessage (what the stream managers return since then): 0.77.0
    from anthropic.types.parsed_message import ParsedMessage
except ImportError:
    ParsedMessage = None  # type: ignore[assignment,misc]
try:  # with_raw_response returned LegacyAPIResponse (a sync .parse() in both clients) until 1.0.0
    from anthropic._legacy_response import LegacyAPIResponse
except ImportError:
    LegacyAPIResponse = None  # type: ignore[assignment,misc]
RAW_RESPONSE = LegacyAPIResponse or APIResponse
ASYNC_RAW_RESPONSE = LegacyAPIResponse or AsyncAPIResponse
try:  # client.beta.messages.stream() and its BetaMessageStream: 0.43.0
    from anthropic.lib.streaming import BetaAsyncMessageStream, BetaMessageStream
except ImportError:
    BetaAsyncMessageStream = BetaMessageStream = None  # type: ignore[assignment,misc]

needs_beta_stream = pytest.mark.skipif(
    BetaMessageStream is None, reason="client.beta.messages.stream() appeared in anthropic 0.43.0"
)
needs_parse = pytest.mark.skipif(
    ParsedMessage is None, reason="messages.parse() appeared in anthropic 0.77.0"
)
# messages.count_tokens() left the beta in 0.41.0; before, only beta.messages.count_tokens() (?beta=true)
GA_COUNT_TOKENS = hasattr(anthropic.resources.Messages, "count_tokens")


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


# --------------------------------------------------------------------------- helpers


# Building an SSL context costs ~0.13 s per client; the SDK's own default client
# classes with one shared context keep two clients per test cheap.
# (test_create_sync and the User-Agent test use the SDK's untouched default.)
_SSL = ssl.create_default_context()


def sync_client(base_url: str, *, default_http: bool = False, **kwargs: Any) -> anthropic.Anthropic:
    kwargs.setdefault("max_retries", 0)
    if not default_http:
        kwargs.setdefault("http_client", anthropic.DefaultHttpxClient(verify=_SSL))
    return anthropic.Anthropic(base_url=base_url, api_key=API_KEY, **kwargs)


def async_client(
    base_url: str, *, default_http: bool = False, **kwargs: Any
) -> anthropic.AsyncAnthropic:
    kwargs.setdefault("max_retries", 0)
    if not default_http:
        kwargs.setdefault("http_client", anthropic.DefaultAsyncHttpxClient(verify=_SSL))
    return anthropic.AsyncAnthropic(base_url=base_url, api_key=API_KEY, **kwargs)


record_sync = functools.partial(record_with, make=sync_client)
replay_sync = functools.partial(replay_with, make=sync_client)
record_async = functools.partial(arecord_with, make=async_client)
replay_async = functools.partial(areplay_with, make=async_client)


def snapshot_path(directory: Path, name: str) -> Path:
    return SnapshotStore(directory).path_for(name)


def snapshot_data(directory: Path, name: str) -> dict[str, Any]:
    return SnapshotStore.read_file(snapshot_path(directory, name)).to_dict()  # as loaded


def llm_steps(directory: Path, name: str) -> list[dict[str, Any]]:
    return [s for s in snapshot_data(directory, name)["trace"] if s["type"] == "llm_call"]


def dumps(items: list[Any]) -> list[dict[str, Any]]:
    return [i.model_dump() for i in items]


def assert_same_message(replayed: Any, live: Any) -> None:
    assert type(replayed) is type(live)
    assert replayed.model_dump() == live.model_dump()
    assert replayed.model_fields_set == live.model_fields_set
    assert replayed._request_id == live._request_id
    assert replayed._request_id is not None and replayed._request_id.startswith("req_")


# --------------------------------------------------------------------------- recognition


def test_the_sdk_user_agents_are_what_the_spec_matches(fake: FakeAnthropic) -> None:
    from agentsnap.spec.provider_specs import load_specs

    (spec,) = [s for s in load_specs() if s.name == "anthropic"]
    fake.script(text_reply("a"), text_reply("b"))
    sync_client(fake.base_url, default_http=True).messages.create(
        model=MODEL, max_tokens=64, messages=MESSAGES
    )

    async def call() -> None:
        await async_client(fake.base_url, default_http=True).messages.create(
            model=MODEL, max_tokens=64, messages=MESSAGES
        )

    asyncio.run(call())
    agents = [r.headers["user-agent"] for r in fake.requests]
    assert agents == [
        f"Anthropic/Python {anthropic.__version__}",
        f"AsyncAnthropic/Python {anthropic.__version__}",
    ]
    assert all(a.startswith(spec.user_agent_prefixes) for a in agents)
    assert spec.codec_for("/v1/messages") == "anthropic_messages"
    assert spec.codec_for("/v1/messages/count_tokens") is None
    assert spec.api_key_env == ("ANTHROPIC_API_KEY",)
    assert [
        spec.keeps_header(h)
        for h in ("Request-Id", "x-should-retry", "anthropic-ratelimit-tokens-reset")
    ] == [True, True, True]
    # account headers are kept (stored as <redacted>); credentials are not
    assert [
        spec.keeps_header(h)
        for h in ("anthropic-organization-id", "anthropic-workspace-id", "set-cookie")
    ] == [True, True, False]


# --------------------------------------------------------------------------- messages.create


def test_create_sync(fake: FakeAnthropic, tmp_path: Path, offline: Offline) -> None:
    fake.script(text_reply("Sunny, 21 C.", usage=(12, 4), cache=(3, 5)))
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> Message:
        return client.messages.create(
            model=MODEL, max_tokens=256, system="Be terse.", messages=MESSAGES, tools=TOOLS
        )

    live = record_sync(tmp_path, "create_sync", fake, run, default_http=True)
    assert type(live) is Message
    replayed = replay_sync(tmp_path, "create_sync", base, offline, run, default_http=True)
    assert_same_message(replayed, live)
    assert replayed.content[0].text == "Sunny, 21 C."

    (step,) = llm_steps(tmp_path, "create_sync")
    assert {
        k: step[k]
        for k in (
            "provider",
            "model",
            "messages",
            "tools",
            "response",
            "tool_requests",
            "stream",
            "status",
        )
    } == {
        "provider": "anthropic",
        "model": MODEL,
        "messages": MESSAGES,
        "tools": ["get_weather", "get_time"],
        "response": "Sunny, 21 C.",
        "tool_requests": [],
        "stream": False,
        "status": 200,
    }
    # the fake's cache_read_input_tokens, read as cached_tokens (also counted in input_tokens)
    assert step["usage"] == {
        "input_tokens": 20,
        "output_tokens": 4,
        "total_tokens": 24,
        "cached_tokens": 5,
    }
    assert step["exchange"]["request"]["path"] == "/v1/messages"
    assert step["exchange"]["request"]["body"]["system"] == "Be terse."
    # every response header is kept (replay serves what live had); the organisation id as <redacted>
    headers = step["exchange"]["response"]["headers"]
    assert headers["anthropic-organization-id"] == "<redacted>"
    assert sorted(headers) == [
        "anthropic-organization-id",
        "anthropic-ratelimit-requests-remaining",
        "content-length",
        "content-type",
        "date",
        "request-id",
        "server",
        "x-request-id",
    ]
    assert {
        k: headers[k]
        for k in ("content-type", "request-id", "anthropic-ratelimit-requests-remaining", "server")
    } == {
        "content-type": "application/json",
        "request-id": live._request_id,
        "anthropic-ratelimit-requests-remaining": "49",
        "server": "FakeOpenAI/1.0",
    }


def test_create_async(fake: FakeAnthropic, tmp_path: Path, offline: Offline) -> None:
    fake.script(tool_use_reply([("toolu_A", "get_weather", {"city": "Paris"})], text="Checking."))
    base = fake.base_url

    async def run(client: anthropic.AsyncAnthropic) -> Message:
        return await client.messages.create(
            model=MODEL, max_tokens=256, messages=MESSAGES, tools=TOOLS
        )

    live = record_async(tmp_path, "create_async", fake, run)
    replayed = replay_async(tmp_path, "create_async", base, offline, run)
    assert type(live) is Message
    assert_same_message(replayed, live)
    assert replayed.content[1].input == {"city": "Paris"}
    (step,) = llm_steps(tmp_path, "create_async")
    assert step["tool_requests"] == TOOL_REQUESTS[:1]
    assert step["response"] == "Checking."


# --------------------------------------------------------------------------- create(stream=True)


def _events_iter(
    client: anthropic.Anthropic,
) -> tuple[type, list[RawMessageStreamEvent], str | None]:
    stream = client.messages.create(
        model=MODEL, max_tokens=256, messages=MESSAGES, tools=TOOLS, stream=True
    )
    events = list(stream)
    return type(stream), events, stream.response.headers.get("request-id")


def _events_with(
    client: anthropic.Anthropic,
) -> tuple[type, list[RawMessageStreamEvent], str | None]:
    with client.messages.create(
        model=MODEL, max_tokens=256, messages=MESSAGES, tools=TOOLS, stream=True
    ) as stream:
        events = [e for e in stream]
    assert stream.response.is_closed
    return type(stream), events, stream.response.headers.get("request-id")


@pytest.mark.parametrize("use", [_events_iter, _events_with], ids=["iterate", "with"])
def test_create_stream_sync_with_interleaved_tool_inputs(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline, use: Any
) -> None:
    fake.script(
        stream_reply(text_block("Let me check."), *TWO_TOOLS, interleave=True, usage=(30, 44))
    )
    base = fake.base_url

    live_type, live, live_rid = record_sync(tmp_path, "stream_sync", fake, use)
    # the fake really interleaved the two tool inputs
    fragments = [
        (e.index, e.delta.partial_json)
        for e in live
        if e.type == "content_block_delta" and e.delta.type == "input_json_delta"
    ]
    assert fragments == [(1, '{"city":'), (2, '{"tz":'), (1, '"Paris"}'), (2, '"Europe/Paris"}')]

    rep_type, replayed, rep_rid = replay_sync(tmp_path, "stream_sync", base, offline, use)
    assert live_type is anthropic.Stream and rep_type is anthropic.Stream
    assert [type(e) for e in replayed] == [type(e) for e in live]
    assert dumps(replayed) == dumps(live)
    assert rep_rid == live_rid and rep_rid is not None

    (step,) = llm_steps(tmp_path, "stream_sync")
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "Let me check.")
    assert step["tool_requests"] == TOOL_REQUESTS
    assert step["usage"] == {
        "input_tokens": 30,
        "output_tokens": 44,
        "total_tokens": 74,
        "cached_tokens": 0,
    }


def test_create_stream_async(fake: FakeAnthropic, tmp_path: Path, offline: Offline) -> None:
    fake.script(stream_text_reply("Rainy in Rome."))
    base = fake.base_url

    async def run(
        client: anthropic.AsyncAnthropic,
    ) -> tuple[type, list[RawMessageStreamEvent], str | None]:
        async with await client.messages.create(
            model=MODEL, max_tokens=256, messages=MESSAGES, stream=True
        ) as stream:
            events = [e async for e in stream]
        return type(stream), events, stream.response.headers.get("request-id")

    live_type, live, live_rid = record_async(tmp_path, "stream_async", fake, run)
    rep_type, replayed, rep_rid = replay_async(tmp_path, "stream_async", base, offline, run)
    assert live_type is anthropic.AsyncStream and rep_type is anthropic.AsyncStream
    assert dumps(replayed) == dumps(live)
    assert [e.type for e in replayed][:2] == [
        "message_start",
        "content_block_start",
    ]  # ping is skipped by the SDK
    assert rep_rid == live_rid
    (step,) = llm_steps(tmp_path, "stream_async")
    assert (step["response"], step["complete"]) == ("Rainy in Rome.", True)


def test_stream_abandoned_after_first_event_is_incomplete_and_replays(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    fake.script(stream_text_reply("one two three four"))
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> RawMessageStreamEvent:
        with client.messages.create(
            model=MODEL, max_tokens=256, messages=MESSAGES, stream=True
        ) as stream:
            for event in stream:
                return event
        raise AssertionError("empty stream")

    live = record_sync(tmp_path, "stream_break", fake, run)
    (step,) = llm_steps(tmp_path, "stream_break")
    assert step["complete"] is False
    assert step["exchange"]["response"]["chunks"]
    replayed = replay_sync(tmp_path, "stream_break", base, offline, run)
    assert type(replayed) is type(live) and replayed.model_dump() == live.model_dump()


# --------------------------------------------------------------------------- messages.stream() managers


def test_stream_manager_sync(fake: FakeAnthropic, tmp_path: Path, offline: Offline) -> None:
    # a thinking block leads where the SDK knows the type (0.47.0 on)
    thinking = (thinking_block("Two tools needed."),) if HAS_THINKING else ()
    fake.script(
        stream_reply(*thinking, text_block("Checking both now."), *TWO_TOOLS, interleave=True)
    )
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> tuple[bool, str, Any, str | None]:
        with client.messages.stream(
            model=MODEL, max_tokens=2048, messages=MESSAGES, tools=TOOLS
        ) as stream:
            is_stream = isinstance(stream, MessageStream)
            text = "".join(stream.text_stream)
            final = stream.get_final_message()
            return is_stream, text, final, stream.response.headers.get("request-id")

    live = record_sync(tmp_path, "manager_sync", fake, run)
    rep = replay_sync(tmp_path, "manager_sync", base, offline, run)
    assert live[0] is True and rep[0] is True
    assert rep[1] == live[1] == "Checking both now."
    # the final message is a ParsedMessage from 0.77.0, a Message before
    assert type(rep[2]) is type(live[2]) and issubclass(type(rep[2]), ParsedMessage or Message)
    assert rep[2].model_dump() == live[2].model_dump()
    if thinking:
        assert rep[2].content[0].thinking == "Two tools needed."
    assert rep[2].content[len(thinking)].text == "Checking both now."
    assert [(b.id, b.name, b.input) for b in rep[2].content[len(thinking) + 1 :]] == [
        ("toolu_A", "get_weather", {"city": "Paris"}),
        ("toolu_B", "get_time", {"tz": "Europe/Paris"}),
    ]
    assert rep[3] == live[3] is not None
    # the manager posts directly (no create()): still exactly one recorded call
    (step,) = llm_steps(tmp_path, "manager_sync")
    assert step["tool_requests"] == TOOL_REQUESTS
    assert step["response"] == "Checking both now."
    # the codec's view agrees with the SDK's own accumulation
    assert step["tool_requests"] == [
        {"id": b.id, "name": b.name, "args": b.input}
        for b in live[2].content
        if b.type == "tool_use"
    ]


def test_stream_manager_async(fake: FakeAnthropic, tmp_path: Path, offline: Offline) -> None:
    fake.script(stream_text_reply("Async manager text."))
    base = fake.base_url

    async def run(client: anthropic.AsyncAnthropic) -> tuple[bool, str, Any]:
        async with client.messages.stream(model=MODEL, max_tokens=256, messages=MESSAGES) as stream:
            is_stream = isinstance(stream, AsyncMessageStream)
            text = "".join([t async for t in stream.text_stream])
            return is_stream, text, await stream.get_final_message()

    live = record_async(tmp_path, "manager_async", fake, run)
    rep = replay_async(tmp_path, "manager_async", base, offline, run)
    assert live[0] is True and rep[0] is True
    assert rep[1] == live[1] == "Async manager text."
    assert type(rep[2]) is type(live[2])
    assert rep[2].model_dump() == live[2].model_dump()
    assert len(llm_steps(tmp_path, "manager_async")) == 1


# --------------------------------------------------------------------------- beta


def test_beta_create_sync(fake: FakeAnthropic, tmp_path: Path, offline: Offline) -> None:
    fake.script(text_reply("beta answer"))
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> Any:
        return client.beta.messages.create(
            model=MODEL, max_tokens=256, messages=MESSAGES, betas=BETAS
        )

    live = record_sync(tmp_path, "beta_sync", fake, run)
    assert fake.requests[0].headers["anthropic-beta"] == BETAS[0]
    rep = replay_sync(tmp_path, "beta_sync", base, offline, run)
    assert type(live) is BetaMessage
    assert_same_message(rep, live)
    (step,) = llm_steps(tmp_path, "beta_sync")
    assert step["response"] == "beta answer"


def test_beta_create_async_with_beta_query(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    """Older SDKs sent beta calls to ``/v1/messages?beta=true``: the query is recorded and matched."""
    fake.script(text_reply("beta query answer"))
    base = fake.base_url

    async def run(client: anthropic.AsyncAnthropic) -> Any:
        return await client.beta.messages.create(
            model=MODEL,
            max_tokens=256,
            messages=MESSAGES,
            betas=BETAS,
            extra_query={"beta": "true"},
        )

    live = record_async(tmp_path, "beta_async", fake, run)
    rep = replay_async(tmp_path, "beta_async", base, offline, run)
    assert type(live) is BetaMessage
    assert_same_message(rep, live)
    (step,) = llm_steps(tmp_path, "beta_async")
    assert step["exchange"]["request"]["query"] == "beta=true"
    assert (step["response"], step["provider"]) == ("beta query answer", "anthropic")


@needs_beta_stream
def test_beta_stream_manager_sync(fake: FakeAnthropic, tmp_path: Path, offline: Offline) -> None:
    fake.script(stream_reply(text_block("Beta streamed."), *TWO_TOOLS, interleave=True))
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> tuple[bool, list[str], Any]:
        with client.beta.messages.stream(
            model=MODEL, max_tokens=256, messages=MESSAGES, tools=TOOLS, betas=BETAS
        ) as stream:
            kinds = [event.type for event in stream]
            return isinstance(stream, BetaMessageStream), kinds, stream.get_final_message()

    live = record_sync(tmp_path, "beta_manager_sync", fake, run)
    rep = replay_sync(tmp_path, "beta_manager_sync", base, offline, run)
    assert live[0] is True and rep[0] is True
    assert rep[1] == live[1] and "input_json" in rep[1]
    assert type(rep[2]) is type(live[2])
    assert rep[2].model_dump() == live[2].model_dump()
    assert llm_steps(tmp_path, "beta_manager_sync")[0]["tool_requests"] == TOOL_REQUESTS


@needs_beta_stream
def test_beta_stream_manager_async(fake: FakeAnthropic, tmp_path: Path, offline: Offline) -> None:
    fake.script(stream_text_reply("Beta async streamed."))
    base = fake.base_url

    async def run(client: anthropic.AsyncAnthropic) -> tuple[bool, str, Any]:
        async with client.beta.messages.stream(
            model=MODEL, max_tokens=256, messages=MESSAGES, betas=BETAS
        ) as stream:
            text = "".join([t async for t in stream.text_stream])
            return (
                isinstance(stream, BetaAsyncMessageStream),
                text,
                await stream.get_final_message(),
            )

    live = record_async(tmp_path, "beta_manager_async", fake, run)
    rep = replay_async(tmp_path, "beta_manager_async", base, offline, run)
    assert live[0] is True and rep[0] is True
    assert rep[1] == live[1] == "Beta async streamed."
    assert rep[2].model_dump() == live[2].model_dump()


# --------------------------------------------------------------------------- parse()


class Forecast(pydantic.BaseModel):
    city: str
    temp_c: int


@needs_parse
def test_parse_sync(fake: FakeAnthropic, tmp_path: Path, offline: Offline) -> None:
    fake.script(text_reply('{"city":"Paris","temp_c":21}'))
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> Any:
        return client.messages.parse(
            model=MODEL, max_tokens=256, messages=MESSAGES, output_format=Forecast
        )

    live = record_sync(tmp_path, "parse_sync", fake, run)
    rep = replay_sync(tmp_path, "parse_sync", base, offline, run)
    assert type(rep) is type(live) and issubclass(type(rep), ParsedMessage)
    assert rep.model_dump() == live.model_dump()
    assert rep._request_id == live._request_id
    assert type(rep.parsed_output) is Forecast and rep.parsed_output == Forecast(
        city="Paris", temp_c=21
    )
    (step,) = llm_steps(tmp_path, "parse_sync")
    assert step["response"] == '{"city":"Paris","temp_c":21}'
    assert step["exchange"]["request"]["body"]["output_config"]["format"]["type"] == "json_schema"


@needs_parse
def test_parse_async(fake: FakeAnthropic, tmp_path: Path, offline: Offline) -> None:
    fake.script(text_reply('{"city":"Rome","temp_c":25}'))
    base = fake.base_url

    async def run(client: anthropic.AsyncAnthropic) -> Any:
        return await client.messages.parse(
            model=MODEL, max_tokens=256, messages=MESSAGES, output_format=Forecast
        )

    live = record_async(tmp_path, "parse_async", fake, run)
    rep = replay_async(tmp_path, "parse_async", base, offline, run)
    assert type(rep) is type(live)
    assert rep.parsed_output == live.parsed_output == Forecast(city="Rome", temp_c=25)


# --------------------------------------------------------------------------- with_raw_response / with_streaming_response


def test_with_raw_and_streaming_response_sync(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        text_reply("raw answer"), stream_text_reply("raw stream"), text_reply("streaming response")
    )
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> tuple[Any, ...]:
        raw = client.messages.with_raw_response.create(
            model=MODEL, max_tokens=256, messages=MESSAGES
        )
        raw_stream = client.messages.with_raw_response.create(
            model=MODEL, max_tokens=256, messages=MESSAGES, stream=True
        )
        stream = raw_stream.parse()
        with client.messages.with_streaming_response.create(
            model=MODEL, max_tokens=256, messages=MESSAGES
        ) as resp:
            streamed = (type(resp), resp.headers["request-id"], resp.parse())
        return (
            type(raw),
            raw.headers["request-id"],
            raw.parse(),
            type(stream),
            list(stream),
            *streamed,
        )

    live = record_sync(tmp_path, "raw_sync", fake, run)
    rep = replay_sync(tmp_path, "raw_sync", base, offline, run)
    assert live[0] is RAW_RESPONSE and rep[0] is RAW_RESPONSE
    assert rep[1] == live[1]
    assert_same_message(rep[2], live[2])
    assert live[3] is anthropic.Stream and rep[3] is anthropic.Stream
    assert dumps(rep[4]) == dumps(live[4])
    assert live[5] is APIResponse and rep[5] is APIResponse
    assert rep[6] == live[6]
    assert_same_message(rep[7], live[7])
    assert [s["response"] for s in llm_steps(tmp_path, "raw_sync")] == [
        "raw answer",
        "raw stream",
        "streaming response",
    ]


def test_with_raw_and_streaming_response_async(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    fake.script(text_reply("async raw"), stream_text_reply("async streaming response"))
    base = fake.base_url

    async def run(
        client: anthropic.AsyncAnthropic,
    ) -> tuple[Any, str, Message, Any, list[RawMessageStreamEvent]]:
        raw = await client.messages.with_raw_response.create(
            model=MODEL, max_tokens=256, messages=MESSAGES
        )
        parsed = raw.parse() if LegacyAPIResponse is not None else await raw.parse()
        async with client.messages.with_streaming_response.create(
            model=MODEL, max_tokens=256, messages=MESSAGES, stream=True
        ) as resp:
            stream = await resp.parse()
            events = [e async for e in stream]
            kind = type(resp)
        return type(raw), raw.headers["request-id"], parsed, kind, events

    live = record_async(tmp_path, "raw_async", fake, run)
    rep = replay_async(tmp_path, "raw_async", base, offline, run)
    assert live[0] is ASYNC_RAW_RESPONSE and rep[0] is ASYNC_RAW_RESPONSE
    assert rep[1] == live[1]
    assert_same_message(rep[2], live[2])
    assert live[3] is AsyncAPIResponse and rep[3] is AsyncAPIResponse
    assert dumps(rep[4]) == dumps(live[4])


# --------------------------------------------------------------------------- count_tokens (an http step)


def test_count_tokens_is_an_http_step_and_replays(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    fake.script(count_tokens_reply(17), text_reply("after counting"))
    base = fake.base_url
    if GA_COUNT_TOKENS:
        count_type: type = anthropic.types.MessageTokensCount
    else:
        count_type = anthropic.types.beta.BetaMessageTokensCount

    def run(client: anthropic.Anthropic) -> tuple[Any, Message]:
        if GA_COUNT_TOKENS:
            count = client.messages.count_tokens(model=MODEL, messages=MESSAGES)
        else:
            count = client.beta.messages.count_tokens(
                model=MODEL, messages=MESSAGES, betas=["token-counting-2024-11-01"]
            )
        return count, client.messages.create(model=MODEL, max_tokens=64, messages=MESSAGES)

    live = record_sync(tmp_path, "count_tokens", fake, run)
    data = snapshot_data(tmp_path, "count_tokens")
    assert [(s["type"], s.get("path")) for s in data["trace"]] == [
        ("http", "/v1/messages/count_tokens"),
        ("llm_call", None),
    ]
    assert data["trace"][0]["provider"] == "anthropic"
    rep = replay_sync(tmp_path, "count_tokens", base, offline, run)
    assert (
        type(live[0]) is type(rep[0]) is count_type
        and rep[0].input_tokens == live[0].input_tokens == 17
    )
    assert rep[0]._request_id == live[0]._request_id
    assert_same_message(rep[1], live[1])


@pytest.mark.skipif(not GA_COUNT_TOKENS, reason="messages.count_tokens() is GA from 0.41.0")
def test_count_tokens_between_tool_turns_is_stored_where_it_happened(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    # count -> create (tool_use) -> the tool runs -> count -> create (final answer)
    fake.script(
        count_tokens_reply(17),
        tool_use_reply([("toolu_01XFDUDYJgAACzvnptvVoYEL", "get_weather", {"city": "Paris"})]),
        count_tokens_reply(41),
        text_reply("Sunny in Paris."),
    )
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> tuple[int, int, str]:
        first = client.messages.count_tokens(model=MODEL, messages=MESSAGES, tools=TOOLS)
        asked = client.messages.create(model=MODEL, max_tokens=64, messages=MESSAGES, tools=TOOLS)
        (use,) = [b for b in asked.content if b.type == "tool_use"]
        history = [
            *MESSAGES,
            {"role": "assistant", "content": [b.model_dump() for b in asked.content]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "Sunny"}],
            },
        ]
        second = client.messages.count_tokens(model=MODEL, messages=history, tools=TOOLS)
        final = client.messages.create(model=MODEL, max_tokens=64, messages=history, tools=TOOLS)
        return first.input_tokens, second.input_tokens, final.content[0].text

    live = record_sync(tmp_path, "count_between", fake, run)
    trace = json.loads(snapshot_path(tmp_path, "count_between").read_text(encoding="utf-8"))[
        "trace"
    ]
    assert [(s["step"], s["type"], s.get("path"), s.get("name")) for s in trace] == [
        (0, "http", "/v1/messages/count_tokens", None),
        (1, "llm_call", None, None),
        (2, "tool_call", None, "get_weather"),
        (3, "http", "/v1/messages/count_tokens", None),
        (4, "llm_call", None, None),
    ]
    assert trace[2]["result"] == "Sunny"
    assert (
        replay_sync(tmp_path, "count_between", base, offline, run)
        == live
        == (17, 41, "Sunny in Paris.")
    )


# --------------------------------------------------------------------------- tool round trip


def test_tool_round_trip_derives_tool_call_steps(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        tool_use_reply([("toolu_A", "get_weather", {"city": "Paris"})]),
        text_reply("It is sunny in Paris."),
    )
    base = fake.base_url

    def agent(client: anthropic.Anthropic) -> str:
        messages: list[dict[str, Any]] = list(MESSAGES)
        first = client.messages.create(model=MODEL, max_tokens=256, messages=messages, tools=TOOLS)
        call = next(b for b in first.content if b.type == "tool_use")
        messages.append(
            {
                "role": "assistant",
                "content": [b.model_dump(exclude_none=True) for b in first.content],
            }
        )
        result = [{"type": "text", "text": f"sunny in {call.input['city']}"}]
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call.id, "content": result}],
            }
        )
        final = client.messages.create(model=MODEL, max_tokens=256, messages=messages, tools=TOOLS)
        return final.content[0].text

    assert record_sync(tmp_path, "tool_round_trip", fake, agent) == "It is sunny in Paris."
    data = snapshot_data(tmp_path, "tool_round_trip")
    assert [s["type"] for s in data["trace"]] == ["llm_call", "tool_call", "llm_call"]
    tool = data["trace"][1]
    assert {k: tool[k] for k in ("name", "args", "result", "id")} == {
        "name": "get_weather",
        "args": {"city": "Paris"},
        "result": [{"type": "text", "text": "sunny in Paris"}],
        "id": "toolu_A",
    }
    assert replay_sync(tmp_path, "tool_round_trip", base, offline, agent) == "It is sunny in Paris."


# --------------------------------------------------------------------------- errors and retries


ERRORS = [
    (429, anthropic.RateLimitError, "5"),  # retry-after: 5 s (honoured live, spied)
    (500, anthropic.InternalServerError, None),  # no header: exponential backoff live
    (529, OVERLOADED, None),
]


@pytest.mark.parametrize(("status", "exc_cls", "retry_after"), ERRORS, ids=["429", "500", "529"])
def test_error_statuses_with_retries_replay_the_same_error_instantly(
    fake: FakeAnthropic,
    tmp_path: Path,
    offline: Offline,
    monkeypatch: pytest.MonkeyPatch,
    status: int,
    exc_cls: type,
    retry_after: str | None,
) -> None:
    fake.script(*[error_reply(status, message=f"Status {status}.", retry_after=retry_after)] * 3)
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> anthropic.APIStatusError:
        with pytest.raises(anthropic.APIStatusError) as info:
            client.messages.create(model=MODEL, max_tokens=64, messages=MESSAGES)
        return info.value

    record_spy = SleepSpy(really_sleep=False)
    monkeypatch.setattr(anthropic_base_client, "time", record_spy)
    live = record_sync(tmp_path, f"error_{status}", fake, run, max_retries=2)
    assert len(fake.requests) == 3 and len(record_spy.calls) == 2
    if retry_after is not None:
        assert record_spy.calls == [5.0, 5.0]
    else:
        assert all(0.3 <= s <= 1.0 for s in record_spy.calls), record_spy.calls

    steps = llm_steps(tmp_path, f"error_{status}")
    assert [(s["status"], s["error"]) for s in steps] == [(status, f"Status {status}.")] * 3

    replay_spy = SleepSpy(really_sleep=True)
    monkeypatch.setattr(anthropic_base_client, "time", replay_spy)
    rep = replay_sync(tmp_path, f"error_{status}", base, offline, run, max_retries=2)
    # the SDK's own sleeps, spied: no backoff in replay (a wall-clock bound flakes on a loaded machine)
    assert replay_spy.calls == [REPLAY_RETRY_WAIT] * 2
    assert type(rep) is type(live) is exc_cls
    assert rep.status_code == live.status_code == status
    assert rep.body == live.body
    assert (
        live.body["error"]["message"] == f"Status {status}."
        and live.body["request_id"] == live.request_id
    )
    assert rep.request_id == live.request_id is not None
    # the error body is stored verbatim and replayed verbatim (bytes and key order), so the
    # SDK builds the same message from it, whatever wording the SDK release uses
    assert rep.response.content == live.response.content
    assert list(rep.body) == list(live.body)
    assert str(rep) == str(live)
    (step,) = llm_steps(tmp_path, f"error_{status}")[:1]
    assert json.loads(step["exchange"]["response"]["text"]) == live.body


def test_error_async_with_retries_replays_instantly(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.script(error_reply(529), error_reply(529), text_reply("third time lucky"))
    base = fake.base_url

    async def run(client: anthropic.AsyncAnthropic) -> Message:
        return await client.messages.create(model=MODEL, max_tokens=64, messages=MESSAGES)

    monkeypatch.setattr(
        anthropic_base_client, "anyio", AsyncSleepSpy(really_sleep=False, module=anyio)
    )
    live = record_async(tmp_path, "error_async", fake, run, max_retries=2)
    assert [s["status"] for s in llm_steps(tmp_path, "error_async")] == [529, 529, 200]

    spy = AsyncSleepSpy(really_sleep=True, module=anyio)
    monkeypatch.setattr(anthropic_base_client, "anyio", spy)
    rep = replay_async(tmp_path, "error_async", base, offline, run, max_retries=2)
    assert spy.calls == [REPLAY_RETRY_WAIT] * 2
    assert_same_message(rep, live)
    assert rep.content[0].text == "third time lucky"


def test_x_should_retry_false_is_kept_so_replay_does_not_retry(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    fake.script(error_reply(529, should_retry="false"))
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> anthropic.APIStatusError:
        with pytest.raises(OVERLOADED) as info:
            client.messages.create(model=MODEL, max_tokens=64, messages=MESSAGES)
        return info.value

    live = record_sync(tmp_path, "no_retry", fake, run, max_retries=2)
    (step,) = llm_steps(tmp_path, "no_retry")
    assert step["exchange"]["response"]["headers"]["x-should-retry"] == "false"
    # without the header the replayed 529 would be retried and find no second recording
    rep = replay_sync(tmp_path, "no_retry", base, offline, run, max_retries=2)
    assert (type(rep), rep.status_code, rep.body) == (type(live), 529, live.body)


def test_error_event_mid_stream_replays_as_the_same_error(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        stream_reply(text_block("Partial answer"), error=("overloaded_error", "Overloaded"))
    )
    base = fake.base_url

    def run(
        client: anthropic.Anthropic,
    ) -> tuple[list[RawMessageStreamEvent], anthropic.APIStatusError]:
        seen: list[RawMessageStreamEvent] = []
        with pytest.raises(anthropic.APIStatusError) as info:
            for event in client.messages.create(
                model=MODEL, max_tokens=64, messages=MESSAGES, stream=True
            ):
                seen.append(event)
        return seen, info.value

    live_seen, live = record_sync(tmp_path, "stream_error", fake, run)
    rep_seen, rep = replay_sync(tmp_path, "stream_error", base, offline, run)
    assert dumps(rep_seen) == dumps(live_seen) and len(live_seen) == 5
    assert type(rep) is type(live)
    assert (rep.status_code, rep.body, str(rep)) == (live.status_code, live.body, str(live))
    (step,) = llm_steps(tmp_path, "stream_error")
    assert (step["response"], step["complete"]) == ("Partial answer", False)
    assert step["warnings"] == [
        "event 6: stream error: 'Overloaded'"
    ]  # message_start, ping, start, 2 deltas, stop, error


def _connection_failure_run(
    client: anthropic.Anthropic, fake: FakeAnthropic | None
) -> tuple[Message, anthropic.APIConnectionError]:
    first = client.messages.create(model=MODEL, max_tokens=64, messages=MESSAGES)
    if fake is not None:
        fake.stop()  # the server goes away in the middle of the recorded run
    with pytest.raises(anthropic.APIConnectionError) as info:
        client.messages.create(
            model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "again"}]
        )
    return first, info.value


def test_connection_failure_replays_as_api_connection_error_without_backoff(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.script(text_reply("before the outage"))
    base = fake.base_url

    record_spy = SleepSpy(really_sleep=False)
    monkeypatch.setattr(anthropic_base_client, "time", record_spy)
    live_first, live = record_sync(
        tmp_path, "outage", fake, lambda c: _connection_failure_run(c, fake), max_retries=2
    )
    assert len(record_spy.calls) == 2 and all(
        0.3 <= s <= 1.0 for s in record_spy.calls
    )  # real backoff while recording
    data = snapshot_data(tmp_path, "outage")
    errors = [s["exchange"]["response"] for s in data["trace"][1:]]
    assert len(errors) == 3 and all(set(e) == {"error"} for e in errors)
    assert [(s["status"], s["error"]) for s in data["trace"][1:]] == [
        (None, f"{e['error']['type']}: {e['error']['message']}") for e in errors
    ]
    assert type(live) is anthropic.APIConnectionError and isinstance(
        live.__cause__, HTTP.TransportError
    )

    replay_spy = SleepSpy(really_sleep=True)
    monkeypatch.setattr(anthropic_base_client, "time", replay_spy)
    started = time.monotonic()
    rep_first, rep = replay_sync(
        tmp_path, "outage", base, offline, lambda c: _connection_failure_run(c, None), max_retries=2
    )
    assert time.monotonic() - started < 1.0
    assert (
        replay_spy.calls == [REPLAY_RETRY_WAIT] * 2
    )  # the quirk patch: no 0.5-8 s backoff in replay
    assert_same_message(rep_first, live_first)
    assert type(rep) is anthropic.APIConnectionError
    assert type(rep.__cause__) is type(live.__cause__)
    assert str(rep.__cause__) == str(live.__cause__)


def test_connection_failure_async_replays_without_backoff(
    tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"

    async def run(client: anthropic.AsyncAnthropic) -> anthropic.APIConnectionError:
        with pytest.raises(anthropic.APIConnectionError) as info:
            await client.messages.create(model=MODEL, max_tokens=64, messages=MESSAGES)
        return info.value

    monkeypatch.setattr(
        anthropic_base_client, "anyio", AsyncSleepSpy(really_sleep=False, module=anyio)
    )

    async def record() -> anthropic.APIConnectionError:
        async with AgentRecorder("refused_async", snapshot_dir=tmp_path):
            return await run(async_client(base, max_retries=1))

    live = asyncio.run(record())
    (step,) = [s for s in snapshot_data(tmp_path, "refused_async")["trace"]][:1]
    assert step["exchange"]["response"] == {
        "error": {"type": "ConnectError", "message": "All connection attempts failed"}
    }

    spy = AsyncSleepSpy(really_sleep=True, module=anyio)
    monkeypatch.setattr(anthropic_base_client, "anyio", spy)
    rep = replay_async(tmp_path, "refused_async", base, offline, run, max_retries=1)
    assert spy.calls == [REPLAY_RETRY_WAIT]
    assert type(rep) is type(live) is anthropic.APIConnectionError
    assert type(rep.__cause__) is type(live.__cause__) is HTTP.ConnectError


def test_retry_quirk_caps_waits_only_in_replay() -> None:
    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.hooks import install
    from agentsnap.capture.recording import Recording

    install()  # registers the spec's post-import hook; anthropic is already imported, so it runs now
    assert REPLAY_RETRY_WAIT <= 0.001
    client = sync_client("http://127.0.0.1:9", max_retries=2)
    options = anthropic_base_client.FinalRequestOptions(method="post", url="/v1/messages")
    headers = HTTP.Headers({"retry-after": "3"})
    assert client._calculate_retry_timeout(1, options, headers) == 3.0  # no recording: untouched
    assert 0.3 <= client._calculate_retry_timeout(2, options, None) <= 0.5
    with Recording("capture"):
        assert (
            client._calculate_retry_timeout(1, options, headers) == 3.0
        )  # recording: the real wait
    with Recording("replay", cassette=Cassette([])):
        assert client._calculate_retry_timeout(1, options, headers) == REPLAY_RETRY_WAIT
        assert client._calculate_retry_timeout(2, options, None) == REPLAY_RETRY_WAIT
    assert client._calculate_retry_timeout(1, options, headers) == 3.0


# --------------------------------------------------------------------------- secrets


def test_snapshot_holds_no_api_key_or_request_headers(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    fake.script(text_reply("ok"), stream_text_reply("ok too"))
    base = fake.base_url

    def run(client: anthropic.Anthropic) -> str:
        client.messages.create(model=MODEL, max_tokens=64, messages=MESSAGES)
        with client.messages.stream(model=MODEL, max_tokens=64, messages=MESSAGES) as stream:
            return stream.get_final_text()

    assert record_sync(tmp_path, "secrets", fake, run) == "ok too"
    sent = fake.requests[0].headers
    assert API_KEY in (sent.get("x-api-key") or sent.get("authorization") or "")
    raw = snapshot_path(tmp_path, "secrets").read_bytes()
    for needle in (
        b"SECRET",
        b"sk-ant",
        b"x-api-key",
        b"authorization",
        b"Bearer",
        b"user-agent",
        b"Anthropic/Python",
        b"anthropic-version",
        b"x-stainless",
        ORG_ID.encode(),
        b"idempotency",
    ):
        assert needle not in raw, needle
    assert b'"anthropic-organization-id": "<redacted>"' in raw  # the name, never the value
    assert replay_sync(tmp_path, "secrets", base, offline, run) == "ok too"


# --------------------------------------------------------------------------- langchain-anthropic


def test_langchain_chat_anthropic_is_recognised_and_replayed(
    fake: FakeAnthropic, tmp_path: Path, offline: Offline
) -> None:
    """ChatAnthropic replaces the SDK's User-Agent with ``langchain-anthropic/<version>``."""
    langchain_anthropic = pytest.importorskip("langchain_anthropic")
    fake.script(tool_use_reply([("toolu_A", "get_weather", {"city": "Paris"})], text="Checking."))
    base = fake.base_url

    def run(url: str) -> Any:
        llm = langchain_anthropic.ChatAnthropic(
            model=MODEL, base_url=url, api_key=API_KEY, max_retries=0
        )
        return llm.bind_tools([WEATHER_TOOL]).invoke("Weather in Paris?")

    with AgentRecorder("langchain", snapshot_dir=tmp_path):
        live = run(base)
    fake.stop()
    assert fake.requests[0].headers["user-agent"].startswith("langchain-anthropic/")
    (step,) = llm_steps(tmp_path, "langchain")
    assert step["tool_requests"] == TOOL_REQUESTS[:1]
    with offline(), AgentAsserter("langchain", snapshot_dir=tmp_path, mode="replay"):
        rep = run(base)
    assert type(rep) is type(live)
    assert (rep.content, rep.tool_calls, rep.response_metadata, rep.usage_metadata) == (
        live.content,
        live.tool_calls,
        live.response_metadata,
        live.usage_metadata,
    )
    assert rep.tool_calls[0]["args"] == {"city": "Paris"}
