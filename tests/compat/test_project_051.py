"""A project recorded with agentsnap 0.5.1 runs on agentsnap from this repo with no edits.

``project_051/`` is that project: its tests use 0.5.1's documented API
(``snapshot.assert_agent``, ``AgentAsserter``, ``OpenAIAdapter`` /
``AnthropicAdapter`` / ``ToolAdapter``, ``a.input``), its goldens were written by
agentsnap 0.5.1 from PyPI (``record_051.py``) into ``tests/__agent_snapshots__/``
next to ``tests/conftest.py``, under 0.5.1's names: ``weather_plain.json``,
``lookup__e736667c.json`` (named by the input's hash), ``raw_weather.json``
(a raw client under ``--agentsnap-instrument``: no tool_call steps).

Each test copies the project to a temporary folder and runs pytest on it in a
subprocess with this repo's ``src`` first on the path — the files are never
edited, and the goldens must come out byte-identical.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"
PROJECT = HERE / "project_051"
GOLDENS = (
    "direct_agent.json",
    "lookup__e736667c.json",
    "raw_weather.json",
    "sky_claude_stream.json",
    "sky_stream.json",
    "weather_claude.json",
    "weather_plain.json",
)

sys.path.insert(0, str(HERE))
import fakes_051


def _offline_prefix() -> list[str]:
    """``unshare -n`` (no network at all) when this process may use it, else nothing."""
    unshare = shutil.which("unshare")
    if (
        unshare
        and hasattr(os, "geteuid")
        and os.geteuid() == 0
        and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0
    ):
        return [unshare, "-n"]
    return []


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns("__pycache__", ".last_run"))
    return root


def _run(
    root: Path, *args: str, env: dict[str, str] | None = None, offline: bool = False
) -> subprocess.CompletedProcess[str]:
    child = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CI", "PYTEST_ADDOPTS", "AGENTSNAP_MODE", "AGENTSNAP_RECORD")
    }
    child.update(env or {})
    child["PYTHONPATH"] = str(SRC)
    # a 0.5.1 project has no syrupy; this venv does (a dev dependency), and with syrupy
    # active `snapshot` is syrupy's (snapshot_fixture = "auto")
    child["PYTEST_ADDOPTS"] = "-p no:syrupy"
    cmd = [
        *(_offline_prefix() if offline else []),
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        *args,
    ]
    return subprocess.run(cmd, cwd=root, env=child, capture_output=True, text=True, timeout=600)


def _goldens(root: Path) -> dict[str, bytes]:
    folder = root / "tests" / "__agent_snapshots__"
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}


def test_the_fixture_data_is_what_agentsnap_051_wrote() -> None:
    files = _goldens(PROJECT)
    assert sorted(files) == sorted(GOLDENS)
    import json

    for name, raw in files.items():
        data = json.loads(raw)
        assert data["version"] == "1.1" and "name" not in data, (
            name
        )  # 0.5.1's format: no stored name
        assert all("exchange" not in s for s in data["trace"]), name
    plain = json.loads(files["weather_plain.json"])
    assert [s["type"] for s in plain["trace"]] == ["llm_call", "tool_call", "llm_call"]
    assert plain["trace"][0]["raw_response"]["object"] == "chat.completion"
    raw = json.loads(files["raw_weather.json"])
    assert [s["type"] for s in raw["trace"]] == ["llm_call", "llm_call"]  # 0.5.1 saw no tool call
    stream = json.loads(files["sky_claude_stream.json"])
    assert stream["trace"][0]["raw_response"]["__stream__"] is True


def test_replay_passes_offline_with_no_edits(project: Path) -> None:
    before = _goldens(project)
    result = _run(project, "--agentsnap-replay", offline=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "7 passed" in result.stdout
    assert (
        "agentsnap: 6 passed" in result.stdout
    )  # the fixture's six blocks were compared, none written as new
    assert _goldens(project) == before  # same files, same bytes: nothing renamed or rewritten
    last = sorted(
        p.name for p in (project / "tests" / "__agent_snapshots__" / ".last_run").glob("*.json")
    )
    assert last == sorted(
        GOLDENS
    )  # each run's trace sits next to its golden, under the golden's name
    assert not (project / "__agent_snapshots__").exists()  # nothing written at the rootdir


def test_live_comparison_passes_with_no_edits(project: Path) -> None:
    before = _goldens(project)
    with fakes_051.running() as urls:
        result = _run(project, env=urls)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "7 passed" in result.stdout and "agentsnap: 6 passed" in result.stdout
    assert _goldens(project) == before
    assert not (project / "__agent_snapshots__").exists()


def test_live_comparison_still_catches_drift(project: Path) -> None:
    # the agent now asks about another city: the 0.5.1 golden is really compared (the meaning
    # check also flags the intermediate answer that names the other city)
    tests = project / "tests" / "test_weather.py"
    tests.write_text(
        tests.read_text(encoding="utf-8").replace('weather, "Paris")', 'weather, "Lyon")'),
        encoding="utf-8",
    )
    with fakes_051.running() as urls:
        result = _run(project, "tests/test_weather.py::test_weather_plain", env=urls)
    assert result.returncode == 1, result.stdout[-4000:]
    assert (
        "[agentsnap] 'weather_plain' FAILED — failed checks: arguments, model_tool_args, semantic:llm_call[1], semantic:output"
        in result.stdout
    )
    assert "args.city: 'Paris' → 'Lyon'" in result.stdout
    assert (
        f"Golden: {project / 'tests' / '__agent_snapshots__' / 'weather_plain.json'}"
        in result.stdout
    )


def test_replay_of_a_golden_without_raw_responses_names_the_step_and_the_fix(project: Path) -> None:
    import json

    path = project / "tests" / "__agent_snapshots__" / "weather_plain.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["trace"][2]["raw_response"]  # as a 0.5.1 "1.0" file (text only) would be
    path.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    result = _run(
        project, "--agentsnap-replay", "tests/test_weather.py::test_weather_plain", offline=True
    )
    assert result.returncode == 1
    assert (
        f"agentsnap replay: LLM call index 1 (POST /v1/chat/completions) is trace step 2 of snapshot 'weather_plain' "
        f"({path}), written by agentsnap 0.5.1; that step has no raw_response"
    ) in result.stdout
    assert (
        "re-record it with agentsnap from this repo: `pytest --agentsnap-record`" in result.stdout
    )


def test_the_conftest_folder_wins_over_a_rootdir_folder_unless_snapshot_dir_is_configured(
    project: Path,
) -> None:
    # a rootdir __agent_snapshots__/ with another weather_plain golden (it answers about Lyon)
    other = project / "__agent_snapshots__"
    other.mkdir()
    text = (project / "tests" / "__agent_snapshots__" / "weather_plain.json").read_text(
        encoding="utf-8"
    )
    (other / "weather_plain.json").write_text(text.replace("Paris", "Lyon"), encoding="utf-8")
    node = "tests/test_weather.py::test_weather_plain"
    result = _run(project, "--agentsnap-replay", node, offline=True)
    assert result.returncode == 0, result.stdout[-3000:]  # tests/__agent_snapshots__/ was used
    (project / "pyproject.toml").write_text(
        (project / "pyproject.toml").read_text(encoding="utf-8")
        + '\n[tool.agentsnap]\nsnapshot_dir = "__agent_snapshots__"\n',
        encoding="utf-8",
    )
    result = _run(project, "--agentsnap-replay", node, offline=True)
    assert result.returncode == 1  # the configured folder wins: its golden asks about Lyon
    assert f"Golden: {other / 'weather_plain.json'}" in result.stdout
