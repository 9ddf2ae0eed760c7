"""MCP sessions (the raw ``mcp`` client, the newest 2.x line in this venv; the frameworks
group runs mcp 1.x): recorded with the session's traffic in the golden, replayed offline with
no server process started and no socket opened, drift reported.

The server is real: ``tests/frameworks/mcp_servers/weather_server.py`` (FastMCP / MCPServer),
over stdio (it appends a line to ``MCP_START_LOG`` each time it starts) and streamable HTTP on
127.0.0.1 (stopped before replay). ``tests/frameworks/test_mcp_*.py`` drive the frameworks.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from agentsnap import AgentAsserter, AgentRecorder, AgentsnapWarning, config
from agentsnap.exceptions import AgentRegressionError, ReplayMissError
from tests._support.offline import Offline
from tests.frameworks.mcp_servers import WEATHER_SERVER, http_server, starts

SECRET = "sk-live-mcp-0123456789abcdefSECRET"
TOKEN = "tok-http-0123456789abcdefBEARER"


def streamable_http_client(url: str, headers: dict[str, str]) -> Any:
    """The newest client transport this mcp has: ``streamable_http_client(url, http_client=...)``
    (2.x, and 1.x late), else 1.x's ``streamablehttp_client(url, headers=...)``."""
    from mcp.client import streamable_http

    if not hasattr(streamable_http, "streamable_http_client"):  # mcp 1.x before 1.2x
        return streamable_http.streamablehttp_client(url, headers=headers)
    lib = getattr(streamable_http, "httpx2", None) or streamable_http.httpx  # 2.x / 1.x
    return streamable_http.streamable_http_client(url, http_client=lib.AsyncClient(headers=headers))


def stdio_params(log: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[WEATHER_SERVER],
        env={"MCP_START_LOG": str(log), "WEATHER_API_KEY": SECRET, **env},
    )


def dumped(result: Any) -> Any:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def weather_session(read: Any, write: Any, cities: list[str]) -> dict[str, Any]:
    async with ClientSession(read, write) as session:
        init = await session.initialize()
        tools = await session.list_tools()
        calls = [dumped(await session.call_tool("get_forecast", {"city": c})) for c in cities]
        return {
            "server": init.server_info.name
            if hasattr(init, "server_info")
            else init.serverInfo.name,
            "tools": [t.name for t in tools.tools],
            "calls": calls,
        }


def over_stdio(log: Path, cities: list[str], **env: str) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        async with stdio_client(stdio_params(log, **env)) as (read, write):
            return await weather_session(read, write, cities)

    return asyncio.run(main())


def golden(snapshot_dir: Path) -> tuple[bytes, dict[str, Any]]:
    (path,) = sorted(snapshot_dir.glob("*.json"))
    raw = path.read_bytes()
    return raw, json.loads(raw)


