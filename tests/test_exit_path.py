"""A test's exit does no work a passing, unchanged test does not need (issue 30, part b).

* replay keeps the golden's own stored exchange for a call served from the recording of
  exactly its request (``PreparedExchange``): not converted, scrubbed or copied again, and
  the ``.last_run`` holds the golden's exchange byte for byte;
* the pytest session writes a failed test's ``.last_run`` file when the test ends (``agentsnap
  diff`` sees it right after) and a passed one's when the session ends; a file that could not
  be written costs only itself and is named in the summary;
* pytest sessions one after another in one process (pytester's in-process runs) record each
  call once, whatever the previous one ended with; one stopped in a fixture's setup (an error,
  a KeyboardInterrupt, ``pytest.exit``) leaves no recording and no socket guard behind;
* the ``budgets`` check without limits and with the same numbers of calls answers
  without measuring either trace, exactly as the full check does.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap.diff.checks import budgets as budgets_module
from agentsnap.diff.checks._api import CheckContext
from agentsnap.exceptions import AgentRegressionError
from agentsnap.knobs import CompareOptions
from agentsnap.lifecycle import Outcome, observing
from agentsnap.storage.last_run_writer import LastRunWriter
from agentsnap.storage.wire import PreparedExchange, StoredExchange, same_stored
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.test_capture_coexistence import wrapper_layers
from tests.test_cli_helpers import invoke
from tests.test_plugin_modes import NODE, PARIS, QUIET_PLUGINS, Project, summary

openai = pytest.importorskip("openai")

from tests import fake_provider as fp

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    return Project(pytester)


def _ask(fake: fp.FakeOpenAI, question: str) -> str:
    client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": question}]
    )
    return reply.choices[0].message.content or ""


# --------------------------------------------------------------------------- the stored exchange


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ({"body": {"n": 1}}, {"body": {"n": 1}}, True),
        ({"body": {"a": 1, "b": 2}}, {"body": {"b": 2, "a": 1}}, True),  # key order is not JSON
        ({"body": {"n": 1}}, {"body": {"n": 1.0}}, False),  # == in Python, not the same JSON
        ({"body": {"n": 1}}, {"body": {"n": True}}, False),
        ({"body": {"n": 0}}, {"body": {"n": False}}, False),
        ({"body": None}, {"text": "x"}, False),
        ({"body": {"n": 2**70}}, {"body": {"n": 2**70}}, False),  # beyond MessagePack: never same
        ({"text": "a"}, {"text": "b"}, False),
    ],
)
def test_same_stored_tells_json_apart_where_python_equality_does_not(
    a: dict[str, Any], b: dict[str, Any], same: bool
) -> None:
    assert same_stored(a, b) is same
    assert same_stored(a, a) is True


def test_a_replayed_call_keeps_the_goldens_exchange_and_a_changed_one_its_own(
    tmp_path: Path,
) -> None:
    with fp.FakeOpenAI() as fake:
        fake.script(fp.text_reply("Sunny."))
        with AgentRecorder("exit::same", snapshot_dir=tmp_path):
            _ask(fake, "Weather in Paris?")
        golden_raw = json.loads(SnapshotStore(tmp_path).path_for("exit::same").read_bytes())

        with AgentAsserter("exit::same", snapshot_dir=tmp_path, mode="replay") as block:
            _ask(fake, "Weather in Paris?")
        assert block.outcome is not None and block.outcome.action == "passed"
        (step,) = block.outcome.new.trace  # type: ignore[union-attr]
        assert type(step["exchange"]) is PreparedExchange
        golden_step = block.outcome.golden.trace[0]  # type: ignore[union-attr]
        assert step["exchange"]["response"] is golden_step["exchange"]["response"]
        last = json.loads(SnapshotStore(tmp_path).last_run_path("exit::same").read_bytes())
        assert last["trace"][0]["exchange"] == golden_raw["trace"][0]["exchange"]

        seen: list[Outcome] = []
        with (
            observing(seen.append),
            pytest.raises(AgentRegressionError),
            AgentAsserter("exit::same", snapshot_dir=tmp_path, mode="replay"),
        ):
            _ask(fake, "Weather in Rome?")
        (step,) = seen[0].new.trace  # type: ignore[union-attr]
        assert type(step["exchange"]) is StoredExchange  # this run's own request, with its drift
        assert step["exchange"]["request"]["body"]["messages"][0]["content"] == "Weather in Rome?"
        assert len(fake.requests) == 1  # replay sent nothing


# --------------------------------------------------------------------------- the writer


def test_the_writer_writes_each_file_at_once_and_keeps_the_ones_that_failed_until_closed(
    tmp_path: Path,
) -> None:
    writer = LastRunWriter()
    calls: list[str] = []

    def write(name: str, text: str) -> Any:
        def run() -> None:
            calls.append(name)
            if name == "broken":
                raise OSError(30, "Read-only file system")
            if name == "bug":
                raise KeyError("step")
            (tmp_path / name).write_text(text, encoding="utf-8")

        return run

    assert writer.write(tmp_path / "a", write("a", "first"))
    assert (tmp_path / "a").read_text(encoding="utf-8") == "first"  # written before it returned
    assert not writer.write(tmp_path / "broken", write("broken", "x"))
    assert not writer.write(tmp_path / "bug", write("bug", "x"))
    assert writer.write(tmp_path / "a", write("a", "second"))  # the files after a failure: tried
    assert (tmp_path / "a").read_text(encoding="utf-8") == "second"
    assert calls == ["a", "broken", "bug", "a"]
    assert writer.close() == [
        (str(tmp_path / "broken"), "Read-only file system"),
        (str(tmp_path / "bug"), "KeyError: 'step'"),
    ]
    assert writer.close() == []  # said once


def test_a_failed_replayed_test_is_kept_for_diff_once_the_session_ended(project: Project) -> None:
    project.record_golden()
    project.set_scenario(**{**PARIS, "question": "Weather in Rome?"})
    result = project.run("--agentsnap-replay")
    assert result.ret == 1
    assert summary(result) == ["agentsnap: 1 failed"]
    store = SnapshotStore(project.root / "__agent_snapshots__")
    last = json.loads(store.last_run_path(NODE).read_text(encoding="utf-8"))
    assert last["comparison"]["failed_checks"] == ["llm_requests"]
    diff = invoke("diff", NODE, "--dir", str(store.root))
    assert diff.exit_code == 1, diff.output
    assert (
        diff.stdout.splitlines()[0] == f"[agentsnap] {NODE!r} FAILED — failed checks: llm_requests"
    )


def test_a_last_run_that_cannot_be_written_is_named_at_the_sessions_end(project: Project) -> None:
    project.record_golden()
    snaps = project.root / "__agent_snapshots__"
    path = SnapshotStore(snaps).last_run_path(NODE)
    path.mkdir(parents=True)  # a folder where the file goes: the rename fails
    result = project.run("--agentsnap-replay")
    assert result.ret == 0  # a scratch copy: the test's result is unaffected
    result.assert_outcomes(passed=1, warnings=1)  # said once the session ended, in its warnings
    result.stdout.fnmatch_lines(
        [f"*AgentsnapWarning: agentsnap: cannot write {path} (Is a directory)*"]
    )
    assert summary(result) == ["agentsnap: 1 passed"]


def _record_with_more_tests(project: Project, more: int) -> None:
    """The project's test and ``more`` others like it (``test_more.py::test_again[n]``), recorded."""
    runs = ", ".join(str(n) for n in range(1, more + 1))
    project.pytester.makepyfile(
        test_more=(
            "import pytest\n"
            "import test_agent\n\n"
            f"@pytest.mark.parametrize('n', [{runs}])\n"
            "def test_again(fake, n):\n"
            "    test_agent.test_weather(fake)\n"
        )
    )
    recorded = project.run("--agentsnap-record", "-p", "no:randomly")
    assert recorded.ret == 0, recorded.stdout.str()


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_last_run_folder_that_cannot_be_written_is_one_warning_for_all_its_files(
    project: Project, workers: list[str]
) -> None:
    """Four tests, ``.last_run`` a plain file: every file fails the same way (each one tried,
    on every worker), and so does the run record; the run says so once, naming one file and
    counting the other four."""
    _record_with_more_tests(project, 3)
    last_run = project.root / "__agent_snapshots__" / ".last_run"
    shutil.rmtree(last_run)
    last_run.write_text("not a folder\n", encoding="utf-8")
    result = project.run("--agentsnap-replay", *workers, "-p", "no:randomly", subprocess=True)
    assert result.ret == 0, result.stdout.str()
    text = result.stdout.str()
    said = re.findall(r"AgentsnapWarning: agentsnap: cannot write (\S+) \(([^)]*)\)", text)
    assert len(said) == 1, text  # one warning, not one per file (nor per worker)
    assert Path(said[0][0]).parent == last_run
    more = re.search(
        r"the reverse\?\)\. (\d+) more files? there could not be written either\.", text
    )
    assert more is not None and int(more.group(1)) == 4, text  # three tests' files and run.json
    assert summary(result) == ["agentsnap: 4 passed"]


