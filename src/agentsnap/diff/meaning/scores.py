"""Semantic layer helpers: text of a value, thresholds, raw backend scores.

``compute_diff`` scores each differing golden/new text pair with the judge,
when there is one, else with the meaning check (:mod:`agentsnap.diff.meaning`:
sentences aligned, facts, polarity, roles, steps and claims compared), whose
score is 1.0 for identical text and falls with real differences, on one scale
for every embedding backend — so ``semantic_threshold`` (final output,
default 0.92) and ``llm_threshold`` (intermediate responses, default 0.75)
apply whatever the backend.

:func:`score_pairs` gives the *raw* score of a backend instead (MiniLM
cosine, or :func:`lexical_similarity`, the standard library's difflib
ratio): what the benchmarks time and what ``embedding_backend`` chooses
between. :data:`LEXICAL_SEMANTIC_THRESHOLD` and :data:`LEXICAL_LLM_THRESHOLD`
were the thresholds of raw lexical ratios; they remain as the defaults of the
``lexical_*`` settings, which are accepted and recorded but no longer applied.

A score passes when ``score + EPSILON >= threshold`` so floating-point noise
never fails an exact replay.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from .similarity import cosine_similarity, lexical_similarity

__all__ = [
    "EPSILON",
    "LEXICAL_LLM_THRESHOLD",
    "LEXICAL_SEMANTIC_THRESHOLD",
    "EmbedFn",
    "as_text",
    "cosine_similarity",
    "lexical_similarity",
    "meets_threshold",
    "score_pairs",
]

#: slack added to a score before comparing it with its threshold
EPSILON = 1e-9

#: default minimum lexical ratio of the final output. Measured on the 36 pairs of
#: tests/semantic_pairs.py: at 0.95 only near-verbatim text passes (case, whitespace and
#: punctuation edits, an unchanged long text) plus one-token edits inside longer text — each
#: of which the fact hints name (``$40`` → ``$400``, ``can`` → ``can't``); no paraphrase passes
#: (MiniLM at 0.92 passes 4 of 9).
LEXICAL_SEMANTIC_THRESHOLD = 0.95
#: default minimum lexical ratio of intermediate llm_call responses: tolerant of rephrasing
#: like ``llm_threshold``. On the same pairs, 0.60 passes 9 of 13 same-meaning pairs and fails
#: every different answer (which score 0.22–0.46); 0.75 would pass only 6 of 13.
LEXICAL_LLM_THRESHOLD = 0.60

#: a batch embedder: one vector (sequence of floats) per input text, same order
EmbedFn = Callable[[list[str]], Sequence[Sequence[float]]]


def as_text(value: Any) -> str:
    """The text a value is compared as.

    A ``str`` is itself; anything else (numbers, dicts, lists, ``None``) is
    ``json.dumps(value, sort_keys=True, ensure_ascii=False)``, so ``None`` is
    ``"null"`` and two ``None`` outputs are identical. Values JSON cannot
    encode fall back to ``str(value)`` inside the dump.
    """
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def meets_threshold(score: float, threshold: float) -> bool:
    """``score + EPSILON >= threshold``."""
    return score + EPSILON >= threshold


def score_pairs(
    pairs: Sequence[tuple[str, str]],
    embed_fn: EmbedFn | None = None,
    *,
    backend: Any = "auto",
) -> list[tuple[float, str]]:
    """Score ``(golden, new)`` text pairs; return ``(score, backend name)`` per pair, in order.

    Identical pairs are ``(1.0, "exact")``; the others are scored together by
    :func:`agentsnap.diff.meaning.backends.get_backend(backend, embed_fn)
    <agentsnap.diff.meaning.backends.get_backend>` — ``backend`` is a name from
    ``BACKEND_NAMES`` (default ``"auto"``) or a backend object. ``embed_fn``
    is called at most once, with the texts of every non-identical pair as
    ``[golden_0, new_0, golden_1, new_1, ...]``.

    Raises:
        ValueError: ``embed_fn`` returned a different number of vectors than
            texts, or vectors of different lengths; unknown ``backend``.
        agentsnap.diff.meaning.models.EmbeddingBackendError: the backend named is
            not installed, or a model file fails its sha256 check.
        Whatever ``embed_fn`` itself raises propagates unchanged.
    """
    from .backends import get_backend

    results: list[tuple[float, str] | None] = [None] * len(pairs)
    pending = [i for i, (golden, new) in enumerate(pairs) if golden != new]
    for index, (golden, new) in enumerate(pairs):
        if golden == new:
            results[index] = (1.0, "exact")
    if pending:
        scorer = get_backend(backend, embed_fn)
        scores = scorer.score([pairs[i] for i in pending])
        for index, score in zip(pending, scores, strict=True):
            results[index] = (score, scorer.name)
    return [r for r in results if r is not None]
