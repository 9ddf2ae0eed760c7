"""Goldens as agentsnap 0.5.1's snapshot format documents them: every ``llm_call`` step has
``messages`` (the request's list of role/content messages), ``response`` (the answer's text)
and ``tokens`` (the call's total token count, one number), so a script that reads a golden
as JSON the 0.5.1 way works on the files agentsnap writes now, and on 0.5.1's own files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import openai

from agentsnap import AgentRecorder, SnapshotStore
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.fake_anthropic import FakeAnthropic, stream_text_reply, tool_use_reply
from tests.fake_anthropic import text_reply as claude_text
from tests.fake_provider import FakeOpenAI, text_reply, tool_calls_reply

GOLDENS_051 = Path(__file__).parent / "project_051" / "tests" / "__agent_snapshots__"
TOOL = {"name": "get_weather", "parameters": {"type": "object"}}


def read_the_051_way(path: Path) -> tuple[list[tuple[list[tuple[str, Any]], str, int]], int]:
    """What a script written against 0.5.1's documented format does: json only, no agentsnap.
    Per llm_call: its messages as (role, content), its response text and its tokens; and the
    run's token total."""
    data = json.loads(path.read_text(encoding="utf-8"))
    calls = [
        (
            [(m["role"], m["content"]) for m in step["messages"]],
            step["response"],
            step["tokens"],
        )
        for step in data["trace"]
        if step["type"] == "llm_call"
    ]
    return calls, sum(tokens for _, _, tokens in calls)


def test_an_openai_golden_reads_the_051_way(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        fake.script(
            tool_calls_reply([("call_7Hq2", "get_weather", {"city": "Paris"})], usage=(12, 7)),
            text_reply("Paris: sunny", usage=(30, 4)),
        )
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        tools: Any = [{"type": "function", "function": TOOL}]
        with AgentRecorder("openai_loop", snapshot_dir=tmp_path):
            messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
            first = client.chat.completions.create(model="gpt-4o", messages=messages, tools=tools)
            call = first.choices[0].message.tool_calls[0]  # type: ignore[index]
            messages += [
                {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
                {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
            ]
            client.chat.completions.create(model="gpt-4o", messages=messages, tools=tools)
    calls, total = read_the_051_way(SnapshotStore(tmp_path).path_for("openai_loop"))
    assert calls == [
        ([("user", "Weather in Paris?")], "", 19),
        (
            [("user", "Weather in Paris?"), ("assistant", None), ("tool", "sunny")],
            "Paris: sunny",
            34,
        ),
    ]
    assert total == 53


def test_an_anthropic_golden_reads_the_051_way(tmp_path: Path) -> None:
    with FakeAnthropic() as fake:
        fake.script(
            tool_use_reply([("toolu_01Xf", "get_weather", {"city": "Oslo"})], usage=(11, 6)),
            claude_text("Oslo: rain", usage=(40, 3)),
            stream_text_reply("Clouds over Oslo.", usage=(8, 5)),
        )
        client = anthropic.Anthropic(base_url=fake.base_url, api_key="sk-ant-x", max_retries=0)
        tools: Any = [{"name": TOOL["name"], "input_schema": TOOL["parameters"]}]
        with AgentRecorder("anthropic_loop", snapshot_dir=tmp_path):
            messages: list[Any] = [{"role": "user", "content": "Weather in Oslo?"}]
            first = client.messages.create(
                model="claude-sonnet-4-6", max_tokens=64, messages=messages, tools=tools
            )
            use = next(b for b in first.content if b.type == "tool_use")
            messages += [
                {"role": "assistant", "content": [b.model_dump() for b in first.content]},
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "rain"}],
                },
            ]
            client.messages.create(
                model="claude-sonnet-4-6", max_tokens=64, messages=messages, tools=tools
            )
            with client.messages.stream(
                model="claude-sonnet-4-6",
                max_tokens=64,
                messages=[{"role": "user", "content": "The sky over Oslo?"}],
            ) as stream:
                stream.get_final_message()
    calls, total = read_the_051_way(SnapshotStore(tmp_path).path_for("anthropic_loop"))
    assert [(len(m), response, tokens) for m, response, tokens in calls] == [
        (1, "", 17),
        (3, "Oslo: rain", 43),
        (1, "Clouds over Oslo.", 13),
    ]
    assert calls[0][0] == [("user", "Weather in Oslo?")]
    assert [role for role, _ in calls[1][0]] == ["user", "assistant", "user"]
    assert calls[1][0][2][1] == [
        {"type": "tool_result", "tool_use_id": "toolu_01Xf", "content": "rain"}
    ]
    assert total == 73


def test_051s_own_goldens_read_the_same_way_and_load_with_those_fields() -> None:
    files = sorted(GOLDENS_051.glob("*.json"))
    assert len(files) == 7
    for path in files:
        calls, _ = read_the_051_way(path)
        loaded = [s for s in SnapshotStore.read_file(path).trace if s["type"] == "llm_call"]
        assert [
            ([(m["role"], m["content"]) for m in s["messages"]], s["response"], s["tokens"])
            for s in loaded
        ] == calls, path.name
