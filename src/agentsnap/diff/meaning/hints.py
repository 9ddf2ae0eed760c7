"""Fact hints: numbers, negation words and capitalised names that differ between two texts.

An embedding score says how *close* two texts are, not whether a fact in them
changed. MiniLM cosine stays above 0.92 for "Thursday at 3pm" → "Thursday at
5pm" (0.96), "The port was changed to 9090" → "…9091" (0.96) and "Yes, the
user has admin rights" → "No, the user does not have admin rights" (0.98)
(measured in ``shared/research/semantic.md`` §6). :func:`fact_hints` looks
for exactly those three kinds of change, so a failure message can say *what*
changed and ``strict_facts = true`` can fail on it. Rule source: the
"critical-token guards" of the same research (§7), which raised the
regressions caught at 0.92 from 9/13 to 12/13 on held-out pairs but also
flagged paraphrases ("3" vs "three" is handled here; "no open issues" vs "all
issues are closed" is not), hence hints, not verdicts, by default.

The rules (pure functions of the two strings, no model):

* **numbers** — every number in the text: digits with optional thousands
  separators and decimals (``1,200``, ``3.5``), an optional currency sign in
  front (``$40``) and an optional unit right after (``3pm``, ``3 pm``,
  ``40%``, ``18°C``; ordinal suffixes ``st/nd/rd/th`` are dropped, so
  ``3rd`` is 3), plus English number words ``zero`` … ``ninety``,
  ``hundred``, ``thousand``, ``million``, ``billion`` and hyphenated tens
  (``twenty-one``). Values are compared as decimals with the currency and
  unit, as multisets: ``$40`` equals ``$40.00``, ``3`` equals ``three``,
  ``3pm`` differs from ``5pm`` and from ``3am``. "one" after a determiner
  (``no one``, ``the one``, ``which one`` …) is not a number.
* **negation** — the count of negation words: ``not no never none nothing
  nobody nowhere neither nor cannot without`` and any word ending in ``n't``.
  A different count is a hint ("isn't" vs "is not" is the same count).
* **names** — capitalised words (``Paris``, ``Thursday``, ``API``), compared
  as sets. A capitalised word at the start of a sentence counts only when the
  same word also appears capitalised mid-sentence in either text (so "The",
  "Yes", "Rain" opening a sentence are not names, but "Alice paid Bob" /
  "Bob paid Alice" still see both names); ``I`` and ``I'm``-style words never
  count, nor a unit glued to a number (the ``C`` of ``18°C``, ``GB`` of ``5GB``).

Known blind spots: swapped roles with the same names and numbers ("Alice
paid Bob" / "Bob paid Alice"), antonyms without a negation word ("passed" /
"failed"), lower-case names.
"""

from __future__ import annotations

import re
from collections import Counter
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

from .vocabulary import ENGLISH_NEGATIONS, ENGLISH_NUMBER_WORDS

__all__ = ["Hint", "fact_hints", "names", "negations", "numbers"]


class Hint(NamedTuple):
    """One difference of facts between a golden and a new text.

    ``kind``: ``"numbers"``, ``"negation"`` or ``"names"``. ``golden`` /
    ``new``: the surface forms found only on that side (for negation: every
    negation word of that side, since the *count* differs). ``message``: the
    line shown in reports, e.g. ``"numbers differ: 3pm → 5pm"``.
    """

    kind: str
    golden: tuple[str, ...]
    new: tuple[str, ...]
    message: str


_NUMBER_WORDS = ENGLISH_NUMBER_WORDS
_NOT_A_NUMBER_BEFORE_ONE = frozenset(
    {
        "no",
        "any",
        "every",
        "some",
        "the",
        "this",
        "that",
        "which",
        "each",
        "another",
        "anyone",
        "someone",
        "last",
        "first",
        "next",
        "only",
        "right",
        "wrong",
        "little",
        "big",
        "new",
        "old",
    }
)
_ORDINAL = frozenset({"st", "nd", "rd", "th"})
_NEGATIONS = ENGLISH_NEGATIONS
_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*(?:-[A-Za-z]+)*")
_NUMBER = re.compile(
    r"(?<![\w.,])(?P<cur>[$€£¥])?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:(?P<unit>\s?(?:%|°\s?[CFcf]?|[ap]\.m\.|[ap]m\b))|(?P<suffix>[A-Za-z]+))?"
)
_SENTENCE_END = re.compile(r"[.!?:;\n]\s*[\"'“‘(\[*\-•]*\s*$")


def _decimal(text: str) -> Decimal | None:
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:  # pragma: no cover - the regex only lets digits through
        return None
    return value.normalize() if value != 0 else Decimal(0)


