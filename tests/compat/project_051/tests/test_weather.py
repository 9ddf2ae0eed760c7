"""The team's agent tests, written against agentsnap 0.5.1's documented API (unchanged since)."""

from __future__ import annotations

from pathlib import Path

from agentsnap import AgentAsserter
from agentsnap.adapters.anthropic import AnthropicAdapter
from agentsnap.adapters.openai import OpenAIAdapter
from agentsnap.adapters.tool import ToolAdapter

import agent

HERE = Path(__file__).parent


def test_weather_plain(snapshot):
    client = OpenAIAdapter(agent.openai_client())
    weather = ToolAdapter(agent.get_weather, name="get_weather")
    with snapshot.assert_agent("weather_plain") as a:
        a.output = agent.openai_agent(client, weather, "Paris")


def test_weather_stream(snapshot):
    client = OpenAIAdapter(agent.openai_client())
    with snapshot.assert_agent("sky_stream") as a:
        a.output = agent.openai_stream_agent(client, "Paris")


def test_weather_anthropic(snapshot):
    client = AnthropicAdapter(agent.anthropic_client())
    weather = ToolAdapter(agent.get_weather, name="get_weather")
    with snapshot.assert_agent("weather_claude", semantic_threshold=0.95) as a:
        a.output = agent.anthropic_agent(client, weather, "Oslo")


def test_sky_anthropic_stream(snapshot):
    client = AnthropicAdapter(agent.anthropic_client())
    with snapshot.assert_agent("sky_claude_stream") as a:
        a.output = agent.anthropic_stream_agent(client, "Oslo")


def test_lookup_by_input(snapshot):
    # 0.5.1 names this golden lookup__<sha256(input)[:8]>.json
    client = OpenAIAdapter(agent.openai_client())
    weather = ToolAdapter(agent.get_weather, name="get_weather")
    with snapshot.assert_agent("lookup") as a:
        a.input = {"city": "Rome"}
        a.output = agent.openai_agent(client, weather, "Rome")


def test_direct_asserter():
    # AgentAsserter outside the fixture, its folder given explicitly
    client = OpenAIAdapter(agent.openai_client())
    weather = ToolAdapter(agent.get_weather, name="get_weather")
    with AgentAsserter("direct_agent", snapshot_dir=str(HERE / "__agent_snapshots__"), ignored_fields=["timestamp"]) as a:
        a.output = agent.openai_agent(client, weather, "Lima")
