"""google-genai call shapes, recorded against a fake Gemini API and replayed offline.

Each test runs the real ``google-genai`` SDK against :class:`tests.fake_gemini.FakeGemini`
inside ``AgentRecorder``; then stops the server and runs the same code again inside
``AgentAsserter(mode="replay")`` with ``socket.connect`` refused, and checks that the
replayed objects are genuine SDK objects equal to the live ones.

``GenerateContentResponse.sdk_http_response.headers`` holds every response header; replay
serves every recorded header and the recorded body bytes (``agentsnap.capture.faithful``),
so the whole object is compared, ``sdk_http_response`` included (``content-length`` too).
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import importlib.metadata
import json
import socket
import ssl
import types as pytypes
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import tenacity.nap
from google import genai
from google.genai import errors, types

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap.capture.cassette import Cassette
from agentsnap.capture.hooks import _guarded
from agentsnap.capture.quirks import google_genai as quirk
from agentsnap.capture.recording import Recording
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.offline import Offline
from tests._support.roundtrip import record_with, replay_with
from tests._support.sleeps import SleepSpy
from tests.fake_gemini import (
    MODEL,
    FakeGemini,
    error_reply,
    function_call_reply,
    stream_text_reply,
    text_reply,
)

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

API_KEY = "AIzaSyD-test-SECRET-0123456789abcdefghijk"
KEPT_HEADERS = ("content-type", "x-request-id")
SDK_VERSION = tuple(int(n) for n in importlib.metadata.version("google-genai").split(".")[:2])
USER = [{"parts": [{"text": "Weather in Paris?"}], "role": "user"}]


@pytest.fixture
def fake() -> Iterator[FakeGemini]:
    with FakeGemini() as server:
        yield server


# --------------------------------------------------------------------------- helpers


# One TLS context for every client: the SDK otherwise loads the CA bundle three
# times per Client() (~0.5 s here), and these tests never use TLS.
_TLS = ssl.create_default_context()


def make_client(base_url: str, **http: Any) -> genai.Client:
    http.setdefault("client_args", {"verify": _TLS})
    http.setdefault("async_client_args", {"verify": _TLS, "ssl": _TLS})
    return genai.Client(api_key=API_KEY, http_options=types.HttpOptions(base_url=base_url, **http))


@functools.cache
def _probe() -> genai.Client:
    """A client that is never used to send: it only tells what this SDK version does by default."""
    return make_client("http://127.0.0.1:9/")


def sdk_http() -> pytypes.ModuleType:
    """The HTTP library this google-genai sends through: ``httpx2`` on 3.x, ``httpx`` on 1.x.

    Read off the sync client the SDK itself builds (its class derives from
    ``httpx.Client`` or ``httpx2.Client``), not guessed from what is importable.
    """
    sent_with = type(_probe()._api_client._httpx_client)
    roots = [cls.__module__.split(".")[0] for cls in sent_with.__mro__]
    return importlib.import_module(next(r for r in roots if r in ("httpx", "httpx2")))


def api_version() -> str:
    """The Gemini Developer API version in the SDK's paths: ``v1`` from google-genai 3.0, ``v1beta`` before."""
    version = _probe()._api_client._http_options.api_version
    assert version in ("v1", "v1beta"), version
    return version


def resolved_annotations(func: Callable[..., Any]) -> Callable[..., Any]:
    """Give a tool function real annotation objects instead of this module's PEP 563 strings.

    Before google-genai 2.34, automatic function calling checks each argument with
    ``isinstance(value, annotation)`` on the raw annotation; under
    ``from __future__ import annotations`` that is the string ``"str"``, the check
    raises, and the SDK sends ``{"error": ...}`` back without calling the
    function (2.34 resolves them with ``typing.get_type_hints``). Resolving them
    here is what a module without the future import gets anyway.
    """
    func.__annotations__ = typing.get_type_hints(func)
    return func


# the shared round-trip halves, with this file's client; the async pair below builds its client
# before the recording starts (like a module-level client), so it stays its own
record = functools.partial(record_with, make=make_client)
replay = functools.partial(replay_with, make=make_client)


