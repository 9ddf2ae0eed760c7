"""Explicit adapters: transparent proxies that scope a recording to chosen clients and tools.

Every adapter is exercised with the real SDK over a fake provider on a real
loopback socket inside ``AgentRecorder(name, adapters=[...])``; the server is
then stopped and the same code replays inside ``AgentAsserter(mode="replay",
adapters=[...])`` with ``socket.connect`` refused, asserting the replayed object
equals the live one. Scope rules (unwrapped clients refused with
``AdapterNotWrappedError``), ``ToolAdapter`` recording and :func:`wrap` dispatch
are checked with exact values.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import ssl
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anthropic
import cohere
import groq
import httpx2
import openai
import pydantic
import pytest
from google import genai
from google.genai import types as genai_types
from mistralai.client import Mistral

import agentsnap
from agentsnap import (
    AdapterNotWrappedError,
    AgentAsserter,
    AgentRecorder,
    AgentRegressionError,
    ReplayMissError,
    SnapshotStore,
)
from agentsnap.adapters import (
    OPENROUTER_BASE_URL,
    AnthropicAdapter,
    CohereAdapter,
    GeminiAdapter,
    GroqAdapter,
    LangGraphAdapter,
    MistralAdapter,
    OpenAIAdapter,
    OpenRouterAdapter,
    ToolAdapter,
    wrap,
)
from tests import fake_anthropic as fa
from tests import fake_cohere as fc
from tests import fake_gemini as fg
from tests import fake_mistral as fm
from tests import fake_openai_extra as fx
from tests import fake_provider as fo
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.offline import Offline

pytestmark = [
    pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # cohere on pydantic 2.x
]

MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]
_TLS = ssl.create_default_context()  # one SSL context for every client: ~0.1 s saved per client


def snapshot_data(directory: Path, name: str) -> dict[str, Any]:
    return SnapshotStore.read_file(
        SnapshotStore(directory).path_for(name)
    ).to_dict()  # as loaded: the file stores each call\'s messages once


def trace_of(directory: Path, name: str) -> list[dict[str, Any]]:
    return snapshot_data(directory, name)["trace"]


def tool_steps(directory: Path, name: str) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in s.items() if k != "step"}
        for s in trace_of(directory, name)
        if s["type"] == "tool_call"
    ]


# --------------------------------------------------------------------------- one case per SDK


class Addr:
    """A fake's addresses, still readable once the server is stopped (for the replay)."""

    def __init__(self, fake: Any) -> None:
        self.origin = fake.origin
        self.base_url = getattr(fake, "base_url", fake.origin)


@dataclass
class Case:
    """How to drive one SDK through its adapter."""

    name: str
    adapter: type
    provider: str  # the provider name the spec files its traffic under
    fake: Callable[[], fo.FakeProvider]
    reply: Callable[[], fo.Reply]
    client: Callable[[Any], Any]  # fake -> sync client
    aclient: Callable[[Any], Any]  # fake -> async client
    call: Callable[[Any], Any]
    acall: Callable[[Any], Awaitable[Any]]
    class_name: str  # how AdapterNotWrappedError names the sync client
    request_id: bool = True  # the SDK keeps the response's request id (`_request_id`)


def _openai(fake: Any, cls: type = openai.OpenAI) -> Any:
    return cls(base_url=fake.base_url, api_key="sk-test-SECRET-0001", max_retries=0)


def _openrouter(fake: Any, is_async: bool = False) -> Any:
    if is_async:
        http: Any = httpx2.AsyncClient(transport=fx.AsyncLoopbackTransport(fake.origin))
        return openai.AsyncOpenAI(
            base_url=OPENROUTER_BASE_URL,
            api_key="sk-or-SECRET-0001",
            http_client=http,
            max_retries=0,
        )
    http = httpx2.Client(transport=fx.LoopbackTransport(fake.origin))
    return openai.OpenAI(
        base_url=OPENROUTER_BASE_URL, api_key="sk-or-SECRET-0001", http_client=http, max_retries=0
    )


def _chat_call(c: Any) -> Any:
    return c.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)


async def _chat_acall(c: Any) -> Any:
    return await c.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)


def _gemini(fake: Any) -> genai.Client:
    http = genai_types.HttpOptions(
        base_url=fake.base_url,
        client_args={"verify": _TLS},
        async_client_args={"verify": _TLS, "ssl": _TLS},
    )
    return genai.Client(api_key="gm-test-SECRET-0001", http_options=http)


async def _gemini_acall(c: Any) -> Any:
    return await c.aio.models.generate_content(model=fg.MODEL, contents="Weather in Paris?")


async def _mistral_acall(c: Any) -> Any:
    return await c.chat.complete_async(model="mistral-small-latest", messages=MESSAGES)


async def _cohere_acall(c: Any) -> Any:
    return await c.chat(model="command-r", messages=MESSAGES)


async def _anthropic_acall(c: Any) -> Any:
    return await c.messages.create(model=fa.DEFAULT_MODEL, max_tokens=64, messages=MESSAGES)


