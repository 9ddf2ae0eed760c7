"""A suite split across CI machines: shards' run records, `agentsnap report --merge`, prune from the union.

The inner project is the HTML report's (``tests/test_report_html.py``): the fake
OpenAI server and a weather agent on the plain ``openai`` SDK, four tests, three
goldens. It is recorded once; each test copies it, runs it unsharded and as
three shards (pytest-split ``--splits 3 --group G``, group 2 under xdist
``-n 2``; or ``--agentsnap-shard NAME`` with ``-k``), copies each shard's
``.last_run`` folder as a CI job uploads it, and merges them with the CLI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from agentsnap._pytest.shard_identity import COMMIT_VARS
from agentsnap.cli import app
from agentsnap.storage.store import SnapshotStore
from tests.test_report_html import (
    DRIFT_SCENARIO,
    GREETING,
    TRIP,
    WEATHER,
    _summary_rows,
    parse,
    run_inner,
    set_scenario,
    write_suite,
)

pytest.importorskip("pytest_split")

ALL_TESTS = {WEATHER, TRIP, GREETING, "test_agents.py::test_no_llm"}
#: pytest-split's algorithm that puts at least one test in each of the 3 groups of these 4 tests
SPLIT = ("--splitting-algorithm", "least_duration")


def run(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The inner project's pytest (``run_inner``), with no CI commit variable of this process."""
    return run_inner(root, *args, env=env, drop=frozenset(COMMIT_VARS))


