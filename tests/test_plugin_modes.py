"""The pytest plugin end to end: modes, the snapshot state table, the fixture, the summary, xdist.

Each test builds a small project with ``pytester``: the fake provider, a weather
agent written against the plain ``openai`` SDK, and a ``scenario.json`` the
agent reads (question, the city the fake model asks about, whether the test
should fail). A conftest fixture starts the fake server per test and appends
``<nodeid> <requests received>`` to ``server_log.txt`` at teardown, so the outer
test can prove a run touched no network.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from tests._support.ci import AGENTSNAP_ENV, CI_MARKERS, clear_ci
from tests.fake_provider import FakeOpenAI, stream_text_reply, text_reply

pytest_plugins = ["pytester"]

FAKE_PROVIDER = Path(__file__).with_name("fake_provider.py")

NODE = "test_agent.py::test_weather"
SNAP_DIR = "__agent_snapshots__"
# slow-to-import pytest plugins installed in the dev venv (hypothesis, langsmith) are left out of inner runs
QUIET_PLUGINS = (
    "-p",
    "no:randomly",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:hypothesispytest",
    "-p",
    "no:langsmith_plugin",
)
PARIS = {"question": "Weather in Paris?", "city": "Paris", "answer": "It is sunny.", "fail": False}

CONFTEST = """
import pathlib
import pytest
from fake_provider import FakeOpenAI

HERE = pathlib.Path(__file__).parent


@pytest.fixture
def fake(request):
    with FakeOpenAI() as server:
        yield server
        with open(HERE / "server_log.txt", "a", encoding="utf-8") as log:
            log.write(f"{request.node.nodeid} {len(server.requests)}\\n")
"""

AGENT_LIB = """
import json
import pathlib

import openai

HERE = pathlib.Path(__file__).parent
TOOLS = [{"type": "function", "function": {"name": "get_weather",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]


def scenario():
    return json.loads((HERE / "scenario.json").read_text(encoding="utf-8"))


def client_for(server):
    return openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)


def weather_agent(client, question):
    messages = [{"role": "user", "content": question}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    message = first.choices[0].message
    messages.append({"role": "assistant", "content": message.content,
                     "tool_calls": [call.model_dump() for call in message.tool_calls]})
    for call in message.tool_calls:
        city = json.loads(call.function.arguments)["city"]
        messages.append({"role": "tool", "tool_call_id": call.id, "content": f"sunny in {city}"})
    final = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    return final.choices[0].message.content
"""

TEST_AGENT = """
from agent_lib import client_for, scenario, weather_agent
from fake_provider import text_reply, tool_calls_reply


def test_weather(fake):
    sc = scenario()
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": sc["city"]})]), text_reply(sc["answer"]))
    answer = weather_agent(client_for(fake), sc["question"])
    assert answer
    assert not sc["fail"], "the scenario asked this test to fail"
"""


@pytest.fixture(scope="module", autouse=True)
def _warm_imports(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Import, in this process, everything an inner run would import lazily.

    pytester's in-process runs drop every module first imported during the run.
    A lazily imported ``httpcore2``, ``agentsnap.capture.transports.httpx`` … re-imported by a
    later run would be a second copy: agentsnap hooks ``httpx``/``httpx2`` once per
    process, and httpx2's exception mapping compares ``httpcore2`` classes — both
    break silently for everything that runs after this module (also in other
    test files of the same session). One record + replay of each shape loads them all.
    """
    directory = tmp_path_factory.mktemp("warm")
    # deepdiff (the arguments diff, e.g. with ignored_fields) imports numpy when it is
    # installed, and numpy's C extension cannot be loaded twice in one process
    import deepdiff  # noqa: F401

    def calls(base_url: str) -> None:
        client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "warm"}]
        )
        list(
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "warm"}], stream=True
            )
        )

        async def acall() -> None:
            aclient = openai.AsyncOpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
            await aclient.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "warm async"}]
            )

        asyncio.run(acall())

    with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for var in CI_MARKERS:
            mp.delenv(var, raising=False)
        with FakeOpenAI() as fake:
            fake.script(text_reply("a"), stream_text_reply(["b"]), text_reply("c"), text_reply("d"))
            with AgentRecorder("warm", snapshot_dir=directory):
                calls(fake.base_url)
            with httpx.Client() as plain:  # httpcore (legacy httpx transport)
                plain.post(fake.base_url + "/chat/completions", json={"model": "m", "messages": []})
            base = fake.base_url
        with AgentAsserter("warm", snapshot_dir=directory, mode="replay"):
            calls(base)


@pytest.fixture(autouse=True)
def _local_not_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """Local behaviour unless a test sets CI itself; keep the plugin's dummy API keys out of this process."""
    clear_ci(monkeypatch, also=(*AGENTSNAP_ENV, "PYTEST_XDIST_AUTO_NUM_WORKERS"))
    # replay runs set OPENAI_API_KEY when missing; make monkeypatch restore whatever was there
    monkeypatch.setenv("OPENAI_API_KEY", "outer-placeholder")
    monkeypatch.delenv("OPENAI_API_KEY")


