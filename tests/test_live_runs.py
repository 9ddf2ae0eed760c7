"""Statistics over live runs (issue 28, part 4): ``--agentsnap-runs N`` runs a test N times
against the loopback fake through the real openai SDK, reports the pass rate with its Wilson
interval, keeps the failing samples, and replays one offline with the fake stopped."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("openai")

from agentsnap._pytest.pass_rate import RunStats, Sample, wilson_interval
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.test_cli_helpers import invoke

pytest_plugins = ["pytester"]
REPO = Path(__file__).resolve().parents[1]
NODE = "test_agent.py::test_weather"

# The fake answers the first request of runs 2 and 4 (counted in the serving process) with
# another tool: those runs fail the structural comparison with the golden recorded by run 1.
CONFTEST = f"""
import os, sys
sys.path.insert(0, {str(REPO)!r})
import openai, pytest
from tests.fake_provider import FakeOpenAI, text_reply, tool_calls_reply

ODD_RUNS = {{int(n) for n in os.environ.get("ODD_RUNS", "2,4").split(",") if n}}
first_requests = 0


def answer(body):
    global first_requests
    if len(body["messages"]) == 1:
        first_requests += 1
        if first_requests in ODD_RUNS:
            return tool_calls_reply([("call_B", "get_time", {{"zone": "CET"}})])
        return tool_calls_reply([("call_A", "get_weather", {{"city": "Paris"}})])
    return text_reply("It is sunny in Paris today.")


@pytest.fixture(scope="session")
def base_url():
    if os.environ.get("FAKE_STOPPED"):  # nothing listens here: every connect is refused
        yield "http://127.0.0.1:9/v1"
        return
    with FakeOpenAI() as fake:
        fake.respond_with(answer)
        yield fake.base_url
"""

TESTS = """
import openai

OBJ = {"type": "object", "properties": {"city": {"type": "string"}, "zone": {"type": "string"}}}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": OBJ}},
    {"type": "function", "function": {"name": "get_time", "parameters": OBJ}},
]


def test_weather(base_url):
    client = openai.OpenAI(base_url=base_url, api_key="sk-test-0123456789", max_retries=0)
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    call = first.choices[0].message.tool_calls[0]
    messages += [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
    ]
    second = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    assert second.choices[0].message.content
