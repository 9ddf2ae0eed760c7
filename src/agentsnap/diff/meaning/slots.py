"""A dropped and an added sentence that stand in the same place: one sentence said again in other words.

Units align by their similarity (:mod:`agentsnap.diff.meaning.verdict`, step 2). Without a model,
that is a character-trigram cosine, so a sentence reworded throughout ("Please keep the damaged
items until the inspection is done" → "Hold on to the damaged belongings until that visit has
happened") finds no counterpart and would read as one sentence dropped and another added.

:func:`restated_pairs` pairs such leftovers when the two stand in the same *slot* — between the
same aligned neighbours, or at the same end of both answers — and share content words; the caller
still reads the pair for a flipped polarity and a changed conclusion, and the facts of both
answers are compared as a whole anyway (step 3), so a restated sentence that changed a number
still fails. A golden sentence that states no fact has nothing else to be found by, so its words
count in any form (:func:`akin`: ``reintentó`` / ``reintento``, ``送料`` / ``返送料``, ``tank`` /
``vollgetankt``), a larger share of them (:data:`AKIN_PART`): two sentences that share a topic's
words and no more ("Siblings get priority" / "children of staff get priority", "reintentó
automáticamente la subida … terminó sin errores" / "tras un reintento automático, la subida volvió
a fallar") are two claims, however alone they stand in their slot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from . import vocabulary as V
from .clues import _concept, _related
from .negations import _NEGATING_PREFIXES
from .units import Unit

__all__ = ["akin", "replaced_pairs", "restated_pairs"]

#: least content words a restated pair shares, and least share of the shorter side's words
SHARED_WORDS = 2
SHARED_PART = 0.25
#: least share of the shorter side's words a pair shares counting words in another form (`akin`)
AKIN_PART = 0.4


def restated_pairs(
    g_partner: Sequence[int | None],
    n_partner: Sequence[int | None],
    g_units: Sequence[Unit],
    n_units: Sequence[Unit],
) -> list[tuple[int, int]]:
    """``(golden index, new index)`` of unaligned units that restate each other (module doc).

    ``g_partner[i]`` is the new unit golden unit ``i`` aligned with (None: unaligned), and
    ``n_partner[j]`` the golden unit new unit ``j`` aligned with. Filler and headings are left
    out; each unit is in at most one pair, the pair sharing the most words first."""
    return _slot_pairs(g_partner, n_partner, g_units, n_units, _shared)


def replaced_pairs(
    g_partner: Sequence[int | None],
    n_partner: Sequence[int | None],
    g_units: Sequence[Unit],
    n_units: Sequence[Unit],
) -> list[tuple[int, int]]:
    """``(golden index, new index)`` of unaligned units in the same slot, whatever words they
    share: one claim put in the place of another ("Order 1044 is delayed at the warehouse" →
    "Order 1044 has shipped" among sentences kept)."""
    return _slot_pairs(g_partner, n_partner, g_units, n_units, lambda g, n: 1)


def _slot_pairs(
    g_partner: Sequence[int | None],
    n_partner: Sequence[int | None],
    g_units: Sequence[Unit],
    n_units: Sequence[Unit],
    shared_words: Callable[[Unit, Unit], int],
) -> list[tuple[int, int]]:
    anchors = sorted((i, j) for i, j in enumerate(g_partner) if j is not None)
    free_n = [
        j
        for j, i in enumerate(n_partner)
        if i is None and j not in {a for _, a in anchors} and _claims(n_units[j])
    ]
    scored: list[tuple[int, int, int]] = []
    for i, partner in enumerate(g_partner):
        if partner is not None or not _claims(g_units[i]):
            continue
        below = [j for a, j in anchors if a < i]
        above = [j for a, j in anchors if a > i]
        low = below[-1] if below else -1
        high = above[0] if above else len(n_units)
        for j in free_n:
            if low < j < high:
                shared = shared_words(g_units[i], n_units[j])
                if shared:
                    scored.append((shared, i, j))
    pairs: list[tuple[int, int]] = []
    used_g: set[int] = set()
    used_n: set[int] = set()
    for _, i, j in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        if i not in used_g and j not in used_n:
            pairs.append((i, j))
            used_g.add(i)
            used_n.add(j)
    return sorted(pairs)


def _claims(unit: Unit) -> bool:
    return not (unit.filler or unit.heading or unit.addressed)


#: a word written in Japanese or Chinese script: a part of two characters is a word of its own
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def akin(a: str, b: str) -> bool:
    """Whether two content words say one thing in two forms: one concept (antonym poles as one),
    one stem or spelling (:func:`~.clues._related`), or one a part of the other's compound
    (``tank`` / ``vollgetankt``, ``負担`` / ``当社負担``), never a word and its negated form
    (``verändert`` / ``unverändert``)."""
    a, b = _concept(a), _concept(b)
    if a == b:
        return True
    if a.startswith("#") or b.startswith("#"):
        return False  # an antonym pair's poles: one concept or none, whatever its name's spelling
    if _related(a, b):
        return True
    short, whole = sorted((a, b), key=len)
    if len(short) < (2 if _CJK.match(short) else 4) or short == whole or short not in whole:
        return False
    head = whole[: whole.index(short)].rstrip("-")
    return head not in _NEGATING_PREFIXES


def _shared(g: Unit, n: Unit) -> int:
    """The content words two units share (antonym poles and stems as one), or 0 when too few;
    a labelled value ("Placement : fosse") restates a sentence that says every word of its value
    ("Votre billet donne accès à la fosse."). A golden unit that states no fact, which nothing
    else would find, is read for its words in any form (compound parts, spellings: :func:`akin`);
    one that states facts is read by them, which the other answer states or not."""
    g_concepts = {_concept(w) for w in g.words}
    n_concepts = {_concept(w) for w in n.words}
    shared = len(g_concepts & n_concepts)
    for unit, other in ((g, n_concepts), (n, g_concepts)):
        value = {_concept(w) for w in V.content_words(unit.text.partition(":")[2])}
        if unit.labelled and value and value <= other and not unit.facts:
            return max(shared, 1)
    least = min(len(g_concepts), len(n_concepts))
    if shared >= SHARED_WORDS and shared >= SHARED_PART * least:
        return shared
    if g.facts:
        return 0
    # words in another form are weaker evidence than the same words: a larger share of them
    akin_shared = min(
        sum(any(akin(a, b) for b in n_concepts) for a in g_concepts),
        sum(any(akin(b, a) for a in g_concepts) for b in n_concepts),
    )
    if akin_shared >= SHARED_WORDS and akin_shared >= AKIN_PART * least:
        return akin_shared
    return 0
