"""The OpenAI Agents SDK's Responses WebSocket transport against the loopback fake
(tests/fake_websocket.py): one Agent run with one function tool. Plain pytest, no agentsnap."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("agents")

from tests.fake_websocket import FakeWebSocketAPI
from tests.frameworks.ws_agents_sdk import agents_responses_ws


def test_agents_responses_websocket() -> None:
    with FakeWebSocketAPI() as fake:
        text = asyncio.run(
            agents_responses_ws(
                fake.base_url,
                "sk-test-1234",
                "What's the weather in Paris?",
                weather={"Paris": "sunny, 21C"},
            )
        )
        assert text == "The weather in Paris: sunny, 21C"
        (conn,) = fake.connections  # both model turns on one connection
        assert conn.path == "/v1/responses"
        first, second = conn.frames
        assert first["type"] == second["type"] == "response.create"
        assert first["stream"] is True and "previous_response_id" not in second
        output = second["input"][-1]
        assert output == {
            "call_id": "call_001",
            "output": "sunny, 21C",
            "type": "function_call_output",
        }
