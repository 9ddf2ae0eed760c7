"""A replayed test's exit, second round (issue 30, part b): the same results by less work.

* the budgets measure a replayed request once: the run's request body is the golden's own
  dict, so the golden's measure reuses the count (``measure(counted=...)``), and a model's
  price is looked up once (``prices.price_for``);
* a string literal with nothing escaped is judged by its UTF-8 text, not by ``json.loads``
  (``scrub_parsed_json``'s new literals: a replayed request's new question): as before;
* the ``.last_run`` text is written by msgspec (``compact_bytes``): it reads back as what
  ``json.dumps`` wrote, and falls back to it for NaN, Infinity and lone surrogates.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap._pytest import run_budget
from agentsnap.diff import request_tokens, run_totals
from agentsnap.diff.checks._api import as_dict
from agentsnap.spec import prices
from agentsnap.storage import scrub
from agentsnap.storage.last_run_writer import LastRunWriter
from agentsnap.storage.scrub import walk as scrub_walk
from agentsnap.storage.serialize import (
    compact_bytes,
    compact_pieces,
    escape_surrogates,
    finite_msgpack,
    prepare,
    to_json,
)
from agentsnap.storage.wire import StoredExchange
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.shapes import shape

openai = pytest.importorskip("openai")

from tests import fake_provider as fp
from tests._support.chat_agent import chat_agent
from tests._support.scrub_samples import SECRET, TOUCHY

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> Iterator[None]:
    """A new process's redaction state (conftest's ``fresh_scrub``); the price table put back after."""
    yield
    prices.configure(None)


_agent = chat_agent


# --------------------------------------------------------------------------- the budgets' measure


def test_a_replayed_runs_budget_row_counts_each_request_once_and_equals_a_fresh_measure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    questions = ["Weather in Paris?", "And tomorrow?", "In Fahrenheit?"]
    with fp.FakeOpenAI() as fake:
        fake.script(*(fp.text_reply(f"Sunny, {20 + i} °C.") for i in range(3)))
        with AgentRecorder("cost::row", snapshot_dir=tmp_path):
            _agent(fake, questions)
        fake.script(*(fp.text_reply(f"Sunny, {20 + i} °C.") for i in range(3)))
        with AgentAsserter("cost::row", snapshot_dir=tmp_path, mode="replay") as block:
            assert _agent(fake, questions) == "Sunny, 22 °C."
        assert len(fake.requests) == 3  # the recording's only: replay sent nothing
    outcome = block.outcome
    assert outcome is not None and outcome.action == "passed"
    assert outcome.new is not None and outcome.golden is not None
    bodies = [s["exchange"]["request"]["body"] for s in outcome.new.trace if "exchange" in s]
    golden = [s["exchange"]["request"]["body"] for s in outcome.golden.trace if "exchange" in s]
    assert len(bodies) == 3 and all(a is b for a, b in zip(bodies, golden, strict=True))

    counted: list[object] = []
    count = run_totals.request_tokens

    def counting(body: object, model: object, *, proven: bool = False) -> int:
        counted.append(body)
        return count(body, model, proven=proven)

    monkeypatch.setattr(run_totals, "request_tokens", counting)
    run_totals._RECENT.clear()
    row = run_budget.row(outcome, "replay")
    assert len(counted) == 3  # the golden's three bodies are the run's: counted once
    monkeypatch.setattr(run_totals, "request_tokens", count)
    run_totals._RECENT.clear()
    alone = run_totals._measure(outcome.new.trace, False, {})
    alone_golden = run_totals._measure(outcome.golden.trace, False, {})
    assert row is not None
    assert row["request_tokens"] == alone.request_tokens and alone.request_tokens > 0
    assert row["golden"] == {k: getattr(alone_golden, k) for k in run_budget.MOVED}
    assert row["llm_calls"] == 3 and row["usage_tokens"] is not None


def test_a_shared_count_is_only_reused_for_the_same_body_and_counter() -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hello there " * 40}]}
    twin = json.loads(json.dumps(body))  # equal, another object
    step = {"type": "llm_call", "model": "gpt-4o", "exchange": {"request": {"body": body}}}
    counted: run_totals.BodyTokens = {}
    first = run_totals._measure([step], False, counted)
    assert list(counted) == [id(body)]
    poisoned = {id(body): (twin, None, 1)}  # another object under this id: never trusted
    assert run_totals._measure([step], False, poisoned).request_tokens == first.request_tokens
    exact = {id(body): (body, "gpt-4o-other", 1)}  # counted for another counter: counted again
    assert run_totals._measure([step], True, exact).request_tokens != 1


_JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(),  # NaN, Infinity and the ones msgspec writes otherwise (1e-05)
        st.text(max_size=10),
        st.sampled_from(["\ud800", "null", "a:1.5e3", "[-2.0", "é ☀"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=6), inner, max_size=4),
        st.dictionaries(st.integers(0, 9), inner, max_size=2),  # keys json.dumps turns to text
    ),
    max_leaves=20,
)


def _estimate_as_before(body: dict[str, Any]) -> int:
    fields = {k: body[k] for k in request_tokens._CONTENT_KEYS if k in body}
    text = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return -(-len(re.sub(r'[{}\[\]":,]', "", text).encode("utf-8")) // 4)


@settings(max_examples=500, deadline=None)
@given(messages=_JSON, tools=_JSON, other=_JSON)
@example(messages=[float("nan")], tools={"x": -float("inf")}, other=None)
@example(messages=[1e-05, 1e16], tools=None, other=None)
def test_property_the_request_fingerprint_and_estimate_are_json_dumps_ones(
    messages: Any, tools: Any, other: Any
) -> None:
    body = {"model": "m", "messages": messages, "tools": tools, "temperature": other}
    fields = {"messages": messages, "tools": tools}
    try:
        before = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        with pytest.raises((TypeError, ValueError)):
            request_tokens._fingerprint(fields)
        return
    assert request_tokens._fingerprint(fields) == before
    try:
        expected = _estimate_as_before(body)
    except UnicodeEncodeError:  # a lone surrogate: raised as before
        with pytest.raises(UnicodeEncodeError):
            request_tokens.request_tokens(body, None)
    else:
        assert request_tokens.request_tokens(body, None) == expected


_STEP_OF = st.fixed_dictionaries(
    {"type": st.sampled_from(["llm_call", "tool_call", "http"])},
    optional={
        "name": st.text(max_size=5),
        "model": st.sampled_from(["gpt-4o-mini-2024-07-18", "claude-x", "unknown-9"]),
        "step": st.integers(0, 9),
        "usage": st.dictionaries(
            st.sampled_from(list(run_totals.USAGE_KEYS)), st.integers(0, 10**6), max_size=4
        ),
        "latency_ms": st.integers(0, 5000),
        "exchange": st.fixed_dictionaries(
            {
                "request": st.fixed_dictionaries(
                    {"body": st.dictionaries(st.text(max_size=8), _JSON)}
                )
            }
        ),
    },
)


@settings(max_examples=300, deadline=None)
@given(steps=st.lists(_STEP_OF, max_size=6), exact=st.booleans())
def test_property_calls_and_tokens_are_what_measure_says(
    steps: list[dict[str, Any]], exact: bool
) -> None:
    run_totals._RECENT.clear()
    try:
        full = run_totals._measure(steps, exact, {})
    except (TypeError, ValueError):
        return
    light = run_totals.calls_and_tokens(steps, exact=exact)
    for key in ("llm_calls", "tool_calls", "request_tokens", "steps", "tool_names", "counters"):
        assert getattr(light, key) == getattr(full, key)
    assert light.per_call["request_tokens"] == full.per_call["request_tokens"]


def test_a_price_looked_up_once_follows_the_users_prices() -> None:
    usage = {"input_tokens": 1_000_000, "output_tokens": 0}
    shipped = prices.cost(usage, "gpt-4o-mini-2024-07-18")
    assert shipped is not None and prices.price_for("gpt-4o-mini-2024-07-18") is not None
    prices.configure({"gpt-4o-mini": {"input": 7.0, "output": 9.0}})
    assert prices.cost(usage, "gpt-4o-mini-2024-07-18") == 7.0
    prices.configure(None)
    assert prices.cost(usage, "gpt-4o-mini-2024-07-18") == shipped
    assert prices.price_for("no-such-model-3") is None


# --------------------------------------------------------------------------- the codec view's copy


@settings(max_examples=300, deadline=None)
@given(
    value=st.recursive(
        st.one_of(_JSON, st.tuples(st.integers(), st.text(max_size=3)), st.sets(st.integers())),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.text(max_size=4), inner, max_size=3),
            st.dictionaries(st.text(max_size=4), inner, max_size=2).map(StoredExchange),
        ),
        max_leaves=12,
    )
)
def test_property_the_views_messages_copy_is_deepcopys(value: Any) -> None:
    from agentsnap.providers._common import _json_copy

    copied = _json_copy(value)
    assert shape(copied) == shape(copy.deepcopy(value))
    if isinstance(value, (dict, list)) and value:
        assert copied is not value  # a copy: the view never shares the request's containers


# --------------------------------------------------------------------------- a check's stored result


@dataclasses.dataclass
class _Inner:
    label: str
    value: Any = None


class _Pair(NamedTuple):
    left: Any
    right: Any


@dataclasses.dataclass
class _Result:
    passed: bool
    value: Any
    lines: list[str] = dataclasses.field(default_factory=list)


_RESULT_VALUES = st.recursive(
    st.one_of(_JSON, st.sets(st.integers(), max_size=2), st.just(b"raw"), st.just(1j)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=4), inner, max_size=3),
        st.dictionaries(st.tuples(st.integers(), st.text(max_size=2)), inner, max_size=2),
        st.builds(_Inner, st.text(max_size=4), inner),
        st.builds(_Pair, inner, inner),
        st.dictionaries(st.text(max_size=4), inner, max_size=2).map(
            lambda d: collections.defaultdict(list, d)
        ),
        st.dictionaries(st.text(max_size=4), inner, max_size=2).map(StoredExchange),
    ),
    max_leaves=15,
)


@settings(max_examples=400, deadline=None)
@given(value=_RESULT_VALUES, passed=st.booleans(), lines=st.lists(st.text(max_size=5), max_size=3))
def test_property_a_checks_stored_result_is_asdicts(
    value: Any, passed: bool, lines: list[str]
) -> None:
    result = _Result(passed, value, lines)
    try:
        expected = dataclasses.asdict(result)
    except (
        TypeError
    ):  # this Python's asdict refuses it (a defaultdict before 3.12): so does as_dict
        with pytest.raises(TypeError):
            as_dict(result)
        return
    got = as_dict(result)
    assert shape(got) == shape(expected)
    assert repr(got) == repr(expected)


def test_as_dict_refuses_what_asdict_refuses() -> None:
    for bad in (_Result, 3, {"passed": True}):
        with pytest.raises(TypeError):
            as_dict(bad)


# --------------------------------------------------------------------------- a literal's text

#: strings a rule changes (a token shape, a remembered credential, a user pattern's match, a
#: secret key's name), ones that only look odd (quotes, escapes, line separators) and plain text
_TOUCHY = st.sampled_from([*TOUCHY, "\ud800 lone"])
_TEXT = st.one_of(_TOUCHY, st.text(max_size=12))
_RULES = [None, {"patterns": ["acct_[0-9]+"]}]


def _setup(rules: object, remember: bool) -> None:
    scrub.forget_secrets()
    scrub.configure(rules)
    if remember:
        scrub.remember_credentials([("authorization", f"Bearer {SECRET}")])


def _by_json(content: bytes, rules: Any) -> bool:
    """``_leaves_alone`` as it was: every literal's text read by ``json.loads``."""
    try:
        text = json.loads(b'"' + content + b'"')
    except ValueError:
        return False
    return (
        isinstance(text, str)
        and not scrub_walk._secret_key(text)
        and scrub.scrub_text(text, rules) == text
    )


