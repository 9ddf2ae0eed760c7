"""A replayed test whose run is its golden is answered from the golden's steps (issue 30, row 6).

* a golden written from a trace agentsnap derived from its exchanges carries a ``trace_digest``
  (bound to the agentsnap version and the ``redact`` rules); re-recording it unchanged leaves
  the file as it was;
* an unchanged replay of it takes the golden's steps: no ``Trace.steps``, no ``build_snapshot``
  (counted by spies), and the snapshot it settles is, value for value, the one built from the
  trace (held for openai JSON with a tool call, openai streams, anthropic with ``count_tokens``);
* the ``.last_run`` and the outcome are those of the normal path (the same golden without its
  digest), budgets on latency and cost included;
* a golden edited by hand (a tool argument, a usage count, a step removed, the output) fails as
  it fails without the fast path, with the same message; a golden without a digest, of another
  version or under other ``redact`` rules takes the normal path and passes;
* a run that is not its golden's (a changed request, a request more, a tool call an adapter
  reported) takes the normal path; xdist still adds its workers' counts and budget rows up.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentsnap import SnapshotStore
from agentsnap._pytest import golden_run, run_budget

# imported here, before the inner runs: one of them imports it, and pytester drops the modules
# first imported during a run (a second class object would then be agentsnap.ToolAdapter)
from agentsnap.adapters.tool import ToolAdapter  # noqa: F401
from agentsnap.capture.trace import Trace
from agentsnap.jsondiff import same_json
from agentsnap.lifecycle import Outcome, build_snapshot
from agentsnap.storage import scrub
from agentsnap.storage import snapshot as snapshot_module
from agentsnap.storage.snapshot import Snapshot, trace_digest, trace_proof
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.test_plugin_modes import (  # noqa: F401 - _warm_imports: the autouse fixture
    MANY_TESTS,
    NODE,
    PARIS,
    SNAP_DIR,
    Project,
    _warm_imports,
    summary,
)

openai = pytest.importorskip("openai")

from tests import fake_provider as fp
from tests._support.golden_again import record_and_replay

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> Iterator[None]:
    yield


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    return Project(pytester)


class Spies:
    """How often the work the fast path skips ran, and what :func:`golden_again` answered."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.again: list[bool] = []
        self.steps = 0
        self.built = 0
        real_again, real_steps = golden_run.golden_again, Trace.steps
        real_build = build_snapshot

        def again(*args: Any, **kwargs: Any) -> Snapshot | None:
            found = real_again(*args, **kwargs)
            self.again.append(found is not None)
            return found

        def steps(trace: Trace) -> list[dict[str, Any]]:
            self.steps += 1
            return real_steps(trace)

        def build(*args: Any, **kwargs: Any) -> Snapshot:
            self.built += 1
            return real_build(*args, **kwargs)

        monkeypatch.setattr(golden_run, "golden_again", again)
        monkeypatch.setattr(Trace, "steps", steps)
        monkeypatch.setattr("agentsnap.lifecycle.build_snapshot", build)


@pytest.fixture
def spies(monkeypatch: pytest.MonkeyPatch) -> Spies:
    return Spies(monkeypatch)


def _edit(project: Project, change: Callable[[dict[str, Any]], None]) -> None:
    path = project.snapshot_path()
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")


def _without_digest(data: dict[str, Any]) -> None:
    data.pop("trace_digest")


def _last_run(project: Project) -> dict[str, Any]:
    store = SnapshotStore(project.root / SNAP_DIR)
    found: dict[str, Any] = json.loads(store.last_run_path(NODE).read_bytes())
    for key in ("created_at", "updated_at", "recorded_at"):
        found.pop(key)
    return found


def _failure(result: pytest.RunResult) -> list[str]:
    """The lines of the run's failures section, up to the summary (the same from run to run)."""
    lines = result.outlines
    start = next((i for i, line in enumerate(lines) if " FAILURES " in line), len(lines))
    end = next((i for i, line in enumerate(lines) if "short test summary" in line), len(lines))
    return lines[start:end]


