"""A member of a sentence's list left out while the rest of the sentence is kept.

A sentence that lists steps or items ("open the cover, pull out the drum, push the lever to
release the cartridge, insert the new one and put the drum back") and comes back with every
member but one is a sentence that lost a step, an item or a condition, even when the rest is
word for word the same and the similarity of the two sentences is 0.98. A reader checks the
list member by member; :func:`member_dropped` does the same: each member of a golden sentence's
list (cut at commas, semicolons and ``and``/``or``/``und``/``et``/``y``/``、``) must have its own
words somewhere in the new answer. A member none of whose words (or under a third of them, two
at least missing) the new answer uses, in a sentence whose other members it keeps, is dropped.

A rewording keeps some word of each member ("send us your pay stubs" → "email the pay stubs");
a member said in other words throughout while its siblings stay verbatim is rare, and a member
made of one content word (``the 08:12``, ``quickly``) is never read as dropped.
"""

from __future__ import annotations

import re

from . import vocabulary as V
from .units import Unit

__all__ = ["member_dropped"]

#: where one member of a sentence's list ends and the next begins
_MEMBER = re.compile(
    r"(?:(?<!\d),\s*|,\s+|\s+)(?:and|then|und|dann|et|puis|y|luego)\s+|(?<!\d),\s*|,\s+",
    re.IGNORECASE,
)
#: a clause that opens a sentence and sets its scene, no member of its list
_INTRO = re.compile(
    r"^\W*(?:to|in order to|if|when|once|after|before|unless|as|since|because|while|um|wenn|"
    r"falls|sobald|nachdem|bevor|pour|si|une fois|lorsque|quand|avant|après|para|cuando|antes|"
    r"después|una vez)\b|.*[:：]\s*$",
    re.IGNORECASE,
)
#: Japanese and Chinese text: its clauses are no list members, and its words no stems
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
#: least share of its words each kept member must find in the other answer
_KEPT = 0.8
#: most share of its words a dropped member may find there
_GONE = 1 / 3


def _stems(text: str) -> list[str]:
    """The stems of ``text``'s content words; a negation is no word of its own ("not corrupted")."""
    return [V._stem(w) for w in V.content_words(text) if w not in V._NEGATIONS]


def member_dropped(g_units: list[Unit], new: str, aligned: list[bool]) -> tuple[str, str] | None:
    """``(member, golden sentence)`` for the first member of a golden sentence's list the new
    answer leaves out (module doc); ``aligned[i]``: golden unit ``i`` has a counterpart."""
    there: set[str] | None = None
    for unit, kept in zip(g_units, aligned, strict=True):
        if (
            not kept
            or _CJK.search(unit.text)
            or unit.heading
            or unit.filler
            or (unit.labelled and ";" in unit.text)
        ):
            continue  # a table row's cells are no list
        text = unit.text.split(":", 1)[-1] if unit.labelled else unit.text  # "To do it: A, B, C"
        if len(_MEMBER.findall(text)) < 2:
            continue  # no list of three
        members = [m for m in _MEMBER.split(text) if m and V.content_words(m)]
        if members and _INTRO.match(members[0]):
            members = members[1:]  # "To replace the toner, …", "If it fails, …": no member
        if len(members) < 3:
            continue  # "A and B" is often one thing said twice; a list has three members
        there = set(_stems(new)) if there is None else there
        shares = []
        for member in members:
            words = list(dict.fromkeys(_stems(member)))
            held = sum(w in there for w in words)
            shares.append((member, words, held))
        gone = [
            (m, ws)
            for m, ws, held in shares
            if len(ws) - held >= 2
            and held <= _GONE * len(ws)
            and not re.search(r"\d", m)
            and not _INTRO.match(m)  # "…, if you cannot come, …": a condition, said otherwise
        ]
        rest = [(ws, held) for m, ws, held in shares if not any(m == g for g, _ in gone)]
        if len(gone) == 1 and rest and all(held >= _KEPT * len(ws) for ws, held in rest):
            return gone[0][0].strip(" .!?"), unit.text
    return None
