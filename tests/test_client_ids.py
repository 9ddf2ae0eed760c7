"""Values the client mints compare up to a consistent renaming (issue 24 section 3).

An agent framework (strands-agents with Gemini) makes up a random tool-call id
(``tooluse_…``) when Gemini's ``functionCall`` comes back without one and sends it
in the next request. Through the real google-genai SDK and the loopback Gemini
fake: the golden keeps the tool call, an unchanged agent replays clean offline
with fresh ids, and a result that now answers the other call still fails. The
same through the openai SDK against an OpenAI-compatible server that leaves a
call's ``id`` empty (the client makes up ``call_…``): results are paired with
their calls by position.
"""

from __future__ import annotations

import secrets
import uuid
from pathlib import Path
from typing import Any

import pytest

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap.capture.client_ids import looks_minted, normalise, response_ids
from agentsnap.exceptions import AgentRegressionError
from tests import fake_provider as fo
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.offline import Offline

genai = pytest.importorskip("google.genai")
from google.genai import types

from tests.fake_gemini import MODEL, FakeGemini, function_call_reply, text_reply

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

CITIES = ("Paris", "Rome")


def _minted() -> str:
    # the shape strands-agents gives the ids it makes up
    return "tooluse_" + secrets.token_urlsafe(16)


def _agent(client: Any, *, swap: bool = False) -> str:
    """Ask, run both requested tools, answer each call under an id made up here."""
    config = types.GenerateContentConfig(
        tools=[
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(name="get_weather", description="Weather in a city.")
                ]
            )
        ]
    )
    question = types.Content(role="user", parts=[types.Part(text="Weather in Paris and Rome?")])
    first = client.models.generate_content(model=MODEL, contents=[question], config=config)
    calls = [p.function_call for p in first.candidates[0].content.parts if p.function_call]
    ids = [call.id or _minted() for call in calls]
    results = [f"sunny in {call.args['city']}" for call in calls]
    if swap:  # a real change: each result now answers the other call
        results.reverse()
    turn = types.Content(
        role="model",
        parts=[
            types.Part(function_call=types.FunctionCall(id=i, name=c.name, args=c.args))
            for i, c in zip(ids, calls, strict=True)
        ],
    )
    answers = types.Content(
        role="user",
        parts=[
            types.Part(
                function_response=types.FunctionResponse(
                    id=i, name="get_weather", response={"result": r}
                )
            )
            for i, r in zip(ids, results, strict=True)
        ],
    )
    final = client.models.generate_content(
        model=MODEL, contents=[question, turn, answers], config=config
    )
    return final.text or ""


def _client(base_url: str) -> Any:
    return genai.Client(
        api_key="gemini-test-key", http_options=types.HttpOptions(base_url=base_url)
    )


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[Path, str]:
    with FakeGemini() as fake:
        fake.script(
            function_call_reply([("get_weather", {"city": c}, None) for c in CITIES]),
            text_reply("Sunny in both."),
        )
        base = fake.base_url
        with AgentRecorder("weather", snapshot_dir=tmp_path) as rec:
            rec.output = _agent(_client(base))
        sent = fake.requests[1].body["contents"][1]["parts"][0]["functionCall"]["id"]
    assert sent.startswith("tooluse_")  # the client's own id reached the provider
    return tmp_path, base


def test_the_golden_keeps_the_tool_calls_answered_under_client_ids(
    recorded: tuple[Path, str],
) -> None:
    root, _ = recorded
    trace = SnapshotStore(root).load("weather").trace  # type: ignore[union-attr]
    assert [s["type"] for s in trace] == ["llm_call", "tool_call", "tool_call", "llm_call"]
    tools = [(s["name"], s["args"], s["result"]) for s in trace if s["type"] == "tool_call"]
    assert tools == [
        ("get_weather", {"city": "Paris"}, {"result": "sunny in Paris"}),
        ("get_weather", {"city": "Rome"}, {"result": "sunny in Rome"}),
    ]