def cli(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("recorded")
    write_suite(root)
    done = run(root, "--agentsnap-record")
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def copy_of(recorded: Path, tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(recorded, root)
    return root


def snaps(root: Path) -> Path:
    return root / "__agent_snapshots__"


def run_record(root: Path) -> dict:
    return json.loads((snaps(root) / ".last_run" / "run.json").read_text(encoding="utf-8"))


def run_shard(root: Path, name: str, *args: str, env: dict[str, str] | None = None) -> Path:
    """Run one shard, then copy its .last_run folder to ``root/artefacts/NAME`` (the CI upload)."""
    done = run(root, *args, env=env)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    target = root / "artefacts" / name
    shutil.copytree(snaps(root) / ".last_run", target)
    return target


def split_shards(root: Path, mode: str) -> list[Path]:
    """The suite as pytest-split's three groups (group 2 with two xdist workers)."""
    return [
        run_shard(
            root,
            str(g),
            mode,
            "--splits",
            "3",
            "--group",
            str(g),
            *SPLIT,
            *(("-n", "2") if g == 2 else ()),
        )
        for g in (1, 2, 3)
    ]


def names(root: Path) -> set[str]:
    return {s.name for s in SnapshotStore(snaps(root)).list()}


def test_three_shards_merged_give_the_unsharded_runs_report(recorded: Path, tmp_path: Path) -> None:
    root = copy_of(recorded, tmp_path)
    store = SnapshotStore(snaps(root))
    greeting = store.load(GREETING)
    assert greeting is not None
    greeting.approved = False
    store.save(greeting)
    set_scenario(root, DRIFT_SCENARIO)
    whole = run(root, "--agentsnap-live", "--agentsnap-report=whole.html")
    assert whole.returncode == 1, whole.stdout + whole.stderr

    shards = split_shards(root, "--agentsnap-live")
    records = [json.loads((d / "run.json").read_text(encoding="utf-8")) for d in shards]
    assert [r["shard"] for r in records] == [
        {"name": f"{g}/3", "group": g, "splits": 3, "source": "pytest-split"} for g in (1, 2, 3)
    ]
    assert all(set(r["collected"]) == ALL_TESTS and r["orphans"] == [] for r in records)
    assert set().union(*(r["selected"] for r in records)) == ALL_TESTS
    assert sum(len(r["selected"]) for r in records) == len(ALL_TESTS)  # each test in one shard
    assert records[1]["selected"]  # the xdist shard ran tests, and its workers' parts were merged

    merged = cli(
        "report",
        "--merge",
        *map(str, shards),
        "--html",
        str(root / "merged.html"),
        "--json",
        str(root / "merged.json"),
        "--into",
        str(snaps(root)),
    )
    assert merged.exit_code == 0, merged.output
    whole_rows = _summary_rows(parse((root / "whole.html").read_text(encoding="utf-8")))
    merged_rows = _summary_rows(parse((root / "merged.html").read_text(encoding="utf-8")))
    assert merged_rows == whole_rows
    assert {name: state for name, (state, _) in merged_rows.items()} == {
        WEATHER: "failed",
        TRIP: "failed",
        GREETING: "pending",
    }
    facts = json.loads((root / "merged.json").read_text(encoding="utf-8"))
    assert facts["tests"] == {"collected": 4, "ran": 4}
    assert facts["counts"]["failed"] == 2 and facts["counts"]["pending"] == 1
    assert set(facts["failures"]) == {WEATHER, TRIP}
    assert (
        f"  failed  {WEATHER}: " in merged.output
        and "snapshots: 2 failed, 1 pending" in merged.output
    )
    # failing shards are not full shards: the merged record judges no orphans, prune deletes nothing
    assert (
        facts["full_run"] is False
        and "was not a full shard: the run did not pass" in facts["not_full_because"]
    )
    refused = cli("prune", "--yes", "--dir", str(snaps(root)))
    assert refused.exit_code == 1 and "merged shards' run cannot tell orphans" in refused.output
    assert names(root) == {WEATHER, TRIP, GREETING}


@pytest.fixture
def orphaned(recorded: Path, tmp_path: Path) -> Path:
    """A copy of the project whose test_greeting was deleted: its golden is the one orphan."""
    root = copy_of(recorded, tmp_path)
    source = (root / "test_agents.py").read_text(encoding="utf-8")
    start = source.index("def test_greeting")
    end = source.index("def test_no_llm")
    (root / "test_agents.py").write_text(source[:start] + source[end:], encoding="utf-8")
    return root


def test_prune_after_one_shard_deletes_nothing_and_after_the_merge_exactly_the_orphans(
    orphaned: Path,
) -> None:
    root = orphaned
    whole = run(root, "--agentsnap-replay")
    assert whole.returncode == 0, whole.stdout + whole.stderr
    assert run_record(root)["orphans"] == [GREETING]  # what the unsharded run finds

    shards = split_shards(root, "--agentsnap-replay")
    for shard in shards:
        record = json.loads((shard / "run.json").read_text(encoding="utf-8"))
        assert (
            record["full_run"] is False and record["full_shard"] is True and record["orphans"] == []
        )
    assert run_record(root)["shard"]["name"] == "3/3"
    one = cli("prune", "--yes", "--dir", str(snaps(root)))
    assert one.exit_code == 1, one.output
    assert (
        "one shard (3/3, from pytest-split)" in one.output
        and "agentsnap report --merge" in one.output
    )
    assert "Nothing was deleted" in one.output
    assert names(root) == {WEATHER, TRIP, GREETING}

    merged = cli("report", "--merge", *map(str, shards), "--into", str(snaps(root)))
    assert merged.exit_code == 0, merged.output
    assert "Merged 3 shards (1/3, 2/3, 3/3): 3 of 3 tests ran." in merged.output
    assert "orphans: 1 (`agentsnap prune` deletes them)" in merged.output
    record = run_record(root)
    assert record["full_run"] is True and record["orphans"] == [GREETING]
    assert [m["shard"]["name"] for m in record["merged_from"]] == ["1/3", "2/3", "3/3"]
    done = cli("prune", "--yes", "--dir", str(snaps(root)))
    assert done.exit_code == 0 and "deleted 1 snapshot" in done.output, done.output
    assert names(root) == {WEATHER, TRIP}


def test_named_shards_with_their_own_selection(orphaned: Path) -> None:
    root = orphaned
    a = run_shard(root, "a", "--agentsnap-replay", "--agentsnap-shard", "a", "-k", "weather")
    b = run_shard(
        root, "b", "--agentsnap-replay", "-k", "not weather", env={"AGENTSNAP_SHARD": "b"}
    )
    shard_b = json.loads((b / "run.json").read_text(encoding="utf-8"))["shard"]
    assert shard_b == {"name": "b", "group": None, "splits": None, "source": "AGENTSNAP_SHARD"}

    alone = cli("report", "--merge", str(a), "--into", str(snaps(root)))
    assert alone.exit_code == 0, alone.output
    assert run_record(root)["full_run"] is False
    assert "orphans: not judged: 2 test(s) ran in no shard" in alone.output
    assert cli("prune", "--yes", "--dir", str(snaps(root))).exit_code == 1
    assert names(root) == {WEATHER, TRIP, GREETING}

    both = cli("report", "--merge", str(a), str(b), "--into", str(snaps(root)))
    assert both.exit_code == 0, both.output
    assert run_record(root)["orphans"] == [GREETING]
    assert cli("prune", "--yes", "--dir", str(snaps(root))).exit_code == 0
    assert names(root) == {WEATHER, TRIP}


def test_merge_refuses_missing_duplicate_and_foreign_folders(
    orphaned: Path, tmp_path: Path
) -> None:
    root = orphaned
    unsharded = run(root, "--agentsnap-replay")
    assert unsharded.returncode == 0
    plain = root / "artefacts" / "plain"
    shutil.copytree(snaps(root) / ".last_run", plain)
    one, two, three = split_shards(root, "--agentsnap-replay")
    again = root / "artefacts" / "2-again"
    shutil.copytree(two, again)
    empty = tmp_path / "not-agentsnap"
    empty.mkdir()
    (empty / "notes.txt").write_text("hello", encoding="utf-8")
    before = (snaps(root) / ".last_run" / "run.json").read_bytes()
    cases = {
        (str(one), str(three)): ["missing shard 2/3", f"1/3 ({one})", f"3/3 ({three})"],
        (str(one), str(two), str(three), str(again)): [
            "shard 2/3 is given twice",
            str(two),
            str(again),
        ],
        (str(one), str(empty), str(two), str(three)): [str(empty), "holds no agentsnap run record"],
        (str(plain),): [str(plain / "run.json"), "not a shard"],
        (str(tmp_path / "nowhere"),): [str(tmp_path / "nowhere"), "is not a folder"],
    }
    for dirs, expected in cases.items():
        res = cli("report", "--merge", *dirs, "--into", str(snaps(root)))
        assert res.exit_code == 1, res.output
        text = " ".join(res.output.split())
        assert all(" ".join(e.split()) in text for e in expected), (expected, res.output)
        assert "Nothing was merged" in text
    # nothing was written: the last shard's record is still there
    assert (snaps(root) / ".last_run" / "run.json").read_bytes() == before
    usage = cli("report", str(one))
    assert usage.exit_code == 2


def test_shards_of_different_runs_are_refused_naming_every_folder_with_its_commit(
    orphaned: Path,
) -> None:
    root = orphaned
    commits = {"1": "a" * 40, "2": "b" * 40, "3": "b" * 40}
    selections = {"1": "weather", "2": "trip", "3": "not weather and not trip"}
    folders = {
        g: run_shard(
            root,
            g,
            "--agentsnap-replay",
            "--agentsnap-shard",
            f"{g}/3",
            "-k",
            selections[g],
            env={"GITHUB_SHA": commits[g]},
        )
        for g in ("1", "2", "3")
    }
    res = cli("report", "--merge", *map(str, folders.values()), "--into", str(snaps(root)))
    assert res.exit_code == 1
    text = " ".join(res.output.split())
    assert "not of one suite run" in text
    for g, folder in folders.items():
        assert f"{folder}: commit {commits[g]}" in text, (g, text)


def test_a_bad_shard_name_is_a_usage_error_and_leaves_no_record_looking_current(
    recorded: Path, tmp_path: Path
) -> None:
    root = copy_of(recorded, tmp_path)
    record = snaps(root) / ".last_run" / "run.json"
    cases = {
        ("--agentsnap-shard", "4/3"): "shard '4/3' (from --agentsnap-shard) is group 4 of 3",
        ("--agentsnap-shard", "3/0"): "the number of shards must be at least 1",
        ("--agentsnap-shard", "a\nb"): "holds a control character",
        ("--agentsnap-shard", "tab\there"): "holds a control character",
    }
    for args, expected in cases.items():
        ok = run(root, "--agentsnap-replay", "--agentsnap-shard", "1/3", "-k", "weather")
        assert ok.returncode == 0 and record.is_file(), ok.stdout + ok.stderr
        res = run(root, "--agentsnap-replay", *args)
        assert res.returncode == 4, res.stdout + res.stderr  # pytest's usage error
        assert expected in " ".join(res.stderr.split()), (args, res.stderr)
        # the previous shard's record is gone: it cannot be uploaded as this shard's
        assert not record.exists(), args
    env_name = run(root, "--agentsnap-replay", env={"AGENTSNAP_SHARD": "x\x1b[31m"})
    assert env_name.returncode == 4 and "given by AGENTSNAP_SHARD" in env_name.stderr


def test_a_shard_that_selected_no_test_is_still_a_full_shard(
    recorded: Path, tmp_path: Path
) -> None:
    root = copy_of(recorded, tmp_path)
    res = run(root, "--agentsnap-replay", "--agentsnap-shard", "3/3", "-k", "no_such_test")
    assert res.returncode == 5  # pytest: no test ran
    record = run_record(root)
    assert record["full_shard"] is True and record["selected"] == []
    assert set(record["collected"]) == ALL_TESTS and record["report_entries"] == []


def test_merged_record_given_back_to_merge_is_named_as_such(orphaned: Path) -> None:
    root = orphaned
    a = run_shard(root, "a", "--agentsnap-replay", "--agentsnap-shard", "a", "-k", "weather")
    b = run_shard(root, "b", "--agentsnap-replay", "--agentsnap-shard", "b", "-k", "not weather")
    assert cli("report", "--merge", str(a), str(b), "--into", str(snaps(root))).exit_code == 0
    again = cli("report", "--merge", str(snaps(root)), "--into", str(snaps(root)))
    assert again.exit_code == 1
    text = " ".join(again.output.split())
    assert "is a merged record" in text and "merge the shards' own .last_run folders" in text


def test_overlapping_shards_count_each_snapshot_once(recorded: Path, tmp_path: Path) -> None:
    root = copy_of(recorded, tmp_path)
    a = run_shard(
        root, "a", "--agentsnap-replay", "--agentsnap-shard", "a", "-k", "weather or trip"
    )
    b = run_shard(root, "b", "--agentsnap-replay", "--agentsnap-shard", "b", "-k", "not weather")
    res = cli(
        "report",
        "--merge",
        str(a),
        str(b),
        "--into",
        str(snaps(root)),
        "--json",
        str(root / "s.json"),
    )
    assert res.exit_code == 0, res.output
    facts = json.loads((root / "s.json").read_text(encoding="utf-8"))
    assert "snapshots: 3 passed" in res.output  # TRIP ran in both shards, counted once
    assert run_record(root)["counts"] == facts["counts"]
    assert sum(run_record(root)["counts"].values()) == 3


def test_shards_by_test_path_say_how_to_shard_so_orphans_are_judged(orphaned: Path) -> None:
    root = orphaned
    a = run_shard(root, "a", "--agentsnap-replay", "--agentsnap-shard", "a", "test_agents.py")
    res = cli("report", "--merge", str(a), "--into", str(snaps(root)))
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "orphans: not judged" in text and "test paths narrower than the configured ones" in text
    assert "-k, -m or --deselect" in text and "pytest-split's --splits N --group G" in text
    assert "the configured test paths" in text


def test_into_the_project_root_is_refused_naming_the_snapshot_folder(orphaned: Path) -> None:
    root = orphaned
    a = run_shard(root, "a", "--agentsnap-replay", "--agentsnap-shard", "a", "-k", "weather")
    b = run_shard(root, "b", "--agentsnap-replay", "--agentsnap-shard", "b", "-k", "not weather")
    res = cli("report", "--merge", str(a), str(b), "--into", str(root))
    assert res.exit_code == 1, res.output
    text = " ".join(res.output.split())
    assert f"--into {snaps(root)}" in text and "Nothing was written" in text
    assert not (root / ".last_run").exists()
    missing = cli("report", "--merge", str(a), str(b), "--into", str(root / "nope"))
    assert missing.exit_code == 1
    text = " ".join(missing.output.split())
    assert "--into ROOT" not in text and "--into SNAPSHOT_DIR" in text
    assert "SNAPSHOT_DIR" in " ".join(cli("report", "--help").output.split())


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_merge_at_another_commit_judges_no_orphans_and_prune_refuses(
    orphaned: Path, recorded: Path
) -> None:
    """The shards ran commit A (no test_greeting); B adds the test back: its golden is current."""
    root = orphaned
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "A")
    commit_a = _git(root, "rev-parse", "HEAD")
    a = run_shard(root, "a", "--agentsnap-replay", "--agentsnap-shard", "1/2", "-k", "weather")
    b = run_shard(root, "b", "--agentsnap-replay", "--agentsnap-shard", "2/2", "-k", "not weather")
    shutil.copy(recorded / "test_agents.py", root / "test_agents.py")
    _git(root, "commit", "-qam", "B")
    commit_b = _git(root, "rev-parse", "HEAD")
    why = f"the shards ran commit {commit_a}; this checkout is at {commit_b}: check out {commit_a}"

    at_b = cli("report", "--merge", str(a), str(b), "--into", str(snaps(root)))
    assert at_b.exit_code == 0, at_b.output
    text = " ".join(at_b.output.split())
    assert f"orphans: not judged: {why}" in text and "or merge in the CI job" in text
    assert run_record(root)["full_run"] is False and run_record(root)["orphans"] == []
    refused = cli("prune", "--yes", "--dir", str(snaps(root)))
    assert refused.exit_code == 1 and why in " ".join(refused.output.split())
    assert names(root) == {WEATHER, TRIP, GREETING}

    # merged at A (orphans judged there), then B checked out: prune still refuses
    _git(root, "checkout", "-q", commit_a)
    at_a = cli("report", "--merge", str(a), str(b), "--into", str(snaps(root)))
    assert at_a.exit_code == 0 and run_record(root)["orphans"] == [GREETING], at_a.output
    _git(root, "checkout", "-q", commit_b)
    later = cli("prune", "--yes", "--dir", str(snaps(root)))
    assert later.exit_code == 1, later.output
    text = " ".join(later.output.split())
    assert why in text and "Nothing was deleted" in text
    assert names(root) == {WEATHER, TRIP, GREETING}

    _git(root, "checkout", "-q", commit_a)
    later = datetime.fromisoformat(run_record(root)["finished_at"]).timestamp() + 10
    os.utime(root / "test_agents.py", (later, later))  # a checkout rewrites files and their times
    done = cli("prune", "--yes", "--dir", str(snaps(root)))
    assert done.exit_code == 0 and "deleted 1 snapshot" in done.output, done.output


def test_without_git_the_merge_and_prune_say_the_commit_was_not_checked(orphaned: Path) -> None:
    root = orphaned  # a temporary folder: no git repository
    sha = {"GITHUB_SHA": "c" * 40}
    a = run_shard(
        root, "a", "--agentsnap-replay", "--agentsnap-shard", "a", "-k", "weather", env=sha
    )
    b = run_shard(
        root, "b", "--agentsnap-replay", "--agentsnap-shard", "b", "-k", "not weather", env=sha
    )
    res = cli("report", "--merge", str(a), str(b), "--into", str(snaps(root)))
    assert res.exit_code == 0, res.output
    assert run_record(root)["orphans"] == [GREETING]  # judged, as before
    note = f"this checkout's commit could not be read (no git repository at {snaps(root)})"
    assert note in " ".join(res.output.split())
    done = cli("prune", "--yes", "--dir", str(snaps(root)))
    assert done.exit_code == 0 and note in " ".join(done.output.split()), done.output
    assert names(root) == {WEATHER, TRIP}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_test_added_or_put_back_in_this_checkout_is_kept_by_the_merge_and_prune(
    orphaned: Path, recorded: Path
) -> None:
    """At the shards' commit (test_greeting deleted), a test added to the shards' test file and
    recorded here (an untracked golden), and test_greeting put back: the shards never ran
    either, so neither golden is an orphan (found by a fresh reviewer: `prune --yes` deleted the
    untracked golden, which git cannot bring back)."""
    root = orphaned
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "A")
    commit = _git(root, "rev-parse", "HEAD")
    a = run_shard(root, "a", "--agentsnap-replay", "--agentsnap-shard", "1/2", "-k", "weather")
    b = run_shard(root, "b", "--agentsnap-replay", "--agentsnap-shard", "2/2", "-k", "not weather")
    full = (recorded / "test_agents.py").read_text(encoding="utf-8")
    greeting = full[full.index("def test_greeting") : full.index("def test_no_llm")]
    added = greeting.replace("def test_greeting", "def test_greeting_again")
    (root / "test_agents.py").write_text(full + "\n\n" + added, encoding="utf-8")
    again = "test_agents.py::test_greeting_again"
    done = run(root, "--agentsnap-record", again)
    assert done.returncode == 0, done.stdout + done.stderr
    assert names(root) == {WEATHER, TRIP, GREETING, again}
    assert "?? __agent_snapshots__/test_agents.py__test_greeting_again-" in _git(
        root, "status", "--porcelain", "--untracked-files=all"
    )

    merged = cli("report", "--merge", str(a), str(b), "--into", str(snaps(root)))
    assert merged.exit_code == 0, merged.output
    since = f"in this checkout since {commit}"
    assert "orphans: none" in merged.output
    assert f"  kept  {GREETING}: its test file test_agents.py changed {since}" in merged.output
    assert f"  kept  {again}: the golden is untracked or modified {since}" in merged.output
    assert run_record(root)["orphans"] == []
    assert run_record(root)["kept_changed"] == {
        GREETING: f"its test file test_agents.py changed {since}",
        again: f"the golden is untracked or modified {since}",
    }
    pruned = cli("prune", "--yes", "--dir", str(snaps(root)))
    assert pruned.exit_code == 0 and "No orphaned snapshots" in pruned.output, pruned.output
    assert names(root) == {WEATHER, TRIP, GREETING, again}

    # the checkout back at the commit: the merge judges test_greeting's golden an orphan; the
    # test then put back before prune runs: prune keeps it and says why
    _git(root, "checkout", "-q", "--", "test_agents.py")
    (snaps(root) / SnapshotStore(snaps(root)).locate(again).name).unlink()  # type: ignore[union-attr]
    clean = cli("report", "--merge", str(a), str(b), "--into", str(snaps(root)))
    assert "orphans: 1 (`agentsnap prune` deletes them)" in clean.output, clean.output
    (root / "test_agents.py").write_text(full, encoding="utf-8")
    kept = cli("prune", "--yes", "--dir", str(snaps(root)))
    assert kept.exit_code == 0, kept.output
    assert f"kept {GREETING}: its test file test_agents.py changed {since}" in kept.output
    assert "No orphaned snapshots" in kept.output
    assert names(root) == {WEATHER, TRIP, GREETING}
    _git(root, "checkout", "-q", "--", "test_agents.py")
    done = cli("prune", "--yes", "--dir", str(snaps(root)))
    assert done.exit_code == 0 and "deleted 1 snapshot" in done.output, done.output
    assert names(root) == {WEATHER, TRIP}
