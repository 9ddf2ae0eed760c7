"""A scripted review session, end to end, with the exact CLI outputs and exit codes.

A fresh project with one openai agent test, run by a real ``pytest`` child
process against a loopback fake that — like the real API — hands out fresh
ids on every call:

1. record → the golden is written (approved);
2. re-record the unchanged agent (fresh ids) → "re-recorded unchanged", the file's bytes stay;
3. change the prompt, replay → the test fails on ``llm_requests``, advice: re-record live;
4. ``agentsnap diff`` → judged as the test was (replay: requests compared), drift shown whole, exit 1;
5. ``agentsnap update`` → refused (it would pair new requests with old responses), nothing written;
6. re-record live → the golden holds what the model really did (it asked for one more tool);
7. a new test writes a pending snapshot; ``agentsnap approve`` by its short name;
8. a corrupt snapshot: ``agentsnap rm NAME --yes`` deletes exactly that file, not its neighbour.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from agentsnap.storage.store import SnapshotStore
from tests._support.ci import AGENTSNAP_ENV, clear_ci
from tests.fake_provider import FakeOpenAI, text_reply, tool_calls_reply
from tests.test_cli_helpers import invoke
from tests.test_fresh_ids import fresh

REPO = Path(__file__).resolve().parent.parent
WEATHER = "tests/test_agent.py::test_weather"
LYON = "tests/test_agent.py::test_weather_lyon"
PROMPT = "You are a weather assistant."
NEW_PROMPT = "You are a weather assistant. Always give the local time as well."

AGENT_TEST = """
import os
import openai

TOOLS = [{"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}
         for name in ("get_weather", "get_time")]


def ask(city):
    client = openai.OpenAI(base_url=os.environ["FAKE_OPENAI_URL"], api_key="sk-test", max_retries=0)
    messages = [{"role": "system", "content": os.environ["AGENT_PROMPT"]}, {"role": "user", "content": f"Weather in {city}?"}]
    while True:
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS).choices[0].message
        if not reply.tool_calls:
            return reply.content
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}} for c in reply.tool_calls]})
        for c in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": c.id, "content": "Sunny" if c.function.name == "get_weather" else "14:00"})


def test_weather():
    assert ask("Paris").startswith("Sunny")
"""

LYON_TEST = """

def test_weather_lyon():
    assert ask("Lyon").startswith("Sunny")
