"""Capture: a response stored as the library reads it, whole or as the chunks of a stream.

* :func:`record_read_body`: a response whose (decoded) body was read whole;
* :func:`body_sink`: a sink a transport feeds with the pieces of a body its
  library reads after the hook returned (``add(bytes)``, then ``finish``),
  stored as one body or as stream chunks (:class:`ChunkSink`), decoded and
  scrubbed when the exchange is first read (:class:`LazyExchange`);
* :func:`record_error`: a transport error stored as the exchange's response.

Byte-faithful storage rules (what text and which headers are kept) are
:mod:`agentsnap.capture.faithful`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from ..spec.provider_specs import ProviderSpec
from ..storage import wire
from ..storage.scrub import scrub_chunks, scrub_text
from . import faithful
from .active import RecordingState
from .trace import Trace

__all__ = [
    "ChunkSink",
    "LazyExchange",
    "body_sink",
    "is_stream",
    "kept_headers",
    "record_error",
    "record_read_body",
]


def kept_headers(
    pairs: Iterable[tuple[str, str]], spec: ProviderSpec, *, streamed: bool, exact: bool = True
) -> dict[str, str]:
    """The response headers stored from ``pairs`` (``(name, value)`` as received): what the
    spec keeps, account headers masked, framing kept while the body replays byte for byte
    (:func:`.faithful.response_headers`, the one rule for every transport)."""
    return faithful.response_headers(pairs, spec, streamed=streamed, exact=exact)


_b64_chunk = wire.bytes_chunk


def _utf8_prefix(data: bytes) -> tuple[str, bytes]:
    """``data`` decoded up to an incomplete character at its end, and those last bytes.
    Raises ``UnicodeDecodeError`` when ``data`` is not UTF-8."""
    try:
        return data.decode("utf-8"), b""
    except UnicodeDecodeError as exc:
        if exc.end == len(data) and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8"), data[exc.start :]
        raise


class _Sink:
    """What every body sink shares: it finalises its exchange exactly once, from
    :meth:`finish` (the body was read to its end, or closed) or, for a body never
    read to its end, when the recording stops (registered as a trace finalizer).

    Subclasses implement :meth:`add` and :meth:`_store` (build ``exchange.response``).
    """

    def __init__(self, exchange: wire.Exchange, encoding: str, trace: Trace) -> None:
        self.exchange = exchange
        self.trace = trace
        self.decompressor = wire.decompressor(encoding) if encoding else None
        #: the body cannot be decoded here (unknown encoding, package missing, corrupt): kept raw
        self.raw_mode = bool(encoding) and self.decompressor is None
        self._done = False
        self._lock = threading.Lock()
        #: called once, first thing in :meth:`finish`: a transport that keeps what it read and
        #: hands it on in bulk hands on the rest (:meth:`._wire.TeeFile.settle`)
        self.drain: Callable[[], None] | None = None
        trace.finalizers.append(self._abandon)

    def add(self, chunk: bytes) -> None:
        raise NotImplementedError

    def _store(self) -> None:
        raise NotImplementedError

    def finish(self, *, complete: bool) -> None:
        """Store the exchange's response (once; later calls do nothing)."""
        drain = self.drain
        if drain is not None:  # what was read and not yet handed on (which may finish first)
            self.drain = None
            drain()
        with self._lock:
            if self._done:
                return
            self._done = True
        self._store()
        self.exchange.complete = complete
        with contextlib.suppress(ValueError):
            self.trace.finalizers.remove(self._abandon)

    def _abandon(self) -> None:
        self.finish(complete=False)


