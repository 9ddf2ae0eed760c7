"""smolagents ``ToolCallingAgent`` on ``OpenAIServerModel``: recorded, replayed offline, drift reported.

smolagents sends a tool's result back as a user message (``Observation: …``)
after an assistant message ``Calling tools: [...]``, and ends with a
``final_answer`` tool call: the snapshot's tool steps and output come from the
smolagents conventions declared in ``patches/frameworks/smolagents.toml``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("smolagents")

from tests.frameworks.harness import (
    Project,
    assert_drift_reported,
    llm_calls,
    record_replay,
    tool_steps,
)

AGENT = '''
from smolagents import OpenAIServerModel, ToolCallingAgent, tool


@tool
def get_weather(city: str) -> str:
    """Current weather in a city.

    Args:
        city: the city name
    """
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def agent(servers):
    model = OpenAIServerModel(model_id="gpt-4o-mini", api_base=servers.chat, api_key="sk-test-1234")
    return ToolCallingAgent(tools=[get_weather], model=model, max_steps=4, verbosity_level=0)


def test_tool_calling_agent(servers, keep):
    answer = agent(servers).run("What's the weather in Paris?")
    assert answer == "Paris: Light rain, 18°C"
    keep(answer)


def test_tool_calling_agent_stream(servers, keep):
    steps = list(agent(servers).run("What's the weather in Tokyo?", stream=True))
    keep([type(s).__name__ for s in steps] + [getattr(steps[-1], "output", None)])
'''


def test_smolagents_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT)
    live, replayed = record_replay(project, expect=2)
    assert replayed == live
    assert live["test_tool_calling_agent"] == "Paris: Light rain, 18°C"
    assert live["test_tool_calling_agent_stream"][-1] == "Tokyo: Sunny, 24°C"
    snap = project.snapshots()["test_tool_calling_agent"]
    assert len(llm_calls(snap)) == 2
    assert tool_steps(snap) == [
        ("get_weather", {"city": "Paris"}, "Light rain, 18°C"),
        ("final_answer", {"answer": "Paris: Light rain, 18°C"}, "Paris: Light rain, 18°C"),
    ]
    assert [s["type"] for s in snap["trace"]] == ["llm_call", "tool_call", "llm_call", "tool_call"]
    assert snap["output"] == "Paris: Light rain, 18°C"
    assert tool_steps(project.snapshots()["test_tool_calling_agent_stream"])[0] == (
        "get_weather",
        {"city": "Tokyo"},
        "Sunny, 24°C",
    )

    project.edit('"Paris": "Light rain, 18°C"', '"Paris": "Heavy rain, 12°C"')
    drift, _ = project.run("--agentsnap-replay", offline=True)
    assert_drift_reported(
        drift, test="test_tool_calling_agent", expected=["Light rain, 18°C", "Heavy rain, 12°C"]
    )