def record_async(
    tmp_path: Path, name: str, fake: FakeGemini, run: Callable[[genai.Client], Any], **http: Any
) -> Any:
    client = make_client(
        fake.base_url, **http
    )  # built before the recording starts, like a module-level client

    async def main() -> Any:
        async with AgentRecorder(name, snapshot_dir=tmp_path):
            return await run(client)

    result = asyncio.run(main())
    fake.stop()
    return result


def replay_async(
    tmp_path: Path,
    name: str,
    base_url: str,
    offline: Offline,
    run: Callable[[genai.Client], Any],
    **http: Any,
) -> Any:
    client = make_client(base_url, **http)

    async def main() -> Any:
        async with AgentAsserter(name, snapshot_dir=tmp_path, mode="replay"):
            return await run(client)

    with offline():
        return asyncio.run(main())


def snapshot_text(directory: Path, name: str) -> str:
    return SnapshotStore(directory).path_for(name).read_text(encoding="utf-8")


def snapshot_data(directory: Path, name: str) -> dict[str, Any]:
    text = snapshot_text(directory, name)
    assert API_KEY not in text, "the API key reached the snapshot"
    return SnapshotStore.read_file(SnapshotStore(directory).path_for(name)).to_dict()  # as loaded


def llm_steps(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in data["trace"] if s["type"] == "llm_call"]


def kept(response: types.GenerateContentResponse) -> dict[str, str]:
    headers = response.sdk_http_response.headers if response.sdk_http_response else {}
    return {k: v for k, v in (headers or {}).items() if k in KEPT_HEADERS}


def assert_same_response(
    replayed: types.GenerateContentResponse, live: types.GenerateContentResponse
) -> None:
    assert type(replayed) is type(live) is types.GenerateContentResponse
    assert replayed.model_dump(exclude={"sdk_http_response"}) == live.model_dump(
        exclude={"sdk_http_response"}
    )
    assert replayed.response_id == live.response_id
    if SDK_VERSION >= (
        1,
        29,
    ):  # before 1.29 the SDK drops the Developer API's responseId (Vertex AI only)
        assert replayed.response_id is not None
    assert kept(replayed) == kept(live) and set(kept(live)) == set(KEPT_HEADERS)
    # byte-faithful: every header the user can read is the live one (server, date,
    # content-length of the recorded bytes, transfer-encoding of a stream)
    assert replayed.sdk_http_response is not None and live.sdk_http_response is not None
    assert replayed.sdk_http_response.headers == live.sdk_http_response.headers
    assert replayed.sdk_http_response.body == live.sdk_http_response.body


def assert_same_chunks(
    replayed: list[types.GenerateContentResponse], live: list[types.GenerateContentResponse]
) -> None:
    assert len(replayed) == len(live)
    for rep, liv in zip(replayed, live, strict=False):
        assert_same_response(rep, liv)


# --------------------------------------------------------------------------- generate_content


def test_generate_content_sync(fake: FakeGemini, tmp_path: Path, offline: Offline) -> None:
    fake.script(text_reply("Sunny, 21 C.", usage=(9, 5)))
    base = fake.base_url
    config = types.GenerateContentConfig(system_instruction="Be terse.", temperature=0.0)

    def run(client: genai.Client) -> types.GenerateContentResponse:
        return client.models.generate_content(
            model=MODEL, contents="Weather in Paris?", config=config
        )

    live = record(tmp_path, "gen_sync", fake, run)
    sent = fake.requests[0]
    assert sent.path == f"/{api_version()}/models/{MODEL}:generateContent"
    assert sent.headers["x-goog-api-key"] == API_KEY
    assert sent.headers["user-agent"].startswith("google-genai-sdk/")
    rep = replay(tmp_path, "gen_sync", base, offline, run)

    assert_same_response(rep, live)
    assert rep.text == "Sunny, 21 C."
    (step,) = llm_steps(snapshot_data(tmp_path, "gen_sync"))
    assert step["provider"] == "google-genai"
    assert step["model"] == MODEL
    assert step["messages"] == USER
    assert step["exchange"]["request"]["body"]["systemInstruction"] == {
        "parts": [{"text": "Be terse."}],
        "role": "user",
    }
    assert (step["response"], step["stream"], step["status"], step["tokens"]) == (
        "Sunny, 21 C.",
        False,
        200,
        14,
    )
    assert step["usage"] == {"input_tokens": 9, "output_tokens": 5, "total_tokens": 14}
    assert "query" not in step["exchange"]["request"]
    # the file as a script reads it: 0.5.1's documented llm_call fields are there
    (raw,) = llm_steps(json.loads(snapshot_text(tmp_path, "gen_sync")))
    assert (raw["messages"], raw["response"], raw["tokens"]) == (USER, "Sunny, 21 C.", 14)


