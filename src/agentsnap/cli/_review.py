"""The review actions behind ``approve``, ``update`` and ``rm``: plan first, then write.

Each action is split in two so a failed command changes nothing: ``plan_*``
reads and checks everything (raising :class:`~._errors.CliError` on a missing
name, an ambiguous prefix or an unreadable file), and only then ``apply_*``
writes.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..exceptions import SnapshotFormatError
from ..storage.store import SnapshotStore
from ..storage.volatile import same_content, same_output
from ._catalog import (
    Entry,
    Scan,
    Target,
    last_run_root,
    match,
    resolve,
    resolve_targets,
    scan,
)
from ._errors import CliError

__all__ = [
    "Promotion",
    "apply_approve",
    "apply_remove",
    "apply_update",
    "differs",
    "last_runs_of",
    "plan_approve",
    "plan_remove",
    "plan_update",
    "removed_files",
]

RUN_TESTS = "Run the tests first (`agentsnap run TEST_PATH` or `pytest --agentsnap-instrument`)"


# -- approve -------------------------------------------------------------------
def plan_approve(
    goldens: Scan, names: Sequence[str], all_pending: bool
) -> tuple[list[Entry], list[Entry]]:
    """``(to_approve, already_approved)`` for the given patterns, or every pending snapshot."""
    if all_pending:
        picked = sorted(goldens.entries.values(), key=lambda e: e.name)
    else:
        picked = [goldens.entries[n] for n in resolve(names, goldens)]
    todo = [e for e in picked if not e.snapshot.approved]
    store = SnapshotStore(goldens.root)
    for entry in todo:
        if entry.path != store.path_for(entry.name):
            raise CliError(
                f"{entry.path} holds {entry.name!r} under a non-standard file name, so it cannot be approved in place. "
                f"Re-record it (`agentsnap record TEST_PATH`) or rename the file to {store.path_for(entry.name).name}."
            )
    return todo, [] if all_pending else [e for e in picked if e.snapshot.approved]


def apply_approve(root: Path, entries: Sequence[Entry], again: str = "agentsnap approve") -> None:
    """Flip ``approved`` on each snapshot file (content otherwise unchanged): all or nothing
    (:mod:`._undo`; ``again`` is the command to run once the cause is fixed)."""
    from ._undo import Undo, refuse_blocked

    nothing = "nothing was approved"
    refuse_blocked(
        [(e.name, e.path) for e in entries],
        remove=False,
        verb="approve",
        nothing=nothing,
        again=again,
    )
    store = SnapshotStore(root)
    undo = Undo()
    for entry in entries:
        try:
            with undo.change(entry.path):
                store.approve(entry.name)
        except (KeyError, SnapshotFormatError, OSError) as exc:  # changed on disk since planning
            raise undo.failed(
                f"cannot approve {entry.name!r} ({entry.path}): {exc}", nothing=nothing
            ) from None


# -- update --------------------------------------------------------------------
@dataclass
class Promotion:
    """One last run to promote: its entry, and the golden it replaces (None: new golden)."""

    last: Entry
    golden: Entry | None

    @property
    def steps_before(self) -> int | None:
        return None if self.golden is None else len(self.golden.snapshot.trace)

    @property
    def steps_after(self) -> int:
        return len(self.last.snapshot.trace)

    @property
    def output_changed(self) -> bool:
        if self.golden is None:
            return True
        # an answer quoting a fresh tool-call or response id is the same answer (as re-recording reads it)
        return not same_output(self.golden.snapshot.to_dict(), self.last.snapshot.to_dict())


def differs(golden: Entry, last: Entry) -> bool:
    """Whether a last run holds anything its golden does not (review fields and timestamps aside)."""
    a, b = golden.snapshot.to_dict(), last.snapshot.to_dict()
    for key in ("approved", "source", "name"):
        a[key] = b[key]
    return not same_content(a, b)


def plan_update(
    root: Path, names: Sequence[str], all_changed: bool, force: bool = False
) -> list[Promotion]:
    """The last runs to promote: those ``names`` select, or (``all_changed``) every one
    that differs from its golden or has none. Raises :class:`CliError` for a
    name with no last run (saying to run the tests), an unreadable last run or
    golden, or an ambiguous prefix."""
    goldens = scan(root)
    lasts = scan(last_run_root(root))
    if all_changed:
        chosen = [
            n
            for n in lasts.names
            if n not in goldens.entries or differs(goldens.entries[n], lasts.entries[n])
        ]
    else:
        chosen = []
        for pattern in names:
            hits = match(pattern, lasts)
            if not hits:
                golden_hits = _quiet_match(pattern, goldens)
                if golden_hits:
                    store = SnapshotStore(root)
                    where = ", ".join(str(store.last_run_path(n)) for n in golden_hits)
                    raise CliError(
                        f"no last run of {', '.join(repr(n) for n in golden_hits)} (looked for {where}); nothing was promoted. "
                        f"{RUN_TESTS}, then `agentsnap update {shlex.quote(pattern)}`."
                    )
                resolve(
                    [pattern],
                    lasts,
                    what="last run",
                    hint=f"{RUN_TESTS}: each run writes {last_run_root(root)}.",
                )
            chosen += [n for n in hits if n not in chosen]
    plan = []
    for name in chosen:
        refuse_invented(lasts.entries[name])
        reason = goldens.broken_for(name)
        if reason is not None and name not in goldens.entries and not force:
            raise CliError(
                f"{reason} Or replace it with its last run: `agentsnap update {shlex.quote(name)} --force`."
            )
        plan.append(Promotion(lasts.entries[name], goldens.entries.get(name)))
    return plan


def refuse_invented(last: Entry) -> None:
    """Raise :class:`CliError` when promoting ``last`` would write behaviour the model never produced,
    or that its test did not accept.

    A run whose test failed (``comparison["test_failed"]``) is kept for
    ``agentsnap diff`` only: a failing run never becomes a golden. A replayed
    run whose requests drifted (``request_drift`` on a step) got the old
    recorded responses for its new requests; making it the golden would pair
    them. Live re-recording is the fix.
    """
    from ..diff.advice import record_command as _record_command

    if (last.snapshot.comparison or {}).get("test_failed"):
        raise CliError(
            f"refusing to promote the last run of {last.name!r} ({last.path}): its test failed, and a failing run never "
            f"becomes a golden. Nothing was promoted. See what changed with `agentsnap diff {shlex.quote(last.name)}`; "
            f"once the test passes, promote that run, or re-record it live: `{_record_command(last.name)}`."
        )
    drifted = [s for s in last.snapshot.trace if s.get("request_drift")]
    if not drifted:
        return
    steps = ", ".join(str(s.get("step")) for s in drifted)
    raise CliError(
        f"refusing to promote the last run of {last.name!r} ({last.path}): it ran in replay and the requests of "
        f"{len(drifted)} {'llm ' if all(s.get('type') == 'llm_call' for s in drifted) else ''}call(s) (step {steps}) drifted from the recordings, so it holds old responses paired with new "
        f"requests — behaviour the model never produced. Nothing was promoted. Re-record it live: "
        f"`{_record_command(last.name)}`, review (`git diff`), commit."
    )


def _quiet_match(pattern: str, found: Scan) -> list[str]:
    try:
        return match(pattern, found)
    except CliError:
        return []


def apply_update(
    root: Path, plan: Sequence[Promotion], force: bool = False, again: str = "agentsnap update"
) -> None:
    """Write each last run as the approved golden (its ``source`` kept), then delete the last-run file.

    The golden keeps its file (:meth:`~agentsnap.storage.store.SnapshotStore.path_for`
    finds it under any earlier name form, agentsnap 0.5.1's ``<name>.json``
    included); the run-only keys (``comparison``: how it was judged, a step's
    ``request_drift``) are not written. All or nothing (:mod:`._undo`; ``again``: the
    command to run once the cause is fixed).
    """
    from ._undo import Undo, refuse_blocked

    store = SnapshotStore(root, force=force)
    nothing = "nothing was changed"
    refuse_blocked(
        _update_paths(store, plan), remove=False, verb="update", nothing=nothing, again=again
    )
    undo = Undo()
    for item in plan:
        snap = item.last.snapshot
        snap.approved = True
        # run-only keys: how the run was judged and served; a golden is only the behaviour
        snap.comparison = None
        for step in snap.trace:
            step.pop("request_drift", None)
        try:
            target = store.path_for(snap.name)
            with undo.change(target):
                store.save(snap, force=force)
            if item.golden is not None and item.golden.path != target:
                with undo.change(item.golden.path):
                    item.golden.path.unlink(missing_ok=True)
            with undo.change(item.last.path):
                item.last.path.unlink(missing_ok=True)
        except (SnapshotFormatError, OSError) as exc:
            what = (
                f"{exc.filename}: {exc.strerror}"
                if isinstance(exc, OSError) and exc.filename and exc.strerror
                else exc
            )
            raise undo.failed(f"cannot update {snap.name!r}: {what}", nothing=nothing) from None


def _update_paths(store: SnapshotStore, plan: Sequence[Promotion]) -> list[tuple[str, Path]]:
    """The files ``update`` replaces or deletes, by name (a golden that is a link: not asked)."""
    paths = []
    for item in plan:
        with contextlib.suppress(SnapshotFormatError):  # (said when it is written)
            paths.append((item.last.name, store.path_for(item.last.name)))
        if item.golden is not None:
            paths.append((item.last.name, item.golden.path))
        paths.append((item.last.name, item.last.path))
    return paths


# -- rm ------------------------------------------------------------------------
def plan_remove(goldens: Scan, names: Sequence[str]) -> list[Target]:
    """The snapshot files ``names`` select, unreadable ones included when a name selects
    them exactly or by glob (all or nothing, see :func:`~._catalog.select`)."""
    targets = resolve_targets(names, goldens)
    for t in targets:
        if (
            not t.readable and t.path not in goldens.broken
        ):  # the file is readable, and holds another name
            raise CliError(f"{t.reason} Nothing was deleted.")
    return targets


def last_runs_of(entry: Entry | Target) -> list[Path]:
    """The files in ``.last_run/`` holding the latest run of the snapshot in ``entry.path``
    (:meth:`~agentsnap.storage.store.SnapshotStore.last_run_files`); none behind a link."""
    try:
        return SnapshotStore(entry.path.parent).last_run_files(entry.name, entry.path.name)
    except SnapshotFormatError:
        return []  # .last_run is a link: nothing in it is touched


def removed_files(entries: Sequence[Entry | Target]) -> list[Path]:
    """Every file :func:`apply_remove` deletes for ``entries``: each golden, its last runs and its
    kept live samples (what a blob file's references are read from before they go)."""
    files: list[Path] = []
    for entry in entries:
        files += [entry.path, *last_runs_of(entry)]
        with contextlib.suppress(SnapshotFormatError, OSError):
            store = SnapshotStore(entry.path.parent)
            files += [store.sample_path(entry.name, run) for run in store.sample_runs(entry.name)]
    return files


def apply_remove(
    entries: Sequence[Entry | Target], again: str = "agentsnap rm NAME --yes"
) -> list[list[Path]]:
    """Delete each snapshot's file, its latest runs in ``.last_run/`` and the live samples a
    statistics run kept there, so that
    ``agentsnap update`` (``--all`` included) cannot bring a deleted golden back;
    for each entry, the last-run files deleted. A link on the way is never followed. All or
    nothing (:func:`~._undo.remove_all`; ``again``: the command to run once the cause is fixed):
    the samples only once every file is gone."""
    from ._undo import remove_all

    # the last runs and samples are found through the golden's file: before deleting it
    deleted = [last_runs_of(entry) for entry in entries]
    samples = [_samples_of(entry) for entry in entries]
    remove_all(
        [
            (e.name, p)
            for e, runs, kept in zip(entries, deleted, samples, strict=True)
            for p in (e.path, *runs, *kept)
        ],
        again,
    )
    for kept in samples:
        if kept:
            with contextlib.suppress(OSError):
                kept[0].parent.rmdir()  # (a file someone else put there: the folder stays)
    return deleted


def _samples_of(entry: Entry | Target) -> list[Path]:
    """The live samples a statistics run kept of ``entry`` (``.last_run/<file>.runs/``);
    behind a link, none."""
    store = SnapshotStore(entry.path.parent)
    try:
        folder = store.samples_dir(entry.name)
        if folder.is_symlink():
            return []
        return [store.sample_path(entry.name, run) for run in store.sample_runs(entry.name)]
    except (SnapshotFormatError, OSError):
        return []
