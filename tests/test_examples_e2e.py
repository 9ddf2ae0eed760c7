"""End to end, as a user runs it: the example agents replayed offline from the
committed goldens, in a subprocess — with no network at all where `unshare -n`
is available — and what happens when the agent's code or the goldens change."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from agentsnap.storage.volatile import same_content
from tests._support.ci import CI_MARKERS as CI_VARS

REPO = Path(__file__).resolve().parents[1]


def _can_unshare() -> bool:
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


NO_NET = ["unshare", "-n"] if _can_unshare() else []


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in CI_VARS and not k.startswith(("OPENAI_", "AGENTSNAP_", "PYTEST_"))
    }
    env.update(extra)
    return env


def _project(tmp_path: Path) -> Path:
    """A copy of the examples, their goldens and the fake provider, as a user's project."""
    root = tmp_path / "proj"
    shutil.copytree(REPO / "examples", root / "examples")
    shutil.copytree(
        REPO / "snapshots", root / "snapshots", ignore=shutil.ignore_patterns(".last_run")
    )
    (root / "tests").mkdir()
    (root / "tests" / "__init__.py").write_text("", encoding="utf-8")
    shutil.copy(REPO / "tests" / "fake_provider.py", root / "tests" / "fake_provider.py")
    (root / "pyproject.toml").write_text(
        '[tool.agentsnap]\nsnapshot_dir = "snapshots"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n',
        encoding="utf-8",
    )
    return root


def _pytest(
    root: Path, *args: str, env: dict[str, str], offline: bool = True
) -> subprocess.CompletedProcess[str]:
    cmd = [
        *(NO_NET if offline else []),
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        *args,
    ]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_examples_replay_offline_from_committed_goldens(tmp_path: Path) -> None:
    root = _project(tmp_path)
    before = {p.name: p.read_bytes() for p in (root / "snapshots").glob("*.json")}
    res = _pytest(root, "examples", "--agentsnap-replay", "-q", env=_env(CI="true"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "agentsnap: 12 passed" in res.stdout
    assert "12 passed" in res.stdout.splitlines()[-1]
    assert {p.name: p.read_bytes() for p in (root / "snapshots").glob("*.json")} == before


def test_reordered_tool_execution_fails_replay_with_a_readable_diff(tmp_path: Path) -> None:
    root = _project(tmp_path)
    agent = root / "examples" / "weather_agent.py"
    src = agent.read_text(encoding="utf-8")
    assert "    for call in tool_calls:\n" in src
    agent.write_text(
        src.replace("    for call in tool_calls:\n", "    for call in reversed(tool_calls):\n"),
        encoding="utf-8",
    )
    res = _pytest(
        root, "examples", "--agentsnap-replay", "-q", "-k", "test_sync_agent_paris", env=_env()
    )
    assert res.returncode == 1
    out = res.stdout
    # the two calls are one model turn: in another order they still match (trajectory "turns");
    # the requests that carry their results in the other order do not
    assert "failed checks: llm_requests" in out
    assert (
        "[STRUCTURAL] ok — structural: 2 tool calls, same sequence; "
        "2 reordered within their turn (mode turns)"
    ) in out
    assert "messages[3].content: 'Light rain, 18°C' → '09:30 (Europe/Paris)'" in out
    # replay served old responses to the changed requests: the advice is to re-record live, not `agentsnap update`
    assert (
        "re-record it live: `pytest examples/test_weather_agent.py::test_sync_agent_paris --agentsnap-record`"
        in out
    )
    assert (
        "agentsnap update examples/test_weather_agent.py::test_sync_agent_paris` (promotes"
        not in out
    )


def _replay_with_changed_weather(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """The examples copied to ``tmp_path``, get_weather's data changed, test_sync_agent_paris replayed."""
    root = _project(tmp_path)
    agent = root / "examples" / "weather_agent.py"
    src = agent.read_text(encoding="utf-8")
    assert "Light rain, 18°C" in src
    agent.write_text(src.replace("Light rain, 18°C", "Heavy rain, 12°C"), encoding="utf-8")
    return _pytest(
        root, "examples", "--agentsnap-replay", "-q", "-k", "test_sync_agent_paris", env=_env()
    )


def test_changed_tool_result_fails_replay_naming_the_argument_path(tmp_path: Path) -> None:
    res = _replay_with_changed_weather(tmp_path)
    assert res.returncode == 1
    assert "messages[3].content: 'Light rain, 18°C' → 'Heavy rain, 12°C'" in res.stdout


def _readme_drift_example() -> list[str]:
    """The report lines of README's "When the agent drifts" example (without the closing ``...``)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("3. **When the agent drifts**")
    block = text[text.index("   ```\n", start) + len("   ```\n") :]
    block = block[: block.index("   ```")]
    lines = [line.removeprefix("   ") for line in block.splitlines()]
    assert lines and lines[-1] == "..."
    return lines[:-1]


def test_the_readme_drift_example_is_what_the_report_prints(tmp_path: Path) -> None:
    """README's example: the weather agent's get_weather data changed, replayed; its lines are
    the real report's, in order, with nothing between them."""
    res = _replay_with_changed_weather(tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    example = _readme_drift_example()
    printed = res.stdout.splitlines()
    first = printed.index(example[0])
    assert printed[first : first + len(example)] == example


def test_ci_with_a_deleted_golden_fails_that_test_writes_nothing_opens_no_socket(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
    deleted = next((root / "snapshots").glob("*test_weather_agent.py__test_sync_agent_paris*.json"))
    deleted.unlink()
    before = sorted(p.name for p in (root / "snapshots").rglob("*"))
    res = _pytest(
        root,
        "examples",
        "--agentsnap-replay",
        "-q",
        env=_env(CI="true", OPENAI_BASE_URL="http://127.0.0.1:9/v1"),
    )
    assert res.returncode == 1
    assert "1 failed, 11 passed" in res.stdout.splitlines()[-1]
    assert "no snapshot for 'examples/test_weather_agent.py::test_sync_agent_paris'" in res.stdout
    assert "no request is sent and nothing is written" in res.stdout
    assert "ConnectError" not in res.stdout and "Connection refused" not in res.stdout
    after = sorted(p.name for p in (root / "snapshots").rglob("*") if ".last_run" not in p.parts)
    assert after == [n for n in before]


def test_record_then_rerecord_is_byte_stable(tmp_path: Path) -> None:
    root = _project(tmp_path)
    shutil.rmtree(root / "snapshots")
    res = _pytest(root, "examples", "--agentsnap-record", "-q", env=_env(), offline=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "agentsnap: 12 recorded (approved)" in res.stdout
    first = {p.name: p.read_bytes() for p in (root / "snapshots").glob("*.json")}
    assert len(first) == 12
    committed = {p.name: json.loads(p.read_bytes()) for p in (REPO / "snapshots").glob("*.json")}
    assert sorted(committed) == sorted(first)
    for name, raw in first.items():  # same as the committed goldens but for timestamps
        assert same_content(json.loads(raw), committed[name]), name
    res = _pytest(root, "examples", "--agentsnap-record", "-q", env=_env(), offline=False)
    assert "agentsnap: 12 re-recorded unchanged" in res.stdout
    assert {p.name: p.read_bytes() for p in (root / "snapshots").glob("*.json")} == first
