"""What a new user meets on day one (issue 24, section 5), run as they would run it.

Each test drives pytest on a small project (``pytester``: the weather agent on
the plain ``openai`` SDK against the loopback fake provider, from
:mod:`tests.test_plugin_modes`) or the ``agentsnap`` command, and asserts the
exit code and the exact text agentsnap prints:

* a ``mode`` set in ``[tool.agentsnap]``, an ini option or ``AGENTSNAP_MODE``
  runs exactly as its flag does (replayed, compared, offline);
* a replayed test that fails on its own ``assert`` after a prompt change says
  the requests changed, and its run is kept for ``agentsnap diff`` (never
  promoted by ``agentsnap update``);
* a snapshot folder agentsnap cannot write to is a one-line warning, not a crash;
* ``agentsnap rm`` is final: ``agentsnap update --all`` does not bring a golden back;
* ``--agentsnap-record`` over a changed golden says what changed, per file.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agentsnap import SnapshotStore
from tests.test_cli_helpers import invoke, tree
from tests.test_plugin_modes import NODE, PARIS, QUIET_PLUGINS, SNAP_DIR, Project, summary

# the two autouse fixtures of tests/test_plugin_modes.py apply here too (imported, they are this module's)
from tests.test_plugin_modes import _local_not_ci as _local_not_ci
from tests.test_plugin_modes import _warm_imports as _warm_imports

pytest_plugins = ["pytester"]


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    return Project(pytester)


# ---------------------------------------------------------------- 1. a mode set anywhere is the whole mode


def _choose_replay(
    project: Project, source: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, ...]:
    """Make the next run replay through ``source``; the extra command-line arguments it needs."""
    if source == "pyproject":
        project.pytester.makepyprojecttoml('[tool.agentsnap]\nmode = "replay"\n')
    elif source == "ini":
        project.pytester.makeini("[pytest]\nagentsnap_mode = replay\n")
    elif source == "env":
        monkeypatch.setenv("AGENTSNAP_MODE", "replay")
    else:
        return ("--agentsnap-replay",)
    return ()


@pytest.mark.parametrize("source", ["pyproject", "ini", "env", "flag"])
def test_replay_mode_from_any_source_replays_and_compares(
    project: Project, source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = project.record_golden()
    args = _choose_replay(project, source, monkeypatch)

    result = project.run(*args)
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)
    assert summary(result) == ["agentsnap: 1 passed"]
    assert project.server_requests() == {NODE: 0}  # served from the golden: no request sent
    assert project.snapshot_path().read_bytes() == before

    # compared, not only served: a changed prompt fails the test with the requests report
    project.set_scenario(**{**PARIS, "question": "Weather in Rome?"})
    result = project.run(*args)
    assert result.ret == 1
    lines = [line.strip() for line in result.outlines]
    assert f"[agentsnap] '{NODE}' FAILED — failed checks: llm_requests" in lines
    assert summary(result) == ["agentsnap: 1 failed"]
    assert project.server_requests() == {NODE: 0}


def test_record_and_live_modes_in_pyproject_mean_their_flags(project: Project) -> None:
    project.pytester.makepyprojecttoml('[tool.agentsnap]\nmode = "record"\n')
    result = project.run()
    assert result.ret == 0, result.stdout.str()
    assert summary(result) == ["agentsnap: 1 recorded (approved)"]
    assert project.snapshot()["approved"] is True
    assert project.server_requests() == {NODE: 2}

    project.pytester.makepyprojecttoml('[tool.agentsnap]\nmode = "live"\n')
    project.set_scenario(**{**PARIS, "city": "Rome"})
    result = project.run()
    assert result.ret == 1
    lines = [line.strip() for line in result.outlines]
    assert "args.city: 'Paris' → 'Rome'" in lines
    assert summary(result) == ["agentsnap: 1 failed"]
    assert project.server_requests() == {NODE: 2}  # live: the real (loopback) API answered


def test_an_explicit_instrument_false_beside_the_mode_keeps_auto_snapshots_off(
    project: Project,
) -> None:
    """The README's configuration block, copied as it is (``mode = "live"``, ``instrument =
    false``), changes nothing: a key set in the same table wins over what the mode implies."""
    project.pytester.makepyprojecttoml('[tool.agentsnap]\nmode = "live"\ninstrument = false\n')
    result = project.run()
    assert result.ret == 0
    assert summary(result) == []
    assert not project.snapshot_path().exists()


# ---------------------------------------------------------------- 2. a replayed test that fails on its own

#: the header of agentsnap's section in a test's failure
SECTION = re.compile(r"-+ agentsnap -+")


def test_a_replayed_prompt_change_that_fails_the_tests_assert_is_reported_and_kept(
    project: Project,
) -> None:
    golden = project.record_golden()
    # the prompt changes and the test's own assert fails on the (old, replayed) answer
    project.set_scenario(**{**PARIS, "question": "Weather in Rome?", "fail": True})

    result = project.run("--agentsnap-replay")
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    assert project.server_requests() == {NODE: 0}
    store = SnapshotStore(project.root / SNAP_DIR)
    kept = store.last_run_path(NODE)
    lines = [line.rstrip() for line in result.outlines]
    start = lines.index("E       AssertionError: the scenario asked this test to fail")
    section = next(i for i in range(start, len(lines)) if SECTION.fullmatch(lines[i]))
    assert lines[section + 1 : section + 9] == [
        "agentsnap: the requests of 2 of 2 llm call(s) changed, so replay served them the recorded answers to the "
        "old requests: this test checked answers the model never gave to what it sends now.",
        "  llm_call[0] (step 0):",
        "    messages[0].content: 'Weather in Paris?' → 'Weather in Rome?'",
        "  llm_call[1] (step 2):",
        "    messages[0].content: 'Weather in Paris?' → 'Weather in Rome?'",
        f"See the whole comparison: `agentsnap diff {NODE}` (this run is kept in {kept}; it is never promoted).",
        f"If the change is intended, re-record it live: `pytest {NODE} --agentsnap-record`.",
        "agentsnap: 1 not saved (test failed)",
    ]
    assert summary(result) == ["agentsnap: 1 not saved (test failed)"]
    assert project.snapshot_path().read_bytes() == golden

    # agentsnap diff compares that run (not an older one): the requests changed, exit 1
    snaps = str(project.root / SNAP_DIR)
    shown = invoke("diff", NODE, "--dir", snaps)
    assert shown.exit_code == 1, shown.output
    out = shown.stdout.splitlines()
    assert out[0] == f"[agentsnap] {NODE!r} FAILED — failed checks: llm_requests"
    assert "[REQUESTS] FAIL — llm_requests: messages differ in 2 llm calls" in out
    assert out[-2:] == [
        "The test itself failed in this run (its own assert or an error), so `agentsnap update` never promotes it.",
        f"The responses are old recordings: if the change is intended, re-record it live: pytest {NODE} --agentsnap-record",
    ]

    # and it is never promoted, by name or with --all
    before = tree(project.root / SNAP_DIR)
    for args in ([NODE], ["--all"]):
        refused = invoke("update", *args, "--dir", snaps)
        assert refused.exit_code == 1
        assert refused.stderr == (
            f"error: refusing to promote the last run of {NODE!r} ({kept}): its test failed, and a failing run never "
            f"becomes a golden. Nothing was promoted. See what changed with `agentsnap diff {NODE}`; once the test "
            f"passes, promote that run, or re-record it live: `pytest {NODE} --agentsnap-record`.\n"
        )
        assert tree(project.root / SNAP_DIR) == before


def test_a_test_failing_on_its_own_without_request_changes_adds_no_note(project: Project) -> None:
    project.record_golden()
    project.set_scenario(**{**PARIS, "fail": True})

    result = project.run("--agentsnap-replay")
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    assert not any(SECTION.fullmatch(line) for line in result.outlines)
    assert summary(result) == ["agentsnap: 1 not saved (test failed)"]
    # its run is kept all the same: the comparison passes, and says the test failed
    shown = invoke("diff", NODE, "--dir", str(project.root / SNAP_DIR))
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines()[0] == f"[agentsnap] {NODE!r} PASSED — all checks ok"
    assert shown.stdout.splitlines()[-1] == (
        "The test itself failed in this run (its own assert or an error), so `agentsnap update` never promotes it."
    )


BLOCK_TEST = """
from agent_lib import client_for, scenario, weather_agent
from fake_provider import text_reply, tool_calls_reply