class Project:
    """The inner project and how to run pytest on it."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.root = pytester.path
        pytester.makepyfile(fake_provider=FAKE_PROVIDER.read_text(encoding="utf-8"))
        pytester.makeconftest(CONFTEST)
        pytester.makepyfile(agent_lib=AGENT_LIB, test_agent=TEST_AGENT)
        self.set_scenario(**PARIS)

    def set_scenario(self, **values: Any) -> None:
        (self.root / "scenario.json").write_text(json.dumps(values), encoding="utf-8")

    def snapshot_path(self, name: str = NODE, directory: str = SNAP_DIR) -> Path:
        return SnapshotStore(self.root / directory).path_for(name)

    def snapshot(self, name: str = NODE, directory: str = SNAP_DIR) -> dict[str, Any]:
        return json.loads(self.snapshot_path(name, directory).read_text(encoding="utf-8"))

    def run(self, *args: str, subprocess: bool = False) -> pytest.RunResult:
        log = self.root / "server_log.txt"
        if log.exists():
            log.unlink()
        argv = (*QUIET_PLUGINS, *args)
        if subprocess:
            return self.pytester.runpytest_subprocess(*argv)
        return self.pytester.runpytest_inprocess(*argv)

    def files(self) -> set[str]:
        """Every file and folder under the project, relative; left out: bytecode caches and what
        pytester itself writes for a subprocess run (its basetemp ``runpytest-*``, ``stdout``, ``stderr``)."""
        found = set()
        for path in self.root.rglob("*"):
            rel = path.relative_to(self.root)
            if "__pycache__" in rel.parts or rel.parts[0].startswith("runpytest-"):
                continue
            if rel.as_posix() in ("stdout", "stderr"):
                continue
            found.add(rel.as_posix())
        return found

    def server_requests(self) -> dict[str, int]:
        """``{nodeid: requests the fake server received}`` for the last run."""
        log = self.root / "server_log.txt"
        out: dict[str, int] = {}
        for line in log.read_text(encoding="utf-8").splitlines():
            node, count = line.rsplit(" ", 1)
            out[node] = int(count)
        return out

    def record_golden(self) -> bytes:
        result = self.run("--agentsnap-record")
        assert result.ret == 0, result.stdout.str()
        assert self.snapshot()["approved"] is True
        return self.snapshot_path().read_bytes()


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    return Project(pytester)


def expected_filename(name: str) -> str:
    """The documented file name rule, computed independently of agentsnap: ``<name>.json``
    for a safe lower-case name, else the sanitised name plus 8 hex of its sha1."""
    if (
        re.fullmatch(r"[a-z0-9_][a-z0-9_.-]*", name)
        and ".." not in name
        and not re.search(r"-[0-9a-f]{8}$", name)
    ):
        return name + ".json"
    return (
        name.replace("::", "__")
        + "-"
        + hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
        + ".json"
    )


_SUMMARY = re.compile(
    r"agentsnap: \d+ (passed|failed|new|recorded|updated|re-recorded|pending|not saved|orphaned)\b"
)


def summary(result: pytest.RunResult) -> list[str]:
    """The end-of-run agentsnap count line(s), e.g. ``agentsnap: 1 passed, 1 failed``."""
    return [line for line in result.outlines if _SUMMARY.match(line)]


# --------------------------------------------------------------------------- the state table, locally


def test_instrument_without_snapshot_writes_pending_and_warns(project: Project) -> None:
    result = project.run("--agentsnap-instrument")

    assert result.ret == 0
    result.assert_outcomes(passed=1, warnings=1)
    path = project.snapshot_path()
    assert (
        path.name
        == expected_filename(NODE)
        == "test_agent.py__test_weather-" + hashlib.sha1(NODE.encode()).hexdigest()[:8] + ".json"
    )
    result.stdout.fnmatch_lines(
        [
            f"*AgentsnapWarning: agentsnap: new snapshot '{NODE}' written to {path} as pending; review it, "
            f"then run `agentsnap approve {NODE}` (nothing was asserted)."
        ]
    )
    assert summary(result) == ["agentsnap: 1 new (pending approval)"]
    assert project.server_requests() == {NODE: 2}

    data = project.snapshot()
    assert (data["name"], data["approved"], data["source"], data["version"]) == (
        NODE,
        False,
        "pytest",
        "2.0",
    )
    assert [s["type"] for s in data["trace"]] == ["llm_call", "tool_call", "llm_call"]
    assert data["trace"][0]["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}}
    ]
    assert {k: data["trace"][1][k] for k in ("name", "args", "result")} == {
        "name": "get_weather",
        "args": {"city": "Paris"},
        "result": "sunny in Paris",
    }
    assert data["output"] == "It is sunny."
    raw = path.read_text(encoding="utf-8")
    assert (
        raw.endswith("}\n")
        and json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n" == raw
    )


def test_no_flags_means_no_snapshots(project: Project) -> None:
    result = project.run()
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    assert summary(result) == []
    assert not (project.root / SNAP_DIR).exists()


def test_pending_snapshot_is_not_compared(project: Project) -> None:
    assert project.run("--agentsnap-instrument").ret == 0
    before = project.snapshot_path().read_bytes()
    project.set_scenario(**{**PARIS, "city": "Rome"})  # drift, but the snapshot is not approved

    result = project.run("--agentsnap-instrument")
    assert result.ret == 0
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        [
            f"*AgentsnapWarning: agentsnap: snapshot '{NODE}' is pending approval; not compared. Run `agentsnap approve {NODE}` once reviewed."
        ]
    )
    assert summary(result) == ["agentsnap: 1 pending (not compared)"]
    assert project.snapshot_path().read_bytes() == before
    last_run = SnapshotStore(project.root / SNAP_DIR).load_last_run(NODE)
    assert last_run is not None and last_run.trace[0]["tool_requests"][0]["args"] == {
        "city": "Rome"
    }


def test_replay_serves_a_pending_snapshot_locally(project: Project) -> None:
    assert project.run("--agentsnap-instrument").ret == 0
    result = project.run("--agentsnap-replay")
    assert result.ret == 0
    assert summary(result) == ["agentsnap: 1 pending (not compared)"]
    assert project.server_requests() == {NODE: 0}


def test_record_writes_an_approved_golden(project: Project) -> None:
    result = project.run("--agentsnap-record")
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    assert summary(result) == ["agentsnap: 1 recorded (approved)"]
    after = result.outlines[result.outlines.index("agentsnap: 1 recorded (approved)") + 1]
    assert (
        after
        == f"  1 golden(s) written and approved in {project.root / SNAP_DIR}: review them (`git diff`) before committing."
    )
    data = project.snapshot()
    assert (data["name"], data["approved"], data["source"]) == (NODE, True, "pytest")
    assert project.server_requests() == {NODE: 2}


def test_record_over_a_pending_snapshot_approves_it(project: Project) -> None:
    assert project.run("--agentsnap-instrument").ret == 0
    assert project.snapshot()["approved"] is False
    result = project.run("--agentsnap-record")
    assert summary(result) == ["agentsnap: 1 updated (re-recorded, approved)"]
    assert project.snapshot()["approved"] is True


def test_re_record_without_change_leaves_the_file_untouched(project: Project) -> None:
    before = project.record_golden()
    stat = project.snapshot_path().stat()

    result = project.run("--agentsnap-record")
    assert result.ret == 0
    assert summary(result) == ["agentsnap: 1 re-recorded unchanged"]
    after = project.snapshot_path().stat()
    assert project.snapshot_path().read_bytes() == before
    assert (after.st_ino, after.st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)


def test_approved_snapshot_replays_offline_and_passes(project: Project) -> None:
    before = project.record_golden()
    result = project.run("--agentsnap-replay")
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    assert summary(result) == ["agentsnap: 1 passed"]
    assert project.server_requests() == {NODE: 0}
    assert project.snapshot_path().read_bytes() == before


def test_approved_snapshot_with_request_drift_fails_in_replay(project: Project) -> None:
    before = project.record_golden()
    project.set_scenario(**{**PARIS, "question": "Weather in Rome?"})

    result = project.run("--agentsnap-replay")
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    lines = [line.strip() for line in result.outlines]
    assert f"[agentsnap] '{NODE}' FAILED — failed checks: llm_requests" in lines
    assert "[REQUESTS] FAIL — llm_requests: messages differ in 2 llm calls" in lines
    assert lines.count("messages[0].content: 'Weather in Paris?' → 'Weather in Rome?'") == 2
    assert f"Golden: {project.snapshot_path()}" in lines
    assert summary(result) == ["agentsnap: 1 failed"]
    assert project.server_requests() == {NODE: 0}
    assert project.snapshot_path().read_bytes() == before


def test_approved_snapshot_with_tool_argument_drift_fails_live(project: Project) -> None:
    before = project.record_golden()
    project.set_scenario(**{**PARIS, "city": "Rome"})

    result = project.run("--agentsnap-live")
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    lines = [line.strip() for line in result.outlines]
    assert f"[agentsnap] '{NODE}' FAILED — failed checks: arguments, model_tool_args" in lines
    assert "[ARGS] FAIL — arguments: changed in 1 tool call" in lines
    assert (
        "[MODEL TOOLS] FAIL — model_tools: 1 request, same sequence; model_tool_args: changed in 1 request"
        in lines
    )
    assert lines.count("args.city: 'Paris' → 'Rome'") == 2
    assert summary(result) == ["agentsnap: 1 failed"]
    assert project.server_requests() == {NODE: 2}
    assert project.snapshot_path().read_bytes() == before


def test_failing_test_under_record_keeps_the_previous_golden(project: Project) -> None:
    before = project.record_golden()
    project.set_scenario(**{**PARIS, "city": "Rome", "fail": True})

    result = project.run("--agentsnap-record")
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the scenario asked this test to fail*"])
    assert summary(result) == ["agentsnap: 1 not saved (test failed)"]
    assert project.snapshot_path().read_bytes() == before


def test_failing_test_without_snapshot_writes_nothing(project: Project) -> None:
    project.set_scenario(**{**PARIS, "fail": True})
    result = project.run("--agentsnap-instrument")
    assert result.ret == 1
    assert summary(result) == ["agentsnap: 1 not saved (test failed)"]
    assert not project.snapshot_path().exists()


@pytest.mark.parametrize(
    "flags",
    [("--agentsnap-instrument",), ("--agentsnap-replay",), ("--agentsnap-record",)],
    ids=["live", "replay", "record"],
)
def test_corrupt_snapshot_fails_naming_the_path_and_is_never_overwritten(
    project: Project, flags: tuple[str, ...]
) -> None:
    path = project.snapshot_path()
    path.parent.mkdir()
    corrupt = b'{"version": "2.0", "name": "test_agent.py::test_weather", "trace": [\n'
    path.write_bytes(corrupt)

    result = project.run(*flags)
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    assert f"agentsnap: corrupt snapshot file at {path}" in result.stdout.str()
    assert summary(result) == ["agentsnap: 1 failed"]
    assert path.read_bytes() == corrupt
    assert sorted(p.name for p in path.parent.glob("*.json")) == [path.name]
    if flags == ("--agentsnap-replay",):
        assert project.server_requests() == {NODE: 0}


@pytest.mark.parametrize("other", ["--agentsnap-replay", "--agentsnap-live"])
def test_record_with_another_mode_is_a_usage_error(project: Project, other: str) -> None:
    """README: --agentsnap-record with either of the other mode flags is a usage error."""
    result = project.run("--agentsnap-record", other, subprocess=True)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"ERROR: agentsnap: --agentsnap-record and {other} cannot be combined; choose one mode per run."
        in result.errlines
    )
    assert not (project.root / SNAP_DIR).exists()
    assert not (project.root / "server_log.txt").exists()  # no test ran


def test_replay_and_live_together_live_wins_with_a_note(project: Project) -> None:
    # agentsnap 0.5.1's precedence: --agentsnap-live overrides --agentsnap-replay
    assert project.run("--agentsnap-record").ret == 0
    result = project.run("--agentsnap-live", "--agentsnap-replay")
    assert result.ret == 0
    assert summary(result) == ["agentsnap: 1 passed"]
    assert project.server_requests() == {NODE: 2}  # the live run called the server
    assert (
        "agentsnap: --agentsnap-replay and --agentsnap-live were both given: live wins (as in agentsnap 0.5.1); "
        "every test calls the real API."
    ) in result.outlines


def test_snapshot_dir_flag_is_relative_to_the_rootdir(project: Project) -> None:
    result = project.run("--agentsnap-record", "--agentsnap-snapshot-dir", "golden/agents")
    assert result.ret == 0
    assert project.snapshot_path(directory="golden/agents").is_file()
    assert not (project.root / SNAP_DIR).exists()


# --------------------------------------------------------------------------- CI


@pytest.mark.parametrize("marker", ["CI", "GITHUB_ACTIONS"])
def test_ci_missing_snapshot_in_replay_fails_without_network_or_files(
    project: Project, monkeypatch: pytest.MonkeyPatch, marker: str
) -> None:
    """In CI the replay message wins: --agentsnap-allow-pending does not relax a missing snapshot under replay,
    so the CI message's hint that it does would mislead (found by a break-it review). GitHub Actions
    sets GITHUB_ACTIONS=true (and CI=true): either one alone is CI."""
    monkeypatch.setenv(marker, "true")
    before = project.files()
    result = project.run("--agentsnap-replay", subprocess=True)

    assert result.ret == 1
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*agentsnap: no snapshot for '{NODE}' ({project.snapshot_path()}) and this run replays (--agentsnap-replay)*"
        ]
    )
    assert f"`pytest {NODE} --agentsnap-record`" in result.stdout.str()
    assert "relaxes this" not in result.stdout.str()
    assert summary(result) == ["agentsnap: 1 failed"]
    assert project.server_requests() == {NODE: 0}
    assert not (project.root / SNAP_DIR).exists()
    # server_log.txt is the test's own log; agentsnap wrote nothing
    assert project.files() == before | {"server_log.txt"}


def test_local_missing_snapshot_in_replay_fails_without_network_or_files(project: Project) -> None:
    """Replay is offline, always: locally too, a test with no snapshot fails at its first LLM call, naming the path
    and the record command; the fake provider receives nothing and nothing is written."""
    result = project.run("--agentsnap-replay", subprocess=True)

    assert result.ret == 1
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*agentsnap: no snapshot for '{NODE}' ({project.snapshot_path()}) and this run replays (--agentsnap-replay)*"
        ]
    )
    assert f"`pytest {NODE} --agentsnap-record`" in result.stdout.str()
    assert summary(result) == ["agentsnap: 1 failed"]
    assert project.server_requests() == {NODE: 0}
    assert not (project.root / SNAP_DIR).exists()


def test_ci_missing_snapshot_live_also_fails_before_sending(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "1")
    result = project.run("--agentsnap-instrument")
    assert result.ret == 1
    assert summary(result) == ["agentsnap: 1 failed"]
    assert project.server_requests() == {NODE: 0}
    assert not (project.root / SNAP_DIR).exists()


@pytest.mark.parametrize(
    "flags", [("--agentsnap-replay",), ("--agentsnap-instrument",)], ids=["replay", "live"]
)
def test_ci_pending_snapshot_fails(
    project: Project, monkeypatch: pytest.MonkeyPatch, flags: tuple[str, ...]
) -> None:
    assert project.run("--agentsnap-instrument").ret == 0
    before = project.snapshot_path().read_bytes()
    monkeypatch.setenv("CI", "true")

    result = project.run(*flags)
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*agentsnap: the snapshot is pending approval for '{NODE}' ({project.snapshot_path()}) and this is CI*"
        ]
    )
    assert summary(result) == ["agentsnap: 1 failed"]
    assert project.server_requests() == {NODE: 0}
    assert project.snapshot_path().read_bytes() == before


def test_ci_allow_pending_passes_with_a_warning(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert project.run("--agentsnap-instrument").ret == 0
    before = project.snapshot_path().read_bytes()
    monkeypatch.setenv("CI", "true")

    result = project.run("--agentsnap-replay", "--agentsnap-allow-pending")
    assert result.ret == 0
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        [f"*AgentsnapWarning: agentsnap: snapshot '{NODE}' is pending approval; not compared.*"]
    )
    assert summary(result) == ["agentsnap: 1 pending (not compared)"]
    assert project.server_requests() == {NODE: 0}
    assert project.snapshot_path().read_bytes() == before


def test_ci_allow_pending_with_missing_snapshot_writes_pending(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = project.run("--agentsnap-instrument", "--agentsnap-allow-pending")
    assert result.ret == 0
    assert summary(result) == ["agentsnap: 1 new (pending approval)"]
    assert project.snapshot()["approved"] is False


def test_ci_approved_snapshot_replays_and_passes(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.record_golden()
    monkeypatch.setenv("CI", "true")
    result = project.run("--agentsnap-replay")
    assert result.ret == 0
    assert summary(result) == ["agentsnap: 1 passed"]
    assert project.server_requests() == {NODE: 0}


@pytest.mark.parametrize("value", ["false", "0", "no", "FALSE", ""])
def test_ci_false_values_mean_local_behaviour(
    project: Project, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("CI", value)
    result = project.run(
        "--agentsnap-instrument"
    )  # live: a missing snapshot is written pending locally, fails in CI
    assert result.ret == 0
    assert summary(result) == ["agentsnap: 1 new (pending approval)"]
    assert project.snapshot()["approved"] is False
    assert project.server_requests() == {NODE: 2}


def test_other_ci_markers_count_as_ci(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = project.run("--agentsnap-instrument")
    assert result.ret == 1
    assert summary(result) == ["agentsnap: 1 failed"]
    assert not (project.root / SNAP_DIR).exists()


# --------------------------------------------------------------------------- the snapshot fixture

FIXTURE_TEST = """
from agent_lib import client_for
from fake_provider import text_reply


