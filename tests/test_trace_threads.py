"""The trace's order of conversations run from worker threads (a thread pool): the same file
whatever the scheduling, even when the server gives every conversation the same tool-call id.

A fast server answers one worker before the next has sent its first request, so whether the
conversations' calls overlap in time is itself a matter of scheduling: the order may not
depend on it. The fake here numbers tool calls per conversation (every conversation gets
``call_0``), as many fake servers and some providers do.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap.capture.trace import Trace
from agentsnap.storage.wire import Exchange
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.pool_agent import CITIES, SYSTEM, TOOLS, run_pool, shared_id_server
from tests.fake_provider import FakeOpenAI, Reply, text_reply, tool_calls_reply

openai = pytest.importorskip("openai")

pytest_plugins = ["pytester"]

#: how the workers are scheduled: when each starts (seconds), how long its tool takes, how
#: long the server takes for each (city, turn). One worker after another in two opposite
#: orders, then interleaved (each sends its first request after the one before has its
#: answer, its second after all the first ones), then all at once with the server slowest
#: for the first one sent.
SCHEDULES: list[dict[str, Any]] = [
    {"start": {"Rome": 0.0, "Oslo": 0.15, "Lima": 0.3}},
    {"start": {"Lima": 0.0, "Rome": 0.15, "Oslo": 0.3}},
    {"start": {"Oslo": 0.0, "Rome": 0.05, "Lima": 0.1}, "tool": 0.15},
    {"waits": {("Rome", 1): 0.1, ("Oslo", 1): 0.05, ("Rome", 2): 0.05}},
]


def summary(trace: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for s in trace:
        if s["type"] == "llm_call":
            out.append(("llm_call", s["messages"][1]["content"], len(s["messages"]), s["response"]))
        else:
            out.append((s["type"], s["name"], s["args"], json.loads(s["result"]), s["id"]))
    return out


#: the content order: the conversations by their first request (Lima, Oslo, Rome), each whole
EXPECTED = [
    row
    for city in sorted(CITIES)
    for row in (
        ("llm_call", f"Weather in {city}?", 2, ""),
        ("tool_call", "get_weather", {"city": city}, {"city": city, "sky": "sunny"}, "call_0"),
        ("llm_call", f"Weather in {city}?", 4, f"{city}: sunny"),
    )
]


def test_a_pool_sharing_a_tool_call_id_records_one_file_whatever_the_scheduling(
    tmp_path: Path,
) -> None:
    path = SnapshotStore(tmp_path).path_for("pool")
    files, traces = [], []
    with FakeOpenAI() as fake:
        for schedule in SCHEDULES:
            fake.respond_with(shared_id_server(schedule.get("waits", {})))
            with AgentRecorder("pool", snapshot_dir=tmp_path):
                answers = run_pool(fake.base_url, schedule)
            assert answers == ["Rome: sunny", "Oslo: sunny", "Lima: sunny"]
            files.append(path.read_bytes())
            traces.append(summary(json.loads(files[-1])["trace"]))
        # the calls were made in four different orders; re-recording left the file alone
        assert traces == [EXPECTED] * len(SCHEDULES)
        assert files == [files[0]] * len(SCHEDULES)
        # and a live run, scheduled yet another way, compares equal with it
        fake.respond_with(shared_id_server({("Lima", 1): 0.1}))
        with AgentAsserter("pool", snapshot_dir=tmp_path, mode="live") as run:
            run_pool(fake.base_url, {"start": {"Lima": 0.0, "Oslo": 0.1, "Rome": 0.2}})
    assert run.report is not None and run.report.passed, run.report


def test_a_side_call_a_worker_makes_between_two_turns_stays_between_them(tmp_path: Path) -> None:
    def reply(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]
        if last["content"].startswith("Summarise"):
            return text_reply("short: " + last["content"].split()[-1])
        city = body["messages"][1]["content"].removeprefix("Weather in ").rstrip("?")
        if last["role"] == "tool":
            return text_reply(f"{city}: {last['content']}")
        return tool_calls_reply([("call_0", "get_weather", {"city": city})])

    def agent(client: Any, city: str) -> None:
        messages: list[dict[str, Any]] = [
            SYSTEM,
            {"role": "user", "content": f"Weather in {city}?"},
        ]
        first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
        call = first.choices[0].message.tool_calls[0]
        short = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": f"Summarise {city}"}]
        )
        messages += [
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": short.choices[0].message.content},
        ]
        client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)

    orders = []
    with FakeOpenAI() as fake:
        fake.respond_with(reply)
        for start in ({"Rome": 0.0, "Oslo": 0.15}, {"Oslo": 0.0, "Rome": 0.15}, {}):
            name = f"side{len(orders)}"

            def one(city: str, start: dict[str, float] = start) -> None:
                time.sleep(start.get(city, 0.0))
                agent(openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0), city)

            with AgentRecorder(name, snapshot_dir=tmp_path), ThreadPoolExecutor(2) as pool:
                list(pool.map(one, ["Rome", "Oslo"]))
            trace = json.loads(SnapshotStore(tmp_path).path_for(name).read_text(encoding="utf-8"))
            orders.append([(s["type"], s.get("response", s.get("result"))) for s in trace["trace"]])
    assert (
        orders
        == [
            [
                ("llm_call", ""),
                ("tool_call", "short: Oslo"),
                ("llm_call", "short: Oslo"),
                ("llm_call", "Oslo: short: Oslo"),
                ("llm_call", ""),
                ("tool_call", "short: Rome"),
                ("llm_call", "short: Rome"),
                ("llm_call", "Rome: short: Rome"),
            ]
        ]
        * 3
    )


# -- the order itself, with timings under the test's control --------------------------------------


def _exchange(messages: list[dict[str, Any]], reply: str, thread: int) -> Exchange:
    """An openai chat exchange sent from ``thread``: the model answers ``reply``, or, for
    ``reply="ask CITY"``, asks for get_weather(CITY) as ``call_0``."""
    if reply.startswith("ask "):
        arguments = json.dumps({"city": reply.removeprefix("ask ")})
        call = {"id": "call_0", "type": "function"}
        call["function"] = {"name": "get_weather", "arguments": arguments}
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
    else:
        message = {"role": "assistant", "content": reply}
    body = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini"}
    body["choices"] = [{"index": 0, "message": message, "finish_reason": "stop"}]
    exchange = Exchange(
        provider="openai",
        codec="openai_chat",
        request={"method": "POST", "path": "/v1/chat/completions", "body": {"messages": messages}},
        response={"status": 200, "headers": {}, "body": body},
    )
    exchange.thread = thread  # (an attribute the code before threads were told apart ignored)
    return exchange


def _turns(city: str, result: str, answer: str) -> list[tuple[list[dict[str, Any]], str]]:
    """A worker task's tool loop: (messages sent, model's reply) per call."""
    user = {"role": "user", "content": f"Weather in {city}?"}
    call = {"id": "call_0", "type": "function"}
    call["function"] = {"name": "get_weather", "arguments": json.dumps({"city": city})}
    asked = {"role": "assistant", "content": None, "tool_calls": [call]}
    answered = {"role": "tool", "tool_call_id": "call_0", "content": result}
    return [([user], f"ask {city}"), ([user, asked, answered], answer)]


def _label(step: dict[str, Any]) -> str:
    if step["type"] == "tool_call":
        return f"{step['id']} {step['args']['city']} -> {step['result']}"
    return str(step["response"] or "ask " + step["tool_requests"][0]["args"]["city"])


#: what each pool task calls, in its own order; Rome's task asks a summariser between its two
#: turns (the summary is the tool's result)
TASKS: dict[str, list[tuple[list[dict[str, Any]], str]]] = {
    "Rome": [
        _turns("Rome", "short", "Rome: sunny")[0],
        ([{"role": "user", "content": "Summarise: Rome, 21 C, clear"}], "short"),
        _turns("Rome", "short", "Rome: sunny")[1],
    ],
    "Oslo": _turns("Oslo", "rain", "Oslo: rain"),
    "Lima": _turns("Lima", "fog", "Lima: fog"),
}
PLAN = {"role": "user", "content": "Plan the trip"}
#: the trace: the test's thread plans, the pool works (by content), the test's thread goes on
ORDER = [
    "plan",
    "ask Lima",
    "call_0 Lima -> fog",
    "Lima: fog",
    "ask Oslo",
    "call_0 Oslo -> rain",
    "Oslo: rain",
    "ask Rome",
    "call_0 Rome -> short",
    "short",
    "Rome: sunny",
    "trip planned",
]


@st.composite
def pool_runs(draw: st.DrawFn) -> list[Exchange]:
    """The test's thread asks a question; then the three tasks run on a pool of 2 or 3 workers
    (a worker may run two tasks, one after the other), their calls interleaved in any order a
    scheduler could give, each taking any time (overlapping other workers' calls or not);
    then the test's thread goes on. In send order."""
    home = threading.get_ident()
    workers = draw(st.integers(2, 3))
    # the pool hands the tasks out in submission order to whichever worker is free (at least two
    # work): each worker's queue is its tasks' calls
    tasks = draw(st.permutations(list(TASKS)))
    assigned = draw(
        st.lists(st.integers(0, workers - 1), min_size=3, max_size=3).filter(
            lambda a: len(set(a)) > 1
        )
    )
    queues: dict[int, list[tuple[list[dict[str, Any]], str]]] = {}
    for task, worker in zip(tasks, assigned, strict=True):
        queues.setdefault(worker, []).extend(TASKS[task])
    sent = []
    while any(queues.values()):
        worker = draw(st.sampled_from(sorted(w for w, q in queues.items() if q)))
        sent.append((worker, queues[worker].pop(0)))
    first = _exchange([PLAN], "plan", home)
    first.started, first.ended = 0.0, 1.0
    out = [first]
    for n, (worker, (messages, reply)) in enumerate(sent):
        exchange = _exchange(messages, reply, 1000 + worker)
        exchange.started = 2.0 + n
        # answered before the next call is sent, or while other workers send theirs; never
        # after this worker's own next call
        exchange.ended = exchange.started + draw(st.sampled_from([0.5, 1.5, 3.5]))
        nxt = [m for m, (w, _) in enumerate(sent) if w == worker and m > n]
        if nxt:
            exchange.ended = min(exchange.ended, 2.0 + nxt[0] - 0.25)
        out.append(exchange)
    last = _exchange([PLAN, {"role": "assistant", "content": "plan"}], "trip planned", home)
    last.started = max(e.ended or 0.0 for e in out) + 1.0
    last.ended = last.started + 1.0
    return [*out, last]


@settings(max_examples=300, deadline=None)
@given(pool_runs())
def test_property_a_pool_s_conversations_are_in_content_order_whatever_the_scheduling(
    exchanges: list[Exchange],
) -> None:
    trace = Trace()
    trace.exchanges = exchanges
    assert [_label(step) for step in trace.steps()] == ORDER


def _in_turn(*exchanges: Exchange) -> Trace:
    """A trace of ``exchanges`` made one after another, none overlapping the next."""
    trace = Trace()
    for n, exchange in enumerate(exchanges):
        exchange.started, exchange.ended = float(n), n + 0.5
        trace.add_exchange(exchange)
    return trace


#: Rome's conversation (with a side call between its turns), then Lima's, as they were made
IN_SEND_ORDER = [
    "ask Rome",
    "call_0 Rome -> short",
    "short",
    "Rome: sunny",
    "ask Lima",
    "call_0 Lima -> fog",
    "Lima: fog",
]


def test_one_worker_thread_s_calls_stay_in_the_order_it_made_them() -> None:
    """A single background thread (a web app's, served to a test client) runs one piece of
    code at a time: its conversations are in the order they were made, not by content."""
    calls = [*TASKS["Rome"], *TASKS["Lima"]]
    trace = _in_turn(*(_exchange(m, reply, 7) for m, reply in calls))
    assert [_label(step) for step in trace.steps()] == IN_SEND_ORDER


def test_calls_of_the_trace_s_own_thread_keep_the_order_they_were_made_in() -> None:
    """Without workers, as before: conversations one after another in send order, a side call
    between two turns where it was made, a call id used again by the next conversation."""
    home = threading.get_ident()
    calls = [*TASKS["Rome"], *TASKS["Lima"]]
    trace = _in_turn(*(_exchange(m, reply, home) for m, reply in calls))
    assert [_label(step) for step in trace.steps()] == IN_SEND_ORDER


# -- through pytest: --agentsnap-record twice, then --agentsnap-instrument -----------------------

POOL_TEST = f"""
import json, os, sys

sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
from tests._support.pool_agent import run_pool, shared_id_server
from tests.fake_provider import FakeOpenAI


def test_threads():
    with FakeOpenAI() as fake:
        fake.respond_with(shared_id_server({{}}))
        answers = run_pool(fake.base_url, {{"start": json.loads(os.environ["POOL_START"])}})
    assert answers == ["Rome: sunny", "Oslo: sunny", "Lima: sunny"]
"""


def test_re_recording_a_pool_through_pytest_keeps_the_golden_and_a_live_run_passes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyprojecttoml('[tool.agentsnap]\nsnapshot_dir = "snaps"\n')
    pytester.makepyfile(test_pool=POOL_TEST)
    quiet = ("-p", "no:randomly", "-p", "no:cacheprovider", "-q")
    files = []
    for start in (
        {"Rome": 0.0, "Oslo": 0.15, "Lima": 0.3},
        {"Lima": 0.0, "Oslo": 0.15, "Rome": 0.3},
    ):
        monkeypatch.setenv("POOL_START", json.dumps(start))
        recorded = pytester.runpytest_subprocess("--agentsnap-record", *quiet)
        recorded.assert_outcomes(passed=1)
        (path,) = (pytester.path / "snaps").glob("*.json")
        files.append(path.read_bytes())
    assert files[1] == files[0]
    assert summary(json.loads(files[0])["trace"]) == EXPECTED
    monkeypatch.setenv("POOL_START", json.dumps({"Oslo": 0.0, "Lima": 0.15, "Rome": 0.3}))
    live = pytester.runpytest_subprocess("--agentsnap-instrument", *quiet)
    live.assert_outcomes(passed=1)
    assert "agentsnap: 1 passed" in live.outlines, live.stdout.str()
    assert path.read_bytes() == files[0]
