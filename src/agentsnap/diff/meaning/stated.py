"""A fact of one answer that the other states in another form, so it is neither missing nor new.

Read by :meth:`agentsnap.diff.meaning.reading.Reading._facts` for each fact the other answer does
not match key for key: a 1 said in words or a 2 as a pair (``one second``, ``the pair of
workshops``), a number with a unit restated bare, a name spelled into its words or initials, a
number written inside a name (``level-0``), a value written alike read as a time and a number, a
count that only counts the list it opens (``three documents: A, B and C``) or that the other
answer says by the length of its list (``touches three tables`` / three list items), a 0 said with a
word of none (``0 failed`` = ``no failures``), once a period said as the period alone
(``einmal täglich`` = ``täglich``), an acronym spelled from its start, inside a longer name or
left out where it only names the kind of the next word (``API key`` / ``key``), a time zone by
another of its names (``Eastern`` / ``ET``), an acronym of a kind of thing beside a value the
other states (``the API returns HTTP 429`` / ``a 429 response``).
"""

from __future__ import annotations

import re

from . import facts as F
from . import vocabulary as V
from .clues import _LIST_SEPARATOR, _ONE, _name_in, denied_correction, one_unit_in
from .derived import derived, whole_said
from .layout import by_initials, rows_counted, same_written
from .phrasing import multiple_in
from .quantities import CURRENCY
from .units import Unit

__all__ = ["accounted", "counted", "list_counted", "stated"]


def accounted(
    fact: F.Fact,
    own: list[Unit],
    k: int,
    others: list[Unit],
    other_facts: list[tuple[int, F.Fact]],
    own_text: str,
    other_text: str,
    other_words: set[str],
) -> bool:
    """Whether the other answer states ``fact`` of ``own[k]`` after all, though no fact of it
    matches key for key (module doc), or denies it on the way to the right value, or counts it
    by a list or a table of as many members, or ``fact`` is worked out from numbers both state
    (:mod:`.derived`)."""
    return (
        stated(fact, other_facts, other_text, other_words, own_text)
        or denied_correction(fact, own[k], [o for _, o in other_facts])
        or counted(own, k, fact, other_text)
        or rows_counted(fact, others, own_text)
        or list_counted(fact, own_text, others)
        or derived(fact, own, others)
        or whole_said(fact, own, others)
    )


def _single(fact: F.Fact, other_text: str) -> bool:
    """A 1 the other text says in words ("1 second" / "one second", "a second"), a 2 or
    3 it says as a pair or a multiple ("two workshops" / "the pair of workshops")."""
    if fact.kind != "number" or fact.key[1] != "":  # "once" (1, x): a frequency
        return False
    return (fact.key[0] == 1.0 and bool(_ONE.search(other_text))) or multiple_in(
        fact.key[0], other_text
    )


def stated(
    fact: F.Fact, others: list[tuple[int, F.Fact]], text: str, words: set[str], own: str
) -> bool:
    """Whether the other text states ``fact`` after all: a bare number may restate a
    number with a unit anywhere in it ("two-year fix" … "Two fixed products"), a name
    may be spelled into its words or its initials (:mod:`.layout`), a number written
    inside a name ("level-0"), a value written alike read as a time and a number."""
    return (
        any(F.facts_match(fact, other) for _, other in others)
        or _single(fact, text)
        or one_unit_in(fact, text)
        or (fact.kind == "name" and _name_in(fact, words, text))
        or (fact.kind == "number" and _in_a_name(fact, others))
        or by_initials(fact, own, text)
        or same_written(fact, [other for _, other in others])
        or _zero_said(fact, own, text)
        or _once_said(fact, own, text, [other for _, other in others])
        or _acronym_said(fact, own, text, [other for _, other in others])
        or _zone_said(fact, text)
        or _kind_named(fact, own, [other for _, other in others])
    )


#: time zones, each by its words and its abbreviations ("3:30 PM Eastern" = "15:30 ET")
_ZONES = [
    "eastern et est edt",
    "central ct cst cdt",
    "mountain mt mst mdt",
    "pacific pt pst pdt",
    "cet mez",
    "cest mesz",
    "gmt utc greenwich",
    "jst 日本時間",
]
_ZONE = {word: k for k, words in enumerate(_ZONES) for word in words.split()}


def _zone_said(fact: F.Fact, other: str) -> bool:
    """A time zone the other text names by another of its names ("Eastern" / "ET")."""
    zone = _ZONE.get(fact.surface.casefold()) if fact.kind == "name" else None
    return zone is not None and any(
        _ZONE.get(w) == zone for w in V.tokens(other) if w != fact.surface.casefold()
    )


#: acronyms that name a kind of thing, not one thing ("the API returns 429" = "you get a 429")
_KINDS = frozenset(
    (  # noqa: SIM905 - a word list reads better as text
        "API APIS CI CD URL UI DB SDK CLI PR VM CPU RAM OS ID PDF FAQ HTTP HTTPS DNS SSL TLS VPN "
        "JSON CSV SQL"
    ).split()
)


