"""Files agentsnap writes stay where they belong.

It never follows or replaces a symbolic link inside the snapshot folder (it
refuses, naming the link), ``agentsnap update --all`` promotes snapshot files
only (never ``.last_run/run.json``), two tests of one run sharing a snapshot
name both fail naming each other, an over-long explicit name gets a capped
file name, and the temp files a SIGKILL leaves mid-write are ignored by
listing and cleaned up.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from agentsnap import Snapshot, SnapshotStore
from agentsnap.exceptions import SnapshotFormatError
from agentsnap.storage.orphans import RUN_RECORD
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.test_cli_helpers import PARIS, invoke, make, tree

pytest_plugins = ["pytester"]

ONLY_AGENTSNAP = ("-p", "agentsnap.pytest_plugin", "-p", "no:cacheprovider", "-p", "no:randomly")


# --------------------------------------------------------------------------- symbolic links


def test_a_snapshot_that_is_a_symlink_is_refused_and_never_replaced(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("precious\n", encoding="utf-8")
    root = tmp_path / "snaps"
    root.mkdir()
    store = SnapshotStore(root)
    link = store.path_for("weather")
    link.symlink_to(outside)
    for action in (
        lambda: store.save(Snapshot(name="weather", output="new", approved=True)),
        lambda: store.load("weather"),
        lambda: SnapshotStore(root, force=True).save(
            Snapshot(name="weather", output="new"), force=False
        ),
    ):
        with pytest.raises(SnapshotFormatError, match="is a symbolic link") as err:
            action()
        assert str(link) in str(err.value) and "never follows or replaces a link" in str(err.value)
    assert link.is_symlink() and outside.read_text(encoding="utf-8") == "precious\n"
    # --agentsnap-force replaces the link itself with a regular file; its target keeps its bytes
    forced = SnapshotStore(root, force=True)
    with pytest.warns(UserWarning, match="is a symbolic link"):
        assert forced.load("weather") is None
    assert forced.save(Snapshot(name="weather", output="new")) == link
    assert not link.is_symlink() and SnapshotStore(root).load("weather").output == "new"  # type: ignore[union-attr]
    assert outside.read_text(encoding="utf-8") == "precious\n"


def test_update_all_never_replaces_a_symlinked_golden(tmp_path: Path) -> None:
    make(tmp_path, PARIS, city="Lyon", last_run=True)
    golden = SnapshotStore(tmp_path).path_for(PARIS)
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere.json"
    make(tmp_path, PARIS)
    os.replace(golden, elsewhere)
    golden.symlink_to(elsewhere)
    before = elsewhere.read_bytes()
    result = invoke("update", "--all", "--dir", str(tmp_path))
    assert "Traceback" not in result.output
    assert (
        result.exit_code != 0 and "symbolic link" in result.stderr and str(golden) in result.stderr
    )
    assert golden.is_symlink() and elsewhere.read_bytes() == before


def test_a_last_run_folder_linked_outside_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "snaps"
    root.mkdir()
    (root / ".last_run").symlink_to(outside, target_is_directory=True)
    store = SnapshotStore(root)
    with pytest.raises(SnapshotFormatError, match=r"\.last_run is a symbolic link"):
        store.save_last_run(Snapshot(name="weather", output="x"))
    assert list(outside.iterdir()) == []


def test_a_linked_blobs_folder_is_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "snaps"
    root.mkdir()
    (root / "blobs").symlink_to(outside, target_is_directory=True)
    with pytest.raises(SnapshotFormatError, match=r"blobs is a symbolic link"):
        SnapshotStore(root).save(Snapshot(name="upload", output=b"\x00" * (1024 * 1024 + 1)))
    assert list(outside.iterdir()) == []
    assert not SnapshotStore(root).path_for("upload").exists()


def test_listing_skips_symlinked_snapshots_with_a_warning(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    other = tmp_path.parent / f"{tmp_path.name}-other.json"
    other.write_text(
        json.dumps({"name": "linked", "trace": [], "approved": True}), encoding="utf-8"
    )
    (tmp_path / "linked-00000000.json").symlink_to(other)
    with pytest.warns(UserWarning, match="a symbolic link"):
        names = [s.name for s in SnapshotStore(tmp_path).list()]
    assert names == [PARIS]


# --------------------------------------------------------------------------- update --all and the run record


def test_update_all_promotes_snapshot_files_only_never_the_run_record(tmp_path: Path) -> None:
    make(tmp_path, PARIS, city="Lyon", last_run=True)
    make(tmp_path, PARIS)
    record = tmp_path / ".last_run" / RUN_RECORD
    record.write_text(
        json.dumps({"finished_at": "2026-01-01T00:00:00+00:00", "full_run": True, "orphans": []}),
        encoding="utf-8",
    )
    result = invoke("update", "--all", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "run" not in result.output.split()
    goldens = sorted(p.name for p in tmp_path.glob("*.json"))
    assert goldens == [SnapshotStore(tmp_path).path_for(PARIS).name]
    assert not SnapshotStore(tmp_path).exists("run")
    assert record.is_file()


def test_the_run_record_is_not_a_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(
        json.dumps({"finished_at": "x", "full_run": True, "orphans": []}), encoding="utf-8"
    )
    with pytest.raises(SnapshotFormatError, match="expected an object with a 'trace' list"):
        SnapshotStore.read_file(path)


# --------------------------------------------------------------------------- names


TWO_TESTS_ONE_NAME = """
import pytest


