"""Every openai 3.x call shape, recorded against the fake provider and replayed offline.

Each test runs the real ``openai`` SDK against :class:`tests.fake_provider.FakeOpenAI`
inside ``AgentRecorder``; then stops the server and runs the same code again inside
``AgentAsserter(mode="replay")`` with ``socket.connect`` refused, and checks that
the replayed objects are genuine SDK objects equal to the live ones.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import gzip
import json
import pickle
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import openai
import openai._base_client as openai_base_client
import pydantic
import pytest
from openai._legacy_response import LegacyAPIResponse
from openai._response import APIResponse, AsyncAPIResponse
from openai.types.chat import ChatCompletion, ChatCompletionChunk
from openai.types.chat.parsed_chat_completion import ParsedChatCompletion

from agentsnap import (
    AgentAsserter,
    AgentRecorder,
    AgentRegressionError,
    AgentsnapWarning,
    ReplayMissError,
    SnapshotStore,
)
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.offline import Offline
from tests._support.roundtrip import arecord_with, areplay_with, record_with, replay_with
from tests._support.sleeps import AsyncSleepSpy, SleepSpy
from tests.fake_openai_extra import openai_http, openai_version
from tests.fake_provider import (
    FakeOpenAI,
    error_reply,
    stream_text_reply,
    stream_tool_calls_reply,
    text_reply,
    tool_calls_reply,
)

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

MODEL = "gpt-4o-mini"
API_KEY = "sk-test-SECRET-7f3a9c2e1b5d"
QUESTION = "Weather in Paris?"
MESSAGES = [{"role": "user", "content": QUESTION}]

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
TIME_TOOL = {
    "type": "function",
    "function": {
        "name": "get_time",
        "parameters": {
            "type": "object",
            "properties": {"tz": {"type": "string"}},
            "required": ["tz"],
        },
    },
}
PARALLEL_CALLS = [
    ("call_A", "get_weather", {"city": "Paris"}),
    ("call_B", "get_time", {"tz": "Europe/Paris"}),
]
# the HTTP library the installed SDK is built on: httpx2 from openai 3.0, httpx before
SDK_HTTP = openai_http()
# response objects carry `_request_id` (the x-request-id header) from openai 1.46.0; those of parse() from 1.50.0
HAS_REQUEST_ID = openai_version() >= (1, 46)
PARSED_HAS_REQUEST_ID = openai_version() >= (1, 50)


# --------------------------------------------------------------------------- helpers


def sync_client(base_url: str, **kwargs: Any) -> openai.OpenAI:
    kwargs.setdefault("max_retries", 0)
    return openai.OpenAI(base_url=base_url, api_key=API_KEY, **kwargs)


def async_client(base_url: str, **kwargs: Any) -> openai.AsyncOpenAI:
    kwargs.setdefault("max_retries", 0)
    return openai.AsyncOpenAI(base_url=base_url, api_key=API_KEY, **kwargs)


record_sync = functools.partial(record_with, make=sync_client)
replay_sync = functools.partial(replay_with, make=sync_client)
record_async = functools.partial(arecord_with, make=async_client)
replay_async = functools.partial(areplay_with, make=async_client)


def helpers(client: Any) -> Any:
    """The resource holding ``parse()`` / ``stream()``: ``client.chat.completions`` from openai 1.92;
    in earlier releases (from 1.40) the same helpers live at ``client.beta.chat.completions``."""
    completions = client.chat.completions
    return completions if hasattr(completions, "parse") else client.beta.chat.completions


def snapshot_path(directory: Path, name: str) -> Path:
    return SnapshotStore(directory).path_for(name)


def snapshot_data(directory: Path, name: str) -> dict[str, Any]:
    return SnapshotStore.read_file(
        snapshot_path(directory, name)
    ).to_dict()  # as loaded: the file stores each call\'s messages once


def llm_steps(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in data["trace"] if s["type"] == "llm_call"]


def dumps(chunks: list[Any]) -> list[dict[str, Any]]:
    return [c.model_dump() for c in chunks]


def merge_tool_deltas(
    chunks: list[ChatCompletionChunk],
) -> list[tuple[str | None, str, dict[str, Any]]]:
    """Reassemble streamed tool calls: (id, name, parsed arguments), in tool-call index order."""
    merged: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for delta in choice.delta.tool_calls or ():
                slot = merged.setdefault(delta.index, {"id": None, "name": None, "arguments": []})
                if delta.id and slot["id"] is None:
                    slot["id"] = delta.id
                if delta.function is not None:
                    if delta.function.name and slot["name"] is None:
                        slot["name"] = delta.function.name
                    if delta.function.arguments:
                        slot["arguments"].append(delta.function.arguments)
    return [
        (merged[i]["id"], merged[i]["name"], json.loads("".join(merged[i]["arguments"])))
        for i in sorted(merged)
    ]


def assert_same_completion(replayed: Any, live: Any) -> None:
    assert type(replayed) is type(live)
    assert replayed.model_dump() == live.model_dump()
    assert replayed.model_fields_set == live.model_fields_set
    if HAS_REQUEST_ID:
        assert replayed._request_id == live._request_id
        assert replayed._request_id is not None and replayed._request_id.startswith("req_")


# --------------------------------------------------------------------------- plain create


def test_create_sync_replays_identical_chat_completion(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(text_reply("Sunny, 21 C.", usage=(12, 4)))
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> ChatCompletion:
        return client.chat.completions.create(model=MODEL, messages=MESSAGES)

    live = record_sync(tmp_path, "create_sync", fake_openai, run)
    assert type(live) is ChatCompletion
    replayed = replay_sync(tmp_path, "create_sync", base, offline, run)

    assert_same_completion(replayed, live)
    assert replayed.choices[0].message.content == "Sunny, 21 C."
    assert replayed.usage is not None and replayed.usage.total_tokens == 16
    # genuine pydantic objects: copy and pickle work (nothing is proxied)
    assert copy.deepcopy(replayed) == replayed
    assert pickle.loads(pickle.dumps(replayed)) == replayed

    (step,) = llm_steps(snapshot_data(tmp_path, "create_sync"))
    assert step["response"] == "Sunny, 21 C."
    assert step["messages"] == MESSAGES
    assert step["stream"] is False
    assert step["status"] == 200
    assert step["usage"] == {"input_tokens": 12, "output_tokens": 4, "total_tokens": 16}


def test_create_async_replays_identical_chat_completion(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(text_reply("Async sunny."))
    base = fake_openai.base_url

    async def run(client: openai.AsyncOpenAI) -> ChatCompletion:
        return await client.chat.completions.create(model=MODEL, messages=MESSAGES)

    live = record_async(tmp_path, "create_async", fake_openai, run)
    replayed = replay_async(tmp_path, "create_async", base, offline, run)

    assert type(live) is ChatCompletion
    assert_same_completion(replayed, live)
    assert replayed.choices[0].message.content == "Async sunny."


# --------------------------------------------------------------------------- streams


def _stream_iter(client: openai.OpenAI) -> tuple[Any, list[ChatCompletionChunk], str | None]:
    stream = client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
    chunks = [c for c in stream]
    return type(stream), chunks, stream.response.headers.get("x-request-id")


def _stream_with(client: openai.OpenAI) -> tuple[Any, list[ChatCompletionChunk], str | None]:
    with client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True) as stream:
        chunks = list(stream)
    assert stream.response.is_closed
    return type(stream), chunks, stream.response.headers.get("x-request-id")


@pytest.mark.parametrize("use", [_stream_iter, _stream_with], ids=["iterate", "with"])
def test_stream_sync_replays_identical_chunks(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline, use: Any
) -> None:
    fake_openai.script(stream_text_reply(["Sun", "ny ", "in Paris."]))
    base = fake_openai.base_url

    live_type, live_chunks, live_rid = record_sync(tmp_path, "stream_sync", fake_openai, use)
    rep_type, rep_chunks, rep_rid = replay_sync(tmp_path, "stream_sync", base, offline, use)

    assert live_type is openai.Stream and rep_type is openai.Stream
    assert [type(c) for c in rep_chunks] == [ChatCompletionChunk] * len(live_chunks)
    assert len(live_chunks) == 6  # role, 3 pieces, stop, usage
    assert dumps(rep_chunks) == dumps(live_chunks)
    assert rep_rid == live_rid and rep_rid is not None
    assert (
        "".join(c.choices[0].delta.content or "" for c in rep_chunks if c.choices)
        == "Sunny in Paris."
    )

    (step,) = llm_steps(snapshot_data(tmp_path, "stream_sync"))
    assert step["stream"] is True
    assert step["complete"] is True
    assert step["response"] == "Sunny in Paris."
    assert step["usage"] == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}


async def _astream_iter(
    client: openai.AsyncOpenAI,
) -> tuple[Any, list[ChatCompletionChunk], str | None]:
    stream = await client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
    chunks = [c async for c in stream]
    return type(stream), chunks, stream.response.headers.get("x-request-id")


async def _astream_with(
    client: openai.AsyncOpenAI,
) -> tuple[Any, list[ChatCompletionChunk], str | None]:
    async with await client.chat.completions.create(
        model=MODEL, messages=MESSAGES, stream=True
    ) as stream:
        chunks = [c async for c in stream]
    assert stream.response.is_closed
    return type(stream), chunks, stream.response.headers.get("x-request-id")


@pytest.mark.parametrize("use", [_astream_iter, _astream_with], ids=["async-iterate", "async-with"])
def test_stream_async_replays_identical_chunks(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline, use: Any
) -> None:
    fake_openai.script(stream_text_reply(["Rain", "y."]))
    base = fake_openai.base_url

    live_type, live_chunks, live_rid = record_async(tmp_path, "stream_async", fake_openai, use)
    rep_type, rep_chunks, rep_rid = replay_async(tmp_path, "stream_async", base, offline, use)

    assert live_type is openai.AsyncStream and rep_type is openai.AsyncStream
    assert [type(c) for c in rep_chunks] == [ChatCompletionChunk] * 5
    assert dumps(rep_chunks) == dumps(live_chunks)
    assert rep_rid == live_rid and rep_rid is not None
    (step,) = llm_steps(snapshot_data(tmp_path, "stream_async"))
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "Rainy.")


def _first_chunk_then_break(client: openai.OpenAI) -> ChatCompletionChunk:
    stream = client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
    for chunk in stream:
        return chunk  # abandoned: never closed by the caller
    raise AssertionError("empty stream")


def _first_chunk_then_close(client: openai.OpenAI) -> ChatCompletionChunk:
    with client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True) as stream:
        for chunk in stream:  # noqa: B007 - keep the first chunk
            break
    return chunk


@pytest.mark.parametrize(
    "use", [_first_chunk_then_break, _first_chunk_then_close], ids=["break", "with-break"]
)
def test_stream_broken_after_first_chunk_is_recorded_incomplete_and_replays(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline, use: Any
) -> None:
    fake_openai.script(
        stream_text_reply(["one ", "two ", "three"]), stream_text_reply(["one ", "two ", "three"])
    )
    base = fake_openai.base_url
    # the full stream, read outside any recording (nothing active: not captured)
    full = list(
        sync_client(base).chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
    )
    assert len(full) == 6

    live_first = record_sync(tmp_path, "stream_break", fake_openai, use)
    data = snapshot_data(tmp_path, "stream_break")
    (step,) = llm_steps(data)
    assert step["stream"] is True
    assert step["complete"] is False
    assert data["trace"][0]["exchange"]["response"]["chunks"], "the consumed chunks are kept"

    rep_first = replay_sync(tmp_path, "stream_break", base, offline, use)
    assert type(rep_first) is ChatCompletionChunk
    assert rep_first.model_dump() == live_first.model_dump()

    # a later full read of the partial recording: no crash, yields a prefix of the real stream
    def read_all(client: openai.OpenAI) -> list[ChatCompletionChunk]:
        return list(client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True))

    with offline(), AgentAsserter("stream_break", snapshot_dir=tmp_path, mode="replay"):
        prefix = read_all(sync_client(base))
    assert 1 <= len(prefix) <= len(full)
    # ids/created of the two live calls differ (the fake numbers repeated requests), the content does not
    strip = lambda c: {k: v for k, v in c.model_dump().items() if k not in ("id", "created")}  # noqa: E731
    assert [strip(c) for c in prefix] == [strip(c) for c in full[: len(prefix)]]


def test_stream_created_but_never_iterated_is_recorded_incomplete(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(stream_text_reply(["never", " read"]))
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> type:
        stream = client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
        return type(stream)

    assert record_sync(tmp_path, "stream_unread", fake_openai, run) is openai.Stream
    (step,) = llm_steps(snapshot_data(tmp_path, "stream_unread"))
    assert (step["stream"], step["complete"], step["response"]) == (True, False, "")
    assert replay_sync(tmp_path, "stream_unread", base, offline, run) is openai.Stream


# --------------------------------------------------------------------------- tool calls


def test_streamed_parallel_tool_calls_with_interleaved_deltas(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(stream_tool_calls_reply(PARALLEL_CALLS, interleave=True))
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> list[ChatCompletionChunk]:
        return list(
            client.chat.completions.create(
                model=MODEL, messages=MESSAGES, tools=[WEATHER_TOOL, TIME_TOOL], stream=True
            )
        )

    live = record_sync(tmp_path, "parallel_tools", fake_openai, run)
    # the fake really interleaved: a get_time fragment arrives before get_weather's last one
    fragments = [
        (d.index, d.function.arguments)
        for c in live
        for ch in c.choices
        for d in (ch.delta.tool_calls or ())
        if not d.id
    ]
    assert fragments == [(0, '{"city":'), (1, '{"tz":'), (0, '"Paris"}'), (1, '"Europe/Paris"}')]

    step = llm_steps(snapshot_data(tmp_path, "parallel_tools"))[0]
    assert step["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "call_B", "name": "get_time", "args": {"tz": "Europe/Paris"}},
    ]
    assert step["tools"] == ["get_weather", "get_time"]
    assert step["response"] == ""

    replayed = replay_sync(tmp_path, "parallel_tools", base, offline, run)
    assert dumps(replayed) == dumps(live)
    assert (
        merge_tool_deltas(replayed)
        == merge_tool_deltas(live)
        == [
            ("call_A", "get_weather", {"city": "Paris"}),
            ("call_B", "get_time", {"tz": "Europe/Paris"}),
        ]
    )


def test_tool_call_round_trip_derives_tool_call_steps(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(
        tool_calls_reply([("call_A", "get_weather", {"city": "Paris"})]),
        text_reply("It is sunny in Paris."),
    )
    base = fake_openai.base_url

    def agent(client: openai.OpenAI) -> str | None:
        messages: list[dict[str, Any]] = list(MESSAGES)
        first = client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL])
        call = first.choices[0].message.tool_calls[0]
        messages.append(first.choices[0].message.model_dump(exclude_none=True))
        city = json.loads(call.function.arguments)["city"]
        messages.append({"role": "tool", "tool_call_id": call.id, "content": f"sunny in {city}"})
        return (
            client.chat.completions.create(model=MODEL, messages=messages, tools=[WEATHER_TOOL])
            .choices[0]
            .message.content
        )

    assert record_sync(tmp_path, "tool_round_trip", fake_openai, agent) == "It is sunny in Paris."
    data = snapshot_data(tmp_path, "tool_round_trip")
    assert [s["type"] for s in data["trace"]] == ["llm_call", "tool_call", "llm_call"]
    tool = data["trace"][1]
    assert {k: tool[k] for k in ("name", "args", "result", "id")} == {
        "name": "get_weather",
        "args": {"city": "Paris"},
        "result": "sunny in Paris",
        "id": "call_A",
    }
    assert data["output"] == "It is sunny in Paris."
    assert replay_sync(tmp_path, "tool_round_trip", base, offline, agent) == "It is sunny in Paris."


# --------------------------------------------------------------------------- raw / streaming response wrappers


def test_with_raw_response_sync(fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline) -> None:
    fake_openai.script(text_reply("raw answer"))
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> tuple[Any, str, ChatCompletion, bool]:
        raw = client.chat.completions.with_raw_response.create(model=MODEL, messages=MESSAGES)
        parsed = raw.parse()
        return type(raw), raw.headers["x-request-id"], parsed, raw.parse() is parsed

    live = record_sync(tmp_path, "raw_sync", fake_openai, run)
    rep = replay_sync(tmp_path, "raw_sync", base, offline, run)
    assert live[0] is LegacyAPIResponse and rep[0] is LegacyAPIResponse
    assert rep[1] == live[1] and rep[1].startswith("req_")
    assert_same_completion(rep[2], live[2])
    assert rep[3] is True and live[3] is True
    assert len(llm_steps(snapshot_data(tmp_path, "raw_sync"))) == 1


def test_account_headers_replay_as_redacted_with_the_live_header_names(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    # patches/openai.toml keeps every header ("*"); the account ones are stored as <redacted>
    account = (("openai-organization", "org-Zx81kQm2Pq7Lw0Vt"), ("openai-project", "proj_Hq29Xc"))
    fake_openai.script(dataclasses.replace(text_reply("raw answer"), headers=account))
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> dict[str, str]:
        raw = client.chat.completions.with_raw_response.create(model=MODEL, messages=MESSAGES)
        return dict(raw.headers.items())

    live = record_sync(tmp_path, "account", fake_openai, run)
    rep = replay_sync(tmp_path, "account", base, offline, run)
    assert live["openai-organization"] == "org-Zx81kQm2Pq7Lw0Vt"
    assert set(rep) == set(live)
    assert rep["openai-organization"] == rep["openai-project"] == "<redacted>"
    text = snapshot_path(tmp_path, "account").read_text(encoding="utf-8")
    assert "org-Zx81kQm2Pq7Lw0Vt" not in text and "proj_Hq29Xc" not in text


def test_with_raw_response_stream_sync(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(stream_text_reply(["raw ", "stream"]))
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> tuple[Any, str, Any, list[ChatCompletionChunk], bool]:
        raw = client.chat.completions.with_raw_response.create(
            model=MODEL, messages=MESSAGES, stream=True
        )
        stream = raw.parse()
        again = raw.parse() is stream
        return type(raw), raw.headers["x-request-id"], type(stream), list(stream), again

    live = record_sync(tmp_path, "raw_stream", fake_openai, run)
    rep = replay_sync(tmp_path, "raw_stream", base, offline, run)
    assert (live[0], rep[0]) == (LegacyAPIResponse, LegacyAPIResponse)
    assert rep[1] == live[1]
    assert (live[2], rep[2]) == (openai.Stream, openai.Stream)
    assert dumps(rep[3]) == dumps(live[3])
    assert rep[4] is True
    (step,) = llm_steps(snapshot_data(tmp_path, "raw_stream"))
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "raw stream")


def test_with_raw_response_async(fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline) -> None:
    fake_openai.script(text_reply("async raw"))
    base = fake_openai.base_url

    async def run(client: openai.AsyncOpenAI) -> tuple[Any, str, ChatCompletion]:
        raw = await client.chat.completions.with_raw_response.create(model=MODEL, messages=MESSAGES)
        return type(raw), raw.headers["x-request-id"], raw.parse()

    live = record_async(tmp_path, "raw_async", fake_openai, run)
    rep = replay_async(tmp_path, "raw_async", base, offline, run)
    assert live[0] is LegacyAPIResponse and rep[0] is LegacyAPIResponse
    assert rep[1] == live[1]
    assert_same_completion(rep[2], live[2])


def test_with_streaming_response_sync(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(text_reply("streamed-response body"))
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> tuple[Any, str, ChatCompletion]:
        with client.chat.completions.with_streaming_response.create(
            model=MODEL, messages=MESSAGES
        ) as resp:
            return type(resp), resp.headers["x-request-id"], resp.parse()

    live = record_sync(tmp_path, "streaming_resp_sync", fake_openai, run)
    rep = replay_sync(tmp_path, "streaming_resp_sync", base, offline, run)
    assert live[0] is APIResponse and rep[0] is APIResponse
    assert rep[1] == live[1]
    assert_same_completion(rep[2], live[2])
    (step,) = llm_steps(snapshot_data(tmp_path, "streaming_resp_sync"))
    assert step["response"] == "streamed-response body"
    assert step["status"] == 200


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_with_streaming_response_async_awaited_parse(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(stream_text_reply(["async ", "streaming ", "response"]))
    base = fake_openai.base_url

    async def run(client: openai.AsyncOpenAI) -> tuple[Any, str, Any, list[ChatCompletionChunk]]:
        async with client.chat.completions.with_streaming_response.create(
            model=MODEL, messages=MESSAGES, stream=True
        ) as resp:
            stream = await resp.parse()
            chunks = [c async for c in stream]
            return type(resp), resp.headers["x-request-id"], type(stream), chunks

    live = record_async(tmp_path, "streaming_resp_async", fake_openai, run)
    rep = replay_async(tmp_path, "streaming_resp_async", base, offline, run)
    assert (live[0], rep[0]) == (AsyncAPIResponse, AsyncAPIResponse)
    assert rep[1] == live[1]
    assert (live[2], rep[2]) == (openai.AsyncStream, openai.AsyncStream)
    assert dumps(rep[3]) == dumps(live[3])
    (step,) = llm_steps(snapshot_data(tmp_path, "streaming_resp_async"))
    assert step["response"] == "async streaming response"


# --------------------------------------------------------------------------- stream manager and parse()


class GetWeather(pydantic.BaseModel):
    city: str


class Forecast(pydantic.BaseModel):
    city: str
    temp_c: int


def test_stream_manager_sync_get_final_completion(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(stream_tool_calls_reply([("call_A", "GetWeather", {"city": "Paris"})]))
    base = fake_openai.base_url
    tools = [openai.pydantic_function_tool(GetWeather)]

    def run(client: openai.OpenAI) -> tuple[list[str], Any]:
        with helpers(client).stream(model=MODEL, messages=MESSAGES, tools=tools) as stream:
            kinds = [event.type for event in stream]
            return kinds, stream.get_final_completion()

    live_kinds, live = record_sync(tmp_path, "manager_sync", fake_openai, run)
    rep_kinds, rep = replay_sync(tmp_path, "manager_sync", base, offline, run)

    assert rep_kinds == live_kinds and "tool_calls.function.arguments.done" in rep_kinds
    assert type(rep) is type(live) and issubclass(type(rep), ParsedChatCompletion)
    assert rep.model_dump() == live.model_dump()
    call = rep.choices[0].message.tool_calls[0]
    assert (call.id, call.function.name, call.function.arguments) == (
        "call_A",
        "GetWeather",
        '{"city":"Paris"}',
    )
    assert call.function.parsed_arguments == GetWeather(city="Paris")
    # the manager plus its inner create(stream=True): exactly one recorded call
    (step,) = llm_steps(snapshot_data(tmp_path, "manager_sync"))
    assert step["tool_requests"] == [
        {"id": "call_A", "name": "GetWeather", "args": {"city": "Paris"}}
    ]


def test_stream_manager_async_get_final_completion(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(stream_tool_calls_reply([("call_A", "GetWeather", {"city": "Paris"})]))
    base = fake_openai.base_url
    tools = [openai.pydantic_function_tool(GetWeather)]

    async def run(client: openai.AsyncOpenAI) -> Any:
        async with helpers(client).stream(model=MODEL, messages=MESSAGES, tools=tools) as stream:
            async for _ in stream:
                pass
            return await stream.get_final_completion()

    live = record_async(tmp_path, "manager_async", fake_openai, run)
    rep = replay_async(tmp_path, "manager_async", base, offline, run)
    assert type(rep) is type(live)
    assert rep.model_dump() == live.model_dump()
    assert rep.choices[0].message.tool_calls[0].function.parsed_arguments == GetWeather(
        city="Paris"
    )
    assert len(llm_steps(snapshot_data(tmp_path, "manager_async"))) == 1


def test_parse_with_pydantic_response_format_sync(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(text_reply('{"city":"Paris","temp_c":21}'))
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> Any:
        return helpers(client).parse(model=MODEL, messages=MESSAGES, response_format=Forecast)

    live = record_sync(tmp_path, "parse_sync", fake_openai, run)
    rep = replay_sync(tmp_path, "parse_sync", base, offline, run)
    assert type(rep) is type(live)
    assert isinstance(rep, ParsedChatCompletion)
    assert rep.model_dump(warnings=False) == live.model_dump(warnings=False)
    if PARSED_HAS_REQUEST_ID:
        assert rep._request_id == live._request_id
    assert type(rep.choices[0].message.parsed) is Forecast
    assert rep.choices[0].message.parsed == Forecast(city="Paris", temp_c=21)
    (step,) = llm_steps(snapshot_data(tmp_path, "parse_sync"))
    assert step["response"] == '{"city":"Paris","temp_c":21}'


def test_parse_with_pydantic_response_format_async(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(text_reply('{"city":"Rome","temp_c":25}'))
    base = fake_openai.base_url

    async def run(client: openai.AsyncOpenAI) -> Any:
        return await helpers(client).parse(model=MODEL, messages=MESSAGES, response_format=Forecast)

    live = record_async(tmp_path, "parse_async", fake_openai, run)
    rep = replay_async(tmp_path, "parse_async", base, offline, run)
    assert type(rep) is type(live)
    assert isinstance(rep, ParsedChatCompletion)
    assert rep.choices[0].message.parsed == Forecast(city="Rome", temp_c=25)


# --------------------------------------------------------------------------- errors and retries


def test_429_with_two_retries_records_three_exchanges_and_replays_fast(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    # retry-after: 5 s -- honoured live (spied, not slept); replay must not wait 2 x 5 s
    fake_openai.script(*[error_reply(429, retry_after="5", message="Slow down.")] * 3)
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> openai.RateLimitError:
        with pytest.raises(openai.RateLimitError) as info:
            client.chat.completions.create(model=MODEL, messages=MESSAGES)
        return info.value

    record_spy = SleepSpy(really_sleep=False)
    monkeypatch.setattr(openai_base_client, "time", record_spy)
    live = record_sync(tmp_path, "rate_limited", fake_openai, run, max_retries=2)
    assert record_spy.calls == [5.0, 5.0]
    assert len(fake_openai.requests) == 3

    steps = llm_steps(snapshot_data(tmp_path, "rate_limited"))
    assert [s["status"] for s in steps] == [429, 429, 429]
    assert [s["error"] for s in steps] == ["Slow down."] * 3
    # stored as the server's text (openai.toml: verbatim_error_bodies), so its key order
    # survives: openai < 3.x quotes the whole body in str(error)
    stored = steps[0]["exchange"]["response"]
    assert "body" not in stored
    assert list(json.loads(stored["text"])["error"]) == ["message", "type", "param", "code"]

    replay_spy = SleepSpy(really_sleep=True)
    monkeypatch.setattr(openai_base_client, "time", replay_spy)
    started = time.monotonic()
    rep = replay_sync(tmp_path, "rate_limited", base, offline, run, max_retries=2)
    elapsed = time.monotonic() - started

    assert elapsed < 2.0
    assert replay_spy.calls == [0.001, 0.001]  # retry-after-ms: 1 on replayed errors
    assert type(rep) is openai.RateLimitError
    assert rep.status_code == 429
    assert (
        rep.body
        == live.body
        == {
            "message": "Slow down.",
            "type": "requests",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    )
    assert rep.request_id == live.request_id and rep.request_id is not None
    assert str(rep) == str(live)


def test_429_then_200_with_retries_returns_the_200(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_openai.script(error_reply(429, retry_after="5"), text_reply("after the retry"))
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> ChatCompletion:
        return client.chat.completions.create(model=MODEL, messages=MESSAGES)

    monkeypatch.setattr(openai_base_client, "time", SleepSpy(really_sleep=False))
    live = record_sync(tmp_path, "retry_then_ok", fake_openai, run, max_retries=2)
    assert [s["status"] for s in llm_steps(snapshot_data(tmp_path, "retry_then_ok"))] == [429, 200]

    spy = SleepSpy(really_sleep=True)
    monkeypatch.setattr(openai_base_client, "time", spy)
    rep = replay_sync(tmp_path, "retry_then_ok", base, offline, run, max_retries=2)
    assert spy.calls == [0.001]
    assert_same_completion(rep, live)
    assert rep.choices[0].message.content == "after the retry"


def test_429_async_with_retries_replays_fast(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_openai.script(*[error_reply(429, retry_after="5")] * 3)
    base = fake_openai.base_url

    async def run(client: openai.AsyncOpenAI) -> openai.RateLimitError:
        with pytest.raises(openai.RateLimitError) as info:
            await client.chat.completions.create(model=MODEL, messages=MESSAGES)
        return info.value

    monkeypatch.setattr(
        openai_base_client, "anyio", AsyncSleepSpy(really_sleep=False, module=anyio)
    )
    live = record_async(tmp_path, "rate_limited_async", fake_openai, run, max_retries=2)
    assert len(llm_steps(snapshot_data(tmp_path, "rate_limited_async"))) == 3

    spy = AsyncSleepSpy(really_sleep=True, module=anyio)
    monkeypatch.setattr(openai_base_client, "anyio", spy)
    started = time.monotonic()
    rep = replay_async(tmp_path, "rate_limited_async", base, offline, run, max_retries=2)
    assert time.monotonic() - started < 2.0
    assert spy.calls == [0.001, 0.001]
    assert type(rep) is openai.RateLimitError and rep.status_code == 429
    assert rep.body == live.body


def test_429_on_a_stream_request_replays_as_rate_limit_error(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(error_reply(429, message="No stream for you."))
    base = fake_openai.base_url

    def run(client: openai.OpenAI) -> openai.RateLimitError:
        with pytest.raises(openai.RateLimitError) as info:
            client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True)
        return info.value

    live = record_sync(tmp_path, "stream_429", fake_openai, run)
    rep = replay_sync(tmp_path, "stream_429", base, offline, run)
    assert (rep.status_code, rep.body) == (429, live.body)
    (step,) = llm_steps(snapshot_data(tmp_path, "stream_429"))
    assert (step["status"], step["error"]) == (429, "No stream for you.")


def test_connection_refused_replays_as_api_connection_error(
    tmp_path: Path, offline: Offline
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}/v1"

    def run(client: openai.OpenAI) -> openai.APIConnectionError:
        with pytest.raises(openai.APIConnectionError) as info:
            client.chat.completions.create(model=MODEL, messages=MESSAGES)
        return info.value

    with AgentRecorder("refused", snapshot_dir=tmp_path):
        live = run(sync_client(base))
    (step,) = snapshot_data(tmp_path, "refused")["trace"]
    assert step["exchange"]["response"] == {
        "error": {"type": "ConnectError", "message": "[Errno 111] Connection refused"}
    }

    rep = replay_sync(tmp_path, "refused", base, offline, run)
    assert type(rep) is type(live) is openai.APIConnectionError
    assert type(rep.__cause__) is type(live.__cause__) is SDK_HTTP.ConnectError
    assert str(rep.__cause__) == str(live.__cause__)


def test_connection_refused_with_retries_replays_without_backoff(
    tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}/v1"

    def run(client: openai.OpenAI) -> None:
        with pytest.raises(openai.APIConnectionError):
            client.chat.completions.create(model=MODEL, messages=MESSAGES)

    record_spy = SleepSpy(really_sleep=False)
    monkeypatch.setattr(openai_base_client, "time", record_spy)
    with AgentRecorder("refused_retries", snapshot_dir=tmp_path):
        run(sync_client(base, max_retries=2))
    # the SDK's own exponential backoff live, with its jitter (x 0.75-1): 0.5 s then 1 s
    # nominal; before openai 1.47.0 its first retry already counted as the second (1 s, 2 s)
    first = 0.5 if openai_version() >= (1, 47) else 1.0
    assert len(record_spy.calls) == 2
    assert (
        0.75 * first <= record_spy.calls[0] <= first
        and 1.5 * first <= record_spy.calls[1] <= 2 * first
    )
    assert len(snapshot_data(tmp_path, "refused_retries")["trace"]) == 3

    replay_spy = SleepSpy(really_sleep=True)
    monkeypatch.setattr(openai_base_client, "time", replay_spy)
    started = time.monotonic()
    replay_sync(tmp_path, "refused_retries", base, offline, run, max_retries=2)
    assert time.monotonic() - started < 2.0
    assert replay_spy.calls == [0.001, 0.001]


def test_recorder_block_that_raises_writes_nothing_and_keeps_the_golden(
    fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.script(text_reply("golden answer"), text_reply("broken run"))
    client = sync_client(fake_openai.base_url)
    with AgentRecorder("kept", snapshot_dir=tmp_path):
        client.chat.completions.create(model=MODEL, messages=MESSAGES)
    before = snapshot_path(tmp_path, "kept").read_bytes()
    with pytest.raises(RuntimeError, match="agent crashed"):
        with AgentRecorder("kept", snapshot_dir=tmp_path):
            client.chat.completions.create(model=MODEL, messages=MESSAGES)
            raise RuntimeError("agent crashed")
    assert snapshot_path(tmp_path, "kept").read_bytes() == before
    with pytest.raises(RuntimeError), AgentRecorder("never_written", snapshot_dir=tmp_path):
        raise RuntimeError("agent crashed")
    assert not snapshot_path(tmp_path, "never_written").exists()


# --------------------------------------------------------------------------- concurrency


def _answer_by_question(body: dict[str, Any]) -> Any:
    return text_reply("answer to " + body["messages"][0]["content"])


QUESTIONS = [f"question {i}" for i in range(6)]


def test_thread_pool_calls_are_captured_and_replayed_to_their_callers(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.respond_with(_answer_by_question)
    base = fake_openai.base_url
    gate = threading.Barrier(len(QUESTIONS), timeout=10)

    def make_run(
        order: list[str], wait: bool
    ) -> Callable[[openai.OpenAI], dict[str, ChatCompletion]]:
        def ask(client: openai.OpenAI, q: str) -> tuple[str, ChatCompletion]:
            if wait:
                gate.wait()  # all six requests in flight together
            return q, client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": q}]
            )

        def run(client: openai.OpenAI) -> dict[str, ChatCompletion]:
            with ThreadPoolExecutor(max_workers=len(order)) as pool:
                return dict(pool.map(lambda q: ask(client, q), order))

        return run

    live = record_sync(tmp_path, "threads", fake_openai, make_run(QUESTIONS, wait=True))
    steps = llm_steps(snapshot_data(tmp_path, "threads"))
    assert len(steps) == len(QUESTIONS)
    assert sorted(s["messages"][0]["content"] for s in steps) == QUESTIONS

    rep = replay_sync(
        tmp_path, "threads", base, offline, make_run(list(reversed(QUESTIONS)), wait=False)
    )
    assert set(rep) == set(QUESTIONS)
    for q in QUESTIONS:
        assert rep[q].choices[0].message.content == f"answer to {q}"
        assert_same_completion(rep[q], live[q])


def test_asyncio_gather_calls_are_captured_and_replayed_to_their_callers(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.respond_with(_answer_by_question)
    base = fake_openai.base_url

    def make_run(order: list[str]) -> Callable[[openai.AsyncOpenAI], Any]:
        async def ask(client: openai.AsyncOpenAI, q: str) -> tuple[str, ChatCompletion]:
            return q, await client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": q}]
            )

        async def run(client: openai.AsyncOpenAI) -> dict[str, ChatCompletion]:
            return dict(await asyncio.gather(*(ask(client, q) for q in order)))

        return run

    live = record_async(tmp_path, "gather", fake_openai, make_run(QUESTIONS))
    assert len(llm_steps(snapshot_data(tmp_path, "gather"))) == len(QUESTIONS)

    rep = replay_async(tmp_path, "gather", base, offline, make_run(list(reversed(QUESTIONS))))
    for q in QUESTIONS:
        assert rep[q].choices[0].message.content == f"answer to {q}"
        assert_same_completion(rep[q], live[q])


# --------------------------------------------------------------------------- raw httpx / httpx2 traffic

OPENAI_UA = "OpenAI/Python 3.57.0"
HTTP_LIBS = pytest.mark.parametrize("lib_name", ["httpx2", "httpx"])


def http_lib(name: str) -> Any:
    """Raw traffic through either library, whichever is installed (openai < 3.0 brings httpx, 3.x httpx2)."""
    return pytest.importorskip(
        name,
        reason=f"{name} is not installed (openai < 3.0 depends on httpx, openai >= 3.0 on httpx2)",
    )


@HTTP_LIBS
def test_send_with_request_keyword_is_captured_and_replayed(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline, lib_name: str
) -> None:
    lib = http_lib(lib_name)
    fake_openai.script(text_reply("kw answer"))
    url = fake_openai.base_url + "/chat/completions"
    body = {"model": MODEL, "messages": MESSAGES}

    def run() -> tuple[int, dict[str, Any], str]:
        req = lib.Request("POST", url, json=body, headers={"User-Agent": OPENAI_UA})
        with lib.Client() as client:
            resp = client.send(request=req)
        return resp.status_code, resp.json(), resp.headers["x-request-id"]

    with AgentRecorder("send_kw", snapshot_dir=tmp_path):
        live = run()
    fake_openai.stop()
    (step,) = llm_steps(snapshot_data(tmp_path, "send_kw"))
    assert step["messages"] == MESSAGES and step["response"] == "kw answer"

    with offline(), AgentAsserter("send_kw", snapshot_dir=tmp_path, mode="replay"):
        rep = run()
    assert rep == live
    assert rep[0] == 200


@HTTP_LIBS
def test_client_stream_helper_sends_by_keyword_and_is_captured(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline, lib_name: str
) -> None:
    """``Client.stream()`` calls ``send(request=..., stream=True)`` by keyword (cohere does this)."""
    lib = http_lib(lib_name)
    fake_openai.script(text_reply("via stream()"))
    url = fake_openai.base_url + "/chat/completions"

    def run() -> bytes:
        with lib.Client(headers={"User-Agent": OPENAI_UA}) as client:
            with client.stream("POST", url, json={"model": MODEL, "messages": MESSAGES}) as resp:
                return resp.read()

    with AgentRecorder("stream_helper", snapshot_dir=tmp_path):
        live = run()
    fake_openai.stop()
    (step,) = llm_steps(snapshot_data(tmp_path, "stream_helper"))
    assert step["response"] == "via stream()"
    with offline(), AgentAsserter("stream_helper", snapshot_dir=tmp_path, mode="replay"):
        rep = run()
    assert json.loads(rep) == json.loads(live)


@HTTP_LIBS
def test_non_provider_traffic_passes_through_and_is_not_snapshotted(
    fake_openai: FakeOpenAI, tmp_path: Path, lib_name: str
) -> None:
    lib = http_lib(lib_name)
    fake_openai.script(
        text_reply("sdk answer"), text_reply("app answer 1"), text_reply("app answer 2")
    )
    url = fake_openai.base_url + "/chat/completions"
    # not a chat completion by its shape (no `messages`): an LLM call would be captured
    # whatever its User-Agent (tests/test_recognition.py)
    app_body = {"model": MODEL, "prompt": "APP-PRIVATE-MARKER"}

    def app_call() -> str:
        with lib.Client(headers={"User-Agent": "my-app/1.0"}) as client:
            return client.post(url, json=app_body).json()["choices"][0]["message"]["content"]

    with AgentRecorder("mixed", snapshot_dir=tmp_path):
        sync_client(fake_openai.base_url).chat.completions.create(model=MODEL, messages=MESSAGES)
        assert app_call() == "app answer 1"
    raw = snapshot_path(tmp_path, "mixed").read_bytes()
    data = json.loads(raw)
    assert [s["type"] for s in data["trace"]] == ["llm_call"]
    assert b"APP-PRIVATE-MARKER" not in raw
    assert b"app answer" not in raw
    assert len(fake_openai.requests) == 2

    # in replay, the SDK call is served from the snapshot and the app's call still goes out
    with AgentAsserter("mixed", snapshot_dir=tmp_path, mode="replay"):
        served = sync_client(fake_openai.base_url).chat.completions.create(
            model=MODEL, messages=MESSAGES
        )
        assert app_call() == "app answer 2"
    assert served.choices[0].message.content == "sdk answer"
    arrived = fake_openai.requests[2:]
    assert [r.headers["user-agent"] for r in arrived] == ["my-app/1.0"]
    assert arrived[0].body == app_body


# --------------------------------------------------------------------------- compressed responses


def _chunk_json(content: str | None, finish: str | None, role: bool = False) -> dict[str, Any]:
    delta: dict[str, Any] = {"content": content}
    if role:
        delta["role"] = "assistant"
    return {
        "id": "chatcmpl-gz",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


GZ_EVENTS = [
    _chunk_json("", None, role=True),
    _chunk_json("gzip ", None),
    _chunk_json("stream", None),
    _chunk_json(None, "stop"),
]
GZ_COMPLETION = {
    "id": "chatcmpl-gzjson",
    "object": "chat.completion",
    "created": 1700000000,
    "model": MODEL,
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "gzip json"},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
}


class _GzipHandler(BaseHTTPRequestHandler):
    """Answers chat completions gzip-compressed, as providers behind a CDN do."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.send_response(200)
        self.send_header("content-encoding", "gzip")
        self.send_header("x-request-id", "req_gzip")
        if request.get("stream"):
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            packer = zlib.compressobj(wbits=31)  # gzip framing, one flushed block per event
            events = [f"data: {json.dumps(e)}\n\n" for e in GZ_EVENTS] + ["data: [DONE]\n\n"]
            for i, event in enumerate(events):
                data = packer.compress(event.encode()) + (
                    packer.flush() if i == len(events) - 1 else packer.flush(zlib.Z_SYNC_FLUSH)
                )
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        else:
            data = gzip.compress(json.dumps(GZ_COMPLETION).encode())
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)


