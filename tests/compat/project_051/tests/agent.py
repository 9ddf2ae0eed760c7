"""A small weather agent, as a 0.5.1 user would write it (openai and anthropic SDKs).

The clients talk to ``WEATHER_OPENAI_URL`` / ``WEATHER_ANTHROPIC_URL`` (the
loopback fakes when recording or comparing live; in replay nothing listens).
"""

from __future__ import annotations

import json
import os

import anthropic
import openai

TOOLS = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather of a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}]
ANTHROPIC_TOOLS = [{
    "name": "get_weather",
    "description": "Current weather of a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}]


def get_weather(city: str) -> str:
    return f"{city}: 18C, light rain"


def openai_client() -> openai.OpenAI:
    return openai.OpenAI(base_url=os.environ.get("WEATHER_OPENAI_URL", "http://127.0.0.1:9/v1"),
                         api_key=os.environ.get("OPENAI_API_KEY", "sk-test"), max_retries=0)


def anthropic_client() -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=os.environ.get("WEATHER_ANTHROPIC_URL", "http://127.0.0.1:9"),
                               api_key=os.environ.get("ANTHROPIC_API_KEY", "sk-ant-test"), max_retries=0)


def openai_agent(client, weather, city: str) -> str:
    """Ask, run the requested tool, ask again; the final answer's text."""
    messages = [{"role": "user", "content": f"What is the weather in {city}?"}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    message = first.choices[0].message
    if not message.tool_calls:
        return message.content or ""
    messages.append({"role": "assistant", "content": message.content, "tool_calls": [
        {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
        for c in message.tool_calls]})
    for call in message.tool_calls:
        result = weather(**json.loads(call.function.arguments))
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    final = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS)
    return final.choices[0].message.content or ""


def openai_stream_agent(client, city: str) -> str:
    """One streamed call; the text of the deltas."""
    stream = client.chat.completions.create(
        model="gpt-4o-mini", stream=True,
        messages=[{"role": "user", "content": f"Describe the sky over {city}."}])
    return "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)


def anthropic_agent(client, weather, city: str) -> str:
    messages = [{"role": "user", "content": f"What is the weather in {city}?"}]
    first = client.messages.create(model="claude-haiku-4-5", max_tokens=256, messages=messages, tools=ANTHROPIC_TOOLS)
    uses = [b for b in first.content if b.type == "tool_use"]
    if not uses:
        return "".join(b.text for b in first.content if b.type == "text")
    messages.append({"role": "assistant", "content": [
        {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input} for b in uses]})
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": b.id, "content": weather(**b.input)} for b in uses]})
    final = client.messages.create(model="claude-haiku-4-5", max_tokens=256, messages=messages, tools=ANTHROPIC_TOOLS)
    return "".join(b.text for b in final.content if b.type == "text")


def anthropic_stream_agent(client, city: str) -> str:
    """One streamed call (``create(stream=True)``); the text of the deltas."""
    stream = client.messages.create(model="claude-haiku-4-5", max_tokens=256, stream=True,
                                    messages=[{"role": "user", "content": f"Describe the sky over {city}."}])
    return "".join(e.delta.text for e in stream if e.type == "content_block_delta" and e.delta.type == "text_delta")
