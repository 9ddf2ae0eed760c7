"""pydantic-ai's MCP toolset (``pydantic_ai.mcp.MCPToolset``, built on FastMCP's client, over
a FastMCP ``StdioTransport`` and a streamable-HTTP URL) with an OpenAI chat model: the MCP
tool calls recorded, replayed offline with no server, drift reported (issue 26).

The user's code changes a tool's arguments through the toolset's ``process_tool_call`` hook.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai.mcp")
pytest.importorskip("fastmcp")

from tests.frameworks.mcp_harness import ONE_SESSION, TESTS, prove

AGENT = """
import asyncio

import pytest
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

ASK = "What's the weather in {}?"


def fix_args(args):
    return args


async def process_tool_call(ctx, call_tool, name, args):
    return await call_tool(name, fix_args(args))


@pytest.fixture
def model(servers):
    return OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(base_url=servers.chat, api_key="sk-test-1234"))


async def ask(model, toolset, city):
    agent = Agent(model, toolsets=[toolset], instructions="Report the weather.")
    async with agent:
        result = await agent.run(ASK.format(city))
    parts = [type(p).__name__ for m in result.all_messages() for p in m.parts]
    return [result.output, parts]


def stdio(weather):
    transport = StdioTransport(command=weather.command, args=weather.args, env=weather.env)
    return MCPToolset(transport, process_tool_call=process_tool_call)


def test_stdio(weather, model, keep):
    keep(asyncio.run(ask(model, stdio(weather), "Paris")))


def test_http(weather, model, keep):
    toolset = MCPToolset(weather.url, headers=weather.headers, process_tool_call=process_tool_call)
    keep(asyncio.run(ask(model, toolset, "Tokyo")))


def test_stdio_tool_error(weather, model, keep):
    keep(asyncio.run(ask(model, stdio(weather), "Oslo")))
"""


def test_pydantic_ai_mcp_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    _, live = prove(tmp_path, AGENT, {test: ONE_SESSION for test in TESTS})
    assert live["test_stdio"][0] == "Paris: Light rain, 18°C"
    assert live["test_http"][0] == "Tokyo: Sunny, 24°C"
