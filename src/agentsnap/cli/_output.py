"""Terminal output of the CLI: plain text for pipes, rich tables and colour for a terminal.

Rules:

* rich tables and colour only when stdout is a TTY, ``NO_COLOR`` is unset (or
  empty, as https://no-color.org says) and ``TERM`` is not ``dumb``; otherwise
  plain text with no escape sequence;
* plain tables are columns padded with two spaces, never cut: a column is as
  wide as its widest cell of at most :data:`PLAIN_CELL_MAX` characters; a
  longer cell (a 400-character parametrised node id) is written whole and only
  its own row's later cells move right, so every other row stays as narrow as
  before and each row is still one line of whitespace-separated fields; rich
  tables fold long names onto the next line instead of eliding them;
* results go to stdout; warnings, errors and notes about what is about to
  happen go to stderr.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any, Literal

import typer

_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with each lone surrogate (from a JSON ``\\ud800`` escape; no terminal encoding
    can write one) shown as that escape."""
    if not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


__all__ = [
    "PLAIN_CELL_MAX",
    "Column",
    "Output",
    "age",
    "one_line",
    "plural",
    "printable",
    "stdin_is_interactive",
    "stdout_is_tty",
]

#: the widest cell a plain table pads its column to (module doc)
PLAIN_CELL_MAX = 80

#: how a column's cells align (rich's ``justify`` values)
Justify = Literal["default", "left", "center", "right", "full"]


def stdout_is_tty() -> bool:
    """Whether stdout is a terminal (looked up at call time: tests swap ``sys.stdout``)."""
    try:
        return bool(sys.stdout.isatty())
    except (AttributeError, ValueError):
        return False


def stdin_is_interactive() -> bool:
    """Whether a confirmation prompt can be answered (stdin is a terminal)."""
    try:
        return bool(sys.stdin.isatty())
    except (AttributeError, ValueError):
        return False


def _colour_allowed() -> bool:
    return not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def one_line(text: str) -> str:
    """``text`` with line breaks folded into spaces (for one-line warnings)."""
    return " ".join(text.split("\n")).strip()


def plural(count: int, word: str) -> str:
    """``1 snapshot``, ``2 snapshots``."""
    return f"{count} {word}" + ("" if count == 1 else "s")


def _strip_prefix(message: str) -> str:
    # library messages start with "agentsnap: "; the CLI adds its own "error:" / "warning:"
    return message[len("agentsnap: ") :] if message.startswith("agentsnap: ") else message


def age(timestamp: str, now: datetime | None = None) -> str:
    """How long ago an ISO-8601 ``timestamp`` was: ``45s``, ``12m``, ``5h``, ``3d``.

    Whole units, rounded down; a timestamp in the future reads ``0s``; one
    without a zone is taken as UTC; an unparseable one reads ``?``.
    """
    try:
        then = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except (AttributeError, TypeError, ValueError):
        return "?"
    if then.tzinfo is None:
        then = then.replace(tzinfo=timezone.utc)
    seconds = int(((now or datetime.now(timezone.utc)) - then).total_seconds())
    seconds = max(seconds, 0)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


class Column:
    """One table column: header text, alignment (``left``/``right``), rich style."""

    def __init__(self, header: str, *, justify: Justify = "left", style: str | None = None) -> None:
        self.header = header
        self.justify = justify
        self.style = style


class Output:
    """Where a command writes. ``fancy`` (rich) is decided once, when the command starts."""

    def __init__(self, fancy: bool | None = None) -> None:
        self.fancy = (stdout_is_tty() and _colour_allowed()) if fancy is None else fancy
        self._console: Any = None

    @property
    def color(self) -> bool:
        """Whether ANSI colour may be written to stdout."""
        return self.fancy

    def _rich(self) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=sys.stdout, force_terminal=True, highlight=False)
        return self._console

    # -- stdout -------------------------------------------------------------
    def line(self, text: str = "", style: str | None = None) -> None:
        """One line of result text (``style``: a rich style, used only on a terminal)."""
        if self.fancy:
            from rich.text import Text

            self._rich().print(Text(printable(text), style=style or ""), soft_wrap=True)
        else:
            typer.echo(printable(text))

    def raw(self, text: str) -> None:
        """Text written as is (no styling, no added newline beyond ``text``'s own)."""
        sys.stdout.write(printable(text))
        sys.stdout.flush()

    def table(
        self,
        columns: Sequence[Column],
        rows: Sequence[Sequence[str]],
        *,
        styles: Sequence[Sequence[str | None]] | None = None,
    ) -> None:
        """A table: rich on a terminal, padded plain columns otherwise; no cell is ever cut (a
        plain column is padded to :data:`PLAIN_CELL_MAX` characters at most: module doc).

        ``styles``: optional per-cell rich styles, same shape as ``rows``.
        """
        if self.fancy:
            from rich import box
            from rich.table import Table
            from rich.text import Text

            table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
            for col in columns:
                table.add_column(
                    col.header, justify=col.justify, style=col.style, overflow="fold", no_wrap=False
                )
            for r, row in enumerate(rows):
                cells = []
                for c, cell in enumerate(row):
                    style = styles[r][c] if styles is not None else None
                    cells.append(Text(printable(cell), style=style or ""))
                table.add_row(*cells)
            self._rich().print(table)
            return
        headers = [c.header for c in columns]
        widths = [
            max([len(headers[i]), *(len(r[i]) for r in rows if len(r[i]) <= PLAIN_CELL_MAX)])
            for i in range(len(columns))
        ]
        for line in [headers, *rows]:
            parts = []
            for i, text in enumerate(line):
                last = i == len(line) - 1
                if columns[i].justify == "right":
                    parts.append(text.rjust(widths[i]))
                else:
                    parts.append(text if last else text.ljust(widths[i]))
            typer.echo(printable("  ".join(parts).rstrip()))

    # -- stderr -------------------------------------------------------------
    def note(self, text: str) -> None:
        """A remark about what happens next (stderr, so stdout stays the result)."""
        typer.echo(printable(text), err=True)

    def warn(self, message: str) -> None:
        """``warning: MESSAGE`` on stderr, folded into one line."""
        typer.echo(
            self._label("warning", "yellow") + printable(one_line(_strip_prefix(message))), err=True
        )

    def error(self, message: str) -> None:
        """``error: MESSAGE`` on stderr (may span lines: candidate lists)."""
        typer.echo(
            self._label("error", "red") + printable(_strip_prefix(message).rstrip()), err=True
        )

    def _label(self, word: str, colour: str) -> str:
        try:
            tty = bool(sys.stderr.isatty())
        except (AttributeError, ValueError):
            tty = False
        if tty and _colour_allowed():
            return typer.style(f"{word}:", fg=colour, bold=True) + " "
        return f"{word}: "
