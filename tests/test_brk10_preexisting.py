"""brk10: false passes found while attacking round twelve that the base (a0c0543) has too (not
regressions of this session; listed so they are not lost).

- Two steps swapped across two sentences ("Back up the database first. Then run the
  migration." → "Run the migration first. Then back up the database."): passes, 0.965 (in one
  sentence the swap fails as roles swapped / steps out of order).
- One ordinal dropped or a restriction by it lost ("Your last payment is due in March." → "Your
  payment is due in March."; "Only the first login requires 2FA." → "The login requires 2FA."):
  one word, under the "claim added / part dropped" weight of 3; passes, 0.96-0.98.
- A step kept in name but said to be unneeded ("Sauvegardez la base. Lancez la migration." →
  "Lancez la migration, la sauvegarde de la base est inutile."; en, de, es alike): passes, 0.96.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default


@pytest.mark.xfail(strict=True, reason="known false passes of the rules (module doc)")
@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            "Back up the database first. Then run the migration.",
            "Run the migration first. Then back up the database.",
        ),
        ("Your last payment is due in March.", "Your payment is due in March."),
        ("Only the first login requires 2FA.", "The login requires 2FA."),
        (
            "Sauvegardez la base. Lancez la migration. Redémarrez le service.",
            "Lancez la migration, la sauvegarde de la base est inutile. Redémarrez le service.",
        ),
        (
            "Back up the database. Run the migration. Restart the service.",
            "Run the migration; the database backup can wait until after it. Restart the service.",
        ),
    ],
)
def test_a_changed_fact_a_reader_relies_on_fails(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    assert verdict.score < THRESHOLD, [f.message for f in verdict.findings]