def ask(client, question):
    return client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": question}]).choices[0].message.content


def test_blocks(fake, snapshot):
    fake.script(text_reply("first answer"), text_reply("second answer"), text_reply("named answer"))
    client = client_for(fake)
    with snapshot.assert_agent() as a:
        a.output = ask(client, "first?")
    with snapshot.assert_agent() as b:
        b.output = ask(client, "second?")
    with snapshot.assert_agent("explicit-name") as c:
        c.output = ask(client, "named?")
    assert (a.name, b.name, c.name) == ("test_fixture.py::test_blocks", "test_fixture.py::test_blocks-2", "explicit-name")


def test_agent_snapshot_alias(agent_snapshot, snapshot):
    assert type(agent_snapshot) is type(snapshot)
"""


def test_snapshot_fixture_names_blocks_by_node_id(project: Project) -> None:
    project.pytester.makepyfile(test_fixture=FIXTURE_TEST)
    result = project.run("test_fixture.py")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2, warnings=3)
    assert summary(result) == ["agentsnap: 3 new (pending approval)"]

    expected = {
        "test_fixture.py::test_blocks": "first answer",
        "test_fixture.py::test_blocks-2": "second answer",
        "explicit-name": "named answer",
    }
    files = sorted(p.name for p in (project.root / SNAP_DIR).glob("*.json"))
    assert files == sorted(expected_filename(n) for n in expected)
    for name, answer in expected.items():
        data = project.snapshot(name)
        assert (data["name"], data["approved"], data["output"]) == (name, False, answer)
        assert len(data["trace"]) == 1

    # approve them all with --agentsnap-record, then replay offline: all compared and passing
    assert summary(project.run("test_fixture.py", "--agentsnap-record")) == [
        "agentsnap: 3 updated (re-recorded, approved)"
    ]
    result = project.run("test_fixture.py", "--agentsnap-replay")
    assert result.ret == 0, result.stdout.str()
    assert summary(result) == ["agentsnap: 3 passed"]
    assert project.server_requests() == {"test_fixture.py::test_blocks": 0}


MIXED_TEST = """
from agent_lib import client_for
from fake_provider import text_reply


