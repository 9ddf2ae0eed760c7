"""Harmless rewording the meaning check read as a changed answer (issue 29, round twelve), each
kind on short pairs written here (none taken from a dev set or the frozen set): the reworded form
passes, and its near miss, which denies or leaves out what the golden answer says, still fails.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default

# --------------------------------------------------------------- a sentence denied where it would merge
# A golden sentence with no fact said under a negation inside its neighbour's counterpart
# (``sin ningún reintento``), or not said there, is dropped. (Round twelve read such a sentence
# said in other word forms, ``reintentó`` / ``reintento``, as merged; a reviewer showed a denial
# by a verb or at a distance passing that way, tests/test_brk10_merges.py, and it was taken out.)

_ES = (
    "La exportación se ejecuta cada noche a las 2:00. El programador reintentó automáticamente "
    "una vez. Por eso la tarea aparece en amarillo y no en verde."
)
_FR = (
    "L'export tourne chaque nuit à 2 h. Le planificateur a relancé automatiquement. C'est pourquoi "
    "la tâche apparaît en jaune et non en vert."
)


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (  # the retry denied where it is merged
            _ES,
            "La exportación se ejecuta cada noche a las 2:00. Sin ningún reintento automático del "
            "programador, la tarea aparece en amarillo en lugar de verde.",
        ),
        (
            _FR,
            "L'export tourne chaque nuit à 2 h. Sans aucune relance automatique du planificateur, la "
            "tâche apparaît en jaune au lieu de vert.",
        ),
        (  # the retry said to be off where it is merged
            _ES,
            "La exportación se ejecuta cada noche a las 2:00. Como el reintento automático del "
            "programador está desactivado, la tarea aparece en amarillo en lugar de verde.",
        ),
        (
            _FR,
            "L'export tourne chaque nuit à 2 h. La relance automatique du planificateur est "
            "désactivée, la tâche apparaît en jaune au lieu de vert.",
        ),
        (  # the retry left out
            _ES,
            "La exportación se ejecuta cada noche a las 2:00. La tarea aparece en amarillo en lugar "
            "de verde.",
        ),
        (
            _FR,
            "L'export tourne chaque nuit à 2 h. La tâche apparaît en jaune au lieu de vert.",
        ),
    ],
)
def test_a_sentence_denied_or_left_out_where_it_would_merge_still_fails(
    golden: str, new: str
) -> None:
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any("sentence dropped" in m for m in messages), messages


# --------------------------------------------------------------- a table's cells
# A sign cell ("–" under "Minimum term": not Minimum term) or a none cell said to be there fails.
# (Round twelve read a header row as a label with no polarity; a header stating an outcome then
# passed flipped, tests/test_brk10_labels.py, and the reading was taken out.)


def _table(header: str, first: str, second: str) -> str:
    return f"| {header} |\n|---|---|---|\n| {first} |\n| {second} |"


_TABLES = {
    "en": ("Plan | Price per month | Minimum term", "Flex | $49 | {}", "Annual | $39 | 12 months"),
    "de": (
        "Karte | Preis pro Monat | Mindestlaufzeit",
        "Monatskarte | 49 € | {}",
        "Jahreskarte | 39 € | 12 Monate",
    ),
    "fr": (
        "Formule | Prix par mois | Durée minimale",
        "Flex | 49 € | {}",
        "Annuel | 39 € | 12 mois",
    ),
    "es": ("Plan | Precio al mes | Permanencia", "Flex | 49 € | {}", "Anual | 39 € | 12 meses"),
    "ja": ("プラン | 月額 | 最低契約期間", "フレックス | 4900円 | {}", "年間 | 3900円 | 12か月"),
}
_NONE = {"en": "none", "de": "keine", "fr": "aucune", "es": "ninguna", "ja": "なし"}
_PROSE = {  # (the prose, the column's thing denied, the column's thing said to be there)
    "en": (
        "The Flex plan costs $49 per month and has {} minimum term. The Annual plan costs $39 per "
        "month and runs for at least 12 months.",
        "no",
        "a",
    ),
    "de": (
        "Die Monatskarte kostet 49 € pro Monat und hat {} Mindestlaufzeit. Die Jahreskarte kostet "
        "39 € pro Monat und läuft mindestens 12 Monate.",
        "keine",
        "eine",
    ),
    "fr": (
        "La formule Flex coûte 49 € par mois, {} durée minimale. La formule Annuel coûte 39 € par "
        "mois et dure au moins 12 mois.",
        "sans",
        "avec une",
    ),
    "es": (
        "El plan Flex cuesta 49 € al mes y {} permanencia. El plan Anual cuesta 39 € al mes con una "
        "permanencia de 12 meses.",
        "no tiene",
        "tiene",
    ),
    "ja": (
        "フレックスプランは月額4900円で、最低契約期間{}。年間プランは月額3900円で、最低契約期間は12か月です。",
        "はありません",
        "があります",
    ),
}


def _pair(lang: str, cell: str, denied: bool) -> tuple[str, str]:
    header, first, second = _TABLES[lang]
    prose, no, yes = _PROSE[lang]
    return _table(header, first.format(cell), second), prose.format(no if denied else yes)


@pytest.mark.parametrize("lang", ["de", "en", "es", "fr"])
def test_a_sign_cell_said_to_be_there_still_fails_as_polarity_flipped(lang: str) -> None:
    verdict = compare(*_pair(lang, "–", denied=False))
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any("polarity flipped" in m for m in messages), messages


@pytest.mark.xfail(
    strict=True,
    reason="known false pass: a cell of none ('none', 'keine', 'aucune', 'ninguna', 'なし') is not "
    "read as its header denied; read so, the row's covered words let a split table's rows mask a "
    "flipped row by parity (dev7 markdown-fail-en-04 with onnx), so round twelve left it",
)
@pytest.mark.parametrize("lang", sorted(_TABLES))
def test_a_none_cell_said_to_be_there_fails(lang: str) -> None:
    verdict = compare(*_pair(lang, _NONE[lang], denied=False))
    assert verdict.score < THRESHOLD, [f.message for f in verdict.findings]


# --------------------------------------------------------------- words of order
# A sentence that adds a condition beside words of order, or changes a date, fails. (Round twelve
# read an inserted ordinal as no claim; a clause added with ordinals then passed,
# tests/test_brk10_ordinals.py, and the reading was taken out.)

_GRANT = {
    "en": (
        "Your grant was approved. The 4,500 € will be paid in two instalments, in October and in "
        "February.",
        "Your grant was approved. The 4,500 € will be paid to you in two instalments: a first part "
        "in October{}, the second in February.",
        " once your enrolment certificate and bank details arrive",
    ),
    "de": (
        "Ihr Stipendium wurde bewilligt. Die 4.500 € werden in zwei Raten ausgezahlt, im Oktober "
        "und im Februar.",
        "Ihr Stipendium wurde bewilligt. Die 4.500 € werden Ihnen in zwei Raten ausgezahlt: die "
        "erste im Oktober{}, die zweite im Februar.",
        " nach Vorlage der Immatrikulationsbescheinigung und Bankverbindung",
    ),
    "fr": (
        "Votre bourse a été acceptée. Le montant de 4 500 € sera versé en deux fois, en octobre et "
        "en février.",
        "Votre bourse a été acceptée. Le montant de 4 500 € vous sera versé en deux fois : une "
        "première partie en octobre, la seconde en février{}.",
        ", sous réserve de vos résultats du semestre",
    ),
    "es": (
        "Su beca ha sido aprobada. Los 4.500 € se pagarán en dos plazos, en octubre y en febrero.",
        "Su beca ha sido aprobada. Los 4.500 € se le pagarán en dos plazos: el primero en octubre y "
        "el segundo en febrero{}.",
        ", si aprueba todas las asignaturas del semestre",
    ),
}
_STEPS = (
    "1. Log in to the admin console\n2. Set the time zone to Europe/Berlin under Organisation "
    "settings\n3. Invite your team"
)
_STEPS_SAID = (
    "First log in to the admin console, then set the time zone to Europe/Berlin under "
    "Organisation settings. Finally invite your team{}"
)
_JA = "奨学金が承認されました。4500円は10月と2月の2回に分けて支払われます。"
_JA_SAID = "奨学金が承認されました。4500円は2回に分けて支払われ、最初は10月、最後は{}月です。"


@pytest.mark.parametrize(
    ("golden", "new", "finding"),
    [
        *[(golden, new.format(more), "claim added") for golden, new, more in _GRANT.values()],
        (_STEPS, _STEPS_SAID.format(" and assign each member an admin role."), "claim added"),
        (_JA, _JA_SAID.format(3), "numbers differ"),
    ],
)
def test_a_claim_or_a_date_beside_words_of_order_still_fails(
    golden: str, new: str, finding: str
) -> None:
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any(finding in m for m in messages), messages


# --------------------------------------------------------------- a clause flipped
# A clause whose polarity differs from its counterpart's flips the sentence, whatever the other
# clause says. (A reading that let "cannot X" = "X is no option: it does not Y" pass was taken
# out: it let a negation moved between clauses pass on an unseen set.)


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            "Trial accounts cannot get more storage: IT does not raise the limit.",
            "Trial accounts can get more storage: IT doesn't raise the limit.",
        ),
        (
            "Testkonten können keinen zusätzlichen Speicher bekommen: die IT erhöht das Limit nicht.",
            "Testkonten können zusätzlichen Speicher bekommen: die IT erhöht das Limit nicht.",
        ),
        (
            "Les comptes d'essai ne peuvent pas obtenir plus de stockage : l'informatique "
            "n'augmente pas la limite.",
            "Les comptes d'essai peuvent obtenir plus de stockage : l'informatique n'augmente pas "
            "la limite.",
        ),
        (
            "Las cuentas de prueba no pueden obtener más almacenamiento: TI no aumenta el límite.",
            "Las cuentas de prueba pueden obtener más almacenamiento: TI no aumenta el límite.",
        ),
    ],
)
def test_one_clause_flipped_still_fails(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any("polarity flipped" in m for m in messages), messages


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        ("Restart the server.", "Restart the server and finally clear the cache."),
        (
            "Starten Sie den Server neu.",
            "Starten Sie den Server neu und leeren Sie danach den Cache.",
        ),
        ("Redémarrez le serveur.", "Redémarrez le serveur, puis videz le cache."),
        ("Reinicie el servidor.", "Reinicie el servidor y luego vacíe la caché."),
    ],
)
def test_an_action_joined_by_a_word_of_sequence_is_still_a_claim_added(
    golden: str, new: str
) -> None:
    """A connective of sequence is no ordinal: it joins one more action to the sentence."""
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any("claim added" in m for m in messages), messages


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            "## Refund approved\nThe money reaches your card within 5 days.",
            "## Refund rejected\nThe money reaches your card within 5 days.",
        ),
        (
            "## Deployment succeeded\nAll 12 checks passed.",
            "## Deployment failed\nAll 12 checks passed.",
        ),
        (
            "## Reembolso aprobado\nEl dinero llega a su tarjeta en 5 días.",
            "## Reembolso rechazado\nEl dinero llega a su tarjeta en 5 días.",
        ),
    ],
)
def test_a_heading_still_states_its_outcome(golden: str, new: str) -> None:
    """Only a table's header row is a label read for no polarity: a Markdown heading may state."""
    verdict = compare(golden, new)
    assert verdict.score < THRESHOLD, [f.message for f in verdict.findings]