"""


def _project(pytester: pytest.Pytester, extra: str = "") -> Path:
    pytester.makepyprojecttoml(f'[tool.agentsnap]\nsnapshot_dir = "snaps"\n{extra}')
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_agent=TESTS)
    pytester.runpytest_subprocess("--agentsnap-record", "-p", "no:randomly", "-q").assert_outcomes(
        passed=1
    )
    return pytester.path / "snaps"


def _live(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        "--agentsnap-live", "--agentsnap-runs", "5", "-p", "no:randomly", "-q", *args
    )


def _stats_line(result: pytest.RunResult) -> str:
    return next(line for line in result.outlines if line.startswith(f"  {NODE}: "))


# -- the formula -------------------------------------------------------------------------------


def test_wilson_known_values() -> None:
    low, high = wilson_interval(4, 5)
    assert (round(low * 100), round(high * 100)) == (38, 96)
    low, high = wilson_interval(3, 5)
    assert math.isclose(low, 0.2307, abs_tol=1e-4) and math.isclose(high, 0.8824, abs_tol=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert math.isclose(wilson_interval(10, 10)[0], 0.7225, abs_tol=1e-4)
    assert math.isclose(wilson_interval(0, 1)[1], 0.7935, abs_tol=1e-4)
    for bad in ((1, 0), (-1, 3), (4, 3)):
        with pytest.raises(ValueError, match="wilson_interval"):
            wilson_interval(*bad)


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_bounds_lie_in_the_unit_interval_and_contain_the_rate(
    case: tuple[int, int],
) -> None:
    passed, total = case
    low, high = wilson_interval(passed, total)
    assert 0.0 <= low <= passed / total <= high <= 1.0
    # symmetric: the interval of the failures mirrors the interval of the passes
    f_low, f_high = wilson_interval(total - passed, total)
    assert math.isclose(low, 1 - f_high, abs_tol=1e-12) and math.isclose(
        high, 1 - f_low, abs_tol=1e-12
    )


def test_the_verdict_line_and_the_per_check_rates() -> None:
    samples = [
        Sample(1, True, compared=True),
        Sample(2, False, failed_checks=["structural"], compared=True, kept="k/2.json"),
        Sample(3, True, compared=True),
        Sample(4, True, compared=True),
        Sample(5, True, compared=True),
    ]
    stats = RunStats(
        "t::a", "t::a", samples, 1.0, replay="pytest t::a --agentsnap-replay-run {run}"
    )
    assert not stats.passed
    assert stats.headline() == "4/5 runs passed (80 %, 95 % CI 38–96 %) < min_pass_rate 1"
    assert stats.check_rates() == [("structural", 4, 5)]
    assert (
        "  run 2: failed structural — kept in k/2.json; offline: pytest t::a --agentsnap-replay-run 2"
        in stats.lines()
    )
    assert RunStats("t::a", "t::a", samples, 0.8).passed
    assert RunStats.from_json(json.loads(json.dumps(stats.to_json()))).lines() == stats.lines()
    errored = Sample(1, False, error="RuntimeError: boom")
    assert errored.what_failed() == "error: RuntimeError: boom"


# -- through pytest --------------------------------------------------------------------------------


def test_five_runs_report_three_of_five_keep_the_failing_ones_and_replay_one_offline(
    pytester: pytest.Pytester,
) -> None:
    root = _project(pytester)
    result = _live(pytester, "--agentsnap-report", "report.html")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert f"{NODE} (run 2 of 5)" in page and f"{NODE} (run 4 of 5)" in page
    assert "3/5 runs passed" in page
    assert (
        _stats_line(result)
        == f"  {NODE}: 3/5 runs passed (60 %, 95 % CI 23–88 %) < min_pass_rate 1"
    )
    assert "agentsnap: 1 failed" in result.outlines
    samples = root / ".last_run" / (next(root.glob("*.json")).stem + ".runs")
    assert sorted(p.name for p in samples.iterdir()) == ["2.json", "4.json"]
    for run in (2, 4):
        kept = json.loads((samples / f"{run}.json").read_text(encoding="utf-8"))
        assert kept["comparison"]["sample"] == {"run": run, "runs": 5}
        assert "structural" in kept["comparison"]["failed_checks"]
        assert any(s.get("name") == "get_time" for s in kept["trace"] if s["type"] == "tool_call")
    command = f"pytest {NODE} --agentsnap-replay --agentsnap-replay-run 2"
    assert "  run 2: failed structural" in out and command in out
    # the failing test's own text says the same
    assert "4/5" not in out and "per check: structural 3/5" in out

    # agentsnap show / diff open a kept sample
    shown = invoke("show", NODE, "--run", "2", "--dir", str(root))
    assert shown.exit_code == 0, shown.output
    assert "get_time" in shown.output and str(samples / "2.json") in shown.output
    diffed = invoke("diff", NODE, "--run", "4", "--dir", str(root))
    assert diffed.exit_code == 1, diffed.output
    assert "[STRUCTURAL] FAIL" in diffed.output
    assert f"sample 4: {samples / '4.json'}" in diffed.output
    assert "--agentsnap-replay --agentsnap-replay-run 4" in diffed.output
    missing = invoke("diff", NODE, "--run", "3", "--dir", str(root))
    assert missing.exit_code == 2 and "kept: 2, 4" in missing.output, missing.output

    # the fake stopped: the printed command replays sample 2 offline and fails the same way
    pytester._monkeypatch.setenv("FAKE_STOPPED", "1")
    replayed = pytester.runpytest_subprocess(
        NODE, "--agentsnap-replay", "--agentsnap-replay-run", "2", "-p", "no:randomly", "-q"
    )
    replayed.assert_outcomes(failed=1)
    said = replayed.stdout.str()
    assert "[STRUCTURAL] FAIL" in said, said
    golden_file = next(root.glob("*.json")).name
    last = json.loads((root / ".last_run" / golden_file).read_text(encoding="utf-8"))
    assert last["comparison"]["failed_checks"] == kept_checks(samples / "2.json")
    assert last["comparison"]["mode"] == "live"  # judged as the live sample was
    if _unshare_works():  # no network at all, not even loopback: sample 4, as printed
        jailed = pytester.run(
            "unshare", "-n", sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
            *f"pytest {NODE} --agentsnap-replay --agentsnap-replay-run 4".split()[1:],
            "-p", "no:randomly", "-q",
        )  # fmt: skip
        assert jailed.ret == pytest.ExitCode.TESTS_FAILED, jailed.stdout.str()
        assert "[STRUCTURAL] FAIL" in jailed.stdout.str()
    # plain replay still serves (and passes against) the golden
    replayed_golden = pytester.runpytest_subprocess(
        NODE, "--agentsnap-replay", "-p", "no:randomly", "-q"
    )
    replayed_golden.assert_outcomes(passed=1)
    # agentsnap rm takes the kept samples with the golden
    assert invoke("rm", NODE, "--yes", "--dir", str(root)).exit_code == 0
    assert not list(samples.glob("*.json"))


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


def kept_checks(path: Path) -> list[str]:
    checks: list[str] = json.loads(path.read_text(encoding="utf-8"))["comparison"]["failed_checks"]
    return checks


ERRING = """
import openai, pytest

