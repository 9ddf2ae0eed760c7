"""A recording's memory at its end (issue 30, row 11 record): the same snapshot from fewer copies.

* a captured exchange holding plain JSON (what parsing the wire gives) goes through
  :func:`~agentsnap.storage.serialize.to_json` as itself, not copied; anything else in it
  (NaN, a huge int, a tuple, a lone surrogate pair, nesting past the limit) is converted as before;
* scrubbing returns a plain dict or list with nothing to scrub in it as itself, never changing
  its input;
* the golden a run just wrote is not parsed again to learn its name (orphan detection at the
  session's end read a 5,000-call golden whole for that).
"""

from __future__ import annotations

import copy
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentsnap import Snapshot, SnapshotStore
from agentsnap.lifecycle import build_snapshot
from agentsnap.storage import scrub
from agentsnap.storage.serialize import MAX_DEPTH, _key, to_json
from agentsnap.storage.wire import StoredExchange
from tests._support.json_trees import json_trees
from tests._support.shapes import shape


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> Iterator[None]:
    yield


_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.just(2**14_001),  # past what to_json keeps as a number
    st.floats(),  # NaN and Infinity too
    st.text(max_size=8),
    # a lone surrogate, a pair as two code points
    st.sampled_from(["\ud800", "\ud83d\ude00", "é ☀", "sk-short"]),
)
_VALUES = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=2).map(tuple),
        st.dictionaries(st.text(max_size=4), inner, max_size=3),
        st.dictionaries(st.sampled_from([1, None, "\ud83d\ude00"]), inner, max_size=2),
    ),
    max_leaves=16,
)


def _copied(exchange: StoredExchange) -> StoredExchange:
    """What ``to_json`` made of a captured exchange before: every value converted into a copy."""
    return StoredExchange({_key(k): to_json(v, 1) for k, v in exchange.items()})


@settings(max_examples=400, deadline=None)
@given(request=_VALUES, response=_VALUES)
@example(request={"a": [1.5, "x"]}, response={"body": {"n": 2**62}})
@example(request={"a": (1, 2)}, response=None)
@example(request={"v": float("nan")}, response={})
@example(request={"\ud83d\ude00": 1}, response={})
def test_property_a_captured_exchange_converts_as_its_copy_did_and_is_kept_when_plain(
    request: Any, response: Any
) -> None:
    exchange = StoredExchange(request=request, response=response)
    before = shape(copy.deepcopy(exchange))
    got = to_json(exchange)
    expected = _copied(exchange)
    assert type(got) is StoredExchange
    assert shape(got) == shape(expected)
    assert shape(exchange) == before  # the input is never changed
    if got is exchange:  # kept only when the conversion is the exchange itself
        assert shape(expected) == before


def test_a_plain_exchange_is_kept_and_one_needing_conversion_is_copied() -> None:
    plain = StoredExchange(
        request={"method": "POST", "body": {"model": "m", "n": 1, "t": 0.5, "ok": True}},
        response={"status": 200, "body": {"choices": [{"text": "é ☀"}], "x": None}},
    )
    assert to_json(plain) is plain
    for odd in (float("nan"), float("inf"), 2**14_001, (1, 2), "\ud83d\ude00"):
        exchange = StoredExchange(request={"body": {"v": [odd]}}, response={"status": 200})
        got = to_json(exchange)
        assert got is not exchange and type(got) is StoredExchange
        assert got["request"]["body"]["v"][0] == to_json(odd)
    keyed = StoredExchange(request={1: "a"}, response={})
    assert to_json(keyed) == {"request": {"1": "a"}, "response": {}}


def test_an_exchange_nested_past_the_limit_is_cut_as_before() -> None:
    deep: Any = "leaf"
    for _ in range(MAX_DEPTH + 5):
        deep = {"d": deep}
    exchange = StoredExchange(request=deep, response={})
    got = to_json(exchange)
    assert got is not exchange
    node, depth = got["request"], 1  # the exchange is level 0
    while isinstance(node, dict) and "d" in node:
        node, depth = node["d"], depth + 1
    assert depth == MAX_DEPTH and node == {"$truncated": f"nesting deeper than {MAX_DEPTH} levels"}