@settings(max_examples=400, deadline=None)
@given(
    text=_TEXT,
    ascii_only=st.booleans(),
    raw=st.binary(max_size=12),
    rules=st.sampled_from(_RULES),
    remember=st.booleans(),
)
def test_property_a_literal_read_without_json_loads_is_judged_as_before(
    text: str, ascii_only: bool, raw: bytes, rules: object, remember: bool
) -> None:
    """A literal with no escape and no control character is its text's UTF-8 bytes; any other
    (escapes, control characters, bytes that are not UTF-8) is still read by ``json.loads``. A
    literal that is not UTF-8 text is never left alone: the document is walked."""
    _setup(rules, remember)
    active = scrub.rules.active()
    literal = json.dumps(text, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")[1:-1]
    for content in (literal, raw, raw.replace(b"\\", b"")):
        fast = scrub_walk._leaves_alone(content, active)
        assert fast is _by_json(content, active) or (fast is False and _not_utf8(content))


def _not_utf8(content: bytes) -> bool:
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


# --------------------------------------------------------------------------- the .last_run text


_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(),  # NaN and Infinity too
    _TEXT,
)
_VALUES = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(_TEXT, inner, max_size=4),
        st.dictionaries(_TEXT, inner, max_size=3).map(StoredExchange),  # a dict subclass
    ),
    max_leaves=24,
)


