"""``agentsnap report --merge DIR...``: one report, one summary and one run record from a suite's shards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ._command import command
from ._errors import CliError
from ._output import Output, plural
from ._shared import root_dir


def _reason(entry: dict[str, Any]) -> str:
    """Why a failed entry failed, in a few words: its error's first line, or its failed checks."""
    error = entry.get("error")
    if error:
        return str(error).strip().splitlines()[0]
    checks = (entry.get("report") or {}).get("failed_checks") or []
    return "failed checks: " + ", ".join(str(c) for c in checks) if checks else "failed"


def state_counts(entries: list[dict[str, Any]]) -> dict[str, int]:
    """Snapshots per report state (every state, zeros too), each snapshot once: ``entries`` are
    the merged report's, one per snapshot name."""
    from ..html_report import STATES

    states = [str(e.get("state")) for e in entries]
    return {state: states.count(state) for state in STATES}


def summary(merged: Any, entries: list[dict[str, Any]], record: dict[str, Any]) -> dict[str, Any]:
    """The merged run as JSON (what ``--json`` writes and the printed summary shows): ``shards``,
    ``tests`` (collected, ran), ``counts`` per report state, ``snapshots`` (name -> state),
    ``failures`` (name -> why), ``full_run``, ``not_full_because``, ``orphans``."""
    states = {str(e.get("name")): str(e.get("state")) for e in entries}
    return {
        "shards": [s.name for s in merged.shards],
        "tests": {"collected": len(merged.collected), "ran": len(merged.selected)},
        "counts": state_counts(entries),
        "snapshots": dict(sorted(states.items())),
        "failures": {
            str(e.get("name")): _reason(e)
            for e in sorted(entries, key=lambda e: str(e.get("name")))
            if e.get("state") == "failed"
        },
        "full_run": record["full_run"],
        "not_full_because": record["not_full_because"],
        "orphans": record["orphans"],
    }


def _holds_any(folder: Path, names: set[str]) -> bool:
    """Whether snapshot folder ``folder`` holds a golden of one of ``names``."""
    from ..exceptions import SnapshotFormatError
    from ..storage.store import SnapshotStore

    store = SnapshotStore(folder)
    for name in names:
        try:
            if store.locate(name) is not None:
                return True
        except SnapshotFormatError:  # there, as a symbolic link or an unreadable file
            return True
    return False


def _snapshot_folder_below(root: Path, used: set[str], recorded: object) -> Path | None:
    """The snapshot folder below ``root`` holding the shards' goldens when ``root`` holds none of
    them (``--into`` named the project, not its snapshot folder), else None. Looked for: the
    folder the shards recorded (``recorded``, relative to their rootdir) and the configured one."""
    if not used or _holds_any(root, used):
        return None
    candidates: list[Path] = []
    if isinstance(recorded, str) and recorded and not Path(recorded).is_absolute():
        candidates.append(root / recorded)
    try:
        from ._catalog import load_settings

        candidates.append(Path(load_settings().snapshot_path).absolute())
    except CliError:  # a pyproject that cannot be read: the recorded folder is enough
        pass
    for folder in candidates:
        below = folder != root and folder.is_relative_to(root) and folder.is_dir()
        if below and _holds_any(folder, used):
            return folder
    return None


