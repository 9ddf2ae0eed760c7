"""The transport-neutral core of capture: how an exchange is stored, looked up
and served, whichever HTTP library carried it.

The shapes themselves (:class:`~agentsnap.storage.wire.Exchange`, the bytes envelope,
the decoder, the request key) live in :mod:`agentsnap.storage.wire`. Each transport
adapter (:mod:`agentsnap.capture.send` for httpx/httpx2,
:mod:`agentsnap.capture.transports`) only translates its library's request and
response objects and plugs into the same few calls here, so a recording made
over one library replays over another (the replay key ignores the host and
the library, see :mod:`agentsnap.replay`):

* :class:`WireRequest`: a request as bytes on the wire (method, URL, headers,
  body), read the way an ``httpx.Request`` is read — what recognition
  (:func:`recognise`) and :func:`_request_record` need;
* :func:`begin`: the CI block check, the stored request (scrubbed here, the one
  time it is), the exchange added to the trace;
* :func:`sending`: around the real send (ownership, and a raised error stored);
* :func:`take_recorded`: the cassette lookup in replay; a miss raises
  :class:`~agentsnap.exceptions.ReplayMissError` (counted on the recording);
  :func:`replay_headers` / :func:`stored_body_bytes`: what to serve;
* :func:`record_read_body` / :func:`body_sink`: the response stored (scrubbed)
  as a read body or as the chunks of a stream, fed by a tee
  (:mod:`agentsnap.capture.streams`) or the library's own reads;
* :func:`owned` / :func:`owner`: an outer agentsnap layer (httpx over an
  aiohttp transport, requests over http.client) already handles this request,
  so the inner layers let it pass untouched and it is captured once.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .. import trace as _trace
from ..exceptions import ReplayMissError
from ..spec.providers import ProviderSpec, classify, explain_miss
from ..storage import wire
from ..storage.scrub import (
    remember_credentials,
    scrub_bytes,
    scrub_chunks,
    scrub_json,
    scrub_text,
    scrub_url,
)
from ..storage.serialize import bytes_envelope
from . import faithful, observe

if TYPE_CHECKING:
    from .recording import Recording

__all__ = [
    "WireRequest",
    "begin",
    "body_sink",
    "decode_body",
    "encode_body",
    "kept_headers",
    "owned",
    "owner",
    "recognise",
    "record_error",
    "record_read_body",
    "replay_headers",
    "sending",
    "stored_body_bytes",
    "take_recorded",
]


# --------------------------------------------------------------------------
# bodies


def encode_body(raw: bytes, content_type: str | None) -> dict[str, Any]:
    """Store a body: ``{"body": json}``, ``{"text": str}`` or ``{"body_b64", "sha256"}``
    (:func:`agentsnap.storage.wire.encode_body`, bytes scrubbed)."""
    return wire.encode_body(raw, content_type, binary=_scrubbed_body_envelope)


def _scrubbed_body_envelope(raw: bytes) -> dict[str, Any]:
    # token shapes and remembered credentials, overwritten in place
    return wire.envelope(scrub_bytes(raw), key="body_b64")


#: the bytes of a body stored by :func:`encode_body`
decode_body = wire.body_bytes


_BOUNDARY = re.compile(r'boundary="?([^";,\s]+)"?', re.IGNORECASE)


def _request_record(request: Any) -> dict[str, Any]:
    """The stored form of a request, from which its replay key is computed.

    Secrets are scrubbed here (:mod:`agentsnap.storage.scrub`), so the stored request
    and the live one seen in replay scrub to the same key. A multipart body's
    random boundary is replaced by a fixed one (the same upload gives the same
    record every run). A body that is not UTF-8 is stored as
    ``{"body": {"$bytes_b64", "sha256"}}`` (a side-file reference above
    1 MiB, see :mod:`agentsnap.storage.serialize`).
    """
    return _record_of(*_request_parts(request))


def _request_parts(request: Any) -> tuple[str, str, str, str, bytes]:
    """What :func:`_record_of` stores of ``request``, read at once (the body before the send
    consumes it): method, path, query, content type and body bytes; nothing scrubbed yet."""
    try:
        raw = request.content
    except Exception:
        raw = request.read()
    if not isinstance(raw, bytes):
        raw = bytes(raw or b"")
    url = request.url
    query = url.query
    if query:
        query = query.decode("ascii", "replace") if isinstance(query, bytes) else str(query)
    return request.method, url.path, query or "", request.headers.get("content-type") or "", raw


def _record_of(method: str, path: str, query: str, ctype: str, raw: bytes) -> dict[str, Any]:
    rec: dict[str, Any] = {"method": method, "path": scrub_text(path)}
    if query:
        rec["query"] = scrub_url("http://x/?" + query).split("?", 1)[1]
    if raw and ctype.lower().startswith("multipart/"):
        found = _BOUNDARY.search(ctype)
        if found:
            raw = raw.replace(found.group(1).encode("latin-1", "replace"), b"agentsnap-boundary")
    stored = wire.encode_body(raw, ctype, binary=_request_bytes)
    if "body" in stored:
        stored["body"] = scrub_json(stored["body"])
    elif "text" in stored:
        stored["text"] = scrub_text(stored["text"])
    rec.update(stored)
    return rec


def _request_bytes(raw: bytes) -> dict[str, Any]:
    return {"body": bytes_envelope(raw)}  # scrubbed; a side file above 1 MiB


def kept_headers(
    pairs: Iterable[tuple[str, str]], spec: ProviderSpec, *, streamed: bool, exact: bool = True
) -> dict[str, str]:
    """The response headers stored from ``pairs`` (``(name, value)`` as received): what the
    spec keeps, account headers masked, framing kept while the body replays byte for byte
    (:func:`.faithful.response_headers`, the one rule for every transport)."""
    return faithful.response_headers(pairs, spec, streamed=streamed, exact=exact)


# --------------------------------------------------------------------------
# streamed chunks


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

    def __init__(self, exchange: wire.Exchange, encoding: str, trace: _trace.Trace) -> None:
        self.exchange = exchange
        self.trace = trace
        self.decompressor = wire.decompressor(encoding) if encoding else None
        #: the body cannot be decoded here (unknown encoding, package missing, corrupt): kept raw
        self.raw_mode = bool(encoding) and self.decompressor is None
        self._done = False
        self._lock = threading.Lock()
        trace.finalizers.append(self._abandon)

    def add(self, chunk: bytes) -> None:
        raise NotImplementedError

    def _store(self) -> None:
        raise NotImplementedError

    def finish(self, *, complete: bool) -> None:
        """Store the exchange's response (once; later calls do nothing)."""
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


