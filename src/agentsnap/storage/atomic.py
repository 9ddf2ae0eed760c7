"""The one way agentsnap writes a file atomically: :func:`atomic_write`.

Snapshots, ``.last_run`` files, blobs, the orphan list and the HTML report are
all written through it, so a reader (or a crash, even SIGKILL) only ever sees
the old file or the new one. Inside the snapshot folder, :func:`store_write`
adds what the folder needs: no symbolic link followed or replaced
(:func:`refuse_links`), and the temp files a killed writer left removed
(:func:`clean_stale_temp`). A small scratch file written again with what it
held but its time is written over in place instead (:func:`overwrite_alike`):
a reader may then see the two times mixed, never another document.
Imports only the standard library and the exceptions.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import posixpath
import stat
import tempfile
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath

from ..exceptions import SnapshotFormatError

__all__ = [
    "atomic_write",
    "clean_stale_temp",
    "default_file_mode",
    "fsync_dir",
    "overwrite_alike",
    "probe_folder",
    "read_first",
    "read_small",
    "refuse_links",
    "still_first",
    "store_write",
]

_mode: int | None = None
_mode_lock = threading.Lock()


def atomic_write(
    path: Path,
    data: str | bytes | bytearray | Iterable[str | bytes | bytearray],
    *,
    durable: bool = True,
    prefix: str | None = None,
) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8, line ends as they are; an
    iterable of text pieces is written piece by piece, never joined in memory).

    The bytes go to a temp file in the same folder (``<prefix><pid>-<n>.tmp``,
    ``prefix`` defaulting to ``.<file name>.``), fsynced, then renamed over
    ``path``; the folder is fsynced too, so the rename survives a power cut.
    ``durable=False`` skips both fsyncs (scratch files: a power cut may lose
    the new file, a reader still never sees a partial one). The file gets the
    permissions ``open()`` would give it (:func:`default_file_mode`), not
    ``mkstemp``'s 0600. The folder must exist. Raises ``OSError`` from the
    file system; the temp file is removed on any failure (also
    ``KeyboardInterrupt``).
    """
    fd, tmp = _create_temp(path.parent, f".{path.name}." if prefix is None else prefix)
    try:
        if isinstance(data, (str, bytes, bytearray)):
            # one buffer: written to the descriptor itself (a file object around it cost ~19k
            # instructions, a fifth of a ``.last_run`` write's own part)
            try:
                if hasattr(os, "fchmod"):
                    os.fchmod(fd, default_file_mode())
                _write_all(fd, data.encode("utf-8") if isinstance(data, str) else data)
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
        else:
            with os.fdopen(fd, "wb") as fh:
                if hasattr(os, "fchmod"):
                    os.fchmod(fh.fileno(), default_file_mode())
                _write_pieces(fh, data)
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


#: how :func:`overwrite_alike` opens the file it may write over: never through a link
_ALIKE_FLAGS = (
    os.O_RDWR
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def overwrite_alike(path: Path, data: bytes | bytearray, stamp: bytes, below: int) -> bool:
    """Write ``data`` over ``path``'s own bytes, in place, when the file holds as many bytes and
    they differ from ``data`` only where the file holds the value of its string field ``stamp``
    (``b'"created_at":"'``: the first one in the text; every occurrence of that value, replaced by
    ``data``'s own value of the field, gives ``data``): True when it did, or when the file held
    ``data`` already (then nothing is written). False, with nothing written, for any other file:
    missing, not a regular file, a link (never followed), a file with more than one name
    (written in place, each name would change), permissions other than a new file's
    (:func:`default_file_mode`), another length, another content, and ``data`` of ``below`` bytes
    or more (the old bytes are read whole and a changed copy made: two more copies of the file,
    against a rename saved whose cost does not grow with it).

    For a scratch file written again with the same content but its time, what
    :func:`atomic_write` costs beyond the bytes: a temp file and a rename over the old file,
    which on ext4 starts the new file's write-back at once (``auto_da_alloc``) and frees the old
    one's blocks: 0.2-0.4 ms a file on this machine's disk. A reader, or a crash in the middle of
    the write, sees the old bytes, the new ones, or a mix of the two that differs from both only
    inside that value (no quote in it): a whole document either way, never a partial one."""
    if len(data) >= below:
        return False
    try:
        fd = os.open(path, _ALIKE_FLAGS)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        size = len(data)
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_nlink != 1
            or info.st_size != size
            or stat.S_IMODE(info.st_mode) != default_file_mode()  # as a new file would have it
        ):
            return False
        old = os.read(fd, size)
        if old == data:
            return True
        before, after = _field_value(old, stamp), _field_value(data, stamp)
        if before is None or after is None or old.replace(before, after) != data:
            return False
        view = memoryview(data)
        done = 0
        while done < size:
            done += os.pwrite(fd, view[done:], done)
        return True
    finally:
        os.close(fd)