CASES = [
    Case(
        "openai",
        OpenAIAdapter,
        "openai",
        fo.FakeOpenAI,
        lambda: fo.text_reply("Sunny."),
        _openai,
        lambda f: _openai(f, openai.AsyncOpenAI),
        _chat_call,
        _chat_acall,
        "openai.OpenAI",
    ),
    Case(
        "anthropic",
        AnthropicAdapter,
        "anthropic",
        fa.FakeAnthropic,
        lambda: fa.text_reply("Sunny."),
        lambda f: anthropic.Anthropic(
            base_url=f.base_url,
            api_key="sk-ant-SECRET-0001",
            max_retries=0,
            http_client=anthropic.DefaultHttpxClient(verify=_TLS),
        ),
        lambda f: anthropic.AsyncAnthropic(
            base_url=f.base_url,
            api_key="sk-ant-SECRET-0001",
            max_retries=0,
            http_client=anthropic.DefaultAsyncHttpxClient(verify=_TLS),
        ),
        lambda c: c.messages.create(model=fa.DEFAULT_MODEL, max_tokens=64, messages=MESSAGES),
        _anthropic_acall,
        "anthropic.Anthropic",
    ),
    Case(
        "groq",
        GroqAdapter,
        "groq",
        fx.FakeGroq,
        lambda: fx.groq_reply("Sunny."),
        lambda f: groq.Groq(base_url=f.base_url, api_key="gsk-SECRET-0001", max_retries=0),
        lambda f: groq.AsyncGroq(base_url=f.base_url, api_key="gsk-SECRET-0001", max_retries=0),
        _chat_call,
        _chat_acall,
        "groq.Groq",
        request_id=False,  # groq's models keep no _request_id
    ),
    Case(
        "openrouter",
        OpenRouterAdapter,
        "openrouter",
        fx.FakeOpenRouter,
        lambda: fx.openrouter_reply("Sunny."),
        _openrouter,
        lambda f: _openrouter(f, True),
        _chat_call,
        _chat_acall,
        "openai.OpenAI",
    ),
    Case(
        "mistral",
        MistralAdapter,
        "mistral",
        fm.FakeMistral,
        lambda: fm.text_reply("Sunny."),
        lambda f: Mistral(api_key="ms-SECRET-0001", server_url=f.base_url),
        lambda f: Mistral(api_key="ms-SECRET-0001", server_url=f.base_url),
        lambda c: c.chat.complete(model="mistral-small-latest", messages=MESSAGES),
        _mistral_acall,
        "mistralai.Mistral",
        request_id=False,
    ),
    Case(
        "cohere",
        CohereAdapter,
        "cohere",
        fc.FakeCohere,
        lambda: fc.v2_chat_reply("Sunny."),
        lambda f: cohere.ClientV2(api_key="co-SECRET-0001", base_url=f.base_url, max_retries=0),
        lambda f: cohere.AsyncClientV2(
            api_key="co-SECRET-0001", base_url=f.base_url, max_retries=0
        ),
        lambda c: c.chat(model="command-r", messages=MESSAGES),
        _cohere_acall,
        "cohere.ClientV2",
        request_id=False,
    ),
    Case(
        "gemini",
        GeminiAdapter,
        "google-genai",
        fg.FakeGemini,
        lambda: fg.text_reply("Sunny."),
        _gemini,
        _gemini,
        lambda c: c.models.generate_content(model=fg.MODEL, contents="Weather in Paris?"),
        _gemini_acall,
        "google.genai.Client",
        request_id=False,
    ),
]
CASE_IDS = [c.name for c in CASES]


def dump(obj: Any) -> Any:
    if isinstance(obj, genai_types.GenerateContentResponse):
        return obj.model_dump(
            exclude={"sdk_http_response"}
        )  # every live header vs the allow-listed ones
    return obj.model_dump()


