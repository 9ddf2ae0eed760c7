"""CrewAI ``Crew`` of one ``Agent`` on ``LLM("openai/…")``: recorded, replayed offline, drift
reported.

CrewAI's native OpenAI provider calls the openai SDK's chat completions and
answers the model's tool calls with ``role: "tool"`` messages: the snapshot's
tool steps come from the wire. CrewAI sends usage telemetry unless
``CREWAI_TELEMETRY_OPT_OUT`` is set; the project sets it, as a test suite should.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("crewai")

from tests.frameworks.harness import (
    Project,
    assert_weather_goldens,
    llm_calls,
    record_replay,
)

AGENT = '''
from crewai import LLM, Agent, Crew, Task
from crewai.tools import tool


@tool("get_weather")
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def crew(servers, question, **llm_kwargs):
    llm = LLM(model="openai/gpt-4o-mini", base_url=servers.chat, api_key="sk-test-1234", **llm_kwargs)
    reporter = Agent(
        role="Weather reporter",
        goal="Report the weather",
        backstory="You report the weather.",
        tools=[get_weather],
        llm=llm,
    )
    task = Task(description=question, expected_output="The weather", agent=reporter)
    return Crew(agents=[reporter], tasks=[task])


def test_crew(servers, keep):
    answer = crew(servers, "What's the weather in Paris?").kickoff().raw
    assert answer == "Paris: Light rain, 18°C"
    keep(answer)


def test_crew_stream(servers, keep):
    keep(crew(servers, "What's the weather in Tokyo?", stream=True).kickoff().raw)
'''

TELEMETRY_OFF = {"CREWAI_TELEMETRY_OPT_OUT": "true", "OTEL_SDK_DISABLED": "true"}


def test_crewai_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT, env=TELEMETRY_OFF)
    live, replayed = record_replay(project, expect=2)
    assert replayed == live
    assert live["test_crew"] == "Paris: Light rain, 18°C"
    assert live["test_crew_stream"] == "Tokyo: Sunny, 24°C"
    stream = project.snapshots()["test_crew_stream"]
    assert [s["stream"] for s in llm_calls(stream)] == [True, True]
    assert_weather_goldens(project, "test_crew", "test_crew_stream")
