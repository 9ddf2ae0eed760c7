"""The fact extraction of the meaning check (agentsnap.diff.meaning.facts): normalised keys, polarity, names."""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.facts import Fact, extract, facts_match
from agentsnap.diff.meaning.vocabulary import polarity


def _keys(text: str) -> list[tuple[str, tuple[object, ...]]]:
    return [(f.kind, f.key) for f in extract(text)]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("at 10:30", "at 10.30 am"),
        ("at 2:30 pm", "at 14:30"),
        ("um 10:30 Uhr", "um 10.30 Uhr"),
        ("à 10h30", "à 10:30"),
        ("$1,000", "$1000"),
        ("1.000 €", "1000 €"),
        ("1 000 €", "1000 €"),
        ("1,5 GB", "1.5 GB"),
        ("$40", "40 dollars"),
        ("$25.00", "$25"),
        ("three days", "3 days"),
        ("on March 3rd", "on 3 March"),
        ("le 3 mars", "am 3. März"),
        ("3月4日", "2026-03-04"),
        ("120 ms", "120ms"),
        ("kommt am 04.11. zwischen", "kommt am 4. November zwischen"),
        ("livré entre 14 h et 18 h", "livré entre 14:00 et 18:00"),
        ("el 21/12 a las 21:00", "el 21 de diciembre a las 9 de la noche"),
        ("at 21:00", "at 9 in the evening"),
        ("every 30 minutes", "every half hour"),
        ("takes 90 min", "takes an hour and a half"),
        ("dura 15 minutos", "dura un cuarto de hora"),
        ("1回あたり145円", "1回につき145円"),
        ("三日以内", "3日以内"),
        ("午後3時30分です", "15:30です"),
        ("1万2千円前後", "12,000円前後"),
        ("el 1 de septiembre de 2024", "el 01/09/2024"),
        ("took 12 min 30 s", "took 12.5 minutes"),
        ("1 hour and 15 minutes", "75 minutes"),
        ("返金額は1万2800円です", "返金額は12,800円です"),
        ("a 25 años", "a veinticinco años"),
        ("with 300 km included", "Included km: 300"),
        ("Ouverture des portes : 19 h", "les portes ouvrent à 19 h"),
        ("二十分後", "20分後"),
    ],
)
def test_formats_of_the_same_fact_match(a: str, b: str) -> None:
    fa, fb = extract(a), extract(b)
    core = [f for f in fa if f.kind != "year"]
    assert core, a
    assert all(any(facts_match(x, y) for y in fb) for x in core), (fa, fb)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("at 10:30", "at 11:30"),
        ("$40", "$400"),
        ("v2.3.1", "v2.3.2"),
        ("41 minutes", "41 seconds"),
        ("on March 3", "on March 4"),
        ("am Dienstag", "am Mittwoch"),
        ("15時", "16時"),
        ("あたり145円", "あたり154円"),
        ("am 04.11. um", "am 05.11. um"),
        ("entre 14 h et", "entre 15 h et"),
        ("every half hour", "every 20 minutes"),
    ],
)
def test_a_changed_value_does_not_match(a: str, b: str) -> None:
    fa, fb = extract(a), extract(b)
    assert fa and fb
    assert not any(facts_match(x, y) for x in fa for y in fb), (fa, fb)


def test_list_markers_are_not_numbers_and_one_is_mostly_an_article() -> None:
    assert _keys("1. Open the file\n2. Save it") == []
    assert _keys("one slow query and one certificate") == []
    # "one" is never a fact (a one-year term is an annual one); a 1 against "one", "a", "an" is
    # not a difference (the meaning check), and "one hour" -> "two hours" still adds a number
    assert _keys("one hour") == []
    assert _keys("two hours") == [("number", (7200.0, "s"))]  # durations in seconds: 2 h = 120 min