def ask(client, question):
    return client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": question}]).choices[0].message.content


def test_mixed(fake, snapshot):
    fake.script(text_reply("outside answer"), text_reply("inside answer"))
    client = client_for(fake)
    ask(client, "outside?")
    with snapshot.assert_agent() as block:
        block.output = ask(client, "inside?")
"""


def test_instrument_plus_unnamed_fixture_block_records_and_replays(project: Project) -> None:
    project.pytester.makepyfile(test_mixed=MIXED_TEST)
    # a test that uses the fixture's blocks owns its snapshots: no auto-snapshot
    # competes for the same name (the call outside the block is not recorded)
    recorded = project.run("test_mixed.py", "--agentsnap-instrument", "--agentsnap-record")
    assert recorded.ret == 0
    assert summary(recorded) == ["agentsnap: 1 recorded (approved)"]
    files = list((project.root / SNAP_DIR).glob("*.json"))
    assert len(files) == 1
    data = SnapshotStore.read_file(
        files[0]
    ).to_dict()  # as loaded: the file stores each call's messages once
    assert [s["messages"][-1]["content"] for s in data["trace"] if s["type"] == "llm_call"] == [
        "inside?"
    ]
    replayed = project.run("test_mixed.py", "--agentsnap-replay")
    assert replayed.ret == 0, replayed.stdout.str()
    assert summary(replayed) == ["agentsnap: 1 passed"]


SKIP_TEST = """
import pytest
from agent_lib import client_for
from fake_provider import text_reply