def test_block(fake, agent_snapshot):
    sc = scenario()
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": sc["city"]})]), text_reply(sc["answer"]))
    with agent_snapshot.assert_agent("weather") as block:
        block.output = weather_agent(client_for(fake), sc["question"])
        assert not sc["fail"], "the scenario asked this test to fail"
"""


def test_a_fixture_block_failing_on_its_own_after_a_prompt_change_says_so_too(
    project: Project,
) -> None:
    project.pytester.makepyfile(test_block=BLOCK_TEST)
    assert project.run("test_block.py", "--agentsnap-record").ret == 0
    project.set_scenario(**{**PARIS, "question": "Weather in Rome?", "fail": True})

    result = project.run("test_block.py", "--agentsnap-replay")
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    lines = [line.rstrip() for line in result.outlines]
    section = next(i for i, line in enumerate(lines) if SECTION.fullmatch(line))
    assert lines[section + 1].startswith("agentsnap: the requests of 2 of 2 llm call(s) changed")
    assert (
        "See the whole comparison: `agentsnap diff weather` (this run is kept in "
        in lines[section + 6]
    )
    assert summary(result) == ["agentsnap: 1 not saved (test failed)"]


# ---------------------------------------------------------------- 3. a snapshot folder agentsnap cannot write to


def _read_only_mounts_work() -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = "mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp && ! touch /tmp/.agentsnap-ro-probe"
    return subprocess.run(["unshare", "-m", "sh", "-c", probe], capture_output=True).returncode == 0


def _run_with_read_only_folder(project: Project, *args: str) -> pytest.RunResult:
    """pytest in a child process whose snapshot folder is a read-only bind mount in its own
    mount namespace (``unshare -m``): every write there fails with EROFS, for root too."""
    folder = shlex.quote(str(project.root / SNAP_DIR))
    argv = shlex.join([sys.executable, "-m", "pytest", *QUIET_PLUGINS, *args])
    script = f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && exec {argv}"
    return project.pytester.run("unshare", "-m", "sh", "-c", script)


def _unwritable_warning(path: Path, why: str, more: int = 1) -> str:
    """The one warning of a run whose ``.last_run`` files (the test's, ``more`` others: the run
    record ``run.json``) could not be written."""
    root = path.parent.parent
    hint = (
        f"is {root} read-only?"
        if why == "Read-only file system"
        else f"is something in the way under {root}: a file where a folder goes, or the reverse?"
    )
    return (
        f"*AgentsnapWarning: agentsnap: cannot write {path} ({why}); the tests' results are unaffected, but this "
        f"run is not kept for `agentsnap diff`, `agentsnap update` or `agentsnap prune` ({hint})."
        + (
            f" {more} more file{'s' if more > 1 else ''} there could not be written either."
            if more
            else ""
        )
    )


@pytest.mark.skipif(
    not _read_only_mounts_work(),
    reason="unshare -m and a read-only bind mount are not permitted here",
)
def test_replay_from_a_read_only_snapshot_folder_passes_with_one_warning(
    project: Project,
) -> None:
    before = project.record_golden()
    last_run = project.root / SNAP_DIR / ".last_run"
    kept = sorted(p.name for p in last_run.iterdir())

    result = _run_with_read_only_folder(project, "--agentsnap-replay")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1, warnings=1)
    path = last_run / project.snapshot_path().name
    result.stdout.fnmatch_lines([_unwritable_warning(path, "Read-only file system")])
    assert summary(result) == ["agentsnap: 1 passed"]
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    assert project.snapshot_path().read_bytes() == before
    assert sorted(p.name for p in last_run.iterdir()) == kept  # nothing written

    # the same failing the test's own assert: the failure shows, not a crash in sessionfinish
    project.set_scenario(**{**PARIS, "fail": True})
    result = _run_with_read_only_folder(project, "--agentsnap-replay")
    assert result.ret == 1
    result.assert_outcomes(failed=1, warnings=1)
    result.stdout.fnmatch_lines(["*AssertionError: the scenario asked this test to fail*"])
    assert "Traceback" not in result.stderr.str()


def test_a_file_where_last_run_should_be_is_a_warning_not_a_crash(project: Project) -> None:
    """Runs anywhere (root included): ``.last_run`` is a plain file, so making the folder fails."""
    before = project.record_golden()
    last_run = project.root / SNAP_DIR / ".last_run"
    shutil.rmtree(last_run)
    last_run.write_text("not a folder\n", encoding="utf-8")

    result = project.run("--agentsnap-replay")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, warnings=1)
    path = last_run / project.snapshot_path().name
    result.stdout.fnmatch_lines([_unwritable_warning(path, "File exists")])
    assert summary(result) == ["agentsnap: 1 passed"]
    assert project.snapshot_path().read_bytes() == before
    assert last_run.read_text(encoding="utf-8") == "not a folder\n"


# ---------------------------------------------------------------- 4. agentsnap rm is final


def test_rm_deletes_the_last_run_too_so_update_all_cannot_bring_the_golden_back(
    project: Project,
) -> None:
    project.record_golden()
    project.set_scenario(**{**PARIS, "city": "Rome"})
    assert project.run("--agentsnap-live").ret == 1  # drift: the run is kept for diff / update
    snaps = project.root / SNAP_DIR
    golden = project.snapshot_path()
    last = SnapshotStore(snaps).last_run_path(NODE)
    assert last.is_file()

    removed = invoke("rm", NODE, "--yes", "--dir", str(snaps))
    assert removed.exit_code == 0, removed.output
    assert removed.stdout == f"deleted {NODE} ({golden}) and its last run ({last})\n"
    assert not golden.exists() and not last.exists()

    after = invoke("update", "--all", "--dir", str(snaps))
    assert after.exit_code == 0, after.output
    assert after.stdout == f"Nothing to update: no last runs in {snaps / '.last_run'}. " + (
        "Run the tests first (`agentsnap run TEST_PATH` or `pytest --agentsnap-instrument`).\n"
    )
    assert not golden.exists()
    named = invoke("update", NODE, "--dir", str(snaps))
    assert named.exit_code == 1
    assert named.stderr.startswith(f"error: no last run matches {NODE!r} in {snaps / '.last_run'}.")
    assert not golden.exists()
    # the rule is in the command's help
    helptext = " ".join(invoke("rm", "--help").stdout.split())
    assert (
        "The golden file and its latest run in .last_run/ are deleted, so `agentsnap update` (--all included) "
        "cannot bring the snapshot back; a committed golden comes back with git." in helptext
    )


# ---------------------------------------------------------------- 5. re-recording says what changed

TRIP_TEST = """
import json
import pathlib

