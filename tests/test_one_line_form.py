"""The one-line form: ``snapshot(actual)`` on the fixture and ``agentsnap.check(name, actual)``.

The pytester projects reuse the inner project of test_plugin_modes (the fake
OpenAI server started per test, a ``scenario.json`` the test reads, and a log of
the requests the server received), with a test that hands the SDK's
``ChatCompletion`` to ``snapshot(...)``.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

import agentsnap
from agentsnap import AgentRegressionError, SnapshotNotFoundError, SnapshotStore
from agentsnap.exceptions import AgentsnapWarning, SnapshotPendingError
from tests.test_plugin_modes import CI_MARKERS, Project, _local_not_ci, _warm_imports, summary  # noqa: F401 - fixtures

pytest_plugins = ["pytester"]

NODE = "test_agent.py::test_calls"

ONE_LINE_TEST = """
import json
import pathlib

from agent_lib import TOOLS, client_for, scenario
from fake_provider import tool_calls_reply

HERE = pathlib.Path(__file__).parent


def ask(fake, city):
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": city}), ("call_B", "get_time", {"tz": "CET"})]))
    return client_for(fake).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": f"Weather and time in {city}?"}], tools=TOOLS)


def test_calls(fake, snapshot):
    sc = scenario()
    results = []
    for city in sc["cities"]:
        report = snapshot(ask(fake, city), min_score=sc.get("min_score", 1.0))
        results.append(None if report is None else {"score": report.score, "failed": report.failed_checks})
    (HERE / "results.json").write_text(json.dumps(results), encoding="utf-8")
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    proj = Project(pytester)
    pytester.makepyfile(test_agent=ONE_LINE_TEST)
    proj.set_scenario(cities=["Paris"])
    return proj


def results(project: Project) -> list:
    return json.loads((project.root / "results.json").read_text(encoding="utf-8"))


def tool_steps(data: dict) -> list[dict]:
    return [{k: s[k] for k in ("name", "args")} for s in data["trace"] if s["type"] == "tool_call"]


PARIS_CALLS = [
    {"name": "get_weather", "args": {"city": "Paris"}},
    {"name": "get_time", "args": {"tz": "CET"}},
]


def approve(project: Project, name: str = NODE) -> None:
    SnapshotStore(project.root / "__agent_snapshots__").approve(name)


def test_first_run_writes_a_pending_snapshot_of_the_tool_calls(project: Project) -> None:
    result = project.run()
    assert result.ret == 0, result.stdout.str()
    assert results(project) == [None]
    data = project.snapshot(NODE)
    assert data["approved"] is False
    assert tool_steps(data) == PARIS_CALLS
    assert [s["type"] for s in data["trace"]] == [
        "tool_call",
        "tool_call",
    ]  # no instrumentation: no LLM steps
    assert [s["id"] for s in data["trace"]] == [None, None]  # provider ids change every live run
    assert summary(result) == ["agentsnap: 1 new (pending approval)"]
    result.stdout.fnmatch_lines(
        ["*new snapshot 'test_agent.py::test_calls' written to * as pending*agentsnap approve*"]
    )


def test_ci_refuses_a_missing_snapshot_and_writes_nothing(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = project.run()
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["*no snapshot*test_agent.py::test_calls*pytest --agentsnap-record*"]
    )
    assert not project.snapshot_path(NODE).exists()


