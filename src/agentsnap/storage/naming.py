"""Snapshot file names: which file a snapshot name gets, and which name a file stands for.

File name (:func:`preferred_filename`): ``<name>.json`` when the name already is
a safe, short file name (letters, digits, ``_ . -``; at most 100 characters; not
a Windows device name; not ending in ``-`` plus 8 hex digits, which is the
hashed form) with no upper-case letter (so two names never meet in one file on
a case-insensitive file system); otherwise ``<sanitized-name>-<sha1(name)[:8]>.json`` (:func:`snapshot_filename`) —
Windows-legal, at most 100 characters before the hash, collision-proof because
the hash is of the full name; any ``..`` or separator in a name is neutralised,
so every file lands inside the store's root.

Every earlier form is read (:meth:`agentsnap.storage.store.SnapshotStore.locate`): the hashed form,
``<name>.json`` (what agentsnap 0.5.1 wrote), and 0.5.1's input-hash form
``<name>__<sha256(input)[:8]>.json`` (:func:`input_sha8`). A snapshot that already has a file keeps
it: saving, approving, updating and re-recording write where it was found.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

__all__ = [
    "SAVES",
    "Listing",
    "candidate_names",
    "foreign_file",
    "input_hash_names",
    "input_sha8",
    "listing",
    "name_from_file",
    "not_replaced",
    "plain_candidate",
    "preferred_filename",
    "snapshot_filename",
]

_MAX_STEM = 100
_MAX_LEGACY_NAME = 200
_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"com{i}" for i in range(1, 10)}
    | {f"lpt{i}" for i in range(1, 10)}
)


#: a run of characters no snapshot file name keeps, and of two or more dots (:func:`snapshot_filename`)
_UNSAFE_RUN = re.compile(r"[^A-Za-z0-9._-]+")
_DOTS = re.compile(r"\.{2,}")


@functools.cache
def _sha1() -> Callable[[bytes], Any]:
    """The interpreter's own SHA-1 (``_sha1``, loaded at the first hash: ~0.15 ms once), else
    hashlib's: OpenSSL 3's looks its algorithm up on every call, 7 of the 8 us a replayed test's
    name hash took on this machine (0.8 us in a warm loop); the same digest either way."""
    try:
        from _sha1 import sha1  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # pragma: no cover - (an interpreter built without it)
        return hashlib.sha1
    return cast("Callable[[bytes], Any]", sha1)


def _name_hash(name: str) -> str:
    """The 8 hex digits a hashed file name of snapshot ``name`` ends with (before ``.json``)."""
    digest: str = _sha1()(name.encode("utf-8", "surrogatepass")).hexdigest()
    return digest[:8]


def snapshot_filename(name: str) -> str:
    """``<sanitized-name>-<sha1(name)[:8]>.json`` for a snapshot name."""
    digest = _name_hash(name)
    stem = name.replace("::", "__")
    stem = _UNSAFE_RUN.sub("_", stem)
    stem = _DOTS.sub("_", stem).strip("._ -")[:_MAX_STEM].rstrip("._ ")
    if not stem:
        stem = "snapshot"
    if stem.split(".", 1)[0].lower() in _RESERVED:
        stem = "_" + stem
    return f"{stem}-{digest}.json"


#: the top-level ``"name"`` line of a file this module wrote (``indent=2``: top-level keys have two spaces)
@functools.cache
def _stored_name_line() -> re.Pattern[str]:
    return re.compile(r'^  "name": ("(?:[^"\\\n]|\\.)*")', re.M)


@functools.cache
def _hashed_stem() -> re.Pattern[str]:
    return re.compile(r"^(.+)-[0-9a-f]{8}$")


def name_from_file(path: Path) -> str:
    """The snapshot name a file stands for, also when it cannot be parsed (for the CLI's name lookup).

    In order: the ``"name"`` line of the file's text when one is still there
    (an indented file this module wrote, even if corrupt elsewhere); else
    what the file name says — ``<stem>-<8 hex>.json`` gives the stem with
    ``__`` read back as ``::`` (the other replaced characters stay ``_``, so
    this may differ from the real name; compare through :func:`snapshot_filename`
    when exactness matters); any other ``<name>.json`` (agentsnap 0.5.1) the
    stem. Never raises: an unreadable file falls back to its file name.
    """
    try:
        with path.open("r", encoding="utf-8", errors="replace") as fh:
            head = fh.read(1 << 20)
    except OSError:
        head = ""
    found = _stored_name_line().search(head)
    if found is not None:
        try:
            name = json.loads(found.group(1))
        except ValueError:
            name = None
        if isinstance(name, str) and name:
            return name
    stem = path.name[: -len(".json")] if path.name.endswith(".json") else path.name
    hashed = _hashed_stem().match(stem)
    return hashed.group(1).replace("__", "::") if hashed else stem


#: what a snapshot file names at its top level, agentsnap 0.5.1's and toolscore's too (:func:`foreign_file`)
_MARKS = (b'"trace"', b'"agentsnap_version"', b'"schema_version"')


def foreign_file(path: Path) -> bool:
    """Whether ``path``, a ``*.json`` file that does not read as a snapshot, is another file of the
    project (``package.json`` in a snapshot folder that is the project's own: ``snapshot_dir =
    "."``) rather than a damaged snapshot, which a folder's listing must still report.

    A damaged snapshot is: a file under agentsnap's hashed name (``<stem>-<8 hex>.json``, which
    only agentsnap writes), a JSON object with a ``trace`` or ``agentsnap_version`` key or, as
    toolscore wrote, ``schema_version`` and ``calls``, and a file that is not JSON but names one
    of those keys (a merge conflict, a file cut short). Any other file is foreign: a listing
    leaves it out, so no command lists, selects or deletes it. One that cannot be read is not
    (its error is the one to tell). Looks only at a file the store already failed to read."""
    stem = path.name[: -len(".json")] if path.name.endswith(".json") else path.name
    if _hashed_stem().match(stem):
        return False
    from .wire import json_loads_utf8

    try:
        raw = path.read_bytes()
        data = json_loads_utf8(raw)
    except OSError:
        return False
    except (
        ValueError,
        RecursionError,
    ):  # not JSON (or not UTF-8): a damaged snapshot names its keys
        return not any(mark in raw for mark in _MARKS)
    return not isinstance(data, dict) or not (
        "trace" in data or "agentsnap_version" in data or {"schema_version", "calls"} <= data.keys()
    )


def not_replaced(error: Exception, path: Path, name: str) -> Exception:
    """What :meth:`~agentsnap.storage.store.SnapshotStore.save` raises for the file ``path`` it does
    not overwrite: ``error`` (the file's own), or, for another file of the project
    (:func:`foreign_file`), which ``--agentsnap-force`` never replaces either, what to change."""
    if not foreign_file(path):
        return error
    from ..exceptions import SnapshotFormatError

    return SnapshotFormatError(
        f"agentsnap: {path} is not an agentsnap snapshot but another file of the project, at the "
        f"file name snapshot {name!r} would be written to; agentsnap never overwrites it "
        "(--agentsnap-force included). Give the snapshot another name, or keep the snapshots in a "
        "folder of their own (snapshot_dir in [tool.agentsnap]). The snapshot was not written."
    )


_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


@functools.cache
def _hashed_tail() -> re.Pattern[str]:
    return re.compile(r"-[0-9a-f]{8}$")


def _plain_ok(name: str) -> bool:
    """Whether ``name`` is already a safe, short file stem (module doc)."""
    return (
        len(name) <= _MAX_STEM
        and _PLAIN_NAME.fullmatch(name) is not None
        and ".." not in name
        and not name.endswith(".")
        and name.split(".", 1)[0].lower() not in _RESERVED
        and _hashed_tail().search(name) is None
        and name == name.lower()
    )


def preferred_filename(name: str) -> str:
    """The file name a new snapshot ``name`` gets when nothing else is in the way:
    ``<name>.json`` for a safe, short name (module doc), else :func:`snapshot_filename`."""
    return f"{name}.json" if _plain_ok(name) else snapshot_filename(name)


def input_sha8(value: object) -> str:
    """agentsnap 0.5.1's scenario of an input: ``sha256(json.dumps(value, sort_keys=True, default=str))[:8]``.

    0.5.1 named a golden recorded with ``input_data`` ``<name>__<input_sha8>.json``.
    """
    serialized = json.dumps(value, sort_keys=True, default=str).encode()
    return hashlib.sha256(serialized).hexdigest()[:8]


_INPUT_HASH_TAIL = re.compile(r"__[0-9a-f]{8}$")


def plain_candidate(name: str) -> str | None:
    """``<name>.json`` when :meth:`agentsnap.storage.store.SnapshotStore.locate` tries that file for
    ``name`` (a safe file name: agentsnap 0.5.1's form and today's plain one), else None."""
    if _PLAIN_NAME.fullmatch(name) and ".." not in name and len(name) <= _MAX_LEGACY_NAME:
        return f"{name}.json"
    return None


#: goldens this process saved, by any store (``SnapshotStore.save``): a listing taken before is stale
SAVES = [0]


def listing(held: Listing | None, folder: str | os.PathLike[str]) -> Listing:
    """``held`` while this process saved no golden since it was taken, else ``folder`` listed anew."""
    return held if held is not None and held.saves == SAVES[0] else Listing(folder)


#: (bounded: a session asks for its tests' names, and a name is any text)
@functools.lru_cache(maxsize=2048)
def candidate_names(name: str) -> tuple[str, ...]:
    """The file names snapshot ``name`` may be stored under, in the order they are tried: the hashed
    form (:func:`snapshot_filename`), then :func:`plain_candidate`; made once a name."""
    plain = plain_candidate(name)
    return (snapshot_filename(name),) if plain is None else (snapshot_filename(name), plain)


class Listing:
    """A folder's file names as listed once, asked which snapshot names surely have no file there.

    A file of snapshot ``name`` is named by its hash (:func:`snapshot_filename`: its 8 hex digits
    before ``.json``) or is ``<name>.json`` (:func:`plain_candidate`): when no listed name holds
    that hash there, nor is that plain name, no such file was listed (the names are compared
    lower-cased: a file system that folds case finds no more). Each name is looked at once, when
    listed; asking costs a hash and two set lookups, no system call. What the folder holds later
    is not seen: the caller lists again after any file it wrote."""

    __slots__ = ("hashes", "names", "read", "saves")

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.saves = SAVES[0]  # (before the folder is read: a save meanwhile makes it stale)
        self.read = True
        try:
            found = os.listdir(folder)
        except (FileNotFoundError, NotADirectoryError):
            found = []  # (no folder: no file in it)
        except OSError:
            found, self.read = [], False  # (not readable: any name may have a file)
        self.names = {entry.lower() for entry in found}
        self.hashes = {entry[-13:-5] for entry in self.names}

    def absent(self, name: str) -> bool:
        """Whether no listed file may be one of ``name``'s (then none was there when listed)."""
        if not self.read or _name_hash(name) in self.hashes:
            return False
        plain = plain_candidate(name)
        return plain is None or plain.lower() not in self.names


def input_hash_names(root: Path, name: str) -> list[str]:
    """Names of the agentsnap 0.5.1 goldens recorded in ``root`` for ``name`` with an input
    (files ``<name>__<8 hex>.json``), sorted; [] when there are none."""
    from glob import escape

    if not root.is_dir() or not _PLAIN_NAME.fullmatch(name):
        return []
    out = []
    for path in root.glob(f"{escape(name)}__*.json"):
        stem = path.stem
        if (
            stem[: len(name)] == name
            and _INPUT_HASH_TAIL.fullmatch(stem[len(name) :])
            and path.is_file()
        ):
            out.append(stem)
    return sorted(out)
