"""The typer application: one function per ``agentsnap`` command, thin over the helpers.

Exit codes shared by every command: 0 success; 1 a failure the message
explains (no snapshot matched, ambiguous prefix, unreadable file, refused
overwrite or deletion); 2 a usage error (bad or missing options). ``diff``
follows ``diff(1)``: 1 means "they differ", 2 "could not compare". ``record``
and ``run`` exit with the child command's code (127: command not found, 126:
not executable).
"""

import functools
import shlex
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from ..exceptions import SnapshotFormatError
from . import _output
from ._catalog import Scan, last_run_root, load_settings, resolve_one, scan, snapshot_dir
from ._errors import CliError
from ._output import Column, Output, age, plural
from ._render import snapshot_lines

__all__ = ["app", "main"]

_REST = "agentsnap.rest"
_CREATE_HINT = "Create them by running your tests with `pytest --agentsnap-instrument` (or `agentsnap record TEST_PATH`)."

app = typer.Typer(
    name="agentsnap",
    help=(
        "Review and manage agentsnap snapshots: the recorded LLM and tool calls of your agents.\n\n"
        "Every command takes --dir PATH; by default it uses the folder pytest uses "
        "(snapshot_dir of [tool.agentsnap] in the nearest pyproject.toml, relative to it).\n\n"
        "Exit codes: 0 ok, 1 failed (the message says why and what to run), 2 usage error; "
        "see each command's --help."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class _PassthroughCommand(TyperCommand):
    """A command that keeps everything after a bare ``--`` aside, unparsed.

    The words after ``--`` are stored in ``ctx.meta["agentsnap.rest"]`` (None
    when there was no ``--``), so ``record -- CMD`` can tell a command from
    test paths.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta[_REST] = list(args[cut + 1 :])
            args = list(args[:cut])
        else:
            ctx.meta[_REST] = None
        try:
            return super().parse_args(ctx, args)
        except Exception as exc:
            if type(exc).__name__ == "NoSuchOption" and isinstance(
                getattr(exc, "message", None), str
            ):
                exc.message += f" (options for pytest or the command go after --, e.g. agentsnap {self.name} tests/ -- -k paris)"  # type: ignore[attr-defined]
            raise


def _command(
    name: str, *, passthrough: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a command; a :class:`CliError` it raises prints ``error: …`` and exits with its code."""

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except CliError as exc:
                Output().error(exc.message)
                raise typer.Exit(exc.code) from None
            except (
                SnapshotFormatError
            ) as exc:  # a file agentsnap refuses (corrupt, invalid, a symlink): one line, exit 2
                message = str(exc)
                Output().error(
                    message[len("agentsnap: ") :] if message.startswith("agentsnap: ") else message
                )
                raise typer.Exit(2) from None

        extra: dict[str, Any] = {"cls": _PassthroughCommand} if passthrough else {}
        app.command(name, **extra)(wrapper)
        return func

    return register


def _version(value: bool) -> None:
    if value:
        from .._version import __version__

        typer.echo(f"agentsnap {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool | None,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = None,
) -> None:
    """Review and manage agentsnap snapshots."""


DirOption = Annotated[
    Path | None,
    typer.Option(
        "--dir",
        metavar="PATH",
        file_okay=False,
        help=(
            "Snapshot folder. Default: the one pytest uses — snapshot_dir of [tool.agentsnap] "
            "in the nearest pyproject.toml (relative to that file; AGENTSNAP_SNAPSHOT_DIR wins), "
            "else ./__agent_snapshots__."
        ),
        show_default=False,
    ),
]
NamesArgument = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="NAME", help="Full name, unique prefix, or glob (quote it).", show_default=False
    ),
]


def _root_dir(option: Path | None, out: Output, code: int = 1) -> Path:
    try:
        return snapshot_dir(option, out.warn)
    except CliError as exc:
        raise CliError(exc.message, code) from None


def _warn_broken(out: Output, found: Scan) -> None:
    for reason in found.broken.values():
        out.warn(reason)


def _is_file_argument(value: str) -> bool:
    return value.endswith(".json") and Path(value).is_file()


def _read_file(value: str, code: int) -> Any:
    from ..exceptions import SnapshotFormatError
    from ..storage.store import SnapshotStore

    path = Path(value).absolute()
    try:
        snap = SnapshotStore.read_file(path)
    except SnapshotFormatError as exc:
        raise CliError(str(exc), code) from None
    snap.name = snap.name or path.stem
    return snap, path


