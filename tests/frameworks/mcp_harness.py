"""The MCP proof each ``test_mcp_<client>.py`` runs on its own client (issue 26).

A client's agent tests (the ``AGENT`` source of its file, unmodified framework code) live
in a :class:`~tests.frameworks.harness.Project` whose conftest adds one fixture,
``weather``: how to reach the "weather" MCP server of :mod:`tests.frameworks.mcp_servers`:

* ``weather.command`` / ``.args`` / ``.env``: the stdio server (its env holds the secret
  ``WEATHER_API_KEY`` and the knobs of the server: start log, override, schema v2);
* ``weather.url`` / ``.headers``: the streamable-HTTP server, on a port fixed for the
  project, behind ``Authorization: Bearer <token>``. The conftest starts it for a run that
  talks to servers and not for a replay run (``--agentsnap-replay``).

Each AGENT has three tests, ``test_stdio`` (Paris), ``test_http`` (Tokyo) and
``test_stdio_tool_error`` (Oslo: the server's tool fails, ``isError: true``), asks with
``ASK.format(city)`` and sends each MCP tool call's arguments through ``fix_args`` (the
user's own code between the model and the MCP call), so a test can change the prompt and
the argument by editing one line.

:func:`prove` runs the whole proof: record (servers up) → offline replay (``unshare -n``,
no HTTP server, 0 new server starts, outputs equal) → the golden's MCP steps → no secret
in any golden byte → re-record is byte-identical → a changed prompt, MCP tool argument,
tool result and tool schema each fail with agentsnap's drift report naming the change.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.frameworks.harness import Project, assert_drift_reported, tool_steps
from tests.frameworks.mcp_servers import free_port, starts

SECRET = "sk-live-5c1e7a9d2b4f8e36"  # WEATHER_API_KEY in the stdio server's env
TOKEN = "mcpbearer-8d0f3b6e1a27c94d"  # the HTTP server's bearer token

MCP_CONFTEST = """

import sys
from types import SimpleNamespace

from tests.frameworks import mcp_servers

SERVER_ENV = ("MCP_START_LOG", "WEATHER_API_KEY", "WEATHER_OVERRIDE", "WEATHER_SCHEMA_V2")


@pytest.fixture(scope="session")
def weather(pytestconfig):
    env = {name: os.environ.get(name, "") for name in SERVER_ENV}
    token = os.environ["WEATHER_HTTP_TOKEN"]
    port = int(os.environ["WEATHER_MCP_PORT"])
    found = SimpleNamespace(
        command=sys.executable,
        args=[mcp_servers.WEATHER_SERVER],
        env=env,
        url=f"http://127.0.0.1:{port}/mcp",
        headers={"Authorization": f"Bearer {token}"},
    )
    if pytestconfig.getoption("agentsnap_replay", default=False):
        yield found
        return
    with mcp_servers.http_server(port, env={**env, "WEATHER_HTTP_TOKEN": token}) as url:
        assert url == found.url
        yield found
"""

ASK = 'ASK = "What\'s the weather in {}?"'
ARGS_AS_GIVEN = "    return args\n"

TESTS = ("test_stdio", "test_http", "test_stdio_tool_error")
TOOL = "mcp:weather.get_forecast"
PARIS = (TOOL, {"city": "Paris"}, "Light rain, 18°C")
TOKYO = (TOOL, {"city": "Tokyo"}, "Sunny, 24°C")
OSLO_ERROR = "Error executing tool get_forecast: no weather station in Oslo"


class McpProject(Project):
    """A :class:`Project` that keeps the output of each of its runs (``outputs``)."""

    outputs: list[str]

    def run(
        self, *args: str, offline: bool = False, env: dict[str, str] | None = None
    ) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
        proc, kept = super().run(*args, offline=offline, env=env)
        self.outputs.append(f"pytest {' '.join(args)}\n{proc.stdout}{proc.stderr}")
        return proc, kept


def mcp_project(tmp_path: Path, agent_source: str) -> McpProject:
    """The client's project, with the weather fixture and the secrets in its environment."""
    assert ASK in agent_source and ARGS_AS_GIVEN in agent_source
    project = McpProject(
        tmp_path / "proj",
        agent_source,
        conftest=MCP_CONFTEST,
        env={
            "MCP_START_LOG": str(tmp_path / "starts.log"),
            "WEATHER_API_KEY": SECRET,
            "WEATHER_HTTP_TOKEN": TOKEN,
            "WEATHER_MCP_PORT": str(free_port()),
        },
    )
    project.outputs = []
    return project


def start_log(project: Project) -> list[str]:
    return starts(project.extra_env["MCP_START_LOG"])


def golden_bytes(project: Project) -> dict[str, bytes]:
    """Every file agentsnap wrote under the project's snapshot folder, by relative path."""
    root = project.root / "snapshots"
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def mcp_steps(snapshot: dict[str, Any], method: str | None = None) -> list[dict[str, Any]]:
    return [
        s
        for s in snapshot["trace"]
        if s["type"] == "mcp" and (method is None or s.get("method") == method)
    ]