calls = 0


@pytest.mark.agentsnap(runs=5, min_pass_rate=0.9)
def test_erring(base_url):
    global calls
    calls += 1
    client = openai.OpenAI(base_url=base_url, api_key="sk-test-0123456789", max_retries=0)
    client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Weather in Paris?"}])
    if calls == 3:
        raise RuntimeError("boom on run 3")
"""


def test_the_marker_samples_and_a_run_that_errors_counts_as_failed(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyprojecttoml('[tool.agentsnap]\nsnapshot_dir = "snaps"\n')
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_erring=ERRING)
    pytester._monkeypatch.setenv("ODD_RUNS", "")
    pytester.runpytest_subprocess("--agentsnap-record", "-q").assert_outcomes(passed=1)
    result = pytester.runpytest_subprocess("--agentsnap-live", "-q", "-p", "no:randomly")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert (
        "test_erring.py::test_erring: 4/5 runs passed (80 %, 95 % CI 38–96 %) < min_pass_rate 0.9"
        in out
    )
    assert "  run 3: error: RuntimeError: boom on run 3 — kept in snaps/.last_run/" in out
    assert "RuntimeError: boom on run 3" in out  # the last failing run's own failure
    # the flag wins over the marker: one run, as without a statistics run
    single = pytester.runpytest_subprocess("--agentsnap-live", "--agentsnap-runs", "1", "-q")
    single.assert_outcomes(passed=1)
    assert "statistics over live runs" not in single.stdout.str()


def test_min_pass_rate_decides_and_a_passing_test_keeps_no_sample(
    pytester: pytest.Pytester,
) -> None:
    root = _project(pytester, "min_pass_rate = 0.6\n")
    passed = _live(pytester)
    passed.assert_outcomes(passed=1)
    assert (
        _stats_line(passed)
        == f"  {NODE}: 3/5 runs passed (60 %, 95 % CI 23–88 %) ≥ min_pass_rate 0.6"
    )
    assert not list((root / ".last_run").glob("*.runs/*.json"))
    failed = _live(pytester, "-o", "agentsnap_min_pass_rate=0.8")
    failed.assert_outcomes(failed=1)
    assert _stats_line(failed).endswith("< min_pass_rate 0.8")


def test_with_xdist_all_runs_of_a_test_go_to_one_worker_and_the_summary_merges(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    result = _live(pytester, "-n", "2")
    result.assert_outcomes(failed=1)
    assert (
        _stats_line(result)
        == f"  {NODE}: 3/5 runs passed (60 %, 95 % CI 23–88 %) < min_pass_rate 1"
    )


def test_usage_errors(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    for args, said in (
        (("--agentsnap-replay", "--agentsnap-runs", "3"), "this run replays"),
        (("--agentsnap-record", "--agentsnap-runs", "3"), "one golden per test"),
        (("--agentsnap-live", "--agentsnap-runs", "0"), "at least 1"),
        (("--agentsnap-live", "--agentsnap-replay-run", "2"), "add --agentsnap-replay"),
    ):
        result = pytester.runpytest_subprocess(*args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, args
        assert said in result.stderr.str(), (args, result.stderr.str())
    pytester.makepyfile(
        test_bad="import pytest\n\n@pytest.mark.agentsnap(runs=0)\ndef test_bad():\n    pass\n"
    )
    bad = pytester.runpytest_subprocess("test_bad.py", "--agentsnap-live")
    bad.assert_outcomes(errors=1)
    assert (
        "@pytest.mark.agentsnap on test_bad.py::test_bad: runs must be a whole number >= 1, got 0"
        in bad.stdout.str()
    )
