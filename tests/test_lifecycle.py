"""The snapshot state machine (lifecycle.settle), row by row, without pytest in between."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentsnap import AgentRegressionError, SnapshotNotFoundError, SnapshotPendingError
from agentsnap.config import Settings
from agentsnap.lifecycle import build_snapshot, settle
from agentsnap.storage.store import SnapshotStore


def _steps(city: str = "Paris", answer: str = "Sunny in Paris") -> list[dict]:
    return [
        {
            "type": "llm_call",
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "weather?"}],
            "response": "",
            "tool_requests": [{"id": "c1", "name": "get_weather", "args": {"city": city}}],
        },
        {
            "type": "tool_call",
            "name": "get_weather",
            "args": {"city": city},
            "result": "Sunny",
            "id": "c1",
        },
        {
            "type": "llm_call",
            "model": "gpt-4o-mini",
            "messages": [],
            "response": answer,
            "tool_requests": [],
        },
    ]


def _new(**kw) -> object:
    return build_snapshot("t::x", _steps(**kw), output_from_trace=True)


@pytest.fixture
def store(tmp_path: Path) -> SnapshotStore:
    return SnapshotStore(tmp_path / "snaps")


LOCAL = Settings(ci=False)
CI = Settings(ci=True)


def test_build_snapshot_takes_output_and_model_from_the_trace() -> None:
    snap = _new()
    assert snap.output == "Sunny in Paris" and snap.model == "gpt-4o-mini"  # type: ignore[attr-defined]


def test_record_new_then_unchanged_then_updated(store: SnapshotStore) -> None:
    with pytest.warns(UserWarning, match="recorded golden 't::x'"):
        assert settle(store, _new(), LOCAL, mode="record").action == "recorded"
    assert store.load("t::x").approved is True  # type: ignore[union-attr]
    assert settle(store, _new(), LOCAL, mode="record", quiet_record=True).action == "unchanged"
    assert (
        settle(store, _new(city="Lyon"), LOCAL, mode="record", quiet_record=True).action
        == "updated"
    )
    assert store.load("t::x").tool_calls[0]["args"] == {"city": "Lyon"}  # type: ignore[union-attr]


def test_re_recording_says_what_changed(store: SnapshotStore) -> None:
    settle(store, _new(), LOCAL, mode="record", quiet_record=True)
    path = store.path_for("t::x")
    with pytest.warns(UserWarning) as caught:
        out = settle(store, _new(city="Lyon", answer="Rain in Lyon"), LOCAL, mode="record")
    assert out.changes == ("tool arguments changed", "output changed")
    assert [str(w.message) for w in caught] == [
        f"agentsnap: recorded golden 't::x' -> {path} (approved): tool arguments changed; output changed. "
        "Review the diff before committing."
    ]
    # only the first request changed: named as such, not as "nothing"
    steps = _steps(city="Lyon", answer="Rain in Lyon")
    steps[0]["messages"] = [{"role": "user", "content": "weather today?"}]
    out = settle(
        store,
        build_snapshot("t::x", steps, output_from_trace=True),
        LOCAL,
        mode="record",
        quiet_record=True,
    )
    assert out.action == "updated"
    assert out.changes == ("llm requests or responses changed (same steps, tools and output)",)
    # a pending snapshot re-recorded as it was is approved, with nothing to list
    pending = store.load("t::x")
    assert pending is not None
    pending.approved = False
    store.save(pending)
    out = settle(
        store,
        build_snapshot("t::x", steps, output_from_trace=True),
        LOCAL,
        mode="record",
        quiet_record=True,
    )
    assert (out.action, out.changes) == ("updated", ())


def test_missing_locally_writes_pending_and_warns(store: SnapshotStore) -> None:
    with pytest.warns(UserWarning, match="written to .* as pending"):
        out = settle(store, _new(), LOCAL, mode="live")
    assert out.action == "created" and store.load("t::x").approved is False  # type: ignore[union-attr]


def test_missing_in_ci_fails_and_writes_nothing(store: SnapshotStore) -> None:
    with pytest.raises(SnapshotNotFoundError, match="no snapshot for 't::x'"):
        settle(store, _new(), CI, mode="replay")
    assert not store.root.exists()


def test_missing_with_raise_policy_raises_even_locally(store: SnapshotStore) -> None:
    with pytest.raises(SnapshotNotFoundError):
        settle(store, _new(), LOCAL, mode="live", missing="raise")


def test_pending_is_never_compared_locally_and_fails_in_ci(store: SnapshotStore) -> None:
    with pytest.warns(UserWarning):
        settle(store, _new(), LOCAL, mode="live")
    drifted = _new(city="Lyon")
    with pytest.warns(UserWarning, match="pending approval; not compared"):
        assert settle(store, drifted, LOCAL, mode="live").action == "pending"
    assert store.load_last_run("t::x").tool_calls[0]["args"] == {"city": "Lyon"}  # type: ignore[union-attr]
    # (a folder the CLI run from here would not use: the hint names it)
    approve = f"agentsnap approve --dir {store.root.resolve()} t::x"
    with pytest.raises(SnapshotPendingError, match=re.escape(approve)):
        settle(store, _new(), CI, mode="live")
    relaxed = Settings(ci=True, allow_pending=True)
    with pytest.warns(UserWarning):
        assert settle(store, _new(), relaxed, mode="live").action == "pending"


def test_approved_compares_and_fails_on_drift_with_last_run_written(store: SnapshotStore) -> None:
    settle(store, _new(), LOCAL, mode="record", quiet_record=True)
    assert settle(store, _new(), CI, mode="live").action == "passed"
    with pytest.raises(AgentRegressionError) as err:
        settle(store, _new(city="Lyon"), CI, mode="live")
    assert "args.city: 'Paris' → 'Lyon'" in str(err.value)
    assert f"agentsnap update --dir {store.root.resolve()} t::x" in str(err.value)
    assert err.value.diff_report.failed_checks[:1] == ["arguments"]
    assert store.load_last_run("t::x").tool_calls[0]["args"] == {"city": "Lyon"}  # type: ignore[union-attr]
    assert store.load("t::x").tool_calls[0]["args"] == {"city": "Paris"}  # type: ignore[union-attr]


def test_failed_test_writes_nothing_in_any_mode(store: SnapshotStore) -> None:
    settle(store, _new(), LOCAL, mode="record", quiet_record=True)
    before = store.path_for("t::x").read_bytes()
    for mode in ("record", "live", "replay"):
        assert (
            settle(store, _new(city="Lyon"), LOCAL, mode=mode, test_passed=False).action
            == "skipped"
        )
    assert store.path_for("t::x").read_bytes() == before


def test_last_run_records_how_it_was_compared(store: SnapshotStore) -> None:
    settle(store, _new(), LOCAL, mode="record", quiet_record=True)
    settle(store, _new(), LOCAL, mode="live", overrides={"embedding_backend": "lexical"})
    last = store.load_last_run("t::x")
    assert last is not None and last.comparison is not None
    assert last.comparison["semantic_backend"] == {}  # every text identical: no backend ran
    assert last.comparison["score"] == 1.0 and last.comparison["failed_checks"] == []
    with pytest.raises(AgentRegressionError):
        settle(
            store,
            _new(answer="Rain and wind over the city"),
            LOCAL,
            mode="live",
            overrides={"embedding_backend": "lexical"},
        )
    last = store.load_last_run("t::x")
    assert last.comparison["semantic_backend"] == {
        "backend": "lexical",
        "method": "difflib.SequenceMatcher.ratio",
    }  # type: ignore[union-attr]
    assert "semantic:output" in last.comparison["failed_checks"]  # type: ignore[union-attr]
    assert "comparison" not in store.load("t::x").to_dict()  # type: ignore[union-attr]


# ------------------------------------------------------------------ the refusal rule, once


@pytest.mark.parametrize(
    ("golden", "settings", "mode", "missing", "expected"),
    [
        ("none", LOCAL, "live", "pending", None),  # written pending
        ("none", LOCAL, "live", "raise", "missing"),  # AgentAsserter's direct contract
        ("none", CI, "live", "raise", "missing"),  # the contract's error wins in CI too
        ("none", CI, "live", "pending", "ci-missing"),
        ("none", CI, "replay", "pending", "ci-missing"),
        ("none", Settings(ci=True, allow_pending=True), "live", "pending", None),
        ("none", CI, "record", "raise", None),  # recording never refuses
        ("pending", LOCAL, "live", "pending", None),  # warned, not compared
        ("pending", CI, "live", "raise", "ci-pending"),
        ("pending", Settings(ci=True, allow_pending=True), "replay", "pending", None),
        ("pending", CI, "record", "pending", None),
        ("approved", CI, "live", "raise", None),
    ],
)
def test_refusal_is_the_state_tables_ci_column(
    golden: str, settings: Settings, mode: str, missing: str, expected: str | None
) -> None:
    from agentsnap.lifecycle import refusal

    snap = None if golden == "none" else _new()
    if snap is not None:
        snap.approved = golden == "approved"  # type: ignore[attr-defined]
    assert refusal(snap, settings, mode=mode, missing=missing) == expected  # type: ignore[arg-type]


def test_outcomes_reach_global_observers_and_scoped_ones_only_inside_their_block(
    store: SnapshotStore,
) -> None:
    from agentsnap.lifecycle import Outcome, add_observer, observing

    seen: list[str] = []
    scoped: list[Outcome] = []
    remove = add_observer(lambda outcome: seen.append(outcome.action))
    try:
        with pytest.warns(UserWarning, match="new snapshot"):
            with observing(scoped.append):
                settle(store, _new(), LOCAL, mode="live")
        store.approve("t::x")
        settle(store, _new(), LOCAL, mode="live")  # outside the scope: the global observer only
        with observing(scoped.append), pytest.raises(AgentRegressionError):
            settle(store, _new(answer="Rain in Paris", city="Rome"), LOCAL, mode="live")
    finally:
        remove()
    assert seen == ["created", "passed", "failed"]
    assert [(o.action, o.name) for o in scoped] == [("created", "t::x"), ("failed", "t::x")]
    assert scoped[1].report is not None and scoped[1].golden is not None
