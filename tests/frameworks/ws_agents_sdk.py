"""An OpenAI Agents SDK agent over the Responses API's WebSocket transport (frameworks venv only).

:func:`agents_responses_ws` runs an ``Agent`` with one ``function_tool`` through
``agents.responses_websocket_session(base_url=...)``: the SDK's own ``websockets`` client
connects to ``ws://<base_url>/responses`` (``http`` -> ``ws``) and sends one
``{"type": "response.create", ..., "stream": true}`` frame per model turn, the whole
conversation as ``input`` each time (no ``previous_response_id``), on one connection
kept open across the turns. Pure SDK usage, no agentsnap.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

pytest.importorskip("agents")

from agents import Agent, function_tool, responses_websocket_session, set_tracing_disabled

from tests.ws_agents import RESPONSES_MODEL, get_weather

__all__ = ["agents_responses_ws"]


async def agents_responses_ws(
    base_url: str, api_key: str, user_text: str, *, weather: Mapping[str, str] | None = None
) -> str:
    """``Agent`` + ``function_tool`` run in a ``responses_websocket_session``; the final output."""
    set_tracing_disabled(True)

    @function_tool(name_override="get_weather")
    def weather_tool(city: str) -> str:
        """The current weather in a city."""
        return get_weather(city, weather)

    agent = Agent(
        name="Weather agent",
        instructions="Report the weather.",
        tools=[weather_tool],
        model=RESPONSES_MODEL,
    )
    async with responses_websocket_session(api_key=api_key, base_url=base_url) as session:
        result = await session.run(agent, user_text)
    return str(result.final_output)