def test_generate_content_async_goes_through_httpx_not_aiohttp(
    fake: FakeGemini, tmp_path: Path, offline: Offline
) -> None:
    fake.script(text_reply("Async sunny."))
    base = fake.base_url
    seen: list[bool] = []

    async def run(client: genai.Client) -> types.GenerateContentResponse:
        seen.append(client._api_client._use_aiohttp())
        return await client.aio.models.generate_content(model=MODEL, contents="Weather in Paris?")

    live = record_async(tmp_path, "gen_async", fake, run)
    assert len(fake.requests) == 1
    rep = replay_async(tmp_path, "gen_async", base, offline, run)

    assert seen == [False, False]  # while recording / replaying: the SDK's httpx(2) client
    assert_same_response(rep, live)
    assert rep.text == "Async sunny."
    (step,) = llm_steps(snapshot_data(tmp_path, "gen_async"))
    assert (step["response"], step["messages"]) == ("Async sunny.", USER)


@pytest.mark.filterwarnings("ignore:Inheritance class AiohttpClientSession:DeprecationWarning")
def test_aiohttp_switch_is_only_active_inside_a_recording(fake: FakeGemini, tmp_path: Path) -> None:
    pytest.importorskip("aiohttp")
    fake.script(text_reply("ok"))
    with AgentRecorder("aiohttp_switch", snapshot_dir=tmp_path):
        # constructed inside, with the SDK defaults: __init__ still prepares aiohttp
        client = genai.Client(
            api_key=API_KEY, http_options=types.HttpOptions(base_url=fake.base_url)
        )
        inside = client._api_client._use_aiohttp()
        assert client.models.generate_content(model=MODEL, contents="hi").text == "ok"
    assert inside is False
    assert client._api_client._use_aiohttp() is True  # unpatched behaviour outside recordings
    assert isinstance(client._api_client._async_client_session_request_args, dict)

    fake.script(text_reply("via aiohttp"))

    async def outside() -> str | None:
        response = await client.aio.models.generate_content(model=MODEL, contents="plain")
        if hasattr(client.aio, "aclose"):  # AsyncClient.aclose() appeared in google-genai 1.39
            await client.aio.aclose()
        return response.text

    assert asyncio.run(outside()) == "via aiohttp"
    assert len(fake.requests) == 2


def test_concurrent_async_calls_replay_each_their_own_answer(
    fake: FakeGemini, tmp_path: Path, offline: Offline
) -> None:
    fake.respond_with(
        lambda body: text_reply("answer to " + body["contents"][0]["parts"][0]["text"])
    )
    base = fake.base_url

    async def run(client: genai.Client) -> list[types.GenerateContentResponse]:
        calls = [
            client.aio.models.generate_content(model=MODEL, contents=q)
            for q in ("one", "two", "three")
        ]
        return list(await asyncio.gather(*calls))

    live = record_async(tmp_path, "gather", fake, run)
    rep = replay_async(tmp_path, "gather", base, offline, run)
    assert [r.text for r in rep] == ["answer to one", "answer to two", "answer to three"]
    for r, recorded in zip(rep, live, strict=True):
        assert_same_response(r, recorded)


# --------------------------------------------------------------------------- streams


def test_generate_content_stream_sync(fake: FakeGemini, tmp_path: Path, offline: Offline) -> None:
    fake.script(stream_text_reply(["Sun", "ny in ", "Paris."], usage=(7, 3)))
    base = fake.base_url

    def run(client: genai.Client) -> list[types.GenerateContentResponse]:
        return list(
            client.models.generate_content_stream(model=MODEL, contents="Weather in Paris?")
        )

    live = record(tmp_path, "stream_sync", fake, run)
    rep = replay(tmp_path, "stream_sync", base, offline, run)

    assert [c.text for c in live] == ["Sun", "ny in ", "Paris."]
    assert_same_chunks(rep, live)
    (step,) = llm_steps(snapshot_data(tmp_path, "stream_sync"))
    assert step["exchange"]["request"]["query"] == "alt=sse"
    assert (
        step["exchange"]["request"]["path"]
        == f"/{api_version()}/models/{MODEL}:streamGenerateContent"
    )
    assert len(step["exchange"]["response"]["chunks"]) == 3
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "Sunny in Paris.")
    assert step["usage"] == {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}


