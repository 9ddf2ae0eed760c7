"""Semantic layer through compute_diff: exact, lexical and embed_fn runs of the meaning check, thresholds, epsilon."""

from __future__ import annotations

import math
from typing import Any

import pytest

from agentsnap.diff import compute_diff
from agentsnap.diff.meaning.scores import as_text, score_pairs
from agentsnap.diff.meaning.similarity import cosine_similarity, lexical_similarity

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
    assert lexical_similarity(BOOKED, NOT_BOOKED) == pytest.approx(BOOKED_RATIO, abs=1e-12)
    assert lexical_similarity("abcd", "abce") == 0.75
    assert lexical_similarity("", "abc") == 0.0


def test_equal_texts_score_one_without_a_backend() -> None:
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        calls.append(texts)
        return [[1.0, 0.0] for _ in texts]

    report = compute_diff(snap("same", "a", "b"), snap("same", "a", "b"), embed_fn=embed)
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


POLARITY = (
    'polarity flipped (negation/antonym: not → none): golden: "The flight is not booked." '
    '→ new: "The flight is booked."'
)
LISBON = (
    "Your flight to Lisbon is booked for Friday morning.",
    "I've booked your Friday morning flight to Lisbon.",
)


def test_lexical_backend_runs_the_meaning_check_at_the_documented_thresholds() -> None:
    report = compute_diff(snap(NOT_BOOKED, NOT_BOOKED), snap(BOOKED, BOOKED), **LEX)
    assert report.backend == "lexical"
    # a flipped negation is a harmful finding: 0.40 + 0.20 q, below both thresholds
    assert report.semantic_scores["output"] == report.semantic_scores["llm_call[0]"] < 0.6
    assert report.failed_checks == ["semantic:llm_call[0]", "semantic:output"]
    details = report.details["semantic"]
    negation = {
        "kind": "negation",
        "golden": ["not"],
        "new": [],
        "message": "negation words differ (1 → 0): not → (none)",
    }
    assert details["output"] == {
        "threshold": 0.92,
        "backend": "lexical",
        "passed": False,
        "verdict": "changed",
        "findings": [
            {
                "kind": "polarity",
                "severity": "harmful",
                "golden": NOT_BOOKED,
                "new": BOOKED,
                "message": POLARITY,
            }
        ],
        "golden_excerpt": NOT_BOOKED,
        "new_excerpt": BOOKED,
        "hints": [negation],
        "failed_by": "threshold",
    }
    assert details["llm_call[0]"]["threshold"] == 0.75
    # without strict_facts the hints stay structured, the reasons are the findings
    assert report.reasons["output"] == [POLARITY]


def test_explicit_thresholds_are_honoured_on_the_lexical_backend() -> None:
    """Issue 16: the lexical fallback used to ignore semantic_threshold / llm_threshold."""
    paraphrase = compute_diff(snap(LISBON[0], LISBON[0]), snap(LISBON[1], LISBON[1]), **LEX)
    score = paraphrase.semantic_scores["output"]
    assert 0.92 <= score < 0.99
    assert paraphrase.passed
    assert paraphrase.details["semantic"]["output"]["verdict"] == "same meaning"
    tight = compute_diff(snap(LISBON[0]), snap(LISBON[1]), semantic_threshold=0.99, **LEX)
    assert tight.failed_checks == ["semantic:output"]
    assert tight.details["semantic"]["output"]["threshold"] == 0.99
    assert compute_diff(
        snap("x", LISBON[0]), snap("x", LISBON[1]), llm_threshold=0.995, **LEX
    ).failed_checks == ["semantic:llm_call[0]"]
    # a loose explicit threshold lets even the flipped negation through, as asked
    assert compute_diff(snap(NOT_BOOKED), snap(BOOKED), semantic_threshold=0.3, **LEX).passed
    # the legacy lexical_* settings are validated and recorded, not applied
    report = compute_diff(snap(NOT_BOOKED), snap(BOOKED), lexical_semantic_threshold=0.1, **LEX)
    assert report.failed_checks == ["semantic:output"]
    assert report.details["settings"]["lexical_semantic_threshold"] == 0.1


def test_threshold_equal_to_score_passes_despite_float_noise() -> None:
    score = compute_diff(snap(LISBON[0]), snap(LISBON[1]), **LEX).semantic_scores["output"]
    # a threshold a hair above the score (float noise) still passes ...
    assert compute_diff(
        snap(LISBON[0]), snap(LISBON[1]), semantic_threshold=score + 1e-12, **LEX
    ).passed
    # ... a real margin does not
    assert not compute_diff(
        snap(LISBON[0]), snap(LISBON[1]), semantic_threshold=score + 1e-6, **LEX
    ).passed