class _ChunkSink(_Sink):
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
    (:class:`_LazyExchange`), or at once for an exchange that is not lazy.
    ``response_meta``: the stored ``status`` / ``headers``, or a function
    giving them (called when the response is built).
    """

    def __init__(
        self,
        exchange: wire.Exchange,
        response_meta: dict[str, Any] | Callable[[], dict[str, Any]],
        encoding: str,
        trace: _trace.Trace,
    ) -> None:
        super().__init__(exchange, encoding, trace)
        self.meta = response_meta
        self._pieces: list[bytes] = []  # the chunks as read (on the wire: maybe compressed)
        self._wire: list[bytes] = []  # the compressed chunks, kept to fall back on
        self._tail = b""  # an incomplete UTF-8 character at the end of the last chunk
        self._binary = False
        self.chunks: list[Any] = []

    def add(self, chunk: bytes) -> None:
        self._pieces.append(chunk if type(chunk) is bytes else bytes(chunk))

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
            pieces, self._pieces = self._pieces, []
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


# --------------------------------------------------------------------------
# the neutral request, recognition, ownership


class _Headers:
    """Case-insensitive, multi-valued request headers (the read side of ``httpx.Headers``)."""

    __slots__ = ("_index", "_items")

    def __init__(self, items: Iterable[tuple[Any, Any]]) -> None:
        self._items = [(_text(k), _text(v)) for k, v in items]
        self._index: dict[str, str] = {}
        for k, v in self._items:
            low = k.lower()
            self._index[low] = f"{self._index[low]}, {v}" if low in self._index else v

    def get(self, name: str, default: Any = None) -> Any:
        return self._index.get(name.lower(), default)

    def __getitem__(self, name: str) -> str:
        return self._index[name.lower()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def keys(self) -> Any:
        return self._index.keys()

    def items(self) -> Any:
        return self._index.items()

    def multi_items(self) -> list[tuple[str, str]]:
        return list(self._items)


class _URL:
    """The parts of a URL that recognition and the stored request read (like ``httpx.URL``)."""

    __slots__ = ("_text", "host", "path", "port", "query", "scheme")

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.scheme = parts.scheme
        self.host = (parts.hostname or "").lower()
        self.port = parts.port
        self.path = parts.path or "/"
        self.query = parts.query.encode("ascii", "replace")  # bytes, as httpx.URL.query
        self._text = url

    def __str__(self) -> str:
        return self._text


class WireRequest:
    """A request as sent: ``method`` (upper case), ``url`` (``.host``, ``.path``,
    ``.query`` bytes), ``headers`` (case-insensitive ``.get``) and ``content``
    (the body bytes). Built by the transport adapters from their library's
    request; reads like an ``httpx.Request``, so the same recognition and
    storage serve every library."""

    __slots__ = ("content", "headers", "method", "url")

    def __init__(
        self, method: str, url: str, headers: Iterable[tuple[Any, Any]], content: bytes | None
    ) -> None:
        self.method = _text(method).upper()
        self.url = _URL(url)
        self.headers = _Headers(headers)
        self.content = content or b""

    def read(self) -> bytes:
        return self.content

    def __repr__(self) -> str:
        return f"<WireRequest {self.method} {self.url}>"


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("latin-1")
    return str(value)


def recognise(request: Any, recording: Recording | None = None) -> ProviderSpec | None:
    """The provider spec ``request`` belongs to, or None (the request passes untouched).

    The one place every transport asks :func:`agentsnap.spec.providers.classify`
    (``request``: an httpx/httpx2 ``Request`` or a :class:`WireRequest`). It first
    remembers the credentials the request carries (:func:`agentsnap.storage.scrub.remember_credentials`:
    scrubbing by value), whether or not a spec claims it. Given the
    active ``recording`` in ``capture`` mode, it also tells the never-silent
    observer (:mod:`.observe`) that a hooked transport saw the request, with the
    reason when it looks like an LLM call that no spec recognised.
    """
    remember_credentials(request.headers, request.url)  # scrub by value: before anything is stored
    spec = classify(request)
    if recording is not None and recording.mode == "capture":
        url = request.url
        reason = (
            None
            if spec is not None
            else explain_miss(
                request.method,
                url.host,
                url.path,
                request.headers,
                lambda: _content_or_none(request),
            )
        )
        observe.note_request(recording, request.method, url.host, url.path, reason)
    return spec


def _content_or_none(request: Any) -> bytes | None:
    try:
        return bytes(request.content)
    except Exception:
        return None


_owner: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "agentsnap_capture_owner", default=None
)


def owner() -> str | None:
    """The transport already handling the current request in this thread / task, or None.

    A layer below it (the aiohttp session under litellm's httpx transport, the
    ``http.client`` connection under urllib3) sees it set and lets the request
    pass untouched: each request is captured once, by the outermost hook.
    """
    return _owner.get()


#: the owner name of agentsnap's own traffic (the LLM judge): no transport captures it
#: and the never-silent observer does not report it
INTERNAL = "agentsnap-internal"


@contextlib.contextmanager
def owned(transport: str) -> Iterator[None]:
    """Mark the current thread / task as handling a captured request (see :func:`owner`);
    ``owned(INTERNAL)`` marks agentsnap's own requests, which are never captured."""
    token = _owner.set(transport)
    try:
        yield
    finally:
        _owner.reset(token)


