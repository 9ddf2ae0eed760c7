"""The commands that change goldens: ``approve``, ``update``, ``rm``, ``prune``."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from . import _output
from ._catalog import last_run_root, scan
from ._command import DirOption, NamesArgument, command
from ._errors import CliError
from ._output import Column, Output, age, plural
from ._shared import root_dir, warn_broken

if TYPE_CHECKING:
    from ..storage.side_files import Sweep


@command("approve")
def approve(
    ctx: typer.Context,
    names: NamesArgument = None,
    all_pending: Annotated[
        bool, typer.Option("--all", help="Approve every pending snapshot.")
    ] = False,
    dir: DirOption = None,
) -> None:
    """Approve snapshots: mark the recording as the behaviour to hold the agent to.

    Each NAME is a full snapshot name, a unique prefix of one, or a glob in
    quotes ('tests/test_weather.py::*'). Prints what was approved (name,
    steps, age of the recording). All or nothing: when one NAME fails, or one
    file cannot be written, nothing is approved (every file is checked first;
    a write failing midway puts back the files already approved).

    \b
    Exit codes:
      0  approved (or nothing pending, with --all)
      1  a NAME matched nothing, a prefix is ambiguous (the candidates are
         listed), or a file is unreadable or cannot be written; nothing was
         approved
      2  neither NAME nor --all given
    """
    if bool(names) == all_pending:
        ctx.fail("give one or more NAMEs, or --all (not both)")
    from ._review import apply_approve, plan_approve

    out = Output()
    root = root_dir(dir, out)
    goldens = scan(root)
    if all_pending:
        warn_broken(out, goldens)
    todo, already = plan_approve(goldens, names or [], all_pending)
    if all_pending and not todo:
        out.line(f"Nothing to approve: no pending snapshots in {root}.")
        return
    rows = [[e.name, str(len(e.snapshot.trace)), age(e.snapshot.updated_at)] for e in todo]
    for e in todo:
        out.note(f"approving {e.name} ({e.path})")
    apply_approve(root, todo, _again("approve", names or ["--all"], dir))
    if todo:
        out.line(f"Approved {plural(len(todo), 'snapshot')} in {root}:")
        out.table(
            [
                Column("NAME", style="bold"),
                Column("STEPS", justify="right"),
                Column("AGE", justify="right"),
            ],
            rows,
        )
    for e in already:
        out.line(f"already approved: {e.name}")
    if todo:
        out.note("Commit the snapshot files: CI compares against approved snapshots only.")


def _again(name: str, args: list[str], dir: Path | None) -> str:
    """The command line that runs ``agentsnap NAME ARGS`` again (``--dir`` as given)."""
    where = [] if dir is None else ["--dir", str(dir)]
    return " ".join(["agentsnap", name, *(shlex.quote(a) for a in [*args, *where])])


# ---------------------------------------------------------------------------- update
@command("update")
def update(
    ctx: typer.Context,
    names: NamesArgument = None,
    all_changed: Annotated[
        bool,
        typer.Option(
            "--all", help="Promote every last run that differs from its golden or has none."
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Also replace a golden file that cannot be read (corrupt, merge conflict, other version or name) or is a symbolic link (the link is replaced, never written through).",
        ),
    ] = False,
    dir: DirOption = None,
) -> None:
    """Make the latest run (.last_run/) the golden: approved, source kept.

    Use it after a test failed on an intended change. A run whose test failed
    on its own (not on an agentsnap check), or a replayed run whose requests
    changed, is refused: nothing is promoted. Each promoted file is removed
    from .last_run/. Prints one line per snapshot: steps before →
    after, and whether the final output changed. NAME matching as in approve;
    all or nothing, also when a file cannot be written (as in approve).

    \b
    Exit codes:
      0  promoted (or nothing to promote, with --all)
      1  no last run for a NAME (run the tests first), no match, ambiguous
         prefix, an unreadable file (--force replaces an unreadable
         golden), or a file that cannot be written; nothing was changed
      2  neither NAME nor --all given
    """
    if bool(names) == all_changed:
        ctx.fail("give one or more NAMEs, or --all (not both)")
    from ._review import RUN_TESTS, apply_update, plan_update

    out = Output()
    root = root_dir(dir, out)
    plan = plan_update(root, names or [], all_changed, force=force)
    if all_changed:
        warn_broken(out, scan(last_run_root(root)))
    if not plan:
        lasts = scan(last_run_root(root))
        if not lasts.entries:
            out.line(f"Nothing to update: no last runs in {last_run_root(root)}. {RUN_TESTS}.")
        else:
            out.line(
                f"Nothing to update: every last run in {last_run_root(root)} matches its golden."
            )
        return
    from ..storage.store import SnapshotStore

    store = SnapshotStore(
        root, force=force
    )  # with --force a linked golden is named, to be replaced
    for item in plan:
        replaced = "" if item.golden is None else f", replacing {item.golden.path}"
        out.note(f"promoting {item.last.path} -> {store.path_for(item.last.name)}{replaced}")
    apply_update(
        root,
        plan,
        force=force,
        again=_again("update", [*(names or ["--all"]), *(["--force"] if force else [])], dir),
    )
    for item in plan:
        before = "-" if item.steps_before is None else str(item.steps_before)
        verb = "created" if item.golden is None else "updated"
        changed = "yes" if item.output_changed else "no"
        out.line(
            f"{verb} {item.last.name}: steps {before} → {item.steps_after}, output changed: {changed}"
        )
    out.note(f"Review with `git diff {root}` and commit.")


# ---------------------------------------------------------------------------- rm
@command("rm")
def rm(
    names: Annotated[
        list[str],
        typer.Argument(
            metavar="NAME", help="Full name, unique prefix, or glob (quote it).", show_default=False
        ),
    ],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking.")] = False,
    dir: DirOption = None,
) -> None:
    """Delete snapshots (asks first unless --yes).

    NAME matching as in approve; all or nothing, also when a file cannot be
    deleted (every file is checked first; one failing midway puts back the
    files already deleted, byte for byte). The golden file and its
    latest run in .last_run/ are deleted, so `agentsnap update` (--all
    included) cannot bring the snapshot back; a committed golden comes back
    with git. So are the blob files (blobs/<sha256>: large WebSocket base64,
    large tool bytes) only the deleted snapshots referenced: one that another
    golden, a pending snapshot or a file in .last_run/ still references stays,
    and while such a file cannot be read (a link) every blob file stays.

    \b
    Exit codes:
      0  deleted
      1  no match, ambiguous prefix, unreadable file, a file that cannot be
         deleted, answered no, or no terminal to ask on and no --yes;
         nothing was deleted. Or a blob file could not be deleted (named;
         the snapshots were)
      2  no NAME given
    """
    from ..storage.side_files import dropped_references, sweep
    from ._review import apply_remove, last_runs_of, plan_remove, removed_files

    out = Output()
    root = root_dir(dir, out)
    targets = plan_remove(scan(root), names)
    dropping = removed_files(targets)
    blobs = sweep(root, dropping, among=dropped_references(dropping))
    if not yes and not _output.stdin_is_interactive():
        again = " ".join(shlex.quote(n) for n in names)
        raise CliError(
            f"refusing to delete {plural(len(targets), 'snapshot')} in {root} without confirmation: stdin is not a terminal. "
            f"Nothing was deleted. Pass --yes: `agentsnap rm {again} --yes`."
        )
    out.note(f"About to delete {plural(len(targets), 'snapshot file')} in {root}:")
    for t in targets:
        with_run = "  + its last run in .last_run/" if last_runs_of(t) else ""
        out.note(f"  {t.name}  ({t.path.name})" + ("" if t.readable else "  unreadable") + with_run)
    for path in blobs.delete:
        out.note(
            f"  + {blobs.folder.name}/{path.name}: no other snapshot or last run references it"
        )
    if not yes and not typer.confirm("Delete them?", default=False):
        raise CliError("answered no; nothing was deleted.")
    runs = apply_remove(targets, _again("rm", [*names, "--yes"], dir))
    for t, kept in zip(targets, runs, strict=True):
        also = "".join(f" and its last run ({path})" for path in kept)
        out.line(
            f"deleted {t.name} ({t.path}){also}"
            if t.readable
            else f"deleted unreadable file {t.path} ({t.name}){also}"
        )
    for path in _delete_blobs(blobs):
        out.line(f"deleted blob file {path}: only the deleted snapshots referenced it")
    _say_left(out, blobs)


# ---------------------------------------------------------------------------- prune
@command("prune")
def prune(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list the orphans.")] = False,
    dir: DirOption = None,
) -> None:
    """Delete orphaned snapshots (and their last runs): goldens no test produces any more;
    and the blob files (blobs/<sha256>) no snapshot or last run references.

    Orphans come only from the last full, unfiltered, failure-free pytest run
    (no -k/-m, deselection, --ignore or narrower paths), which records them in
    .last_run/run.json; a filtered or failing run is refused, never guessed from.
    A suite run as shards: one shard's record is refused; `agentsnap report
    --merge DIR...` writes the record of all shards together, and prune then
    deletes the orphans of their union, only when this checkout is at the
    commit the shards ran (git rev-parse HEAD; without git that is not
    checked, and prune says so). Kept, with the reason said: an orphan whose
    golden or test file changed after the run (after a merge: untracked or
    modified in this checkout since the shards' commit).

    Blob files are listed after the orphans, and deleted with them: those no
    file in the folder or in .last_run/ references once the orphans are gone
    (a re-recorded golden's old ones, say). What in blobs/ is no blob file
    agentsnap writes (a link, a folder, another file) is named and left; while
    a file that may reference one cannot be read (a link), every blob file is
    kept, and that file named.

    \b
    Exit codes:
      0  deleted (or nothing to delete, or --dry-run)
      1  no usable run record, answered no, no terminal to ask on and no --yes,
         a snapshot file that cannot be deleted (all or nothing, as in rm;
         nothing was deleted), or a blob file could not be deleted (named)
    """
    from ..storage.orphans import read_run_record

    out = Output()
    root = root_dir(dir, out)
    record_ = read_run_record(root)
    if record_ is None:
        raise CliError(
            f"no run record in {root / '.last_run'}: run the whole test suite once (`pytest`), then `agentsnap prune`."
        )
    shard = record_.get("shard")
    if isinstance(shard, dict):
        raise CliError(
            f"the last pytest run here was one shard ({shard.get('name')}, from {shard.get('source')}) "
            f"of a suite split across machines; one shard cannot tell orphans: the goldens other shards "
            f"use look unused. Nothing was deleted. Collect every shard's .last_run folder, run "
            f"`agentsnap report --merge DIR...` (it writes the merged record into {root / '.last_run'}), "
            "then `agentsnap prune`."
        )
    if record_.get("merged_from"):  # the shards' commit must be this checkout's
        from ..storage.shards import check_commit

        commit = check_commit((record_.get("suite") or {}).get("commit"), root)
        if commit.problem is not None:
            raise CliError(
                f"the merged run record cannot tell this checkout's orphans: {commit.problem}. "
                "Nothing was deleted."
            )
        if commit.note is not None:
            out.note(f"commit not checked: {commit.note}")
    if not record_.get("full_run"):
        why = record_.get("not_full_because") or "it was not a full run"
        if record_.get("merged_from"):
            raise CliError(
                f"the merged shards' run cannot tell orphans: {why}. Nothing was deleted. Merge the "
                "shards of one full, passing run (`agentsnap report --merge DIR...`), then `agentsnap prune`."
            )
        raise CliError(
            f"the last pytest run cannot tell orphans apart from filtered tests: {why}. Run the whole suite with no filters, then `agentsnap prune`."
        )
    found = scan(root)
    orphans = [n for n in record_.get("orphans") or [] if n in found.entries]
    from ..storage.orphans import not_to_prune
    from ..storage.side_files import sweep
    from ._review import apply_remove, removed_files

    kept = not_to_prune(record_, {n: found.entries[n].path for n in orphans}, root)
    for name, why in kept.items():
        out.note(f"kept {name}: {why}")
    orphans = [n for n in orphans if n not in kept]
    entries = [found.entries[n] for n in orphans]
    blobs = sweep(root, removed_files(entries))
    finished = record_.get("finished_at", "?")
    if not orphans:
        out.line(f"No orphaned snapshots in {root} (last full run: {finished}).")
    else:
        out.line(
            f"{plural(len(orphans), 'orphaned snapshot')} in {root} (last full run: {finished}):"
        )
    for name in orphans:
        out.line(f"  {name}  ({found.entries[name].path.name})")
    if blobs.delete:
        out.line(
            f"{plural(len(blobs.delete), 'orphaned blob file')} in {blobs.folder} "
            f"(no snapshot or last run references {'it' if len(blobs.delete) == 1 else 'them'}):"
        )
        for path in blobs.delete:
            out.line(f"  {blobs.folder.name}/{path.name}  ({_size(path)})")
    _say_left(out, blobs)
    if dry_run or not (orphans or blobs.delete):
        return
    if not yes:
        if not _output.stdin_is_interactive():
            raise CliError(
                "refusing to delete without confirmation: stdin is not a terminal. Nothing was deleted. Pass --yes: `agentsnap prune --yes`."
            )
        if not typer.confirm("Delete them?", default=False):
            raise CliError("answered no; nothing was deleted.")
    apply_remove(entries, _again("prune", ["--yes"], dir))
    gone = _delete_blobs(blobs)
    done = [plural(len(orphans), "snapshot")] if orphans else []
    done += [plural(len(gone), "blob file")] if gone else []
    out.line(f"deleted {' and '.join(done) or 'nothing'}.")


def _size(path: Path) -> str:
    try:
        size = path.lstat().st_size
    except OSError:
        return "gone"
    return f"{size:,} byte" + ("" if size == 1 else "s")


def _delete_blobs(blobs: Sweep) -> list[Path]:
    from ..storage.side_files import delete_unreferenced

    try:
        return delete_unreferenced(blobs)
    except OSError as exc:
        raise CliError(
            f"cannot delete {exc.filename or blobs.folder}: {exc.strerror or exc}. "
            "The snapshots are deleted; the blob files left are deleted by `agentsnap prune`."
        ) from None


def _say_left(out: Output, blobs: Sweep) -> None:
    """Name what in ``blobs/`` is left because it is no blob file agentsnap wrote, and the blob files
    kept because a file that may reference them cannot be read."""
    for path, why in blobs.left:
        out.line(
            f"left {path}: {why}; agentsnap deletes only the blob files it writes "
            "(regular files named by their sha256)"
        )
    if blobs.kept:
        one = len(blobs.unknown) == 1
        which = ", ".join(f"{path} ({why})" for path, why in blobs.unknown)
        out.line(
            f"kept {plural(len(blobs.kept), 'blob file')} in {blobs.folder} that no readable snapshot or "
            f"last run references: which ones {which} reference{'s' if one else ''} cannot be told. "
            f"Replace or remove {'it' if one else 'them'}, then run `agentsnap prune`."
        )
