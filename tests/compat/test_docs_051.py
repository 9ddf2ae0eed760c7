"""Every code block of agentsnap 0.5.1's README and configuration reference, run as written.

The blocks are copied below character for character; when the reference docs
are present (``/work/shared/seeds/``) each one is checked to occur verbatim in
its document. Python blocks are executed with ``exec`` as they stand; the names
they take for granted (``my_agent``, ``client``, ``search_tool``,
``wrapped_client``, ``run_agent``) are the user's own code, supplied by
``docs_harness.py`` against the loopback fakes. TOML blocks are written to a
``pyproject.toml`` and read by agentsnap; shell blocks are run (``pytest …``,
``agentsnap …``, ``git add``, ``export``). Not run: ``pip install`` lines (no
package index here), the GitHub Actions YAML (its ``pytest tests/ -v`` step is
run), and the snapshot-format JSON, whose ``[...]`` placeholders are not JSON
(a file of that shape is loaded instead).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"
SEEDS = Path("/work/shared/seeds")
sys.path.insert(0, str(HERE))
import fakes_051

README = "agentsnap-readme.txt"
CONFIG = "agentsnap-configuration.txt"

# ------------------------------------------------------------------ the blocks, verbatim

QUICKSTART_RECORD = """from agentsnap import AgentRecorder
from agentsnap.adapters.anthropic import AnthropicAdapter
from agentsnap.adapters.tool import ToolAdapter
import anthropic

def search(query: str) -> str:
    return f"Results for: {query}"

client = AnthropicAdapter(anthropic.Anthropic())
search_tool = ToolAdapter(search, name="search")

with AgentRecorder("my_agent") as rec:
    result = my_agent(client, search_tool, input="What is Python?")
    rec.output = result
# Writes __agent_snapshots__/my_agent.json"""

QUICKSTART_ASSERT = """from agentsnap import AgentAsserter

with AgentAsserter("my_agent") as a:
    result = my_agent(client, search_tool, input="What is Python?")
    a.output = result
# Raises AgentRegressionError if behavior drifted"""

QUICKSTART_FIXTURE = """def test_my_agent(snapshot):
    with snapshot.assert_agent("my_agent") as a:
        result = my_agent(client, search_tool, input="What is Python?")
        a.output = result"""

RECORDER_REF = """with AgentRecorder("name", model="claude-haiku-4-5") as rec:
    rec.input_data = {"query": "hello"}   # optional metadata
    result = my_agent(wrapped_client, ...)
    rec.output = result"""

ASSERTER_REF = """with AgentAsserter("name", semantic_threshold=0.95, ignored_fields=["timestamp"]) as a:
    result = my_agent(wrapped_client, ...)
    a.output = result"""

JUDGE_REF = """from agentsnap import LLMJudge

# Explicit construction
judge = LLMJudge(api_key="sk-or-...", model="openai/gpt-4o-mini")

# From environment / pyproject.toml
judge = LLMJudge.from_env()  # returns None if AGENTSNAP_JUDGE_API_KEY is not set

with AgentAsserter("name", judge=judge) as a:
    ..."""

FIXTURE_REF = """def test_agent(snapshot):
    # Record
    with snapshot.record_agent("name") as rec:
        rec.output = run_agent(...)

    # Assert — judge enabled automatically if API key is set
    with snapshot.assert_agent("name") as a:
        a.output = run_agent(...)

    # Override per-test
    with snapshot.assert_agent("name", judge=False) as a:      # force embeddings
        a.output = run_agent(...)

    with snapshot.assert_agent("name", semantic_threshold=0.98) as a:  # tighter
        a.output = run_agent(...)"""

THRESHOLDS = """# Critical factual agent — hold output tightly
with AgentAsserter("rag_agent", semantic_threshold=0.97) as a: ...

# Creative agent — allow more paraphrasing
with AgentAsserter("writer_agent", semantic_threshold=0.75) as a: ..."""

TOML_JUDGE_OPENAI = '''[tool.agentsnap]
judge_base_url = "https://api.openai.com/v1"
judge_model    = "gpt-4o-mini"'''

TOML_PROJECT = """[tool.agentsnap]
judge_model        = "openai/gpt-4o-mini"
judge_base_url     = "https://openrouter.ai/api/v1"
semantic_threshold = 0.92   # final agent output (strict)
llm_threshold      = 0.75   # intermediate LLM responses (tolerant)"""

TOML_PROJECT_MODE = (
    TOML_PROJECT
    + '''
mode               = "live"   # "live" (default) or "replay"'''
)

