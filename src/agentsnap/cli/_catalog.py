"""The snapshot folder as the CLI sees it: which folder, what is in it, which names a pattern means.

* :func:`snapshot_dir` — the folder every command uses: ``--dir`` when given,
  else the one pytest would use (``snapshot_dir`` of ``[tool.agentsnap]`` in
  the nearest ``pyproject.toml``, relative to that file; env
  ``AGENTSNAP_SNAPSHOT_DIR`` wins over it, as in pytest runs).
* :func:`scan` — every snapshot file directly inside a folder, parsed, with
  the unreadable ones set aside (never modified).
* :func:`resolve` — snapshot names from user patterns: the full name, a
  unique prefix, or an ``fnmatch`` glob.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING

from ..exceptions import SnapshotFormatError
from ..orphans import RUN_RECORD
from ..snapshot import LAST_RUN_DIR, Snapshot, SnapshotStore, snapshot_filename
from ._errors import CliError
from ._output import plural

if TYPE_CHECKING:
    from ..config import Settings

__all__ = ["Entry", "Scan", "load_settings", "snapshot_dir", "scan", "last_run_root", "match", "resolve", "resolve_one"]

_GLOB_CHARS = frozenset("*?[")


def load_settings(warn: Callable[[str], None] | None = None, *, remedy: str = "") -> "Settings":
    """``config.load(cwd)``; its warnings are passed to ``warn(message)``.

    Raises :class:`CliError` (exit 1) when the pyproject holds a bad value;
    ``remedy`` is appended to the message's advice.
    """
    from .. import config

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            settings = config.load(Path.cwd())
        except ValueError as exc:
            raise CliError(f"{str(exc).rstrip('.')}. Fix that value{remedy}.") from None
    if warn is not None:
        for w in caught:
            warn(str(w.message))
    return settings


def snapshot_dir(option: Path | None, warn: Callable[[str], None] | None = None) -> Path:
    """The snapshot folder: ``option`` (``--dir``) made absolute, else pytest's (see module doc)."""
    if option is not None:
        return option.absolute()
    return load_settings(warn, remedy=", or pass --dir PATH").snapshot_path


@dataclass
class Entry:
    """One readable snapshot file: its (full) name, path and content."""

    name: str
    path: Path
    snapshot: Snapshot


@dataclass
class Scan:
    """What one folder holds. ``broken`` maps an unreadable file to a one-line reason."""

    root: Path
    entries: dict[str, Entry] = field(default_factory=dict)
    broken: dict[Path, str] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return sorted(self.entries)

    def broken_for(self, name: str) -> str | None:
        """The reason the file for ``name`` cannot be read, when it exists but is broken
        or holds another snapshot's name (one line, with the path and the remedy)."""
        path = self.root / snapshot_filename(name)
        reason = self.broken.get(path)
        if reason is None and any(e.path == path and e.name != name for e in self.entries.values()):
            try:
                SnapshotStore.read_file(path, expected_name=name)
            except SnapshotFormatError as exc:
                return str(exc)
        return reason


def scan(root: Path) -> Scan:
    """Parse every ``*.json`` directly inside ``root`` (absent folder: empty scan).

    A file without a stored name (agentsnap 0.5.1) is named after its file
    stem. When two files hold the same name, the one at the standard file name
    wins and the other is reported in ``broken``.
    """
    found = Scan(root)
    if not root.is_dir():
        return found
    for path in sorted(p for p in root.glob("*.json") if p.is_file() or p.is_symlink()):
        if root.name == LAST_RUN_DIR and path.name == RUN_RECORD:
            continue  # the run record (`agentsnap prune`), not a snapshot: never promoted
        if path.is_symlink():
            found.broken[path] = f"{path} is a symbolic link; agentsnap never follows or replaces one inside the snapshot folder."
            continue
        try:
            snap = SnapshotStore.read_file(path)
        except SnapshotFormatError as exc:
            found.broken[path] = str(exc)
            continue
        except OSError as exc:
            found.broken[path] = f"cannot read {path}: {exc.strerror or exc}"
            continue
        if not snap.name:
            snap.name = path.stem
        other = found.entries.get(snap.name)
        if other is not None:
            keep, drop = (other, path) if other.path.name == snapshot_filename(snap.name) else (Entry(snap.name, path, snap), other.path)
            found.entries[snap.name] = keep
            found.broken[drop] = f"{drop} holds snapshot {snap.name!r}, which {keep.path} holds too; delete the copy."
            continue
        found.entries[snap.name] = Entry(snap.name, path, snap)
    return found


