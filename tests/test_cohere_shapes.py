"""Every cohere call shape (v2 and v1 chat), recorded against a fake Cohere API and replayed offline.

Each test runs the real ``cohere`` SDK against :class:`tests.fake_cohere.FakeCohere`
inside ``AgentRecorder``; then stops the server and runs the same code with the
same client inside ``AgentAsserter(mode="replay")`` with ``socket.connect``
refused, and checks that the replayed objects are genuine SDK objects equal to
the live ones.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cohere
import httpx
import pytest
from cohere.core import http_client as cohere_http

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from tests._support.ci import (
    CI_MARKERS,
    _local_not_ci,  # noqa: F401 - the autouse fixture
)
from tests._support.offline import Offline
from tests.fake_cohere import (
    FakeCohere,
    error_reply,
    v1_chat_reply,
    v1_stream_reply,
    v2_chat_reply,
    v2_stream_reply,
)

pytestmark = [
    pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning"),
    # cohere 7.3's own use of pydantic v1 API (unchecked_base_model.py), not ours
    pytest.mark.filterwarnings(
        "ignore:The `__fields__` attribute is deprecated:DeprecationWarning"
    ),
]

MODEL = "command-a-03-2025"
API_KEY = "co-test-key-0001"
MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather",
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
        "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
    },
}
V1_WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather",
    "parameter_definitions": {"city": {"type": "str", "required": True}},
}
REPO = Path(__file__).resolve().parents[1]
# `max_retries=` on the Client / ClientV2 constructors appeared in cohere 7.0.5;
# before it the retry count is set per call only (`request_options={"max_retries": n}`).
CLIENT_MAX_RETRIES = "max_retries" in inspect.signature(cohere.ClientV2.__init__).parameters


def client_retries(max_retries: int) -> dict[str, Any]:
    """Constructor keywords setting the client's retry count, where the SDK has them."""
    return {"max_retries": max_retries} if CLIENT_MAX_RETRIES else {}


def call_retries(max_retries: int) -> dict[str, Any]:
    """Call keywords setting the retry count, on SDKs whose constructors lack `max_retries` (see above)."""
    return {} if CLIENT_MAX_RETRIES else {"request_options": {"max_retries": max_retries}}


@pytest.fixture
def fake() -> Iterator[FakeCohere]:
    with FakeCohere() as server:
        yield server


class Sleeps:
    """Stands in for ``time`` inside ``cohere.core.http_client``: notes each sleep (and sleeps if ``really``)."""

    def __init__(self, calls: list[float], really: bool = True) -> None:
        self.calls, self.really = calls, really

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)

    def sleep(self, seconds: float) -> None:
        self.calls.append(seconds)
        if self.really:
            time.sleep(seconds)


class AsyncSleeps:
    """Stands in for ``asyncio`` inside ``cohere.core.http_client``."""

    def __init__(self, calls: list[float], really: bool = True) -> None:
        self.calls, self.really = calls, really

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, seconds: float) -> None:
        self.calls.append(seconds)
        if self.really:
            await asyncio.sleep(seconds)


def snapshot_data(directory: Path, name: str) -> dict[str, Any]:
    return SnapshotStore.read_file(
        SnapshotStore(directory).path_for(name)
    ).to_dict()  # as loaded: the file stores each call\'s messages once


def llm_steps(directory: Path, name: str) -> list[dict[str, Any]]:
    return [s for s in snapshot_data(directory, name)["trace"] if s["type"] == "llm_call"]


def record(tmp_path: Path, name: str, fake: FakeCohere, run: Callable[[Any], Any], c: Any) -> Any:
    with AgentRecorder(name, snapshot_dir=tmp_path):
        result = run(c)
    fake.stop()
    return result


def replay(tmp_path: Path, name: str, c: Any, offline: Offline, run: Callable[[Any], Any]) -> Any:
    with offline(), AgentAsserter(name, snapshot_dir=tmp_path, mode="replay"):
        return run(c)


