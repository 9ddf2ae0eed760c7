"""A trace compared with itself: the report kept for its shape is the report of the checks
(``diff._compare._itself_shape``), and a replayed run made of its golden's values is compared
as one trace (``lifecycle.compare_run``) with the same report, ``comparison`` and budget row.

The reference is ``run_checks(..., full=True)``: every check in full. Each example first
compares another trace drawn independently (so a shape that leaves out what a report depends
on hands that trace's report to this one), then the trace itself, twice (kept, then read back).
"""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsnap.config import Settings
from agentsnap.diff import _compare
from agentsnap.diff.checks import CheckResult, register_check, unregister_check
from agentsnap.diff.checks._api import Check, CheckContext
from agentsnap.diff.report import DiffReport
from agentsnap.knobs import CompareOptions
from agentsnap.lifecycle import compare_run
from agentsnap.storage.snapshot import Snapshot

#: options a pytest run may compare with, failing ones among them (one validated object each,
#: as ``compute_diff`` reuses them)
OPTIONS = [
    {"compare_requests": True},
    {"compare_requests": False},
    {"compare_requests": True, "semantic_threshold": 1.0, "llm_threshold": 0.5},
    {"compare_requests": True, "trajectory": "unordered", "structural_tolerance": 1},
    {"compare_requests": True, "before": [["a", "b"]], "tools": {"a": {"optional": True}}},
    {"compare_requests": True, "ignored_fields": ["ts"], "strict": True, "strict_facts": True},
    {"compare_requests": True, "weights": {"output": 2.0}},
    {"compare_requests": True, "budgets": {"max_llm_calls": 1}},  # fails past one call
    {"compare_requests": True, "min_score": 0.5, "gate": "score"},
    {"compare_requests": True, "validate_tool_calls": "on"},
    {"compare_requests": False, "validate_tool_calls": "off"},
    {"compare_requests": True, "llm_threshold": -0.0, "semantic_threshold": 0.0},
]

texts = st.sampled_from(["Sunny, 21 °C.", "Rain.", "", "It is 3 pm."])


@st.composite
def llm_step(draw: Any) -> dict[str, Any]:
    step: dict[str, Any] = {
        "type": draw(st.sampled_from(["llm_call"] * 8 + ["tool_call", "http"])),
        "provider": "openai",
        "model": draw(st.sampled_from(["gpt-4o-mini", "gpt-4.1"])),
        "messages": [{"role": "user", "content": draw(texts)}],
        "response": draw(st.none() | texts),
        "usage": {"input_tokens": draw(st.integers(0, 9)), "output_tokens": 3},
    }
    kind = draw(st.sampled_from(["absent", "empty", "none", "some"]))
    if kind != "absent":
        step["tool_requests"] = {"empty": [], "none": None, "some": [{"name": "a", "args": {}}]}[
            kind
        ]
    if draw(st.integers(0, 5)):  # a recorded exchange (else messages only)
        body = {"model": step["model"], "messages": copy.deepcopy(step["messages"])}
        step["exchange"] = {"request": {"body": body}, "response": {"status": 200}}
    if step["type"] == "tool_call":
        step.update(name="a", args={"ts": 1})
    return step


@st.composite
def traces(draw: Any) -> dict[str, Any]:
    steps = draw(st.lists(llm_step(), max_size=5))
    numbering = draw(st.sampled_from(["index", "offset", "missing", "bool"]))
    for index, step in enumerate(steps):
        if numbering == "index":
            step["step"] = index
        elif numbering == "offset":
            step["step"] = index + 3
        elif numbering == "bool":
            step["step"] = bool(index % 2)  # not a step number: the index counts
    output = draw(st.none() | texts | st.just({"answer": 1}))
    return {
        "version": draw(st.sampled_from(["2.0", "2.0", "1.0"])),
        "trace": steps,
        "output": output,
    }


