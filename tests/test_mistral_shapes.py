"""Every mistralai call shape, recorded against a fake Mistral API and replayed offline.

Each test runs the real ``mistralai`` SDK (``mistralai.client.Mistral``; on 1.x,
``mistralai.Mistral``, the same SDK in the older package layout) against
:class:`tests.fake_mistral.FakeMistral` inside ``AgentRecorder``; then stops the
server and runs the same code inside ``AgentAsserter(mode="replay")`` with
``socket.connect`` refused, and checks that the replayed objects are genuine
SDK objects equal to the live ones.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import random
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture

try:  # the current layout (mistralai >= 2.0)
    from mistralai.client import Mistral, errors, httpclient, models
    from mistralai.client.utils import eventstreaming, retries

    SDK_PACKAGE = "mistralai.client"
except ImportError:  # the 1.x layout: the same Speakeasy SDK one package up, its errors in `models`
    from mistralai import Mistral, httpclient, models
    from mistralai import models as errors
    from mistralai.utils import eventstreaming, retries

    SDK_PACKAGE = "mistralai"

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from tests._support.offline import Offline
from tests.fake_mistral import (
    FakeMistral,
    chat_reply,
    error_reply,
    stream_reply,
    stream_text_reply,
    stream_tool_calls_reply,
    text_reply,
    tool_calls_reply,
)

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

# The HTTP library the installed SDK sends through: httpx2 (imported as `httpx`)
# since 3.0, httpx before. Transport errors surface as that library's classes.
SDK_HTTPX = httpclient.httpx

MODEL = "mistral-small-latest"
API_KEY = "mistral-test-key-0001"
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
# `BackoffStrategy(jitter_ms=...)` appeared in mistralai 2.10.0; before it every
# backoff sleep adds random.uniform(0, 1) s of jitter, which SleepSpy then pins to 0.
HAS_JITTER_MS = "jitter_ms" in inspect.signature(retries.BackoffStrategy.__init__).parameters


def backoff(
    initial_ms: int,
    max_ms: int,
    exponent: float,
    max_elapsed_ms: int,
    *,
    jitter_ms: int | None = None,
) -> Any:
    """A ``BackoffStrategy``; ``jitter_ms`` is passed where the SDK has it (see ``HAS_JITTER_MS``)."""
    extra = {"jitter_ms": jitter_ms} if jitter_ms is not None and HAS_JITTER_MS else {}
    return retries.BackoffStrategy(initial_ms, max_ms, exponent, max_elapsed_ms, **extra)


# a fast backoff for recording, and a slow one that replay must not honour
FAST = retries.RetryConfig(
    "backoff", backoff(1, 1, 1.0, 60_000, jitter_ms=0), retry_connection_errors=True
)
SLOW = retries.RetryConfig(
    "backoff", backoff(2_000, 5_000, 2.0, 600_000), retry_connection_errors=True
)


@pytest.fixture
def fake() -> Iterator[FakeMistral]:
    with FakeMistral() as server:
        yield server


class SleepSpy:
    """Stands in for ``time`` and ``asyncio`` inside the SDK's retry module: notes each sleep, then sleeps."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[float] = []
        spy = self

        class Time:
            def __getattr__(self, name: str) -> Any:
                return getattr(time, name)

            def sleep(self, seconds: float) -> None:
                spy.calls.append(seconds)
                time.sleep(seconds)

        class Asyncio:
            def __getattr__(self, name: str) -> Any:
                return getattr(asyncio, name)

            async def sleep(self, seconds: float) -> None:
                spy.calls.append(seconds)
                await asyncio.sleep(seconds)

        monkeypatch.setattr(retries, "time", Time())
        monkeypatch.setattr(retries, "asyncio", Asyncio())
        if (
            not HAS_JITTER_MS
        ):  # the SDK's fixed 0-1 s jitter: pinned to 0, as `jitter_ms=0` does on >= 2.10

            class Random:
                def __getattr__(self, name: str) -> Any:
                    return getattr(random, name)

                def uniform(self, a: float, b: float) -> float:
                    return a

            monkeypatch.setattr(retries, "random", Random())


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> SleepSpy:
    return SleepSpy(monkeypatch)