# --------------------------------------------------------------------------- the digest


def test_a_recorded_golden_carries_its_digest_and_an_unchanged_rerecord_leaves_the_file(
    project: Project,
) -> None:
    first = project.record_golden()
    data = json.loads(first)
    assert data["trace_digest"] == trace_digest(data["trace"])
    assert re.fullmatch(r"[0-9a-f]{64}", data["trace_digest"])
    assert project.record_golden() == first  # not rewritten: the digest is volatile


def test_the_digest_binds_the_trace_the_version_and_the_redact_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trace = [{"type": "llm_call", "usage": {"input_tokens": 1}, "response": "hi"}]
    digest = trace_digest(trace)
    assert digest is not None and trace_digest(json.loads(json.dumps(trace))) == digest
    assert trace_digest([{**trace[0], "usage": {"input_tokens": 1.0}}]) != digest  # 1 is not 1.0
    assert trace_digest([{**trace[0], "response": "hi!"}]) != digest
    # hashed step by step: the steps' order, their count and the trace's nesting still count
    other = {"type": "tool_call", "name": "f"}
    orders = {trace_digest(t) for t in ([*trace, other], [other, *trace], [*trace, other, other])}
    assert len(orders) == 3 and digest not in orders
    assert trace_digest([[*trace, other]]) not in orders and trace_digest(trace[0]) is None
    scrub.configure({"patterns": ["acct_[0-9]+"]})
    assert trace_digest(trace) != digest
    scrub.configure(None)
    monkeypatch.setattr(snapshot_module, "_version", lambda: "0.0.0-other")
    assert trace_digest(trace) != digest
    assert trace_digest([{"n": 2**70}]) is None  # beyond MessagePack: no digest, never a match
    assert trace_digest([{"text": "\ud800"}]) is None


def _reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reversed_keys(value[k]) for k in reversed(value)}
    if isinstance(value, list):
        return [_reversed_keys(v) for v in value]
    return value


def test_the_digest_is_checked_on_the_keys_in_the_order_the_file_holds_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # what the file holds: every object's keys sorted (as agentsnap writes it)
    trace = json.loads(
        json.dumps(
            [{"type": "llm_call", "usage": {"input_tokens": 1, "cached": 0}, "response": "hi"}],
            sort_keys=True,
        )
    )
    digest = trace_digest(trace)
    assert digest is not None and trace_proof(trace, digest)[0]
    # the same values, keys in another order (a tool reformatted the file): the stored digest
    # still names these values, but the check without sorting does not prove it: full path
    reordered = _reversed_keys(trace)
    assert trace_digest(reordered) == digest and not trace_proof(reordered, digest)[0]
    assert not trace_proof([{**trace[0], "response": "hi!"}], digest)[0]
    assert not trace_proof([{**trace[0], "usage": {"cached": 0, "input_tokens": 1.0}}], digest)[0]
    assert not trace_proof([*trace, *trace], digest)[0] and not trace_proof(trace[0], digest)[0]
    assert not trace_proof([{"n": 2**70}], digest)[0]
    scrub.configure({"patterns": ["acct_[0-9]+"]})
    assert not trace_proof(trace, digest)[0]
    scrub.configure(None)
    assert trace_proof(trace, digest)[0]
    monkeypatch.setattr(snapshot_module, "_version", lambda: "0.0.0-other")
    assert not trace_proof(trace, digest)[0]


def test_a_trace_whose_floats_are_not_all_finite_is_not_known_finite() -> None:
    # (keys sorted, as a file agentsnap wrote holds them)
    finite = [{"response": "hi", "score": 0.5, "type": "llm_call"}]
    odd = [{"response": "hi", "score": float("nan"), "type": "llm_call"}]
    for trace, expected in ((finite, True), (odd, False)):
        digest = trace_digest(trace)
        assert digest is not None and trace_proof(trace, digest) == (True, expected)
    assert trace_proof(finite, "0" * 64) == (False, True)  # (finite, but not proven)