TOML_INI = '''[tool.pytest.ini_options]
agentsnap_judge_model        = "openai/gpt-4o-mini"
agentsnap_judge_base_url     = "https://openrouter.ai/api/v1"
agentsnap_semantic_threshold = "0.92"
agentsnap_llm_threshold      = "0.75"'''

TOML_GLOBAL = """[tool.agentsnap]
semantic_threshold = 0.95
llm_threshold      = 0.80"""

EXPORT = "export OPENAI_API_KEY=sk-..."

FLAGS = """pytest --agentsnap-record        # re-record everything
pytest --agentsnap-instrument    # capture raw clients without adapters
pytest --agentsnap-replay        # force replay mode
pytest --agentsnap-live          # force live mode"""

CLI = """agentsnap list                        # list all snapshots
agentsnap diff __agent_snapshots__/my_agent.json   # pretty-print a snapshot
agentsnap update my_agent            # approve last run as new golden
agentsnap record <test_file>         # run file in record mode
agentsnap run <test_file>            # run file in assert mode"""

APPROVAL = '''# 1. Run tests — they fail, new trace saved to .last_run/
pytest tests/test_my_agent.py

# 2. Inspect what changed
agentsnap diff __agent_snapshots__/my_agent.json

# 3. Approve — promote last run to golden
agentsnap update my_agent

# 4. Commit the new baseline
git add __agent_snapshots__/my_agent.json
git commit -m "approve: updated golden after Sonnet upgrade"'''

BLOCKS = {
    README: [
        QUICKSTART_RECORD,
        QUICKSTART_ASSERT,
        QUICKSTART_FIXTURE,
        RECORDER_REF,
        ASSERTER_REF,
        JUDGE_REF,
        FIXTURE_REF,
        THRESHOLDS,
        TOML_JUDGE_OPENAI,
        TOML_PROJECT,
        TOML_INI,
        EXPORT,
        CLI,
        APPROVAL,
    ],
    CONFIG: [
        TOML_PROJECT_MODE,
        TOML_INI,
        FLAGS,
        THRESHOLDS,
        TOML_GLOBAL,
        TOML_JUDGE_OPENAI,
        EXPORT,
    ],
}


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the reference docs are not on this machine")
@pytest.mark.parametrize("doc", sorted(BLOCKS))
def test_every_block_is_verbatim_in_its_document(doc: str) -> None:
    text = (SEEDS / doc).read_text(encoding="utf-8")
    for block in BLOCKS[doc]:
        assert block in text, block[:80]


# ------------------------------------------------------------------ running them


def _anthropic_reply(body: dict[str, Any]) -> Any:
    return fakes_051.fa.text_reply("Python is a programming language.", model="claude-haiku-4-5")


def _openai_reply(body: dict[str, Any]) -> Any:
    return fakes_051.fp.text_reply("Python is a programming language.")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A user's project folder (cwd) with the fakes running and the harness importable."""
    root = tmp_path / "proj"
    root.mkdir()
    shutil.copy(HERE / "docs_harness.py", root / "docs_harness.py")
    for var in (
        "CI",
        "AGENTSNAP_JUDGE_API_KEY",
        "OPENROUTER_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "AGENTSNAP_MODE",
        "AGENTSNAP_RECORD",
        "DOCS_AGENT_VARIANT",
    ):
        monkeypatch.delenv(var, raising=False)
    # the reader's project has no syrupy; this venv does (a dev dependency), and with
    # syrupy active `snapshot` is syrupy's (snapshot_fixture = "auto")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:syrupy")
    with fakes_051.fp.FakeOpenAI() as oai, fakes_051.fa.FakeAnthropic() as ant:
        oai.respond_with(_openai_reply)
        ant.respond_with(_anthropic_reply)
        monkeypatch.setenv("OPENAI_BASE_URL", oai.base_url)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", ant.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.chdir(root)
        monkeypatch.syspath_prepend(str(root))
        sys.modules.pop("docs_harness", None)
        yield root
    sys.modules.pop("docs_harness", None)


def _namespace() -> dict[str, Any]:
    import docs_harness

    from agentsnap import AgentAsserter, AgentRecorder

    return {
        "my_agent": docs_harness.my_agent,
        "client": docs_harness.client,
        "search_tool": docs_harness.search_tool,
        "wrapped_client": docs_harness.wrapped_client,
        "run_agent": docs_harness.run_agent,
        "AgentRecorder": AgentRecorder,
        "AgentAsserter": AgentAsserter,
    }


def _exec(block: str, ns: dict[str, Any]) -> dict[str, Any]:
    exec(compile(block, "<docs block>", "exec"), ns)
    return ns


def _record_empty(name: str) -> None:
    from agentsnap import AgentRecorder

    with AgentRecorder(name):
        pass


