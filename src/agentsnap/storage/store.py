"""The file-backed store of snapshots: :class:`SnapshotStore`.

One JSON file per snapshot under the store's root (named by
:mod:`agentsnap.storage.naming`), written atomically (:func:`agentsnap.storage.atomic.store_write`),
checked against the schema on every load, not rewritten when only volatile fields
changed (:func:`agentsnap.storage.volatile.same_content`). A run's last result
(``.last_run/``) sits beside the goldens.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import os
import stat
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..exceptions import SnapshotFormatError
from . import atomic as _atomic
from . import lazy_steps as _steps
from . import legacy as _legacy
from . import naming as _naming
from . import schema as _schema
from . import serialize as _serialize
from .atomic import lstat_mode, overwrite_alike, read_small, refuse_links, still_first, store_write
from .last_run_writer import warn_unwritable
from .snapshot import (
    _MAX_NESTING,
    _READABLE_VERSIONS,
    FORMAT_VERSION,
    LAST_RUN_DIR,
    Snapshot,
    _deeper_than,
    _now,
    _version,
    dump_pieces,
    stamp_digest,
)
from .volatile import same_content
from .wire import json_loads_utf8

if TYPE_CHECKING:
    from .last_run_writer import LastRunWriter

__all__ = ["SnapshotStore"]


#: a run of this many steps or more has its ``.last_run`` file written a step at a time, on the
#: test's thread (a 5,000-call run's record is ~12 MB: never held whole in memory)
PIECES_FROM_STEPS = 500


def _prepared_dict(snapshot: Snapshot) -> dict[str, Any]:
    """``prepare(snapshot.to_dict())``, a prepared trace not again (its steps the snapshot's own:
    every writer reads them at once, on the test's thread, none changes them)."""
    data = snapshot.to_dict()
    if not snapshot.prepared:
        prepared: dict[str, Any] = _serialize.prepare(data)
        return prepared
    parts = {key: data.pop(key) for key in ("input", "trace", "output")}
    return {**_serialize.prepare_plain(data), **parts}


def _has_conflict_markers(raw: bytes) -> bool:
    """Whether a file's bytes hold a line opening with git's ``<<<<<<< `` marker.

    Asked only of a file that did not parse: parsed JSON never holds one (a string holds no raw
    line break, and no JSON value starts with ``<``), and searching every byte of a 5,000-call
    golden (20 MB: its indentation defeats the substring search's skips) takes 10-16 ms."""
    return raw.startswith(b"<<<<<<< ") or b"\n<<<<<<< " in raw or b"\r<<<<<<< " in raw


def _stamp(path: Path) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of ``path``, or None when it cannot be read."""
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


#: a run's time in its compact scratch text, the first string field of that name (the
#: snapshot's keys are sorted: only ``comparison``'s scores come before it); ``recorded_at`` and
#: ``updated_at`` hold the same value: what differs between two runs of a test that did the same
_RUN_STAMP = b'"created_at":"'


class SnapshotStore:
    """File-backed store: one JSON file per snapshot under ``root``.

    Nothing is created until the first :meth:`save` (building a store or
    listing an absent root touches nothing).
    """

    def __init__(
        self, root: str | os.PathLike[str] = "__agent_snapshots__", *, force: bool = False
    ) -> None:
        self.root = Path(root)
        self._last_runs = self.root / LAST_RUN_DIR  # (joined once: a .last_run file a test)
        #: ``--agentsnap-force``: an unreadable file loads as missing (with a warning)
        #: and :meth:`save` overwrites it
        self.force = force
        #: set once a write to ``.last_run/`` failed (:meth:`last_run_unwritable`): later
        #: ones are not tried, so a read-only folder costs one warning per store, not one per test
        self.last_run_error: str | None = None
        #: the pytest session's writer of ``.last_run`` files, which writes them when the session
        #: ends (:class:`agentsnap.storage.last_run_writer.LastRunWriter`); None: written at once
        self.writer: LastRunWriter | None = None
        #: the goldens :meth:`load` read or :meth:`save` wrote (or found unchanged) in this
        #: process: ``{path: (mtime_ns, size)}`` as read or written
        self.known: dict[Path, tuple[int, int]] = {}
        #: name -> (the file :meth:`locate` found, the candidates before it, absent then, the
        #: found file's path as text: its ``lstat`` when asked again)
        self._located: dict[str, tuple[Path, tuple[Path, ...], str]] = {}
        #: :meth:`load_listed` may answer from a listing of ``root`` (the session's, under replay)
        self.listed = False
        self._listing: _naming.Listing | None = None

    def __repr__(self) -> str:
        return f"SnapshotStore({str(self.root)!r})"

    # -- paths -------------------------------------------------------------
    def candidates(self, name: str) -> list[Path]:
        """Every file name ``name`` may be stored under, in the order they are tried
        (:func:`~agentsnap.storage.naming.candidate_names`): the hashed form, then ``<name>.json``
        when that is a safe file name (agentsnap 0.5.1's form and today's plain one)."""
        return [self.root / file for file in _naming.candidate_names(name)]

    def locate(self, name: str) -> Path | None:
        """Which file holds snapshot ``name``: the first of :meth:`candidates` that exists, else None.

        Looks at file names only (no file is parsed); :meth:`load` checks the
        name stored inside. The one function to ask "where is NAME" — the CLI
        and the pytest plugin use it, so every reader agrees.
        """
        known = self._located.pop(name, None)
        if known is not None and still_first(known[2], known[1]):
            # what was found before still wins: one lstat a candidate, instead of the name's file
            # names made again and two stats each
            self._located[name] = known
            return known[0]
        tried = self.candidates(name)
        for rank, path in enumerate(tried):
            if (mode := lstat_mode(path)) is not None and stat.S_ISLNK(mode):
                refuse_links(path, self.root)  # never followed: raises (so lstat is stat below)
            if mode is not None and stat.S_ISREG(mode):
                self._located[name] = (path, tuple(tried[:rank]), os.fspath(path))
                return path
        return None

    def load_listed(self, name: str) -> Snapshot | None:
        """:meth:`load`, None at once when :attr:`listed` and ``root``'s listing (again after any save
        of this process: no other writes goldens meanwhile) has no file of ``name``."""
        if self.listed:
            self._listing = _naming.listing(self._listing, self.root)
            if self._listing.absent(name):
                return None
        return self.load(name)

    def located(self, name: str) -> Path | None:
        """The file :meth:`locate` last found for ``name`` (not looked at again), else None."""
        return known[0] if (known := self._located.get(name)) is not None else None

    def input_hash_names(self, name: str) -> list[str]:
        """:func:`~agentsnap.storage.naming.input_hash_names` in ``root``."""
        return _naming.input_hash_names(self.root, name)

    def path_for(self, name: str) -> Path:
        """The file of snapshot ``name``: where it already is (:meth:`locate`), else where a new
        one goes (:func:`~agentsnap.storage.naming.preferred_filename`). Always directly in ``root``.
        A golden that is a symbolic link raises (:func:`refuse_links`), except on a store
        made with ``force``: then it is that link, which :meth:`save` replaces."""
        try:
            found = self.locate(name)
        except SnapshotFormatError:
            link = self._link_to_replace(name) if self.force else None
            if link is None:
                raise
            return link
        if found is not None:
            return found
        return self.root / _naming.preferred_filename(name)

    def _link_to_replace(self, name: str) -> Path | None:
        """The first of ``name``'s :meth:`candidates` that is a symbolic link in a folder
        that is not one (a linked folder is never written into), or None."""
        link = next((p for p in self.candidates(name) if p.is_symlink()), None)
        if link is not None:
            refuse_links(link.parent, self.root)
        return link

    def last_run_path(self, name: str) -> Path:
        """Where the latest run of ``name`` is written: ``root/.last_run/`` plus the golden's file name."""
        return self.root / LAST_RUN_DIR / self.path_for(name).name

    def exists(self, name: str) -> bool:
        return self.locate(name) is not None

    # -- reading -----------------------------------------------------------
    @staticmethod
    def read_file(path: Path, *, expected_name: str | None = None) -> Snapshot:
        """Parse one snapshot file (see :meth:`read_document`) into a :class:`Snapshot` (a large
        one's steps kept as text until read: :func:`agentsnap.storage.lazy_steps.read_large`)."""
        return _steps.read_large(path, expected_name) or Snapshot.from_dict(
            SnapshotStore.read_document(path, expected_name=expected_name)[1], name=expected_name
        )

    @staticmethod
    def read_document(
        path: Path, *, expected_name: str | None = None, given: list[bytes] | None = None
    ) -> tuple[object, dict[str, Any]]:
        """One snapshot file parsed and checked (see :meth:`_read_document`; ``given``: its bytes, read
        already, in a list it empties), with the cyclic garbage collector paused meanwhile: a golden
        is a burst of fresh, acyclic dicts and lists (hundreds of thousands for a 5,000-call golden)
        that would otherwise trigger collections walking all of them, several times, while nothing
        collectable exists yet."""
        if not gc.isenabled():
            return SnapshotStore._read_document(path, expected_name=expected_name, given=given)
        gc.disable()
        try:
            return SnapshotStore._read_document(path, expected_name=expected_name, given=given)
        finally:
            gc.enable()

    @staticmethod
    def _read_document(
        path: Path, *, expected_name: str | None = None, given: list[bytes] | None = None
    ) -> tuple[object, dict[str, Any]]:
        """Parse one snapshot file: the document as stored (no defaults filled in, an agentsnap
        0.5.1 file in its own shape) and the checked snapshot dict it reads as.

        Raises :class:`~agentsnap.exceptions.SnapshotFormatError` (a
        ``ValueError``) naming the path when the file cannot be read, is not valid JSON, not a
        snapshot, of an unknown format version, fails the schema
        (:mod:`agentsnap.storage.schema`: the error names the JSON path), or holds
        another name.
        """
        fix = (
            f"Fix or delete the file, or replace it with a new recording: {_schema.FORCED_RECORD}."
        )
        try:
            raw = path.read_bytes() if given is None else given.pop()  # bytes: never held twice
        except OSError as exc:  # unreadable (permissions), or gone since it was found
            raise SnapshotFormatError(
                f"agentsnap: cannot read snapshot file at {path}: {exc.strerror or exc}. Make it "
                f"readable by this user, or delete it and record it again: {_schema.FORCED_RECORD}."
            ) from None
        try:
            data = json_loads_utf8(raw)  # JSON only: never pickle, YAML tags or eval
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            if _has_conflict_markers(raw):
                raise SnapshotFormatError(
                    f"agentsnap: snapshot file at {path} contains merge-conflict markers. Resolve the conflict, then re-run. {fix}"
                ) from None
            if isinstance(exc, UnicodeDecodeError):
                what = f"not UTF-8 ({exc})"
            elif isinstance(exc, RecursionError):
                what = "nested too deeply to read"
            else:
                what = str(exc)
            raise SnapshotFormatError(
                f"agentsnap: corrupt snapshot file at {path}: {what}. {fix}"
            ) from None
        del raw  # the parsed document is all that is read from here on
        stored = data
        if _legacy.is_toolscore(data):
            try:
                data = _legacy.from_toolscore(
                    data, path
                )  # its calls become tool_call steps, or it is refused
            except ValueError as exc:
                raise SnapshotFormatError(f"agentsnap: {exc}. {fix}") from None
        if not isinstance(data, dict) or not isinstance(data.get("trace"), list):
            raise SnapshotFormatError(
                f"agentsnap: {path} is not an agentsnap snapshot (expected an object with a 'trace' list). {fix}"
            )
        if _deeper_than(data, _MAX_NESTING):
            raise SnapshotFormatError(
                f"agentsnap: corrupt snapshot file at {path}: nested deeper than {_MAX_NESTING} levels. {fix}"
            )
        bad_step = next(
            (i for i, step in enumerate(data.get("trace") or []) if not isinstance(step, dict)),
            None,
        )
        if bad_step is not None or not isinstance(data.get("name", ""), (str, type(None))):
            where = (
                f"trace[{bad_step}] is not an object"
                if bad_step is not None
                else "its 'name' is not a string"
            )
            raise SnapshotFormatError(
                f"agentsnap: {path} is not an agentsnap snapshot ({where}). {fix}"
            )
        version = str(data.get("version", FORMAT_VERSION))
        if version not in _READABLE_VERSIONS:
            raise SnapshotFormatError(
                f"agentsnap: snapshot {path} has format version {version!r}; this agentsnap reads {', '.join(_READABLE_VERSIONS)}. "
                "Upgrade agentsnap, or replace it with a new recording: `pytest --agentsnap-record --agentsnap-force`."
            )
        # every field's type, the step kinds, the exchange shape (msgspec)
        _schema.validate(data, path)
        stored_name = data.get("name")
        if expected_name is not None and stored_name is not None and stored_name != expected_name:
            raise SnapshotFormatError(
                f"agentsnap: {path} holds snapshot {stored_name!r}, not {expected_name!r} (file renamed or copied?). {fix}"
            )
        return stored, data

    def legacy_path_for(self, name: str) -> Path | None:
        """Where agentsnap 0.5.1 kept ``name`` (``<root>/<name>.json``), if that is a safe file name."""
        # a name too long for one file name (255 bytes on most file systems) never had a 0.5.1 file
        plain = _naming.plain_candidate(name)
        return None if plain is None else self.root / plain

    def load(self, name: str) -> Snapshot | None:
        """The snapshot named ``name``, or None when there is no file.

        The file is the one :meth:`locate` finds (any earlier name form,
        agentsnap 0.5.1's ``<root>/<name>.json`` included); later saves write
        to that same file. An unreadable file raises
        :class:`~agentsnap.exceptions.SnapshotFormatError`, or, on a store made
        with ``force=True``, warns and counts as missing.
        """
        try:
            return self._load(name)
        except SnapshotFormatError as exc:
            if not self.force:
                raise
            from ..exceptions import AgentsnapWarning

            warnings.warn(
                AgentsnapWarning(
                    f"{exc} --agentsnap-force: treated as missing; this run's recording replaces it."
                ),
                stacklevel=2,
            )
            return None

    def _load(self, name: str) -> Snapshot | None:
        files = _naming.candidate_names(name)
        root = os.fspath(self.root)  # locate, then read_small: by one open a candidate (or None)
        paths = [os.path.join(root, file) for file in files]
        first = _atomic.read_first(paths, _steps.LAZY_FROM)
        if first is None:  # a link (raises), a folder, a large file, an error: looked at as ever
            path = self.locate(name)
            small = None if path is None else read_small(path, _steps.LAZY_FROM)
        elif first[0] == len(files):  # none there: as locate, nothing remembered
            self._located.pop(name, None)
            return None
        else:
            path, small = self.root / files[first[0]], first[1:]
            before = tuple(self.root / file for file in files[: first[0]])
            self._located[name] = (path, before, paths[first[0]])
        del first
        if path is None:
            return None
        if small is not None:  # one open, stamped as read
            given, stamp = [small[0]], small[1]  # (the bytes handed over: not held past the parse)
            del small
            doc = self.read_document(path, expected_name=name, given=given)[1]
            snapshot, self.known[path] = Snapshot.from_dict(doc, name=name), stamp
            return snapshot
        snapshot = self.read_file(path, expected_name=name)
        self._remember(path)
        return snapshot

    def last_run_files(self, name: str, golden_file: str | None = None) -> list[Path]:
        """The files under ``.last_run/`` that hold a latest run of ``name``, in the order
        :meth:`load_last_run` tries them (:meth:`last_run_path`, then the hashed form written
        before the golden's own file name was used); only those that exist. ``golden_file``:
        the golden's file name when it is known (an unreadable golden whose name is a guess)."""
        path = self.root / LAST_RUN_DIR / golden_file if golden_file else self.last_run_path(name)
        refuse_links(path, self.root)
        old = self.root / LAST_RUN_DIR / _naming.snapshot_filename(name)
        return [p for p in dict.fromkeys((path, old)) if p.is_file() and not p.is_symlink()]

    def load_last_run(self, name: str) -> Snapshot | None:
        found = self.last_run_files(name)
        return self.read_file(found[0], expected_name=name) if found else None

    def _iter_files(self) -> Iterator[Path]:
        if not self.root.is_dir():
            return iter(())
        links = sorted(p for p in self.root.glob("*.json") if p.is_symlink())
        for link in links:
            warnings.warn(
                f"agentsnap: skipped {link}: a symbolic link (agentsnap never follows one inside the snapshot folder)",
                stacklevel=3,
            )
        # only snapshot files: never the temp files of an interrupted write (.<name>.<random>.tmp)
        return iter(
            sorted(p for p in self.root.glob("*.json") if p.is_file() and not p.is_symlink())
        )

    def list(self) -> list[Snapshot]:
        """Every parseable snapshot, sorted by name; unparseable files warn and are skipped, and
        the project's other JSON files (:func:`~agentsnap.storage.naming.foreign_file`) too, silently."""
        return sorted(self._snapshots(), key=lambda s: s.name)

    def names(self, *, except_loaded: bool = False) -> Iterator[str]:
        """The name of every parseable snapshot, in file order, read one file at a time (the
        snapshots are not held together, as :meth:`list` holds them); the other files skipped as
        in :meth:`list`. ``except_loaded``: leave out the files :meth:`load` read
        or :meth:`save` wrote in this process and unchanged since (by modification time and
        size), unread (a 5,000-call golden just recorded is not parsed again to learn its name)."""
        return (snapshot.name for snapshot in self._snapshots(except_loaded))

    def _snapshots(self, except_loaded: bool = False) -> Iterator[Snapshot]:
        for path in self._iter_files():
            if except_loaded and path in self.known and _stamp(path) == self.known[path]:
                continue
            try:
                yield self.read_file(path)
            except SnapshotFormatError as exc:
                if not _naming.foreign_file(path):  # (not another file, e.g. snapshot_dir = ".")
                    warnings.warn(str(exc), stacklevel=3)  # (the caller of list / names)

    def pending(self) -> builtins.list[Snapshot]:  # `list` here is the method above
        """Every snapshot not yet approved, sorted by name."""
        return [s for s in self.list() if not s.approved]

    # -- writing -----------------------------------------------------------
    def save(self, snapshot: Snapshot, *, force: bool | None = None) -> Path:
        """Write ``snapshot`` atomically; returns its path.

        What is written is :func:`agentsnap.storage.serialize.prepare` of the snapshot:
        any Python value made JSON (bytes in an envelope, large bytes in a side
        file under ``root/blobs/``), secrets scrubbed. When the file already
        holds the same content apart from volatile fields, nothing is written
        (``updated_at`` only moves on real change). An existing file that
        cannot be parsed is never overwritten: raises
        :class:`~agentsnap.exceptions.SnapshotFormatError` unless ``force``
        (default: the store's ``force``; never another file of the project,
        :func:`~agentsnap.storage.naming.foreign_file`); nor is a golden that is a symbolic link,
        which ``force`` replaces with a regular file (the link's target is never
        written).
        """
        from .serialize import write_blobs

        force = self.force if force is None else force
        _naming.SAVES[0] += 1  # (and after the write: a listing taken before is stale)
        path, linked = self._path_to_save(snapshot.name, force)
        new = _prepared_dict(snapshot)  # written here (~2 MB at 5,000 calls)
        if not linked and path.is_file():
            try:
                # a broken file raises, untouched; read once: the document as stored, no
                # defaults filled in (a 5,000-call golden was parsed twice here)
                old = self.read_document(path, expected_name=snapshot.name)[0]
            except SnapshotFormatError as exc:
                if not force or _naming.foreign_file(path):  # (another file: never, forced or not)
                    raise _naming.not_replaced(exc, path, snapshot.name) from None
                old = None
            if isinstance(old, dict) and same_content(old, new):
                # side files first: a snapshot never names a missing one
                write_blobs(new, self.root)
                self._remember(path)
                return path
            if (
                isinstance(old, dict)
                and isinstance(old.get("created_at"), str)
                and old["created_at"]
            ):
                snapshot.created_at = new["created_at"] = old["created_at"]
        snapshot.updated_at = new["updated_at"] = _now()
        snapshot.agentsnap_version = new["agentsnap_version"] = _version()  # this file's writer
        stamp_digest(snapshot, new)  # (volatile: an unchanged file above is left as it is)
        try:
            write_blobs(new, self.root)  # side files first: a snapshot never names a missing one
            store_write(path, dump_pieces(new), root=self.root, replace_link=linked)  # never whole
        except OSError as exc:  # a read-only folder, a file where the folder should be …
            raise SnapshotFormatError(
                f"agentsnap: cannot write the golden {path}: {exc.strerror or exc}. The golden was not "
                f"written. Make {self.root} a writable folder, or use another snapshot folder."
            ) from exc
        _naming.SAVES[0] += 1  # (a listing taken before this file was there is stale: load_listed)
        self._remember(path)
        return path

    def _remember(self, path: Path) -> None:
        """This process read or wrote the golden ``path`` as it is now (:meth:`names`)."""
        stamp = _stamp(path)
        if stamp is not None:
            self.known[path] = stamp

    def _path_to_save(self, name: str, force: bool) -> tuple[Path, bool]:
        """Where :meth:`save` writes ``name`` and whether that file is a symbolic link it
        replaces. A link is refused (:func:`refuse_links`) unless ``force``: then the golden's
        own link (never a linked folder) is replaced by the regular file, its target untouched."""
        try:
            path = self.path_for(name)
        except SnapshotFormatError:
            link = self._link_to_replace(name) if force else None
            if link is None:
                raise
            path = link
        linked = path.is_symlink()
        if linked and not force:
            refuse_links(path, self.root)  # raises, naming the link
        refuse_links(path.parent, self.root)
        return path, linked

    def save_last_run(
        self, snapshot: Snapshot, *, golden_file: str | None = None, later: bool = False
    ) -> Path | None:
        """Write the latest run to ``root/.last_run/`` (git-ignored by a ``.gitignore`` there); its path.

        The latest run is a scratch copy for ``agentsnap diff`` / ``update``, never
        needed to compare or replay: when it cannot be written (a read-only snapshot
        folder, a file where ``.last_run`` should be, a full disk) that is one
        :class:`~agentsnap.exceptions.AgentsnapWarning` naming the path
        (:meth:`last_run_unwritable`) and None is returned. Without a :attr:`writer`, a
        symbolic link on the way raises :class:`~agentsnap.exceptions.SnapshotFormatError`.

        With a :attr:`writer` (the pytest session's store) a file that cannot be written, a
        symbolic link on the way included, is kept by the writer, later files are still tried,
        and the session names them all when it ends
        (:class:`~agentsnap.storage.last_run_writer.LastRunWriter`). ``later``: a passed run's
        file, which the writer may hold and write when it flushes (the session's end); any other
        is written now, after the files held (a killed session loses only passed runs' files).
        ``golden_file``: the golden's file name when the caller just located it (:meth:`path_for`:
        not looked up again).
        """
        path = self._last_runs / golden_file if golden_file else self.last_run_path(snapshot.name)
        return self._write_scratch(path, snapshot, self.writer, later=later)

    def _write_scratch(
        self,
        path: Path,
        snapshot: Snapshot,
        writer: LastRunWriter | None = None,
        *,
        later: bool = False,
    ) -> Path | None:
        """Write ``snapshot`` to ``path`` under ``.last_run/`` (compact, no fsync: :meth:`_write_bytes`);
        its path, or None when it cannot be written (:meth:`last_run_unwritable`, said once).
        With ``writer``, every file is tried and a failure kept by it: with ``later``, the file's
        bytes are made now and held until the writer flushes (:meth:`_put_scratch`; a run of
        :data:`PIECES_FROM_STEPS` steps or more, made in pieces, is not held); otherwise the
        files held are written first, so a later run of the same name is the one kept."""
        if writer is not None:
            if later and not _steps.stepwise(snapshot, PIECES_FROM_STEPS):
                try:
                    whole = self._scratch_bytes(snapshot)
                except OSError as exc:  # a blob's side file
                    writer.failed(path, exc)
                    return None
                writer.hold(path, len(whole), lambda: self._put_scratch(path, whole))
                return path
            writer.flush()
            return path if writer.write(path, lambda: self._put_scratch(path, snapshot)) else None
        refuse_links(path.parent, self.root)  # a linked .last_run is never written through
        if self.last_run_error is not None:
            refuse_links(path, path.parent)  # (nor a linked file: raises, as ever)
            return None  # said once already
        try:
            self._put_scratch(path, snapshot)
        except OSError as exc:
            self.last_run_unwritable(path, exc)
            return None
        return path

    def _put_scratch(self, path: Path, run: Snapshot | bytes | bytearray) -> None:
        """Write ``run`` (a snapshot, or its scratch bytes made already) to ``path``: over the file
        in place when it held the same run at another time, else atomically; raises ``OSError``,
        and :class:`SnapshotFormatError` for a link on the way (the ``.last_run`` folder or the
        file), before anything is written through it."""
        refuse_links(path.parent, self.root)
        if isinstance(run, (bytes, bytearray)):
            data: bytes | bytearray | Iterator[bytes | bytearray] = run
        elif _steps.stepwise(run, PIECES_FROM_STEPS):  # (pieces: made as they are written)
            data = self._scratch_pieces(run)
        else:
            data = self._scratch_bytes(run)
        if self._in_place(path, data):
            return  # (never through a link: the file's own check is not needed)
        refuse_links(path, path.parent)  # the file itself: a link raises
        self._write_bytes(path, data)

    def _scratch_bytes(self, snapshot: Snapshot) -> bytes | bytearray:
        """The bytes of a scratch copy of ``snapshot`` (its side files written first: ``OSError``)."""
        data = _prepared_dict(snapshot)
        _serialize.write_blobs(data, self.root)
        # a scratch copy read back by `agentsnap diff` / `update` (which re-save through `save`):
        # compact JSON (msgspec; indented output takes json's pure-Python encoder) and no fsync
        return _serialize.compact_bytes(data, finite_trace=snapshot.finite_trace)

    def _scratch_pieces(self, snapshot: Snapshot) -> Iterator[bytes | bytearray]:
        """:meth:`_scratch_bytes` in pieces, a step at a time (joined, they read back as those bytes do)."""
        from .serialize import compact_pieces, write_blobs

        data = _steps.scratch_dict(snapshot) or _prepared_dict(snapshot)
        write_blobs(data, self.root)
        yield from compact_pieces(data)

    def _in_place(self, path: Path, data: bytes | bytearray | Iterator[bytes | bytearray]) -> bool:
        """Whether ``data`` was written over ``path`` in place (:func:`~agentsnap.storage.atomic.overwrite_alike`,
        never through a link; the ``.gitignore`` there), else nothing was (:meth:`_write_bytes`)."""
        with contextlib.suppress(OSError):  # (an error: written whole below, or said)
            ignore = os.path.join(self.root, LAST_RUN_DIR, ".gitignore")
            if isinstance(data, (bytes, bytearray)) and lstat_mode(ignore) is not None:
                return overwrite_alike(path, data, _RUN_STAMP, 1 << 20)
        return False

    def _write_bytes(
        self, path: Path, data: bytes | bytearray | Iterator[bytes | bytearray]
    ) -> None:
        """Write a scratch file's ``data`` (atomic, no fsync), the ``.gitignore`` first. Raises ``OSError``
        and :class:`SnapshotFormatError` for a link made on the way: the writer names each file
        that failed when the session ends (one file in the way costs only itself); written at
        once, :meth:`last_run_unwritable` says it once and later writes of this store are skipped
        (:meth:`_write_scratch`)."""
        self.write_last_run_ignore()
        store_write(path, data, durable=False, root=self.root)

    # -- the samples of a statistics run (--agentsnap-runs N) -----------------------------
    def samples_dir(self, name: str) -> Path:
        """Where the failing samples of ``name``'s statistics run are kept:
        ``root/.last_run/<golden file stem>.runs/`` (under the git-ignored ``.last_run``)."""
        return self.root / LAST_RUN_DIR / f"{Path(self.path_for(name).name).stem}.runs"

    def sample_path(self, name: str, run: int) -> Path:
        """The file of sample ``run`` (1-based) of ``name``: ``<samples_dir>/<run>.json``."""
        return self.samples_dir(name) / f"{int(run)}.json"

    def save_sample(self, snapshot: Snapshot, run: int) -> Path | None:
        """Keep failing sample ``run`` of ``snapshot.name`` (written as :meth:`save_last_run`
        writes: :meth:`_write_bytes`, one warning and None when the folder cannot be written)."""
        return self._write_scratch(self.sample_path(snapshot.name, run), snapshot)

    def load_sample(self, name: str, run: int) -> Snapshot | None:
        """Sample ``run`` of ``name`` (None when it is not kept). Raises
        :class:`~agentsnap.exceptions.SnapshotFormatError` for an unreadable file or a link."""
        path = self.sample_path(name, run)
        refuse_links(path, self.root)
        return self.read_file(path, expected_name=name) if path.is_file() else None

    def sample_runs(self, name: str) -> builtins.list[int]:
        """The runs of ``name`` whose samples are kept, sorted."""
        folder = self.samples_dir(name)
        if not folder.is_dir() or folder.is_symlink():
            return []
        return sorted(int(p.stem) for p in folder.glob("*.json") if p.stem.isdigit())

    def clear_samples(self, name: str) -> None:
        """Delete the kept samples of ``name`` (a new statistics run starts, or it passed)."""
        folder = self.samples_dir(name)
        if folder.is_symlink():
            refuse_links(folder, self.root)
        for run in self.sample_runs(name):
            with contextlib.suppress(FileNotFoundError):
                (folder / f"{run}.json").unlink()
        with contextlib.suppress(OSError):
            folder.rmdir()

    def write_last_run_ignore(self) -> None:
        """Write ``root/.last_run/.gitignore`` (ignore everything) unless it is there. Raises
        ``OSError`` when it cannot be written, :class:`SnapshotFormatError` for a link on the way."""
        ignore = os.path.join(self.root, LAST_RUN_DIR, ".gitignore")
        # nothing there, not even a link (`not exists() and not is_symlink()`), by one lstat
        if lstat_mode(ignore) is None:
            store_write(
                Path(ignore),
                "# written by agentsnap: the latest runs, promoted with `agentsnap update`\n*\n",
                root=self.root,
            )

    def last_run_unwritable(self, path: Path, exc: OSError) -> None:
        """Say once, in one line, that ``path`` under ``.last_run/`` could not be written (``exc``):
        an :class:`~agentsnap.exceptions.AgentsnapWarning`. Later writes of this store to
        ``.last_run/`` are skipped (:meth:`save_last_run`); test results are unaffected."""
        if self.last_run_error is not None:
            return
        why = exc.strerror or type(exc).__name__
        self.last_run_error = f"{why}: {path}"
        warn_unwritable(path, why, self.root, stacklevel=4)

    def approve(self, name: str) -> Snapshot:
        """Mark ``name`` approved and save it. Raises ``KeyError`` when absent."""
        snap = self.load(name)
        if snap is None:
            raise KeyError(name)
        snap.approved = True
        self.save(snap)
        return snap

    def delete(self, name: str) -> None:
        """Delete ``name`` (no error when absent)."""
        path = self.locate(name)
        if path is None:
            return
        refuse_links(path, self.root)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
