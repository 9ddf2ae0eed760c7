"""All or nothing for the commands that change goldens (``approve``, ``update``, ``rm``, ``prune``).

Two halves. Before the first change, :func:`refuse_blocked` asks the file
system what it can be asked: that each file to replace or delete is no folder,
can be opened for writing (a file marked immutable or append-only, or on a
read-only file system, cannot: permission bits are not asked, a rename or an
unlink does not read them) and that its folder takes a new file. Then each
change runs inside :meth:`Undo.change`, which holds the file's old bytes (or
link, or its absence) in memory first; when a later step still fails,
:meth:`Undo.failed` puts back every file already changed, in reverse order
(a deleted file re-created byte for byte, with its mode), and says what
happened, and that nothing was changed, or, only when a put-back itself
fails, which file is in which state.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..storage.atomic import atomic_write, lstat_mode, probe_folder
from ._errors import CliError

__all__ = ["Undo", "blocked", "refuse_blocked", "remove_all"]

#: the probe of a file's writability: never through a link, never blocking on a fifo, no truncation
_PROBE_FLAGS = (
    os.O_WRONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def blocked(
    path: Path, *, remove: bool, folders: dict[Path, str | None] | None = None
) -> str | None:
    """Why ``path`` cannot be replaced (``remove``: deleted), as far as can be told before
    trying, or None. ``folders`` caches each folder's probe for the next call."""
    mode = lstat_mode(path)
    if mode is not None and stat.S_ISDIR(mode):
        return f"{path} is a folder where a file is expected"
    if mode is not None and stat.S_ISREG(mode):
        try:
            os.close(os.open(path, _PROBE_FLAGS))
        except OSError as exc:
            # EACCES: permission bits, which a rename or an unlink in the folder ignores
            if exc.errno != errno.EACCES:
                return f"{path} cannot be {'deleted' if remove else 'replaced'}: {_why(exc)}"
    folder = path.parent
    cache: dict[Path, str | None] = {} if folders is None else folders
    if folder not in cache:
        cache[folder] = _folder_blocked(folder)
    return cache[folder]


def _folder_blocked(folder: Path) -> str | None:
    """Why no file can be made or removed in ``folder`` (a temp file made and removed), or None."""
    if not folder.is_dir():
        return None  # made by the write itself (the snapshot folder's `.last_run/`)
    try:
        probe_folder(folder)
    except OSError as exc:
        return f"its folder {folder} cannot be written: {_why(exc)}"
    return None


def refuse_blocked(
    items: Sequence[tuple[str, Path]], *, remove: bool, verb: str, nothing: str, again: str
) -> None:
    """Raise :class:`CliError` naming every ``(name, path)`` that :func:`blocked` refuses, before
    anything is changed: ``cannot VERB 'NAME': WHY. NOTHING. …``."""
    folders: dict[Path, str | None] = {}
    names: dict[str, list[str]] = {}  # why -> the names it stops, each once (a folder: several)
    for name, path in items:
        why = blocked(path, remove=remove, folders=folders)
        if why is not None and name not in names.setdefault(why, []):
            names[why].append(name)
    problems = [f"cannot {verb} {', '.join(map(repr, n))}: {why}" for why, n in names.items()]
    if problems:
        raise CliError(
            f"{'; '.join(problems)}. {nothing.capitalize()}. Move what is in the way, or make it "
            f"writable (a file marked immutable or append-only: `chattr -i -a FILE`), then run "
            f"`{again}` again."
        )


@dataclass(frozen=True)
class _Before:
    """A file as it was before this command changed it."""

    path: Path
    data: bytes | None  # its bytes; None: no regular file
    link: str | None  # the target of the link it was
    mode: int | None  # its permission bits

    def put_back(self) -> None:
        if self.link is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
            os.symlink(self.link, self.path)
        elif self.data is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
        else:
            atomic_write(self.path, self.data)
            if self.mode is not None:
                os.chmod(self.path, self.mode)

    def left(self) -> str:
        """What the file holds when it could not be put back."""
        if self.data is None and self.link is None:
            return "it is the file this command wrote; delete it"
        if lstat_mode(self.path) is None:
            return "it stays deleted; a committed file comes back with `git checkout -- FILE`"
        return "it holds what this command wrote; a committed file comes back with `git checkout -- FILE`"


def _before(path: Path) -> _Before:
    mode = lstat_mode(path)
    if mode is None:
        return _Before(path, None, None, None)
    if stat.S_ISLNK(mode):
        return _Before(path, None, os.readlink(path), None)
    return _Before(path, path.read_bytes(), None, stat.S_IMODE(mode))


class Undo:
    """The files one command changed so far, as they were before, to put back on a failure."""

    def __init__(self) -> None:
        self.kept: list[_Before] = []

    @contextlib.contextmanager
    def change(self, path: Path) -> Iterator[None]:
        """Hold ``path`` as it is, run the block that changes it, then count it as changed
        (a block that raises changed nothing: the write is atomic, the unlink one call)."""
        before = _before(path)
        yield
        self.kept.append(before)

    def failed(self, what: str, *, nothing: str) -> CliError:
        """Put back every changed file (the last first) and return the error to raise:
        ``WHAT. The N files already changed were put back (…); NOTHING.``, or what was left
        where a put-back failed."""
        what = what.rstrip(".")
        done: list[Path] = []
        lost: list[str] = []
        for before in reversed(self.kept):
            try:
                before.put_back()
            except OSError as exc:
                lost.append(f"{before.path} could not be put back ({_why(exc)}): {before.left()}")
            else:
                done.append(before.path)
        if lost:
            back = f"; put back: {', '.join(map(str, reversed(done)))}" if done else ""
            return CliError(
                f"{what}. Putting back the files already changed failed, so not all was undone: "
                f"{'; '.join(reversed(lost))}{back}."
            )
        if not done:
            return CliError(f"{what}. {nothing.capitalize()}.")
        files = "file already changed was" if len(done) == 1 else "files already changed were"
        return CliError(
            f"{what}. The {len(done)} {files} put back "
            f"({', '.join(map(str, reversed(done)))}); {nothing}."
        )


def remove_all(items: Sequence[tuple[str, Path]], again: str) -> None:
    """Delete each ``(name, path)``'s file, all or nothing: every one checked first
    (:func:`refuse_blocked`), each deleted one re-created when a later one fails."""
    nothing = "nothing was deleted"
    refuse_blocked(items, remove=True, verb="delete", nothing=nothing, again=again)
    undo = Undo()
    for name, path in items:
        try:
            with undo.change(path):
                path.unlink(missing_ok=True)
        except OSError as exc:
            raise undo.failed(
                f"cannot delete {name!r} ({path}): {_why(exc)}", nothing=nothing
            ) from None