def _sh(
    root: Path, line: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """One documented shell line, run with this repo's agentsnap first on the path."""
    child = {**os.environ, **(env or {}), "PYTHONPATH": os.pathsep.join([str(SRC), str(root)])}
    bindir = str(Path(sys.executable).parent)
    child["PATH"] = bindir + os.pathsep + child.get("PATH", "")
    return subprocess.run(
        line, shell=True, cwd=root, env=child, capture_output=True, text=True, timeout=600
    )


def _commands(block: str) -> list[str]:
    return [
        line.split("  #")[0].strip()
        for line in block.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def test_quickstart_record_then_assert(project: Path) -> None:
    ns = _exec(QUICKSTART_RECORD, _namespace())
    golden = project / "__agent_snapshots__" / "my_agent.json"
    assert golden.is_file()  # the comment's promise: __agent_snapshots__/my_agent.json
    data = json.loads(golden.read_text(encoding="utf-8"))
    assert data["output"] == "Python is a programming language."
    assert [s["type"] for s in data["trace"]] == ["tool_call", "llm_call"]
    assert data["trace"][0]["args"] == {"query": "Python"}
    _exec(QUICKSTART_ASSERT, ns)  # the same agent: passes


def test_quickstart_assert_raises_on_drift(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentsnap import AgentRegressionError

    ns = _exec(QUICKSTART_RECORD, _namespace())
    monkeypatch.setenv("DOCS_AGENT_VARIANT", "changed")
    with pytest.raises(AgentRegressionError) as info:
        _exec(QUICKSTART_ASSERT, ns)
    assert "semantic:output" in info.value.diff_report.failed_checks


def test_api_reference_recorder_and_asserter(project: Path) -> None:
    ns = _exec(RECORDER_REF, _namespace())
    assert ns["rec"].input_data == {"query": "hello"}
    data = json.loads((project / "__agent_snapshots__" / "name.json").read_text(encoding="utf-8"))
    assert (data["model"], data["input"]) == ("claude-haiku-4-5", {"query": "hello"})
    _exec(ASSERTER_REF, ns)


def test_api_reference_judge(project: Path) -> None:
    _record_empty("name")  # the block's body is `...`: a golden of an agent that does nothing
    from agentsnap import LLMJudge

    ns = _exec(JUDGE_REF, _namespace())
    assert ns["judge"] is None  # no judge key in the environment
    explicit = _exec(JUDGE_REF.split("\n\n# From environment")[0], {})["judge"]
    assert isinstance(explicit, LLMJudge) and explicit.model == "openai/gpt-4o-mini"


def test_thresholds_blocks(project: Path) -> None:
    _record_empty("rag_agent")
    _record_empty("writer_agent")
    ns = _exec(THRESHOLDS, _namespace())
    assert ns["a"].test_name == "writer_agent"


def _pytest_project(root: Path, test_body: str, name: str = "test_my_agent.py") -> Path:
    tests = root / "tests"
    tests.mkdir(exist_ok=True)
    (tests / name).write_text(
        "from docs_harness import client, my_agent, run_agent, search_tool\n\n\n"
        + test_body
        + "\n",
        encoding="utf-8",
    )
    return tests / name


def test_fixture_blocks_run_under_pytest(project: Path) -> None:
    _pytest_project(project, QUICKSTART_FIXTURE)
    _pytest_project(project, FIXTURE_REF, "test_fixture_ref.py")
    _exec(QUICKSTART_RECORD, _namespace())  # the quickstart's golden
    result = _sh(
        project, "pytest tests/ -v -p no:randomly -p no:cacheprovider"
    )  # the CI workflow's step
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "2 passed" in result.stdout


def test_approval_flow_and_cli_blocks(project: Path) -> None:
    _pytest_project(project, QUICKSTART_FIXTURE)
    _exec(QUICKSTART_RECORD, _namespace())
    golden = project / "__agent_snapshots__" / "my_agent.json"
    before = json.loads(golden.read_text(encoding="utf-8"))
    assert (
        _sh(
            project,
            "git init -q && git add -A && git -c user.email=a@b -c user.name=a commit -qm init",
        ).returncode
        == 0
    )
    changed = {"DOCS_AGENT_VARIANT": "changed"}
    steps = _commands(APPROVAL)
    assert steps[0] == "pytest tests/test_my_agent.py"
    run = _sh(project, steps[0] + " -p no:randomly -p no:cacheprovider", changed)
    assert run.returncode == 1 and "[agentsnap] 'my_agent' FAILED" in run.stdout  # 1. they fail
    assert (
        project / "__agent_snapshots__" / ".last_run" / "my_agent.json"
    ).is_file()  # … new trace in .last_run/
    shown = _sh(project, steps[1])  # 2. agentsnap diff __agent_snapshots__/my_agent.json
    assert shown.returncode in (0, 1) and "my_agent" in shown.stdout, shown.stderr
    approve = _sh(project, steps[2])  # 3. agentsnap update my_agent
    assert approve.returncode == 0, approve.stdout + approve.stderr
    after = json.loads(golden.read_text(encoding="utf-8"))
    assert (
        before["output"] == "Python is a programming language."
        and after["output"] == "Bananas grow in warm, humid places."
    )
    assert sorted(p.name for p in golden.parent.glob("*.json")) == ["my_agent.json"]
    commit = _sh(
        project,
        steps[3] + " && git -c user.email=a@b -c user.name=a " + steps[4].removeprefix("git "),
    )  # 4.
    assert commit.returncode == 0, commit.stderr
    assert (
        _sh(project, steps[0] + " -p no:randomly -p no:cacheprovider", changed).returncode == 0
    )  # the new baseline holds

    for line in _commands(CLI):
        line = line.replace("<test_file>", "tests/test_my_agent.py")
        result = _sh(project, line, changed)
        assert result.returncode == 0, (line, result.stdout[-2000:], result.stderr[-2000:])


def test_pytest_flag_blocks(project: Path) -> None:
    _pytest_project(project, QUICKSTART_FIXTURE)
    for line in _commands(FLAGS):
        result = _sh(project, line + " -p no:randomly -p no:cacheprovider")
        assert result.returncode == 0, (line, result.stdout[-2000:], result.stderr[-2000:])
    assert (project / "__agent_snapshots__" / "my_agent.json").is_file()


@pytest.mark.parametrize("block", [TOML_PROJECT, TOML_PROJECT_MODE, TOML_GLOBAL, TOML_JUDGE_OPENAI])
def test_toml_blocks_are_read(project: Path, block: str) -> None:
    import tomllib

    from agentsnap import config

    (project / "pyproject.toml").write_text(block + "\n", encoding="utf-8")
    expected = tomllib.loads(block)["tool"]["agentsnap"]
    settings = config.load(project)
    assert {key: getattr(settings, key) for key in expected} == expected


def test_ini_block_is_read_by_the_plugin(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        TOML_INI.replace('"0.75"', '"0.70"') + "\n", encoding="utf-8"
    )
    _pytest_project(
        project,
        "def test_settings(snapshot):\n"
        "    s = snapshot._session.settings\n"
        "    assert (s.judge_model, s.judge_base_url, s.semantic_threshold, s.llm_threshold) == "
        "('openai/gpt-4o-mini', 'https://openrouter.ai/api/v1', 0.92, 0.70)",
    )
    result = _sh(project, "pytest -q -p no:randomly -p no:cacheprovider")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (project / "pyproject.toml").write_text(TOML_INI + "\n", encoding="utf-8")  # and as written
    assert (
        _sh(project, "pytest -q -p no:randomly -p no:cacheprovider").returncode == 1
    )  # 0.75 != 0.70 in the check above


def test_export_line_gives_the_judge_its_key(project: Path) -> None:
    (project / "pyproject.toml").write_text(TOML_JUDGE_OPENAI + "\n", encoding="utf-8")
    result = _sh(
        project,
        f'{EXPORT} && python -c "from agentsnap import LLMJudge; j = LLMJudge.from_env(); '
        'print(j.model, j.base_url)"',
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["gpt-4o-mini", "https://api.openai.com/v1"]


def test_a_file_in_the_documented_snapshot_format_loads(project: Path) -> None:
    from agentsnap import SnapshotStore

    folder = project / "__agent_snapshots__"
    folder.mkdir()
    (folder / "documented.json").write_text(
        json.dumps(
            {
                "version": "1.0",
                "recorded_at": "2026-01-01T00:00:00+00:00",
                "model": "claude-haiku-4-5",
                "input": {"query": "What is Python?"},
                "trace": [
                    {
                        "step": 0,
                        "type": "llm_call",
                        "messages": [{"role": "user", "content": "What is Python?"}],
                        "response": "...",
                        "tokens": 350,
                    },
                    {
                        "step": 1,
                        "type": "tool_call",
                        "name": "search",
                        "args": {"query": "Python"},
                        "result": "...",
                    },
                ],
                "output": "Python is a high-level programming language...",
            }
        ),
        encoding="utf-8",
    )
    snap = SnapshotStore(folder).load("documented")
    assert (
        snap is not None
        and snap.approved
        and [s["type"] for s in snap.trace] == ["llm_call", "tool_call"]
    )
