"""The fast path (a replayed run answered from its golden's steps, ``_pytest/golden_run.py``)
with a user's ``redact`` paths in force: each test replays the same golden twice, once as
recorded (its ``trace_digest`` kept: the fast path is taken) and once with the digest removed
(the normal path), and holds the two equal (verdict, ``.last_run``, messages). Found by a
reviewer: the fast path once took a streamed JSON answer's output from the golden's step as the
text rules alone had scrubbed it, and failed where the normal path passed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentsnap import SnapshotStore
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.test_plugin_modes import (  # noqa: F401 - _warm_imports: the autouse fixture
    NODE,
    SNAP_DIR,
    Project,
    _warm_imports,
    summary,
)

pytest.importorskip("openai")

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")


@pytest.fixture(autouse=True)
def _fresh(fresh_scrub: None) -> None:
    return None


@pytest.fixture
def project(pytester: pytest.Pytester) -> Project:
    return Project(pytester)


def _edit(project: Project, change: Any, name: str = NODE) -> None:
    path = project.snapshot_path(name)
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")


def _drop_digest(data: dict[str, Any]) -> None:
    data.pop("trace_digest", None)


def _last_run(project: Project, name: str = NODE) -> dict[str, Any]:
    store = SnapshotStore(project.root / SNAP_DIR)
    found: dict[str, Any] = json.loads(store.last_run_path(name).read_bytes())
    for key in ("created_at", "updated_at", "recorded_at"):
        found.pop(key, None)
    return found


def _failures(result: pytest.RunResult) -> list[str]:
    lines = result.outlines
    start = next((i for i, line in enumerate(lines) if " FAILURES " in line), len(lines))
    end = next((i for i, line in enumerate(lines) if "short test summary" in line), len(lines))
    return [ln for ln in lines[start:end] if not ln.startswith("___")]


def _fast_then_full(project: Project, *args: str, name: str = NODE) -> tuple[Any, Any]:
    """Replay with the digest (fast path possible), then without (normal path)."""
    fast = project.run("--agentsnap-replay", *args)
    fast_last = _last_run(project, name)
    _edit(project, _drop_digest, name)
    full = project.run("--agentsnap-replay", *args)
    full_last = _last_run(project, name)
    return (fast, fast_last), (full, full_last)


# --------------------------------------------------------------------------- 1. redact paths


STREAMED_JSON = """
from agent_lib import client_for
from fake_provider import stream_text_reply


def test_weather(fake):
    fake.script(stream_text_reply(['{"account": "ACC-', '998877", "answer": "sunny"}']))
    stream = client_for(fake).chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "weather as JSON"}], stream=True
    )
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
"""

REDACT_ACCOUNT = '[tool.agentsnap]\nredact = { paths = ["account"] }\n'


def test_redact_paths_on_a_streamed_json_output(project: Project) -> None:
    """A ``redact`` path scrubs the golden's ``output`` (scrub_json) but not the llm_call step's
    ``response`` view (scrub_value: text rules only) of a streamed answer. The normal path
    builds the run's output and scrubs it as the golden's was; the fast path takes the
    output from the golden's step unscrubbed: a different output than the golden's."""
    (project.root / "pyproject.toml").write_text(REDACT_ACCOUNT, encoding="utf-8")
    project.pytester.makepyfile(test_agent=STREAMED_JSON)
    project.record_golden()
    golden = project.snapshot()
    assert "998877" not in json.dumps(golden["output"])  # the user's rule held in the golden
    (fast, fast_last), (full, full_last) = _fast_then_full(project)
    assert summary(full) == ["agentsnap: 1 passed"], full.stdout.str()
    assert "998877" not in json.dumps(full_last["output"])
    # the fast path: same verdict, same .last_run, the user's redact rule kept
    assert "998877" not in json.dumps(fast_last["output"]), fast_last["output"]
    assert summary(fast) == summary(full), fast.stdout.str()
    assert fast_last == full_last


def test_the_remedies_the_failure_names_do_not_clear_the_redact_paths_failure(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a user would have lived the old fault: the failure says `agentsnap update` (promotes .last_run)
    or re-record. `update` reports "output changed: yes" but the golden it saves is the same
    content (its output is scrubbed again), so the file, its digest included, is left as it
    was; a re-record is unchanged too. Replay keeps failing, whatever the user does."""
    from typer.testing import CliRunner

    from agentsnap.cli import app

    (project.root / "pyproject.toml").write_text(REDACT_ACCOUNT, encoding="utf-8")
    project.pytester.makepyfile(test_agent=STREAMED_JSON)
    project.record_golden()
    first = project.run("--agentsnap-replay")
    monkeypatch.chdir(project.root)
    updated = CliRunner().invoke(app, ["update", NODE])
    assert updated.exit_code == 0, updated.output
    assert "998877" not in json.dumps(project.snapshot()["output"])
    after_update = project.run("--agentsnap-replay")
    project.record_golden()
    after_record = project.run("--agentsnap-replay")
    assert summary(after_update) == ["agentsnap: 1 passed"], after_update.stdout.str()
    assert summary(after_record) == ["agentsnap: 1 passed"], after_record.stdout.str()
    assert summary(first) == ["agentsnap: 1 passed"], first.stdout.str()
