"""What a value or an exception is bound to: the thing its clause names, the member it excludes.

Two changes keep every word and every fact of an answer and so pass the fact and word rules:

* **Values swapped between the things they belong to** (:func:`swapped_values`): a value
  belongs to the thing its clause (or its table row) names; the same values bound to other
  things are changed values ("Basic costs 10 € and Pro costs 25 €" → "Basic costs 25 € and Pro
  costs 10 €"; "Alice gets 3 days and Bob 5" → "Alice gets 5 days and Bob 3"). A word names
  a thing when it stands in one clause only on each side, that clause holding one value; two
  such words trading their values are a swap.
* **An exception made an inclusion** (:func:`exception_included`): "daily, except on Sundays"
  → "every day, including Sundays" (``außer`` → ``einschließlich``, ``sauf`` → ``y compris``,
  ``excepto`` → ``y también``, "all X but Y" → "all X and Y"), or back. "except on Sundays" =
  "Sundays excepted" = "but not on Sundays": an exception said otherwise is no change. "X
  included" = "including X"; "all items except X" → "only X" is a change too (not after a
  negation: "nothing except X" = "only X").
* **A word value is a claim about its label** (:func:`word_values`): "Status: approved" →
  "was not approved" is a flipped polarity; ✅/✓/yes and ❌/✗/no cells (and "open"/"closed")
  are polarity, read against the clause of the other answer that names the label ("Sun: closed"
  → "open … and on Sunday"; "Windows: ❌" → "works on Linux and Windows"); a word value belongs
  to its row like a number does ("| Dana | Admin |" → "Dana is a viewer").
"""

from __future__ import annotations

import re

from . import facts as F
from . import vocabulary as V
from .units import Unit

__all__ = ["bound_changes", "bound_kept", "exception_included", "swapped_values", "word_values"]

_VALUE_KINDS = frozenset({"number", "date", "time", "weekday"})
#: where one clause ends and the next begins
_CLAUSE_END = re.compile(
    r"\s*[,;:]\s+|\s+(?:and|or|while|whereas|but|und|oder|während|aber|et|ou|mais|alors que|"
    r"y|o|e|pero|mientras)\s+|\s*[、；]\s*",
    re.IGNORECASE,
)
#: a sentence that pairs its values with its things by order ("10 € and 25 € respectively")
#: a word: letters only (no digits, no underscore), in any script
_WORD = re.compile(r"[^\W\d_]+")
_RESPECTIVELY = re.compile(r"\b(respectively|jeweils|respectivement|respectivamente)\b", re.I)


def bound_changes(
    g_units: list[Unit], n_units: list[Unit], golden: str, new: str
) -> list[tuple[str, str, str, str]]:
    """``(kind, label, golden text, new text)`` for each change of what a value or an exception
    is bound to (module doc)."""
    found = [("swap", *hit) for hit in swapped_values(g_units, n_units)]
    found += word_values(g_units, n_units)
    exception = exception_included(golden, new)
    if exception is not None:
        found.append(("polarity", *exception))
    return found


def bound_kept(g_unit: Unit, n_unit: Unit, a: str, b: str) -> bool:
    """Whether two words said in another order still hold what they held: each bound to its own
    value on both sides ("Germany grew 3 % and France 5 %" = "France grew 5 %, Germany 3 %"), or
    one of them the word of an exception that leaves the same members out on both sides
    ("except on holidays" = "holidays excepted"): no roles swapped."""
    g, n = _bindings([g_unit]), _bindings([n_unit])
    a, b = V._stem(a.casefold()), V._stem(b.casefold())
    if a in g and b in g and a in n and b in n and not F.facts_match(g[a][0], g[b][0]):
        return F.facts_match(g[a][0], n[a][0]) and F.facts_match(g[b][0], n[b][0])
    left_out = _excepted(_words(g_unit.text))
    return bool(left_out) and left_out == _excepted(_words(n_unit.text))


# --------------------------------------------------------------------------- values


