"""The weather agent written against the plain Anthropic SDK (Messages API with tools).

The model answers directly or asks for tools with ``tool_use`` blocks; we run
the Python tools and send the results back as ``tool_result`` blocks in a user
turn, until it answers in text.

    client = anthropic.Anthropic()
    run_agent(client, "What's the weather and time in Paris?")
"""

from __future__ import annotations

from typing import Any

import anthropic
from weather_agent import PYTHON_TOOLS, SYSTEM_PROMPT

DEFAULT_MODEL = "claude-sonnet-4-6"
MAX_TOKENS = 1024

TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "City name, e.g. Paris"}},
            "required": ["city"],
        },
    },
    {
        "name": "get_time",
        "description": "Get the current local time in a time zone.",
        "input_schema": {
            "type": "object",
            "properties": {
                "tz": {"type": "string", "description": "IANA time zone, e.g. Europe/Paris"}
            },
            "required": ["tz"],
        },
    },
]


# --------------------------------------------------------------------------- helpers


def _as_params(content: list[Any]) -> list[dict[str, Any]]:
    """The assistant's content blocks, as request parameters for the next turn."""
    blocks: list[dict[str, Any]] = []
    for block in content:
        if block.type == "text":
            blocks.append({"type": "text", "text": block.text})
        elif block.type == "tool_use":
            blocks.append(
                {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
            )
    return blocks


def _run_tools(messages: list[dict[str, Any]], content: list[Any]) -> None:
    """Append the assistant turn, then one user turn with a ``tool_result`` per ``tool_use``."""
    messages.append({"role": "assistant", "content": _as_params(content)})
    results = [
        {
            "type": "tool_result",
            "tool_use_id": block.id,
            "content": PYTHON_TOOLS[block.name](**block.input),
        }
        for block in content
        if block.type == "tool_use"
    ]
    messages.append({"role": "user", "content": results})


def _text(content: list[Any]) -> str:
    return "".join(block.text for block in content if block.type == "text")


# --------------------------------------------------------------------------- agents


def run_agent(
    client: anthropic.Anthropic, question: str, *, model: str = DEFAULT_MODEL, max_turns: int = 5
) -> str:
    """Answer ``question``, calling tools as the model asks; returns the final text."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for _ in range(max_turns):
        response = client.messages.create(
            model=model, max_tokens=MAX_TOKENS, system=SYSTEM_PROMPT, tools=TOOLS, messages=messages
        )
        if response.stop_reason != "tool_use":
            return _text(response.content)
        _run_tools(messages, response.content)
    raise RuntimeError(f"no final answer after {max_turns} turns")


async def arun_agent(
    aclient: anthropic.AsyncAnthropic,
    question: str,
    *,
    model: str = DEFAULT_MODEL,
    max_turns: int = 5,
) -> str:
    """``run_agent`` for ``AsyncAnthropic``."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    for _ in range(max_turns):
        response = await aclient.messages.create(
            model=model, max_tokens=MAX_TOKENS, system=SYSTEM_PROMPT, tools=TOOLS, messages=messages
        )
        if response.stop_reason != "tool_use":
            return _text(response.content)
        _run_tools(messages, response.content)
    raise RuntimeError(f"no final answer after {max_turns} turns")


def run_agent_streaming(
    client: anthropic.Anthropic, question: str, *, model: str = DEFAULT_MODEL, max_turns: int = 5
) -> tuple[str, list[str]]:
    """``run_agent`` over ``messages.stream()``: returns the answer and the text pieces as they arrived."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
    pieces: list[str] = []
    for _ in range(max_turns):
        with client.messages.stream(
            model=model, max_tokens=MAX_TOKENS, system=SYSTEM_PROMPT, tools=TOOLS, messages=messages
        ) as stream:
            pieces.extend(stream.text_stream)
            final = stream.get_final_message()
        if final.stop_reason != "tool_use":
            return _text(final.content), pieces
        _run_tools(messages, final.content)
    raise RuntimeError(f"no final answer after {max_turns} turns")


if __name__ == "__main__":  # pragma: no cover - needs ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL)
    import sys

    print(
        run_agent(
            anthropic.Anthropic(), " ".join(sys.argv[1:]) or "What's the weather and time in Paris?"
        )
    )
