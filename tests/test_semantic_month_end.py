"""A month's end said as such is its last day, and a weekday's overtime is Monday to Friday's
(issue 29, round eleven): "bis zum 31. März" = "bis Ende März", "by 30 June" = "by the end of
June", "3月31日まで" = "3月末まで"; "weekdays" = "weekday overtime". Another day of the month, or
another month, still differs. Rows written here, in five languages, not taken from a dev or the
frozen set.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            "Unused credits can be carried over until 30 June.",
            "You can carry unused credits over until the end of June.",
        ),
        (
            "Die Unterlagen müssen bis zum 31. Oktober eingereicht werden.",
            "Die Unterlagen müssen bis Ende Oktober eingereicht werden.",
        ),
        (
            "Le dossier doit être déposé avant le 30 avril.",
            "Le dossier doit être déposé avant fin avril.",
        ),
        (
            "La oferta es válida hasta el 31 de enero.",
            "La oferta es válida hasta finales de enero.",
        ),
        ("申込期限は3月31日です。", "申込期限は3月末です。"),
        (
            "Support answers on weekdays from 9:00 to 17:00.",
            "Weekday support hours: 9:00 to 17:00.",
        ),
    ],
)
def test_a_month_end_or_a_weekday_said_otherwise_passes(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    assert verdict.score >= THRESHOLD, [f.message for f in verdict.findings]


@pytest.mark.parametrize(
    ("golden", "new", "kind"),
    [
        (
            "Unused credits can be carried over until 15 June.",
            "You can carry unused credits over until the end of June.",
            "dates differ",
        ),
        (
            "Die Unterlagen müssen bis zum 30. Oktober eingereicht werden.",
            "Die Unterlagen müssen bis Ende Oktober eingereicht werden.",
            "dates differ",
        ),
        (
            "Le dossier doit être déposé avant le 30 avril.",
            "Le dossier doit être déposé avant fin mai.",
            "dates differ",
        ),
        (
            "La oferta es válida hasta el 31 de enero.",
            "La oferta es válida hasta finales de febrero.",
            "dates differ",
        ),
        ("申込期限は3月31日です。", "申込期限は4月末です。", "dates differ"),
        (
            "Support answers on weekdays from 9:00 to 17:00.",
            "Weekend support hours: 9:00 to 17:00.",
            "differ",
        ),
    ],
)
def test_another_day_or_month_still_differs(golden: str, new: str, kind: str) -> None:
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score < THRESHOLD, messages
    assert any(kind in m for m in messages), messages