def _clauses(unit: Unit) -> list[tuple[str, list[F.Fact]]]:
    """The clauses of ``unit`` with the value facts each holds (a table row is one clause)."""
    text = unit.text
    values = [f for f in unit.facts if f.kind in _VALUE_KINDS]
    # a table row, or a label with its one value, is one clause; a label over a list of values
    # ("Three plans: Starter at 9 €, Team at 29 €") is read clause by clause
    if unit.labelled and (";" in text or ":" in text):
        after = text.partition(":")[2]
        if ";" in text or sum(f.surface in after for f in values) <= 1:
            return [(text, values)]
    spans = []
    for fact in values:
        at = _find(text, fact.surface)
        if at >= 0:
            spans.append((at, at + len(fact.surface)))
    cuts = [0]
    for m in _CLAUSE_END.finditer(text):
        if not any(a < m.end() and m.start() < b for a, b in spans):
            cuts.append(m.start())
            cuts.append(m.end())
    cuts.append(len(text))
    out = []
    for k in range(0, len(cuts), 2):
        start, end = cuts[k], cuts[k + 1]
        part = text[start:end]
        own = [
            f
            for f in values
            if (p := _find(text, f.surface, start)) >= 0 and p + len(f.surface) <= end
        ]
        out.append((part, own))
    return out


def _find(text: str, surface: str, start: int = 0) -> int:
    """Where ``surface`` is written in ``text`` from ``start``, not inside a longer number ("9 €" is
    not in "19 €"); -1 when it is not."""
    m = re.compile(r"(?<![\d.,])" + re.escape(surface)).search(text, start)
    return m.start() if m else -1


#: Japanese particles after a word ("ベーシックは" is "ベーシック")
_PARTICLE = re.compile(r"(?<=[\u3040-\u30ff\u4e00-\u9fff])[はがもをにでとの]+$")


def _bindings(units: list[Unit]) -> dict[str, tuple[F.Fact, str, str]]:
    """``{word stem: (the one value of its clause, the word as written, the unit's text)}`` for
    each content word that stands in one clause only, that clause holding one value."""
    seen: dict[str, int] = {}
    bound: dict[str, tuple[F.Fact, str, str]] = {}
    for unit in units:
        if unit.heading or _RESPECTIVELY.search(unit.text):
            continue
        for part, values in _clauses(unit):
            distinct: list[F.Fact] = []
            for f in values:
                if not any(F.facts_match(f, d) for d in distinct):
                    distinct.append(f)
            taken = " ".join(f.surface for f in values)
            for word in _WORD.findall(part):
                word = _PARTICLE.sub("", word) or word
                low = word.casefold()
                if low in V.STOPWORDS or len(low) < 2 or low in taken.casefold().split():
                    continue
                stem = V._stem(low)
                seen[stem] = seen.get(stem, 0) + 1
                if len(distinct) == 1:
                    bound[stem] = (distinct[0], word, unit.text)
    return {w: b for w, b in bound.items() if seen[w] == 1}


def swapped_values(g_units: list[Unit], n_units: list[Unit]) -> list[tuple[str, str, str]]:
    """``(label, golden text, new text)`` when two things trade their values: each has the
    other's value in the new answer, both values stated on both sides (module doc)."""
    g, n = _bindings(g_units), _bindings(n_units)
    moved = [(w, g[w], n[w]) for w in g.keys() & n.keys() if not F.facts_match(g[w][0], n[w][0])]
    moved.sort(key=lambda m: (not m[1][1][:1].isupper(), m[0]))
    for k, (_, (a1, word1, g_text), (b1, _, n_text)) in enumerate(moved):
        for _, (a2, word2, _), (b2, _, _) in moved[k + 1 :]:
            if F.facts_match(a1, b2) and F.facts_match(a2, b1) and not F.facts_match(a1, a2):
                label = (
                    f"values swapped: {word1} {a1.surface} → {b1.surface}, "
                    f"{word2} {a2.surface} → {b2.surface}"
                )
                return [(label, g_text, n_text)]
    return []


# --------------------------------------------------------------------------- exceptions

#: words that leave a member out ("except", "außer", "sauf", "excepto", "but not", "not including")
_EXCEPT = re.compile(
    r"\b(?:except(?:ing)?|excluding|apart from|other than|save for|but not|not including|"
    r"with the exception of|außer|ausser|ausgenommen|mit ausnahme|bis auf|nicht aber|"
    r"abgesehen von|sauf|excepté|exceptée?s?|hormis|à l'exception|à part|mais pas|non compris|"
    r"excepto|salvo|menos|a excepción|pero no|excluyendo|no incluid[oa]s?)\b"
)
#: a member said to be left out after it ("Sundays excepted", "sonntags ausgenommen")
_EXCEPTED = re.compile(
    r"\b(?:excepted|excluded|not included|ausgenommen|nicht eingeschlossen|exceptés?|exclus|"
    r"exceptuados?|excluidos?)\b"
)
#: "all X but Y": "but" leaves out after a word of all
_ALL_BUT = re.compile(r"\b(?:all|every|any|each|everything|everyone)\b(?:\s+\w+){0,3}?\s+but\b")
#: words that take a member in ("including", "einschließlich", "y compris", "y también")
_INCLUDE = re.compile(
    r"\b(?:including|inclusive of|as well as|plus|even|also|einschließlich|einschliesslich|"
    r"inklusive|inkl|samt|auch|sogar|y compris|inclus|aussi|également|même|incluidos?|"
    r"incluidas?|incluyendo|incluso|inclusive|también)\b"
)
_ONLY = re.compile(
    r"\b(?:only|nur|seulement|uniquement|solo|sólo|únicamente)(?: (?:to|for|on|in|für|an|à|pour|para|a|en))?\b"
)
_INCLUDED = re.compile(r"\b(?:included|inbegriffen|eingeschlossen|inclus|incluidos?)\b")


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"[\w']+", text.casefold())) + " "