def _field_value(text: bytes | bytearray, field: bytes) -> bytes | None:
    """The bytes after the first ``field`` (a JSON key, its colon and opening quote) up to the
    next quote: a string field's value, when it holds no escape (None: no such value)."""
    start = text.find(field)
    if start < 0:
        return None
    start += len(field)
    end = text.find(b'"', start)
    value = bytes(text[start:end])
    return value if end > start and b"\\" not in value else None


#: the flags ``tempfile.mkstemp`` opens its file with: created here or not at all (never an
#: existing file, never through a link), binary, not inherited by child processes
_TEMP_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
#: the temp names this process tried, counted (``next`` on it is atomic under the GIL)
_temp_names = itertools.count()


def _create_temp(folder: Path, prefix: str) -> tuple[int, str]:
    """Create a new temp file ``<prefix><pid>-<n>.tmp`` in ``folder`` (mode 0600) and open it:
    ``(fd, path)``. What ``tempfile.mkstemp`` does, with a name unique to this process and
    call instead of a random one (the random name cost a tenth of a ``.last_run`` write): the
    file is created by the open itself (``O_EXCL``), so a file or link already holding the name
    (left by a killed process that had this pid) is never opened, only skipped for the next
    name, as ``mkstemp`` skips a random name that exists. Raises ``OSError`` as ``mkstemp``
    does (``FileExistsError`` only after as many tries)."""
    where = os.fspath(folder)
    if not os.path.isabs(where):  # (mkstemp's path is absolute: a later chdir cannot move it)
        where = os.path.abspath(where)
    base = os.path.join(where, f"{prefix}{os.getpid()}-")
    for _ in range(tempfile.TMP_MAX):
        name = f"{base}{next(_temp_names)}.tmp"
        try:
            fd = os.open(name, _TEMP_FLAGS, 0o600)
        except FileExistsError:
            continue  # (a killed writer's file, or another process's of the same pid)
        return fd, name
    raise FileExistsError(errno.EEXIST, "No usable temporary file name found", os.fspath(folder))


def probe_folder(folder: Path) -> None:
    """Raise ``OSError`` when ``folder`` takes no new file: a temp file named as :func:`atomic_write`
    names it (``.agentsnap-probe.json.<pid>-<n>.tmp``) made and removed at once, what a replace or a
    delete there needs besides the file itself (the CLI's all-or-nothing commands ask first)."""
    fd, tmp = _create_temp(folder, ".agentsnap-probe.json.")
    os.close(fd)
    os.unlink(tmp)


def _write_all(fd: int, data: bytes | bytearray) -> None:
    """Write all of ``data`` to the file descriptor ``fd`` (``os.write`` may write less)."""
    done = os.write(fd, data)
    if done < len(data):
        view = memoryview(data)
        while done < len(data):
            done += os.write(fd, view[done:])


#: text pieces are gathered up to this many characters before one write
_PIECES_CHARS = 1 << 16


def _write_pieces(fh: object, pieces: Iterable[str | bytes | bytearray]) -> None:
    """Write ``pieces`` to the binary file ``fh`` (text as UTF-8, bytes as they are), about
    :data:`_PIECES_CHARS` characters or bytes at a time (an encoder yields many short pieces)."""
    write = fh.write  # type: ignore[attr-defined]
    held: list[str] = []
    size = 0
    for piece in pieces:
        if not isinstance(piece, str):
            if held:
                write("".join(held).encode("utf-8"))
                held.clear()
                size = 0
            write(piece)
            continue
        held.append(piece)
        size += len(piece)
        if size >= _PIECES_CHARS:
            write("".join(held).encode("utf-8"))
            held.clear()
            size = 0
    if held:
        write("".join(held).encode("utf-8"))


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