def assert_same(case: Case, replayed: Any, live: Any) -> None:
    assert type(replayed) is type(live)
    assert dump(replayed) == dump(live)
    if case.request_id:
        assert replayed._request_id == live._request_id and live._request_id


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_adapter_records_and_replays_sync(case: Case, tmp_path: Path, offline: Offline) -> None:
    fake = case.fake().start()
    fake.respond_with(lambda body: case.reply())
    addr = Addr(fake)
    raw = case.client(addr)
    client = case.adapter(raw)
    # a transparent proxy: the SDK's class for isinstance, its attributes, wrap() agrees
    assert isinstance(client, type(raw)) and type(client) is case.adapter
    assert client.__wrapped__ is raw
    assert type(wrap(raw)) is case.adapter
    try:
        with AgentRecorder(f"{case.name}_sync", snapshot_dir=tmp_path, adapters=[client]):
            live = case.call(client)
        assert len(fake.requests) == 1
        # inside the same kind of block, another client of the same SDK is refused before sending
        other = case.client(addr)
        with (
            pytest.raises(AdapterNotWrappedError) as info,
            AgentRecorder(f"{case.name}_other", snapshot_dir=tmp_path, adapters=[client]),
        ):
            case.call(other)
        assert len(fake.requests) == 1
    finally:
        fake.stop()
    message = str(info.value)
    assert message.startswith(f"agentsnap: an unwrapped {case.class_name} (base URL ")
    shown = (
        "https://openrouter.ai/api/v1" if case.name == "openrouter" else addr.origin
    )  # the URL the SDK was given
    assert f"(base URL {shown}" in message and f"AgentRecorder('{case.name}_other')" in message
    assert not SnapshotStore(tmp_path).path_for(f"{case.name}_other").exists()

    with (
        offline(),
        AgentAsserter(
            f"{case.name}_sync",
            snapshot_dir=tmp_path,
            mode="replay",
            adapters=[case.adapter(case.client(addr))],
        ) as a,
    ):
        replayed = case.call(a.adapters[0])
    assert_same(case, replayed, live)
    (step,) = trace_of(tmp_path, f"{case.name}_sync")
    assert (step["type"], step["provider"], step["response"]) == (
        "llm_call",
        case.provider,
        "Sunny.",
    )


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_adapter_records_and_replays_async(case: Case, tmp_path: Path, offline: Offline) -> None:
    fake = case.fake().start()
    fake.respond_with(lambda body: case.reply())
    addr = Addr(fake)

    async def run(block: Callable[..., Any], **kw: Any) -> Any:
        client = case.adapter(case.aclient(addr))
        async with block(f"{case.name}_async", snapshot_dir=tmp_path, adapters=[client], **kw):
            return await case.acall(client)

    try:
        live = asyncio.run(run(AgentRecorder))
        assert len(fake.requests) == 1

        async def unwrapped() -> None:
            client = case.adapter(case.aclient(addr))
            async with AgentRecorder(
                f"{case.name}_async_other", snapshot_dir=tmp_path, adapters=[client]
            ):
                await case.acall(case.aclient(addr))

        with pytest.raises(AdapterNotWrappedError):
            asyncio.run(unwrapped())
        assert len(fake.requests) == 1
    finally:
        fake.stop()
    with offline():
        replayed = asyncio.run(run(AgentAsserter, mode="replay"))
    assert_same(case, replayed, live)
    (step,) = trace_of(tmp_path, f"{case.name}_async")
    assert (step["provider"], step["response"]) == (case.provider, "Sunny.")


# --------------------------------------------------------------------------- call shapes through an adapter


def test_openai_adapter_call_shapes(tmp_path: Path, offline: Offline) -> None:
    """Streams, raw responses, the stream() helper and with_options all go through the client's own code."""
    fake = fo.FakeOpenAI().start()
    fake.script(
        fo.stream_text_reply(["Sun", "ny."]),
        fo.text_reply("raw"),
        fo.stream_text_reply(["stre", "amed"]),
        fo.stream_tool_calls_reply([("call_A", "get_weather", {"city": "Paris"})]),
        fo.text_reply("optioned"),
    )

    def run(client: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        with client.chat.completions.create(
            model="gpt-4o-mini", messages=MESSAGES, stream=True
        ) as stream:
            out["stream"] = [c.model_dump() for c in stream]
        raw = client.chat.completions.with_raw_response.create(
            model="gpt-4o-mini", messages=MESSAGES
        )
        out["raw"] = (raw.headers.get("x-request-id"), raw.parse().model_dump())
        with client.chat.completions.with_streaming_response.create(
            model="gpt-4o-mini", messages=MESSAGES, stream=True
        ) as resp:
            out["streaming_response"] = [line for line in resp.iter_lines() if line]
        with client.chat.completions.stream(model="gpt-4o-mini", messages=MESSAGES) as helper:
            out["helper"] = helper.get_final_completion().model_dump()
        out["options"] = (
            client.with_options(timeout=5)
            .chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
            .model_dump()
        )
        return out

    addr = Addr(fake)
    with (
        _adapted(addr) as client,
        AgentRecorder("openai_shapes", snapshot_dir=tmp_path, adapters=[client]),
    ):
        live = run(client)
    fake.stop()
    with (
        offline(),
        _adapted(addr) as client,
        AgentAsserter("openai_shapes", snapshot_dir=tmp_path, mode="replay", adapters=[client]),
    ):
        replayed = run(client)
    assert replayed == live
    assert (
        "".join(c["choices"][0]["delta"]["content"] or "" for c in live["stream"] if c["choices"])
        == "Sunny."
    )
    assert (
        live["helper"]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
        == '{"city":"Paris"}'
    )
    assert live["options"]["choices"][0]["message"]["content"] == "optioned"
    assert [
        s["stream"] for s in trace_of(tmp_path, "openai_shapes") if s["type"] == "llm_call"
    ] == [True, False, True, True, False]


@contextlib.contextmanager
def _adapted(fake: Any) -> Iterator[OpenAIAdapter]:
    """``with OpenAIAdapter(OpenAI(...)) as client`` binds the adapter, not the bare client."""
    with OpenAIAdapter(_openai(fake)) as client:
        assert type(client) is OpenAIAdapter
        yield client


def test_anthropic_adapter_stream_manager(tmp_path: Path, offline: Offline) -> None:
    fake = fa.FakeAnthropic().start()
    fake.script(
        fa.stream_reply(
            fa.text_block("Sunny in Paris."),
            fa.tool_use_block("toolu_A", "get_weather", {"city": "Paris"}),
        )
    )
    base = fake.base_url

    def run(client: Any) -> tuple[list[str], dict[str, Any], str | None]:
        with client.messages.stream(
            model=fa.DEFAULT_MODEL, max_tokens=64, messages=MESSAGES
        ) as stream:
            text = list(stream.text_stream)
            final = stream.get_final_message()
            request_id = stream.response.headers.get("request-id")
        return text, final.model_dump(), request_id

    def make() -> AnthropicAdapter:
        return AnthropicAdapter(
            anthropic.Anthropic(
                base_url=base,
                api_key="sk-ant-SECRET-0001",
                max_retries=0,
                http_client=anthropic.DefaultHttpxClient(verify=_TLS),
            )
        )

    client = make()
    with AgentRecorder("anthropic_stream", snapshot_dir=tmp_path, adapters=[client]):
        live = run(client)
    fake.stop()
    client = make()
    with (
        offline(),
        AgentAsserter("anthropic_stream", snapshot_dir=tmp_path, mode="replay", adapters=[client]),
    ):
        replayed = run(client)
    assert replayed == live
    assert "".join(live[0]) == "Sunny in Paris."
    assert live[2] is not None and live[2].startswith("req_")
    assert live[1]["content"][1]["input"] == {"city": "Paris"}
    (step,) = trace_of(tmp_path, "anthropic_stream")
    assert step["tool_requests"] == [
        {"id": "toolu_A", "name": "get_weather", "args": {"city": "Paris"}}
    ]


# --------------------------------------------------------------------------- scope rules


@pytest.fixture
def fake_openai() -> Iterator[fo.FakeOpenAI]:
    with fo.FakeOpenAI() as fake:
        fake.respond_with(
            lambda body: fo.text_reply("Answer to " + body["messages"][-1]["content"])
        )
        yield fake


def ask(client: Any, text: str) -> str:
    return (
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": text}]
        )
        .choices[0]
        .message.content
    )


