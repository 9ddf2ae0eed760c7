"""A greeting that opens a sentence of thanks or regret (issue 29, round eleven): "Guten Tag,
vielen Dank für Ihre Nachricht, und es tut uns leid, dass …" is courtesy as "Vielen Dank für Ihre
Nachricht …" is, and the answer it wraps passes; a greeting that opens a claim ("Hi Sam, thanks for
your message, we moved your delivery slot to the afternoon window") still adds that claim. Rows
written here, in five languages, not taken from a dev or the frozen set.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            "Your parcel was delivered to the locker on Baker Street.",
            "Hi Sam, thanks for your patience, and sorry about the wait. "
            "Your parcel was delivered to the locker on Baker Street.",
        ),
        (
            "Ihre Rücksendung ist eingegangen. Die Gutschrift erfolgt innerhalb von 5 Werktagen.",
            "Guten Tag, vielen Dank für Ihre Geduld, und es tut uns leid für die Verzögerung. "
            "Ihre Rücksendung ist eingegangen. Die Gutschrift erfolgt innerhalb von 5 Werktagen.",
        ),
        (
            "Votre remboursement de 40 € a été accepté.",
            "Bonjour, merci pour votre message et désolé pour l'attente. "
            "Votre remboursement de 40 € a été accepté.",
        ),
        (
            "Su reembolso de 40 € ha sido aprobado.",
            "Hola, gracias por su mensaje y lamentamos la espera. "
            "Su reembolso de 40 € ha sido aprobado.",
        ),
    ],
)
def test_a_greeting_opening_thanks_or_regret_is_courtesy(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score >= THRESHOLD, messages
    assert any(m.startswith("courtesy added") for m in messages), messages


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            "Your parcel was delivered to the locker on Baker Street.",
            "Hi Sam, thanks for your message, we moved your delivery slot to the afternoon window. "
            "Your parcel was delivered to the locker on Baker Street.",
        ),
        (
            "Ihre Rücksendung ist eingegangen. Die Gutschrift erfolgt innerhalb von 5 Werktagen.",
            "Guten Tag, vielen Dank, wir haben zusätzlich Ihre Lieferadresse im Kundenkonto "
            "aktualisiert. Ihre Rücksendung ist eingegangen. Die Gutschrift erfolgt innerhalb "
            "von 5 Werktagen.",
        ),
        (
            "Votre remboursement de 40 € a été accepté.",
            "Bonjour, merci, nous avons transféré votre dossier au service comptabilité régional. "
            "Votre remboursement de 40 € a été accepté.",
        ),
        (
            "Su reembolso de 40 € ha sido aprobado.",
            "Hola, gracias, hemos trasladado su expediente al departamento de contabilidad regional. "
            "Su reembolso de 40 € ha sido aprobado.",
        ),
    ],
)
def test_a_greeting_opening_a_claim_still_adds_it(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any(m.startswith("claim added") for m in messages), messages
