"""The option an answer chooses: the same facts, another choice is another answer.

An answer that compares options ("Flex costs 15 € a visit, the subscription 49 € a month") and
then picks one ("so the subscription is cheaper", "**Recommendation:** the daily pass") states
its conclusion by the option it names. The other answer may keep every price and say the
comparison in a table, in other words, in another order; it must still pick the same option.

:func:`choice_changed` reads each answer so: its *options* are the words that name one priced
(or dated, or counted) thing each — a word standing in one clause with a value, and in no other
such clause — and that both answers use; its *choice* is the options named in the last clause
that carries a cue of choice (a comparative of cost or worth, a recommendation: ``cheaper``,
``better``, ``best``, ``recommend``, ``günstiger``, ``lohnt sich``, ``moins cher``, ``mieux``,
``más barato``, ``conviene``, ``安い``, ``おすすめ``). Two choices with no option in common are a
changed conclusion. An option called by another word, or a choice said with no cue, is not read.
"""

from __future__ import annotations

import functools
import re

from . import vocabulary as V
from .units import Unit

__all__ = ["choice_changed"]

#: a cue of choice: a comparative of cost or worth, a recommendation
_CUE = re.compile(
    r"\b(?:cheaper|cheapest|less expensive|better|best|better value|recommend\w*|go with|"
    r"worth it|pays off|the way to go|"
    r"günstiger|billiger|am günstigsten|besser|lohnt sich|empfehl\w*|"
    r"moins cher|moins chère|le plus avantageux|plus avantageux|plus intéressant|mieux|"
    r"meilleur\w*|recommand\w*|conseill\w*|"
    r"más barat[oa]|mejor|conviene|sale a cuenta|recomend\w*)\b|安い|お得|おすすめ|推奨",
    re.IGNORECASE,
)
#: where one clause ends and the next begins
_CLAUSE = re.compile(
    r"[,;]\s*|\s+(?:so|and|while|whereas|but|so that|und|während|aber|et|"
    r"alors que|mais|así que|y|pero|mientras)\s+|[、。；]",
    re.IGNORECASE,
)
_VALUE_KINDS = frozenset({"number", "date", "time", "weekday"})
#: a cue in a condition chooses nothing ("if you need the faster one, Pro is better")
_CONDITION = re.compile(r"^\W*(?:if|unless|wenn|falls|si|cuando)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def _stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words (a long answer's clauses are read more than once)."""
    return frozenset(V._stem(w) for w in V.content_words(text))


def _read(units: list[Unit]) -> tuple[list[frozenset[str]], str | None]:
    """The word stems of each clause with a value, and the last clause with a cue of choice."""
    valued: list[frozenset[str]] = []
    choice: str | None = None
    for unit in units:
        if unit.heading or unit.filler:
            continue
        start = 0
        text = unit.text
        row = unit.labelled and ";" in text  # a table row is one clause
        for m in [*([] if row else _CLAUSE.finditer(text)), None]:
            end = m.start() if m else len(text)
            part = text[start:end]
            start = m.end() if m else len(text)
            if not part.strip():
                continue
            if _CUE.search(part) and not _CONDITION.match(part):
                label, colon, value = part.partition(":")
                # "Recommendation: the daily pass": the choice is the label's value
                choice = value if colon and not _stems(_CUE.sub(" ", label)) else part
            elif any(f.kind in _VALUE_KINDS and f.surface in part for f in unit.facts):
                valued.append(_stems(part))
    return valued, choice


def _options(valued: list[frozenset[str]]) -> set[str]:
    """Words that stand in one valued clause only."""
    seen: dict[str, int] = {}
    for words in valued:
        for w in words:
            seen[w] = seen.get(w, 0) + 1
    return {w for w, k in seen.items() if k == 1}


def choice_changed(g_units: list[Unit], n_units: list[Unit]) -> tuple[str, str, str] | None:
    """``(label, golden choice, new choice)`` when the two answers choose options with none in
    common (module doc); None otherwise."""
    if not (
        any(_CUE.search(u.text) for u in g_units) and any(_CUE.search(u.text) for u in n_units)
    ):
        return None
    g_valued, g_choice = _read(g_units)
    n_valued, n_choice = _read(n_units)
    if g_choice is None or n_choice is None or len(g_valued) < 2 or len(n_valued) < 2:
        return None
    options = _options(g_valued) & _options(n_valued)
    g_picked = _stems(g_choice) & options
    n_picked = _stems(n_choice) & options
    if not g_picked or not n_picked or g_picked & n_picked:
        return None
    was, now = " ".join(sorted(g_picked)), " ".join(sorted(n_picked))
    return f"conclusion changed: another option chosen ({was} → {now})", g_choice, n_choice
