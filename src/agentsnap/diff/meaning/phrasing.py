"""Phrasings whose words say something other than they seem to, read as what they claim.

* **Restriction, not negation**: French ``ne … que`` says *only* ("n'est couvert que si…" =
  "couvert uniquement si…"); :func:`without_restriction` rewrites it before polarity is read.
* **Obligation said as an idiom**: French ``être tenu de`` says *obliged to*; :func:`plain_polarity`
  writes it so, and ``ne … que`` as above, before polarity is read.
* **Counts said as a multiple or a pair** (:func:`multiple_in`): "triple the ingredients" says
  three, "the pair of workshops" two.
* **Facts said in words or by convention** (:func:`spelled_facts`): a fraction sign is its value
  (``¼`` = ``0.25``), ``a quarter turn`` = ``0.25 turn``, ``five and a half hours`` = ``5.5
  hours`` = ``deux heures et demie`` = ``zweieinhalb Stunden``, ``half a cup`` = ``0.5 cup``, ``only one`` = ``only 1`` (a bare "one" is no count),
  ``midnight`` = ``00:00``, ``noon`` = ``12:00``, clock times said in words (``half past nine``,
  ``quarter to ten``, ``halb zehn``, ``dix heures moins le quart``, ``las nueve y media``) as
  digits (:func:`clock_words`), ``weekdays`` = ``Mon–Fri``, a month's end its last day
  (``Ende März`` = ``31. März``, ``3月末`` = ``3月31日``), a sum in cents its currency's
  hundredth (``20 cents``, ``a 20-cent fine``, ``50 Cent`` = ``0.20``, ``0.50``); the
  fact rules (:mod:`agentsnap.diff.meaning.facts`) then read one form for both.

Standard library only; imports nothing of agentsnap (vocabulary and units import it).
"""

from __future__ import annotations

import re

__all__ = [
    "clock_words",
    "month_end_words",
    "multiple_in",
    "plain_polarity",
    "spelled_facts",
    "without_restriction",
]

#: words that make ``ne … que`` a real negation ("ne … pas que" = "not only", "ne … plus que")
_STILL_NEGATED = frozenset(
    ["pas", "plus", "jamais", "rien", "personne", "guère", "aucun", "aucune"]
)
#: French ``ne``/``n'`` then at most four words, then ``que``: a restriction ("only")
_NE_QUE = re.compile(
    r"\bn(?:e\s+|['’])((?:[^\W\d_]+(?:['’][^\W\d_]+)?\s+){0,3}?[^\W\d_]+(?:['’][^\W\d_]+)?)\s+que?\b",
    re.IGNORECASE,
)


def without_restriction(text: str) -> str:
    """``text`` with each French ``ne … que`` (only) written without its ``ne``: "le vol n'est
    couvert que si…" → "le vol est couvert seulement si…"; "ne … pas que" stays a negation."""

    def plain(match: re.Match[str]) -> str:
        middle = match.group(1)
        if {w.casefold() for w in middle.split()} & _STILL_NEGATED:
            return match.group(0)
        return f"{middle} seulement"

    return _NE_QUE.sub(plain, text)


#: "vous êtes tenu de déclarer" = "vous êtes obligé de déclarer" (not "held")
_HELD_TO = re.compile(r"\b(tenu|tenue|tenus|tenues)(?=\s+(?:de\b|d['’]))", re.IGNORECASE)


#: "stop" as a place, not the end of a process: "the temporary stop", "a bus stop", "stops at
#: Wood Green" (halts there); "the job stops", "stop the service" keep their pole
_PLACE_STOP = re.compile(
    r"\b((?:the|a|an|his|her|its|our|your|their|this|that|each|every|next|last|first|final|"
    r"nearest|bus|tram|request|temporary)\s+)stops?\b|"
    r"\bstop(?:s|ped|ping)?(?= (?:at|near|outside|in front of|in(?! \d))\b)",
    re.IGNORECASE,
)

#: "out of stock" = "not in stock" (a state left: stock, service, order, warranty, print),
#: "en rupture de stock" = "non en stock"
_OUT_OF = re.compile(
    r"\bout of (stock|service|order|warranty|print|range|scope|budget)\b|"
    r"\ben rupture(?: de stock)?\b",
    re.IGNORECASE,
)

