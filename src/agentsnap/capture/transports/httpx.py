"""httpx and httpx2: the ``Client.send`` / ``AsyncClient.send`` wrappers, the main transport.

Registered like every transport (:data:`agentsnap.capture.transports.TRANSPORTS`,
:mod:`agentsnap.capture.contract`); installed once per class by
:mod:`agentsnap.capture.hooks` and never
removed; what they do depends on the active recording (:func:`agentsnap.capture.active.current`):

* no active recording, or a request no provider spec recognises: call the real
  ``send`` untouched;
* ``capture`` (record / live): call the real ``send``, store the exchange;
  a streamed response gets a tee over its raw byte stream
  (:func:`agentsnap.capture.streams.tee_stream_class`) that stores each
  chunk as the SDK reads it and finalises on close (or exhaustion);
* ``replay``: serve the recorded exchange as a genuine ``Response`` of the
  request's own library (``httpx`` or ``httpx2``), so the SDK parses it with its
  own code (a body as :func:`agentsnap.capture.streams.replay_stream_class`);
  never touches the network.

A recording scoped to explicit adapters refuses a recognised request of a
``Client`` instance outside them (the shared path,
:func:`agentsnap.capture.exchange.open_exchange`, as for every transport).

The request is taken from ``args[0]`` or ``kwargs["request"]``: ``httpx.Client.stream()``
calls ``send(request=...)`` by keyword.
"""

from __future__ import annotations

import datetime
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ...spec.provider_specs import ProviderSpec
from ...storage import wire
from ...storage.scrub import scrub_chunks
from .. import active, faithful, ownership
from ..active import RecordingState as Recording
from ..exchange import open_exchange, sending
from ..faithful import FRAMING
from ..serving import take_recorded
from ..sinks import ChunkSink, body_sink, is_stream, kept_headers, record_read_body
from ..streams import read_served, replay_stream_class, tee_stream_class
from ..wrapping import one_of, wrap_once

__all__ = ["NAME", "async_send_wrapper", "patch", "send_wrapper"]

#: the name this transport is registered under (and owns its requests by)
NAME = "httpx"

_b64_chunk = wire.bytes_chunk
_chunk_bytes = wire.chunk_bytes


def _kept_headers(response: Any, spec: ProviderSpec, *, streamed: bool) -> dict[str, str]:
    return kept_headers(response.headers.multi_items(), spec, streamed=streamed)


def _module_of(request: object) -> ModuleType:
    """The httpx-like module (``httpx`` or ``httpx2``) the request belongs to."""
    return sys.modules[type(request).__module__.split(".", 1)[0]]


# --------------------------------------------------------------------------
# the wrappers


def _replayed_response(
    recording: Recording, exchange: wire.Exchange, request: object, *, is_async: bool, read: bool
) -> Any:
    stored = take_recorded(recording, exchange)
    module = _module_of(request)
    if "error" in stored:  # a transport error was recorded: raise the same class
        err = stored["error"]
        exc_cls = getattr(module, str(err.get("type")), None) or module.TransportError
        raise exc_cls(str(err.get("message", "")), request=request)
    status = int(stored["status"])
    stored_headers = stored.get("headers") or {}
    pairs = stored_headers.items() if isinstance(stored_headers, dict) else stored_headers
    triples = _served_triples(module, pairs)
    # recorded framing headers are served as they were (the body is the recorded bytes);
    # a snapshot from before they were stored gets httpx's own content-length
    lows = {triple[1] for triple in triples}
    framed = not _FRAMING.isdisjoint(lows)
    if status >= 400:
        # replay retries instantly: the SDKs (Stainless) honour retry-after-ms
        triples = [t for t in triples if t[1] != b"retry-after-ms"] + [_RETRY_AT_ONCE]
    if "chunks" in stored:
        chunks = [c.encode() if type(c) is str else _chunk_bytes(c) for c in stored["chunks"]]
        stream_cls = replay_stream_class(module, is_async)
        response = module.Response(
            status, headers=_headers_of(module, triples), stream=stream_cls(chunks), request=request
        )
    else:
        if b"content-encoding" in lows:
            triples = [t for t in triples if t[1] != b"content-encoding"]
        cassette = recording.cassette  # (a golden's proven steps: their texts served unparsed)
        proven = cassette is not None and cassette.texts_parse_to_bodies
        body, exact = faithful.replay_body(stored, proven=proven)
        if (
            framed and exact
        ):  # the recorded bytes and framing: a stream, so httpx adds no content-length
            stream = replay_stream_class(module, is_async)([body])
            response = module.Response(
                status, headers=_headers_of(module, triples), stream=stream, request=request
            )
            if read:  # as read() leaves it (the body is the recorded bytes, no decoding)
                read_served(response, body)
        else:
            if framed:
                triples = [t for t in triples if t[1] not in _FRAMING]
            response = module.Response(
                status, headers=_headers_of(module, triples), content=body, request=request
            )
    response.elapsed = _NO_TIME
    return response


