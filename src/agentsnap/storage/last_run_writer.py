"""``.last_run`` files written off the test's path: :class:`LastRunWriter`.

A pytest run keeps every compared test's latest run in ``.last_run/`` for
``agentsnap diff`` and ``agentsnap update``; no test needs that file to pass or
fail. The run's store hands each file's text (serialised on the caller's
thread, so later changes to the snapshot cannot reach it) to one background
thread, which writes it as the store always did: atomically (temp file and
rename, :func:`agentsnap.storage.atomic.store_write`), so a crash loses at most
the runs not yet written and never leaves a partial file. A second run of the
same file queued before the first was written replaces it (the file holds the
latest run either way).

The session joins the writer when it ends (:meth:`LastRunWriter.close`; an
xdist worker before it reports to the controller), and so does the interpreter
at exit; a write that failed is reported then, naming the file
(:attr:`LastRunWriter.errors`). Standard library only.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from pathlib import Path

from ..exceptions import SnapshotFormatError

__all__ = ["LastRunWriter"]


class LastRunWriter:
    """One background thread writing queued ``.last_run`` files, in the order they came.

    :meth:`submit` queues a write (a callable that writes one file and raises
    ``OSError`` or :class:`~agentsnap.exceptions.SnapshotFormatError` when it
    cannot); :meth:`flush` waits until every queued file is written;
    :meth:`close` flushes and ends the thread. The thread starts with the first
    write and is a daemon joined at interpreter exit (:mod:`atexit`).
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        #: path -> the write of its latest run, in submission order
        self._queue: dict[Path, Callable[[], None]] = {}
        self._writing: Path | None = None
        self._thread: threading.Thread | None = None
        self._stop = False
        #: ``(path, why)`` of each write that failed, in order (kept until :meth:`close`)
        self.errors: list[tuple[str, str]] = []

    def submit(self, path: Path, write: Callable[[], None]) -> None:
        """Queue ``write`` (which writes ``path``); a queued write of the same path is dropped."""
        with self._cond:
            self._queue.pop(path, None)
            self._queue[path] = write
            if self._thread is None or not self._thread.is_alive():
                self._stop = False
                self._thread = threading.Thread(
                    target=self._run, name="agentsnap-last-run", daemon=True
                )
                self._thread.start()
                atexit.register(self.close)
            self._cond.notify_all()

    def write_here(self, path: Path, write: Callable[[], None]) -> None:
        """Run ``write`` (of ``path``) on the calling thread, after every queued write (so no
        older run of the file lands after it); a failure is reported as the thread's are. For a
        file written in pieces from the snapshot itself, which must not change meanwhile."""
        self.flush()
        with self._cond:
            self._write(path, write)

    def pending(self, path: Path) -> bool:
        """Whether a write of ``path`` is queued or under way."""
        with self._cond:
            return path in self._queue or self._writing == path

    def flush(self) -> None:
        """Wait until every queued write is done (returns at once when none is)."""
        with self._cond:
            while self._queue or self._writing is not None:
                if self._thread is None or not self._thread.is_alive():
                    self._drain_here()  # the thread is gone (a fork): write here
                    return
                self._cond.wait()

    def close(self) -> list[tuple[str, str]]:
        """Flush, end the thread; ``(path, why)`` of the writes that failed (then forgotten)."""
        self.flush()
        with self._cond:
            self._stop = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        with self._cond:
            self._thread = None
            errors, self.errors = self.errors, []
        atexit.unregister(self.close)
        return errors

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stop:
                    self._cond.wait()
                if not self._queue:
                    return
                path = next(iter(self._queue))
                write = self._queue.pop(path)
                self._writing = path
            self._write(path, write)
            with self._cond:
                self._writing = None
                self._cond.notify_all()

    def _drain_here(self) -> None:
        """Write what is queued on the calling thread (the lock held: no thread is running)."""
        while self._queue:
            path = next(iter(self._queue))
            self._write(path, self._queue.pop(path))

    def _write(self, path: Path, write: Callable[[], None]) -> None:
        try:
            write()
        except (OSError, SnapshotFormatError) as exc:
            why = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
            self.errors.append((str(path), why))
        except Exception as exc:  # a bug: still said at the session's end, never lost
            self.errors.append((str(path), f"{type(exc).__name__}: {exc}"))