def test_generate_content_stream_async(fake: FakeGemini, tmp_path: Path, offline: Offline) -> None:
    fake.script(stream_text_reply(["Rain", "y."]))
    base = fake.base_url

    async def run(client: genai.Client) -> tuple[Any, list[types.GenerateContentResponse]]:
        stream = await client.aio.models.generate_content_stream(
            model=MODEL, contents="Weather in Paris?"
        )
        return type(stream).__name__, [c async for c in stream]

    live_kind, live = record_async(tmp_path, "stream_async", fake, run)
    rep_kind, rep = replay_async(tmp_path, "stream_async", base, offline, run)

    assert live_kind == rep_kind == "async_generator"
    assert_same_chunks(rep, live)
    assert [c.text for c in rep] == ["Rain", "y."]
    (step,) = llm_steps(snapshot_data(tmp_path, "stream_async"))
    assert (step["stream"], step["complete"], step["response"]) == (True, True, "Rainy.")


def test_streamed_function_calls_keep_ids_and_args(
    fake: FakeGemini, tmp_path: Path, offline: Offline
) -> None:
    calls = [
        ("get_weather", {"city": "Paris", "units": "C"}, "fc_1"),
        ("get_time", {"tz": "Europe/Paris"}, "fc_2"),
    ]
    fake.script(stream_text_reply(["Checking."], calls=calls))
    base = fake.base_url
    tools = [
        types.Tool(
            function_declarations=[
                types.FunctionDeclaration(name="get_weather"),
                types.FunctionDeclaration(name="get_time"),
            ]
        )
    ]

    def run(client: genai.Client) -> list[types.GenerateContentResponse]:
        config = types.GenerateContentConfig(tools=tools)
        return list(
            client.models.generate_content_stream(
                model=MODEL, contents="Weather in Paris?", config=config
            )
        )

    live = record(tmp_path, "stream_calls", fake, run)
    rep = replay(tmp_path, "stream_calls", base, offline, run)

    assert_same_chunks(rep, live)
    replayed_calls = [(fc.id, fc.name, fc.args) for c in rep for fc in (c.function_calls or [])]
    assert replayed_calls == [
        ("fc_1", "get_weather", {"city": "Paris", "units": "C"}),
        ("fc_2", "get_time", {"tz": "Europe/Paris"}),
    ]
    (step,) = llm_steps(snapshot_data(tmp_path, "stream_calls"))
    assert step["tools"] == ["get_weather", "get_time"]
    assert step["tool_requests"] == [
        {"id": "fc_1", "name": "get_weather", "args": {"city": "Paris", "units": "C"}},
        {"id": "fc_2", "name": "get_time", "args": {"tz": "Europe/Paris"}},
    ]
    assert (step["response"], step["complete"]) == ("Checking.", True)


def test_stream_abandoned_after_first_chunk_is_incomplete_and_replays(
    fake: FakeGemini, tmp_path: Path, offline: Offline
) -> None:
    fake.script(stream_text_reply(["one ", "two ", "three"]))
    base = fake.base_url

    def run(client: genai.Client) -> types.GenerateContentResponse:
        for chunk in client.models.generate_content_stream(model=MODEL, contents="count"):
            return chunk
        raise AssertionError("empty stream")

    live = record(tmp_path, "stream_cut", fake, run)
    (step,) = llm_steps(snapshot_data(tmp_path, "stream_cut"))
    assert (step["stream"], step["complete"]) == (True, False)
    assert step["response"].startswith("one ")
    rep = replay(tmp_path, "stream_cut", base, offline, run)
    assert_same_response(rep, live)
    assert rep.text == "one "


# --------------------------------------------------------------------------- chats


