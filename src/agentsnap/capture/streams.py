"""Response bodies as streams: the tee that stores what the SDK reads, and the
stream that serves recorded chunks.

* :func:`tee` / :func:`atee`: pass a body's chunks on unchanged while adding
  each to a body sink (:func:`agentsnap.capture.sinks.body_sink`); the sink
  is finished once, complete when the body was read to its end, incomplete
  when the reader stopped early (closed, broke off, an error);
* :func:`tee_stream_class` / :func:`replay_stream_class`: the same as a
  genuine ``SyncByteStream`` / ``AsyncByteStream`` of ``httpx`` or ``httpx2``
  (:mod:`agentsnap.capture.transports.httpx` puts them on the responses it records or serves);
  any other transport uses :func:`tee` / :func:`atee` on its own body iterator.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from types import ModuleType
from typing import Any, Protocol

__all__ = [
    "BodySink",
    "atee",
    "read_served",
    "replay_stream_class",
    "served",
    "tee",
    "tee_stream_class",
]


class BodySink(Protocol):
    """Where a body's chunks are stored (:func:`agentsnap.capture.sinks.body_sink`)."""

    def add(self, chunk: bytes) -> None: ...

    def finish(self, *, complete: bool) -> None: ...


def tee(chunks: Iterable[bytes], sink: BodySink) -> Iterator[bytes]:
    """``chunks`` unchanged, each also added to ``sink``; ``sink`` finished once (see module doc).

    A sink with a ``pieces`` list (:mod:`agentsnap.capture.sinks`' own, whose ``add`` appends
    there) has each chunk appended to it here, as bytes: one buffer a response and no
    method call a chunk; the chunks' boundaries are kept as ``add`` keeps them."""
    complete = False
    pieces = getattr(sink, "pieces", None)
    try:
        if type(pieces) is list:
            keep = pieces.append
            for chunk in chunks:
                keep(chunk if type(chunk) is bytes else bytes(chunk))
                yield chunk
        else:
            for chunk in chunks:
                sink.add(chunk)
                yield chunk
        complete = True
    finally:
        sink.finish(complete=complete)


async def atee(chunks: AsyncIterable[bytes], sink: BodySink) -> AsyncIterator[bytes]:
    """:func:`tee` for an async body."""
    complete = False
    pieces = getattr(sink, "pieces", None)
    try:
        if type(pieces) is list:
            keep = pieces.append
            async for chunk in chunks:
                keep(chunk if type(chunk) is bytes else bytes(chunk))
                yield chunk
        else:
            async for chunk in chunks:
                sink.add(chunk)
                yield chunk
        complete = True
    finally:
        sink.finish(complete=complete)


async def served(chunks: list[bytes]) -> AsyncIterator[bytes]:
    """Recorded chunks as an async body."""
    for chunk in chunks:
        yield chunk


def read_served(response: Any, body: bytes) -> None:
    """Leave a replayed ``httpx`` / ``httpx2`` ``Response`` over a replay stream of ``[body]``
    as ``read()`` / ``aread()`` leaves it, without iterating the stream through the library's
    decoder and chunkers: ``content`` is ``body`` (the recorded bytes, served with no
    ``content-encoding``), the stream consumed and closed, ``num_bytes_downloaded`` its length.
    """
    response._content = body
    response.is_stream_consumed = True
    response._num_bytes_downloaded = len(body)
    response.is_closed = True  # the replay stream's close does nothing


_classes: dict[tuple[str, str, bool], type] = {}
_classes_lock = threading.Lock()


def _made_once(module: ModuleType, kind: str, is_async: bool, make: Callable[[type], type]) -> type:
    """``make(base)`` for ``module``'s ``AsyncByteStream`` / ``SyncByteStream``, made once."""
    key = (module.__name__, kind, is_async)
    cls = _classes.get(key)
    if cls is None:
        with _classes_lock:
            cls = _classes.get(key)
            if cls is None:
                base = module.AsyncByteStream if is_async else module.SyncByteStream
                cls = _classes[key] = make(base)
    return cls


def tee_stream_class(module: ModuleType, is_async: bool) -> type:
    """A ``module.SyncByteStream`` (``AsyncByteStream`` when ``is_async``) subclass built
    as ``cls(inner_stream, sink)``: :func:`tee` over ``inner_stream``; closing it
    finishes the sink (incomplete, if not read to its end) and closes the inner stream.
    ``module``: ``httpx`` or ``httpx2``. One class per module, made once."""
    return _made_once(module, "tee", is_async, _async_tee if is_async else _sync_tee)


def replay_stream_class(module: ModuleType, is_async: bool) -> type:
    """A ``module.SyncByteStream`` (``AsyncByteStream``) subclass built as ``cls(chunks)``
    (``list[bytes]``) that serves the recorded chunks. One class per module, made once."""
    return _made_once(module, "replay", is_async, _async_replay if is_async else _sync_replay)


def _sync_tee(base: type) -> type:
    class SyncTee(base):  # type: ignore[misc]
        def __init__(self, inner: Iterable[bytes], sink: BodySink) -> None:
            self._inner = inner
            self._sink = sink

        def __iter__(self) -> Iterator[bytes]:
            return tee(self._inner, self._sink)

        def close(self) -> None:
            self._sink.finish(complete=False)
            self._inner.close()  # type: ignore[attr-defined]

    return SyncTee


def _async_tee(base: type) -> type:
    class AsyncTee(base):  # type: ignore[misc]
        def __init__(self, inner: AsyncIterable[bytes], sink: BodySink) -> None:
            self._inner = inner
            self._sink = sink

        def __aiter__(self) -> AsyncIterator[bytes]:
            return atee(self._inner, self._sink)

        async def aclose(self) -> None:
            self._sink.finish(complete=False)
            await self._inner.aclose()  # type: ignore[attr-defined]

    return AsyncTee


def _sync_replay(base: type) -> type:
    class SyncReplayStream(base):  # type: ignore[misc]
        def __init__(self, chunks: list[bytes]) -> None:
            self._chunks = chunks

        def __iter__(self) -> Iterator[bytes]:
            return iter(self._chunks)

    return SyncReplayStream


def _async_replay(base: type) -> type:
    class AsyncReplayStream(base):  # type: ignore[misc]
        def __init__(self, chunks: list[bytes]) -> None:
            self._chunks = chunks

        def __aiter__(self) -> AsyncIterator[bytes]:
            return served(self._chunks)

    return AsyncReplayStream