def client(base_url: str, **kwargs: Any) -> Mistral:
    return Mistral(api_key=API_KEY, server_url=base_url, **kwargs)


def snapshot_data(directory: Path, name: str) -> dict[str, Any]:
    return SnapshotStore.read_file(
        SnapshotStore(directory).path_for(name)
    ).to_dict()  # as loaded: the file stores each call\'s messages once


def llm_steps(directory: Path, name: str) -> list[dict[str, Any]]:
    return [s for s in snapshot_data(directory, name)["trace"] if s["type"] == "llm_call"]


def record(
    tmp_path: Path,
    name: str,
    fake: FakeMistral,
    run: Callable[[Mistral], Any],
    c: Mistral | None = None,
) -> Any:
    """Run ``run`` against the fake inside ``AgentRecorder``, then stop the fake."""
    with AgentRecorder(name, snapshot_dir=tmp_path):
        result = run(c if c is not None else client(fake.base_url))
    fake.stop()
    return result


def replay(
    tmp_path: Path, name: str, c: Mistral, offline: Offline, run: Callable[[Mistral], Any]
) -> Any:
    """Run ``run`` again inside ``AgentAsserter(mode="replay")`` with sockets refused.

    ``c`` is the client the recording used (its server is gone): building a
    Mistral client costs ~0.3 s, and a client built before the recording is
    what a module-level client in user code is.
    """
    with offline(), AgentAsserter(name, snapshot_dir=tmp_path, mode="replay"):
        return run(c)


def record_async(
    tmp_path: Path, name: str, fake: FakeMistral, run: Callable[[Mistral], Any], c: Mistral
) -> Any:
    async def main() -> Any:
        async with AgentRecorder(name, snapshot_dir=tmp_path):
            return await run(c)

    result = asyncio.run(main())
    fake.stop()
    return result


def replay_async(
    tmp_path: Path, name: str, c: Mistral, offline: Offline, run: Callable[[Mistral], Any]
) -> Any:
    async def main() -> Any:
        async with AgentAsserter(name, snapshot_dir=tmp_path, mode="replay"):
            return await run(c)

    with offline():
        return asyncio.run(main())


def assert_same_response(replayed: Any, live: Any) -> None:
    assert type(replayed) is type(live) is models.ChatCompletionResponse
    assert replayed.model_dump() == live.model_dump()
    assert replayed.model_fields_set == live.model_fields_set
    assert replayed == live


def dumps(events: list[Any]) -> list[dict[str, Any]]:
    return [e.model_dump() for e in events]


# --------------------------------------------------------------------------- complete


def test_complete_sync(fake: FakeMistral, tmp_path: Path, offline: Offline) -> None:
    fake.script(text_reply("Sunny, 21 C.", usage=(12, 4)))
    c = client(fake.base_url)

    def run(c: Mistral) -> Any:
        return c.chat.complete(model=MODEL, messages=MESSAGES, temperature=0.2)

    live = record(tmp_path, "complete_sync", fake, run, c)
    replayed = replay(tmp_path, "complete_sync", c, offline, run)

    assert_same_response(replayed, live)
    assert replayed.choices[0].message.content == "Sunny, 21 C."
    (step,) = llm_steps(tmp_path, "complete_sync")
    assert step["provider"] == "mistral"
    assert (step["model"], step["response"], step["stream"], step["status"]) == (
        MODEL,
        "Sunny, 21 C.",
        False,
        200,
    )
    assert step["messages"] == MESSAGES
    assert step["usage"] == {"input_tokens": 12, "output_tokens": 4, "total_tokens": 16}
    assert step["exchange"]["request"]["path"] == "/v1/chat/completions"
    headers = step["exchange"]["response"]["headers"]
    assert headers["mistral-correlation-id"].startswith("corr-") and headers[
        "x-kong-request-id"
    ].startswith("kong-")
    assert API_KEY not in SnapshotStore(tmp_path).path_for("complete_sync").read_text(
        encoding="utf-8"
    )