class ChunkSink(_Sink):
    """Collects a streamed response's chunks; finalises the exchange exactly once.

    Chunks are stored as the SDK reads them: text, with a compressed stream
    (``content-encoding`` gzip, deflate, br, zstd) decoded first and the
    header dropped, so the snapshot is readable and scrubbable and replay
    serves the same bytes the SDK saw, without decoding twice. Bytes that are
    not UTF-8 are stored as ``{"$bytes_b64": ...}`` chunks. A stream whose
    encoding cannot be decoded here (unknown, package missing, corrupt) is
    stored raw, every chunk as bytes, with its ``content-encoding`` kept.

    While the stream is read, :meth:`add` only keeps each chunk's bytes; they
    are decoded and scrubbed when the exchange's response is first read
    (:class:`LazyExchange`), or at once for an exchange that is not lazy.
    ``response_meta``: the stored ``status`` / ``headers``, or a function
    giving them (called when the response is built).
    """

    def __init__(
        self,
        exchange: wire.Exchange,
        response_meta: dict[str, Any] | Callable[[], dict[str, Any]],
        encoding: str,
        trace: Trace,
    ) -> None:
        super().__init__(exchange, encoding, trace)
        self.meta = response_meta
        #: the chunks as read (on the wire: maybe compressed); :func:`~.streams.tee` appends to it
        self.pieces: list[bytes] = []
        self._wire: list[bytes] = []  # the compressed chunks, kept to fall back on
        self._tail = b""  # an incomplete UTF-8 character at the end of the last chunk
        self._binary = False
        self.chunks: list[Any] = []

    def add(self, chunk: bytes) -> None:
        self.pieces.append(chunk if type(chunk) is bytes else bytes(chunk))

    def _decode(self, chunk: bytes) -> None:
        if self.raw_mode:
            self.chunks.append(_b64_chunk(chunk))
            return
        if self.decompressor is not None:
            self._wire.append(chunk)
            try:
                chunk = self.decompressor.decompress(chunk)
            except Exception:
                self._to_raw()
                return
        self._add_decoded(chunk)

    def _add_decoded(self, data: bytes) -> None:
        if not data:
            return
        if self._binary:
            self.chunks.append(_b64_chunk(data))
            return
        data, self._tail = self._tail + data, b""
        try:
            text, self._tail = _utf8_prefix(data)
        except UnicodeDecodeError:
            self._binary = True
            self.chunks.append(_b64_chunk(data))
            return
        if text:
            self.chunks.append(text)

    def _to_raw(self) -> None:
        self.raw_mode = True
        self.decompressor = None
        self.chunks = [_b64_chunk(c) for c in self._wire]
        self._wire = []
        self._tail = b""

    def _store(self) -> None:
        _defer_response(self.exchange, self._response)
        self.exchange.ended = time.monotonic()

    def _response(self) -> dict[str, Any]:
        with self._lock:  # the decoder has state: built once, whoever reads first
            pieces, self.pieces = self.pieces, []
            for piece in pieces:
                self._decode(piece)
            if self.decompressor is not None:
                with contextlib.suppress(Exception):
                    self._add_decoded(self.decompressor.flush())
                self.decompressor = None
            if self._tail:  # the stream stopped inside a character: keep its bytes
                self.chunks.append(_b64_chunk(self._tail))
                self._tail = b""
            self._wire = []
            resp = dict(self.meta() if callable(self.meta) else self.meta)
            if not self.raw_mode and isinstance(resp.get("headers"), dict):
                resp["headers"] = {
                    k: v for k, v in resp["headers"].items() if k != "content-encoding"
                }
            self.chunks = scrub_chunks(self.chunks)
            resp["chunks"] = self.chunks
            return resp


_chunk_bytes = wire.chunk_bytes


def record_read_body(
    exchange: wire.Exchange,
    spec: ProviderSpec,
    status: int,
    headers: Iterable[tuple[str, str]],
    content: bytes,
    content_type: str | None,
    repeats: wire.Repeats | None = None,
) -> None:
    """Store a response whose (decoded) body was read whole: ``{"status", "headers", "body"|"text"|...}``.

    Byte-faithful (:mod:`.faithful`): the server's own text is kept next to the
    parsed body when the snapshot's JSON form would not give it back, and the
    framing headers stay while the stored body replays byte for byte. An error
    body is kept verbatim as text when the spec asks for it
    (``[replay] verbatim_error_bodies``); bodies and texts are scrubbed. ``repeats``: the
    capture's response bodies so far, whose repeats this one shares
    (:attr:`.trace.Trace.response_repeats`).
    """
    pairs = list(headers)
    if not isinstance(content, bytes):
        content = bytes(content)

    def make() -> dict[str, Any]:
        verbatim = status >= 400 and _verbatim_errors(spec)
        stored, exact = faithful.response_body(
            content, content_type, verbatim=verbatim, repeats=repeats
        )
        meta: dict[str, Any] = {
            "status": status,
            "headers": kept_headers(pairs, spec, streamed=False, exact=exact),
        }
        meta.update(stored)
        return meta

    _defer_response(exchange, make)
    exchange.ended = time.monotonic()


_STREAM_TYPES = (
    "text/event-stream",
    "application/x-ndjson",
    "application/stream+json",
    "application/jsonl",
    "application/x-jsonlines",
)


def is_stream(content_type: str | None, path: str = "") -> bool:
    """Whether a response is a stream, for a library that does not say
    (server-sent events, JSON lines, or a ``:streamGenerateContent`` path)."""
    ctype = (content_type or "").lower()
    return any(t in ctype for t in _STREAM_TYPES) or ":stream" in path


class _ReadBodySink(_Sink):
    """Collects a response body read in pieces, stored whole on finish (like :func:`record_read_body`)."""

    def __init__(
        self,
        exchange: wire.Exchange,
        spec: ProviderSpec,
        status: int,
        headers: list[tuple[str, str]],
        encoding: str,
        trace: Trace,
    ) -> None:
        super().__init__(exchange, encoding, trace)
        self.spec, self.status, self.headers = spec, status, headers
        #: the pieces as read; :func:`~.streams.tee` appends to it
        self.pieces: list[bytes] = []

    def add(self, chunk: bytes) -> None:
        self.pieces.append(chunk)

    def _store(self) -> None:
        raw = b"".join(self.pieces)
        headers = self.headers
        if self.decompressor is not None:
            try:
                raw = self.decompressor.decompress(raw) + self.decompressor.flush()
            except Exception:
                self.raw_mode = True
        ctype = next((v for k, v in headers if k.lower() == "content-type"), None)
        record_read_body(
            self.exchange,
            self.spec,
            self.status,
            headers,
            raw,
            ctype,
            self.trace.response_repeats,
        )
        if self.raw_mode:
            assert self.exchange.response is not None
            encoding = next((v for k, v in headers if k.lower() == "content-encoding"), "")
            self.exchange.response.pop("body", None)
            self.exchange.response.pop("text", None)
            self.exchange.response.update(wire.envelope(raw, key="body_b64"))
            self.exchange.response["headers"]["content-encoding"] = encoding