#: a lack that conditions: "faute de paiement reçu" = "si le paiement n'est pas reçu" = "without
#: payment received"
_LACK = re.compile(
    r"\b(?:faute d[e']|à défaut d[e']|en l'absence d[e']|mangels|in the absence of|for lack of|"
    r"for want of|a falta de|en ausencia de)",
    re.IGNORECASE,
)

#: a reminder asks for what it names: "don't forget to bring it" = "remember to bring it"
_REMINDER = re.compile(
    r"\b(?:don't|do not|never) forget\b|\bvergessen sie nicht\b|\bvergiss nicht\b|"
    r"\bn'oubliez pas\b|\bn'oublie pas\b|\bno olvide\b|\bno olvides\b|お忘れなく|忘れずに",
    re.IGNORECASE,
)


def _not_in(match: re.Match[str]) -> str:
    return f"not in {match.group(1)}" if match.group(1) else "non en stock"


def plain_polarity(text: str) -> str:
    """``text`` with its phrasings of restriction and obligation written plainly (module doc), a
    state left said as not in it (``out of stock`` = ``not in stock``), a lack as ``without``
    (``faute de paiement``, ``mangels``), a reminder as what it asks (``don't forget to`` =
    ``remember to``), and a stop that is a
    place or a halt at one written ``halt``: what polarity is read from."""
    text = _OUT_OF.sub(_not_in, _HELD_TO.sub("obligé", without_restriction(text)))
    text = _REMINDER.sub("remember", _LACK.sub("without ", text))
    return _PLACE_STOP.sub(r"\1halt", text)


#: a vulgar fraction after NFKC ("¼" → "1⁄4")
_FRACTION = re.compile(r"(?<![\d/])(\d{1,2})⁄(\d{1,2})(?![\d/])")
#: the counts a half is added to in words ("five and a half", "cinco y media")
_COUNTS = {
    word: value
    for words in (
        "one two three four five six seven eight nine ten eleven twelve",
        "eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf",
        "un deux trois quatre cinq six sept huit neuf dix onze douze",
        "uno dos tres cuatro cinco seis siete ocho nueve diez once doce",
    )
    for value, word in enumerate(words.split(), start=1)
}
_COUNTS["una"] = 1  # "la una y media"
_NUMBER_WORD = "|".join(sorted(_COUNTS, key=len, reverse=True))
_HALF_AFTER = re.compile(
    rf"\b(?P<n>\d{{1,3}}|{_NUMBER_WORD})\s+(?:and a half|y medio|y media|et demie?)\b",
    re.IGNORECASE,
)
#: a half said after the thing counted ("deux jours et demi", "dos horas y media", "two days and
#: a half") or run into the German count ("zweieinhalb Tage")
_HALF_AFTER_UNIT = re.compile(
    rf"\b(?P<n>\d{{1,3}}|{_NUMBER_WORD})\s+(?P<unit>[^\W\d_]+)\s+(?:and a half|y medi[oa]|et demie?)\b"
    rf"|\b(?P<de>{_NUMBER_WORD})einhalb\b",
    re.IGNORECASE,
)
#: one thing said to be the only one ("only one of the two servers", "nur eine Datei", "un seul
#: fichier", "una sola vez"): a count of 1 (a bare "one" is an article or a pronoun, no count)
_ONLY_ONE = re.compile(
    r"\b(?:only|just|nur|seulement|solo|sólo)\s+(?:one|eine[nmrs]?|ein|un|une|uno|una)\b|"
    r"\b(?:un seul|une seule|un solo|una sola)\b",
    re.IGNORECASE,
)
#: "half a cup", "half an inch": 0.5 (half an hour is read as minutes by the time rules)
_HALF_A = re.compile(r"\bhalf an?\b(?!\s+hour)", re.IGNORECASE)
#: "a quarter turn", "one quarter of the cake": a quarter; "a quarter of an hour" is read as minutes
_QUARTER = re.compile(r"\b(?:a|one)\s+quarter\b(?!\s+(?:of\s+an?\s+)?hour)", re.IGNORECASE)
_CLOCK_WORDS = {
    "midnight": "00:00",
    "mitternacht": "00:00",
    "minuit": "00:00",
    "medianoche": "00:00",
    "noon": "12:00",
    "midday": "12:00",
    "mittag": "12:00",
    "midi": "12:00",
    "mediodía": "12:00",
}
_CLOCK = re.compile(r"(?<!-)\b(?:" + "|".join(_CLOCK_WORDS) + r")\b", re.IGNORECASE)
#: Monday to Friday said as one word (not "Werktage": in German they include Saturday); "weekday
#: overtime" is paid Monday to Friday too
_WEEKDAYS = re.compile(r"\b(?<![\d]\s)(?:weekdays?|en semaine|entre semana)\b|平日", re.IGNORECASE)
#: each month's last day by its names (February's 28th: a leap year's 29th still differs)
_LAST_DAYS = {
    name: day
    for names, day in [
        ("january januar janvier enero", 31),
        ("february februar février febrero", 28),
        ("march märz mars marzo", 31),
        ("april avril abril", 30),
        ("may mai mayo", 31),
        ("june juni juin junio", 30),
        ("july juli juillet julio", 31),
        ("august août agosto", 31),
        ("september septembre septiembre", 30),
        ("october oktober octobre octubre", 31),
        ("november novembre noviembre", 30),
        ("december dezember décembre diciembre", 31),
    ]
    for name in names.split()
}
#: a month's end said as such ("by the end of March", "bis Ende März", "fin mars", "à la fin du
#: mois de mars", "a finales de marzo", "3月末"): its last day
_MONTH_END = re.compile(
    r"\b(?:(?:the\s+)?end\s+of|ende|(?:la\s+)?fin(?:\s+du\s+mois)?(?:\s+d[e'’]\s*)?|"
    r"(?:a\s+)?(?:finales|fin(?:al)?)\s+de)\s*(?P<m>" + "|".join(_LAST_DAYS) + r")\b|"
    r"(?<![\d０-９])(?P<jm>1[0-2]|[1-9])月末",
    re.IGNORECASE,
)
_JA_LAST_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def month_end_words(text: str) -> set[str]:
    """The words of ``text`` that say a month's end (``Ende``, ``end``, ``finales``): a word
    replaced by one of them says the date the fact rules read, no word of its own."""
    return {
        w.casefold()
        for m in _MONTH_END.finditer(text)
        for w in re.findall(r"[^\W\d_]+", m.group(0))
        if not m.group("m") or w.casefold() != m.group("m").casefold()
    }