def test_an_unchanged_agent_replays_clean_with_fresh_client_ids(
    recorded: tuple[Path, str], offline: Offline
) -> None:
    root, base = recorded
    with offline(), AgentAsserter("weather", snapshot_dir=root, mode="replay") as run:
        run.output = _agent(_client(base))
    assert run.outcome is not None and run.outcome.action == "passed"
    assert run.outcome.report is not None and run.outcome.report.failed_checks == []


def test_a_result_that_answers_the_other_call_still_fails(
    recorded: tuple[Path, str], offline: Offline
) -> None:
    root, base = recorded
    with (
        pytest.raises(AgentRegressionError) as info,
        offline(),
        AgentAsserter("weather", snapshot_dir=root, mode="replay") as run,
    ):
        run.output = _agent(_client(base), swap=True)
    report = info.value.diff_report
    assert "llm_requests" in report.failed_checks
    assert "functionResponse" in str(report)


def test_the_rule_renames_minted_values_only_where_a_client_would_put_them() -> None:
    known = response_ids([{"candidates": [{"id": "resp_Zt81kQm2Pq7Lw0Vt"}]}])
    body = {
        "contents": [
            {"parts": [{"functionCall": {"id": "tooluse_9PtJgVrPhqvnE9mEEUN6Yw", "args": {}}}]},
            {"parts": [{"functionResponse": {"id": "tooluse_9PtJgVrPhqvnE9mEEUN6Yw"}}]},
            {"parts": [{"functionCall": {"id": "resp_Zt81kQm2Pq7Lw0Vt", "args": {}}}]},
            {"parts": [{"functionCall": {"id": "x", "args": {"id": "user_8d7f6a5s4d3f2g1h"}}}]},
        ]
    }
    renamed, changed = normalise(body, known)
    assert changed
    parts = [c["parts"][0] for c in renamed["contents"]]
    assert parts[0]["functionCall"]["id"] == parts[1]["functionResponse"]["id"] == "<client1>"
    assert parts[2]["functionCall"]["id"] == "resp_Zt81kQm2Pq7Lw0Vt"  # the provider's: kept
    assert parts[3]["functionCall"]["args"] == {"id": "user_8d7f6a5s4d3f2g1h"}  # the agent's data
    assert body["contents"][0]["parts"][0]["functionCall"]["id"].startswith("tooluse_")  # a copy
    words = ("get_weather", "Paris", "call_1", "a" * 20, "get_weather_forecast_tool")
    assert [looks_minted(v) for v in words] == [False] * 5
    minted = (
        "9b2c4f1e-3a5d-4e6f-8a7b-0c1d2e3f4a5b",
        "tooluse_cxziFB5DMWnSsuxPlXNySQ",  # base64 with a single digit
        "call_a1b2c3d4e5f6a7b8",
    )
    assert [looks_minted(v) for v in minted] == [True] * 3


# --------------------------------------------------------------------------- OpenAI chat
# An OpenAI-compatible server may leave a tool call's ``id`` empty; the client then makes
# one up (``call_`` + random) for the assistant turn and the tool message it sends back.


def _chat_agent(client: Any, *, swap: bool = False) -> str:
    """Ask, run each requested tool, answer each call under an id made up here."""
    question = {"role": "user", "content": "Weather in Paris and Rome?"}
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=[question], tools=tools)
    calls = first.choices[0].message.tool_calls
    ids = [call.id or "call_" + secrets.token_urlsafe(16) for call in calls]
    results = [f"sunny in {call.function.arguments}" for call in calls]
    if swap:  # a real change: each result now answers the other call
        results.reverse()
    turn = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": call.function.model_dump()}
            for i, call in zip(ids, calls, strict=True)
        ],
    }
    answers = [
        {"role": "tool", "tool_call_id": i, "content": r} for i, r in zip(ids, results, strict=True)
    ]
    final = client.chat.completions.create(
        model="gpt-4o-mini", messages=[question, turn, *answers], tools=tools
    )
    return final.choices[0].message.content or ""


