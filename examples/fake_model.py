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

:func:`respond_anthropic` plays the same model in the Anthropic Messages API
format (``tool_use`` / ``tool_result`` blocks), served by :class:`FakeAnthropicAPI`.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from tests.fake_provider import (
    FakeProvider,
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
        answer = (
            "Sorry, I can only look up the weather and time for " + " and ".join(TIME_ZONES) + "."
        )
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
    answer = (
        f"Weather in {city}: {results.get('get_weather')}. Local time: {results.get('get_time')}."
    )
    return _answer(answer, model, stream, prompt_tokens)


def _tool_results(messages: list[dict[str, Any]]) -> dict[str, str]:
    """``{tool name: result}`` from the assistant tool calls and tool messages given."""
    names = {
        call["id"]: call["function"]["name"]
        for m in messages
        if m.get("role") == "assistant"
        for call in m.get("tool_calls") or []
    }
    return {
        names.get(m["tool_call_id"], "?"): m["content"] for m in messages if m.get("role") == "tool"
    }


def _answer(text: str, model: str, stream: bool, prompt_tokens: int) -> Reply:
    usage = (prompt_tokens, _tokens(text))
    if stream:
        pieces = re.findall(r"\S+\s*", text)
        return stream_text_reply(pieces, model=model, include_usage=False, usage=usage)
    return text_reply(text, model=model, usage=usage)


def _tokens(text: str) -> int:
    """A deterministic rough token count (~4 characters per token)."""
    return max(1, len(text) // 4)


# --------------------------------------------------------------------------- Anthropic
# The same deterministic "model" speaking the Anthropic Messages API, for
# ``anthropic_agent`` and the LangGraph agent on ChatAnthropic.


class FakeAnthropicAPI(FakeProvider):
    """A fake Anthropic Messages API (``POST /v1/messages``) on 127.0.0.1.

    Pass ``base_url`` as ``anthropic.Anthropic(base_url=...)`` or set it as
    ``ANTHROPIC_BASE_URL`` (the SDK adds ``/v1/messages`` itself). Replies:
    a message JSON object, or with ``"stream": true`` the SSE events the API
    sends (``message_start``, ``content_block_*``, ``message_delta``,
    ``message_stop``), one HTTP chunk each. Ids derive from the request, so
    recordings are reproducible.
    """

    label = "FakeAnthropic"
    routes = (("POST", "/v1/messages"),)

    @property
    def base_url(self) -> str:
        return self.origin


def respond_anthropic(body: dict[str, Any]) -> Reply:
    """Play the model for one Messages API request ``body`` (same behaviour as :func:`respond`)."""
    messages = body.get("messages", [])
    model = body.get("model", "claude-sonnet-4-6")
    stream = body.get("stream") is True
    asked = max(
        (
            i
            for i, m in enumerate(messages)
            if m.get("role") == "user" and _text_of(m.get("content"))
        ),
        default=-1,
    )
    question = _text_of(messages[asked].get("content")) if asked >= 0 else ""
    results = _anthropic_tool_results(messages[asked:]) if asked >= 0 else {}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    input_tokens = _tokens(json.dumps(messages))

    city = next((c for c in TIME_ZONES if c.lower() in question.lower()), None)
    if city is None or not body.get("tools"):
        text = (
            "Sorry, I can only look up the weather and time for " + " and ".join(TIME_ZONES) + "."
        )
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
    elif not results:
        slug = city.lower()
        blocks = [
            {
                "type": "tool_use",
                "id": f"toolu_weather_{slug}",
                "name": "get_weather",
                "input": {"city": city},
            },
            {
                "type": "tool_use",
                "id": f"toolu_time_{slug}",
                "name": "get_time",
                "input": {"tz": TIME_ZONES[city]},
            },
        ]
    else:
        text = f"Weather in {city}: {results.get('get_weather')}. Local time: {results.get('get_time')}."
        blocks = [{"type": "text", "text": text}]
    stop_reason = "tool_use" if blocks[0]["type"] == "tool_use" else "end_turn"
    output_tokens = _tokens(json.dumps(blocks))
    message = {
        "id": f"msg_{digest[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }
    headers = (("request-id", f"req_{digest[24:48]}"),)
    if not stream:
        return Reply(body=message, headers=headers)
    return Reply(events=tuple(_anthropic_events(message)), headers=headers)


def _text_of(content: Any) -> str:
    """The text of a user turn (a string, or text blocks); tool-result turns have none."""
    if isinstance(content, str):
        return content
    return "".join(
        b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"
    )


def _anthropic_tool_results(messages: list[dict[str, Any]]) -> dict[str, str]:
    """``{tool name: result}`` from the tool_use blocks and tool_result blocks given."""
    names: dict[str, str] = {}
    results: dict[str, str] = {}
    for m in messages:
        for block in m.get("content") if isinstance(m.get("content"), list) else []:
            if block.get("type") == "tool_use":
                names[block["id"]] = block["name"]
            elif block.get("type") == "tool_result":
                content = block.get("content")
                results[names.get(block["tool_use_id"], "?")] = (
                    content if isinstance(content, str) else _text_of(content)
                )
    return results


def _sse(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


def _anthropic_events(message: dict[str, Any]) -> list[str]:
    """The Messages API stream for ``message``: text word by word, tool input in JSON pieces."""
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {**message["usage"], "output_tokens": 1},
    }
    events = [_sse("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [
                {"type": "text_delta", "text": piece}
                for piece in re.findall(r"\S+\s*", block["text"])
            ]
        else:
            opening = {**block, "input": {}}
            pieces = [
                p
                for p in re.split(r"(?<=[:,])", json.dumps(block["input"], separators=(",", ":")))
                if p
            ]
            deltas = [{"type": "input_json_delta", "partial_json": piece} for piece in pieces]
        events.append(
            _sse(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        events += [
            _sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        ]
        events.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    events.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": delta,
                "usage": {"output_tokens": message["usage"]["output_tokens"]},
            },
        )
    )
    events.append(_sse("message_stop", {"type": "message_stop"}))
    return events