@pytest.fixture
def gzip_server() -> Iterator[tuple[str, Callable[[], None]]]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _GzipHandler)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    stopped = []

    def stop() -> None:
        if not stopped:
            stopped.append(True)
            server.shutdown()
            server.server_close()

    yield f"http://127.0.0.1:{server.server_address[1]}/v1", stop
    stop()


def test_gzip_json_response_is_stored_decoded_and_replays(
    gzip_server: Any, tmp_path: Path, offline: Offline
) -> None:
    base, stop = gzip_server

    def run(client: openai.OpenAI) -> ChatCompletion:
        return client.chat.completions.create(model=MODEL, messages=MESSAGES)

    with AgentRecorder("gz_json", snapshot_dir=tmp_path):
        live = run(sync_client(base))
    stop()
    (step,) = llm_steps(snapshot_data(tmp_path, "gz_json"))
    assert step["exchange"]["response"]["body"]["choices"][0]["message"]["content"] == "gzip json"
    assert "content-encoding" not in step["exchange"]["response"]["headers"]
    assert step["response"] == "gzip json"
    assert_same_completion(replay_sync(tmp_path, "gz_json", base, offline, run), live)


def _gz_stream(client: openai.OpenAI) -> list[ChatCompletionChunk]:
    return list(client.chat.completions.create(model=MODEL, messages=MESSAGES, stream=True))