def test_pending_snapshot_is_not_compared_locally_and_fails_in_ci(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert project.run().ret == 0
    project.set_scenario(cities=["Berlin"])  # would drift, but a pending snapshot is never compared
    result = project.run()
    assert result.ret == 0
    assert results(project) == [None]
    assert summary(result) == ["agentsnap: 1 pending (not compared)"]
    monkeypatch.setenv("CI", "1")
    result = project.run()
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*pending approval*agentsnap approve test_agent.py::test_calls*"])
    assert project.run("--agentsnap-allow-pending").ret == 0


def test_approved_snapshot_compares_returns_the_report_and_fails_on_drift(project: Project) -> None:
    project.run()
    approve(project)
    result = project.run()
    assert result.ret == 0
    assert results(project) == [{"score": 1.0, "failed": []}]
    assert summary(result) == ["agentsnap: 1 passed"]

    project.set_scenario(cities=["Berlin"])
    result = project.run()
    assert result.ret == 1
    out = result.stdout.str()
    assert "args.city: 'Paris' → 'Berlin'" in out
    assert "composite 75% < min_score 100%" in out  # structural 1.0, arguments 1 of 2 unchanged
    assert "agentsnap update test_agent.py::test_calls" in out
    assert (
        project.snapshot(NODE)["approved"] is True
        and tool_steps(project.snapshot(NODE)) == PARIS_CALLS
    )

    project.set_scenario(cities=["Berlin"], min_score=0.75)  # the score is the gate: tolerate it
    result = project.run()
    assert result.ret == 0, result.stdout.str()
    assert results(project) == [{"score": 0.75, "failed": []}]


def test_record_overwrites_and_approves(project: Project) -> None:
    project.run()
    project.set_scenario(cities=["Berlin"])
    result = project.run("--agentsnap-record")
    assert result.ret == 0
    assert results(project) == [None]
    data = project.snapshot(NODE)
    assert data["approved"] is True
    assert tool_steps(data)[0] == {"name": "get_weather", "args": {"city": "Berlin"}}


def test_instrumented_record_then_offline_replay_of_two_snapshots(project: Project) -> None:
    project.set_scenario(cities=["Paris", "Rome"])
    result = project.run("--agentsnap-record")
    assert result.ret == 0, result.stdout.str()
    assert project.server_requests() == {NODE: 2}
    first, second = project.snapshot(NODE), project.snapshot(NODE + "-2")
    # each snapshot keeps the LLM call made before it, so replay can serve it
    assert [s["type"] for s in first["trace"]] == ["llm_call", "tool_call", "tool_call"]
    assert [s["type"] for s in second["trace"]] == ["llm_call", "tool_call", "tool_call"]
    assert tool_steps(second)[0] == {"name": "get_weather", "args": {"city": "Rome"}}
    loaded = SnapshotStore.read_file(
        project.snapshot_path(NODE)
    ).trace  # the file stores the messages once
    assert loaded[0]["messages"] == [{"role": "user", "content": "Weather and time in Paris?"}]

    result = project.run("--agentsnap-replay")
    assert result.ret == 0, result.stdout.str()
    assert project.server_requests() == {NODE: 0}  # both calls served from the snapshots
    assert results(project) == [{"score": 1.0, "failed": []}, {"score": 1.0, "failed": []}]
    assert summary(result) == ["agentsnap: 2 passed"]


# --------------------------------------------------------------------------- agentsnap.check


@pytest.fixture
def store(tmp_path: Path) -> SnapshotStore:
    return SnapshotStore(tmp_path / "snaps")


CALLS = [
    {"tool": "search", "args": {"q": "flights to NYC", "max": 3}},
    {"tool": "book", "args": {"flight": "FL-42"}},
]


def test_check_follows_the_state_table(store: SnapshotStore) -> None:
    with pytest.warns(AgentsnapWarning, match="as pending"):
        assert agentsnap.check("book", CALLS, store=store) is None
    saved = store.load("book")
    assert saved is not None and saved.approved is False
    assert [(s["name"], s["args"]) for s in saved.trace] == [
        ("search", {"q": "flights to NYC", "max": 3}),
        ("book", {"flight": "FL-42"}),
    ]
    with pytest.warns(AgentsnapWarning, match="pending approval"):
        assert agentsnap.check("book", CALLS, store=store) is None
    store.approve("book")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = agentsnap.check(
            "book",
            [{"tool": "search", "args": {"q": "flights to NYC", "max": 3.0}}, CALLS[1]],
            store=store,
        )
    assert report is not None and report.passed and report.score == 1.0  # 3 == 3.0 unless strict
    with pytest.raises(AgentRegressionError) as info:
        agentsnap.check(
            "book",
            [CALLS[0] | {"args": {"q": "flights to NYC", "max": 3.0}}, CALLS[1]],
            store=store,
            strict=True,
        )
    assert info.value.diff_report.failed_checks == ["score"]
    assert info.value.diff_report.changes[0]["changes"] == [
        {"path": "args.max", "old": 3, "new": 3.0, "kind": "type_changed"}
    ]


def test_check_drift_scores_and_min_score(store: SnapshotStore) -> None:
    with pytest.warns(AgentsnapWarning):
        agentsnap.check("flow", CALLS, store=store, update=True)  # update: written approved at once
    assert store.load("flow").approved is True
    extra = [*CALLS, {"tool": "email", "args": {"to": "me"}}]
    with pytest.raises(AgentRegressionError) as info:
        agentsnap.check("flow", extra, store=store)
    report = info.value.diff_report
    assert report.details["components"]["structural"] == pytest.approx(2 / 3)
    assert report.score == pytest.approx((2 / 3 + 1.0) / 2)
    assert "email" in str(info.value)
    report = agentsnap.check("flow", extra, store=store, min_score=0.8)
    assert report.score == pytest.approx(5 / 6) and report.failed_checks == []
    report = agentsnap.check(
        "flow", extra, store=store, min_score=0.95, weights={"structural": 0.0}
    )
    assert report.score == 1.0  # only the arguments of the aligned calls count


def test_check_in_ci_never_writes(store: SnapshotStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(SnapshotNotFoundError, match="pytest --agentsnap-record"):
        agentsnap.check("new", CALLS, store=store)
    assert not store.path_for("new").exists()
    monkeypatch.delenv("CI")
    with pytest.warns(AgentsnapWarning):
        agentsnap.check("new", CALLS, store=store)
    monkeypatch.setenv("CI", "true")
    approve = f"agentsnap approve --dir {store.root.resolve()} new"  # (not the CLI's folder here)
    with pytest.raises(SnapshotPendingError, match=re.escape(approve)):
        agentsnap.check("new", CALLS, store=store)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"min_score": 1.5}, ValueError, r"min_score must be a number within \[0, 1\], got 1.5"),
        ({"weights": {"speed": 1.0}}, ValueError, "unknown weights key 'speed'"),
    ],
)
def test_check_bad_options_raise_and_write_nothing(
    store: SnapshotStore, kwargs: dict, error: type, match: str
) -> None:
    with pytest.warns(AgentsnapWarning):
        agentsnap.check("flow", CALLS, store=store, update=True)
    before = store.path_for("flow").read_bytes()
    with pytest.raises(error, match=match):
        agentsnap.check("flow", CALLS, store=store, **kwargs)
    assert store.path_for("flow").read_bytes() == before


