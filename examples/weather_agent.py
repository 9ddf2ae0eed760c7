"""A small tool-using agent written against the plain OpenAI SDK.

The model may answer directly or ask for tools; we run the Python tools,
feed results back as ``{"role": "tool", "tool_call_id", "content"}``
messages, and loop until it answers in text.

    client = openai.OpenAI()
    run_agent(client, "What's the weather and time in Paris?")
"""

from __future__ import annotations

import json
from typing import Any

import openai

DEFAULT_MODEL = "gpt-4o-mini"
SYSTEM_PROMPT = (
    "You are a concise assistant. Use the tools to answer questions about weather and local time."
)

# --------------------------------------------------------------------------- tools
# Deterministic on purpose: canned data, no clock, no network.

_WEATHER = {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C", "London": "Overcast, 15°C"}
_TIMES = {"Europe/Paris": "09:30", "Asia/Tokyo": "16:30", "Europe/London": "08:30"}


def get_weather(city: str) -> str:
    """Current weather for ``city``, e.g. ``"Light rain, 18°C"``."""
    return _WEATHER.get(city, f"No weather data for {city}")


def get_time(tz: str) -> str:
    """Local time in IANA time zone ``tz``, e.g. ``"09:30 (Europe/Paris)"``."""
    return f"{_TIMES[tz]} ({tz})" if tz in _TIMES else f"Unknown time zone {tz}"


TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name, e.g. Paris"}},
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Get the current local time in a time zone.",
            "parameters": {
                "type": "object",
                "properties": {
                    "tz": {"type": "string", "description": "IANA time zone, e.g. Europe/Paris"}
                },
                "required": ["tz"],
                "additionalProperties": False,
            },
        },
    },
]

PYTHON_TOOLS = {"get_weather": get_weather, "get_time": get_time}


# --------------------------------------------------------------------------- helpers


def _start(question: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": question}]


def _run_tools(
    messages: list[dict[str, Any]], content: str | None, tool_calls: list[dict[str, Any]]
) -> None:
    """Append the assistant's tool-call message, then one tool message per call.

    ``tool_calls``: ``[{"id", "type": "function", "function": {"name", "arguments"}}]``.
    """
    messages.append({"role": "assistant", "content": content, "tool_calls": tool_calls})
    for call in tool_calls:
        function = call["function"]
        result = PYTHON_TOOLS[function["name"]](**json.loads(function["arguments"]))
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})


def _as_dicts(tool_calls: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.function.name, "arguments": c.function.arguments},
        }
        for c in tool_calls
    ]


# --------------------------------------------------------------------------- agents


def run_agent(
    client: openai.OpenAI, question: str, *, model: str = DEFAULT_MODEL, max_turns: int = 5
) -> str:
    """Answer ``question``, calling tools as the model asks; returns the final text."""
    messages = _start(question)
    for _ in range(max_turns):
        response = client.chat.completions.create(model=model, messages=messages, tools=TOOLS)
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content or ""
        _run_tools(messages, message.content, _as_dicts(message.tool_calls))
    raise RuntimeError(f"no final answer after {max_turns} turns")


async def arun_agent(
    aclient: openai.AsyncOpenAI, question: str, *, model: str = DEFAULT_MODEL, max_turns: int = 5
) -> str:
    """``run_agent`` for ``AsyncOpenAI``."""
    messages = _start(question)
    for _ in range(max_turns):
        response = await aclient.chat.completions.create(
            model=model, messages=messages, tools=TOOLS
        )
        message = response.choices[0].message
        if not message.tool_calls:
            return message.content or ""
        _run_tools(messages, message.content, _as_dicts(message.tool_calls))
    raise RuntimeError(f"no final answer after {max_turns} turns")


def run_agent_streaming(
    client: openai.OpenAI, question: str, *, model: str = DEFAULT_MODEL, max_turns: int = 5
) -> str:
    """``run_agent`` with ``stream=True``: text and tool-call deltas are reassembled here."""
    messages = _start(question)
    for _ in range(max_turns):
        stream = client.chat.completions.create(
            model=model,
            messages=messages,
            tools=TOOLS,
            stream=True,
            stream_options={"include_usage": True},
        )
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}  # tool-call index -> call being assembled
        for chunk in stream:
            for choice in chunk.choices:  # the final usage chunk has no choices
                delta = choice.delta
                if delta.content:
                    text.append(delta.content)
                for part in delta.tool_calls or []:
                    call = calls.setdefault(
                        part.index,
                        {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                    )
                    call["id"] = part.id or call["id"]
                    if part.function is not None:
                        call["function"]["name"] += part.function.name or ""
                        call["function"]["arguments"] += part.function.arguments or ""
        if not calls:
            return "".join(text)
        _run_tools(messages, "".join(text) or None, [calls[i] for i in sorted(calls)])
    raise RuntimeError(f"no final answer after {max_turns} turns")


if __name__ == "__main__":  # pragma: no cover - needs OPENAI_API_KEY (or OPENAI_BASE_URL)
    import sys

    print(
        run_agent(
            openai.OpenAI(), " ".join(sys.argv[1:]) or "What's the weather and time in Paris?"
        )
    )
