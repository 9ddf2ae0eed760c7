"""Compressed and chunked responses over the new transports: the recording
stores the decoded body (readable, scrubbable), and replay serves it so the
library hands the caller the same decoded bytes it handed live."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agentsnap.capture.recording import Recording
from tests import transport_kit as kit
from tests._support.offline import Offline

COMPLETION = {
    "id": "chatcmpl-gz",
    "object": "chat.completion",
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Zipped sunshine."},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
}
EVENTS = [
    {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": piece}}],
    }
    for piece in ("Zip", "ped ", "rain.")
]


class _GzipHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("x-request-id", "req_gz_stream")
            self.end_headers()
            packed = gzip.compress(
                b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in EVENTS)
                + b"data: [DONE]\n\n"
            )
            for i in range(0, len(packed), 7):  # many small chunks of one gzip member
                piece = packed[i : i + 7]
                self.wfile.write(f"{len(piece):X}\r\n".encode() + piece + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        packed = gzip.compress(json.dumps(COMPLETION).encode())
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(packed)))
        self.send_header("x-request-id", "req_gz")
        self.end_headers()
        self.wfile.write(packed)


@pytest.fixture
def gzip_server() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _GzipHandler)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions"


def _stop(server: ThreadingHTTPServer) -> None:
    server.shutdown()


def test_requests_gzip_json_and_gzip_chunked_stream(
    gzip_server: ThreadingHTTPServer, offline: Offline
) -> None:
    requests = pytest.importorskip("requests")
    url = _url(gzip_server)

    def run() -> list[Any]:
        plain = requests.post(url, data=kit.openai_body(), headers=kit.OPENAI_HEADERS, timeout=5)
        streamed = requests.post(
            url,
            data=kit.openai_body(stream=True),
            headers=kit.OPENAI_HEADERS,
            stream=True,
            timeout=5,
        )
        return [plain.json(), list(streamed.iter_lines(decode_unicode=True))]

    live, steps = kit.record(run)
    _stop(gzip_server)
    assert (
        live[0] == COMPLETION and kit.openai_stream_result("\n".join(live[1]))[0] == "Zipped rain."
    )
    assert steps[0]["response"] == "Zipped sunshine." and steps[1]["response"] == "Zipped rain."
    stored = [s["exchange"]["response"] for s in steps]
    assert (
        "content-encoding" not in stored[0]["headers"]
        and "content-encoding" not in stored[1]["headers"]
    )
    assert all(isinstance(c, str) for c in stored[1]["chunks"])  # decoded text, not gzip bytes
    with offline():
        again, _ = kit.replay(steps, run)
    assert again == live


def test_aiohttp_gzip_json_and_gzip_chunked_stream(
    gzip_server: ThreadingHTTPServer, offline: Offline
) -> None:
    aiohttp = pytest.importorskip("aiohttp")
    url = _url(gzip_server)

    async def main() -> list[Any]:
        async with aiohttp.ClientSession() as session:
            async with session.post(
                url, data=kit.openai_body(), headers=kit.OPENAI_HEADERS
            ) as resp:
                plain = await resp.json()
            async with session.post(
                url, data=kit.openai_body(stream=True), headers=kit.OPENAI_HEADERS
            ) as resp:
                lines = [line async for line in resp.content]
        return [plain, b"".join(lines).decode()]

    live, steps = kit.record(lambda: asyncio.run(main()))
    _stop(gzip_server)
    assert live[0] == COMPLETION and kit.openai_stream_result(live[1])[0] == "Zipped rain."
    assert steps[1]["response"] == "Zipped rain."
    with offline():
        again, _ = kit.replay(steps, lambda: asyncio.run(main()))
    assert again == live


def test_urllib_gzip_is_stored_decoded_and_served_without_the_encoding(
    gzip_server: ThreadingHTTPServer, offline: Offline
) -> None:
    """urllib does not decompress: the caller honours ``Content-Encoding`` itself. The
    recording keeps the decoded body, so replay serves it with no ``Content-Encoding``:
    a caller that honours the header reads the same JSON."""
    import urllib.request

    url = _url(gzip_server)

    def run() -> Any:
        with urllib.request.urlopen(
            urllib.request.Request(url, data=kit.openai_body(), headers=kit.OPENAI_HEADERS),
            timeout=5,
        ) as resp:
            raw = resp.read()
            return json.loads(
                gzip.decompress(raw) if resp.headers.get("Content-Encoding") == "gzip" else raw
            )

    live, steps = kit.record(run)
    _stop(gzip_server)
    assert live == COMPLETION and steps[0]["exchange"]["response"]["body"] == COMPLETION
    with offline():
        again, _ = kit.replay(steps, run)
    assert again == live


class _CloseDelimitedHandler(BaseHTTPRequestHandler):
    """HTTP/1.0-style: no Content-Length, no chunking, the body ends when the connection closes."""

    protocol_version = "HTTP/1.0"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(COMPLETION).encode())


def test_a_close_delimited_body_read_whole_is_recorded_complete(offline: Offline) -> None:
    import http.client

    server = ThreadingHTTPServer(("127.0.0.1", 0), _CloseDelimitedHandler)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    ).start()
    port = server.server_address[1]

    def run() -> Any:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("POST", "/v1/chat/completions", kit.openai_body(), kit.OPENAI_HEADERS)
        resp = conn.getresponse()
        assert resp.length is None and not resp.chunked
        return json.loads(resp.read())

    with Recording("capture") as rec:
        live = run()
    server.shutdown()
    server.server_close()
    [exchange] = rec.trace.exchanges
    assert (
        live == COMPLETION and exchange.complete is True and exchange.response["body"] == COMPLETION
    )
    with offline():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        with kit.replaying(rec.trace.steps()):
            conn.request("POST", "/v1/chat/completions", kit.openai_body(), kit.OPENAI_HEADERS)
            assert json.loads(conn.getresponse().read()) == COMPLETION
