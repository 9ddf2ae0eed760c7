"""strands-agents ``Agent`` on ``GeminiModel``: recorded, replayed offline, drift reported.

Gemini's ``functionCall`` may come without an id; strands then makes one up
(``tooluse_<random>``) and sends it back with the tool's result. A new one on
every run: replay must match such requests up to a consistent renaming
(agentsnap.capture.client_ids) and the golden must still hold the tool call.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("strands.models.gemini")

from tests.frameworks.harness import (
    Project,
    assert_drift_reported,
    llm_calls,
    record_replay,
    tool_steps,
)

AGENT = '''
from strands import Agent, tool
from strands.models.gemini import GeminiModel


@tool
def get_weather(city: str) -> str:
    """Current weather in a city.

    Args:
        city: the city name
    """
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def agent(servers):
    model = GeminiModel(
        client_args={"api_key": "gemini-test-key", "http_options": {"base_url": servers.gemini}},
        model_id="gemini-2.5-flash",
    )
    return Agent(model=model, tools=[get_weather], callback_handler=None)


def test_weather_agent(servers, keep):
    result = agent(servers)("What's the weather in Paris?")
    keep(str(result).strip())
'''


def test_strands_gemini_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT)
    live, replayed = record_replay(project, expect=1)
    assert replayed == live
    assert live["test_weather_agent"] == "Paris: Light rain, 18°C"
    snap = project.snapshots()["test_weather_agent"]
    assert len(llm_calls(snap)) == 2
    # the result as strands sends it (functionResponse.response)
    assert tool_steps(snap) == [
        ("get_weather", {"city": "Paris"}, {"output": [{"text": "Light rain, 18°C"}]})
    ]
    sent = llm_calls(snap)[1]["exchange"]["request"]["body"]["contents"]
    minted = [p["functionCall"]["id"] for c in sent for p in c["parts"] if "functionCall" in p]
    assert len(minted) == 1 and minted[0].startswith("tooluse_")  # the id strands made up

    project.edit('"Paris": "Light rain, 18°C"', '"Paris": "Heavy rain, 12°C"')
    drift, _ = project.run("--agentsnap-replay", offline=True)
    assert_drift_reported(
        drift, test="test_weather_agent", expected=["Light rain, 18°C", "Heavy rain, 12°C"]
    )
