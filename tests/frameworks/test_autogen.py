"""AutoGen ``AssistantAgent`` on ``OpenAIChatCompletionClient``: recorded, replayed offline,
drift reported.

AutoGen's model client calls the openai SDK's chat completions (streamed with
``model_client_stream=True``, asynchronously in both cases) and answers the
model's tool calls with ``role: "tool"`` messages; ``reflect_on_tool_use`` makes
the second call that words the answer. The snapshot's tool steps come from the wire.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("autogen_agentchat")
pytest.importorskip("autogen_ext.models.openai")

from tests.frameworks.harness import Project, assert_weather_goldens, record_replay

AGENT = '''
import asyncio

from autogen_agentchat.agents import AssistantAgent
from autogen_ext.models.openai import OpenAIChatCompletionClient


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def agent(servers, **kwargs):
    client = OpenAIChatCompletionClient(
        model="gpt-4o-mini-2024-07-18", base_url=servers.chat, api_key="sk-test-1234"
    )
    return AssistantAgent(
        "assistant", model_client=client, tools=[get_weather], reflect_on_tool_use=True, **kwargs
    )


def test_agent(servers, keep):
    result = asyncio.run(agent(servers).run(task="What's the weather in Paris?"))
    answer = result.messages[-1].content
    assert answer == "Paris: Light rain, 18°C"
    keep([type(m).__name__ for m in result.messages] + [answer])


def test_agent_stream(servers, keep):
    async def run():
        streaming = agent(servers, model_client_stream=True)
        return [item async for item in streaming.run_stream(task="What's the weather in Tokyo?")]

    items = asyncio.run(run())
    chunks = [i.content for i in items if type(i).__name__ == "ModelClientStreamingChunkEvent"]
    keep(["".join(chunks), items[-1].messages[-1].content])
'''


def test_autogen_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT)
    live, replayed = record_replay(project, expect=2)
    assert replayed == live
    assert live["test_agent"] == [
        "TextMessage",
        "ToolCallRequestEvent",
        "ToolCallExecutionEvent",
        "TextMessage",
        "Paris: Light rain, 18°C",
    ]
    assert live["test_agent_stream"] == ["Tokyo: Sunny, 24°C", "Tokyo: Sunny, 24°C"]
    assert_weather_goldens(project, "test_agent", "test_agent_stream")