def _member_after(text: str, end: int) -> str | None:
    """The first content word after ``end``, as a stem."""
    for word in text[end:].split()[:4]:
        if word not in V.STOPWORDS and not word.isdigit():
            return V._stem(word)
    return None


def _member_before(text: str, start: int) -> str | None:
    for word in reversed(text[:start].split()[-3:]):
        if word not in V.STOPWORDS:
            return V._stem(word)
    return None


def _excepted(text: str) -> set[str]:
    """The members ``text`` leaves out."""
    members = {_member_after(text, m.end()) for m in _EXCEPT.finditer(text)}
    members |= {_member_after(text, m.end()) for m in _ALL_BUT.finditer(text)}
    members |= {_member_before(text, m.start()) for m in _EXCEPTED.finditer(text)}
    return {m for m in members if m}


def _included(text: str, join: bool) -> set[str]:
    """The members ``text`` takes in ("including X", "X included"; with ``join``, "and X")."""
    found = _INCLUDE.finditer(text)
    members = {_member_after(text, m.end()) for m in found}
    for m in _INCLUDED.finditer(text):  # "gift cards included": each word of the member
        members |= {V._stem(w) for w in text[: m.start()].split()[-2:] if w not in V.STOPWORDS}
    if join:
        members |= {_member_after(text, m.end()) for m in re.finditer(r" (?:and|und|et|y) ", text)}
    return {m for m in members if m}


def exception_included(golden: str, new: str) -> tuple[str, str, str] | None:
    """``(label, golden, new)`` when a member one answer leaves out the other takes in, with no
    exception of its own (module doc)."""
    g, n = _words(golden), _words(new)
    for a, b, turned in (
        (g, n, "exception made an inclusion"),
        (n, g, "inclusion made an exception"),
    ):
        left_out = _excepted(a)
        if not left_out or _excepted(b) or _EXCEPT.search(b) or _ALL_BUT.search(b):
            continue
        join = bool(_ALL_BUT.search(a))
        taken = left_out & _included(b, join)
        if not V.polarity(a)[1]:  # "all items except X" → "only X" ("nothing except X" = "only X")
            taken |= left_out & {_member_after(b, m.end()) for m in _ONLY.finditer(b)}
        if taken:
            member = sorted(taken)[0]
            label = f"{turned} ({member})"
            return label, golden, new
    return None


# --------------------------------------------------------------------------- word values

#: cells and values that say yes or no ("Linux: ✅", "| Windows | no |")
_YES = frozenset(["✅", "✓", "✔", "✔️", "☑", "☑️", "yes", "ja", "oui", "sí", "si", "はい", "○"])
_NO = frozenset(["❌", "✗", "✘", "✖", "✖️", "no", "nein", "non", "いいえ", "×"])
_CONTENT = re.compile(r"[^\W\d_]+|[✅✓✔☑❌✗✘✖×○]", re.UNICODE)


def _label_pairs(units: list[Unit]) -> list[tuple[str, str, Unit]]:
    """``(label, value, unit)`` of each labelled line or two-cell table row whose value is a word
    or two, or a yes/no cell ("Status: approved", "| Dana | Admin |", "- Linux: ✅")."""
    out = []
    for unit in units:
        if not unit.labelled or unit.heading:
            continue
        cells = [c.strip(" *_.`") for c in re.split(r";|:", unit.text, maxsplit=1)]
        if len(cells) != 2 or ";" in cells[1] or not cells[0] or not cells[1]:
            continue
        label, value = cells
        if re.search(r"\d", value) or len(value.split()) > 2:
            continue
        out.append((label, value.replace("\ufe0f", ""), unit))
    return out