def test_complete_async(fake: FakeMistral, tmp_path: Path, offline: Offline) -> None:
    fake.script(text_reply("Async sunny."))
    c = client(fake.base_url)

    async def run(c: Mistral) -> Any:
        return await c.chat.complete_async(model=MODEL, messages=MESSAGES)

    live = record_async(tmp_path, "complete_async", fake, run, c)
    replayed = replay_async(tmp_path, "complete_async", c, offline, run)
    assert_same_response(replayed, live)
    assert replayed.choices[0].message.content == "Async sunny."


def test_agents_complete_sync(fake: FakeMistral, tmp_path: Path, offline: Offline) -> None:
    fake.script(text_reply("From the agent."))
    c = client(fake.base_url)

    def run(c: Mistral) -> Any:
        return c.agents.complete(agent_id="ag_0123", messages=MESSAGES)

    live = record(tmp_path, "agents_complete", fake, run, c)
    replayed = replay(tmp_path, "agents_complete", c, offline, run)
    assert_same_response(replayed, live)
    (step,) = llm_steps(tmp_path, "agents_complete")
    assert (step["response"], step["model"], step["exchange"]["request"]["path"]) == (
        "From the agent.",
        MODEL,
        "/v1/agents/completions",
    )


# --------------------------------------------------------------------------- streams


def _stream_iterate(c: Mistral) -> tuple[Any, list[Any], str | None]:
    stream = c.chat.stream(model=MODEL, messages=MESSAGES)
    events = list(stream)
    return type(stream), events, stream.response.headers.get("mistral-correlation-id")


def _stream_with(c: Mistral) -> tuple[Any, list[Any], str | None]:
    with c.chat.stream(model=MODEL, messages=MESSAGES) as stream:
        events = [event for event in stream]
    assert stream.response.is_closed
    return type(stream), events, stream.response.headers.get("mistral-correlation-id")


@pytest.mark.parametrize("use", [_stream_iterate, _stream_with], ids=["iterate", "with"])
def test_stream_sync(fake: FakeMistral, tmp_path: Path, offline: Offline, use: Any) -> None:
    fake.script(stream_text_reply(["Sun", "ny in ", "Paris."], usage=(9, 3)))
    c = client(fake.base_url)

    live_type, live, live_id = record(tmp_path, "stream_sync", fake, use, c)
    rep_type, replayed, rep_id = replay(tmp_path, "stream_sync", c, offline, use)

    assert live_type is rep_type is eventstreaming.EventStream
    assert [type(e) for e in replayed] == [models.CompletionEvent] * 4
    assert dumps(replayed) == dumps(live)
    assert rep_id == live_id and rep_id is not None and rep_id.startswith("corr-")
    assert "".join(e.data.choices[0].delta.content for e in replayed) == "Sunny in Paris."
    assert (
        replayed[-1].data.usage == live[-1].data.usage
        and replayed[-1].data.usage.total_tokens == 12
    )

    (step,) = llm_steps(tmp_path, "stream_sync")
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "Sunny in Paris.")
    assert step["usage"] == {"input_tokens": 9, "output_tokens": 3, "total_tokens": 12}
    assert (
        step["exchange"]["request"]["path"] == "/v1/chat/completions"
    )  # the "#stream" fragment never leaves the SDK
    assert step["exchange"]["request"]["body"]["stream"] is True


