"""A deterministic stand-in "model" for ``weather_agent``, to plug into FakeOpenAI.

    fake.respond_with(respond)

``respond(body) -> Reply`` looks at the conversation in the request body:

* no tool results since the last user message -> parallel tool calls
  ``get_weather(city)`` + ``get_time(tz)`` for the city named in the question;
* tool results present -> a final answer quoting them:
  ``"Weather in Paris: Light rain, 18°C. Local time: 09:30 (Europe/Paris)."``

With ``"stream": true`` in the request it answers in SSE (interleaved
tool-call deltas, text in word-sized pieces). Like the real API, the usage
chunk is only streamed when the request sets ``stream_options.include_usage``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.fake_provider import (
    Reply,
    stream_text_reply,
    stream_tool_calls_reply,
    text_reply,
    tool_calls_reply,
)

TIME_ZONES = {"Paris": "Europe/Paris", "Tokyo": "Asia/Tokyo"}


def respond(body: dict[str, Any]) -> Reply:
    """Play the model for one chat-completions request ``body``."""
    messages = body.get("messages", [])
    model = body.get("model", "gpt-4o-mini")
    stream = body.get("stream") is True
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    question = str(messages[last_user].get("content", "")) if last_user >= 0 else ""
    since_question = messages[last_user + 1 :]
    results = _tool_results(since_question)
    prompt_tokens = _tokens(json.dumps(messages))

    city = next((c for c in TIME_ZONES if c.lower() in question.lower()), None)
    if city is None or not body.get("tools"):
        answer = "Sorry, I can only look up the weather and time for " + " and ".join(TIME_ZONES) + "."
        return _answer(answer, model, stream, prompt_tokens)
    if not results:
        slug = city.lower()
        calls = [
            (f"call_weather_{slug}", "get_weather", {"city": city}),
            (f"call_time_{slug}", "get_time", {"tz": TIME_ZONES[city]}),
        ]
        usage = (prompt_tokens, 20)
        if stream:
            return stream_tool_calls_reply(calls, model=model, include_usage=False, usage=usage)
        return tool_calls_reply(calls, model=model, usage=usage)
    answer = f"Weather in {city}: {results.get('get_weather')}. Local time: {results.get('get_time')}."
    return _answer(answer, model, stream, prompt_tokens)


def _tool_results(messages: list[dict[str, Any]]) -> dict[str, str]:
    """``{tool name: result}`` from the assistant tool calls and tool messages given."""
    names = {
        call["id"]: call["function"]["name"]
        for m in messages
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    }
    return {names.get(m["tool_call_id"], "?"): m["content"] for m in messages if m.get("role") == "tool"}


def _answer(text: str, model: str, stream: bool, prompt_tokens: int) -> Reply:
    usage = (prompt_tokens, _tokens(text))
    if stream:
        pieces = re.findall(r"\S+\s*", text)
        return stream_text_reply(pieces, model=model, include_usage=False, usage=usage)
    return text_reply(text, model=model, usage=usage)


def _tokens(text: str) -> int:
    """A deterministic rough token count (~4 characters per token)."""
    return max(1, len(text) // 4)
