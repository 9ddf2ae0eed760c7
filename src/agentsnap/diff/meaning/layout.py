"""What the layout of a reformatted answer says, read as a reader reads it.

The same answer is often given once as prose and once as a table, a list or
``label: value`` lines. Each rule here states what a layout means, so the
facts and steps of the two forms are compared and not their shapes:

* **Initials stand for their words** (:func:`by_initials`): ``PT`` for
  ``personal-training``, ``CfP`` for ``Call for Papers``, ``HC`` for
  ``hors charges``.
* **A count is the rows it counts** (:func:`rows_counted`): "We offer three
  plans" beside a table of three rows, each named by the prose.
* **A value written the same way is the same value** (:func:`same_written`):
  ``9 h`` under a table's ``Heure`` header is the ``9 h`` the prose says
  at (a cell has no "at" to make it a time).
* **A label is no name** (:func:`label_names`): ``Date/time: …`` is two label
  words, not a path; a unit word after a number (``12 Monaten``) is the
  number's, not a name.
* **Steps said as one sentence** (:func:`joined_step`): a numbered step whose
  own words are in a sentence of the other answer that also says other
  steps ("…pick the medication, then choose the store…") is there.
* **A middle dot separates like a line break** (:func:`separate`):
  ``Fee: £115 · Decision time: 3 weeks`` is two labelled values; a label's
  colon is followed by its value (``出発時刻：14:50``).
* **A label names its value** (:func:`labelled_values`): ``Price: 40 $`` and a
  table row by its first cell, for values swapped between labels.
* **A label line's value said in prose is there** (:func:`value_said`):
  ``**Status:** Shipped`` beside "Your parcel has shipped"; ``**Due:** none``
  beside "nothing is due"; a value that only denies (:func:`denied_value`,
  ``Minimum term: none``) is a negation prose must say.
* **"Only" one member denies it to the others** (:func:`other_than_only`): the
  row ``Compact | … | No`` under "Free child seat" is what "only the SUV
  includes a child seat" says of the compact.

It reads units through :class:`Piece` (what :class:`~.units.Unit` has), so it
imports only the fact and vocabulary layers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from . import facts as F
from . import vocabulary as V

__all__ = [
    "by_initials",
    "denied_value",
    "joined_step",
    "label_names",
    "labelled_values",
    "other_than_only",
    "rows_counted",
    "same_written",
    "separate",
    "topic_untold",
    "value_said",
]


class Piece(Protocol):
    """The parts of a unit the layout rules read."""

    text: str
    step: bool
    labelled: bool
    heading: bool
    words: list[str]


class Valued(Piece, Protocol):
    """A unit with its facts: what :func:`labelled_values` reads."""

    facts: list[F.Fact]


# --------------------------------------------------------------------------- initials

#: an abbreviation by initials: 2-5 letters, at least two of them capitals ("PT", "CfP", "HC")
_ACRONYM = re.compile(r"(?<![\w-])(?=(?:[^\W\d_]*[A-Z]){2})[A-Za-z]{2,5}(?![\w-])")
_LETTER_WORD = re.compile(r"[^\W\d_]+")


def _windows(text: str, size: int) -> list[tuple[list[str], str]]:
    """Runs of ``size`` consecutive words of ``text`` (a hyphen joins two words) and their initials."""
    words = _LETTER_WORD.findall(text)
    return [
        (words[k : k + size], "".join(w[0] for w in words[k : k + size]).casefold())
        for k in range(len(words) - size + 1)
    ]


def _spelled(acronym: str, text: str) -> list[list[str]]:
    """The runs of words of ``text`` whose initials spell ``acronym``, first and last a content word."""
    key = acronym.casefold()
    return [
        run
        for run, initials in _windows(text, len(acronym))
        if initials == key
        and run[0].casefold() not in V.STOPWORDS
        and run[-1].casefold() not in V.STOPWORDS
    ]


def by_initials(fact: F.Fact, text: str, other: str) -> bool:
    """Name ``fact`` of ``text`` is said by initials in ``other``, or is the initials of words
    ``other`` writes out: ``PT`` / "personal-training", "Call for Papers" / ``CfP``."""
    if fact.kind != "name":
        return False
    surface = fact.surface
    if _ACRONYM.fullmatch(surface) and _spelled(surface, other):
        return True
    for match in _ACRONYM.finditer(other):
        for run in _spelled(match.group(0), text):
            if surface in run:
                return True
    return False


# --------------------------------------------------------------------------- counts and rows


def _row_blocks(units: Sequence[Piece]) -> list[list[str]]:
    """The first cells of each table's data rows, a table a block of consecutive rows."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for unit in units:
        if unit.labelled and not unit.heading and "; " in unit.text:
            current.append(unit.text.split("; ", 1)[0])
            continue
        if current:
            blocks.append(current)
        current = []
    if current:
        blocks.append(current)
    return blocks