def test_stream_async_with_await(fake: FakeMistral, tmp_path: Path, offline: Offline) -> None:
    fake.script(stream_text_reply(["Rain", "y."]))
    c = client(fake.base_url)

    async def run(c: Mistral) -> tuple[Any, list[Any], str | None]:
        async with await c.chat.stream_async(model=MODEL, messages=MESSAGES) as stream:
            events = [event async for event in stream]
        return type(stream), events, stream.response.headers.get("x-kong-request-id")

    live_type, live, live_id = record_async(tmp_path, "stream_async", fake, run, c)
    rep_type, replayed, rep_id = replay_async(tmp_path, "stream_async", c, offline, run)
    assert live_type is rep_type is eventstreaming.EventStreamAsync
    assert dumps(replayed) == dumps(live) and len(replayed) == 3
    assert rep_id == live_id and rep_id is not None
    (step,) = llm_steps(tmp_path, "stream_async")
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "Rainy.")


def test_stream_broken_after_first_event_is_incomplete_and_replays(
    fake: FakeMistral, tmp_path: Path, offline: Offline
) -> None:
    fake.script(stream_text_reply(["one ", "two ", "three"]))
    c = client(fake.base_url)

    def run(c: Mistral) -> Any:
        with c.chat.stream(model=MODEL, messages=MESSAGES) as stream:
            for event in stream:
                return event.data
        raise AssertionError("empty stream")

    live = record(tmp_path, "stream_break", fake, run, c)
    (step,) = llm_steps(tmp_path, "stream_break")
    assert (step["stream"], step["complete"]) == (True, False)
    replayed = replay(tmp_path, "stream_break", c, offline, run)
    assert type(replayed) is models.CompletionChunk and replayed == live


# --------------------------------------------------------------------------- tools


def test_streamed_parallel_tool_calls_with_object_and_text_arguments(
    fake: FakeMistral, tmp_path: Path, offline: Offline
) -> None:
    calls = [
        ("D681PevKs", "get_weather", {"city": "Paris"}),
        ("Q7mK2Lx9a", "get_time", '{"tz": "Europe/Paris"}'),
    ]
    fake.script(stream_tool_calls_reply(calls))
    c = client(fake.base_url)

    def run(c: Mistral) -> list[Any]:
        return list(c.chat.stream(model=MODEL, messages=MESSAGES, tools=[WEATHER_TOOL, TIME_TOOL]))

    live = record(tmp_path, "stream_tools", fake, run, c)
    replayed = replay(tmp_path, "stream_tools", c, offline, run)
    assert dumps(replayed) == dumps(live)
    got = [
        (t.id, t.function.name, t.function.arguments)
        for e in replayed
        for t in (e.data.choices[0].delta.tool_calls or [])
    ]
    assert got == [
        ("D681PevKs", "get_weather", {"city": "Paris"}),
        ("Q7mK2Lx9a", "get_time", '{"tz": "Europe/Paris"}'),
    ]

    (step,) = llm_steps(tmp_path, "stream_tools")
    assert step["tools"] == ["get_weather", "get_time"]
    assert step["tool_requests"] == [
        {"id": "D681PevKs", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "Q7mK2Lx9a", "name": "get_time", "args": {"tz": "Europe/Paris"}},
    ]
    assert (step["response"], step["complete"]) == ("", True)


