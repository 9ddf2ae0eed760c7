"""A number one answer works out from numbers both answers state (issue 29, round eleven).

A careful reader does not count a worked-out value as a new fact: ``$22 plus labour, $42 in
total`` and ``hanger ($22) + labour ($20), total $42`` state the same costs, since 42 − 22 = 20;
``students pay half, 750 yen of 1,500`` and ``¥750 (50% of the adult price)`` state the same
prices. So a number stated by one answer only is *derived* (:func:`derived`) when it is the sum
or the difference of two numbers of its unit that both answers state, or, as a percentage, the
share one of them is of the other.

A share of ``100 %`` is also said as the whole (:func:`whole_said`): ``promoted the release to
100%`` = ``promoted it to full traffic``, ``vollständig``, ``entièrement``, ``completo``, ``全額``.

Only where nothing else moved: when the other answer has a number of its own that this one does
not state, the two numbers are one value changed (``$20`` → ``$25``), never a value worked out,
so :func:`derived` and :func:`whole_said` are false and the numbers still differ.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import permutations

from . import facts as F
from .units import Unit

#: the words that say a whole: 100 % of something
_WHOLE = re.compile(
    r"\b(?:full|fully|entire|entirely|complete|completely|whole|vollständig\w*|komplett\w*|"
    r"voll(?:e[nmrs]?)?|gesamte[nmrs]?|entiers?|entières?|entièrement|totalité|complète?s?|"
    r"complet[ao]s?|completamente|totalidad|íntegr[oa]s?)\b|全額|全量|全面|すべて|全て",
    re.IGNORECASE,
)


def _changed(own: Sequence[Unit], others: Sequence[Unit]) -> bool:
    """Whether the other answer has a number this one does not state: a value changed."""
    own_numbers = _numbers(own)
    return any(not any(F.facts_match(o, f) for f in own_numbers) for o in _numbers(others))


def whole_said(fact: F.Fact, own: Sequence[Unit], others: Sequence[Unit]) -> bool:
    """Whether ``fact``, a share of 100 %, is said by the other answer as the whole (module doc)."""
    if fact.kind != "number" or fact.key != (100.0, "%") or _changed(own, others):
        return False
    return any(_WHOLE.search(u.text) for u in others)


def _numbers(units: Sequence[Unit]) -> list[F.Fact]:
    return [f for u in units for f in u.facts if f.kind == "number"]


def _alike(a: str, b: str) -> bool:
    """Units that add up: the same one, or one of the two left unsaid (``750`` beside ``¥750``)."""
    return a == b or not a or not b


def derived(fact: F.Fact, own: Sequence[Unit], others: Sequence[Unit]) -> bool:
    """Whether ``fact``, a number of ``own`` the other answer does not state, is worked out from
    two numbers both answers state (module doc): their sum or difference in its unit, or as a
    percentage the share of the smaller in the larger."""
    if fact.kind != "number" or not fact.key[1]:
        return False
    value, unit = fact.key
    own_numbers, other_numbers = _numbers(own), _numbers(others)
    if _changed(own, others):
        return False  # the other answer has a number of its own: a value changed
    shared = [
        f for f in own_numbers if f != fact and any(F.facts_match(f, o) for o in other_numbers)
    ]
    for a, b in permutations(shared, 2):
        (va, ua), (vb, ub) = a.key, b.key
        if not (isinstance(va, float) and isinstance(vb, float)):
            continue
        ua, ub = str(ua), str(ub)
        if unit == "%":
            if _alike(ua, ub) and ua != "%" and 0 < va < vb and round(100 * va / vb, 1) == value:
                return True
        elif ua == ub == unit and (round(va + vb, 6) == value or round(va - vb, 6) == value):
            return True
    return False