# --------------------------------------------------------------------------
# one exchange: begin, replay lookup, record


def take_recorded(recording: Recording, exchange: wire.Exchange) -> dict[str, Any]:
    """Replay: the recorded response for ``exchange``'s request (the stored dict:
    ``status``/``headers`` with ``body``/``text``/``body_b64`` or ``chunks``, or
    ``error``). Marks the exchange served. Raises
    :class:`~agentsnap.exceptions.ReplayMissError` (counted on ``recording``,
    the first kept in ``recording.first_miss``) when nothing recorded matches."""
    assert recording.cassette is not None  # replay mode, not blocked (begin raised)
    try:
        index, recorded, drift = recording.cassette.take(exchange.request)
    except ReplayMissError as exc:
        recording.misses += 1
        if recording.first_miss is None:
            recording.first_miss = exc
        raise
    exchange.replay_index = index
    exchange.request_drift = drift
    exchange.response = recorded["response"]
    exchange.ended = time.monotonic()
    stored: dict[str, Any] = recorded["response"]
    return stored


def replay_headers(stored: dict[str, Any]) -> list[tuple[str, str]]:
    """The headers to serve for a stored response, as ``(name, value)`` pairs.

    ``content-length`` / ``transfer-encoding`` are dropped (the replaying
    library frames the body itself). ``content-encoding`` is stored only for
    a body kept encoded (one that could not be decoded), so it is served as
    stored. An error status gets
    ``retry-after-ms: 1``: replay retries at once (the Stainless SDKs honour it).
    """
    raw = stored.get("headers") or {}
    pairs = list(raw.items()) if isinstance(raw, dict) else [tuple(p) for p in raw]
    drop = ("content-length", "transfer-encoding")
    headers = [(str(k), str(v)) for k, v in pairs if str(k).lower() not in drop]
    if int(stored.get("status", 200)) >= 400:
        headers = [(k, v) for k, v in headers if k.lower() != "retry-after-ms"] + [
            ("retry-after-ms", "1")
        ]
    return headers


