"""How a number is written: thousands groups and decimal commas, scale words, units read in a
base unit, currencies and units by their signs, codes and words, kanji numerals and 万,
frequency words, parts of an hour.

The number rules :mod:`agentsnap.diff.meaning.facts` reads a sentence's numbers with (pure
functions and patterns; standard library only): ``1.000`` = ``1000``, ``2 Mio.`` = 2,000,000,
``90 min`` = ``1.5 h``, ``三日`` = 3 days, ``1万2800円`` = 12,800 yen, ``twice a day`` = 2 a day,
``half an hour`` = 30 minutes.
"""

from __future__ import annotations

import re

__all__ = [
    "BASE",
    "CURRENCY",
    "CUR_RE",
    "FREQUENCY",
    "FREQUENCY_WORDS",
    "KANJI_NUMBER",
    "MAN_NUMBER",
    "PART_HOURS",
    "PART_SECONDS",
    "SCALE",
    "SCALES",
    "UNITS",
    "UNIT_RE",
    "base_unit",
    "kanji_value",
    "number_context",
    "number_value",
    "unit_after",
]

#: currency signs, codes and words, and the currency each names
CURRENCY = {
    "$": "USD",
    "usd": "USD",
    "dollar": "USD",
    "dollars": "USD",
    "us$": "USD",
    "€": "EUR",
    "eur": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "£": "GBP",
    "gbp": "GBP",
    "pound": "GBP",
    "pounds": "GBP",
    "¥": "JPY",
    "jpy": "JPY",
    "yen": "JPY",
    "円": "JPY",
    "chf": "CHF",
    "fr.": "CHF",
}
UNITS = {
    "%": "%",
    "percent": "%",
    "per cent": "%",
    "prozent": "%",
    "pour cent": "%",
    "パーセント": "%",
    "ms": "ms",
    "millisecond": "ms",
    "milliseconds": "ms",
    "millisekunden": "ms",
    "millisecondes": "ms",
    "s": "s",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "sekunden": "s",
    "secondes": "s",
    "秒": "s",
    "min": "min",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "minuten": "min",
    "分": "min",
    "分間": "min",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "stunde": "h",
    "stunden": "h",
    "heure": "h",
    "heures": "h",
    "時間": "h",
    "day": "day",
    "days": "day",
    "tag": "day",
    "tage": "day",
    "tagen": "day",
    "jour": "day",
    "jours": "day",
    "日": "day",
    "日間": "day",
    "week": "week",
    "weeks": "week",
    "woche": "week",
    "wochen": "week",
    "semaine": "week",
    "semaines": "week",
    "週間": "week",
    "month": "month",
    "months": "month",
    "monat": "month",
    "monate": "month",
    "monaten": "month",
    "mois": "month",
    "か月": "month",
    "ヶ月": "month",
    "year": "year",
    "years": "year",
    "jahr": "year",
    "jahre": "year",
    "jahren": "year",
    "an": "year",
    "ans": "year",
    "年": "year",
    "kb": "KB",
    "mb": "MB",
    "gb": "GB",
    "tb": "TB",
    "kib": "KB",
    "mib": "MB",
    "gib": "GB",
    # data rates: "1 Gbps" = "1,000 Mbps" = "1 Gbit/s"
    "kbps": "kbit/s",
    "mbps": "Mbit/s",
    "gbps": "Gbit/s",
    "kbit/s": "kbit/s",
    "mbit/s": "Mbit/s",
    "gbit/s": "Gbit/s",
    "km": "km",
    "m": "m",
    "cm": "cm",
    "mm": "mm",
    "kg": "kg",
    "g": "g",
    "mg": "mg",
    "l": "l",
    "ml": "ml",
    "°c": "°C",
    "°f": "°F",
    "°": "°",
    "c": "°C",
    "grad": "°",
    "degrees": "°",
    "degree": "°",
    "grados": "°",
    "degrés": "°",
    "度": "°",
    "x": "x",
    "gbit": "Gbit",
    "mbit": "Mbit",
    "k": "k",
    # Spanish
    "por ciento": "%",
    "milisegundos": "ms",
    "segundo": "s",
    "segundos": "s",
    "minuto": "min",
    "minutos": "min",
    "hora": "h",
    "horas": "h",
    "día": "day",
    "días": "day",
    "semana": "week",
    "semanas": "week",
    "mes": "month",
    "meses": "month",
    "año": "year",
    "años": "year",
}
UNIT_RE = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
CUR_RE = "|".join(sorted((re.escape(c) for c in CURRENCY), key=len, reverse=True))

#: scale words after a number: 2 million, 3 Mrd., 1.5 billion, 4 thousand
SCALES = {
    "thousand": 1e3,
    "tausend": 1e3,
    "mille": 1e3,
    "mil": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "mio": 1e6,
    "millionen": 1e6,
    "millones": 1e6,
    "mn": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "bn": 1e9,
    "mrd": 1e9,
    "milliarden": 1e9,
    "milliard": 1e9,
    "milliards": 1e9,
}
SCALE = re.compile(
    r"\s?(" + "|".join(sorted(SCALES, key=len, reverse=True)) + r")\.?(?![^\W\d_])", re.IGNORECASE
)
#: units read in a base unit, so 1 200 g = 1.2 kg and 90 min = 1.5 h: (factor, base)
BASE = {
    "mg": (1e-3, "g"),
    "kg": (1e3, "g"),
    "cm": (1e-2, "m"),
    "mm": (1e-3, "m"),
    "km": (1e3, "m"),
    "ms": (1e-3, "s"),
    "min": (60.0, "s"),
    "h": (3600.0, "s"),
    "KB": (1e3, "B"),
    "MB": (1e6, "B"),
    "GB": (1e9, "B"),
    "TB": (1e12, "B"),
    "kbit/s": (1e3, "bit/s"),
    "Mbit/s": (1e6, "bit/s"),
    "Gbit/s": (1e9, "bit/s"),
    "day": (86400.0, "s"),  # "24 hours" = "1 day" = "86,400 seconds"
    "week": (604800.0, "s"),  # "two weeks" = "14 days"
    "year": (12.0, "month"),  # "2 years" = "24 months"
}


