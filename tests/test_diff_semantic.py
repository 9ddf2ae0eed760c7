"""Semantic layer: exact, lexical and embed_fn scores, thresholds, epsilon."""

from __future__ import annotations

import math
from typing import Any

import pytest

from agentsnap.diff import compute_diff
from agentsnap.diff.semantic import (
    as_text,
    cosine_similarity,
    lexical_similarity,
    score_pairs,
)

BOOKED = "The flight is booked."
NOT_BOOKED = "The flight is not booked."
# 21 + 25 characters, 21 of them matched: 2 * 21 / 46
BOOKED_RATIO = 42 / 46
# these tests pin the standard-library backend (what `pip install agentsnap` has);
# the MiniLM backends are tested in tests/test_semantic*.py
LEX: dict[str, Any] = {"embedding_backend": "lexical"}


def llm(step: int, response: Any) -> dict[str, Any]:
    return {
        "step": step,
        "type": "llm_call",
        "messages": [],
        "response": response,
        "tool_requests": [],
    }


def snap(output: Any, *responses: Any) -> dict[str, Any]:
    return {"trace": [llm(i, r) for i, r in enumerate(responses)], "output": output}


def test_known_lexical_ratio() -> None:
    assert lexical_similarity(BOOKED, NOT_BOOKED) == pytest.approx(
        BOOKED_RATIO, abs=1e-12
    )
    assert lexical_similarity("abcd", "abce") == 0.75
    assert lexical_similarity("", "abc") == 0.0


def test_equal_texts_score_one_without_a_backend() -> None:
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        calls.append(texts)
        return [[1.0, 0.0] for _ in texts]

    report = compute_diff(
        snap("same", "a", "b"), snap("same", "a", "b"), embed_fn=embed
    )
    assert report.semantic_scores == {
        "llm_call[0]": 1.0,
        "llm_call[1]": 1.0,
        "output": 1.0,
    }
    assert report.reasons == {
        "llm_call[0]": [],
        "llm_call[1]": [],
        "output": [],
    }
    assert report.backend == "exact"
    assert calls == []
    assert report.passed


def test_lexical_placeholder_scores_and_thresholds() -> None:
    report = compute_diff(snap(NOT_BOOKED, NOT_BOOKED), snap(BOOKED, BOOKED), **LEX)
    assert report.backend == "lexical"
    assert report.semantic_scores["llm_call[0]"] == pytest.approx(BOOKED_RATIO)
    assert report.semantic_scores["output"] == pytest.approx(BOOKED_RATIO)
    # 0.913 passes the lexical llm threshold (0.60) and fails the lexical output one (0.95)
    assert report.failed_checks == ["semantic:output"]
    details = report.details["semantic"]
    negation = {
        "kind": "negation",
        "golden": ["not"],
        "new": [],
        "message": "negation words differ (1 → 0): not → (none)",
    }
    assert details["output"] == {
        "threshold": 0.95,
        "backend": "lexical",
        "passed": False,
        "golden_excerpt": NOT_BOOKED,
        "new_excerpt": BOOKED,
        "hints": [negation],
        "failed_by": "threshold",
    }
    assert details["llm_call[0]"]["threshold"] == 0.60
    assert report.reasons["output"] == [negation["message"]]
    assert details["llm_call[0]"]["golden_excerpt"] is None


def test_thresholds_are_configurable() -> None:
    assert (
        compute_diff(
            snap(NOT_BOOKED), snap(BOOKED), lexical_semantic_threshold=0.91, **LEX
        ).failed_checks
        == []
    )
    assert compute_diff(
        snap("x", NOT_BOOKED), snap("x", BOOKED), lexical_llm_threshold=0.95, **LEX
    ).failed_checks == ["semantic:llm_call[0]"]
    # the embedding thresholds do not apply to lexical scores, and vice versa
    assert compute_diff(
        snap(NOT_BOOKED), snap(BOOKED), semantic_threshold=0.5, **LEX
    ).failed_checks == ["semantic:output"]
    assert compute_diff(
        snap(NOT_BOOKED),
        snap(BOOKED),
        lexical_semantic_threshold=0.1,
        embed_fn=lambda texts: [[1.0, 0.0], [0.0, 1.0]],
    ).failed_checks == ["semantic:output"]


def test_threshold_equal_to_score_passes_despite_float_noise() -> None:
    score = lexical_similarity(BOOKED, NOT_BOOKED)
    # a threshold a hair above the score (float noise) still passes ...
    assert compute_diff(
        snap(NOT_BOOKED), snap(BOOKED), lexical_semantic_threshold=score + 1e-12, **LEX
    ).passed
    # ... a real margin does not
    assert not compute_diff(
        snap(NOT_BOOKED), snap(BOOKED), lexical_semantic_threshold=score + 1e-6, **LEX
    ).passed