def rows_counted(fact: F.Fact, others: Sequence[Piece], text: str) -> bool:
    """A count of ``text`` ("three plans") that the ``others`` lay out as a table of as many
    rows, each row's first cell named by ``text``: the count is the table's, and the rows are
    compared fact by fact."""
    value = fact.key[0] if fact.kind == "number" and fact.key[1:] == ("",) else None
    if not isinstance(value, float) or not value.is_integer() or not 2 <= value <= 12:
        return False
    words = {V._stem(w) for w in V.content_words(text)}
    for block in _row_blocks(others):
        if len(block) != value:
            continue
        named = [{V._stem(w) for w in V.content_words(cell)} for cell in block]
        if all(own and own <= words for own in named):
            return True
    return False


def _data_row(unit: Piece) -> bool:
    return unit.labelled and not unit.heading and "; " in unit.text


def topic_untold(fact: F.Fact, own: Sequence[Valued], k: int, others: Sequence[Valued]) -> bool:
    """A name or a bare number that opens the first sentence of ``own`` with facts, the topic
    every value after it is of ("The next train from Leeds to York leaves at 07:42 from platform
    3", "Bus 42 runs every 12 minutes"), left untold where ``others`` lay those values out as a
    table: the table's rows are the topic's, as the question named it. Every fact of the sentence
    the table does not state stands before all it does, two at least; an answer that names
    another topic in its place still differs by that name."""
    if fact.kind != "name" and not (fact.kind == "number" and fact.key[1:] == ("",)):
        return False
    if any(_data_row(u) for u in own) or sum(_data_row(u) for u in others) < 2:
        return False
    if k != next((m for m, u in enumerate(own) if u.facts), None):
        return False
    told = [o for u in others for o in u.facts]
    unit = own[k]
    said = [f for f in unit.facts if any(F.facts_match(f, o) for o in told)]
    untold = [f for f in unit.facts if f not in said]
    if len(said) < 2 or fact not in untold:
        return False
    # where each is written ("weekdays" reads as Mon–Fri, written nowhere as such)
    first = min((at for f in said if (at := unit.text.find(f.surface)) >= 0), default=-1)
    return all(0 <= unit.text.find(f.surface) < first for f in untold)


# --------------------------------------------------------------------------- values and labels


def same_written(fact: F.Fact, others: Sequence[F.Fact]) -> bool:
    """A time and a number written alike (``9 h`` in a table cell, "à 9 h" in prose): its
    context made one a duration and the other a clock time; the words are the same."""
    if fact.kind not in ("time", "number"):
        return False
    bare = fact.surface.replace(" ", "").casefold()
    return any(
        o.kind in ("time", "number")
        and o.kind != fact.kind
        and o.surface.replace(" ", "").casefold() == bare
        for o in others
    )


#: two or three label words joined by slashes at a line's start ("Date/time:", "Größe/Gewicht:")
_LABEL_PAIR = re.compile(r"^[^\W\d_]+(?:/[^\W\d_]+){1,2}(?=\s?:)")


def label_names(text: str, found: list[F.Fact]) -> list[F.Fact]:
    """``found`` without the names a label or a unit makes: the slash-joined words of a label
    (``Date/time:``), and a unit word after a number or a time (``12 Monaten``: the number's
    unit; ``10 Uhr``: the time's, in a sentence not read as German)."""
    pair = _LABEL_PAIR.match(text)
    units = [f.surface for f in found if f.kind in ("number", "time")]  # "10 Uhr": the time's
    return [
        f
        for f in found
        if f.kind != "name"
        or not (
            (pair and f.surface == pair.group(0))
            or any(u != f.surface and u.endswith(" " + f.surface) for u in units)
        )
    ]


#: a middle dot between two labelled values, and a label's colon run into its value
_MIDDLE_DOT = re.compile(r"\s+[·•]\s+(?=[^\W\d_][^:]{0,40}:\s)")
_RUN_IN_COLON = re.compile(r"(?<=[\u3040-\u30ff\u4e00-\u9fff]):(?=\d)")


def separate(line: str) -> list[str]:
    """A line cut where a middle dot separates two labelled values, as a line break would;
    a label's colon run into its value spaced ("時刻:14:50" → "時刻: 14:50")."""
    return [_RUN_IN_COLON.sub(": ", part) for part in _MIDDLE_DOT.split(line)]


# --------------------------------------------------------------------------- steps


