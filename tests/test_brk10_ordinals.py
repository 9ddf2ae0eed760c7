"""brk10: a claim added that holds ordinals now passes as no claim.

Round twelve leaves every word of :data:`agentsnap.diff.meaning.ordinals.ORDINALS` out of the
words a sentence inserted (``Reading``'s "claim added" needs a weight of 3). Words are dropped one
by one, not "an ordinal said where the other answer counted": so a whole added clause whose
content words include ordinals falls under the weight. "Take one tablet with food" → "…, the
second with the last meal" adds a second dose; "Restart the server" → "Restart the server, the
second worker and the last queue" adds two things to restart (en, de, fr, es); "Only the manager
can approve" → "Only the first manager on the last shift can approve" narrows who may.

On the base (a0c0543) every pair fails ("claim added (second last meal)", score ~0.85); on main
every pair passes (score ~0.97, "reworded; every fact, step and sentence has a counterpart").

The reading was taken out of main after this review: these rows fail again, as on the base, and
guard against its return.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            "Take one tablet with food. Drink plenty of water.",
            "Take one tablet with food, the second with the last meal. Drink plenty of water.",
        ),
        (
            "Restart the server. Check the logs.",
            "Restart the server, the second worker and the last queue. Check the logs.",
        ),
        (
            "Starten Sie den Server neu. Prüfen Sie die Logs.",
            "Starten Sie den Server, den zweiten Worker und die letzte Queue neu. Prüfen Sie die Logs.",
        ),
        (
            "Redémarrez le serveur. Vérifiez les journaux.",
            "Redémarrez le serveur, le second worker et la dernière file. Vérifiez les journaux.",
        ),
        (
            "Reinicie el servidor. Revise los registros.",
            "Reinicie el servidor, el segundo worker y la última cola. Revise los registros.",
        ),
        (
            "Only the manager can approve refunds. Staff can view them.",
            "Only the first manager on the last shift can approve refunds. Staff can view them.",
        ),
        (
            "Die Gebühr entfällt für Studierende. Alle anderen zahlen 10 EUR.",
            "Die Gebühr entfällt für die ersten Studierenden im zweiten Semester. Alle anderen "
            "zahlen 10 EUR.",
        ),
    ],
)
def test_a_clause_added_with_ordinals_in_it_is_still_a_claim(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    assert verdict.score < THRESHOLD, [f.message for f in verdict.findings]
