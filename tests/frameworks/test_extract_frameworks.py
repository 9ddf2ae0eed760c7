"""``extract_tool_calls`` / the one-line form read agent frameworks' own results (issue 12, item 5):
pydantic-ai ``AgentRunResult`` (and ``all_messages()``), OpenAI Agents SDK ``RunResult`` (and
``to_input_list()``), Claude Agent SDK message lists. Real objects of the real packages: the
pydantic-ai and Agents SDK results come from real runs (pydantic-ai's own ``FunctionModel``;
the Agents SDK against the loopback Responses fake), the Claude Agent SDK messages are its
dataclasses built directly (its CLI is not run)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agentsnap import check, extract_tool_calls
from agentsnap.extract import ExtractionError

PARIS = {"tool": "get_weather", "args": {"city": "Paris"}}


def get_weather(city: str) -> str:
    """Current weather in a city."""
    if city == "Oslo":
        raise ValueError("no weather station in Oslo")
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


# --------------------------------------------------------------------------- pydantic-ai


def _pydantic_ai_run(output_type: Any = str) -> Any:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    def model(messages: list[Any], info: Any) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(
                parts=[ToolCallPart("get_weather", {"city": "Paris"}, tool_call_id="pyd_1")]
            )
        if info.output_tools:
            return ModelResponse(
                parts=[
                    ToolCallPart(
                        info.output_tools[0].name,
                        {"city": "Paris", "forecast": "rain"},
                        tool_call_id="pyd_2",
                    )
                ]
            )
        return ModelResponse(parts=[TextPart("Paris: Light rain, 18°C")])

    agent = Agent(FunctionModel(model), tools=[get_weather], output_type=output_type)
    return agent.run_sync("What's the weather in Paris?")


def test_pydantic_ai_run_result_and_its_messages() -> None:
    result = _pydantic_ai_run()
    assert type(result).__name__ == "AgentRunResult" and result.output == "Paris: Light rain, 18°C"
    expected = [{**PARIS, "id": "pyd_1", "result": "Light rain, 18°C"}]
    assert extract_tool_calls(result) == expected
    assert extract_tool_calls(result.all_messages()) == expected
    assert extract_tool_calls(result.new_messages()) == expected


def test_pydantic_ai_structured_output_keeps_its_output_tool_call() -> None:
    from pydantic import BaseModel

    class Report(BaseModel):
        city: str
        forecast: str

    result = _pydantic_ai_run(Report)
    assert result.output == Report(city="Paris", forecast="rain")
    calls = extract_tool_calls(result)
    assert [c["tool"] for c in calls] == ["get_weather", "final_result"]
    assert calls[1]["args"] == {"city": "Paris", "forecast": "rain"}


def test_pydantic_ai_one_line_form_snapshots_and_compares(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    result = _pydantic_ai_run()
    assert check("pyd", result, snapshot_dir=tmp_path, update=True) is None
    saved = json.loads(next(tmp_path.glob("*.json")).read_text(encoding="utf-8"))
    assert [
        (s["name"], s["args"], s["result"]) for s in saved["trace"] if s["type"] == "tool_call"
    ] == [("get_weather", {"city": "Paris"}, "Light rain, 18°C")]
    report = check("pyd", _pydantic_ai_run(), snapshot_dir=tmp_path)
    assert report is not None and report.passed


# --------------------------------------------------------------------------- OpenAI Agents SDK


@pytest.fixture
def agents_result() -> Any:
    pytest.importorskip("agents")
    import asyncio

    import openai
    from agents import (
        Agent,
        OpenAIResponsesModel,
        Runner,
        function_tool,
        set_tracing_disabled,
    )

    from tests.frameworks.fake_models import start

    set_tracing_disabled(True)
    with start(running=True) as servers:
        client = openai.AsyncOpenAI(base_url=servers.responses, api_key="sk-test", max_retries=0)

        def model() -> Any:
            return OpenAIResponsesModel("gpt-4o-mini", openai_client=client)

        weather = Agent(name="Weather agent", tools=[function_tool(get_weather)], model=model())
        triage = Agent(name="Triage", handoffs=[weather], model=model())

        async def main() -> Any:
            try:
                return await Runner.run(triage, "What's the weather in Paris?")
            finally:
                await client.close()

        return asyncio.run(main())


def test_agents_sdk_run_result_and_its_input_list(agents_result: Any) -> None:
    assert (
        type(agents_result).__name__ == "RunResult"
        and agents_result.final_output == "Paris: Light rain, 18°C"
    )
    expected = [
        {
            "tool": "transfer_to_weather_agent",
            "args": {},
            "id": "call_transfer_paris",
            "result": json.dumps({"assistant": "Weather agent"}),
        },
        {**PARIS, "id": "call_weather_paris", "result": "Light rain, 18°C"},
    ]
    assert extract_tool_calls(agents_result) == expected
    assert extract_tool_calls(agents_result.to_input_list()) == expected


# --------------------------------------------------------------------------- Claude Agent SDK


def test_claude_agent_sdk_message_list() -> None:
    pytest.importorskip("claude_agent_sdk")
    from claude_agent_sdk import (
        AssistantMessage,
        ResultMessage,
        SystemMessage,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        UserMessage,
    )

    messages = [
        SystemMessage(subtype="init", data={"session_id": "s1"}),
        UserMessage(content="What's the weather in Paris?"),
        AssistantMessage(
            content=[
                TextBlock("Checking."),
                ToolUseBlock("toolu_1", "mcp__weather__get_weather", {"city": "Paris"}),
            ],
            model="claude-sonnet-4-6",
        ),
        UserMessage(
            content=[
                ToolResultBlock("toolu_1", [{"type": "text", "text": "Light rain, 18°C"}], False)
            ]
        ),
        AssistantMessage(content=[TextBlock("Paris: Light rain, 18°C")], model="claude-sonnet-4-6"),
        ResultMessage(
            subtype="success",
            duration_ms=10,
            duration_api_ms=8,
            is_error=False,
            num_turns=2,
            session_id="s1",
            result="Paris: Light rain, 18°C",
        ),
    ]
    assert extract_tool_calls(messages) == [
        {
            "tool": "mcp__weather__get_weather",
            "args": {"city": "Paris"},
            "id": "toolu_1",
            "result": [{"type": "text", "text": "Light rain, 18°C"}],
        }
    ]


# --------------------------------------------------------------------------- anything else


def test_other_framework_objects_are_an_extraction_error_naming_the_path() -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai.messages import ModelResponse

    class Opaque:
        pass

    with pytest.raises(
        ExtractionError, match=r"cannot read tool calls from actual\[1\] \(Opaque\)"
    ):
        extract_tool_calls([ModelResponse(parts=[]), Opaque()])
    # the package is read, not imported, by agentsnap: nothing new was imported by the calls above
    assert "agentsnap.extract" in sys.modules
