"""The wire module: the one home of the stored exchange's shapes (issue 15)."""

from __future__ import annotations

import ast
import gzip
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.storage import wire
from agentsnap.storage.scrub import Redaction, parse_redact, scrub_snapshot
from agentsnap.storage.serialize import bytes_envelope, prepare


def test_wire_is_a_leaf() -> None:
    """It imports nothing else from agentsnap, so every layer can depend on it."""
    tree = ast.parse(Path(wire.__file__).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and not (node.module or "").startswith("agentsnap")
        elif isinstance(node, ast.Import):
            assert not any(a.name.startswith("agentsnap") for a in node.names)


def test_trace_no_longer_imports_replay() -> None:
    code = "import sys, agentsnap.capture.trace; print('agentsnap.capture.cassette' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_one_envelope_three_keys() -> None:
    data = b"\xff\x00binary"
    value, chunk, body = (
        wire.envelope(data),
        wire.bytes_chunk(data),
        wire.envelope(data, key="body_b64"),
    )
    assert set(value) == {"$bytes_b64", "sha256"}
    assert set(chunk) == {"$bytes_b64"}
    assert set(body) == {"body_b64", "sha256"}
    assert value["sha256"] == body["sha256"]
    assert (
        wire.envelope_bytes(value) == wire.envelope_bytes(body) == wire.chunk_bytes(chunk) == data
    )
    assert wire.chunk_bytes("text é") == "text é".encode()
    # serialize's envelope is the same shape (scrubbed first; nothing to scrub here)
    assert bytes_envelope(data) == value


def test_encode_body_and_back() -> None:
    assert wire.encode_body(b"", None) == {"body": None}
    assert wire.encode_body(b'{"a": 1}', "application/json") == {"body": {"a": 1}}
    assert wire.encode_body(b"plain", "text/plain") == {"text": "plain"}
    raw = b"\xff\xfe"
    assert wire.encode_body(raw, None) == wire.envelope(raw, key="body_b64")
    assert wire.encode_body(raw, None, binary=lambda b: {"x": len(b)}) == {"x": 2}
    for stored in ({"body": {"a": "é"}}, {"text": "t"}, wire.envelope(raw, key="body_b64")):
        again = wire.body_bytes(stored)
        assert wire.encode_body(again, None) == stored
    assert wire.body_bytes({"body": "\ud800"}) == b'"\\ud800"'  # a lone surrogate, escaped


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        # mtime=0: a gzip header carries the time, and xdist workers must collect the same ids
        (gzip.compress(b"hello", mtime=0), "gzip"),
        (gzip.compress(b"hello", mtime=0), " GZIP "),
        (zlib.compress(b"hello"), "deflate"),
        (zlib.compress(b"hello")[2:-4], "deflate"),  # raw deflate
        (zlib.compress(b"hello"), "gzip"),  # a zlib body labelled gzip: read leniently
        (b"hello", ""),
        (b"hello", "identity"),
    ],
    ids=["gzip", "gzip-spaced-upper", "zlib", "raw-deflate", "zlib-as-gzip", "none", "identity"],
)
def test_decompress_a_whole_body(data: bytes, encoding: str) -> None:
    assert wire.decompress(data, encoding) == b"hello"


def test_decompress_refuses_what_it_cannot_read() -> None:
    with pytest.raises(LookupError):
        wire.decompress(b"x", "compress")
    assert wire.decompressor("compress") is None
    cut = gzip.compress(b"hello world" * 50)[:30]
    assert (b"hello world" * 50).startswith(wire.decompress(cut, "gzip"))  # what it holds


def test_incremental_decoder_matches_the_whole() -> None:
    data = gzip.compress(b"abc" * 1000)
    dec = wire.Decompressor("gzip")
    out = b"".join(dec.decompress(data[i : i + 7]) for i in range(0, len(data), 7)) + dec.flush()
    assert out == wire.decompress(data, "gzip") == b"abc" * 1000


