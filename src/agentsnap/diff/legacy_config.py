"""agentsnap 0.5.1's :class:`DiffConfig` (``from agentsnap import DiffConfig``).

``DiffConfig`` is agentsnap 0.5.1's bundle of comparison settings:
``compute_diff(golden, new, config=DiffConfig(semantic_threshold=0.95))``
reads its fields instead of the matching keywords. Its defaults are 0.5.1's:
an unset ``llm_threshold`` is 0.75, or 0.40 when a ``judge`` scores the texts
(judge scores of paraphrases run lower than cosine similarities).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..knobs import LLM_THRESHOLD_EMBEDDING, LLM_THRESHOLD_JUDGE

__all__ = ["DiffConfig"]


@dataclass
class DiffConfig:
    """Comparison settings (agentsnap 0.5.1's ``DiffConfig``; same fields, same defaults).

    ``semantic_threshold``: minimum score of the final output (0..1).
    ``llm_threshold``: minimum score of each ``llm_call[i]`` response; None:
    :data:`LLM_THRESHOLD_EMBEDDING`, or :data:`LLM_THRESHOLD_JUDGE` with a judge.
    ``structural_tolerance``: edit-distance budget of the tool sequences (int >= 0).
    ``structural_threshold``: 0.5.1 let a judge score the tool sequence against
    this; agentsnap always decides by edit distance, so it is accepted and unused.
    ``ignored_fields``: tool-argument paths to leave out.
    ``judge``: an :class:`~agentsnap.diff.meaning.judge.LLMJudge` (or any object with
    ``score(golden, new)``) scoring differing texts, or None.
    ``compare_llm_requests``: also compare each call's request (replay mode).
    """

    semantic_threshold: float = 0.92
    llm_threshold: float | None = None
    structural_tolerance: int = 0
    structural_threshold: float = 0.8
    ignored_fields: list[str] = field(default_factory=list)
    judge: Any = None
    compare_llm_requests: bool = False

    def resolved_llm_threshold(self) -> float:
        """``llm_threshold``, or its default for this config (see the class doc)."""
        if self.llm_threshold is not None:
            return float(self.llm_threshold)
        return LLM_THRESHOLD_JUDGE if self.judge is not None else LLM_THRESHOLD_EMBEDDING

    def options(self) -> dict[str, Any]:
        """The :func:`~agentsnap.diff.compute_diff` keywords these settings stand for."""
        return {
            "semantic_threshold": self.semantic_threshold,
            "llm_threshold": self.resolved_llm_threshold(),
            "structural_tolerance": self.structural_tolerance,
            "ignored_fields": list(self.ignored_fields or []),
            "judge": self.judge,
            "compare_requests": bool(self.compare_llm_requests),
        }