def last_run_root(root: Path) -> Path:
    """The folder of the latest runs (``root/.last_run``)."""
    return root / LAST_RUN_DIR


def _is_glob(pattern: str) -> bool:
    return any(ch in _GLOB_CHARS for ch in pattern)


def _one(pattern: str, names: Sequence[str], where: Path) -> list[str]:
    """Names ``pattern`` selects: exact, else glob matches, else a unique prefix. [] = none."""
    if pattern in names:
        return [pattern]
    if _is_glob(pattern):
        hits = [n for n in names if fnmatchcase(n, pattern)]
        if hits:
            return hits
    hits = [n for n in names if n.startswith(pattern)]
    if len(hits) > 1:
        listing = "\n".join(f"  {n}" for n in hits)
        raise CliError(
            f"{pattern!r} is the start of {len(hits)} snapshot names in {where}; give more of the name, or a glob "
            f"in quotes (e.g. '{pattern}*') to mean all of them:\n{listing}"
        )
    return hits


def match(pattern: str, found: Scan) -> list[str]:
    """The names one pattern selects in ``found`` ([] when none); see :func:`resolve`.

    Raises :class:`CliError` for an ambiguous prefix, or when ``pattern`` is a
    full name whose file exists but cannot be read.
    """
    hits = _one(pattern, found.names, found.root)
    if not hits:
        reason = found.broken_for(pattern)
        if reason is not None:
            raise CliError(reason)
    return hits


def resolve(patterns: Iterable[str], found: Scan, *, what: str = "snapshot", hint: str = "") -> list[str]:
    """The names ``patterns`` select in ``found``, in order, without repeats.

    Each pattern is the full name, a unique prefix of one, or an ``fnmatch``
    glob (``*``, ``?``, ``[...]``; tried as a prefix too when it matches
    nothing). All or nothing: raises :class:`CliError` (exit 1) — before any
    change is made — when a prefix is ambiguous (the candidates are listed),
    when a pattern matches nothing, or when the file a full name maps to exists
    but cannot be read (one line with the path).
    """
    chosen: list[str] = []
    missing: list[str] = []
    for pattern in patterns:
        hits = match(pattern, found)
        if not hits:
            missing.append(pattern)
        for hit in hits:
            if hit not in chosen:
                chosen.append(hit)
    if missing:
        quoted = ", ".join(repr(p) for p in missing)
        msg = f"no {what} matches {quoted} in {found.root}. `agentsnap list --dir {found.root}` shows the names"
        if found.broken:
            msg += f"; skipped {plural(len(found.broken), 'unreadable file')}: {', '.join(str(p) for p in found.broken)}"
        msg += "." + (f" {hint}" if hint else "")
        raise CliError(msg)
    return chosen


def resolve_one(pattern: str, found: Scan, *, what: str = "snapshot", code: int = 1) -> str:
    """The one name ``pattern`` selects (see :func:`resolve`); :class:`CliError` with ``code`` otherwise."""
    try:
        hits = resolve([pattern], found, what=what)
    except CliError as exc:
        raise CliError(exc.message, code) from None
    if len(hits) > 1:
        listing = "\n".join(f"  {n}" for n in hits)
        raise CliError(f"{pattern!r} matches {len(hits)} snapshots in {found.root}; this command takes one:\n{listing}", code)
    return hits[0]
