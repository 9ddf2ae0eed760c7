"""The OpenAI Agents SDK over WebSocket against the loopback fake (tests/fake_websocket.py): an
``Agent`` in a ``responses_websocket_session`` (the Responses API's WebSocket transport) and a
``RealtimeAgent`` in a text-only ``RealtimeRunner`` session, each with one function tool.

First plain pytest, no agentsnap; then each recorded with agentsnap, the fake stopped, and
replayed with every TCP connect refused: the same final output; the golden holds one
``websocket`` step, two ``llm_call`` steps on it and the derived ``get_weather`` tool call; the
key is in no golden byte; a changed tool output fails the replay naming the new output; a
re-record of the unchanged run leaves the golden's bytes as they were.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents")


from agentsnap import AgentAsserter, AgentRecorder
from agentsnap.exceptions import AgentRegressionError
from tests._support.offline import Offline
from tests.fake_websocket import FakeWebSocketAPI
from tests.frameworks.ws_agents_sdk import agents_realtime, agents_responses_ws


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


# -- recorded with agentsnap, replayed with every TCP connect refused ------------------------------

KEY = "sk-live-agents-ws-0123456789SECRETKEY"
QUESTION = "What's the weather in Paris?"
WEATHER = {"Paris": "sunny, 21C"}
ANSWER = "The weather in Paris: sunny, 21C"


def _responses(fake: Any, weather: Mapping[str, str]) -> str:
    return asyncio.run(agents_responses_ws(fake.base_url, KEY, QUESTION, weather=weather))


def _realtime(fake: Any, weather: Mapping[str, str]) -> str:
    return asyncio.run(agents_realtime(fake.ws_url, KEY, QUESTION, weather=weather))


#: driver -> (runs the agent against a fake's addresses, the API of the golden's websocket step,
#: the connection's path)
DRIVERS: dict[str, tuple[Callable[[Any, Mapping[str, str]], str], str, str]] = {
    "responses-session": (_responses, "openai_responses", "/v1/responses"),
    "realtime-runner": (_realtime, "openai_realtime", "/v1/realtime"),
}


class Stopped:
    """Where the recording's fake was, once it is stopped: all a replay has."""

    def __init__(self, fake: FakeWebSocketAPI) -> None:
        self.base_url, self.ws_url, self.port = fake.base_url, fake.ws_url, fake.port


def _golden(snaps: Path) -> tuple[bytes, dict[str, Any]]:
    (path,) = sorted(snaps.glob("*.json"))
    raw = path.read_bytes()
    return raw, json.loads(raw)


def _record(driver: str, snaps: Path, name: str) -> tuple[str, Stopped]:
    run = DRIVERS[driver][0]
    with FakeWebSocketAPI() as fake:
        where = Stopped(fake)
        with AgentRecorder(name, snapshot_dir=snaps):
            text = run(fake, WEATHER)
    return text, where


@pytest.mark.parametrize("driver", list(DRIVERS))
def test_the_golden_holds_the_connection_its_turns_and_the_tool_call(
    driver: str, tmp_path: Path
) -> None:
    snaps = tmp_path / "snaps"
    live, fake = _record(driver, snaps, f"agents-ws::{driver}")
    assert live == ANSWER
    raw, data = _golden(snaps)
    assert KEY.encode() not in raw
    steps = data["trace"]
    assert [s["type"] for s in steps] == ["websocket", "llm_call", "tool_call", "llm_call"]
    socket_step, first, tool, second = steps
    assert socket_step["connection"] == 0 and socket_step["api"] == DRIVERS[driver][1]
    assert socket_step["status"] == 101 and socket_step["close"]["by"] == "client"
    assert socket_step["url"].split("?")[0] == f"ws://127.0.0.1{DRIVERS[driver][2]}"
    assert f":{fake.port}" not in socket_step["url"]
    assert first["connection"] == second["connection"] == 0
    assert "exchange" not in first
    assert [(r["name"], r["args"]) for r in first["tool_requests"]] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert (tool["name"], tool["args"], tool["result"]) == (
        "get_weather",
        {"city": "Paris"},
        "sunny, 21C",
    )
    assert second["response"] == ANSWER and second["usage"]


@pytest.mark.parametrize("driver", list(DRIVERS))
def test_replayed_offline_then_a_changed_tool_output_fails(
    driver: str, tmp_path: Path, offline: Offline
) -> None:
    run = DRIVERS[driver][0]
    snaps = tmp_path / "snaps"
    live, fake = _record(driver, snaps, f"agents-ws::{driver}")
    before, _ = _golden(snaps)

    # the fake is stopped, and no TCP connection may be opened: the golden answers
    with offline(), AgentAsserter(f"agents-ws::{driver}", snapshot_dir=snaps, mode="replay"):
        replayed = run(fake, WEATHER)
    assert replayed == live == ANSWER

    # the agent's tool now answers something else: the replay fails naming the new output
    with pytest.raises(AgentRegressionError) as changed:
        with offline(), AgentAsserter(f"agents-ws::{driver}", snapshot_dir=snaps, mode="replay"):
            run(fake, {"Paris": "hail, 2C"})
    said = str(changed.value)
    assert "hail, 2C" in said, said
    assert _golden(snaps)[0] == before  # a failing replay never rewrites the golden


@pytest.mark.parametrize(
    "driver",
    [
        "responses-session",
        "realtime-runner",
    ],
)
def test_re_recording_the_unchanged_run_is_byte_identical(driver: str, tmp_path: Path) -> None:
    snaps = tmp_path / "snaps"
    _record(driver, snaps, f"agents-ws::{driver}")
    first, _ = _golden(snaps)
    _record(driver, snaps, f"agents-ws::{driver}")  # a new fake on another port, other timings
    assert _golden(snaps)[0] == first
