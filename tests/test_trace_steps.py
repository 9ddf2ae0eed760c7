"""Trace.steps: tool calls derived from the conversation, when ids repeat across conversations;
steps in the order the calls were made, and a stable order for concurrent conversations."""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from tests._support.offline import Offline
from tests.fake_provider import FakeOpenAI, Reply, text_reply, tool_calls_reply

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


def _turn_by_turn(client: openai.OpenAI, turns: list[tuple[str, str]]) -> list[str]:
    """One piece of code taking two conversations a turn at a time, in the order ``turns``
    gives: ``(city, "ask")`` asks for the weather, ``(city, "answer")`` sends the tool's
    result, ``(city, "more")`` asks a follow-up."""
    chats: dict[str, list[dict]] = {}
    answers = []
    for city, turn in turns:
        messages = chats.setdefault(city, [{"role": "user", "content": f"Weather in {city}?"}])
        if turn == "answer":
            call = chats[city + " call"][0]
            messages += [
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": call["id"], "content": f"sunny in {city}"},
            ]
        elif turn == "more":
            messages += [
                {"role": "assistant", "content": answers[-1]},
                {"role": "user", "content": "And tomorrow?"},
            ]
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
        message = reply.choices[0].message
        if message.tool_calls:
            chats[city + " call"] = [message.tool_calls[0].model_dump()]
        else:
            answers.append(str(message.content))
    return answers


def _numbered_per_conversation(body: dict) -> Reply:
    city = body["messages"][0]["content"].removeprefix("Weather in ").rstrip("?")
    last = body["messages"][-1]
    if last["role"] == "tool":
        return text_reply(f"{city}: sunny")
    if last["content"] == "And tomorrow?":
        return text_reply(f"{city}: rain tomorrow")
    return tool_calls_reply([("call_1", "get_weather", {"city": city})])


@pytest.mark.parametrize(
    ("turns", "expected"),
    [
        pytest.param(
            [("Paris", "ask"), ("Rome", "ask"), ("Paris", "answer"), ("Rome", "answer")],
            [
                ("llm_call", "Weather in Paris?", ""),
                ("tool_call", {"city": "Paris"}, "sunny in Paris"),
                ("llm_call", "Weather in Rome?", ""),
                ("tool_call", {"city": "Rome"}, "sunny in Rome"),
                ("llm_call", "Weather in Paris?", "Paris: sunny"),
                ("llm_call", "Weather in Rome?", "Rome: sunny"),
            ],
            id="both-asked-then-both-answered",
        ),
        pytest.param(
            [
                ("Paris", "ask"),
                ("Paris", "answer"),
                ("Rome", "ask"),
                ("Paris", "more"),
                ("Rome", "answer"),
            ],
            [
                ("llm_call", "Weather in Paris?", ""),
                ("tool_call", {"city": "Paris"}, "sunny in Paris"),
                ("llm_call", "Weather in Paris?", "Paris: sunny"),
                ("llm_call", "Weather in Rome?", ""),
                ("tool_call", {"city": "Rome"}, "sunny in Rome"),
                ("llm_call", "Weather in Paris?", "Paris: rain tomorrow"),
                ("llm_call", "Weather in Rome?", "Rome: sunny"),
            ],
            id="a-follow-up-repeats-the-first-result-while-the-second-call-waits",
        ),
    ],
)
def test_two_conversations_taken_turn_by_turn_under_one_call_id_keep_their_tool_calls(
    tmp_path: Path, offline: Offline, turns: list[tuple[str, str]], expected: list[tuple]
) -> None:
    """The server numbers calls per conversation (both get call_1) and one piece of code takes
    the two conversations a turn at a time: each result pairs with its own conversation's call
    (was: the second call lost, or given the first conversation's result)."""
    with FakeOpenAI() as fake:
        fake.respond_with(_numbered_per_conversation)
        base = fake.base_url
        client = openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0)
        with AgentRecorder("turns", snapshot_dir=tmp_path):
            live = _turn_by_turn(client, turns)
    trace = json.loads(SnapshotStore(tmp_path).path_for("turns").read_text(encoding="utf-8"))[
        "trace"
    ]
    # in the order the calls were made, each tool call after the call that asked for it
    assert [
        ("llm_call", s["messages"][0]["content"], s["response"])
        if s["type"] == "llm_call"
        else (s["type"], s["args"], s["result"])
        for s in trace
    ] == expected
    assert [s["id"] for s in trace if s["type"] == "tool_call"] == ["call_1", "call_1"]
    client = openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0)
    with offline(), AgentAsserter("turns", snapshot_dir=tmp_path, mode="replay") as run:
        replayed = _turn_by_turn(client, turns)
    assert replayed == live
    assert run.report is not None and run.report.passed, run.report


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