def test_tool_round_trip_derives_tool_call_steps(
    fake: FakeMistral, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        tool_calls_reply([("D681PevKs", "get_weather", {"city": "Paris"})]),
        text_reply("It is sunny in Paris."),
    )
    c = client(fake.base_url)

    def agent(c: Mistral) -> Any:
        messages: list[Any] = list(MESSAGES)
        first = c.chat.complete(model=MODEL, messages=messages, tools=[WEATHER_TOOL])
        call = first.choices[0].message.tool_calls[0]
        messages.append(first.choices[0].message)
        args = (
            call.function.arguments
            if isinstance(call.function.arguments, dict)
            else json.loads(call.function.arguments)
        )
        messages.append(
            {
                "role": "tool",
                "tool_call_id": call.id,
                "name": call.function.name,
                "content": f"sunny in {args['city']}",
            }
        )
        return (
            c.chat.complete(model=MODEL, messages=messages, tools=[WEATHER_TOOL])
            .choices[0]
            .message.content
        )

    assert record(tmp_path, "tool_round_trip", fake, agent, c) == "It is sunny in Paris."
    data = snapshot_data(tmp_path, "tool_round_trip")
    assert [s["type"] for s in data["trace"]] == ["llm_call", "tool_call", "llm_call"]
    tool = data["trace"][1]
    assert {k: tool[k] for k in ("name", "args", "result", "id")} == {
        "name": "get_weather",
        "args": {"city": "Paris"},
        "result": "sunny in Paris",
        "id": "D681PevKs",
    }
    assert data["trace"][0]["tool_requests"] == [
        {"id": "D681PevKs", "name": "get_weather", "args": {"city": "Paris"}}
    ]
    assert replay(tmp_path, "tool_round_trip", c, offline, agent) == "It is sunny in Paris."


# --------------------------------------------------------------------------- errors and retries


def _expect_sdk_error(c: Mistral, retry: Any = None) -> errors.SDKError:
    kwargs = {"retries": retry} if retry is not None else {}
    with pytest.raises(errors.SDKError) as info:
        c.chat.complete(model=MODEL, messages=MESSAGES, **kwargs)
    return info.value


def _assert_same_error(replayed: errors.SDKError, live: errors.SDKError) -> None:
    assert type(replayed) is type(live) is errors.SDKError
    assert replayed.status_code == live.status_code
    assert replayed.body == live.body  # the recorded bytes, layout included
    assert replayed.message == live.message and str(replayed) == str(live)
    assert error_headers(replayed).get("mistral-correlation-id") == error_headers(live).get(
        "mistral-correlation-id"
    )
    assert error_headers(replayed).get("mistral-correlation-id", "").startswith("corr-")


def error_headers(error: errors.SDKError) -> Any:
    """The response headers of an SDK error: ``.headers`` since mistralai 1.9.11, ``.raw_response.headers`` before."""
    return error.headers if hasattr(error, "headers") else error.raw_response.headers


@pytest.mark.parametrize("status", [429, 500])
def test_error_status_replays_the_same_sdk_error(
    fake: FakeMistral, tmp_path: Path, offline: Offline, status: int
) -> None:
    reply = error_reply(status)
    fake.script(reply)
    c = client(fake.base_url)

    live = record(tmp_path, f"error_{status}", fake, _expect_sdk_error, c)
    assert live.status_code == status and live.body == reply.raw.decode()
    if status == 429:  # the gateway's indented layout, newline included
        assert live.body.startswith(
            '{\n  "message":"Requests rate limit exceeded",'
        ) and live.body.endswith("}\n")
    replayed = replay(tmp_path, f"error_{status}", c, offline, _expect_sdk_error)
    _assert_same_error(replayed, live)
    (step,) = llm_steps(tmp_path, f"error_{status}")
    assert step["status"] == status
    assert step["error"] == (
        "Requests rate limit exceeded" if status == 429 else f"Fake error {status}"
    )


def test_error_on_a_stream_request_replays_the_same_sdk_error(
    fake: FakeMistral, tmp_path: Path, offline: Offline
) -> None:
    fake.script(error_reply(429))
    c = client(fake.base_url)

    def run(c: Mistral) -> errors.SDKError:
        with pytest.raises(errors.SDKError) as info:
            c.chat.stream(model=MODEL, messages=MESSAGES)
        return info.value

    live = record(tmp_path, "stream_429", fake, run, c)
    _assert_same_error(replay(tmp_path, "stream_429", c, offline, run), live)
    (step,) = llm_steps(tmp_path, "stream_429")
    assert (step["status"], step["stream"], step["error"]) == (
        429,
        True,
        "Requests rate limit exceeded",
    )