# --------------------------------------------------------------- numbers 13-29 in words
# German, French and Spanish number words between the twelve and the twenties the vocabulary
# had not ("vierzehn", "quatorze", "dieciocho", "veintidós") are numbers: said for the digits they
# pass, and a changed one fails as numbers differ.

_DAYS = {
    "de": ("Sie haben {} Tage Zeit für den Widerruf.", "Für den Widerruf haben Sie {} Tage Zeit."),
    "fr": (
        "Vous avez {} jours pour vous rétracter.",
        "Vous disposez de {} jours pour vous rétracter.",
    ),
    "es": (
        "Tiene {} días para devolver el producto.",
        "Dispone de {} días para devolver el producto.",
    ),
}


@pytest.mark.parametrize(
    ("lang", "digits", "words"),
    [
        ("de", 14, "vierzehn"),
        ("de", 17, "siebzehn"),
        ("fr", 14, "quatorze"),
        ("es", 18, "dieciocho"),
        ("es", 22, "veintidós"),
        ("es", 80, "ochenta"),
    ],
)
def test_a_number_in_words_is_its_digits(lang: str, digits: int, words: str) -> None:
    golden, new = _DAYS[lang]
    verdict = compare(golden.format(digits), new.format(words))
    assert verdict.score >= THRESHOLD, [f.message for f in verdict.findings]


@pytest.mark.parametrize(
    ("lang", "was", "now"),
    [
        ("de", "14", "fünfzehn"),
        ("de", "vierzehn", "fünfzehn"),
        ("fr", "14", "treize"),
        ("fr", "quatorze", "treize"),
        ("es", "18", "diecisiete"),
        ("es", "veintidós", "veintitrés"),
    ],
)
def test_a_number_in_words_changed_fails(lang: str, was: str, now: str) -> None:
    golden, new = _DAYS[lang]
    verdict = compare(golden.format(was), new.format(now))
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any("numbers differ" in m or "facts differ" in m for m in messages), messages
