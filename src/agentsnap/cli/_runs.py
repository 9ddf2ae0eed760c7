"""The commands that run tests: ``record`` (re-record goldens) and ``run``."""

from __future__ import annotations

import shlex
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..exceptions import SnapshotFormatError
from ._command import REST, DirOption, command
from ._errors import CliError
from ._output import Output, plural
from ._shared import root_dir


# ---------------------------------------------------------------------------- record
class TraceFormat(str, Enum):
    """``--format`` of ``record --from-trace``."""

    auto = "auto"
    openai = "openai"
    anthropic = "anthropic"
    gemini = "gemini"


@command("record", passthrough=True)
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
    rest = ctx.meta.get(REST)
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
    from ..lifecycle import build_snapshot
    from ..storage.store import SnapshotStore
    from ._trace_import import TraceError, read_trace

    root = root_dir(dir, out)
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
        if isinstance(exc.__cause__, OSError):  # the folder refused the write: not the file's fault
            raise CliError(str(exc)) from None
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
@command("run", passthrough=True)
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
    rest = ctx.meta.get(REST) or []
    from ._subprocess import pytest_command

    _run(
        Output(),
        pytest_command(test_paths or [], "--agentsnap-instrument", rest),
        record=False,
        dir=dir,
    )