def record_async(
    tmp_path: Path, name: str, fake: FakeCohere, run: Callable[[Any], Any], make: Callable[[], Any]
) -> Any:
    async def main() -> Any:
        async with AgentRecorder(name, snapshot_dir=tmp_path):
            return await run(make())

    result = asyncio.run(main())
    fake.stop()
    return result


def replay_async(
    tmp_path: Path, name: str, make: Callable[[], Any], offline: Offline, run: Callable[[Any], Any]
) -> Any:
    async def main() -> Any:
        async with AgentAsserter(name, snapshot_dir=tmp_path, mode="replay"):
            return await run(make())

    with offline():
        return asyncio.run(main())


def v2(fake: FakeCohere, max_retries: int = 0) -> cohere.ClientV2:
    return cohere.ClientV2(api_key=API_KEY, base_url=fake.base_url, **client_retries(max_retries))


def v1(fake: FakeCohere, max_retries: int = 0) -> cohere.Client:
    return cohere.Client(api_key=API_KEY, base_url=fake.base_url, **client_retries(max_retries))


def assert_same_model(replayed: Any, live: Any, cls: type) -> None:
    assert type(replayed) is type(live) is cls
    assert replayed.model_dump() == live.model_dump()
    assert replayed.model_fields_set == live.model_fields_set


def dumps(events: list[Any]) -> list[tuple[type, dict[str, Any]]]:
    return [(type(e), e.model_dump()) for e in events]


# --------------------------------------------------------------------------- v2 chat


@pytest.mark.parametrize("entry", ["ClientV2", "Client.v2"])
def test_v2_chat_sync(fake: FakeCohere, tmp_path: Path, offline: Offline, entry: str) -> None:
    fake.script(v2_chat_reply("Sunny, 21 C.", usage=(12, 4)))
    c = v2(fake) if entry == "ClientV2" else v1(fake).v2

    def run(c: Any) -> Any:
        return c.chat(model=MODEL, messages=MESSAGES, temperature=0.3)

    live = record(tmp_path, "v2_chat", fake, run, c)
    replayed = replay(tmp_path, "v2_chat", c, offline, run)
    assert_same_model(replayed, live, cohere.V2ChatResponse)
    assert replayed.message.content[0].text == "Sunny, 21 C."

    (step,) = llm_steps(tmp_path, "v2_chat")
    assert (step["provider"], step["model"], step["response"], step["stream"], step["status"]) == (
        "cohere",
        MODEL,
        "Sunny, 21 C.",
        False,
        200,
    )
    assert step["messages"] == MESSAGES
    assert step["usage"] == {"input_tokens": 212, "output_tokens": 4, "total_tokens": 216}
    assert step["exchange"]["request"]["path"] == "/v2/chat"
    assert len(step["exchange"]["response"]["headers"]["x-debug-trace-id"]) == 32
    assert API_KEY not in SnapshotStore(tmp_path).path_for("v2_chat").read_text(encoding="utf-8")


def test_v2_chat_stream_sync(fake: FakeCohere, tmp_path: Path, offline: Offline) -> None:
    fake.script(v2_stream_reply(["Sun", "ny in ", "Paris."], usage=(9, 3)))
    c = v2(fake)

    def run(c: Any) -> list[Any]:
        stream = c.chat_stream(model=MODEL, messages=MESSAGES)
        return list(stream)  # the request is sent at the first next()

    live = record(tmp_path, "v2_stream", fake, run, c)
    replayed = replay(tmp_path, "v2_stream", c, offline, run)
    assert dumps(replayed) == dumps(live)
    assert [e.type for e in replayed] == [
        "message-start",
        "content-start",
        "content-delta",
        "content-delta",
        "content-delta",
        "content-end",
        "message-end",
    ]
    assert (
        "".join(e.delta.message.content.text for e in replayed if e.type == "content-delta")
        == "Sunny in Paris."
    )

    (step,) = llm_steps(tmp_path, "v2_stream")
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "Sunny in Paris.")
    assert step["usage"] == {"input_tokens": 209, "output_tokens": 3, "total_tokens": 212}
    assert step["exchange"]["request"]["body"]["stream"] is True