@pytest.fixture
def recorded_chat(tmp_path: Path) -> tuple[Path, str]:
    openai = pytest.importorskip("openai")
    with fo.FakeOpenAI() as fake:
        fake.script(
            fo.tool_calls_reply([("", "get_weather", {"city": c}) for c in CITIES]),
            fo.text_reply("Sunny in both."),
        )
        base = fake.base_url
        with AgentRecorder("chat", snapshot_dir=tmp_path) as rec:
            rec.output = _chat_agent(openai.OpenAI(base_url=base, api_key="sk-test"))
        sent = fake.requests[1].body["messages"][2]["tool_call_id"]
    assert sent.startswith("call_") and len(sent) > 20  # the client's own id reached the server
    return tmp_path, base


def test_chat_golden_pairs_results_under_client_ids_by_position(
    recorded_chat: tuple[Path, str],
) -> None:
    root, _ = recorded_chat
    trace = SnapshotStore(root).load("chat").trace  # type: ignore[union-attr]
    assert [s["type"] for s in trace] == ["llm_call", "tool_call", "tool_call", "llm_call"]
    tools = [(s["name"], s["args"], s["result"]) for s in trace if s["type"] == "tool_call"]
    assert tools == [
        ("get_weather", {"city": "Paris"}, 'sunny in {"city":"Paris"}'),
        ("get_weather", {"city": "Rome"}, 'sunny in {"city":"Rome"}'),
    ]


def test_chat_replays_clean_with_fresh_client_ids_and_a_swap_still_fails(
    recorded_chat: tuple[Path, str], offline: Offline
) -> None:
    import openai

    root, base = recorded_chat
    with offline(), AgentAsserter("chat", snapshot_dir=root, mode="replay") as run:
        run.output = _chat_agent(openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0))
    assert run.outcome is not None and run.outcome.action == "passed"
    assert run.outcome.report is not None and run.outcome.report.failed_checks == []

    with (
        pytest.raises(AgentRegressionError) as info,
        offline(),
        AgentAsserter("chat", snapshot_dir=root, mode="replay") as swapped,
    ):
        swapped.output = _chat_agent(
            openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0), swap=True
        )
    report = info.value.diff_report
    assert "llm_requests" in report.failed_checks
    assert "messages[2].content" in str(report)


def test_a_uuid4_request_id_in_the_body_replays_clean_and_a_real_change_still_fails(
    tmp_path: Path, offline: Offline
) -> None:
    """A client that puts a fresh uuid4 in every body (``request_id``): the replay finds the
    recording and compares clean; a changed question under a fresh uuid still fails."""
    openai = pytest.importorskip("openai")

    def ask(base: str, question: str = "Weather in Paris?") -> str:
        client = openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0)
        answer = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": question}],
            extra_body={"request_id": str(uuid.uuid4())},
        )
        return answer.choices[0].message.content or ""

    with fo.FakeOpenAI() as fake:
        fake.script(fo.text_reply("Light rain."))
        base = fake.base_url
        with AgentRecorder("uuid", snapshot_dir=tmp_path) as rec:
            rec.output = ask(base)
        assert looks_minted(fake.requests[0].body["request_id"])
    with offline(), AgentAsserter("uuid", snapshot_dir=tmp_path, mode="replay") as run:
        run.output = ask(base)
    assert run.output == "Light rain."
    assert run.outcome is not None and run.outcome.report is not None
    assert run.outcome.report.failed_checks == []

    with (
        pytest.raises(AgentRegressionError) as info,
        offline(),
        AgentAsserter("uuid", snapshot_dir=tmp_path, mode="replay") as changed,
    ):
        changed.output = ask(base, "Weather in Rome?")
    report = info.value.diff_report
    assert "llm_requests" in report.failed_checks
    assert "messages[0].content" in str(report) and "request_id" not in str(report)
