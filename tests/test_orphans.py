"""Orphaned snapshots: found only on full, unfiltered, passing runs; pruned by the CLI."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentsnap.cli import app
from agentsnap.storage.store import SnapshotStore
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture

pytest_plugins = ["pytester"]

TESTS = """
def test_keep(snapshot):
    with snapshot.record_agent() as rec:
        rec.output = "keep"

def test_gone(snapshot):
    with snapshot.record_agent() as rec:
        rec.output = "gone"
"""


def _setup(pytester: pytest.Pytester) -> Path:
    pytester.makepyprojecttoml(
        '[tool.agentsnap]\nsnapshot_dir = "snaps"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    )
    tests = pytester.mkdir("tests")
    (tests / "test_agent.py").write_text(TESTS, encoding="utf-8")
    res = pytester.runpytest_subprocess("-p", "no:randomly")
    res.assert_outcomes(passed=2)
    root = pytester.path / "snaps"
    assert sorted(s.name for s in SnapshotStore(root).list()) == [
        "tests/test_agent.py::test_gone",
        "tests/test_agent.py::test_keep",
    ]
    # the test is deleted from the code
    (tests / "test_agent.py").write_text(TESTS.split("def test_gone")[0], encoding="utf-8")
    return root


def _record(root: Path) -> dict:
    return json.loads((root / ".last_run" / "run.json").read_text(encoding="utf-8"))


def test_full_run_reports_orphan_and_prune_deletes_only_it(pytester: pytest.Pytester) -> None:
    root = _setup(pytester)
    res = pytester.runpytest_subprocess("-p", "no:randomly")
    res.assert_outcomes(passed=1)
    res.stdout.fnmatch_lines(["agentsnap: * orphaned (`agentsnap prune` deletes them)"])
    record = _record(root)
    assert record["full_run"] is True and record["orphans"] == ["tests/test_agent.py::test_gone"]
    dry = CliRunner().invoke(app, ["prune", "--dry-run", "--dir", str(root)])
    assert dry.exit_code == 0 and "tests/test_agent.py::test_gone" in dry.output
    assert len(SnapshotStore(root).list()) == 2
    no_tty = CliRunner().invoke(app, ["prune", "--dir", str(root)])
    assert no_tty.exit_code == 1 and "Pass --yes" in no_tty.output
    done = CliRunner().invoke(app, ["prune", "--yes", "--dir", str(root)])
    assert done.exit_code == 0, done.output
    assert "deleted 1 snapshot" in done.output
    assert [s.name for s in SnapshotStore(root).list()] == ["tests/test_agent.py::test_keep"]


@pytest.mark.parametrize(
    "args, why",
    [
        (["-k", "keep"], "filtered with -k or -m"),
        (["tests/test_agent.py::test_keep"], "single tests were selected"),
        (["--deselect", "tests/test_agent.py::test_keep"], "deselected"),
    ],
)
def test_filtered_runs_never_report_or_prune(
    pytester: pytest.Pytester, args: list[str], why: str
) -> None:
    root = _setup(pytester)
    res = pytester.runpytest_subprocess("-p", "no:randomly", *args)
    assert "orphaned" not in res.stdout.str()
    record = _record(root)
    assert record["full_run"] is False and why in record["not_full_because"]
    refused = CliRunner().invoke(app, ["prune", "--yes", "--dir", str(root)])
    assert refused.exit_code == 1 and why in refused.output
    assert len(SnapshotStore(root).list()) == 2


def test_failing_run_never_reports_orphans(pytester: pytest.Pytester) -> None:
    root = _setup(pytester)
    (pytester.path / "tests" / "test_fail.py").write_text(
        "def test_x():\n    assert False\n", encoding="utf-8"
    )
    pytester.runpytest_subprocess("-p", "no:randomly")
    assert _record(root)["full_run"] is False
    assert "did not pass" in _record(root)["not_full_because"]


def test_prune_without_a_run_record_says_what_to_run(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["prune", "--dir", str(tmp_path)])
    assert res.exit_code == 1 and "run the whole test suite once" in res.output


#: a conftest's "skip slow tests unless asked": the items dropped without ``pytest_deselected``
_DROPS_UNSAID = """
def pytest_collection_modifyitems(config, items):
    items[:] = [item for item in items if "gone" not in item.nodeid]
"""


def test_a_conftest_dropping_a_test_unsaid_keeps_its_golden(pytester: pytest.Pytester) -> None:
    """A test that still exists, dropped from the run by a conftest that does not call
    ``pytest_deselected``, keeps its golden: the run counts it as collected (found by a fresh
    reviewer: prune listed it, and ``--yes`` would have deleted it)."""
    root = _setup(pytester)
    (pytester.path / "tests" / "test_agent.py").write_text(TESTS, encoding="utf-8")  # both exist
    (pytester.path / "tests" / "conftest.py").write_text(_DROPS_UNSAID, encoding="utf-8")
    res = pytester.runpytest_subprocess("-p", "no:randomly")
    res.assert_outcomes(passed=1)
    assert "orphaned" not in res.stdout.str()
    record = _record(root)
    assert record["full_run"] is True and record["orphans"] == []
    done = CliRunner().invoke(app, ["prune", "--yes", "--dir", str(root)])
    assert done.exit_code == 0, done.output
    assert "No orphaned snapshots" in done.output
    assert len(SnapshotStore(root).list()) == 2
    # the test deleted from the code for real: an orphan, found by the same kind of run
    (pytester.path / "tests" / "test_agent.py").write_text(
        TESTS.split("def test_gone")[0], encoding="utf-8"
    )
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)
    assert _record(root)["orphans"] == ["tests/test_agent.py::test_gone"]


def test_prune_keeps_an_orphan_whose_test_came_back_after_the_run(
    pytester: pytest.Pytester,
) -> None:
    """The full run found test_gone's golden orphaned; the test is then put back (its file
    changed after the run): prune keeps the golden and says why, whatever the stale record says."""
    root = _setup(pytester)
    pytester.runpytest_subprocess("-p", "no:randomly").assert_outcomes(passed=1)
    record = _record(root)
    assert record["orphans"] == ["tests/test_agent.py::test_gone"]
    test_file = pytester.path / "tests" / "test_agent.py"
    test_file.write_text(TESTS, encoding="utf-8")
    later = datetime.fromisoformat(record["finished_at"]).timestamp() + 10
    os.utime(test_file, (later, later))
    kept = CliRunner().invoke(app, ["prune", "--yes", "--dir", str(root)])
    assert kept.exit_code == 0, kept.output
    assert (
        "kept tests/test_agent.py::test_gone: its test file test_agent.py changed after the run "
        "that found it orphaned" in kept.output
    )
    assert "No orphaned snapshots" in kept.output
    assert len(SnapshotStore(root).list()) == 2