def test_gzip_stream_replays_identically(
    gzip_server: Any, tmp_path: Path, offline: Offline
) -> None:
    base, stop = gzip_server
    with AgentRecorder("gz_stream", snapshot_dir=tmp_path):
        live = _gz_stream(sync_client(base))
    stop()
    assert "".join(c.choices[0].delta.content or "" for c in live) == "gzip stream"
    (step,) = llm_steps(snapshot_data(tmp_path, "gz_stream"))
    # stored decoded (readable, scrubbable), the encoding header dropped: replay serves the decoded bytes once
    assert "content-encoding" not in step["exchange"]["response"]["headers"]
    assert all(isinstance(c, str) for c in step["exchange"]["response"]["chunks"])
    replayed = replay_sync(tmp_path, "gz_stream", base, offline, _gz_stream)
    assert dumps(replayed) == dumps(live)


def test_gzip_stream_normalised_view_is_read(gzip_server: Any, tmp_path: Path) -> None:
    base, stop = gzip_server
    with AgentRecorder("gz_view", snapshot_dir=tmp_path):
        _gz_stream(sync_client(base))
    stop()
    (step,) = llm_steps(snapshot_data(tmp_path, "gz_view"))
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "gzip stream")
    assert "warnings" not in step


# --------------------------------------------------------------------------- responses already read by the transport