def test_a_recordings_snapshot_holds_the_captured_exchange_itself() -> None:
    exchange = StoredExchange(
        request={"method": "POST", "path": "/v1/chat/completions", "body": {"model": "gpt-4o"}},
        response={"status": 200, "headers": {}, "body": {"choices": []}},
    )
    steps = [{"type": "llm_call", "provider": "openai", "model": "gpt-4o", "exchange": exchange}]
    snap = build_snapshot("t::a", steps)
    assert snap.trace[0]["exchange"] is exchange
    assert snap.trace[0] is not steps[0]  # the step itself is still the snapshot's own


def test_the_views_of_calls_the_trace_built_are_kept_and_a_users_values_copied() -> None:
    request_view = {"messages": [{"role": "user", "content": "Weather in Paris?"}]}
    response_view = {"content": "Sunny", "tool_calls": []}
    odd_view = {"score": float("nan")}
    args = {"city": "Paris", "days": [1, 2]}  # a user's value, reported by an adapter
    steps = [
        {
            "type": "llm_call",
            "provider": "openai",
            "request": request_view,
            "response": response_view,
        },
        {"type": "llm_call", "provider": "openai", "request": odd_view, "response": None},
        {"type": "tool_call", "name": "weather", "args": args, "result": {"t": 21}},
    ]
    handed = list(steps)  # Trace.steps() hands over a list of its own: prepared in place
    traced = build_snapshot("t::a", handed, traced=True)
    assert traced.trace is handed
    assert traced.trace[0]["request"] is request_view
    assert traced.trace[0]["response"] is response_view
    assert traced.trace[1]["request"] == {"score": {"$float": "nan"}}  # converted as before
    assert traced.trace[2]["args"] == args and traced.trace[2]["args"] is not args
    assert all(type(step) is dict for step in traced.trace)
    assert all(step is not given for step, given in zip(traced.trace, steps, strict=True))
    # steps from elsewhere (an imported trace, a test's own list) are copied whole, as before
    other = build_snapshot("t::b", steps)
    assert other.trace[0]["request"] == request_view
    assert other.trace[0]["request"] is not request_view
    assert other.to_dict()["trace"] == traced.to_dict()["trace"]


def _nested(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = {"d": value}
    return value


def _at_stack_depth(frames: int, call: Any) -> Any:
    return call() if frames == 0 else _at_stack_depth(frames - 1, call)


def test_a_traced_call_converted_deep_in_the_stack_fails_loudly_or_keeps_its_exchange() -> None:
    """(found by a reviewer) Too deep a stack while a traced call's views are checked or
    converted raises as it does for a plain dict step; it never stores the whole step as
    ``{"$truncated"}`` (its model, messages and the exchange replay serves, lost silently)."""

    def steps() -> list[dict[str, Any]]:
        exchange = StoredExchange(request={"body": {"model": "m"}}, response={"status": 200})
        step = {"type": "llm_call", "model": "m", "messages": [_nested(90)], "exchange": exchange}
        return [step]

    kept = loud = 0
    for frames in range(0, 1000, 10):
        try:
            snap = _at_stack_depth(frames, lambda: build_snapshot("t::x", steps(), traced=True))
        except RecursionError:
            loud += 1
            continue
        assert snap.trace[0]["exchange"]["request"] == {"body": {"model": "m"}}, frames
        assert snap.trace[0]["model"] == "m"
        kept += 1
    assert kept and loud  # both ends of the range were reached


def test_a_captured_exchange_another_thread_changes_is_converted_not_lost() -> None:
    """(found by a reviewer) A dict that changes size while the plain-JSON check reads it is
    converted as before (``to_json`` reads it again), never stored as ``{"$unserializable"}``."""
    headers = {f"h{i}": "v" for i in range(200_000)}
    exchange = StoredExchange(
        request={"method": "POST", "body": {"model": "m"}},
        response={"status": 200, "headers": headers, "body": {"ok": 1}},
    )
    stop = threading.Event()

    def churn() -> None:
        i = 0
        while not stop.is_set():
            headers[f"x{i % 3}"] = "v"
            headers.pop(f"x{(i + 1) % 3}", None)
            i += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    thread = threading.Thread(target=churn, daemon=True)
    thread.start()
    try:
        for _ in range(40):
            step = {"type": "llm_call", "model": "m", "exchange": exchange}
            got = build_snapshot("t::x", [step], traced=True).trace[0]["exchange"]
            assert got["request"] == {"method": "POST", "body": {"model": "m"}}
            assert got["response"]["body"] == {"ok": 1}
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)


