"""Text-report helpers shared by :class:`~agentsnap.diff.DiffReport` and the checks' renderers.

Standard library only; nothing here knows a check.
"""

from __future__ import annotations

import math
import reprlib
from typing import Any

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
RED = "\x1b[31m"
GREEN = "\x1b[32m"
YELLOW = "\x1b[33m"
CYAN = "\x1b[36m"

VALUE_WIDTH = 60
SEQ_WIDTH = 160
EXCERPT_WIDTH = 100
EXCERPT_CONTEXT = 20

#: the prefix agentsnap 0.5.1 gave the text checks in ``failed_checks`` (``semantic:output``)
SEMANTIC_PREFIX = "semantic:"

_repr = reprlib.Repr()
_repr.maxstring = 4 * VALUE_WIDTH  # reprlib elides in the middle; the cut below keeps the start
_repr.maxother = 4 * VALUE_WIDTH
_repr.maxlist = _repr.maxdict = _repr.maxtuple = _repr.maxset = 8
_repr.maxlevel = 3
_repr.fillvalue = "…"  # type: ignore[attr-defined]  # Python 3.11+; 3.10 elides with "..."

# every character str.splitlines() breaks on, shown escaped inside a report line
ESCAPE_LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}


def check_key(name: str) -> str:
    """A ``failed_checks`` entry without 0.5.1's ``semantic:`` prefix: the key of
    ``semantic_scores`` / ``details["semantic"]`` (``"semantic:output"`` → ``"output"``)."""
    return name[len(SEMANTIC_PREFIX) :] if name.startswith(SEMANTIC_PREFIX) else name


def pct(score: float) -> str:
    """Score as a percentage: ``100%``, ``92%``, ``83.3%`` (rounded down, never up)."""
    value = score * 100.0
    if abs(value - round(value)) < 1e-6:
        return f"{round(value):d}%"
    floored = math.floor(value * 10) / 10
    return f"{floored:.1f}%"


def short(value: Any, width: int = VALUE_WIDTH) -> str:
    """``repr`` of a value, cut to about ``width`` characters with an ellipsis."""
    text = _repr.repr(value)
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text


def _common_prefix_length(a: str, b: str) -> int:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


def excerpts(golden: str, new: str) -> tuple[str, str]:
    """Short excerpts of two texts, starting a little before their first difference."""
    common = _common_prefix_length(golden, new)
    start = common - EXCERPT_CONTEXT if common > EXCERPT_CONTEXT else 0

    def cut(text: str) -> str:
        piece = text[start : start + EXCERPT_WIDTH]
        return ("…" if start else "") + piece + ("…" if start + EXCERPT_WIDTH < len(text) else "")

    return cut(golden), cut(new)


def changed_pair(old: Any, new: Any) -> tuple[str, str]:
    """Both sides of a changed value, shortened. Two long strings are shown from a little
    before their first difference (a changed tool result deep in a long prompt would
    otherwise print as two identical beginnings)."""
    if (
        isinstance(old, str)
        and isinstance(new, str)
        and old != new
        and max(len(repr(old)), len(repr(new))) > VALUE_WIDTH
    ):
        old, new = excerpts(old, new)
    return short(old), short(new)


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def seq(names: list[str]) -> str:
    return short(list(names), SEQ_WIDTH)


def paint(text: str, code: str, color: bool) -> str:
    return f"{code}{text}{RESET}" if color else text
