"""An MCP session opened where replay has nothing to serve (CI without the test's snapshot, or a
local replay of a missing one) fails with agentsnap's own message first — the snapshot's path and
the command to run — not with the mcp SDK's anyio ``ExceptionGroup`` ("unhandled errors in a
TaskGroup (1 sub-exception)") wrapping it: agentsnap raises as the session opens, before the SDK
starts the session's task group.

End to end: the real ``mcp`` SDK client (``mcp.Client``, and a ``ClientSession`` over
``streamable_http_client``) against an MCP server on the ``mcp`` SDK on 127.0.0.1 that the inner
run's fixture starts (:mod:`tests._support.loopback_servers`), nothing sent to it.
"""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from agentsnap.storage.store import SnapshotStore
from tests._support.ci import AGENTSNAP_ENV, clear_ci
from tests._support.loopback_servers import CONFTEST

pytest_plugins = ["pytester"]

TESTS = """
import asyncio


def test_client(mcp_url):
    from mcp import Client

    async def main():
        async with Client(mcp_url) as client:
            result = await client.call_tool("get_forecast", {"city": "Paris"})
            return result.content[0].text

    assert asyncio.run(main()) == "Sunny in Paris"


def test_session(mcp_url):
    from mcp import ClientSession
    from mcp.client import streamable_http

    def transport():
        if hasattr(streamable_http, "streamable_http_client"):
            return streamable_http.streamable_http_client(mcp_url)
        return streamable_http.streamablehttp_client(mcp_url)  # mcp 1.x before 1.2x

    async def main():
        async with transport() as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("get_forecast", {"city": "Paris"})
                return result.content[0].text

    assert asyncio.run(main()) == "Sunny in Paris"
"""


def _failure(out: str, test: str) -> list[str]:
    """The lines of ``test``'s failure section in pytest's output."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip("_ ") == test) + 1
    end = next(
        i
        for i in range(start, len(lines))
        if lines[i].startswith(("___", "===")) or lines[i] == "agentsnap: 2 failed"
    )
    return lines[start:end]


@pytest.mark.parametrize(
    ("ci", "flag", "why"),
    [
        (
            "true",
            "--agentsnap-instrument",
            "and this is CI: no request is sent and nothing is written. Record it locally with "
            "`pytest --agentsnap-record`, review, commit. (--agentsnap-allow-pending relaxes this.)",
        ),
        (
            None,
            "--agentsnap-replay",
            "and this run replays (--agentsnap-replay): replay never calls the API, so no request "
            "is sent and nothing is written. Record it first: `pytest test_mcp_ci.py::{test} "
            "--agentsnap-record` (or run it with --agentsnap-instrument to write it pending), "
            "review it, then commit.",
        ),
    ],
    ids=["ci", "local-replay"],
)
def test_a_session_with_no_snapshot_to_serve_fails_with_agentsnaps_message_first(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None, flag: str, why: str
) -> None:
    clear_ci(monkeypatch, also=AGENTSNAP_ENV)
    if ci is not None:
        monkeypatch.setenv("CI", ci)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_mcp_ci=TESTS)

    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider", flag)

    out = result.stdout.str()
    assert result.ret == 1, out
    assert "ExceptionGroup" not in out and "TaskGroup" not in out, out
    store = SnapshotStore(pytester.path / "__agent_snapshots__")
    for test, line in (("test_client", 8), ("test_session", 25)):
        name = f"test_mcp_ci.py::{test}"
        message = (
            f"agentsnap: no snapshot for {name!r} ({store.path_for(name)}) {why.format(test=test)}"
        )
        assert _failure(out, test) == [message, f"  (the call was made at test_mcp_ci.py:{line})"]
        assert f"FAILED {name} - agentsnap: no snapshot for" in out
    assert "agentsnap: 2 failed" in out
    assert not store.root.exists()  # nothing written
    log = (pytester.path / "server.log").read_text(encoding="utf-8").splitlines()
    assert log == ["mcp server up", "mcp server up"]  # up, and sent nothing