def _dumps(value: object) -> str:
    """What the ``.last_run`` writer wrote before (``json.dumps``, surrogates escaped)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return escape_surrogates(text) + "\n"


@settings(max_examples=500, deadline=None)
@given(value=_VALUES, prepared=st.booleans())
def test_property_the_compact_bytes_read_back_as_json_dumps_wrote_it(
    value: Any, prepared: bool
) -> None:
    data = {"trace": [prepare({"v": value})["v"] if prepared else to_json(value)], "raw": value}
    try:
        before = _dumps(data)
    except (TypeError, ValueError):  # keys json cannot sort (a str among ints): not prepared
        return
    raw = compact_bytes(data)
    text = raw.decode("utf-8")  # UTF-8: no lone surrogate
    assert text.endswith("\n")
    assert shape(json.loads(text)) == shape(json.loads(before))
    if "e" not in before and "E" not in before:  # no float in exponent form: the same bytes
        assert text == before


@settings(max_examples=300, deadline=None)
@given(
    steps=st.lists(_VALUES, max_size=4),
    top=st.dictionaries(st.sampled_from(["name", "output", "approved", "zeta", "a"]), _VALUES),
)
def test_property_the_pieces_join_to_the_compact_bytes(
    steps: list[Any], top: dict[str, Any]
) -> None:
    """A large run's ``.last_run`` is written a step at a time: the same bytes as the whole
    document at once, whatever the steps hold (NaN, lone surrogates, dict subclasses)."""
    data = {**top, "trace": [to_json(step) for step in steps]}
    try:
        whole = compact_bytes(data)
    except (TypeError, ValueError):  # keys json cannot sort: never in a prepared snapshot
        return
    joined = b"".join(compact_pieces(data))
    assert shape(json.loads(joined)) == shape(json.loads(whole))
    if not _has_float(data):
        assert joined == whole  # (a float may be spelled as the other encoder spells it)


def _has_float(value: object) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False


@settings(max_examples=500, deadline=None)
@given(
    packed=st.lists(
        st.sampled_from([b"\xcb", b"\x7f", b"\xff", b"\xf0", b"\xef", b"\x00", b"ab"]),
        max_size=120,
    ).map(b"".join)
)
@example(packed=b"\xcb" * 40 + b"\x7f\xf8")  # past the markers looked at one by one
@example(packed=b"\xcb\x7f")  # a marker at the end, short of a float
def test_property_the_finite_look_answers_as_the_pattern(packed: bytes) -> None:
    from agentsnap.storage.serialize import _non_finite

    assert finite_msgpack(packed) is (_non_finite().search(packed) is None)


def test_a_trace_known_finite_is_written_as_before() -> None:
    trace = [{"a": 1.5, "b": [None, "x"]}, {"c": {"d": 2}}]
    for top in ({"name": "n", "score": 1.0}, {"name": "n", "score": float("nan")}):
        data = {**top, "trace": trace}
        assert compact_bytes(data, finite_trace=True) == compact_bytes(data)
    # what is outside the trace is still looked at: NaN there takes json.dumps
    data = {"score": float("inf"), "trace": trace}
    assert compact_bytes(data, finite_trace=True) == _dumps(data).encode("utf-8")


def test_nan_infinity_and_surrogates_take_json_dumps() -> None:
    for odd in (float("nan"), float("inf"), -float("inf"), "\udc80"):
        data = {"response": {"value": odd, "note": None}}
        assert compact_bytes(data) == _dumps(data).encode("utf-8")
    assert compact_bytes({"b": 1e16, "a": [0.5, None]}) == b'{"a":[0.5,null],"b":1e16}\n'


def test_a_replayed_tests_last_run_reads_back_as_its_run(tmp_path: Path) -> None:
    with fp.FakeOpenAI() as fake:
        fake.script(fp.text_reply("Sunny, 21 °C ☀."))
        with AgentRecorder("cost::last", snapshot_dir=tmp_path):
            _agent(fake, ["Weather in Paris? \u2028 é"])
        with AgentAsserter("cost::last", snapshot_dir=tmp_path, mode="replay") as block:
            assert _agent(fake, ["Weather in Paris? \u2028 é"]) == "Sunny, 21 °C ☀."
    store = SnapshotStore(tmp_path)
    raw = store.last_run_path("cost::last").read_text(encoding="utf-8")
    assert block.outcome is not None and block.outcome.new is not None
    from agentsnap.storage.store import _prepared_dict

    assert json.loads(raw) == json.loads(_dumps(_prepared_dict(block.outcome.new)))
    last = store.read_file(store.last_run_path("cost::last"))
    assert last.trace == block.outcome.new.trace


@pytest.mark.parametrize("form", ["hashed", "plain"])
def test_the_last_run_is_kept_under_the_file_name_the_golden_was_found_by(
    tmp_path: Path, form: str
) -> None:
    """settle hands the golden's file, located once, to ``save_last_run``: the same file name
    ``last_run_path`` looks up, whichever of the name's forms holds the golden."""
    store = SnapshotStore(tmp_path)
    hashed, plain = store.candidates("weather")
    with fp.FakeOpenAI() as fake:
        fake.script(fp.text_reply("Sunny."))
        with AgentRecorder("weather", snapshot_dir=tmp_path):
            _agent(fake, ["Weather in Paris?"])
        found = store.locate("weather")
        assert found is not None
        wanted = hashed if form == "hashed" else plain
        if found != wanted:
            found.rename(wanted)
        with AgentAsserter("weather", snapshot_dir=tmp_path, mode="replay"):
            _agent(fake, ["Weather in Paris?"])
    assert store.last_run_path("weather") == tmp_path / ".last_run" / wanted.name
    assert sorted(p.name for p in (tmp_path / ".last_run").glob("*.json")) == [wanted.name]