def _kind_named(fact: F.Fact, own: str, others: list[F.Fact]) -> bool:
    """An acronym of a kind of thing (:data:`_KINDS`) said in one answer only, beside a value
    the other states, the other naming no such kind in its place ("the API returns HTTP 429" /
    "you get a 429 response"; not "the API" / "the CLI", nor "through the API" / "through the
    web form", where the acronym is all the sentence says)."""
    if fact.kind != "name" or fact.surface not in _KINDS:
        return False
    mine = set(re.findall(r"\b[A-Z]{2,5}\b", own))
    if any(o.kind == "name" and o.surface in _KINDS - mine for o in others):
        return False
    sentence = next((p for p in re.split(r"[.!?\n]\s", own) if fact.surface in p), "")
    values = {o.surface for o in others if o.kind != "name"}
    return any(v in sentence for v in values)


def counted(units: list[Unit], i: int, fact: F.Fact, other: str) -> bool:
    """Whether number ``fact`` of unit ``i`` only counts the list it opens ("these three things:"
    above three items; "three documents: A, B and C") and the ``other`` answer names every member
    of that list: the count is then the list's, and the list is compared."""
    value = fact.key[0] if fact.kind == "number" and fact.key[1:] == ("",) else None
    if not isinstance(value, float) or not value.is_integer() or not 2 <= value <= 12:
        return False
    text = units[i].text
    after = text[text.find(fact.surface) + len(fact.surface) :] if fact.surface in text else ""
    if ":" not in after:
        return False
    listed = after.split(":", 1)[1]
    if listed.strip():
        items = [p for p in _LIST_SEPARATOR.split(listed.rstrip(" .")) if p.strip()]
    else:
        items = []
        for unit in units[i + 1 :]:
            if not unit.step:
                break
            items.append(unit.text)
    if len(items) != value:
        return False
    words = {V._stem(w) for w in V.content_words(other)}
    for item in items:
        own = {V._stem(w) for w in V.content_words(item)}
        if own and len(own & words) * 2 < len(own):
            return False  # a member the other answer leaves out: the count may be the change
    return True


def list_counted(fact: F.Fact, own: str, others: list[Unit]) -> bool:
    """Whether bare count ``fact`` of ``own`` ("The migration touches three tables.") is the
    length of a list the other answer lays out (three items in a row, each saying words of
    ``own``): the list states the count, and its members are compared one by one."""
    value = fact.key[0] if fact.kind == "number" and fact.key[1:] == ("",) else None
    if not isinstance(value, float) or not value.is_integer() or not 2 <= value <= 12:
        return False
    words = {V._stem(w) for w in V.content_words(own)}
    runs: list[int] = []
    run = 0
    for unit in [*others, None]:
        if unit is not None and unit.step:
            own_words = {V._stem(w) for w in V.content_words(unit.text)}
            run = run + 1 if own_words and len(own_words & words) * 2 >= len(own_words) else -99
        else:
            runs.append(run)
            run = 0
    return runs.count(int(value)) == 1 and not any(r > 0 and r != value for r in runs)


def _in_a_name(fact: F.Fact, others: list[tuple[int, F.Fact]]) -> bool:
    """A number the other text writes inside a name ("level 0" / "level-0", "room 12" / "room-12")."""
    return any(
        o.kind == "name" and re.search(rf"(?<![\d.]){re.escape(fact.surface)}(?![\d.])", o.surface)
        for _, o in others
    )


#: a word that says "none of": "0 failed" = "no failures", "0 Fehler" = "keine Fehler"
_NONE_OF = (
    r"(?:no|none|zero|without|not|cannot|can't|never|out of|kein\w*|nicht|ohne|aucun\w*|sans|pas|"
    r"ningun\w*|ninguna|sin)"
    r"(?:\s+[^\W\d_]+)?\s+"
)


def _zero_said(fact: F.Fact, own: str, other: str) -> bool:
    """A count of 0 the other text says with a word of none ("212 passed, 0 failed" / "with no
    failures"): the word counted, before or after the 0, shares its first four letters with a
    word right after (at most one word between) "no", "kein", "aucun", "sin" there."""
    if fact.kind == "number" and fact.key[0] == 0.0 and fact.key[1] in CURRENCY.values():
        return bool(_FREE.search(other))  # "0 €" = "kostenlos"
    found = _standalone(fact.surface, own) if fact.key == (0.0, "") else None
    if fact.kind != "number" or found is None:
        return False
    at = found.start()
    near = own[max(0, at - 20) : at].split()[-1:] + own[at + len(fact.surface) :].split()[:1]
    near += V.tokens(_header_of(own, at))  # a table cell: what its column counts
    stems = [V._stem(w.strip(".,;:()").casefold())[:4] for w in near]
    counted = re.search(r"([\u4e00-\u9fff\u30a0-\u30ff]{2,})\s*$", own[:at])
    if counted and re.search(rf"{re.escape(counted.group(1))}(?:切れ|なし|無し|ゼロ)", other):
        return True  # 「在庫 0個」 = 「在庫切れ」, 「在庫なし」
    if _PRICE.search(" ".join(near) + " " + own[at : at + 12]) and _FREE.search(other):
        return True  # a price of 0 ("| Child under 6 | 0 (free) |", "€0") = "free"
    return any(
        len(stem) == 4 and re.search(rf"\b{_NONE_OF}{re.escape(stem)}", other, re.IGNORECASE)
        for stem in stems
    )