def mcp_trajectory(snapshot: dict[str, Any]) -> list[tuple[str, int]]:
    """``(method or tool step name, session)`` of each MCP step of a snapshot, in trace order."""
    return [
        (s.get("method") or s["name"], s["session"])
        for s in snapshot["trace"]
        if s["type"] == "mcp" or (s["type"] == "tool_call" and "server" in s)
    ]


ONE_SESSION = [("connect", 0), ("initialize", 0), ("tools/list", 0), (TOOL, 0)]


def _summary(proc: Any) -> str:
    return proc.stdout.splitlines()[-1] if proc.stdout else ""


def record_and_replay_offline(project: Project) -> tuple[dict[str, Any], dict[str, Any]]:
    """Record with both servers up, then replay under ``unshare -n`` with the HTTP server not
    started: green, the same outputs, and not one server start during the replay."""
    rec, live = project.run("--agentsnap-record")
    out = rec.stdout + rec.stderr
    assert rec.returncode == 0, out
    assert "agentsnap: 3 recorded (approved)" in rec.stdout, out
    assert sorted(project.snapshots()) == sorted(TESTS)
    recorded_starts = start_log(project)
    transports = [line.split()[2] for line in recorded_starts]
    assert transports.count("transport=streamable-http") == 1, recorded_starts
    assert transports.count("transport=stdio") >= 2, recorded_starts  # test_stdio and the error
    assert all(line.endswith("api_key=set") for line in recorded_starts), recorded_starts

    rep, replayed = project.run("--agentsnap-replay", offline=True)
    out = rep.stdout + rep.stderr
    assert rep.returncode == 0, out
    assert "agentsnap: 3 passed" in rep.stdout, out
    assert "3 passed" in _summary(rep), out
    assert start_log(project) == recorded_starts  # replay spawned no server
    assert sorted(replayed) == sorted(TESTS)
    assert replayed == live
    return live, replayed


def assert_mcp_goldens(project: Project) -> dict[str, dict[str, Any]]:
    """The goldens hold the MCP tool calls as ``mcp:weather.get_forecast`` steps (one step per
    call: the model's tool call is the MCP one), the failed call with ``is_error``, and a
    ``connect`` step per session naming the transport (env and header names, no values)."""
    snaps = project.snapshots()
    assert tool_steps(snaps["test_stdio"]) == [PARIS]
    assert tool_steps(snaps["test_http"]) == [TOKYO]
    ((name, args, result),) = tool_steps(snaps["test_stdio_tool_error"])
    assert (name, args) == (TOOL, {"city": "Oslo"})
    assert result == OSLO_ERROR
    for test in TESTS:
        calls = [s for s in snaps[test]["trace"] if s["type"] == "tool_call"]
        assert [c["server"] for c in calls] == ["weather"]
        assert [c.get("is_error", False) for c in calls] == [test == "test_stdio_tool_error"]
        connects = mcp_steps(snaps[test], "connect")
        assert connects, snaps[test]["trace"]
        assert {c["server"] for c in connects} == {"weather"}
        kinds = {c["transport"]["kind"] for c in connects}
        assert kinds == ({"streamable-http"} if test == "test_http" else {"stdio"})
        for c in connects:
            transport = c["transport"]
            if transport["kind"] == "stdio":
                # basenames only: the golden does not depend on where Python or the project is
                assert transport["command"] == "python", transport
                assert transport["args"] == ["weather_server.py"], transport
                # env names only, and only those not copied from the test's own environment
                # (MCP_START_LOG and WEATHER_API_KEY are in it: the fixture passes them on)
                assert transport.get("env", []) == ["WEATHER_OVERRIDE", "WEATHER_SCHEMA_V2"], (
                    transport
                )
            else:
                # the core drops a loopback URL's port (a test server's port changes run to run)
                assert transport["url"] == "http://127.0.0.1/mcp", transport
                # header names only, lower-cased (the client's HTTP stack adds its own)
                assert "authorization" in transport["headers"], transport
                assert all(h == h.lower() and ":" not in h for h in transport["headers"])
        methods = [s["method"] for s in mcp_steps(snaps[test])]
        assert "initialize" in methods and "tools/list" in methods, methods
    return snaps


def assert_no_secret(project: Project) -> None:
    for path, data in golden_bytes(project).items():
        for secret in (SECRET, TOKEN):
            assert secret.encode() not in data, f"{secret} in {path}"


def rerecord_is_identical(project: Project) -> None:
    before = golden_bytes(project)
    rec, _ = project.run("--agentsnap-record")
    assert rec.returncode == 0, rec.stdout + rec.stderr
    after = golden_bytes(project)
    goldens = [p for p in before if p.endswith(".json") and "/" not in p]
    assert goldens, sorted(before)
    for path in goldens:
        assert after[path] == before[path], path


