"""The reference docs' threshold examples behave as described, on every backend (issue 16).

agentsnap 0.5.1's configuration page: ``semantic_threshold=0.97`` holds a critical factual
agent's output tightly; ``semantic_threshold=0.75`` lets a creative agent paraphrase more.
On the meaning check's scale (agentsnap.diff.meaning.verdict) that reads:

* 0.97 — formatting changes pass; a free rewrite of the same facts fails (it passes the
  default 0.92); any changed fact fails;
* 0.92 (default) — rewording passes; an added or dropped sentence without facts of its own
  (a soft difference) fails;
* 0.75 — that soft difference passes (a writer adding a line); a changed fact still fails.

Backends: ``lexical`` (no model), ``onnx`` and ``sentence-transformers`` (when installed).
A user's ``embed_fn`` is not on this scale: its own cosine decides, as in agentsnap 0.5.1
(tests/test_diff_semantic.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from agentsnap.diff import compute_diff
from agentsnap.diff.meaning.backends import is_available

FORMATTING = ("The report is ready.", "**The report is ready.**")
REWRITE = (
    "Once upon a time a fox lived in the forest. It was clever and quick.",
    "A clever, quick fox once lived in a forest.",
)
ADDED_LINE = (
    "The hotel has a pool.",
    "The hotel has a pool. Guests love the quiet garden and the view over the old harbour.",
)
CHANGED_FACT = ("The train arrives at 10:30.", "The train arrives at 11:30.")


def _options(backend: str) -> dict[str, Any]:
    if backend != "lexical" and not is_available(backend):
        pytest.skip(f"the {backend!r} backend is not installed")
    return {"embedding_backend": backend}


def _passes(pair: tuple[str, str], threshold: float, backend: str) -> bool:
    report = compute_diff(
        {"output": pair[0]}, {"output": pair[1]}, semantic_threshold=threshold, **_options(backend)
    )
    assert report.backend == backend
    assert report.details["semantic"]["output"]["threshold"] == threshold
    return report.passed


BACKENDS = ["lexical", "onnx", "sentence-transformers"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_factual_agent_at_097_holds_the_output_tightly(backend: str) -> None:
    assert _passes(FORMATTING, 0.97, backend)
    assert not _passes(REWRITE, 0.97, backend)
    assert _passes(REWRITE, 0.92, backend)
    assert not _passes(CHANGED_FACT, 0.97, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_creative_agent_at_075_allows_more_but_not_a_changed_fact(backend: str) -> None:
    assert not _passes(ADDED_LINE, 0.92, backend)
    assert _passes(ADDED_LINE, 0.75, backend)
    assert _passes(REWRITE, 0.75, backend)
    assert not _passes(CHANGED_FACT, 0.75, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_llm_threshold_is_honoured_for_intermediate_responses(backend: str) -> None:
    def snap(response: str) -> dict[str, Any]:
        return {
            "trace": [{"step": 0, "type": "llm_call", "messages": [], "response": response}],
            "output": "x",
        }

    default = compute_diff(snap(ADDED_LINE[0]), snap(ADDED_LINE[1]), **_options(backend))
    assert default.passed  # a soft difference passes the tolerant 0.75
    assert default.details["semantic"]["llm_call[0]"]["threshold"] == 0.75
    tight = compute_diff(
        snap(ADDED_LINE[0]), snap(ADDED_LINE[1]), llm_threshold=0.9, **_options(backend)
    )
    assert tight.failed_checks == ["semantic:llm_call[0]"]
    changed = compute_diff(snap(CHANGED_FACT[0]), snap(CHANGED_FACT[1]), **_options(backend))
    assert changed.failed_checks == ["semantic:llm_call[0]"]


def test_the_model_tells_a_synonym_from_a_changed_word() -> None:
    """What the [semantic] extra adds: a one-word swap is judged by the model, not by spelling."""
    synonyms = [
        ("The car is fast and cheap.", "The automobile is fast and cheap."),
        ("The file is big.", "The file is large."),
    ]
    changed = ("The cheapest option is the train.", "The cheapest option is the bus.")
    lexical = [_passes(pair, 0.92, "lexical") for pair in [*synonyms, changed]]
    assert lexical == [False, False, False]  # without a model every replaced content word counts
    if not is_available("onnx"):
        pytest.skip("the 'onnx' backend is not installed (pip install 'agentsnap[semantic]')")
    assert [_passes(pair, 0.92, "onnx") for pair in [*synonyms, changed]] == [True, True, False]
    report = compute_diff(
        {"output": synonyms[0][0]}, {"output": synonyms[0][1]}, embedding_backend="onnx"
    )
    assert report.reasons["output"][0].startswith("reworded (car → automobile, judged a synonym)")