from agent_lib import client_for, weather_agent
from fake_provider import text_reply, tool_calls_reply

HERE = pathlib.Path(__file__).parent


def test_trip(fake):
    trip = json.loads((HERE / "trip.json").read_text(encoding="utf-8"))
    calls = [(f"call_{i}", "get_weather", {"city": city}) for i, city in enumerate(trip["cities"])]
    fake.script(tool_calls_reply(calls), text_reply(trip["answer"]))
    assert weather_agent(client_for(fake), "Plan my trip")
"""
TRIP = "test_trip.py::test_trip"


def test_re_recording_a_changed_agent_says_what_changed_per_file(project: Project) -> None:
    project.pytester.makepyfile(test_trip=TRIP_TEST)
    trip = project.root / "trip.json"
    file = project.snapshot_path(TRIP).name

    def record(cities: list[str], answer: str, *xdist: str) -> list[str]:
        trip.write_text(json.dumps({"cities": cities, "answer": answer}), encoding="utf-8")
        result = project.run("test_trip.py", "--agentsnap-record", *xdist, subprocess=bool(xdist))
        assert result.ret == 0, result.stdout.str()
        lines = [line.rstrip() for line in result.outlines]
        start = next(i for i, line in enumerate(lines) if line.startswith("agentsnap: "))
        return lines[start:-1]  # the agentsnap lines, up to pytest's last line

    snaps = project.root / SNAP_DIR
    assert record(["Paris"], "Sunny.") == [
        "agentsnap: 1 recorded (approved)",
        f"  1 golden(s) written and approved in {snaps}: review them (`git diff`) before committing.",
    ]
    # the agent now checks two cities and answers differently
    assert record(["Paris", "Lyon"], "Sunny in both.") == [
        "agentsnap: 1 updated (re-recorded, approved)",
        f"  1 golden(s) written and approved in {snaps}: review them (`git diff`) before committing.",
        "  1 re-recorded with changed behaviour:",
        f"    {file}: steps 3 → 4; tools get_weather → get_weather, get_weather; output changed",
    ]
    # same tools, other arguments, same answer
    assert record(["Paris", "Rome"], "Sunny in both.")[2:] == [
        "  1 re-recorded with changed behaviour:",
        f"    {file}: tool arguments changed",
    ]
    # nothing changed: no warning, the file untouched
    before = project.snapshot_path(TRIP).read_bytes()
    assert record(["Paris", "Rome"], "Sunny in both.") == ["agentsnap: 1 re-recorded unchanged"]
    assert project.snapshot_path(TRIP).read_bytes() == before
    # under xdist the controller's summary has the workers' changes
    assert record(["Lyon"], "Rainy.", "-n", "2") == [
        "agentsnap: 1 updated (re-recorded, approved)",
        f"  1 golden(s) written and approved in {snaps}: review them (`git diff`) before committing.",
        "  1 re-recorded with changed behaviour:",
        f"    {file}: steps 4 → 3; tools get_weather, get_weather → get_weather; output changed",
    ]
