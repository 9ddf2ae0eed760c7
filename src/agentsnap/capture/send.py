"""The ``Client.send`` / ``AsyncClient.send`` wrappers for httpx and httpx2.

Installed once per class (see :mod:`agentsnap.capture.hooks`) and never
removed; what they do depends on the active recording (:func:`agentsnap.trace.current`):

* no active recording, or a request no provider spec recognises: call the real
  ``send`` untouched;
* ``capture`` (record / live): call the real ``send``, store the exchange;
  a streamed response gets a tee over its raw byte stream that stores each
  chunk as the SDK reads it and finalises on close (or exhaustion);
* ``replay``: serve the recorded exchange as a genuine ``Response`` of the
  request's own library (``httpx`` or ``httpx2``), so the SDK parses it with its
  own code; never touches the network.

A recording scoped to explicit adapters (``recording.adapter_scope``, see
:mod:`agentsnap.adapters`) first checks that the ``Client`` instance sending a
recognised request belongs to one of them, and raises
:class:`~agentsnap.exceptions.AdapterNotWrappedError` otherwise (nothing sent).

The request is taken from ``args[0]`` or ``kwargs["request"]``: ``httpx.Client.stream()``
calls ``send(request=...)`` by keyword.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import re
import sys
import threading
import time
from typing import Any, Callable

from .. import trace as _trace
from ..exceptions import ReplayMissError, SnapshotMissingInCIError
from ..scrub import scrub_chunks, scrub_json, scrub_text, scrub_url
from ..serialize import bytes_envelope, escape_surrogates
from . import faithful, observe
from .spec import ProviderSpec, classify, explain_miss

__all__ = ["send_wrapper", "async_send_wrapper"]


# --------------------------------------------------------------------------
# bodies


def encode_body(raw: bytes, content_type: str | None) -> dict[str, Any]:
    """Store a body: ``{"body": json}``, ``{"text": str}`` or ``{"body_b64", "sha256"}``."""
    if not raw:
        return {"body": None}
    ctype = (content_type or "").lower()
    if "json" in ctype or raw[:1] in (b"{", b"["):
        try:
            return {"body": json.loads(raw)}
        except ValueError:
            pass
    try:
        return {"text": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"body_b64": base64.b64encode(raw).decode("ascii"), "sha256": hashlib.sha256(raw).hexdigest()}


def decode_body(stored: dict[str, Any]) -> bytes:
    """The bytes of a body stored by :func:`encode_body`."""
    if "body_b64" in stored:
        return base64.b64decode(stored["body_b64"])
    if "text" in stored:
        return str(stored["text"]).encode("utf-8")
    body = stored.get("body")
    if body is None:
        return b""
    text = _compact_json(body)
    if not text.isascii():  # only non-ASCII text can hold a lone surrogate
        text = escape_surrogates(text)
    return text.encode("utf-8")


_compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


_BOUNDARY = re.compile(r'boundary="?([^";,\s]+)"?', re.IGNORECASE)


def _request_record(request: Any) -> dict[str, Any]:
    """The stored form of a request, from which its replay key is computed.

    Secrets are scrubbed here (:mod:`agentsnap.scrub`), so the stored request
    and the live one seen in replay scrub to the same key. A multipart body's
    random boundary is replaced by a fixed one (the same upload gives the same
    record every run). A body that is not UTF-8 is stored as
    ``{"body": {"$bytes_b64", "sha256"}}`` (a side-file reference above
    1 MiB, see :mod:`agentsnap.serialize`).
    """
    try:
        raw = request.content
    except Exception:  # noqa: BLE001 - a streaming request body not read yet
        raw = request.read()
    url = request.url
    rec: dict[str, Any] = {"method": request.method, "path": scrub_text(url.path)}
    if url.query:
        query = url.query.decode("ascii", "replace") if isinstance(url.query, bytes) else str(url.query)
        rec["query"] = scrub_url("http://x/?" + query).split("?", 1)[1]
    ctype = request.headers.get("content-type") or ""
    if raw and ctype.lower().startswith("multipart/"):
        found = _BOUNDARY.search(ctype)
        if found:
            raw = raw.replace(found.group(1).encode("latin-1", "replace"), b"agentsnap-boundary")
    stored = encode_body(raw, ctype)
    if "body_b64" in stored:
        stored = {"body": bytes_envelope(raw)}
    elif "body" in stored:
        stored["body"] = scrub_json(stored["body"])
    elif "text" in stored:
        stored["text"] = scrub_text(stored["text"])
    rec.update(stored)
    return rec


def _kept_headers(response: Any, spec: ProviderSpec, *, streamed: bool, exact: bool = True) -> dict[str, str]:
    """The response headers stored for ``response`` (see :func:`.faithful.response_headers`)."""
    return faithful.response_headers(response, spec, streamed=streamed, exact=exact)


# --------------------------------------------------------------------------
# stream tee (record) and replay streams


_stream_classes: dict[tuple[str, bool], type] = {}
_stream_classes_lock = threading.Lock()


def _module_of(request: Any) -> Any:
    """The httpx-like module (``httpx`` or ``httpx2``) the request belongs to."""
    return sys.modules[type(request).__module__.split(".", 1)[0]]


def _tee_class(module: Any, is_async: bool) -> type:
    key = (module.__name__, is_async)
    cls = _stream_classes.get(key)
    if cls is not None:
        return cls
    with _stream_classes_lock:
        if key in _stream_classes:
            return _stream_classes[key]
        if is_async:

            class AsyncTee(module.AsyncByteStream):  # type: ignore[name-defined]
                def __init__(self, inner: Any, sink: _ChunkSink) -> None:
                    self._inner = inner
                    self._sink = sink

                async def __aiter__(self) -> Any:
                    async for chunk in self._inner:
                        self._sink.add(chunk)
                        yield chunk
                    self._sink.finish(complete=True)

                async def aclose(self) -> None:
                    self._sink.finish(complete=False)
                    await self._inner.aclose()

            cls = AsyncTee
        else:

            class SyncTee(module.SyncByteStream):  # type: ignore[name-defined]
                def __init__(self, inner: Any, sink: _ChunkSink) -> None:
                    self._inner = inner
                    self._sink = sink

                def __iter__(self) -> Any:
                    for chunk in self._inner:
                        self._sink.add(chunk)
                        yield chunk
                    self._sink.finish(complete=True)

                def close(self) -> None:
                    self._sink.finish(complete=False)
                    self._inner.close()

            cls = SyncTee
        _stream_classes[key] = cls
        return cls


def _replay_stream_class(module: Any, is_async: bool) -> type:
    key = (module.__name__ + ":replay", is_async)
    cls = _stream_classes.get(key)
    if cls is not None:
        return cls
    with _stream_classes_lock:
        if is_async:

            class AsyncReplayStream(module.AsyncByteStream):  # type: ignore[name-defined]
                def __init__(self, chunks: list[bytes]) -> None:
                    self._chunks = chunks

                async def __aiter__(self) -> Any:
                    for chunk in self._chunks:
                        yield chunk

            cls = AsyncReplayStream
        else:

            class SyncReplayStream(module.SyncByteStream):  # type: ignore[name-defined]
                def __init__(self, chunks: list[bytes]) -> None:
                    self._chunks = chunks

                def __iter__(self) -> Any:
                    yield from self._chunks

            cls = SyncReplayStream
        _stream_classes[key] = cls
        return cls


def _b64_chunk(data: bytes) -> dict[str, str]:
    return {"$bytes_b64": base64.b64encode(data).decode("ascii")}


def _utf8_prefix(data: bytes) -> tuple[str, bytes]:
    """``data`` decoded up to an incomplete character at its end, and those last bytes.
    Raises ``UnicodeDecodeError`` when ``data`` is not UTF-8."""
    try:
        return data.decode("utf-8"), b""
    except UnicodeDecodeError as exc:
        if exc.end == len(data) and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8"), data[exc.start :]
        raise


class _Decompressor:
    """Incremental decoding of one ``content-encoding`` (as httpx decodes it)."""

    def __init__(self, encoding: str) -> None:
        import zlib

        self.encoding = encoding
        self._first = True
        if encoding in ("gzip", "x-gzip"):
            self._obj: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._obj = zlib.decompressobj()
        elif encoding == "br":
            try:
                import brotli  # type: ignore[import-not-found]
            except ImportError:
                import brotlicffi as brotli  # type: ignore[import-not-found, no-redef]
            self._obj = brotli.Decompressor()
        elif encoding == "zstd":
            import zstandard  # type: ignore[import-not-found]

            self._obj = zstandard.ZstdDecompressor().decompressobj()
        else:
            raise LookupError(encoding)

    def decompress(self, data: bytes) -> bytes:
        if self.encoding == "deflate" and self._first:
            self._first = False
            import zlib

            try:
                return bytes(self._obj.decompress(data))
            except zlib.error:  # raw deflate without the zlib header
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)
        if self.encoding == "br":
            process = getattr(self._obj, "process", None) or self._obj.decompress
            return bytes(process(data))
        return bytes(self._obj.decompress(data))

    def flush(self) -> bytes:
        flush = getattr(self._obj, "flush", None)
        return bytes(flush()) if callable(flush) else b""


def _decompressor(encoding: str) -> _Decompressor | None:
    """A decoder for ``encoding``, or None when there is none (unknown, or its package is missing)."""
    try:
        return _Decompressor(encoding)
    except (LookupError, ImportError):
        return None


class _ChunkSink:
    """Collects a streamed response's chunks; finalises the exchange exactly once.

    Chunks are stored as the SDK reads them: text, with a compressed stream
    (``content-encoding`` gzip, deflate, br, zstd) decoded first and the
    header dropped, so the snapshot is readable and scrubbable and replay
    serves the same bytes the SDK saw, without decoding twice. Bytes that are
    not UTF-8 are stored as ``{"$bytes_b64": ...}`` chunks. A stream whose
    encoding cannot be decoded here (unknown, package missing, corrupt) is
    stored raw, every chunk as bytes, with its ``content-encoding`` kept.
    """

    def __init__(self, exchange: _trace.Exchange, response_meta: dict[str, Any], encoding: str, trace: _trace.Trace) -> None:
        self.exchange = exchange
        self.meta = response_meta
        self.decompressor = _decompressor(encoding) if encoding else None
        self.raw_mode = bool(encoding) and self.decompressor is None
        self._wire: list[bytes] = []  # the compressed chunks, kept to fall back on
        self._tail = b""  # an incomplete UTF-8 character at the end of the last chunk
        self._binary = False
        self.chunks: list[Any] = []
        self.trace = trace
        self._done = False
        self._lock = threading.Lock()
        trace.finalizers.append(self._abandon)

    def add(self, chunk: bytes) -> None:
        if self.raw_mode:
            self.chunks.append(_b64_chunk(chunk))
            return
        if self.decompressor is not None:
            self._wire.append(chunk)
            try:
                chunk = self.decompressor.decompress(chunk)
            except Exception:  # noqa: BLE001 - corrupt: httpx fails the same way on the stored raw bytes
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

    def finish(self, *, complete: bool) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        if self.decompressor is not None:
            try:
                self._add_decoded(self.decompressor.flush())
            except Exception:  # noqa: BLE001 - a stream cut inside a compressed block: keep what was decoded
                pass
        if self._tail:  # the stream stopped inside a character: keep its bytes
            self.chunks.append(_b64_chunk(self._tail))
            self._tail = b""
        self._wire = []
        resp = dict(self.meta)
        if not self.raw_mode and isinstance(resp.get("headers"), dict):
            resp["headers"] = {k: v for k, v in resp["headers"].items() if k != "content-encoding"}
        self.chunks = scrub_chunks(self.chunks)
        resp["chunks"] = self.chunks
        self.exchange.response = resp
        self.exchange.complete = complete
        self.exchange.ended = time.monotonic()
        try:
            self.trace.finalizers.remove(self._abandon)
        except ValueError:
            pass

    def _abandon(self) -> None:
        self.finish(complete=False)


def _chunk_bytes(chunk: Any) -> bytes:
    if isinstance(chunk, dict):
        return base64.b64decode(chunk["$bytes_b64"])
    return str(chunk).encode("utf-8")


# --------------------------------------------------------------------------
# the wrappers


def _extract(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, bool]:
    request = kwargs["request"] if "request" in kwargs else args[0]
    return request, bool(kwargs.get("stream", False))


def _begin(recording: Any, request: Any, spec: ProviderSpec) -> _trace.Exchange:
    if recording.block is not None:
        recording.blocked_calls += 1
        raise SnapshotMissingInCIError(recording.block)
    req = _request_record(request)
    exchange = _trace.Exchange(provider=spec.name, codec=spec.codec_for(req["path"]), request=req)
    recording.trace.add_exchange(exchange)
    return exchange


def _replayed_response(recording: Any, exchange: _trace.Exchange, request: Any, *, is_async: bool) -> Any:
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
    stored = recorded["response"]
    module = _module_of(request)
    if "error" in stored:  # a transport error was recorded: raise the same class
        err = stored["error"]
        exc_cls = getattr(module, str(err.get("type")), None) or module.TransportError
        raise exc_cls(str(err.get("message", "")), request=request)
    status = int(stored["status"])
    stored_headers = stored.get("headers") or {}
    if isinstance(stored_headers, dict):
        stored_headers = list(stored_headers.items())
    # recorded framing headers are served as they were (the body is the recorded bytes);
    # a snapshot from before they were stored gets httpx's own content-length
    framed = any(k.lower() in faithful.FRAMING for k, _ in stored_headers)
    headers = list(stored_headers)
    if status >= 400:
        # replay retries instantly: the SDKs (Stainless) honour retry-after-ms
        headers = [(k, v) for k, v in headers if k.lower() != "retry-after-ms"] + [("retry-after-ms", "1")]
    if "chunks" in stored:
        chunks = [_chunk_bytes(c) for c in stored["chunks"]]
        stream_cls = _replay_stream_class(module, is_async)
        response = module.Response(status, headers=headers, stream=stream_cls(chunks), request=request)
    else:
        headers = [(k, v) for k, v in headers if k.lower() != "content-encoding"]
        body, exact = faithful.replay_body(stored)
        if framed and exact:  # the recorded bytes and framing: a stream, so httpx adds no content-length
            stream = _replay_stream_class(module, is_async)([body])
            response = module.Response(status, headers=headers, stream=stream, request=request)
        else:
            headers = [(k, v) for k, v in headers if k.lower() not in faithful.FRAMING]
            response = module.Response(status, headers=headers, content=body, request=request)
    response.elapsed = datetime.timedelta(0)
    return response


def _record_response(recording: Any, exchange: _trace.Exchange, response: Any, spec: ProviderSpec, *, stream: bool, is_async: bool) -> None:
    meta: dict[str, Any] = {"status": response.status_code}
    if stream and getattr(response, "_content", None) is not None:
        # the body was already read inside send (a custom transport, an event
        # hook): the SDK will read the cached content, which no tee would see
        meta["headers"] = _kept_headers(response, spec, streamed=False)
        try:
            meta["chunks"] = scrub_chunks([response.content.decode("utf-8")]) if response.content else []
        except UnicodeDecodeError:
            meta["chunks"] = [_b64_chunk(response.content)]
        exchange.response = meta
        exchange.ended = time.monotonic()
        return
    if stream:
        encoding = response.headers.get("content-encoding", "").strip().lower()
        meta["headers"] = _kept_headers(response, spec, streamed=True)
        sink = _ChunkSink(exchange, meta, "" if encoding == "identity" else encoding, recording.trace)
        module = _module_of(response.request)
        response.stream = _tee_class(module, is_async)(response.stream, sink)
        return
    # the bytes the server sent, as text unless parsed JSON gives them back exactly
    # (.faithful); error bodies of a spec with verbatim_error_bodies always as text
    verbatim = response.status_code >= 400 and _verbatim_errors(spec)
    stored, exact = faithful.response_body(response.content, response.headers.get("content-type"), verbatim=verbatim)
    meta["headers"] = _kept_headers(response, spec, streamed=False, exact=exact)
    meta.update(stored)
    exchange.response = meta
    exchange.ended = time.monotonic()


def _verbatim_errors(spec: ProviderSpec) -> bool:
    """Whether the spec asks for error bodies as text (``[replay] verbatim_error_bodies = true``)."""
    replay = spec.extra.get("replay")
    return isinstance(replay, dict) and replay.get("verbatim_error_bodies") is True


def _record_error(exchange: _trace.Exchange, exc: BaseException) -> None:
    exchange.response = {"error": {"type": type(exc).__name__, "message": scrub_text(str(exc))}}
    exchange.ended = time.monotonic()


def _observed(recording: Any, request: Any, spec: ProviderSpec | None) -> None:
    """Tell the never-silent observer (:mod:`.observe`) about a request this hook sees:
    with the reason when it looks like an LLM call but no spec recognised it."""
    url = request.url
    reason = None if spec is not None else explain_miss(request.method, url.host, url.path, request.headers, lambda: _content_or_none(request))
    observe.note_request(recording, request.method, url.host, url.path, reason)


def _content_or_none(request: Any) -> bytes | None:
    try:
        return bytes(request.content)
    except Exception:  # noqa: BLE001 - a streaming body nobody read yet
        return None


def send_wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """wrapt wrapper for ``httpx.Client.send`` / ``httpx2.Client.send``."""
    recording = _trace.current()
    if recording is None:
        return wrapped(*args, **kwargs)
    request, stream = _extract(args, kwargs)
    spec = classify(request)
    if recording.mode == "capture":
        _observed(recording, request, spec)
    if spec is None:
        return wrapped(*args, **kwargs)
    scope = getattr(recording, "adapter_scope", None)
    if scope is not None:  # a block given explicit adapters: refuse other clients' requests
        scope.check(instance, request, spec)
    exchange = _begin(recording, request, spec)
    if recording.mode == "replay":
        response = _replayed_response(recording, exchange, request, is_async=False)
        if not stream:
            response.read()
        return response
    try:
        response = wrapped(*args, **kwargs)
    except Exception as exc:
        _record_error(exchange, exc)
        raise
    _record_response(recording, exchange, response, spec, stream=stream, is_async=False)
    return response


async def async_send_wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """wrapt wrapper for ``httpx.AsyncClient.send`` / ``httpx2.AsyncClient.send``."""
    recording = _trace.current()
    if recording is None:
        return await wrapped(*args, **kwargs)
    request, stream = _extract(args, kwargs)
    spec = classify(request)
    if recording.mode == "capture":
        _observed(recording, request, spec)
    if spec is None:
        return await wrapped(*args, **kwargs)
    scope = getattr(recording, "adapter_scope", None)
    if scope is not None:  # a block given explicit adapters: refuse other clients' requests
        scope.check(instance, request, spec)
    exchange = _begin(recording, request, spec)
    if recording.mode == "replay":
        response = _replayed_response(recording, exchange, request, is_async=True)
        if not stream:
            await response.aread()
        return response
    try:
        response = await wrapped(*args, **kwargs)
    except Exception as exc:
        _record_error(exchange, exc)
        raise
    _record_response(recording, exchange, response, spec, stream=stream, is_async=True)
    return response
