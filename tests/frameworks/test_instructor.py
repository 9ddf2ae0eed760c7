"""instructor (``from_openai``, a ``response_model``, sync and async) recorded, replayed offline, drift reported."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("instructor")

from tests.frameworks.harness import (
    Project,
    assert_drift_reported,
    llm_calls,
    record_replay,
)

AGENT = """
import asyncio

import instructor
import openai
from pydantic import BaseModel


class WeatherReport(BaseModel):
    city: str
    forecast: str


def test_structured_sync(servers, keep):
    client = instructor.from_openai(openai.OpenAI(base_url=servers.chat, api_key="sk-test-1234", max_retries=0))
    report = client.chat.completions.create(model="gpt-4o-mini", response_model=WeatherReport,
                                            messages=[{"role": "user", "content": "Weather in Paris?"}])
    assert isinstance(report, WeatherReport)
    keep(report.model_dump())


def test_structured_async(servers, keep):
    async def main():
        client = instructor.from_openai(openai.AsyncOpenAI(base_url=servers.chat, api_key="sk-test-1234", max_retries=0))
        return await client.chat.completions.create(model="gpt-4o-mini", response_model=WeatherReport,
                                                    messages=[{"role": "user", "content": "Weather in Tokyo?"}])
    keep(asyncio.run(main()).model_dump())
"""


def test_instructor_records_replays_offline_and_reports_drift(tmp_path: Path) -> None:
    project = Project(tmp_path / "proj", AGENT)
    live, replayed = record_replay(project, expect=2)
    assert replayed == live
    assert live == {
        "test_structured_sync": {"city": "Paris", "forecast": "Light rain, 18°C"},
        "test_structured_async": {"city": "Tokyo", "forecast": "Sunny, 24°C"},
    }
    (call,) = llm_calls(project.snapshots()["test_structured_sync"])
    assert call["tools"] == ["WeatherReport"]
    assert [(r["name"], r["args"]) for r in call["tool_requests"]] == [
        ("WeatherReport", {"city": "Paris", "forecast": "Light rain, 18°C"})
    ]

    project.edit('"content": "Weather in Paris?"', '"content": "Weather in Oslo?"')
    drift, _ = project.run("--agentsnap-replay", offline=True)
    assert_drift_reported(
        drift, test="test_structured_sync", expected=["'Weather in Paris?' → 'Weather in Oslo?'"]
    )