def body_sink(
    recording: RecordingState,
    exchange: wire.Exchange,
    spec: ProviderSpec,
    status: int,
    headers: list[tuple[str, str]],
    *,
    decoded: bool,
    path: str = "",
) -> _Sink:
    """A sink for a response body the library reads after the hook returned.

    ``add(bytes)`` each piece as read, ``finish(complete=...)`` once (also
    called for a body never read to its end when the recording stops). A
    stream (:func:`is_stream`) is stored as chunks (:class:`ChunkSink`),
    anything else as one read body. ``decoded``: the pieces are already free
    of ``content-encoding`` (the library decompressed them), so the header is
    not kept; otherwise the sink decodes them.
    """
    ctype = next((v for k, v in headers if k.lower() == "content-type"), None)
    encoding = (
        ""
        if decoded
        else next((v for k, v in headers if k.lower() == "content-encoding"), "").strip().lower()
    )
    if encoding == "identity":
        encoding = ""
    if is_stream(ctype, path):
        pairs = list(headers)

        def meta() -> dict[
            str, Any
        ]:  # built with the response, on first read (not on the call's path)
            return {"status": status, "headers": kept_headers(pairs, spec, streamed=not decoded)}

        return ChunkSink(exchange, meta, encoding, recording.trace)
    if decoded:
        headers = [(k, v) for k, v in headers if k.lower() != "content-encoding"]
    return _ReadBodySink(exchange, spec, status, headers, encoding, recording.trace)


class LazyExchange(wire.Exchange):
    """A captured exchange whose stored ``request`` and ``response`` are built on first read.

    Capture keeps what it needs at the call (the request's bytes, the response's
    status, headers and body bytes) and scrubs, parses and shapes them when the
    exchange is first read (the trace's steps, the snapshot, a test): the call's
    own path only copies references. Reading is the same as for an
    :class:`~agentsnap.storage.wire.Exchange`; a value once built is kept, and setting
    one replaces it. Scrubbing then knows every credential remembered so far,
    which is at least what it knew at the call.
    """

    @classmethod
    def begun(
        cls, provider: str, codec: str | None, make_request: Callable[[], dict[str, Any]]
    ) -> LazyExchange:
        """``LazyExchange(provider=provider, codec=codec, request={})`` whose request is
        ``make_request()`` on first read, started now: its attributes as the dataclass's
        ``__init__`` leaves them (in the same order; tested), without that ``__init__``'s
        property setters and field factories."""
        exchange = cls.__new__(cls)
        exchange.__dict__.update(
            provider=provider,
            codec=codec,
            _request={},
            _make_request=make_request,
            _response=None,
            _make_response=None,
            complete=True,
            seq=wire.next_seq(),
            started=time.monotonic(),
            ended=None,
            request_drift=None,
            replay_index=None,
            connection=None,
            recorded=None,
            thread=threading.get_ident(),
        )
        return exchange

    @property
    def request(self) -> dict[str, Any]:
        state = self.__dict__
        make = state.get("_make_request")
        if make is not None:
            state["_request"] = make()
            state["_make_request"] = None
        value: dict[str, Any] = state["_request"]
        return value

    @request.setter
    def request(self, value: dict[str, Any]) -> None:
        self.__dict__["_request"] = value
        self.__dict__["_make_request"] = None

    @property
    def response(self) -> dict[str, Any] | None:
        state = self.__dict__
        make = state.get("_make_response")
        if make is not None:
            state["_response"] = make()
            state["_make_response"] = None
        value: dict[str, Any] | None = state.get("_response")
        return value

    @response.setter
    def response(self, value: dict[str, Any] | None) -> None:
        self.__dict__["_response"] = value
        self.__dict__["_make_response"] = None


def _defer_response(exchange: wire.Exchange, make: Callable[[], dict[str, Any]]) -> None:
    """``exchange.response = make()``, built on first read when the exchange is lazy."""
    if isinstance(exchange, LazyExchange):
        exchange.__dict__["_make_response"] = make
    else:
        exchange.response = make()


def _verbatim_errors(spec: ProviderSpec) -> bool:
    """Whether the spec asks for error bodies as text (``[replay] verbatim_error_bodies = true``)."""
    replay = spec.extra.get("replay")
    return isinstance(replay, dict) and replay.get("verbatim_error_bodies") is True


def record_error(exchange: wire.Exchange, exc: BaseException) -> None:
    exchange.response = {"error": {"type": type(exc).__name__, "message": scrub_text(str(exc))}}
    exchange.ended = time.monotonic()
