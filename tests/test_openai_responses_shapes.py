"""openai Responses API call shapes, recorded against a fake server and replayed offline.

Each test runs the real ``openai`` SDK against :class:`tests.fake_openai_extra.FakeOpenAIResponses`
inside ``AgentRecorder``; then stops the server and runs the same code inside
``AgentAsserter(mode="replay")`` with ``socket.connect`` refused, and checks
that the replayed objects are genuine SDK objects equal to the live ones.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import random
import socket
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import openai
import openai._base_client as openai_base_client
import pydantic
import pytest

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap.capture.cassette import Cassette
from agentsnap.capture.hooks import _guarded, install
from agentsnap.capture.quirks import stainless
from agentsnap.capture.recording import Recording
from agentsnap.spec.provider_specs import load_specs
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.offline import Offline
from tests._support.roundtrip import arecord_then_replay, record_then_replay
from tests._support.sleeps import AsyncSleepSpy, SleepSpy
from tests.fake_openai_extra import (
    RESPONSES_MODEL,
    FakeOpenAIResponses,
    function_call_item,
    message_item,
    openai_http,
    openai_version,
    responses_reply,
    responses_stream_reply,
)
from tests.fake_provider import Reply, error_reply

try:
    from openai.types.responses import ParsedResponse, Response
except ImportError:  # openai < 1.66.0
    ParsedResponse = Response = None  # type: ignore[assignment,misc]

# client.responses.create / .parse / .stream() all appeared in openai 1.66.0
needs_responses = pytest.mark.skipif(
    Response is None, reason="the Responses API (client.responses) appeared in openai 1.66.0"
)
# the HTTP library the installed SDK is built on: httpx2 from openai 3.0, httpx before
SDK_HTTP = openai_http()

pytestmark = [
    pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning"),
    # model_dump() of the stream managers' ParsedResponse objects: the SDK's own
    # serializer noise, identical for live and replayed objects
    pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning"),
]

MODEL = "gpt-4o-mini"
API_KEY = "sk-test-SECRET-responses-0001"
QUESTION = "Weather in Paris?"
WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "Current weather in a city",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    },
    "strict": True,
}
TIME_TOOL = {
    "type": "function",
    "name": "get_time",
    "parameters": {
        "type": "object",
        "properties": {"tz": {"type": "string"}},
        "required": ["tz"],
        "additionalProperties": False,
    },
    "strict": True,
}
CALL_A = function_call_item("call_A", "get_weather", {"city": "Paris"})
CALL_B = function_call_item("call_B", "get_time", {"tz": "Europe/Paris"})


class Weather(pydantic.BaseModel):
    city: str
    celsius: float
    sunny: bool


WEATHER_JSON = '{"city":"Paris","celsius":21.5,"sunny":true}'


@pytest.fixture
def fake() -> Iterator[FakeOpenAIResponses]:
    with FakeOpenAIResponses() as server:
        yield server


def snapshot_data(directory: Path, name: str) -> dict[str, Any]:
    return SnapshotStore.read_file(
        SnapshotStore(directory).path_for(name)
    ).to_dict()  # as loaded: the file stores each call\'s messages once


def llm_steps(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in data["trace"] if s["type"] == "llm_call"]


def record_and_replay_sync(
    tmp_path: Path,
    name: str,
    fake: FakeOpenAIResponses,
    offline: Offline,
    run: Callable[[openai.OpenAI], Any],
) -> tuple[Any, Any]:
    base = fake.base_url
    trip = record_then_replay(
        tmp_path,
        name,
        offline,
        lambda: run(openai.OpenAI(base_url=base, api_key=API_KEY, max_retries=0)),
        stop=fake.stop,
    )
    return trip.live, trip.replayed


def record_and_replay_async(
    tmp_path: Path,
    name: str,
    fake: FakeOpenAIResponses,
    offline: Offline,
    run: Callable[[openai.AsyncOpenAI], Any],
) -> tuple[Any, Any]:
    base = fake.base_url
    trip = arecord_then_replay(
        tmp_path,
        name,
        offline,
        lambda: run(openai.AsyncOpenAI(base_url=base, api_key=API_KEY, max_retries=0)),
        stop=fake.stop,
    )
    return trip.live, trip.replayed


def assert_same_response(replayed: Any, live: Any) -> None:
    assert type(replayed) is type(live)
    assert replayed.model_dump() == live.model_dump()
    assert replayed._request_id == live._request_id
    assert replayed._request_id is not None and replayed._request_id.startswith("req_")


def assert_same_events(replayed: list[Any], live: list[Any]) -> None:
    assert [type(e) for e in replayed] == [type(e) for e in live]
    assert [e.model_dump() for e in replayed] == [e.model_dump() for e in live]


# --------------------------------------------------------------------------- responses.create


@needs_responses
def test_create_sync(fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline) -> None:
    fake.script(responses_reply([message_item("Sunny, 21 C.")], usage=(11, 5)))

    def run(client: openai.OpenAI) -> Response:
        return client.responses.create(
            model=MODEL, input=QUESTION, instructions="Be terse.", tools=[WEATHER_TOOL]
        )

    live, rep = record_and_replay_sync(tmp_path, "resp_create", fake, offline, run)
    assert type(live) is Response and live.output_text == "Sunny, 21 C."
    assert_same_response(rep, live)
    assert rep.output_text == "Sunny, 21 C."
    (step,) = llm_steps(snapshot_data(tmp_path, "resp_create"))
    assert {
        k: step[k]
        for k in (
            "provider",
            "model",
            "messages",
            "tools",
            "response",
            "tool_requests",
            "tokens",
            "usage",
            "stream",
            "status",
        )
    } == {
        "provider": "openai",
        "model": RESPONSES_MODEL,
        "messages": [
            {"role": "system", "content": "Be terse."},
            {"role": "user", "content": QUESTION},
        ],
        "tools": ["get_weather"],
        "response": "Sunny, 21 C.",
        "tool_requests": [],
        "tokens": 16,
        "usage": {
            "input_tokens": 11,
            "output_tokens": 5,
            "total_tokens": 16,
            "cached_tokens": 0,
            "reasoning_tokens": 0,
        },
        "stream": False,
        "status": 200,
    }
    assert step["exchange"]["request"]["path"] == "/v1/responses"


@needs_responses
def test_create_async(fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline) -> None:
    fake.script(responses_reply([CALL_A, CALL_B]))

    async def run(client: openai.AsyncOpenAI) -> Response:
        return await client.responses.create(
            model=MODEL, input=QUESTION, tools=[WEATHER_TOOL, TIME_TOOL]
        )

    live, rep = record_and_replay_async(tmp_path, "resp_create_async", fake, offline, run)
    assert_same_response(rep, live)
    assert [(o.call_id, o.name, o.arguments) for o in rep.output] == [
        ("call_A", "get_weather", '{"city":"Paris"}'),
        ("call_B", "get_time", '{"tz":"Europe/Paris"}'),
    ]
    (step,) = llm_steps(snapshot_data(tmp_path, "resp_create_async"))
    assert step["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "call_B", "name": "get_time", "args": {"tz": "Europe/Paris"}},
    ]


# --------------------------------------------------------------------------- stream=True


@needs_responses
def test_create_stream_sync(fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline) -> None:
    fake.script(responses_stream_reply([message_item("Checking Paris."), CALL_A], piece=3))

    def run(client: openai.OpenAI) -> list[Any]:
        stream = client.responses.create(
            model=MODEL, input=QUESTION, tools=[WEATHER_TOOL], stream=True
        )
        assert isinstance(stream, openai.Stream)
        with stream:
            return list(stream)

    live, rep = record_and_replay_sync(tmp_path, "resp_stream", fake, offline, run)
    assert_same_events(rep, live)
    assert [e.type for e in rep][:3] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
    ]
    assert (
        rep[-1].type == "response.completed" and rep[-1].response.output_text == "Checking Paris."
    )
    (step,) = llm_steps(snapshot_data(tmp_path, "resp_stream"))
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "Checking Paris.")
    assert step["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}}
    ]
    assert step["usage"] == {
        "input_tokens": 12,
        "output_tokens": 6,
        "total_tokens": 18,
        "cached_tokens": 0,
        "reasoning_tokens": 0,
    }


@needs_responses
def test_create_stream_async_parallel_calls_without_final_output(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    """Interleaved argument deltas of two calls, and a ``response.completed`` that omits ``output``."""
    fake.script(
        responses_stream_reply([CALL_A, CALL_B], interleave_calls=True, final_output=False, piece=2)
    )

    async def run(client: openai.AsyncOpenAI) -> list[Any]:
        stream = await client.responses.create(
            model=MODEL, input=QUESTION, tools=[WEATHER_TOOL, TIME_TOOL], stream=True
        )
        assert isinstance(stream, openai.AsyncStream)
        return [event async for event in stream]

    live, rep = record_and_replay_async(tmp_path, "resp_stream_async", fake, offline, run)
    assert_same_events(rep, live)
    deltas = [
        (e.output_index, e.delta) for e in rep if e.type == "response.function_call_arguments.delta"
    ]
    assert deltas[:2] == [(0, '{"'), (1, '{"')]
    (step,) = llm_steps(snapshot_data(tmp_path, "resp_stream_async"))
    assert step["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "call_B", "name": "get_time", "args": {"tz": "Europe/Paris"}},
    ]
    assert step["complete"] is True


@needs_responses
def test_stream_abandoned_early_replays_the_same_prefix(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        responses_stream_reply([message_item("A rather long answer about Paris weather.")], piece=5)
    )

    def run(client: openai.OpenAI) -> list[Any]:
        seen = []
        with client.responses.create(model=MODEL, input=QUESTION, stream=True) as stream:
            for event in stream:
                seen.append(event)
                if event.type == "response.output_text.delta" and len(seen) > 5:
                    break
        return seen

    live, rep = record_and_replay_sync(tmp_path, "resp_stream_cut", fake, offline, run)
    assert_same_events(rep, live)
    assert [e.delta for e in rep if e.type == "response.output_text.delta"] == ["A rat", "her l"]


# --------------------------------------------------------------------------- responses.parse


@needs_responses
def test_parse_with_text_format_sync(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    schema_format = {
        "type": "json_schema",
        "name": "Weather",
        "strict": True,
        "schema": Weather.model_json_schema(),
    }
    fake.script(responses_reply([message_item(WEATHER_JSON)], text_format=schema_format))

    def run(client: openai.OpenAI) -> ParsedResponse[Weather]:
        return client.responses.parse(model=MODEL, input=QUESTION, text_format=Weather)

    live, rep = record_and_replay_sync(tmp_path, "resp_parse", fake, offline, run)
    assert_same_response(rep, live)
    if openai_version() >= (3, 16, 2):
        assert type(rep) is ParsedResponse
    else:  # a parametrised subclass before openai 3.16.2: ParsedResponse[Weather] (to 2.20), ParsedResponse[TextFormatT]
        assert issubclass(type(rep), ParsedResponse)
    assert rep.output_parsed == Weather(city="Paris", celsius=21.5, sunny=True)
    assert type(rep.output_parsed) is Weather
    (step,) = llm_steps(snapshot_data(tmp_path, "resp_parse"))
    assert step["response"] == WEATHER_JSON
    assert step["exchange"]["request"]["body"]["text"]["format"]["name"] == "Weather"


@needs_responses
def test_parse_with_text_format_and_function_tool_async(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    fake.script(responses_reply([CALL_A]))

    async def run(client: openai.AsyncOpenAI) -> ParsedResponse[Weather]:
        return await client.responses.parse(
            model=MODEL, input=QUESTION, text_format=Weather, tools=[WEATHER_TOOL]
        )

    live, rep = record_and_replay_async(tmp_path, "resp_parse_async", fake, offline, run)
    assert_same_response(rep, live)
    assert rep.output[0].parsed_arguments == {"city": "Paris"}
    assert rep.output_parsed is None


# --------------------------------------------------------------------------- responses.stream() manager


@needs_responses
def test_stream_manager_sync_get_final_response(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    fake.script(responses_stream_reply([message_item(WEATHER_JSON)], piece=7))

    def run(client: openai.OpenAI) -> tuple[list[Any], ParsedResponse[Weather]]:
        with client.responses.stream(model=MODEL, input=QUESTION, text_format=Weather) as stream:
            events = list(stream)
            return events, stream.get_final_response()

    (live_events, live_final), (rep_events, rep_final) = record_and_replay_sync(
        tmp_path, "resp_manager", fake, offline, run
    )
    assert_same_events(rep_events, live_events)
    assert [e.snapshot for e in rep_events if e.type == "response.output_text.delta"][
        -1
    ] == WEATHER_JSON
    assert type(rep_final) is type(live_final) and rep_final.model_dump() == live_final.model_dump()
    assert rep_final.output_parsed == Weather(city="Paris", celsius=21.5, sunny=True)
    (step,) = llm_steps(snapshot_data(tmp_path, "resp_manager"))
    assert step["exchange"]["request"]["body"]["stream"] is True


@needs_responses
def test_stream_manager_async_with_tool_calls(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        responses_stream_reply(
            [message_item("Let me check."), CALL_A, CALL_B], interleave_calls=False, piece=4
        )
    )

    async def run(client: openai.AsyncOpenAI) -> tuple[list[Any], Any]:
        async with client.responses.stream(
            model=MODEL, input=QUESTION, tools=[WEATHER_TOOL, TIME_TOOL]
        ) as stream:
            events = [event async for event in stream]
            return events, await stream.get_final_response()

    (live_events, live_final), (rep_events, rep_final) = record_and_replay_async(
        tmp_path, "resp_manager_async", fake, offline, run
    )
    assert_same_events(rep_events, live_events)
    assert rep_final.model_dump() == live_final.model_dump()
    assert [
        (o.call_id, o.parsed_arguments) for o in rep_final.output if o.type == "function_call"
    ] == [
        ("call_A", {"city": "Paris"}),
        ("call_B", {"tz": "Europe/Paris"}),
    ]


# --------------------------------------------------------------------------- raw responses and errors


@needs_responses
def test_with_raw_response_keeps_headers_and_parses(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    fake.script(responses_reply([message_item("raw hello")]))

    def run(client: openai.OpenAI) -> tuple[str | None, Response]:
        raw = client.responses.with_raw_response.create(model=MODEL, input=QUESTION)
        return raw.headers.get("x-request-id"), raw.parse()

    (live_id, live), (rep_id, rep) = record_and_replay_sync(
        tmp_path, "resp_raw", fake, offline, run
    )
    assert rep_id == live_id and rep_id is not None
    assert_same_response(rep, live)


@needs_responses
def test_bad_request_replays_as_the_same_error(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    fake.script(error_reply(400, message="Invalid 'input': too long."))

    def run(client: openai.OpenAI) -> openai.BadRequestError:
        with pytest.raises(openai.BadRequestError) as info:
            client.responses.create(model=MODEL, input=QUESTION)
        return info.value

    live, rep = record_and_replay_sync(tmp_path, "resp_400", fake, offline, run)
    assert type(rep) is type(live)
    assert (rep.status_code, rep.body, rep.request_id) == (
        live.status_code,
        live.body,
        live.request_id,
    )
    (step,) = llm_steps(snapshot_data(tmp_path, "resp_400"))
    assert (step["status"], step["error"]) == (400, "Invalid 'input': too long.")


# --------------------------------------------------------------------------- an agent loop


def weather_agent(client: openai.OpenAI) -> str:
    """Ask, run the requested tool, send its output back, return the final text."""
    items: list[Any] = [{"role": "user", "content": QUESTION}]
    first = client.responses.create(model=MODEL, input=items, tools=[WEATHER_TOOL])
    for item in first.output:
        if item.type == "function_call":
            city = json.loads(item.arguments)["city"]
            items.append(
                {
                    "type": "function_call",
                    "call_id": item.call_id,
                    "name": item.name,
                    "arguments": item.arguments,
                }
            )
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": item.call_id,
                    "output": f"{city}: 21 C, sunny",
                }
            )
    return client.responses.create(model=MODEL, input=items, tools=[WEATHER_TOOL]).output_text


@needs_responses
def test_agent_loop_builds_a_tool_call_step_and_replays(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        responses_reply([CALL_A], id="resp_1"),
        responses_reply([message_item("It is 21 C and sunny in Paris.")], id="resp_2"),
    )
    live, rep = record_and_replay_sync(tmp_path, "resp_agent", fake, offline, weather_agent)
    assert rep == live == "It is 21 C and sunny in Paris."
    trace = snapshot_data(tmp_path, "resp_agent")["trace"]
    assert [s["type"] for s in trace] == ["llm_call", "tool_call", "llm_call"]
    assert {k: trace[1][k] for k in ("name", "args", "result", "id")} == {
        "name": "get_weather",
        "args": {"city": "Paris"},
        "result": "Paris: 21 C, sunny",
        "id": "call_A",
    }
    assert trace[2]["messages"][-1] == {
        "type": "function_call_output",
        "call_id": "call_A",
        "output": "Paris: 21 C, sunny",
    }
    assert trace[2]["response"] == "It is 21 C and sunny in Paris."


# --------------------------------------------------------------------------- Stainless retry waits
#
# openai (like anthropic and groq) sleeps between retries: the server's
# retry-after, else an exponential backoff of 0.5-8 s. Replay serves error
# statuses with retry-after-ms: 1, and agentsnap.capture.quirks.stainless caps
# every replayed wait, which matters for transport errors (no headers at all).


def refused_base_url() -> str:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}/v1"


def timed_replay_sync(
    tmp_path: Path, name: str, base: str, offline: Offline, run: Callable[[openai.OpenAI], Any]
) -> tuple[Any, float]:
    with offline(), AgentAsserter(name, snapshot_dir=tmp_path, mode="replay"):
        started = time.monotonic()
        result = run(openai.OpenAI(base_url=base, api_key=API_KEY, max_retries=2))
        return result, time.monotonic() - started


@needs_responses
def test_responses_500s_without_retry_headers_then_success_replay_instantly(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.script(
        error_reply(500, retry_after=None),
        error_reply(500, retry_after=None),
        responses_reply([message_item("Third time.")]),
    )
    base = fake.base_url

    def run(client: openai.OpenAI) -> Response:
        return client.responses.create(model=MODEL, input=QUESTION)

    record_spy = SleepSpy(really_sleep=False)
    monkeypatch.setattr(openai_base_client, "time", record_spy)  # recording: skip the real backoff
    with AgentRecorder("resp_retry", snapshot_dir=tmp_path):
        live = run(openai.OpenAI(base_url=base, api_key=API_KEY, max_retries=2))
    fake.stop()
    assert len(record_spy.calls) == 2 and all(
        0.375 <= s <= 1.0 for s in record_spy.calls
    )  # the SDK's own backoff
    assert [s["status"] for s in llm_steps(snapshot_data(tmp_path, "resp_retry"))] == [
        500,
        500,
        200,
    ]

    spy = SleepSpy(really_sleep=True)
    monkeypatch.setattr(openai_base_client, "time", spy)
    rep, elapsed = timed_replay_sync(tmp_path, "resp_retry", base, offline, run)
    assert elapsed < 1.0
    assert spy.calls == [0.001, 0.001]
    assert_same_response(rep, live)
    assert rep.output_text == "Third time."


@needs_responses
def test_responses_async_500s_then_success_replay_instantly(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.script(
        error_reply(503, retry_after=None),
        error_reply(500, retry_after=None),
        responses_reply([message_item("Async third.")]),
    )
    base = fake.base_url

    async def run(client: openai.AsyncOpenAI) -> Response:
        return await client.responses.create(model=MODEL, input=QUESTION)

    async def record() -> Response:
        async with AgentRecorder("resp_retry_async", snapshot_dir=tmp_path):
            return await run(openai.AsyncOpenAI(base_url=base, api_key=API_KEY, max_retries=2))

    async def replay() -> tuple[Response, float]:
        async with AgentAsserter("resp_retry_async", snapshot_dir=tmp_path, mode="replay"):
            started = time.monotonic()
            result = await run(openai.AsyncOpenAI(base_url=base, api_key=API_KEY, max_retries=2))
            return result, time.monotonic() - started

    monkeypatch.setattr(
        openai_base_client, "anyio", AsyncSleepSpy(really_sleep=False, module=anyio)
    )
    live = asyncio.run(record())
    fake.stop()
    spy = AsyncSleepSpy(really_sleep=True, module=anyio)
    monkeypatch.setattr(openai_base_client, "anyio", spy)
    with offline():
        rep, elapsed = asyncio.run(replay())
    assert elapsed < 1.0
    assert spy.calls == [0.001, 0.001]
    assert_same_response(rep, live)


def test_chat_connection_refused_with_retries_replays_instantly(
    tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = refused_base_url()

    def run(client: openai.OpenAI) -> openai.APIConnectionError:
        with pytest.raises(openai.APIConnectionError) as info:
            client.chat.completions.create(
                model=MODEL, messages=[{"role": "user", "content": QUESTION}]
            )
        return info.value

    monkeypatch.setattr(openai_base_client, "time", SleepSpy(really_sleep=False))
    with AgentRecorder("chat_refused", snapshot_dir=tmp_path):
        live = run(openai.OpenAI(base_url=base, api_key=API_KEY, max_retries=2))
    trace = snapshot_data(tmp_path, "chat_refused")["trace"]
    assert [s["exchange"]["response"] for s in trace] == [
        {"error": {"type": "ConnectError", "message": "[Errno 111] Connection refused"}}
    ] * 3

    spy = SleepSpy(really_sleep=True)
    monkeypatch.setattr(openai_base_client, "time", spy)
    rep, elapsed = timed_replay_sync(tmp_path, "chat_refused", base, offline, run)
    assert elapsed < 1.0
    assert spy.calls == [stainless.REPLAY_RETRY_WAIT] * 2  # unpatched: 0.375-0.5 s, then 0.75-1 s
    assert type(rep) is type(live) is openai.APIConnectionError
    assert type(rep.__cause__) is type(live.__cause__) is SDK_HTTP.ConnectError
    assert str(rep.__cause__) == str(live.__cause__)


@needs_responses
def test_responses_async_connection_refused_with_retries_replays_instantly(
    tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = refused_base_url()

    async def run(client: openai.AsyncOpenAI) -> openai.APIConnectionError:
        with pytest.raises(openai.APIConnectionError) as info:
            await client.responses.create(model=MODEL, input=QUESTION)
        return info.value

    async def session(mode: str | None) -> tuple[openai.APIConnectionError, float]:
        block = (
            AgentAsserter("resp_refused", snapshot_dir=tmp_path, mode="replay")
            if mode
            else AgentRecorder("resp_refused", snapshot_dir=tmp_path)
        )
        async with block:
            started = time.monotonic()
            result = await run(openai.AsyncOpenAI(base_url=base, api_key=API_KEY, max_retries=2))
            return result, time.monotonic() - started

    monkeypatch.setattr(
        openai_base_client, "anyio", AsyncSleepSpy(really_sleep=False, module=anyio)
    )
    live, _ = asyncio.run(session(None))
    spy = AsyncSleepSpy(really_sleep=True, module=anyio)
    monkeypatch.setattr(openai_base_client, "anyio", spy)
    with offline():
        rep, elapsed = asyncio.run(session("replay"))
    assert elapsed < 1.0
    assert spy.calls == [stainless.REPLAY_RETRY_WAIT] * 2
    assert type(rep) is type(live) is openai.APIConnectionError
    assert type(rep.__cause__) is type(live.__cause__) is SDK_HTTP.ConnectError


@needs_responses
def test_x_should_retry_false_is_kept_so_replay_does_not_retry(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    """The server forbade retrying this 500: live made one attempt, so must replay."""
    no_retry = error_reply(500, retry_after=None, message="Do not retry this.")
    fake.script(Reply(status=500, body=no_retry.body, headers=(("x-should-retry", "false"),)))
    base = fake.base_url

    def run(client: openai.OpenAI) -> openai.InternalServerError:
        with pytest.raises(openai.InternalServerError) as info:
            client.responses.create(model=MODEL, input=QUESTION)
        return info.value

    with AgentRecorder("resp_no_retry", snapshot_dir=tmp_path):
        live = run(openai.OpenAI(base_url=base, api_key=API_KEY, max_retries=2))
    fake.stop()
    (step,) = llm_steps(snapshot_data(tmp_path, "resp_no_retry"))
    assert step["exchange"]["response"]["headers"]["x-should-retry"] == "false"
    rep, _ = timed_replay_sync(tmp_path, "resp_no_retry", base, offline, run)
    assert type(rep) is type(live) and (rep.status_code, rep.body) == (500, live.body)


# --------------------------------------------------------------------------- the quirk patch itself


def _options(module: Any) -> Any:
    return module._models.FinalRequestOptions.construct(method="post", url="/x")


def _waits(client: Any, module: Any, headers: Any = None) -> tuple[float, float]:
    """The first-retry wait, and the next value of the process-wide random stream after it."""
    saved = random.getstate()
    try:
        random.seed(1234)
        wait = client._calculate_retry_timeout(2, _options(module), headers)
        return wait, random.random()
    finally:
        random.setstate(saved)


@pytest.mark.parametrize("sdk", ["openai", "groq"])
def test_waits_are_capped_only_in_replay(sdk: str) -> None:
    module = (
        importlib.import_module(sdk)
        if sdk == "openai"
        else pytest.importorskip(sdk, reason=f"{sdk} is not installed")
    )
    install()  # the spec hooks patch <sdk>._base_client
    client_cls = getattr(module, {"openai": "OpenAI", "groq": "Groq"}[sdk])
    client = client_cls(api_key="test-key", max_retries=2, base_url="http://127.0.0.1:9")
    headers_type = type(client._client.headers)  # httpx.Headers or httpx2.Headers

    outside, after_outside = _waits(client, module)
    assert 0.375 <= outside <= 0.5  # the SDK's first backoff step, with jitter
    with Recording("capture"):
        assert _waits(client, module) == (outside, after_outside)
    with Recording("replay", cassette=Cassette([])):
        capped, after_capped = _waits(client, module)
        server_said, _ = _waits(client, module, headers_type({"retry-after-ms": "250"}))
    assert (capped, server_said) == (stainless.REPLAY_RETRY_WAIT, stainless.REPLAY_RETRY_WAIT)
    assert after_capped == after_outside  # the random stream advanced as in the recording
    assert (
        _waits(client, module, headers_type({"retry-after-ms": "250"}))[0] == 0.25
    )  # unpatched again


def test_patch_takes_whichever_stainless_module_it_is_hooked_on() -> None:
    """Generic over SDKs: it patches ``BaseClient`` of the module it is given."""
    module = types.ModuleType("some_stainless_sdk._base_client")

    class BaseClient:
        def _calculate_retry_timeout(
            self, remaining_retries: int, options: Any, response_headers: Any = None
        ) -> float:
            return 4.0

    module.BaseClient = BaseClient  # type: ignore[attr-defined]
    stainless.patch(module)
    stainless.patch(module)
    assert BaseClient()._calculate_retry_timeout(1, None) == 4.0
    with Recording("replay", cassette=Cassette([])):
        assert BaseClient()._calculate_retry_timeout(1, None) == stainless.REPLAY_RETRY_WAIT
    assert not stainless._is_ours(BaseClient.__dict__["_calculate_retry_timeout"].__wrapped__)


@pytest.mark.parametrize("sdk", ["openai", "groq"])
def test_patch_is_installed_by_the_spec_hooks_and_is_idempotent(sdk: str) -> None:
    if sdk == "openai":
        module = openai_base_client
    else:
        module = pytest.importorskip(f"{sdk}._base_client", reason=f"{sdk} is not installed")

    install()
    attr = module.BaseClient.__dict__["_calculate_retry_timeout"]
    assert getattr(attr, "_self_wrapper", None) is stainless._retry_timeout_wrapper
    stainless.patch(module)
    stainless.patch(module)
    again = module.BaseClient.__dict__["_calculate_retry_timeout"]
    assert again is attr  # no second layer
    assert not stainless._is_ours(attr.__wrapped__)
    hooks = {spec.name: spec.hooks for spec in load_specs()}
    assert (f"{sdk}._base_client", "agentsnap.capture.quirks.stainless:patch") in hooks[sdk]


def test_a_module_without_the_target_warns_and_never_breaks_the_import() -> None:
    hook = _guarded("someprovider", "agentsnap.capture.quirks.stainless:patch")
    with pytest.warns(
        UserWarning,
        match=r"someprovider: quirk patch .*stainless:patch .*'not_stainless'.*no BaseClient\._calculate_retry_timeout",
    ):
        hook(types.ModuleType("not_stainless"))


# --------------------------------------------------------------------------- hosted MCP


HOSTED_MCP = {
    "type": "mcp",
    "server_label": "deepwiki",
    "server_url": "https://mcp.deepwiki.example/mcp",
    "require_approval": "never",
}


@needs_responses
def test_hosted_mcp_tool_is_part_of_the_llm_call(
    fake: FakeOpenAIResponses, tmp_path: Path, offline: Offline
) -> None:
    """The Responses API's hosted ``mcp`` tool: the provider calls the MCP server, so its
    listing and call come back as output items of the one HTTP exchange, recorded and replayed
    as that exchange (no MCP session on the agent's side; docs/mcp.md, Hosted MCP)."""
    listing = {
        "type": "mcp_list_tools",
        "id": "mcpl_1",
        "server_label": "deepwiki",
        "tools": [{"name": "ask_question", "input_schema": {"type": "object"}}],
    }
    call = {
        "type": "mcp_call",
        "id": "mcp_1",
        "server_label": "deepwiki",
        "name": "ask_question",
        "arguments": '{"question": "What is MCP?"}',
        "output": "The Model Context Protocol.",
    }
    fake.script(responses_reply([listing, call, message_item("MCP is a protocol.")]))

    def run(client: openai.OpenAI) -> Response:
        return client.responses.create(model=MODEL, input="What is MCP?", tools=[HOSTED_MCP])

    live, rep = record_and_replay_sync(tmp_path, "resp_hosted_mcp", fake, offline, run)
    assert_same_response(rep, live)
    assert [item.type for item in rep.output] == ["mcp_list_tools", "mcp_call", "message"]
    assert rep.output[1].output == "The Model Context Protocol."
    (step,) = llm_steps(snapshot_data(tmp_path, "resp_hosted_mcp"))
    assert step["response"] == "MCP is a protocol."
    assert step["exchange"]["request"]["body"]["tools"] == [HOSTED_MCP]
    assert not [
        s for s in snapshot_data(tmp_path, "resp_hosted_mcp")["trace"] if s["type"] == "mcp"
    ]