def side_call_agent(client: openai.OpenAI, city: str) -> str:
    """A tool loop that, between the tool call and the final answer, asks the model
    something else in a conversation of its own (a summariser, a guard model)."""
    messages: list[dict] = [{"role": "user", "content": f"Weather in {city}?"}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    call = first.choices[0].message.tool_calls[0]
    raw = f"{city}: 21 C, clear sky, wind 5 km/h"
    summary = (
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": f"Summarise: {raw}"}]
        )
        .choices[0]
        .message.content
    )
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": summary},
    ]
    return (
        client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
        .choices[0]
        .message.content
    )


def test_a_side_call_between_two_turns_is_stored_where_it_happened(
    tmp_path: Path, offline: Offline
) -> None:
    with FakeOpenAI() as fake:
        fake.script(
            tool_calls_reply([("call_Qm3kX9", "get_weather", {"city": "Paris"})]),
            text_reply("sunny, 21 C"),
            text_reply("Paris: sunny, 21 C"),
        )
        base = fake.base_url
        client = openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0)
        with AgentRecorder("side_call", snapshot_dir=tmp_path):
            live = side_call_agent(client, "Paris")
    trace = json.loads(SnapshotStore(tmp_path).path_for("side_call").read_text(encoding="utf-8"))[
        "trace"
    ]
    # the summariser's call was made before the final answer's: it stays before it
    assert [(s["step"], s["type"], s.get("response"), s.get("result")) for s in trace] == [
        (0, "llm_call", "", None),
        (1, "tool_call", None, "sunny, 21 C"),
        (2, "llm_call", "sunny, 21 C", None),
        (3, "llm_call", "Paris: sunny, 21 C", None),
    ]
    assert trace[2]["messages"] == [
        {"role": "user", "content": "Summarise: Paris: 21 C, clear sky, wind 5 km/h"}
    ]
    client = openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0)
    with offline(), AgentAsserter("side_call", snapshot_dir=tmp_path, mode="replay") as run:
        replayed = side_call_agent(client, "Paris")
    assert replayed == live == "Paris: sunny, 21 C"
    assert run.report is not None and run.report.passed, run.report


def test_concurrent_conversations_keep_one_order_whatever_the_scheduling(tmp_path: Path) -> None:
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    delays: dict[str, float] = {}

    def reply(body: dict) -> Reply:
        city = body["messages"][0]["content"].removeprefix("Weather in ").rstrip("?")
        time.sleep(delays[city])
        if body["messages"][-1]["role"] == "tool":
            return text_reply(f"{city}: sunny")
        return tool_calls_reply([(f"call_{city}", "get_weather", {"city": city})])

    orders = []
    with FakeOpenAI() as fake:
        fake.respond_with(reply)
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        for n, timing in enumerate(({"Rome": 0.0, "Oslo": 0.15}, {"Rome": 0.15, "Oslo": 0.0})):
            delays.update(timing)
            barrier = threading.Barrier(2)

            def one(city: str, barrier: threading.Barrier = barrier) -> str:
                barrier.wait()  # both start together: their first calls overlap
                return weather_agent(client, city)

            with (
                AgentRecorder(f"concurrent{n}", snapshot_dir=tmp_path),
                ThreadPoolExecutor(2) as pool,
            ):
                list(pool.map(one, ["Rome", "Oslo"]))
            trace = json.loads(
                SnapshotStore(tmp_path).path_for(f"concurrent{n}").read_text(encoding="utf-8")
            )["trace"]
            orders.append([(s["type"], s.get("response", s.get("result"))) for s in trace])
    # the calls finished in opposite orders; each conversation is written whole, by content
    assert (
        orders[0]
        == orders[1]
        == [
            ("llm_call", ""),
            ("tool_call", "sunny in Oslo"),
            ("llm_call", "Oslo: sunny"),
            ("llm_call", ""),
            ("tool_call", "sunny in Rome"),
            ("llm_call", "Rome: sunny"),
        ]
    )