def test_without_adapters_every_sdk_call_is_recorded(
    fake_openai: fo.FakeOpenAI, tmp_path: Path
) -> None:
    wrapped, bare = OpenAIAdapter(_openai(fake_openai)), _openai(fake_openai)
    with AgentRecorder("unscoped", snapshot_dir=tmp_path):
        assert ask(wrapped, "one") == "Answer to one"
        assert ask(bare, "two") == "Answer to two"
    assert [s["messages"][0]["content"] for s in trace_of(tmp_path, "unscoped")] == ["one", "two"]


def test_a_wrapped_client_not_listed_is_out_of_scope(
    fake_openai: fo.FakeOpenAI, tmp_path: Path
) -> None:
    listed, unlisted = OpenAIAdapter(_openai(fake_openai)), OpenAIAdapter(_openai(fake_openai))
    with (
        pytest.raises(AdapterNotWrappedError, match=r"AgentRecorder\('scoped'\)"),
        AgentRecorder("scoped", snapshot_dir=tmp_path, adapters=[listed]),
    ):
        ask(listed, "in scope")
        ask(unlisted, "out of scope")
    assert [r.body["messages"][0]["content"] for r in fake_openai.requests] == ["in scope"]
    assert not SnapshotStore(tmp_path).path_for("scoped").exists()


def test_scope_follows_the_http_client_across_threads_and_with_options(
    fake_openai: fo.FakeOpenAI, tmp_path: Path
) -> None:
    client = OpenAIAdapter(_openai(fake_openai))
    with AgentRecorder("threads", snapshot_dir=tmp_path, adapters=[client]):
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda q: ask(client, q), ["a", "b", "c", "d"]))
        answers.append(ask(client.with_options(max_retries=1), "e"))
        answers.append(ask(client.__wrapped__, "f"))  # the same SDK client: the same HTTP client
    assert answers == [f"Answer to {q}" for q in "abcdef"]
    assert sorted(s["messages"][0]["content"] for s in trace_of(tmp_path, "threads")) == list(
        "abcdef"
    )


def test_the_refusal_is_not_retried_nor_wrapped_by_the_sdk(
    fake_openai: fo.FakeOpenAI, tmp_path: Path
) -> None:
    client = OpenAIAdapter(_openai(fake_openai))
    bare = openai.OpenAI(
        base_url=fake_openai.base_url, api_key="sk-test-SECRET-0001", max_retries=3
    )
    rec = AgentRecorder("no_retry", snapshot_dir=tmp_path, adapters=[client])
    with pytest.raises(AdapterNotWrappedError) as info, rec:
        try:
            ask(bare, "x")
        except Exception:
            pytest.fail("AdapterNotWrappedError was caught as an Exception")
    assert len(rec._recording.adapter_scope.violations) == 1  # one attempt: the SDK did not retry
    assert not isinstance(info.value, Exception) and isinstance(info.value, BaseException)
    assert fake_openai.requests == []
    assert "max_retries" not in str(info.value) and "Nothing was sent." in str(info.value)