def _sign(value: str) -> int | None:
    """+1 for a yes (✅, "yes", "open", "approved"), -1 for a no (❌, "no", "closed", "not
    included"), None for a value that says neither ("Admin")."""
    low = value.casefold()
    if low in _YES:
        return 1
    if low in _NO:
        return -1
    if V.polarity(low)[1]:
        return -1
    poles = [V._POLE[w][1] for w in _WORD.findall(low) if w in V._POLE]
    return 1 if poles and all(p > 0 for p in poles) else None


def _stems(text: str) -> set[str]:
    return {
        V._stem(_PARTICLE.sub("", w).casefold())
        for w in _WORD.findall(text)
        if w.casefold() not in V.STOPWORDS
    }


def _names(label: str, unit: Unit, clause: str, facts: list[F.Fact]) -> bool:
    """Whether ``clause`` (with ``facts``) names the thing ``label`` labels: its weekday, or all
    its words."""
    days = [f for f in unit.facts if f.kind == "weekday" and f.surface in label]
    if days:
        return len(days) == 1 and any(F.facts_match(days[0], f) for f in facts)
    mine = _stems(label)
    return bool(mine) and mine <= _stems(clause)


def _said_sign(parts: list[str], k: int, value: str) -> int | None:
    """The polarity clause ``k`` of a sentence gives its thing: a negation of its own says no; a
    bare member ("…, and macOS") has the sign of the clause before it; a clause that states the
    thing with the value's other pole ("open" for "closed"), or a yes/no value's thing, says yes."""
    check = value.casefold() in _YES | _NO
    for at in range(k, -1, -1):
        part = parts[at]
        if V.polarity(part)[1] or _EXCEPT.search(_words(part)):
            return -1
        if len(_stems(part)) > 1 or at == 0:
            break
    if check:
        return 1
    poles = {V._POLE[w][0] for w in _WORD.findall(value.casefold()) if w in V._POLE}
    said = {
        V._POLE[w][0]
        for p in parts[: k + 1]
        for w in _WORD.findall(p.casefold())
        if w in V._POLE and V._POLE[w][1] > 0
    }
    return 1 if poles & said else None


def word_values(g_units: list[Unit], n_units: list[Unit]) -> list[tuple[str, str, str, str]]:
    """``(kind, label, golden text, new text)`` for a word value said otherwise (module doc): a
    value word negated on the other side ("Status: approved" → "was not approved"), a thing
    given the other yes/no ("Windows: ❌" → "works on Windows"), a word value moved to another
    row's thing ("Dana: Admin, Eli: Viewer" → "Dana is a viewer")."""
    for mine, others, flip in ((g_units, n_units, False), (n_units, g_units, True)):
        pairs = _label_pairs(mine)
        theirs = {V._stem(lab.casefold()): (val, u) for lab, val, u in _label_pairs(others)}
        column = {V._stem(v.casefold()) for _, v, _ in pairs if _sign(v) is None}
        for label, value, unit in pairs:
            sign = _sign(value)
            own = V._stem(value.casefold())
            for other in others:
                if other.labelled or other.heading:
                    continue
                parts = _CLAUSE_END.split(other.text)
                for k, part in enumerate(parts):
                    facts = [f for f in other.facts if f.surface in part]
                    hit = None
                    if sign is not None and _names(label, unit, part, facts):
                        said = _said_sign(parts, k, value)
                        if said is not None and said != sign:
                            hit = ("polarity", f"yes/no of {label} changed ({value})")
                    elif sign is not None and own in _stems(part) and len(own) > 2:
                        negated = V.polarity(part)[0] == 1
                        if negated != (sign < 0) and value.casefold() not in _YES | _NO:
                            hit = ("polarity", f"value negated ({label}: {value})")
                    if sign is None and _names(label, unit, part, facts):
                        moved = (_stems(part) & column) - {own}
                        if moved and own not in _stems(part):
                            hit = ("swap", f"value moved to another row ({label}: {value})")
                    if hit:
                        g, n = (other.text, unit.text) if flip else (unit.text, other.text)
                        return [(hit[0], hit[1], g, n)]
            key = V._stem(label.casefold())
            if sign is None and key in theirs:
                now, there = V._stem(theirs[key][0].casefold()), theirs[key][1]
                if now != own and now in column:
                    g, n = (there.text, unit.text) if flip else (unit.text, there.text)
                    return [("swap", f"value moved to another row ({label}: {value})", g, n)]
    return []