def test_v2_stream_tool_calls_with_plan(fake: FakeCohere, tmp_path: Path, offline: Offline) -> None:
    calls = [
        ("get_weather_a1b2", "get_weather", {"city": "Paris"}),
        ("get_time_c3d4", "get_time", {"tz": "Europe/Paris"}),
    ]
    fake.script(v2_stream_reply(tool_plan=["I will look ", "both up."], tool_calls=calls))
    c = v2(fake)

    def run(c: Any) -> list[Any]:
        return list(c.chat_stream(model=MODEL, messages=MESSAGES, tools=[WEATHER_TOOL, TIME_TOOL]))

    live = record(tmp_path, "v2_stream_tools", fake, run, c)
    replayed = replay(tmp_path, "v2_stream_tools", c, offline, run)
    assert dumps(replayed) == dumps(live)
    fragments = [
        (e.index, e.delta.message.tool_calls.function.arguments)
        for e in replayed
        if e.type == "tool-call-delta"
    ]
    assert fragments[:2] == [(0, '{"city":'), (0, ' "Paris"}')]

    (step,) = llm_steps(tmp_path, "v2_stream_tools")
    assert step["tools"] == ["get_weather", "get_time"]
    assert step["tool_requests"] == [
        {"id": "get_weather_a1b2", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "get_time_c3d4", "name": "get_time", "args": {"tz": "Europe/Paris"}},
    ]
    assert (step["response"], step["complete"]) == ("", True)


def test_v2_stream_cut_before_message_end_is_incomplete(
    fake: FakeCohere, tmp_path: Path, offline: Offline
) -> None:
    fake.script(v2_stream_reply(["partial"], end=False))
    c = v2(fake)

    def run(c: Any) -> list[Any]:
        return list(c.chat_stream(model=MODEL, messages=MESSAGES))

    live = record(tmp_path, "v2_cut", fake, run, c)
    assert dumps(replay(tmp_path, "v2_cut", c, offline, run)) == dumps(live)
    (step,) = llm_steps(tmp_path, "v2_cut")
    assert (step["response"], step["complete"]) == ("partial", False)


def test_v2_tool_round_trip_derives_tool_call_steps(
    fake: FakeCohere, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        v2_chat_reply(
            tool_calls=[("get_weather_a1b2", "get_weather", {"city": "Paris"})],
            tool_plan="I will check the weather.",
        ),
        v2_chat_reply("It is sunny in Paris."),
    )
    c = v2(fake)

    def agent(c: Any) -> str:
        messages: list[Any] = list(MESSAGES)
        first = c.chat(model=MODEL, messages=messages, tools=[WEATHER_TOOL])
        call = first.message.tool_calls[0]
        messages.append(
            {
                "role": "assistant",
                "tool_plan": first.message.tool_plan,
                "tool_calls": first.message.tool_calls,
            }
        )
        city = json.loads(call.function.arguments)["city"]
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call.id,
                "content": [{"type": "document", "document": {"data": f"sunny in {city}"}}],
            }
        )
        return c.chat(model=MODEL, messages=messages, tools=[WEATHER_TOOL]).message.content[0].text

    assert record(tmp_path, "v2_round_trip", fake, agent, c) == "It is sunny in Paris."
    data = snapshot_data(tmp_path, "v2_round_trip")
    assert [s["type"] for s in data["trace"]] == ["llm_call", "tool_call", "llm_call"]
    tool = data["trace"][1]
    assert {k: tool[k] for k in ("name", "args", "result", "id")} == {
        "name": "get_weather",
        "args": {"city": "Paris"},
        "result": [{"type": "document", "document": {"data": "sunny in Paris"}}],
        "id": "get_weather_a1b2",
    }
    assert replay(tmp_path, "v2_round_trip", c, offline, agent) == "It is sunny in Paris."


