"""A user's project around one framework's agent tests, run the way users run agentsnap.

:class:`Project` writes, in a temporary directory, a pytest project whose
``conftest.py`` starts the loopback fakes of :mod:`tests.frameworks.fake_models`
(none in a replay run) and offers two fixtures to the agent tests:

* ``servers``: the fakes' base URLs (``.chat``, ``.responses``, ``.anthropic``);
* ``keep(value)``: stores what the agent returned (as JSON, under the test's
  name) so the outer test can compare a record run with its replay.

:meth:`Project.run` runs ``python -m pytest`` in a subprocess with the given
agentsnap flags; ``offline=True`` runs it under ``unshare -n`` (no network
namespace at all) where that is available. The agent test files are the
framework's documented usage, unchanged: they import no agentsnap.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests._support.ci import CI_MARKERS as CI_VARS

REPO = Path(__file__).resolve().parents[2]


def _can_unshare() -> bool:
    if not shutil.which("unshare"):
        return False
    return (
        subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False).returncode == 0
    )


NO_NET = ["unshare", "-n"] if _can_unshare() else []

CONFTEST = """
import json, os
from pathlib import Path

import pytest

from tests.frameworks import fake_models


@pytest.fixture(scope="session")
def servers(pytestconfig):
    replay = pytestconfig.getoption("agentsnap_replay", default=False)
    with fake_models.start(running=not replay) as s:
        yield s


@pytest.fixture
def keep(request):
    def keep(value):
        out = Path(os.environ["FRAMEWORK_RESULTS"])
        out.mkdir(parents=True, exist_ok=True)
        (out / (request.node.name + ".json")).write_text(json.dumps(fake_models.dump(value), ensure_ascii=False, indent=1), encoding="utf-8")
    return keep
"""


class Project:
    """One framework's agent tests as a user's project (``root``), with its own snapshots;
    ``conftest`` is appended to the project's conftest (more fixtures), ``env`` set for every run."""

    def __init__(
        self,
        root: Path,
        test_source: str,
        *,
        env: dict[str, str] | None = None,
        conftest: str = "",
    ) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        (root / "conftest.py").write_text(CONFTEST + conftest, encoding="utf-8")
        (root / "test_agent.py").write_text(test_source, encoding="utf-8")
        (root / "pyproject.toml").write_text(
            '[tool.agentsnap]\nsnapshot_dir = "snapshots"\n\n'
            f'[tool.pytest.ini_options]\npythonpath = [".", {json.dumps(str(REPO))}]\n',
            encoding="utf-8",
        )
        self.extra_env = dict(env or {})
        self.runs = 0

    def edit(self, old: str, new: str) -> None:
        """Change the agent's code: replace ``old`` (which must be there) by ``new``."""
        path = self.root / "test_agent.py"
        src = path.read_text(encoding="utf-8")
        assert old in src, f"{old!r} is not in the agent test"
        path.write_text(src.replace(old, new), encoding="utf-8")

    def run(
        self, *args: str, offline: bool = False, env: dict[str, str] | None = None
    ) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
        """``pytest *args`` in the project (``env`` added for this run only); returns the process
        and the ``keep``\\ s of each test."""
        self.runs += 1
        results = self.root / f"results-{self.runs}"
        environ = {
            k: v
            for k, v in os.environ.items()
            if k not in CI_VARS
            and not k.startswith(("OPENAI_", "ANTHROPIC_", "AGENTSNAP_", "PYTEST_"))
        }
        environ.update(self.extra_env, FRAMEWORK_RESULTS=str(results), PYTHONDONTWRITEBYTECODE="1")
        environ.update(env or {})
        cmd = [
            *(NO_NET if offline else []),
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-p",
            "no:syrupy",
            "-q",
            "-rA",
            "-W",
            "ignore::DeprecationWarning",
            *args,
        ]
        proc = subprocess.run(
            cmd,
            cwd=self.root,
            env=environ,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        kept = {
            p.stem: json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(results.glob("*.json"))
        }
        return proc, kept

    def snapshots(self) -> dict[str, dict[str, Any]]:
        """Every snapshot file of the project, by its stored name."""
        out = {}
        for path in sorted((self.root / "snapshots").glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            out[data["name"].split("::")[-1]] = data
        return out


def tool_steps(snapshot: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(name, args, result)`` of each ``tool_call`` step of a snapshot."""
    return [
        (s["name"], s.get("args"), s.get("result"))
        for s in snapshot["trace"]
        if s["type"] == "tool_call"
    ]


def llm_calls(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in snapshot["trace"] if s["type"] == "llm_call"]


def record_replay(project: Project, *, expect: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Record (fakes running), then replay offline; both runs green, ``expect`` snapshots;
    returns the record run's and the replay run's kept results."""
    rec, live = project.run("--agentsnap-record")
    out = rec.stdout + rec.stderr
    assert rec.returncode == 0, out
    assert f"agentsnap: {expect} recorded (approved)" in rec.stdout, out
    assert len(project.snapshots()) == expect, sorted(project.snapshots())
    rep, replayed = project.run("--agentsnap-replay", offline=True)
    out = rep.stdout + rep.stderr
    assert rep.returncode == 0, out
    assert f"agentsnap: {expect} passed" in rep.stdout, out
    assert f"{expect} passed" in rep.stdout.splitlines()[-1], out
    return live, replayed


def assert_drift_reported(
    proc: subprocess.CompletedProcess[str], *, test: str, expected: list[str]
) -> None:
    """The replay failed on ``test`` with agentsnap's drift report (no crash, no network error)."""
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert f"FAILED test_agent.py::{test}" in proc.stdout, out
    assert "failed checks:" in proc.stdout, out
    for text in expected:
        assert text in proc.stdout, f"{text!r} not in:\n{out}"
    for crash in (
        "ConnectError",
        "Connection refused",
        "APIConnectionError",
        "Network is unreachable",
        "ReplayMissError",
    ):
        assert crash not in out, f"{crash} in:\n{out}"


def assert_weather_goldens(
    project: Project,
    plain: str,
    streamed: str,
    *,
    tool: str = "get_weather",
    stored: Any = None,
) -> None:
    """A weather agent's two goldens (``plain`` asked about Paris, ``streamed`` about Tokyo): an
    LLM call, the tool call, an LLM call, the answer as the output; then a changed tool result
    fails ``plain``'s offline replay with the drift report. ``tool``: the name the framework
    gives the tool; ``stored``: how it sends a tool's return value back (Google ADK:
    ``lambda value: {"result": value}``), the value itself when None."""
    shape = stored or (lambda value: value)
    snap = project.snapshots()[plain]
    assert len(llm_calls(snap)) == 2
    assert tool_steps(snap) == [(tool, {"city": "Paris"}, shape("Light rain, 18°C"))]
    assert [s["type"] for s in snap["trace"]] == ["llm_call", "tool_call", "llm_call"]
    assert snap["output"] == "Paris: Light rain, 18°C"
    stream = project.snapshots()[streamed]
    assert tool_steps(stream) == [(tool, {"city": "Tokyo"}, shape("Sunny, 24°C"))]
    assert stream["output"] == "Tokyo: Sunny, 24°C"

    project.edit('"Paris": "Light rain, 18°C"', '"Paris": "Heavy rain, 12°C"')
    drift, _ = project.run("--agentsnap-replay", offline=True)
    assert_drift_reported(drift, test=plain, expected=["Light rain, 18°C", "Heavy rain, 12°C"])