@command("report")
def report(
    ctx: typer.Context,
    dirs: Annotated[
        list[Path] | None,
        typer.Argument(
            metavar="DIR",
            help="A shard's artefact: its copied .last_run folder, or a snapshot folder holding one.",
            show_default=False,
        ),
    ] = None,
    merge: Annotated[
        bool, typer.Option("--merge", help="Merge the shards whose artefacts are the DIRs.")
    ] = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", metavar="PATH", help="Write the merged HTML drift report to PATH."),
    ] = None,
    json_path: Annotated[
        Path | None,
        typer.Option("--json", metavar="PATH", help="Write the merged summary as JSON to PATH."),
    ] = None,
    into: Annotated[
        Path | None,
        typer.Option(
            "--into",
            metavar="SNAPSHOT_DIR",
            file_okay=False,
            help="Snapshot folder whose .last_run/run.json gets the merged run record (for "
            "`agentsnap prune`). Default: the folder pytest uses.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Merge the shards of a suite split across CI machines into one report and one run record.

    Each DIR is one shard's .last_run folder (run with pytest-split's --splits N
    --group G, or with --agentsnap-shard NAME), as its CI job uploaded it. The
    shards must be of one run: the same commit, mode and agentsnap version, each
    shard once and, when their number N is known, every group 1..N. Prints the
    summary (snapshots per state, the failures), writes the merged record into
    SNAPSHOT_DIR/.last_run/run.json and, with --html, one HTML report. When
    every shard was a full shard, every collected test ran in one of them and
    this checkout is at the commit the shards ran (git rev-parse HEAD; without
    git that is not checked, and the summary says so), orphans come from the
    union of the goldens the shards used: `agentsnap prune` deletes exactly
    those.

    \b
    Exit codes:
      0  merged (whatever the snapshots' verdicts: the shard jobs fail on drift)
      1  a DIR holds no shard record, a shard is missing or given twice, the
         shards are of different runs, SNAPSHOT_DIR does not exist or holds
         none of the shards' goldens while a snapshot folder below it does,
         or a file cannot be written
      2  usage error (no --merge, no DIR)
    """
    if not merge or not dirs:
        ctx.fail("give --merge and each shard's .last_run folder: agentsnap report --merge DIR...")
    from ..html_report import ReportError, write_report
    from ..html_report._collect import ReportCollector
    from ..storage.shards import (
        ShardMergeError,
        check_commit,
        check_one_suite,
        local_rootdir,
        merged_record,
        read_shard,
        write_merged_record,
    )
    from ..storage.shards import merge as merge_shards
    from ..storage.store import SnapshotStore

    out = Output()
    try:
        shards = [read_shard(d) for d in dirs]
        check_one_suite(shards)
    except ShardMergeError as exc:
        raise CliError(f"{exc}. Nothing was merged.") from None
    merged = merge_shards(shards)
    collector = ReportCollector(None)
    for shard in shards:
        collector.merge_json(shard.entries)
    entries = list(collector.entries.values())

    root = into.absolute() if into is not None else root_dir(None, out)
    recorded = (shards[0].record.get("suite") or {}).get("snapshot_dir")
    if not root.is_dir():
        was = f" (the shards' was {recorded}, from their rootdir)" if recorded else ""
        raise CliError(
            f"the snapshot folder {root} does not exist: run from the project (where pytest runs) "
            f"or pass --into SNAPSHOT_DIR, the folder holding the goldens{was}. Nothing was written."
        )
    store = SnapshotStore(root)
    below = _snapshot_folder_below(root, merged.used, recorded)
    if below is not None:
        raise CliError(
            f"{root} holds none of the {plural(len(merged.used), 'golden')} the shards used; "
            f"{below} does: it is the snapshot folder. Pass --into {below}. Nothing was written."
        )
    commit = check_commit(merged.commit, root)
    record = merged_record(
        merged, store, local_rootdir(root, shards), commit=commit, counts=state_counts(entries)
    )
    try:
        record_path = write_merged_record(store, record)
    except OSError as exc:
        raise CliError(f"cannot write the merged run record into {root}: {exc}") from None
    facts = summary(merged, entries, record)
    page = None
    if html is not None:
        suite = shards[0].record.get("suite") or {}
        try:
            page = write_report(
                html,
                entries,
                meta={
                    "mode": suite.get("mode"),
                    "title": f"agentsnap report: {plural(len(shards), 'shard')} merged",
                },
            )
        except ReportError as exc:
            raise CliError(str(exc).removeprefix("agentsnap: ")) from None
    if json_path is not None:
        try:
            Path(json_path).write_text(json.dumps(facts, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise CliError(f"cannot write the summary to {json_path}: {exc}") from None

    out.line(
        f"Merged {plural(len(shards), 'shard')} ({', '.join(facts['shards'])}): "
        f"{facts['tests']['ran']} of {plural(facts['tests']['collected'], 'test')} ran."
    )
    counts = ", ".join(f"{n} {state}" for state, n in facts["counts"].items() if n)
    out.line(f"snapshots: {counts or 'none'}")
    for name, why in facts["failures"].items():
        out.line(f"  failed  {name}: {why}")
    if record["full_run"]:
        found = record["orphans"]
        out.line(
            f"orphans: {len(found)} (`agentsnap prune` deletes them)" if found else "orphans: none"
        )
        for name, why in record["kept_changed"].items():
            out.line(f"  kept  {name}: {why}")
    else:
        out.line(f"orphans: not judged: {record['not_full_because']}")
    if commit.note is not None:
        out.line(f"commit not checked: {commit.note}")
    out.line(f"run record: {record_path}")
    if page is not None:
        out.line(f"HTML report: {page}")