def stored_body_bytes(stored: dict[str, Any]) -> list[bytes]:
    """A stored response's body as the chunks to serve (one chunk for a read body)."""
    if "chunks" in stored:
        return [_chunk_bytes(c) for c in stored["chunks"]]
    body = decode_body(stored)
    return [body] if body else []


def record_read_body(
    exchange: wire.Exchange,
    spec: ProviderSpec,
    status: int,
    headers: Iterable[tuple[str, str]],
    content: bytes,
    content_type: str | None,
) -> None:
    """Store a response whose (decoded) body was read whole: ``{"status", "headers", "body"|"text"|...}``.

    Byte-faithful (:mod:`.faithful`): the server's own text is kept next to the
    parsed body when the snapshot's JSON form would not give it back, and the
    framing headers stay while the stored body replays byte for byte. An error
    body is kept verbatim as text when the spec asks for it
    (``[replay] verbatim_error_bodies``); bodies and texts are scrubbed.
    """
    pairs = list(headers)
    if not isinstance(content, bytes):
        content = bytes(content)

    def make() -> dict[str, Any]:
        verbatim = status >= 400 and _verbatim_errors(spec)
        stored, exact = faithful.response_body(content, content_type, verbatim=verbatim)
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
        trace: _trace.Trace,
    ) -> None:
        super().__init__(exchange, encoding, trace)
        self.spec, self.status, self.headers = spec, status, headers
        self._parts: list[bytes] = []

    def add(self, chunk: bytes) -> None:
        self._parts.append(chunk)

    def _store(self) -> None:
        raw = b"".join(self._parts)
        headers = self.headers
        if self.decompressor is not None:
            try:
                raw = self.decompressor.decompress(raw) + self.decompressor.flush()
            except Exception:
                self.raw_mode = True
        ctype = next((v for k, v in headers if k.lower() == "content-type"), None)
        record_read_body(self.exchange, self.spec, self.status, headers, raw, ctype)
        if self.raw_mode:
            assert self.exchange.response is not None
            encoding = next((v for k, v in headers if k.lower() == "content-encoding"), "")
            self.exchange.response.pop("body", None)
            self.exchange.response.pop("text", None)
            self.exchange.response.update(wire.envelope(raw, key="body_b64"))
            self.exchange.response["headers"]["content-encoding"] = encoding


