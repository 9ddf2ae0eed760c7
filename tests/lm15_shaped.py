"""A minimal HTTP/1.1-over-``socket`` client with the seam of DSPy 3.4's bundled
lm15 transport (``dspy._vendor.lm15.transports``): ``StdlibTransport.stream(
TransportRequest) -> TransportResponse``, a response iterated for body bytes and
built from ``status``, ``reason``, ``headers``, ``http_version``, ``chunks`` and
``release``. Written for the tests from that public API, not copied: it lets the
core suite drive :mod:`agentsnap.capture.transports.lm15` where DSPy is not
installed (``tests/test_transport_lm15.py`` drives the real one where it is).

No ``http.client``: the request is written to, and the response read from, a
plain socket, as lm15 does — so nothing but the lm15 hook can see it.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


class TransportError(Exception):
    pass


@dataclass
class TransportRequest:
    method: str
    url: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""


class TransportResponse:
    def __init__(
        self,
        *,
        status: int,
        reason: str,
        headers: list[tuple[str, str]],
        http_version: str,
        chunks: Iterator[bytes],
        release: Callable[[bool], Any],
    ) -> None:
        self.status, self.reason, self.headers, self.http_version = (
            status,
            reason,
            headers,
            http_version,
        )
        self._chunks, self._release = chunks, release

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._chunks:
            if chunk:
                yield chunk
        self._release(True)

    def read(self) -> bytes:
        return b"".join(self)

    def __enter__(self) -> TransportResponse:
        return self

    def __exit__(self, *exc: object) -> None:
        self._release(False)


class StdlibTransport:
    def __init__(self, user_agent: str = "lm15/stdlib") -> None:
        self._user_agent = user_agent

    def stream(self, request: TransportRequest) -> TransportResponse:
        parts = urlsplit(request.url)
        sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=10)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        head = [
            f"{request.method} {target} HTTP/1.1",
            f"Host: {parts.netloc}",
            f"User-Agent: {self._user_agent}",
            f"Content-Length: {len(request.body)}",
            "Connection: close",
        ]
        head += [f"{k}: {v}" for k, v in request.headers]
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + request.body)
        reader = sock.makefile("rb")
        status_line = reader.readline().decode("latin-1").rstrip("\r\n")
        _, code, *reason = status_line.split(" ", 2)
        headers = []
        while line := reader.readline().decode("latin-1").rstrip("\r\n"):
            name, _, value = line.partition(":")
            headers.append((name.strip(), value.strip()))
        chunked = any(
            k.lower() == "transfer-encoding" and "chunked" in v.lower() for k, v in headers
        )

        def body() -> Iterator[bytes]:
            if not chunked:
                while data := reader.read1(4096):
                    yield data
                return
            while size := int(reader.readline().split(b";")[0].strip() or b"0", 16):
                yield reader.read(size)
                reader.readline()
            reader.readline()

        def release(consumed: bool) -> None:
            reader.close()
            sock.close()

        return TransportResponse(
            status=int(code),
            reason=reason[0] if reason else "",
            headers=headers,
            http_version="HTTP/1.1",
            chunks=body(),
            release=release,
        )