def _print_snapshot(out: Output, snap: Any, path: Path) -> None:
    for text, style in snapshot_lines(snap, path):
        out.line(text, style)


# ---------------------------------------------------------------------------- list
@_command("list")
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
    is unknown. Names are never shortened.

    \b
    Exit codes:
      0  listed (also when there are no snapshots)
      1  a snapshot file is unreadable (it is listed, and the warning says
         why), or the pyproject.toml holds a bad agentsnap setting
    """
    out = Output()
    root = _root_dir(dir, out)
    found = scan(root)
    _warn_broken(out, found)
    entries = [found.entries[n] for n in found.names]
    if not entries and not found.broken:
        out.line(f"No snapshots in {root}. {_CREATE_HINT}")
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
                [name, "unreadable", "-", "-", "-", _file_age(path)],
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
    out.note(f"{plural(len(entries), 'snapshot')}, {n_pending} pending{unreadable}, in {root}")
    if found.broken:
        raise typer.Exit(1)


def _file_age(path: Path) -> str:
    """:func:`age` of a file's last change (its own, not a link target's); ``?`` when it is gone."""
    from datetime import datetime, timezone

    try:
        changed = path.lstat().st_mtime
    except OSError:
        return "?"
    return age(datetime.fromtimestamp(changed, timezone.utc).isoformat())


# ---------------------------------------------------------------------------- show
@_command("show")
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
) -> None:
    """Show one snapshot in full: metadata, then every trace step.

    llm_call steps show model, response and the tool calls the model asked
    for; tool_call steps show tool name, arguments and result. --json prints
    the raw file instead.

    \b
    Exit codes:
      0  shown
      1  no snapshot matches NAME, NAME matches several, or the file is unreadable
    """
    out = Output()
    if _is_file_argument(name):
        snap, path = _read_file(name, 1)
    else:
        root = _root_dir(dir, out)
        found = scan(root)
        entry = found.entries[resolve_one(name, found)]
        snap, path = entry.snapshot, entry.path
    if as_json:
        out.raw(path.read_text(encoding="utf-8"))
        return
    _print_snapshot(out, snap, path)


# ---------------------------------------------------------------------------- diff
@_command("diff")
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
) -> None:
    """Compare a snapshot's golden with its latest run (.last_run/).

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
    if _is_file_argument(name):
        if html is not None:
            raise CliError(
                "--html compares a golden with its last run: give a snapshot NAME, not a FILE.json",
                2,
            )
        snap, path = _read_file(name, 2)
        _print_snapshot(out, snap, path)
        return
    root = _root_dir(dir, out, code=2)
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
    last = lasts.entries.get(chosen)
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
    settings = _settings(out, code=2)
    from ..lifecycle import compare

    # judged as the test judged it: its mode (replay also compares the requests), the one-line
    # form's score gate, a block's min_score …
    recorded = last.snapshot.comparison or {}
    kept = recorded.get("options")
    mode = _mode_of(last.snapshot)
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
    if drifted:
        out.line("")
        out.line(
            f"[REPLAY] the run was served recordings of other requests for {plural(len(drifted), 'llm call')}:"
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
            _as_text(golden.snapshot.output), _as_text(last.snapshot.output), width=width
        ):
            out.line(row)
    out.line("")
    out.line(
        f"golden:   {golden.path}" + ("" if golden.snapshot.approved else " (pending approval)")
    )
    out.line(f"last run: {last.path}")
    if html is not None:
        from ..report import ReportError, entry_for_diff, write_report

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
    if not report.passed or failed_then:
        from ..lifecycle import fix_advice

        why, command = fix_advice(chosen, drifted=bool(drifted), test_failed=test_failed)
        out.line(f"{why} {command}")
        raise typer.Exit(1)


def _mode_of(last: Any) -> str:
    """The mode a last run ran in (stored since this version; older files: replay when requests drifted)."""
    recorded = last.comparison or {}
    mode = recorded.get("mode")
    if mode in ("live", "replay", "record"):
        return str(mode)
    if "llm_requests" in (recorded.get("failed_checks") or []) or any(
        s.get("request_drift") for s in last.trace
    ):
        return "replay"
    return "live"


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2)


def _settings(out: Output, code: int) -> Any:
    try:
        return load_settings(out.warn)
    except CliError as exc:
        raise CliError(exc.message, code) from None


