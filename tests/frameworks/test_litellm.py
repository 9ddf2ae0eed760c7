"""litellm (``completion`` / ``acompletion``, streamed, tool calls) recorded, replayed offline, drift reported."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("litellm")

from tests.frameworks.harness import (
    Project,
    assert_drift_reported,
    llm_calls,
    record_replay,
    tool_steps,
)

AGENT = """
import asyncio, json
import litellm

MODEL = "openai/gpt-4o-mini"
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Current weather in a city.",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


def get_weather(city):
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def run_agent(servers, question):
    messages = [{"role": "user", "content": question}]
    while True:
        resp = litellm.completion(model=MODEL, messages=messages, tools=TOOLS, api_base=servers.chat, api_key="sk-test-1234")
        msg = resp.choices[0].message
        if not msg.tool_calls:
            return msg.content, messages
        messages.append(msg.model_dump(exclude_none=True))
        for call in msg.tool_calls:
            result = get_weather(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


def test_sync(servers, keep):
    resp = litellm.completion(model=MODEL, messages=[{"role": "user", "content": "Weather in Tokyo?"}],
                              api_base=servers.chat, api_key="sk-test-1234")
    keep([type(resp).__name__, resp.choices[0].message.content, resp.usage.total_tokens])


def test_async(servers, keep):
    async def main():
        return await litellm.acompletion(model=MODEL, messages=[{"role": "user", "content": "Weather in Paris?"}],
                                         api_base=servers.chat, api_key="sk-test-1234")
    resp = asyncio.run(main())
    keep([type(resp).__name__, resp.choices[0].message.content])


def test_streamed(servers, keep):
    chunks = litellm.completion(model=MODEL, messages=[{"role": "user", "content": "Weather in Paris?"}],
                                api_base=servers.chat, api_key="sk-test-1234", stream=True)
    keep([c.choices[0].delta.content for c in chunks])


def test_tool_calls(servers, keep):
    answer, messages = run_agent(servers, "What's the weather in Paris?")
    assert answer == "Paris: Light rain, 18°C"
    keep([answer, messages])
"""


def test_litellm_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT, env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    live, replayed = record_replay(project, expect=4)
    assert replayed == live
    assert live["test_sync"] == ["ModelResponse", "Tokyo: Sunny, 24°C", 69]
    assert live["test_async"] == ["ModelResponse", "Paris: Light rain, 18°C"]
    assert "".join(p or "" for p in live["test_streamed"]) == "Paris: Light rain, 18°C"
    assert live["test_tool_calls"][0] == "Paris: Light rain, 18°C"
    snaps = project.snapshots()
    tools = snaps["test_tool_calls"]
    assert [s["provider"] for s in llm_calls(tools)] == ["openai", "openai"]
    assert tool_steps(tools) == [("get_weather", {"city": "Paris"}, "Light rain, 18°C")]
    assert tools["output"] == "Paris: Light rain, 18°C"
    assert llm_calls(snaps["test_streamed"])[0]["stream"] is True

    project.edit('"Paris": "Light rain, 18°C"', '"Paris": "Heavy rain, 12°C"')
    drift, _ = project.run("--agentsnap-replay", offline=True)
    assert_drift_reported(
        drift, test="test_tool_calls", expected=["'Light rain, 18°C' → 'Heavy rain, 12°C'"]
    )
    assert "1 failed, 3 passed" in drift.stdout.splitlines()[-1]