def test_skips_after_a_call(fake):
    fake.script(text_reply("the model is not ready"))
    client_for(fake).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "ready?"}])
    pytest.skip("model not ready")
"""


def test_skipped_test_is_not_reported_as_failed(project: Project) -> None:
    project.pytester.makepyfile(test_skip=SKIP_TEST)
    result = project.run("test_skip.py", "--agentsnap-instrument")
    assert result.ret == 0
    result.assert_outcomes(skipped=1)
    assert not (project.root / SNAP_DIR).exists()
    assert all("failed" not in line for line in summary(result)), summary(result)


EXTRA_CALL_TEST = """
from agent_lib import client_for, scenario, weather_agent
from fake_provider import text_reply, tool_calls_reply


def test_weather(fake):
    sc = scenario()
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": sc["city"]})]), text_reply(sc["answer"]), text_reply("extra"))
    client = client_for(fake)
    weather_agent(client, sc["question"])
    if sc.get("extra_call"):
        client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "one more?"}])
"""


def test_replay_miss_fails_the_test_cleanly_naming_the_call_site(project: Project) -> None:
    project.pytester.makepyfile(test_agent=EXTRA_CALL_TEST)
    before = project.record_golden()
    project.set_scenario(**{**PARIS, "extra_call": True})

    result = project.run("--agentsnap-replay")
    assert result.ret == 1
    result.assert_outcomes(failed=1)
    lines = [line.strip() for line in result.outlines]
    path = project.snapshot_path()
    assert (
        f"agentsnap replay miss: LLM call index 2 (POST /v1/chat/completions) has no recorded response in snapshot '{NODE}' ({path})."
        in lines
    )
    assert "(the call was made at test_agent.py:11)" in lines
    assert any("--agentsnap-record" in line for line in lines)
    assert "Traceback" not in result.stdout.str()
    # (questionable, see the report: agentsnap caught the drift, yet its summary says the *test* failed)
    assert summary(result) == ["agentsnap: 1 failed"]
    assert project.server_requests() == {NODE: 0}
    assert project.snapshot_path().read_bytes() == before


KEYLESS_TEST = """
import openai
from agent_lib import weather_agent
from fake_provider import text_reply, tool_calls_reply