# --------------------------------------------------------------------------- scrubbing shares


_PLAIN = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.text(max_size=10),
        st.sampled_from(
            ["sk-" + "a" * 40, "Bearer abcdefghijklmnopqrstuvwx", "hello there, friend"]
        ),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.one_of(st.text(max_size=6), st.sampled_from(["api_key", "password", "token"])),
            inner,
            max_size=3,
        ),
    ),
    max_leaves=16,
)


def _unshared(value: object) -> object:
    """The scrub of a fresh copy: what the walk returned when it copied every container."""
    return scrub.scrub_value(copy.deepcopy(value))


@settings(max_examples=400, deadline=None)
@given(value=_PLAIN)
@example(value={"api_key": "abc123456", "keep": ["hello there, friend"]})
@example(value=[{"a": "sk-" + "a" * 40}])
def test_property_scrubbing_changes_nothing_it_is_given_and_shares_only_what_it_keeps(
    value: Any,
) -> None:
    before = copy.deepcopy(value)
    got = scrub.scrub_value(value)
    assert got == _unshared(value)
    assert value == before  # the input is not changed
    if isinstance(value, (dict, list)):
        assert (got is value) == (got == value)  # a container kept whole is itself, else new


def test_a_scrubbed_container_is_a_new_one_beside_kept_ones() -> None:
    kept = {"messages": [{"role": "user", "content": "what is the weather in Paris today?"}]}
    doc = {"kept": kept, "auth": {"api_key": "abc123456789"}}
    got = scrub.scrub_value(doc)
    assert got is not doc and got["auth"] == {"api_key": scrub.REDACTED}
    assert got["kept"] is kept
    assert doc["auth"] == {"api_key": "abc123456789"}
    # a tuple is still stored as a list, a dict subclass as a dict
    assert scrub.scrub_value(("a", "b")) == ["a", "b"]
    assert type(scrub.scrub_value(StoredExchange(a=1))) is dict


# --------------------------------------------------------------------------- a run's own goldens


def _snap(name: str, calls: int = 2) -> Snapshot:
    steps = [{"type": "tool_call", "name": "lookup", "args": {"i": i}} for i in range(calls)]
    return Snapshot(name=name, trace=steps, output="done")


def test_the_goldens_a_run_wrote_are_not_read_again_for_their_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = SnapshotStore(tmp_path)
    writer.save(_snap("t::other"))  # a golden another process wrote
    store = SnapshotStore(tmp_path)
    a = store.save(_snap("t::a"))
    store.save(_snap("t::b"))
    store.save(_snap("t::b"))  # the same content: not written again, still this run's
    reads: list[Path] = []
    read_file = SnapshotStore.read_file

    def counted(path: Path, **kwargs: Any) -> Snapshot:
        reads.append(path)
        return read_file(path, **kwargs)

    monkeypatch.setattr(SnapshotStore, "read_file", staticmethod(counted))
    assert list(store.names(except_loaded=True)) == ["t::other"]
    assert [p.name for p in reads] == [store.path_for("t::other").name]
    assert sorted(store.names()) == ["t::a", "t::b", "t::other"]  # all of them without the option
    # a golden changed on disk since this run wrote it is read again
    a.write_text(a.read_text(encoding="utf-8").replace('"done"', '"changed"'), encoding="utf-8")
    reads.clear()
    assert sorted(store.names(except_loaded=True)) == ["t::a", "t::other"]
    assert store.path_for("t::a").name in [p.name for p in reads]