def test_check_bad_actual_writes_nothing(store: SnapshotStore) -> None:
    with pytest.raises(TypeError, match="cannot read tool calls from actual"):
        agentsnap.check("flow", "not calls", store=store)
    assert not store.path_for("flow").exists()


CASES_TEST = """
import pathlib

from agent_lib import TOOLS, client_for, scenario
from fake_provider import text_reply, tool_calls_reply


def ask(fake, question):
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": question})]))
    return client_for(fake).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": question}], tools=TOOLS)


def test_named(fake, snapshot):
    snapshot(ask(fake, scenario()["question"]), name="weather-named")


def test_trailing_call(fake, snapshot):
    snapshot(ask(fake, scenario()["question"]))
    fake.script(text_reply("summary"))
    client_for(fake).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "summarise"}])


def test_fails_after_snapshot(fake, snapshot):
    snapshot(ask(fake, scenario()["question"]))
    assert not scenario().get("fail"), "the scenario asked this test to fail"
"""


@pytest.fixture
def cases(pytester: pytest.Pytester) -> Project:
    proj = Project(pytester)
    pytester.makepyfile(test_agent=CASES_TEST)
    proj.set_scenario(question="Paris")
    return proj


def test_a_named_snapshot_leaves_the_llm_calls_to_the_tests_auto_snapshot(cases: Project) -> None:
    assert cases.run("--agentsnap-record", "-k", "named").ret == 0
    named = cases.snapshot("weather-named")
    assert [s["type"] for s in named["trace"]] == ["tool_call"]  # the tool calls only
    auto = cases.snapshot("test_agent.py::test_named")  # the LLM call, under the node id
    assert [s["type"] for s in auto["trace"]] == ["llm_call"]
    result = cases.run("--agentsnap-replay", "-k", "named")
    assert result.ret == 0, result.stdout.str()
    assert cases.server_requests() == {"test_agent.py::test_named": 0}
    assert summary(result) == ["agentsnap: 2 passed"]


def test_a_changed_prompt_fails_replay_whatever_the_score(cases: Project) -> None:
    assert cases.run("--agentsnap-record", "-k", "fails_after").ret == 0
    cases.set_scenario(question="Rome")
    result = cases.run("--agentsnap-replay", "-k", "fails_after")
    assert result.ret == 1
    out = result.stdout.str()
    # the recorded answer was served, so the tool calls (and the score) are the golden's:
    # only the request shows the change, and that alone fails the test
    assert "FAILED — failed checks: llm_requests" in out
    assert "messages[0].content: 'Paris' → 'Rome'" in out


def test_llm_calls_after_the_last_snapshot_are_kept_for_replay(cases: Project) -> None:
    assert cases.run("--agentsnap-record", "-k", "trailing").ret == 0
    data = cases.snapshot("test_agent.py::test_trailing_call")
    assert [s["type"] for s in data["trace"]] == ["llm_call", "tool_call", "llm_call"]
    loaded = SnapshotStore.read_file(
        cases.snapshot_path("test_agent.py::test_trailing_call")
    ).trace  # messages stored once
    assert loaded[-1]["messages"] == [{"role": "user", "content": "summarise"}]
    result = cases.run("--agentsnap-replay", "-k", "trailing")
    assert result.ret == 0, result.stdout.str()
    assert cases.server_requests() == {"test_agent.py::test_trailing_call": 0}
    assert summary(result) == ["agentsnap: 1 passed"]


def test_a_test_that_fails_after_its_snapshot_writes_nothing(cases: Project) -> None:
    cases.set_scenario(question="Paris", fail=True)
    assert cases.run("--agentsnap-record", "-k", "fails_after").ret == 1
    assert not cases.snapshot_path("test_agent.py::test_fails_after_snapshot").exists()
    assert cases.run().ret == 1  # locally, no flags: no pending snapshot from a failing test either
    assert not cases.snapshot_path("test_agent.py::test_fails_after_snapshot").exists()

    cases.set_scenario(question="Paris")
    assert cases.run("--agentsnap-record", "-k", "fails_after").ret == 0
    before = cases.snapshot_path("test_agent.py::test_fails_after_snapshot").read_bytes()
    cases.set_scenario(question="Rome", fail=True)
    result = cases.run("--agentsnap-record", "-k", "fails_after")
    assert result.ret == 1
    assert (
        cases.snapshot_path("test_agent.py::test_fails_after_snapshot").read_bytes() == before
    )  # the golden stays
    assert summary(result) == ["agentsnap: 1 not saved (test failed)"]