def test_weather(fake):
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": "Paris"})]), text_reply("It is sunny."))
    client = openai.OpenAI(base_url=fake.base_url, max_retries=0)  # the key comes from OPENAI_API_KEY
    assert weather_agent(client, "Weather in Paris?") == "It is sunny."
"""


def test_replay_needs_no_api_key(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    project.pytester.makepyfile(test_agent=KEYLESS_TEST)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-key-for-recording-000000")
    project.record_golden()
    monkeypatch.delenv("OPENAI_API_KEY")

    result = project.run("--agentsnap-replay")
    assert result.ret == 0, result.stdout.str()
    assert summary(result) == ["agentsnap: 1 passed"]
    assert project.server_requests() == {NODE: 0}
    assert b"sk-live-key" not in project.snapshot_path().read_bytes()


# --------------------------------------------------------------------------- xdist

MANY_TESTS = """
import pytest
from agent_lib import client_for, scenario
from fake_provider import text_reply


@pytest.mark.parametrize("i", range(5))
def test_ask(fake, i):
    fake.script(text_reply(f"answer {i}"))
    question = scenario().get("questions", {}).get(str(i), f"question {i}")
    client_for(fake).chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": question}])


def test_no_llm():
    assert True
"""


def test_xdist_summary_counts_equal_the_serial_run(project: Project) -> None:
    project.pytester.makepyfile(test_many=MANY_TESTS)
    assert summary(project.run("test_many.py", "--agentsnap-record")) == [
        "agentsnap: 5 recorded (approved)"
    ]
    store = SnapshotStore(project.root / SNAP_DIR)
    store.delete("test_many.py::test_ask[3]")  # -> failed: replay never records a missing snapshot
    approved = store.load("test_many.py::test_ask[4]")
    approved.approved = False
    store.save(approved)  # -> pending (not compared)
    project.set_scenario(**{**PARIS, "questions": {"1": "a different question 1"}})  # -> failed
    shutil.copytree(project.root / SNAP_DIR, project.root / "xdist_snaps")

    serial = project.run("test_many.py", "--agentsnap-replay")
    parallel = project.run(
        "test_many.py",
        "--agentsnap-replay",
        "-n",
        "2",
        "--agentsnap-snapshot-dir",
        "xdist_snaps",
        subprocess=True,
    )

    expected = ["agentsnap: 2 passed, 2 failed, 1 pending (not compared)"]
    assert summary(serial) == expected
    assert summary(parallel) == expected
    serial.assert_outcomes(passed=4, failed=2, warnings=1)
    parallel.assert_outcomes(passed=4, failed=2, warnings=1)
    assert "2 workers [6 items]" in parallel.stdout.str()
    # neither run wrote the missing snapshot
    assert not SnapshotStore(project.root / SNAP_DIR).exists("test_many.py::test_ask[3]")
    assert not SnapshotStore(project.root / "xdist_snaps").exists("test_many.py::test_ask[3]")


SWALLOWING_TEST = """
from agent_lib import client_for, scenario, weather_agent
from fake_provider import text_reply, tool_calls_reply


