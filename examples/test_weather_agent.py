"""The weather agent used exactly as a user would test it: plain SDK, no agentsnap import."""

from __future__ import annotations

import asyncio

from weather_agent import arun_agent, run_agent, run_agent_streaming

PARIS = "Weather in Paris: Light rain, 18°C. Local time: 09:30 (Europe/Paris)."
TOKYO = "Weather in Tokyo: Sunny, 24°C. Local time: 16:30 (Asia/Tokyo)."


def test_sync_agent_paris(openai_client):
    assert run_agent(openai_client, "What's the weather and time in Paris?") == PARIS


def test_async_agent_tokyo(async_openai_client):
    async def main():
        async with async_openai_client as client:
            return await arun_agent(client, "What's the weather and time in Tokyo?")

    assert asyncio.run(main()) == TOKYO


def test_streaming_agent_paris(openai_client):
    assert run_agent_streaming(openai_client, "What's the weather and time in Paris?") == PARIS


def test_concurrent_questions(async_openai_client):
    async def main():
        async with async_openai_client as client:
            return await asyncio.gather(
                arun_agent(client, "Weather and time in Paris, please."),
                arun_agent(client, "Weather and time in Tokyo, please."),
            )

    assert asyncio.run(main()) == [PARIS, TOKYO]
