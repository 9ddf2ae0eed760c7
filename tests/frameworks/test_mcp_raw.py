"""The raw ``mcp`` client (``ClientSession`` over ``stdio_client`` and
``streamable_http_client``) inside an openai-SDK chat-completions agent loop: the MCP tool
calls recorded, replayed offline with no server, drift reported (issue 26).

The loop is what the ``mcp`` SDK's documentation shows: list the session's tools, hand them
to the model as functions, call the tool the model picks, send the result back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("openai")

from tests.frameworks.mcp_harness import ONE_SESSION, TESTS, prove

AGENT = """
import asyncio
import json

import openai
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client import streamable_http
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

# the HTTP library this mcp speaks: httpx2 (mcp 2.x) or httpx (1.x)
http_lib = getattr(streamable_http, "httpx2", None) or streamable_http.httpx

ASK = "What's the weather in {}?"


def fix_args(args):
    return args


@pytest.fixture
def llm(servers):
    return openai.AsyncOpenAI(base_url=servers.chat, api_key="sk-test-1234", max_retries=0)


async def agent(session, llm, question):
    await session.initialize()
    listed = await session.list_tools()
    tools = [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": getattr(t, "inputSchema", None) or t.input_schema}}
        for t in listed.tools
    ]
    messages = [{"role": "user", "content": question}]
    seen = []
    while True:
        reply = await llm.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
        message = reply.choices[0].message
        if not message.tool_calls:
            return [message.content, seen]
        messages.append({
            "role": "assistant",
            "content": message.content,
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
                for c in message.tool_calls
            ],
        })
        for call in message.tool_calls:
            result = await session.call_tool(call.function.name, fix_args(json.loads(call.function.arguments)))
            text = "".join(part.text for part in result.content if part.type == "text")
            seen.append([call.function.name, text, getattr(result, "isError", None) or getattr(result, "is_error", False)])
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})


async def over_stdio(weather, llm, city):
    server = StdioServerParameters(command=weather.command, args=weather.args, env=weather.env)
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        return await agent(session, llm, ASK.format(city))


async def over_http(weather, llm, city):
    async with http_lib.AsyncClient(headers=weather.headers) as http:
        async with streamable_http_client(weather.url, http_client=http) as streams:
            read, write = streams[0], streams[1]  # mcp 1.x adds a session-id getter
            async with ClientSession(read, write) as session:
                return await agent(session, llm, ASK.format(city))


def test_stdio(weather, llm, keep):
    keep(asyncio.run(over_stdio(weather, llm, "Paris")))


def test_http(weather, llm, keep):
    keep(asyncio.run(over_http(weather, llm, "Tokyo")))


def test_stdio_tool_error(weather, llm, keep):
    keep(asyncio.run(over_stdio(weather, llm, "Oslo")))
"""


def test_raw_mcp_client_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    _, live = prove(tmp_path, AGENT, {test: ONE_SESSION for test in TESTS})
    assert live["test_stdio"] == [
        "Paris: Light rain, 18°C",
        [["get_forecast", "Light rain, 18°C", False]],
    ]
    assert live["test_http"] == ["Tokyo: Sunny, 24°C", [["get_forecast", "Sunny, 24°C", False]]]
    error = "Error executing tool get_forecast: no weather station in Oslo"
    assert live["test_stdio_tool_error"] == [f"Oslo: {error}", [["get_forecast", error, True]]]