def _month_end(match: re.Match[str]) -> str:
    if match.group("jm"):
        month = int(match.group("jm"))
        return f"{month}月{_JA_LAST_DAYS[month - 1]}日"
    name = match.group("m")
    return f"{_LAST_DAYS[name.casefold()]} {name}"


#: a clock time said in words, its hour a number word or 1–12: (pattern, minutes, hour offset)
#: ("half past nine" 9:30, "quarter to ten" 9:45, "halb zehn" 9:30, "Viertel vor zehn" 9:45,
#: "neuf heures et demie" 9:30, "dix heures moins le quart" 9:45, "las diez menos cuarto" 9:45)
_HOUR = rf"(?P<h>1[0-2]|0?[1-9]|{_NUMBER_WORD})"
_CLOCK_PHRASES = [
    (re.compile(rf"\b(?:a\s+)?quarter\s+past\s+{_HOUR}\b", re.IGNORECASE), 15, 0),
    (re.compile(rf"\bhalf\s+past\s+{_HOUR}\b", re.IGNORECASE), 30, 0),
    (re.compile(rf"\b(?:a\s+)?quarter\s+(?:to|of)\s+{_HOUR}\b", re.IGNORECASE), 45, -1),
    (re.compile(rf"\bviertel\s+nach\s+{_HOUR}\b", re.IGNORECASE), 15, 0),
    (
        re.compile(
            rf"\bhalb\s+{_HOUR}\b(?!\s*(?:mal|jahr|monat|woche|tag|stunde|prozent))", re.IGNORECASE
        ),
        30,
        -1,
    ),
    (re.compile(rf"\b(?:viertel\s+vor|dreiviertel)\s+{_HOUR}\b", re.IGNORECASE), 45, -1),
    (re.compile(rf"\b{_HOUR}\s+heures?\s+et\s+quart\b", re.IGNORECASE), 15, 0),
    (re.compile(rf"\b{_HOUR}\s+heures?\s+et\s+demie\b", re.IGNORECASE), 30, 0),
    (re.compile(rf"\b{_HOUR}\s+heures?\s+moins\s+(?:le\s+)?quart\b", re.IGNORECASE), 45, -1),
    (re.compile(rf"\blas?\s+{_HOUR}\s+y\s+cuarto\b", re.IGNORECASE), 15, 0),
    (re.compile(rf"\blas?\s+{_HOUR}\s+y\s+media\b", re.IGNORECASE), 30, 0),
    (re.compile(rf"\blas?\s+{_HOUR}\s+menos\s+cuarto\b", re.IGNORECASE), 45, -1),
]
#: noon and midnight with a half or a quarter ("midi et demi" 12:30, "minuit et quart" 0:15)
_NOON_AND = re.compile(r"\b(midi|minuit)\s+et\s+(demie?|quart)\b", re.IGNORECASE)