_NO_TIME = datetime.timedelta(0)  # (immutable: one for every replayed response)
#: :data:`FRAMING`'s names as httpx's lower-case header names
_FRAMING = frozenset(name.encode("ascii") for name in FRAMING)
_RETRY_AT_ONCE = (b"retry-after-ms", b"retry-after-ms", b"1")

#: stored header (name, value) -> httpx's triple (name, its lower case, value: ASCII bytes), made
#: once for the pairs that repeat from response to response (content type, server, most of them);
#: the triples are tuples of bytes, which nothing changes: each response gets its own list
_known_triples: dict[tuple[str, str], tuple[bytes, bytes, bytes]] = {}
_KNOWN_TRIPLES = 4096


def _triples(pairs: Any) -> list[tuple[bytes, bytes, bytes]] | None:
    """The stored headers ``pairs`` as httpx's header triples, as ``module.Headers(pairs)`` builds
    them (each name and value ASCII-encoded, the name's lower case beside it), each pair made
    once (:data:`_known_triples`); None when a name or value is not ASCII text (left to
    ``module.Headers``, which picks an encoding for the whole list)."""
    known = _known_triples
    out = []
    for pair in pairs:
        triple = known.get(pair) if type(pair) is tuple else None
        if triple is None:
            try:
                name, value = pair
                raw = name.encode("ascii")
                triple = (raw, raw.lower(), value.encode("ascii"))
                key = (name, value)
            except (AttributeError, TypeError, ValueError):  # not text, or not ASCII
                return None
            if type(name) is str and type(value) is str:
                if len(known) >= _KNOWN_TRIPLES:
                    known.clear()
                known[key] = triple
        out.append(triple)
    return out


def _headers_of(module: ModuleType, triples: list[tuple[bytes, bytes, bytes]]) -> Any:
    """``module.Headers`` holding ``triples`` (its own ``_list``: the response copies it); a
    ``Headers`` without that list is built by the library from the text pairs."""
    headers = module.Headers()
    if type(getattr(headers, "_list", None)) is not list:
        return module.Headers([(raw.decode(), value.decode()) for raw, _, value in triples])
    headers._list = triples
    return headers


def _served_triples(module: ModuleType, pairs: Any) -> list[tuple[bytes, bytes, bytes]]:
    """The stored headers ``pairs`` as ``module.Headers(pairs)`` holds them: :func:`_triples`, or
    for a name or value that is not ASCII text (a hand-edited golden) the library's own (it picks
    one encoding for the whole list, and raises what it raises for a pair it cannot take)."""
    triples = _triples(pairs)
    if triples is not None:
        return triples
    built = module.Headers(list(pairs))
    triples = getattr(built, "_list", None)
    if type(triples) is list:
        return list(triples)
    return [(name, name.lower(), value) for name, value in built.raw]


def _read_whole(response: Any) -> bool:
    """Whether a response the SDK asked to stream (``send(stream=True)``) is stored as one body.

    The ``stream=`` flag says how the SDK reads, not what the server sent: anthropic 2.x
    sends every request with ``stream=True`` and reads the body itself. A response that
    is one JSON document (``application/json``, not a stream type or a ``:stream…``
    path, :func:`~agentsnap.capture.sinks.is_stream`) is stored parsed, as a read body;
    server-sent events, JSON lines and unknown types keep their chunks.
    """
    ctype = response.headers.get("content-type") or ""
    return "json" in ctype.lower() and not is_stream(ctype, response.request.url.path)


