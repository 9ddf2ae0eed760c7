"""Harmless rewording the meaning check read as a changed answer (issue 29, round twelve), each
kind on short pairs written here (none taken from a dev set or the frozen set): the reworded form
passes, and its near miss, which denies or leaves out what the golden answer says, still fails.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default

# --------------------------------------------------------------- a sentence merged in other forms
# A golden sentence with no fact said inside its neighbour's counterpart with its words in other
# forms (a verb said as its noun: ``reintentó`` / ``reintento``, ``relancé`` / ``relance``) is
# merged, not dropped; said under a negation (``sin ningún reintento``) or not said, it is not.

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
        (
            _ES,
            "La exportación se ejecuta cada noche a las 2:00. Tras un reintento automático, el único "
            "que hace el programador, la tarea aparece en amarillo en lugar de verde.",
        ),
        (
            _FR,
            "L'export tourne chaque nuit à 2 h. Après une relance automatique, la seule que fait le "
            "planificateur, la tâche apparaît en jaune au lieu de vert.",
        ),
    ],
)
def test_a_sentence_merged_in_other_word_forms_is_not_dropped(golden: str, new: str) -> None:
    verdict = compare(golden, new)
    messages = [f.message for f in verdict.findings]
    assert verdict.score >= THRESHOLD, messages
    assert any("sentences merged" in m for m in messages), messages


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
