"""The agent of a new user's report, on the real openai SDK against the loopback fake: a tool
loop (system and user message, get_weather) run for three cities on a thread pool, each worker
with its own client, against a server that numbers tool calls per conversation (every
conversation's call is ``call_0``). ``schedule`` perturbs the scheduling: when each worker
starts, how long its tool takes, how long the server takes for each (city, turn)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.fake_provider import Reply, text_reply, tool_calls_reply

__all__ = ["CITIES", "SYSTEM", "TOOLS", "run_pool", "shared_id_server", "weather_loop"]

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]
CITIES = ("Rome", "Oslo", "Lima")
SYSTEM = {"role": "system", "content": "You are a weather assistant."}


def weather_loop(client: Any, city: str, tool_time: float = 0.0) -> str:
    """Ask for ``city``'s weather; run the tool calls until the model answers without any."""
    messages: list[dict[str, Any]] = [SYSTEM, {"role": "user", "content": f"Weather in {city}?"}]
    while True:
        reply = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
        message = reply.choices[0].message
        if not message.tool_calls:
            return str(message.content)
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            time.sleep(tool_time)  # the tool's own work
            args = json.loads(call.function.arguments)
            result = json.dumps({"city": args["city"], "sky": "sunny"})
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


def shared_id_server(waits: dict[tuple[str, int], float]) -> Callable[[dict[str, Any]], Reply]:
    """A ``FakeOpenAI.respond_with`` responder: turn 1 asks for get_weather as ``call_0``,
    turn 2 (the tool's result sent) answers; after waiting ``waits[(city, turn)]`` seconds."""

    def reply(body: dict[str, Any]) -> Reply:
        city = body["messages"][1]["content"].removeprefix("Weather in ").rstrip("?")
        answered = body["messages"][-1]["role"] == "tool"
        time.sleep(waits.get((city, 2 if answered else 1), 0.0))
        if answered:
            return text_reply(f"{city}: sunny")
        return tool_calls_reply([("call_0", "get_weather", {"city": city})])

    return reply


def run_pool(base_url: str, schedule: dict[str, Any]) -> list[str]:
    """The three cities' loops on a pool of three workers; their answers, in city order.
    ``schedule``: ``{"start": {city: seconds}, "tool": seconds}`` (both optional)."""
    import openai

    start = schedule.get("start", {})

    def one(city: str) -> str:
        time.sleep(start.get(city, 0.0))
        client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
        return weather_loop(client, city, schedule.get("tool", 0.0))

    with ThreadPoolExecutor(3) as pool:
        return list(pool.map(one, CITIES))