def unit_after(text: str, end: int) -> str:
    """The unit or currency right after a number word ending at ``end`` ("five days", "ten
    euros"), or ""."""
    after = text[end : end + 14].lower()
    currency = re.match(rf"\s?({CUR_RE})(?![^\W\d_])", after)
    if currency:
        return CURRENCY[currency.group(1)]
    unit = re.match(rf"[\s-]?({UNIT_RE})(?![^\W\d_])", after)
    return UNITS.get(unit.group(1), "") if unit else ""


def base_unit(value: float, unit: str) -> tuple[float, str]:
    """``value`` in ``unit``'s base unit (grams, metres, seconds, bytes), rounded to 9 places."""
    factor, base = BASE.get(unit, (1.0, unit))
    return round(value * factor, 9), base


#: a number with 万 (ten thousand) in it: 1万2800円, 31万円
MAN_NUMBER = re.compile(r"(?<![\d.,])(\d+(?:\.\d+)?)万(?:(\d)千|(\d{1,4}))?(円)?")
#: a number in kanji before a counter (三日, 二十分, 五回): its digits and the counter
_KANJI_DIGITS = {c: v for v, c in enumerate("〇一二三四五六七八九")}
KANJI_NUMBER = re.compile(
    r"(?<![\u4e00-\u9fff])([一二三四五六七八九十]{1,3})(日間|日|時間|分間|分|秒|週間|か月|ヶ月|年|回|人|件|個|台|枚|名|つ)"
)


def kanji_value(numeral: str) -> float:
    """The value of a kanji numeral up to 99 (三 = 3, 十五 = 15, 二十 = 20, 三十五 = 35)."""
    if "十" not in numeral:
        return float(int("".join(str(_KANJI_DIGITS[c]) for c in numeral)))
    tens, _, ones = numeral.partition("十")
    return float((_KANJI_DIGITS[tens] if tens else 1) * 10 + (_KANJI_DIGITS[ones] if ones else 0))


#: how often, said with a word of frequency: "once a day", "twice weekly", "3 times per month"
FREQUENCY_WORDS = {"once": 1, "twice": 2, "thrice": 3, "einmal": 1, "zweimal": 2, "dreimal": 3}
FREQUENCY = re.compile(
    r"\b(?:(?P<n>once|twice|thrice|einmal|zweimal|dreimal)|(?P<n2>\d+|one|two|three|four|five|six)\s+times)"
    r"(?=\s+(?:a|an|per|every|each|am|pro|im)\s+(?:day|week|month|year|hour|tag|woche|monat|jahr)|"
    r"\s+(?:daily|weekly|monthly|yearly|hourly|täglich|wöchentlich))",
    re.IGNORECASE,
)
#: parts of an hour said in words, and their seconds (the base unit of a time span)
PART_SECONDS = {
    r"three quarters|dreiviertel|trois quarts|tres cuartos": 2700.0,
    r"and a half|y media|anderthalb|eineinhalb|et demie": 5400.0,
    r"half|halbe|demi|media": 1800.0,
    r"quarter|viertel|quart|cuarto": 900.0,
}
PART_HOURS = re.compile(
    r"\b(?:three quarters of an hour|(?:eine )?dreiviertelstunde|trois quarts d'heure|"
    r"tres cuartos de hora|(?:an|one) hour and a half|(?:una )?hora y media|anderthalb stunden|eineinhalb stunden|"
    r"une heure et demie|(?:a |an )?half(?:[ -]an)?[ -]hour|(?:a )?quarter of an hour|"
    r"(?:eine )?halbe stunde|(?:eine )?viertelstunde|(?:une )?demi-heure|(?:un )?quart d'heure|"
    r"media hora|(?:un )?cuarto de hora)\b",
    re.IGNORECASE,
)


def number_value(raw: str) -> float | None:
    raw = raw.replace("\u202f", " ").replace("\u00a0", " ").replace("'", " ")
    groups = re.fullmatch(r"(\d{1,3})((?:[,. ]\d{3})+)([.,]\d+)?", raw)
    if groups:
        whole = groups.group(1) + re.sub(r"[,. ]", "", groups.group(2))
        frac = (groups.group(3) or "").replace(",", ".")
        try:
            return float(whole + frac)
        except ValueError:  # pragma: no cover
            return None
    try:
        return float(raw.replace(",", "."))
    except ValueError:
        return None


def number_context(text: str, end: int) -> bool:
    return bool(
        re.match(rf"[\s-]?(?:{UNIT_RE}|{CUR_RE})(?![^\W\d_])", text[end : end + 12], re.IGNORECASE)
    )
