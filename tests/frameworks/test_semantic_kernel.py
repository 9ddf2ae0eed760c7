"""Semantic Kernel ``ChatCompletionAgent`` on ``OpenAIChatCompletion``: recorded, replayed
offline, drift reported.

Semantic Kernel calls the openai SDK's async chat completions (streamed by
``invoke_stream``) and answers the model's tool calls to a plugin's
``kernel_function`` with ``role: "tool"`` messages, naming the tool
``<plugin>-<function>``: the snapshot's tool steps come from the wire.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("semantic_kernel.agents")

from tests.frameworks.harness import Project, assert_weather_goldens, record_replay

AGENT = """
import asyncio

from openai import AsyncOpenAI
from semantic_kernel.agents import ChatCompletionAgent
from semantic_kernel.connectors.ai.open_ai import OpenAIChatCompletion
from semantic_kernel.functions import kernel_function


class Weather:
    @kernel_function(description="Current weather in a city.")
    def get_weather(self, city: str) -> str:
        return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def agent(servers):
    client = AsyncOpenAI(base_url=servers.chat, api_key="sk-test-1234")
    service = OpenAIChatCompletion(ai_model_id="gpt-4o-mini", async_client=client)
    return ChatCompletionAgent(
        service=service, name="weather", instructions="Answer weather questions.", plugins=[Weather()]
    )


def test_agent(servers, keep):
    response = asyncio.run(agent(servers).get_response(messages="What's the weather in Paris?"))
    answer = str(response.content)
    assert answer == "Paris: Light rain, 18°C"
    keep(answer)


def test_agent_stream(servers, keep):
    async def run():
        streaming = agent(servers)
        return [str(c.content) async for c in streaming.invoke_stream(messages="What's the weather in Tokyo?")]

    keep("".join(asyncio.run(run())))
"""


def test_semantic_kernel_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT)
    live, replayed = record_replay(project, expect=2)
    assert replayed == live
    assert live["test_agent"] == "Paris: Light rain, 18°C"
    assert live["test_agent_stream"] == "Tokyo: Sunny, 24°C"
    assert_weather_goldens(project, "test_agent", "test_agent_stream", tool="Weather-get_weather")
