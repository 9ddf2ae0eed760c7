"""The MCP agent tested as a user would: plain SDKs, no agentsnap import. Replay
(`pytest examples --agentsnap-replay`) starts no MCP server: the golden answers."""

from __future__ import annotations

import asyncio

from mcp_agent import run_mcp_agent
from test_weather_agent import PARIS, TOKYO


def test_mcp_agent_paris(async_openai_client):
    async def main():
        async with async_openai_client as client:
            return await run_mcp_agent(client, "What's the weather and time in Paris?")

    assert asyncio.run(main()) == PARIS


def test_mcp_agent_tokyo(async_openai_client):
    async def main():
        async with async_openai_client as client:
            return await run_mcp_agent(client, "What's the weather and time in Tokyo?")

    assert asyncio.run(main()) == TOKYO
