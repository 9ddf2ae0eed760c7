"""Agno ``Agent`` on ``OpenAIChat``: recorded, replayed offline, drift reported.

Agno calls the openai SDK's chat completions (plain and streamed) and answers
the model's tool calls with ``role: "tool"`` messages, so the snapshot's tool
steps come from the wire with no framework conventions declared. Agno sends
telemetry from a thread of its own unless ``AGNO_TELEMETRY=false``: the project
sets it, as a test suite should.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("agno")

from tests.frameworks.harness import Project, assert_weather_goldens, record_replay

AGENT = '''
from agno.agent import Agent
from agno.models.openai import OpenAIChat


def get_weather(city: str) -> str:
    """Current weather in a city.

    Args:
        city: the city name
    """
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def agent(servers):
    model = OpenAIChat(id="gpt-4o-mini", base_url=servers.chat, api_key="sk-test-1234")
    return Agent(model=model, tools=[get_weather])


def test_agent(servers, keep):
    answer = agent(servers).run("What's the weather in Paris?").content
    assert answer == "Paris: Light rain, 18°C"
    keep(answer)


def test_agent_stream(servers, keep):
    events = list(agent(servers).run("What's the weather in Tokyo?", stream=True))
    keep([type(e).__name__ for e in events] + ["".join(e.content or "" for e in events)])
'''


def test_agno_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT, env={"AGNO_TELEMETRY": "false"})
    live, replayed = record_replay(project, expect=2)
    assert replayed == live
    assert live["test_agent"] == "Paris: Light rain, 18°C"
    assert live["test_agent_stream"][-1] == "Tokyo: Sunny, 24°C"
    assert_weather_goldens(project, "test_agent", "test_agent_stream")
