"""Facts a sentence states, pulled out by rules: numbers, times, dates, versions, names, polarity.

Pure functions of one string (no model, standard library only), used by
:mod:`agentsnap.diff.meaning.verdict` to compare two answers fact by fact. Every fact
has a *key* (its normalised value, compared between texts) and a *surface*
(the text as written, shown in reports).

Normalisation rules (a different surface with the same key is the same fact):

* **times** — ``10:30``, ``10.30 am``, ``10h30``, ``10 h 30``, ``10:30 Uhr``,
  ``10時30分``, ``10 am`` (= ``10:00``), ``2:30 pm`` (= ``14:30``). A time
  without am/pm and an hour of 1–12 also matches the same time + 12 h.
* **dates** — month names in English, German and French (``March 3``,
  ``3rd of March``, ``3. März``, ``le 3 mars``), ISO ``2026-03-03``,
  ``3月3日``; key ``(month, day)``; a year is a separate number. Weekdays in
  the same languages and Japanese (``Monday``, ``Montag``, ``lundi``,
  ``月曜日``).
* **versions** — ``v2.3.1`` / ``2.3.1`` (two or more dots).
* **numbers** — thousands groups with ``,`` ``.`` space or narrow space
  (``1,000`` = ``1000`` = ``1.000`` = ``1 000``: a separator followed by
  exactly three digits groups thousands, any other is a decimal point, so
  ``1,5`` = ``1.5``); currency signs and codes (``$40`` = ``40 USD`` =
  ``40 dollars``), percent (``%``, ``percent``, ``Prozent``, ``pour cent``)
  and other units glued or after a space (``5 GB``, ``18°C``); number words
  ``zero``–``twenty``, tens, ``hundred``/``thousand``/``million`` in English,
  ``null``–``zwölf`` in German, ``zéro``–``douze`` in French (``one``/``ein``/
  ``un`` count only as ``one``/``eins``/``une`` after no article-like word).
  Ordinals drop their suffix (``3rd`` = 3). List markers (``1.`` at the start
  of a line) are not numbers.
* **names** — identifiers (file names with an extension, paths, URLs, e-mail
  addresses, ``snake_case``/``camelCase``/``kebab-case-1`` words, words with
  digits such as ``eu-west-1``, anything in backticks or quotes) and
  capitalised words that do not start a sentence (in German, where every
  noun is capitalised, only all-caps or mixed-case words and words right
  after ``nach``/``aus``/``von``/``bei``/``in``/``an``/``Herr``/``Frau``).
* **polarity** — negation words (English ``not``/``no``/``never``/``n't`` …,
  German ``nicht``/``kein…``/``nie`` …, French ``ne``/``n'``/``sans``,
  Japanese ``ない``/``ません``/``ず``) plus the negative pole of antonym pairs
  (``failed`` of pass/fail, ``closed`` of open/closed, ``disabled`` of
  enable/disable, ``無効`` of 有効/無効 …): a sentence's polarity is the
  parity of their count, so "no open issues" and "all issues are closed"
  agree, "the build passed" and "the build failed" do not.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

from .quantities import (
    BASE,
    CUR_RE,
    CURRENCY,
    FREQUENCY,
    FREQUENCY_WORDS,
    KANJI_NUMBER,
    MAN_NUMBER,
    PART_HOURS,
    PART_SECONDS,
    SCALE,
    SCALES,
    UNIT_RE,
    UNITS,
    base_unit,
    kanji_value,
    number_context,
    number_value,
    unit_after,
)
from .vocabulary import (
    _GERMAN_NAME_AFTER,
    _MONTHS,
    _NUMBER_WORDS,
    _POLE,
    _SHORT_DAYS,
    _WEEKDAYS,
    _WORD,
    COMPOUND_NUMBER,
    COMPOUND_ONES,
    COMPOUND_TENS,
    DAY_ABBREVIATIONS,
    DAY_PAIR,
    STOPWORDS,
    detect_german,
)

__all__ = [
    "Fact",
    "extract",
    "facts_match",
    "mid_capitals",
    "normalise",
]


class Fact(NamedTuple):
    """One fact of a sentence: ``kind`` (``time``, ``date``, ``weekday``, ``version``, ``number``, ``name``), ``key``, ``surface``."""

    kind: str
    key: tuple[object, ...]
    surface: str


#: endings only German common nouns have ("Rechnung", "Freiheit", "Mannschaft", "Kenntnis")
_GERMAN_NOUN = re.compile(r"(?:ung|heit|keit|schaft|tion|ität|nis|tum|ismus)s?$")


def normalise(text: str) -> str:
    """NFKC, curly quotes to straight ones, runs of whitespace to one space, stripped."""
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = (
        text.replace("«", '"')
        .replace("»", '"')
        .replace("„", '"')
        .replace("「", '"')
        .replace("」", '"')
    )
    return " ".join(text.split())


# --------------------------------------------------------------------------- extraction

_TIME = re.compile(
    r"(?<![0-9A-Za-zÀ-ÿ_.:])(?P<h>[01]?\d|2[0-3])\s?(?:[:.h]|時)\s?(?P<m>[0-5]\d)(?:分)?(?![\d])"
    r"(?:\s?(?P<ap>[ap]\.?\s?m\.?(?![a-z])|uhr|h(?![a-z])))?|"
    r"(?<![\w.:])(?P<h2>1[0-2]|0?[1-9])\s?(?P<ap2>[ap]\.?\s?m\.?)(?![a-z])|"
    r"(?P<ja_ap>午前|午後)?(?P<h3>[01]?\d|2[0-3])時(?:(?P<half>半)|(?P<ja_m>[0-5]?\d)分)?(?!間)",
    re.IGNORECASE,
)
_ISO_DATE = re.compile(r"(?<!\d)(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})(?!\d)")
_JA_DATE = re.compile(r"(?:(?P<y>\d{4})年)?(?P<mo>\d{1,2})月(?P<d>\d{1,2})日")
_MONTH_WORD = "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True))
_DATE_MD = re.compile(
    rf"\b(?P<mon>{_MONTH_WORD})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?![:.]\d)(?:,?\s+(?P<y>\d{{4}}))?",
    re.IGNORECASE,
)
_DATE_DM = re.compile(
    rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th|er|\.)?\s+(?:(?:of|de)\s+)?(?P<mon>{_MONTH_WORD})\b\.?(?:,?\s+(?:de\s+)?(?P<y>\d{{4}}))?",
    re.IGNORECASE,
)
_VERSION = re.compile(
    r"(?<![\w.])v?(?P<v>\d+\.\d+\.\d+(?:\.\d+)*(?:[-+][\w.]+)?)(?![\w])|(?<![\w.])v(?P<v2>\d+(?:\.\d+)?)\b"
)
_NUMBER = re.compile(
    rf"(?<![.,])(?<![^\W\u3040-\u30ff\u4e00-\u9fff])(?P<cur>{CUR_RE})?\s?(?P<num>\d{{1,3}}(?:[,. \u202f\u00a0']\d{{3}})+(?![\d])(?:[.,]\d+)?|\d+(?:[.,]\d+)?)"
    rf"(?P<ord>st|nd|rd|th|er|e|ème)?(?:\s?(?P<unit>{UNIT_RE})(?![^\W\d_\u3040-\u30ff\u4e00-\u9fff]))?(?:\s?(?P<cur2>{CUR_RE})(?![^\W\d_]))?",
    re.IGNORECASE,
)
_IDENT = re.compile(
    r"`(?P<code>[^`\n]{1,80})`|"
    r"(?P<url>https?://[^\s)>\]]+)|"
    r"(?P<mail>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)|"
    r"(?P<path>(?<![$€£¥\d])(?=[\w.-]*[^\W\d_])(?:[^\W\u3040-\u30ff\u4e00-\u9fff]|[.-])*/(?:(?:[^\W\u3040-\u30ff\u4e00-\u9fff]|[.-])*/)*(?:[^\W\u3040-\u30ff\u4e00-\u9fff]|[.-])+|[\w-]+\.(?:py|js|ts|json|yaml|yml|toml|md|txt|csv|log|sh|cfg|ini|html|css|sql|go|rs|java|xml|env|lock|pdf|docx|xlsx|png|jpg)\b)|"
    r"(?P<ident>\b[a-z]+(?:_[a-z0-9]+)+\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Za-z]+(?:-[A-Za-z0-9]+)*-\d+[a-z]?\b|\b[A-Z]{2,}[A-Z0-9]*\b|\b[A-Z]+\d+[A-Z0-9]*\b)"
)
#: dates in digits: 03.06.2025 (day first), 2025/04/01 (year first), 12/09 or 09/12/2025 (day and
#: month in either order: a key ("?", a, b) matches a date of either reading)
_NUMERIC_DATE = re.compile(
    r"(?<![\d.,/])(?:(?P<y1>\d{4})/(?P<m1>\d{1,2})/(?P<d1>\d{1,2})|(?P<d2>\d{1,2})\.(?P<m2>\d{1,2})\.(?P<y2>\d{4})"
    r"|(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<y3>\d{4}|\d{2}))?)(?![\d/])"
)
#: a day and month the German way, with no year: "am 04.11." (two digits each, or after a preposition)
_DAY_MONTH = re.compile(
    r"(?:(?<![\d.,])(?P<d>\d{2})\.(?P<m>\d{2})\.|"
    r"\b(?:am|den|vom|bis|ab|zum|seit)\s+(?P<d2>\d{1,2})\.(?P<m2>\d{1,2})\.)(?!\d)",
    re.IGNORECASE,
)
#: an hour said with a word for the day's part: "a las 9 de la noche", "9 in the evening", "à 14 h"
_HOUR_WORDS = re.compile(
    r"\b(?P<h>1[0-2]|0?[1-9])\s+(?:de la (?P<es>noche|tarde|mañana|madrugada)|"
    r"(?:o'clock\s+)?in the (?P<en>morning|afternoon|evening)|at night)\b|"
    r"(?:\b(?:à|dès|entre|et|vers|avant|après|jusqu'à)\s+|:\s*)(?P<fr>[01]?\d|2[0-3])\s?h(?![\w])(?!\s?[0-5]\d)",
    re.IGNORECASE,
)
#: a full hour the German way: 14 Uhr
_UHR = re.compile(
    r"(?<![\d:.])(?P<h>[01]?\d|2[0-3])(?:\s?(?:und|bis|-|–)\s?(?P<h2>[01]?\d|2[0-3]))?\s?Uhr\b",
    re.IGNORECASE,
)
#: a rate written with a slash ("sessions/month", "Price/month", "ct/kWh"): no file path, no name
_PER_UNIT = re.compile(
    r"^[^\W\d_]+/(?:month|mo|day|year|yr|hour|hr|h|week|wk|user|person|night|seat|unit|kwh|mwh|"
    r"gb|mb|kg|km|min|s|sec|monat|tag|jahr|stunde|mois|jour|an|nuit|mes|día|año|noche)$",
    re.IGNORECASE,
)
_QUOTED = re.compile(r'"([^"\n]{1,60})"')
_LIST_MARKER = re.compile(r"^\s*(?:[-*+•·]|\d{1,2}[.)]|\(\d{1,2}\)|[a-z][.)])\s+", re.IGNORECASE)


def _minutes(h: int, m: int, ap: str | None) -> tuple[int, bool]:
    """Minutes since midnight and whether the half of the day is known."""
    ap = (ap or "").lower().replace(".", "").replace(" ", "")
    if ap.startswith("p") and h < 12:
        return (h + 12) * 60 + m, True
    if ap.startswith("a") and h == 12:
        return m, True
    if ap.startswith(("a", "p")) or h > 12 or h == 0:
        return h * 60 + m, True
    return h * 60 + m, ap in ("uhr", "h")


#: a bare hour that starts a range ending in a time ("von 9 bis 12:30 Uhr", "de 9 h à 12 h 30")
_RANGE_START = re.compile(
    r"(?<![\d:.,/])(?P<hour>(?P<h>[01]?\d|2[0-3])(?:\s?h\b)?)\s*(?:bis|to|until|till|–|-|à|a|hasta)\s*"
    r"(?=(?:[01]?\d|2[0-3])(?:\s?[:h]\s?\d{2}|\.\d{2}\s?(?:Uhr|[ap]\.?m\b)|\s?(?:Uhr|h\b|[ap]\.?m\b)))",
    re.IGNORECASE,
)
#: a list number at a line's start; not the day of a date ("4. Juni, 7:42 Uhr")
_LIST_NUMBER = re.compile(rf"^\s*\d{{1,2}}[.)]\s(?!\s*(?:{_MONTH_WORD})\b)", re.IGNORECASE)


def extract(
    text: str, *, german: bool | None = None, known_names: frozenset[str] = frozenset()
) -> list[Fact]:
    """Every fact of ``text`` in order of appearance (rules in the module doc).

    ``german``: treat capitalised words as German nouns (default: :func:`detect_german`).
    ``known_names``: words that count as names even at the start of a sentence
    (the mid-sentence capitals of the other text of a pair, :func:`mid_capitals`).
    Never raises; linear in the length of the text.
    """
    # list markers at line starts are not numbers: drop them before the lines are joined
    # (lines stay lines: a line break starts a sentence for the name rule)
    text = "\n".join(normalise(_LIST_NUMBER.sub("", line)) for line in text.splitlines())
    taken = [False] * (len(text) + 1)
    found: list[tuple[int, Fact]] = []

    def free(a: int, b: int) -> bool:
        return not any(taken[a:b])

    def take(a: int, b: int) -> None:
        for i in range(a, b):
            taken[i] = True

    for match in DAY_PAIR.finditer(text):  # "Mo.–Fr.", "Tue/Thu": two weekdays, no path
        take(match.start(), match.end())
        for group in (1, 2):
            day = DAY_ABBREVIATIONS[match.group(group).casefold()]
            found.append((match.start(group), Fact("weekday", (day,), match.group(group))))
    for match in _NUMERIC_DATE.finditer(text):
        groups = match.groupdict()
        if match.group(0) == "24/7":  # around the clock: neither the 24th of July nor numbers
            take(match.start(), match.end())
            continue
        if groups["y1"] or groups["y2"]:
            month, day = int(groups["m1"] or groups["m2"]), int(groups["d1"] or groups["d2"])
            key: tuple[object, ...] = (month, day)
            if not (1 <= month <= 12 and 1 <= day <= 31):
                continue
        else:
            a, b = int(groups["a"]), int(groups["b"])
            if not (1 <= a <= 31 and 1 <= b <= 31 and min(a, b) <= 12):
                continue
            key = (b, a) if a > 12 else (a, b) if b > 12 else ("?", a, b)
        take(match.start(), match.end())
        found.append((match.start(), Fact("date", key, match.group(0))))
        year = groups["y1"] or groups["y2"] or groups["y3"]
        if year and len(year) == 4:
            found.append((match.start(), Fact("year", (int(year),), year)))
    for match in _DAY_MONTH.finditer(text):
        day, month = (
            int(match.group("d") or match.group("d2")),
            int(match.group("m") or match.group("m2")),
        )
        if free(match.start(), match.end()) and 1 <= day <= 31 and 1 <= month <= 12:
            take(match.start(), match.end())
            start = match.start("d") if match.group("d") else match.start("d2")
            found.append((start, Fact("date", (month, day), text[start : match.end()])))
    for match in _HOUR_WORDS.finditer(text):
        hour = match.group("h") or match.group("fr")
        if not free(match.start(), match.end()):
            continue
        part = (match.group("es") or match.group("en") or "").lower()
        late = part in ("noche", "tarde", "afternoon", "evening") or (
            not part and not match.group("fr")
        )
        minutes, known = _minutes(int(hour), 0, "pm" if late else "am" if part else "h")
        start = match.start("h") if match.group("h") else match.start("fr")
        take(match.start(), match.end())
        found.append((start, Fact("time", (minutes, known), text[start : match.end()].strip())))
    for match in _UHR.finditer(text):
        if free(match.start(), match.end()):
            take(match.start(), match.end())
            for hour in ("h", "h2"):
                if match.group(hour):
                    fact = Fact(
                        "time", (int(match.group(hour)) * 60, True), match.group(hour) + " Uhr"
                    )
                    found.append((match.start(hour), fact))
    for match in _IDENT.finditer(text):
        if not free(match.start(), match.end()):
            continue
        value = next(g for g in match.groups() if g)
        if match.group("ident") and value.isupper() and len(value) <= 3 and value.lower() in UNITS:
            continue
        if match.group("ident") and value.isupper() and value.lower() in CURRENCY:
            continue
        if match.group("ident") and value.lower() in ("am", "pm"):  # 10:00 AM: the time's half
            continue
        if match.group("path") and _PER_UNIT.match(value):  # "sessions/month", "ct/kWh": a rate
            continue
        take(match.start(), match.end())
        found.append((match.start(), Fact("name", (value.casefold().rstrip(".,"),), value)))
    for pattern, kind in ((_ISO_DATE, "iso"), (_JA_DATE, "ja"), (_DATE_MD, "md"), (_DATE_DM, "dm")):
        for match in pattern.finditer(text):
            if not free(match.start(), match.end()):
                continue
            try:
                day = int(match.group("d"))
                month = (
                    int(match.group("mo"))
                    if kind in ("iso", "ja")
                    else _MONTHS[match.group("mon").lower().rstrip(".")]
                )
            except (KeyError, ValueError):
                continue
            if (
                kind in ("md", "dm")
                and match.group("mon").lower() in _SHORT_DAYS
                and match.group("mon")[0].islower()
            ):
                continue
            if not (1 <= day <= 31 and 1 <= month <= 12):
                continue
            take(match.start(), match.end())
            found.append((match.start(), Fact("date", (month, day), match.group(0))))
            if match.group("y"):
                found.append(
                    (match.start(), Fact("year", (int(match.group("y")),), match.group("y")))
                )
    for match in _VERSION.finditer(text):
        grouped = re.fullmatch(r"\d{1,3}(?:\.\d{3})+", match.group(0))  # 3.000.000 €: a number
        if free(match.start(), match.end()) and not grouped:
            take(match.start(), match.end())
            version = match.group("v") or match.group("v2")
            found.append((match.start(), Fact("version", (version,), match.group(0))))
    for match in _RANGE_START.finditer(text):  # "von 9 bis 12:30 Uhr": the 9 is 9:00
        if free(match.start(), match.end("hour")):
            take(match.start(), match.end("hour"))
            minutes, known = _minutes(int(match.group("h")), 0, None)
            found.append((match.start(), Fact("time", (minutes, known), match.group("hour"))))
    for match in _TIME.finditer(text):
        if not free(match.start(), match.end()):
            continue
        if match.group("h") is not None:
            h, m, ap = int(match.group("h")), int(match.group("m")), match.group("ap")
            sep = text[match.start("h") + len(match.group("h")) : match.start("m")].strip()
            if sep == "." and not ap:
                continue  # 10.30 without am/pm/Uhr is a decimal
        elif match.group("h2") is not None:
            h, m, ap = int(match.group("h2")), 0, match.group("ap2")
        else:
            h = int(match.group("h3"))
            m = 30 if match.group("half") else int(match.group("ja_m") or 0)
            ja = match.group("ja_ap")
            ap = "pm" if ja == "午後" else ("am" if ja == "午前" else None)
        minutes, known = _minutes(h, m, ap)
        take(match.start(), match.end())
        surface = match.group(0).strip()
        if surface.endswith(".") and not re.search(r"[ap]\.\s?m\.$", surface, re.IGNORECASE):
            surface = surface[:-1]  # the sentence's full stop
        found.append((match.start(), Fact("time", (minutes, known), surface)))
    for match in FREQUENCY.finditer(text):  # "twice a day" = "two times daily"
        if free(match.start(), match.end()):
            count = (match.group("n") or match.group("n2")).casefold()
            value = FREQUENCY_WORDS.get(count) or _NUMBER_WORDS.get(count) or number_value(count)
            if value is not None:
                take(match.start(), match.end())
                found.append((match.start(), Fact("number", (float(value), "x"), match.group(0))))
    for match in MAN_NUMBER.finditer(text):  # 1万2800円 = 12,800円
        if free(match.start(), match.end()):
            rest = float(match.group(2)) * 1000 if match.group(2) else float(match.group(3) or 0)
            value = float(match.group(1)) * 10_000 + rest
            take(match.start(), match.end())
            cur = "JPY" if match.group(4) else ""
            found.append((match.start(), Fact("number", (value, cur), match.group(0))))
    for match in _NUMBER.finditer(text):
        if not free(match.start("num"), match.end("num")):
            continue
        value = number_value(match.group("num"))
        if value is None:
            continue
        cur = match.group("cur") or match.group("cur2") or ""
        raw_unit = match.group("unit") or ""
        unit = raw_unit.lower()
        end = match.end()
        if unit == "k":  # 10k = 10,000
            value, unit = value * 1000, ""
        elif raw_unit == "M" or (raw_unit == "B" and cur):  # 1.2 M events, $4.2M, €3B
            value, unit = value * (1e6 if raw_unit == "M" else 1e9), ""
        scale = SCALE.match(text, end)
        if scale and not unit:  # 2 million = 2,000,000 (the scale word is part of the number)
            value, end = value * SCALES[scale.group(1).casefold().rstrip(".")], scale.end()
            sign = re.match(rf"\s?({CUR_RE})(?![^\W\d_])", text[end : end + 8])
            if sign and not cur:  # "3 Mio. €"
                cur, end = sign.group(1), end + sign.end()
        value = round(value, 9)
        key_unit = CURRENCY.get(cur.lower(), "") or UNITS.get(unit, "")
        value, key_unit = base_unit(value, key_unit)
        take(match.start(), end)
        found.append(
            (match.start(), Fact("number", (value, key_unit), text[match.start() : end].strip()))
        )
    for match in PART_HOURS.finditer(text):  # "every half hour" = "every 30 minutes"
        if free(match.start(), match.end()):
            take(match.start(), match.end())
            seconds = next(v for k, v in PART_SECONDS.items() if re.search(k, match.group(0), re.I))
            found.append((match.start(), Fact("number", (seconds, "s"), match.group(0))))
    for match in KANJI_NUMBER.finditer(text):  # 三日 = 3日
        value = kanji_value(match.group(1))
        if value > 1 and free(match.start(), match.end()):
            take(match.start(), match.end())
            unit = UNITS.get(match.group(2), "")
            found.append((match.start(), Fact("number", base_unit(value, unit), match.group(0))))
    # compound number words: "twenty-five", "vingt-cinq", "fünfundzwanzig"
    for match in COMPOUND_NUMBER.finditer(text):
        if not free(match.start(), match.end()):
            continue
        tens, ones = (
            (match.group(1) or match.group(4)).lower(),
            (match.group(2) or match.group(3)).lower(),
        )
        value = (COMPOUND_TENS.get(tens) or _NUMBER_WORDS.get(tens) or 0) + (
            COMPOUND_ONES.get(ones) or _NUMBER_WORDS.get(ones) or 0
        )
        take(match.start(), match.end())
        key = base_unit(float(value), unit_after(text, match.end()))
        found.append((match.start(), Fact("number", key, match.group(0))))
    # number words
    for match in _WORD.finditer(text):
        word = match.group(0)
        lower = word.casefold()
        if lower in _NUMBER_WORDS and free(match.start(), match.end()):
            if lower in ("one", "une", "eins", "zero"):  # "zero" is read as "no" (a negation)
                pass  # "one" is an article, a pronoun or "a": "one-year terms" = "annual terms"
            elif (
                lower == "deux"
                and text[max(0, match.start() - 4) : match.start()].lower() == "les "
            ):
                pass  # "les deux" = "both"
            elif lower in (
                "sept",
                "an",
                "null",
                "elf",
                "cent",
                "neuf",
                "once",
            ) and not number_context(text, match.end()):
                pass
            else:
                key = base_unit(float(_NUMBER_WORDS[lower]), unit_after(text, match.end()))
                found.append((match.start(), Fact("number", key, word)))
        if (
            lower in _WEEKDAYS
            and free(match.start(), match.end())
            and not (lower in _SHORT_DAYS and word[0].islower())
        ):
            found.append((match.start(), Fact("weekday", (_WEEKDAYS[lower],), word)))
    for name, day in _WEEKDAYS.items():
        if not name.isascii():
            spelled = re.escape(name) if name.endswith("日") else re.escape(name) + r"(?!日)"
            for hit in re.finditer(spelled, text):
                found.append((hit.start(), Fact("weekday", (day,), name)))
    found += [(pos, fact) for pos, fact in _names(text, german, known_names)]
    for match in _QUOTED.finditer(text):
        found.append((match.start(), Fact("name", (match.group(1).casefold(),), match.group(0))))
    found.sort(key=lambda item: item[0])
    return _durations(text, [fact for _, fact in found])


#: what may stand between the parts of one duration: "12 min 30 s", "1 hour and 15 minutes"
_DURATION_GAP = re.compile(r"^[\s,]*(?:and|und|et|y)?[\s,]*$", re.IGNORECASE)


def _durations(text: str, facts: list[Fact]) -> list[Fact]:
    """Adjacent spans of time in a larger then a smaller unit read as one: ``12 min 30 s`` = 750 s
    (= ``12.5 minutes``), ``1 h 15 min`` = 4,500 s, ``1時間30分`` = 5,400 s."""
    out: list[Fact] = []
    at = 0
    for fact in facts:
        start = text.find(fact.surface, at)
        end = start + len(fact.surface) if start >= 0 else at
        prev = out[-1] if out else None
        if (
            prev is not None
            and start >= 0
            and fact.kind == prev.kind == "number"
            and fact.key[1] == prev.key[1] == "s"
            and float(prev.key[0]) > float(fact.key[0])  # type: ignore[arg-type]
            and _DURATION_GAP.match(text[at:start])
        ):
            total = round(float(prev.key[0]) + float(fact.key[0]), 9)  # type: ignore[arg-type]
            out[-1] = Fact("number", (total, "s"), f"{prev.surface} {fact.surface}")
        else:
            out.append(fact)
        at = max(at, end)
    return out


_SENTENCE_START = re.compile(r"(?:^|[.!?:;。！？\n]\s*)[\"'(\[*\-•#>¡¿]*\s*$")


def mid_capitals(text: str) -> frozenset[str]:
    """Capitalised words of ``text`` that stand mid-sentence (candidates for names); a line break starts a sentence."""
    out = set()
    for line in text.splitlines():
        line = normalise(line)
        for match in _WORD.finditer(line):
            word = match.group(0)
            if word[0].isupper() and not _SENTENCE_START.search(
                line[max(0, match.start() - 12) : match.start()]
            ):
                out.add(word)
    return frozenset(out)


#: the German polite pronouns, capitalised mid-sentence ("von Ihrer Bank"): never names
_GERMAN_PRONOUNS = frozenset(["Sie", "Ihr", "Ihre", "Ihrer", "Ihren", "Ihrem", "Ihres", "Ihnen"])


def _names(
    text: str, german: bool | None, known: frozenset[str] = frozenset()
) -> list[tuple[int, Fact]]:
    """Capitalised words that are names (module doc): ``(position, fact)``."""
    if german is None:
        german = detect_german(text)
    out = []
    words = list(_WORD.finditer(text))
    initial_caps: list[tuple[int, str]] = []
    mid_caps: set[str] = set()
    for index, match in enumerate(words):
        # a Latin word run into Japanese text ("Wi-Fiは館内…"): the Latin part only
        word = re.split(r"[\u3040-\u30ff\u4e00-\u9fff]", match.group(0))[0]
        if not word:
            continue
        if not word[0].isupper() or word in ("I", "I'm", "I've", "I'll", "I'd"):
            continue
        bare = re.sub(r"['’]s$", "", word).casefold()  # "January's estimate"
        if bare in _MONTHS or bare in _WEEKDAYS or bare in _NUMBER_WORDS or bare in SCALES:
            continue  # "Mio", "Millionen": a number's scale
        if word.isupper():
            continue  # all-caps words are identifiers (_IDENT), single letters below
        start = match.start()
        initial = bool(_SENTENCE_START.search(text[max(0, start - 12) : start]))
        if german:
            prev = words[index - 1].group(0).casefold() if index else ""
            mixed = any(c.isupper() for c in word[1:])
            if not (mixed or prev in _GERMAN_NAME_AFTER) or initial or word in _GERMAN_PRONOUNS:
                continue
            if not mixed and _GERMAN_NOUN.search(word):  # "in Rechnung stellen": a noun, no place
                continue
        if initial:
            initial_caps.append((start, word))
            continue
        if word.casefold() in STOPWORDS or word.casefold() in _POLE:
            continue
        if len(word) >= 3 and (word.casefold() in UNITS or word.casefold() + "/s" in UNITS):
            continue  # a unit ("Gbps", "Mbit/s") names nothing
        mid_caps.add(word)
        out.append((start, Fact("name", (bare,), word)))  # "Meyer's estimate" names Meyer
    for match in re.finditer(r"(?<![^\W_'’°-])([A-HJ-Z])(?![^\W\d_'’°-])", text):
        start = match.start()
        before = text[max(0, start - 12) : start]
        if not (_SENTENCE_START.search(before) or re.search(r"\d\s?$", before)):  # "1.2 M"
            out.append((start, Fact("name", (match.group(1).casefold(),), match.group(1))))
    for start, word in initial_caps:
        if word in mid_caps or word in known:
            out.append((start, Fact("name", (re.sub(r"['’]s$", "", word).casefold(),), word)))
    return out


def facts_match(a: Fact, b: Fact, *, lenient: bool = True) -> bool:
    """Whether two facts state the same thing: same kind and key; a time without am/pm also matches 12 hours later;
    with ``lenient``, a number without a unit matches the same number with one."""
    if a.kind != b.kind:
        return False
    if a.kind == "time":
        (ma, ka), (mb, kb) = a.key, b.key
        if ma == mb:
            return True
        if not ka and (int(ma) + 720) % 1440 == mb:  # type: ignore[call-overload]
            return True
        return bool(not kb and (int(mb) + 720) % 1440 == ma)  # type: ignore[call-overload]
    if a.kind == "date" and "?" in (a.key[0], b.key[0]):  # 12/09: 12 September or December 9
        readings = [k[1:] if k[0] == "?" else k for k in (a.key, b.key)]
        flipped = [tuple(reversed(k[1:])) if k[0] == "?" else k for k in (a.key, b.key)]
        return readings[0] == readings[1] or flipped[0] == flipped[1] or readings[0] == flipped[1]
    if a.kind == "number":
        (va, ua), (vb, ub) = a.key, b.key
        if ua == ub:
            return bool(va == vb)
        if not (lenient and (not ua or not ub)):
            return False
        # "300 km" (300,000 m) and a bare "300": the bare number in any unit of the other's base
        unit, scaled, bare = (ua, va, vb) if ua else (ub, vb, va)
        factors = [f for f, base in BASE.values() if base == unit] + [1.0]
        return any(round(float(bare) * f, 9) == scaled for f in factors)  # type: ignore[arg-type]
    return a.key == b.key