# ---------------------------------------------------------------------------- approve
@_command("approve")
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
    steps, age of the recording). All or nothing: when one NAME fails, nothing
    is approved.

    \b
    Exit codes:
      0  approved (or nothing pending, with --all)
      1  a NAME matched nothing, a prefix is ambiguous (the candidates are
         listed), or a file is unreadable; nothing was approved
      2  neither NAME nor --all given
    """
    if bool(names) == all_pending:
        ctx.fail("give one or more NAMEs, or --all (not both)")
    from ._review import apply_approve, plan_approve

    out = Output()
    root = _root_dir(dir, out)
    goldens = scan(root)
    if all_pending:
        _warn_broken(out, goldens)
    todo, already = plan_approve(goldens, names or [], all_pending)
    if all_pending and not todo:
        out.line(f"Nothing to approve: no pending snapshots in {root}.")
        return
    rows = [[e.name, str(len(e.snapshot.trace)), age(e.snapshot.updated_at)] for e in todo]
    for e in todo:
        out.note(f"approving {e.name} ({e.path})")
    apply_approve(root, todo)
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


# ---------------------------------------------------------------------------- update
@_command("update")
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
    all or nothing.

    \b
    Exit codes:
      0  promoted (or nothing to promote, with --all)
      1  no last run for a NAME (run the tests first), no match, ambiguous
         prefix, or an unreadable file (--force replaces an unreadable
         golden); nothing was changed
      2  neither NAME nor --all given
    """
    if bool(names) == all_changed:
        ctx.fail("give one or more NAMEs, or --all (not both)")
    from ._review import RUN_TESTS, apply_update, plan_update

    out = Output()
    root = _root_dir(dir, out)
    plan = plan_update(root, names or [], all_changed, force=force)
    if all_changed:
        _warn_broken(out, scan(last_run_root(root)))
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
    apply_update(root, plan, force=force)
    for item in plan:
        before = "-" if item.steps_before is None else str(item.steps_before)
        verb = "created" if item.golden is None else "updated"
        changed = "yes" if item.output_changed else "no"
        out.line(
            f"{verb} {item.last.name}: steps {before} → {item.steps_after}, output changed: {changed}"
        )
    out.note(f"Review with `git diff {root}` and commit.")


