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

from . import facts as F
from .clues import _coverage
from .units import Unit

__all__ = ["links", "merged_pairs"]

#: least share of a leftover unit's content words its most similar counterpart uses, to link
LINK_COVER = 0.6
#: least share of the leftover unit's content words the joined counterpart uses
MERGE_COVER = 0.4
#: least content words of the joined counterpart that only the leftover unit explains
MERGE_GAIN = 2


def links(
    sims: Sequence[Sequence[float]], g_units: Sequence[Unit], n_units: Sequence[Unit], least: float
) -> tuple[list[int | None], list[int | None], set[tuple[int, int]]]:
    """Each unit's counterpart, one to one: ``(golden links, new links, matched pairs)``.

    Pairs at least ``least`` similar are matched greatest first, each unit once (headings,
    header rows and filler aside: they link to the unit most like them), so a golden
    sentence is covered by one new sentence and a new sentence replacing another claim of a
    templated answer ("Order 1044 is delayed" → "Order 1044 has shipped" among "Order 1043 has
    shipped" …) does not hide behind a sentence another one already matches. A unit left over
    still links to its most similar counterpart where that counterpart says it and the unit
    matched with that counterpart does not (:data:`LINK_COVER` of its content words, and every
    fact: a sentence merged into or split off another one)."""
    ranked = sorted(
        (-sims[i][j], i, j)
        for i in range(len(g_units))
        for j in range(len(n_units))
        if sims[i][j] >= least
    )
    g_link: list[int | None] = [None] * len(g_units)
    n_link: list[int | None] = [None] * len(n_units)
    matched: set[tuple[int, int]] = set()
    for _, i, j in ranked:
        if g_link[i] is None and n_link[j] is None:
            g_link[i], n_link[j] = j, i
            matched.add((i, j))
    for own, other, link, other_link, rows in (
        (g_units, n_units, g_link, n_link, sims),
        (n_units, g_units, n_link, g_link, [list(col) for col in zip(*sims, strict=False)]),
    ):
        for k, unit in enumerate(own):
            if link[k] is not None or not rows or not rows[k]:
                continue
            best = max(range(len(rows[k])), key=lambda m: rows[k][m])
            sibling = other_link[best]  # the unit of ``own`` matched with ``best``
            if rows[k][best] < least:
                continue
            if not _claims(unit):
                link[k] = best  # a heading or a table's header row labels what it is like
            elif sibling is None or not _echoes(unit, own[sibling], facts=False):
                link[k] = best  # merged into or split off ``best``, unlike ``best``'s match
            elif (
                # a line like ``best``'s match (a templated answer's) links only where ``best``
                # says it, every fact too, and it is about another thing than that match
                _coverage(unit.words, set(other[best].words)) >= LINK_COVER
                and not _echoes(unit, own[sibling])
                and all(any(F.facts_match(f, o) for o in other[best].facts) for f in unit.facts)
            ):
                link[k] = best
    return g_link, n_link, matched


def _claims(unit: Unit) -> bool:
    """Whether ``unit`` says something: no heading, header row or filler."""
    return not (unit.heading or unit.filler)


def _echoes(unit: Unit, sibling: Unit, *, facts: bool = True) -> bool:
    """Whether ``unit`` says nothing ``sibling`` does not: its content words (0.6) and, with
    ``facts``, its facts."""
    return _coverage(unit.words, set(sibling.words)) >= LINK_COVER and (
        not facts or all(any(F.facts_match(f, o) for o in sibling.facts) for f in unit.facts)
    )


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