def test_names_identifiers_and_german_nouns() -> None:
    assert ("name", ("eu-west-1",)) in _keys("The instance runs in eu-west-1.")
    assert ("name", ("config.yaml",)) in _keys("The error is in config.yaml.")
    assert ("name", ("paris",)) in _keys("Your flight to Paris is booked.")
    # German capitalises every noun: only names after nach/aus/von/in… count
    assert _keys("Die Rechnung wurde an den Kunden gesendet.") == []
    assert ("name", ("münchen",)) in _keys("Das Paket geht nach München.")
    assert extract("Room A") == [Fact("name", ("a",), "A")]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("There are no open issues.", "All issues are closed.", True),
        ("The build passed.", "The build failed.", False),
        ("The test failed.", "The test did not pass.", True),
        ("Yes, you can cancel.", "No, you cannot cancel.", False),
        ("No problem, the file is saved.", "The file is saved.", True),
        ("Le service est disponible.", "Le service n'est pas disponible.", False),
        ("在庫があります。", "在庫がありません。", False),
        ("Die Zahlung war erfolgreich.", "Die Zahlung war nicht erfolgreich.", False),
    ],
)
def test_polarity_is_the_parity_of_negations_and_negative_poles(a: str, b: str, same: bool) -> None:
    assert (polarity(a)[0] == polarity(b)[0]) is same


def test_scales_units_and_formats_read_as_one_value() -> None:
    # a scale word or suffix is part of the number; units are read in a base unit
    assert (
        _keys("About 2 million users") == _keys("About 2,000,000 users") == [("number", (2e6, ""))]
    )
    assert (
        _keys("revenue was $4.2M")
        == _keys("revenue was $4.2 million")
        == [("number", (4.2e6, "USD"))]
    )
    assert _keys("it weighs 1 200 g") == _keys("it weighs 1,2 kg") == [("number", (1200.0, "g"))]
    # AM is the time's half, not a name; dates and hours in digits
    assert _keys("Call us at 10:00 AM.") == _keys("Call us at 10am.") == [("time", (600, True))]
    assert ("date", (6, 3)) in _keys("fällig bis zum 03.06.2025")
    assert ("time", (840, True)) in _keys("zwischen 14 und 16 Uhr")
    assert ("date", ("?", 12, 9)) in _keys("le 12/09")
    assert all(kind != "date" for kind, _ in _keys("support 24/7"))


def test_a_decimal_before_a_full_stop_and_a_french_hour_with_minutes_are_read_right() -> None:
    assert _keys("It is rated 4.5.") == [("number", (4.5, ""))]
    assert _keys("à 18 h 30") == [("time", (1110, True))]


def test_greetings_signatures_possessive_months_and_german_pronouns_are_no_names() -> None:
    from agentsnap.diff.meaning.units import _fill, split_units

    units = split_units(
        "Hi Sam, thanks for waiting!\nYour phone ships today.\n— Priya, Customer Care"
    )
    _fill(units, frozenset(), german=False)
    assert [f for u in units for f in u.facts if f.kind == "name"] == []
    assert _keys("January's estimate was low") == []
    german = extract("Abhängig von Ihrer Bank dauert es noch länger.", german=True)
    assert ("ihrer",) not in [f.key for f in german]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("overpay 10% each year without a charge", "overpay 10% each year free of charge"),
        ("no replica was ready for six minutes", "there were zero ready replicas for six minutes"),
    ],
)
def test_idioms_of_no_cost_and_zero_keep_the_polarity(a: str, b: str) -> None:
    assert polarity(a)[0] == polarity(b)[0], (polarity(a), polarity(b))


def test_a_single_capital_is_a_name_only_outside_a_word() -> None:
    german = extract(
        "Auf Ihre Wohnung entfällt eine Nachzahlung in Höhe von 214,60 €.", german=True
    )
    assert ("h",) not in [f.key for f in german] and ("number", (214.6, "EUR")) in [
        (f.kind, f.key) for f in german
    ]
    assert ("name", ("b",)) in _keys("Plan B is cheaper.")


def test_a_latin_name_run_into_japanese_stops_at_the_japanese() -> None:
    names = [
        f.surface
        for f in extract("Wi-Fiは館内全域で無料でご利用いただけます。")
        if f.kind == "name"
    ]
    assert all(not any("\u3040" <= c <= "\u9fff" for c in n) for n in names), names


def test_a_rate_with_a_slash_is_no_name() -> None:
    assert [k for k in _keys("2 PT sessions/month at 32.4 ct/kWh") if k[0] == "name"] == [
        ("name", ("pt",))
    ]
