"""agentsnap 0.5.1's documented Python API, as code written against it calls it."""

from __future__ import annotations

import dataclasses

import pytest

import agentsnap
from agentsnap import DiffConfig, DiffReport, compute_diff

GOLDEN = {
    "version": "1.1",
    "trace": [
        {
            "step": 0,
            "type": "llm_call",
            "messages": [{"role": "user", "content": "hi"}],
            "response": "Looking it up.",
            "tool_requests": [{"name": "search", "args": {"query": "Python"}}],
        },
        {
            "step": 1,
            "type": "tool_call",
            "name": "search",
            "args": {"query": "Python", "timestamp": 1},
            "result": "r",
        },
    ],
    "output": "Python is a programming language.",
}


def test_tooladapter_is_exported_at_the_top_level() -> None:
    from agentsnap import ToolAdapter
    from agentsnap.adapters.tool import ToolAdapter as Same

    assert ToolAdapter is Same and "ToolAdapter" in agentsnap.__all__


def test_diffconfig_has_051s_fields_and_defaults() -> None:
    fields = {
        f.name: f.default
        for f in dataclasses.fields(DiffConfig)
        if f.default is not dataclasses.MISSING
    }
    assert fields == {
        "semantic_threshold": 0.92,
        "llm_threshold": None,
        "structural_tolerance": 0,
        "structural_threshold": 0.8,
        "judge": None,
        "compare_llm_requests": False,
    }
    assert DiffConfig().ignored_fields == []
    assert DiffConfig().resolved_llm_threshold() == 0.75
    assert DiffConfig(judge=object()).resolved_llm_threshold() == 0.40


def test_051_call_form_of_compute_diff_with_a_config() -> None:
    trace = [
        dict(GOLDEN["trace"][0]),
        {**GOLDEN["trace"][1], "args": {"query": "Python", "timestamp": 2}},
    ]
    report = compute_diff(
        GOLDEN,
        trace,
        "Python is a programming language.",
        config=DiffConfig(ignored_fields=["timestamp"]),
    )
    assert report.passed is True and report.failed_checks == []
    strict = compute_diff(GOLDEN, trace, "Python is a programming language.", config=DiffConfig())
    assert strict.failed_checks == ["arguments"]
    assert list(strict.argument_diffs) == ["search[0]"]
    assert strict.argument_diffs["search[0]"]["changed"] == {"timestamp": [1, 2]}
    # the thresholds come from the config: just above the output's score fails, just below passes
    other = "Python is a large snake."
    score = compute_diff(
        GOLDEN, trace, other, config=DiffConfig(ignored_fields=["timestamp"])
    ).semantic_scores["output"]
    assert 0.05 < score < 0.95
    above = DiffConfig(ignored_fields=["timestamp"], semantic_threshold=score + 0.01)
    below = DiffConfig(ignored_fields=["timestamp"], semantic_threshold=score - 0.01)
    assert compute_diff(GOLDEN, trace, other, config=above).failed_checks == ["semantic:output"]
    assert compute_diff(GOLDEN, trace, other, config=below, normalize=True).passed
    with pytest.raises(TypeError, match="config must be a DiffConfig"):
        compute_diff(GOLDEN, trace, other, config={"semantic_threshold": 0.5})


def test_a_report_built_by_hand_as_051_code_does() -> None:
    report = DiffReport(passed=True, semantic_scores={"output": 1.0})
    assert report.passed and report.structural_diff is None and report.argument_diffs == {}
    assert str(report).splitlines()[0] == "[agentsnap] PASSED — all checks ok"