def test_the_compact_bytes_hold_one_copy_of_the_document_at_their_peak() -> None:
    """A big run's ``.last_run`` is made as bytes, its MessagePack check dropped before the
    JSON is made: the peak is about one copy of the output (the text of it, then the bytes
    written, and the check's MessagePack alongside the JSON held three more before)."""
    import tracemalloc

    step = {"content": "The weather in Paris is sunny, 24 °C.", "n": 1.5, "ok": True}
    data = {"trace": [dict(step, i=i) for i in range(20_000)]}
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        out = compact_bytes(data)
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert json.loads(out) == json.loads(_dumps(data))
    assert peak < 1.5 * len(out), (peak, len(out))


def test_the_pieces_of_a_large_run_hold_one_step_at_a_time() -> None:
    """The record of a 20,000-step run made in pieces never holds the document: the peak while
    making (and dropping) every piece is a small part of the whole output's size."""
    import tracemalloc

    step = {"content": "The weather in Paris is sunny, 24 °C.", "n": 1.5, "ok": True}
    data = {"name": "big", "trace": [dict(step, i=i) for i in range(20_000)]}
    size = len(compact_bytes(data))
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        written = sum(len(piece) for piece in compact_pieces(data))
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert written == size
    assert peak < size / 50, (peak, size)


