"""Two sentences of one answer said as one sentence of the other (merged), or one said as two (split).

A paraphrase joins sentences ("The transfer was submitted at 16:40, after the 15:00 cut-off. It is
therefore booked today." → "As the transfer came in at 16:40, after the cut-off, it is booked
today") or cuts one in two. The joined sentence aligns with one of the two it joins (step 2 of
:mod:`agentsnap.diff.meaning.verdict`); the other finds no counterpart of its own and would read
as a dropped sentence (or, cut in two, an added claim).

:func:`merged_pairs` finds such a leftover unit next to a unit whose counterpart says it too: the
counterpart covers a good part of the leftover's content words, and those words explain a part of
the counterpart its own partner does not. A sentence replaced by another claim finds no such
counterpart (its neighbour's counterpart says nothing more than the neighbour), so it still
reads as dropped and added. The caller reads the merged units as one group for polarity.
"""

from __future__ import annotations

from collections.abc import Sequence

from .clues import _coverage
from .units import Unit

__all__ = ["merged_pairs"]

#: least share of the leftover unit's content words the joined counterpart uses
MERGE_COVER = 0.4
#: least content words of the joined counterpart that only the leftover unit explains
MERGE_GAIN = 2


def merged_pairs(
    own: Sequence[Unit], other: Sequence[Unit], partner: Sequence[int | None]
) -> dict[int, tuple[int, int]]:
    """``{leftover index: (neighbour index, counterpart index)}`` for units of ``own`` without a
    counterpart (``partner[i]`` is None) whose neighbour's counterpart in ``other`` says them too
    (module doc). Call it with the golden units first for merges, the new units first for splits."""
    out: dict[int, tuple[int, int]] = {}
    for i, unit in enumerate(own):
        if partner[i] is not None or not unit.words or unit.filler or unit.heading:
            continue
        best: tuple[float, int, int] | None = None
        for k in (i - 1, i + 1):
            j = partner[k] if 0 <= k < len(own) else None
            if j is None:
                continue
            joined = other[j].words
            said = _coverage(unit.words, set(joined))
            if said < MERGE_COVER:
                continue
            before = _coverage(joined, set(own[k].words))
            after = _coverage(joined, set(own[k].words) | set(unit.words))
            gain = round((after - before) * len(joined))
            if gain >= MERGE_GAIN and (best is None or said > best[0]):
                best = (said, k, j)
        if best is not None:
            out[i] = best[1:]
    return out