def refuse_links(path: Path, root: Path | None = None) -> None:
    """Raise :class:`~agentsnap.exceptions.SnapshotFormatError` naming the first symbolic link
    among ``path`` and its parents below ``root`` (default: ``path``'s own folder only):
    agentsnap never follows or replaces a link inside the snapshot folder, so nothing it
    writes lands outside it. ``root`` itself may be a link (a folder kept elsewhere).

    Walked as text (``os.path``), not as ``Path`` objects: a ``.last_run`` file is checked
    several times a test, and each ``Path.parent`` and comparison cost as much as the
    ``lstat``. The same nodes as ``Path`` would visit: ``path``, then each parent, up to
    (not including) ``root`` or the anchor (``/``, a drive, ``.``), compared as ``Path``
    compares (``os.path.normcase``)."""
    node = os.fspath(path)
    if root is None:
        stop = _parent(_parent(node))
    else:
        stop = os.fspath(root) if isinstance(root, PurePath) else os.fspath(Path(root))
    # (``normcase`` returns a text path as it is on POSIX: not called there; ``_parent`` and
    # ``lstat_mode`` inline: a ``.last_run`` write walks this loop twice)
    fold = _FOLDS_CASE
    stop_key = fold(stop) if fold is not None else stop
    while True:
        up = os.path.dirname(node) or "."  # (_parent)
        if fold is None:
            if node in (stop_key, up):
                return
        else:
            key = fold(node)
            if key == stop_key or key == fold(up):
                return
        try:  # (lstat_mode, inline)
            mode: int | None = os.lstat(node).st_mode
        except OSError as exc:
            if exc.errno in _NOT_THERE or getattr(exc, "winerror", None) in _NOT_THERE_WIN:
                mode = None
            else:
                raise
        except ValueError:
            mode = None
        if mode is not None and stat.S_ISLNK(mode):
            try:
                target = os.readlink(node)
            except OSError:
                target = "?"
            raise SnapshotFormatError(
                f"agentsnap: {node} is a symbolic link (to {target}); agentsnap never follows or replaces a link inside "
                f"the snapshot folder, so it did not write {path}. Replace the link with a real "
                f"{'folder' if node != os.fspath(path) else 'file'} (or remove it), then re-run."
            )
        node = up


#: ``os.path.normcase`` where it changes a text path (Windows), else None (POSIX: the text itself)
_FOLDS_CASE = None if os.path.normcase is posixpath.normcase else os.path.normcase


def _parent(node: str) -> str:
    """``str(Path(node).parent)`` of a path already in ``Path``'s form: ``.`` above a relative
    path's first part, the anchor above itself."""
    return os.path.dirname(node) or "."


#: the ``lstat`` errors ``Path.is_symlink`` reads as "not a link" (no such file, a file in the
#: way, a loop) rather than raising; and Windows' own codes for the same
_NOT_THERE = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)
_NOT_THERE_WIN = (21, 123, 1921)


def lstat_mode(node: str | os.PathLike[str]) -> int | None:
    """``os.lstat(node).st_mode``, or None where ``Path.is_symlink`` / ``Path.is_file`` read the
    error as "not there" (no such file, a file in the way, a loop, a name the OS refuses); other
    errors raise, as they do there. One system call for both questions."""
    try:
        return os.lstat(node).st_mode
    except OSError as exc:
        if exc.errno in _NOT_THERE or getattr(exc, "winerror", None) in _NOT_THERE_WIN:
            return None
        raise
    except ValueError:
        return None


#: stale temp files (a writer killed between mkstemp and os.replace) older than this are removed
_STALE_TMP_SECONDS = 60.0
_cleaned: set[str] = set()


def clean_stale_temp(folder: Path, *, max_age: float = _STALE_TMP_SECONDS) -> list[Path]:
    """Remove the temp files :func:`atomic_write` leaves when killed mid-write
    (``.<name>.<random>.tmp``) older than ``max_age`` seconds; returns those removed.
    Fresh ones may belong to a writer still running (xdist) and are kept."""
    import time

    removed: list[Path] = []
    try:
        candidates = [
            p
            for p in folder.iterdir()
            if p.name.startswith(".") and p.name.endswith(".tmp") and ".json." in p.name
        ]
    except OSError:
        return removed
    now = time.time()
    for tmp in candidates:
        try:
            if tmp.is_symlink() or not tmp.is_file() or now - tmp.stat().st_mtime < max_age:
                continue
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            continue
    return removed


