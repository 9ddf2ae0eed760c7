"""Codec for Cohere's v2 chat API (``POST /v2/chat``).

Request: ``{"model", "messages": [{"role": "system" | "user" | "assistant" |
"tool", "content", "tool_calls"?, "tool_plan"?, "tool_call_id"?}], "tools":
[{"type": "function", "function": {"name", ...}}], "stream": bool, ...}``.

Read response (``V2ChatResponse``): ``{"id", "finish_reason", "message":
{"role": "assistant", "content": [{"type": "text", "text"} | {"type":
"thinking", "thinking"}], "tool_plan", "tool_calls": [{"id", "type":
"function", "function": {"name", "arguments": <JSON text>}}], "citations"},
"usage": {"billed_units": {"input_tokens", "output_tokens", ...}, "tokens":
{"input_tokens", "output_tokens"}}}``.

Streamed response: SSE events (``event: <type>`` + ``data: <JSON>``; the SDK
reads the type from the data's own ``"type"``), in order ``message-start``,
then ``content-start`` / ``content-delta`` / ``content-end`` per content
block (``index``), ``tool-plan-delta``, ``tool-call-start`` /
``tool-call-delta`` / ``tool-call-end`` per tool call (``index``),
``citation-start`` / ``citation-end``, and ``message-end`` carrying
``finish_reason``, ``usage`` and possibly ``error``. A ``data: [DONE]`` line,
if any, also ends the stream (the SDK stops there).

Pure functions over the recorded exchange; the SDK is never imported.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from agentsnap.providers import openai_chat as _oa
from agentsnap.providers._common import (
    ChatFormat,
    Read,
    event_object,
    is_error,
    object_body,
    read_exchange,
    str_or_none,
)
from agentsnap.providers._error_bodies import error_message as _error_text
from agentsnap.providers.sse import parse_sse

__all__ = ["normalize", "number", "tool_results", "usage_of"]


def normalize(request: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """Turn one recorded v2 chat exchange into the normalised view.

    Returns ``{"provider": "cohere", "model", "messages", "tools",
    "response", "tool_requests", "tokens", "usage", "stream", "status"}``
    plus ``"complete"`` for streams (``message-end`` or ``[DONE]`` seen),
    ``"error"`` when ``status >= 400`` (or the message-end event reported
    one) and ``"warnings"`` when something was skipped.

    * ``model``: the request's (Cohere responses do not name the model);
    * ``response``: the ``text`` content blocks joined, in block order
      (thinking blocks and the tool plan are not the answer);
    * ``tool_requests``: ``{"id", "name", "args"}`` per tool call, in index
      order for a stream; ``args`` is the parsed JSON, else the raw text;
    * ``usage``: ``usage.tokens`` (what the model processed), falling back to
      ``usage.billed_units``; integral floats are given as ints.
    """
    return read_exchange(_FORMAT, request, response)


def tool_results(body: object) -> list[dict[str, Any]]:
    """Tool results in a v2 chat request: each ``role: "tool"`` message, in order.

    ``{"id": tool_call_id, "result": content}`` — ``content`` as sent (a
    string, or a list of text / document blocks).
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
        return []
    return [
        {"id": m.get("tool_call_id"), "result": copy.deepcopy(m.get("content"))}
        for m in body["messages"]
        if isinstance(m, Mapping) and m.get("role") == "tool" and m.get("tool_call_id")
    ]