def test_saving_keeps_a_loaded_digest_only_while_it_still_matches(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    trace = [{"type": "llm_call", "step": 0, "response": "hi"}]
    derived = Snapshot(name="digest::keep", trace=list(trace))
    derived.derived = True
    store.save(derived)
    loaded = store.load("digest::keep")
    assert loaded is not None and loaded.trace_digest == trace_digest(trace)
    loaded.approved = True
    store.save(loaded)  # approved as it is: the digest stays
    again = store.load("digest::keep")
    assert again is not None and again.trace_digest == loaded.trace_digest
    again.trace[0]["response"] = "changed in memory"
    store.save(again)  # no longer the derived trace: no digest written
    assert "trace_digest" not in json.loads(store.path_for("digest::keep").read_bytes())
    assert store.load("digest::keep").trace_digest is None  # type: ignore[union-attr]
    store.save(Snapshot(name="digest::never", trace=list(trace)))  # not derived: none
    assert "trace_digest" not in json.loads(store.path_for("digest::never").read_bytes())


# --------------------------------------------------------------------------- the same snapshot


def _weather_agent(fake: Any) -> None:
    client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)
    call = first.choices[0].message.tool_calls[0]  # type: ignore[index]
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
    ]
    client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)


def _streaming_agent(fake: Any) -> None:
    client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    for question in ("Weather in Paris?", "And in Rome?"):
        stream = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": question}], stream=True
        )
        list(stream)


def _anthropic_agent(fake: Any) -> None:
    anthropic = pytest.importorskip("anthropic")
    client = anthropic.Anthropic(base_url=fake.base_url, api_key="sk-ant-test", max_retries=0)
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    client.messages.count_tokens(model="claude-3-5-haiku-latest", messages=messages)
    client.messages.create(model="claude-3-5-haiku-latest", max_tokens=50, messages=messages)


def _openai_replies() -> list[Any]:
    return [
        fp.tool_calls_reply([("call_A", "get_weather", {"city": "Paris"})]),
        fp.text_reply("Sunny."),
    ]


def _stream_replies() -> list[Any]:
    return [fp.stream_text_reply(["Sun", "ny."]), fp.stream_text_reply(["Rai", "ny."])]


def _anthropic_replies() -> list[Any]:
    from tests import fake_anthropic as fa

    return [fa.count_tokens_reply(12), fa.text_reply("Sunny in Paris.")]


def _fake(kind: str) -> Any:
    if kind == "anthropic":
        from tests import fake_anthropic as fa

        return fa.FakeAnthropic()
    return fp.FakeOpenAI()


@pytest.mark.parametrize(
    ("kind", "agent", "replies"),
    [
        ("openai", _weather_agent, _openai_replies),
        ("openai", _streaming_agent, _stream_replies),
        ("anthropic", _anthropic_agent, _anthropic_replies),
    ],
    ids=["openai-tool-call", "openai-streams", "anthropic-count-tokens"],
)
def test_the_golden_again_is_the_snapshot_built_from_the_replayed_trace(
    tmp_path: Path,
    kind: str,
    agent: Callable[[Any], None],
    replies: Callable[[], list[Any]],
) -> None:
    golden, again, built = record_and_replay(tmp_path, _fake(kind), agent, replies())
    for key in ("trace", "output", "model", "input", "source", "name"):
        assert same_json(again.to_dict()[key], built.to_dict()[key]), key
    assert any("latency_ms" in step for step in golden.trace)  # the golden's own, recorded
    assert not any("latency_ms" in step for step in again.trace)
    # each step the golden's keys in the golden's order, but latency_ms, holding its very values
    assert [list(step) for step in again.trace] == [
        [key for key in step if key != "latency_ms"] for step in golden.trace
    ]
    assert all(
        mine[key] is its[key]
        for mine, its in zip(again.trace, golden.trace, strict=True)
        for key in mine
    )
    assert not any(mine is its for mine, its in zip(again.trace, golden.trace, strict=True))
    # the budget row: the golden's counts taken from the run's, which are the golden's
    rows = [
        run_budget.row(Outcome("passed", "same::run", None, golden=golden, new=new), "replay")
        for new in (again, built)
    ]
    assert rows[0] == rows[1] and rows[0] is not None and rows[0]["golden"] is not None