"""


@pytest.fixture(autouse=True)
def _local_not_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_ci(monkeypatch, also=(*AGENTSNAP_ENV, "NO_COLOR"))


def _weather_replies(*tools: str, text: str = "Sunny in Paris.") -> list:
    calls = [(f"call_{secrets.token_hex(12)}", name, {"city": "Paris"}) for name in tools]
    return [fresh(tool_calls_reply(calls)), fresh(text_reply(text))]


def test_review_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.agentsnap]\nsnapshot_dir = "snaps"\nembedding_backend = "lexical"\n',
        encoding="utf-8",
    )
    (project / "tests" / "test_agent.py").write_text(AGENT_TEST, encoding="utf-8")
    snaps = project / "snaps"
    store = SnapshotStore(snaps)
    golden = store.path_for(WEATHER)
    monkeypatch.chdir(project)

    with FakeOpenAI() as fake:
        env = {
            **os.environ,
            "FAKE_OPENAI_URL": fake.base_url,
            "AGENT_PROMPT": PROMPT,
            "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]),
        }

        def pytest_run(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "no:randomly",
                    "-p",
                    "no:cacheprovider",
                    "-W",
                    "ignore::agentsnap.AgentsnapWarning",
                    *args,
                ],
                cwd=project,
                env={**env, **extra},
                capture_output=True,
                text=True,
                timeout=300,
            )

        def summary(run: subprocess.CompletedProcess[str]) -> list[str]:
            return [line for line in run.stdout.splitlines() if line.startswith("agentsnap: ")]

        # 1. record
        fake.script(*_weather_replies("get_weather"))
        first = pytest_run("--agentsnap-record")
        assert first.returncode == 0, first.stdout + first.stderr
        assert summary(first) == ["agentsnap: 1 recorded (approved)"]
        recorded = golden.read_bytes()

        # 2. re-record, unchanged agent, fresh ids: nothing is rewritten
        fake.script(*_weather_replies("get_weather"))
        again = pytest_run("--agentsnap-record")
        assert again.returncode == 0, again.stdout + again.stderr
        assert summary(again) == ["agentsnap: 1 re-recorded unchanged"]
        assert golden.read_bytes() == recorded
        assert len(fake.requests) == 4  # really sent, twice

        # 3. the prompt changes; replay (offline) serves the old recordings and fails on the requests
        drift = pytest_run("--agentsnap-replay", AGENT_PROMPT=NEW_PROMPT)
        assert drift.returncode == 1, drift.stdout + drift.stderr
        assert summary(drift) == ["agentsnap: 1 failed"]
        assert f"[agentsnap] {WEATHER!r} FAILED — failed checks: llm_requests" in drift.stdout
        assert f"messages[0].content: {PROMPT!r} → {NEW_PROMPT!r}" in drift.stdout  # whole, not cut
        assert (
            "The requests changed, so the responses this run got are the old recordings, not what the model answers now. "
            f"If the change is intended, re-record it live: `pytest {WEATHER} --agentsnap-record`, review the diff, commit "
            "(`agentsnap update` refuses this run: it would pair the new requests with old responses)."
        ) in drift.stdout
        assert len(fake.requests) == 4  # replay sent nothing
        last = store.last_run_path(WEATHER)
        assert json.loads(last.read_text(encoding="utf-8"))["comparison"]["failed_checks"] == [
            "llm_requests"
        ]

        # 4. `agentsnap diff` judges the last run as its test did
        diff = invoke("diff", WEATHER, "--dir", str(snaps))
        assert diff.exit_code == 1, diff.output
        lines = diff.stdout.splitlines()
        assert lines[0] == f"[agentsnap] {WEATHER!r} FAILED — failed checks: llm_requests"
        assert "[REQUESTS] FAIL — llm_requests: messages differ in 2 llm calls" in lines
        requests = diff.stdout.split("[REQUESTS]", 1)[1].split("[SEMANTIC]", 1)[0]
        assert requests == (
            " FAIL — llm_requests: messages differ in 2 llm calls\n"
            "  llm_call[0] (golden step 0, new step 0):\n"
            f"    messages[0].content: {PROMPT!r} → {NEW_PROMPT!r}\n"
            "  llm_call[1] (golden step 2, new step 2):\n"
            f"    messages[0].content: {PROMPT!r} → {NEW_PROMPT!r}\n"
        )
        tail = diff.stdout.split("[REPLAY]", 1)[1]
        assert tail == (
            " the run was served recordings of other requests for 2 llm calls:\n"
            "  step 0:\n"
            f"    messages[0].content: {PROMPT!r} → {NEW_PROMPT!r}\n"
            "  step 2:\n"
            f"    messages[0].content: {PROMPT!r} → {NEW_PROMPT!r}\n"
            "\n"
            f"golden:   {golden}\n"
            f"last run: {last}\n"
            f"The responses are old recordings: if the change is intended, re-record it live: pytest {WEATHER} --agentsnap-record\n"
        )

        # 5. `agentsnap update` refuses to invent behaviour
        before = golden.read_bytes()
        refused = invoke("update", "test_weather", "--dir", str(snaps))
        assert refused.exit_code == 1
        assert refused.stdout == ""
        assert refused.stderr == (
            f"error: refusing to promote the last run of {WEATHER!r} ({last}): it ran in replay and the requests of "
            "2 llm call(s) (step 0, 2) drifted from the recordings, so it holds old responses paired with new requests — "
            f"behaviour the model never produced. Nothing was promoted. Re-record it live: `pytest {WEATHER} --agentsnap-record`, "
            "review (`git diff`), commit.\n"
        )
        assert golden.read_bytes() == before and last.exists()

        # 6. re-record live: with the new prompt the model asks for the time too
        fake.script(*_weather_replies("get_weather", "get_time", text="Sunny in Paris, 14:00."))
        live = pytest_run(WEATHER, "--agentsnap-record", AGENT_PROMPT=NEW_PROMPT)
        assert live.returncode == 0, live.stdout + live.stderr
        assert summary(live) == ["agentsnap: 1 updated (re-recorded, approved)"]
        stored = json.loads(golden.read_text(encoding="utf-8"))
        assert [s["name"] for s in stored["trace"] if s["type"] == "tool_call"] == [
            "get_weather",
            "get_time",
        ]
        assert stored["output"] == "Sunny in Paris, 14:00."
        assert "comparison" not in stored and not any("request_drift" in s for s in stored["trace"])

        # 7. a new test: pending locally, approved by its short name
        (project / "tests" / "test_agent.py").write_text(AGENT_TEST + LYON_TEST, encoding="utf-8")
        fake.script(*_weather_replies("get_weather", text="Sunny in Lyon."))
        new = pytest_run(
            "tests/test_agent.py::test_weather_lyon",
            "--agentsnap-instrument",
            AGENT_PROMPT=NEW_PROMPT,
        )
        assert new.returncode == 0, new.stdout + new.stderr
        assert summary(new) == ["agentsnap: 1 new (pending approval)"]
        lyon = store.path_for(LYON)
        approved = invoke("approve", "test_weather_lyon", "--dir", str(snaps))
        assert approved.exit_code == 0, approved.output
        assert approved.stderr == (
            f"approving {LYON} ({lyon})\n"
            "Commit the snapshot files: CI compares against approved snapshots only.\n"
        )
        assert approved.stdout.splitlines()[0] == f"Approved 1 snapshot in {snaps}:"
        assert approved.stdout.splitlines()[2].split()[:2] == [LYON, "3"]
        assert json.loads(lyon.read_text(encoding="utf-8"))["approved"] is True

    # 8. a merge left test_weather's file corrupt: rm deletes that file, never test_weather_lyon
    golden.write_text(golden.read_text(encoding="utf-8")[:200], encoding="utf-8")
    lyon_bytes = lyon.read_bytes()
    shown = invoke("show", WEATHER, "--dir", str(snaps))
    assert shown.exit_code == 1
    assert (
        shown.stderr.startswith(f"error: corrupt snapshot file at {golden}: ")
        and shown.stderr.count("\n") == 1
    )
    gone = invoke("rm", WEATHER, "--yes", "--dir", str(snaps))
    assert gone.exit_code == 0, gone.output
    assert (
        gone.stderr
        == f"About to delete 1 snapshot file in {snaps}:\n  {WEATHER}  ({golden.name})  unreadable  + its last run in .last_run/\n"
    )
    last = (
        snaps / ".last_run" / golden.name
    )  # deleted with it: `agentsnap update` cannot bring it back
    assert (
        gone.stdout == f"deleted unreadable file {golden} ({WEATHER}) and its last run ({last})\n"
    )
    assert not last.exists()
    assert not golden.exists() and lyon.read_bytes() == lyon_bytes
    listed = invoke("list", "--dir", str(snaps))
    assert listed.exit_code == 0
    assert [line.split()[:2] for line in listed.stdout.splitlines()] == [
        ["NAME", "STATE"],
        [LYON, "approved"],
    ]
