"""The default semantic check: do two answers state the same facts, steps and conclusions?

A sentence embedding cannot tell "arrives at 10:30" from "arrives at 11:30"
(cosine 0.97) while a harmless rerun that rewords everything scores 0.7–0.9,
so no single cosine threshold separates drift from rewording (issue 16). This
module compares the two texts *piece by piece* instead:

1. **Units.** Each text is split into sentences and list items
   (:func:`split_units`): Markdown is stripped (headings, emphasis, bullets,
   numbered markers, table pipes, code fences), sentences end at ``.!?`` +
   space, ``。！？`` and line breaks. A list item, or a sentence opened by a
   sequence word (``First``/``Then``/``Finally``, ``zuerst``/``dann``,
   ``d'abord``/``ensuite``, ``まず``/``次に``), is a *step*.
2. **Alignment.** Every golden unit is compared with every new unit; the
   similarity is the larger of the MiniLM cosine (when a model backend is
   installed: ``onnx``, ``sentence-transformers`` or a user ``embed_fn``) and
   a character-trigram cosine (always; language-independent, so German,
   French and Japanese align too; a unit whose trigram match already reaches
   :data:`STRONG` is not embedded). Units at least :data:`ALIGN` alike are
   matched one to one, greatest similarity first (:mod:`.merges`), so a line
   put in the place of another claim cannot hide behind a line another one
   matches; a leftover links to the unit that says it (a sentence split in
   two still aligns with its one golden sentence); linked units form groups. No unit aligned at all,
   no fact shared and little vocabulary shared: a different answer (harmful);
   one side empty or ``null``: harmful too.
3. **Facts.** Numbers with units, times, dates, weekdays, versions and names
   (:mod:`agentsnap.diff.meaning.facts`) of the whole golden text must each be stated
   by the new text and vice versa, with normalised formats (``10:30`` =
   ``10.30 am``, ``1,000`` = ``1000``, ``$40`` = ``40 dollars``).
4. **Per aligned group**: polarity (negations plus the negative pole of
   antonym pairs, by parity: "no open issues" = "all issues are closed"),
   a *swap* of two names or nouns (``Alice pays Bob`` → ``Bob pays Alice``;
   not when they are items of one enumeration, not when a passive ``by``/
   ``von``/``par`` appears), and a *one-word edit* — a nearly identical
   sentence in which one content word was replaced by another (``train`` →
   ``bus``), unless the model rates the two words as synonyms (cosine ≥
   :data:`SYNONYM`).
5. **Coverage.** A golden step with no counterpart is a dropped step; a golden
   sentence with no counterpart whose content words are mostly absent from
   the new text is dropped content; a new sentence with no counterpart that
   brings two or more content words the golden text never used is an added
   claim, unless the two stand in the same place and share content words
   (:mod:`agentsnap.diff.meaning.slots`): then they are one sentence restated,
   read for polarity and conclusion like an aligned pair. Courtesy and narration (``Sure!``, ``Let me know if…``, ``Gerne!``,
   ``N'hésitez pas…``, ``ご不明な点があれば…``) is harmless either way.

Two JSON objects or arrays are compared leaf by leaf instead (key order,
layout and ``1000`` vs ``1000.0`` do not matter; any changed, missing or
added leaf is harmful).

Each difference is a :class:`Finding` with a severity:

* ``"harmful"`` — a changed, missing or added fact, a flipped polarity, a
  swapped role, a replaced word, a dropped step;
* ``"soft"`` — dropped content or an added claim without a fact of its own;
* ``"harmless"`` — rewording, added courtesy, a reordered list, formatting.

The **score** (1.0 only for identical text) comes from the worst severity
and the alignment quality ``q`` in [0, 1] (mean best similarity of the units
of both texts, rescaled from [0.5, 1]):

* formatting only (same text once Markdown, case and punctuation are
  dropped): ``0.99``;
* only harmless findings: ``0.93 + 0.06 q`` — passes the default
  ``semantic_threshold`` 0.92; at 0.97 only close rewordings pass;
* a soft finding: ``0.80 + 0.08 q`` — fails 0.92, passes ``llm_threshold``
  0.75 and a creative agent's 0.75;
* a harmful finding: ``0.40 + 0.20 q`` — fails every threshold above 0.6.

Cost: a few regular expressions per sentence, one embedding call per pair for
all units (and one more for replaced words), a units × units matrix.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from . import facts as F
from . import vocabulary as V
from .choices import choice_changed
from .findings import Finding, Verdict, pair_message
from .json_answers import json_leaves, json_verdict
from .omissions import member_dropped
from .ordering import order_changed
from .phrasing import month_end_words
from .reading import ALIGN, Reading
from .units import (
    _STEP_POINTER,
    Unit,
    _dot,
    _fill,
    _normalise_rows,
    _trigram_matrix,
    split_units,
)

__all__ = [
    "ALIGN",
    "SYNONYM",
    "Finding",
    "Unit",
    "Verdict",
    "compare",
    "compare_many",
    "split_units",
]

#: trigram cosine above which a unit is aligned by its characters alone and not embedded (0.9 and 0.75
#: gave the same dev-set verdicts at 2-3x the model time on 500-word answers)
STRONG = 0.6
#: least MiniLM cosine of two replaced words for them to count as synonyms
SYNONYM = 0.72

#: a batch encoder: texts -> L2-normalised vectors (rows), or None for no model
Encoder = Callable[[list[str]], Any]


def compare(golden: str, new: str, encoder: Encoder | None = None) -> Verdict:
    """The :class:`Verdict` for one golden/new pair (module doc). ``encoder``: texts -> normalised vectors, or None.

    Identical strings give ``Verdict(1.0, [])`` without calling the encoder.
    Never raises for any pair of strings; whatever ``encoder`` raises propagates.
    """
    return compare_many([(golden, new)], encoder)[0]


def compare_many(pairs: Sequence[tuple[str, str]], encoder: Encoder | None = None) -> list[Verdict]:
    """:func:`compare` for many pairs, with one encoder call for every unit of every pair (plus one for replaced words)."""
    prepared: list[
        tuple[str, str, list[Unit], list[Unit], list[list[float]], list[int], list[int]]
        | Verdict
        | None
    ] = []
    texts: dict[str, int] = {}
    for golden, new in pairs:
        if golden == new:
            prepared.append(None)
            continue
        g_json, n_json = json_leaves(golden), json_leaves(new)
        if g_json is not None and n_json is not None:
            prepared.append(json_verdict(g_json, n_json))
            continue
        g_units, n_units = split_units(golden), split_units(new)
        known = F.mid_capitals("\n".join(u.text for u in g_units)) | F.mid_capitals(
            "\n".join(u.text for u in n_units)
        )
        german = V.detect_german(golden) or V.detect_german(new)
        cache: dict[str, Unit] = {}
        # a pointer to a step ("walk you through step 1") is a fact only where both answers point
        pointers = all(_STEP_POINTER.search(text) for text in (golden, new))
        _fill(g_units, known, german, cache, pointers)
        _fill(n_units, known, german, cache, pointers)
        # Japanese by character bigrams when no model reads it (units.py)
        sims = _trigram_matrix(g_units, n_units, cjk_bigrams=encoder is None)
        # the model is asked only about units without a near-verbatim counterpart (STRONG)
        g_need = [i for i, row in enumerate(sims) if not row or max(row) < STRONG]
        n_need = [
            j for j in range(len(n_units)) if max((row[j] for row in sims), default=0.0) < STRONG
        ]
        if encoder is not None and g_need and n_need:
            for unit in [g_units[i] for i in g_need] + [n_units[j] for j in n_need]:
                texts.setdefault(unit.text, len(texts))
        prepared.append((golden, new, g_units, n_units, sims, g_need, n_need))
    vectors: Any = None
    if encoder is not None and texts:
        vectors = _normalise_rows(encoder(list(texts)))
    # first pass: alignment and findings that need no second encoder call
    states: list[Reading | Verdict | None] = []
    words_needed: dict[str, int] = {}
    for item in prepared:
        if item is None or isinstance(item, Verdict):
            states.append(item)
            continue
        golden, new, g_units, n_units, sims, g_need, n_need = item
        if vectors is not None and g_need and n_need:
            emb = _dot(
                [vectors[texts[g_units[i].text]] for i in g_need],
                [vectors[texts[n_units[j].text]] for j in n_need],
            )
            for a_row, i in enumerate(g_need):
                for b_col, j in enumerate(n_need):
                    sims[i][j] = max(sims[i][j], float(emb[a_row][b_col]))
        pair_state = Reading(golden, new, g_units, n_units, sims)
        pair_state.run()
        _claims(pair_state, golden, new)
        for a, b in pair_state.replaced:
            words_needed.setdefault(a, len(words_needed))
            words_needed.setdefault(b, len(words_needed))
        states.append(pair_state)
    word_vectors: Any = None
    if encoder is not None and words_needed:
        word_vectors = _normalise_rows(encoder(list(words_needed)))
    out: list[Verdict] = []
    for entry in states:
        if entry is None:
            out.append(Verdict(1.0, []))
            continue
        if isinstance(entry, Verdict):
            out.append(entry)
            continue
        state = entry
        for (a, b), (g, n) in zip(state.replaced, state.replaced_units, strict=True):
            synonym = False
            if word_vectors is not None:
                u, v = word_vectors[words_needed[a]], word_vectors[words_needed[b]]
                synonym = (
                    math.fsum(float(x) * float(y) for x, y in zip(u, v, strict=True)) >= SYNONYM
                )
            if not synonym and {a.casefold(), b.casefold()} & (
                month_end_words(g) | month_end_words(n)
            ):  # "bis zum 31. Oktober" → "bis Ende Oktober": the date is read as a fact
                state.add(
                    "rewording",
                    "harmless",
                    g,
                    n,
                    pair_message(f"reworded ({a} → {b}, a month's end as its last day)", g, n),
                )
            elif synonym:
                state.add(
                    "rewording",
                    "harmless",
                    g,
                    n,
                    pair_message(f"reworded ({a} → {b}, judged a synonym)", g, n),
                )
            else:
                state.add("word", "harmful", g, n, pair_message(f"word changed ({a} → {b})", g, n))
        out.append(state.verdict())
    return out


def _claims(state: Reading, golden: str, new: str) -> None:
    """What the answers claim beyond their sentences one by one, read once ``state`` has found
    nothing harmful: an order stated (:mod:`.ordering`), the option chosen (:mod:`.choices`), a
    member of a list left out (:mod:`.omissions`)."""
    if any(f.severity == "harmful" for f in state.findings):
        return
    changed = order_changed(golden, new)
    if changed is not None:
        state.flag("step", "harmful", *changed)
        return
    chose = choice_changed(state.g, state.n)
    if chose is not None:
        state.flag("conclusion", "harmful", *chose)
        return
    dropped = member_dropped(state.g, new, [best >= ALIGN for best in state.g_best])
    if dropped is not None:
        state.flag("dropped", "soft", f"part of a list dropped ({dropped[0]})", dropped[1], "")
