"""brk10: a table header row that carries an outcome or a negation, flipped, now passes.

Round twelve's ``Unit.label`` (a table header row with no negation of its own) makes
``Reading._polarity`` return at once when every unit on *either* side of a group is a label. A
header that says the outcome ("Refund approved", "No minimum term") is then not read for polarity
at all: its flip ("Refund not approved" → "Refund approved"), its outcome replaced ("approved" →
"rejected"), and a sentence of the other side that denies what the new header states ("The
deployment did not succeed." → a table headed "Deployment | Succeeded") all pass.

A Markdown heading whose text holds "; " is read as a label too (``Unit.label`` tests only
``heading and "; " in text``), though commit 07ca20e says a heading is no label: "## Refund
approved; shipping free" → "## Refund rejected; shipping free" passes.

On the base (a0c0543) every pair here fails (polarity flipped / outcome changed, score 0.41-0.58);
on main they pass with score 0.93-0.99 and the message "reworded; every fact, step and sentence
has a counterpart".

The reading was taken out of main after this review: these rows fail again, as on the base, and
guard against its return.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default

_ORDERS = "| Order | {} |\n|---|---|\n| #123 | 40 EUR |\n| #124 | 15 EUR |"
_PLAN = "| {} | {} |\n|---|---|\n| {} | 5 EUR |"


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (_ORDERS.format("Refund not approved"), _ORDERS.format("Refund approved")),
        (_ORDERS.format("Refund approved"), _ORDERS.format("Refund not approved")),
        (_ORDERS.format("Refund approved"), _ORDERS.format("Refund rejected")),
        (
            _PLAN.format("Plan", "No minimum term", "Basic"),
            _PLAN.format("Plan", "Minimum term", "Basic"),
        ),
        (
            _PLAN.format("Tarif", "Ohne Mindestlaufzeit", "Basis"),
            _PLAN.format("Tarif", "Mit Mindestlaufzeit", "Basis"),
        ),
        (
            _PLAN.format("Plan", "Sin permanencia", "Básico"),
            _PLAN.format("Plan", "Con permanencia", "Básico"),
        ),
        ("The deployment did not succeed.", "| Deployment | Succeeded |\n|---|---|"),
        ("The deployment failed.", "| Deployment | Succeeded |\n|---|---|"),
        ("Refund: not approved", "| Refund | Approved |\n|---|---|"),
        (
            "The refund was not approved.\n\n| Order | Amount |\n|---|---|\n| #123 | 40 EUR |",
            "| Order | Refund approved |\n|---|---|\n| #123 | 40 EUR |",
        ),
        (
            "## Refund approved; shipping free\nWe sent 40 EUR.",
            "## Refund rejected; shipping free\nWe sent 40 EUR.",
        ),
        (
            "## Refund not approved; shipping free\nDetails below.",
            "## Refund approved; shipping free\nDetails below.",
        ),
    ],
)
def test_a_header_row_that_states_the_outcome_is_read_for_polarity(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    assert verdict.score < THRESHOLD, [f.message for f in verdict.findings]
