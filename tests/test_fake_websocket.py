"""The loopback WebSocket fake (tests/fake_websocket.py) driven by the unmodified SDKs
(tests/ws_agents.py): each session makes one tool call and answers with its output.
Plain pytest; nothing here uses agentsnap."""

from __future__ import annotations

import asyncio
import json
import shutil

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests import ws_agents
from tests.fake_websocket import FakeWebSocketAPI

KEY = "sk-test-1234"
QUESTION = "What's the weather in Paris?"
WEATHER = {"Paris": "sunny, 21C"}
ANSWER = "The weather in Paris: sunny, 21C"


def _only(fake: FakeWebSocketAPI, protocol: str):
    (conn,) = fake.connections
    assert conn.protocol == protocol
    assert conn.close_code is None
    return conn


def _assert_realtime(fake: FakeWebSocketAPI, protocol: str) -> None:
    conn = _only(fake, protocol)
    assert conn.path == "/v1/realtime"
    assert conn.query == {"model": [ws_agents.REALTIME_MODEL]}
    assert conn.header("authorization") == f"Bearer {KEY}"
    kinds = [f["type"] for f in conn.frames]
    assert kinds == [
        "session.update",
        "conversation.item.create",
        "response.create",
        "conversation.item.create",
        "response.create",
    ]
    output = conn.frames[3]["item"]
    assert output == {"type": "function_call_output", "call_id": "call_001", "output": "sunny, 21C"}
    done = [e for e in conn.sent if e["type"] == "response.done"]
    assert [e["response"]["output"][0]["type"] for e in done] == ["function_call", "message"]
    assert all(e["response"]["usage"]["total_tokens"] > 0 for e in done)


def test_realtime_async() -> None:
    with FakeWebSocketAPI() as fake:
        text = asyncio.run(ws_agents.realtime_async(fake.base_url, KEY, QUESTION, weather=WEATHER))
        assert text == ANSWER
        _assert_realtime(fake, "realtime")
        sent = [e["type"] for e in fake.connections[0].sent]
        assert "response.output_text.delta" in sent and "conversation.item.done" in sent


def test_realtime_sync() -> None:
    with FakeWebSocketAPI() as fake:
        assert ws_agents.realtime_sync(fake.base_url, KEY, QUESTION, weather=WEATHER) == ANSWER
        _assert_realtime(fake, "realtime")


def test_realtime_beta_sync() -> None:
    with FakeWebSocketAPI() as fake:
        assert ws_agents.realtime_beta_sync(fake.ws_url, KEY, QUESTION, weather=WEATHER) == ANSWER
        _assert_realtime(fake, "realtime-beta")
        conn = fake.connections[0]
        assert conn.header("openai-beta") == "realtime=v1"
        sent = [e["type"] for e in conn.sent]
        assert "response.text.delta" in sent and "conversation.item.created" in sent
        assert "response.output_text.delta" not in sent


def test_responses_ws_async_previous_response_id() -> None:
    with FakeWebSocketAPI() as fake:
        text = asyncio.run(
            ws_agents.responses_ws_async(fake.base_url, KEY, QUESTION, weather=WEATHER)
        )
        assert text == ANSWER
        conn = _only(fake, "responses")
        assert conn.path == "/v1/responses"
        first, second = conn.frames
        assert first["type"] == second["type"] == "response.create"
        assert first["input"] == QUESTION
        assert second["previous_response_id"] == "resp_001"
        assert second["input"] == [
            {"type": "function_call_output", "call_id": "call_001", "output": "sunny, 21C"}
        ]
        completed = [e for e in conn.sent if e["type"] == "response.completed"]
        assert [e["response"]["output"][0]["type"] for e in completed] == [
            "function_call",
            "message",
        ]
        assert [e["sequence_number"] for e in conn.sent[:2]] == [0, 1]


@pytest.mark.parametrize("beta", [False, True], ids=["responses", "beta.responses"])
def test_responses_ws_sync(beta: bool) -> None:
    with FakeWebSocketAPI() as fake:
        text = ws_agents.responses_ws_sync(fake.base_url, KEY, QUESTION, weather=WEATHER, beta=beta)
        assert text == ANSWER
        conn = _only(fake, "responses")
        assert conn.header("authorization") == f"Bearer {KEY}"
        second = conn.frames[1]
        assert [i.get("type", "message") for i in second["input"]] == [
            "message",
            "function_call",
            "function_call_output",
        ]
        assert second["input"][2]["output"] == "sunny, 21C"


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl for the TLS certificate")
def test_gemini_live() -> None:
    pytest.importorskip("google.genai")
    with FakeWebSocketAPI(tls=True) as fake:
        text = asyncio.run(
            ws_agents.gemini_live(
                fake.gemini_base_url,
                "gemini-key",
                QUESTION,
                weather=WEATHER,
                ssl_context=fake.client_ssl_context(),
            )
        )
        assert text == ANSWER
        conn = _only(fake, "gemini-live")
        assert conn.path.endswith(".GenerativeService.BidiGenerateContent")
        assert conn.header("x-goog-api-key") == "gemini-key"
        setup, content, response = conn.frames
        assert setup["setup"]["generationConfig"]["responseModalities"] == ["TEXT"]
        assert content["client_content"]["turnComplete"] is True
        assert response["tool_response"]["functionResponses"] == [
            {"id": "call-1", "name": "get_weather", "response": {"result": "sunny, 21C"}}
        ]
        assert conn.sent[1] == {
            "toolCall": {
                "functionCalls": [
                    {"id": "call-1", "name": "get_weather", "args": {"city": "Paris"}}
                ]
            }
        }
        assert "usageMetadata" in conn.sent[-1]


def test_same_conversation_same_bytes() -> None:
    sent = []
    for _ in range(2):
        with FakeWebSocketAPI() as fake:
            ws_agents.realtime_sync(fake.base_url, KEY, QUESTION, weather=WEATHER)
            sent.append(json.dumps(fake.connections[0].sent))
    assert sent[0] == sent[1]


def test_unknown_path_closes_1008() -> None:
    with FakeWebSocketAPI() as fake:
        with connect(f"ws://127.0.0.1:{fake.port}/v1/nope") as ws:
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert fake.connections[0].protocol == "unknown"


def test_unknown_events_answer_errors() -> None:
    with FakeWebSocketAPI() as fake:
        with connect(f"{fake.ws_url}/realtime?model=m") as ws:
            assert json.loads(ws.recv(timeout=5))["type"] == "session.created"
            ws.send(json.dumps({"type": "bogus.event", "event_id": "ev1"}))
            error = json.loads(ws.recv(timeout=5))
            assert error["type"] == "error"
            assert error["error"]["param"] == "type" and error["error"]["event_id"] == "ev1"
        with connect(f"{fake.ws_url}/responses") as ws:
            ws.send(json.dumps({"type": "response.create", "previous_response_id": "resp_x"}))
            error = json.loads(ws.recv(timeout=5))
            assert error["status"] == 400
            assert error["error"]["code"] == "previous_response_not_found"
        path = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
        with connect(f"ws://127.0.0.1:{fake.port}{path}") as ws:
            ws.send(json.dumps({"setup": {"model": "models/m"}}))
            assert json.loads(ws.recv(timeout=5)) == {"setupComplete": {}}
            ws.send(json.dumps({"bogus": {}}))
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