def _sides(snap: dict[str, Any], other_output: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The golden and a run holding the same list of steps (and the same output or another)."""
    new = {**snap, "output": "Something else." if other_output else snap["output"]}
    return snap, new


def _whole(report: DiffReport) -> str:
    """Every field of a report (types told apart) and its text."""
    fields = dataclasses.asdict(report)
    return repr(fields) + json.dumps(fields, default=repr) + report.render(color=False)


def _options(index: int) -> CompareOptions:
    return _compare._validated(CompareOptions(**OPTIONS[index]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(), traces(), st.booleans(), st.integers(0, len(OPTIONS) - 1))
def test_a_trace_compared_with_itself_has_the_report_of_every_check(
    before: dict[str, Any], snap: dict[str, Any], other_output: bool, index: int
) -> None:
    opts = _options(index)
    _compare.run_checks(*_sides(before, False), opts, name="before")
    golden, new = _sides(snap, other_output)
    expected = _whole(_compare.run_checks(golden, new, opts, name="t", full=True))
    for _ in range(2):
        assert _whole(_compare.run_checks(golden, new, opts, name="t")) == expected


def test_the_report_is_kept_per_shape_and_read_back_as_new_objects() -> None:
    step = {
        "type": "llm_call",
        "response": "ok",
        "tool_requests": [],
        "exchange": {"request": {"body": {"messages": []}}},
    }
    snap = {"version": "2.0", "trace": [dict(step, step=0), dict(step, step=1)], "output": "ok"}
    opts = _options(0)
    shape = _compare._itself_shape(snap, snap, snap["trace"], opts, False)
    assert shape is not None
    first = _compare.run_checks(snap, snap, opts, name="one")
    assert shape in _compare._ITSELF
    again = _compare.run_checks(snap, snap, opts, name="two")
    assert again.name == "two" and dataclasses.replace(again, name="one") == first
    again.details["semantic"]["output"]["passed"] = False  # a caller's change stays its own
    assert _compare.run_checks(snap, snap, opts).details["semantic"]["output"]["passed"] is True
    # what can fail on identical sides, or is read besides the shape: the checks answer
    for index in (7, 8, 9):
        assert _compare._itself_shape(snap, snap, snap["trace"], _options(index), False) is None
    other = {**snap, "output": "other"}
    assert _compare._itself_shape(snap, other, snap["trace"], opts, False) is None


def test_a_knob_declared_later_is_in_the_settings_of_a_trace_compared_with_itself() -> None:
    from agentsnap import knobs

    step = {"type": "llm_call", "tool_requests": [], "exchange": {"request": {"body": {}}}}
    snap = {"version": "2.0", "trace": [step], "output": "ok"}
    opts = _options(0)
    assert "cmp35_knob" not in _compare.run_checks(snap, snap, opts).details["settings"]
    knobs.declare(knobs.Knob("cmp35_knob", 3, "a test knob", check=int))
    try:
        settings = _compare.run_checks(snap, snap, opts).details["settings"]
        assert settings["cmp35_knob"] == 3
    finally:
        knobs.forget("cmp35_knob")


class _Always(Check[CheckResult]):
    """Fails whatever it compares."""

    name = "always_fails"

    def run(self, ctx: CheckContext) -> CheckResult:
        return CheckResult(False, "no")


def test_a_registered_check_runs_on_a_trace_compared_with_itself() -> None:
    step = {"type": "llm_call", "tool_requests": [], "exchange": {"request": {"body": {}}}}
    snap = {"version": "2.0", "trace": [step], "output": "ok"}
    opts = _options(0)
    assert _compare.run_checks(snap, snap, opts).passed
    register_check(_Always())
    try:
        assert _compare._itself_shape(snap, snap, snap["trace"], opts, False) is None
        assert _compare.run_checks(snap, snap, opts).failed_checks == ["always_fails"]
    finally:
        unregister_check("always_fails")


# -- compare_run: a replayed run made of its golden's values ------------------------------------

OVERRIDES = [
    None,
    {"min_score": 0.9, "gate": "score"},
    {"budgets": {"max_llm_calls": 1}},
    {"budgets": {"max_latency_growth": 0.1}},  # (the golden's latency_ms: read in a live run)
    {"semantic_threshold": 1.0, "strict": True},
    {"weights": {"output": 3.0}},
]


def _golden(snap: dict[str, Any]) -> Snapshot:
    steps = copy.deepcopy(snap["trace"])
    for number, step in enumerate(steps):
        step["latency_ms"] = 10 * number
    output = snap["output"]
    return Snapshot(name="g::t", trace=steps, output=output, model="gpt-4o-mini")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(), st.integers(0, len(OVERRIDES) - 1), st.sampled_from(["replay", "live"]))
def test_a_run_of_its_goldens_values_is_compared_as_the_same_run_built_anew(
    snap: dict[str, Any], index: int, mode: str
) -> None:
    golden = _golden(snap)
    # the run's steps: the golden's values themselves, without latency_ms (golden_run), and
    # the same steps built anew (equal values, other objects: every check runs)
    again = [{k: v for k, v in step.items() if k != "latency_ms"} for step in golden.trace]
    built = copy.deepcopy(again)
    reports = []
    for steps in (again, built, again):
        new = Snapshot(name="g::t", trace=steps, output=copy.deepcopy(golden.output), model="m")
        report, run = compare_run(
            golden, new, Settings(mode=mode), mode=mode, overrides=OVERRIDES[index]
        )
        assert run is None
        reports.append(_whole(report))
    assert reports[0] == reports[1] == reports[2]


@pytest.mark.parametrize("drop", ["latency", "value", "key"])
def test_a_run_that_is_not_its_goldens_values_is_compared_in_full(drop: str) -> None:
    from agentsnap import lifecycle

    step = {"type": "llm_call", "response": "ok", "latency_ms": 4, "usage": {"input_tokens": 1}}
    golden = [step]
    run = [{k: v for k, v in step.items() if k != "latency_ms"}]
    assert lifecycle._golden_steps(golden, run)
    if drop == "latency":
        run[0]["latency_ms"] = 4
    elif drop == "value":
        run[0]["usage"] = dict(step["usage"])  # equal, not the golden's own
    else:
        del run[0]["usage"]
    assert not lifecycle._golden_steps(golden, run)


# -- _validated: options remembered by their values, exact types at every level ------------------

_LOOKALIKES = {
    "structural_tolerance": [0, 1, True, False, 1.0],
    "semantic_threshold": [1, 1.0, True, 0.0, -0.0, 0.5],
    "before": [[], [["a", "b"]], (("a", "b"),), [("a", "b")], [["a", 1]]],
    "tools": [{}, {"a": {"optional": True}}, {"a": {"optional": 1}}, {"a": {"args": "subset"}}],
    "ignored_fields": [[], ["x"], ("x",), "x", None],
    "weights": [None, {"output": 1}, {"output": 1.0}, {"output": True}],
}


def _outcome(opts: CompareOptions, remembered: bool) -> str:
    try:
        checked = _compare._validated(opts) if remembered else opts.validated()
    except (TypeError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return repr([(f.name, getattr(checked, f.name)) for f in dataclasses.fields(checked)])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries({k: st.sampled_from(v) for k, v in _LOOKALIKES.items()}),
        min_size=1,
        max_size=4,
    )
)
def test_remembered_options_are_the_options_validated_each_time(
    picks: list[dict[str, Any]],
) -> None:
    """Values equal to Python but not alike to the rules (``True`` / ``1`` / ``1.0``, ``-0.0`` /
    ``0.0``, a tuple for a list, at any depth) are never taken for one another."""
    for values in picks:
        opts = CompareOptions(**copy.deepcopy(values))
        assert _outcome(opts, True) == _outcome(CompareOptions(**copy.deepcopy(values)), False)


# -- the report read back: a new one at each call, of the same types and values --------------------

_plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0.0, -0.0, 1, 1.0, True])
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


def _holds_a_tuple(value: object) -> bool:
    if isinstance(value, tuple):
        return True
    if isinstance(value, dict):
        return any(_holds_a_tuple(v) for v in value.values())
    return isinstance(value, list) and any(_holds_a_tuple(v) for v in value)


def _holds_a_wide_int(value: object) -> bool:
    if type(value) is int:
        return not -(2**63) <= value < 2**64
    if isinstance(value, dict):
        return any(_holds_a_wide_int(v) for v in value.values())
    return isinstance(value, (list, tuple)) and any(_holds_a_wide_int(v) for v in value)


def _containers(value: object) -> list[int]:
    if isinstance(value, dict):
        return [id(value), *(i for v in value.values() for i in _containers(v))]
    if isinstance(value, list):
        return [id(value), *(i for v in value for i in _containers(v))]
    if isinstance(value, tuple):
        return [i for v in value for i in _containers(v)]
    return []


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=5), _plain, max_size=4))
def test_a_kept_report_is_made_anew_with_the_same_types_and_values(value: dict[str, Any]) -> None:
    if _holds_a_tuple(value) or _holds_a_wide_int(value):  # read back as a list / not written
        with pytest.raises(_compare._NotLiteral):
            _compare._maker(value)
        return
    make = _compare._maker(value)
    first, second = make(), make()
    assert repr(first) == repr(second) == repr(value) and first == value
    mine = set(_containers(first))
    assert not mine & set(_containers(second)) and not mine & set(_containers(value))


@pytest.mark.parametrize(
    "odd", [float("nan"), float("inf"), {1, 2}, b"x", type("S", (str,), {})("s"), object()]
)
def test_a_value_no_literal_writes_is_not_kept(odd: object) -> None:
    with pytest.raises(_compare._NotLiteral):
        _compare._maker({"details": {"x": [odd]}})


def test_a_report_too_deep_to_compile_is_not_kept() -> None:
    deep: list[Any] = []
    for _ in range(2000):
        deep = [deep]
    before = len(_compare._ITSELF)
    _compare._remember_itself(("deep",), _options(0), DiffReport(details={"x": deep}))
    assert ("deep",) not in _compare._ITSELF and len(_compare._ITSELF) <= max(before, 1)