def number(value: object) -> Any:
    """A token count as a number: integral floats (``12.0``) become ints; non-numbers None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def usage_of(raw: object) -> dict[str, Any] | None:
    """``{"input_tokens", "output_tokens", "total_tokens"}`` from a Cohere usage / meta object.

    Reads ``tokens`` first, then ``billed_units`` for what ``tokens`` lacks;
    None when neither says anything.
    """
    if not isinstance(raw, Mapping):
        return None
    found: dict[str, Any] = {}
    for part in ("tokens", "billed_units"):
        counts = raw.get(part)
        if not isinstance(counts, Mapping):
            continue
        for key in ("input_tokens", "output_tokens"):
            if found.get(key) is None:
                found[key] = number(counts.get(key))
    if not found or all(v is None for v in found.values()):
        return None
    inp, outp = found.get("input_tokens"), found.get("output_tokens")
    total = inp + outp if inp is not None and outp is not None else None
    return {"input_tokens": inp, "output_tokens": outp, "total_tokens": total}


# --------------------------------------------------------------------------


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        block["text"]
        for block in content
        if isinstance(block, Mapping)
        and block.get("type", "text") == "text"
        and isinstance(block.get("text"), str)
    )


def _call(raw: object) -> dict[str, Any] | None:
    if not isinstance(raw, Mapping):
        return None
    function = raw.get("function")
    if not isinstance(function, Mapping):
        function = {}
    return {
        "id": str_or_none(raw.get("id")),
        "name": str_or_none(function.get("name")),
        "args": _oa._args(function.get("arguments")),
    }


def _read_body(body: object, status: object, warnings: list[str]) -> Read:
    out = Read()
    body = out.error_body = object_body(body, status, warnings)
    if not isinstance(body, Mapping):
        return out
    out.usage = usage_of(body.get("usage"))
    message = body.get("message")
    if not isinstance(message, Mapping):
        return out
    out.text = _content_text(message.get("content"))
    calls = message.get("tool_calls")
    out.tool_requests = [
        c for c in map(_call, calls if isinstance(calls, list) else []) if c is not None
    ]
    return out


class _StreamCall:
    __slots__ = ("id", "name", "parts")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.parts: list[str] = []

    def absorb(self, raw: object) -> None:
        if not isinstance(raw, Mapping):
            return
        if self.id is None:
            self.id = str_or_none(raw.get("id"))
        function = raw.get("function")
        if not isinstance(function, Mapping):
            return
        if self.name is None:
            self.name = str_or_none(function.get("name"))
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            self.parts.append(arguments)
        elif isinstance(arguments, Mapping):  # a whole argument object
            self.parts.append(json.dumps(arguments, separators=(",", ":"), ensure_ascii=False))


def _index(payload: Mapping[str, Any]) -> int | None:
    index = payload.get("index")
    if isinstance(index, bool) or not isinstance(index, (int, float)):
        return None
    return int(index)


def _delta_message(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    delta = payload.get("delta")
    message = delta.get("message") if isinstance(delta, Mapping) else None
    return message if isinstance(message, Mapping) else {}


def _read_stream(chunks: object, status: object, warnings: list[str]) -> Read:
    text = "".join(c for c in chunks if isinstance(c, str)) if isinstance(chunks, list) else ""
    events = parse_sse(text)
    if not events and text.lstrip().startswith("{"):
        # an HTTP error answering a stream request: one JSON body, not SSE
        out = _read_body(text, status, warnings)
        out.complete = not is_error(status)
        return out

    out = Read()
    blocks: dict[int, list[str]] = {}  # content index -> text pieces
    kinds: dict[int, str] = {}  # content index -> block type
    calls: dict[int, _StreamCall] = {}
    order: list[_StreamCall] = []  # index-less calls, in arrival order
    current: _StreamCall | None = None
    for number_, event in enumerate(events):
        data = event.data
        if data.strip() == "[DONE]":
            out.complete = True
            break
        payload = event_object(data, f"event {number_}", warnings)
        if payload is None:
            continue
        kind = payload.get("type") if isinstance(payload.get("type"), str) else event.event
        index = _index(payload)
        message = _delta_message(payload)
        if kind in ("content-start", "content-delta"):
            content = message.get("content")
            if not isinstance(content, Mapping):
                continue
            slot = index if index is not None else (max(blocks) if blocks else 0)
            if isinstance(content.get("type"), str):
                kinds.setdefault(slot, content["type"])
            piece = content.get("text")
            if isinstance(piece, str):
                blocks.setdefault(slot, []).append(piece)
        elif kind in ("tool-call-start", "tool-call-delta"):
            raw = message.get("tool_calls")
            if isinstance(raw, list):  # tolerate a list of one
                raw = raw[0] if raw else None
            raw_id = str_or_none(raw.get("id")) if isinstance(raw, Mapping) else None
            if index is not None:
                call = calls.get(index)
                if call is None or (
                    raw_id is not None and call.id is not None and raw_id != call.id
                ):
                    call = calls[index] = _StreamCall()
            elif raw_id is not None:
                call = next((c for c in [*calls.values(), *order] if c.id == raw_id), None)
                if call is None:
                    call = _StreamCall()
                    order.append(call)
            elif current is not None:
                call = current
            else:
                call = _StreamCall()
                order.append(call)
            call.absorb(raw)
            current = call
        elif kind == "message-end":
            delta = payload.get("delta")
            if isinstance(delta, Mapping):
                out.usage = usage_of(delta.get("usage"))
                if isinstance(delta.get("error"), str) and delta["error"]:
                    out.stream_error = delta["error"]
                    warnings.append(f"event {number_}: stream error: {delta['error']!r}")
            out.complete = True
            break

    out.text = "".join("".join(blocks[i]) for i in sorted(blocks) if kinds.get(i, "text") == "text")
    ordered = [calls[i] for i in sorted(calls)] + order
    out.tool_requests = [
        {"id": c.id, "name": c.name, "args": _oa._args("".join(c.parts))} for c in ordered
    ]
    return out


def looks_like_response(body: Mapping[str, Any]) -> bool:
    """A v2 chat response: an assistant ``message``."""
    message = body.get("message")
    return isinstance(message, Mapping) and message.get("role") == "assistant"


#: what Cohere's v2 chat format plugs into the shared exchange reader (the model is the
#: request's: its responses do not name one; error bodies are always stored parsed)
_FORMAT = ChatFormat(
    "cohere",
    read_body=_read_body,
    read_stream=_read_stream,
    tool_names=_oa._tool_names,
    error_text=_error_text,
    verbatim_text=False,
)
