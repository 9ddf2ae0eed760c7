"""The two similarity measures every part of the meaning check shares: the cosine of two
vectors (:func:`cosine_similarity`) and difflib's ratio of two texts
(:func:`lexical_similarity`). Standard library only."""

from __future__ import annotations

import difflib
import math
from collections.abc import Sequence

__all__ = ["cosine_similarity", "lexical_similarity"]


def lexical_similarity(a: str, b: str) -> float:
    """``difflib.SequenceMatcher(None, norm(a), norm(b)).ratio()``: 2*matches / total length, in [0, 1].

    ``norm`` case-folds and collapses runs of whitespace (as the MiniLM
    tokenizer does), so a change of case or line breaks alone scores 1.0.
    Always this standard-library metric, whatever else is installed, so
    lexical scores do not depend on the environment.
    """
    return difflib.SequenceMatcher(None, _norm(a), _norm(b)).ratio()


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def cosine_similarity(u: Sequence[float], v: Sequence[float]) -> float:
    """Cosine of two equal-length vectors, in [-1, 1].

    Two zero vectors score 1.0; a zero vector against a non-zero one 0.0.

    Raises:
        ValueError: the vectors differ in length.
    """
    if len(u) != len(v):
        raise ValueError(f"embed_fn returned vectors of different lengths ({len(u)} and {len(v)})")
    dot = math.fsum(float(x) * float(y) for x, y in zip(u, v, strict=True))
    nu = math.sqrt(math.fsum(float(x) * float(x) for x in u))
    nv = math.sqrt(math.fsum(float(y) * float(y) for y in v))
    if nu == 0.0 or nv == 0.0:
        return 1.0 if nu == nv else 0.0
    return max(-1.0, min(1.0, dot / (nu * nv)))