def test_chat_send_message_sync(fake: FakeGemini, tmp_path: Path, offline: Offline) -> None:
    fake.script(text_reply("Hello!"), text_reply("Sunny in Paris."))
    base = fake.base_url

    def run(
        client: genai.Client,
    ) -> tuple[list[types.GenerateContentResponse], list[types.Content]]:
        chat = client.chats.create(model=MODEL)
        answers = [chat.send_message("Hi"), chat.send_message("Weather in Paris?")]
        return answers, chat.get_history()

    live_answers, live_history = record(tmp_path, "chat_sync", fake, run)
    rep_answers, rep_history = replay(tmp_path, "chat_sync", base, offline, run)

    assert_same_chunks(rep_answers, live_answers)
    assert [c.model_dump() for c in rep_history] == [c.model_dump() for c in live_history]
    assert len(rep_history) == 4
    first, second = llm_steps(snapshot_data(tmp_path, "chat_sync"))
    assert [m["role"] for m in second["messages"]] == ["user", "model", "user"]
    assert second["messages"][:2] == [
        {"parts": [{"text": "Hi"}], "role": "user"},
        {"parts": [{"text": "Hello!"}], "role": "model"},
    ]
    assert (first["response"], second["response"]) == ("Hello!", "Sunny in Paris.")


def test_chat_send_message_stream_async(fake: FakeGemini, tmp_path: Path, offline: Offline) -> None:
    fake.script(stream_text_reply(["Hel", "lo!"]), text_reply("Bye."))
    base = fake.base_url

    async def run(
        client: genai.Client,
    ) -> tuple[list[types.GenerateContentResponse], types.GenerateContentResponse, list[Any]]:
        chat = client.aio.chats.create(model=MODEL)
        chunks = [c async for c in await chat.send_message_stream("Hi")]
        bye = await chat.send_message("Bye")
        return chunks, bye, [c.model_dump() for c in chat.get_history()]

    live = record_async(tmp_path, "chat_async", fake, run)
    rep = replay_async(tmp_path, "chat_async", base, offline, run)
    assert_same_chunks(rep[0], live[0])
    assert_same_response(rep[1], live[1])
    assert rep[2] == live[2]
    assert [s["stream"] for s in llm_steps(snapshot_data(tmp_path, "chat_async"))] == [True, False]


# --------------------------------------------------------------------------- automatic function calling


def test_automatic_function_calling_reruns_the_function_and_derives_tool_calls(
    fake: FakeGemini, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        function_call_reply([("get_weather", {"city": "Paris"}, None)]),
        function_call_reply([("get_weather", {"city": "Berlin"}, None)]),
        text_reply("Paris and Berlin are sunny."),
    )
    base = fake.base_url
    ran: list[str] = []

    @resolved_annotations
    def get_weather(city: str) -> str:
        """Current weather in a city."""
        ran.append(city)
        return f"sunny in {city}"

    def run(client: genai.Client) -> types.GenerateContentResponse:
        config = types.GenerateContentConfig(tools=[get_weather])
        return client.models.generate_content(
            model=MODEL, contents="Weather in Paris, then Berlin?", config=config
        )

    live = record(tmp_path, "afc", fake, run)
    assert ran == ["Paris", "Berlin"]
    assert len(fake.requests) == 3
    assert fake.requests[1].body["contents"][-1] == {
        "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"result": "sunny in Paris"}}}
        ],
        "role": "user",
    }
    ran.clear()
    rep = replay(tmp_path, "afc", base, offline, run)

    assert ran == ["Paris", "Berlin"]  # the user's function really ran again in replay
    assert_same_response(rep, live)
    assert rep.text == "Paris and Berlin are sunny."
    assert len(rep.automatic_function_calling_history) == 5

    data = snapshot_data(tmp_path, "afc")
    assert [s["type"] for s in data["trace"]] == [
        "llm_call",
        "tool_call",
        "llm_call",
        "tool_call",
        "llm_call",
    ]
    tools = [
        {k: s[k] for k in ("name", "args", "result", "id")}
        for s in data["trace"]
        if s["type"] == "tool_call"
    ]
    assert tools == [
        {
            "name": "get_weather",
            "args": {"city": "Paris"},
            "result": {"result": "sunny in Paris"},
            "id": None,
        },
        {
            "name": "get_weather",
            "args": {"city": "Berlin"},
            "result": {"result": "sunny in Berlin"},
            "id": None,
        },
    ]
    first = data["trace"][0]
    assert first["tools"] == ["get_weather"]
    assert first["tool_requests"] == [
        {"id": None, "name": "get_weather", "args": {"city": "Paris"}}
    ]


