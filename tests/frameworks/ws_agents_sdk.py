"""An OpenAI Agents SDK agent over the Responses API's WebSocket transport (frameworks venv only).

:func:`agents_responses_ws` runs an ``Agent`` with one ``function_tool`` through
``agents.responses_websocket_session(base_url=...)``: the SDK's own ``websockets`` client
connects to ``ws://<base_url>/responses`` (``http`` -> ``ws``) and sends one
``{"type": "response.create", ..., "stream": true}`` frame per model turn, the whole
conversation as ``input`` each time (no ``previous_response_id``), on one connection
kept open across the turns.

:func:`agents_realtime` runs a ``RealtimeAgent`` with the same tool through
``RealtimeRunner`` (``agents.realtime``), text only: the session's
``OpenAIRealtimeWebSocketModel`` connects to ``model_config["url"]``
(``ws://<host>/v1/realtime?model=...``), sends ``session.update`` (``output_modalities:
["text"]``), then per user message ``conversation.item.create`` + ``response.create``; the
session runs the tool on the model's ``function_call`` and sends its
``function_call_output`` + ``response.create``. Pure SDK usage, no agentsnap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, function_tool, responses_websocket_session, set_tracing_disabled
from agents.realtime import RealtimeAgent, RealtimeRunner

from tests.ws_agents import REALTIME_MODEL, RESPONSES_MODEL, get_weather

__all__ = ["agents_realtime", "agents_responses_ws"]


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


async def agents_realtime(
    ws_url: str,
    api_key: str,
    user_text: str,
    *,
    weather: Mapping[str, str] | None = None,
    timeout: float = 20.0,
) -> str:
    """``RealtimeAgent`` + ``function_tool`` in a text-only ``RealtimeRunner`` session at
    ``<ws_url>/realtime``; the assistant's text once a turn ends with it."""
    set_tracing_disabled(True)

    @function_tool(name_override="get_weather")
    def weather_tool(city: str) -> str:
        """The current weather in a city."""
        return get_weather(city, weather)

    agent = RealtimeAgent(
        name="Weather agent", instructions="Report the weather.", tools=[weather_tool]
    )
    runner = RealtimeRunner(
        agent,
        config={
            "model_settings": {
                "model_name": REALTIME_MODEL,
                "output_modalities": ["text"],
                "tracing": None,  # no tracing session.update racing the user's message
            }
        },
    )
    session = await runner.run(
        model_config={"url": f"{ws_url}/realtime?model={REALTIME_MODEL}", "api_key": api_key}
    )

    async def answer() -> str:
        history: list[Any] = []
        async for event in session:
            if event.type == "error":
                raise RuntimeError(f"realtime session error: {event.error}")
            if event.type == "history_updated":
                history = list(event.history)
            elif event.type == "agent_end" and history:
                last = history[-1]
                if last.type == "message" and last.role == "assistant":
                    return "".join(getattr(part, "text", None) or "" for part in last.content)
        raise RuntimeError("the realtime session ended without an answer")

    async with session:
        await session.send_message(user_text)
        return await asyncio.wait_for(answer(), timeout)
