"""Live runs against servers whose answers carry a value that changes every run (an issue
time, a session id): a changed MCP tool result, MCP resource contents or plain WebSocket
reply fails the live run, named by session or connection, index and JSON path with both
values; ``ignored_fields`` (the paths tool arguments take) quiets the volatile value and
nothing else.

Real parts: the ``mcp`` SDK's client against ``tests/frameworks/mcp_servers/weather_server.py``
(FastMCP / MCPServer over stdio, ``WEATHER_STAMP`` set: a JSON ``report`` tool and a
``weather://{city}/today`` resource), and the ``websockets`` client against a ``websockets``
server on 127.0.0.1 that opens each connection with a ``session.created`` event.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")
pytest.importorskip("websockets")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from agentsnap import AgentAsserter, AgentRecorder
from agentsnap.exceptions import AgentRegressionError
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.frameworks.mcp_servers import WEATHER_SERVER

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")
pytest_plugins = ["pytester"]

# -- MCP: a tool result and a resource, each with an issue time --------------------------------


def stamped_session(stamp: str, **env: str) -> None:
    """One session over stdio: ``report("Paris")``, then ``weather://Paris/today``."""

    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable, args=[WEATHER_SERVER], env={"WEATHER_STAMP": stamp, **env}
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("report", {"city": "Paris"})
            await session.read_resource("weather://Paris/today")

    asyncio.run(main())


def mcp_section(error: pytest.ExceptionInfo[AgentRegressionError]) -> list[str]:
    lines = str(error.value).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("[MCP]"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("["))
    return lines[start:end]


def test_an_mcp_result_and_resource_that_changed_fail_a_live_run_unless_ignored(
    tmp_path: Path,
) -> None:
    snaps = tmp_path / "snaps"
    with AgentRecorder("mcp::stamped", snapshot_dir=snaps):
        stamped_session("2026-01-05T09:00:00Z")

    with pytest.raises(AgentRegressionError) as changed:
        with AgentAsserter("mcp::stamped", snapshot_dir=snaps, mode="live"):
            stamped_session("2026-01-06T09:00:00Z")
    assert changed.value.diff_report.failed_checks == ["mcp_results", "mcp_resources"]
    assert mcp_section(changed) == [
        "[MCP] FAIL — 1 server(s) in 1 session(s), tools: same; results: 1 call(s) compared, "
        "1 changed; resources: 1 read(s) compared, 1 changed",
        "  mcp:weather.report (golden step 2, new step 2):",
        "    result.issued_at: '2026-01-05T09:00:00Z' → '2026-01-06T09:00:00Z'",
        "  resource weather://Paris/today on weather (session 0, golden step 4, new step 4):",
        "    contents[0].text.generated_at: '2026-01-05T09:00:00Z' → '2026-01-06T09:00:00Z'",
    ]

    quiet = ["issued_at", "contents[*].text.generated_at"]
    with AgentAsserter("mcp::stamped", snapshot_dir=snaps, mode="live", ignored_fields=quiet):
        stamped_session("2026-01-07T09:00:00Z")  # only the issue times changed: passes

    # the same paths quiet the issue time, not a changed forecast
    with pytest.raises(AgentRegressionError) as drift:
        with AgentAsserter("mcp::stamped", snapshot_dir=snaps, mode="live", ignored_fields=quiet):
            stamped_session("2026-01-08T09:00:00Z", WEATHER_OVERRIDE='{"Paris": "Hail, 2°C"}')
    assert drift.value.diff_report.failed_checks == ["mcp_results", "mcp_resources"]
    assert mcp_section(drift)[1:] == [
        "  mcp:weather.report (golden step 2, new step 2):",
        "    result.sky: 'Light rain, 18°C' → 'Hail, 2°C'",
        "  resource weather://Paris/today on weather (session 0, golden step 4, new step 4):",
        "    contents[0].text.sky: 'Light rain, 18°C' → 'Hail, 2°C'",
    ]

    # a path that is no path fails as it does for arguments
    with pytest.raises(ValueError, match=r"entry 'contents\[\*\]' must end in a key: list items"):
        with AgentAsserter(
            "mcp::stamped", snapshot_dir=snaps, mode="live", ignored_fields=["contents[*]"]
        ):
            stamped_session("2026-01-09T09:00:00Z")


# -- WebSocket: a plain server whose session.created carries a fresh id --------------------------


class PlainServer:
    """A ``websockets`` server on 127.0.0.1: on connect ``{"type": "session.created", "session":
    {"id", "expires_at"}}`` from :attr:`session`, then one ``{"type": "reply", "text"}`` per
    client message (``text``: :attr:`reply` and what the client said)."""

    def __init__(self) -> None:
        self.session: dict[str, Any] = {"id": "sess_001", "expires_at": 1767600000}
        self.reply = "noted"
        self.url = ""

    def handler(self, ws: Any) -> None:
        ws.send(json.dumps({"type": "session.created", "session": dict(self.session)}))
        for message in ws:
            said = json.loads(message).get("say")
            ws.send(json.dumps({"type": "reply", "text": f"{self.reply}: {said}"}))