def _own(units: Sequence[Piece], k: int) -> set[str]:
    """The content words of step ``k`` that no other step of ``units`` uses."""
    others = {w for m, u in enumerate(units) if m != k and u.step for w in u.words}
    return {w for w in units[k].words if w not in others}


def joined_step(units: Sequence[Piece], k: int, others: Sequence[Piece]) -> int | None:
    """The sentence of ``others`` that says step ``k`` of ``units`` and another step of
    ``units`` too (steps joined into prose): at least half of the step's words and half of the
    words no other step has are in it. None when ``k`` is no step or no such sentence says it."""
    step = units[k]
    if not step.step:
        return None
    own = _own(units, k)
    if not own:
        return None
    for at, sentence in enumerate(others):
        words = set(sentence.words)
        if 2 * len(own & words) < len(own) or 2 * len(set(step.words) & words) < len(
            set(step.words)
        ):
            continue
        for m, unit in enumerate(units):
            if m == k or not unit.step:
                continue
            theirs = _own(units, m)
            if theirs and 2 * len(theirs & words) >= len(theirs):
                return at
    return None


# --------------------------------------------------------------------------- labelled values


def labelled_values(units: Sequence[Valued]) -> dict[frozenset[str], tuple[str, list[F.Fact]]]:
    """``{label's word stems: (the unit's text, the facts of its value)}`` for each labelled unit
    ("Price: 40 $"; a table row "EU; 4 M" by its first cell) whose label no other unit has."""
    found: dict[frozenset[str], tuple[str, list[F.Fact]]] = {}
    twice: set[frozenset[str]] = set()
    for unit in units:
        if not unit.labelled or unit.heading:
            continue
        text = unit.text
        label, sep, _ = text.partition(":")
        if not sep or len(V.tokens(label)) > 5:
            label, sep, _ = text.partition(";")  # a table row: its first cell
        if not sep:
            continue
        key = frozenset(V._stem(w) for w in V.tokens(label) if w not in V.STOPWORDS)
        # the unit's own facts, by where they stand: after the label, or in it
        placed = [(text.find(f.surface), f) for f in unit.facts if f.kind in _VALUE_KINDS]
        facts = [f for at, f in placed if at > len(label)]
        if not key or len(facts) < len(placed):
            continue
        if key in found:
            twice.add(key)
        found[key] = (text, facts)
    return {k: v for k, v in found.items() if k not in twice}


_VALUE_KINDS = frozenset({"number", "date", "time", "weekday"})


#: a restriction to one member ("only the SUV", "nur Linux", "seulement le mardi", "SUVのみ")
_ONLY = re.compile(
    r"\b(?:only|nur|seulement|uniquement|solo|sólo|solamente|únicamente)\b|のみ|だけ", re.IGNORECASE
)


def other_than_only(row: str, sentence: str) -> bool:
    """A table ``row`` about a member the ``sentence`` does not name, where the sentence restricts
    what it says to a member of its own ("only the SUV includes a child seat" beside the row
    "Compact; …; not free child seat"): what the sentence grants one, it denies the others, so
    the row's opposite polarity is what the sentence says of it."""
    if not _ONLY.search(sentence):
        return False
    subject = {V._stem(w) for w in V.content_words(row.partition(";")[0])}
    said = {V._stem(w) for w in V.content_words(sentence)}
    return bool(subject) and not subject & said


#: a value that only denies: "none", "no", "keine", "aucun", "ninguna", "なし"
_DENIAL = re.compile(r"(?:none|no|nein|keine?|aucune?|non|ningun[oa]|ningún|nada|なし)\.?", re.I)


def value_said(text: str, others: Sequence[Piece]) -> bool:
    """A ``Label: value`` line whose value one unit of ``others`` says ("**Status:** Shipped"
    beside "Your parcel has shipped with DHL"): a label names what its value is, the prose
    need not repeat it. A value that only denies ("**Due:** none", "Permanencia: ninguna") is
    said by a unit that names the label and negates ("nothing is due")."""
    label, sep, value = text.partition(":")
    if not sep or not value.strip() or len(V.tokens(label)) > 4:
        return False
    own = {V._stem(w) for w in V.content_words(value) if not _DENIAL.fullmatch(w)}
    named = {V._stem(w) for w in V.content_words(label)}
    for other in others:
        words = {V._stem(w) for w in other.words}
        if own and own <= words:
            return True
        if denied_value(text) and named and named <= words and V.polarity(other.text)[1]:
            return True
    return False


def denied_value(text: str) -> bool:
    """A ``Label: value`` line whose value only denies ("**Minimum term:** none", "Permanencia:
    ninguna"): prose that names the label must negate it too."""
    _, sep, value = text.partition(":")
    return bool(sep) and bool(_DENIAL.fullmatch(value.strip()))
