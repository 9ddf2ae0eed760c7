"""A replayed test that fails its own assert after what it sends changed: the note names each
kind of request replay answered from the recording of another one (llm calls, HTTP requests,
MCP requests, WebSocket connections) by what it is, never an MCP request for a WebSocket
connection nor a step whose server and name it does not have ("None None").

End to end against real servers on 127.0.0.1 (:mod:`tests._support.loopback_servers`: an MCP
server on the ``mcp`` SDK over streamable HTTP, a ``websockets`` server); the wording of each
kind alone on :func:`agentsnap.diff.advice.failed_test_note` itself.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentsnap.diff.advice import failed_test_note
from agentsnap.storage.snapshot import Snapshot

pytest_plugins = ["pytester"]

TESTS = """
import asyncio, json
from pathlib import Path

AGENT = Path(__file__).with_name("agent.json")


def test_agent(mcp_url, ws_url):
    from mcp import Client
    from websockets.sync.client import connect

    agent = json.loads(AGENT.read_text())

    async def forecast():
        async with Client(mcp_url) as client:
            result = await client.call_tool("get_forecast", {"city": agent["city"]})
            return result.content[0].text

    got = [asyncio.run(forecast())]
    for text in agent["texts"]:
        with connect(ws_url + "/v1/fake") as ws:
            ws.send(text)
            got.append(ws.recv())
    assert got == [f"Sunny in {agent['city']}"] + [f"echo:{t}" for t in agent["texts"]]
"""


def _run(pytester: pytest.Pytester, mode: str, **agent: Any) -> pytest.RunResult:
    (pytester.path / "agent.json").write_text(json.dumps(agent), encoding="utf-8")
    return pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider", mode)


def test_a_failed_replayed_test_names_its_changed_websocket_and_mcp_requests_by_kind(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("mcp")
    pytest.importorskip("uvicorn")
    pytest.importorskip("websockets")
    from tests._support.ci import AGENTSNAP_ENV, clear_ci
    from tests._support.loopback_servers import CONFTEST

    clear_ci(monkeypatch, also=AGENTSNAP_ENV)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_agent=TESTS)
    recorded = _run(pytester, "--agentsnap-record", city="Paris", texts=["first", "second"])
    assert recorded.ret == 0, recorded.stdout.str()

    replayed = _run(pytester, "--agentsnap-replay", city="Rome", texts=["second", "first"])
    out = replayed.stdout.str()
    assert replayed.ret == 1, out
    lines = [line.rstrip() for line in replayed.outlines]
    start = next(i for i, line in enumerate(lines) if line.startswith("agentsnap: 1 MCP"))
    assert lines[start] == (
        "agentsnap: 1 MCP request(s) and the messages sent on 2 WebSocket connection(s) changed, so "
        "replay served them the recorded answers to the old requests: this test checked answers "
        "the server never gave to what it sends now."
    )
    heads = [line for line in lines[start + 1 :] if line.startswith("  ") and line.endswith(":")]
    assert heads[0].startswith("  MCP weather get_forecast (step "), heads
    assert heads[1].startswith("  WebSocket connection 0 (ws://127.0.0.1/v1/fake) (step "), heads
    assert heads[2].startswith("  WebSocket connection 1 (ws://127.0.0.1/v1/fake) (step "), heads
    assert "None None" not in out


def _snapshot(*steps: dict[str, Any]) -> Snapshot:
    return Snapshot(name="t.py::test_x", trace=[{"step": i, **s} for i, s in enumerate(steps)])


DRIFT = {"request_drift": ["a: 1 → 2"]}


@pytest.mark.parametrize(
    ("steps", "first_line", "head"),
    [
        (
            [{"type": "llm_call", **DRIFT}],
            "agentsnap: the requests of 1 of 1 llm call(s) changed, so replay served them the "
            "recorded answers to the old requests: this test checked answers the model never gave "
            "to what it sends now.",
            "  llm_call[0] (step 0):",
        ),
        (
            [{"type": "http", "method": "POST", "path": "/v1/files", **DRIFT}],
            "agentsnap: 1 HTTP request(s) changed, so replay served them the recorded answers to "
            "the old requests: this test checked answers the server never gave to what it sends now.",
            "  HTTP POST /v1/files (step 0):",
        ),
        (
            [{"type": "mcp", "method": "resources/read", "server": "docs", **DRIFT}],
            "agentsnap: 1 MCP request(s) changed, so replay served them the recorded answers to "
            "the old requests: this test checked answers the server never gave to what it sends now.",
            "  MCP docs resources/read (step 0):",
        ),
        (
            [{"type": "tool_call", "name": "mcp:docs.search", "server": "docs", **DRIFT}],
            "agentsnap: 1 MCP request(s) changed, so replay served them the recorded answers to "
            "the old requests: this test checked answers the server never gave to what it sends now.",
            "  MCP docs search (step 0):",
        ),
        (
            [{"type": "websocket", "connection": 0, "url": "wss://api.x/v1/realtime", **DRIFT}],
            "agentsnap: the messages sent on 1 WebSocket connection(s) changed, so replay played "
            "back the recorded server messages, which answered the old ones: this test checked "
            "answers the server never gave to what it sends now.",
            "  WebSocket connection 0 (wss://api.x/v1/realtime) (step 0):",
        ),
        (
            [
                {"type": "llm_call", **DRIFT},
                {"type": "websocket", "connection": 0, "url": "ws://h/v1/x", **DRIFT},
            ],
            "agentsnap: the requests of 1 of 1 llm call(s) and the messages sent on 1 WebSocket "
            "connection(s) changed, so replay served them the recorded answers to the old "
            "requests: this test checked answers the model and the servers never gave to what it "
            "sends now.",
            "  WebSocket connection 0 (ws://h/v1/x) (step 1):",
        ),
    ],
    ids=["llm", "http", "mcp", "mcp-tool-call", "websocket", "llm-and-websocket"],
)
def test_each_kind_of_changed_request_is_named_as_what_it_is(
    steps: list[dict[str, Any]], first_line: str, head: str
) -> None:
    note = failed_test_note(_snapshot(*steps), None).splitlines()
    assert note[0] == first_line
    assert head in note
    assert "    a: 1 → 2" in note
