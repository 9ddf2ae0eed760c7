"""``agentsnap approve``, ``update`` and ``rm`` keep their promise "all or nothing" when a write
fails: what can be checked is checked before the first change, and a failure midway puts back
every file already changed (its old bytes, or a deleted file re-created byte for byte).

CI runs as root, where ``chmod`` stops no write: a file that cannot be replaced is a folder
where a file is expected, or an ``os`` call made to fail for one path (as ``chattr +i`` does).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from agentsnap.storage.store import SnapshotStore
from tests.test_cli_helpers import LYON, PARIS, invoke, make, tree

BOTH = "tests/test_weather.py::*"
FIX = "Move what is in the way, or make it writable (a file marked immutable or append-only: `chattr -i -a FILE`)"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("AGENTSNAP_SNAPSHOT_DIR", "AGENTSNAP_MODE", "AGENTSNAP_RECORD", "NO_COLOR", "CI"):
        monkeypatch.delenv(var, raising=False)


def immutable(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """``path`` behaves as under ``chattr +i``: opening it for writing is not permitted."""
    real = os.open

    def fake(file: object, flags: int, *args: object, **kwargs: object) -> int:
        if os.fspath(file) == os.fspath(path) and flags & (os.O_WRONLY | os.O_RDWR):  # type: ignore[arg-type]
            raise PermissionError(errno.EPERM, os.strerror(errno.EPERM), os.fspath(path))
        return real(file, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", fake)


def failing(
    monkeypatch: pytest.MonkeyPatch, name: str, fails: Callable[[str, int], bool]
) -> list[str]:
    """``os.<name>`` raises EIO when ``fails(path, call number for that path)``; the paths it
    was called with are returned (its target: the second argument of ``os.replace``)."""
    real = getattr(os, name)
    seen: list[str] = []

    def fake(*args: object, **kwargs: object) -> object:
        path = os.fspath(args[-1])  # type: ignore[call-overload]
        seen.append(path)
        if fails(path, seen.count(path)):
            raise OSError(errno.EIO, os.strerror(errno.EIO), path)
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, fake)
    return seen


def error(result: object) -> str:
    """The error line ending stderr (the notes before it say what was about to be done)."""
    assert result.exit_code == 1, result.output  # type: ignore[attr-defined]
    text: str = result.stderr  # type: ignore[attr-defined]
    return text.splitlines(keepends=True)[-1]


# ---------------------------------------------------------------------------- approve
def test_approve_checks_every_file_before_approving_any(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, LYON)
    paris = make(tmp_path, PARIS)
    before = tree(tmp_path)
    immutable(monkeypatch, paris)

    result = invoke("approve", BOTH, "--dir", str(tmp_path))

    assert error(result) == (
        f"error: cannot approve '{PARIS}': {paris} cannot be replaced: Operation not permitted. "
        f"Nothing was approved. {FIX}, then run "
        f"`agentsnap approve 'tests/test_weather.py::*' --dir {tmp_path}` again.\n"
    )
    assert tree(tmp_path) == before


def test_approve_puts_back_what_it_approved_when_a_write_fails_midway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lyon = make(tmp_path, LYON)
    paris = make(tmp_path, PARIS)
    before = tree(tmp_path)
    failing(monkeypatch, "replace", lambda path, n: path == str(paris))

    result = invoke("approve", BOTH, "--dir", str(tmp_path))

    assert error(result) == (
        f"error: cannot approve '{PARIS}' ({paris}): agentsnap: cannot write the golden {paris}: "
        f"Input/output error. The golden was not written. Make {tmp_path} a writable folder, or "
        f"use another snapshot folder. The 1 file already changed was put back ({lyon}); "
        "nothing was approved.\n"
    )
    assert tree(tmp_path) == before


def test_approve_says_which_file_is_left_approved_when_putting_back_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lyon = make(tmp_path, LYON)
    paris = make(tmp_path, PARIS)
    paris_before = paris.read_bytes()
    # the paris golden cannot be written, nor lyon's a second time (the put-back)
    failing(
        monkeypatch, "replace", lambda path, n: path == str(paris) or (path == str(lyon) and n == 2)
    )

    result = invoke("approve", BOTH, "--dir", str(tmp_path))

    assert error(result) == (
        f"error: cannot approve '{PARIS}' ({paris}): agentsnap: cannot write the golden {paris}: "
        f"Input/output error. The golden was not written. Make {tmp_path} a writable folder, or "
        "use another snapshot folder. Putting back the files already changed failed, so not all "
        f"was undone: {lyon} could not be put back (Input/output error): it holds what this "
        "command wrote; a committed file comes back with `git checkout -- FILE`.\n"
    )
    assert SnapshotStore(tmp_path).load(LYON).approved is True  # type: ignore[union-attr]
    assert paris.read_bytes() == paris_before


# ---------------------------------------------------------------------------- update
def test_update_refuses_a_golden_path_that_is_a_folder_before_promoting_anything(
    tmp_path: Path,
) -> None:
    make(tmp_path, LYON, city="Lyon", last_run=True)
    make(tmp_path, PARIS, city="Nice", last_run=True)
    in_the_way = SnapshotStore(tmp_path).path_for(PARIS)
    in_the_way.mkdir()
    (in_the_way / "keep.txt").write_text("mine\n", encoding="utf-8")
    before = tree(tmp_path)

    result = invoke("update", BOTH, "--dir", str(tmp_path))

    assert error(result) == (
        f"error: cannot update '{PARIS}': {in_the_way} is a folder where a file is expected. "
        f"Nothing was changed. {FIX}, then run "
        f"`agentsnap update 'tests/test_weather.py::*' --dir {tmp_path}` again.\n"
    )
    assert tree(tmp_path) == before


def test_update_names_each_golden_it_cannot_replace_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, LYON, approved=True)
    make(tmp_path, LYON, city="Nice", last_run=True)
    paris = make(tmp_path, PARIS, approved=True)
    make(tmp_path, PARIS, city="Nice", last_run=True)
    before = tree(tmp_path)
    immutable(monkeypatch, paris)

    result = invoke("update", BOTH, "--dir", str(tmp_path))

    assert error(result) == (
        f"error: cannot update '{PARIS}': {paris} cannot be replaced: Operation not permitted. "
        f"Nothing was changed. {FIX}, then run "
        f"`agentsnap update 'tests/test_weather.py::*' --dir {tmp_path}` again.\n"
    )
    assert tree(tmp_path) == before


def test_update_puts_back_goldens_and_last_runs_when_a_write_fails_midway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lyon = make(tmp_path, LYON, approved=True)
    lyon_last = make(tmp_path, LYON, city="Nice", last_run=True)
    paris = make(tmp_path, PARIS, approved=True)
    make(tmp_path, PARIS, city="Nice", last_run=True)
    before = tree(tmp_path)
    failing(monkeypatch, "replace", lambda path, n: path == str(paris))

    result = invoke("update", BOTH, "--dir", str(tmp_path))

    assert error(result) == (
        f"error: cannot update '{PARIS}': agentsnap: cannot write the golden {paris}: "
        f"Input/output error. The golden was not written. Make {tmp_path} a writable folder, or "
        f"use another snapshot folder. The 2 files already changed were put back ({lyon}, "
        f"{lyon_last}); nothing was changed.\n"
    )
    assert tree(tmp_path) == before


# ---------------------------------------------------------------------------- rm
def test_rm_checks_every_file_before_deleting_any(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, LYON)
    make(tmp_path, LYON, last_run=True)
    paris = make(tmp_path, PARIS)
    before = tree(tmp_path)
    immutable(monkeypatch, paris)

    result = invoke("rm", BOTH, "--yes", "--dir", str(tmp_path))

    assert error(result) == (
        f"error: cannot delete '{PARIS}': {paris} cannot be deleted: Operation not permitted. "
        f"Nothing was deleted. {FIX}, then run "
        f"`agentsnap rm 'tests/test_weather.py::*' --yes --dir {tmp_path}` again.\n"
    )
    assert result.stdout == ""
    assert tree(tmp_path) == before


def test_rm_recreates_what_it_deleted_when_a_delete_fails_midway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lyon = make(tmp_path, LYON)
    lyon_last = make(tmp_path, LYON, last_run=True)
    paris = make(tmp_path, PARIS)
    os.chmod(lyon, 0o640)
    before = tree(tmp_path)
    failing(monkeypatch, "unlink", lambda path, n: path == str(paris))

    result = invoke("rm", BOTH, "--yes", "--dir", str(tmp_path))

    assert error(result) == (
        f"error: cannot delete '{PARIS}' ({paris}): Input/output error. The 2 files already "
        f"changed were put back ({lyon}, {lyon_last}); nothing was deleted.\n"
    )
    assert result.stdout == ""
    assert tree(tmp_path) == before
    assert lyon.stat().st_mode & 0o777 == 0o640
