"""The snapshot folder as the CLI sees it: which folder, what is in it, which names a pattern means.

* :func:`snapshot_dir` — the folder every command uses: ``--dir`` when given,
  else the one pytest would use (``snapshot_dir`` of ``[tool.agentsnap]`` in
  the nearest ``pyproject.toml``, relative to that file; env
  ``AGENTSNAP_SNAPSHOT_DIR`` wins over it, as in pytest runs).
* :func:`scan` — every snapshot file directly inside a folder, parsed, with
  the unreadable ones set aside (never modified), and the folder's other JSON
  files (not snapshots: ``snapshot_dir = "."``) left out.
* :func:`select` / :func:`resolve` — snapshot names from user patterns: the
  full name, an ``fnmatch`` glob, a unique prefix or a unique short name.
  Unreadable files keep their names (:func:`agentsnap.storage.naming.name_from_file`),
  so a name never silently falls through to a different snapshot.
"""

from __future__ import annotations

import re
import shlex
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING

from ..exceptions import SnapshotFormatError
from ..storage.naming import foreign_file, name_from_file, snapshot_filename
from ..storage.orphans import RUN_RECORD
from ..storage.snapshot import LAST_RUN_DIR, Snapshot
from ..storage.store import SnapshotStore
from ._errors import CliError
from ._output import plural

if TYPE_CHECKING:
    from ..config import Settings

__all__ = [
    "Entry",
    "Scan",
    "Target",
    "did_you_mean",
    "last_run_root",
    "load_settings",
    "match",
    "resolve",
    "resolve_one",
    "resolve_targets",
    "scan",
    "select",
    "snapshot_dir",
]

_GLOB_CHARS = frozenset("*?[")


def load_settings(warn: Callable[[str], None] | None = None, *, remedy: str = "") -> Settings:
    """``config.load(cwd)``, applied (``config.apply``); its warnings are passed to ``warn(message)``.

    Raises :class:`CliError` (exit 1) when the pyproject holds a bad value;
    ``remedy`` is appended to the message's advice.
    """
    from .. import config

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            settings = config.apply(config.load(Path.cwd()))
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


@dataclass(frozen=True)
class Target:
    """What a name selects: a readable snapshot (``entry``) or an unreadable file (``reason`` says why)."""

    name: str
    path: Path
    entry: Entry | None = None
    reason: str | None = None

    @property
    def readable(self) -> bool:
        return self.entry is not None


@dataclass
class Scan:
    """What one folder holds. ``broken`` maps an unreadable file to a one-line reason;
    ``labels`` maps it to the name it stands for (:func:`agentsnap.storage.naming.name_from_file`);
    ``foreign``: the other JSON files there, which are no snapshots, not even damaged ones
    (:func:`agentsnap.storage.naming.foreign_file`: ``package.json`` when ``snapshot_dir = "."``)."""

    root: Path
    entries: dict[str, Entry] = field(default_factory=dict)
    broken: dict[Path, str] = field(default_factory=dict)
    labels: dict[Path, str] = field(default_factory=dict)
    foreign: list[Path] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return sorted(self.entries)

    def label(self, path: Path) -> str:
        """The name an unreadable file stands for (stored in it, else from its file name)."""
        if path not in self.labels:
            self.labels[path] = name_from_file(path)
        return self.labels[path]

    def broken_for(self, name: str) -> str | None:
        """The reason the file for ``name`` cannot be read, when it exists but is broken
        or holds another snapshot's name, or is a symbolic link (one line, with the path and the remedy)."""
        try:
            path = SnapshotStore(self.root).path_for(name)
        except (
            SnapshotFormatError
        ) as exc:  # a linked golden: never followed, replaced only with --force
            return str(exc)
        reason = self.broken.get(path)
        if reason is None and any(e.path == path and e.name != name for e in self.entries.values()):
            try:
                SnapshotStore.read_file(path, expected_name=name)
            except SnapshotFormatError as exc:
                return str(exc)
        return reason

    def file_of(self, name: str) -> Path | None:
        """The unreadable file that holds exactly ``name`` (its standard or 0.5.1 file name, or its stored name)."""
        store = SnapshotStore(self.root)
        exact = {store.path_for(name), store.legacy_path_for(name)}
        for path in sorted(self.broken):
            if path in exact or self.label(path) == name:
                return path
        return None


