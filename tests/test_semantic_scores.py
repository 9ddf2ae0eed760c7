"""DiffReport.score (weighted composite), min_score with its epsilon, strict argument
comparison, and the per-test options of AgentAsserter."""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pytest

from agentsnap import (
    AgentAsserter,
    AgentRegressionError,
    Snapshot,
    SnapshotStore,
    config,
)
from agentsnap.diff import DiffReport, compute_diff
from agentsnap.diff.report import COMPONENTS

LEX: dict[str, Any] = {"embedding_backend": "lexical"}


def tool(step: int, name: str, args: Any) -> dict[str, Any]:
    return {"step": step, "type": "tool_call", "name": name, "args": args, "result": "ok"}


def llm(step: int, response: str) -> dict[str, Any]:
    return {
        "step": step,
        "type": "llm_call",
        "messages": [],
        "response": response,
        "tool_requests": [],
    }


GOLDEN = {
    "trace": [
        llm(0, "Looking it up."),
        tool(1, "search", {"q": "paris", "n": 3}),
        tool(2, "weather", {"city": "Paris"}),
    ],
    "output": "It is sunny in Paris today.",
}


def test_an_exact_replay_scores_exactly_one_and_passes_min_score_one() -> None:
    report = compute_diff(GOLDEN, copy.deepcopy(GOLDEN), min_score=1.0, weights={"output": 3.0})
    assert report.score == 1.0
    assert report.passed
    assert set(report.details["components"]) == {
        "structural",
        "arguments",
        "model_tools",
        "model_tool_args",
        "llm_calls",
        "output",
    }


def test_components_and_the_weighted_mean() -> None:
    new = copy.deepcopy(GOLDEN)
    new["trace"][1]["args"]["n"] = 4  # 1 of 2 aligned calls changed
    new["output"] = "It is rainy in Paris today."
    report = compute_diff(GOLDEN, new, **LEX)
    parts = report.details["components"]
    assert parts["structural"] == 1.0
    assert parts["arguments"] == 0.5
    assert parts["llm_calls"] == 1.0
    assert 0.0 < parts["output"] < 1.0
    assert report.score == pytest.approx(math.fsum(parts.values()) / len(parts))
    only_args = report.composite({k: 0.0 for k in COMPONENTS if k != "arguments"})
    assert only_args == 0.5
    heavy = compute_diff(GOLDEN, new, weights={"arguments": 10.0}, **LEX)
    assert heavy.score < report.score
    assert heavy.score == heavy.composite({"arguments": 10.0})
    assert heavy.details["settings"]["weights"] == {"arguments": 10.0}


