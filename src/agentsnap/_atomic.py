"""The one way agentsnap writes a file atomically: :func:`atomic_write`.

A leaf (standard library only). Snapshots, ``.last_run`` files, blobs, the
orphan list and the HTML report are all written through it, so a reader (or a
crash, even SIGKILL) only ever sees the old file or the new one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from pathlib import Path

__all__ = ["atomic_write", "default_file_mode", "fsync_dir"]

_mode: int | None = None
_mode_lock = threading.Lock()


def atomic_write(
    path: Path, data: str | bytes, *, durable: bool = True, prefix: str | None = None
) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8, line ends as they are).

    The bytes go to a temp file in the same folder (``<prefix><random>.tmp``,
    ``prefix`` defaulting to ``.<file name>.``), fsynced, then renamed over
    ``path``; the folder is fsynced too, so the rename survives a power cut.
    ``durable=False`` skips both fsyncs (scratch files: a power cut may lose
    the new file, a reader still never sees a partial one). The file gets the
    permissions ``open()`` would give it (:func:`default_file_mode`), not
    ``mkstemp``'s 0600. The folder must exist. Raises ``OSError`` from the
    file system; the temp file is removed on any failure (also
    ``KeyboardInterrupt``).
    """
    fd, tmp = tempfile.mkstemp(
        prefix=f".{path.name}." if prefix is None else prefix, suffix=".tmp", dir=path.parent
    )
    try:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        with os.fdopen(fd, "wb") as fh:
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), default_file_mode())
            fh.write(raw)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
        if durable:
            fsync_dir(path.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def default_file_mode() -> int:
    """``0o666`` minus the process umask: what ``open()`` would give a new file
    (``mkstemp`` gives 0600, which other users, CI containers and git checkouts
    by another account could not read)."""
    global _mode
    if _mode is None:
        with _mode_lock:
            if _mode is None:
                mask = os.umask(0o022)
                os.umask(mask)
                _mode = 0o666 & ~mask
    return _mode


def fsync_dir(folder: Path) -> None:
    """Persist a rename inside ``folder`` (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
