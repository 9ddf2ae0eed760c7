"""pydantic-ai (OpenAI and Anthropic models, a tool, structured output, ``run_stream``):
recorded, replayed offline, drift reported.

pydantic-ai sends through the ``openai`` / ``anthropic`` SDKs with its own User-Agent
(``pydantic-ai/…``): recognised by wire shape (patches/*.toml ``[[match.wire]]``). A
structured run ends with pydantic-ai's ``final_result`` output tool, whose arguments are the
snapshot's output (patches/frameworks/pydantic_ai.toml).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai")
pytest.importorskip("pydantic_ai.models.anthropic")
pytest.importorskip("pydantic_ai.models.openai")

from tests.frameworks.harness import (
    Project,
    assert_drift_reported,
    llm_calls,
    record_replay,
    tool_steps,
)

AGENT = '''
import asyncio

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider


class WeatherReport(BaseModel):
    city: str
    forecast: str


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


@pytest.fixture(params=["openai", "anthropic"])
def model(request, servers):
    if request.param == "openai":
        return OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(base_url=servers.chat, api_key="sk-test-1234"))
    return AnthropicModel("claude-sonnet-4-6", provider=AnthropicProvider(base_url=servers.anthropic, api_key="sk-ant-test-1234"))


def test_tool(model, keep):
    agent = Agent(model, tools=[get_weather], instructions="Report the weather.")
    result = agent.run_sync("What's the weather in Paris?")
    assert result.output == "Paris: Light rain, 18°C"
    keep([result.output, [type(m).__name__ for m in result.all_messages()]])


def test_structured_output(model, keep):
    agent = Agent(model, output_type=WeatherReport)
    result = agent.run_sync("Weather report for Tokyo, please.")
    assert isinstance(result.output, WeatherReport)
    keep(result.output.model_dump())


def test_run_stream(model, keep):
    agent = Agent(model, tools=[get_weather])

    async def main():
        async with agent.run_stream("What's the weather in Tokyo?") as result:
            pieces = [text async for text in result.stream_text(delta=True)]
        return pieces
    keep("".join(asyncio.run(main())))
'''


def test_pydantic_ai_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT)
    live, replayed = record_replay(project, expect=6)
    assert replayed == live
    for p in ("openai", "anthropic"):
        assert live[f"test_tool[{p}]"] == [
            "Paris: Light rain, 18°C",
            ["ModelRequest", "ModelResponse", "ModelRequest", "ModelResponse"],
        ]
        assert live[f"test_structured_output[{p}]"] == {"city": "Tokyo", "forecast": "Sunny, 24°C"}
        assert live[f"test_run_stream[{p}]"] == "Tokyo: Sunny, 24°C"

    snaps = project.snapshots()
    for p in ("openai", "anthropic"):
        tool = snaps[f"test_tool[{p}]"]
        assert [s["provider"] for s in llm_calls(tool)] == [p, p]
        # the result as it went over the wire: pydantic-ai sends Anthropic a list of text blocks
        sent = (
            "Light rain, 18°C" if p == "openai" else [{"text": "Light rain, 18°C", "type": "text"}]
        )
        assert tool_steps(tool) == [("get_weather", {"city": "Paris"}, sent)]
        assert tool["output"] == "Paris: Light rain, 18°C"
        structured = snaps[f"test_structured_output[{p}]"]
        report = {"city": "Tokyo", "forecast": "Sunny, 24°C"}
        assert tool_steps(structured) == [("final_result", report, report)]
        assert structured["output"] == report
        assert all(s["stream"] for s in llm_calls(snaps[f"test_run_stream[{p}]"]))

    project.edit('"Paris": "Light rain, 18°C"', '"Paris": "Heavy rain, 12°C"')
    drift, _ = project.run("--agentsnap-replay", offline=True)
    assert_drift_reported(
        drift, test="test_tool[openai]", expected=["Light rain, 18°C", "Heavy rain, 12°C"]
    )
    assert "FAILED test_agent.py::test_tool[anthropic]" in drift.stdout
    assert "2 failed, 4 passed" in drift.stdout.splitlines()[-1]
