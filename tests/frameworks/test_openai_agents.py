"""The OpenAI Agents SDK (``openai-agents``: ``Runner.run_sync`` / ``run`` / ``run_streamed``, a
handoff between two agents, a tool that raises) over the Responses API: recorded, replayed
offline, drift reported.

The SDK sends through the ``openai`` SDK with its own User-Agent (``Agents/Python …``):
recognised by the Responses API's wire shape (patches/openai.toml ``[[match.wire]]``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("agents")

from tests.frameworks.harness import (
    Project,
    assert_drift_reported,
    llm_calls,
    record_replay,
    tool_steps,
)

AGENT = '''
import asyncio

import openai
import pytest
from agents import Agent, Runner, function_tool, set_default_openai_client, set_tracing_disabled


@function_tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    if city == "Oslo":
        raise ValueError("no weather station in Oslo")
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


@pytest.fixture(autouse=True)
def client(servers):
    set_tracing_disabled(True)
    set_default_openai_client(openai.AsyncOpenAI(base_url=servers.responses, api_key="sk-test-1234", max_retries=0))


def weather_agent():
    return Agent(name="Weather agent", instructions="Report the weather.", tools=[get_weather], model="gpt-4o-mini")


def test_run_sync(keep):
    result = Runner.run_sync(weather_agent(), "What's the weather in Paris?")
    assert result.final_output == "Paris: Light rain, 18°C"
    keep([result.final_output, [type(i).__name__ for i in result.new_items]])


def test_run_async(keep):
    result = asyncio.run(Runner.run(weather_agent(), "What's the weather in Tokyo?"))
    keep([result.final_output, result.to_input_list()])


def test_run_streamed(keep):
    async def main():
        result = Runner.run_streamed(weather_agent(), "What's the weather in Paris?")
        kinds = [event.type async for event in result.stream_events()]
        return result.final_output, sorted(set(kinds))
    keep(list(asyncio.run(main())))


def test_handoff(keep):
    triage = Agent(name="Triage", instructions="Hand weather questions over.", handoffs=[weather_agent()], model="gpt-4o-mini")
    result = Runner.run_sync(triage, "What's the weather in Paris?")
    keep([result.final_output, result.last_agent.name])


def test_a_tool_that_raises(keep):
    result = Runner.run_sync(weather_agent(), "What's the weather in Oslo?")
    keep(result.final_output)
'''


def test_openai_agents_sdk_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT)
    live, replayed = record_replay(project, expect=5)
    assert replayed == live
    assert live["test_run_sync"] == [
        "Paris: Light rain, 18°C",
        ["ToolCallItem", "ToolCallOutputItem", "MessageOutputItem"],
    ]
    assert live["test_run_async"][0] == "Tokyo: Sunny, 24°C"
    assert live["test_run_streamed"][0] == "Paris: Light rain, 18°C"
    assert "raw_response_event" in live["test_run_streamed"][1]
    assert live["test_handoff"] == ["Paris: Light rain, 18°C", "Weather agent"]

    snaps = project.snapshots()
    assert [s["provider"] for s in llm_calls(snaps["test_run_sync"])] == ["openai", "openai"]
    assert tool_steps(snaps["test_run_sync"]) == [
        ("get_weather", {"city": "Paris"}, "Light rain, 18°C")
    ]
    assert snaps["test_run_sync"]["output"] == "Paris: Light rain, 18°C"
    assert all(s["stream"] for s in llm_calls(snaps["test_run_streamed"]))
    assert [t[0] for t in tool_steps(snaps["test_handoff"])] == [
        "transfer_to_weather_agent",
        "get_weather",
    ]
    (raised,) = tool_steps(snaps["test_a_tool_that_raises"])
    name, args, result = raised
    assert (name, args) == ("get_weather", {"city": "Oslo"})
    # the SDK's failure_error_function sends the model a text instead of the exception (its
    # wording is the SDK's own, not asserted): the tool step holds the text the model was sent
    assert isinstance(result, str) and result
    assert live["test_a_tool_that_raises"] == f"Oslo: {result}"

    project.edit('"Paris": "Light rain, 18°C"', '"Paris": "Heavy rain, 12°C"')
    drift, _ = project.run("--agentsnap-replay", offline=True)
    assert_drift_reported(
        drift, test="test_run_sync", expected=["Light rain, 18°C", "Heavy rain, 12°C"]
    )
    assert (
        "3 failed, 2 passed" in drift.stdout.splitlines()[-1]
    )  # run_sync, run_streamed and the handoff ask about Paris
