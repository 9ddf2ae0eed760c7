"""Bodies of every kind: compressed responses, streams cut anywhere, binary
uploads and tool data, non-ASCII text.

* A ``content-encoding`` response (gzip, deflate, zstd; br when a brotli
  package is installed) is stored decoded, the encoding header dropped, and
  replay serves it once-decoded — for plain and for streamed responses.
* Stream chunks are stored so that replay serves exactly the bytes the SDK
  read, whatever the boundaries (a character split across chunks, bytes that
  are not UTF-8, a stream cut inside a character).
* Binary request bodies are stored as ``{"$bytes_b64", "sha256"}`` (a side
  file above 1 MiB), with the multipart boundary made stable, so the same
  upload matches its recording; tool data of any Python type is stored
  explicitly and never breaks a save.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import decimal
import gzip
import hashlib
import json
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap import AgentAsserter, AgentRecorder, Snapshot, SnapshotStore
from agentsnap.capture.request import request_record
from agentsnap.capture.sinks import ChunkSink
from agentsnap.storage import wire
from agentsnap.storage.serialize import BLOB_THRESHOLD, to_json
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

UNICODE = "Grüße ✓ 日本 🚀"


# --------------------------------------------------------------------------- a compressing chat server


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-enc",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


def _events(pieces: list[str]) -> list[bytes]:
    out = []
    for piece in pieces:
        chunk = {
            "id": "chatcmpl-enc",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": "gpt-4o-mini",
            "choices": [
                {"index": 0, "delta": {"content": piece}, "logprobs": None, "finish_reason": None}
            ],
        }
        out.append(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
    out.append(b"data: [DONE]\n\n")
    return out


class _Encoder:
    """Incremental compressor for one content-encoding (flushing after each piece)."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        if encoding == "gzip":
            self._obj: Any = zlib.compressobj(wbits=16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._obj = zlib.compressobj()
        elif encoding == "zstd":
            import zstandard

            self._obj = zstandard.ZstdCompressor().compressobj()
        elif encoding == "br":
            import brotli  # type: ignore[import-not-found]

            self._obj = brotli.Compressor()

    def piece(self, data: bytes) -> bytes:
        if self.encoding in ("gzip", "deflate"):
            return self._obj.compress(data) + self._obj.flush(zlib.Z_SYNC_FLUSH)
        if self.encoding == "zstd":
            import zstandard

            return self._obj.compress(data) + self._obj.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)
        return self._obj.process(data) + self._obj.flush()

    def end(self) -> bytes:
        if self.encoding == "br":
            return self._obj.finish()
        return self._obj.flush()


class EncodingServer:
    """POST /v1/chat/completions answered with ``encoding``-compressed JSON or SSE."""

    def __init__(
        self,
        encoding: str,
        text: str = UNICODE,
        pieces: tuple[str, ...] = ("Grü", "ße ✓ ", "日本 🚀"),
    ) -> None:
        self.encoding, self.text, self.pieces = encoding, text, pieces
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                enc = _Encoder(outer.encoding)
                self.send_response(200)
                self.send_header("content-encoding", outer.encoding)
                self.send_header("x-request-id", "req_enc")
                if body.get("stream"):
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("transfer-encoding", "chunked")
                    self.end_headers()
                    for event in _events(list(outer.pieces)):
                        data = enc.piece(event)
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                        self.wfile.flush()
                    tail = enc.end()
                    if tail:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(tail), tail))
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    data = (
                        enc.piece(json.dumps(_completion(outer.text), ensure_ascii=False).encode())
                        + enc.end()
                    )
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server_factory() -> Iterator[Any]:
    servers: list[EncodingServer] = []

    def make(encoding: str, **kw: Any) -> EncodingServer:
        servers.append(EncodingServer(encoding, **kw))
        return servers[-1]

    yield make
    for s in servers:
        with contextlib.suppress(OSError):
            s.stop()


def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


# httpx2 (openai) decodes gzip and deflate; httpx (groq) also zstd and br when their packages are installed
ENCODED = [
    ("openai", "gzip"),
    ("openai", "deflate"),
    ("groq", "gzip"),
    ("groq", "deflate"),
    pytest.param(
        "groq",
        "zstd",
        marks=pytest.mark.skipif(not _installed("zstandard"), reason="zstandard not installed"),
    ),
    pytest.param(
        "groq",
        "br",
        marks=pytest.mark.skipif(
            not (_installed("brotli") or _installed("brotlicffi")), reason="brotli not installed"
        ),
    ),
]


