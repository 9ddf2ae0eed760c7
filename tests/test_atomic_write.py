"""The one atomic-write helper (agentsnap.storage.atomic) and the writers that use it (issue 15)."""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

import pytest

from agentsnap.storage import atomic as _atomic

SRC = Path(__file__).resolve().parent.parent / "src" / "agentsnap"


def test_text_and_bytes_replace_the_file_and_leave_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    target.write_text("old", encoding="utf-8")
    _atomic.atomic_write(target, "new\nline ü")
    assert target.read_bytes() == "new\nline ü".encode()
    _atomic.atomic_write(target, b"\x00\xff", durable=False)
    assert target.read_bytes() == b"\x00\xff"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_the_file_gets_the_mode_open_would_give(tmp_path: Path) -> None:
    if not hasattr(os, "fchmod"):
        pytest.skip("no fchmod here")
    target = tmp_path / "a"
    _atomic.atomic_write(target, "x")
    assert target.stat().st_mode & 0o777 == _atomic.default_file_mode()


def test_a_failed_write_keeps_the_old_file_and_removes_the_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "a.json"
    target.write_text("old", encoding="utf-8")

    def boom(src: str, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(_atomic.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        _atomic.atomic_write(target, "new", prefix=".custom.")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_no_module_but_the_helper_renames_temp_files() -> None:
    """Every atomic write goes through agentsnap.storage.atomic: nobody else calls os.replace or mkstemp."""
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).as_posix() == "storage/atomic.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("replace", "mkstemp", "rename"):
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("os", "tempfile"):
                    offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def _refuse_links_by_path(path: Path, root: Path | None = None) -> Path | None:
    """The first link ``refuse_links`` must name, found the way it once was: with ``Path``."""
    stop = Path(root) if root is not None else path.parent.parent
    node = path
    while node != stop and node != node.parent:
        if node.is_symlink():
            return node
        node = node.parent
    return None


def test_refuse_links_visits_what_path_parents_visit(tmp_path: Path, monkeypatch: Any) -> None:
    """``refuse_links`` walks the path as text: it names the same first link as a walk by
    ``Path`` objects, stops at the same place (``root``, the anchor, ``.``), for absolute and
    relative paths, a root given as text, a link at the file, at a folder, above the root."""
    from agentsnap.exceptions import SnapshotFormatError
    from agentsnap.storage.atomic import refuse_links

    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    root = tmp_path / "root"
    (root / ".last_run").mkdir(parents=True)
    (root / "linked").symlink_to(real, target_is_directory=True)
    (root / ".last_run" / "f.json").symlink_to(real / "x.json")
    (tmp_path / "above").symlink_to(root, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    cases: list[tuple[Path, Any]] = [
        (root / ".last_run" / "g.json", root),
        (root / ".last_run" / "f.json", root),
        (root / "linked" / "sub" / "a.json", root),
        (root / "linked" / "sub" / "a.json", str(root)),
        (root / "linked" / "a.json", None),
        (root / "linked" / "sub" / "a.json", None),
        (tmp_path / "above" / ".last_run" / "g.json", tmp_path / "above"),
        (tmp_path / "above" / ".last_run" / "g.json", tmp_path),
        (Path("root") / "linked" / "sub" / "a.json", Path("elsewhere")),
        (Path("root") / ".last_run" / "g.json", Path("root")),
        (Path("above") / "x.json", Path("nowhere")),
        (Path("x.json"), None),
        (Path("."), None),
        (Path("/"), None),
    ]
    for path, stop in cases:
        expected = _refuse_links_by_path(path, None if stop is None else Path(stop))
        if expected is None:
            refuse_links(path, stop)
            continue
        with pytest.raises(SnapshotFormatError) as caught:
            refuse_links(path, stop)
        assert str(caught.value).startswith(f"agentsnap: {expected} is a symbolic link"), (
            path,
            stop,
        )
        assert f"did not write {path}. Replace the link with a real " in str(caught.value)
        kind = "file" if expected == path else "folder"
        assert f"with a real {kind} (or remove it)" in str(caught.value)


def test_a_temp_name_already_taken_is_skipped_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The temp file is named by this process's id and a counter (not at random): a file or a
    link already holding the next name (a killed process of the same id left it) is never
    written through, and the next name is tried, as mkstemp skips a random name that exists."""
    import itertools

    target = tmp_path / "a.json"
    outside = tmp_path / "outside"
    outside.write_text("keep", encoding="utf-8")
    monkeypatch.setattr(_atomic, "_temp_names", itertools.count(7))
    taken_link = tmp_path / f".a.json.{os.getpid()}-7.tmp"
    taken_file = tmp_path / f".a.json.{os.getpid()}-8.tmp"
    try:
        taken_link.symlink_to(outside)
    except (OSError, NotImplementedError):
        pytest.skip("no symbolic links here")
    taken_file.write_text("stale", encoding="utf-8")
    _atomic.atomic_write(target, "new", durable=False)
    assert target.read_text(encoding="utf-8") == "new"
    assert outside.read_text(encoding="utf-8") == "keep"
    assert taken_link.is_symlink() and taken_file.read_text(encoding="utf-8") == "stale"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["a.json", "outside", taken_link.name, taken_file.name]
    )


def test_the_temp_file_is_created_by_its_open_alone(tmp_path: Path) -> None:
    """Created or not at all (O_EXCL), never through a link (O_NOFOLLOW where there is one),
    not inherited by a child process: mkstemp's flags."""
    assert _atomic._TEMP_FLAGS & os.O_CREAT and _atomic._TEMP_FLAGS & os.O_EXCL
    if hasattr(os, "O_NOFOLLOW"):
        assert _atomic._TEMP_FLAGS & os.O_NOFOLLOW
    fd, name = _atomic._create_temp(tmp_path, ".b.json.")
    try:
        assert os.path.isabs(name) and Path(name).parent == tmp_path
        assert Path(name).name.startswith(f".b.json.{os.getpid()}-") and name.endswith(".tmp")
        assert not os.get_inheritable(fd)
    finally:
        os.close(fd)
        os.unlink(name)


def test_store_write_checks_again_for_a_link_after_making_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder made on the way is checked again once made (a link put there in between is
    refused); when the folder is already there the path is checked once, right before the
    write."""
    from agentsnap.exceptions import SnapshotFormatError

    root = tmp_path / "snaps"
    root.mkdir()
    real_mkdir = Path.mkdir
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def mkdir_then_link(self: Path, *args: Any, **kwargs: Any) -> None:
        if self == root / ".last_run":
            self.symlink_to(elsewhere, target_is_directory=True)  # the folder made as a link
            return
        real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir_then_link)
    try:
        with pytest.raises(SnapshotFormatError, match="symbolic link"):
            _atomic.store_write(root / ".last_run" / "x.json", "x", root=root)
    except OSError:
        pytest.skip("no symbolic links here")
    assert list(elsewhere.iterdir()) == []
    monkeypatch.setattr(Path, "mkdir", real_mkdir)
    (root / ".last_run").unlink()
    (root / ".last_run").mkdir()
    checks: list[object] = []
    real_refuse = _atomic.refuse_links
    monkeypatch.setattr(
        _atomic, "refuse_links", lambda *a, **k: (checks.append(a), real_refuse(*a, **k))[1]
    )
    _atomic.store_write(root / ".last_run" / "x.json", "x", durable=False, root=root)
    assert len(checks) == 1 and (root / ".last_run" / "x.json").read_text(encoding="utf-8") == "x"


def test_a_short_os_write_is_written_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A buffer is written to the descriptor itself: what ``os.write`` leaves (it may write
    less than asked) is written on, so the file holds every byte."""
    real_write = os.write
    calls: list[int] = []

    def short(fd: int, data: Any) -> int:
        calls.append(len(data))
        return real_write(fd, bytes(data)[:3])

    monkeypatch.setattr(_atomic.os, "write", short)
    target = tmp_path / "a.json"
    _atomic.atomic_write(target, "0123456789ü", durable=True)
    monkeypatch.undo()
    assert target.read_bytes() == "0123456789ü".encode()
    assert len(calls) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]