def _failed(proc: Any, tests: list[str]) -> None:
    out = proc.stdout + proc.stderr
    for test in tests:
        assert f"FAILED test_agent.py::{test}" in proc.stdout, out
    for test in set(TESTS) - set(tests):
        assert f"FAILED test_agent.py::{test}" not in proc.stdout, out


def drift_prompt(project: Project) -> None:
    """A changed prompt: every test fails offline with a report naming both prompts."""
    project.edit(ASK, 'ASK = "How is the weather in {}?"')
    drift, _ = project.run("--agentsnap-replay", offline=True)
    project.edit('ASK = "How is the weather in {}?"', ASK)
    assert_drift_reported(
        drift,
        test="test_stdio",
        expected=[
            "[REQUESTS] FAIL",
            "What's the weather in Paris?",
            "How is the weather in Paris?",
        ],
    )
    _failed(drift, list(TESTS))
    assert "3 failed" in _summary(drift), drift.stdout


def drift_argument(project: Project) -> None:
    """The agent's code changes the MCP tool's argument before the call: every test fails
    offline, the report naming the recorded and the new argument."""
    changed = '    return {**args, "city": args["city"].upper()}\n'
    project.edit(ARGS_AS_GIVEN, changed)
    drift, _ = project.run("--agentsnap-replay", offline=True)
    project.edit(changed, ARGS_AS_GIVEN)
    assert_drift_reported(
        drift, test="test_stdio", expected=["[ARGS] FAIL", TOOL, "args.city: 'Paris' → 'PARIS'"]
    )
    assert "args.city: 'Tokyo' → 'TOKYO'" in drift.stdout, drift.stdout
    assert "args.city: 'Oslo' → 'OSLO'" in drift.stdout, drift.stdout
    _failed(drift, list(TESTS))
    assert "3 failed" in _summary(drift), drift.stdout


def drift_result(project: Project) -> None:
    """The server answers differently (a live run, servers up): the Paris and Tokyo tests fail
    naming the recorded and the new result; Oslo's failure is unchanged."""
    override = {"Paris": "Heavy rain, 12°C", "Tokyo": "Hail, 9°C"}
    drift, _ = project.run("--agentsnap-instrument", env={"WEATHER_OVERRIDE": json.dumps(override)})
    assert_drift_reported(
        drift,
        test="test_stdio",
        expected=["[MCP] FAIL", "result: 'Light rain, 18°C' → 'Heavy rain, 12°C'"],
    )
    assert "result: 'Sunny, 24°C' → 'Hail, 9°C'" in drift.stdout, drift.stdout
    _failed(drift, ["test_stdio", "test_http"])
    assert "2 failed, 1 passed" in _summary(drift), drift.stdout


def drift_schema(project: Project) -> None:
    """The server's tool gains a parameter (a live run, servers up): every test fails with
    the changed ``tools/list`` schema named."""
    drift, _ = project.run("--agentsnap-instrument", env={"WEATHER_SCHEMA_V2": "1"})
    assert_drift_reported(
        drift,
        test="test_stdio",
        expected=[
            "[MCP] FAIL",
            "tool weather.get_forecast changed",
            "inputSchema.properties.units: <absent> →",
        ],
    )
    _failed(drift, list(TESTS))
    assert "3 failed" in _summary(drift), drift.stdout


def never_silent_without_cause(project: McpProject) -> None:
    """No run warned about traffic agentsnap did not capture: every MCP message went through
    ``ClientSession``, so a "was not captured" warning would be a false alarm."""
    # main 96aca9f warned so for every streamable-HTTP POST of the SDK's own transport (mcp
    # 1.30 + httpx and mcp 2.3 + httpx2); fixed by aeecbb4
    noisy = [out for out in project.outputs if "was not captured" in out]
    assert not noisy, noisy[0]


def prove(
    tmp_path: Path, agent_source: str, trajectories: dict[str, list[tuple[str, int]]]
) -> tuple[Project, dict[str, Any]]:
    """The whole proof for one client; ``trajectories``: each test's :func:`mcp_trajectory`
    (how the client uses its sessions). Returns the project and the record run's outputs."""
    project = mcp_project(tmp_path, agent_source)
    live, _ = record_and_replay_offline(project)
    snaps = assert_mcp_goldens(project)
    assert {test: mcp_trajectory(snaps[test]) for test in TESTS} == trajectories
    assert_no_secret(project)
    rerecord_is_identical(project)
    drift_prompt(project)
    drift_argument(project)
    drift_result(project)
    drift_schema(project)
    # the drift runs left the goldens as they were: the unchanged agent still replays green
    rep, again = project.run("--agentsnap-replay", offline=True)
    assert rep.returncode == 0 and "3 passed" in _summary(rep), rep.stdout + rep.stderr
    assert again == live
    never_silent_without_cause(project)
    return project, live
