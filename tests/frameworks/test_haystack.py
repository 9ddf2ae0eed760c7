"""Haystack ``Agent`` on ``OpenAIChatGenerator``: recorded, replayed offline, drift reported.

Haystack's generator calls the openai SDK's chat completions (streamed when a
``streaming_callback`` is set) and its ``ToolInvoker`` answers the model's tool
calls with ``role: "tool"`` messages: the snapshot's tool steps come from the wire.
Haystack sends telemetry unless ``HAYSTACK_TELEMETRY_ENABLED=False``: the project
sets it, as a test suite should.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("haystack")

from tests.frameworks.harness import Project, assert_weather_goldens, record_replay

AGENT = '''
from haystack.components.agents import Agent
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.dataclasses import ChatMessage
from haystack.tools import create_tool_from_function
from haystack.utils import Secret


def get_weather(city: str) -> str:
    """Current weather in a city.

    :param city: the city name
    """
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def agent(servers, **kwargs):
    generator = OpenAIChatGenerator(
        model="gpt-4o-mini", api_base_url=servers.chat, api_key=Secret.from_token("sk-test-1234")
    )
    built = Agent(chat_generator=generator, tools=[create_tool_from_function(get_weather)], **kwargs)
    built.warm_up()
    return built


def test_agent(servers, keep):
    result = agent(servers).run(messages=[ChatMessage.from_user("What's the weather in Paris?")])
    answer = result["messages"][-1].text
    assert answer == "Paris: Light rain, 18°C"
    keep([m.role.value for m in result["messages"]] + [answer])


def test_agent_stream(servers, keep):
    chunks = []
    streaming = agent(servers, streaming_callback=lambda chunk: chunks.append(chunk.content))
    result = streaming.run(messages=[ChatMessage.from_user("What's the weather in Tokyo?")])
    keep(["".join(chunks), result["messages"][-1].text])
'''


def test_haystack_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT, env={"HAYSTACK_TELEMETRY_ENABLED": "False"})
    live, replayed = record_replay(project, expect=2)
    assert replayed == live
    assert live["test_agent"] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "Paris: Light rain, 18°C",
    ]
    assert live["test_agent_stream"] == ["Tokyo: Sunny, 24°C", "Tokyo: Sunny, 24°C"]
    assert_weather_goldens(project, "test_agent", "test_agent_stream")