def mcp_view(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    """(type, name or method, server, session, args, result, is_error) of every MCP step."""
    return [
        (
            s["type"],
            s.get("name") or s.get("method"),
            s.get("server"),
            s.get("session"),
            s.get("args"),
            s.get("result"),
            s.get("is_error", False),
        )
        for s in data["trace"]
        if s["type"] == "mcp" or s.get("session") is not None
    ]


def test_a_stdio_session_is_recorded_then_replayed_offline_without_starting_the_server(
    tmp_path: Path, offline: Offline
) -> None:
    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"
    with AgentRecorder("weather::stdio", snapshot_dir=snaps):
        live = over_stdio(log, ["Paris", "Oslo"])
    assert len(starts(log)) == 1
    assert live["server"] == "weather" and live["tools"] == ["get_forecast"]
    assert live["calls"][0]["content"] == [{"type": "text", "text": "Light rain, 18°C"}]
    assert live["calls"][1]["isError"] is True

    raw, data = golden(snaps)
    assert mcp_view(data) == [
        ("mcp", "connect", "weather", 0, None, None, False),
        ("mcp", "initialize", "weather", 0, None, None, False),
        ("mcp", "tools/list", "weather", 0, None, None, False),
        (
            "tool_call",
            "mcp:weather.get_forecast",
            "weather",
            0,
            {"city": "Paris"},
            "Light rain, 18°C",
            False,
        ),
        # the failure as the SDK worded it: the text the client got
        (
            "tool_call",
            "mcp:weather.get_forecast",
            "weather",
            0,
            {"city": "Oslo"},
            live["calls"][1]["content"][0]["text"],
            True,
        ),
    ]
    assert "no weather station in Oslo" in live["calls"][1]["content"][0]["text"]
    assert data["trace"][0]["transport"] == {
        "kind": "stdio",
        "command": "python",  # any interpreter is stored as python
        "args": ["weather_server.py"],
        "env": ["MCP_START_LOG", "WEATHER_API_KEY"],
    }
    call = data["trace"][3]["exchange"]
    assert call["request"] == {
        "method": "MCP",
        "path": "tools/call",
        "body": {"name": "get_forecast", "arguments": {"city": "Paris"}},
    }
    assert call["response"]["body"]["result"]["content"] == [
        {"type": "text", "text": "Light rain, 18°C"}
    ]
    assert SECRET.encode() not in raw and str(tmp_path).encode() not in raw

    with offline(), AgentAsserter("weather::stdio", snapshot_dir=snaps, mode="replay"):
        replayed = over_stdio(log, ["Paris", "Oslo"])
    assert replayed == live
    assert len(starts(log)) == 1  # replay started no server


def test_a_streamable_http_session_is_replayed_with_the_server_stopped(
    tmp_path: Path, offline: Offline
) -> None:
    snaps = tmp_path / "snaps"

    async def main(url: str) -> dict[str, Any]:
        async with streamable_http_client(url, {"Authorization": f"Bearer {TOKEN}"}) as streams:
            return await weather_session(streams[0], streams[1], ["Tokyo"])

    with http_server(env={"WEATHER_HTTP_TOKEN": TOKEN}) as url:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with AgentRecorder("weather::http", snapshot_dir=snaps):
                live = asyncio.run(main(url))
    # the session's own HTTP requests belong to the MCP layer: no HTTP hook reports them
    said = [str(w.message) for w in caught if issubclass(w.category, AgentsnapWarning)]
    assert not [s for s in said if "was not captured" in s], said
    assert live["calls"][0]["content"][0]["text"] == "Sunny, 24°C"
    raw, data = golden(snaps)
    assert data["trace"][0]["transport"] == {
        "kind": "streamable-http",
        "url": "http://127.0.0.1/mcp",
        "headers": ["authorization"],
    }
    assert TOKEN.encode() not in raw
    assert [s[1] for s in mcp_view(data)] == [
        "connect",
        "initialize",
        "tools/list",
        "mcp:weather.get_forecast",
    ]

    with offline(), AgentAsserter("weather::http", snapshot_dir=snaps, mode="replay"):
        replayed = asyncio.run(main(url))  # the server is stopped: nothing answers there
    assert replayed == live


def test_recording_again_writes_the_same_bytes_with_two_servers_opened_concurrently(
    tmp_path: Path,
) -> None:
    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"

    async def main(url: str) -> list[dict[str, Any]]:
        async def stdio() -> dict[str, Any]:
            async with stdio_client(stdio_params(log)) as (read, write):
                return await weather_session(read, write, ["Paris"])

        async def http() -> dict[str, Any]:
            async with streamable_http_client(url, {}) as streams:
                return await weather_session(streams[0], streams[1], ["Tokyo"])

        return list(await asyncio.gather(http(), stdio()))

    with http_server() as url:
        with AgentRecorder("weather::two", snapshot_dir=snaps):
            asyncio.run(main(url))
        first, data = golden(snaps)
        for _ in range(3):  # the two sessions' steps do not interleave by scheduling
            with AgentRecorder("weather::two", snapshot_dir=snaps):
                asyncio.run(main(url))
            assert golden(snaps)[0] == first
    sessions = [
        (s["session"], s["transport"]["kind"])
        for s in data["trace"]
        if s.get("method") == "connect"
    ]
    assert sorted(sessions) == [(0, "stdio"), (1, "streamable-http")]


def test_a_changed_argument_is_a_drift_and_strict_replay_names_the_server_and_the_fix(
    tmp_path: Path, offline: Offline
) -> None:
    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"
    with AgentRecorder("weather::drift", snapshot_dir=snaps):
        over_stdio(log, ["Paris"])

    with offline(), pytest.raises(AgentRegressionError) as drift:
        with AgentAsserter("weather::drift", snapshot_dir=snaps, mode="replay"):
            replayed = over_stdio(log, ["Tokyo"])
    # the recorded answer was served in place of the changed request, and the report says so
    assert replayed["calls"][0]["content"][0]["text"] == "Light rain, 18°C"
    text = str(drift.value)
    assert "mcp:weather.get_forecast" in text and "'Paris' → 'Tokyo'" in text

    with offline(), pytest.raises(ReplayMissError) as miss:
        strict = dataclasses.replace(config.load(tmp_path, env={}), replay_strict=True)
        with AgentAsserter("weather::drift", snapshot_dir=snaps, mode="replay", settings=strict):
            over_stdio(log, ["Tokyo"])
    message = str(miss.value)
    assert "MCP request to server 'weather'" in message
    assert "(MCP tools/call)" in message
    assert "arguments.city: 'Paris' → 'Tokyo'" in message
    assert "--agentsnap-record" in message
    assert len(starts(log)) == 1


def test_server_messages_while_a_call_is_pending_are_replayed_in_order(
    tmp_path: Path, offline: Offline
) -> None:
    """Progress notifications and a sampling request (answered by the client's own callback,
    which runs again in replay) come back in the order they were recorded."""
    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"
    seen: list[Any] = []

    async def sampling(context: Any, params: Any) -> Any:
        from mcp.types import CreateMessageResult, TextContent

        prompt = params.messages[0].content.text
        seen.append(("sampling", prompt))
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="short"), model="fake-model"
        )

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append(("progress", done, total))

    async def main() -> list[Any]:
        async with stdio_client(stdio_params(log, WEATHER_EXTRAS="1")) as (read, write):
            async with ClientSession(read, write, sampling_callback=sampling) as session:
                await session.initialize()
                counted = await session.call_tool("count_to", {"n": 3}, progress_callback=progress)
                summary = await session.call_tool("summarize", {"text": "a long report"})
                return [dumped(counted), dumped(summary)]

    with AgentRecorder("weather::talk", snapshot_dir=snaps):
        live = asyncio.run(main())
    live_seen, seen[:] = list(seen), []
    assert live_seen == [
        ("progress", 1.0, 3.0),
        ("progress", 2.0, 3.0),
        ("progress", 3.0, 3.0),
        ("sampling", "Summarize: a long report"),
    ]
    assert live[1]["content"][0]["text"] == "summary: short"
    _, data = golden(snaps)
    (summarize,) = [s for s in data["trace"] if s.get("name") == "mcp:weather.summarize"]
    (asked,) = summarize["exchange"]["response"]["messages"]
    assert asked["method"] == "sampling/createMessage"
    assert asked["reply"]["result"]["content"] == {"type": "text", "text": "short"}

    with offline(), AgentAsserter("weather::talk", snapshot_dir=snaps, mode="replay"):
        replayed = asyncio.run(main())
    assert replayed == live
    assert seen == live_seen
    assert len(starts(log)) == 1


