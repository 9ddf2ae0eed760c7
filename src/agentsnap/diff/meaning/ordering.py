"""The order an answer states: steps numbered or joined by sequence words keep their order.

A reordered list is harmless when its order says nothing ("Bring your passport, a photo and
the form" = "- the form - a photo - your passport"). An answer that *states* an order says
it with numbers ("1. Stop the service. 2. Delete the cache.") or with sequence words ("first
…, then …", "X, followed by Y", "zuerst … dann", "d'abord … puis", "primero … luego", "まず…次に");
the same steps in another order are then another procedure ("stop the service, then delete
the cache" → "delete the cache, then stop the service") or another ranking ("siblings, followed
by children living nearby" → "1. children living nearby 2. siblings").

:func:`order_changed` reads each stated sequence of one answer against the other answer's
clauses: each item is found where its own words (those no other item of the sequence uses)
stand in the other answer; two items found in the reverse order are steps out of order.
Not when the other answer says the order with a word that turns it around ("install it
*after* you deactivate it", "erst nachdem", "une fois que", "antes de"): then the reverse
place is the same order.
"""

from __future__ import annotations

import functools
import itertools
import re

from . import vocabulary as V

__all__ = ["order_changed", "sequences"]

#: a numbered item at a line's start ("1. ", "2) ", "(3) ")
_NUMBERED = re.compile(r"^\s*\(?(\d{1,2})[.)]\s+(.*\S)")
#: a number that opens an item inside a line ("…workaround: 1. Stop … 2. Delete …")
_INLINE = re.compile(r"(?:^|(?<=[\s:;,.]))\(?(\d{1,2})[.)]\s+")
#: a labelled value ("Price: 40 $", "**Tax:** 8 $")
_LABEL = re.compile(r"^\W*[^:：.!?]{1,40}?\W*[:：]\s")
#: a word that opens the first step of a sentence ("first", "zuerst", "d'abord", "まず")
_FIRST = re.compile(
    r"\b(?:first(?:ly)?|to begin with|zuerst|zunächst|erstens|d'abord|tout d'abord|"
    r"en premier|premièrement|primero|en primer lugar)\b|まず",
    re.IGNORECASE,
)
#: a word that opens the next step ("then", "followed by", "puis", "dann", "luego", "次に")
_THEN = re.compile(
    r"\b(?:then|after that|afterwards|next(?! (?:time|week|month|year|day|visit)\b)|"
    r"finally|lastly|followed by|dann|danach|anschließend|schließlich|gefolgt von|puis|ensuite|"
    r"enfin|suivie?s? (?:de|par)|luego|después(?! de)|a continuación|finalmente|seguid[oa]s? de)\b"
    r"|(?:、)?(?:次に|それから|その後|最後に)",
    re.IGNORECASE,
)
#: the joint a step's text ends with before the next step's sequence word (", and", "; und")
_JOINT = re.compile(r"(?:[,;]?\s*\b(?:and|und|et|y)|[,;、])\s*$", re.IGNORECASE)
#: a sentence that opens with its condition
_CONDITION = re.compile(r"^(?:if|when|unless|wenn|falls|si|lorsque|quand|cuando)\b", re.IGNORECASE)
#: words that say an order against the text's own ("install it after you deactivate it")
_TURNED = re.compile(
    r"\b(?:after(?! that\b)|before|beforehand|once|until|prior to|only when|nachdem|bevor|vorher|"
    r"zuvor|sobald|erst wenn|avant|après(?! cela| ça)|auparavant|une fois|dès que|antes|"
    r"después de|tras|una vez|hasta que)\b|前に|後で|あとで|てから|までに",
    re.IGNORECASE,
)
#: where a clause of the other answer ends
_CLAUSE = re.compile(r"[.!?。！？;:,、\n]|\s(?:and|und|et|y|then|dann|puis|luego)\s", re.IGNORECASE)
#: least share of an item's own words its place in the other answer must hold
_HELD = 0.5