def test_weather(fake):
    sc = scenario()
    fake.script(tool_calls_reply([("call_A", "get_weather", {"city": sc["city"]})]), text_reply(sc["answer"]))
    answer = weather_agent(client_for(fake), sc["question"])
    try:
        weather_agent(client_for(fake), "one question more")  # not in the snapshot
    except BaseException:  # a framework that swallows everything and fails its own way
        raise AttributeError("'NoneType' object has no attribute 'generations'")
"""


def test_a_replay_miss_the_test_replaced_is_what_fails_it(project: Project) -> None:
    project.pytester.makepyfile(test_agent=TEST_AGENT)
    project.record_golden()
    project.pytester.makepyfile(test_agent=SWALLOWING_TEST)
    result = project.run("--agentsnap-replay")
    assert result.ret == 1
    out = result.stdout.str()
    assert (
        "agentsnap replay miss: LLM call index 2 (POST /v1/chat/completions) has no recorded response"
        in out
    )
    assert (
        "no attribute 'generations'" not in out
    )  # the swallowed cause is not what the report leads with
    assert project.server_requests() == {NODE: 0}


# --------------------------------------------------------------------------- @pytest.mark.agentsnap


def _with_marker(project: Project, marker: str) -> None:
    project.pytester.makepyfile(
        test_agent=TEST_AGENT.replace(
            "def test_weather(fake):", f"{marker}\ndef test_weather(fake):"
        ).replace("from agent_lib import", "import pytest\nfrom agent_lib import")
    )


def test_marker_names_the_snapshot_and_sets_the_tests_thresholds(project: Project) -> None:
    _with_marker(
        project, '@pytest.mark.agentsnap(name="weather/paris", ignored_fields="city")'
    )  # one path as a string
    result = project.run("--agentsnap-record")
    assert result.ret == 0, result.stdout.str()
    assert project.snapshot("weather/paris")["name"] == "weather/paris"
    assert not project.snapshot_path(NODE).exists()
    assert (
        project.snapshot_path("weather/paris").name
        == "weather_paris-" + hashlib.sha1(b"weather/paris").hexdigest()[:8] + ".json"
    )

    project.set_scenario(**{**PARIS, "city": "Rome"})  # drift only in the ignored field
    result = project.run("--agentsnap-live")
    assert result.ret == 0, result.stdout.str()
    assert summary(result) == ["agentsnap: 1 passed"]

    _with_marker(
        project, '@pytest.mark.agentsnap(name="weather/paris")'
    )  # without it the same run fails
    result = project.run("--agentsnap-live")
    assert result.ret == 1
    assert "args.city: 'Paris' → 'Rome'" in result.stdout.str()


def test_marker_with_an_unknown_keyword_errors_naming_it(project: Project) -> None:
    _with_marker(project, "@pytest.mark.agentsnap(semantic_treshold=0.5)")
    result = project.run("--agentsnap-record")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*unknown @pytest.mark.agentsnap keyword(s) semantic_treshold on test_agent.py::test_weather; "
            "known: name, semantic_threshold, llm_threshold*"
        ]
    )
    assert not project.snapshot_path(NODE).exists()


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            '@pytest.mark.agentsnap(name="")',
            "*@pytest.mark.agentsnap(name=...) must be a non-empty string on test_agent.py::test_weather, got ''*",
        ),
        (
            "@pytest.mark.agentsnap(name=0)",
            "*@pytest.mark.agentsnap(name=...) must be a non-empty string on test_agent.py::test_weather, got 0*",
        ),
        (
            '@pytest.mark.agentsnap(semantic_threshold="high")',
            "*bad value 'high' for 'semantic_threshold' in @pytest.mark.agentsnap on test_agent.py::test_weather*",
        ),
        (
            "@pytest.mark.agentsnap(structural_tolerance=-1)",
            "*bad value -1 for 'structural_tolerance'*expected a whole number >= 0*",
        ),
    ],
)
def test_marker_values_are_checked_before_the_test_runs(
    project: Project, marker: str, message: str
) -> None:
    _with_marker(project, marker)
    result = project.run("--agentsnap-record")
    assert result.ret == 1
    result.stdout.fnmatch_lines([message])
    assert not (
        project.root / "server_log.txt"
    ).exists()  # errored in setup: not even the fake server started


# --------------------------------------------------------------------------- a run that stopped calling

SHORT_CIRCUIT_TEST = """
from agent_lib import client_for, scenario, weather_agent
from fake_provider import text_reply, tool_calls_reply


