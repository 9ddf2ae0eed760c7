"""A denial said once per clause: "IT cannot increase the quota" = "A bigger quota isn't an option:
IT doesn't raise limits on standard accounts".

A paraphrase may state one denial twice, once in each clause it cuts the sentence into (at a
colon, a semicolon or a dash). Counted over the whole sentence, its two negations cancel in parity
and read as the golden denial flipped. :func:`clauses_agree` reads the two sentences clause by
clause instead: where at least one of them has two clauses or more, and every clause has the
polarity of the clause of the other sentence that shares most of its content words (sharing one
at least), the sentences deny alike and no polarity flipped ("…: IT does raise limits on standard
accounts" still flips, its clause against the golden one).
"""

from __future__ import annotations

import re

from . import vocabulary as V

__all__ = ["clauses_agree"]

#: where a sentence is cut into clauses that each state a claim
_CUT = re.compile(r"\s*(?:[:;—–]|\s-\s|：|；)\s*")


def _clauses(text: str) -> list[tuple[set[str], int]]:
    """Each clause's content words and polarity parity (clauses without a content word left out)."""
    out = []
    for part in _CUT.split(text):
        words = set(V.content_words(part))
        if words:
            out.append((words, V.polarity(part)[0]))
    return out


def clauses_agree(golden: str, new: str) -> bool:
    """Whether the two sentences, one of them cut into clauses, deny alike clause by clause
    (module doc); False where neither is cut or a clause shares no word with the other."""
    g, n = _clauses(golden), _clauses(new)
    if not g or not n or (len(g) == 1 and len(n) == 1):
        return False
    for mine, other in ((g, n), (n, g)):
        for words, parity in mine:
            shared, near = max(((len(words & w), p) for w, p in other), key=lambda s: s[0])
            if shared == 0 or near != parity:
                return False
    return True