def test_a_session_the_golden_does_not_hold_fails_naming_what_to_run(
    tmp_path: Path, offline: Offline
) -> None:
    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"
    with AgentRecorder("weather::none", snapshot_dir=snaps):
        over_stdio(log, ["Paris"])
    with offline(), pytest.raises(ReplayMissError) as miss:
        with AgentAsserter("weather::none", snapshot_dir=snaps, mode="replay"):

            async def two() -> None:
                for _ in range(2):  # the golden holds one session: the second has nothing to replay
                    async with stdio_client(stdio_params(log)) as (read, write):
                        await weather_session(read, write, [])

            asyncio.run(two())
    message = str(miss.value)
    assert "an MCP session to 'weather_server' (stdio) has no recorded session" in message
    assert (
        "holds 1 MCP session(s) ('weather' (stdio, python weather_server.py)), all already replayed"
        in message
    )
    assert "--agentsnap-record" in message
    assert len(starts(log)) == 1


def test_an_mcp_request_sent_without_the_sdk_is_reported(tmp_path: Path) -> None:
    import httpx

    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_forecast"}}
    with http_server() as url, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with AgentRecorder("weather::raw-http", snapshot_dir=tmp_path):
            httpx.post(url, json=body, headers={"Accept": "application/json, text/event-stream"})
    said = [str(w.message) for w in caught if issubclass(w.category, AgentsnapWarning)]
    assert any("MCP request sent outside mcp.ClientSession" in s for s in said), said


