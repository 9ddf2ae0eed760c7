"""Members of a sentence a negation, a contrast or an exception excludes, and where they moved.

A sentence that names what it is about and what it is not about ("the fee is $20, not $30";
"deploy to staging rather than production"; "works, although not on Windows") states one
polarity per member: the member a negation reaches first is excluded, the others are stated.
Words, numbers, times, versions and names holding a digit (``B12``) are members alike
(:func:`~agentsnap.diff.meaning.clues.polar_concepts` reads them all).

* **Moved** (:func:`negated_member_moved`): the negation left one member for another, the words
  kept ("$20, not $30" → "$30, not $20"), or for a member the other answer did not name ("works,
  although not on Windows" → "works on Windows, although not on Linux"): a changed claim.
* **Kept** (:func:`contrast_kept`): two members in the other order, each keeping its polarity
  ("not to Alice but to Bob" = "to Bob, not Alice"; "B rather than A" = "B, not A"): the same
  claim, no role swap.
"""

from __future__ import annotations

from . import vocabulary as V
from .clues import _CLAUSE, _closeness, polar_concepts

__all__ = ["contrast_kept", "negated_member_moved"]


def negated_member_moved(golden: str, new: str, flipped: list[str]) -> tuple[str, str] | None:
    """``(was negated, now negated)`` when a negation moved from one member of a sentence to
    another ("to Iberia, not to British Airways" → "to British Airways, not to Iberia"; "$20,
    not $30" → "$30, not $20"): plain concepts flipped, no antonym among them, a negation reaching
    one of them first on each side, the sentences otherwise close. The member the negation moves
    to may be one only that side names ("although not on Windows" → "on Windows, although not on
    Linux"). None otherwise."""
    if not flipped or _closeness(golden, new) < 0.5 or any(c.startswith("#") for c in flipped):
        return None
    g_heads: set[str] = set()
    n_heads: set[str] = set()
    g = polar_concepts(golden, g_heads)
    n = polar_concepts(new, n_heads)
    was = [c for c in flipped if g[c] == {-1}]
    now = [c for c in flipped if g[c] == {1}]
    if was and now:
        return (
            (" ".join(sorted(was)), " ".join(sorted(now)))
            if (g_heads & set(was) and n_heads & set(now))
            else None
        )
    # the other member only one side names, every other word kept, each of its words negated
    # ("works, although not on Windows" → "works on Windows, although not on Linux"), and the
    # member that lost its negation stated in a clause negating nothing ("the pedals aren't to
    # blame" still speaks of the pedals in a negated clause: a rewording)
    g_plain = {c for c in g if not c.startswith("#")}
    n_plain = {c for c in n if not c.startswith("#")}
    if was and g_heads & set(was) and g_plain < n_plain:
        came = sorted(n_plain - g_plain)
        if all(n[c] == {-1} for c in came) and _stated_plainly(new, was):
            return " ".join(sorted(was)), " ".join(came)
    if now and n_heads & set(now) and n_plain < g_plain:
        gone = sorted(g_plain - n_plain)
        if all(g[c] == {-1} for c in gone) and _stated_plainly(golden, now):
            return " ".join(gone), " ".join(sorted(now))
    return None


def _stated_plainly(text: str, concepts: list[str]) -> bool:
    """Whether every clause of ``text`` that states one of ``concepts`` negates nothing."""
    for clause in _CLAUSE.split(text):
        signs = polar_concepts(clause)
        if any(c in signs for c in concepts) and any(-1 in s for s in signs.values()):
            return False
    return True


def contrast_kept(golden: str, new: str, a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` (words or their stems), which trade places between the two
    sentences, stand on the two sides of a contrast that each keeps: one excluded, the other
    stated, alike in both ("Send it not to Alice but to Bob." / "Send it to Bob, not Alice.")."""
    g, n = polar_concepts(golden), polar_concepts(new)

    def sign(concepts: dict[str, set[int]], word: str) -> int:
        for key in (word, V._stem(word)):
            signs = concepts.get(key, set())
            if len(signs) == 1:
                return next(iter(signs))
        return 0

    ga, gb, na, nb = sign(g, a), sign(g, b), sign(n, a), sign(n, b)
    return ga != 0 and gb != 0 and ga == na and gb == nb and ga != gb