#: what says a 0 is a price: a currency, a price header, "free" beside it
_PRICE = re.compile(
    r"[€$£¥]|\b(?:eur|usd|gbp|price|prices|fee|fees|cost|costs|charge|preis|gebühr|prix|tarif|"
    r"precio|free|gratis|kostenlos|gratuit)\b|料金|価格|無料",
    re.IGNORECASE,
)
#: free of cost in the other text ("children enter free", "kostenlos", "gratuit", "無料")
_FREE = re.compile(
    r"(?<!feel )\b(?:free(?! to\b| up\b)|kostenlos|kostenfrei|gratuit\w*|gratis)\b|無料",
    re.IGNORECASE,
)


def _once_said(fact: F.Fact, own: str, other: str, facts: list[F.Fact]) -> bool:
    """Once a period the other text says as the period alone ("einmal täglich" / "täglich",
    "once a day" / "every day"): the period word after "once" stands in the other text, which
    says no frequency of its own ("twice a day" is no "once a day")."""
    if fact.kind != "number" or fact.key != (1.0, "x") or fact.surface not in own:
        return False
    if any(f.kind == "number" and f.key[1:] == ("x",) for f in facts):
        return False
    after = own[own.find(fact.surface) + len(fact.surface) :].split()[:2]
    period = after[-1].strip(".,;:()").casefold() if after else ""
    return bool(period) and re.search(rf"\b{re.escape(period)}\b", other, re.IGNORECASE) is not None


def _standalone(surface: str, text: str) -> re.Match[str] | None:
    """Where ``surface`` stands in ``text`` as a number of its own (not the 0 of "+01:00")."""
    # a counter may follow ("0個")
    return re.search(
        rf"(?<![\w.,:+-]){re.escape(surface)}(?![^\W\u3040-\u30ff\u4e00-\u9fff]|[.,:]\d)", text
    )


_ACRONYM = re.compile(r"[A-Z]{2,5}")
#: things there are several of, one picked by the acronym before it ("EU region", "HR team",
#: "US customers"): the acronym is no kind of the word but which one
_PARTS = frozenset(
    (  # noqa: SIM905 - a word list reads better as text
        "region regions zone zones office offices team teams department site sites cluster "
        "clusters market markets branch branches division subsidiary entity tenant tenants "
        "customers users staff employees plan tier edition store stores warehouse campus"
    ).split()
)


def _acronym_said(fact: F.Fact, own: str, other: str, facts: list[F.Fact]) -> bool:
    """An acronym the other text says in another way: spelled from its start ("photo ID" /
    "photo identification"), inside a longer name (``VPN`` / ``CorpVPN``), or left out where it only
    names the kind of the next word, which the other text keeps ("API key" / "keys", "VPN error
    809" / "Error 809", "HTTP 429" / "a 429 response"), no name of the other text new to this one."""
    if fact.kind != "name" or not _ACRONYM.fullmatch(fact.surface):
        return False
    short = fact.surface
    low = other.casefold()
    if re.search(rf"(?<![\w]){re.escape(short.casefold())}[^\W\d_]{{5,}}", low):
        return True
    if re.search(rf"[A-Za-z]{short}|{short}[a-z]", other):
        return True
    own_low = own.casefold()
    if any(f.kind == "name" and str(f.key[0]) not in own_low for f in facts):
        return False  # a name put in its place
    heads = re.findall(rf"(?<![\w-]){short}\s+([^\W_][\w-]*)", own)
    if any(not (h[0].isdigit() or V.content_words(h)) for h in heads):
        return False  # "CI is red": the acronym is what the sentence is about
    if any(h.casefold() in _PARTS for h in heads):
        return False  # "the EU region" / "the region": which one of several is the fact
    return bool(heads) and all(
        re.search(rf"(?<![\w-]){re.escape(h)}(?![\d])", other)
        if h[0].isdigit()
        else re.search(rf"(?<!\w){re.escape(V._stem(h.casefold())[:4])}", low)
        for h in heads
    )


def _header_of(text: str, at: int) -> str:
    """The header cell above the table cell at offset ``at`` of ``text`` ("Renewals" above "| 0 |"),
    or "" when ``at`` stands in no Markdown table row."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    row = text[start : end if end >= 0 else len(text)]
    if not row.lstrip().startswith("|"):
        return ""
    column = row[: at - start].count("|") - 1
    lines = text[:start].splitlines()
    table = [line for line in lines if line.lstrip().startswith("|")]
    if not table:
        return ""
    header = [cell.strip() for cell in table[0].strip().strip("|").split("|")]
    return header[column] if 0 <= column < len(header) else ""