def test_a_request_body_shares_what_it_repeats_of_the_one_before() -> None:
    from agentsnap.storage.wire import Repeats

    tools = [{"type": "function", "function": {"name": "w", "parameters": {"type": "object"}}}]
    system = {"role": "system", "content": "Be terse."}
    repeats = Repeats()
    body = {"model": "m", "tools": tools, "messages": [system, {"role": "user", "content": "a"}]}
    first = repeats.parse(json.dumps(body).encode())
    body["messages"].append({"role": "assistant", "content": "b"})
    second = repeats.parse(json.dumps(body).encode())
    assert second["tools"] is first["tools"]  # a top-level value repeated: the one object
    assert second["messages"] is not first["messages"]  # the list grew: its items shared
    assert all(a is b for a, b in zip(second["messages"], first["messages"], strict=False))
    assert second == body
    # the same text only: 1, 1.0 and True are equal in Python, and key order is the JSON's
    third = repeats.parse(
        b'{"model": "m", "n": 1.0, "flags": [true, 1], "tools": [{"type": "function"}]}'
    )
    fourth = repeats.parse(
        b'{"model": "m", "n": true, "flags": [1, 1.0], "tools": [{"type": "function"}]}'
    )
    assert type(third["n"]) is float and type(fourth["n"]) is bool
    assert [type(v) for v in fourth["flags"]] == [int, float]
    assert fourth["tools"] is third["tools"] and fourth["model"] is third["model"]
    with pytest.raises(ValueError):
        repeats.parse(b"[1, 2]")  # not an object: the caller parses it as before
    with pytest.raises(ValueError):
        repeats.parse(b'{"x": NaN}')  # msgspec refuses it: json reads it, as before


def test_a_recorded_request_is_the_same_json_with_repeats_shared() -> None:
    import msgspec

    from agentsnap.capture.request import record_of
    from agentsnap.storage.wire import Repeats

    bodies = [
        {
            "model": "m",
            "messages": [{"role": "user", "content": "q"}] * (i + 1),
            "t": [1, 2.0, True],
        }
        for i in range(4)
    ]
    raws = [json.dumps(b).encode() for b in bodies] + [b'{"x": NaN}', b"[1]", b"not json", b""]
    repeats = Repeats()
    shared = [record_of("POST", "/v1/x", "", "application/json", r, repeats) for r in raws]
    alone = [record_of("POST", "/v1/x", "", "application/json", r) for r in raws]
    assert shared[3]["body"]["t"] is shared[0]["body"]["t"]
    assert shared[3]["body"]["messages"][0] is shared[0]["body"]["messages"][0]
    assert [repr(s) for s in shared] == [repr(a) for a in alone]
    assert msgspec.msgpack.encode(shared[:4]) == msgspec.msgpack.encode(alone[:4])


_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.0, 1.0, 2.5, 1e300])
    | st.text(max_size=2)
)
_VALUES = json_trees(_LEAVES, key_size=2)
_BODIES = st.dictionaries(st.sampled_from(["a", "b", "messages"]), _VALUES, max_size=3)


@given(st.lists(st.tuples(_BODIES, st.booleans()), min_size=1, max_size=5))
@settings(max_examples=300, deadline=None)
def test_sharing_repeats_never_changes_a_body(bodies: list[tuple[dict[str, Any], bool]]) -> None:
    import msgspec

    from agentsnap.storage.wire import Repeats, json_loads

    repeats = Repeats()
    kept = []
    for body, spaced in bodies:
        raw = json.dumps(body, separators=(", ", ": ") if spaced else (",", ":")).encode()
        expected = msgspec.msgpack.encode(json_loads(raw))  # types and key order included
        kept.append((repeats.parse(raw), expected))
        assert msgspec.msgpack.encode(kept[-1][0]) == expected
    assert all(msgspec.msgpack.encode(got) == expected for got, expected in kept)  # none changed