def test_a_toolscore_file_loads_with_its_calls(tmp_path) -> None:
    import json

    from agentsnap.storage.store import SnapshotStore

    store = SnapshotStore(tmp_path)
    path = store.path_for("tests/test_x.py::test_calls")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "schema_version": 1,
                "name": "tests/test_x.py::test_calls",
                "approved": True,
                "source": "pytest",
                "created_at": "2026-01-01T00:00:00+00:00",
                "updated_at": "2026-01-01T00:00:00+00:00",
                "toolscore_version": "1.10.0",
                "calls": [
                    {"tool": "search", "args": {"q": "x"}},
                    {"tool": "fetch", "args": {"url": "u"}},
                ],
            }
        ),
        encoding="utf-8",
    )
    snap = store.load("tests/test_x.py::test_calls")
    assert snap is not None and snap.approved is True
    assert [(s["type"], s["name"], s["args"]) for s in snap.trace] == [
        ("tool_call", "search", {"q": "x"}),
        ("tool_call", "fetch", {"url": "u"}),
    ]
    assert snap.agentsnap_version == "toolscore 1.10.0"


def test_a_toolscore_file_with_bad_calls_is_refused_naming_the_entry(tmp_path) -> None:
    import json

    from agentsnap.exceptions import SnapshotFormatError
    from agentsnap.storage.store import SnapshotStore

    path = tmp_path / "t.json"
    path.write_text(
        json.dumps(
            {"schema_version": 1, "name": "t", "calls": [{"tool": "a", "args": {}}, {"args": {}}]}
        ),
        encoding="utf-8",
    )
    with pytest.raises(SnapshotFormatError, match=r"t\.json: calls\[1\] is not a toolscore call"):
        SnapshotStore(tmp_path).load("t")
    path.write_text(json.dumps({"schema_version": 2, "name": "t", "calls": []}), encoding="utf-8")
    with pytest.raises(
        SnapshotFormatError, match="schema_version 2; agentsnap reads schema_version 1"
    ):
        SnapshotStore(tmp_path).load("t")


GOLDENS_051 = (
    __import__("pathlib").Path(__file__).resolve().parent
    / "project_051"
    / "tests"
    / "__agent_snapshots__"
)


@pytest.fixture
def input_named(tmp_path, monkeypatch):
    import shutil

    monkeypatch.delenv("CI", raising=False)
    shutil.copy(GOLDENS_051 / "lookup__e736667c.json", tmp_path / "lookup__e736667c.json")
    return tmp_path


def test_recorder_given_the_input_rerecords_into_the_051_input_named_file(input_named) -> None:
    import json

    from agentsnap import AgentRecorder

    with AgentRecorder("lookup", snapshot_dir=input_named) as rec:
        rec.input_data = {"city": "Rome"}
        rec.output = "Rome: sunny."
    assert sorted(p.name for p in input_named.glob("*.json")) == ["lookup__e736667c.json"]
    data = json.loads((input_named / "lookup__e736667c.json").read_text(encoding="utf-8"))
    assert (data["name"], data["output"], data["input"]) == (
        "lookup__e736667c",
        "Rome: sunny.",
        {"city": "Rome"},
    )


def test_replay_with_several_input_named_goldens_asks_for_scenario(input_named) -> None:
    import shutil

    from agentsnap import AgentAsserter, ReplayError

    shutil.copy(input_named / "lookup__e736667c.json", input_named / "lookup__0badf00d.json")
    with pytest.raises(
        ReplayError,
        match=r"holds 2 agentsnap 0\.5\.1 goldens named by input \(lookup__0badf00d\.json, "
        r"lookup__e736667c\.json\).*Pass scenario=<the 8 hex digits>",
    ):
        with AgentAsserter("lookup", snapshot_dir=input_named, mode="replay"):
            pass


def test_live_run_with_another_input_is_compared_with_that_inputs_golden(input_named) -> None:
    from agentsnap import AgentAsserter, SnapshotNotFoundError

    with pytest.raises(SnapshotNotFoundError, match="lookup__"):
        with AgentAsserter("lookup", snapshot_dir=input_named, mode="live") as a:
            a.input = {"city": "Oslo"}  # no golden for this input: not compared with Rome's
            a.output = "x"