def _client(sdk: str, base_url: str) -> Any:
    if sdk == "openai":
        import openai

        return openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
    import groq

    return groq.Groq(
        base_url=base_url.removesuffix("/v1").removesuffix("/openai"),
        api_key="gsk-test",
        max_retries=0,
    )


def _groq_base(server: EncodingServer) -> str:
    # groq posts to /openai/v1/chat/completions; the server answers any POST
    return server.base_url


def _run(sdk: str, client: Any, stream: bool) -> Any:
    kw: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": UNICODE}],
    }
    if stream:
        return [c.model_dump() for c in client.chat.completions.create(stream=True, **kw)]
    return client.chat.completions.create(**kw).model_dump()


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize(("sdk", "encoding"), ENCODED)
def test_compressed_responses_are_stored_decoded_and_replay_once(
    server_factory: Any, tmp_path: Path, sdk: str, encoding: str, stream: bool
) -> None:
    server = server_factory(encoding)
    name = f"{sdk}-{encoding}-{stream}"
    with AgentRecorder(name, snapshot_dir=tmp_path):
        live = _run(sdk, _client(sdk, server.base_url), stream)
    server.stop()
    raw = SnapshotStore(tmp_path).path_for(name).read_bytes()
    assert UNICODE.encode() in raw or "日本".encode() in raw  # decoded, readable, literal UTF-8
    data = json.loads(raw)
    (step,) = [s for s in data["trace"] if s["type"] == "llm_call"]
    response = step["exchange"]["response"]
    assert "content-encoding" not in response["headers"]
    if stream:
        assert response["chunks"] and all(isinstance(c, str) for c in response["chunks"])
        assert step["response"] == UNICODE
    else:
        assert response["body"]["choices"][0]["message"]["content"] == UNICODE
        # and the text the server sent, served in replay (byte-faithful), literal UTF-8 in the file
        assert json.loads(response["text"]) == response["body"]
    with AgentAsserter(name, snapshot_dir=tmp_path, mode="replay"):
        replayed = _run(sdk, _client(sdk, server.base_url), stream)
    assert replayed == live


def test_recording_twice_is_byte_identical(server_factory: Any, tmp_path: Path) -> None:
    texts = []
    for _ in range(2):
        server = server_factory("gzip")
        with AgentRecorder("twice", snapshot_dir=tmp_path):
            _run("openai", _client("openai", server.base_url), True)
        server.stop()
        texts.append(SnapshotStore(tmp_path).path_for("twice").read_bytes())
    assert texts[0] == texts[1]


# --------------------------------------------------------------------------- the chunk sink, byte by byte


class _Trace:
    def __init__(self) -> None:
        self.finalizers: list[Any] = []


def _sink(encoding: str = "") -> Any:
    from agentsnap.capture.trace import Exchange

    ex = Exchange(provider="p", codec=None, request={})
    sink = ChunkSink(
        ex,
        {"status": 200, "headers": {"content-encoding": encoding} if encoding else {}},
        encoding,
        _Trace(),
    )  # type: ignore[arg-type]
    return ex, sink


def _served(response: dict[str, Any]) -> bytes:
    return b"".join(wire.chunk_bytes(c) for c in response["chunks"])


@settings(max_examples=200, deadline=None)
@given(
    data=st.one_of(st.text(max_size=60).map(lambda t: t.encode()), st.binary(max_size=60)),
    cuts=st.lists(st.integers(0, 60), max_size=8),
)
def test_replay_serves_exactly_the_bytes_read_however_they_were_split(
    data: bytes, cuts: list[int]
) -> None:
    points = sorted({c for c in cuts if 0 < c < len(data)})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=False)]
    ex, sink = _sink()
    for piece in pieces:
        sink.add(piece)
    sink.finish(complete=True)
    assert _served(ex.response) == data
    if _is_utf8(data):
        assert all(isinstance(c, str) for c in ex.response["chunks"])


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def test_a_stream_cut_inside_a_character_keeps_its_last_bytes() -> None:
    ex, sink = _sink()
    sink.add("data: Grü".encode()[:-1])  # ü is two bytes: the stream stops after the first
    sink.finish(complete=False)
    assert ex.response["chunks"] == ["data: Gr", {"$bytes_b64": base64.b64encode(b"\xc3").decode()}]
    assert _served(ex.response) == "data: Grü".encode()[:-1]