def _mock_client(handler: Callable[[Any], Any]) -> openai.OpenAI:
    return openai.OpenAI(
        base_url="http://mock.invalid/v1",
        api_key=API_KEY,
        max_retries=0,
        http_client=SDK_HTTP.Client(transport=SDK_HTTP.MockTransport(handler)),
    )


def _refuse(request: Any) -> Any:
    raise AssertionError(f"replay reached the transport: {request.method} {request.url}")


def test_mock_transport_json_response_records_and_replays(tmp_path: Path) -> None:
    def handler(request: Any) -> Any:
        return SDK_HTTP.Response(200, json=GZ_COMPLETION, headers={"x-request-id": "req_mock"})

    def run(client: openai.OpenAI) -> ChatCompletion:
        return client.chat.completions.create(model=MODEL, messages=MESSAGES)

    with AgentRecorder("mock_json", snapshot_dir=tmp_path):
        live = run(_mock_client(handler))
    with AgentAsserter("mock_json", snapshot_dir=tmp_path, mode="replay"):
        rep = run(_mock_client(_refuse))
    assert_same_completion(rep, live)


def test_streamed_request_answered_by_an_already_read_response_is_recorded(tmp_path: Path) -> None:
    def handler(request: Any) -> Any:
        return SDK_HTTP.Response(200, json=GZ_COMPLETION, headers={"x-request-id": "req_mock"})

    def run(client: openai.OpenAI) -> ChatCompletion:
        with client.chat.completions.with_streaming_response.create(
            model=MODEL, messages=MESSAGES
        ) as resp:
            return resp.parse()

    with AgentRecorder("mock_streaming", snapshot_dir=tmp_path):
        live = run(_mock_client(handler))
    (step,) = llm_steps(snapshot_data(tmp_path, "mock_streaming"))
    assert step["response"] == "gzip json"
    with AgentAsserter("mock_streaming", snapshot_dir=tmp_path, mode="replay"):
        rep = run(_mock_client(_refuse))
    assert_same_completion(rep, live)