def test_request_key_is_canonical_and_ignores_the_host() -> None:
    a = {"method": "post", "path": "/v1/x", "query": "a=1", "body": {"b": 1, "a": [1, "é"]}}
    b = {"method": "POST", "path": "/v1/x", "query": "a=1", "body": {"a": [1, "é"], "b": 1}}
    assert (
        wire.request_key(a) == wire.request_key(b) == ("POST", "/v1/x?a=1", '{"a":[1,"é"],"b":1}')
    )
    from agentsnap.capture.cassette import canonical_json, request_key

    assert request_key is wire.request_key and canonical_json is wire.canonical_json


def _snapshot(exchange: object) -> dict[str, object]:
    return {"name": "t", "trace": [{"type": "http", "exchange": exchange}]}


def test_a_captured_exchange_is_scrubbed_once_a_read_one_at_build() -> None:
    """The mark travels with the exchange: no flag to thread through the build."""
    rules: Redaction = parse_redact(None)
    token = "sk-proj-" + "a1B2c3D4e5" * 4  # an OpenAI key shape, scrubbed by the built-in rules
    request = {"method": "POST", "path": "/p", "body": {"note": token}}
    captured = wire.Exchange(provider="p", codec=None, request=request).to_dict()
    assert isinstance(captured, wire.StoredExchange)
    assert captured == {"request": request, "response": None}
    # (capture scrubs the request before it is stored; this one skipped that on purpose)
    kept = scrub_snapshot(_snapshot(captured), rules)["trace"][0]["exchange"]
    assert kept is captured  # scrubbed at capture: not a second time
    plain = json.loads(json.dumps(captured))  # the same exchange read back from a file
    assert type(plain) is dict
    scrubbed = scrub_snapshot(_snapshot(plain), rules)["trace"][0]["exchange"]
    assert token not in json.dumps(scrubbed)
    # prepare keeps the mark through to_json
    prepared = prepare(_snapshot(captured))["trace"][0]["exchange"]
    assert type(prepared) is wire.StoredExchange and prepared == captured


# -- reading a file's bytes as json.loads reads its UTF-8 text ---------------------------------

_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def _read_as_json_loads(raw: bytes) -> tuple[str, object]:
    """What ``json.loads(raw.decode("utf-8-sig"))`` gives: ("ok", the value as JSON text) or the
    error (a file's byte order mark is not part of its text)."""
    try:
        value = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        return type(exc).__name__, str(exc)
    return "ok", json.dumps(value)  # NaN == NaN as text; dict order as parsed


def _read_as_json_loads_utf8(raw: bytes) -> tuple[str, object]:
    try:
        value = wire.json_loads_utf8(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        return type(exc).__name__, str(exc)
    return "ok", json.dumps(value)


@given(_JSON_VALUES, st.booleans(), st.booleans(), st.data())
@settings(max_examples=300, deadline=None)
def test_json_loads_utf8_reads_bytes_as_json_loads_reads_the_text(
    value: object, ascii_only: bool, indent: bool, data: st.DataObject
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=2 if indent else None)
    raw = text.encode("utf-8", "surrogatepass")  # a lone surrogate: bytes that are not UTF-8
    assert _read_as_json_loads_utf8(raw) == _read_as_json_loads(raw)
    bom = b"\xef\xbb\xbf" + raw  # as a Windows editor saves it
    assert _read_as_json_loads_utf8(bom) == _read_as_json_loads(bom) == _read_as_json_loads(raw)
    # damaged: a byte dropped, or one put in (not JSON, not UTF-8, or still JSON)
    at = data.draw(st.integers(min_value=0, max_value=len(raw)))
    damaged = data.draw(
        st.sampled_from(
            [raw[:at] + raw[at + 1 :], raw[:at] + data.draw(st.binary(max_size=2)) + raw[at:]]
        )
    )
    assert _read_as_json_loads_utf8(damaged) == _read_as_json_loads(damaged)
