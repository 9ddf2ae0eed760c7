"""DSPy (``dspy.LM("openai/…")``, ``Predict``, ``ReAct`` with a tool): recorded, replayed offline,
drift reported; ReAct's tool calls become tool steps.

DSPy 3.4 does not send through httpx: its bundled client (``dspy/_vendor/lm15``) speaks
HTTP over standard-library sockets (User-Agent ``lm15/stdlib``), captured by agentsnap's
lm15 transport. The agent turns DSPy's LM cache off (``cache=False``): with it on, a
repeated question is answered from ``~/.dspy_cache`` and never reaches the network, so
there is nothing to record. And on its first LM, DSPy fetches model metadata from
raw.githubusercontent.com (falling back to a bundled copy on any error); replay blocks that
lookup and fails the test naming it, so the project sets ``LITELLM_LOCAL_MODEL_COST_MAP=True``
(DSPy's switch for the bundled copy), as a user's CI would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("dspy")

from tests.frameworks.harness import (
    Project,
    assert_drift_reported,
    llm_calls,
    record_replay,
    tool_steps,
)

AGENT = '''
import dspy
import pytest


def get_weather(city: str) -> str:
    """Current weather in a city."""
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


@pytest.fixture(autouse=True)
def lm(servers):
    lm = dspy.LM("openai/gpt-4o-mini", api_base=servers.chat, api_key="sk-test-1234", cache=False)
    with dspy.context(lm=lm):
        yield lm


def test_predict(keep):
    prediction = dspy.Predict("question -> answer")(question="What's the weather in Tokyo?")
    keep(prediction.toDict())


def test_react(keep):
    agent = dspy.ReAct("question -> answer", tools=[get_weather])
    prediction = agent(question="What's the weather in Paris?")
    assert prediction.answer == "Paris: Light rain, 18°C"
    keep(prediction.toDict())
'''


def test_dspy_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT, env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    live, replayed = record_replay(project, expect=2)
    assert replayed == live
    assert live["test_predict"] == {"answer": "Tokyo: Sunny, 24°C"}
    assert live["test_react"]["answer"] == "Paris: Light rain, 18°C"
    assert live["test_react"]["trajectory"] == {
        "thought_0": "I look the weather up.",
        "tool_name_0": "get_weather",
        "tool_args_0": {"city": "Paris"},
        "observation_0": "Light rain, 18°C",
        "thought_1": "I have what I need.",
        "tool_name_1": "finish",
        "tool_args_1": {},
        "observation_1": "Completed.",
    }
    snaps = project.snapshots()
    assert [s["provider"] for s in llm_calls(snaps["test_react"])] == ["openai"] * 3
    # ReAct's trajectory (text fields in the prompt) read by patches/frameworks/dspy.toml; `finish` is not a tool
    assert [s["type"] for s in snaps["test_react"]["trace"]] == [
        "llm_call",
        "tool_call",
        "llm_call",
        "llm_call",
    ]
    assert tool_steps(snaps["test_react"]) == [
        ("get_weather", {"city": "Paris"}, "Light rain, 18°C")
    ]
    assert [s["provider"] for s in llm_calls(snaps["test_predict"])] == ["openai"]

    project.edit('"Paris": "Light rain, 18°C"', '"Paris": "Heavy rain, 12°C"')
    drift, _ = project.run("--agentsnap-replay", offline=True)
    assert_drift_reported(
        drift, test="test_react", expected=["Light rain, 18°C", "Heavy rain, 12°C"]
    )
    assert "1 failed, 1 passed" in drift.stdout.splitlines()[-1]
