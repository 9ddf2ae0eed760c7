"""Fuzz targets: the snapshot loader and the stream reassembler.

Each target takes arbitrary bytes and either returns normally or raises an
exception that is a bug. Used by the coverage-guided driver
(``tests/fuzz/run.py``, atheris) and by the regression tests
(``tests/fuzz/test_fuzz_regressions.py``), which replay every kept crashing
input and seed.

* :func:`snapshot_loader` — the bytes are a snapshot file. Loading must either
  fail with :class:`~agentsnap.SnapshotFormatError` or give a snapshot that
  everything downstream can use: the replay cassette and its keys, the
  volatile-field comparison, and a re-save (whose bytes load back equal).
* :func:`stream_reassembly` — the bytes choose a stream codec and chunk
  boundaries, the rest is the wire stream. Recording it (the chunk sink) must
  store exactly the bytes that were read, and the codec must give the same
  view for the chunked stream as for the whole, without raising.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from agentsnap.capture.cassette import Cassette, request_key
from agentsnap.capture.sinks import ChunkSink
from agentsnap.capture.trace import Exchange, _readable
from agentsnap.exceptions import SnapshotFormatError
from agentsnap.providers import get_codec
from agentsnap.storage import wire
from agentsnap.storage.scrub import scrub_chunks, scrub_text
from agentsnap.storage.serialize import prepare
from agentsnap.storage.snapshot import dumps
from agentsnap.storage.store import SnapshotStore
from agentsnap.storage.volatile import same_content

__all__ = ["STREAM_CODECS", "TARGETS", "snapshot_loader", "stream_reassembly"]

_SCRATCH: Path | None = None


def _scratch() -> Path:
    """A folder for the loader's file, made once a process and removed when it exits (every
    test run used to leave one behind in the temp folder)."""
    global _SCRATCH
    if _SCRATCH is None:
        _SCRATCH = Path(tempfile.mkdtemp(prefix="agentsnap-fuzz-"))
        atexit.register(shutil.rmtree, _SCRATCH, ignore_errors=True)
    return _SCRATCH


def snapshot_loader(data: bytes) -> None:
    path = _scratch() / "fuzz-00000000.json"
    path.write_bytes(data)
    for expected in (None, "fuzz"):
        try:
            snap = SnapshotStore.read_file(path, expected_name=expected)
        except SnapshotFormatError as exc:
            assert "\n" not in str(exc) and str(path) in str(exc), (
                f"not a one-line error naming the path: {exc}"
            )
            continue
        _use(snap)


def _use(snap: Any) -> None:
    data = snap.to_dict()
    assert same_content(data, data)
    snap.llm_calls, snap.tool_calls  # noqa: B018 - properties must not fail
    cassette = Cassette(snap.trace, name=snap.name)
    for step in snap.trace:
        exchange = step.get("exchange")
        if (
            isinstance(exchange, dict)
            and isinstance(exchange.get("request"), dict)
            and isinstance(exchange.get("response"), dict)
        ):
            request_key(exchange["request"])
            cassette.remaining(exchange["request"])
    stored = prepare(data)
    text = dumps(stored)
    again = json.loads(text)
    assert again == json.loads(dumps(prepare(again))), "a re-save does not load back equal"


#: (codec, request) for the stream target: the first input byte picks one
STREAM_CODECS: tuple[tuple[str, dict[str, Any]], ...] = (
    (
        "openai_chat",
        {
            "method": "POST",
            "path": "/v1/chat/completions",
            "body": {"model": "m", "messages": [], "stream": True},
        },
    ),
    (
        "openai_responses",
        {
            "method": "POST",
            "path": "/v1/responses",
            "body": {"model": "m", "input": "q", "stream": True},
        },
    ),
    (
        "anthropic_messages",
        {
            "method": "POST",
            "path": "/v1/messages",
            "body": {"model": "m", "max_tokens": 1, "messages": [], "stream": True},
        },
    ),
    (
        "gemini",
        {
            "method": "POST",
            "path": "/v1beta/models/m:streamGenerateContent",
            "query": "alt=sse",
            "body": {"contents": []},
        },
    ),
    (
        "cohere_chat",
        {
            "method": "POST",
            "path": "/v2/chat",
            "body": {"model": "m", "messages": [], "stream": True},
        },
    ),
    (
        "cohere_v1",
        {
            "method": "POST",
            "path": "/v1/chat",
            "body": {"model": "m", "message": "q", "stream": True},
        },
    ),
    (
        "mistral_chat",
        {
            "method": "POST",
            "path": "/v1/chat/completions",
            "body": {"model": "m", "messages": [], "stream": True},
        },
    ),
)


class _Trace:
    def __init__(self) -> None:
        self.finalizers: list[Any] = []


def _record(pieces: list[bytes], encoding: str = "") -> dict[str, Any]:
    ex = Exchange(provider="fuzz", codec=None, request={})
    sink = ChunkSink(
        ex, {"status": 200, "headers": {"content-type": "text/event-stream"}}, encoding, _Trace()
    )  # type: ignore[arg-type]
    for piece in pieces:
        sink.add(piece)
    sink.finish(complete=True)
    assert ex.response is not None
    return ex.response


def stream_reassembly(data: bytes) -> None:
    if len(data) < 2:
        return
    codec, request = STREAM_CODECS[data[0] % len(STREAM_CODECS)]
    n_cuts = data[1] % 9
    cut_bytes, raw = data[2 : 2 + n_cuts], data[2 + n_cuts :]
    points = sorted({(b * len(raw)) // 256 for b in cut_bytes} - {0})
    pieces = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=False) if b > a]
    whole = _record([raw] if raw else [])
    chunked = _record(pieces)
    served_whole = b"".join(wire.chunk_bytes(c) for c in whole["chunks"])
    served_chunked = b"".join(wire.chunk_bytes(c) for c in chunked["chunks"])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None:  # text is stored scrubbed; the split never matters
        expected = "".join(scrub_chunks([text])).encode("utf-8") if text else b""
        assert served_whole == expected, "the recorded stream is not what was read"
        assert served_chunked == expected, "the recorded stream depends on chunk boundaries"
    elif scrub_text(raw.decode("latin-1")) == raw.decode(
        "latin-1"
    ):  # bytes with nothing secret-shaped: kept exactly
        assert served_whole == raw and served_chunked == raw, (
            "the recorded bytes are not what was read"
        )
    normalize = get_codec(codec)
    view_whole = normalize(request, _readable(whole))
    view_chunked = normalize(request, _readable(chunked))
    if text is not None:
        assert view_whole == view_chunked, f"{codec}: the view depends on chunk boundaries"


TARGETS = {"loader": snapshot_loader, "sse": stream_reassembly}
