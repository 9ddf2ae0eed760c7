"""Ordinals: which one of several a thing is (``first``, ``the second``, ``the last``; ``erste``,
``zweite``; ``première``, ``seconde``; ``primera``, ``segundo``; ``最初``, ``最後``).

A reworded answer numbers what the other one counts ("paid in two instalments, in October and
February" → "a first part in October, the second in February") or names the last of the steps the
other one numbers ("3. Invite members" → "最後にメンバーを招待"). Such a word inserted into a
sentence says where a thing stands, which the answer's numbers, dates and step order state and the
fact rules compare; it is no claim added (:data:`ORDINALS`). A connective of sequence (``then``,
``danach``, ``puis``, ``luego``) is not one: it joins one more action to the sentence ("restart
the server, then clear the cache"), and a word of order that replaces another ("first floor" →
"second floor") is still a word changed: only inserted words are read here.
"""

from __future__ import annotations

__all__ = ["ORDINALS"]

#: ordinals of a few places, case-folded as :func:`~.vocabulary.tokens` gives them
ORDINALS = frozenset(
    [
        "first",
        "second",
        "third",
        "last",
        "erste",
        "ersten",
        "erster",
        "erstes",
        "zweite",
        "zweiten",
        "zweiter",
        "zweites",
        "dritte",
        "dritten",
        "letzte",
        "letzten",
        "letzter",
        "letztes",
        "premier",
        "première",
        "premiers",
        "premières",
        "seconde",
        "deuxième",
        "troisième",
        "dernier",
        "dernière",
        "primer",
        "primero",
        "primera",
        "segundo",
        "segunda",
        "tercer",
        "tercero",
        "tercera",
        "último",
        "última",
        "最初",
        "最後",
    ]
)