def test_one_last_run_file_in_the_way_costs_only_itself(project: Project) -> None:
    """A folder where one test's ``.last_run`` file goes: that file is named, the other tests'
    files and the run record (``agentsnap prune`` reads it) are written all the same."""
    _record_with_more_tests(project, 2)
    snaps = project.root / "__agent_snapshots__"
    blocked = SnapshotStore(snaps).last_run_path(NODE)
    shutil.rmtree(snaps / ".last_run")
    (blocked / "x").mkdir(parents=True)
    result = project.run("--agentsnap-replay", "-n", "2", "-p", "no:randomly", subprocess=True)
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines([f"*agentsnap: cannot write {blocked} (Is a directory)*"])
    assert "more file" not in result.stdout.str()
    written = sorted(p.name for p in (snaps / ".last_run").glob("*.json") if p.is_file())
    assert "run.json" in written and len(written) == 3, written  # two tests' files and run.json


def test_warnings_as_errors_still_finish_the_session_and_fail_it_with_the_file_named(
    project: Project,
) -> None:
    """With -W error (or filterwarnings = error) the late warning cannot be a warning: the run
    still writes its record and report, prints its summary, and fails naming the file."""
    project.record_golden()
    snaps = project.root / "__agent_snapshots__"
    path = SnapshotStore(snaps).last_run_path(NODE)
    path.mkdir(parents=True)
    report = project.root / "report.html"
    result = project.run(
        "--agentsnap-replay",
        "-W",
        "error::agentsnap.AgentsnapWarning",
        f"--agentsnap-report={report}",
    )
    assert result.ret == 1
    result.assert_outcomes(passed=1)
    assert summary(result) == ["agentsnap: 1 passed"]
    result.stdout.fnmatch_lines([f"agentsnap: cannot write {path} (Is a directory)*"])
    assert report.is_file()
    assert (snaps / ".last_run" / "run.json").is_file()


