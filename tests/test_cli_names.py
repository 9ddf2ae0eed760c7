"""CLI name resolution: an unreadable file keeps its name, exact wins, ambiguity is an error, short names, "did you mean"."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentsnap.storage.store import SnapshotStore
from tests.test_cli_helpers import invoke, make, read, tree

CLAUDE = "tests/test_agent.py::test_claude_weather"
CLAUDE_ASYNC = "tests/test_agent.py::test_claude_weather_async"
WEATHER = "tests/test_agent.py::test_weather"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("AGENTSNAP_SNAPSHOT_DIR", "AGENTSNAP_MODE", "AGENTSNAP_RECORD", "NO_COLOR"):
        monkeypatch.delenv(var, raising=False)


def corrupt(root: Path, name: str, *, keep_name_line: bool = True) -> Path:
    """A snapshot file of ``name`` cut in the middle (its "name" line kept, or nothing readable at all)."""
    path = make(root, name)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2] if keep_name_line else "{oops", encoding="utf-8")
    return path


@pytest.mark.parametrize("keep_name_line", [True, False])
def test_rm_of_a_corrupt_snapshot_deletes_that_file_and_not_the_one_its_name_prefixes(
    tmp_path: Path, keep_name_line: bool
) -> None:
    bad = corrupt(tmp_path, CLAUDE, keep_name_line=keep_name_line)
    other = make(tmp_path, CLAUDE_ASYNC)
    other_bytes = other.read_bytes()

    result = invoke("rm", CLAUDE, "--yes", "--dir", str(tmp_path))

    assert result.exit_code == 0, result.output
    assert (
        result.stderr
        == f"About to delete 1 snapshot file in {tmp_path}:\n  {CLAUDE}  ({bad.name})  unreadable\n"
    )
    assert result.stdout == f"deleted unreadable file {bad} ({CLAUDE})\n"
    assert not bad.exists()
    assert other.read_bytes() == other_bytes


@pytest.mark.parametrize("command", ["show", "approve", "diff"])
def test_show_approve_diff_of_a_corrupt_snapshot_name_it_and_touch_nothing_else(
    tmp_path: Path, command: str
) -> None:
    bad = corrupt(tmp_path, CLAUDE)
    make(tmp_path, CLAUDE_ASYNC)
    make(tmp_path, CLAUDE_ASYNC, last_run=True)
    before = tree(tmp_path)

    result = invoke(command, CLAUDE, "--dir", str(tmp_path))

    assert result.exit_code == (2 if command == "diff" else 1)
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: corrupt snapshot file at {bad}: ")
    assert CLAUDE_ASYNC not in result.output
    assert tree(tmp_path) == before


def test_a_prefix_that_reaches_an_unreadable_file_lists_it_and_its_glob_matches_it(
    tmp_path: Path,
) -> None:
    bad = corrupt(tmp_path, WEATHER, keep_name_line=False)
    good = make(tmp_path, "tests/test_agent.py::test_weather_async")
    before = tree(tmp_path)

    result = invoke("show", "tests/test_agent.py::test_w", "--dir", str(tmp_path))

    assert result.exit_code == 1
    assert result.stderr == (
        f"error: 'tests/test_agent.py::test_w' is the start of 2 snapshot names (1 of them unreadable) in {tmp_path}; "
        "give the full name, or a glob in quotes (e.g. 'tests/test_agent.py::test_w*') to mean all of them:\n"
        "  tests/test_agent.py::test_weather_async\n"
        f"  tests_test_agent.py::test_weather  (unreadable: {bad})\n"
    )
    assert tree(tmp_path) == before
    # the suggested glob means both, the unreadable one included
    gone = invoke("rm", "tests/test_agent.py::test_w*", "--yes", "--dir", str(tmp_path))
    assert gone.exit_code == 0, gone.output
    assert not bad.exists() and not good.exists()


def test_a_prefix_selecting_only_an_unreadable_file_names_it_and_says_why(tmp_path: Path) -> None:
    bad = corrupt(tmp_path, WEATHER)
    before = tree(tmp_path)
    result = invoke("approve", "tests/test_agent.py::test_wea", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(
        f"error: 'tests/test_agent.py::test_wea' is snapshot '{WEATHER}', whose file cannot be read: "
        f"corrupt snapshot file at {bad}: "
    )
    assert result.stderr.endswith(f"To delete it instead: `agentsnap rm {WEATHER}`.\n")
    assert tree(tmp_path) == before


@pytest.mark.parametrize("keep_name_line", [True, False])
@pytest.mark.parametrize(("command", "code"), [("show", 1), ("diff", 2), ("approve", 1)])
def test_the_short_name_of_one_corrupt_snapshot_among_good_ones_says_it_is_unreadable(
    tmp_path: Path, command: str, code: int, keep_name_line: bool
) -> None:
    # the break-it case: one truncated golden (with its last run) next to good snapshots
    bad = corrupt(tmp_path, WEATHER, keep_name_line=keep_name_line)
    make(tmp_path, WEATHER, last_run=True)
    make(tmp_path, CLAUDE, last_run=True)
    make(tmp_path, CLAUDE)
    before = tree(tmp_path)

    result = invoke(command, "test_weather", "--dir", str(tmp_path))

    assert result.exit_code == code, result.output
    assert result.stdout == ""
    label = WEATHER if keep_name_line else "tests_test_agent.py::test_weather"
    (line,) = result.stderr.splitlines()  # one line: no candidate list, no name twice
    assert line.startswith(
        f"error: 'test_weather' is snapshot '{label}', whose file cannot be read: corrupt snapshot file at {bad}: "
    )
    assert "`pytest --agentsnap-record --agentsnap-force`" in line
    assert line.endswith(f"To delete it instead: `agentsnap rm {label}`.")
    assert "give the full name" not in line and CLAUDE not in line
    assert tree(tmp_path) == before

    # the command it suggests deletes that file, and only it
    gone = invoke("rm", label, "--yes", "--dir", str(tmp_path))
    assert gone.exit_code == 0, gone.output
    # with its last run: `agentsnap update` cannot bring it back
    last = tmp_path / ".last_run" / bad.name
    assert gone.stdout == f"deleted unreadable file {bad} ({label}) and its last run ({last})\n"
    assert not last.exists()
    assert invoke("list", "--dir", str(tmp_path)).exit_code == 0


def test_diff_of_a_corrupt_golden_by_its_full_name_reports_it_once(tmp_path: Path) -> None:
    bad = corrupt(tmp_path, WEATHER)
    make(tmp_path, WEATHER, last_run=True)
    result = invoke("diff", WEATHER, "--dir", str(tmp_path))
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: corrupt snapshot file at {bad}: ")
    assert line.endswith(f"To delete it instead: `agentsnap rm {WEATHER}`.")


def test_rm_by_the_short_name_of_an_unreadable_file_lists_it_before_deleting(
    tmp_path: Path,
) -> None:
    bad = corrupt(tmp_path, WEATHER)
    good = make(tmp_path, CLAUDE)
    result = invoke("rm", "test_weather", "--yes", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert (
        result.stderr
        == f"About to delete 1 snapshot file in {tmp_path}:\n  {WEATHER}  ({bad.name})  unreadable\n"
    )
    assert not bad.exists() and good.exists()


def test_exact_name_wins_over_a_longer_name_it_prefixes(tmp_path: Path) -> None:
    short = make(tmp_path, CLAUDE)
    long = make(tmp_path, CLAUDE_ASYNC)
    result = invoke("approve", CLAUDE, "--dir", str(tmp_path))
    assert result.exit_code == 0
    assert (
        result.stderr
        == f"approving {CLAUDE} ({short})\nCommit the snapshot files: CI compares against approved snapshots only.\n"
    )
    assert read(short)["approved"] is True and read(long)["approved"] is False


def test_a_short_name_resolves_when_unique(tmp_path: Path) -> None:
    make(tmp_path, WEATHER)
    make(tmp_path, CLAUDE)
    result = invoke("show", "test_weather", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == f"name      {WEATHER}"


def test_a_short_name_of_two_snapshots_lists_both(tmp_path: Path) -> None:
    make(tmp_path, WEATHER)
    make(tmp_path, "tests/test_other.py::test_weather")
    result = invoke("show", "test_weather", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: 'test_weather' is the end of 2 snapshot names in {tmp_path}; give the full name, or a glob in quotes "
        "(e.g. '*test_weather') to mean all of them:\n"
        f"  {WEATHER}\n  tests/test_other.py::test_weather\n"
    )


def test_an_unknown_name_gets_did_you_mean(tmp_path: Path) -> None:
    make(tmp_path, WEATHER)
    make(tmp_path, "tests/test_agent.py::test_booking")
    result = invoke("show", "test_wether", "--dir", str(tmp_path))
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: no snapshot matches 'test_wether' in {tmp_path}. `agentsnap list --dir {tmp_path}` shows the names. "
        f"Did you mean `{WEATHER}`?\n"
    )


def test_update_prints_what_it_promotes_before_it_does(tmp_path: Path) -> None:
    golden = make(tmp_path, WEATHER, approved=True)
    last = make(tmp_path, WEATHER, city="Lyon", last_run=True)
    result = invoke("update", WEATHER, "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[0] == f"promoting {last} -> {golden}, replacing {golden}"
    assert read(golden)["trace"][1]["args"] == {"city": "Lyon"}


def test_name_from_file_is_the_stores_one_function(tmp_path: Path) -> None:
    from agentsnap.storage.naming import name_from_file

    store = SnapshotStore(tmp_path)
    path = make(tmp_path, WEATHER)
    assert name_from_file(path) == WEATHER
    path.write_text("{oops", encoding="utf-8")
    assert name_from_file(path) == "tests_test_agent.py::test_weather"
    legacy = tmp_path / "weather_paris.json"
    legacy.write_text("[", encoding="utf-8")
    assert name_from_file(legacy) == "weather_paris"
    assert store.path_for(WEATHER) == path
