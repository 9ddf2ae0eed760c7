"""langchain-mcp-adapters (``MultiServerMCPClient`` over stdio and streamable HTTP) with a
LangGraph ReAct agent on ``ChatOpenAI``: the MCP tool calls recorded, replayed offline with
no server, drift reported (issue 26).

``MultiServerMCPClient`` opens a new MCP session for ``get_tools()`` and for each tool call
(a stdio server is started each time). The user's code changes a tool's arguments through
the client's ``tool_interceptors``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langchain_mcp_adapters")
pytest.importorskip("langgraph.prebuilt")
pytest.importorskip("langchain_openai")

from tests.frameworks.mcp_harness import ONE_SESSION, TOOL, prove

AGENT = """
import asyncio

import pytest
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import create_react_agent

ASK = "What's the weather in {}?"


def fix_args(args):
    return args


async def interceptor(request, handler):
    return await handler(request.override(args=fix_args(request.args)))


@pytest.fixture(scope="session")
def run():
    # one event loop for the session: ChatOpenAI shares one cached HTTP client between its
    # instances, which a second asyncio.run() would find bound to a closed loop
    with asyncio.Runner() as runner:
        yield runner.run


@pytest.fixture
def model(servers):
    return ChatOpenAI(model="gpt-4o-mini", base_url=servers.chat, api_key="sk-test-1234", max_retries=0)


async def ask(model, connection, city):
    client = MultiServerMCPClient({"weather": connection}, tool_interceptors=[interceptor])
    tools = await client.get_tools()
    agent = create_react_agent(model, tools)
    result = await agent.ainvoke({"messages": [("user", ASK.format(city))]})
    messages = result["messages"]
    return [messages[-1].text, [(type(m).__name__, m.text) for m in messages]]


def stdio(weather):
    return {"transport": "stdio", "command": weather.command, "args": weather.args, "env": weather.env}


def test_stdio(weather, model, run, keep):
    keep(run(ask(model, stdio(weather), "Paris")))


def test_http(weather, model, run, keep):
    connection = {"transport": "streamable_http", "url": weather.url, "headers": weather.headers}
    keep(run(ask(model, connection, "Tokyo")))


def test_stdio_tool_error(weather, model, run, keep):
    keep(run(ask(model, stdio(weather), "Oslo")))
"""


def test_langchain_mcp_adapters_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    # get_tools() is session 0, the tool call session 1 (a new server start over stdio). mcp 1.x's
    # call_tool lists the tools after a successful call (to validate its result), not after a
    # failed one. The tool call sits at the model's request, after the setup of the session
    # opened for it.
    second = [("connect", 1), ("initialize", 1), (TOOL, 1)]
    ok = [*ONE_SESSION[:3], *second, ("tools/list", 1)]
    _, live = prove(
        tmp_path,
        AGENT,
        {"test_stdio": ok, "test_http": ok, "test_stdio_tool_error": [*ONE_SESSION[:3], *second]},
    )
    assert live["test_stdio"][0] == "Paris: Light rain, 18°C"
    assert live["test_http"][0] == "Tokyo: Sunny, 24°C"
