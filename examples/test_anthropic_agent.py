"""The Anthropic weather agent used exactly as a user would test it: plain SDK, no agentsnap import."""

from __future__ import annotations

import asyncio

from anthropic_agent import arun_agent, run_agent, run_agent_streaming

PARIS = "Weather in Paris: Light rain, 18°C. Local time: 09:30 (Europe/Paris)."
TOKYO = "Weather in Tokyo: Sunny, 24°C. Local time: 16:30 (Asia/Tokyo)."


def test_sync_agent_paris(anthropic_client):
    assert run_agent(anthropic_client, "What's the weather and time in Paris?") == PARIS


def test_async_agent_tokyo(async_anthropic_client):
    async def main():
        async with async_anthropic_client as client:
            return await arun_agent(client, "What's the weather and time in Tokyo?")

    assert asyncio.run(main()) == TOKYO


def test_streaming_agent_paris(anthropic_client):
    answer, pieces = run_agent_streaming(anthropic_client, "What's the weather and time in Paris?")
    assert answer == PARIS
    assert "".join(pieces) == PARIS and len(pieces) > 1  # the answer arrived in several pieces
