"""A pytest run's ``.last_run`` files and the ones it could not write: :class:`LastRunWriter`.

A pytest run keeps every compared test's latest run in ``.last_run/`` for
``agentsnap diff`` and ``agentsnap update``; no test needs that file to pass or
fail. The run's store writes each file when its test ends, on the test's thread,
as the store always did: atomically (temp file and rename,
:func:`agentsnap.storage.atomic.store_write`), so a crash loses nothing written
and never leaves a partial file. A file that cannot be written is not a test's
failure: the writer keeps it, every later file is still tried (one file in the
way costs only itself), and the session names them all when it ends
(:meth:`LastRunWriter.close`; an xdist worker hands them to the controller).

Written at once, not on a background thread: a thread joined at the session's
end was measured (bench row 6, 500 replayed 5-call tests, alternating rounds) to
cost more than the write it took off the test's path. A replayed suite keeps the
main thread busy in Python, so the writer got the interpreter lock back after each
of a file's system calls only by forcing a switch: thousands of context switches a
run where a write at once makes none, ~0.2 ms a test of CPU against the 30-70 us the
write's own system calls take on the test's thread. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..exceptions import SnapshotFormatError

__all__ = ["LastRunWriter"]


class LastRunWriter:
    """Writes a run's ``.last_run`` files and keeps the ones that failed until the session ends.

    :meth:`write` runs a write (a callable that writes one file and raises ``OSError`` or
    :class:`~agentsnap.exceptions.SnapshotFormatError` when it cannot) and keeps a failure in
    :attr:`errors`; :meth:`close` hands them over, once.
    """

    def __init__(self) -> None:
        #: ``(path, why)`` of each write that failed, in order (kept until :meth:`close`)
        self.errors: list[tuple[str, str]] = []

    def write(self, path: Path, write: Callable[[], None]) -> bool:
        """Run ``write`` (which writes ``path``); False when it failed (kept in :attr:`errors`)."""
        try:
            write()
        except (OSError, SnapshotFormatError) as exc:
            why = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
            self.errors.append((str(path), why))
            return False
        except Exception as exc:  # a bug: still said at the session's end, never lost
            self.errors.append((str(path), f"{type(exc).__name__}: {exc}"))
            return False
        return True

    def close(self) -> list[tuple[str, str]]:
        """``(path, why)`` of the writes that failed since the last call (then forgotten)."""
        errors, self.errors = self.errors, []
        return errors