def _record_response(
    recording: Recording,
    exchange: wire.Exchange,
    response: Any,
    spec: ProviderSpec,
    *,
    stream: bool,
    is_async: bool,
) -> None:
    meta: dict[str, Any] = {"status": response.status_code}
    read = getattr(response, "_content", None) is not None  # read inside send already
    whole = not stream or _read_whole(response)
    if stream and not read:  # the SDK reads it later: a tee stores what it reads
        pairs = response.headers.multi_items()
        sink: Any
        if whole:  # one JSON document read through the stream: stored as a read body
            sink = body_sink(recording, exchange, spec, response.status_code, pairs, decoded=False)
        else:
            encoding = response.headers.get("content-encoding", "").strip().lower()

            def stream_meta() -> dict[str, Any]:  # built with the stored chunks (on first read)
                return {**meta, "headers": kept_headers(pairs, spec, streamed=True)}

            sink = ChunkSink(
                exchange, stream_meta, "" if encoding == "identity" else encoding, recording.trace
            )
        module = _module_of(response.request)
        response.stream = tee_stream_class(module, is_async)(response.stream, sink)
        return
    if not whole:
        # a stream whose body was already read inside send (a custom transport, an
        # event hook): the SDK will read the cached content, which no tee would see
        meta["headers"] = _kept_headers(response, spec, streamed=False)
        try:
            meta["chunks"] = (
                scrub_chunks([response.content.decode("utf-8")]) if response.content else []
            )
        except UnicodeDecodeError:
            meta["chunks"] = [_b64_chunk(response.content)]
        exchange.response = meta
        exchange.ended = time.monotonic()
        return
    record_read_body(
        exchange,
        spec,
        response.status_code,
        response.headers.multi_items(),
        response.content,
        response.headers.get("content-type"),
        recording.trace.response_repeats,
    )


def _start(
    instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Recording, Any, bool, ProviderSpec, wire.Exchange] | None:
    """``(recording, request, stream, spec, exchange)`` for a request to capture or serve,
    or None (no active recording, or a request no spec recognises: send it untouched)."""
    recording = active.current()
    if recording is None or ownership.owner() is not None:  # another layer's request (MCP's)
        return None
    request = kwargs["request"] if "request" in kwargs else args[0]
    started = open_exchange(recording, request, instance)
    if started is None:
        return None
    spec, exchange = started
    return recording, request, bool(kwargs.get("stream", False)), spec, exchange


def send_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """wrapt wrapper for ``httpx.Client.send`` / ``httpx2.Client.send``."""
    if active.current() is None:  # installed but off: one look, nothing else (bench row 2)
        return wrapped(*args, **kwargs)
    started = _start(instance, args, kwargs)
    if started is None:
        return wrapped(*args, **kwargs)
    recording, request, stream, spec, exchange = started
    if recording.mode == "replay":
        response = _replayed_response(recording, exchange, request, is_async=False, read=not stream)
        if not stream:
            response.read()
        return response
    with sending(exchange, NAME):
        response = wrapped(*args, **kwargs)
    _record_response(recording, exchange, response, spec, stream=stream, is_async=False)
    return response


async def async_send_wrapper(
    wrapped: Callable[..., Any], instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """wrapt wrapper for ``httpx.AsyncClient.send`` / ``httpx2.AsyncClient.send``."""
    if active.current() is None:  # installed but off
        return await wrapped(*args, **kwargs)
    started = _start(instance, args, kwargs)
    if started is None:
        return await wrapped(*args, **kwargs)
    recording, request, stream, spec, exchange = started
    if recording.mode == "replay":
        response = _replayed_response(recording, exchange, request, is_async=True, read=not stream)
        if not stream:
            await response.aread()
        return response
    with sending(exchange, NAME):
        response = await wrapped(*args, **kwargs)
    _record_response(recording, exchange, response, spec, stream=stream, is_async=True)
    return response


def patch(module: ModuleType) -> None:
    """Wrap ``module.Client.send`` / ``module.AsyncClient.send`` (``module``: ``httpx`` or
    ``httpx2``), once: installing twice, or ``httpx2.alias_httpx()`` making both names one
    module, never stacks two agentsnap layers."""
    ours = one_of(send_wrapper, async_send_wrapper)
    for cls_name, wrapper in (("Client", send_wrapper), ("AsyncClient", async_send_wrapper)):
        cls = getattr(module, cls_name, None)
        if cls is not None:
            wrap_once(cls, "send", wrapper, ours)