def test_embed_fn_aligns_the_sentences_in_one_batched_call() -> None:
    """The user's vectors decide the alignment: orthogonal vectors leave nothing aligned."""
    calls: list[list[str]] = []
    golden_text = "The parcel was handed over at reception."
    new_text = "Your package is waiting for you at the front desk."

    def embed(texts: list[str]) -> list[list[float]]:
        calls.append(list(texts))
        return [[1.0, 0.0] if t == golden_text else [0.0, 1.0] for t in texts]

    def parallel(texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]

    report = compute_diff(snap(golden_text, "same"), snap(new_text, "same"), embed_fn=embed)
    # one call with every sentence of every differing pair, golden first
    assert calls == [[golden_text, new_text]]
    assert report.backend == "embed_fn"
    assert report.semantic_scores["llm_call[0]"] == 1.0
    orthogonal = report.semantic_scores["output"]
    aligned = compute_diff(snap(golden_text), snap(new_text), embed_fn=parallel).semantic_scores[
        "output"
    ]
    assert aligned >= 0.92
    assert orthogonal < aligned


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
    assert report.semantic_scores["output"] < 0.6
    assert report.reasons["output"] == [
        'the golden answer is empty: golden: "null" → new: "an answer"'
    ]
    assert report.failed_checks == ["semantic:output"]


def test_missing_response_counts_as_empty_text() -> None:
    assert compute_diff(snap("x", None), snap("x", "")).semantic_scores["llm_call[0]"] == 1.0


def test_score_pairs_reports_backend_per_pair() -> None:
    assert score_pairs([("a", "a"), ("abcd", "abce")], backend="lexical") == [
        (1.0, "exact"),
        (0.75, "lexical"),
    ]


def test_excerpts_show_the_changed_sentence_cut_near_the_first_difference() -> None:
    prefix = "x" * 300
    golden, new = (
        snap("All good. " + prefix + " the answer is 40"),
        snap("All good. " + prefix + " the answer is 400"),
    )
    report = compute_diff(golden, new, **LEX)
    details = report.details["semantic"]["output"]
    # the sentence that changed, 20 characters of context before its first difference
    assert details["golden_excerpt"] == "…xxx the answer is 40"
    assert details["new_excerpt"] == "…xxx the answer is 400"
    assert report.reasons["output"][0].startswith("numbers differ (40 → 400): golden: ")
    short = compute_diff(
        snap("The train arrives at 10:30."), snap("The train arrives at 11:30."), **LEX
    )
    assert short.details["semantic"]["output"]["golden_excerpt"] == "The train arrives at 10:30."
    assert short.details["semantic"]["output"]["new_excerpt"] == "The train arrives at 11:30."


def test_a_users_embed_fn_decides_and_facts_only_report_unless_strict() -> None:
    """agentsnap 0.5.1's contract: with ``embed_fn`` the cosine of the two texts' vectors is
    the semantic score. The meaning check still reports the changed number, but it fails
    the text only with ``strict_facts``."""
    golden_text, new_text = "The refund is 40 euros.", "The refund is 90 euros."

    def same(texts: list[str]) -> list[list[float]]:
        return [[0.6, 0.8] for _ in texts]

    def apart(texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] if t == golden_text else [0.0, 1.0] for t in texts]

    report = compute_diff(snap(golden_text), snap(new_text), embed_fn=same)
    assert report.passed and report.failed_checks == []
    assert report.semantic_scores["output"] == pytest.approx(1.0)
    assert report.backend == "embed_fn"
    findings = report.details["semantic"]["output"]["findings"]
    assert any("40" in (f["golden"] or "") and "90" in (f["new"] or "") for f in findings)

    strict = compute_diff(snap(golden_text), snap(new_text), embed_fn=same, strict_facts=True)
    assert not strict.passed and strict.failed_checks == ["semantic:output"]

    orthogonal = compute_diff(snap(golden_text), snap(new_text), embed_fn=apart)
    assert orthogonal.semantic_scores["output"] == pytest.approx(0.0)
    assert orthogonal.failed_checks == ["semantic:output"]


def test_agent_asserter_passes_a_rewording_its_embed_fn_scores_identical(tmp_path: Any) -> None:
    from agentsnap import AgentAsserter, AgentRecorder
    from agentsnap.exceptions import AgentRegressionError

    with AgentRecorder("answer", snapshot_dir=tmp_path) as rec:
        rec.output = "Your order ships on Monday."
    with AgentAsserter(
        "answer", snapshot_dir=tmp_path, embed_fn=lambda texts: [[1.0, 1.0] for _ in texts]
    ) as run:
        run.output = "Great news! Your order will be shipped on Monday."
    with (
        pytest.raises(AgentRegressionError) as info,
        AgentAsserter(
            "answer",
            snapshot_dir=tmp_path,
            embed_fn=lambda texts: [[1.0, 0.0] if "Great" in t else [0.0, 1.0] for t in texts],
        ) as run,
    ):
        run.output = "Great news! Your order will be shipped on Monday."
    assert info.value.diff_report.failed_checks == ["semantic:output"]


