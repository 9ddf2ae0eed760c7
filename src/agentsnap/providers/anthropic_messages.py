"""Codec for the Anthropic Messages API (``POST /v1/messages``, also ``?beta=true``).

Reads one recorded exchange of the official ``anthropic`` SDK (or anything
speaking the same wire format) into agentsnap's normalised view. Pure
functions over dicts and strings; no SDK is imported.

Wire format, as read here:

* request body: ``{"model", "max_tokens", "system"?, "messages": [{"role",
  "content": str | [blocks]}], "tools"?: [{"name", ...}], "stream"?}``;
  tool results travel back in user messages as ``{"type": "tool_result",
  "tool_use_id", "content": str | [blocks], "is_error"?}`` blocks;
* response body (a ``message`` object): ``{"id", "type": "message", "role",
  "model", "content": [blocks], "stop_reason", "usage": {"input_tokens",
  "output_tokens", "cache_creation_input_tokens"?, "cache_read_input_tokens"?}}``
  with blocks ``{"type": "text", "text"}``, ``{"type": "tool_use", "id",
  "name", "input"}``, ``{"type": "thinking", "thinking", "signature"}``, ...;
* streamed response (SSE, ``event: <type>`` plus ``data: <json>``):
  ``message_start`` (the message with empty content and the initial usage),
  then per content block ``content_block_start`` (``index``,
  ``content_block``), ``content_block_delta`` (``index``, ``delta`` of type
  ``text_delta.text``, ``input_json_delta.partial_json``,
  ``thinking_delta.thinking``, ``signature_delta``, ``citations_delta``) and
  ``content_block_stop``; then ``message_delta`` (``delta.stop_reason``,
  cumulative ``usage``) and ``message_stop``; ``ping`` at any time; an
  ``error`` event (``{"type": "error", "error": {"type", "message"}}``) ends
  the stream and makes the SDK raise;
* error body: ``{"type": "error", "error": {"type", "message"}, "request_id"?}``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from agentsnap.providers._common import (
    NO_ERROR,
    asked_to_stream,
    is_error,
    json_instead_of_stream,
    llm_call_view,
    object_body,
    preview,
    str_or_none,
    with_usage_details,
)
from agentsnap.providers._error_bodies import error_message
from agentsnap.providers.sse import parse_sse

__all__ = ["normalize", "tool_results"]


def normalize(request: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """Turn one recorded Messages API exchange into the normalised view.

    Args:
        request: ``{"method", "path", "query"?, "body": <parsed JSON request
            body, or None>}``.
        response: a read response ``{"status", "headers", "body"}`` (``body``
            parsed JSON, text or None; a non-JSON body stored as ``"text"`` is
            read too) or a streamed one ``{"status",
            "headers", "chunks": [str, ...]}`` holding the raw SSE text with
            arbitrary chunk boundaries. ``"chunks"`` marks a stream.

    Returns:
        A new dict (nothing aliases the inputs)::

            {"provider": "anthropic",
             "model": the response's model (message / message_start), else
                      the request's, else None,
             "messages": the request's "messages" list as sent ([] if absent;
                         the separate "system" prompt is not part of it),
             "tools": names of the tools offered (body.tools[].name),
             "response": the text of all "text" blocks, in block order,
                         joined with "" (citations split one answer into
                         several text blocks); thinking is not included,
             "tool_requests": [{"id", "name", "args"}] for each "tool_use"
                         block in block order; "args" is the input object
                         (streams: the input_json_delta fragments of that
                         block joined and parsed, the raw string when they
                         are not valid JSON),
             "tokens": usage total or None,
             "usage": {"input_tokens": input_tokens + cache_creation_input_tokens
                                       + cache_read_input_tokens (every prompt
                                       token, cached or not),
                       "output_tokens", "total_tokens": their sum,
                       "cached_tokens": cache_read_input_tokens, only when
                                        reported} or None,
             "stream": bool, "status": int,
             "complete": bool,   # streams only: message_stop was seen (or a
                                 # 2xx answered the stream with a JSON body)
             "error": str|None,  # only when status >= 400: error.message;
                                 # or "<type>: <message>" for a recorded
                                 # transport failure ({"error": {...}}, no status)
             "warnings": [str]}  # only when something could not be used

    Stream reassembly:

    * every delta is filed under its ``index`` (never by arrival), so
      interleaved deltas of several blocks each land in their own block;
      ``id`` and ``name`` come from ``content_block_start`` only and are
      never concatenated;
    * blocks are reported in index order (arrival order breaks ties when an
      index is started twice);
    * a delta whose block was never started starts one of the kind its delta
      implies (``text_delta`` -> text, ``input_json_delta`` -> tool_use,
      ``thinking_delta`` -> thinking), with a warning;
    * ``message_delta`` usage counts are cumulative: each one present
      overrides the value from ``message_start``;
    * without ``message_stop`` the view holds what was seen and
      ``"complete": False``; an ``error`` event ends the stream there;
    * a stream request answered with a plain JSON body (an HTTP error) is
      read like a non-streamed body.

    Raises:
        Nothing for any JSON-shaped input: malformed parts are skipped.
    """
    body = request.get("body")
    req_body: Mapping[str, Any] = body if isinstance(body, Mapping) else {}
    status = response.get("status")
    warnings: list[str] = []

    streamed = "chunks" in response
    if "status" not in response and isinstance(response.get("error"), Mapping):
        result = _Read()  # a transport failure: nothing came back to read
    elif streamed:
        result = _read_stream(response.get("chunks"), status, warnings)
    else:
        # send.py stores a JSON body as "body", any other text as "text"
        stored = response.get("body") if "body" in response else response.get("text")
        result = _read_body(stored, status, warnings)

    usage = result.usage()
    error: Any = NO_ERROR
    if is_error(status):
        error = error_message(result.error_body, json_text=True)
    elif isinstance(response.get("error"), Mapping):  # a transport failure: no HTTP response at all
        failure = response["error"]
        error = f"{failure.get('type')}: {failure.get('message')}"
    return llm_call_view(
        "anthropic",
        model=result.model or str_or_none(req_body.get("model")),
        messages=copy.deepcopy(req_body.get("messages", [])),
        tools=_tool_names(req_body),
        response=result.text(),
        tool_requests=result.tool_requests(),
        usage=usage,
        streamed=streamed or asked_to_stream(request),
        status=status,
        complete=result.complete,
        error=error,
        warnings=warnings,
    )


def tool_results(body: object) -> list[dict[str, Any]]:
    """Tool results the agent sent back in a Messages API request, in order.

    Each ``tool_result`` content block of a user message becomes
    ``{"id": tool_use_id, "result": content}`` with ``content`` exactly as
    sent (a string, a list of content blocks, or None when absent).
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
        return []
    out: list[dict[str, Any]] = []
    for message in body["messages"]:
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if (
                isinstance(block, Mapping)
                and block.get("type") == "tool_result"
                and block.get("tool_use_id")
            ):
                out.append(
                    {"id": block["tool_use_id"], "result": copy.deepcopy(block.get("content"))}
                )
    return out