def test_v2_chat_async(fake: FakeCohere, tmp_path: Path, offline: Offline) -> None:
    fake.script(v2_chat_reply("Async sunny."))
    base = fake.base_url

    def make() -> cohere.AsyncClientV2:
        return cohere.AsyncClientV2(api_key=API_KEY, base_url=base, **client_retries(0))

    async def run(c: Any) -> Any:
        return await c.chat(model=MODEL, messages=MESSAGES)

    live = record_async(tmp_path, "v2_async", fake, run, make)
    replayed = replay_async(tmp_path, "v2_async", make, offline, run)
    assert_same_model(replayed, live, cohere.V2ChatResponse)


def test_v2_chat_stream_async_generator(fake: FakeCohere, tmp_path: Path, offline: Offline) -> None:
    fake.script(v2_stream_reply(["Rain", "y."]))
    base = fake.base_url

    def make() -> cohere.AsyncClientV2:
        return cohere.AsyncClientV2(api_key=API_KEY, base_url=base, **client_retries(0))

    async def run(c: Any) -> list[Any]:
        return [event async for event in c.chat_stream(model=MODEL, messages=MESSAGES)]

    live = record_async(tmp_path, "v2_astream", fake, run, make)
    replayed = replay_async(tmp_path, "v2_astream", make, offline, run)
    assert dumps(replayed) == dumps(live) and len(replayed) == 6
    (step,) = llm_steps(tmp_path, "v2_astream")
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "Rainy.")


# --------------------------------------------------------------------------- v1 chat


def test_v1_chat_sync_with_tool_round_trip(
    fake: FakeCohere, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        v1_chat_reply(tool_calls=[("get_weather", {"city": "Paris"})], message="Weather in Paris?"),
        v1_chat_reply("It is sunny in Paris.", message="Weather in Paris?"),
    )
    c = v1(fake)

    def agent(c: Any) -> Any:
        first = c.chat(model=MODEL, message="Weather in Paris?", tools=[V1_WEATHER_TOOL])
        call = first.tool_calls[0]
        results = [{"call": call, "outputs": [{"weather": f"sunny in {call.parameters['city']}"}]}]
        return first, c.chat(
            model=MODEL,
            message="",
            tools=[V1_WEATHER_TOOL],
            tool_results=results,
            chat_history=first.chat_history,
        )

    live_first, live = record(tmp_path, "v1_round_trip", fake, agent, c)
    rep_first, replayed = replay(tmp_path, "v1_round_trip", c, offline, agent)
    assert_same_model(rep_first, live_first, cohere.NonStreamedChatResponse)
    assert_same_model(replayed, live, cohere.NonStreamedChatResponse)
    assert replayed.text == "It is sunny in Paris."

    data = snapshot_data(tmp_path, "v1_round_trip")
    assert [s["type"] for s in data["trace"]] == ["llm_call", "tool_call", "llm_call"]
    first, tool, second = data["trace"]
    assert first["tool_requests"] == [
        {"id": 'get_weather({"city":"Paris"})', "name": "get_weather", "args": {"city": "Paris"}}
    ]
    assert first["messages"] == [{"role": "USER", "message": "Weather in Paris?"}]
    assert first["tools"] == ["get_weather"]
    assert {k: tool[k] for k in ("name", "args", "result")} == {
        "name": "get_weather",
        "args": {"city": "Paris"},
        "result": [{"weather": "sunny in Paris"}],
    }
    assert second["messages"][0] == {"role": "USER", "message": "Weather in Paris?"}
    assert second["messages"][-1]["role"] == "TOOL"
    assert second["response"] == "It is sunny in Paris."
    assert second["usage"] == {"input_tokens": 210, "output_tokens": 5, "total_tokens": 215}