def test_automatic_function_calling_async_with_ids(
    fake: FakeGemini, tmp_path: Path, offline: Offline
) -> None:
    fake.script(
        function_call_reply([("get_time", {"tz": "Europe/Paris"}, "fc_9")]),
        text_reply("It is noon."),
    )
    base = fake.base_url
    ran: list[str] = []

    @resolved_annotations
    async def get_time(tz: str) -> str:
        """Local time in a time zone."""
        ran.append(tz)
        return "12:00"

    async def run(client: genai.Client) -> types.GenerateContentResponse:
        config = types.GenerateContentConfig(tools=[get_time])
        return await client.aio.models.generate_content(
            model=MODEL, contents="Time in Paris?", config=config
        )

    live = record_async(tmp_path, "afc_async", fake, run)
    rep = replay_async(tmp_path, "afc_async", base, offline, run)
    assert ran == ["Europe/Paris", "Europe/Paris"]
    assert_same_response(rep, live)
    tool_steps = [
        s for s in snapshot_data(tmp_path, "afc_async")["trace"] if s["type"] == "tool_call"
    ]
    # the SDK sends no id back with the result: paired by name, the call's own id is kept
    assert [(s["name"], s["args"], s["result"], s["id"]) for s in tool_steps] == [
        ("get_time", {"tz": "Europe/Paris"}, {"result": "12:00"}, "fc_9")
    ]


# --------------------------------------------------------------------------- errors, retries, transport failures


@pytest.mark.parametrize(
    ("status", "cls", "status_text"),
    [
        (429, errors.ClientError, "RESOURCE_EXHAUSTED"),
        (500, errors.ServerError, "INTERNAL"),
        (503, errors.ServerError, "UNAVAILABLE"),
    ],
)
@pytest.mark.parametrize("flavour", ["sync", "async", "stream"])
def test_api_errors_replay_as_the_same_exception(
    fake: FakeGemini,
    tmp_path: Path,
    offline: Offline,
    status: int,
    cls: type,
    status_text: str,
    flavour: str,
) -> None:
    fake.script(error_reply(status, f"Fake failure {status}."))
    base = fake.base_url

    def run(client: genai.Client) -> errors.APIError:
        with pytest.raises(errors.APIError) as info:
            if flavour == "stream":
                list(client.models.generate_content_stream(model=MODEL, contents="hi"))
            elif flavour == "async":
                asyncio.run(client.aio.models.generate_content(model=MODEL, contents="hi"))
            else:
                client.models.generate_content(model=MODEL, contents="hi")
        return info.value

    live = record(tmp_path, "err", fake, run)
    rep = replay(tmp_path, "err", base, offline, run)

    assert type(live) is cls and type(rep) is cls
    assert (
        (rep.code, rep.status, rep.message)
        == (live.code, live.status, live.message)
        == (status, status_text, f"Fake failure {status}.")
    )
    assert rep.details == live.details
    assert str(rep) == str(live)
    (step,) = llm_steps(snapshot_data(tmp_path, "err"))
    assert (step["status"], step["error"], step["stream"]) == (
        status,
        f"Fake failure {status}.",
        flavour == "stream",
    )


RETRY = types.HttpRetryOptions(
    attempts=3, initial_delay=4.0, max_delay=4.0, exp_base=1.0, jitter=0.0
)