# ---------------------------------------------------------------------------- rm
@_command("rm")
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

    NAME matching as in approve; all or nothing. The golden file and its
    latest run in .last_run/ are deleted, so `agentsnap update` (--all
    included) cannot bring the snapshot back; a committed golden comes back
    with git.

    \b
    Exit codes:
      0  deleted
      1  no match, ambiguous prefix, unreadable file, answered no, or no
         terminal to ask on and no --yes; nothing was deleted
      2  no NAME given
    """
    from ._review import apply_remove, last_runs_of, plan_remove

    out = Output()
    root = _root_dir(dir, out)
    targets = plan_remove(scan(root), names)
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
    if not yes and not typer.confirm("Delete them?", default=False):
        raise CliError("answered no; nothing was deleted.")
    runs = apply_remove(targets)
    for t, kept in zip(targets, runs, strict=True):
        also = "".join(f" and its last run ({path})" for path in kept)
        out.line(
            f"deleted {t.name} ({t.path}){also}"
            if t.readable
            else f"deleted unreadable file {t.path} ({t.name}){also}"
        )


# ---------------------------------------------------------------------------- prune
@_command("prune")
def prune(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list the orphans.")] = False,
    dir: DirOption = None,
) -> None:
    """Delete orphaned snapshots (and their last runs): goldens no test produces any more.

    Orphans come only from the last full, unfiltered, failure-free pytest run
    (no -k/-m, deselection, --ignore or narrower paths), which records them in
    .last_run/run.json; a filtered or failing run is refused, never guessed from.

    \b
    Exit codes:
      0  deleted (or nothing to delete, or --dry-run)
      1  no usable run record, answered no, or no terminal to ask on and no --yes
    """
    from ..storage.orphans import read_run_record

    out = Output()
    root = _root_dir(dir, out)
    record_ = read_run_record(root)
    if record_ is None:
        raise CliError(
            f"no run record in {root / '.last_run'}: run the whole test suite once (`pytest`), then `agentsnap prune`."
        )
    if not record_.get("full_run"):
        why = record_.get("not_full_because") or "it was not a full run"
        raise CliError(
            f"the last pytest run cannot tell orphans apart from filtered tests: {why}. Run the whole suite with no filters, then `agentsnap prune`."
        )
    found = scan(root)
    orphans = [n for n in record_.get("orphans") or [] if n in found.entries]
    if not orphans:
        out.line(
            f"No orphaned snapshots in {root} (last full run: {record_.get('finished_at', '?')})."
        )
        return
    out.line(
        f"{plural(len(orphans), 'orphaned snapshot')} in {root} (last full run: {record_.get('finished_at', '?')}):"
    )
    for name in orphans:
        out.line(f"  {name}  ({found.entries[name].path.name})")
    if dry_run:
        return
    if not yes:
        if not _output.stdin_is_interactive():
            raise CliError(
                "refusing to delete without confirmation: stdin is not a terminal. Nothing was deleted. Pass --yes: `agentsnap prune --yes`."
            )
        if not typer.confirm("Delete them?", default=False):
            raise CliError("answered no; nothing was deleted.")
    from ._review import apply_remove

    apply_remove([found.entries[n] for n in orphans])
    out.line(f"deleted {plural(len(orphans), 'snapshot')}.")


# ---------------------------------------------------------------------------- record
class TraceFormat(str, Enum):
    """``--format`` of ``record --from-trace``."""

    auto = "auto"
    openai = "openai"
    anthropic = "anthropic"
    gemini = "gemini"


@_command("record", passthrough=True)
def record(
    ctx: typer.Context,
    test_paths: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="TEST_PATH",
            help="Run pytest on these paths with --agentsnap-record.",
            show_default=False,
        ),
    ] = None,
    update: Annotated[
        bool,
        typer.Option(
            "--update",
            help="Accepted for compatibility: recording always re-records and approves. With --from-trace: overwrite an existing snapshot (approved).",
        ),
    ] = False,
    from_trace: Annotated[
        Path | None,
        typer.Option(
            "--from-trace",
            metavar="FILE",
            exists=True,
            dir_okay=False,
            help="Seed a pending snapshot from a saved OpenAI chat-completions JSON.",
        ),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name", metavar="NAME", help="Snapshot name for --from-trace (e.g. a pytest node id)."
        ),
    ] = None,
    fmt: Annotated[
        TraceFormat, typer.Option("--format", help="Trace format for --from-trace.")
    ] = TraceFormat.auto,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Overwrite snapshot files that cannot be read (corrupt, merge conflict, other version or name): "
            "with --from-trace --update, that file; otherwise passed to pytest as --agentsnap-force.",
        ),
    ] = False,
    dir: DirOption = None,
) -> None:
    """Record goldens: run tests or a command with recording on, or seed one from a trace.

    \b
    agentsnap record -- CMD...
        run CMD (e.g. pytest tests/ -k paris) with AGENTSNAP_MODE=record
        in its environment
    agentsnap record TEST_PATH... [-- PYTEST_ARGS...]
        shortcut for: python -m pytest TEST_PATH... --agentsnap-record PYTEST_ARGS...
    agentsnap record --from-trace FILE --name NAME [--format auto|openai] [--update]
        seed snapshot NAME (pending, source "trace") from a saved OpenAI
        chat.completion object, a list of them, or {"messages": [...]}

    Recording calls the real APIs and overwrites the goldens it touches,
    marked approved: review the changes (git diff) before committing. In
    those two forms --update changes nothing (recording always re-records and
    approves; the flag is accepted for compatibility). With --from-trace, --update
    overwrites an existing snapshot and approves it. --dir is passed to the
    child as AGENTSNAP_SNAPSHOT_DIR.

    \b
    Exit codes, -- CMD and TEST_PATH forms: the command's own
      127  command not found      126  not executable
    Exit codes, --from-trace:
      0  seeded
      1  the snapshot exists (pass --update to overwrite it), or the trace
         is unreadable or in no recognised shape; nothing was written
      2  usage error: no --name, FILE does not exist
    Exit code 2 also when there is nothing to run.
    """
    rest = ctx.meta.get(_REST)
    out = Output()
    if from_trace is not None:
        if test_paths or rest is not None:
            ctx.fail("--from-trace FILE takes no TEST_PATH and no -- CMD")
        if not name:
            ctx.fail(
                "--from-trace FILE needs --name NAME (the snapshot name, e.g. a pytest node id)"
            )
        _seed_from_trace(out, from_trace, name, fmt.value, update, dir, force=force)
        return
    if name is not None or fmt is not TraceFormat.auto:
        ctx.fail("--name and --format go with --from-trace FILE only")
    if force and not test_paths:
        ctx.fail(
            "--force goes with TEST_PATH... or --from-trace FILE (with -- CMD, give pytest --agentsnap-force yourself)"
        )
    if test_paths:
        from ._subprocess import pytest_command

        cmd = pytest_command(
            test_paths,
            "--agentsnap-record",
            [*(["--agentsnap-force"] if force else []), *(rest or [])],
        )
    elif rest:
        cmd = rest
    else:
        ctx.fail(
            "nothing to record: give TEST_PATH..., -- CMD..., or --from-trace FILE --name NAME"
        )
    _run(out, cmd, record=True, dir=dir)


def _seed_from_trace(
    out: Output,
    trace: Path,
    name: str,
    fmt: str,
    update: bool,
    dir: Path | None,
    *,
    force: bool = False,
) -> None:
    from ..exceptions import SnapshotFormatError
    from ..lifecycle import build_snapshot
    from ..storage.store import SnapshotStore
    from ._trace_import import TraceError, read_trace

    root = _root_dir(dir, out)
    store = SnapshotStore(root)
    target = store.path_for(name)
    if target.exists() and not update:
        raise CliError(
            f"snapshot {name!r} already exists at {target}; nothing was written. "
            f"Pass --update to overwrite it (the new snapshot is approved), or choose another --name."
        )
    try:
        steps, first_input, output = read_trace(trace, fmt)
    except TraceError as exc:
        raise CliError(str(exc)) from None
    snap = build_snapshot(name, steps, output=output, input=first_input, source="trace")
    snap.approved = update
    try:
        path = store.save(snap, force=force)
    except SnapshotFormatError as exc:
        raise CliError(f"{exc} Not overwritten by --update; add --force to overwrite it.") from None
    n_llm = sum(1 for s in steps if s["type"] == "llm_call")
    summary = f"{plural(len(steps), 'step')} ({n_llm} llm_call, {len(steps) - n_llm} tool_call)"
    if update:
        out.line(f"Recorded snapshot {name!r} from {trace}: {summary}, approved -> {path}")
    else:
        out.line(f"Seeded pending snapshot {name!r} from {trace}: {summary} -> {path}")
        out.note(
            f"Review it with `agentsnap show {shlex.quote(name)}`, then `agentsnap approve {shlex.quote(name)}`."
        )


def _run(out: Output, cmd: list[str], *, record: bool, dir: Path | None) -> None:
    from ._subprocess import EXIT_NOT_EXECUTABLE, EXIT_NOT_FOUND, child_env, describe, run_child

    env = child_env(record=record, snapshot_dir=dir.absolute() if dir is not None else None)
    if record:
        out.note(
            f"agentsnap: running `{describe(cmd)}` with AGENTSNAP_MODE=record (goldens are overwritten and approved)"
        )
    try:
        code = run_child(cmd, env)
    except FileNotFoundError:
        raise CliError(
            f"command not found: {cmd[0]!r} (in `{describe(cmd)}`). Check the spelling or give its full path.",
            EXIT_NOT_FOUND,
        ) from None
    except PermissionError:
        raise CliError(
            f"cannot execute {cmd[0]!r} (in `{describe(cmd)}`): permission denied.",
            EXIT_NOT_EXECUTABLE,
        ) from None
    raise typer.Exit(code)


# ---------------------------------------------------------------------------- run
@_command("run", passthrough=True)
def run(
    ctx: typer.Context,
    test_paths: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="TEST_PATH",
            help="Test files or folders (pytest's defaults when none).",
            show_default=False,
        ),
    ] = None,
    dir: DirOption = None,
) -> None:
    """Run tests in assert mode: python -m pytest TEST_PATH... --agentsnap-instrument.

    Words after -- go to pytest (agentsnap run tests/ -- -k paris -x). Every
    test that calls an LLM is compared with its approved snapshot; each run
    is saved under .last_run/ for agentsnap diff / update. An inherited
    AGENTSNAP_MODE=record or AGENTSNAP_RECORD is dropped, so this never
    re-records.

    \b
    Exit codes: pytest's own
      0  all passed        1  tests failed (drift)   2  interrupted
      4  usage error       5  no tests collected
    """
    rest = ctx.meta.get(_REST) or []
    from ._subprocess import pytest_command

    _run(
        Output(),
        pytest_command(test_paths or [], "--agentsnap-instrument", rest),
        record=False,
        dir=dir,
    )


# ---------------------------------------------------------------------------- schema
@_command("schema")
def schema() -> None:
    """Print the JSON Schema of a snapshot file (draft 2020-12).

    Generated from the installed agentsnap, so it is the schema its loader
    checks: point an editor at it, or validate goldens with other tools
    (agentsnap schema > snapshot.schema.json).
    """
    from ..storage.schema import schema_text

    typer.echo(schema_text(), nl=False)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the app on ``argv`` (default ``sys.argv[1:]``) and exit."""
    app(args=argv, prog_name="agentsnap")