def test_an_unreadable_golden_under_warnings_as_errors_still_finishes_the_session(
    project: Project,
) -> None:
    """The run record's pass warns about an unreadable golden; with -W error that warning comes
    last, so the record, the report and the summary are still written, and the run fails naming it."""
    project.record_golden()
    snaps = project.root / "__agent_snapshots__"
    broken = snaps / "broken-00000000.json"
    broken.write_text("{", encoding="utf-8")
    result = project.run("--agentsnap-replay", "-W", "error")
    assert result.ret == 1
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*corrupt snapshot file at *broken-00000000.json*"])
    assert (snaps / ".last_run" / "run.json").is_file()
    assert broken.read_text(encoding="utf-8") == "{"  # never touched


# --------------------------------------------------------------------------- sessions one after another


@pytest.fixture
def transports_imported_by_each_run() -> Iterator[None]:
    """agentsnap's transport modules as a user's process has them before its first pytester run:
    not imported. Each in-process run then imports them first, and pytester drops them when the
    run ends (httpx, imported before, stays wrapped). Put back as they were afterwards."""
    import agentsnap.capture.transports as package
    from agentsnap.capture import hooks

    prefix = package.__name__ + "."
    saved = {name: module for name, module in sys.modules.items() if name.startswith(prefix)}
    for name in saved:
        del sys.modules[name]
    try:
        yield
    finally:
        sys.modules.update(saved)
        for name, module in saved.items():
            setattr(package, name.removeprefix(prefix), module)
        hooks.ensure_patched()  # the libraries' layers are this process's copies again


def _send_layers() -> list[str]:
    import httpx

    return wrapper_layers(httpx.Client.__dict__["send"])


