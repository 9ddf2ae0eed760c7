"""Negations said by a word of their own, read pair by pair in :meth:`.reading.Reading._polarity`:
a negating prefix whose base the other sentence states (``unchanged`` / ``nothing changes``),
"free" against the other's "no charge", a word of omission against the other's negation or its
halt at a place (``skips Elm Street`` = ``doesn't stop at Elm Street``), and a pole of order
counted only where the other sentence uses its other pole, and not where the two put the same
thing first with the two poles (``A before B`` = ``A first; only after that B``), and a need
denied said as the thing denied (``no change is needed`` = ``Change: –``)."""

import re

from . import vocabulary as V

__all__ = [
    "free_negations",
    "need_denied",
    "omission_negations",
    "omissions_read",
    "order_both_ways",
    "order_poles",
    "prefix_negations",
    "reversals",
    "unordered",
]

#: prefixes that negate the word they open (``un``changed, ``non``-refundable, ``in``valid, 未完了)
_NEGATING_PREFIXES = ("non", "un", "in", "im", "ir", "il", "dis", "不", "非", "未", "無")


#: a prefixed verb with its object: a reversal done, not a state denied ("uninstall the printer",
#: "unlock your account", "disconnect it")
_REVERSAL = re.compile(
    r"\b((?:un|dis|de)[^\W\d_]{4,})\s+(?:the|a|an|your|my|our|their|his|her|its|it|them|"
    r"this|that|these|those|all|any|every|each|from)\b",
    re.IGNORECASE,
)


def reversals(text: str, other: str) -> set[str]:
    """The stems of the prefixed verbs of ``text`` that take an object (:data:`_REVERSAL`),
    where ``other`` says an undoing with a verb of its own, a negative pole ("uninstall the
    printer" / "remove the printer"): one action said two ways, no concept flipped."""
    if not any(V._POLE.get(w, (0, 1))[1] < 0 for w in V.tokens(other)):
        return set()
    return {V._stem(m.group(1).casefold()) for m in _REVERSAL.finditer(text)}


def prefix_negations(text: str, other: str) -> list[str]:
    """The words of ``text`` negated by a prefix whose base ``other`` states and whose whole
    word it does not ("unchanged" against "nothing changes"): each counts as a negation, so
    "is unchanged" and "nothing changes" agree in parity."""
    other_stems = {V._stem(w) for w in V.tokens(other)}
    out = []
    for word in V.tokens(text):
        stem = V._stem(word)
        if stem in other_stems or word in V._POLE:  # "unpaid" is an antonym pole already
            continue
        for prefix in _NEGATING_PREFIXES:
            base = stem[len(prefix) :].lstrip("-")
            if stem.startswith(prefix) and len(base) >= 4 and base in other_stems:
                out.append(word)
                break
    return out


#: "free" of cost ("is free", "kostenlos", "gratuit"), not "feel free", "free to", "free up"
_FREE = re.compile(
    r"(?<!feel )\b(?:free(?! to\b| up\b)|kostenlos|kostenfrei|gratuit\w*|gratis)\b", re.IGNORECASE
)
#: no cost said with a negation: "there is no charge", "keine Kosten", "aucun frais", "ningún coste"
_NO_CHARGE = re.compile(
    r"\b(?:no|keine?|aucuns?|pas de|ningún|ninguna|sin)\s+(?:extra |additional |weiteren )?"
    r"(?:charges?|costs?|fees?|kosten|gebühren?|frais|coste|costo|cargos?)\b",
    re.IGNORECASE,
)


def free_negations(text: str, other: str) -> list[str]:
    """ "free" in ``text`` where ``other`` says no cost with a negation and no "free" ("The first
    copy is free" / "There is no charge for the first copy"): it counts as that negation."""
    if _FREE.search(text) and _NO_CHARGE.search(other) and not _FREE.search(other):
        return ["free"]
    return []


#: words of omission: what they take is not done ("skips Wood Green" = "does not halt at Wood
#: Green", "skipping the notice period" = "without the notice period")
_OMISSION = re.compile(
    r"\b(?:skip(?:s|ped|ping)?|omit(?:s|ted|ting)?|waive[sd]?|waiving|waivers?|bypass(?:es|ed|ing)?|"
    r"überspring\w*|übersprungen|entf[äa]ll\w*)\b",
    re.IGNORECASE,
)

#: "nothing is wrong with X": one denial of a fault ("X is not affected"), not a negation and a
#: negative pole that cancel
_NO_FAULT = re.compile(
    r"\bnothing(?:'s| is| was| seems| appears)?(?: to be)? wrong\b", re.IGNORECASE
)

#: a halt at a place: what "skips" denies ("the N12 stops at Elm Street" / "skips Elm Street")
_STOP_AT = re.compile(r"\bstop(?:s|ped|ping)? at\b", re.IGNORECASE)


def omission_negations(text: str, other: str, markers: list[str], odd: bool) -> list[str]:
    """A word of omission (or "nothing is wrong") in ``text`` where ``other`` has none: it counts
    as a negation where ``other`` says it with one (among ``markers``, the other's) and the two
    disagree in parity (``odd``: "skipping the notice period" = "without the notice period",
    "nothing is wrong with X" = "X is not affected"), or where ``other`` halts at the place it
    skips ("stops at Elm Street" / "skips Elm Street": a flip)."""
    found = _OMISSION.search(text) or _NO_FAULT.search(text)
    if not found or _OMISSION.search(other) or _NO_FAULT.search(other):
        return []
    denied = any(m in V._NEGATIONS or m.endswith("n't") or m.startswith("n'") for m in markers)
    if (odd and denied) or (_STOP_AT.search(other) and not markers):
        return [found.group(0).casefold()]
    return []


