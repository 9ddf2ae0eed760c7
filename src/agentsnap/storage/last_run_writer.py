"""A pytest run's ``.last_run`` files, a passed run's written when the run ends: :class:`LastRunWriter`.

A pytest run keeps every compared test's latest run in ``.last_run/`` for
``agentsnap diff`` and ``agentsnap update``; no test needs that file to pass or
fail. A failed (or pending) run's file is written when its test ends, where a
user looks for it first. A passed run's file has its bytes made when its test
ends (the run's objects are not held past it) and handed to the writer, which
writes it when the session ends (:meth:`LastRunWriter.close`; an xdist worker
before it hands its results to the controller), sooner once the bytes it holds
reach :data:`HOLD_BYTES`, or before any file written at once (so the later run
of a name is the file). Each file is written as the store always wrote it:
atomically (temp file and rename, :func:`agentsnap.storage.atomic.store_write`,
or over a file that held the same run at another time, in place), never through
a symbolic link; a session killed before its end loses the passed runs' files it
held (the previous ones stay whole) and never leaves a partial file. A file that
cannot be written is not a test's failure: the writer keeps it, every later file
is still tried (one file in the way costs only itself), and the session names
them all when it ends.

Why at the end, on the session's own thread: bench row 6 (500 replayed 5-call
tests) measured a file's checks and system calls at ~75 us inside a test's end
and ~28 us when the run's files are written together (the folder and its files'
metadata warm); a background thread was measured too and cost more than the
write it took off the test's path (a replayed suite keeps the main thread busy in
Python: the writer got the interpreter lock back after each system call only by
forcing a switch). Standard library only.
"""

from __future__ import annotations

import errno
import os
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ..exceptions import SnapshotFormatError

__all__ = ["HOLD_BYTES", "LastRunWriter", "unwritable_groups", "warn_unwritable"]

#: the bytes of ``.last_run`` files held at most before they are written (a suite's memory
#: stays flat: ~500 files of a 5-call run)
HOLD_BYTES = 8 << 20


class LastRunWriter:
    """Writes a run's ``.last_run`` files and keeps the ones that failed until the session ends.

    :meth:`hold` takes a file's write (a callable that writes one file and raises ``OSError``
    or :class:`~agentsnap.exceptions.SnapshotFormatError` when it cannot) for later;
    :meth:`flush` runs the writes held, in order; :meth:`write` runs one at once. A failure is
    kept in :attr:`errors`; :meth:`close` writes what is held and hands the failures over, once.
    """

    def __init__(self) -> None:
        #: ``(path, why)`` of each write that failed, in order (kept until :meth:`close`)
        self.errors: list[tuple[str, str]] = []
        #: the writes held, in order, and the bytes they hold
        self._held: list[tuple[Path, Callable[[], None]]] = []
        self._held_bytes = 0

    def hold(self, path: Path, size: int, write: Callable[[], None]) -> None:
        """Keep ``write`` (which writes ``size`` bytes to ``path``) until :meth:`flush`; the
        writes held are run at once when their bytes reach :data:`HOLD_BYTES`."""
        self._held.append((path, write))
        self._held_bytes += size
        if self._held_bytes >= HOLD_BYTES:
            self.flush()

    def flush(self) -> None:
        """Run every write held, in the order they were held (a failure kept in :attr:`errors`)."""
        held, self._held, self._held_bytes = self._held, [], 0
        for path, write in held:
            self.write(path, write)

    def write(self, path: Path, write: Callable[[], None]) -> bool:
        """Run ``write`` (which writes ``path``); False when it failed (kept in :attr:`errors`)."""
        try:
            write()
        except Exception as exc:  # (any other than these is a bug: still said, never lost)
            self.failed(path, exc)
            return False
        return True

    def failed(self, path: Path, exc: Exception) -> None:
        """Keep ``path``'s failure ``exc`` (said when the session ends)."""
        if isinstance(exc, (OSError, SnapshotFormatError)):
            why = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
        else:
            why = f"{type(exc).__name__}: {exc}"
        self.errors.append((str(path), why))

    def close(self) -> list[tuple[str, str]]:
        """Write what is held (:meth:`flush`); ``(path, why)`` of the writes that failed since
        the last call (then forgotten)."""
        self.flush()
        errors, self.errors = self.errors, []
        return errors


#: the reasons (``strerror``) that say a folder cannot be written at all
_READ_ONLY_REASONS = frozenset(
    os.strerror(code) for code in (errno.EROFS, errno.EACCES, errno.EPERM)
)


def unwritable_groups(failures: Iterable[Sequence[str]]) -> list[tuple[str, str, int]]:
    """``(path, why)`` failures grouped by their ``.last_run`` folder and reason, in first-seen
    order: ``(first path, why, how many more)`` each, one warning apiece (a read-only folder
    failed every test's file, and each xdist worker's, the same way)."""
    groups: dict[tuple[str, str], list[str]] = {}
    for path, why in failures:
        groups.setdefault((str(Path(path).parent), why), []).append(str(path))
    return [(paths[0], why, len(paths) - 1) for (_, why), paths in groups.items()]


def warn_unwritable(
    path: Path | str, why: str, root: Path | None = None, stacklevel: int = 2, *, more: int = 0
) -> None:
    """The one warning for a ``.last_run`` file that could not be written (``why``), naming it
    (``root``: the snapshot folder, by default the one ``path`` is in); ``more``: how many other
    files there failed the same way (said in the same warning)."""
    from ..exceptions import AgentsnapWarning

    path = Path(path)
    root = root if root is not None else path.parent.parent
    others = (
        f" {more} more file{'s' if more > 1 else ''} there could not be written either."
        if more
        else ""
    )
    if why in _READ_ONLY_REASONS:
        hint = f"is {root} read-only?"
    elif "symbolic link" in why:  # (refuse_links' SnapshotFormatError: it names the link)
        hint = "agentsnap writes nothing through a link: replace it with a real folder or file"
    else:
        hint = f"is something in the way under {root}: a file where a folder goes, or the reverse?"
    warnings.warn(
        AgentsnapWarning(
            f"agentsnap: cannot write {path} ({why}); the tests' results are unaffected, but this run is not kept "
            f"for `agentsnap diff`, `agentsnap update` or `agentsnap prune` ({hint}).{others}"
        ),
        stacklevel=stacklevel,
    )
