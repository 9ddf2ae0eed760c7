"""Semantic layer: how similar a new text is to its golden text, from 0.0 to 1.0.

Scoring order for one golden/new pair:

1. identical strings score exactly ``1.0`` and no backend is called
   (backend ``"exact"``);
2. with an ``embed_fn`` (``list[str] -> list[vector]``), the cosine similarity
   of the two vectors (backend ``"embed_fn"``);
3. otherwise the lexical placeholder ``difflib.SequenceMatcher(None, a,
   b).ratio()`` from the standard library (backend ``"lexical"``). It measures
   shared characters, not meaning: at the default thresholds it only passes
   near-verbatim text. An embedding backend replaces it in a later release.

A score passes when ``score + EPSILON >= threshold`` so floating-point noise
never fails an exact replay.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "EPSILON",
    "EmbedFn",
    "as_text",
    "cosine_similarity",
    "lexical_similarity",
    "meets_threshold",
    "score_pairs",
]

#: slack added to a score before comparing it with its threshold
EPSILON = 1e-9

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


def lexical_similarity(a: str, b: str) -> float:
    """``difflib.SequenceMatcher(None, a, b).ratio()``: 2*matches / total length, in [0, 1]."""
    return difflib.SequenceMatcher(None, a, b).ratio()


def cosine_similarity(u: Sequence[float], v: Sequence[float]) -> float:
    """Cosine of two equal-length vectors, in [-1, 1].

    Two zero vectors score 1.0; a zero vector against a non-zero one 0.0.

    Raises:
        ValueError: the vectors differ in length.
    """
    if len(u) != len(v):
        raise ValueError(
            f"embed_fn returned vectors of different lengths ({len(u)} and {len(v)})"
        )
    dot = math.fsum(float(x) * float(y) for x, y in zip(u, v, strict=True))
    nu = math.sqrt(math.fsum(float(x) * float(x) for x in u))
    nv = math.sqrt(math.fsum(float(y) * float(y) for y in v))
    if nu == 0.0 or nv == 0.0:
        return 1.0 if nu == nv else 0.0
    return max(-1.0, min(1.0, dot / (nu * nv)))


def meets_threshold(score: float, threshold: float) -> bool:
    """``score + EPSILON >= threshold``."""
    return score + EPSILON >= threshold


def score_pairs(
    pairs: Sequence[tuple[str, str]], embed_fn: EmbedFn | None = None
) -> list[tuple[float, str]]:
    """Score ``(golden, new)`` text pairs; return ``(score, backend)`` per pair, in order.

    ``backend`` is ``"exact"``, ``"embed_fn"`` or ``"lexical"`` (see the module
    docstring). ``embed_fn`` is called at most once, with the texts of every
    non-identical pair as ``[golden_0, new_0, golden_1, new_1, ...]``.

    Raises:
        ValueError: ``embed_fn`` returned a different number of vectors than
            texts, or vectors of different lengths.
        Whatever ``embed_fn`` itself raises propagates unchanged.
    """
    results: list[tuple[float, str] | None] = [None] * len(pairs)
    pending: list[int] = []
    for index, (golden, new) in enumerate(pairs):
        if golden == new:
            results[index] = (1.0, "exact")
        elif embed_fn is None:
            results[index] = (lexical_similarity(golden, new), "lexical")
        else:
            pending.append(index)
    if pending:
        assert embed_fn is not None
        texts = [text for index in pending for text in pairs[index]]
        vectors = list(embed_fn(texts))
        if len(vectors) != len(texts):
            raise ValueError(
                f"embed_fn returned {len(vectors)} vectors for {len(texts)} texts; "
                "it must return one vector per input text, in order"
            )
        for k, index in enumerate(pending):
            score = cosine_similarity(vectors[2 * k], vectors[2 * k + 1])
            results[index] = (score, "embed_fn")
    return [r for r in results if r is not None]