def omissions_read(
    g: str, n: str, g_markers: list[str], n_markers: list[str]
) -> tuple[str, str, list[str], list[str]]:
    """Two sentences and their negations with a word of omission of either counted as the
    negation it is (:func:`omission_negations`), and read as one for the concepts in its scope
    (``skips X`` → ``not skips X``)."""
    odd = len(g_markers) % 2 != len(n_markers) % 2
    g_omits = omission_negations(g, n, n_markers, odd)
    n_omits = omission_negations(n, g, g_markers, odd and not g_omits)
    g, n = omitted_as_negated(g, g_omits), omitted_as_negated(n, n_omits)
    return g, n, _with(g_markers, g_omits), _with(n_markers, n_omits)


def _with(markers: list[str], omits: list[str]) -> list[str]:
    """``markers`` and the omission counted; "nothing is wrong" stands for its two words."""
    if omits and _NO_FAULT.fullmatch(omits[0]):
        left = list(markers)
        for word in ("nothing", "wrong"):
            if word in left:
                left.remove(word)
        return [*left, *omits]
    return markers + omits


def omitted_as_negated(text: str, omits: list[str]) -> str:
    """``text`` with its word of omission read as the negation it counts as (``skips X`` → ``not
    skips X``), for the concepts its scope reaches."""
    if not omits:
        return text
    if _NO_FAULT.search(text):
        return _NO_FAULT.sub("no fault", text, count=1)
    return _OMISSION.sub(lambda m: "not " + m.group(0), text, count=1)


def order_poles(markers: list[str], other: str) -> list[str]:
    """``markers`` without a pole of order ("after", "nach", "après") whose other pole ("before")
    the ``other`` sentence does not use: "hasn't paid after 45 days" = "unpaid for 45 days"; a
    time moved across ("before meals" → "after meals") still counts."""
    other_words = set(V.tokens(other))
    return [
        m
        for m in markers
        if m not in _ORDER or {w for w, sign in _ORDER.items() if sign != _ORDER[m]} & other_words
    ]


#: the words of the order antonym pair ("before"/"after", "vor"/"nach", "avant"/"après") and their poles
_ORDER = {w: p[1] for w, p in V._POLE.items() if p[0] == V._POLE["after"][0]}


#: "after" that points back at what the sentence said before it ("… first; only after that …")
_BACK = frozenset(
    ["that", "this", "which", "it", "cela", "ça", "ceci", "quoi", "dem", "diesem", "dessen"]
)


def _events(text: str) -> tuple[int, set[str], set[str]] | None:
    """The pole of order ``text`` says first (+1 "before", -1 "after"), and the content words of
    what happens first and of what happens next, read from where the pole stands: "A before B"
    and "before B, A" put A first, "A after B" and "after B, A" put B first, and an "after" that
    points back ("A first; after that B") puts A first."""
    words = V.tokens(text)
    at = next((k for k, w in enumerate(words) if w in _ORDER), None)
    if at is None:
        return None
    sign = _ORDER[words[at]]
    head, tail = words[:at], words[at + 1 :]
    if sign < 0 and tail and tail[0] in _BACK:
        first, then = head, tail[1:]
    else:
        cut = text.casefold().split(words[at], 1)[1]
        if not V.content_words(" ".join(head)) and "," in cut:  # "Before you go, A": B, then A
            clause, _, rest = cut.partition(",")
            head, tail = V.tokens(rest), V.tokens(clause)
        first, then = (head, tail) if sign > 0 else (tail, head)
    stems = [set(V.content_words(" ".join(part))) for part in (first, then)]
    return sign, stems[0], stems[1]


def unordered(markers: list[str]) -> list[str]:
    """``markers`` without the poles of order (:func:`order_both_ways`)."""
    return [m for m in markers if m not in _ORDER]


def order_both_ways(text: str, other: str) -> bool:
    """Whether ``text`` and ``other`` say one order with the two poles ("complete a home visit
    before you take him home" = "a home visit first; only after that can he go home"): the one
    says "before", the other "after", and what happens first in the one is what happens first
    in the other, by the words they share."""
    a, b = _events(text), _events(other)
    if a is None or b is None or a[0] == b[0]:
        return False
    kept = len(a[1] & b[1]) + len(a[2] & b[2])
    crossed = len(a[1] & b[2]) + len(a[2] & b[1])
    return kept > crossed


#: words of necessity: denied, the modality of the denial, what is denied is the thing needed
#: ("Ein Umstieg ist nicht nötig" = "Umstieg: –", "no action is required" = "Action: none")
_NEEDED = frozenset(
    [
        "need",
        "needed",
        "necessary",
        "required",
        "requir",
        "nötig",
        "notwendig",
        "erforderlich",
        "benötigt",
        "nécessaire",
        "nécessaires",
        "requis",
        "requise",
        "necesario",
        "necesaria",
        "necesarios",
        "必要",
    ]
)


def need_denied(words: list[str], others: list[list[str]], least: float) -> int | None:
    """The index of the first of ``others`` (units' words) that denies what ``words`` (a unit's, with its
    negation) says is not needed: a negation of its own and ``least`` of the other words, the
    word of necessity aside ("Ein Umstieg ist nicht nötig" / the row "…; not Umstieg", a "–" under
    "Umstieg"); None where ``words`` name no necessity."""
    kept = [w for w in words if w not in _NEEDED]
    if len(kept) == len(words) or not kept:
        return None
    for k, other in enumerate(others):
        if not any(w in V._NEGATIONS for w in other):
            continue  # "✓" under "Umstieg": the change said, not denied
        said = sum(w in other or w in V._NEGATIONS for w in kept)
        if said >= least * len(kept):
            return k
    return None