def scan(root: Path) -> Scan:
    """Parse every ``*.json`` directly inside ``root`` (absent folder: empty scan); a file that is
    not a snapshot at all is set aside in ``foreign``.

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
            found.broken[path] = (
                f"{path} is a symbolic link; agentsnap never follows or replaces one inside the snapshot folder."
            )
            continue
        try:
            snap = SnapshotStore.read_file(path)
        except SnapshotFormatError as exc:
            if foreign_file(path):  # never listed, selected by a name or a glob, or deleted
                found.foreign.append(path)
            else:
                found.broken[path] = str(exc)
            continue
        except OSError as exc:
            found.broken[path] = f"cannot read {path}: {exc.strerror or exc}"
            continue
        if not snap.name:
            snap.name = path.stem
        other = found.entries.get(snap.name)
        if other is not None:
            keep, drop = (
                (other, path)
                if other.path.name == snapshot_filename(snap.name)
                else (Entry(snap.name, path, snap), other.path)
            )
            found.entries[snap.name] = keep
            found.broken[drop] = (
                f"{drop} holds snapshot {snap.name!r}, which {keep.path} holds too; delete the copy."
            )
            found.labels[drop] = snap.name
            continue
        found.entries[snap.name] = Entry(snap.name, path, snap)
    return found


def last_run_root(root: Path) -> Path:
    """The folder of the latest runs (``root/.last_run``)."""
    return root / LAST_RUN_DIR


def _is_glob(pattern: str) -> bool:
    return any(ch in _GLOB_CHARS for ch in pattern)


def _key(text: str) -> str:
    """A name as its file name keeps it: every run of other characters than letters, digits and glob
    characters is one ``_`` (so ``tests/t.py::x`` and the label ``tests_t.py::x`` of its file agree)."""
    return re.sub(r"[^A-Za-z0-9*?\[\]]+", "_", text)


def _is_short_name_of(pattern: str, name: str) -> bool:
    """``pattern`` is the end of ``name`` at a node-id boundary (``test_x`` of ``tests/t.py::test_x``)."""
    return name.endswith(pattern) and len(name) > len(pattern) and name[-len(pattern) - 1] in ":/"


def _candidates(found: Scan) -> list[Target]:
    readable = [Target(n, found.entries[n].path, entry=found.entries[n]) for n in found.names]
    return readable + [Target(found.label(p), p, reason=r) for p, r in sorted(found.broken.items())]


def _listing(targets: Sequence[Target]) -> str:
    return "\n".join(
        f"  {t.name}" + ("" if t.readable else f"  (unreadable: {t.path})") for t in targets
    )


def select(pattern: str, found: Scan) -> list[Target]:
    """What one pattern selects in ``found``, unreadable files included ([] when nothing).

    In order, the first rule that selects anything wins:

    1. the exact name of a readable snapshot;
    2. the exact name of an unreadable file (its stored name, or the name whose
       file it is: an unreadable file keeps its name);
    3. a glob (``*``, ``?``, ``[...]``): every name it matches, the names of
       unreadable files included;
    4. a prefix, then a short name (the end of a node id after ``::`` or
       ``/``, e.g. the test function): when it selects exactly one file,
       readable or not (an unreadable one is returned with its reason, so the
       caller can say why it cannot be read).

    Raises :class:`CliError` (exit 1) when a prefix or short name selects more
    than one file: the candidates are listed, and nothing is guessed.
    """
    if pattern in found.entries:
        return [Target(pattern, found.entries[pattern].path, entry=found.entries[pattern])]
    broken = found.file_of(pattern)
    if broken is not None:
        return [Target(pattern, broken, reason=found.broken[broken])]
    reason = found.broken_for(pattern)  # its file holds another snapshot's name
    if reason is not None:
        return [Target(pattern, SnapshotStore(found.root).path_for(pattern), reason=reason)]
    every = _candidates(found)
    if _is_glob(pattern):
        hits = [
            t
            for t in every
            if fnmatchcase(t.name, pattern)
            or (not t.readable and fnmatchcase(_key(t.name), _key(pattern)))
        ]
        if hits:
            return hits
    tests: tuple[tuple[str, Callable[[Target], bool]], ...] = (
        (
            "the start of",
            lambda t: (
                t.name.startswith(pattern)
                or (not t.readable and _key(t.name).startswith(_key(pattern)))
            ),
        ),
        (
            "the end of",
            lambda t: (
                _is_short_name_of(pattern, t.name)
                or (not t.readable and _is_short_name_of(_key(pattern), _key(t.name)))
            ),
        ),
    )
    for kind, test in tests:
        hits = [t for t in every if test(t)]
        if len(hits) == 1:
            return hits
        if hits:
            glob = f"'{pattern}*'" if kind == "the start of" else f"'*{pattern}'"
            unreadable = sum(1 for t in hits if not t.readable)
            what = f"{plural(len(hits), 'snapshot name')}" + (
                f" ({unreadable} of them unreadable)" if unreadable else ""
            )
            raise CliError(
                f"{pattern!r} is {kind} {what} in {found.root}; give the full name, or a glob "
                f"in quotes (e.g. {glob}) to mean all of them:\n{_listing(hits)}"
            )
    return []


def did_you_mean(pattern: str, found: Scan, limit: int = 3) -> list[str]:
    """Up to ``limit`` names close to ``pattern`` (rapidfuzz similarity >= 60 of the whole name or of its
    last part after ``::`` / ``/``), best first."""
    from rapidfuzz import fuzz, process

    names = [t.name for t in _candidates(found)]

    def score(a: str, b: str, **_: object) -> float:
        tail = re.split(r"::|/", b)[-1]
        return max(fuzz.ratio(a, b), fuzz.ratio(a, tail))

    return [
        name
        for name, _, _ in process.extract(
            pattern, names, scorer=score, limit=limit, score_cutoff=60
        )
    ]


def match(pattern: str, found: Scan) -> list[str]:
    """The readable names one pattern selects in ``found`` ([] when none); see :func:`select`.

    Raises :class:`CliError` for an ambiguous prefix or short name, or when
    ``pattern`` selects a file that cannot be read (its one-line reason with
    the path and what to run, or, for several, the list of them).
    """
    hits = select(pattern, found)
    bad = [t for t in hits if not t.readable]
    if len(bad) == 1 and len(hits) == 1:
        raise CliError(_unreadable(pattern, bad[0], found))
    if bad:
        raise CliError(
            f"{pattern!r} selects {plural(len(bad), 'unreadable file')} in {found.root}; fix or delete them first "
            f"(`agentsnap rm` deletes them):\n{_listing(hits)}"
        )
    return [t.name for t in hits]


def _unreadable(pattern: str, target: Target, found: Scan) -> str:
    """The one-line error for a name whose file cannot be read: the name ``pattern`` resolved to
    (when it was not that name), the reason, and how to delete the file when ``agentsnap rm NAME``
    would delete that very file."""
    message = str(target.reason)
    if message.startswith("agentsnap: "):
        message = message[len("agentsnap: ") :]
    if pattern != target.name:
        message = f"{pattern!r} is snapshot {target.name!r}, whose file cannot be read: {message}"
    if target.name not in found.entries and found.file_of(target.name) == target.path:
        message = (
            f"{message.rstrip()} To delete it instead: `agentsnap rm {shlex.quote(target.name)}`."
        )
    return message


def _no_match(missing: Sequence[str], found: Scan, what: str, hint: str) -> CliError:
    quoted = ", ".join(repr(p) for p in missing)
    msg = f"no {what} matches {quoted} in {found.root}. `agentsnap list --dir {found.root}` shows the names"
    if found.broken:
        msg += f"; {plural(len(found.broken), 'unreadable file')} there: {', '.join(str(p) for p in found.broken)}"
    msg += "."
    close = [n for p in missing for n in did_you_mean(p, found)]
    if close:
        msg += " Did you mean " + " or ".join(f"`{n}`" for n in dict.fromkeys(close)) + "?"
    return CliError(msg + (f" {hint}" if hint else ""))


def resolve_targets(
    patterns: Iterable[str], found: Scan, *, what: str = "snapshot", hint: str = ""
) -> list[Target]:
    """Like :func:`resolve`, but unreadable files a pattern names are returned too (for ``rm``)."""
    chosen: dict[Path, Target] = {}
    missing: list[str] = []
    for pattern in patterns:
        hits = select(pattern, found)
        if not hits:
            missing.append(pattern)
        for hit in hits:
            chosen.setdefault(hit.path, hit)
    if missing:
        raise _no_match(missing, found, what, hint)
    return list(chosen.values())


def resolve(
    patterns: Iterable[str], found: Scan, *, what: str = "snapshot", hint: str = ""
) -> list[str]:
    """The names ``patterns`` select in ``found``, in order, without repeats.

    Each pattern is the full name, a glob, a unique prefix or a unique short
    name (see :func:`select`). All or nothing: raises :class:`CliError`
    (exit 1) — before any change is made — when a prefix or short name is
    ambiguous (the candidates are listed), when a pattern matches nothing
    (with "did you mean" when a name is close), or when it selects a file
    that cannot be read (one line with the path).
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
        raise _no_match(missing, found, what, hint)
    return chosen


def resolve_one(pattern: str, found: Scan, *, what: str = "snapshot", code: int = 1) -> str:
    """The one name ``pattern`` selects (see :func:`resolve`); :class:`CliError` with ``code`` otherwise."""
    try:
        hits = resolve([pattern], found, what=what)
    except CliError as exc:
        raise CliError(exc.message, code) from None
    if len(hits) > 1:
        listing = "\n".join(f"  {n}" for n in hits)
        raise CliError(
            f"{pattern!r} matches {len(hits)} snapshots in {found.root}; this command takes one:\n{listing}",
            code,
        )
    return hits[0]
