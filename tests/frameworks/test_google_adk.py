"""Google ADK ``Agent`` on its ``Gemini`` model: recorded, replayed offline, drift reported.

ADK calls google-genai's async ``generate_content`` (``generate_content_stream``
with ``StreamingMode.SSE``) and answers the model's ``functionCall`` with a
``functionResponse`` part: the snapshot's tool steps come from Gemini's format.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("google.adk.runners")

from tests.frameworks.harness import Project, assert_weather_goldens, record_replay

AGENT = '''
import asyncio

from google.adk.agents import Agent, RunConfig
from google.adk.agents.run_config import StreamingMode
from google.adk.models import Gemini
from google.adk.runners import InMemoryRunner
from google.genai import types


def get_weather(city: str) -> str:
    """Current weather in a city.

    Args:
        city: the city name
    """
    return {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C"}[city]


def ask(servers, question, **run_kwargs):
    model = Gemini(model="gemini-2.5-flash", base_url=servers.gemini)
    agent = Agent(name="weather", model=model, instruction="Answer weather questions.", tools=[get_weather])
    runner = InMemoryRunner(agent=agent, app_name="weather_app")

    async def run():
        session = await runner.session_service.create_session(app_name="weather_app", user_id="u1")
        message = types.Content(role="user", parts=[types.Part(text=question)])
        texts = []
        async for event in runner.run_async(
            user_id="u1", session_id=session.id, new_message=message, **run_kwargs
        ):
            if event.content and event.content.parts and not event.partial:
                texts += [p.text for p in event.content.parts if p.text]
        return texts

    return asyncio.run(run())


def test_agent(servers, keep):
    texts = ask(servers, "What's the weather in Paris?")
    assert texts == ["Paris: Light rain, 18°C"]
    keep(texts)


def test_agent_stream(servers, keep):
    config = RunConfig(streaming_mode=StreamingMode.SSE)
    keep(ask(servers, "What's the weather in Tokyo?", run_config=config))
'''


def test_google_adk_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT, env={"GOOGLE_API_KEY": "gemini-test-key"})
    live, replayed = record_replay(project, expect=2)
    assert replayed == live
    assert live["test_agent"] == ["Paris: Light rain, 18°C"]
    assert live["test_agent_stream"] == ["Tokyo: Sunny, 24°C"]
    assert_weather_goldens(
        project, "test_agent", "test_agent_stream", stored=lambda value: {"result": value}
    )
