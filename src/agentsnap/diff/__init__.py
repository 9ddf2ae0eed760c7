"""Comparison of a new agent run with its golden snapshot.

Three layers, one module each: :mod:`~agentsnap.diff.structural` (tool-name
sequences, Levenshtein distance), :mod:`~agentsnap.diff.arguments` (deep
diffs of tool arguments and request messages) and
:mod:`~agentsnap.diff.semantic` (text similarity scores).
:func:`compute_diff` runs them all and returns a :class:`DiffReport`.
"""

from __future__ import annotations

from ._compare import compute_diff
from .options import DiffConfig
from .report import DiffReport

__all__ = ["DiffConfig", "DiffReport", "compute_diff"]
