"""LangGraph agents (ChatOpenAI and ChatAnthropic with Python tools), recorded and replayed.

Each test runs an unchanged LangGraph agent — ``create_react_agent`` or a
hand-built ``StateGraph`` — whose chat model talks to a fake provider on a
real loopback socket inside ``AgentRecorder``; then stops the server and runs
the same agent inside ``AgentAsserter(mode="replay")`` with ``socket.connect``
refused, and checks that the transcript is identical message by message and
that the snapshot holds the agent's tool calls as ``tool_call`` steps.

LangGraph makes no LLM calls itself: ``langchain-openai`` and
``langchain-anthropic`` call the ``openai`` / ``anthropic`` SDKs (mostly
through ``with_raw_response``), whose requests agentsnap captures at ``send``.
"""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from langchain_anthropic import ChatAnthropic
    from langchain_core.messages import (
        AIMessage,
        HumanMessage,
        ToolMessage,
    )
    from langchain_openai import AzureChatOpenAI, ChatOpenAI
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, create_react_agent, tools_condition

from agentsnap import (
    AdapterNotWrappedError,
    AgentAsserter,
    AgentRecorder,
    ReplayMissError,
    SnapshotStore,
)
from agentsnap.adapters import LangGraphAdapter, ToolAdapter, wrap
from agentsnap.spec.provider_specs import load_specs
from tests import fake_anthropic as fa
from tests import fake_provider as fo
from tests._support.offline import Offline
from tests.fake_anthropic import FakeAnthropic
from tests.fake_provider import FakeOpenAI

pytestmark = [
    pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:create_react_agent has been moved"),
]

OPENAI_MODEL = "gpt-4o-mini"
ANTHROPIC_MODEL = "claude-sonnet-4-6"
TIME_ZONES = {"Paris": "Europe/Paris", "Tokyo": "Asia/Tokyo"}
WEATHER = {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}
CLOCK = {"Europe/Paris": "09:30", "Asia/Tokyo": "16:30"}


# --------------------------------------------------------------------------- the agent's tools


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return WEATHER.get(city, f"no data for {city}")


def get_time(tz: str) -> str:
    """Local time in an IANA time zone."""
    return f"{CLOCK.get(tz, '??:??')} ({tz})"


TOOLS = [get_weather, get_time]


def _city(text: str) -> str:
    return next((c for c in TIME_ZONES if c in text), "Paris")


def _answer(results: dict[str, str], city: str) -> str:
    return f"{city}: {results['get_weather']}, local time {results['get_time']}."


# --------------------------------------------------------------------------- deterministic fake models