def test_bytes_that_are_not_utf8_after_a_split_character_are_kept_whole() -> None:
    ex, sink = _sink()
    for piece in (b"ok \xe2", b"\x82\xff tail", b" more"):
        sink.add(piece)
    sink.finish(complete=True)
    assert _served(ex.response) == b"ok \xe2\x82\xff tail more"


@pytest.mark.parametrize(
    "encoding",
    [
        "gzip",
        "deflate",
        "deflate-raw",
        pytest.param(
            "zstd",
            marks=pytest.mark.skipif(not _installed("zstandard"), reason="zstandard not installed"),
        ),
    ],
)
def test_compressed_stream_chunks_are_decoded_in_the_sink(encoding: str) -> None:
    text = 'data: {"x": "Grüße ✓"}\n\n' * 20
    if encoding == "deflate-raw":
        comp = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        raw = comp.compress(text.encode()) + comp.flush()
        header = "deflate"
    else:
        enc = _Encoder(encoding)
        raw = enc.piece(text.encode()) + enc.end()
        header = encoding
    ex, sink = _sink(header)
    for i in range(0, len(raw), 7):
        sink.add(raw[i : i + 7])
    sink.finish(complete=True)
    assert "".join(ex.response["chunks"]) == text
    assert "content-encoding" not in ex.response["headers"]


def test_a_corrupt_compressed_stream_is_kept_raw_with_its_encoding() -> None:
    """httpx fails on it while reading; replay must fail the same way, so the wire bytes are kept."""
    good = gzip.compress(b"data: 1\n\n")
    wire = [good[:10], b"\x00garbage\xff" * 3]
    ex, sink = _sink("gzip")
    for piece in wire:
        sink.add(piece)
    sink.finish(complete=True)
    assert ex.response["headers"] == {"content-encoding": "gzip"}
    assert _served(ex.response) == b"".join(wire)


def test_an_unknown_encoding_is_kept_raw() -> None:
    ex, sink = _sink("compress")
    sink.add(b"\x1f\x9d\x90abc")
    sink.finish(complete=True)
    assert ex.response["headers"] == {"content-encoding": "compress"}
    assert ex.response["chunks"] == [{"$bytes_b64": base64.b64encode(b"\x1f\x9d\x90abc").decode()}]


# --------------------------------------------------------------------------- binary requests


def _upload(content: bytes) -> Any:
    import httpx

    return httpx.Request(
        "POST",
        "https://api.openai.com/v1/files",
        files={"file": ("data.bin", content, "application/octet-stream")},
        data={"purpose": "assistants"},
        headers={"user-agent": "OpenAI/Python 1.0"},
    )


def test_binary_uploads_are_enveloped_with_a_stable_boundary() -> None:
    content = bytes(range(256)) * 4
    first, second = request_record(_upload(content)), request_record(_upload(content))
    assert (
        first == second
    )  # httpx picks a random boundary per request; the record does not depend on it
    body = first["body"]
    assert set(body) == {"$bytes_b64", "sha256"}
    raw = base64.b64decode(body["$bytes_b64"])
    assert (
        hashlib.sha256(raw).hexdigest() == body["sha256"]
        and content in raw
        and b"agentsnap-boundary" in raw
    )
    from agentsnap.capture.cassette import request_key

    assert request_key(first) == request_key(second)
    assert request_key(first) != request_key(request_record(_upload(content[::-1])))