@pytest.mark.parametrize("writer", [False, True], ids=["outside-pytest", "session-writer"])
def test_a_large_replayed_run_writes_its_last_run_in_pieces_with_the_same_bytes(
    tmp_path: Path, writer: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run of ``PIECES_FROM_STEPS`` steps or more: its ``.last_run`` is written a step at a
    time, with or without the session's writer, and the file is the bytes the whole document
    would have been."""
    from agentsnap.storage import store as store_module

    monkeypatch.setattr(store_module, "PIECES_FROM_STEPS", 3)
    questions = [f"Weather in city {i}?" for i in range(4)]
    with fp.FakeOpenAI() as fake:
        fake.script(*(fp.text_reply(f"Sunny in city {i}.") for i in range(4)))
        with AgentRecorder("cost::large", snapshot_dir=tmp_path):
            _agent(fake, questions)
        block = AgentAsserter("cost::large", snapshot_dir=tmp_path, mode="replay")
        if writer:
            block.store.writer = LastRunWriter()
        with block:
            _agent(fake, questions)
    if writer:
        assert block.store.writer is not None and block.store.writer.close() == []
    assert block.outcome is not None and block.outcome.new is not None
    assert len(block.outcome.new.trace) >= 3
    from agentsnap.storage.store import _prepared_dict

    path = SnapshotStore(tmp_path).last_run_path("cost::large")
    assert path.read_bytes() == compact_bytes(_prepared_dict(block.outcome.new))
