"""A number worked out from numbers both answers state (issue 29, round eleven): a total's part
(``$42`` in total, ``$22`` of it for the part, so labour ``$20``) or a share as a percentage
(``¥750`` of ``¥1500``: ``50%``) is no new fact and passes; a number changed, or a share or a
part that the stated numbers do not give, still fails. Rows written here, in five languages,
not taken from a dev or the frozen set.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            "The repair costs $30 for the part plus labour, so $75 in total.",
            "The repair costs $30 for the part and $45 for labour, so $75 in total.",
        ),
        (
            "Das Ticket kostet 40 € für Erwachsene; Kinder zahlen die Hälfte, also 20 €.",
            "Das Ticket kostet 40 € für Erwachsene, Kinder zahlen 20 € (50 %).",
        ),
        (
            "La facture s'élève à 120 € au total, dont 100 € de prestation et la TVA.",
            "La facture s'élève à 120 € au total : 100 € de prestation et 20 € de TVA.",
        ),
        (
            "El alquiler es de 900 € al mes y usted paga 300 € de ellos.",
            "El alquiler es de 900 € al mes; usted paga 300 €, es decir, el 33,3 %.",
        ),
        (
            "会費は年間12,000円で、学生は半額の6,000円です。",
            "会費は年間12,000円、学生は6,000円(50%)です。",
        ),
    ],
)
def test_a_number_worked_out_from_stated_numbers_passes(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    assert verdict.score >= THRESHOLD, [f.message for f in verdict.findings]


@pytest.mark.parametrize(
    ("golden", "new", "was", "now"),
    [
        (  # a part changed: the other answer's own number is a value changed, not worked out
            "The repair costs $30 for the part and $45 for labour, so $75 in total.",
            "The repair costs $30 for the part and $40 for labour, so $75 in total.",
            "$45",
            "$40",
        ),
        (  # a share the stated numbers do not give
            "Das Ticket kostet 40 € für Erwachsene; Kinder zahlen die Hälfte, also 20 €.",
            "Das Ticket kostet 40 € für Erwachsene, Kinder zahlen 20 € (60 %).",
            "(none)",
            "60 %",
        ),
        (  # a part no two stated numbers make
            "La facture s'élève à 120 € au total, dont 100 € de prestation et la TVA.",
            "La facture s'élève à 120 € au total : 100 € de prestation et 24 € de TVA.",
            "(none)",
            "24 €",
        ),
        (
            "El alquiler es de 900 € al mes y usted paga 300 € de ellos.",
            "El alquiler es de 900 € al mes; usted paga 300 €, es decir, el 30 %.",
            "(none)",
            "30 %",
        ),
        (
            "会費は年間12,000円で、学生は半額の6,000円です。",
            "会費は年間12,000円、学生は6,000円(40%)です。",
            "(none)",
            "40%",
        ),
    ],
)
def test_a_number_not_worked_out_still_fails(golden: str, new: str, was: str, now: str) -> None:
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any("numbers differ" in m and was in m and now in m for m in messages), messages


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            "After the canary, the pipeline promoted the release to 100% of traffic.",
            "After the canary, the pipeline promoted the release to full traffic.",
        ),
        (
            "Sie erhalten 100 % des Kaufpreises zurück.",
            "Sie erhalten den vollständigen Kaufpreis zurück.",
        ),
        ("Le remboursement couvre 100 % du billet.", "Le remboursement couvre le billet entier."),
        (
            "El seguro cubre el 100 % de la reparación.",
            "El seguro cubre la reparación completa.",
        ),
        ("キャンセル料は100%返金されます。", "キャンセル料は全額返金されます。"),
    ],
)
def test_a_share_of_100_percent_said_as_the_whole_passes(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    assert verdict.score >= THRESHOLD, [f.message for f in verdict.findings]


@pytest.mark.parametrize(
    ("golden", "new", "was", "now"),
    [
        (  # the share changed; the whole is said of something else
            "After the canary, the pipeline promoted the release to 100% of traffic.",
            "After the canary, the pipeline promoted the release to 50% of traffic; full rollout "
            "follows tomorrow.",
            "100%",
            "50%",
        ),
        (
            "Sie erhalten 100 % des Kaufpreises zurück.",
            "Sie erhalten 80 % des Kaufpreises zurück, nicht den vollständigen Betrag.",
            "100 %",
            "80 %",
        ),
        (  # another share than the whole, and no word of the whole
            "Le remboursement couvre 100 % du billet.",
            "Le remboursement couvre la moitié du billet.",
            "100 %",
            "(none)",
        ),
        (
            "El seguro cubre el 100 % de la reparación.",
            "El seguro cubre el 70 % de la reparación completa.",
            "100 %",
            "70 %",
        ),
        ("キャンセル料は100%返金されます。", "キャンセル料は50%返金されます。", "100%", "50%"),
    ],
)
def test_a_share_of_100_percent_not_said_as_the_whole_fails(
    golden: str, new: str, was: str, now: str
) -> None:
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any("numbers differ" in m and was in m and now in m for m in messages), messages