@pytest.mark.agentsnap(name="shared")
def test_first(snapshot):
    snapshot([{"tool": "search", "args": {"q": "a"}}])


@pytest.mark.agentsnap(name="shared")
def test_second(snapshot):
    snapshot([{"tool": "search", "args": {"q": "b"}}])


def test_block_a(snapshot):
    snapshot([{"tool": "x", "args": {}}], name="block-name")


def test_block_b(snapshot):
    snapshot([{"tool": "y", "args": {}}], name="block-name")


def test_alone(snapshot):
    snapshot([{"tool": "z", "args": {}}])
"""


def test_a_snapshot_name_used_by_two_tests_fails_both_naming_them(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_names=TWO_TESTS_ONE_NAME)
    result = pytester.runpytest_subprocess(*ONLY_AGENTSNAP)
    out = result.stdout.str()
    result.assert_outcomes(passed=2, failed=1, errors=2)
    message = (
        "agentsnap: snapshot name 'shared' is used by more than one test "
        "(test_names.py::test_first and test_names.py::test_second)"
    )
    assert out.count(message) == 2
    # a block name is claimed when the block runs: the second test fails, naming the first
    assert (
        "agentsnap: snapshot name 'block-name' is used by more than one test "
        "(test_names.py::test_block_a and test_names.py::test_block_b)"
    ) in out
    store = SnapshotStore(pytester.path / "__agent_snapshots__")
    assert not store.exists("shared")
    assert [s.name for s in store.list()] == ["block-name", "test_names.py::test_alone"]


LONG_NAME = """
import pytest


@pytest.mark.agentsnap(name="z" * 400)
def test_long(snapshot):
    snapshot([{"tool": "search", "args": {"q": "a"}}])
"""


def test_an_over_long_explicit_name_gets_a_capped_file_name(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_long=LONG_NAME)
    (
        pytester.path / "__agent_snapshots__"
    ).mkdir()  # an existing folder: the 0.5.1 file name <name>.json is looked up
    result = pytester.runpytest_subprocess(*ONLY_AGENTSNAP)
    result.assert_outcomes(passed=1)
    assert "File name too long" not in result.stdout.str()
    files = list((pytester.path / "__agent_snapshots__").glob("*.json"))
    assert len(files) == 1 and len(files[0].name) < 255
    assert json.loads(files[0].read_text(encoding="utf-8"))["name"] == "z" * 400
    assert SnapshotStore(pytester.path / "__agent_snapshots__").load("z" * 400) is not None


# --------------------------------------------------------------------------- temp files of an interrupted write


def test_stale_temp_files_are_ignored_by_listing_and_cleaned_up(tmp_path: Path) -> None:
    make(tmp_path, PARIS)
    target = SnapshotStore(tmp_path).path_for(PARIS)
    stale = tmp_path / f".{target.name}.k1ll3d.tmp"
    fresh = tmp_path / f".{target.name}.wr1t1ng.tmp"
    for tmp in (stale, fresh):
        tmp.write_text('{"trace": [', encoding="utf-8")  # half a file, as a SIGKILL leaves it
    old = time.time() - 3600
    os.utime(stale, (old, old))
    assert [s.name for s in SnapshotStore(tmp_path).list()] == [PARIS]
    result = invoke("list", "--dir", str(tmp_path))
    assert result.exit_code == 0 and ".tmp" not in result.output

    from agentsnap.storage import atomic

    atomic._cleaned.discard(str(tmp_path))  # a new process
    SnapshotStore(tmp_path).save(Snapshot(name="another", output="x"))
    assert not stale.exists()
    assert fresh.exists()  # may belong to a writer still running (xdist)
    assert set(tree(tmp_path)) >= {target.name, SnapshotStore(tmp_path).path_for("another").name}