# --------------------------------------------------------------------------- secrets


def test_snapshot_never_contains_request_headers_or_the_api_key(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(text_reply("ok"), stream_text_reply(["o", "k"]))
    base = fake_openai.base_url
    leaked = [{"role": "user", "content": "my key is sk-proj-SECRETabcdef0123456789, keep it"}]

    def run(client: openai.OpenAI) -> str | None:
        client.chat.completions.create(model=MODEL, messages=leaked)
        with client.chat.completions.with_streaming_response.create(
            model=MODEL, messages=MESSAGES, stream=True
        ) as r:
            return "".join(c.choices[0].delta.content or "" for c in r.parse() if c.choices)

    assert record_sync(tmp_path, "secrets", fake_openai, run) == "ok"
    raw = snapshot_path(tmp_path, "secrets").read_bytes()
    for needle in (
        b"SECRET",
        b"sk-test",
        b"sk-proj",
        b"authorization",
        b"Authorization",
        b"Bearer",
        b"bearer",
        b"user-agent",
        b"User-Agent",
        b"x-stainless",
        b"OpenAI/Python",
        b"idempotency",
    ):
        assert needle not in raw, needle
    data = json.loads(raw)
    for step in llm_steps(data):
        assert set(step["exchange"]["request"]) == {"method", "path", "body"}
    # one copy of the messages in the file, scrubbed; the loaded step gets them back from the exchange
    assert llm_steps(data)[0]["exchange"]["request"]["body"]["messages"] == [
        {"role": "user", "content": "my key is <redacted>, keep it"}
    ]
    assert llm_steps(snapshot_data(tmp_path, "secrets"))[0]["messages"] == [
        {"role": "user", "content": "my key is <redacted>, keep it"}
    ]
    # the scrubbed recording still matches the (unscrubbed) request in replay: no drift
    assert replay_sync(tmp_path, "secrets", base, offline, run) == "ok"


# --------------------------------------------------------------------------- drift and misses


def test_replay_with_changed_request_serves_in_order_and_reports_llm_requests(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(text_reply("Sunny in Paris."))
    base = fake_openai.base_url

    def ask(question: str) -> Callable[[openai.OpenAI], str | None]:
        def run(client: openai.OpenAI) -> str | None:
            return (
                client.chat.completions.create(
                    model=MODEL, messages=[{"role": "user", "content": question}]
                )
                .choices[0]
                .message.content
            )

        return run

    record_sync(tmp_path, "changed", fake_openai, ask("Weather in Paris?"))
    served: list[str | None] = []
    with pytest.raises(AgentRegressionError) as info:
        with offline(), AgentAsserter("changed", snapshot_dir=tmp_path, mode="replay"):
            served.append(ask("Weather in Rome?")(sync_client(base)))
    assert served == ["Sunny in Paris."]  # the recording, served in order
    text = str(info.value)
    lines = [line.strip() for line in text.splitlines()]
    assert "[REQUESTS] FAIL — llm_requests: messages differ in 1 llm call" in lines
    assert "messages[0].content: 'Weather in Paris?' → 'Weather in Rome?'" in lines
    assert f"Golden: {snapshot_path(tmp_path, 'changed')}" in lines
    assert info.value.diff_report is not None
    assert info.value.diff_report.failed_checks == ["llm_requests"]


def test_extra_call_beyond_the_recording_raises_replay_miss(
    fake_openai: FakeOpenAI, tmp_path: Path, offline: Offline
) -> None:
    fake_openai.script(text_reply("only once"))
    base = fake_openai.base_url

    def once(client: openai.OpenAI) -> None:
        client.chat.completions.create(model=MODEL, messages=MESSAGES)

    record_sync(tmp_path, "extra", fake_openai, once)
    path = snapshot_path(tmp_path, "extra")
    before = path.read_bytes()
    assert issubclass(ReplayMissError, BaseException) and not issubclass(ReplayMissError, Exception)

    client = sync_client(base, max_retries=2)
    with pytest.raises(ReplayMissError) as info:
        with offline(), AgentAsserter("extra", snapshot_dir=tmp_path, mode="replay"):
            once(client)
            once(client)  # not recorded
    message = str(info.value)
    assert str(path) in message
    assert "LLM call index 1" in message
    assert "POST /v1/chat/completions" in message
    assert "--agentsnap-record" in message
    assert path.read_bytes() == before


def test_asserter_without_snapshot_raises_not_found(tmp_path: Path) -> None:
    from agentsnap import SnapshotNotFoundError

    with pytest.raises(SnapshotNotFoundError) as info:
        with AgentAsserter("never_recorded", snapshot_dir=tmp_path, mode="replay"):
            pass
    assert str(snapshot_path(tmp_path, "never_recorded")) in str(info.value)
    assert "--agentsnap-record" in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_recorder_warns_that_it_recorded(fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    fake_openai.script(text_reply("hi"))
    with pytest.warns(
        AgentsnapWarning, match=r"recorded golden 'warned' -> .*/warned\.json \(approved\)"
    ):
        with AgentRecorder("warned", snapshot_dir=tmp_path):
            sync_client(fake_openai.base_url).chat.completions.create(
                model=MODEL, messages=MESSAGES
            )
    assert snapshot_data(tmp_path, "warned")["approved"] is True
