"""Orphaned snapshots: goldens that no test produces any more.

A snapshot is only ever called orphaned after a **full, unfiltered,
failure-free** run — no ``-k``/``-m``, no deselection (``--deselect``,
``--lf``), no ``--ignore``, no explicit test paths narrower than the
configured ones, exit status 0 — because syrupy and others deleted live
snapshots when a filtered run made them look unused (see
``research/peers.md``). Within such a run, a snapshot whose name is a pytest
node id ``path::test`` (optionally with a ``-N`` suffix) is orphaned when:

* its test file no longer exists, or
* its test file was collected but no collected test has that node id.

Snapshots of files the run did not collect (outside ``testpaths``), and
snapshots with free-form names (``AgentRecorder("my_agent")``), are never
orphaned: the run cannot know about them. A test that a plugin or conftest
drops from ``items`` without calling ``pytest_deselected`` still exists: the
run counts it as collected, so its golden is no orphan.

Each finished run writes ``<snapshot_dir>/.last_run/run.json`` (only when the
snapshot folder exists); ``agentsnap prune`` reads it. A run that is one shard
of a suite split across machines never marks orphans: its record says which
shard it was, and ``agentsnap report --merge`` finds the orphans of all
shards together (:mod:`agentsnap.storage.shards`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .snapshot import LAST_RUN_DIR
from .store import SnapshotStore

if TYPE_CHECKING:
    import pytest

__all__ = [
    "RUN_RECORD",
    "SHARD_HOW",
    "RunState",
    "changed_in_checkout",
    "changed_since_commit",
    "find_orphans",
    "forget_run_record",
    "full_run_problem",
    "not_to_prune",
    "read_run_record",
    "write_run_record",
]

RUN_RECORD = "run.json"
#: how to split a suite so that the shards' merge can judge orphans (:mod:`.shards`)
SHARD_HOW = (
    "each shard must collect the whole suite: give the configured test paths (or none) and "
    "select the shard's tests with -k, -m or --deselect, or with pytest-split's --splits N --group G"
)


@functools.cache
def _suffix() -> re.Pattern[str]:
    return re.compile(r"-\d+$")


class RunState(Protocol):
    """What :func:`write_run_record` reads of a run (the plugin's ``AgentsnapSession``)."""

    @property
    def store(self) -> SnapshotStore: ...

    #: tests deselected, node ids collected, snapshot names the tests produced
    deselected: int
    collected: set[str]
    used: set[str]
    #: ``[path, why]`` of the ``.last_run`` files the run (its xdist workers too) could not write
    last_run_errors: list[list[str]]


def full_run_problem(
    config: pytest.Config, exitstatus: int, deselected: int, *, selection_ok: bool = False
) -> str | None:
    """Why this pytest run cannot be used to find orphans (the module doc's rules), or None when it can.

    ``selection_ok``: the run is one shard of a suite (:mod:`agentsnap.storage.shards`), whose own
    selection (``-k``/``-m``, deselection) is allowed: the merge checks every test ran in some shard.
    """
    opt = config.option
    how = f" ({SHARD_HOW})" if selection_ok else ""
    filtered = bool(getattr(opt, "keyword", "") or getattr(opt, "markexpr", ""))
    if filtered and not selection_ok:
        return "tests were filtered with -k or -m"
    if deselected and not selection_ok:
        return f"{deselected} test(s) were deselected (--deselect, --lf …)"
    if exitstatus != 0 and not (
        selection_ok and exitstatus == 5
    ):  # 5: a shard that selected no test
        return f"the run did not pass (exit status {exitstatus})"
    if getattr(opt, "collectonly", False):
        return "--collect-only runs no tests"
    if getattr(opt, "ignore", None) or getattr(opt, "ignore_glob", None):
        return f"paths were excluded with --ignore{how}"
    if getattr(opt, "exitfirst", False) or (getattr(opt, "maxfail", 0) or 0) > 0:
        return "-x / --maxfail may stop the run early"
    source = getattr(config, "args_source", None)
    if source is not None and source.name == "ARGS":
        root = Path(str(config.rootpath)).resolve()
        given: set[Path] = set()
        for arg in config.args:
            if "::" in arg:
                return f"single tests were selected on the command line{how}"
            given.add((Path(str(config.invocation_params.dir)) / arg).resolve())
        configured = {(root / p).resolve() for p in (config.getini("testpaths") or [])} or {root}
        if given != configured and root not in given:
            return f"test paths narrower than the configured ones were given{how}"
    return None


def _referenced(
    name: str, collected: set[str], collected_files: set[str], used: set[str], rootdir: Path
) -> bool:
    if name in used or name in collected:
        return True
    base = _suffix().sub("", name)
    if base in collected:
        return True
    if "::" not in name:
        return True  # a free-form name: not ours to judge
    file_part = name.split("::", 1)[0]
    if not (rootdir / file_part).exists():
        return False  # the test file is gone
    return file_part not in collected_files  # outside this run's scope: keep


def find_orphans(
    store: SnapshotStore, collected: set[str], used: set[str], rootdir: Path
) -> list[str]:
    """Names of snapshots in ``store`` that the run's tests no longer produce (rules in the module doc).

    A golden this process loaded or wrote for one of the run's tests (unchanged since) is no orphan
    whatever its name says, so it is not read again."""
    collected_files = {nodeid.split("::", 1)[0] for nodeid in collected}
    return sorted(
        name
        for name in store.names(except_loaded=True)
        if name and not _referenced(name, collected, collected_files, used, rootdir)
    )


def write_run_record(
    state: RunState,
    config: pytest.Config,
    exitstatus: int,
    *,
    extra: Mapping[str, Any] | None = None,
) -> list[str]:
    """Write ``.last_run/run.json`` for ``agentsnap prune``; return the orphans (empty unless a full run).

    ``extra``: fields added to (or replacing) the record's, a shard's
    (:func:`agentsnap.storage.shards.shard_fields`). Writes nothing when the snapshot folder does not exist; a symbolic link
    where ``.last_run`` should be only warns (:class:`~agentsnap.exceptions.AgentsnapWarning`,
    one line naming the path); a folder that cannot be written (read-only, a file in the way)
    joins ``state.last_run_errors``, said with the run's other unwritten ``.last_run`` files in
    one warning when the session ends. Raises nothing else of its own.
    """
    store = state.store
    if not store.root.is_dir():
        return []
    problem = full_run_problem(config, exitstatus, state.deselected)
    if extra is not None and extra.get("full_run") is False:
        problem = str(extra.get("not_full_because"))
    rootdir = Path(str(config.rootpath))
    orphans = [] if problem else find_orphans(store, state.collected, state.used, rootdir)
    record: dict[str, Any] = {
        "finished_at": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        "full_run": problem is None,
        "not_full_because": problem,
        "rootdir": str(rootdir),
        "orphans": orphans,
        **(extra or {}),
    }
    from ..exceptions import SnapshotFormatError
    from .atomic import store_write

    path = store.root / LAST_RUN_DIR / RUN_RECORD
    if store.last_run_error is not None:
        return orphans  # .last_run/ could not be written this run: said once already
    try:
        store.write_last_run_ignore()
        store_write(path, json.dumps(record, indent=2, ensure_ascii=False) + "\n", root=store.root)
    except OSError as exc:  # a read-only folder, a file where .last_run should be: said with the
        # run's other .last_run files that failed there, in one warning (the session's end)
        state.last_run_errors.append([str(path), exc.strerror or type(exc).__name__])
    except (
        SnapshotFormatError
    ) as exc:  # a symbolic link where .last_run should be: say so, write nothing
        import warnings

        from ..exceptions import AgentsnapWarning

        warnings.warn(
            AgentsnapWarning(f"{exc} (the run record for `agentsnap prune` was not written)"),
            stacklevel=2,
        )
    return list(record["orphans"])


def forget_run_record(root: Path) -> None:
    """Remove ``root/.last_run/run.json`` (a run that may end before writing its own, a shard's,
    must not leave the previous run's looking like its). A ``.last_run`` that is a symbolic
    link is left alone; a file that cannot be removed is left too (the run's own write warns)."""
    folder = Path(root) / LAST_RUN_DIR
    if folder.is_symlink():
        return
    with contextlib.suppress(OSError):
        (folder / RUN_RECORD).unlink(missing_ok=True)


def read_run_record(root: Path) -> dict[str, Any] | None:
    """The last run's record, or None when no run has written one."""
    path = Path(root) / LAST_RUN_DIR / RUN_RECORD
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def changed_in_checkout(folder: Path, paths: Iterable[Path] = ()) -> set[Path] | None:
    """The files under ``folder``, and those of ``paths``, that its git checkout changed since its
    commit (``git status``: untracked, added, modified, renamed, deleted; resolved paths), or None
    without git or a repository. ``paths`` outside the repository are left out."""
    import subprocess

    def git(*args: str) -> subprocess.CompletedProcess[bytes] | None:
        try:
            done = subprocess.run(
                ["git", *args], cwd=folder, capture_output=True, timeout=10, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    if top is None or not top.stdout.strip():
        return None
    repo = Path(top.stdout.decode("utf-8", "surrogateescape").strip()).resolve()
    inside = sorted({str(p) for p in (Path(p).resolve() for p in paths) if p.is_relative_to(repo)})
    done = git("status", "--porcelain", "-z", "--untracked-files=all", "--", ".", *inside)
    if done is None:
        return None
    fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    changed: set[Path] = set()
    at = 0
    while at < len(fields):
        entry, at = fields[at], at + 1
        if len(entry) < 4:
            continue
        if entry[0] in "RC":  # a rename or copy: its source path is the next field
            at += 1
        changed.add((repo / entry[3:]).resolve())
    return changed


def changed_since_commit(
    goldens: Mapping[str, Path | None], rootdir: Path, folder: Path, commit: object
) -> dict[str, str]:
    """Of ``goldens`` (``{name: golden path}``, orphans by a merge of shards), those the shards
    cannot judge, each with why: the golden, or its test file, changed in this checkout since
    the shards' ``commit`` (a test added to a file the shards ran and recorded here, a test put
    back: the shards never saw it). None of them without git."""
    files = {n: Path(rootdir) / n.split("::", 1)[0] for n in goldens if "::" in n}
    changed = changed_in_checkout(Path(folder), files.values()) if goldens else None
    if not changed:
        return {}
    since = f"in this checkout since {commit or 'the commit the shards ran'}"
    keep: dict[str, str] = {}
    for name, path in goldens.items():
        if path is not None and path.resolve() in changed:
            keep[name] = f"the golden is untracked or modified {since}"
        elif name in files and files[name].resolve() in changed:
            keep[name] = f"its test file {files[name].name} changed {since}"
    return keep


def not_to_prune(record: Mapping[str, Any], orphans: dict[str, Path], root: Path) -> dict[str, str]:
    """The orphans of ``record`` (``{name: golden path}``) that ``agentsnap prune`` must keep, each
    with why. After a merge of shards: those :func:`changed_since_commit` names (git tells, as a
    checkout rewrites files and their times). After a local run: a golden, or its test file,
    changed after the run that called it orphaned (its test put back since)."""
    rootdir = Path(str(record.get("rootdir") or root))
    if record.get("merged_from"):
        commit = (record.get("suite") or {}).get("commit")
        return changed_since_commit(orphans, rootdir, root, commit)
    keep: dict[str, str] = {}
    try:  # a second's grace: the record's time has no fraction
        finished = datetime.fromisoformat(str(record.get("finished_at"))).timestamp() + 1
    except ValueError:
        return keep  # no time: nothing is known to be newer
    for name, path in orphans.items():
        test_file = rootdir / name.split("::", 1)[0] if "::" in name else None
        with contextlib.suppress(OSError):
            if path.stat().st_mtime > finished:
                keep[name] = "written after the run that found it orphaned"
            elif test_file is not None and test_file.stat().st_mtime > finished:
                keep[name] = (
                    f"its test file {test_file.name} changed after the run that found it orphaned"
                )
    return keep