def test_v1_chat_stream_sync_with_tool_call_chunks(
    fake: FakeCohere, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        v1_stream_reply(
            ["Let me ", "check."], tool_calls=[("get_weather", {"city": "Paris", "unit": "C"})]
        )
    )
    c = v1(fake)

    def run(c: Any) -> list[Any]:
        return list(
            c.chat_stream(model=MODEL, message="Weather in Paris?", tools=[V1_WEATHER_TOOL])
        )

    live = record(tmp_path, "v1_stream", fake, run, c)
    replayed = replay(tmp_path, "v1_stream", c, offline, run)
    assert dumps(replayed) == dumps(live)
    assert [e.event_type for e in replayed][:3] == [
        "stream-start",
        "text-generation",
        "text-generation",
    ]
    assert replayed[-1].event_type == "stream-end" and replayed[-1].response.tool_calls[
        0
    ].parameters == {"city": "Paris", "unit": "C"}

    (step,) = llm_steps(tmp_path, "v1_stream")
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "Let me check.")
    assert step["tool_requests"] == [
        {
            "id": 'get_weather({"city":"Paris","unit":"C"})',
            "name": "get_weather",
            "args": {"city": "Paris", "unit": "C"},
        }
    ]
    assert step["usage"] == {"input_tokens": 210, "output_tokens": 5, "total_tokens": 215}


def test_v1_chat_and_stream_async(fake: FakeCohere, tmp_path: Path, offline: Offline) -> None:
    fake.script(v1_chat_reply("Async v1."), v1_stream_reply(["Async ", "stream."]))
    base = fake.base_url

    def make() -> cohere.AsyncClient:
        return cohere.AsyncClient(api_key=API_KEY, base_url=base, **client_retries(0))

    async def run(c: Any) -> tuple[Any, list[Any]]:
        answer = await c.chat(model=MODEL, message="Hi")
        events = [event async for event in c.chat_stream(model=MODEL, message="Hi again")]
        return answer, events

    live_answer, live_events = record_async(tmp_path, "v1_async", fake, run, make)
    rep_answer, rep_events = replay_async(tmp_path, "v1_async", make, offline, run)
    assert_same_model(rep_answer, live_answer, cohere.NonStreamedChatResponse)
    assert dumps(rep_events) == dumps(live_events) and len(rep_events) == 4
    steps = llm_steps(tmp_path, "v1_async")
    assert [(s["stream"], s["response"]) for s in steps] == [
        (False, "Async v1."),
        (True, "Async stream."),
    ]


# --------------------------------------------------------------------------- errors and retries


@pytest.mark.parametrize(
    ("status", "exc_type"), [(429, cohere.TooManyRequestsError), (500, cohere.InternalServerError)]
)
def test_error_status_replays_the_same_sdk_exception(
    fake: FakeCohere, tmp_path: Path, offline: Offline, status: int, exc_type: type
) -> None:
    fake.script(error_reply(status))
    c = v2(fake)

    def run(c: Any) -> Any:
        with pytest.raises(exc_type) as info:
            c.chat(model=MODEL, messages=MESSAGES, **call_retries(0))
        return info.value

    live = record(tmp_path, f"error_{status}", fake, run, c)
    replayed = replay(tmp_path, f"error_{status}", c, offline, run)
    assert type(replayed) is type(live) is exc_type
    assert replayed.status_code == live.status_code == status
    assert (
        replayed.body == live.body
        and replayed.body["message"] == error_reply(status).body["message"]
    )
    assert replayed.headers["x-debug-trace-id"] == live.headers["x-debug-trace-id"]
    (step,) = llm_steps(tmp_path, f"error_{status}")
    assert (step["status"], step["error"]) == (status, error_reply(status).body["message"])


