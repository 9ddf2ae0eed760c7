"""brk10: a sentence "merged" into its neighbour's counterpart where the counterpart denies it.

Round twelve's ``merges._said_akin`` finds a golden sentence with no fact (``El programador
reintentó automáticamente``) inside the neighbour's counterpart by its words in other forms, and
refuses only where a negation or negative pole stands within three tokens of those words. A
denial by a verb (cancelled, omitted; cancelarse, omitió), or a negation four tokens away
("Nunca hubo, según los registros, reintento automático"), or "before any retry" (``avant toute
relance``: the retry had not happened) reads as the sentence merged, and the answer passes.

On the base (a0c0543) every pair fails ("sentence dropped", score ~0.83); on main every pair
passes (score ~0.95, "sentences merged").

The reading was taken out of main after this review: these rows fail again, as on the base, and
guard against its return.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default

_ES = (
    "La exportación se ejecuta cada noche a las 2:00. El programador reintentó automáticamente. "
    "Por eso la tarea aparece en amarillo y no en verde."
)
_FR = (
    "L'export tourne chaque nuit à 2 h. Le planificateur a relancé automatiquement. C'est pourquoi "
    "la tâche apparaît en jaune et non en vert."
)
_EN = (
    "The export runs every night at 2:00. The scheduler retried automatically. That is why the "
    "task shows yellow and not green."
)


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            _ES,
            "La exportación se ejecuta cada noche a las 2:00. Tras cancelarse el reintento "
            "automático del programador, la tarea aparece en amarillo en lugar de verde.",
        ),
        (
            _ES,
            "La exportación se ejecuta cada noche a las 2:00. Como el programador omitió el "
            "reintento automático, la tarea aparece en amarillo en lugar de verde.",
        ),
        (
            _ES,
            "La exportación se ejecuta cada noche a las 2:00. Nunca hubo, según los registros, "
            "reintento automático; la tarea del programador aparece en amarillo en lugar de verde.",
        ),
        (
            _FR,
            "L'export tourne chaque nuit à 2 h. Avant toute relance automatique du planificateur, "
            "la tâche apparaît en jaune au lieu de vert.",
        ),
        (
            _EN,
            "The export runs every night at 2:00. Since the scheduler cancelled its automatic "
            "retry, the task shows yellow instead of green.",
        ),
    ],
)
def test_a_sentence_denied_where_it_would_be_merged_is_not_merged(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    assert verdict.score < THRESHOLD, [f.message for f in verdict.findings]
