"""The pure parts of MCP capture: who a session talks to (stored scrubbed), one session's
record, and how its steps join the trace. No ``mcp`` package needed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from agentsnap.capture.mcp.channel import Channel, server_name
from agentsnap.capture.mcp.servers import UNKNOWN, stdio_server, url_server
from agentsnap.capture.mcp.steps import channel_steps, tool_result, with_mcp_steps
from agentsnap.storage.scrub import REDACTED, scrub_text


def test_a_stdio_server_is_stored_by_file_names_and_env_names_and_its_secrets_are_remembered() -> (
    None
):
    params = SimpleNamespace(
        command="/opt/venv/bin/python",
        args=["-u", "/home/ci/checkout/servers/github_server.py", "--verbose"],
        env={"GITHUB_TOKEN": "ghx-0123456789abcdefghijklmnop", "LOG_LEVEL": "debug"},
    )
    server = stdio_server(params)
    assert server.kind == "stdio"
    assert server.label == "github_server"
    assert server.described == {
        "kind": "stdio",
        "command": "python",
        "args": ["-u", "github_server.py", "--verbose"],
        "env": ["GITHUB_TOKEN", "LOG_LEVEL"],
    }
    # the token's value is scrubbed wherever it shows up later (a server echoing it back)
    assert scrub_text("echo ghx-0123456789abcdefghijklmnop") == f"echo {REDACTED}"
    # an ordinary value passed in env is not treated as a secret
    assert scrub_text("level debug") == "level debug"


def test_an_npx_server_is_labelled_by_its_package() -> None:
    params = SimpleNamespace(
        command="npx", args=["-y", "@modelcontextprotocol/server-github"], env=None
    )
    server = stdio_server(params)
    assert server.label == "server-github"
    assert server.described == {
        "kind": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
    }


def test_a_url_server_keeps_the_port_except_on_loopback_and_stores_header_names() -> None:
    remote = url_server(
        "streamable-http",
        "https://mcp.example.com:8443/mcp?api_key=live-0123456789abcdef",
        {"Authorization": "Bearer tok-0123456789abcdefghij", "X-Team": "red"},
    )
    assert remote.label == "mcp.example.com"
    assert remote.described["url"].startswith("https://mcp.example.com:8443/mcp?api_key=")
    assert "live-0123456789abcdef" not in remote.described["url"]
    assert remote.described["headers"] == ["authorization", "x-team"]
    assert scrub_text("tok-0123456789abcdefghij") == REDACTED
    local = url_server("sse", "http://127.0.0.1:53124/sse")
    assert local.described == {"kind": "sse", "url": "http://127.0.0.1/sse"}


def test_a_channel_keeps_requests_without_ids_or_meta_and_pairs_answers_by_id() -> None:
    channel = Channel(UNKNOWN)
    channel.sent({"id": 7, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}})
    channel.received({"id": 7, "result": {"serverInfo": {"name": "files"}, "capabilities": {}}})
    channel.sent({"method": "notifications/initialized"})
    channel.sent(
        {
            "id": 8,
            "method": "tools/call",
            "params": {"name": "read", "arguments": {"p": "a"}, "_meta": {"progressToken": 8}},
        }
    )
    channel.received(
        {"method": "notifications/progress", "params": {"progressToken": 8, "progress": 1}}
    )
    channel.received({"id": "s1", "method": "sampling/createMessage", "params": {"maxTokens": 5}})
    channel.sent(
        {"id": "s1", "result": {"role": "assistant", "content": {"type": "text", "text": "ok"}}}
    )
    channel.received(
        {"id": 8, "result": {"content": [{"type": "text", "text": "A"}], "isError": False}}
    )
    assert channel.label == "files"
    assert [c.method for c in channel.calls] == ["initialize", "tools/call"]
    assert channel.calls[1].exchange() == {
        "request": {
            "method": "MCP",
            "path": "tools/call",
            "body": {"name": "read", "arguments": {"p": "a"}},
        },
        "response": {
            "body": {"result": {"content": [{"type": "text", "text": "A"}], "isError": False}},
            "messages": [
                {"method": "notifications/progress", "params": {"progressToken": 8, "progress": 1}},
                {
                    "method": "sampling/createMessage",
                    "params": {"maxTokens": 5},
                    "id": "s1",
                    "reply": {
                        "result": {"role": "assistant", "content": {"type": "text", "text": "ok"}}
                    },
                },
            ],
        },
    }


def test_a_request_the_session_never_answered_is_stored_as_such() -> None:
    channel = Channel(UNKNOWN)
    channel.sent({"id": 1, "method": "tools/call", "params": {"name": "slow"}})
    channel.close(by_server=True)  # the server died with the call pending
    assert channel.calls[0].exchange()["response"]["error"]["type"] == "NoAnswer"
    channel.sent({"id": 2, "method": "tools/call", "params": {"name": "slow"}})
    channel.sent({"method": "notifications/cancelled", "params": {"requestId": 2}})
    channel.sent({"id": 3, "method": "tools/call", "params": {"name": "slower"}})
    channel.close(by_server=False)  # the client gave up on 2 (a timeout) and closed with 3 pending
    assert [c.exchange()["response"]["error"]["type"] for c in channel.calls[1:]] == [
        "Abandoned",
        "Abandoned",
    ]


def test_server_name_reads_both_protocol_eras() -> None:
    assert server_name({"serverInfo": {"name": "weather"}}) == "weather"
    assert (
        server_name({"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "weather"}}})
        == "weather"
    )
    assert server_name({"capabilities": {}}) is None


def test_tool_result_reads_as_a_reviewer_would() -> None:
    assert (
        tool_result({"content": [{"type": "text", "text": "hi"}], "structuredContent": {"r": "hi"}})
        == "hi"
    )
    assert tool_result(
        {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    ) == ["a", "b"]
    assert tool_result({"content": [], "structuredContent": {"n": 1}}) == {"n": 1}
    image = [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]
    assert tool_result({"content": image}) == image


def _session(
    name: str, t0: float, calls: list[tuple[str, dict[str, Any], float, float]]
) -> Channel:
    channel = Channel(url_server("streamable-http", f"http://127.0.0.1:1/{name}"))
    channel.name = name
    channel.started = t0
    for i, (method, params, started, ended) in enumerate(calls):
        call = channel.sent({"id": i, "method": method, "params": params})
        assert call is not None
        channel.received(
            {"id": i, "result": {"content": [{"type": "text", "text": f"{name}:{i}"}]}}
        )
        call.started, call.ended = started, ended
    return channel


def test_an_mcp_tool_call_replaces_the_step_derived_for_it_and_the_rest_follows_its_llm_call() -> (
    None
):
    llm1: dict[str, Any] = {"type": "llm_call", "response": "calling"}
    derived = {
        "type": "tool_call",
        "name": "weather_get_forecast",
        "args": {"city": "Paris"},
        "derived": True,
    }
    llm2: dict[str, Any] = {"type": "llm_call", "response": "done"}
    ends = {id(llm1): 1.0, id(llm2): 3.0}
    channel = _session(
        "weather",
        0.1,
        [
            ("initialize", {}, 0.2, 0.3),
            ("tools/call", {"name": "get_forecast", "arguments": {"city": "Paris"}}, 1.5, 1.6),
            ("tools/list", {}, 1.7, 1.8),
        ],
    )
    steps = with_mcp_steps([llm1, derived, llm2], ends, channel_steps([channel]))
    assert [(s["type"], s.get("name") or s.get("method") or s.get("response")) for s in steps] == [
        ("mcp", "connect"),
        ("mcp", "initialize"),
        ("llm_call", "calling"),
        ("tool_call", "mcp:weather.get_forecast"),
        ("mcp", "tools/list"),
        ("llm_call", "done"),
    ]
    assert steps[3]["result"] == "weather:1" and "derived" not in steps[3]


def test_overlapping_sessions_are_ordered_by_content_not_by_scheduling() -> None:
    def build(first: str) -> list[Any]:
        a = _session("alpha", 0.0, [("tools/call", {"name": "x"}, 0.5, 2.0)])
        b = _session("beta", 0.0, [("tools/call", {"name": "y"}, 0.6, 1.0)])
        if first == "beta":
            a.calls[0].started, b.calls[0].started = 0.6, 0.5
        return [
            (s.get("name") or s.get("method"), s["session"])
            for s in with_mcp_steps([], {}, channel_steps([b, a] if first == "beta" else [a, b]))
        ]

    assert build("alpha") == build("beta")
    # the two sessions were open at once: session by session
    assert build("alpha") == [("connect", 0), ("mcp:alpha.x", 0), ("connect", 1), ("mcp:beta.y", 1)]


def _snapshot(tools: list[dict[str, Any]], result: str, is_error: bool = False) -> dict[str, Any]:
    listing = {
        "request": {"method": "MCP", "path": "tools/list"},
        "response": {"body": {"result": {"tools": tools}}},
    }
    call = {
        "type": "tool_call",
        "name": "mcp:weather.get_forecast",
        "args": {"city": "Paris"},
        "result": result,
        "server": "weather",
        "session": 0,
    }
    if is_error:
        call["is_error"] = True
    return {
        "version": "2.0",
        "name": "t::mcp",
        "output": "Paris: rain",
        "trace": [
            {
                "type": "mcp",
                "method": "connect",
                "server": "weather",
                "session": 0,
                "transport": {"kind": "stdio"},
            },
            {
                "type": "mcp",
                "method": "tools/list",
                "server": "weather",
                "session": 0,
                "exchange": listing,
            },
            call,
        ],
    }


TOOL = {
    "name": "get_forecast",
    "description": "Forecast.",
    "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


def test_a_changed_tool_schema_and_result_are_their_own_findings_in_text_and_html() -> None:
    from agentsnap.diff import compute_diff
    from agentsnap.html_report import entry_for_diff, render_html
    from agentsnap.storage.snapshot import Snapshot

    wider = {
        **TOOL,
        "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "units": {"type": "string"}},
        },
    }
    golden = _snapshot([TOOL], "rain")
    same = compute_diff(
        golden, _snapshot([TOOL], "rain"), name="t::mcp", embedding_backend="lexical"
    )
    assert same.passed and "[MCP] ok" in same.render()

    new = _snapshot([wider, {"name": "alerts"}], "storm", is_error=True)
    report = compute_diff(golden, new, name="t::mcp", embedding_backend="lexical")
    assert report.failed_checks == ["mcp_tools", "mcp_results"]
    text = report.render()
    assert "tool weather.get_forecast changed (the model now sees another tool):" in text
    assert "inputSchema.properties.units: <absent> → {'type': 'string'}" in text
    assert "tool weather.alerts added" in text
    assert "result: 'rain' → 'storm'" in text and "is_error: False → True" in text

    page = render_html(
        [entry_for_diff("t::mcp", Snapshot.from_dict(golden), Snapshot.from_dict(new), report)]
    )
    assert "[MCP]" in page and "tool weather.alerts added" in page
    assert "inputSchema.properties.units" in page


def test_a_run_without_mcp_leaves_no_trace_of_the_check() -> None:
    from agentsnap.diff import compute_diff

    plain = {
        "version": "2.0",
        "name": "t::plain",
        "output": "x",
        "trace": [{"type": "tool_call", "name": "a", "args": {}}],
    }
    report = compute_diff(plain, plain, name="t::plain", embedding_backend="lexical")
    assert "mcp" not in (report.details.get("checks") or {}) and "[MCP]" not in report.render()
    golden_only = compute_diff(
        _snapshot([TOOL], "rain"), plain, name="t::plain", embedding_backend="lexical"
    )
    assert "[MCP] skipped — the new snapshot holds no MCP traffic" in golden_only.render()


def test_a_session_opened_for_one_tool_call_is_set_up_before_the_call() -> None:
    """langchain-mcp-adapters opens a session per tool call: connect, initialize, the call."""
    llm1: dict[str, Any] = {"type": "llm_call", "response": "calling"}
    derived = {
        "type": "tool_call",
        "name": "get_forecast",
        "args": {"city": "Oslo"},
        "derived": True,
    }
    llm2: dict[str, Any] = {"type": "llm_call", "response": "done"}
    listing = _session("weather", 0.1, [("tools/list", {}, 0.2, 0.3)])
    per_call = _session("weather", 1.2, [("initialize", {}, 1.3, 1.4)])
    per_call.name = "weather"
    call = per_call.sent(
        {
            "id": 9,
            "method": "tools/call",
            "params": {"name": "get_forecast", "arguments": {"city": "Oslo"}},
        }
    )
    per_call.received({"id": 9, "result": {"content": [{"type": "text", "text": "snow"}]}})
    assert call is not None
    call.started, call.ended = 1.5, 1.6
    steps = with_mcp_steps(
        [llm1, derived, llm2], {id(llm1): 1.0, id(llm2): 3.0}, channel_steps([listing, per_call])
    )
    assert [
        (s.get("name") or s.get("method") or s.get("response"), s.get("session")) for s in steps
    ] == [
        ("connect", 0),
        ("tools/list", 0),
        ("calling", None),
        ("connect", 1),
        ("initialize", 1),
        ("mcp:weather.get_forecast", 1),
        ("done", None),
    ]


def test_credentials_given_to_a_server_are_scrubbed_however_they_are_named_or_passed(
    monkeypatch: Any,
) -> None:
    monkeypatch.setenv("HOME_DIR_FOR_TEST", "/home/someone")
    params = SimpleNamespace(
        command="node",
        args=["server.js"],
        env={
            "SERVICE_KEY": "svc-7f3a9c1e5b2d4f6a",
            "DB_PASS": "hunter2-correct-horse",
            "PRIVATE_PEM": "pem-0a1b2c3d4e5f6a7b",
            "HOME_DIR_FOR_TEST": "/home/someone",  # copied from this process: not stored
        },
    )
    server = stdio_server(params)
    assert server.described["env"] == ["DB_PASS", "PRIVATE_PEM", "SERVICE_KEY"]
    for secret in ("svc-7f3a9c1e5b2d4f6a", "hunter2-correct-horse", "pem-0a1b2c3d4e5f6a7b"):
        assert scrub_text(f"echo {secret}") == f"echo {REDACTED}", secret

    hosted = url_server(
        "streamable-http",
        "https://mcp.tavily.example/mcp/?tavilyApiKey=tvly-QUERY998877&auth=abc-123-def-456&mode=fast",
    )
    assert hosted.described["url"] == (
        f"https://mcp.tavily.example/mcp/?tavilyApiKey={REDACTED}&auth={REDACTED}&mode=fast"
    )
    assert scrub_text("tvly-QUERY998877") == REDACTED
    in_path = url_server("sse", "https://mcp.example.com/u/a8F3kq92LmZx77Pq0wer/sse")
    assert in_path.described["url"] == f"https://mcp.example.com/u/{REDACTED}/sse"
    assert scrub_text("key a8F3kq92LmZx77Pq0wer") == f"key {REDACTED}"


def test_stdio_arguments_keep_no_secret_and_no_home_path() -> None:
    params = SimpleNamespace(
        command="npx",
        args=[
            "-y",
            "@upstash/context7-mcp",
            "--api-key",
            "ctx7-a1b2c3d4e5f6a7b8c9d0",
            "--token=tk-0a1b2c3d4e5f6a7b",
            "--root=/home/alice/acme",
        ],
        env=None,
    )
    assert stdio_server(params).described["args"] == [
        "-y",
        "@upstash/context7-mcp",
        "--api-key",
        REDACTED,
        f"--token={REDACTED}",
        "--root=acme",
    ]
    assert scrub_text("ctx7-a1b2c3d4e5f6a7b8c9d0") == REDACTED
    assert url_server("sse", "http://0.0.0.0:8123/sse").described["url"] == "http://0.0.0.0/sse"