def test_weather(fake):
    sc = scenario()
    if sc.get("boom"):
        raise KeyError("the test fails before its first call")
    if sc.get("cached"):  # the agent answers from a fallback: no LLM call at all
        answer = sc["answer"]
    else:
        fake.script(tool_calls_reply([("call_A", "get_weather", {"city": sc["city"]})]), text_reply(sc["answer"]))
        answer = weather_agent(client_for(fake), sc["question"])
    assert answer == sc["answer"]
"""


@pytest.mark.parametrize("mode", ["--agentsnap-replay", "--agentsnap-instrument"])
def test_a_run_that_makes_no_call_against_a_golden_with_calls_is_drift(
    project: Project, mode: str
) -> None:
    project.pytester.makepyfile(test_agent=SHORT_CIRCUIT_TEST)
    golden = project.record_golden()
    project.set_scenario(**{**PARIS, "cached": True})

    result = project.run(mode)

    assert result.ret == 1, result.stdout.str()
    assert summary(result) == ["agentsnap: 1 failed"]
    out = result.stdout.str()
    assert "llm calls: 2 → 0" in out
    assert "delete #0 get_weather" in out
    assert project.snapshot_path().read_bytes() == golden  # compared, never rewritten


def test_a_record_run_that_makes_no_call_re_records_the_golden(project: Project) -> None:
    """Recording is what the test does now: its golden holds no call any more, and the summary
    lists it among the re-recorded, for review (what the replay hint's re-record command does)."""
    project.pytester.makepyfile(test_agent=SHORT_CIRCUIT_TEST)
    project.record_golden()
    project.set_scenario(**{**PARIS, "cached": True})

    result = project.run("--agentsnap-record")

    assert result.ret == 0, result.stdout.str()
    assert summary(result)[0] == "agentsnap: 1 updated (re-recorded, approved)"
    assert "steps 3 → 0; tools get_weather → (none)" in result.stdout.str()
    assert project.snapshot()["trace"] == []
    again = project.run("--agentsnap-replay")
    assert again.ret == 0, again.stdout.str()


def test_a_record_run_whose_test_fails_before_its_call_keeps_the_golden(project: Project) -> None:
    project.pytester.makepyfile(test_agent=SHORT_CIRCUIT_TEST)
    golden = project.record_golden()
    project.set_scenario(**{**PARIS, "boom": True})

    result = project.run("--agentsnap-record")

    assert result.ret == 1, result.stdout.str()
    assert project.snapshot_path().read_bytes() == golden
    assert "agentsnap rm" not in result.stdout.str()


def test_a_test_with_no_call_and_no_golden_still_gets_no_snapshot(project: Project) -> None:
    project.pytester.makepyfile(test_agent=SHORT_CIRCUIT_TEST)
    project.set_scenario(**{**PARIS, "cached": True})

    for mode in ("--agentsnap-record", "--agentsnap-replay"):
        result = project.run(mode)
        assert result.ret == 0, result.stdout.str()
    assert not project.snapshot_path().exists()


def test_the_fix_commands_name_the_snapshot_folder_the_run_used(project: Project) -> None:
    """A run with ``--agentsnap-snapshot-dir`` prints ``agentsnap update --dir …``: the bare
    command would promote another folder's ``.last_run`` over another golden."""
    from tests.test_cli_helpers import invoke

    project.pytester.makepyfile(test_agent=TEST_AGENT)
    flag = ("--agentsnap-snapshot-dir", "golden/agents")
    assert project.run("--agentsnap-record", *flag).ret == 0
    project.set_scenario(**{**PARIS, "answer": "It is raining."})

    result = project.run("--agentsnap-instrument", *flag)

    assert result.ret == 1, result.stdout.str()
    out = result.stdout.str()
    assert f"`agentsnap update --dir golden/agents {NODE}`" in out
    assert invoke("update", "--dir", "golden/agents", NODE).exit_code == 0
    golden = project.snapshot(directory="golden/agents")
    assert golden["output"] == "It is raining."
    assert not (project.root / SNAP_DIR).exists()  # the default folder was never touched


def test_the_fix_commands_name_no_folder_for_the_default_one(project: Project) -> None:
    project.pytester.makepyfile(test_agent=TEST_AGENT)
    project.record_golden()
    project.set_scenario(**{**PARIS, "answer": "It is raining."})

    out = project.run("--agentsnap-instrument").stdout.str()

    assert f"`agentsnap update {NODE}`" in out
    assert f"or re-record it: `pytest {NODE} --agentsnap-record`" in out  # this test alone


def test_a_golden_that_cannot_be_written_fails_the_test_saying_where(project: Project) -> None:
    """A snapshot folder that cannot be made (a file stands at its path): the test fails with
    agentsnap's message naming the golden and the folder, not the file system's traceback, and
    the summary does not blame the provider rules."""
    project.pytester.makepyfile(test_agent=TEST_AGENT)
    (project.root / "notadir").write_text("a file, not a folder\n", encoding="utf-8")

    result = project.run("--agentsnap-record", "--agentsnap-snapshot-dir", "notadir")

    assert result.ret == 1, result.stdout.str()
    out = result.stdout.str()
    assert "agentsnap: cannot write the golden" in out
    assert f"Make {project.root / 'notadir'} a writable folder" in out
    assert "none of them was an LLM call agentsnap recognises" not in out
    assert "Traceback" not in out
    assert (project.root / "notadir").read_text(encoding="utf-8") == "a file, not a folder\n"