@functools.lru_cache(maxsize=4096)
def _stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words (a long answer's clauses are read more than once)."""
    return frozenset(V._stem(w) for w in V.content_words(text))


#: the sequence words themselves, found in either answer's items
_ORDER_WORDS = frozenset(_stems("first then next finally zuerst dann puis enfin primero luego"))


def _numbered(text: str) -> list[list[str]]:
    """Runs of numbered lines (1., 2., 3. …) and of numbered items inside one line."""
    runs: list[list[str]] = []
    expect = 0
    for line in text.splitlines():
        m = _NUMBERED.match(line)
        if m:
            number = int(m.group(1))
            if number == 1 or number != expect:
                runs.append([])
            if number == 1 or runs[-1] or number == expect:
                runs[-1].append(m.group(2))
            expect = number + 1
            inner = _inline(m.group(2))
            if len(inner) >= 2:
                runs.append(inner)
            continue
        inner = _inline(line)
        if len(inner) >= 2:
            runs.append(inner)
    # "1. Price: 40 $ 2. Tax: 8 $" numbers labelled values, not steps
    return [run for run in runs if len(run) >= 2 and not any(_LABEL.match(i) for i in run)]


def _inline(line: str) -> list[str]:
    """The items of a line that numbers them 1, 2, 3 … in order ("1. Stop it. 2. Delete it.")."""
    marks = [m for m in _INLINE.finditer(line)]
    run: list[re.Match[str]] = []
    for m in marks:
        if int(m.group(1)) == len(run) + 1:
            run.append(m)
    if len(run) < 2:
        return []
    ends = [m.start() for m in run[1:]] + [len(line)]
    return [line[m.end() : end].strip(" .;,") for m, end in zip(run, ends, strict=True)]


def _worded(text: str) -> list[list[str]]:
    """Sentences that join their steps with sequence words ("first A, then B, and finally C")."""
    out: list[list[str]] = []
    if not _THEN.search(text):
        return out
    for sentence in re.split(r"(?<=[.!?。！？])\s*|\n", text):
        if _CONDITION.match(sentence.strip()):
            continue  # "If it fails, then call us": one condition, no steps
        cuts = list(_THEN.finditer(sentence))
        if not cuts:
            continue
        parts, start = [], 0
        for m in cuts:
            parts.append(sentence[start : m.start()])
            start = m.end()
        parts.append(sentence[start:])
        first = _FIRST.search(parts[0])
        # the clause before "first" or a colon sets the scene ("To move it, first deactivate
        # it", "Deploy in this order: run …"); "Schalten Sie zuerst … aus" is the step itself
        cut = max(parts[0].rfind(c, 0, first.start() if first else None) for c in ",:;")
        if cut >= 0:
            parts[0] = parts[0][cut + 1 :]
        # the part before a sequence word ends with its joint (", and then", "; puis", "、次に")
        items = [_JOINT.sub("", p).strip(" ,;:.") for p in parts]
        if len(items) >= 2 and all(V.content_words(p) for p in items):
            out.append(items)
    return out


def sequences(text: str) -> list[list[str]]:
    """The sequences ``text`` states (module doc), each a list of its items' texts."""
    return _numbered(text) + _worded(text)


def _clauses(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, case-folded text)`` of each clause of ``text``."""
    out, start = [], 0
    for m in [*_CLAUSE.finditer(text), None]:
        end = m.start() if m else len(text)
        if text[start:end].strip():
            out.append((start, end, text[start:end].casefold().replace("’", "'")))
        start = m.end() if m else len(text)
    return out


def _place(own: frozenset[str], clauses: list[tuple[int, int, str]]) -> int | None:
    """The one clause holding most of ``own`` (at least :data:`_HELD` of it), None when none
    does or two hold as much. A stem is part of its word, so a clause whose text holds none of
    ``own`` is not read word by word."""
    scores = [len(own & _stems(low)) if any(w in low for w in own) else 0 for _, _, low in clauses]
    best = max(scores, default=0)
    if not own or best == 0 or best < _HELD * len(own) or scores.count(best) > 1:
        return None
    return scores.index(best)


def order_changed(golden: str, new: str) -> tuple[str, str, str] | None:
    """``(label, golden item, new item)`` when a sequence one answer states has two items the
    other answer puts in the reverse order (module doc); None otherwise."""
    for mine, other, flip in ((golden, new, False), (new, golden, True)):
        stated = sequences(mine)
        clauses = _clauses(other) if stated else []  # most answers state no order
        for items in stated:
            # an item is found by its first clause ("deploy the new version, and remove …")
            stems = [_stems(_CLAUSE.split(item)[0]) - _ORDER_WORDS for item in items]
            places: list[tuple[int, int]] = []
            for k, words in enumerate(stems):
                own = words - {w for m, ws in enumerate(stems) if m != k for w in ws}
                at = _place(own, clauses)
                if at is not None:
                    places.append((k, at))
            for (k1, p1), (k2, p2) in itertools.pairwise(places):
                if p1 <= p2:
                    continue
                span = other[clauses[p2][0] : clauses[p1][1]]
                heads = " ".join(_CLAUSE.split(item)[0] for item in items[k1 : k2 + 1])
                if _TURNED.search(span) or _TURNED.search(heads):
                    continue
                first, then = items[k1], items[k2]
                label = f"steps out of order ({first} → after {then})"
                there = f"{other[clauses[p2][0] : clauses[p2][1]].strip()} … {other[clauses[p1][0] : clauses[p1][1]].strip()}"
                said = f"{first} … {then}"
                return (label, there, said) if flip else (label, said, there)
    return None