def test_429_then_200_with_backoff_replays_without_waiting(
    fake: FakeMistral, tmp_path: Path, offline: Offline, sleeps: SleepSpy
) -> None:
    fake.script(error_reply(429), error_reply(429), text_reply("after two retries"))
    c = client(fake.base_url, retry_config=FAST)

    def run(c: Mistral) -> Any:
        return c.chat.complete(model=MODEL, messages=MESSAGES)

    live = record(tmp_path, "retry_ok", fake, run, c)
    assert [s["status"] for s in llm_steps(tmp_path, "retry_ok")] == [429, 429, 200]

    c.sdk_configuration.retry_config = SLOW  # would wait 2 s + 4 s (+ jitter) if honoured
    sleeps.calls.clear()
    replayed = replay(tmp_path, "retry_ok", c, offline, run)
    assert sleeps.calls == []  # not one backoff sleep in replay
    assert_same_response(replayed, live)


def test_retry_budget_spent_while_recording_gives_up_at_the_same_attempt(
    fake: FakeMistral, tmp_path: Path, offline: Offline, sleeps: SleepSpy
) -> None:
    # a wall-clock retry budget: how many attempts fit depends on timing, so replay
    # must stop where the recording stopped, not where its own clock says
    fake.respond_with(lambda body: error_reply(503, gateway=False))
    budget = retries.RetryConfig(
        "backoff", backoff(5, 5, 1.0, 120, jitter_ms=0), retry_connection_errors=False
    )
    c = client(fake.base_url)

    live = record(tmp_path, "budget", fake, lambda c: _expect_sdk_error(c, budget), c)
    attempts = len(llm_steps(tmp_path, "budget"))
    assert attempts >= 3 and attempts == len(fake.requests)

    sleeps.calls.clear()
    replayed = replay(tmp_path, "budget", c, offline, lambda c: _expect_sdk_error(c, SLOW))
    assert sleeps.calls == []  # not one backoff sleep in replay
    _assert_same_error(replayed, live)  # the asserter also checked: same number of attempts


def test_async_retries_replay_without_waiting(
    fake: FakeMistral, tmp_path: Path, offline: Offline, sleeps: SleepSpy
) -> None:
    fake.script(error_reply(500), text_reply("async after retry"))
    c = client(fake.base_url)

    def run_with(retry: Any) -> Callable[[Mistral], Any]:
        async def run(c: Mistral) -> Any:
            return await c.chat.complete_async(model=MODEL, messages=MESSAGES, retries=retry)

        return run

    live = record_async(tmp_path, "retry_async", fake, run_with(FAST), c)
    assert [s["status"] for s in llm_steps(tmp_path, "retry_async")] == [500, 200]
    sleeps.calls.clear()
    replayed = replay_async(tmp_path, "retry_async", c, offline, run_with(SLOW))
    assert sleeps.calls == []  # not one backoff sleep in replay
    assert_same_response(replayed, live)


