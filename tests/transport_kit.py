"""Shared pieces of the transport tests (tests/test_transport_*.py): request
bodies for the loopback fakes, stream parsers, record / replay helpers.

The requests carry the SDK's User-Agent (``OpenAI/Python …``,
``Anthropic/Python …``), so today's recognition (spec/provider_specs.py) knows them
whichever library sends them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agentsnap.capture.cassette import Cassette
from agentsnap.capture.recording import Recording

OPENAI_HEADERS = {
    "User-Agent": "OpenAI/Python 1.99.0",
    "Content-Type": "application/json",
    "Authorization": "Bearer sk-test-transport",
}
ANTHROPIC_HEADERS = {
    "User-Agent": "Anthropic/Python 0.99.0",
    "Content-Type": "application/json",
    "anthropic-version": "2023-06-01",
    "x-api-key": "sk-ant-test",
}

TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}


def openai_body(prompt: str = "Weather in Paris?", *, stream: bool = False) -> bytes:
    body: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": prompt}],
        "tools": [TOOL],
    }
    if stream:
        body["stream"] = True
    return json.dumps(body).encode()


def anthropic_body(prompt: str = "Weather in Paris?", *, stream: bool = False) -> bytes:
    body: dict[str, Any] = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": prompt}],
    }
    if stream:
        body["stream"] = True
    return json.dumps(body).encode()


def sse_data(text: str) -> list[Any]:
    """The JSON ``data:`` payloads of a server-sent-events text (``[DONE]`` dropped)."""
    out = []
    for line in text.splitlines():
        if line.startswith("data:"):
            payload = line[5:].strip()
            if payload and payload != "[DONE]":
                out.append(json.loads(payload))
    return out


def openai_stream_result(text: str) -> tuple[str, dict[int, str]]:
    """(reassembled content, tool-call arguments by index) of an OpenAI chat stream."""
    content, args = "", {}
    for chunk in sse_data(text):
        for choice in chunk.get("choices", []):
            delta = choice.get("delta", {})
            content += delta.get("content") or ""
            for call in delta.get("tool_calls") or []:
                args[call["index"]] = args.get(call["index"], "") + (
                    call.get("function", {}).get("arguments") or ""
                )
    return content, args


def anthropic_stream_result(text: str) -> tuple[str, dict[int, str]]:
    """(reassembled text, tool input JSON by block index) of an Anthropic messages stream."""
    content, args = "", {}
    for event in sse_data(text):
        if event.get("type") == "content_block_delta":
            delta = event["delta"]
            if delta.get("type") == "text_delta":
                content += delta["text"]
            elif delta.get("type") == "input_json_delta":
                args[event["index"]] = args.get(event["index"], "") + delta["partial_json"]
    return content, args


def record(fn: Callable[[], Any]) -> tuple[Any, list[dict[str, Any]]]:
    """Run ``fn`` under a capture recording: ``(its result, the trace steps)``."""
    with Recording("capture") as rec:
        result = fn()
    return result, rec.trace.steps()


def replaying(steps: list[dict[str, Any]]) -> Recording:
    """A replay recording of ``steps`` (socket guard on), for ``with``."""
    return Recording("replay", cassette=Cassette(steps, name="transport-test"))


def replay(steps: list[dict[str, Any]], fn: Callable[[], Any]) -> tuple[Any, Recording]:
    """Run ``fn`` replaying ``steps`` (socket guard on): ``(its result, the recording)``."""
    with Recording("replay", cassette=Cassette(steps, name="transport-test")) as rec:
        result = fn()
    return result, rec