# --------------------------------------------------------------------------- a pytest run


BUDGETS = "[tool.agentsnap]\nbudgets = { max_latency_growth = 0.0, max_cost_growth = 0.1 }\n"


def test_an_unchanged_replay_is_answered_from_the_golden_as_the_full_path_answers(
    project: Project, spies: Spies
) -> None:
    (project.root / "pyproject.toml").write_text(BUDGETS, encoding="utf-8")
    project.record_golden()
    spies.again.clear()
    spies.steps = spies.built = 0

    fast = project.run("--agentsnap-replay", "--agentsnap-budgets")
    assert fast.ret == 0, fast.stdout.str()
    assert spies.again == [True]
    assert spies.steps == 0 and spies.built == 0  # no views built, converted or scrubbed
    fast_last = _last_run(project)
    fast_lines = summary(fast) + [ln for ln in fast.outlines if "agentsnap budgets" in ln]

    _edit(project, _without_digest)
    full = project.run("--agentsnap-replay", "--agentsnap-budgets")
    assert full.ret == 0, full.stdout.str()
    assert spies.again == [True, False] and spies.steps == 1 and spies.built == 1
    assert fast_last == _last_run(project)  # the same run, the same comparison, the same record
    assert fast_lines == summary(full) + [ln for ln in full.outlines if "agentsnap budgets" in ln]
    assert fast_lines[0] == "agentsnap: 1 passed"
    assert project.server_requests() == {NODE: 0}  # replay sent nothing


def _tool_argument(data: dict[str, Any]) -> None:
    (call,) = [s for s in data["trace"] if s["type"] == "tool_call"]
    call["args"]["city"] = "Rome"


def _usage(data: dict[str, Any]) -> None:
    data["trace"][0]["usage"]["input_tokens"] = 1


def _step_removed(data: dict[str, Any]) -> None:
    data["trace"] = [s for s in data["trace"] if s["type"] != "tool_call"]


def _output(data: dict[str, Any]) -> None:
    data["output"] = "It is raining hard in Paris, take an umbrella."


@pytest.mark.parametrize(
    ("edit", "fast_path", "verdict"),
    [
        (_tool_argument, False, "failed"),
        (_step_removed, False, "failed"),
        (_output, True, "failed"),
        # replay compares no usage (the responses are the recorded ones): it passes, as before
        (_usage, False, "passed"),
    ],
    ids=["tool-argument", "step-removed", "output", "usage"],
)
def test_a_golden_edited_by_hand_fails_as_without_the_fast_path(
    project: Project,
    spies: Spies,
    edit: Callable[[dict[str, Any]], None],
    fast_path: bool,
    verdict: str,
) -> None:
    (project.root / "pyproject.toml").write_text(BUDGETS, encoding="utf-8")
    project.record_golden()
    _edit(project, edit)  # the digest kept, as a hand edit leaves it
    spies.again.clear()
    edited = project.run("--agentsnap-replay", "--agentsnap-budgets")
    # the trace's edits break the digest; an edited output is not the trace's: the run (the
    # golden's steps) is compared with it as the built run would be
    assert spies.again == [fast_path]
    assert summary(edited) == [f"agentsnap: 1 {verdict}"], edited.stdout.str()
    edited_last = _last_run(project)

    _edit(project, _without_digest)
    full = project.run("--agentsnap-replay", "--agentsnap-budgets")
    assert spies.again == [fast_path, False]
    assert edited.ret == full.ret == (1 if verdict == "failed" else 0)
    assert _failure(edited) == _failure(full)
    assert bool(_failure(full)) is (verdict == "failed")
    assert summary(edited) == summary(full)
    assert edited_last == _last_run(project)


