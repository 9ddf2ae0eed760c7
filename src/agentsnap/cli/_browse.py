"""The commands that read: ``list``, ``show``, ``diff``, ``schema``."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from ._catalog import Entry, Scan, last_run_root, resolve_one, scan
from ._command import DirOption, command
from ._errors import CliError
from ._output import Column, Output, age, plural
from ._shared import (
    CREATE_HINT,
    as_text,
    file_age,
    foreign_note,
    is_file_argument,
    mode_of,
    print_snapshot,
    read_file,
    root_dir,
    settings_or_exit,
    warn_broken,
)

#: ``--run K``: a kept failing sample of a statistics run instead of the golden / last run
RunOption = Annotated[
    int | None,
    typer.Option(
        "--run",
        metavar="K",
        min=1,
        help="The kept failing live sample K of the snapshot's last statistics run "
        "(`pytest --agentsnap-live --agentsnap-runs N`), from .last_run/<file>.runs/K.json.",
    ),
]


def _kept_sample(root: Path, name: str, run: int, code: int) -> Entry:
    """Kept sample ``run`` of snapshot ``name`` as an :class:`Entry`; :class:`CliError` (exit ``code``)
    naming the file looked for and the samples that are kept when it is not there or unreadable."""
    from ..exceptions import SnapshotFormatError
    from ..storage.store import SnapshotStore

    store = SnapshotStore(root)
    path = store.sample_path(name, run)
    try:
        snap = store.load_sample(name, run)
    except SnapshotFormatError as exc:
        raise CliError(str(exc), code) from None
    if snap is None:
        kept = ", ".join(str(k) for k in store.sample_runs(name)) or "none"
        raise CliError(
            f"no kept live sample {run} of {name!r} (looked for {path}; kept: {kept}). Failing samples are kept "
            "by `pytest --agentsnap-live --agentsnap-runs N`; a test that passed keeps none.",
            code,
        )
    return Entry(name, path, snap)


# ---------------------------------------------------------------------------- list
@command("list")
def list_snapshots(
    pending: Annotated[
        bool, typer.Option("--pending", help="Only snapshots not yet approved.")
    ] = False,
    dir: DirOption = None,
) -> None:
    """List snapshots: name, state, steps, model, source, age.

    STATE is approved, pending, or unreadable (a file agentsnap cannot read:
    corrupt, merge conflict, other version or name; a warning on stderr says
    why and what to run). STEPS is the number of trace steps; AGE the time
    since the snapshot last changed (45s, 12m, 5h, 3d; for an unreadable file,
    since the file changed). --pending keeps the unreadable rows: their state
    is unknown. Names are never shortened: on a terminal a long one folds
    within its column; in plain output (a pipe, NO_COLOR) a name longer than 80
    characters is written whole on its row's one line without widening the
    other rows. The folder's other JSON files
    (package.json when snapshot_dir = ".") are not snapshots: not listed, only
    counted in the closing note.

    \b
    Exit codes:
      0  listed (also when there are no snapshots)
      1  a snapshot file is unreadable (it is listed, and the warning says
         why), or the pyproject.toml holds a bad agentsnap setting
    """
    out = Output()
    root = root_dir(dir, out)
    found = scan(root)
    warn_broken(out, found)
    entries = [found.entries[n] for n in found.names]
    if not entries and not found.broken:
        missing = "" if root.is_dir() else " (no such folder: check --dir or snapshot_dir)"
        out.line(f"No snapshots in {root}{missing}{foreign_note(found)}. {CREATE_HINT}")
        return
    shown = [e for e in entries if not e.snapshot.approved] if pending else entries
    n_pending = sum(1 for e in entries if not e.snapshot.approved)
    if not shown and not found.broken:
        out.line(f"No pending snapshots in {root} ({len(entries)} approved).")
        return
    listed: list[tuple[str, list[str], list[str | None]]] = []
    for e in shown:
        s = e.snapshot
        state = "approved" if s.approved else "pending"
        listed.append(
            (
                e.name,
                [e.name, state, str(len(s.trace)), s.model, s.source, age(s.updated_at)],
                [None, "green" if s.approved else "yellow", None, None, None, None],
            )
        )
    for path in found.broken:
        name = found.label(path)
        listed.append(
            (
                name,
                [name, "unreadable", "-", "-", "-", file_age(path)],
                [None, "bold red", None, None, None, None],
            )
        )
    listed.sort(key=lambda row: row[0])
    columns = [
        Column("NAME", style="bold"),
        Column("STATE"),
        Column("STEPS", justify="right"),
        Column("MODEL"),
        Column("SOURCE"),
        Column("AGE", justify="right"),
    ]
    out.table(columns, [row for _, row, _ in listed], styles=[style for _, _, style in listed])
    unreadable = f", {len(found.broken)} unreadable" if found.broken else ""
    out.note(
        f"{plural(len(entries), 'snapshot')}, {n_pending} pending{unreadable}, in {root}{foreign_note(found)}"
    )
    if found.broken:
        raise typer.Exit(1)


@command("show")
def show(
    name: Annotated[
        str,
        typer.Argument(
            metavar="NAME", help="Full name, unique prefix, glob, or a snapshot .json file."
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the snapshot file as it is stored.")
    ] = False,
    dir: DirOption = None,
    run: RunOption = None,
) -> None:
    """Show one snapshot in full: metadata, then every trace step.

    llm_call steps show model, response and the tool calls the model asked
    for; tool_call steps show tool name, arguments and result. --json prints
    the raw file instead (as stored, less a byte order mark). --run K shows the kept failing live sample K of the
    snapshot's last statistics run instead of the golden.

    \b
    Exit codes:
      0  shown
      1  no snapshot matches NAME, NAME matches several, or the file is unreadable
    """
    out = Output()
    if is_file_argument(name):
        snap, path = read_file(name, 1)
    else:
        root = root_dir(dir, out)
        found = scan(root)
        entry = found.entries[resolve_one(name, found)]
        if run is not None:
            entry = _kept_sample(root, entry.name, run, 1)
        snap, path = entry.snapshot, entry.path
    if as_json:  # (without a byte order mark a Windows editor put there: the output is JSON)
        out.raw(path.read_text(encoding="utf-8-sig"))
        return
    print_snapshot(out, snap, path)


# ---------------------------------------------------------------------------- diff
@command("diff")
def diff(
    name: Annotated[
        str,
        typer.Argument(
            metavar="NAME",
            help="Full name, unique prefix or glob; or a snapshot .json file to pretty-print.",
        ),
    ],
    dir: DirOption = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            metavar="PATH",
            dir_okay=False,
            help="Also write the comparison as a self-contained HTML page to PATH.",
        ),
    ] = None,
    run: RunOption = None,
) -> None:
    """Compare a snapshot's golden with its latest run (.last_run/), or with --run K
    the kept failing live sample K of its last statistics run.

    The latest run is the last test run against the golden, also one whose
    test failed on its own assert (the output says so). The report has the
    same sections as a failing test: structural, argument
    changes (e.g. args.city: 'Paris' → 'Lyon'), model tool requests and
    semantic scores, with the thresholds of your configuration. Given an
    existing FILE.json instead of a name, prints that snapshot (as
    agentsnap 0.5.1 did). --html PATH also writes the comparison as one
    self-contained HTML page: the two traces as aligned timelines, changed
    arguments highlighted, the outputs with word-level differences.

    \b
    Exit codes (as diff(1)):
      0  same (or FILE.json printed)
      1  they differ
      2  cannot compare: no snapshot matches, no last run yet (run the tests
         first), no golden, or a file is unreadable
    """
    out = Output()
    if is_file_argument(name):
        if html is not None:
            raise CliError(
                "--html compares a golden with its last run: give a snapshot NAME, not a FILE.json",
                2,
            )
        snap, path = read_file(name, 2)
        print_snapshot(out, snap, path)
        return
    root = root_dir(dir, out, code=2)
    goldens = scan(root)
    lasts = scan(last_run_root(root))
    # a last run whose golden file cannot be read is that one name, not a second candidate
    runs = {n: e for n, e in lasts.entries.items() if goldens.file_of(n) is None}
    both = Scan(
        root,
        entries={**runs, **goldens.entries},
        broken=dict(goldens.broken),
        labels=dict(goldens.labels),
    )
    chosen = resolve_one(name, both, code=2)
    golden = goldens.entries.get(chosen)
    last = lasts.entries.get(chosen) if run is None else _kept_sample(root, chosen, run, 2)
    from ..storage.store import SnapshotStore

    store = SnapshotStore(root)
    if golden is None:
        reason = goldens.broken_for(chosen)
        if reason is not None:
            raise CliError(reason, 2)
        raise CliError(
            f"no golden snapshot {chosen!r} at {store.path_for(chosen)}; its last run is {last.path if last else '?'}. "
            f"Make that run the golden with `agentsnap update {shlex.quote(chosen)}`.",
            2,
        )
    if last is None:
        reason = lasts.broken_for(chosen)
        if reason is not None:
            raise CliError(reason, 2)
        raise CliError(
            f"no last run of {chosen!r} to compare with (looked for {store.last_run_path(chosen)}). "
            f"Run the tests first (`agentsnap run TEST_PATH` or `pytest --agentsnap-instrument`), then `agentsnap diff {shlex.quote(chosen)}`.",
            2,
        )
    settings = settings_or_exit(out, code=2)
    from ..lifecycle import compare

    # judged as the test judged it: its mode (replay also compares the requests), the one-line
    # form's score gate, a block's min_score …
    recorded = last.snapshot.comparison or {}
    kept = recorded.get("options")
    mode = mode_of(last.snapshot)
    report = compare(
        golden.snapshot,
        last.snapshot,
        settings,
        mode=mode,
        overrides=kept if isinstance(kept, dict) else None,
    )
    out.raw(report.render(color=out.color, max_lines=sys.maxsize) + "\n")
    failed_then = [c for c in recorded.get("failed_checks") or [] if isinstance(c, str)]
    drifted = [s for s in last.snapshot.trace if s.get("request_drift")]
    noun = "llm call" if all(s.get("type") == "llm_call" for s in drifted) else "step"
    if drifted:
        out.line("")
        out.line(
            f"[REPLAY] the run was served recordings of other requests for {plural(len(drifted), noun)}:"
        )
        for step in drifted:
            out.line(f"  step {step.get('step')}:")
            for change in step["request_drift"]:
                out.line(f"    {change}")
    if golden.snapshot.output != last.snapshot.output:
        import shutil

        from ._render import side_by_side

        out.line("")
        out.line("[OUTPUT] side by side")
        width = shutil.get_terminal_size((120, 24)).columns
        for row in side_by_side(
            as_text(golden.snapshot.output), as_text(last.snapshot.output), width=width
        ):
            out.line(row)
    out.line("")
    out.line(
        f"golden:   {golden.path}" + ("" if golden.snapshot.approved else " (pending approval)")
    )
    out.line(f"last run: {last.path}" if run is None else f"sample {run}: {last.path}")
    if html is not None:
        from ..html_report import ReportError, entry_for_diff, write_report

        try:
            page = write_report(
                html,
                [entry_for_diff(chosen, golden.snapshot, last.snapshot, report, path=golden.path)],
                meta={"title": f"agentsnap diff {chosen}"},
            )
        except ReportError as exc:
            raise CliError(str(exc), 2) from None
        out.line(f"HTML report written to {page}")
    if report.passed and failed_then:
        out.line(
            f"The test failed on {', '.join(failed_then)} when it ran (judged with its own settings); this comparison passes with today's."
        )
    test_failed = bool(recorded.get("test_failed"))
    if test_failed:
        out.line(
            "The test itself failed in this run (its own assert or an error), so `agentsnap update` never promotes it."
        )
    if run is not None and (not report.passed or failed_then):
        out.line(
            "Reproduce this live sample offline (its recorded traffic, compared with the golden): "
            f"pytest {shlex.quote(chosen)} --agentsnap-replay --agentsnap-replay-run {run}"
        )
        raise typer.Exit(1)
    if not report.passed or failed_then:
        from ..diff.advice import fix_advice

        why, command = fix_advice(chosen, drifted=bool(drifted), test_failed=test_failed)
        out.line(f"{why} {command}")
        raise typer.Exit(1)