def test_header_answers_are_remembered_and_stay_the_globs_answers() -> None:
    import fnmatch

    from agentsnap.spec.provider_specs import load_specs
    from agentsnap.storage.scrub import ACCOUNT_HEADERS, REDACTED, mask_header

    spec = next(s for s in load_specs() if s.name == "openai")
    names = ["x-request-id", "openai-organization", "Authorization", "content-type", "date"]
    names += [f"x-made-up-{i}" for i in range(1100)]  # more than are remembered: cleared, bounded
    for name in names * 2:
        low = name.lower()
        keep = any(fnmatch.fnmatchcase(low, p) for p in spec.keep_headers if p != "*")
        assert spec.keeps_header(name) is spec._keeps(low)
        assert keep <= spec.keeps_header(name)
        masked = any(fnmatch.fnmatchcase(low, p) for p in (*ACCOUNT_HEADERS, "x-made-up-1*"))
        assert (mask_header(name, "v", ("x-made-up-1*",)) == REDACTED) is masked
    assert len(spec._kept) <= 1024


def _answer(i: int) -> bytes:
    # a provider's layout (not the snapshot's sorted one): the text is kept beside the body
    return json.dumps(
        {
            "id": f"chatcmpl-{i}",
            "object": "chat.completion",
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": f"Answer {i}."},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": 9,
                "completion_tokens": 2,
                "total_tokens": 11,
                "prompt_tokens_details": {"cached_tokens": 0},
            },
        },
        indent=1,
    ).encode()


def _record_calls(where: Path, calls: int) -> Any:
    import importlib
    import inspect

    openai = pytest.importorskip("openai")
    from agentsnap import AgentRecorder

    annotation = str(inspect.signature(openai.OpenAI.__init__).parameters["http_client"].annotation)
    http = importlib.import_module("httpx2" if "httpx2" in annotation else "httpx")
    served = iter(range(calls))

    def handler(request: Any) -> Any:
        return http.Response(
            200, headers={"content-type": "application/json"}, content=_answer(next(served))
        )

    client = openai.OpenAI(
        api_key="sk-test",
        base_url="http://fake-provider.test/v1",
        max_retries=0,
        http_client=http.Client(transport=http.MockTransport(handler)),
    )
    with AgentRecorder("t::calls", snapshot_dir=where) as rec:
        for i in range(calls):
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": f"q{i}"}]
            )
    return rec, client


@pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")
def test_recorded_responses_share_their_repeats_and_write_the_same_golden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentsnap import AgentAsserter
    from agentsnap.storage.wire import Repeats

    rec, client = _record_calls(tmp_path / "shared", 4)
    steps = [s for s in rec.outcome.new.trace if "exchange" in s]
    bodies = [s["exchange"]["response"]["body"] for s in steps]
    assert [s["exchange"]["response"]["text"] for s in steps] == [
        _answer(i).decode() for i in range(4)
    ]
    assert bodies[3]["usage"] is bodies[0]["usage"]  # a repeated value: one object
    assert bodies[3]["model"] is bodies[0]["model"]
    assert bodies[3]["choices"] is not bodies[0]["choices"]
    views = copy.deepcopy([{k: v for k, v in s.items() if k != "exchange"} for s in steps])

    def alone(self: Repeats, raw: bytes) -> dict[str, Any]:
        raise ValueError("parsed whole")

    with monkeypatch.context() as m:  # the same run, every body parsed on its own
        m.setattr(Repeats, "parse", alone)
        _record_calls(tmp_path / "alone", 4)

    def trace_of(where: Path) -> Any:
        data = json.loads(SnapshotStore(where).path_for("t::calls").read_text(encoding="utf-8"))
        return [{k: v for k, v in s.items() if k != "latency_ms"} for s in data["trace"]]

    assert trace_of(tmp_path / "shared") == trace_of(tmp_path / "alone")
    # replayed and compared against the golden: the shared bodies are still the server's JSON
    # and the views built from them unchanged
    with AgentAsserter("t::calls", snapshot_dir=tmp_path / "shared", mode="replay") as check:
        for i in range(4):
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": f"q{i}"}]
            )
    assert check.outcome.action == "passed"
    assert bodies == [json.loads(_answer(i)) for i in range(4)]
    assert [{k: v for k, v in s.items() if k != "exchange"} for s in steps] == views