def test_a_golden_without_a_digest_of_another_version_or_other_rules_takes_the_full_path(
    project: Project, spies: Spies, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.record_golden()
    (project.root / "pyproject.toml").write_text(
        '[tool.agentsnap]\nredact = { patterns = ["acct_[0-9]+"] }\n', encoding="utf-8"
    )
    spies.again.clear()
    spies.steps = 0
    assert summary(project.run("--agentsnap-replay")) == ["agentsnap: 1 passed"]
    (project.root / "pyproject.toml").unlink()
    with monkeypatch.context() as patched:
        patched.setattr(snapshot_module, "_version", lambda: "0.0.0-other")
        assert summary(project.run("--agentsnap-replay")) == ["agentsnap: 1 passed"]
    _edit(project, _without_digest)  # as written before this change (or by agentsnap 0.5.1)
    assert summary(project.run("--agentsnap-replay")) == ["agentsnap: 1 passed"]
    assert spies.again == [False, False, False]
    assert spies.steps == 3


def test_a_golden_whose_keys_a_tool_reordered_takes_the_full_path_and_passes(
    project: Project, spies: Spies
) -> None:
    project.record_golden()
    path = project.snapshot_path()
    data = _reversed_keys(json.loads(path.read_text(encoding="utf-8")))
    path.write_text(json.dumps(data, indent=4), encoding="utf-8")  # the same values
    spies.again.clear()
    spies.steps = 0
    assert summary(project.run("--agentsnap-replay")) == ["agentsnap: 1 passed"]
    assert spies.again == [False] and spies.steps == 1


CHANGED_TESTS = """
import json
import pytest
from agent_lib import client_for, scenario, weather_agent
from agentsnap import ToolAdapter
from fake_provider import text_reply, tool_calls_reply


def test_weather(fake):
    sc = scenario()
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": sc["city"]})]), text_reply(sc["answer"]))
    weather_agent(client_for(fake), sc["question"])
    if sc.get("more"):
        fake.script(text_reply("more"))
        client_for(fake).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "more"}])
    if sc.get("adapter"):
        ToolAdapter(lambda city: f"sunny in {city}", name="get_weather")(city="Paris")
"""


@pytest.mark.parametrize(
    ("scenario", "verdict", "asked"),
    [
        ({"question": "Weather in Rome?"}, "agentsnap: 1 failed", [False]),  # drift
        # a request more: a replay miss, which fails the test before any snapshot is made
        ({"more": True}, "agentsnap: 1 failed", []),
        # a tool call an adapter reported: the trace's own (the same call as the derived one)
        ({"adapter": True}, "agentsnap: 1 passed", [False]),
    ],
    ids=["changed-request", "request-more", "adapter-tool-call"],
)
def test_a_run_that_is_not_its_goldens_takes_the_full_path(
    project: Project, spies: Spies, scenario: dict[str, Any], verdict: str, asked: list[bool]
) -> None:
    project.pytester.makepyfile(test_agent=CHANGED_TESTS)
    project.record_golden()
    project.set_scenario(**{**PARIS, **scenario})
    spies.again.clear()
    spies.steps = 0
    result = project.run("--agentsnap-replay")
    assert summary(result) == [verdict], result.stdout.str()
    assert result.ret == (0 if verdict.endswith("passed") else 1)
    assert spies.again == asked and spies.steps == len(asked)


def test_xdist_adds_up_the_workers_fast_answers(project: Project) -> None:
    project.pytester.makepyfile(test_many=MANY_TESTS)
    assert summary(project.run("test_many.py", "--agentsnap-record")) == [
        "agentsnap: 5 recorded (approved)"
    ]
    serial = project.run("test_many.py", "--agentsnap-replay", "--agentsnap-budgets")
    parallel = project.run(
        "test_many.py", "--agentsnap-replay", "--agentsnap-budgets", "-n", "2", subprocess=True
    )

    def lines(result: pytest.RunResult) -> list[str]:
        return summary(result) + [ln for ln in result.outlines if "agentsnap budgets" in ln]

    assert lines(serial) == lines(parallel)
    assert lines(serial)[0] == "agentsnap: 5 passed"
    assert "5 LLM calls" in lines(serial)[1]
    parallel.assert_outcomes(passed=6)
