"""llama-index ``FunctionAgent`` (llama-index-llms-openai, a Python tool) recorded, replayed offline, drift reported."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("llama_index.core.agent.workflow")
pytest.importorskip("llama_index.llms.openai")

from tests.frameworks.harness import (
    Project,
    assert_drift_reported,
    llm_calls,
    record_replay,
    tool_steps,
)

AGENT = '''
import asyncio

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.llms.openai import OpenAI


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def test_function_agent(servers, keep):
    llm = OpenAI(model="gpt-4o-mini", api_base=servers.chat, api_key="sk-test-1234", max_retries=0)
    agent = FunctionAgent(tools=[get_weather], llm=llm, system_prompt="You report the weather.")

    async def main():
        return await agent.run("What's the weather in Paris?")

    response = asyncio.run(main())
    assert str(response) == "Paris: Light rain, 18°C"
    keep([str(response), [(t.tool_name, t.tool_kwargs, str(t.tool_output)) for t in response.tool_calls]])
'''


def test_llama_index_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT)
    live, replayed = record_replay(project, expect=1)
    assert replayed == live
    assert live["test_function_agent"] == [
        "Paris: Light rain, 18°C",
        [["get_weather", {"city": "Paris"}, "Light rain, 18°C"]],
    ]
    snap = project.snapshots()["test_function_agent"]
    assert len(llm_calls(snap)) == 2
    assert tool_steps(snap) == [("get_weather", {"city": "Paris"}, "Light rain, 18°C")]
    assert snap["output"] == "Paris: Light rain, 18°C"

    project.edit('"Paris": "Light rain, 18°C"', '"Paris": "Heavy rain, 12°C"')
    drift, _ = project.run("--agentsnap-replay", offline=True)
    assert_drift_reported(
        drift, test="test_function_agent", expected=["'Light rain, 18°C' → 'Heavy rain, 12°C'"]
    )