def test_connection_refused_with_retries_replays_the_same_attempts_instantly(
    tmp_path: Path, offline: Offline, sleeps: SleepSpy
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    c = client(f"http://127.0.0.1:{port}")
    budget = retries.RetryConfig(
        "backoff", backoff(2, 2, 1.0, 60, jitter_ms=0), retry_connection_errors=True
    )

    def run_with(retry: Any) -> Callable[[Mistral], Exception]:
        def run(c: Mistral) -> Exception:
            with pytest.raises(SDK_HTTPX.ConnectError) as info:
                c.chat.complete(model=MODEL, messages=MESSAGES, retries=retry)
            return info.value

        return run

    with AgentRecorder("refused", snapshot_dir=tmp_path):
        live = run_with(budget)(c)
    trace = snapshot_data(tmp_path, "refused")["trace"]
    assert len(trace) >= 2
    assert all(
        s["exchange"]["response"] == {"error": {"type": "ConnectError", "message": str(live)}}
        for s in trace
    )

    sleeps.calls.clear()
    replayed = replay(
        tmp_path, "refused", c, offline, run_with(SLOW)
    )  # SLOW: 2 s, 4 s, ... if it slept
    assert sleeps.calls == []  # not one backoff sleep in replay
    assert type(replayed) is type(live) and str(replayed) == str(live)


def test_outside_a_recording_the_sdk_retry_loop_is_untouched(
    fake: FakeMistral, sleeps: SleepSpy
) -> None:
    fake.script(error_reply(500, gateway=False), text_reply("ok"))
    c = client(
        fake.base_url,
        retry_config=retries.RetryConfig(
            "backoff", backoff(30, 30, 1.0, 10_000, jitter_ms=0), False
        ),
    )
    assert c.chat.complete(model=MODEL, messages=MESSAGES).choices[0].message.content == "ok"
    assert sleeps.calls == [0.03]  # the SDK's own backoff
    assert len(fake.requests) == 2


def test_chunked_stream_without_done_is_incomplete(
    fake: FakeMistral, tmp_path: Path, offline: Offline
) -> None:
    fake.script(stream_reply([{"role": "assistant", "content": "cut"}], done=False))
    c = client(fake.base_url)

    def run(c: Mistral) -> list[Any]:
        return list(c.chat.stream(model=MODEL, messages=MESSAGES))

    live = record(tmp_path, "no_done", fake, run, c)
    assert dumps(replay(tmp_path, "no_done", c, offline, run)) == dumps(live)
    (step,) = llm_steps(tmp_path, "no_done")
    assert (step["response"], step["complete"]) == ("cut", False)


def test_object_arguments_in_a_full_response(
    fake: FakeMistral, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        chat_reply(None, tool_calls=[("c1", "get_weather", {"city": "Lyon", "units": ["C"]})])
    )
    c = client(fake.base_url)

    def run(c: Mistral) -> Any:
        return c.chat.complete(model=MODEL, messages=MESSAGES, tools=[WEATHER_TOOL])

    live = record(tmp_path, "object_args", fake, run, c)
    replayed = replay(tmp_path, "object_args", c, offline, run)
    assert_same_response(replayed, live)
    assert replayed.choices[0].message.tool_calls[0].function.arguments == {
        "city": "Lyon",
        "units": ["C"],
    }
    (step,) = llm_steps(tmp_path, "object_args")
    assert step["tool_requests"] == [
        {"id": "c1", "name": "get_weather", "args": {"city": "Lyon", "units": ["C"]}}
    ]


def test_quirk_patches_are_installed_once_and_idempotent() -> None:
    import importlib
    import types

    import wrapt

    basesdk = importlib.import_module(f"{SDK_PACKAGE}.basesdk")
    from agentsnap.capture.hooks import install
    from agentsnap.capture.quirks import mistralai as quirk

    install()  # what the first recording does; the SDK modules are imported already

    before = (
        retries.retry_with_backoff,
        retries.retry_with_backoff_async,
        basesdk.BaseSDK.__dict__["do_request"],
    )
    assert all(
        isinstance(f, wrapt.FunctionWrapper) for f in before
    )  # installed by the import hooks
    quirk.patch_retries(retries)
    quirk.patch_basesdk(basesdk)
    assert (
        retries.retry_with_backoff,
        retries.retry_with_backoff_async,
        basesdk.BaseSDK.__dict__["do_request"],
    ) == before
    assert not isinstance(
        retries.retry_with_backoff.__wrapped__, wrapt.FunctionWrapper
    )  # one layer only

    with pytest.raises(AttributeError, match="retry_with_backoff_async"):
        quirk.patch_retries(
            types.SimpleNamespace(
                retry_with_backoff=len, TemporaryError=Exception, PermanentError=Exception
            )
        )
