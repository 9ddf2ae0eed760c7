"""Replay never reaches a live server, loopback included: what a record run warns about as
not captured (an MCP JSON-RPC request sent without the mcp SDK, a WebSocket handshake to a
provider path by another client, a ``websockets`` connection on a socket the test opened
itself) is refused in replay before it is sent, and the test fails saying what, where and
what to do.

The servers are real and stay up in replay, as a user's fixture that starts them in every
mode keeps them (:mod:`tests._support.loopback_servers`): an MCP server on the ``mcp`` SDK
over streamable HTTP (uvicorn) and a ``websockets`` server, both on 127.0.0.1 in the inner
run's process. Each logs every HTTP request and every WebSocket handshake it receives to
``server.log``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")
pytest.importorskip("websockets")
pytest.importorskip("httpx")

from tests._support.ci import AGENTSNAP_ENV, clear_ci
from tests._support.loopback_servers import CONFTEST

pytest_plugins = ["pytester"]


TESTS = '''
import asyncio, json, socket, urllib.request, warnings
from urllib.parse import urlparse

import httpx

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def test_urllib_mcp(mcp_url):
    request = urllib.request.Request(mcp_url, data=json.dumps(INIT).encode(), headers=HEADERS, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        assert "weather" in response.read().decode()


def test_httpx_mcp(mcp_url):
    with httpx.Client() as client:
        assert "weather" in client.post(mcp_url, json=INIT, headers=HEADERS).text


def test_raw_socket_mcp(mcp_url):
    """The request line, headers and JSON-RPC body in one write (no HTTP library)."""
    where = urlparse(mcp_url)
    body = json.dumps(INIT).encode()
    head = (f"POST {where.path} HTTP/1.1\\r\\nHost: {where.netloc}\\r\\nContent-Type: application/json\\r\\n"
            f"Accept: application/json, text/event-stream\\r\\nContent-Length: {len(body)}\\r\\n"
            "Connection: close\\r\\n\\r\\n").encode()
    with socket.create_connection((where.hostname, where.port)) as sock:
        sock.sendall(head + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert b"weather" in data


def test_sdk_mcp(mcp_url):
    from mcp import Client

    async def main():
        async with Client(mcp_url) as client:
            result = await client.call_tool("get_forecast", {"city": "Paris"})
            return result.content[0].text

    assert asyncio.run(main()) == "Sunny in Paris"


def test_sock_kwarg(ws_url):
    from websockets.sync.client import connect

    where = urlparse(ws_url)
    sock = socket.create_connection((where.hostname, where.port))
    with connect(ws_url + "/v1/fake", sock=sock) as ws:
        ws.send("hi")
        assert ws.recv() == "echo:hi"


def test_sdk_ws(ws_url):
    from websockets.sync.client import connect

    with connect(ws_url + "/v1/realtime") as ws:
        ws.send("hi")
        assert ws.recv() == "echo:hi"


def handshake(port, path):
    return (f"GET {path} HTTP/1.1\\r\\nHost: 127.0.0.1:{port}\\r\\nUpgrade: websocket\\r\\n"
            "Connection: Upgrade\\r\\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\n"
            "Sec-WebSocket-Version: 13\\r\\n\\r\\n").encode()


def test_raw_realtime(ws_url):
    port = urlparse(ws_url).port
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(handshake(port, "/v1/realtime?model=m"))
        assert sock.recv(4096).startswith(b"HTTP/1.1 101")


def test_asyncio_raw_realtime(ws_url):
    """asyncio's transport swallows the refusal (its write error closes the connection)."""
    port = urlparse(ws_url).port

    async def main():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(handshake(port, "/v1/realtime"))
        await writer.drain()
        line = await reader.readline()
        writer.close()
        return line

    print("status line:", asyncio.run(main()))


def test_legacy_realtime(ws_url):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from websockets.legacy.client import connect

    async def main():
        async with connect(ws_url + "/v1/realtime?model=m") as ws:
            await ws.send("hi")
            return await ws.recv()

    assert asyncio.run(main()) == "echo:hi"
'''

REFUSED = {
    "test_urllib_mcp": "POST 127.0.0.1/mcp",
    "test_httpx_mcp": "POST 127.0.0.1/mcp",
    "test_raw_socket_mcp": "POST 127.0.0.1/mcp",
    "test_raw_realtime": "WebSocket 127.0.0.1/v1/realtime",
    "test_asyncio_raw_realtime": "WebSocket 127.0.0.1/v1/realtime",
    "test_legacy_realtime": "WebSocket 127.0.0.1/v1/realtime",
}


def _run(pytester: pytest.Pytester, mode: str) -> tuple[int, str, list[str]]:
    log = pytester.path / "server.log"
    log.unlink(missing_ok=True)
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-p", "no:cacheprovider", "-rf", f"--agentsnap-{mode}"
    )
    seen = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return int(result.ret), result.stdout.str(), seen


def test_replay_refuses_what_recording_could_not_capture_and_sends_nothing_live(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    clear_ci(monkeypatch, also=AGENTSNAP_ENV)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_uncaptured=TESTS)

    ret, out, seen = _run(pytester, "record")
    assert ret == 0, out
    for test in REFUSED:  # each among the warnings' locations (the sock= one is captured)
        assert f"test_uncaptured.py::{test}" in out, test
    assert "POST 127.0.0.1/mcp was not captured" in out
    assert "WebSocket 127.0.0.1/v1/realtime was not captured" in out
    assert "http POST /mcp" in seen and "ws /v1/realtime" in seen and "ws /v1/fake" in seen

    ret, out, seen = _run(pytester, "replay")
    assert ret == 1, out
    # the servers were up, and saw no request and no handshake: nothing went live
    assert sorted(seen) == ["mcp server up"] * 4 + ["ws server up"] * 5, seen
    for test, what in REFUSED.items():
        assert (
            f"agentsnap replay: {what} in test_uncaptured.py::{test} was refused before it was sent: "
            "agentsnap cannot capture it" in out
        ), test
        assert f"`pytest test_uncaptured.py::{test} --agentsnap-record`" in out, test
        assert f"FAILED test_uncaptured.py::{test} - agentsnap replay:" in out, test
    assert "send it through the mcp SDK" in out
    assert "open the connection with the `websockets` library's asyncio or sync client" in out
    sock_url = "ws://127.0.0.1:" + out.split("the WebSocket connection to ws://127.0.0.1:")[1]
    assert sock_url.split(" ", 1)[0].endswith("/v1/fake")
    assert "FAILED test_uncaptured.py::test_sock_kwarg - agentsnap replay:" in out
    assert "in test_uncaptured.py::test_sock_kwarg was refused before it was sent" in out
    assert "no `sock=`" in out
    assert "7 failed, 2 passed" in out  # the mcp SDK and the websockets client replay as before