def test_error_on_a_stream_request_replays_the_same_sdk_exception(
    fake: FakeCohere, tmp_path: Path, offline: Offline
) -> None:
    fake.script(error_reply(429))
    c = v2(fake)

    def run(c: Any) -> Any:
        with pytest.raises(cohere.TooManyRequestsError) as info:
            list(c.chat_stream(model=MODEL, messages=MESSAGES, **call_retries(0)))
        return info.value

    live = record(tmp_path, "stream_429", fake, run, c)
    replayed = replay(tmp_path, "stream_429", c, offline, run)
    assert type(replayed) is cohere.TooManyRequestsError and (
        replayed.status_code,
        replayed.body,
    ) == (429, live.body)
    (step,) = llm_steps(tmp_path, "stream_429")
    assert (step["status"], step["stream"], step["complete"]) == (429, True, False)
    assert step["error"] == live.body["message"]


def test_429_retries_then_200_replay_without_waiting(
    fake: FakeCohere, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.script(error_reply(429), error_reply(503), v2_chat_reply("after two retries"))
    c = v2(fake, max_retries=2)

    def run(c: Any) -> Any:
        return c.chat(model=MODEL, messages=MESSAGES, **call_retries(2))

    waits: list[float] = []
    with monkeypatch.context() as m:  # recording: the SDK's own backoff (noted, not slept)
        m.setattr(cohere_http, "time", Sleeps(waits, really=False))
        live = record(tmp_path, "retry_ok", fake, run, c)
    assert [s["status"] for s in llm_steps(tmp_path, "retry_ok")] == [429, 503, 200]
    assert len(waits) == 2 and 0.9 <= waits[0] <= 1.1 and 1.8 <= waits[1] <= 2.2

    slept: list[float] = []
    with monkeypatch.context() as m:
        m.setattr(cohere_http, "time", Sleeps(slept))
        replayed = replay(tmp_path, "retry_ok", c, offline, run)
    assert slept == [0.0, 0.0]
    assert_same_model(replayed, live, cohere.V2ChatResponse)


def test_connection_errors_with_retries_replay_without_backoff(
    tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    c = cohere.ClientV2(api_key=API_KEY, base_url=f"http://127.0.0.1:{port}", **client_retries(2))

    def run(c: Any) -> httpx.ConnectError:
        with pytest.raises(httpx.ConnectError) as info:
            c.chat(model=MODEL, messages=MESSAGES, **call_retries(2))
        return info.value

    waits: list[float] = []
    with monkeypatch.context() as m:  # recording: note the backoff instead of sleeping it
        m.setattr(cohere_http, "time", Sleeps(waits, really=False))
        with AgentRecorder("refused", snapshot_dir=tmp_path):
            live = run(c)
    assert len(waits) == 2 and waits[0] >= 0.9 and waits[1] >= 1.8  # ~1 s, ~2 s (+-10 % jitter)
    trace = snapshot_data(tmp_path, "refused")["trace"]
    assert [s["exchange"]["response"] for s in trace] == [
        {"error": {"type": "ConnectError", "message": str(live)}}
    ] * 3

    slept: list[float] = []
    with monkeypatch.context() as m:  # replay: really sleep, but note how long
        m.setattr(cohere_http, "time", Sleeps(slept))
        replayed = replay(tmp_path, "refused", c, offline, run)
    assert slept == [0.0, 0.0]
    assert type(replayed) is httpx.ConnectError and str(replayed) == str(live)


async def _async_refused(c: Any) -> httpx.ConnectError:
    with pytest.raises(httpx.ConnectError) as info:
        await c.chat(model=MODEL, messages=MESSAGES, **call_retries(1))
    return info.value


def test_async_connection_error_retry_replays_without_backoff(
    tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    def make() -> cohere.AsyncClientV2:
        return cohere.AsyncClientV2(
            api_key=API_KEY, base_url=f"http://127.0.0.1:{port}", **client_retries(1)
        )

    async def main() -> httpx.ConnectError:
        async with AgentRecorder("arefused", snapshot_dir=tmp_path):
            return await _async_refused(make())

    with monkeypatch.context() as m:
        m.setattr(cohere_http, "asyncio", AsyncSleeps([], really=False))
        live = asyncio.run(main())
    assert len(snapshot_data(tmp_path, "arefused")["trace"]) == 2

    slept: list[float] = []
    with monkeypatch.context() as m:
        m.setattr(cohere_http, "asyncio", AsyncSleeps(slept))
        replayed = replay_async(tmp_path, "arefused", make, offline, _async_refused)
    assert slept == [0.0]  # unpatched: ~1 s of backoff
    assert type(replayed) is httpx.ConnectError and str(replayed) == str(live)


# --------------------------------------------------------------------------- a client built before agentsnap


_EARLY_CLIENT = """
import inspect, json, socket, sys
import cohere
# `max_retries=` on the constructor appeared in cohere 7.0.5
retries = {"max_retries": 0} if "max_retries" in inspect.signature(cohere.ClientV2.__init__).parameters else {}
client = cohere.ClientV2(api_key="co-test-key-0001", base_url=sys.argv[1], **retries)
assert not any(m == "agentsnap" or m.startswith("agentsnap.") for m in sys.modules), "agentsnap imported too early"

from agentsnap import AgentAsserter, AgentRecorder
from agentsnap.capture.hooks import is_installed
assert not is_installed()

def run():
    first = client.chat(model="command-a-03-2025", messages=[{"role": "user", "content": "Weather in Paris?"}])
    events = list(client.chat_stream(model="command-a-03-2025", messages=[{"role": "user", "content": "And in Rome?"}]))
    return first.model_dump(), [e.model_dump() for e in events]

with AgentRecorder("early_client", snapshot_dir=sys.argv[2]):
    live = run()

def refuse(sock, address, *args):
    raise ConnectionRefusedError(f"replay tried to connect to {address!r}")

socket.socket.connect = refuse
socket.socket.connect_ex = refuse
with AgentAsserter("early_client", snapshot_dir=sys.argv[2], mode="replay"):
    replayed = run()
print(json.dumps({"live": live, "replayed": replayed}))
"""


def test_client_built_before_agentsnap_is_installed_is_captured_and_replayed(
    fake: FakeCohere, tmp_path: Path
) -> None:
    fake.script(v2_chat_reply("Sunny."), v2_stream_reply(["Cloudy", "."]))
    env = {k: v for k, v in os.environ.items() if k not in CI_MARKERS}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), str(REPO)])
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_EARLY_CLIENT), fake.base_url, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["replayed"] == out["live"]
    assert out["live"][0]["message"]["content"][0]["text"] == "Sunny."
    assert len(fake.requests) == 2  # the replay never reached the server
    steps = llm_steps(tmp_path, "early_client")
    assert [(s["stream"], s["response"]) for s in steps] == [(False, "Sunny."), (True, "Cloudy.")]


def test_quirk_patch_is_installed_once_and_idempotent() -> None:
    import types

    import wrapt

    from agentsnap.capture.hooks import install
    from agentsnap.capture.quirks import fern as quirk

    install()  # what the first recording does; the SDK modules are imported already

    before = (cohere_http._retry_timeout, cohere_http._retry_timeout_from_retries)
    assert all(isinstance(f, wrapt.FunctionWrapper) for f in before)  # installed by the import hook
    quirk.patch_http_client(cohere_http)
    assert (cohere_http._retry_timeout, cohere_http._retry_timeout_from_retries) == before
    assert not isinstance(cohere_http._retry_timeout.__wrapped__, wrapt.FunctionWrapper)
    # outside a recording the wrapped function is the original
    assert cohere_http._retry_timeout_from_retries(retries=0) >= 0.9

    with pytest.raises(AttributeError, match="_retry_timeout"):
        quirk.patch_http_client(types.SimpleNamespace())
