"""Plain-data helpers of the checks' parts of the HTML report: values as one line, percentages, word differences.

Standard library only (no Jinja2): the checks build their part of the page with these.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["change_view", "format_value", "output_text", "pct", "word_diff"]

VALUE_LIMIT = 400
_WORD = re.compile(r"\s+|\d+(?:[.,:/]\d+)*|\w+|[^\w\s]")


def format_value(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A JSON value as one readable line: strings quoted, objects compact; cut with ``…``."""
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def output_text(value: Any) -> str:
    """A final output as text (as the semantic layer sees it): strings as is, others as sorted JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=2)
    except (TypeError, ValueError):
        return repr(value)


def pct(score: Any) -> str:
    """A score as a percentage (``—`` for anything but a number)."""
    if not isinstance(score, (int, float)) or isinstance(score, bool):
        return "—"
    value = float(score) * 100.0
    if abs(value - round(value)) < 1e-6:
        return f"{round(value):d}%"
    return f"{int(value * 10) / 10:.1f}%"


def change_view(change: Mapping[str, Any]) -> dict[str, Any]:
    """One JSON-path change as the page's table row shows it."""
    kind = str(change.get("kind") or "changed")
    return {
        "path": str(change.get("path") or ""),
        "kind": kind,
        "old": "(absent)" if kind == "added" else format_value(change.get("old")),
        "new": "(absent)" if kind == "removed" else format_value(change.get("new")),
        "old_absent": kind == "added",
        "new_absent": kind == "removed",
    }


def word_diff(golden: str, new: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Word-level differences of two texts, for marking.

    Returns ``(golden_parts, new_parts)``, each a list of ``(kind, text)``
    whose texts join to the input: ``kind`` is ``"eq"``, ``"del"`` (only in
    the golden) or ``"ins"`` (only in the new text). Words, runs of
    whitespace and single punctuation marks are the units (difflib's
    SequenceMatcher, no junk heuristic).
    """
    a, b = _WORD.findall(golden), _WORD.findall(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    left: list[tuple[str, str]] = []
    right: list[tuple[str, str]] = []

    def add(parts: list[tuple[str, str]], kind: str, text: str) -> None:
        if not text:
            return
        if parts and parts[-1][0] == kind:
            parts[-1] = (kind, parts[-1][1] + text)
        else:
            parts.append((kind, text))

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            add(left, "eq", "".join(a[i1:i2]))
            add(right, "eq", "".join(b[j1:j2]))
        else:
            add(left, "del", "".join(a[i1:i2]))
            add(right, "ins", "".join(b[j1:j2]))
    return left, right
