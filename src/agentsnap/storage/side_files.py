"""The side files of a snapshot folder (``blobs/<sha256>``): which ones its snapshot files still
reference, and the ones ``agentsnap rm`` and ``agentsnap prune`` delete.

A side file (:mod:`agentsnap.storage.serialize`: large tool bytes; a WebSocket message's large
base64, :mod:`agentsnap.capture.websocket.frames`) is written once per content and shared by
every snapshot that holds its reference, so it may be deleted only when no file that can hold
a reference names it any more. Those files (the *holders*) are every ``*.json`` directly in the
snapshot folder (goldens, approved or pending, unreadable ones too), and in ``.last_run/`` the
latest runs and the kept live samples (``.last_run/<file>.runs/*.json``).

What counts as a reference is read from a holder's bytes, not its parsed JSON: any run of
exactly 64 lowercase hex digits (a reference's ``"$blob": "blobs/<sha256>"`` and its
``"sha256"``), wherever it is (inside a string, a file that no longer parses). That reads
more references than there are, never fewer: a side file is kept rather than lost.

What is never deleted (:class:`Sweep` says which and why): anything in ``blobs/`` that is not a
regular file named like a sha256 (links, folders, other files), anything when ``blobs`` itself
is a link or no folder, and every side file when a holder cannot be read (a link, which is
never followed, or an ``OSError``): which ones it references cannot be told.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import re
import stat
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .serialize import BLOB_DIR
from .snapshot import LAST_RUN_DIR

__all__ = [
    "Sweep",
    "delete_unreferenced",
    "dropped_references",
    "holders",
    "references",
    "sweep",
]

#: a run of exactly 64 lowercase hex digits: a sha256 as agentsnap writes it
_HEX_RUN = re.compile(rb"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
_NAME = re.compile(r"[0-9a-f]{64}")
#: open a holder without following a link or waiting on a FIFO (where the system has the flags)
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def references(path: Path) -> set[str]:
    """The sha256 digests the file ``path`` holds (see the module doc), read without loading it
    whole (``mmap``). Raises ``OSError`` when it cannot be read, a link or anything but a regular
    file included."""
    if stat.S_ISLNK(os.lstat(path).st_mode):
        raise OSError("a symbolic link, never followed")
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError("not a regular file")
        if info.st_size == 0:
            return set()
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as view:
            return {m.group().decode("ascii") for m in _HEX_RUN.finditer(view)}
    finally:
        os.close(fd)


def _json_in(folder: Path) -> Iterator[Path]:
    with os.scandir(folder) as found:
        names = sorted(e.name for e in found if e.name.endswith(".json"))
    for name in names:
        path = folder / name
        if path.is_symlink() or path.is_file():  # a link is a holder that cannot be read
            yield path


def holders(root: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """``(files, problems)``: the files of the snapshot folder ``root`` that may reference a side
    file (the module doc), and the places that cannot be looked into (a linked ``.last_run`` or
    samples folder, a folder that cannot be listed), each with why."""
    files: list[Path] = []
    problems: list[tuple[Path, str]] = []
    try:
        files += _json_in(root)
    except OSError as exc:
        problems.append((root, exc.strerror or str(exc)))
    last = root / LAST_RUN_DIR
    if last.is_symlink():
        return files, [*problems, (last, "a symbolic link, never followed")]
    if not last.is_dir():
        return files, problems
    try:
        files += _json_in(last)
        with os.scandir(last) as found:
            samples = sorted(e.name for e in found if e.name.endswith(".runs"))
    except OSError as exc:
        return files, [*problems, (last, exc.strerror or str(exc))]
    for name in samples:
        folder = last / name
        if folder.is_symlink():
            problems.append((folder, "a symbolic link, never followed"))
        elif folder.is_dir():
            try:
                files += _json_in(folder)
            except OSError as exc:
                problems.append((folder, exc.strerror or str(exc)))
    return files, problems


@dataclass
class Sweep:
    """What a sweep of ``blobs/`` found. ``delete``: the side files no holder references (those
    asked about); ``left``: what in ``blobs/`` is no side file agentsnap wrote, with why (never
    deleted); ``unknown``: holders that could not be read, with why: while there is one,
    ``delete`` is empty and ``kept`` holds what it would have deleted."""

    folder: Path
    delete: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    left: list[tuple[Path, str]] = field(default_factory=list)
    unknown: list[tuple[Path, str]] = field(default_factory=list)

    def size(self) -> int:
        """The bytes of the side files to delete (as they are now)."""
        total = 0
        for path in self.delete:
            with contextlib.suppress(OSError):
                total += path.lstat().st_size
        return total


def _same(path: Path) -> str:
    return os.path.normcase(os.path.abspath(path))


def _entries(folder: Path, among: Collection[str] | None) -> Iterator[tuple[Path, str | None]]:
    """Each entry of ``blobs/`` (those named ``among``, when given), and why it is no side file
    agentsnap wrote (None: it is one)."""
    if among is None:
        with os.scandir(folder) as found:
            names = sorted(e.name for e in found)
    else:
        names = sorted(n for n in among if os.path.lexists(folder / n))
    for name in names:
        path = folder / name
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            yield path, "a symbolic link"
        elif stat.S_ISDIR(mode):
            yield path, "a folder"
        elif not stat.S_ISREG(mode):
            yield path, "not a regular file"
        elif not _NAME.fullmatch(name):
            yield path, "not named like a sha256"
        else:
            yield path, None


def sweep(
    root: Path, dropping: Collection[Path] = (), among: Collection[str] | None = None
) -> Sweep:
    """The side files of the snapshot folder ``root`` that no holder references once the files
    ``dropping`` are gone (the snapshots and last runs about to be deleted); only the digests
    ``among`` when given (``agentsnap rm``: what the deleted files referenced), else every
    entry of ``blobs/`` (``agentsnap prune``). Reads only; deletes nothing."""
    folder = root / BLOB_DIR
    found = Sweep(folder)
    if folder.is_symlink():
        found.left.append((folder, "a symbolic link: nothing in it is deleted"))
        return found
    if not folder.exists():
        return found
    if not folder.is_dir():
        found.left.append((folder, "not a folder"))
        return found
    candidates: list[Path] = []
    try:
        for path, why in _entries(folder, among):
            if why is None:
                candidates.append(path)
            else:
                found.left.append((path, why))
    except OSError as exc:
        found.unknown.append((folder, exc.strerror or str(exc)))
        return found
    if not candidates:
        return found
    files, found.unknown = holders(root)
    gone = {_same(p) for p in dropping}
    used: set[str] = set()
    for path in files:
        if _same(path) in gone:
            continue
        try:
            used |= references(path)
        except OSError as exc:
            found.unknown.append((path, exc.strerror or str(exc)))
    free = [p for p in candidates if p.name not in used]
    if found.unknown:
        found.kept = free
    else:
        found.delete = free
    return found


def dropped_references(paths: Collection[Path]) -> set[str]:
    """The digests the files ``paths`` (about to be deleted) reference; a file that cannot be
    read references none (its side files are left to ``agentsnap prune``)."""
    found: set[str] = set()
    for path in paths:
        with contextlib.suppress(OSError):
            found |= references(path)
    return found


def delete_unreferenced(plan: Sweep) -> list[Path]:
    """Delete ``plan.delete``, each only while it is still a regular file (no link); returns the
    files deleted. Raises ``OSError`` naming the file that could not be deleted."""
    done: list[Path] = []
    for path in plan.delete:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(mode):
            continue
        path.unlink(missing_ok=True)
        done.append(path)
    return done