def numbers(text: str) -> list[tuple[tuple[str, str, str], str]]:
    """Every number in ``text`` as ``(key, surface)``, in order of appearance.

    ``key`` = ``(currency, normalised decimal, unit)`` as strings (rules in the
    module doc); ``surface`` = the text as written (``"$40"``, ``"3pm"``,
    ``"three"``).
    """
    found: list[tuple[int, tuple[str, str, str], str]] = []
    for match in _NUMBER.finditer(text):
        value = _decimal(match.group("num"))
        if value is None:
            continue
        unit = (match.group("unit") or "").strip().lower().replace(".", "").replace(" ", "")
        suffix = (match.group("suffix") or "").lower()
        if suffix and suffix not in _ORDINAL:
            unit = suffix
        cur = match.group("cur") or ""
        found.append((match.start(), (cur, str(value), unit), match.group(0).strip()))
    previous = ""
    for match in _WORD.finditer(text):
        word = match.group(0)
        lower = word.lower()
        amount: int | None = None
        if lower in _NUMBER_WORDS:
            if not (lower == "one" and previous in _NOT_A_NUMBER_BEFORE_ONE):
                amount = _NUMBER_WORDS[lower]
        elif "-" in lower:
            parts = lower.split("-")
            if len(parts) == 2 and parts[0] in _NUMBER_WORDS and parts[1] in _NUMBER_WORDS:
                tens, ones = _NUMBER_WORDS[parts[0]], _NUMBER_WORDS[parts[1]]
                if tens in (20, 30, 40, 50, 60, 70, 80, 90) and 1 <= ones <= 9:
                    amount = tens + ones
        if amount is not None:
            found.append((match.start(), ("", str(Decimal(amount)), ""), word))
        previous = lower
    found.sort(key=lambda item: item[0])
    return [(key, surface) for _, key, surface in found]


def negations(text: str) -> list[str]:
    """The negation words of ``text`` in order (rule in the module doc)."""
    out = []
    for match in _WORD.finditer(text):
        word = match.group(0)
        lower = word.lower().replace("’", "'")
        if lower in _NEGATIONS or lower.endswith("n't"):
            out.append(word)
    return out


def _capitalised(text: str) -> list[tuple[str, bool]]:
    """``(word, sentence_initial)`` for each capitalised word of ``text``."""
    out = []
    first = len(text) - len(text.lstrip())
    for match in _WORD.finditer(text):
        word = match.group(0)
        if not word[0].isupper():
            continue
        head = word.split("'")[0].split("’")[0]
        if head == "I":
            continue
        start = match.start()
        if start and (text[start - 1].isdigit() or text[start - 1] in "°º%"):
            continue  # a unit glued to a number (18°C, 5GB, 3PM): the number hint covers it
        # only the few characters before the word decide (linear in the text length)
        initial = start <= first or bool(_SENTENCE_END.search(text[max(0, start - 16) : start]))
        out.append((word, initial))
    return out


def names(golden: str, new: str) -> tuple[set[str], set[str]]:
    """The capitalised names of ``golden`` and of ``new`` (rule in the module doc)."""
    g_caps, n_caps = _capitalised(golden), _capitalised(new)
    mid = {word for word, initial in g_caps + n_caps if not initial}
    g_names = {word for word, initial in g_caps if not initial or word in mid}
    n_names = {word for word, initial in n_caps if not initial or word in mid}
    return g_names, n_names


def _side(items: list[str] | tuple[str, ...]) -> str:
    return ", ".join(items) if items else "(none)"


def fact_hints(golden: str, new: str) -> list[Hint]:
    """The fact differences between ``golden`` and ``new``, in the order numbers, negation, names.

    Empty when the texts are equal or no rule fires. Never raises for any pair
    of strings; cost is linear in the text length (a few regular expressions).
    """
    if golden == new:
        return []
    hints: list[Hint] = []

    g_nums, n_nums = numbers(golden), numbers(new)
    g_count = Counter(key for key, _ in g_nums)
    n_count = Counter(key for key, _ in n_nums)
    if g_count != n_count:
        only_g, only_n = g_count - n_count, n_count - g_count
        g_surface = _surfaces(g_nums, only_g)
        n_surface = _surfaces(n_nums, only_n)
        hints.append(
            Hint(
                "numbers",
                g_surface,
                n_surface,
                f"numbers differ: {_side(g_surface)} → {_side(n_surface)}",
            )
        )

    g_neg, n_neg = negations(golden), negations(new)
    if len(g_neg) != len(n_neg):
        hints.append(
            Hint(
                "negation",
                tuple(g_neg),
                tuple(n_neg),
                f"negation words differ ({len(g_neg)} → {len(n_neg)}): {_side(g_neg)} → {_side(n_neg)}",
            )
        )

    g_names, n_names = names(golden, new)
    if g_names != n_names:
        order_g = [w for w, _ in _capitalised(golden)]
        order_n = [w for w, _ in _capitalised(new)]
        g_only = tuple(dict.fromkeys(w for w in order_g if w in g_names - n_names))
        n_only = tuple(dict.fromkeys(w for w in order_n if w in n_names - g_names))
        hints.append(
            Hint("names", g_only, n_only, f"names differ: {_side(g_only)} → {_side(n_only)}")
        )
    return hints


def _surfaces(
    found: list[tuple[tuple[str, str, str], str]], wanted: Counter[tuple[str, str, str]]
) -> tuple[str, ...]:
    remaining = Counter(wanted)
    out = []
    for key, surface in found:
        if remaining[key] > 0:
            remaining[key] -= 1
            out.append(surface)
    return tuple(out)
