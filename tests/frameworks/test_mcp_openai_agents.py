"""The OpenAI Agents SDK with MCP servers (``agents.mcp.MCPServerStdio``,
``MCPServerStreamableHttp``) over the Responses API: the MCP tool calls recorded, replayed
offline with no server, drift reported (issue 26).

The user's code changes a tool's arguments where the SDK lets it: a subclass of the server
class whose ``call_tool`` passes them through ``fix_args``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("agents.mcp")

from tests.frameworks.mcp_harness import ONE_SESSION, TESTS, prove

AGENT = """
import asyncio

import openai
import pytest
from agents import Agent, Runner, set_default_openai_client, set_tracing_disabled
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp

ASK = "What's the weather in {}?"


def fix_args(args):
    return args


class FixArgs:
    async def call_tool(self, tool_name, arguments, meta=None):
        return await super().call_tool(tool_name, fix_args(arguments), meta)


class WeatherStdio(FixArgs, MCPServerStdio):
    pass


class WeatherHttp(FixArgs, MCPServerStreamableHttp):
    pass


@pytest.fixture(autouse=True)
def client(servers):
    set_tracing_disabled(True)
    set_default_openai_client(openai.AsyncOpenAI(base_url=servers.responses, api_key="sk-test-1234", max_retries=0))


async def ask(server, city):
    async with server:
        agent = Agent(name="Weather agent", instructions="Report the weather.", mcp_servers=[server], model="gpt-4o-mini")
        result = await Runner.run(agent, ASK.format(city))
        outputs = [i.output for i in result.new_items if type(i).__name__ == "ToolCallOutputItem"]
        return [result.final_output, [type(i).__name__ for i in result.new_items], outputs]


def stdio(weather):
    return WeatherStdio(params={"command": weather.command, "args": weather.args, "env": weather.env}, name="weather")


def test_stdio(weather, keep):
    keep(asyncio.run(ask(stdio(weather), "Paris")))


def test_http(weather, keep):
    server = WeatherHttp(params={"url": weather.url, "headers": weather.headers}, name="weather")
    keep(asyncio.run(ask(server, "Tokyo")))


def test_stdio_tool_error(weather, keep):
    keep(asyncio.run(ask(stdio(weather), "Oslo")))
"""


def test_openai_agents_mcp_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    # one session per server context; the SDK lists the tools again for the model's second turn,
    # an identical listing that the golden keeps once (replay serves it again)
    _, live = prove(tmp_path, AGENT, {test: ONE_SESSION for test in TESTS})
    items = ["ToolCallItem", "ToolCallOutputItem", "MessageOutputItem"]
    assert live["test_stdio"][:2] == ["Paris: Light rain, 18°C", items]
    assert live["test_http"][:2] == ["Tokyo: Sunny, 24°C", items]
    assert live["test_stdio_tool_error"][1] == items
