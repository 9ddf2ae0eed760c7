"""Trace.steps: tool calls derived from the conversation, when ids repeat across conversations."""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest

from agentsnap import AgentRecorder, SnapshotStore
from tests.fake_provider import FakeOpenAI, text_reply, tool_calls_reply

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


@pytest.fixture(autouse=True)
def _local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


def weather_agent(client: openai.OpenAI, city: str) -> str:
    messages: list[dict] = [{"role": "user", "content": f"Weather in {city}?"}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    call = first.choices[0].message.tool_calls[0]
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": f"sunny in {city}"},
    ]
    return (
        client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
        .choices[0]
        .message.content
    )


def test_two_conversations_reusing_a_call_id_keep_both_tool_calls(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        # a server that numbers calls per conversation: both runs get "call_1"
        fake.script(
            tool_calls_reply([("call_1", "get_weather", {"city": "Paris"})]),
            text_reply("Paris: sunny"),
            tool_calls_reply([("call_1", "get_weather", {"city": "Rome"})]),
            text_reply("Rome: sunny"),
        )
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        with AgentRecorder("two_runs", snapshot_dir=tmp_path):
            weather_agent(client, "Paris")
            weather_agent(client, "Rome")
    trace = json.loads(SnapshotStore(tmp_path).path_for("two_runs").read_text(encoding="utf-8"))[
        "trace"
    ]
    assert [(s["type"], s.get("name"), s.get("args"), s.get("result")) for s in trace] == [
        ("llm_call", None, None, None),
        ("tool_call", "get_weather", {"city": "Paris"}, "sunny in Paris"),
        ("llm_call", None, None, None),
        ("llm_call", None, None, None),
        ("tool_call", "get_weather", {"city": "Rome"}, "sunny in Rome"),
        ("llm_call", None, None, None),
    ]


def test_tools_run_in_parallel_are_ordered_by_content_not_by_scheduling(tmp_path: Path) -> None:
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from agentsnap.adapters import ToolAdapter

    def lookup(city: str, delay: float) -> str:
        time.sleep(delay)
        return city.upper()

    tool = ToolAdapter(lookup, name="lookup")
    barrier = threading.Barrier(3)

    def run_all(delays: dict[str, float]) -> None:
        def one(city: str) -> str:
            barrier.wait()  # all three start together: their intervals overlap
            return tool(city, delays[city])

        with ThreadPoolExecutor(3) as pool:
            list(pool.map(one, ["Rome", "Paris", "Oslo"]))
        tool("Lima", 0.0)  # after the parallel ones, on its own

    orders = []
    for n, delays in enumerate(
        ({"Rome": 0.0, "Paris": 0.05, "Oslo": 0.1}, {"Rome": 0.1, "Paris": 0.0, "Oslo": 0.05})
    ):
        with AgentRecorder(f"parallel{n}", snapshot_dir=tmp_path):
            run_all(delays)
        trace = json.loads(
            SnapshotStore(tmp_path).path_for(f"parallel{n}").read_text(encoding="utf-8")
        )["trace"]
        orders.append([s["args"]["city"] for s in trace])
    # completion order differed (Rome, Paris, Oslo vs Paris, Oslo, Rome); the trace did not
    assert orders[0] == orders[1] == ["Oslo", "Paris", "Rome", "Lima"]