def clock_words(text: str) -> str:
    """``text`` with each clock time said in words written as digits (``half past nine`` →
    ``9:30``); the hour is read as said (1–12), so either half of the day matches it."""
    for pattern, minutes, offset in _CLOCK_PHRASES:

        def digits(match: re.Match[str], minutes: int = minutes, offset: int = offset) -> str:
            hour = _count(match.group("h").lstrip("0") or "0")
            if hour is None or not 1 <= hour <= 12:
                return match.group(0)
            hour = (hour + offset - 1) % 12 + 1
            lead = "las " if match.group(0).casefold().startswith("la") else ""
            return f"{lead}{hour}:{minutes:02d}"

        text = pattern.sub(digits, text)
    return _NOON_AND.sub(
        lambda m: (
            f"{12 if m.group(1).casefold() == 'midi' else 0}:"
            f"{30 if m.group(2).casefold().startswith('demi') else 15}"
        ),
        text,
    )


def _count(word: str) -> int | None:
    return int(word) if word.isdigit() else _COUNTS.get(word.casefold())


#: a sum in cents ("20 cents", "a 20-cent fine", "50 Cent", "20 centimes", "20 céntimos"): the
#: hundredth of the currency's unit, written as the unit's amount (0.20)
_CENTS = re.compile(
    r"(?<![\d.,])\b(\d{1,2})[- ](?:cents?|centimes?|céntimos?|centavos?)\b", re.IGNORECASE
)


def spelled_facts(text: str) -> str:
    """``text`` with the facts said in words written as the fact rules read them (module doc)."""
    text = _FRACTION.sub(
        lambda m: f"{int(m.group(1)) / int(m.group(2)):g}" if int(m.group(2)) else m.group(0), text
    )
    text = clock_words(text)
    text = _QUARTER.sub("0.25", text)
    text = _HALF_A.sub("0.5", text)
    text = _ONLY_ONE.sub(lambda m: m.group(0).split()[0] + " 1", text)

    def half(match: re.Match[str]) -> str:
        count = _count(match.group("n"))
        return match.group(0) if count is None else f"{count}.5"

    text = _HALF_AFTER.sub(half, text)

    def half_after_unit(match: re.Match[str]) -> str:
        count = _count(match.group("n") or match.group("de"))
        if count is None:
            return match.group(0)
        return f"{count}.5" + (f" {match.group('unit')}" if match.group("unit") else "")

    text = _HALF_AFTER_UNIT.sub(half_after_unit, text)
    text = _CENTS.sub(lambda m: f"{int(m.group(1)) / 100:.2f}", text)
    text = _CLOCK.sub(lambda m: _CLOCK_WORDS[m.group(0).casefold()], text)
    text = _MONTH_END.sub(_month_end, text)
    return _WEEKDAYS.sub(lambda m: " Mon–Fri " if m.group(0) == "平日" else "Mon–Fri", text)


#: words that say a count of two or three without a number ("a pair of", "triple the amount")
_MULTIPLES = {
    2.0: re.compile(
        r"\b(?:pair|double[ds]?|doubling|twice|twofold|both|doppelt|beide[nr]?|deux fois|"
        r"(?:le|la|les) double|ambos|ambas|el doble)\b",
        re.IGNORECASE,
    ),
    3.0: re.compile(
        r"\b(?:triple[ds]?|tripling|thrice|threefold|dreifach\w*|trois fois|(?:le|la) triple|"
        r"el triple)\b",
        re.IGNORECASE,
    ),
}


def multiple_in(value: object, text: str) -> bool:
    """Whether ``text`` says the bare count ``value`` (2 or 3) as a multiple or a pair."""
    pattern = _MULTIPLES.get(value) if isinstance(value, float) else None
    return bool(pattern and pattern.search(text))
