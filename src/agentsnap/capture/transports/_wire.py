"""Pieces shared by the transport adapters: raw HTTP/1.1 framing, a read-side
tee for file objects, recorded transport errors, and building genuine
``http.client.HTTPResponse`` objects from stored bytes."""

from __future__ import annotations

import builtins
import http
import http.client
import io
from collections.abc import Callable
from typing import Any


class Dechunker:
    """Incremental decoder of HTTP/1.1 chunked transfer coding (RFC 9112 §7.1).

    ``feed(wire bytes) -> payload bytes``; ``done`` once the last chunk and
    its trailers were read.
    """

    def __init__(self) -> None:
        self._buf = b""
        self._state = "size"
        self._remaining = 0
        self.done = False

    def feed(self, data: bytes) -> bytes:
        if not self._buf and not self.done:
            quick = self._quick(data)
            if quick is not None:
                return quick
        self._buf += data
        out: list[bytes] = []
        while self._buf and not self.done:
            if self._state == "data":
                take = self._buf[: self._remaining]
                out.append(take)
                self._buf = self._buf[len(take) :]
                self._remaining -= len(take)
                if self._remaining:
                    break
                self._state = "crlf"
                continue
            end = self._buf.find(b"\n")
            if end < 0:
                break
            line, self._buf = self._buf[:end].strip(), self._buf[end + 1 :]
            if not self._line(line):  # not chunked framing after all: keep the bytes as they are
                out.append(line + b"\n" + self._buf)
                self._buf = b""
                break
        return b"".join(out)

    def _line(self, line: bytes) -> bool:
        """The framing moved on by one line (stripped of its line end); False: the line is no
        chunk size, so the body was not chunked framing after all (``done``)."""
        if self._state == "crlf":
            self._state = "size"
        elif self._state == "size":
            try:
                size = int(line.split(b";", 1)[0] or b"0", 16)
            except ValueError:
                self.done = True
                return False
            if size == 0:
                self._state = "trailer"
            else:
                self._remaining, self._state = size, "data"
        elif not line:  # the empty line after the trailers
            self.done = True
        return True

    def feed_all(self, pieces: list[bytes]) -> list[bytes]:
        """``[self.feed(p) for p in pieces]`` up to the piece that ends the body (``done``;
        the pieces after it are not fed), an empty piece answered ``b""`` unfed. The pieces
        ``http.client`` and urllib3 read one at a time (a chunk's data, a size line, a CRLF)
        are answered inline, as :meth:`_quick` would, without a call each."""
        out: list[bytes] = []
        append = out.append
        for data in pieces:
            if self.done:
                break
            if not data:
                append(b"")
            elif self._buf:
                append(self.feed(data))
            elif self._state == "data":
                n = len(data)
                if n > self._remaining:
                    append(self.feed(data))
                    continue
                self._remaining -= n
                if not self._remaining:
                    self._state = "crlf"
                append(data if type(data) is bytes else bytes(data))
            elif data.find(b"\n") == len(data) - 1:  # exactly one line
                if self._state == "crlf":
                    self._state = "size"
                    append(b"")
                    continue
                line = data[:-1].strip()
                append(b"" if self._line(line) else line + b"\n")
            else:
                append(self.feed(data))
        return out

    def _quick(self, data: bytes) -> bytes | None:
        """What :meth:`feed` answers for the pieces ``http.client`` and urllib3 read one at a
        time (a chunk's data or part of it, a size line, the CRLF after the data, a trailer
        line), nothing buffered before: the same steps without the buffer. None: take the
        buffered path."""
        if self._state == "data":
            n = len(data)
            if n > self._remaining:
                return None
            self._remaining -= n
            if not self._remaining:
                self._state = "crlf"
            return data if type(data) is bytes else bytes(data)
        if not data or data.find(b"\n") != len(data) - 1:  # not exactly one line
            return None
        line = data[:-1].strip()
        return b"" if self._line(line) else line + b"\n"