def test_a_session_over_streams_no_transport_opened_is_captured_and_replay_warns(
    tmp_path: Path, offline: Offline
) -> None:
    """In-memory streams (the SDK's own in-process server): captured at the session under the
    name ``mcp`` (until the server names itself), replayed, and replay warns that whatever
    opened the streams ran."""
    from anyio import create_memory_object_stream, create_task_group

    sys.path.insert(0, str(Path(WEATHER_SERVER).parent))
    try:
        import weather_server
    finally:
        sys.path.pop(0)

    async def main() -> dict[str, Any]:
        server = weather_server.build()
        low = getattr(server, "_lowlevel_server", None) or server._mcp_server
        to_server, server_in = create_memory_object_stream[Any](8)
        server_out, from_server = create_memory_object_stream[Any](8)
        async with create_task_group() as tg:
            tg.start_soon(
                lambda: low.run(server_in, server_out, low.create_initialization_options())
            )
            result = await weather_session(from_server, to_server, ["Tokyo"])
            tg.cancel_scope.cancel()
        return result

    with AgentRecorder("weather::memory", snapshot_dir=tmp_path):
        live = asyncio.run(main())
    _, data = golden(tmp_path)
    assert data["trace"][0]["transport"] == {"kind": "unknown"}
    assert [s[1] for s in mcp_view(data)][-1] == "mcp:weather.get_forecast"
    with offline(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with AgentAsserter("weather::memory", snapshot_dir=tmp_path, mode="replay"):
            replayed = asyncio.run(main())
    assert replayed == live
    assert any("no hooked transport opened" in str(w.message) for w in caught)


def test_parallel_calls_on_one_session_replay_unchanged_and_record_the_same_bytes(
    tmp_path: Path, offline: Offline
) -> None:
    """Overlapping calls are ordered by content when recorded; replay answers at once (no
    overlap), so it keeps the golden's order. The SDK may repeat tools/list a varying number
    of times: a repeat of an identical listing is not stored, and replay serves it again."""
    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"
    cities = ["Paris", "Tokyo", "Paris", "Tokyo"]

    async def main() -> list[Any]:
        async with stdio_client(stdio_params(log)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                calls = [session.call_tool("get_forecast", {"city": c}) for c in cities]
                return [dumped(r) for r in await asyncio.gather(*calls)]

    with AgentRecorder("weather::gather", snapshot_dir=snaps):
        live = asyncio.run(main())
    first, data = golden(snaps)
    assert [s[4] for s in mcp_view(data) if s[0] == "tool_call"] == [
        {"city": "Paris"},
        {"city": "Paris"},
        {"city": "Tokyo"},
        {"city": "Tokyo"},
    ]
    with AgentRecorder("weather::gather", snapshot_dir=snaps):
        asyncio.run(main())
    assert golden(snaps)[0] == first
    with offline(), AgentAsserter("weather::gather", snapshot_dir=snaps, mode="replay"):
        replayed = asyncio.run(main())
    assert replayed == live
    assert len(starts(log)) == 2


def test_sessions_are_matched_by_command_and_args_whatever_env_the_process_has(
    tmp_path: Path, offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``env=dict(os.environ)`` (plus one variable) stores only that one name; replay (which
    sets dummy API keys in the environment) still gives each server its own recordings."""
    import os

    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"

    async def main() -> list[Any]:
        out = []
        for extra, answer in (([], "Rain A"), (["--second"], "Rain B")):
            params = StdioServerParameters(
                command=sys.executable,
                args=[WEATHER_SERVER, *extra],
                env={
                    **os.environ,
                    "MCP_START_LOG": str(log),
                    "WEATHER_OVERRIDE": json.dumps({"Paris": answer}),
                },
            )
            async with stdio_client(params) as (read, write):
                out.append(await weather_session(read, write, ["Paris"]))
        return out

    with AgentRecorder("weather::env", snapshot_dir=snaps):
        live = asyncio.run(main())
    _, data = golden(snaps)
    transports = [s["transport"] for s in data["trace"] if s.get("method") == "connect"]
    assert transports == [
        {
            "kind": "stdio",
            "command": "python",
            "args": ["weather_server.py"],
            "env": ["MCP_START_LOG", "WEATHER_OVERRIDE"],
        },
        {
            "kind": "stdio",
            "command": "python",
            "args": ["weather_server.py", "--second"],
            "env": ["MCP_START_LOG", "WEATHER_OVERRIDE"],
        },
    ]
    monkeypatch.setenv("SOME_NEW_VARIABLE", "only-in-replay")
    with offline(), AgentAsserter("weather::env", snapshot_dir=snaps, mode="replay"):
        replayed = asyncio.run(main())
    assert [r["calls"][0]["content"][0]["text"] for r in replayed] == ["Rain A", "Rain B"]
    assert replayed == live


def test_a_changed_prompt_request_a_changed_server_and_a_changed_sampling_reply_fail_mcp_requests(
    tmp_path: Path, offline: Offline
) -> None:
    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"

    async def sampling(context: Any, params: Any) -> Any:
        from mcp.types import CreateMessageResult, TextContent

        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=reply[0]), model="fake-model"
        )

    async def main(city: str, script_args: list[str]) -> list[Any]:
        params = StdioServerParameters(
            command=sys.executable,
            args=[WEATHER_SERVER, *script_args],
            env={"MCP_START_LOG": str(log), "WEATHER_EXTRAS": "1"},
        )
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, sampling_callback=sampling) as session:
                await session.initialize()
                prompt = await session.get_prompt("brief", {"city": city})
                summary = await session.call_tool("summarize", {"text": "report"})
                return [dumped(prompt), dumped(summary)]

    reply = ["short"]
    with AgentRecorder("weather::requests", snapshot_dir=snaps):
        live = asyncio.run(main("Paris", []))

    reply = ["longer"]
    with offline(), pytest.raises(AgentRegressionError) as drift:
        with AgentAsserter("weather::requests", snapshot_dir=snaps, mode="replay"):
            replayed = asyncio.run(main("Tokyo", ["--moved"]))
    assert replayed == live  # the recorded answers were served
    report = drift.value.diff_report
    assert report.failed_checks == ["mcp_requests"]
    text = str(drift.value)
    assert "arguments.city: 'Paris' → 'Tokyo'" in text
    assert "args[1]: <absent> → '--moved'" in text
    assert "reply to sampling/createMessage.result.content.text: 'short' → 'longer'" in text
    assert len(starts(log)) == 1


def test_a_server_that_died_mid_call_replays_as_the_same_error(
    tmp_path: Path, offline: Offline
) -> None:
    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"

    async def main() -> tuple[str, Any]:
        params = stdio_params(log, WEATHER_EXTRAS="1")
        try:
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await session.call_tool("crash", {})
        except BaseException as exc:  # the SDK's own error, in anyio's exception groups
            inner: BaseException = exc
            while hasattr(inner, "exceptions"):  # the live transport's task group adds a level
                inner = inner.exceptions[0]
            return type(inner).__name__, getattr(getattr(inner, "error", None), "code", None)
        return "no error", None

    with AgentRecorder("weather::crash", snapshot_dir=snaps):
        live = asyncio.run(main())
    assert live[0] != "no error"
    _, data = golden(snaps)
    (crash,) = [s for s in data["trace"] if s.get("name") == "mcp:weather.crash"]
    assert crash["exchange"]["response"]["error"]["type"] == "NoAnswer"
    with offline(), AgentAsserter("weather::crash", snapshot_dir=snaps, mode="replay"):
        replayed = asyncio.run(main())
    assert replayed == live
    assert len(starts(log)) == 1


def test_a_hand_broken_mcp_step_fails_naming_the_file_and_the_json_path(
    tmp_path: Path, offline: Offline
) -> None:
    from agentsnap.exceptions import SnapshotFormatError

    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"
    with AgentRecorder("weather::broken", snapshot_dir=snaps):
        over_stdio(log, ["Paris"])
    (path,) = snaps.glob("*.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["trace"][3]["exchange"]["response"]["body"] = {"result": 5}
    path.write_text(json.dumps(data), encoding="utf-8")
    with offline(), pytest.raises(SnapshotFormatError) as bad:
        with AgentAsserter("weather::broken", snapshot_dir=snaps, mode="replay"):
            over_stdio(log, ["Paris"])
    message = str(bad.value)
    assert str(path) in message
    assert "at $.trace[3].exchange.response.body: not {'result': {…}} or {'error': {…}}" in message
    assert "--agentsnap-record" in message
    assert len(starts(log)) == 1


def test_a_legacy_sse_session_is_replayed_with_the_server_stopped(
    tmp_path: Path, offline: Offline
) -> None:
    snaps = tmp_path / "snaps"

    async def main(url: str) -> dict[str, Any]:
        # imported here, inside the recording: a function bound before the first recording of a
        # run without agentsnap's flags installed the hooks is not hooked (docs/mcp.md, Limits)
        from mcp.client.sse import sse_client

        async with sse_client(url) as (read, write):
            return await weather_session(read, write, ["Paris"])

    with http_server(transport="sse") as url:
        with AgentRecorder("weather::sse", snapshot_dir=snaps):
            live = asyncio.run(main(url))
    _, data = golden(snaps)
    assert data["trace"][0]["transport"] == {"kind": "sse", "url": "http://127.0.0.1/sse"}
    assert [s[1] for s in mcp_view(data)][-1] == "mcp:weather.get_forecast"
    with offline(), AgentAsserter("weather::sse", snapshot_dir=snaps, mode="replay"):
        replayed = asyncio.run(main(url))
    assert replayed == live
    assert live["calls"][0]["content"][0]["text"] == "Light rain, 18°C"


def test_the_stateless_revision_with_input_requests_inside_results_replays_and_records_the_same_bytes(
    tmp_path: Path, offline: Offline
) -> None:
    """2026-07-28 (mcp 2.x's ``Client``): ``server/discover``, ``_meta`` on every request, and a
    tool whose first answer asks the client's model (input requests inside the result) and an
    opaque ``requestState`` the retry echoes, minted anew each run."""
    pytest.importorskip("mcp.server.mcpserver.resolve")
    from mcp import Client
    from mcp.types import CreateMessageResult, TextContent

    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"
    asked: list[str] = []

    async def sampling(context: Any, params: Any) -> Any:
        asked.append(params.messages[0].content.text)
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="Sunny spell"), model="m"
        )

    async def main() -> str:
        async with Client(
            stdio_params(log, WEATHER_EXTRAS="1"), sampling_callback=sampling
        ) as client:
            result = await client.call_tool("headline", {"city": "Paris"})
            return str(result.content[0].text)

    with AgentRecorder("weather::stateless", snapshot_dir=snaps):
        assert asyncio.run(main()) == "Paris: Sunny spell"
    first, data = golden(snaps)
    calls = [s for s in data["trace"] if s.get("name") == "mcp:weather.headline"]
    assert [s["type"] for s in data["trace"] if s.get("method") == "server/discover"] == ["mcp"]
    asking, answered = (c["exchange"] for c in calls)
    assert asking["response"]["body"]["result"]["requestState"] == "request-state-1"
    assert answered["request"]["body"]["requestState"] == "request-state-1"
    assert list(answered["request"]["body"]["inputResponses"].values()) == [
        {"content": {"text": "Sunny spell", "type": "text"}, "model": "m", "role": "assistant"}
    ]
    with AgentRecorder("weather::stateless", snapshot_dir=snaps):
        asyncio.run(main())
    assert golden(snaps)[0] == first  # the server's new requestState is stored under the same name
    asked.clear()
    with offline(), AgentAsserter("weather::stateless", snapshot_dir=snaps, mode="replay"):
        assert asyncio.run(main()) == "Paris: Sunny spell"
    assert asked == ["A headline for Paris's weather"]  # the client's callback ran again
    assert len(starts(log)) == 2


def test_two_servers_stored_alike_replay_their_own_answers_in_the_order_they_were_opened(
    tmp_path: Path, offline: Offline
) -> None:
    """Same script, same env names, other values and server names: the stored transports are
    equal, so replay matches them in the order they were opened (``opened``), not by name."""
    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"

    async def main() -> list[str]:
        out = []
        for name, answer in (("zeta", "Rain Z"), ("alpha", "Rain A")):
            params = stdio_params(
                log, WEATHER_NAME=name, WEATHER_OVERRIDE=json.dumps({"Paris": answer})
            )
            async with stdio_client(params) as (read, write):
                found = await weather_session(read, write, ["Paris"])
                out.append(f"{found['server']}: {found['calls'][0]['content'][0]['text']}")
        return out

    with AgentRecorder("weather::twins", snapshot_dir=snaps):
        live = asyncio.run(main())
    assert live == ["zeta: Rain Z", "alpha: Rain A"]
    _, data = golden(snaps)
    connects = [
        (s["server"], s["session"], s.get("opened"))
        for s in data["trace"]
        if s.get("method") == "connect"
    ]
    assert sorted(connects) == [("alpha", 0, 1), ("zeta", 1, 0)]
    with offline(), AgentAsserter("weather::twins", snapshot_dir=snaps, mode="replay"):
        assert asyncio.run(main()) == live


def test_a_call_the_client_gave_up_on_replays_as_given_up_and_the_session_goes_on(
    tmp_path: Path, offline: Offline
) -> None:
    import datetime
    import importlib.metadata

    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"

    async def main() -> list[str]:
        async with stdio_client(stdio_params(log, WEATHER_EXTRAS="1")) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                out = []
                major = int(importlib.metadata.version("mcp").split(".")[0])
                timeout: Any = 0.3 if major >= 2 else datetime.timedelta(seconds=0.3)
                try:
                    await session.call_tool("slow", {"seconds": 5}, read_timeout_seconds=timeout)
                    out.append("answered")
                except Exception as exc:  # the SDK's timeout error
                    out.append(type(exc).__name__)
                result = await session.call_tool("get_forecast", {"city": "Tokyo"})
                out.append(result.content[0].text)
                return out

    with AgentRecorder("weather::timeout", snapshot_dir=snaps):
        live = asyncio.run(main())
    assert live[1] == "Sunny, 24°C" and live[0] != "answered"
    _, data = golden(snaps)
    (slow,) = [s for s in data["trace"] if s.get("name") == "mcp:weather.slow"]
    assert slow["exchange"]["response"]["error"]["type"] == "Abandoned"
    with offline(), AgentAsserter("weather::timeout", snapshot_dir=snaps, mode="replay"):
        assert asyncio.run(main()) == live
    assert len(starts(log)) == 1


def test_a_session_opened_before_the_recording_is_reported_not_lost(
    tmp_path: Path, offline: Offline
) -> None:
    """A session opened outside the test's recording (a shared fixture): its requests during the
    recording warn (capture) or fail naming the fix (replay) instead of going unrecorded."""
    log, snaps = tmp_path / "starts.log", tmp_path / "snaps"

    async def main() -> None:
        async with stdio_client(stdio_params(log)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                with AgentRecorder("weather::early", snapshot_dir=snaps):
                    await session.call_tool("get_forecast", {"city": "Paris"})

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(main())
    said = [str(w.message) for w in caught if issubclass(w.category, AgentsnapWarning)]
    assert any(
        "request was sent on a session opened before any recording started" in s for s in said
    ), said

    async def replay() -> None:
        async with stdio_client(stdio_params(log)) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                with AgentAsserter("weather::early", snapshot_dir=snaps, mode="replay"):
                    await session.call_tool("get_forecast", {"city": "Paris"})

    with pytest.raises(BaseException) as failed:
        asyncio.run(replay())
    raised: BaseException = failed.value
    while hasattr(raised, "exceptions"):  # anyio's task groups
        raised = raised.exceptions[0]
    assert isinstance(raised, ReplayMissError)
    assert "sent on a session opened before any recording started" in str(raised)
    assert "Open the MCP session inside the test" in str(raised)
