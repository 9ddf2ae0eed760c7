"""What the meaning check reports: a :class:`Finding` per difference, the :class:`Verdict` of a
pair, and the one-line messages that quote both sides (unprintable characters escaped)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["KIND_LABEL", "Finding", "Verdict", "pair_message"]


class Finding(NamedTuple):
    """One difference between the golden and the new text.

    ``kind``: ``number``, ``time``, ``date``, ``weekday``, ``version``,
    ``name``, ``polarity``, ``swap``, ``word``, ``step``, ``dropped``,
    ``added``, ``reordered``, ``courtesy``, ``rewording`` or ``format``.
    ``severity``: ``"harmful"``, ``"soft"`` or ``"harmless"``. ``golden`` /
    ``new``: the sentence on each side (``""`` when there is none).
    ``message``: one line for reports, e.g. ``numbers differ: golden:
    "arrives at 10:30" → new: "arrives at 11:30"``.
    """

    kind: str
    severity: str
    golden: str
    new: str
    message: str


@dataclass
class Verdict:
    """The result for one pair: ``score`` in [0, 1] and the ``findings`` that explain it."""

    score: float
    findings: list[Finding]

    @property
    def severity(self) -> str:
        """The worst severity found: ``harmful``, ``soft``, ``harmless`` or ``"none"``."""
        for level in ("harmful", "soft", "harmless"):
            if any(f.severity == level for f in self.findings):
                return level
        return "none"

    def reasons(self) -> list[str]:
        """The messages of the findings, worst first."""
        rank = {"harmful": 0, "soft": 1, "harmless": 2}
        return [f.message for f in sorted(self.findings, key=lambda f: rank[f.severity])]


def _printable(text: str) -> str:
    """Control and other unprintable characters as escapes, so a finding never carries raw terminal codes."""
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text
    )


def _quote(text: str, width: int = 120) -> str:
    text = text if len(text) <= width else text[: width - 1] + "…"
    return f'"{_printable(text)}"'


def pair_message(label: str, g: str, n: str) -> str:
    label = _printable(label)
    left = f"golden: {_quote(g)}" if g else "golden: (nothing)"
    right = f"new: {_quote(n)}" if n else "new: (nothing)"
    return f"{label}: {left} → {right}"


#: how a fact kind is named in a finding's message
KIND_LABEL = {
    "number": "numbers differ",
    "time": "times differ",
    "date": "dates differ",
    "weekday": "weekdays differ",
    "version": "versions differ",
    "name": "names differ",
    "year": "years differ",
}