def openai_model(body: dict[str, Any]) -> fo.Reply:
    """Plays the model for ChatOpenAI: both tools in parallel, then an answer quoting their results."""
    messages = body["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    city = _city(str(messages[last_user]["content"]))
    slug = city.lower()
    stream = body.get("stream") is True
    names = {
        c["id"]: c["function"]["name"]
        for m in messages[last_user:]
        for c in m.get("tool_calls") or ()
    }
    results = {
        names[m["tool_call_id"]]: m["content"] for m in messages[last_user:] if m["role"] == "tool"
    }
    if not results:
        calls = [
            (f"call_weather_{slug}", "get_weather", {"city": city}),
            (f"call_time_{slug}", "get_time", {"tz": TIME_ZONES[city]}),
        ]
        if stream:
            return fo.stream_tool_calls_reply(calls, usage=(40, 12))
        return fo.tool_calls_reply(calls, usage=(40, 12))
    text = _answer(results, city)
    if stream:
        return fo.stream_text_reply(re.findall(r"\S+\s*", text), usage=(80, 14))
    return fo.text_reply(text, usage=(80, 14))


def anthropic_model(body: dict[str, Any]) -> fo.Reply:
    """Plays the model for ChatAnthropic (Messages API: tool_use blocks, tool_result blocks)."""
    messages = body["messages"]
    first = messages[0]["content"]
    city = _city(first if isinstance(first, str) else json.dumps(first))
    slug = city.lower()
    stream = body.get("stream") is True
    last = messages[-1]
    results_blocks = (
        [b for b in last["content"] if b.get("type") == "tool_result"]
        if isinstance(last["content"], list)
        else []
    )
    if not results_blocks:
        blocks = (
            fa.text_block(f"Looking up {city}."),
            fa.tool_use_block(f"toolu_weather_{slug}", "get_weather", {"city": city}),
            fa.tool_use_block(f"toolu_time_{slug}", "get_time", {"tz": TIME_ZONES[city]}),
        )
        if stream:
            return fa.stream_reply(*blocks, usage=(40, 12), interleave=True)
        return fa.message_reply(*blocks, usage=(40, 12))
    names = {
        b["id"]: b["name"]
        for m in messages
        for b in (m["content"] if isinstance(m["content"], list) else ())
        if b.get("type") == "tool_use"
    }
    results = {names[b["tool_use_id"]]: _tool_result_text(b["content"]) for b in results_blocks}
    text = _answer(results, city)
    if stream:
        return fa.stream_text_reply(text, usage=(80, 14))
    return fa.text_reply(text, usage=(80, 14))


def _tool_result_text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return str(content)


class Provider:
    """One provider under test: its fake server, its LangChain chat model, its expectations."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.fake = FakeOpenAI() if name == "openai" else FakeAnthropic()
        self.fake.respond_with(openai_model if name == "openai" else anthropic_model)
        self.base_url = ""

    def start(self) -> Provider:
        self.fake.start()
        self.base_url = self.fake.base_url
        return self

    def model(self, **kwargs: Any) -> Any:
        if self.name == "openai":
            return ChatOpenAI(
                model=OPENAI_MODEL,
                base_url=self.base_url,
                api_key="sk-test-SECRET-1234",
                max_retries=0,
                **kwargs,
            )
        return ChatAnthropic(
            model=ANTHROPIC_MODEL,
            base_url=self.base_url,
            api_key="sk-ant-test-SECRET-1234",
            max_retries=0,
            **kwargs,
        )

    @property
    def call_ids(self) -> tuple[str, str]:
        prefix = "call" if self.name == "openai" else "toolu"
        return (f"{prefix}_weather_paris", f"{prefix}_time_paris")


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> Iterator[Provider]:
    p = Provider(request.param).start()
    yield p
    p.fake.stop()


# --------------------------------------------------------------------------- helpers


def react_agent(model: Any) -> Any:
    return create_react_agent(model, TOOLS)


def state_graph_agent(model: Any) -> Any:
    """The same agent written by hand: model node, ToolNode, tools_condition."""
    bound = model.bind_tools(TOOLS)

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model)
    builder.add_node("tools", ToolNode(TOOLS))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")  # tools_condition routes "model" to "tools" or END
    return builder.compile()


def question(city: str = "Paris") -> dict[str, Any]:
    return {"messages": [("user", f"What's the weather and the time in {city}?")]}


def transcript(messages: list[Any]) -> list[tuple[type, dict[str, Any]]]:
    """Each message's class and every field but the random LangChain ``id``."""
    return [(type(m), m.model_dump(exclude={"id"})) for m in messages]


def assert_same_transcript(replayed: list[Any], live: list[Any]) -> None:
    assert [type(m) for m in replayed] == [type(m) for m in live]
    assert transcript(replayed) == transcript(live)
    for r, recorded in zip(replayed, live, strict=True):
        assert r.content == recorded.content
        assert getattr(r, "tool_calls", None) == getattr(recorded, "tool_calls", None)


def text_of(message: Any) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(part["text"] for part in message.content if part.get("type") == "text")


def snapshot_data(directory: Path, name: str) -> dict[str, Any]:
    return SnapshotStore.read_file(
        SnapshotStore(directory).path_for(name)
    ).to_dict()  # as loaded: the file stores each call\'s messages once


def steps(directory: Path, name: str) -> list[dict[str, Any]]:
    return snapshot_data(directory, name)["trace"]


def expected_tool_steps(p: Provider) -> list[dict[str, Any]]:
    weather_id, time_id = p.call_ids
    return [
        {
            "type": "tool_call",
            "name": "get_weather",
            "args": {"city": "Paris"},
            "result": "Light rain, 18°C",
            "id": weather_id,
        },
        {
            "type": "tool_call",
            "name": "get_time",
            "args": {"tz": "Europe/Paris"},
            "result": "09:30 (Europe/Paris)",
            "id": time_id,
        },
    ]


FINAL_PARIS = "Paris: Light rain, 18°C, local time 09:30 (Europe/Paris)."


def check_trace(directory: Path, name: str, p: Provider, *, stream: bool) -> None:
    trace = steps(directory, name)
    assert [s["type"] for s in trace] == ["llm_call", "tool_call", "tool_call", "llm_call"]
    first, second = trace[0], trace[3]
    assert [first["provider"], second["provider"]] == [p.name, p.name]
    assert [first["stream"], second["stream"]] == [stream, stream]
    assert first["tools"] == ["get_weather", "get_time"]
    weather_id, time_id = p.call_ids
    assert [(r["id"], r["name"], r["args"]) for r in first["tool_requests"]] == [
        (weather_id, "get_weather", {"city": "Paris"}),
        (time_id, "get_time", {"tz": "Europe/Paris"}),
    ]
    assert second["response"] == FINAL_PARIS
    assert second["tool_requests"] == []
    assert [
        {k: s[k] for k in ("type", "name", "args", "result", "id")} for s in trace[1:3]
    ] == expected_tool_steps(p)


# --------------------------------------------------------------------------- recognition


def test_langchain_user_agents_reach_the_provider_specs(provider: Provider, tmp_path: Path) -> None:
    import anthropic
    import openai

    specs = {s.name: s for s in load_specs()}
    with AgentRecorder("user_agent", snapshot_dir=tmp_path):
        provider.model().invoke("What's the weather and the time in Paris?")
    agent = provider.fake.requests[0].headers["user-agent"]
    if provider.name == "openai":
        assert (
            agent == f"OpenAI/Python {openai.__version__}"
        )  # ChatOpenAI keeps the SDK's own User-Agent
    else:
        from importlib.metadata import version

        # langchain-anthropic 0.3.9+ replaces it with its own; older releases keep the SDK's
        assert agent in (
            f"langchain-anthropic/{version('langchain-anthropic')}",
            f"Anthropic/Python {anthropic.__version__}",
        )
    assert agent.startswith(specs[provider.name].user_agent_prefixes)
    (step,) = steps(tmp_path, "user_agent")
    assert (step["type"], step["provider"], step["messages"][-1]["content"]) == (
        "llm_call",
        provider.name,
        "What's the weather and the time in Paris?",
    )


# --------------------------------------------------------------------------- create_react_agent


def test_react_agent_sync(provider: Provider, tmp_path: Path, offline: Offline) -> None:
    with AgentRecorder("react_sync", snapshot_dir=tmp_path) as rec:
        live = react_agent(provider.model()).invoke(question())
        rec.output = live["messages"][-1].content
    assert len(provider.fake.requests) == 2
    provider.fake.stop()

    with offline(), AgentAsserter("react_sync", snapshot_dir=tmp_path, mode="replay") as a:
        replayed = react_agent(provider.model()).invoke(question())
        a.output = replayed["messages"][-1].content

    assert [type(m) for m in live["messages"]] == [
        HumanMessage,
        AIMessage,
        ToolMessage,
        ToolMessage,
        AIMessage,
    ]
    assert_same_transcript(replayed["messages"], live["messages"])
    assert replayed["messages"][-1].content == FINAL_PARIS
    assert [c["id"] for c in replayed["messages"][1].tool_calls] == list(provider.call_ids)
    assert a.outcome is not None and a.outcome.action == "passed"
    check_trace(tmp_path, "react_sync", provider, stream=False)


def test_react_agent_async(provider: Provider, tmp_path: Path, offline: Offline) -> None:
    async def run(name: str, block: Callable[..., Any], **kw: Any) -> Any:
        async with block(name, snapshot_dir=tmp_path, **kw) as b:
            result = await react_agent(provider.model()).ainvoke(question("Tokyo"))
            b.output = result["messages"][-1].content
        return result

    live = asyncio.run(run("react_async", AgentRecorder))
    provider.fake.stop()
    with offline():
        replayed = asyncio.run(run("react_async", AgentAsserter, mode="replay"))

    assert_same_transcript(replayed["messages"], live["messages"])
    assert replayed["messages"][-1].content == "Tokyo: Sunny, 24°C, local time 16:30 (Asia/Tokyo)."
    trace = steps(tmp_path, "react_async")
    assert [(s["type"], s.get("name"), s.get("args")) for s in trace] == [
        ("llm_call", None, None),
        ("tool_call", "get_weather", {"city": "Tokyo"}),
        ("tool_call", "get_time", {"tz": "Asia/Tokyo"}),
        ("llm_call", None, None),
    ]
    assert [s["result"] for s in trace if s["type"] == "tool_call"] == [
        "Sunny, 24°C",
        "16:30 (Asia/Tokyo)",
    ]


def test_react_agent_streamed_messages(
    provider: Provider, tmp_path: Path, offline: Offline
) -> None:
    """``stream_mode="messages"``: the chat model streams (SSE); token chunks arrive in order."""

    def run() -> tuple[list[tuple[str, dict[str, Any], str]], list[Any]]:
        agent = react_agent(provider.model())
        chunks: list[tuple[str, dict[str, Any], str]] = []
        final: list[Any] = []
        for mode, payload in agent.stream(question(), stream_mode=["messages", "values"]):
            if mode == "messages":
                message, meta = payload
                dump = message.model_dump(exclude={"id"})
                chunks.append((type(message).__name__, dump, meta["langgraph_node"]))
            else:
                final = payload["messages"]
        return chunks, final

    with AgentRecorder("react_stream", snapshot_dir=tmp_path):
        live_chunks, live_final = run()
    assert all(r.body.get("stream") is True for r in provider.fake.requests)
    provider.fake.stop()
    with offline(), AgentAsserter("react_stream", snapshot_dir=tmp_path, mode="replay"):
        replayed_chunks, replayed_final = run()

    # the model's token chunks: identical and in order; the two tools run in parallel
    # threads, so LangGraph emits their messages in completion order (compared as a set)
    def model_chunks(chunks: list[Any]) -> list[Any]:
        return [c for c in chunks if c[0] == "AIMessageChunk"]

    def tool_messages(chunks: list[Any]) -> list[Any]:
        return sorted(
            (c for c in chunks if c[0] == "ToolMessage"), key=lambda c: c[1]["tool_call_id"]
        )

    assert model_chunks(replayed_chunks) == model_chunks(live_chunks)
    assert len(model_chunks(live_chunks)) > 6
    assert tool_messages(replayed_chunks) == tool_messages(live_chunks)
    assert [c[1]["content"] for c in tool_messages(live_chunks)] == [
        "09:30 (Europe/Paris)",
        "Light rain, 18°C",
    ]
    assert len(replayed_chunks) == len(live_chunks)
    assert_same_transcript(replayed_final, live_final)
    assert text_of(replayed_final[-1]) == FINAL_PARIS  # anthropic streams give content blocks
    assert [c["args"] for c in replayed_final[1].tool_calls] == [
        {"city": "Paris"},
        {"tz": "Europe/Paris"},
    ]
    check_trace(tmp_path, "react_stream", provider, stream=True)


# --------------------------------------------------------------------------- StateGraph


def test_state_graph_agent_sync(provider: Provider, tmp_path: Path, offline: Offline) -> None:
    with AgentRecorder("state_graph", snapshot_dir=tmp_path):
        live = state_graph_agent(provider.model()).invoke(question())
    provider.fake.stop()
    with offline(), AgentAsserter("state_graph", snapshot_dir=tmp_path, mode="replay"):
        replayed = state_graph_agent(provider.model()).invoke(question())

    assert_same_transcript(replayed["messages"], live["messages"])
    assert replayed["messages"][-1].content == FINAL_PARIS
    check_trace(tmp_path, "state_graph", provider, stream=False)


def test_one_graph_with_both_providers(tmp_path: Path, offline: Offline) -> None:
    """An OpenAI agent node, then an Anthropic reviewer node: one trace, both providers, replayed offline."""
    oa, an = Provider("openai").start(), Provider("anthropic").start()
    an.fake.respond_with(
        lambda body: fa.text_reply("Reviewed: " + str(body["messages"][-1]["content"]))
    )

    def build(oa_model: Any, an_model: Any) -> Any:
        inner = create_react_agent(oa_model, TOOLS)

        def review(state: MessagesState) -> dict[str, Any]:
            return {"messages": [an_model.invoke([("user", state["messages"][-1].content)])]}

        builder = StateGraph(MessagesState)
        builder.add_node("agent", inner)
        builder.add_node("review", review)
        builder.add_edge(START, "agent")
        builder.add_edge("agent", "review")
        builder.add_edge("review", END)
        return builder.compile()

    try:
        with AgentRecorder("two_providers", snapshot_dir=tmp_path):
            live = build(oa.model(), an.model()).invoke(question())
    finally:
        oa.fake.stop()
        an.fake.stop()
    with offline(), AgentAsserter("two_providers", snapshot_dir=tmp_path, mode="replay"):
        replayed = build(oa.model(), an.model()).invoke(question())

    assert_same_transcript(replayed["messages"], live["messages"])
    assert replayed["messages"][-1].content == "Reviewed: " + FINAL_PARIS
    trace = steps(tmp_path, "two_providers")
    assert [(s["type"], s.get("provider") or s.get("name")) for s in trace] == [
        ("llm_call", "openai"),
        ("tool_call", "get_weather"),
        ("tool_call", "get_time"),
        ("llm_call", "openai"),
        ("llm_call", "anthropic"),
    ]


# --------------------------------------------------------------------------- Azure through LangChain


class FakeAzureOpenAI(FakeOpenAI):
    """Azure OpenAI's deployment routes (``/openai/deployments/<name>/chat/completions``)."""

    label = "FakeAzureOpenAI"
    routes = (("POST", "/openai/deployments/*"),)


def test_azure_chat_openai_is_recognised(tmp_path: Path, offline: Offline) -> None:
    """AzureChatOpenAI sends its own User-Agent (``langchain-partner-python-azure-openai``), in patches/openai.toml."""
    fake = FakeAzureOpenAI().start()
    fake.respond_with(openai_model)
    endpoint = fake.origin

    def model() -> Any:
        return AzureChatOpenAI(
            azure_endpoint=endpoint,
            azure_deployment="gpt4o",
            api_version="2024-10-21",
            api_key="azure-SECRET-1234",
            max_retries=0,
        )

    try:
        with AgentRecorder("azure", snapshot_dir=tmp_path):
            live = react_agent(model()).invoke(question())
    finally:
        fake.stop()
    import openai

    # langchain-openai 0.3+ sends its own User-Agent for Azure; older releases the SDK's
    assert fake.requests[0].headers["user-agent"] in (
        "langchain-partner-python-azure-openai",
        f"AzureOpenAI/Python {openai.__version__}",
    )
    assert fake.requests[0].path == "/openai/deployments/gpt4o/chat/completions"
    with offline(), AgentAsserter("azure", snapshot_dir=tmp_path, mode="replay"):
        replayed = react_agent(model()).invoke(question())
    assert_same_transcript(replayed["messages"], live["messages"])
    trace = steps(tmp_path, "azure")
    assert [(s["type"], s.get("provider") or s.get("name")) for s in trace] == [
        ("llm_call", "openai"),
        ("tool_call", "get_weather"),
        ("tool_call", "get_time"),
        ("llm_call", "openai"),
    ]
    assert trace[0]["exchange"]["request"]["query"] == "api-version=2024-10-21"


# --------------------------------------------------------------------------- LangGraphAdapter


def node_sequence(updates: list[dict[str, Any]]) -> list[str]:
    """The nodes that produced ``stream_mode="updates"`` chunks, repeats collapsed (LangGraph
    1.x sends one update per parallel tool, 0.2 one for both)."""
    out: list[str] = []
    for update in updates:
        for node in update:
            if not out or out[-1] != node:
                out.append(node)
    return out


def test_langgraph_adapter_scopes_a_recording_to_its_graph(
    provider: Provider, tmp_path: Path, offline: Offline
) -> None:
    graph = LangGraphAdapter(react_agent(provider.model()))
    assert isinstance(graph, type(graph.__wrapped__))
    assert graph.get_graph().nodes.keys() == graph.__wrapped__.get_graph().nodes.keys()

    with AgentRecorder("adapter_graph", snapshot_dir=tmp_path, adapters=[graph]):
        live = graph.invoke(question())
        streamed = [chunk for chunk in graph.stream(question("Tokyo"), stream_mode="updates")]
    provider.fake.stop()
    with (
        offline(),
        AgentAsserter("adapter_graph", snapshot_dir=tmp_path, mode="replay", adapters=[graph]),
    ):
        replayed = graph.invoke(question())
        replayed_stream = [
            chunk for chunk in graph.stream(question("Tokyo"), stream_mode="updates")
        ]

    assert_same_transcript(replayed["messages"], live["messages"])
    assert node_sequence(replayed_stream) == node_sequence(streamed) == ["agent", "tools", "agent"]
    assert (
        replayed_stream[-1]["agent"]["messages"][0].content
        == "Tokyo: Sunny, 24°C, local time 16:30 (Asia/Tokyo)."
    )
    trace = steps(tmp_path, "adapter_graph")
    assert [s["type"] for s in trace].count("llm_call") == 4
    assert [s["name"] for s in trace if s["type"] == "tool_call"] == ["get_weather", "get_time"] * 2


def test_langgraph_adapter_async_and_derived_runnables(
    provider: Provider, tmp_path: Path, offline: Offline
) -> None:
    graph = LangGraphAdapter(react_agent(provider.model()))
    configured = graph.with_config({"recursion_limit": 10})
    assert type(configured) is LangGraphAdapter and configured.agentsnap_root is graph

    async def run(block: Callable[..., Any], **kw: Any) -> Any:
        async with block("adapter_async", snapshot_dir=tmp_path, adapters=[graph], **kw):
            result = await configured.ainvoke(question())
            events = [e async for e in graph.astream(question("Tokyo"), stream_mode="updates")]
        return result, events

    live, live_events = asyncio.run(run(AgentRecorder))
    provider.fake.stop()
    with offline():
        replayed, replayed_events = asyncio.run(run(AgentAsserter, mode="replay"))
    assert_same_transcript(replayed["messages"], live["messages"])
    assert (
        node_sequence(replayed_events) == node_sequence(live_events) == ["agent", "tools", "agent"]
    )
    assert (
        replayed_events[-1]["agent"]["messages"][0].content
        == live_events[-1]["agent"]["messages"][0].content
    )
    assert len([s for s in steps(tmp_path, "adapter_async") if s["type"] == "llm_call"]) == 4


def test_an_unwrapped_graph_in_a_graph_scoped_block_raises(
    provider: Provider, tmp_path: Path
) -> None:
    wrapped = LangGraphAdapter(react_agent(provider.model()))
    unwrapped = react_agent(provider.model())
    with (
        pytest.raises(AdapterNotWrappedError) as info,
        AgentRecorder("unwrapped_graph", snapshot_dir=tmp_path, adapters=[wrapped]),
    ):
        unwrapped.invoke(question())
    message = str(info.value)
    sdk_class = "openai.OpenAI" if provider.name == "openai" else "anthropic.Anthropic"
    assert f"an unwrapped {sdk_class} (base URL {provider.base_url}" in message
    assert "AgentRecorder('unwrapped_graph')" in message
    assert provider.fake.requests == []  # refused before anything was sent
    assert not SnapshotStore(tmp_path).path_for("unwrapped_graph").exists()


def test_tool_adapters_as_langgraph_tools(tmp_path: Path, offline: Offline) -> None:
    """ToolAdapters given to create_react_agent: LangChain sees the function; the calls are explicit steps."""
    p = Provider("openai").start()
    # one tool call per turn, so the explicit steps (ordered by completion) are deterministic
    p.fake.respond_with(
        lambda body: (
            fo.text_reply("done: " + body["messages"][-1]["content"])
            if body["messages"][-1]["role"] == "tool"
            else fo.tool_calls_reply([("call_w", "weather", {"city": "Paris"})])
        )
    )
    weather = ToolAdapter(get_weather, name="weather")
    chat = wrap(p.model())
    assert type(chat).__name__ == "OpenAIAdapter" and isinstance(chat, ChatOpenAI)
    try:
        with AgentRecorder("tool_adapters", snapshot_dir=tmp_path, adapters=[chat, weather]):
            live = create_react_agent(chat, [weather]).invoke(question())
    finally:
        p.fake.stop()
    tools_offered = p.fake.requests[0].body["tools"]
    assert [t["function"]["name"] for t in tools_offered] == ["weather"]
    assert tools_offered[0]["function"]["description"] == "Current weather in a city."
    with (
        offline(),
        AgentAsserter(
            "tool_adapters", snapshot_dir=tmp_path, mode="replay", adapters=[chat, weather]
        ),
    ):
        replayed = create_react_agent(chat, [weather]).invoke(question())
    assert_same_transcript(replayed["messages"], live["messages"])
    trace = steps(tmp_path, "tool_adapters")
    assert [
        {k: s[k] for k in ("type", "name", "args", "result", "id")}
        for s in trace
        if s["type"] == "tool_call"
    ] == [
        {
            "type": "tool_call",
            "name": "weather",
            "args": {"city": "Paris"},
            "result": "Light rain, 18°C",
            "id": None,
        }
    ]
    assert [s["type"] for s in trace] == ["llm_call", "tool_call", "llm_call"]


def test_a_replay_miss_that_langchain_replaces_is_raised_at_the_block_exit(tmp_path: Path) -> None:
    """LangChain's async ``agenerate`` swallows the ReplayMissError and fails later with an
    AttributeError (``... has no attribute 'generations'``); the block raises the miss instead."""
    with FakeOpenAI() as fake:
        fake.script(fo.text_reply("one"))
        base = fake.base_url
        llm = ChatOpenAI(model="gpt-4o-mini", base_url=base, api_key="sk-test", max_retries=0)
        with AgentRecorder("lc_miss", snapshot_dir=tmp_path):
            asyncio.run(llm.ainvoke("first"))

    async def two_calls() -> None:
        await llm.ainvoke("first")
        await llm.ainvoke("second")  # not in the snapshot

    with pytest.raises(ReplayMissError) as info:
        with AgentAsserter("lc_miss", snapshot_dir=tmp_path, mode="replay"):
            asyncio.run(two_calls())
    assert (
        "LLM call index 1 (POST /v1/chat/completions) has no recorded response in snapshot 'lc_miss'"
        in str(info.value)
    )
    assert isinstance(info.value.__cause__, AttributeError)  # what LangChain made of it
