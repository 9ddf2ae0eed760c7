"""groq SDK call shapes, recorded against a fake server and replayed offline.

groq is a Stainless SDK on legacy ``httpx`` (not httpx2) whose chat API lives
under ``/openai/v1``. Each test runs the real SDK against
:class:`tests.fake_openai_extra.FakeGroq` inside ``AgentRecorder``; then stops
the server and replays inside ``AgentAsserter(mode="replay")`` with
``socket.connect`` refused.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import groq
import groq._base_client as groq_base_client
import httpx
import pytest
from groq.types.chat import ChatCompletion, ChatCompletionChunk

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap.capture.quirks import stainless
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.offline import Offline
from tests._support.roundtrip import arecord_then_replay, record_then_replay
from tests._support.sleeps import AsyncSleepSpy, SleepSpy
from tests.fake_openai_extra import GROQ_MODEL, FakeGroq, groq_reply, groq_stream_reply
from tests.fake_provider import error_reply

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

API_KEY = "gsk_test_SECRET_0123456789"
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
GROQ_USAGE = {"input_tokens": 18, "output_tokens": 7, "total_tokens": 25}


@pytest.fixture
def fake() -> Iterator[FakeGroq]:
    with FakeGroq() as server:
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
    base_url: str,
    offline: Offline,
    run: Callable[[groq.Groq], Any],
    *,
    stop: Callable[[], None],
    max_retries: int = 0,
) -> tuple[Any, Any, float]:
    trip = record_then_replay(
        tmp_path,
        name,
        offline,
        lambda: run(groq.Groq(base_url=base_url, api_key=API_KEY, max_retries=max_retries)),
        stop=stop,
    )
    return trip.live, trip.replayed, trip.elapsed


def record_and_replay_async(
    tmp_path: Path,
    name: str,
    base_url: str,
    offline: Offline,
    run: Callable[[groq.AsyncGroq], Any],
    *,
    stop: Callable[[], None],
    max_retries: int = 0,
) -> tuple[Any, Any, float]:
    trip = arecord_then_replay(
        tmp_path,
        name,
        offline,
        lambda: run(groq.AsyncGroq(base_url=base_url, api_key=API_KEY, max_retries=max_retries)),
        stop=stop,
    )
    return trip.live, trip.replayed, trip.elapsed


def assert_same_completion(replayed: Any, live: Any) -> None:
    assert type(replayed) is type(live)
    assert replayed.model_dump() == live.model_dump()
    assert replayed.model_fields_set == live.model_fields_set


# --------------------------------------------------------------------------- create


def test_create_sync(fake: FakeGroq, tmp_path: Path, offline: Offline) -> None:
    fake.script(groq_reply("Sunny, 21 C."))

    def run(client: groq.Groq) -> ChatCompletion:
        return client.chat.completions.create(model=GROQ_MODEL, messages=MESSAGES)

    live, rep, _ = record_and_replay_sync(
        tmp_path, "groq_create", fake.base_url, offline, run, stop=fake.stop
    )
    assert type(live) is ChatCompletion
    assert_same_completion(rep, live)
    dumped = rep.model_dump()  # (older groq releases keep x_groq as a plain extra dict)
    assert (dumped["x_groq"]["id"], dumped["usage"]["queue_time"]) == ("req_groq_1", 0.0123)
    assert fake.requests[0].path == "/openai/v1/chat/completions"
    assert fake.requests[0].headers["user-agent"].startswith("Groq/Python ")
    (step,) = llm_steps(snapshot_data(tmp_path, "groq_create"))
    assert {
        k: step[k]
        for k in (
            "provider",
            "model",
            "messages",
            "response",
            "tool_requests",
            "tokens",
            "usage",
            "stream",
            "status",
        )
    } == {
        "provider": "groq",
        "model": GROQ_MODEL,
        "messages": MESSAGES,
        "response": "Sunny, 21 C.",
        "tool_requests": [],
        "tokens": 25,
        "usage": GROQ_USAGE,
        "stream": False,
        "status": 200,
    }
    headers = step["exchange"]["response"]["headers"]
    # every response header is kept, so replay serves what live had
    assert sorted(headers) == [
        "content-length",
        "content-type",
        "date",
        "server",
        "x-ratelimit-remaining-requests",
        "x-request-id",
    ]
    assert (headers["x-ratelimit-remaining-requests"], headers["x-request-id"][:4]) == (
        "14399",
        "req_",
    )


def test_create_async_with_tool_calls(fake: FakeGroq, tmp_path: Path, offline: Offline) -> None:
    calls = [
        ("call_g1", "get_weather", {"city": "Paris"}),
        ("call_g2", "get_weather", {"city": "Rome"}),
    ]
    fake.script(groq_reply(None, tool_calls=calls))

    async def run(client: groq.AsyncGroq) -> ChatCompletion:
        return await client.chat.completions.create(
            model=GROQ_MODEL, messages=MESSAGES, tools=[WEATHER_TOOL]
        )

    live, rep, _ = record_and_replay_async(
        tmp_path, "groq_async", fake.base_url, offline, run, stop=fake.stop
    )
    assert_same_completion(rep, live)
    assert fake.requests[0].headers["user-agent"].startswith("AsyncGroq/Python ")
    tool_calls = rep.choices[0].message.tool_calls or []
    assert [(c.id, c.function.name, c.function.arguments) for c in tool_calls] == [
        ("call_g1", "get_weather", '{"city":"Paris"}'),
        ("call_g2", "get_weather", '{"city":"Rome"}'),
    ]
    (step,) = llm_steps(snapshot_data(tmp_path, "groq_async"))
    assert (step["provider"], step["tools"]) == ("groq", ["get_weather"])
    assert step["tool_requests"] == [
        {"id": "call_g1", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "call_g2", "name": "get_weather", "args": {"city": "Rome"}},
    ]


# --------------------------------------------------------------------------- streams


def test_stream_sync_is_a_groq_stream_with_x_groq_usage(
    fake: FakeGroq, tmp_path: Path, offline: Offline
) -> None:
    fake.script(groq_stream_reply(["Sun", "ny, ", "21 C."]))

    def run(client: groq.Groq) -> list[ChatCompletionChunk]:
        stream = client.chat.completions.create(model=GROQ_MODEL, messages=MESSAGES, stream=True)
        assert isinstance(stream, groq.Stream)
        assert stream.response.headers["content-type"].startswith("text/event-stream")
        with stream:
            return list(stream)

    live, rep, _ = record_and_replay_sync(
        tmp_path, "groq_stream", fake.base_url, offline, run, stop=fake.stop
    )
    assert [type(c) for c in rep] == [type(c) for c in live] and len(rep) == 5
    assert [c.model_dump() for c in rep] == [c.model_dump() for c in live]
    assert "".join(c.choices[0].delta.content or "" for c in rep) == "Sunny, 21 C."
    assert (
        rep[-1].x_groq is not None
        and rep[-1].x_groq.usage is not None
        and rep[-1].x_groq.usage.total_tokens == 25
    )
    (step,) = llm_steps(snapshot_data(tmp_path, "groq_stream"))
    assert (step["provider"], step["stream"], step["complete"], step["response"]) == (
        "groq",
        True,
        True,
        "Sunny, 21 C.",
    )
    assert (step["tokens"], step["usage"]) == (25, GROQ_USAGE)


def test_stream_async_with_tool_calls(fake: FakeGroq, tmp_path: Path, offline: Offline) -> None:
    fake.script(groq_stream_reply(tool_calls=[("call_s1", "get_weather", {"city": "Oslo"})]))

    async def run(client: groq.AsyncGroq) -> list[ChatCompletionChunk]:
        stream = await client.chat.completions.create(
            model=GROQ_MODEL, messages=MESSAGES, tools=[WEATHER_TOOL], stream=True
        )
        assert isinstance(stream, groq.AsyncStream)
        return [chunk async for chunk in stream]

    live, rep, _ = record_and_replay_async(
        tmp_path, "groq_stream_async", fake.base_url, offline, run, stop=fake.stop
    )
    assert [c.model_dump() for c in rep] == [c.model_dump() for c in live]
    (step,) = llm_steps(snapshot_data(tmp_path, "groq_stream_async"))
    assert step["tool_requests"] == [
        {"id": "call_s1", "name": "get_weather", "args": {"city": "Oslo"}}
    ]
    assert step["usage"] == GROQ_USAGE


def test_with_raw_response_keeps_the_request_id_header(
    fake: FakeGroq, tmp_path: Path, offline: Offline
) -> None:
    fake.script(groq_reply("raw"))

    def run(client: groq.Groq) -> tuple[str | None, ChatCompletion]:
        raw = client.chat.completions.with_raw_response.create(model=GROQ_MODEL, messages=MESSAGES)
        return raw.headers.get("x-request-id"), raw.parse()

    (live_id, live), (rep_id, rep), _ = record_and_replay_sync(
        tmp_path, "groq_raw", fake.base_url, offline, run, stop=fake.stop
    )
    assert rep_id == live_id and rep_id is not None and rep_id.startswith("req_")
    assert_same_completion(rep, live)


# --------------------------------------------------------------------------- retries


def test_500s_without_retry_headers_then_success_replay_instantly(
    fake: FakeGroq, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.script(
        error_reply(500, retry_after=None),
        error_reply(500, retry_after=None),
        groq_reply("third time lucky"),
    )
    base = fake.base_url

    def run(client: groq.Groq) -> ChatCompletion:
        return client.chat.completions.create(model=GROQ_MODEL, messages=MESSAGES)

    record_spy = SleepSpy(really_sleep=False)
    monkeypatch.setattr(groq_base_client, "time", record_spy)  # recording: skip the real backoff
    with AgentRecorder("groq_retry", snapshot_dir=tmp_path):
        live = run(groq.Groq(base_url=base, api_key=API_KEY, max_retries=2))
    fake.stop()
    assert len(record_spy.calls) == 2 and all(
        0.375 <= s <= 2.0 for s in record_spy.calls
    )  # the SDK's backoff
    assert [s["status"] for s in llm_steps(snapshot_data(tmp_path, "groq_retry"))] == [
        500,
        500,
        200,
    ]

    spy = SleepSpy(really_sleep=True)
    monkeypatch.setattr(groq_base_client, "time", spy)
    with offline(), AgentAsserter("groq_retry", snapshot_dir=tmp_path, mode="replay"):
        started = time.monotonic()
        rep = run(groq.Groq(base_url=base, api_key=API_KEY, max_retries=2))
        elapsed = time.monotonic() - started
    assert elapsed < 1.0
    assert spy.calls == [0.001, 0.001]
    assert_same_completion(rep, live)
    assert rep.choices[0].message.content == "third time lucky"


def test_a_final_429_replays_as_the_same_error_with_the_same_text(
    fake: FakeGroq, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        error_reply(
            429,
            message="Rate limit reached for model llama",
            type="tokens",
            code="rate_limit_exceeded",
        )
    )
    base = fake.base_url

    def run(client: groq.Groq) -> groq.RateLimitError:
        with pytest.raises(groq.RateLimitError) as info:
            client.chat.completions.create(model=GROQ_MODEL, messages=MESSAGES)
        return info.value

    with AgentRecorder("groq_429", snapshot_dir=tmp_path):
        live = run(groq.Groq(base_url=base, api_key=API_KEY, max_retries=0))
    fake.stop()
    with offline(), AgentAsserter("groq_429", snapshot_dir=tmp_path, mode="replay"):
        rep = run(groq.Groq(base_url=base, api_key=API_KEY, max_retries=0))
    assert type(rep) is type(live) and rep.status_code == live.status_code == 429
    # groq quotes the whole parsed error body ("Error code: 429 - {'error': {...}}"): the key
    # order the server sent must survive the snapshot, so the body is stored as its text
    assert str(rep) == str(
        live
    ) and "'message': 'Rate limit reached for model llama', 'type': 'tokens'" in str(live)
    assert rep.body == live.body


def _refused_base_url() -> str:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def test_connection_refused_with_retries_replays_instantly(
    tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _refused_base_url()

    def run(client: groq.Groq) -> groq.APIConnectionError:
        with pytest.raises(groq.APIConnectionError) as info:
            client.chat.completions.create(model=GROQ_MODEL, messages=MESSAGES)
        return info.value

    monkeypatch.setattr(groq_base_client, "time", SleepSpy(really_sleep=False))
    with AgentRecorder("groq_refused", snapshot_dir=tmp_path):
        live = run(groq.Groq(base_url=base, api_key=API_KEY, max_retries=2))
    steps = snapshot_data(tmp_path, "groq_refused")["trace"]
    assert [s["exchange"]["response"]["error"]["type"] for s in steps] == ["ConnectError"] * 3

    spy = SleepSpy(really_sleep=True)
    monkeypatch.setattr(groq_base_client, "time", spy)
    with offline(), AgentAsserter("groq_refused", snapshot_dir=tmp_path, mode="replay"):
        started = time.monotonic()
        rep = run(groq.Groq(base_url=base, api_key=API_KEY, max_retries=2))
        elapsed = time.monotonic() - started
    assert elapsed < 1.0
    assert spy.calls == [stainless.REPLAY_RETRY_WAIT] * 2
    assert type(rep) is type(live) is groq.APIConnectionError
    assert type(rep.__cause__) is type(live.__cause__) is httpx.ConnectError
    assert str(rep.__cause__) == str(live.__cause__)


def test_async_connection_refused_with_retries_replays_instantly(
    tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _refused_base_url()

    async def run(client: groq.AsyncGroq) -> groq.APIConnectionError:
        with pytest.raises(groq.APIConnectionError) as info:
            await client.chat.completions.create(model=GROQ_MODEL, messages=MESSAGES)
        return info.value

    monkeypatch.setattr(groq_base_client, "anyio", AsyncSleepSpy(really_sleep=False, module=anyio))

    def stop() -> None:
        monkeypatch.setattr(groq_base_client, "anyio", spy)

    spy = AsyncSleepSpy(really_sleep=True, module=anyio)
    live, rep, elapsed = record_and_replay_async(
        tmp_path, "groq_refused_async", base, offline, run, stop=stop, max_retries=2
    )
    assert elapsed < 1.0
    assert spy.calls == [stainless.REPLAY_RETRY_WAIT] * 2
    assert type(rep) is type(live) is groq.APIConnectionError
    assert type(rep.__cause__) is type(live.__cause__) is httpx.ConnectError