# --------------------------------------------------------------------------
# helpers


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _tool_names(body: Mapping[str, Any]) -> list[str]:
    tools = body.get("tools")
    return [
        tool["name"]
        for tool in (tools if isinstance(tools, list) else [])
        if isinstance(tool, Mapping) and isinstance(tool.get("name"), str)
    ]


def _args(raw: object) -> Any:
    """A tool input: a JSON text is parsed (kept raw when it is not JSON)."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return copy.deepcopy(raw)


class _Block:
    """One content block, read whole or reassembled from deltas."""

    __slots__ = ("id", "index", "input", "kind", "name", "order", "parts")

    def __init__(self, index: int, order: int, start: Mapping[str, Any]) -> None:
        self.index = index
        self.order = order
        self.kind = start.get("type") if isinstance(start.get("type"), str) else None
        self.id = str_or_none(start.get("id"))
        self.name = str_or_none(start.get("name"))
        self.input: Any = copy.deepcopy(start.get("input"))
        # text of a text block, or partial_json fragments of a tool_use block
        self.parts: list[str] = []
        if self.kind == "text" and isinstance(start.get("text"), str) and start["text"]:
            self.parts.append(start["text"])

    def tool_request(self) -> dict[str, Any]:
        joined = "".join(self.parts)
        # no input_json_delta text (a tool without parameters): the start's input
        args = _args(joined) if joined else _args(self.input if self.input is not None else {})
        return {"id": self.id, "name": self.name, "args": args}


class _Read:
    """What one response (read or streamed) contributed to the view."""

    def __init__(self) -> None:
        self.model: str | None = None
        self.blocks: list[_Block] = []
        self.raw_usage: dict[str, int | None] | None = None
        self.complete = False
        self.error_body: Any = None

    def ordered(self) -> list[_Block]:
        return sorted(self.blocks, key=lambda b: (b.index, b.order))

    def text(self) -> str:
        return "".join("".join(b.parts) for b in self.ordered() if b.kind == "text")

    def tool_requests(self) -> list[dict[str, Any]]:
        return [b.tool_request() for b in self.ordered() if b.kind == "tool_use"]

    def take_usage(self, raw: object, *, cumulative_update: bool = False) -> None:
        if not isinstance(raw, Mapping):
            return
        fields = (
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        )
        if self.raw_usage is None or not cumulative_update:
            self.raw_usage = {name: _int_or_none(raw.get(name)) for name in fields}
            return
        for name in fields:  # message_delta: counts present are totals so far
            value = _int_or_none(raw.get(name))
            if value is not None:
                self.raw_usage[name] = value

    def usage(self) -> dict[str, Any] | None:
        raw = self.raw_usage
        if raw is None:
            return None
        prompt_parts = [
            raw[k]
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        ]
        known = [p for p in prompt_parts if p is not None]
        input_tokens = sum(known) if known else None
        output_tokens = raw["output_tokens"]
        total = None
        if input_tokens is not None or output_tokens is not None:
            total = (input_tokens or 0) + (output_tokens or 0)
        return with_usage_details(
            {"input_tokens": input_tokens, "output_tokens": output_tokens, "total_tokens": total},
            cached=raw["cache_read_input_tokens"],
        )


# --------------------------------------------------------------------------
# read (non-streamed) responses


def _read_body(body: object, status: object, warnings: list[str]) -> _Read:
    out = _Read()
    body = out.error_body = object_body(body, status, warnings)
    failed = is_error(status)
    if not isinstance(body, Mapping):
        return out
    if not failed and body.get("type") == "error":
        warnings.append(f"response body carries an error: {error_message(body, json_text=True)!r}")
    out.model = str_or_none(body.get("model"))
    out.take_usage(body.get("usage"))
    content = body.get("content")
    for position, block in enumerate(content if isinstance(content, list) else []):
        if not isinstance(block, Mapping):
            continue
        item = _Block(position, position, block)
        if item.kind == "tool_use" and isinstance(block.get("input"), str):
            item.parts.append(block["input"])
        out.blocks.append(item)
    return out


# --------------------------------------------------------------------------
# streamed responses


_DELTA_KINDS = {"text_delta": "text", "input_json_delta": "tool_use", "thinking_delta": "thinking"}


def _read_stream(chunks: object, status: object, warnings: list[str]) -> _Read:
    text = "".join(c for c in chunks if isinstance(c, str)) if isinstance(chunks, list) else ""
    events = parse_sse(text)
    body = json_instead_of_stream(text, events)
    if body is not None:
        out = _read_body(body, status, warnings)
        out.complete = not is_error(status)
        return out

    out = _Read()
    by_index: dict[int, _Block] = {}
    for number, event in enumerate(events):
        if event.event == "ping":
            continue
        try:
            payload = json.loads(event.data)
        except ValueError:
            warnings.append(
                f"event {number} ({event.event}): data is not JSON: {preview(event.data)}"
            )
            continue
        if not isinstance(payload, Mapping):
            warnings.append(
                f"event {number} ({event.event}): data is not a JSON object: {preview(event.data)}"
            )
            continue
        kind = payload.get("type") if isinstance(payload.get("type"), str) else event.event
        if event.event == "error" or kind == "error":
            out.error_body = payload
            out.complete = False
            warnings.append(
                f"event {number}: stream error: {error_message(payload, json_text=True)!r}"
            )
            break
        if kind == "message_start":
            message = payload.get("message")
            if isinstance(message, Mapping):
                out.model = out.model or str_or_none(message.get("model"))
                out.take_usage(message.get("usage"))
        elif kind == "content_block_start":
            index = _int_or_none(payload.get("index"))
            start = payload.get("content_block")
            if index is None or not isinstance(start, Mapping):
                warnings.append(
                    f"event {number}: content_block_start without an index or a content_block"
                )
                continue
            if index in by_index:
                warnings.append(f"event {number}: content block {index} started twice")
            block = _Block(index, len(out.blocks), start)
            out.blocks.append(block)
            by_index[index] = block
        elif kind == "content_block_delta":
            index = _int_or_none(payload.get("index"))
            delta = payload.get("delta")
            if index is None or not isinstance(delta, Mapping):
                warnings.append(f"event {number}: content_block_delta without an index or a delta")
                continue
            target = by_index.get(index)
            if target is None:
                implied = _DELTA_KINDS.get(str(delta.get("type")))
                warnings.append(
                    f"event {number}: delta for content block {index}, which was never started"
                )
                target = _Block(index, len(out.blocks), {"type": implied} if implied else {})
                out.blocks.append(target)
                by_index[index] = target
            _apply_delta(target, delta)
        elif kind == "message_delta":
            out.take_usage(payload.get("usage"), cumulative_update=True)
        elif kind == "message_stop":
            out.complete = True
        # content_block_stop, unknown event types: nothing to read
    return out


def _apply_delta(block: _Block, delta: Mapping[str, Any]) -> None:
    kind = delta.get("type")
    if kind == "text_delta" and block.kind == "text" and isinstance(delta.get("text"), str):
        block.parts.append(delta["text"])
    elif kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
        if block.kind == "tool_use":
            block.parts.append(delta["partial_json"])
    elif (
        kind == "thinking_delta"
        and block.kind == "thinking"
        and isinstance(delta.get("thinking"), str)
    ):
        block.parts.append(delta["thinking"])


def looks_like_response(body: Mapping[str, Any]) -> bool:
    """A Messages API response: an assistant ``message`` with a content list (an input
    item of the same ``type`` has another role)."""
    return (
        body.get("type") == "message"
        and isinstance(body.get("content"), list)
        and body.get("role") == "assistant"
    )
