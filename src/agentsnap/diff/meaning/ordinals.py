"""Words of order: which one of several a thing is, or when it comes (``first``, ``the second``,
``finally``; ``erste``, ``zuletzt``; ``première``, ``ensuite``; ``primera``, ``luego``; ``最後``).

A reworded answer numbers what the other one counts ("paid in two instalments, in October and
February" → "a first part in October, the second in February") or orders steps the other one
numbers ("3. Invite members" → "Finally, invite members"). Such a word inserted into a sentence
says where a thing stands, which the answer's numbers, dates and step order state and the fact
rules compare; it is no claim added (:func:`ordering`). A word of order that replaces another
("first floor" → "second floor") is still a word changed: only inserted words are read here.
"""

from __future__ import annotations

__all__ = ["ORDER_WORDS", "ordering"]

#: ordinals and sequence words, case-folded as :func:`~.vocabulary.tokens` gives them
ORDER_WORDS = frozenset(
    [
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "last",
        "final",
        "finally",
        "lastly",
        "then",
        "next",
        "afterwards",
        "erste",
        "ersten",
        "erster",
        "erstes",
        "ersteren",
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
        "zuerst",
        "zunächst",
        "zuletzt",
        "schließlich",
        "anschließend",
        "danach",
        "premier",
        "première",
        "premiers",
        "premières",
        "second",
        "seconde",
        "deuxième",
        "troisième",
        "dernier",
        "dernière",
        "ensuite",
        "puis",
        "enfin",
        "abord",
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
        "luego",
        "después",
        "finalmente",
        "最初",
        "最後",
        "次",
        "一回目",
        "二回目",
        "1回目",
        "2回目",
    ]
)


def ordering(token: str) -> bool:
    """Whether a case-folded token is a word of order (:data:`ORDER_WORDS`)."""
    return token in ORDER_WORDS