def test_a_swallowed_refusal_still_fails_the_block(
    fake_openai: fo.FakeOpenAI, tmp_path: Path
) -> None:
    client = OpenAIAdapter(_openai(fake_openai))
    with (
        pytest.raises(AdapterNotWrappedError, match=r"unwrapped openai\.OpenAI") as info,
        AgentRecorder("swallowed", snapshot_dir=tmp_path, adapters=[client]),
    ):
        ask(client, "fine")
        with contextlib.suppress(BaseException):
            ask(_openai(fake_openai), "refused")
    assert info.value.__cause__ is None
    assert len(fake_openai.requests) == 1
    assert not SnapshotStore(tmp_path).path_for("swallowed").exists()


def test_unrecognised_traffic_passes_through_a_scoped_block(
    fake_openai: fo.FakeOpenAI, tmp_path: Path
) -> None:
    client = OpenAIAdapter(_openai(fake_openai))
    with AgentRecorder("passthrough", snapshot_dir=tmp_path, adapters=[client]):
        ask(client, "q")
        with (
            httpx2.Client() as plain
        ):  # no SDK User-Agent, and no `model`: not a chat completion by its shape
            status = plain.post(
                f"{fake_openai.base_url}/chat/completions", json={"messages": MESSAGES}
            ).status_code
    assert status == 200 and len(fake_openai.requests) == 2
    assert [s["type"] for s in trace_of(tmp_path, "passthrough")] == ["llm_call"]


def test_an_llm_call_by_wire_shape_from_an_unwrapped_client_is_refused_in_a_scoped_block(
    fake_openai: fo.FakeOpenAI, tmp_path: Path
) -> None:
    """Recognition is by the call's shape, whatever sent it: a plain httpx2 client's chat
    completion is an LLM call, so a block scoped to adapters refuses it like any unwrapped client."""
    client = OpenAIAdapter(_openai(fake_openai))
    with pytest.raises(AdapterNotWrappedError, match=r"POST /v1/chat/completions"):
        with AgentRecorder("scoped_wire", snapshot_dir=tmp_path, adapters=[client]):
            ask(client, "q")
            with httpx2.Client() as plain:
                plain.post(
                    f"{fake_openai.base_url}/chat/completions",
                    json={"model": "m", "messages": MESSAGES},
                )
    assert len(fake_openai.requests) == 1