@contextmanager
def plain_server() -> Iterator[PlainServer]:
    from websockets.sync.server import serve

    state = PlainServer()
    server = serve(state.handler, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        state.url = f"ws://127.0.0.1:{server.socket.getsockname()[1]}/chat"
        yield state
    finally:
        server.shutdown()
        thread.join(5)


def chat(url: str, says: tuple[str, ...] = ("hello",)) -> None:
    from websockets.sync.client import connect

    with connect(url) as ws:
        ws.recv()  # session.created
        for say in says:
            ws.send(json.dumps({"say": say}))
            ws.recv()


def websocket_section(error: pytest.ExceptionInfo[AgentRegressionError]) -> list[str]:
    lines = str(error.value).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("[WEBSOCKET]"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("["))
    return lines[start:end]


def test_a_plain_websocket_server_s_changed_replies_fail_a_live_run_unless_ignored(
    tmp_path: Path,
) -> None:
    snaps = tmp_path / "snaps"
    with plain_server() as server:
        with AgentRecorder("ws::plain-live", snapshot_dir=snaps):
            chat(server.url)

        server.session = {"id": "sess_002", "expires_at": 1767603600}
        with pytest.raises(AgentRegressionError) as changed:
            with AgentAsserter("ws::plain-live", snapshot_dir=snaps, mode="live"):
                chat(server.url)
        assert changed.value.diff_report.failed_checks == ["websocket_replies"]
        assert websocket_section(changed) == [
            "[WEBSOCKET] FAIL — 1 connection(s) to a plain server, 2 difference(s) in what the "
            "server sent",
            "  connection 0 (ws://127.0.0.1/chat): server message 0 (frame 0): "
            "session.expires_at: 1767600000 → 1767603600",
            "  connection 0 (ws://127.0.0.1/chat): server message 0 (frame 0): "
            "session.id: 'sess_001' → 'sess_002'",
        ]

        quiet = ["session.id", "session.expires_at"]
        server.session = {"id": "sess_003", "expires_at": 1767607200}
        with AgentAsserter("ws::plain-live", snapshot_dir=snaps, mode="live", ignored_fields=quiet):
            chat(server.url)  # only the session's id and expiry changed: passes

        server.reply = "ignored you"
        with pytest.raises(AgentRegressionError) as drift:
            with AgentAsserter(
                "ws::plain-live", snapshot_dir=snaps, mode="live", ignored_fields=quiet
            ):
                chat(server.url)
        assert websocket_section(drift)[1:] == [
            "  connection 0 (ws://127.0.0.1/chat): server message 1 (frame 2): "
            "text: 'noted: hello' → 'ignored you: hello'",
        ]

        server.reply = "noted"
        with pytest.raises(AgentRegressionError) as more:
            with AgentAsserter(
                "ws::plain-live", snapshot_dir=snaps, mode="live", ignored_fields=quiet
            ):
                chat(server.url, ("hello", "again"))
        assert more.value.diff_report.failed_checks == ["websocket_replies"]
        assert (
            "  connection 0 (ws://127.0.0.1/chat): 2 server message(s) recorded, 3 received in this run"
            in websocket_section(more)
        )

        with pytest.raises(AgentRegressionError) as unopened:  # the agent no longer connects
            with AgentAsserter("ws::plain-live", snapshot_dir=snaps, mode="live"):
                pass
        assert unopened.value.diff_report.failed_checks == ["websocket_replies"]
        assert (
            "  connection 0 (ws://127.0.0.1/chat) was recorded, not opened in this run"
            in websocket_section(unopened)
        )


# -- the same through the pytest plugin: `[tool.agentsnap] ignored_fields`, a live run ------------

PLAIN_CONFTEST = '''
import json, os, threading

import pytest


@pytest.fixture
def chat_url():
    """A websockets server: session.created with the id in $SESSION_ID, then an echo."""
    from websockets.sync.server import serve

    def handler(ws):
        ws.send(json.dumps({"type": "session.created", "session": {"id": os.environ["SESSION_ID"]}}))
        for message in ws:
            ws.send(json.dumps({"type": "reply", "text": "echo:" + message}))

    server = serve(handler, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"ws://127.0.0.1:{server.socket.getsockname()[1]}/chat"
    server.shutdown()
    thread.join(10)
'''

PLAIN_TEST = """
def test_chat(chat_url):
    from websockets.sync.client import connect

    with connect(chat_url) as ws:
        ws.recv()
        ws.send("hi")
        ws.recv()
"""


def test_ignored_fields_in_pyproject_quiet_a_plain_server_s_session_id_in_a_live_pytest_run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests._support.ci import AGENTSNAP_ENV, clear_ci

    clear_ci(monkeypatch, also=AGENTSNAP_ENV)
    pytester.makeconftest(PLAIN_CONFTEST)
    pytester.makepyfile(test_chat=PLAIN_TEST)

    def run(mode: str, session_id: str) -> tuple[int, str]:
        monkeypatch.setenv("SESSION_ID", session_id)
        result = pytester.runpytest_subprocess(
            "-p", "no:randomly", "-p", "no:cacheprovider", "-rf", f"--agentsnap-{mode}"
        )
        return int(result.ret), result.stdout.str()

    ret, out = run("record", "sess_001")
    assert ret == 0, out
    ret, out = run("live", "sess_002")
    assert ret == 1, out
    assert "failed checks: websocket_replies" in out, out
    assert (
        "connection 0 (ws://127.0.0.1/chat): server message 0 (frame 0): "
        "session.id: 'sess_001' → 'sess_002'" in out
    ), out

    pytester.makepyprojecttoml('[tool.agentsnap]\nignored_fields = ["session.id"]\n')
    ret, out = run("live", "sess_003")
    assert ret == 0, out
    assert "1 passed" in out, out