def test_retries_wait_live_and_are_instant_in_replay(
    fake: FakeGemini, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.script(error_reply(503), error_reply(429), text_reply("Third time lucky."))
    base = fake.base_url

    def run(client: genai.Client) -> types.GenerateContentResponse:
        return client.models.generate_content(model=MODEL, contents="hi")

    live_spy = SleepSpy()
    monkeypatch.setattr(tenacity.nap, "time", live_spy)
    live = record(tmp_path, "retry", fake, run, retry_options=RETRY)
    assert live_spy.calls == [4.0, 4.0]  # the backoff tenacity asked for while recording

    replay_spy = SleepSpy()
    monkeypatch.setattr(tenacity.nap, "time", replay_spy)
    rep = replay(tmp_path, "retry", base, offline, run, retry_options=RETRY)
    assert replay_spy.calls == []  # replay retried without sleeping
    assert_same_response(rep, live)
    assert [s["status"] for s in llm_steps(snapshot_data(tmp_path, "retry"))] == [503, 429, 200]


def test_other_tenacity_users_still_sleep_in_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = SleepSpy()
    monkeypatch.setattr(tenacity.nap, "time", spy)
    mine = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(2), wait=tenacity.wait_fixed(3), reraise=True
    )
    with Recording("replay", cassette=Cassette([])), pytest.raises(ZeroDivisionError):
        mine(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        mine(lambda: 1 / 0)
    assert spy.calls == [3, 3]


def test_quirk_install_is_idempotent_and_a_moved_target_only_warns() -> None:
    from google.genai import _api_client

    def layers(func: Any, wrapper: Any) -> int:
        count = 0
        while func is not None:
            count += getattr(func, "_self_wrapper", None) is wrapper
            func = getattr(func, "__wrapped__", None)
        return count

    with Recording("replay", cassette=Cassette([])):
        pass  # installs the hooks; google.genai is imported, so the quirk patch runs now
    quirk.install(_api_client)
    quirk.install(_api_client)
    base = _api_client.BaseApiClient
    assert layers(base.__dict__["_use_aiohttp"], quirk._use_aiohttp_wrapper) == 1
    assert layers(base.__dict__["__init__"], quirk._init_wrapper) == 1
    assert layers(base.__dict__["_access_token"], quirk._access_token_wrapper) == 1
    assert layers(base.__dict__["_async_access_token"], quirk._async_access_token_wrapper) == 1
    assert layers(tenacity.Retrying.__dict__["__call__"], quirk._retrying_call_wrapper) == 1
    assert (
        layers(tenacity.AsyncRetrying.__dict__["__call__"], quirk._async_retrying_call_wrapper) == 1
    )

    hook = _guarded("google-genai", "agentsnap.capture.quirks.google_genai:install")
    with pytest.warns(UserWarning, match=r"google-genai: quirk patch .* failed"):
        hook(
            pytypes.SimpleNamespace(__name__="google.genai._api_client")
        )  # BaseApiClient moved away


def test_async_retries_are_instant_in_replay(
    fake: FakeGemini, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.script(error_reply(500), text_reply("Recovered."))
    base = fake.base_url
    slept: list[float] = []
    real_sleep = asyncio.sleep

    def spy_sleep(seconds: float, *args: Any, **kwargs: Any) -> Any:
        if seconds:
            slept.append(seconds)
        return real_sleep(0, *args, **kwargs)

    monkeypatch.setattr(asyncio, "sleep", spy_sleep)

    async def run(client: genai.Client) -> types.GenerateContentResponse:
        return await client.aio.models.generate_content(model=MODEL, contents="hi")

    live = record_async(tmp_path, "retry_async", fake, run, retry_options=RETRY)
    assert slept == [4.0]
    slept.clear()
    rep = replay_async(tmp_path, "retry_async", base, offline, run, retry_options=RETRY)
    assert slept == []
    assert_same_response(rep, live)
    assert rep.text == "Recovered."


def test_connection_error_replays_as_the_same_httpx_exception(
    tmp_path: Path, offline: Offline
) -> None:
    connect_error = sdk_http().ConnectError  # httpx2.ConnectError on 3.x, httpx.ConnectError before
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}/"

    def run(client: genai.Client) -> Exception:
        with pytest.raises(connect_error) as info:
            client.models.generate_content(model=MODEL, contents="hi")
        return info.value

    with AgentRecorder("conn", snapshot_dir=tmp_path):
        live = run(make_client(base))
    rep = replay(tmp_path, "conn", base, offline, run)
    assert type(rep) is type(live) is connect_error
    assert str(rep) == str(live)
    (step,) = llm_steps(snapshot_data(tmp_path, "conn"))
    assert step["exchange"]["response"]["error"]["type"] == "ConnectError"


# --------------------------------------------------------------------------- secrets


def test_api_key_in_the_query_string_is_scrubbed(
    fake: FakeGemini, tmp_path: Path, offline: Offline
) -> None:
    fake.script(text_reply("keyed"), stream_text_reply(["keyed ", "stream"]))
    base = fake.base_url
    urls: list[str] = []

    def run(
        client: genai.Client,
    ) -> tuple[types.GenerateContentResponse, list[types.GenerateContentResponse]]:
        return (
            client.models.generate_content(model=MODEL, contents="hi"),
            list(client.models.generate_content_stream(model=MODEL, contents="hi")),
        )

    def keyed_client() -> dict[str, Any]:
        hook = {"request": [lambda request: urls.append(str(request.url))]}
        if "httpx_client" not in types.HttpOptions.model_fields:
            # HttpOptions(httpx_client=) appeared in google-genai 1.46: before, the same
            # arguments go to the client the SDK builds itself
            return {
                "client_args": {"verify": _TLS, "params": {"key": API_KEY}, "event_hooks": hook}
            }
        return {"httpx_client": sdk_http().Client(params={"key": API_KEY}, event_hooks=hook)}

    live = record(tmp_path, "query_key", fake, run, **keyed_client())
    assert [API_KEY in u for u in urls] == [True, True]  # the key really travelled in the URL
    rep = replay(tmp_path, "query_key", base, offline, run, **keyed_client())

    assert_same_response(rep[0], live[0])
    assert_same_chunks(rep[1], live[1])
    first, second = llm_steps(snapshot_data(tmp_path, "query_key"))
    # (httpx(2) client params replace the query the SDK put in the URL, ?alt=sse included)
    assert [u.split("?", 1)[1].replace(API_KEY, "<redacted>") for u in urls] == [
        "key=<redacted>",
        "key=<redacted>",
    ]
    assert (
        first["exchange"]["request"]["query"]
        == second["exchange"]["request"]["query"]
        == "key=<redacted>"
    )
    assert "request_drift" not in first and "request_drift" not in second


# --------------------------------------------------------------------------- Vertex AI


VERTEX_TOKEN = "ya29.test-SECRET-token"


def vertex_client(base_url: str, **kwargs: Any) -> genai.Client:
    http = types.HttpOptions(
        base_url=base_url,
        client_args={"verify": _TLS},
        async_client_args={"verify": _TLS, "ssl": _TLS},
    )
    return genai.Client(
        vertexai=True, project="proj-1", location="us-central1", http_options=http, **kwargs
    )


def test_vertex_ai_replays_offline_without_credentials(
    fake: FakeGemini, tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    import google.auth
    from google.oauth2.credentials import Credentials

    fake.script(text_reply("Vertex sync."), stream_text_reply(["Vertex ", "async."]))
    base = fake.base_url

    async def run(
        client: genai.Client,
    ) -> tuple[types.GenerateContentResponse, list[types.GenerateContentResponse]]:
        sync = client.models.generate_content(model=MODEL, contents="hi")
        chunks = [
            c
            async for c in await client.aio.models.generate_content_stream(
                model=MODEL, contents="hi"
            )
        ]
        return sync, chunks

    async def record_run() -> Any:
        async with AgentRecorder("vertex", snapshot_dir=tmp_path):
            return await run(vertex_client(base, credentials=Credentials(token=VERTEX_TOKEN)))

    live = asyncio.run(record_run())
    fake.stop()
    assert [r.headers["authorization"] for r in fake.requests] == [f"Bearer {VERTEX_TOKEN}"] * 2
    assert (
        fake.requests[0].path
        == f"/v1beta1/projects/proj-1/locations/us-central1/publishers/google/models/{MODEL}:generateContent"
    )

    def no_adc(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("replay loaded Application Default Credentials")

    monkeypatch.setattr(google.auth, "default", no_adc)

    async def replay_run() -> Any:
        async with AgentAsserter("vertex", snapshot_dir=tmp_path, mode="replay"):
            return await run(vertex_client(base))  # no credentials at all

    with offline():
        rep = asyncio.run(replay_run())
    assert_same_response(rep[0], live[0])
    assert_same_chunks(rep[1], live[1])
    text = snapshot_text(tmp_path, "vertex")
    assert VERTEX_TOKEN not in text
    steps = llm_steps(json.loads(text))
    assert [(s["model"], s["response"], s["stream"]) for s in steps] == [
        (MODEL, "Vertex sync.", False),
        (MODEL, "Vertex async.", True),
    ]
