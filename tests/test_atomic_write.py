"""The one atomic-write helper (agentsnap.storage.atomic) and the writers that use it (issue 15)."""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --------------------------------------------------------------- overwrite_alike (issue 30)

_STAMP = b'"created_at":"'


def _doc(when: str, output: str, extra: str = "") -> bytes:
    return (
        f'{{"created_at":"{when}","output":"{output}{extra}","recorded_at":"{when}",'
        f'"updated_at":"{when}"}}'
    ).encode()


def test_a_file_alike_but_for_its_stamp_is_written_over_in_place(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    target.write_bytes(_doc("2026-12-07T08:23:33+00:00", "Sunny."))
    before = target.stat().st_ino
    new = _doc("2026-12-07T08:25:14+00:00", "Sunny.")
    assert _atomic.overwrite_alike(target, new, _STAMP, 1 << 20)
    assert target.read_bytes() == new
    assert target.stat().st_ino == before  # the same file: no temp file, no rename
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]


def test_a_file_that_holds_the_bytes_already_is_not_written(tmp_path: Path) -> None:
    target = tmp_path / "run.json"
    same = _doc("2026-12-07T08:23:33+00:00", "Sunny.")
    target.write_bytes(same)
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    assert _atomic.overwrite_alike(target, bytearray(same), _STAMP, 1 << 20)
    assert target.stat().st_mtime_ns == 1_000_000_000


@pytest.mark.parametrize(
    "old",
    [
        _doc("2026-12-07T08:23:33+00:00", "Rainy."),  # other content, the same length
        _doc("2026-12-07T08:23:33+00:00", "Sunny.", " More."),  # longer
        b'{"output":"Sunny.","when":"2026-12-07T08:23:33+00:00"}',  # no stamp to tell apart
        # the stamp differs, and so does the other field (recorded_at: not the stamp's value)
        _doc("2026-12-07T08:23:33+00:00", "Sunny.").replace(
            b'"recorded_at":"2026-12-07T08:23:33', b'"recorded_at":"2026-12-07T08:23:34'
        ),
    ],
    ids=["other-content", "other-length", "no-stamp", "a-second-field-differs"],
)
def test_any_other_file_is_left_as_it_was(tmp_path: Path, old: bytes) -> None:
    target = tmp_path / "run.json"
    target.write_bytes(old)
    new = _doc("2026-12-07T08:25:14+00:00", "Sunny.")
    assert not _atomic.overwrite_alike(target, new, _STAMP, 1 << 20)
    assert target.read_bytes() == old


def test_a_missing_file_a_link_and_a_file_of_two_names_are_not_written(tmp_path: Path) -> None:
    old, new = (_doc(f"2026-12-07T08:2{m}:33+00:00", "Sunny.") for m in (3, 5))
    assert not _atomic.overwrite_alike(tmp_path / "none.json", new, _STAMP, 1 << 20)
    assert not (tmp_path / "none.json").exists()
    real = tmp_path / "real.json"
    real.write_bytes(old)
    (tmp_path / "link.json").symlink_to(real)
    assert not _atomic.overwrite_alike(tmp_path / "link.json", new, _STAMP, 1 << 20)
    os.link(real, tmp_path / "second-name.json")
    assert not _atomic.overwrite_alike(real, new, _STAMP, 1 << 20)
    assert real.read_bytes() == old and (tmp_path / "second-name.json").read_bytes() == old
    (tmp_path / "folder").mkdir()
    assert not _atomic.overwrite_alike(tmp_path / "folder", new, _STAMP, 1 << 20)


def test_a_file_of_other_permissions_or_past_the_size_given_is_not_written(
    tmp_path: Path,
) -> None:
    """Written anew instead: a new file's permissions (a file left 0600 by a run under another
    umask gets them back), and no whole-file copies of a large file."""
    old, new = (_doc(f"2026-12-07T08:2{m}:33+00:00", "Sunny.") for m in (3, 5))
    target = tmp_path / "run.json"
    target.write_bytes(old)
    target.chmod(0o600)
    if _atomic.default_file_mode() != 0o600:
        assert not _atomic.overwrite_alike(target, new, _STAMP, 1 << 20)
        assert target.read_bytes() == old
    target.chmod(_atomic.default_file_mode())
    assert not _atomic.overwrite_alike(target, new, _STAMP, len(new))
    assert target.read_bytes() == old
    assert _atomic.overwrite_alike(target, new, _STAMP, len(new) + 1)


def test_a_short_pwrite_is_written_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "run.json"
    target.write_bytes(_doc("2026-12-07T08:23:33+00:00", "Sunny." * 40))
    new = _doc("2026-12-07T08:25:14+00:00", "Sunny." * 40)
    real = os.pwrite

    def short(fd: int, data: Any, offset: int) -> int:
        return real(fd, bytes(data)[:7], offset)

    monkeypatch.setattr(os, "pwrite", short)
    assert _atomic.overwrite_alike(target, new, _STAMP, 1 << 20)
    assert target.read_bytes() == new


_WHEN = st.text("0123456789:T+-", max_size=6)
#: outputs that may hold a stamp's value (its characters), or any text
_OUTPUT = st.one_of(
    st.text("0123456789:T+-a", max_size=8),
    st.text(st.characters(codec="utf-8", exclude_characters='"\\'), max_size=8),
)


@settings(max_examples=400, deadline=None)
@given(old_when=_WHEN, new_when=_WHEN, old_out=_OUTPUT, new_out=_OUTPUT)
def test_property_written_over_only_where_the_stamp_is(
    tmp_path_factory: pytest.TempPathFactory,
    old_when: str,
    new_when: str,
    old_out: str,
    new_out: str,
) -> None:
    """Whatever the two texts: True leaves the new bytes and False the old ones; a text that
    differs only by the stamp's value (of one length, found nowhere else) is written over (one
    found elsewhere too may not be: then it is written anew); and whenever it is, every
    byte that changed lies inside an occurrence of the old stamp's value (so a write cut short
    leaves a whole document)."""
    target = tmp_path_factory.mktemp("alike") / "run.json"
    old, new = _doc(old_when, old_out), _doc(new_when, new_out)
    target.write_bytes(old)
    done = _atomic.overwrite_alike(target, new, _STAMP, 1 << 20)
    assert target.read_bytes() == (new if done else old)
    only_stamps = old_when and old.count(old_when.encode()) == 3  # its own three fields alone
    if old_out == new_out and len(old_when) == len(new_when) and only_stamps:
        assert done
    if done and old != new:
        value = old_when.encode()
        inside = set()
        start = old.find(value)
        while start >= 0:
            inside.update(range(start, start + len(value)))
            start = old.find(value, start + 1)
        assert {i for i in range(len(old)) if old[i] != new[i]} <= inside