def test_min_score_fails_the_score_check_with_epsilon() -> None:
    new = copy.deepcopy(GOLDEN)
    new["trace"][1]["args"]["n"] = 4
    score = compute_diff(GOLDEN, new, **LEX).score
    assert compute_diff(GOLDEN, new, min_score=score + 1e-12, **LEX).failed_checks == ["arguments"]
    report = compute_diff(GOLDEN, new, min_score=score + 1e-6, **LEX)
    assert report.failed_checks == ["arguments", "score"]
    assert "[SCORE] FAIL — composite" in report.render()
    assert "< min_score" in report.render().splitlines()[-1]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"weights": {"tone": 1.0}}, ValueError, "unknown weights key 'tone'"),
        ({"weights": {"output": -1}}, ValueError, "finite number >= 0"),
        ({"weights": {"output": "1"}}, TypeError, "must be a number"),
        ({"weights": [("output", 1.0)]}, TypeError, "mapping"),
        ({"min_score": 1.5}, ValueError, "min_score must be in"),
        ({"judge": object()}, TypeError, "score\\(golden, new\\)"),
    ],
)
def test_bad_options(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        compute_diff(GOLDEN, GOLDEN, **kwargs)


def test_a_hand_built_report_scores_one() -> None:
    assert DiffReport().score == 1.0
    with pytest.raises(ValueError, match="unknown weights key"):
        DiffReport().composite({"x": 1.0})


def test_strict_makes_argument_comparison_pure_equality() -> None:
    new = copy.deepcopy(GOLDEN)
    new["trace"][1]["args"] = {"n": 3.0, "q": "paris"}  # float and another key order
    assert compute_diff(GOLDEN, new).passed
    report = compute_diff(GOLDEN, new, strict=True)
    assert report.failed_checks == ["arguments"]
    [entry] = report.changes
    assert entry["changes"] == [{"path": "args.n", "old": 3, "new": 3.0, "kind": "type_changed"}]
    assert report.details["settings"]["strict"] is True


# ------------------------------------------------------------------ AgentAsserter


@pytest.fixture
def store(tmp_path: Path) -> tuple[SnapshotStore, config.Settings]:
    settings = config.load(tmp_path, env={})
    store = SnapshotStore(tmp_path / "snaps")
    store.save(
        Snapshot(
            name="agent",
            trace=[tool(0, "search", {"q": "paris", "n": 3})],
            output="It is sunny in Paris today.",
            approved=True,
        )
    )
    return store, settings


def run(
    store: tuple[SnapshotStore, config.Settings], output: str, args: dict[str, Any], **kwargs: Any
) -> AgentAsserter:
    snapshots, settings = store
    with AgentAsserter(
        "agent", snapshots.root, settings=settings, embedding_backend="lexical", **kwargs
    ) as a:
        a.record_tool_call("search", args, "ok")
        a.output = output
    return a


def test_agent_asserter_min_score_weights_and_strict(
    store: tuple[SnapshotStore, config.Settings],
) -> None:
    same = "It is sunny in Paris today."
    # an exact replay passes min_score=1.0
    assert run(store, same, {"q": "paris", "n": 3}, min_score=1.0).report.score == 1.0
    # 3 vs 3.0 is equal by default, a failure with strict=True
    assert run(store, same, {"n": 3.0, "q": "paris"}).report.passed
    with pytest.raises(AgentRegressionError) as err:
        run(store, same, {"n": 3.0, "q": "paris"}, strict=True)
    assert err.value.diff_report.failed_checks == ["arguments"]
    # a small wording change passes its threshold but not a high min_score weighted on the output
    close = "It is sunny in Paris today!"
    assert run(store, close, {"q": "paris", "n": 3}).report.passed
    with pytest.raises(AgentRegressionError) as err:
        run(store, close, {"q": "paris", "n": 3}, min_score=0.995, weights={"output": 5.0})
    assert err.value.diff_report.failed_checks == ["score"]
    assert "[SCORE] FAIL" in str(err.value)


def test_agent_asserter_strict_facts_and_judge(
    store: tuple[SnapshotStore, config.Settings],
) -> None:
    class Judge:
        def __init__(self) -> None:
            self.calls: list[tuple[str, str]] = []

        def score(self, golden: str, new: str) -> tuple[float, str]:
            self.calls.append((golden, new))
            return 0.95, "Same forecast."

    judge = Judge()
    a = run(store, "Sunny in Paris today.", {"q": "paris", "n": 3}, judge=judge, judge_mode="score")
    assert a.report.backend == "judge" and a.report.semantic_scores["output"] == 0.95
    assert judge.calls == [("It is sunny in Paris today.", "Sunny in Paris today.")]
    assert (
        run(
            store, "It is sunny in Paris today.", {"q": "paris", "n": 3}, judge=False
        ).report.backend
        == "exact"
    )
    with pytest.raises(AgentRegressionError) as err:
        run(
            store,
            "It is sunny in Rome today.",
            {"q": "paris", "n": 3},
            strict_facts=True,
            semantic_threshold=0.3,
        )
    assert err.value.diff_report.details["semantic"]["output"]["failed_by"] == "strict_facts"