class TeeFile:
    """Wraps the buffered socket file a ``http.client.HTTPResponse`` reads its
    body from: every byte read goes on to ``on_data`` (after undoing chunked
    framing when ``chunked``), one piece a read; ``on_close(complete)`` is called
    once, when the response closes the file or reaches the end of the body.

    Below ``HTTPResponse``, so every way of reading it is seen once: ``read``,
    ``read1``, ``readinto``, ``readline``, iteration, and urllib3 reading the
    chunked framing itself through ``response.fp``.

    A chunked body's read only keeps the piece read (its framing is read a few
    bytes at a time: a size line, the data, a CRLF); the pieces are decoded and
    handed on (:meth:`settle`) when the body is read to its end (``read()``),
    when the file is closed (``http.client`` closes it in the call that reads
    the last chunk's framing, and urllib3 after it), or when the sink is
    finished another way (its ``drain``: the recording stopped first). The
    pieces handed on and the end found are those of a piece-by-piece reading.
    Any other body (one read or a few) is handed on at each read, and its end
    found at the read that reaches it, as before.
    """

    def __init__(
        self,
        inner: Any,
        *,
        chunked: bool,
        length: int | None,
        on_data: Callable[[bytes], None],
        on_close: Callable[[bool], None],
    ) -> None:
        self._inner = inner
        self._dechunker = Dechunker() if chunked else None
        self._left = length
        self._on_data = on_data
        self._on_close = on_close
        self._ended = False
        #: the pieces read and not yet handed on
        self._raw: list[bytes] = []
        #: hand each read on at once (not chunked)
        self._eager = not chunked

    def settle(self) -> None:
        """Hand on the pieces read so far, and end the body if one of them was its last."""
        if self._ended:
            self._raw = []
            return
        pieces, self._raw = self._raw, []
        on_data = self._on_data
        dechunker = self._dechunker
        if dechunker is not None:
            for payload in dechunker.feed_all(pieces):
                if payload:
                    on_data(payload)
            if dechunker.done:
                self._end(True)
            return
        left = self._left
        for data in pieces:
            if data:
                on_data(data)
                if left is not None:
                    left -= len(data)
            if (left is not None and left <= 0) or (not data and left is None):
                self._left = left
                self._end(True)
                return
        self._left = left

    def _end(self, complete: bool) -> None:
        if not self._ended:
            self._ended = True
            self._raw = []
            self._on_close(complete)

    def read(self, n: int | None = -1) -> bytes:
        data: bytes = self._inner.read(n)
        self._raw.append(data)
        if (
            n is None or n < 0
        ):  # read to EOF: the body ends here (a close-delimited body has no empty read after)
            self.settle()
            self._end(True)
        elif self._eager:
            self.settle()
        return data

    def read1(self, n: int = -1) -> bytes:
        data: bytes = self._inner.read1(n)
        self._raw.append(data)
        if self._eager:
            self.settle()
        return data

    def readline(self, limit: int = -1) -> bytes:
        data: bytes = self._inner.readline(limit)
        self._raw.append(data)
        if self._eager:
            self.settle()
        return data

    def readinto(self, buffer: Any) -> int:
        n = self._inner.readinto(buffer)
        self._raw.append(bytes(memoryview(buffer)[:n]))
        if self._eager:
            self.settle()
        return int(n)

    def peek(self, n: int = 0) -> bytes:
        return bytes(self._inner.peek(n))

    def close(self) -> None:
        self.settle()
        self._end(False)
        self._inner.close()

    def __getattr__(self, name: str) -> Any:  # fileno, flush, closed, readable, ...
        return getattr(self._inner, name)


def error_class(
    name: str, *modules: object, default: type[BaseException] = OSError
) -> type[BaseException]:
    """The exception class a recorded transport error named: looked up in
    ``modules`` (the library's), then the builtins; ``default`` when unknown."""
    for module in modules:
        found = getattr(module, name, None)
        if isinstance(found, type) and issubclass(found, BaseException):
            return found
    found = getattr(builtins, name, None)
    if isinstance(found, type) and issubclass(found, Exception):
        return found
    return default


def reason_phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return ""


class _BytesSocket:
    """What ``http.client.HTTPResponse`` needs of a socket: ``makefile``."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def makefile(self, mode: str = "rb", *args: object, **kwargs: object) -> io.BufferedReader:
        return io.BufferedReader(io.BytesIO(self._data))


def http_response(
    status: int, headers: list[tuple[str, str]], body: bytes, *, method: str, url: str | None = None
) -> http.client.HTTPResponse:
    """A genuine ``http.client.HTTPResponse``, parsed by http.client itself from
    a serialised HTTP/1.1 message (status line, ``headers`` plus a
    ``Content-Length`` of ``body``, ``body``). Readable like one off the wire
    (``read``, ``read1``, ``readline``, ``peek``, iteration, ``fp``)."""
    head = [f"HTTP/1.1 {status} {reason_phrase(status)}".rstrip()]
    head += [f"{k}: {v}" for k, v in headers]
    head.append(f"Content-Length: {len(body)}")
    raw = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1", "replace") + body
    response = http.client.HTTPResponse(_BytesSocket(raw), method=method, url=url)  # type: ignore[arg-type]
    response.begin()
    return response
