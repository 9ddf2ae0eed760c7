"""A snapshot folder that is the project's own (``snapshot_dir = "."``) holds the project's other
JSON files (package.json, data.json, tsconfig.json): they are not snapshots, so no command lists,
selects, approves, prunes or deletes them, and no run warns about them; a damaged snapshot (its
hashed file name, or the keys only a snapshot has) is still reported as unreadable."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from agentsnap import SnapshotStore
from agentsnap.exceptions import SnapshotFormatError
from agentsnap.storage.naming import foreign_file
from agentsnap.storage.orphans import find_orphans
from agentsnap.storage.snapshot import Snapshot
from tests._support.ci import AGENTSNAP_ENV, clear_ci
from tests.test_cli_helpers import LYON, PARIS, invoke, make, read

#: the project's own JSON files: none is a snapshot
FOREIGN = {
    "package.json": '{\n  "name": "my-app",\n  "version": "1.0.0",\n  "scripts": {"test": "jest"}\n}\n',
    "data.json": "[1, 2, 3]\n",
    "tsconfig.json": '{\n  // the compiler\'s options\n  "compilerOptions": {"strict": true,},\n}\n',
}
#: damaged snapshots: by agentsnap's hashed file name, or by a snapshot's own keys
DAMAGED = {
    "broken-0000abcd.json": "{not json",
    "half.json": '{\n  "agentsnap_version": "1.0.0",\n  "trace": [\n',
    "odd.json": '{"trace": 3}',
}


@pytest.fixture(autouse=True)
def _local(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_ci(monkeypatch, also=AGENTSNAP_ENV)


def _project(root: Path, *, damaged: bool = True) -> dict[str, bytes]:
    """Two goldens (PARIS approved, LYON pending) among the project's files; the foreign files' bytes."""
    make(root, PARIS, approved=True)
    make(root, LYON)
    for name, text in {**FOREIGN, **(DAMAGED if damaged else {})}.items():
        (root / name).write_text(text, encoding="utf-8")
    return {name: (root / name).read_bytes() for name in FOREIGN}


def _untouched(root: Path, foreign: dict[str, bytes]) -> bool:
    return {name: (root / name).read_bytes() for name in FOREIGN} == foreign


@pytest.mark.parametrize(
    ("name", "text", "foreign"),
    [
        *((name, text, True) for name, text in FOREIGN.items()),
        *((name, text, False) for name, text in DAMAGED.items()),
        ("empty.json", "", True),
        ("conflict.json", '<<<<<<< HEAD\n{"name": "a"}\n=======\n{"name": "b"}\n>>>>>>> x\n', True),
        ("golden-conflict.json", '<<<<<<< HEAD\n{"trace": []}\n=======\n', False),
        ("toolscore.json", '{"schema_version": 9, "calls": []}', False),
        ("stamp.json", '{"agentsnap_version": "1.0.0"}', False),
        ("short-1234abcd.json", "[]", False),
    ],
)
def test_foreign_file_tells_another_file_from_a_damaged_snapshot(
    tmp_path: Path, name: str, text: str, foreign: bool
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert foreign_file(path) is foreign


def test_list_leaves_the_projects_json_files_out_and_still_reports_damaged_snapshots(
    tmp_path: Path,
) -> None:
    _project(tmp_path)
    result = invoke("list", "--dir", str(tmp_path))
    assert result.exit_code == 1  # (the damaged snapshots)
    rows = [line.split()[:2] for line in result.stdout.splitlines()]
    assert rows == [
        ["NAME", "STATE"],
        ["broken", "unreadable"],
        ["half", "unreadable"],
        ["odd", "unreadable"],
        [LYON, "pending"],
        [PARIS, "approved"],
    ]
    warned = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warned) == 3
    assert [n for n in ("broken-0000abcd", "half", "odd") if any(n in w for w in warned)] == [
        "broken-0000abcd",
        "half",
        "odd",
    ]
    assert not any(name in w for w in warned for name in FOREIGN)
    assert result.stderr.splitlines()[-1] == (
        f"2 snapshots, 1 pending, 3 unreadable, in {tmp_path}; 3 other JSON files there are not "
        "snapshots: data.json, package.json, tsconfig.json"
    )


def test_list_with_snapshot_dir_dot_exits_0_when_only_the_projects_files_are_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.agentsnap]\nsnapshot_dir = "."\n', "utf-8")
    _project(tmp_path, damaged=False)
    monkeypatch.chdir(tmp_path)
    result = invoke("list")
    assert result.exit_code == 0, result.output
    assert [line.split()[:2] for line in result.stdout.splitlines()] == [
        ["NAME", "STATE"],
        [LYON, "pending"],
        [PARIS, "approved"],
    ]
    assert "warning" not in result.stderr


def test_rm_never_selects_or_deletes_the_projects_json_files(tmp_path: Path) -> None:
    foreign = _project(tmp_path)
    by_its_name = invoke("rm", "my-app", "--yes", "--dir", str(tmp_path))  # package.json's "name"
    assert by_its_name.exit_code == 1
    assert by_its_name.stderr.startswith(f"error: no snapshot matches 'my-app' in {tmp_path}.")

    result = invoke("rm", "*", "--yes", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 5  # the two goldens, the three damaged snapshots
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == sorted(FOREIGN)
    assert _untouched(tmp_path, foreign)


def test_approve_all_says_nothing_of_the_projects_json_files(tmp_path: Path) -> None:
    foreign = _project(tmp_path, damaged=False)
    result = invoke("approve", "--all", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stderr
    assert read(SnapshotStore(tmp_path).path_for(LYON))["approved"] is True
    assert _untouched(tmp_path, foreign)


def test_prune_deletes_only_orphaned_snapshots(tmp_path: Path) -> None:
    """(Held before too: prune deletes readable snapshots only; kept here as the promise.)"""
    foreign = _project(tmp_path, damaged=False)
    record = tmp_path / ".last_run" / "run.json"
    record.parent.mkdir(exist_ok=True)
    record.write_text(
        json.dumps({"full_run": True, "orphans": [LYON, "my-app", "data", "package"]}), "utf-8"
    )
    result = invoke("prune", "--yes", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "deleted 1 snapshot."
    assert SnapshotStore(tmp_path).locate(LYON) is None
    assert SnapshotStore(tmp_path).locate(PARIS) is not None
    assert _untouched(tmp_path, foreign)


def test_a_runs_orphan_search_reads_past_the_projects_json_files_without_a_warning(
    tmp_path: Path,
) -> None:
    foreign = _project(tmp_path, damaged=False)
    store = SnapshotStore(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        orphans = find_orphans(store, collected=set(), used=set(), rootdir=tmp_path)
        assert [s.name for s in store.list()] == [LYON, PARIS]
    assert orphans == [LYON, PARIS]  # (their test file is gone: tests/test_weather.py)
    assert _untouched(tmp_path, foreign)
    (tmp_path / "half.json").write_text(DAMAGED["half.json"], encoding="utf-8")
    with pytest.warns(UserWarning, match=r"half\.json"):
        assert list(store.names()) == [LYON, PARIS]


def test_no_save_overwrites_another_file_of_the_project_not_even_forced(tmp_path: Path) -> None:
    foreign = _project(tmp_path, damaged=False)
    for force in (False, True):
        with pytest.raises(SnapshotFormatError) as err:
            SnapshotStore(tmp_path, force=force).save(
                Snapshot(name="package", trace=[], output="x")
            )
        assert str(err.value) == (
            f"agentsnap: {tmp_path / 'package.json'} is not an agentsnap snapshot but another file "
            "of the project, at the file name snapshot 'package' would be written to; agentsnap "
            "never overwrites it (--agentsnap-force included). Give the snapshot another name, or "
            "keep the snapshots in a folder of their own (snapshot_dir in [tool.agentsnap]). The "
            "snapshot was not written."
        )
    assert _untouched(tmp_path, foreign)
    # a damaged snapshot is still replaced when forced (and only then)
    (tmp_path / "half.json").write_text(DAMAGED["half.json"], encoding="utf-8")
    with pytest.raises(SnapshotFormatError, match=r"half\.json"):
        SnapshotStore(tmp_path).save(Snapshot(name="half", trace=[], output="x"))
    SnapshotStore(tmp_path, force=True).save(Snapshot(name="half", trace=[], output="x"))
    assert read(tmp_path / "half.json")["output"] == "x"
