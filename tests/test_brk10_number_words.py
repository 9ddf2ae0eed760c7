"""brk10: round twelve's number words 13-29 in de/fr/es leave some out (false alarms), and one
new word adds a false alarm.

Left out (a digit said as the word fails as "numbers differ"; the base a0c0543 fails them too, so
these are gaps in the round's stated cover, not regressions): French ``seize`` (16) and
``dix-sept`` … ``dix-neuf`` (read as the two numbers 10 and 7/8/9, while ``vingt-trois`` is read
as 23); Spanish ``veintiuno`` / ``veintiuna`` (21) and the unaccented spellings writers use
(``dieciseis``, ``veintidos``, ``veintiseis``).

Fixed after the review: ``seize``, ``veintiuno`` / ``veintiuna`` and the unaccented spellings
are number words, and ``quinzaine`` is 15; ``dix-sept`` … ``dix-neuf`` stay a hole (strict xfail).

Added false alarm: ``quinze`` read as 15 where the other side says ``quinzaine`` (a fortnight)
with no number: "sous quinzaine" → "sous quinze jours" passes on the base (score 0.965) and
fails on main ("numbers differ ((none) → quinze)", 0.518).
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default
#: a hole left: the words are cut at the hyphen before the number words are read ("dix" + "sept")
_HYPHENATED = pytest.mark.xfail(strict=True, reason="dix-sept is read as 10 and 7")


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        ("Le délai est de 16 jours.", "Le délai est de seize jours."),
        pytest.param(
            "Le délai est de 17 jours.", "Le délai est de dix-sept jours.", marks=_HYPHENATED
        ),
        pytest.param(
            "Le délai est de 19 jours.", "Le délai est de dix-neuf jours.", marks=_HYPHENATED
        ),
        ("El plazo es de 21 días.", "El plazo es de veintiuno días."),
        ("Son 21 personas.", "Son veintiuna personas."),
        ("El plazo es de 16 días.", "El plazo es de dieciseis días."),
        ("El plazo es de 22 días.", "El plazo es de veintidos días."),
        ("El plazo es de 26 días.", "El plazo es de veintiseis días."),
    ],
)
def test_a_number_from_13_to_29_said_in_words_is_the_same_number(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    assert verdict.score >= THRESHOLD, [f.message for f in verdict.findings]


def test_quinzaine_said_as_quinze_jours_is_no_number_added() -> None:
    verdict = compare("Le colis arrive sous quinzaine.", "Le colis arrive sous quinze jours.")
    assert verdict.score >= THRESHOLD, [f.message for f in verdict.findings]
