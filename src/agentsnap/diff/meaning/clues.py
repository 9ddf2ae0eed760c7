"""Word-level clues the comparison reads: related and polar words, coverage of content words,
enumerations, and a swap of two blocks (``Alice pays Bob`` → ``Bob pays Alice``)."""

import difflib
import math
import re
from collections import Counter

from . import facts as F
from . import vocabulary as V
from .units import _ENUM_GAP, _NARRATION


def _unrelated(left: list[str], right: list[str]) -> tuple[list[str], list[str]]:
    """The words of a replaced span left once pairs of related words (same stem, spelling variants) are taken out."""
    right = list(right)
    out = []
    for word in left:
        match = next((r for r in right if _related(word, r)), None)
        if match is None:
            out.append(word)
        else:
            right.remove(match)
    return out, right


def _block_swap(g: list[str], n: list[str], need_middle: bool = True) -> tuple[str, str] | None:
    """``(a, b)`` when ``n`` is ``g`` with two blocks exchanged around an unchanged middle (A m B → B m A)."""
    if len(g) != len(n) or len(g) < 2 or g == n or Counter(g) != Counter(n):
        return None
    while g and n and g[0] == n[0]:
        g, n = g[1:], n[1:]
    while g and n and g[-1] == n[-1]:
        g, n = g[:-1], n[:-1]
    size = len(g)
    for i in range(1, size):
        for k in range(i + (1 if need_middle else 0), size):
            a, mid, b = g[:i], g[i:k], g[k:]
            if b + mid + a == n and set(a).isdisjoint(b):
                return a[-1], b[0]
    return None


def _surface(text: str, stem: str) -> str:
    for token in V.tokens(text):
        if token.startswith(stem):
            return token
    return stem


def _name_in(fact: F.Fact, words: set[str], text: str) -> bool:
    key = str(fact.key[0])
    if key in words:
        return True
    # a multi-word or longer name may be split differently by the other text's tokens;
    # a short one ("a", "eu") must be a whole token (a substring would match anything)
    return len(key) >= 4 and key in F.normalise(text).casefold()


def _contentful(token: str) -> bool:
    if token in V.STOPWORDS or token.isdigit() or re.fullmatch(r"[\d.,:]+", token):
        return False
    if re.fullmatch(r"[\u3040-\u309f]+", token):
        return False
    if token in _NARRATION or V._stem(token) in _NARRATION:
        return False
    return len(token) >= 2 or bool(re.match(r"[\u4e00-\u9fff\u30a0-\u30ff]", token))


def _related(a: str, b: str) -> bool:
    """Same stem, one a prefix of the other, or a contraction/spelling variant."""
    sa, sb = V._stem(a), V._stem(b)
    if sa == sb or a.startswith(b) or b.startswith(a):
        return True
    return difflib.SequenceMatcher(None, a, b).ratio() >= 0.8 and min(len(a), len(b)) >= 5


def _polar(word: str) -> bool:
    return any(w in V._POLE or w in V._NEGATIONS for w in word.split())


def _weight(words: list[str]) -> float:
    """How much content new words carry: 1 per word, 1.5 per kanji/katakana compound (denser than a Latin word)."""
    return math.fsum(1.5 if re.match(r"[\u4e00-\u9fff\u30a0-\u30ff]", w) else 1.0 for w in words)


def _coverage(words: list[str], other: set[str]) -> float:
    """Share of ``words`` the ``other`` text also uses; the two poles of an antonym pair count as one word
    (so "no open issues" is covered by "all issues are closed": polarity is compared separately)."""
    if not words:
        return 1.0
    concepts = {_concept(w) for w in other}
    return sum(1 for w in words if w in other or _concept(w) in concepts) / len(words)


def _concept(word: str) -> str:
    for form in (word, word + "e", word + "ed", word + "d"):
        if form in V._POLE:
            return f"#pole{V._POLE[form][0]}"
    return word


def _enumeration(text: str, a: str, b: str) -> bool:
    """Whether stems ``a`` and ``b`` stand next to each other in an enumeration ("A, B and C")."""
    low = text.casefold()
    pa, pb = low.find(a), low.find(b)
    if pa < 0 or pb < 0:
        return False
    first, second = sorted((pa, pb))
    word_end = first + len(a if first == pa else b)
    while word_end < len(low) and low[word_end].isalnum():
        word_end += 1
    return bool(_ENUM_GAP.match(low[word_end:second]))
