"""Property tests of the storage and matching invariants (hypothesis).

* Any JSON-compatible trace survives save → load unchanged, and the file is
  byte-stable (loading and saving again rewrites nothing).
* The canonical request key ignores key order and whitespace of the body the
  SDK sent, and changes when any value in it changes.
* Every stream codec gives the same view however the recorded byte stream was
  split into chunks (also inside a UTF-8 character), through the recording
  path (the chunk sink) and the codec.
* ``path_for`` is injective on names and always lands inside the root.

Profiles: tests/conftest.py registers a bounded, derandomised ``ci`` profile,
loaded when CI is set.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agentsnap import Snapshot, SnapshotStore
from agentsnap.capture.cassette import canonical_json, request_key
from agentsnap.capture.request import request_record
from agentsnap.capture.sinks import ChunkSink
from agentsnap.capture.trace import Exchange, _readable
from agentsnap.jsondiff import diff_values
from agentsnap.providers import get_codec
from agentsnap.storage import wire
from agentsnap.storage.naming import preferred_filename
from agentsnap.storage.scrub import scrub_json
from agentsnap.storage.serialize import prepare, to_json
from agentsnap.storage.snapshot import dumps
from agentsnap.storage.wire import replay_key

_RELAXED = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
}

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=25,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)


# --------------------------------------------------------------------------- save -> load


@pytest.fixture(scope="module")
def store_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("props")


@settings(max_examples=150, **_RELAXED)
@given(
    name=st.text(min_size=1, max_size=40),
    trace=st.lists(
        st.fixed_dictionaries(
            {"type": st.sampled_from(["tool_call", "llm_call", "http"])},
            optional={"args": json_values, "result": json_values, "x": json_values},
        ),
        max_size=4,
    ),
    input=json_values,
    output=json_values,
    model=st.text(min_size=1, max_size=10),
    approved=st.booleans(),
)
def test_any_json_trace_survives_save_and_load_unchanged(
    store_root: Path,
    name: str,
    trace: list[dict[str, Any]],
    input: Any,
    output: Any,
    model: str,
    approved: bool,
) -> None:
    snap = Snapshot(
        name=name, trace=trace, input=input, output=output, model=model, approved=approved
    )
    original = snap.to_dict()
    assume(prepare(original) == original)  # nothing secret-shaped: storing changes nothing
    store = SnapshotStore(store_root)
    path = store.save(snap)
    text = path.read_text(encoding="utf-8")
    loaded = store.load(name)
    assert loaded is not None
    got = loaded.to_dict()
    for key in ("updated_at", "created_at"):
        got.pop(key)
        original.pop(key)
    assert got == original
    assert dumps(json.loads(text)) == text  # canonical bytes: a re-save would write the same
    mtime = path.stat().st_mtime_ns
    store.save(loaded)
    assert path.read_text(encoding="utf-8") == text and path.stat().st_mtime_ns == mtime
    path.unlink()


@settings(max_examples=200)
@given(value=json_values)
def test_storing_is_idempotent(value: Any) -> None:
    data = {
        "name": "n",
        "trace": [{"type": "tool_call", "args": value, "result": [value]}],
        "input": value,
        "output": value,
    }
    once = prepare(data)
    assert prepare(once) == once
    assert to_json(once) == once


# --------------------------------------------------------------------------- the replay key


def _reorder(value: Any, rnd: Any) -> Any:
    if isinstance(value, dict):
        items = list(value.items())
        rnd.shuffle(items)
        return {k: _reorder(v, rnd) for k, v in items}
    if isinstance(value, list):
        return [_reorder(v, rnd) for v in value]
    return value


def _record(body_text: str) -> dict[str, Any]:
    import httpx

    request = httpx.Request(
        "POST",
        "https://api.openai.com/v1/chat/completions",
        content=body_text.encode(),
        headers={"content-type": "application/json"},
    )
    return request_record(request)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, (*path, k))] or [path]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _leaves(v, (*path, i))] or [path]
    return [path]


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_replace(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(_replace(v, rest, new) if i == head else v) for i, v in enumerate(value)]


@settings(max_examples=150, **_RELAXED)
@given(body=json_objects, data=st.data())
def test_request_key_ignores_key_order_and_whitespace_and_sees_every_value(
    body: dict[str, Any], data: st.DataObject
) -> None:
    assume(scrub_json(body) == body)
    canonical = request_key(_record(json.dumps(body)))
    rnd = data.draw(st.randoms(use_true_random=False))
    indent = data.draw(st.sampled_from([None, 0, 2, "\t"]))
    separators = data.draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,  ", "  :  ")]))
    ascii_only = data.draw(st.booleans())
    text = json.dumps(
        _reorder(body, rnd),
        indent=indent,
        separators=separators if indent is None else None,
        ensure_ascii=ascii_only,
    )
    assert request_key(_record(text)) == canonical
    path = data.draw(st.sampled_from(_leaves(body)))
    new = data.draw(json_scalars)
    changed = _replace(body, path, new)
    assume(canonical_json(changed) != canonical_json(body) and scrub_json(changed) == changed)
    assert request_key(_record(json.dumps(changed))) != canonical


# as JSON parsing gives them: a NaN (the one float("nan")), big integers, lone surrogates, -0.0
_parsed_scalars = st.one_of(
    json_scalars,
    st.sampled_from([float("nan"), float("inf"), -0.0, 0.0, 1, 1.0, True, 2**64, -(2**63) - 1]),
    st.text(alphabet=st.sampled_from(["a", "\ud800", "\udfff", "é"]), max_size=3),
)
_parsed_values = st.recursive(
    _parsed_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=400, **_RELAXED)
@given(
    a=_parsed_values,
    b=_parsed_values,
    route=st.sampled_from(
        [("POST", "/v1/x", None), ("post", "/v1/x", None), ("POST", "/v1/x", "a=1")]
    ),
)
def test_replay_key_is_equal_exactly_when_the_request_key_is(
    a: Any, b: Any, route: tuple[str, str, str | None]
) -> None:
    """Replay indexes by the fast key: it must match exactly the requests the canonical key matches."""
    method, path, query = route
    first = {"method": "POST", "path": "/v1/x", "body": a}
    second = {"method": method, "path": path, "body": b, **({"query": query} if query else {})}
    for one, two in (
        (first, second),
        (first, dict(first, body=_reorder(a, random.Random(len(repr(a)))))),
    ):
        assert (replay_key(one) == replay_key(two)) is (request_key(one) == request_key(two))


@settings(max_examples=400, **_RELAXED)
@given(a=_parsed_values, b=_parsed_values)
def test_the_diff_fast_path_calls_equal_only_what_the_full_comparison_does(a: Any, b: Any) -> None:
    """``diff_values`` first compares sorted-key MessagePack bytes: equal bytes must mean equal
    values of the same types (strict and not), the same for a reordered copy."""
    from agentsnap.jsondiff import _same_encoding, _same_types

    for one, two in ((a, b), (a, _reorder(a, random.Random(len(repr(a)))))):
        if _same_encoding(one, two):
            nan_free = one == one  # NaN != NaN: both sides hold the same NaN object's bytes
            assert (one == two or not nan_free) and _same_types(one, two, strict=True)
            assert diff_values(one, two, root="x", strict=True) == []


# --------------------------------------------------------------------------- stream reassembly, every codec


def _streams() -> dict[str, tuple[dict[str, Any], bytes]]:
    from tests import fake_anthropic as anth
    from tests import fake_cohere as coh
    from tests import fake_gemini as gem
    from tests import fake_mistral as mis
    from tests import fake_openai_extra as oai

    note = ": Grüße ✓ 日本 🚀\n\n"  # an SSE comment: multi-byte characters to cut through
    cases = {
        "openai_chat": (
            {
                "path": "/openai/v1/chat/completions",
                "body": {
                    "model": "m",
                    "messages": [{"role": "user", "content": "q"}],
                    "stream": True,
                },
            },
            [
                note,
                *oai.groq_stream_reply(
                    ["Grü", "ße ✓"], tool_calls=[("call_1", "get", {"city": "Nîmes"})]
                ).events,
            ],  # type: ignore[misc]
        ),
        "openai_responses": (
            {"path": "/v1/responses", "body": {"model": "m", "input": "q", "stream": True}},
            [
                note,
                *oai.responses_stream_reply(
                    [
                        oai.message_item("Grüße ✓"),
                        oai.function_call_item("c1", "get", {"city": "Nîmes"}),
                    ]
                ).events,
            ],  # type: ignore[misc]
        ),
        "anthropic_messages": (
            {
                "path": "/v1/messages",
                "body": {
                    "model": "m",
                    "max_tokens": 9,
                    "messages": [{"role": "user", "content": "q"}],
                    "stream": True,
                },
            },
            [
                note,
                *anth.stream_reply(
                    anth.text_block("Grüße ✓"),
                    anth.tool_use_block("toolu_1", "get", {"city": "Nîmes"}),
                ).events,
            ],  # type: ignore[misc]
        ),
        "gemini": (
            {
                "path": "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
                "query": "alt=sse",
                "body": {"contents": [{"role": "user", "parts": [{"text": "q"}]}]},
            },
            [
                note,
                *gem.stream_text_reply(
                    ["Grü", "ße ✓"], calls=[("get", {"city": "Nîmes"}, None)]
                ).events,
            ],  # type: ignore[misc]
        ),
        "cohere_chat": (
            {
                "path": "/v2/chat",
                "body": {
                    "model": "m",
                    "messages": [{"role": "user", "content": "q"}],
                    "stream": True,
                },
            },
            [
                note,
                *coh.v2_stream_reply(
                    ["Grü", "ße ✓"], tool_calls=[("c1", "get", {"city": "Nîmes"})]
                ).events,
            ],  # type: ignore[misc]
        ),
        "cohere_v1": (
            {"path": "/v1/chat", "body": {"model": "m", "message": "q", "stream": True}},
            list(
                coh.v1_stream_reply(["Grü", "ße ✓"], tool_calls=[("get", {"city": "Nîmes"})]).events
            ),  # type: ignore[arg-type]
        ),
        "mistral_chat": (
            {
                "path": "/v1/chat/completions",
                "body": {
                    "model": "m",
                    "messages": [{"role": "user", "content": "q"}],
                    "stream": True,
                },
            },
            [
                note,
                *mis.stream_reply(
                    [{"role": "assistant", "content": ""}, {"content": "Grüße ✓"}]
                ).events,
            ],  # type: ignore[misc]
        ),
    }
    return {
        codec: ({"method": "POST", **req}, "".join(events).encode("utf-8"))
        for codec, (req, events) in cases.items()
    }


STREAMS = _streams()


class _Trace:
    def __init__(self) -> None:
        self.finalizers: list[Any] = []


def _view(codec: str, request: dict[str, Any], pieces: list[bytes]) -> dict[str, Any]:
    ex = Exchange(provider="p", codec=codec, request=request)
    sink = ChunkSink(
        ex, {"status": 200, "headers": {"content-type": "text/event-stream"}}, "", _Trace()
    )  # type: ignore[arg-type]
    for piece in pieces:
        sink.add(piece)
    sink.finish(complete=True)
    assert b"".join(wire.chunk_bytes(c) for c in ex.response["chunks"]) == b"".join(pieces)  # type: ignore[index]
    return get_codec(codec)(request, _readable(ex.response))  # type: ignore[arg-type]


WHOLE = {codec: _view(codec, req, [raw]) for codec, (req, raw) in STREAMS.items()}


def test_each_sample_stream_is_understood() -> None:
    for codec, view in WHOLE.items():
        assert view.get("complete") is not False, codec
        assert "Grü" in json.dumps(view, ensure_ascii=False), codec


@settings(max_examples=60, deadline=None)
@given(codec=st.sampled_from(sorted(STREAMS)), data=st.data())
def test_every_stream_codec_is_independent_of_chunking(codec: str, data: st.DataObject) -> None:
    request, raw = STREAMS[codec]
    cuts = data.draw(st.lists(st.integers(1, len(raw) - 1), max_size=30))
    points = sorted(set(cuts))
    pieces = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=False)]
    assert _view(codec, request, pieces) == WHOLE[codec]


# --------------------------------------------------------------------------- path_for

any_text = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=300)


@settings(max_examples=300)
@given(names=st.lists(any_text, min_size=1, max_size=12, unique=True))
def test_path_for_is_injective_and_inside_the_root(names: list[str]) -> None:
    root = Path("/tmp/agentsnap-root")
    store = SnapshotStore(root)
    files = [store.path_for(n) for n in names]
    for path in files:
        assert path.parent == root
        assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]*-[0-9a-f]{8}\.json", path.name) or (
            re.fullmatch(r"[a-z0-9_][a-z0-9._-]*\.json", path.name) and path.stem in names
        )  # <name>.json only for a safe name
        assert len(path.name) <= 255 and ".." not in path.name
    assert len({f.name.lower() for f in files}) == len(names)
    assert all(
        preferred_filename(n) == f.name for n, f in zip(names, files, strict=False)
    )  # stable


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(),  # NaN, ±Infinity and -0.0 included
    st.text(max_size=6),
)


@given(st.lists(_SCALARS, max_size=6), st.dictionaries(st.text(max_size=4), _SCALARS, max_size=6))
def test_to_json_keeps_a_containers_scalars_as_each_alone_converts(items, mapping):
    """The leaves ``to_json`` keeps inside a list or dict without a call (finite floats, None and
    booleans as well as ASCII strings and small ints) are what it makes of each alone: the same
    values, of the same types, the same objects where it keeps one."""
    from agentsnap.storage.serialize import to_json

    def alike(a: Any, b: Any) -> bool:
        if type(a) is not type(b):
            return False
        if type(a) is float:
            return a is b  # kept: the very object
        return bool(a == b)

    for got, alone in zip(to_json(items), [to_json(v) for v in items], strict=True):
        assert alike(got, alone)
    converted = to_json(mapping)
    for key, value in mapping.items():
        assert alike(converted[key], to_json(value))