def test_in_process_sessions_after_a_failed_one_record_each_call_once(
    project: Project, transports_imported_by_each_run: None
) -> None:
    """The sequence that recorded three agent runs into one golden: a golden recorded, a replay
    that fails, then the next session's recording, all in this process."""
    project.record_golden()
    project.set_scenario(**{**PARIS, "question": "Weather in Rome?"})
    assert project.run("--agentsnap-replay").ret == 1
    project.set_scenario(**PARIS)
    project.snapshot_path().unlink()
    project.record_golden()
    assert project.server_requests() == {NODE: 2}
    trace = project.snapshot()["trace"]
    assert [step["type"] for step in trace] == ["llm_call", "tool_call", "llm_call"]
    assert _send_layers() == ["agentsnap.capture.transports.httpx.send_wrapper"]
    result = project.run("--agentsnap-replay")
    assert result.ret == 0, result.stdout.str()
    assert summary(result) == ["agentsnap: 1 passed"]


INTERRUPTED_TEST = """
import pytest
from agent_lib import client_for, scenario, weather_agent
from fake_provider import text_reply, tool_calls_reply


@pytest.fixture
def setup_step():
    how = scenario()["how"]
    if how == "error":
        raise RuntimeError("the fixture failed")
    if how == "interrupt":
        raise KeyboardInterrupt
    if how == "exit":
        pytest.exit("leaving", returncode=3)


def test_weather(fake, setup_step):
    sc = scenario()
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": sc["city"]})]), text_reply(sc["answer"]))
    assert weather_agent(client_for(fake), sc["question"])
"""


@pytest.mark.parametrize("mode", ["--agentsnap-record", "--agentsnap-replay"])
@pytest.mark.parametrize(("how", "exit_code"), [("error", 1), ("interrupt", 2), ("exit", 3)])
def test_a_session_stopped_in_a_fixtures_setup_leaves_no_recording_nor_guard(
    project: Project, mode: str, how: str, exit_code: int
) -> None:
    """A KeyboardInterrupt or ``pytest.exit`` in a fixture's setup skips the test's call and
    teardown hooks: the session's end stops its recording (and a replay's socket guard)."""
    import socket

    from agentsnap.capture import active

    project.pytester.makepyfile(test_agent=INTERRUPTED_TEST)
    project.set_scenario(**PARIS, how="")
    project.record_golden()
    connect, getaddrinfo = socket.socket.connect, socket.getaddrinfo
    project.set_scenario(**PARIS, how=how)
    result = project.pytester.runpytest_inprocess(*QUIET_PLUGINS, mode, no_reraise_ctrlc=True)
    assert result.ret == exit_code
    assert (socket.socket.connect, socket.getaddrinfo) == (connect, getaddrinfo)  # no guard
    assert active.current() is None
    project.set_scenario(**PARIS, how="")
    assert project.run("--agentsnap-replay").ret == 0  # the next session is its own
    assert active.current() is None


# --------------------------------------------------------------------------- budgets, short-circuited

_STEP = st.fixed_dictionaries(
    {"type": st.sampled_from(["llm_call", "tool_call", "http", "mcp"])},
    optional={
        "name": st.sampled_from(["get_weather", "search"]),
        "model": st.sampled_from(["gpt-4o-mini", "claude-3-5-haiku-latest"]),
        "usage": st.fixed_dictionaries(
            {},
            optional={
                "input_tokens": st.integers(0, 500),
                "output_tokens": st.integers(0, 500),
            },
        ),
        "latency_ms": st.integers(0, 3000),
        "exchange": st.fixed_dictionaries(
            {
                "request": st.fixed_dictionaries(
                    {"body": st.fixed_dictionaries({"messages": st.lists(st.text(max_size=20))})}
                )
            }
        ),
    },
)


@settings(max_examples=150, deadline=None)
@given(
    golden=st.lists(_STEP, max_size=6),
    new=st.lists(_STEP, max_size=6),
    replay=st.booleans(),
)
def test_budgets_short_circuit_agrees_with_the_full_check(
    golden: list[dict[str, Any]], new: list[dict[str, Any]], replay: bool
) -> None:
    options = CompareOptions(compare_requests=replay).validated()
    ctx = CheckContext({"trace": golden}, {"trace": new}, golden, new, options, (), False)
    check = budgets_module.BudgetsCheck()
    fast = check.run(ctx)
    counts = budgets_module._call_counts
    try:  # the full check: the counts never look equal, so both traces are measured
        budgets_module._call_counts = id  # type: ignore[assignment]
        full = check.run(ctx)
    finally:
        budgets_module._call_counts = counts
    assert fast == full