def test_large_binary_uploads_go_to_a_side_file(tmp_path: Path) -> None:
    content = bytes(range(256)) * (BLOB_THRESHOLD // 256 + 16)
    rec = request_record(_upload(content))
    ref = rec["body"]
    assert ref["$blob"] == f"blobs/{ref['sha256']}" and ref["size"] > BLOB_THRESHOLD
    steps = [
        {
            "type": "http",
            "exchange": {
                "request": rec,
                "response": {"status": 200, "headers": {}, "body": {"id": "file-1"}},
            },
        }
    ]
    path = SnapshotStore(tmp_path).save(Snapshot(name="upload", trace=steps))
    blob = tmp_path / ref["$blob"]
    assert hashlib.sha256(blob.read_bytes()).hexdigest() == ref["sha256"]
    assert path.stat().st_size < 10_000  # the snapshot holds the reference, not the bytes
    assert json.loads(path.read_text(encoding="utf-8"))["trace"][0]["exchange"]["request"][
        "body"
    ] == dict(ref)
    assert sorted(p.name for p in (tmp_path / "blobs").iterdir()) == [
        ref["sha256"]
    ]  # no temp files left


def test_a_recorded_upload_replays(tmp_path: Path) -> None:
    import openai

    from tests.fake_provider import FakeOpenAI

    content = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    with FakeOpenAI() as fake:
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        with AgentRecorder("upload", snapshot_dir=tmp_path):
            with pytest.raises(
                openai.NotFoundError
            ) as live:  # the fake serves chat only: a recorded 404
                client.files.create(file=("image.png", content), purpose="assistants")
    with AgentAsserter(
        "upload", snapshot_dir=tmp_path, mode="replay", replay_tools=False, strict=True
    ):
        with pytest.raises(openai.NotFoundError) as replayed:
            client.files.create(file=("image.png", content), purpose="assistants")
    assert replayed.value.body == live.value.body
    (step,) = SnapshotStore(tmp_path).load("upload").trace  # type: ignore[union-attr]
    assert step["type"] == "http" and "$bytes_b64" in step["exchange"]["request"]["body"]


# --------------------------------------------------------------------------- tool data of any type


class Opaque:
    def __init__(self) -> None:
        self.x = 1


class Broken:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def _hostile_tool_data() -> dict[str, Any]:
    loop: list[Any] = [1]
    loop.append(loop)
    return {
        "image": b"\x89PNG\r\n\x1a\n\x00\xff",
        "big": b"\x00" * (BLOB_THRESHOLD + 1),
        "tags": {"b", "a"},
        "when": datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc),
        "price": decimal.Decimal("9.90"),
        "ratio": float("nan"),
        "obj": Opaque(),
        "broken": Broken(),
        "loop": loop,
        "path": Path("a") / "b.txt",
        1: "int key",
        ("t", 1): "tuple key",
        "text": UNICODE,
        "lone": "a\ud800b",
        "huge": 7**20_000,  # more digits than int -> str allows
    }


def test_tool_data_of_any_type_never_breaks_a_save(tmp_path: Path) -> None:
    with AgentRecorder("tools", snapshot_dir=tmp_path) as rec:
        rec.record_tool_call("render", _hostile_tool_data(), _hostile_tool_data())
        rec.output = {"bytes": b"out", "when": datetime.date(2024, 1, 2)}
    path = SnapshotStore(tmp_path).path_for("tools")
    raw = path.read_bytes()
    assert UNICODE.encode() in raw and b"\\u00fc" not in raw  # non-ASCII literal
    assert b"\\ud800" in raw  # a lone surrogate (not UTF-8) escaped, not a crash
    args = json.loads(raw)["trace"][0]["args"]
    assert args["image"] == {
        "$bytes_b64": base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\xff").decode(),
        "sha256": hashlib.sha256(b"\x89PNG\r\n\x1a\n\x00\xff").hexdigest(),
    }
    assert (
        args["big"]["$blob"].startswith("blobs/")
        and (tmp_path / args["big"]["$blob"]).stat().st_size == BLOB_THRESHOLD + 1
    )
    assert args["tags"] == {"$set": ["a", "b"]}
    assert args["when"] == {"$datetime": "2024-05-01T12:30:00+00:00"} and args["price"] == {
        "$decimal": "9.90"
    }
    assert args["ratio"] == {"$float": "nan"} and args["loop"] == [1, {"$cycle": "list"}]
    assert args["obj"] == {
        "$repr": "<tests.test_bodies.Opaque object>",
        "$type": "tests.test_bodies.Opaque",
    }
    assert args["broken"] == {
        "$repr": "<tests.test_bodies.Broken>",
        "$type": "tests.test_bodies.Broken",
    }
    assert (
        args["1"] == "int key"
        and args['["t",1]'] == "tuple key"
        and args["path"] == {"$path": "a/b.txt"}
    )
    assert args["lone"] == "a\ud800b" and args["huge"] == {"$int_hex": hex(7**20_000)}
    # the same run compares equal to what was stored (the new run is prepared exactly as the golden was)
    with AgentAsserter("tools", snapshot_dir=tmp_path, mode="live") as check:
        check.record_tool_call("render", _hostile_tool_data(), _hostile_tool_data())
        check.output = {"bytes": b"out", "when": datetime.date(2024, 1, 2)}
    assert check.report is not None and check.report.passed


def test_to_json_is_idempotent_and_total() -> None:
    value = _hostile_tool_data()
    once = to_json(value)
    assert to_json(once) == once
    json.dumps({k: v for k, v in once.items() if k != "big"}, allow_nan=False)  # strict JSON
    deep: list[Any] = []
    cur = deep
    for _ in range(500):
        cur.append([])
        cur = cur[0]
    assert "$truncated" in json.dumps(to_json(deep))
