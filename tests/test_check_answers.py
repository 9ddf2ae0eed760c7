"""A check's answer from identical inputs is the answer of its full work (issue 30).

* a check may declare the inputs it reads (``Check.reads``, or its own ``same_inputs``);
  when the golden's and the run's are the same, ``unchanged`` answers (``llm_requests``:
  each request body the same, in replay the golden's own dict);
* inside the checks, the same calls in the same order are paired with themselves without
  the ranking of every order (``trajectory._same_calls``), and two identical texts are
  scored 1.0 / ``identical`` without the general path (``semantic._identical``).

The reference is ``run_checks(..., full=True)`` with those two inner short cuts switched off:
the algorithms as they were. Reports are compared whole (every field, the text report).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsnap import AgentAsserter, AgentRecorder
from agentsnap.diff import _compare, sequence, trajectory
from agentsnap.diff._compare import run_checks
from agentsnap.diff.checks import (
    Check,
    CheckContext,
    CheckResult,
    register_check,
    registered_checks,
    semantic,
    unregister_check,
)
from agentsnap.diff.report import DiffReport
from agentsnap.jsondiff import same_json
from agentsnap.knobs import CompareOptions
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests._support.json_trees import json_trees

TOOLS = st.sampled_from(["get_weather", "get_time", "search"])
json_values = json_trees(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_infinity=False)  # NaN included
    | st.sampled_from([0.0, -0.0, 1.0])
    | st.text(max_size=6),
    max_leaves=8,
)
args = st.dictionaries(st.sampled_from(["city", "day", "ts"]), json_values, max_size=3)


@st.composite
def tool_step(draw: Any) -> dict[str, Any]:
    return {"type": "tool_call", "name": draw(TOOLS), "args": draw(args), "result": "ok"}


@st.composite
def llm_step(draw: Any) -> dict[str, Any]:
    question = draw(st.sampled_from(["Weather?", "And tomorrow?", "Time?"]))
    messages = [{"role": "user", "content": question}]
    requests = draw(st.lists(st.fixed_dictionaries({"name": TOOLS, "args": args}), max_size=2))
    step: dict[str, Any] = {
        "type": "llm_call",
        "provider": "openai",
        "model": "gpt-4o-mini",
        "messages": messages,
        "response": draw(st.sampled_from(["Sunny, 21 °C.", "Rain.", "It is 3 pm.", ""])),
        "tool_requests": requests,
        "latency_ms": draw(st.integers(0, 900)),
        "usage": {"prompt_tokens": 9, "completion_tokens": 3},
    }
    if draw(st.booleans()):  # a recorded exchange (else 0.5.1's form: messages only)
        body = {"model": "gpt-4o-mini", "messages": copy.deepcopy(messages)}
        step["exchange"] = {"request": {"body": body}, "response": {"status": 200}}
    return step


@st.composite
def goldens(draw: Any) -> dict[str, Any]:
    steps = draw(st.lists(st.one_of(tool_step(), llm_step()), max_size=7))
    for number, step in enumerate(steps):
        step["step"] = number
    return {
        "version": draw(st.sampled_from(["2.0", "1.0"])),
        "trace": steps,
        "output": draw(json_values | st.sampled_from(["The weather is sunny.", ""])),
    }


#: one field of the run changed, or none (replay: the golden's exchanges, no latency)
DRIFTS = [
    "none",
    "replayed",
    "name",
    "args",
    "response",
    "request",
    "messages",
    "tool_requests",
    "type",
    "output",
    "int_float",
]


def _run_of(golden: dict[str, Any], drift: str, at: int) -> dict[str, Any]:
    new = copy.deepcopy(golden)
    steps = new["trace"]
    if drift == "replayed":
        for g_step, n_step in zip(golden["trace"], steps, strict=True):
            n_step.pop("latency_ms", None)
            if "exchange" in g_step:
                n_step["exchange"] = g_step["exchange"]  # served from the golden: its own dicts
        return new
    if drift == "output":
        new["output"] = "Something else entirely."
        return new
    if not steps:
        return new
    step = steps[at % len(steps)]
    if drift == "name" and step["type"] == "tool_call":
        step["name"] = step["name"] + "_v2"
    elif drift == "args" and step["type"] == "tool_call":
        step["args"] = {**step["args"], "city": "Lyon"}
    elif drift == "int_float" and step["type"] == "tool_call":
        step["args"] = {**step["args"], "ts": 1.0 if step["args"].get("ts") == 1 else 1}
    elif drift == "response" and step["type"] == "llm_call":
        step["response"] = "Snow, 2 °C."
    elif drift == "request" and "exchange" in step:
        step["exchange"]["request"]["body"]["temperature"] = 0.2
    elif drift == "messages" and step["type"] == "llm_call":
        step["messages"] = [*step["messages"], {"role": "user", "content": "More?"}]
    elif drift == "tool_requests" and step["type"] == "llm_call":
        step["tool_requests"] = [*step["tool_requests"], {"name": "search", "args": {}}]
    elif drift == "type":
        step["type"] = "http"
    return new


options = st.builds(
    CompareOptions,
    trajectory=st.sampled_from(["turns", "strict", "unordered", "subset", "superset"]),
    tool_args=st.sampled_from(["exact", "ignore", "subset", "superset"]),
    tools=st.sampled_from([{}, {"search": {"optional": True}}, {"get_time": {"args": "ignore"}}]),
    before=st.sampled_from([[], [["get_time", "get_weather"]]]),
    ignored_fields=st.sampled_from([[], ["ts"]]),
    compare_requests=st.booleans(),
    strict=st.booleans(),
    structural_tolerance=st.integers(0, 1),
    embedding_backend=st.just("lexical"),
)


def _whole(report: DiffReport) -> str:
    """Every field of a report and its text, as one comparable string (NaN compares as text)."""
    fields = dataclasses.asdict(report)
    return json.dumps(fields, sort_keys=True, default=repr) + "\n" + report.render(color=False)


def _reference(golden: dict[str, Any], new: dict[str, Any], opts: CompareOptions) -> DiffReport:
    """Every check in full, the two inner short cuts switched off."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(trajectory, "_same_calls", lambda *_: False)
        mp.setattr(semantic, "_identical", lambda *_: None)
        return run_checks(golden, new, opts, full=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(goldens(), st.sampled_from(DRIFTS), st.integers(0, 20), options)
def test_the_short_answers_give_the_report_of_the_full_comparison(
    golden: dict[str, Any], drift: str, at: int, opts: CompareOptions
) -> None:
    new = _run_of(golden, drift, at)
    opts = opts.validated()
    assert _whole(run_checks(golden, new, opts)) == _whole(_reference(golden, new, opts))


@settings(max_examples=60, deadline=None)
@given(goldens())
def test_a_replayed_run_answers_the_request_check_without_its_diff(golden: dict[str, Any]) -> None:
    new = _run_of(golden, "replayed", 0)
    opts = CompareOptions(compare_requests=True, embedding_backend="lexical").validated()
    check = next(c for c in registered_checks() if c.name == "llm_requests")
    ctx = CheckContext(golden, new, golden["trace"], new["trace"], opts, (), False)
    assert check.same_inputs(ctx)  # the served bodies are the golden's own dicts
    assert check.unchanged(ctx) == check.run(ctx)
    assert not check.unchanged(ctx).entries


def test_same_json_tells_apart_what_a_comparison_can_see() -> None:
    nan = float("nan")
    assert same_json({"a": [1, "x"]}, {"a": [1, "x"]})
    assert not same_json({"a": 1}, {"a": 1.0})  # == says equal; the report shows 1 vs 1.0
    assert not same_json(True, 1) and not same_json([True], [1])
    assert not same_json(-0.0, 0.0) and not same_json({"t": -0.0}, {"t": 0.0})
    assert not same_json(nan, nan) and not same_json({"v": nan}, {"v": float("nan")})
    shared = {"v": nan}
    assert same_json(shared, shared)  # the same object: the same to every comparison
    assert not same_json(tuple([1]), tuple([1]))  # not JSON: the caller compares in full
    assert same_json(None, None) and not same_json(None, "")


# --------------------------------------------------------------------------- registered checks


@dataclasses.dataclass
class SeenResult(CheckResult):
    steps: int = 0


class _Counting(Check[SeenResult]):
    """Counts its full runs and its short answers."""

    name = "counting"

    def __init__(self) -> None:
        self.runs = 0
        self.short = 0

    def run(self, ctx: CheckContext) -> SeenResult:
        self.runs += 1
        return SeenResult(passed=True, summary="ran", steps=len(ctx.new_steps))


class _Declared(_Counting):
    """Reads each step's ``type`` and ``response`` and the output."""

    name = "declared"
    reads = ("type", "response")
    reads_snapshot = ("output",)

    def unchanged(self, ctx: CheckContext) -> SeenResult:
        self.short += 1
        return SeenResult(passed=True, summary="ran", steps=len(ctx.new_steps))


@pytest.fixture
def two_checks() -> Iterator[tuple[_Counting, _Declared]]:
    plain, declared = _Counting(), _Declared()
    register_check(plain)
    register_check(declared)
    yield plain, declared
    unregister_check("counting")
    unregister_check("declared")


GOLDEN = {
    "trace": [
        {"type": "llm_call", "step": 0, "response": "Sunny.", "latency_ms": 120},
        {"type": "tool_call", "step": 1, "name": "get_weather", "args": {"city": "Paris"}},
    ],
    "output": "Sunny.",
}


def test_a_registered_check_runs_in_full_unless_it_declares_its_inputs(
    two_checks: tuple[_Counting, _Declared],
) -> None:
    plain, declared = two_checks
    opts = CompareOptions().validated()
    same = copy.deepcopy(GOLDEN)
    del same["trace"][0]["latency_ms"]  # a replayed step: no latency, which neither reads
    first = run_checks(GOLDEN, same, opts)
    assert (plain.runs, plain.short, declared.runs, declared.short) == (1, 0, 0, 1)
    assert first.details["checks"]["declared"] == {
        "passed": True,
        "summary": "ran",
        "lines": [],
        "steps": 2,
    }

    drifted = copy.deepcopy(GOLDEN)
    drifted["trace"][0]["response"] = "Rain."
    run_checks(GOLDEN, drifted, opts)
    assert (plain.runs, declared.runs, declared.short) == (2, 1, 1)
    absent = copy.deepcopy(GOLDEN)
    del absent["trace"][1]["step"]  # a key it does not read
    del absent["output"]  # absent is not None: a snapshot key it reads
    run_checks({**GOLDEN, "output": None}, absent, opts)
    assert (declared.runs, declared.short) == (2, 1)
    run_checks(GOLDEN, same, opts, full=True)
    assert (plain.runs, declared.runs, declared.short) == (4, 3, 1)


def test_a_subclass_that_overrides_run_alone_runs_in_full() -> None:
    """A user's subclass of a built-in check that changes ``run`` (and not what it reads) is not
    answered by its parent's short answer: ``run`` decides, also on identical inputs."""
    from agentsnap.diff.checks.llm_requests import LLMRequestsCheck, LLMRequestsResult

    class NoMoreThanOneCall(LLMRequestsCheck):
        name = "one_call"

        def run(self, ctx: CheckContext) -> LLMRequestsResult:
            from agentsnap.jsondiff import diff_values

            result = super().run(ctx)
            if len(result.new) > 1:  # a rule of its own: one LLM call at most
                (g_no, _), (n_no, _) = result.golden[1], result.new[1]
                changes = diff_values({"calls": 1}, {"calls": len(result.new)}, root="")
                entry = {"check": self.name, "index": 1, "tool": None, "changes": changes}
                result.entries.append({**entry, "golden_step": g_no, "new_step": n_no})
            return result

    class Declares(NoMoreThanOneCall):
        name = "one_call_declared"

        def same_inputs(self, ctx: CheckContext) -> bool:
            return True  # (wrongly) declared by the class below its run: trusted as declared

    two_calls = {
        "trace": [
            {"type": "llm_call", "step": 0, "exchange": {"request": {"body": {"q": 1}}}},
            {"type": "llm_call", "step": 1, "exchange": {"request": {"body": {"q": 2}}}},
        ],
        "output": "Sunny.",
    }
    opts = CompareOptions(compare_requests=True).validated()
    for check in (NoMoreThanOneCall(), Declares()):
        register_check(check)
    try:
        ctx_golden, ctx_new = copy.deepcopy(two_calls), copy.deepcopy(two_calls)
        report = run_checks(ctx_golden, ctx_new, opts)
        assert "one_call" in report.failed_checks  # its own run: the rule it adds holds
        assert "one_call_declared" not in report.failed_checks  # its declared short answer
        assert "llm_requests" not in report.failed_checks
    finally:
        unregister_check("one_call")
        unregister_check("one_call_declared")


# --------------------------------------------------------------------------- a real replay

openai = pytest.importorskip("openai")

from tests import fake_provider as fp
from tests._support.chat_agent import chat_agent

_agent = chat_agent


def _replay(fake: fp.FakeOpenAI, where: Path, questions: list[str]) -> DiffReport:
    with AgentAsserter("answers::replay", snapshot_dir=where, mode="replay") as block:
        assert _agent(fake, questions) == "Sunny, 21 °C."
    outcome = block.outcome
    assert outcome is not None and outcome.action == "passed" and outcome.report is not None
    assert outcome.golden is not None and outcome.new is not None
    golden, new = outcome.golden.to_dict(), outcome.new.to_dict()
    assert "latency_ms" in golden["trace"][0] and "latency_ms" not in new["trace"][0]
    report: DiffReport = outcome.report
    return report


@pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")
def test_a_replayed_test_is_judged_as_by_the_full_comparison(tmp_path: Path) -> None:
    questions = ["Weather in Paris?", "And tomorrow?"]
    with fp.FakeOpenAI() as fake:
        fake.script(*(fp.text_reply(f"Sunny, {20 + i} °C.") for i in range(2)))
        with AgentRecorder("answers::replay", snapshot_dir=tmp_path):
            _agent(fake, questions)
        short = _replay(fake, tmp_path, questions)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(trajectory, "_same_calls", lambda *_: False)
            mp.setattr(semantic, "_identical", lambda *_: None)
            mp.setattr(_compare, "run_checks", functools.partial(_compare.run_checks, full=True))
            full = _replay(fake, tmp_path, questions)
    assert _whole(short) == _whole(full)
    assert short.details["semantic"]["output"]["verdict"] == "identical"
    assert "[SEMANTIC] ok" in short.render(color=False)


def test_one_exchange_on_both_sides_is_one_request_and_a_bodiless_one_still_reads_messages() -> (
    None
):
    """``llm_requests``' same inputs: a step pair holding one exchange object (a replayed call)
    with a request body sends the same request; without a body the messages still decide."""
    check = next(c for c in registered_checks() if c.name == "llm_requests")
    opts = CompareOptions(compare_requests=True, embedding_backend="lexical").validated()

    def ctx(g: dict[str, Any], n: dict[str, Any]) -> CheckContext:
        return CheckContext({"trace": [g]}, {"trace": [n]}, [g], [n], opts, (), False)

    shared = {"request": {"body": {"messages": [{"role": "user", "content": "hi"}]}}}
    assert check.same_inputs(
        ctx({"type": "llm_call", "exchange": shared}, {"type": "llm_call", "exchange": shared})
    )
    bodiless = {"request": {"method": "POST"}}
    g = {"type": "llm_call", "exchange": bodiless, "messages": [{"content": "a"}]}
    n = {"type": "llm_call", "exchange": bodiless, "messages": [{"content": "b"}]}
    assert not check.same_inputs(ctx(g, n))
    assert check.same_inputs(ctx(g, {**n, "messages": [{"content": "a"}]}))
    other = copy.deepcopy(shared)
    assert check.same_inputs(
        ctx({"type": "llm_call", "exchange": shared}, {"type": "llm_call", "exchange": other})
    )
    other["request"]["body"]["messages"][0]["content"] = "bye"
    assert not check.same_inputs(
        ctx({"type": "llm_call", "exchange": shared}, {"type": "llm_call", "exchange": other})
    )


@settings(max_examples=40, deadline=None)
@given(goldens())
def test_a_run_compared_with_its_own_steps_reports_as_the_full_comparison_each_value_its_own(
    golden: dict[str, Any],
) -> None:
    """A run proven its golden's is compared with its own step objects on both sides (a large
    golden's, agentsnap.lifecycle.compare_run): the llm_call pairs are found once for both sides,
    and each identical text's details are a dict of its own (lists too), as the full path's."""
    new = {**golden}  # (the same list of steps: CheckContext.one_trace)
    opts = CompareOptions(compare_requests=True, embedding_backend="lexical").validated()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(semantic, "_MANY", 0)  # (every text's details held as a large golden's)
        report = run_checks(golden, new, opts)
    assert _whole(report) == _whole(_reference(golden, new, opts))
    ctx = CheckContext(golden, new, list(golden["trace"]), list(new["trace"]), opts, (), False)
    ctx.one_trace()
    assert ctx.llm_calls(True) == ctx.llm_calls(False) == sequence.llm_calls(golden["trace"])
    texts = [d for d in report.details["semantic"].values() if d["verdict"] == "identical"]
    for a, b in itertools.pairwise(texts):
        assert type(a) is dict and a is not b
        assert a["findings"] is not b["findings"] and a["hints"] is not b["hints"]
    if texts:
        texts[0]["findings"].append("edited")
        texts[0]["note"] = 1
        assert all(d["findings"] == [] and "note" not in d for d in texts[1:])
