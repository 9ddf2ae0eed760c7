"""What a recorded call's path does, cut shorter (issue 30, rows 1 and 9), gives the same answers.

* a request ``recognise`` read before is counted by the never-silent observer as a full read
  counts it (method and path, one request each), and another path is counted as its own;
* the request's content type read from httpx's header triples is what ``headers.get`` answers
  (several values joined, a value that is not ASCII, none at all, a ``WireRequest``);
* ``sending`` (a class now) stores an exception as the exchange's response and resets the
  owner, as the two generator context managers it replaces did;
* the tee appends a stream's chunks to the sink's buffer: chunks split at odd byte boundaries
  (inside a UTF-8 character, one byte at a time) are stored exactly as ``add`` stores them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.capture import exchange as exchange_module
from agentsnap.capture import ownership
from agentsnap.capture.recording import Recording
from agentsnap.capture.request import WireRequest, content_type
from agentsnap.capture.sinks import ChunkSink, body_sink
from agentsnap.capture.streams import atee, tee
from agentsnap.capture.trace import Trace
from agentsnap.storage import wire

_CHAT = "https://api.openai.com/v1/chat/completions"
_UA = "OpenAI/Python 3.63.0"


def _request(url: str = _CHAT, key: str = "sk-path-test-0001", **extra: str) -> httpx.Request:
    headers = {"User-Agent": _UA, "Authorization": f"Bearer {key}", **extra}
    return httpx.Request("POST", url, headers=headers, content=b'{"model":"m"}')


def _observed(requests: list[httpx.Request], *, forget_each: bool) -> tuple[Any, ...]:
    recording = Recording("capture")
    for request in requests:
        if forget_each:  # every request read in full (the path before a request was kept)
            exchange_module._read_before.clear()
        assert exchange_module.recognise(request, recording) is not None
    state = recording._observed
    assert state is not None
    return state["requests"], dict(state["hooked"]), dict(state["notes"])


def test_a_request_read_before_is_counted_as_a_full_read_counts_it(fresh_scrub: None) -> None:
    responses = "https://api.openai.com/v1/responses"
    elsewhere = "https://openrouter.ai/api/v1/chat/completions"  # another base URL
    requests = [_request(), _request(), _request(responses), _request(), _request(responses)]
    requests += [_request(elsewhere), _request(elsewhere), _request()]
    exchange_module._read_before.clear()
    kept = _observed(requests, forget_each=False)
    assert kept == _observed(requests, forget_each=True)
    assert kept[0] == 8
    assert kept[1] == {
        ("POST", "/v1/chat/completions"): 4,
        ("POST", "/v1/responses"): 2,
        ("POST", "/api/v1/chat/completions"): 2,
    }


def test_a_changed_key_on_a_kept_request_is_still_masked_in_what_is_stored(
    fresh_scrub: None,
) -> None:
    from agentsnap.capture.exchange import begin

    recording = Recording("capture")
    keys = ["sk-path-first-key-0001", "sk-path-second-key-0002"]
    for key in keys:
        request = _request(key=key)
        spec = exchange_module.recognise(request, recording)
        assert spec is not None
        begin(recording, request, spec)
    stored = [e.request for e in recording.trace.exchanges]
    assert stored[0] == stored[1] and "sk-path" not in repr(stored)
    from agentsnap.storage import scrub

    for key in keys:
        assert key not in scrub.scrub_text(f"said {key}")


@pytest.mark.parametrize(
    "headers",
    [
        [("Content-Type", "application/json")],
        [("content-type", "text/plain"), ("X-Other", "a"), ("Content-Type", "charset=x")],
        [("X-Other", "b")],
        [("Content-Type", b"text/\xe9t\xe9"), ("X-Other", "c")],
        [("Content-Type", "application/json"), ("X-Other", b"caf\xc3\xa9")],
        [],
    ],
)
def test_the_content_type_read_from_the_triples_is_what_headers_get_answers(
    headers: list[tuple[str, Any]],
) -> None:
    request = httpx.Request("POST", _CHAT, headers=headers, content=b"{}")
    expected = httpx.Request("POST", _CHAT, headers=headers, content=b"{}").headers
    assert content_type(request.headers) == (expected.get("content-type") or "")
    wired = WireRequest("POST", _CHAT, request.headers.raw, b"{}")
    assert content_type(wired.headers) == (wired.headers.get("content-type") or "")


def test_sending_stores_an_error_and_resets_the_owner() -> None:
    from agentsnap.capture.exchange import sending

    exchange = wire.Exchange(provider="openai", codec=None, request={})
    assert ownership.owner() is None
    with pytest.raises(ConnectionError), sending(exchange, "httpx"):
        assert ownership.owner() == "httpx"
        raise ConnectionError("refused: sk-path-error-0003")
    assert ownership.owner() is None
    assert exchange.response is not None
    assert exchange.response["error"]["type"] == "ConnectionError"
    assert exchange.ended is not None
    other = wire.Exchange(provider="openai", codec=None, request={})
    with pytest.raises(KeyboardInterrupt), sending(other, "httpx"):
        raise KeyboardInterrupt
    assert ownership.owner() is None and other.response is None  # not an Exception: not stored
    with sending(other, "httpx"):
        pass
    assert ownership.owner() is None and other.response is None


_STREAM = (
    "".join(f'data: {{"id":"c{i}","delta":"Ça va ✓ 🌍 {i}"}}\n\n' for i in range(4)).encode()
    + b"data: [DONE]\n\n"
)


def _splits() -> Iterator[list[bytes]]:
    yield [_STREAM]
    yield [_STREAM[i : i + 1] for i in range(len(_STREAM))]  # a byte at a time
    for size in (2, 3, 5, 7, 13):
        yield [_STREAM[i : i + size] for i in range(0, len(_STREAM), size)]
    at = _STREAM.index("🌍".encode()) + 1  # inside a four-byte character
    yield [_STREAM[:at], b"", _STREAM[at:]]


class _AddOnly:
    """A sink seen only through ``add`` (the path before the tee appended to the buffer)."""

    def __init__(self, sink: Any) -> None:
        self._sink = sink

    def add(self, chunk: bytes) -> None:
        self._sink.add(chunk)

    def finish(self, *, complete: bool) -> None:
        self._sink.finish(complete=complete)


def _stored(chunks: list[bytes], *, through_add: bool, encoding: str = "") -> dict[str, Any]:
    trace = Trace()
    exchange = wire.Exchange(provider="openai", codec=None, request={})
    sink = ChunkSink(exchange, {"status": 200, "headers": {}}, encoding, trace)
    fed = _AddOnly(sink) if through_add else sink
    assert list(tee(iter([bytearray(c) for c in chunks]), fed)) == chunks
    assert exchange.complete
    assert exchange.response is not None
    return exchange.response


@pytest.mark.parametrize("chunks", list(_splits()), ids=lambda c: f"{len(c)}-pieces")
def test_a_stream_split_at_odd_boundaries_is_stored_as_add_stores_it(chunks: list[bytes]) -> None:
    assert b"".join(chunks) == _STREAM
    stored = _stored(chunks, through_add=False)
    assert stored == _stored(chunks, through_add=True)
    assert "".join(c for c in stored["chunks"] if isinstance(c, str)) == _STREAM.decode()


def test_a_compressed_stream_through_the_tee_is_stored_as_add_stores_it() -> None:
    import gzip

    packed = gzip.compress(_STREAM)
    pieces = [packed[i : i + 9] for i in range(0, len(packed), 9)]
    assert _stored(pieces, through_add=False, encoding="gzip") == _stored(
        pieces, through_add=True, encoding="gzip"
    )


def test_a_stream_left_early_and_a_read_body_through_the_tee() -> None:
    trace = Trace()
    exchange = wire.Exchange(provider="openai", codec=None, request={})
    sink = ChunkSink(exchange, {"status": 200, "headers": {}}, "", trace)
    reader = tee(iter([b"data: 1\n\n", b"data: 2\n\n"]), sink)
    assert next(reader) == b"data: 1\n\n"
    reader.close()  # the reader stopped: stored incomplete, what it read kept
    assert exchange.complete is False
    assert exchange.response is not None and exchange.response["chunks"] == ["data: 1\n\n"]
    recording = Recording("capture")
    whole = wire.Exchange(provider="openai", codec=None, request={})
    from agentsnap.spec.provider_specs import load_specs

    spec = next(s for s in load_specs() if s.name == "openai")
    read = body_sink(
        recording, whole, spec, 200, [("content-type", "application/json")], decoded=True
    )
    body = b'{"answer": "\xc3\xa9t\xc3\xa9", "n": 1}'
    assert b"".join(tee(iter([body[:13], memoryview(body[13:])]), read)) == body
    assert whole.response is not None and whole.response["body"] == {"answer": "été", "n": 1}


async def _async_chunks(chunks: list[bytes]) -> Any:
    for chunk in chunks:
        yield chunk


def test_the_async_tee_stores_as_the_sync_one() -> None:
    import asyncio

    chunks = [_STREAM[i : i + 5] for i in range(0, len(_STREAM), 5)]
    trace = Trace()
    exchange = wire.Exchange(provider="openai", codec=None, request={})
    sink = ChunkSink(exchange, {"status": 200, "headers": {}}, "", trace)

    async def read() -> list[bytes]:
        return [c async for c in atee(_async_chunks(chunks), sink)]

    assert asyncio.run(read()) == chunks
    assert exchange.response == _stored(chunks, through_add=True)


# --------------------------------------------------------------------------- the chunked-coding tee


def _buffered() -> Any:
    """The decoder with its quick path off: every piece through the buffer, as before it."""
    from agentsnap.capture.transports._wire import Dechunker

    class Buffered(Dechunker):
        def _quick(self, data: bytes) -> bytes | None:
            return None

    return Buffered()


def _chunked(payloads: list[bytes], extension: bool, trailer: bool, junk: bytes) -> bytes:
    wire_bytes = b"".join(
        b"%x%s\r\n%s\r\n" % (len(p), b";x=1" if extension else b"", p) for p in payloads if p
    )
    return wire_bytes + b"0\r\n" + (b"Trailer-A: 1\r\n" if trailer else b"") + b"\r\n" + junk


def _as_read(wire_bytes: bytes) -> list[bytes]:
    """The pieces http.client's chunked reader asks for: a size line, the data, its CRLF."""
    pieces, at = [], 0
    while at < len(wire_bytes):
        end = wire_bytes.find(b"\n", at)
        if end < 0:
            pieces.append(wire_bytes[at:])
            break
        line = wire_bytes[at : end + 1]
        pieces.append(line)
        at = end + 1
        try:
            size = int(line.strip().split(b";", 1)[0] or b"0", 16)
        except ValueError:
            continue
        if size:
            pieces += [wire_bytes[at : at + size], wire_bytes[at + size : at + size + 2]]
            at += size + 2
    return pieces


