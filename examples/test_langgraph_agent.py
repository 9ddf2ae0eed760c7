"""The LangGraph weather agent used exactly as a user would test it: no agentsnap import.

The chat models read their endpoints and keys from the environment
(``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL``, set by ``conftest.py``).
"""

from __future__ import annotations

import asyncio

from langchain_anthropic import ChatAnthropic
from langchain_openai import ChatOpenAI
from langgraph_agent import aask, ask, build_agent, stream_answer

PARIS = "Weather in Paris: Light rain, 18°C. Local time: 09:30 (Europe/Paris)."
TOKYO = "Weather in Tokyo: Sunny, 24°C. Local time: 16:30 (Asia/Tokyo)."


def test_openai_graph_paris():
    agent = build_agent(ChatOpenAI(model="gpt-4o-mini", max_retries=0))
    assert ask(agent, "What's the weather and time in Paris?") == PARIS


def test_anthropic_graph_tokyo_async():
    agent = build_agent(ChatAnthropic(model="claude-sonnet-4-6", max_retries=0))
    assert asyncio.run(aask(agent, "What's the weather and time in Tokyo?")) == TOKYO


def test_openai_graph_streams_the_answer():
    agent = build_agent(ChatOpenAI(model="gpt-4o-mini", max_retries=0, streaming=True))
    tokens = list(stream_answer(agent, "What's the weather and time in Paris?"))
    assert "".join(tokens) == PARIS
    assert len(tokens) > 1  # token by token, not one block
