"""The ``agentsnap`` typer app and how a command joins it: :func:`command`.

A command is a function decorated with ``@command("name")`` in a ``cli/_*.py``
module that ``cli/_app.py`` imports. A :class:`~agentsnap.cli._errors.CliError` it
raises prints ``error: MESSAGE`` (no traceback) and exits with its code; a snapshot
file agentsnap refuses prints one line and exits 2. The options several commands
take (``--dir``, snapshot names) are declared here once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from ..exceptions import SnapshotFormatError
from ._errors import CliError
from ._output import Output

__all__ = ["REST", "DirOption", "NamesArgument", "app", "command", "make_app"]

REST = "agentsnap.rest"


def make_app() -> typer.Typer:
    """A typer app configured as ``agentsnap``'s (name, help, ``--version``, no completion,
    no pretty tracebacks); :data:`app` is the one the console command runs."""
    new = typer.Typer(
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
    new.callback()(_root)
    return new


class _PassthroughCommand(TyperCommand):
    """A command that keeps everything after a bare ``--`` aside, unparsed.

    The words after ``--`` are stored in ``ctx.meta["agentsnap.rest"]`` (None
    when there was no ``--``), so ``record -- CMD`` can tell a command from
    test paths.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if "--" in args:
            cut = args.index("--")
            ctx.meta[REST] = list(args[cut + 1 :])
            args = list(args[:cut])
        else:
            ctx.meta[REST] = None
        try:
            return super().parse_args(ctx, args)
        except Exception as exc:
            if type(exc).__name__ == "NoSuchOption" and isinstance(
                getattr(exc, "message", None), str
            ):
                exc.message += f" (options for pytest or the command go after --, e.g. agentsnap {self.name} tests/ -- -k paris)"  # type: ignore[attr-defined]
            raise


def command(
    name: str, *, passthrough: bool = False, on: typer.Typer | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a command; a :class:`CliError` it raises prints ``error: …`` and exits with its code."""

    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: object, **kwargs: object) -> Any:
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
        (on if on is not None else app).command(name, **extra)(wrapper)
        return func

    return register


def _version(value: bool) -> None:
    if value:
        from .._version import __version__

        typer.echo(f"agentsnap {__version__}")
        raise typer.Exit()


def _root(
    version: Annotated[
        bool | None,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = None,
) -> None:
    """Review and manage agentsnap snapshots."""


app = make_app()


def _folder(value: str) -> Path:
    """``--dir``'s value: an empty one (``--dir "$UNSET"``) is a usage error, never the current folder."""
    if not value.strip():
        raise typer.BadParameter(
            f'{value!r} is empty; give the snapshot folder ("." for this one).'
        )
    if Path(value).is_file():  # (what click's file_okay=False said)
        raise typer.BadParameter(f"{value!r} is a file, not a folder.")
    return Path(value)


DirOption = Annotated[
    Path | None,
    typer.Option(
        "--dir",
        metavar="PATH",
        parser=_folder,
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