def _fed(decoder: Any, pieces: list[bytes]) -> list[tuple[bytes, bool, str, int]]:
    return [(decoder.feed(p), decoder.done, decoder._state, decoder._remaining) for p in pieces]


#: a chunked body (payloads, extensions, trailers, junk after it, a garbled middle) read in
#: pieces cut at ``cuts`` (as ``http.client`` reads, or at every ``step``)
_CHUNKED_READS = {
    "payloads": st.lists(st.binary(max_size=40), max_size=6),
    "extension": st.booleans(),
    "trailer": st.booleans(),
    "junk": st.sampled_from([b"", b"zz\r\n", b"\r\n"]),
    "cuts": st.lists(st.integers(min_value=0, max_value=400), max_size=12),
    "as_read": st.booleans(),
    "step": st.integers(min_value=0, max_value=7),
    "garble": st.sampled_from([None, b"zz\r\n", b"\n", b"5\r\nab", b"", b"\r\n\r\n"]),
}


@settings(max_examples=600, deadline=None)
@given(**_CHUNKED_READS)
def test_property_the_quick_dechunker_answers_as_the_buffered_one(
    payloads: list[bytes],
    extension: bool,
    trailer: bool,
    junk: bytes,
    cuts: list[int],
    as_read: bool,
    step: int,
    garble: bytes | None,
) -> None:
    from agentsnap.capture.transports._wire import Dechunker

    wire_bytes = _framed(payloads, extension, trailer, junk, garble)
    pieces = _pieces(wire_bytes, as_read, step, cuts)
    assert _fed(Dechunker(), pieces) == _fed(_buffered(), pieces)