def test_adapters_argument_takes_adapters_only(fake_openai: fo.FakeOpenAI, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"adapters= takes adapter objects .* not openai\.OpenAI"):
        AgentRecorder("bad", snapshot_dir=tmp_path, adapters=[_openai(fake_openai)])
    with pytest.raises(
        TypeError, match=r"OpenAIAdapter wraps a openai client, not anthropic\.Anthropic"
    ):
        OpenAIAdapter(anthropic.Anthropic(api_key="k"))
    with pytest.raises(TypeError, match="LangGraphAdapter wraps a compiled graph"):
        LangGraphAdapter(object())
    with pytest.raises(TypeError, match="ToolAdapter wraps a callable"):
        ToolAdapter(42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- ToolAdapter


def search(query: str, limit: int = 5, *tags: str, **filters: Any) -> list[str]:
    """Search the docs."""
    return [f"{query}#{i}" for i in range(min(limit, 2))]


async def fetch(url: str, *, retries: int = 0) -> dict[str, Any]:
    """Fetch a page."""
    await asyncio.sleep(0)
    return {"url": url, "retries": retries}


def divide(a: float, b: float) -> float:
    return a / b


async def afail(code: int) -> None:
    await asyncio.sleep(0)
    raise LookupError(f"no page {code}")


def test_tool_adapter_binds_positional_and_keyword_arguments(tmp_path: Path) -> None:
    tool = ToolAdapter(search, name="docs_search")
    with AgentRecorder("tool_args", snapshot_dir=tmp_path):
        assert tool("python") == ["python#0", "python#1"]
        assert tool("wrapt", 1) == ["wrapt#0"]
        assert tool(query="pytest", limit=2) == ["pytest#0", "pytest#1"]
        tool("x", 3, "a", "b", lang="en")
    assert tool_steps(tmp_path, "tool_args") == [
        {
            "type": "tool_call",
            "name": "docs_search",
            "args": {"query": "python"},
            "result": ["python#0", "python#1"],
            "id": None,
        },
        {
            "type": "tool_call",
            "name": "docs_search",
            "args": {"query": "wrapt", "limit": 1},
            "result": ["wrapt#0"],
            "id": None,
        },
        {
            "type": "tool_call",
            "name": "docs_search",
            "args": {"query": "pytest", "limit": 2},
            "result": ["pytest#0", "pytest#1"],
            "id": None,
        },
        {
            "type": "tool_call",
            "name": "docs_search",
            "args": {"query": "x", "limit": 3, "tags": ["a", "b"], "lang": "en"},
            "result": ["x#0", "x#1"],
            "id": None,
        },
    ]


def test_tool_adapter_records_then_reraises_exceptions(tmp_path: Path) -> None:
    tool = ToolAdapter(divide)
    with AgentRecorder("tool_error", snapshot_dir=tmp_path):
        with pytest.raises(ZeroDivisionError) as info:
            tool(1, 0)
        assert tool(b=4, a=2) == 0.5
    assert str(info.value) == "division by zero"
    assert tool_steps(tmp_path, "tool_error") == [
        {
            "type": "tool_call",
            "name": "divide",
            "args": {"a": 1, "b": 0},
            "result": None,
            "id": None,
            "error": {"type": "ZeroDivisionError", "message": "division by zero"},
        },
        {
            "type": "tool_call",
            "name": "divide",
            "args": {"a": 2, "b": 4},
            "result": 0.5,
            "id": None,
        },
    ]


def test_async_tool_adapter_records_the_awaited_result(tmp_path: Path) -> None:
    fetcher, failer = ToolAdapter(fetch), ToolAdapter(afail, name="fail")
    assert inspect.iscoroutinefunction(fetcher) and not inspect.iscoroutinefunction(
        ToolAdapter(divide)
    )

    async def main(block: Callable[..., Any], **kw: Any) -> Any:
        async with block("tool_async", snapshot_dir=tmp_path, **kw) as b:
            pending = fetcher("https://example.org", retries=2)
            assert inspect.iscoroutine(pending)
            page = await pending
            with pytest.raises(LookupError, match="no page 404"):
                await failer(404)
            gathered = await asyncio.gather(fetcher("a"), fetcher("b"))
            b.output = page["url"]
        return page, gathered, b

    page, gathered, _ = asyncio.run(main(AgentRecorder))
    assert page == {"url": "https://example.org", "retries": 2}
    assert gathered == [{"url": "a", "retries": 0}, {"url": "b", "retries": 0}]
    steps = tool_steps(tmp_path, "tool_async")
    assert steps[:2] == [
        {
            "type": "tool_call",
            "name": "fetch",
            "args": {"url": "https://example.org", "retries": 2},
            "result": {"url": "https://example.org", "retries": 2},
            "id": None,
        },
        {
            "type": "tool_call",
            "name": "fail",
            "args": {"code": 404},
            "result": None,
            "id": None,
            "error": {"type": "LookupError", "message": "no page 404"},
        },
    ]
    assert sorted(s["args"]["url"] for s in steps[2:]) == ["a", "b"]
    # replayed (no LLM call to serve): the same tool steps, compared with the golden
    replayed_page, _, asserter = asyncio.run(main(AgentAsserter, mode="replay"))
    assert replayed_page == page
    assert asserter.outcome is not None and asserter.outcome.action == "passed"


def test_tool_adapter_is_a_transparent_function_proxy(tmp_path: Path) -> None:
    tool = ToolAdapter(search, name="docs_search")
    assert tool.__name__ == tool.tool_name == "docs_search"
    assert tool.__doc__ == "Search the docs."
    assert inspect.signature(tool) == inspect.signature(search)
    assert tool.__wrapped__ is search
    assert repr(tool).startswith("ToolAdapter(<function search") and repr(tool).endswith(
        "name='docs_search')"
    )
    assert type(wrap(search)) is ToolAdapter and wrap(tool) is tool
    # no active recording: a plain call, nothing recorded anywhere
    assert tool("solo") == ["solo#0", "solo#1"]

    class Agent:
        lookup = ToolAdapter(search, name="lookup")

        def __init__(self) -> None:
            self.unit = "km"

        @ToolAdapter
        def distance(self, city: str) -> str:
            return f"42 {self.unit} to {city}"

    with AgentRecorder("tool_methods", snapshot_dir=tmp_path):
        assert Agent().distance("Lyon") == "42 km to Lyon"
        assert Agent.lookup("q", limit=1) == ["q#0"]
    assert [(s["name"], s["args"], s["result"]) for s in tool_steps(tmp_path, "tool_methods")] == [
        ("distance", {"city": "Lyon"}, "42 km to Lyon"),
        ("lookup", {"query": "q", "limit": 1}, ["q#0"]),
    ]


@dataclass
class Forecast:
    city: str
    temps: tuple[int, ...]


class Reading(pydantic.BaseModel):
    sensor: str
    value: float


class Opaque:
    pass


def test_tool_adapter_stores_json_friendly_values(tmp_path: Path) -> None:
    tool = ToolAdapter(lambda item: item, name="echo")
    with AgentRecorder("tool_values", snapshot_dir=tmp_path):
        tool(Forecast("Paris", (18, 21)))
        tool(Reading(sensor="t1", value=1.5))
        tool({"tags": {"b", "a"}, 3: b"bytes"})
        tool(Opaque())
    assert [s["result"] for s in tool_steps(tmp_path, "tool_values")] == [
        {"city": "Paris", "temps": [18, 21]},
        {"sensor": "t1", "value": 1.5},
        {"tags": ["a", "b"], "3": "bytes"},
        "<tests.test_adapters.Opaque>",
    ]


def test_a_scoped_block_records_only_its_listed_tools(
    fake_openai: fo.FakeOpenAI, tmp_path: Path
) -> None:
    client = OpenAIAdapter(_openai(fake_openai))
    listed, unlisted = ToolAdapter(divide, name="listed"), ToolAdapter(divide, name="unlisted")
    with AgentRecorder("tool_scope", snapshot_dir=tmp_path, adapters=[client, listed]):
        ask(client, "q")
        assert listed(6, 3) == 2 and unlisted(8, 2) == 4
    assert [s["name"] for s in tool_steps(tmp_path, "tool_scope")] == ["listed"]
    with AgentRecorder("tool_unscoped", snapshot_dir=tmp_path):
        listed(6, 3), unlisted(8, 2)
    assert [s["name"] for s in tool_steps(tmp_path, "tool_unscoped")] == ["listed", "unlisted"]


def _tool_agent(client: Any, weather: Any) -> str:
    """A plain tool loop: explicit ToolAdapter steps replace the conversation-derived ones."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
    while True:
        message = (
            client.chat.completions.create(model="gpt-4o-mini", messages=messages)
            .choices[0]
            .message
        )
        if not message.tool_calls:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = weather(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


def _weather_model(body: dict[str, Any]) -> fo.Reply:
    if body["messages"][-1]["role"] == "tool":
        return fo.text_reply("It is " + body["messages"][-1]["content"])
    return fo.tool_calls_reply([("call_1", "get_weather", {"city": "Paris"})])


def test_explicit_tool_steps_replay_and_catch_argument_drift(
    tmp_path: Path, offline: Offline
) -> None:
    fake = fo.FakeOpenAI().start()
    fake.respond_with(_weather_model)
    addr = Addr(fake)
    weather = ToolAdapter(lambda city: f"rainy in {city}", name="get_weather")
    with AgentRecorder(
        "tool_replay", snapshot_dir=tmp_path, adapters=[OpenAIAdapter(_openai(fake)), weather]
    ) as rec:
        rec.output = _tool_agent(rec.adapters[0], weather)
    fake.stop()
    assert rec.output == "It is rainy in Paris"
    assert [(s["type"], s.get("name"), s.get("id")) for s in trace_of(tmp_path, "tool_replay")] == [
        ("llm_call", None, None),
        ("tool_call", "get_weather", None),  # explicit (no id), not the derived call_1
        ("llm_call", None, None),
    ]

    with (
        offline(),
        AgentAsserter(
            "tool_replay",
            snapshot_dir=tmp_path,
            mode="replay",
            adapters=[OpenAIAdapter(_openai(addr)), weather],
        ) as a,
    ):
        a.output = _tool_agent(a.adapters[0], weather)
    assert a.outcome is not None and a.outcome.action == "passed"

    drifted = ToolAdapter(lambda city: f"rainy in {city}", name="get_weather")
    with (
        pytest.raises(AgentRegressionError) as info,
        offline(),
        AgentAsserter(
            "tool_replay",
            snapshot_dir=tmp_path,
            mode="replay",
            adapters=[OpenAIAdapter(_openai(addr)), drifted],
        ) as a,
    ):
        _tool_agent(a.adapters[0], lambda city: drifted(city=city.upper()))
        a.output = "It is rainy in Paris"
    assert "arguments" in info.value.diff_report.failed_checks


def test_replay_tools_serves_recorded_results_without_running_the_tools(tmp_path: Path) -> None:
    ran: list[str] = []

    def lookup(city: str) -> str:
        ran.append(city)
        return f"sunny in {city} at {len(ran)}"

    async def fetch_page(url: str) -> dict[str, Any]:
        ran.append(url)
        return {"url": url, "n": len(ran)}

    def broken(x: int) -> int:
        raise ValueError(f"bad x {x}")

    sync_tool, async_tool, failing = (
        ToolAdapter(lookup, name="lookup"),
        ToolAdapter(fetch_page),
        ToolAdapter(broken),
    )

    def agent() -> list[Any]:
        out: list[Any] = [
            sync_tool("Paris"),
            asyncio.run(async_tool(url="https://x.test")),
            sync_tool(city="Rome"),
        ]
        try:
            failing(3)
        except ValueError as exc:
            out.append(f"error: {exc}")
        return out

    with AgentRecorder("tools", snapshot_dir=tmp_path) as rec:
        rec.output = agent()
    recorded = rec.output
    assert recorded == [
        "sunny in Paris at 1",
        {"url": "https://x.test", "n": 2},
        "sunny in Rome at 3",
        "error: bad x 3",
    ]
    ran.clear()

    with AgentAsserter("tools", snapshot_dir=tmp_path, mode="replay", replay_tools=True) as a:
        a.output = agent()
    assert ran == []  # no tool ran: every result came from the snapshot
    assert (
        a.output == recorded
    )  # the async tool's result awaited, the recorded error raised as ValueError again
    assert a.outcome is not None and a.outcome.action == "passed"

    with AgentAsserter("tools", snapshot_dir=tmp_path, mode="replay") as a:  # default: tools run
        a.output = agent()
    assert ran == ["Paris", "https://x.test", "Rome"]

    with pytest.raises(
        ReplayMissError,
        match=r"tool 'lookup' was called with \{'city': 'Oslo'\} but the snapshot has no recorded call of it left",
    ):
        with AgentAsserter("tools", snapshot_dir=tmp_path, mode="replay", replay_tools=True) as a:
            agent()
            sync_tool("Oslo")


# --------------------------------------------------------------------------- wrap() and the import surface


def test_wrap_picks_the_adapter_by_class(tmp_path: Path) -> None:
    from langchain_anthropic import ChatAnthropic
    from langchain_openai import ChatOpenAI

    assert type(wrap(openai.OpenAI(api_key="k"))) is OpenAIAdapter
    assert type(wrap(openai.AsyncOpenAI(api_key="k"))) is OpenAIAdapter
    assert type(wrap(openai.OpenAI(api_key="k", base_url=OPENROUTER_BASE_URL))) is OpenRouterAdapter
    assert type(wrap(anthropic.AsyncAnthropic(api_key="k"))) is AnthropicAdapter
    assert type(wrap(groq.AsyncGroq(api_key="k"))) is GroqAdapter
    assert type(wrap(Mistral(api_key="k"))) is MistralAdapter
    assert type(wrap(cohere.Client(api_key="k"))) is CohereAdapter
    assert type(wrap(ChatOpenAI(api_key="k"))) is OpenAIAdapter
    assert type(wrap(ChatOpenAI(api_key="k", base_url=OPENROUTER_BASE_URL))) is OpenRouterAdapter
    assert type(wrap(ChatAnthropic(model="claude-sonnet-4-6", api_key="k"))) is AnthropicAdapter

    class MyClient(openai.OpenAI):  # a user's subclass
        pass

    assert type(wrap(MyClient(api_key="k"))) is OpenAIAdapter
    wrapped = wrap(openai.OpenAI(api_key="k"))
    assert wrap(wrapped) is wrapped and agentsnap.wrap is wrap
    with pytest.raises(TypeError, match=r"no adapter for builtins\.int"):
        wrap(3)


def test_the_documented_import_paths_import_no_sdk() -> None:
    code = (
        "import sys\n"
        "from agentsnap import AgentRecorder, AdapterNotWrappedError, wrap\n"
        "from agentsnap.adapters.openai import OpenAIAdapter\n"
        "from agentsnap.adapters.anthropic import AnthropicAdapter\n"
        "from agentsnap.adapters.google import GeminiAdapter\n"
        "from agentsnap.adapters.cohere import CohereAdapter\n"
        "from agentsnap.adapters.mistral import MistralAdapter\n"
        "from agentsnap.adapters.groq import GroqAdapter\n"
        "from agentsnap.adapters.openrouter import OpenRouterAdapter, OPENROUTER_BASE_URL\n"
        "from agentsnap.adapters.langgraph import LangGraphAdapter\n"
        "from agentsnap.adapters.tool import ToolAdapter\n"
        "import agentsnap.adapters as a\n"
        "assert set(a.__all__) >= {'wrap', 'OpenAIAdapter', 'AnthropicAdapter', 'GeminiAdapter', 'CohereAdapter',"
        " 'MistralAdapter', 'GroqAdapter', 'OpenRouterAdapter', 'LangGraphAdapter', 'ToolAdapter'}\n"
        "roots = {n.split('.')[0] for n in sys.modules}\n"
        "print(sorted(roots & {'openai', 'anthropic', 'groq', 'cohere', 'mistralai', 'langgraph', 'langchain_core', 'httpx', 'httpx2'}))\n"
        "print('google.genai' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[:2] == ["[]", "False"]


def test_replay_tools_serves_async_callables_that_are_not_functions(tmp_path: Path) -> None:
    import functools

    ran: list[str] = []

    class Search:
        async def __call__(self, q: str) -> str:
            ran.append(q)
            return f"hit:{q}"

    async def fetch(url: str, *, retries: int) -> str:
        ran.append(url)
        return f"page:{url}:{retries}"

    callable_tool = ToolAdapter(Search(), name="search")
    partial_tool = ToolAdapter(functools.partial(fetch, retries=2), name="fetch")

    async def agent() -> list[str]:
        return [await callable_tool("x"), await partial_tool("u")]

    with AgentRecorder("async_callables", snapshot_dir=tmp_path) as rec:
        rec.output = asyncio.run(agent())
    assert rec.output == ["hit:x", "page:u:2"] and ran == ["x", "u"]
    ran.clear()
    with AgentAsserter(
        "async_callables", snapshot_dir=tmp_path, mode="replay", replay_tools=True
    ) as a:
        a.output = asyncio.run(agent())
    assert a.output == ["hit:x", "page:u:2"] and ran == []


def test_replay_tools_raises_a_recorded_key_error_with_the_same_key(tmp_path: Path) -> None:
    def lookup(key: str) -> str:
        raise KeyError(key)

    tool = ToolAdapter(lookup, name="lookup")

    def agent() -> str:
        try:
            tool("k")
        except KeyError as exc:
            return f"{exc!s}|{exc.args!r}"
        return "no error"

    with AgentRecorder("key_error", snapshot_dir=tmp_path) as rec:
        rec.output = agent()
    with AgentAsserter("key_error", snapshot_dir=tmp_path, mode="replay", replay_tools=True) as a:
        a.output = agent()
    assert a.output == rec.output == "'k'|('k',)"
