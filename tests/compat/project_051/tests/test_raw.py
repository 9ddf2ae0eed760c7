"""A raw openai client, captured by `pytest --agentsnap-instrument` (no adapters)."""

from __future__ import annotations

import agent


def test_raw_instrumented(snapshot):
    with snapshot.assert_agent("raw_weather") as a:
        a.output = agent.openai_agent(agent.openai_client(), agent.get_weather, "Cairo")