def body_sink(
    recording: Recording,
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
    stream (:func:`is_stream`) is stored as chunks (:class:`_ChunkSink`),
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

        return _ChunkSink(exchange, meta, encoding, recording.trace)
    if decoded:
        headers = [(k, v) for k, v in headers if k.lower() != "content-encoding"]
    return _ReadBodySink(exchange, spec, status, headers, encoding, recording.trace)


class _LazyExchange(wire.Exchange):
    """A captured exchange whose stored ``request`` and ``response`` are built on first read.

    Capture keeps what it needs at the call (the request's bytes, the response's
    status, headers and body bytes) and scrubs, parses and shapes them when the
    exchange is first read (the trace's steps, the snapshot, a test): the call's
    own path only copies references. Reading is the same as for an
    :class:`~agentsnap.storage.wire.Exchange`; a value once built is kept, and setting
    one replaces it. Scrubbing then knows every credential remembered so far,
    which is at least what it knew at the call.
    """

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
    if isinstance(exchange, _LazyExchange):
        exchange.__dict__["_make_response"] = make
    else:
        exchange.response = make()


def begin(recording: Recording, request: Any, spec: ProviderSpec) -> wire.Exchange:
    """Start one exchange of a recognised request: raise
    ``recording.block_error`` (:class:`~agentsnap.exceptions.SnapshotMissingInCIError`
    unless set) when the recording blocks LLM calls (CI without a snapshot), else store the scrubbed request
    (:func:`_request_record`: the one place a request is scrubbed) and add the
    exchange to the trace."""
    if recording.block is not None:
        recording.blocked_calls += 1
        raise recording.block_error(recording.block)
    if recording.mode == "capture":  # stored on first read (_LazyExchange)
        parts = _request_parts(request)
        codec = spec.codec_for(scrub_text(parts[1]))
        exchange: wire.Exchange = _LazyExchange(provider=spec.name, codec=codec, request={})
        exchange.__dict__["_make_request"] = functools.partial(_record_of, *parts)
    else:
        req = _request_record(request)
        exchange = wire.Exchange(provider=spec.name, codec=spec.codec_for(req["path"]), request=req)
    recording.trace.add_exchange(exchange)
    return exchange


def _verbatim_errors(spec: ProviderSpec) -> bool:
    """Whether the spec asks for error bodies as text (``[replay] verbatim_error_bodies = true``)."""
    replay = spec.extra.get("replay")
    return isinstance(replay, dict) and replay.get("verbatim_error_bodies") is True


@contextlib.contextmanager
def sending(exchange: wire.Exchange, transport: str) -> Iterator[None]:
    """Around the real send of a captured request: the request is :func:`owned` by
    ``transport`` meanwhile (inner layers let it pass), and an exception it raises is
    stored as the exchange's response (:func:`record_error`) on its way out."""
    with owned(transport):
        try:
            yield
        except Exception as exc:
            record_error(exchange, exc)
            raise


def record_error(exchange: wire.Exchange, exc: BaseException) -> None:
    exchange.response = {"error": {"type": type(exc).__name__, "message": scrub_text(str(exc))}}
    exchange.ended = time.monotonic()