def store_write(
    path: Path,
    text: str | bytes | bytearray | Iterable[str | bytes | bytearray],
    *,
    durable: bool = True,
    root: Path | None = None,
    replace_link: bool = False,
) -> None:
    """Write ``text`` (or its pieces) to ``path`` so that a reader (or a crash, even SIGKILL) only ever
    sees the old file or the new one (:func:`atomic_write`), after
    refusing a symbolic link on the way (:func:`refuse_links`) and, once per folder
    and process, removing the temp files a killed writer left (:func:`clean_stale_temp`).
    ``durable=False`` skips the fsyncs (scratch files). ``replace_link``: ``path`` itself
    may be a link (``--agentsnap-force``): the rename replaces the link, never its target."""
    checked = path.parent if replace_link else path
    stop = root if root is not None else path.parent.parent
    refuse_links(checked, stop)
    if not os.path.isdir(path.parent):  # (what `mkdir(exist_ok=True)` accepts, without its raise)
        path.parent.mkdir(parents=True, exist_ok=True)
        # a link made in between (checked again only when folders were made: otherwise nothing
        # but the `isdir` ran since the check above, and a link made then is one made after it)
        refuse_links(checked, stop)
    key = str(path.parent)
    if key not in _cleaned:  # once per folder and process: what a SIGKILL left behind
        _cleaned.add(key)
        clean_stale_temp(path.parent)
    atomic_write(path, text, durable=durable)


def read_small(path: str | os.PathLike[str], below: int) -> tuple[bytes, tuple[int, int]] | None:
    """The bytes of the regular file ``path`` when it holds fewer than ``below`` bytes, and its
    ``(mtime_ns, size)`` as read: one ``open``, ``fstat`` and one read (``Path.read_bytes``
    adds an ``ioctl``, two ``lseek`` and a second ``fstat``; a ``stat`` before it for the size and
    one after it for the stamp made eight calls of one). None for a larger file, anything but a
    regular file, and any error: the caller reads it as before, which raises what it raises. The
    stamp is the one taken before the read; a file whose size changed meanwhile gives None too."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError):
        return None
    return _read_open(fd, below)


def _read_open(fd: int, below: int) -> tuple[bytes, tuple[int, int]] | None:
    """:func:`read_small` of the file open as ``fd``, which it closes. One read of one byte more
    than the ``fstat``'s size: a regular file's read stops short only at its end, so exactly that
    many bytes are the whole file as it was then (more: it grew; fewer: it shrank, or the read was
    cut short: None, the caller's own read tells)."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size >= below:
            return None
        data = os.read(fd, info.st_size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) != info.st_size:
        return None
    return data, (info.st_mtime_ns, info.st_size)


#: how :func:`read_first` opens a name's files: never through a link, never waiting on a FIFO; None
#: where the system has no such flags (Windows): there it never answers
_FIRST_FLAGS = (
    os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_NONBLOCK")
    else None
)


def read_first(paths: Sequence[str], below: int) -> tuple[int, bytes, tuple[int, int]] | None:
    """The first of ``paths`` that exists, read (:func:`read_small`) when it is a regular file of
    fewer than ``below`` bytes and each path before it is no such file (``ENOENT``): ``(its index,
    its bytes, (mtime_ns, size))``; ``(len(paths), b"", (0, 0))`` when none of them exists. What
    ``lstat`` of each in turn, then :func:`read_small` of the first found, tells, with the ``open``
    as the found file's ``lstat`` (``O_NOFOLLOW``: a link is never opened, ``O_NONBLOCK``: nor
    is a FIFO waited on). None for anything else (a link, a folder or another kind of file, a
    large file, any other error) and on a system without those flags: the caller looks again as
    before, which tells what it tells (a link raises). Unlike an ``lstat``, the open of a FIFO
    or a device node at a golden's name is an open of it (a writer blocked on that FIFO is let
    go, then finds no reader): no file of the kind belongs in a snapshot folder."""
    flags = _FIRST_FLAGS
    if flags is None:
        return None
    for index, path in enumerate(paths):
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            return None
        read = _read_open(fd, below)
        return None if read is None else (index, *read)
    return len(paths), b"", (0, 0)


def still_first(found: str | os.PathLike[str], before: tuple[Path, ...]) -> bool:
    """Whether ``found`` is still a regular file (no link) and each of ``before`` still absent
    (neither a file nor a link): then :meth:`agentsnap.storage.store.SnapshotStore.locate` would find ``found`` again."""
    for path in before:
        try:
            os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError:
            return False
        return False
    try:
        return stat.S_ISREG(os.lstat(found).st_mode)
    except OSError:
        return False