def test_a_users_embed_fn_decides_a_live_run_through_the_openai_sdk(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: a golden recorded through the openai SDK, then live runs whose answer
    changed a number (which the meaning check flags). The user's ``embed_fn`` scores the two
    answers identical: the run passes and the report still lists the changed number; with
    ``strict_facts`` that finding fails it; an ``embed_fn`` that scores them apart fails it."""
    import openai

    from agentsnap import AgentAsserter, AgentRecorder
    from agentsnap.exceptions import AgentRegressionError
    from tests.fake_provider import FakeOpenAI, text_reply

    monkeypatch.delenv("CI", raising=False)
    golden_answer, new_answer = "Your refund is 40 euros.", "Your refund is 90 euros."

    def same(texts: list[str]) -> list[list[float]]:
        return [[0.6, 0.8] for _ in texts]

    def apart(texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] if t == golden_answer else [0.0, 1.0] for t in texts]

    def ask(client: openai.OpenAI) -> str:
        reply = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "My refund?"}]
        )
        return str(reply.choices[0].message.content)

    with FakeOpenAI() as fake:
        fake.script(text_reply(golden_answer))
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        with AgentRecorder("refund", snapshot_dir=tmp_path) as rec:
            rec.output = ask(client)

        fake.script(text_reply(new_answer))
        with AgentAsserter("refund", snapshot_dir=tmp_path, embed_fn=same) as run:
            run.output = ask(client)
        report = run.report
        assert report is not None and report.passed and report.failed_checks == []
        assert report.semantic_scores == {"llm_call[0]": pytest.approx(1.0), "output": 1.0}
        for key in ("llm_call[0]", "output"):
            findings = report.details["semantic"][key]["findings"]
            assert [(f["kind"], f["severity"], f["golden"], f["new"]) for f in findings] == [
                ("number", "harmful", golden_answer, new_answer)
            ]

        fake.script(text_reply(new_answer))
        with (
            pytest.raises(AgentRegressionError) as strict,
            AgentAsserter("refund", snapshot_dir=tmp_path, embed_fn=same, strict_facts=True) as run,
        ):
            run.output = ask(client)
        assert strict.value.diff_report.failed_checks == ["semantic:llm_call[0]", "semantic:output"]
        assert strict.value.diff_report.details["semantic"]["output"]["failed_by"] == "strict_facts"

        fake.script(text_reply(new_answer))
        with (
            pytest.raises(AgentRegressionError) as orthogonal,
            AgentAsserter("refund", snapshot_dir=tmp_path, embed_fn=apart) as run,
        ):
            run.output = ask(client)
        assert orthogonal.value.diff_report.failed_checks == [
            "semantic:llm_call[0]",
            "semantic:output",
        ]
        assert orthogonal.value.diff_report.semantic_scores["output"] == pytest.approx(0.0)


@pytest.mark.parametrize("threshold", [0.8, 1.0])
def test_responses_shared_by_both_sides_report_what_equal_copies_do(threshold: float) -> None:
    """A run proven its golden's shares the golden's values (``lazy_steps.compared``): a
    response that is the same object on both sides skips the text pairing and scoring, and the
    report is the one equal copies give, differing texts and a judge's keys included."""
    import copy
    import json

    responses: list[Any] = [BOOKED, {"a": [1, 2]}, NOT_BOOKED, "Rain in Paris.", None, BOOKED]
    golden = snap("done", *responses)
    shared = {"trace": [dict(step) for step in golden["trace"]], "output": "done"}
    shared["trace"][2]["response"] = BOOKED  # differs from the golden's
    shared["trace"][3]["response"] = "Sun in Paris."
    copied = copy.deepcopy(shared)
    assert shared["trace"][0]["response"] is golden["trace"][0]["response"]
    asked: list[Any] = []

    class Judge:
        def score(self, old: str, new: str, key: str | None = None) -> float:
            asked.append((old, new, key))
            return 0.5

    for options in ({**LEX, "llm_threshold": threshold}, {"judge": Judge()}):
        asked.clear()
        one = compute_diff(golden, shared, **options)
        asked_one = list(asked)
        asked.clear()
        two = compute_diff(golden, copy.deepcopy(copied), **options)
        assert asked_one == asked and bool(asked) == ("judge" in options)
        for field in ("score", "failed_checks", "semantic_scores", "reasons", "backend"):
            assert getattr(one, field) == getattr(two, field), field
        assert json.dumps(one.details, default=repr) == json.dumps(two.details, default=repr)
        assert one.render() == two.render()