def _pieces(wire_bytes: bytes, as_read: bool, step: int, cuts: list[int]) -> list[bytes]:
    if as_read:
        return _as_read(wire_bytes)
    if step:  # every `step` bytes
        return [wire_bytes[i : i + step] for i in range(0, len(wire_bytes), step)]
    bounds = sorted({0, len(wire_bytes), *(c for c in cuts if c <= len(wire_bytes))})
    pieces = [wire_bytes[a:b] for a, b in itertools.pairwise(bounds)]
    pieces.insert(len(pieces) // 2, b"")
    return pieces


def _framed(
    payloads: list[bytes], extension: bool, trailer: bool, junk: bytes, garble: bytes | None
) -> bytes:
    wire_bytes = _chunked(payloads, extension, trailer, junk)
    if garble is not None:  # not chunked framing, or framing cut short
        at = len(wire_bytes) // 2
        wire_bytes = wire_bytes[:at] + garble + wire_bytes[at:]
    return wire_bytes


@settings(max_examples=600, deadline=None)
@given(**_CHUNKED_READS, split=st.integers(min_value=0, max_value=40))
def test_property_feed_all_answers_as_feeding_piece_by_piece(
    payloads: list[bytes],
    extension: bool,
    trailer: bool,
    junk: bytes,
    cuts: list[int],
    as_read: bool,
    step: int,
    garble: bytes | None,
    split: int,
) -> None:
    """``Dechunker.feed_all`` (the tee's bulk decode) gives each piece what ``feed`` gives it
    (an empty piece unfed), up to the piece that ends the body, and leaves the same state;
    also when the pieces come in two batches (a settle mid-body)."""
    from agentsnap.capture.transports._wire import Dechunker

    pieces = _pieces(_framed(payloads, extension, trailer, junk, garble), as_read, step, cuts)
    one = Dechunker()
    expected = []
    for piece in pieces:
        if one.done:
            break
        expected.append(one.feed(piece) if piece else b"")
    bulk = Dechunker()
    split = min(split, len(pieces))
    got = bulk.feed_all(pieces[:split])
    got += bulk.feed_all(pieces[len(got) :]) if not bulk.done else []
    assert got == expected
    assert (bulk.done, bulk._state, bulk._remaining, bulk._buf) == (
        one.done,
        one._state,
        one._remaining,
        one._buf,
    )


class _PieceTee:
    """The tee as it was before the bulk decode: each read decoded and handed on at once (the
    reference the bulk tee is held to)."""

    def __init__(self, inner: Any, chunked: bool, length: int | None, log: list[Any]) -> None:
        from agentsnap.capture.transports._wire import Dechunker

        self._inner, self._left, self._log = inner, length, log
        self._dechunker = Dechunker() if chunked else None
        self._ended = False

    def _seen(self, data: bytes) -> bytes:
        if self._ended:
            return data
        if data:
            payload = self._dechunker.feed(data) if self._dechunker is not None else data
            if payload:
                self._log.append(payload)
            if self._left is not None and self._dechunker is None:
                self._left -= len(data)
        complete = (
            self._dechunker.done
            if self._dechunker is not None
            else (self._left is not None and self._left <= 0) or (not data and self._left is None)
        )
        if complete:
            self._end(True)
        return data

    def _end(self, complete: bool) -> None:
        if not self._ended:
            self._ended = True
            self._log.append(("end", complete))

    def read(self, n: int = -1) -> bytes:
        data = self._seen(self._inner.read(n))
        if n < 0:
            self._end(True)
        return data

    def read1(self, n: int = -1) -> bytes:
        return self._seen(self._inner.read1(n))

    def readline(self, limit: int = -1) -> bytes:
        return self._seen(self._inner.readline(limit))

    def readinto(self, buffer: Any) -> int:
        n = self._inner.readinto(buffer)
        self._seen(bytes(memoryview(buffer)[:n]))
        return int(n)

    def close(self) -> None:
        self._end(False)


_READS = st.lists(
    st.tuples(
        st.sampled_from(["read", "read1", "readline", "readinto"]),
        st.integers(min_value=-1, max_value=30),
    ),
    max_size=40,
)


@settings(max_examples=500, deadline=None)
@given(
    payloads=st.lists(st.binary(max_size=40), max_size=6),
    extension=st.booleans(),
    trailer=st.booleans(),
    junk=st.sampled_from([b"", b"zz\r\n", b"\r\n"]),
    garble=st.sampled_from([None, b"zz\r\n", b"5\r\nab", b"\r\n\r\n"]),
    framing=st.sampled_from(["chunked", "length", "short", "close"]),
    reads=_READS,
    closed=st.booleans(),
)
def test_property_the_bulk_tee_hands_on_what_the_piece_by_piece_tee_did(
    payloads: list[bytes],
    extension: bool,
    trailer: bool,
    junk: bytes,
    garble: bytes | None,
    framing: str,
    reads: list[tuple[str, int]],
    closed: bool,
) -> None:
    """Odd reads of a chunked, sized, short or close-delimited body through ``TeeFile``: the
    same answers to the reader, the same pieces handed on (chunk boundaries) and the same end
    (complete or not) as decoding each read at once, at the same read for a body not chunked;
    whether the file is closed or the sink is finished first (``drain``, the recording
    stopped)."""
    import io

    from agentsnap.capture.transports._wire import TeeFile

    chunked = framing == "chunked"
    body = (
        _framed(payloads, extension, trailer, junk, garble)
        if chunked
        else b"".join(payloads) + junk
    )
    length = {"length": len(body), "short": len(body) + 5}.get(framing)
    logs: list[list[Any]] = [[], []]
    answers: list[list[Any]] = [[], []]
    new = TeeFile(
        io.BufferedReader(io.BytesIO(body), buffer_size=16),
        chunked=chunked,
        length=length,
        on_data=logs[0].append,
        on_close=lambda complete: logs[0].append(("end", complete)),
    )
    old = _PieceTee(io.BufferedReader(io.BytesIO(body), buffer_size=16), chunked, length, logs[1])
    for reader, said, log in ((new, answers[0], logs[0]), (old, answers[1], logs[1])):
        for at, (how, n) in enumerate(reads):
            if how == "readinto":
                buffer = bytearray(max(n, 0))
                said.append(bytes(buffer[: reader.readinto(buffer)]))
            elif how == "read":
                said.append(reader.read(n))
            else:
                said.append(getattr(reader, how)(n))
            if not chunked:  # handed on at each read, the end found at the same read
                log.append(("after read", at))
        if closed:
            reader.close()
        else:  # the sink finished first: its drain, then its own end
            if reader is new:
                new.settle()
            reader._end(False)
    assert answers[0] == answers[1]
    assert logs[0] == logs[1]


def test_a_begun_lazy_exchange_is_the_one_its_dataclass_init_makes() -> None:
    """``LazyExchange.begun`` sets the attributes the dataclass's ``__init__`` sets (a field
    added to ``wire.Exchange`` must be added there too), in the same order, to the same values
    but the exchange's own sequence number and start time."""
    from agentsnap.capture.sinks import LazyExchange

    def make() -> dict[str, Any]:
        return {"method": "POST", "path": "/v1/chat/completions"}

    made = LazyExchange(provider="openai", codec="openai-chat", request={})
    made.__dict__["_make_request"] = make
    begun = LazyExchange.begun("openai", "openai-chat", make)
    assert list(begun.__dict__) == list(made.__dict__)
    mine = {k: v for k, v in begun.__dict__.items() if k not in ("seq", "started")}
    assert mine == {k: v for k, v in made.__dict__.items() if k not in ("seq", "started")}
    assert begun.seq > made.seq and begun.started >= made.started
    assert begun.request == make() and begun.response is None and begun.complete
    assert begun == LazyExchange(
        provider="openai", codec="openai-chat", request=make(), seq=begun.seq, started=begun.started
    )