def test_a_response_body_shares_what_it_repeats_and_is_stored_as_alone() -> None:
    from agentsnap.capture.faithful import response_body
    from agentsnap.storage.wire import Repeats

    raws = [_answer(i) for i in range(3)] + [
        _answer(3).replace(b" ", b""),  # compact, keys unsorted: still with its text
        b'{"a":1,"b":[true,null]}',  # the snapshot's own form: the body only
        b'{"x": NaN}',  # msgspec refuses it: parsed whole, as before
        b"[1, 2]",
        b"not json",
        b"",
        json.dumps({"key": "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"}).encode(),
    ]
    repeats = Repeats()
    shared = [response_body(r, "application/json", verbatim=False, repeats=repeats) for r in raws]
    alone = [response_body(r, "application/json", verbatim=False) for r in raws]
    assert repr(shared) == repr(alone)
    assert shared[2][0]["body"]["usage"] is shared[0][0]["body"]["usage"]


@given(st.dictionaries(st.text(max_size=3), _LEAVES, max_size=4), st.booleans())
@settings(max_examples=300, deadline=None)
def test_the_look_at_the_first_key_never_refuses_a_sorted_compact_body(
    body: dict[str, Any], sort: bool
) -> None:
    from agentsnap.capture.faithful import _may_be_sorted_compact, _sorted_compact
    from agentsnap.storage.wire import json_loads

    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=sort)
    parsed = json_loads(text)
    if _sorted_compact(parsed) == text:
        assert _may_be_sorted_compact(parsed)


def test_a_response_header_name_and_short_value_are_one_string_for_every_response() -> None:
    from agentsnap.capture.faithful import response_headers
    from agentsnap.spec.provider_specs import load_specs

    (spec,) = [s for s in load_specs() if s.name == "openai"]
    names = [("Content-Type", "application/json"), ("X-Request-Id", "req_1")]
    first = response_headers(iter(names), spec, streamed=False)
    fresh = [("".join(list(n)), v) for n, v in names]  # equal names, other strings (as read)
    again = response_headers(iter(fresh), spec, streamed=False)
    assert first == again == {"content-type": "application/json", "x-request-id": "req_1"}
    assert all(a is b for a, b in zip(first, again, strict=True))
    short = [("Content-Length", "".join(["5", "44"])), ("Openai-Processing-Ms", str(120))]
    one = response_headers(iter(short), spec, streamed=False)
    two = response_headers(iter([(n, "".join(list(v))) for n, v in short]), spec, streamed=False)
    assert one == two == {"content-length": "544", "openai-processing-ms": "120"}
    assert all(one[k] is two[k] for k in one)  # a short value: one string too


def test_a_checked_literal_is_not_remembered_beside_the_bodys_own_string() -> None:
    from agentsnap.storage.scrub import text as scrub_text_module
    from agentsnap.storage.scrub.walk import scrub_parsed_json

    unique = "a question asked once, number 123456789"
    raw = json.dumps({"messages": [{"role": "user", "content": unique}]}).encode()
    body = json.loads(raw)
    assert scrub_parsed_json(body, raw) is body
    assert unique not in scrub_text_module._memo[1]
    # a secret is still found (not remembered as harmless)
    leaked = json.dumps({"content": "key sk-proj-" + "a1B2" * 10}).encode()
    assert scrub_parsed_json(json.loads(leaked), leaked) != json.loads(leaked)