def test_embed_fn_cosine_and_single_batched_call() -> None:
    vectors = {
        "golden out": [1.0, 0.0],
        "new out": [0.6, 0.8],
        "g0": [0.0, 2.0],
        "n0": [0.0, 3.0],
        "same": [9.0, 9.0],
    }
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        calls.append(list(texts))
        return [vectors[t] for t in texts]

    report = compute_diff(
        snap("golden out", "g0", "same"), snap("new out", "n0", "same"), embed_fn=embed
    )
    assert calls == [["g0", "n0", "golden out", "new out"]]
    assert report.backend == "embed_fn"
    assert report.semantic_scores == {
        "llm_call[0]": 1.0,
        "llm_call[1]": 1.0,
        "output": pytest.approx(0.6),
    }
    assert report.failed_checks == ["semantic:output"]


def test_embed_fn_wrong_vector_count_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="embed_fn returned 1 vectors for 2 texts"):
        compute_diff(snap("a"), snap("b"), embed_fn=lambda texts: [[1.0]])


def test_embed_fn_errors_propagate() -> None:
    def boom(texts: list[str]) -> list[list[float]]:
        raise RuntimeError("model not available")

    with pytest.raises(RuntimeError, match="model not available"):
        compute_diff(snap("a"), snap("b"), embed_fn=boom)


def test_embed_fn_must_be_callable() -> None:
    with pytest.raises(TypeError, match="embed_fn must be callable"):
        compute_diff(snap("a"), snap("b"), embed_fn="minilm")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan])
def test_threshold_out_of_range_is_a_value_error(bad: float) -> None:
    with pytest.raises(ValueError, match="semantic_threshold must be in"):
        compute_diff(snap("a"), snap("a"), semantic_threshold=bad)
    with pytest.raises(ValueError, match="llm_threshold must be in"):
        compute_diff(snap("a"), snap("a"), llm_threshold=bad)


def test_threshold_wrong_type_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="llm_threshold must be a number"):
        compute_diff(snap("a"), snap("a"), llm_threshold="0.75")  # type: ignore[arg-type]


def test_cosine_similarity() -> None:
    assert cosine_similarity([1.0, 0.0], [0.0, 1.0]) == 0.0
    assert cosine_similarity([1.0, 1.0], [2.0, 2.0]) == pytest.approx(1.0)
    assert cosine_similarity([1.0, 0.0], [-1.0, 0.0]) == -1.0
    assert cosine_similarity([0.0, 0.0], [0.0, 0.0]) == 1.0
    assert cosine_similarity([0.0, 0.0], [1.0, 0.0]) == 0.0
    with pytest.raises(ValueError, match="different lengths"):
        cosine_similarity([1.0], [1.0, 2.0])


def test_non_string_outputs_are_compared_as_sorted_json() -> None:
    assert as_text({"b": 1, "a": "é"}) == '{"a": "é", "b": 1}'
    assert as_text(None) == "null"
    assert as_text([1, 2]) == "[1, 2]"
    report = compute_diff(snap({"b": 1, "a": 2}), snap({"a": 2, "b": 1}))
    assert report.semantic_scores["output"] == 1.0
    assert report.backend == "exact"


def test_none_outputs_are_equal_and_none_vs_text_is_not() -> None:
    assert compute_diff(snap(None), snap(None)).semantic_scores["output"] == 1.0
    report = compute_diff(snap(None), snap("an answer"), **LEX)
    assert report.semantic_scores["output"] == pytest.approx(
        lexical_similarity("null", "an answer")
    )
    assert report.failed_checks == ["semantic:output"]


def test_missing_response_counts_as_empty_text() -> None:
    assert (
        compute_diff(snap("x", None), snap("x", "")).semantic_scores["llm_call[0]"]
        == 1.0
    )


def test_score_pairs_reports_backend_per_pair() -> None:
    assert score_pairs([("a", "a"), ("abcd", "abce")], backend="lexical") == [
        (1.0, "exact"),
        (0.75, "lexical"),
    ]


def test_excerpts_start_near_the_first_difference() -> None:
    prefix = "x" * 300
    golden, new = (
        snap(prefix + " the answer is 40"),
        snap(prefix + " the answer is 400"),
    )
    report = compute_diff(golden, new, lexical_semantic_threshold=1.0, **LEX)
    details = report.details["semantic"]["output"]
    # 20 characters of context before the first difference, with a leading ellipsis
    assert details["golden_excerpt"] == "…xxx the answer is 40"
    assert details["new_excerpt"] == "…xxx the answer is 400"
    long_tail = compute_diff(
        snap("a" + "y" * 300), snap("b" + "y" * 300), lexical_semantic_threshold=1.0, **LEX
    )
    assert (
        long_tail.details["semantic"]["output"]["golden_excerpt"]
        == "a" + "y" * 99 + "…"
    )
