"""A fake Anthropic Messages API: a real HTTP server on 127.0.0.1 (stdlib only).

Built on :class:`tests.fake_provider.FakeProvider`; drives the real ``anthropic``
SDK::

    with FakeAnthropic() as fake:
        fake.script(text_reply("hi"), error_reply(529))
        client = anthropic.Anthropic(base_url=fake.base_url, api_key="sk-ant-test")

Served: ``POST /v1/messages`` (the beta variant ``?beta=true`` too: the query is
ignored) and ``POST /v1/messages/count_tokens``.

Wire format (as the real API sends it):

* a message: ``{"id": "msg_...", "type": "message", "role": "assistant",
  "model", "content": [blocks], "stop_reason", "stop_sequence": null,
  "usage": {"input_tokens", "output_tokens", "cache_creation_input_tokens",
  "cache_read_input_tokens"}}``, ``content-type: application/json``;
* a stream (request body ``"stream": true``): ``text/event-stream``, one SSE
  event per HTTP chunk, ``event: <type>`` + ``data: <json>``:
  ``message_start``, ``ping``, per block ``content_block_start`` /
  ``content_block_delta`` (``text_delta``, ``input_json_delta``,
  ``thinking_delta``, ``signature_delta``) / ``content_block_stop``, then
  ``message_delta`` (stop reason, cumulative ``usage.output_tokens``) and
  ``message_stop``; optionally an ``error`` event instead of the end;
* an error: ``{"type": "error", "error": {"type", "message"}, "request_id"}``.

Every reply carries ``request-id`` (what the SDK exposes as ``_request_id``;
derived from the reply's content, so it is reproducible),
``anthropic-ratelimit-requests-remaining`` and ``anthropic-organization-id``
(an account header agentsnap must not keep).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from tests.fake_provider import FakeProvider, Reply

__all__ = [
    "DEFAULT_MODEL",
    "ORG_ID",
    "FakeAnthropic",
    "count_tokens_reply",
    "error_reply",
    "message_reply",
    "stream_reply",
    "stream_text_reply",
    "text_block",
    "text_reply",
    "thinking_block",
    "tool_use_block",
    "tool_use_reply",
]

DEFAULT_MODEL = "claude-sonnet-4-6"
ORG_ID = "org-fake-0001"

Usage = tuple[int, int]  # (input_tokens, output_tokens)
ToolUse = tuple[str, str, dict]  # (tool_use id, tool name, input)


class FakeAnthropic(FakeProvider):
    """The fake Anthropic API; pass ``base_url`` as ``Anthropic(base_url=...)``."""

    label = "FakeAnthropic"
    routes = (("POST", "/v1/messages"), ("POST", "/v1/messages/count_tokens"))

    @property
    def base_url(self) -> str:
        """``"http://127.0.0.1:<port>"`` (the SDK adds ``/v1/messages`` itself)."""
        return self.origin


# --------------------------------------------------------------------------- blocks


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def tool_use_block(tool_id: str, name: str, input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": input}


def thinking_block(thinking: str, signature: str = "sig-fake") -> dict[str, Any]:
    return {"type": "thinking", "thinking": thinking, "signature": signature}


# --------------------------------------------------------------------------- helpers


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def _headers(request_id: str, extra: Sequence[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return (
        ("request-id", request_id),
        ("anthropic-organization-id", ORG_ID),
        ("anthropic-ratelimit-requests-remaining", "49"),
        *extra,
    )


def _usage(usage: Usage, cache: Usage) -> dict[str, int]:
    return {
        "input_tokens": usage[0],
        "output_tokens": usage[1],
        "cache_creation_input_tokens": cache[0],
        "cache_read_input_tokens": cache[1],
    }


def _stop_reason(blocks: Sequence[dict[str, Any]]) -> str:
    return "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"


# --------------------------------------------------------------------------- JSON replies


def message_reply(
    *blocks: dict[str, Any],
    model: str = DEFAULT_MODEL,
    stop_reason: str | None = None,
    usage: Usage = (10, 5),
    cache: Usage = (0, 0),
    headers: Sequence[tuple[str, str]] = (),
) -> Reply:
    """A (non-streamed) message with these content blocks."""
    body: dict[str, Any] = {
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(blocks),
        "stop_reason": stop_reason or _stop_reason(blocks),
        "stop_sequence": None,
        "usage": _usage(usage, cache),
    }
    digest = _digest(body)
    body = {"id": f"msg_{digest[:24]}", **body}
    return Reply(body=body, headers=_headers(f"req_{digest[24:48]}", headers))


def text_reply(text: str, **kwargs: Any) -> Reply:
    """A plain answer: one text block, ``stop_reason: "end_turn"``."""
    return message_reply(text_block(text), **kwargs)


def tool_use_reply(calls: Sequence[ToolUse], text: str | None = None, **kwargs: Any) -> Reply:
    """The model asks for tools: ``calls = [("toolu_A", "get_weather", {"city": "Paris"}), ...]``."""
    blocks = ([text_block(text)] if text is not None else []) + [tool_use_block(*c) for c in calls]
    return message_reply(*blocks, **kwargs)


def count_tokens_reply(input_tokens: int) -> Reply:
    """The answer of ``POST /v1/messages/count_tokens``."""
    body = {"input_tokens": input_tokens}
    return Reply(body=body, headers=_headers(f"req_{_digest(body)[:24]}", ()))


_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def error_reply(
    status: int,
    *,
    message: str | None = None,
    type: str | None = None,
    retry_after: str | None = None,
    should_retry: str | None = None,
) -> Reply:
    """An API error. ``retry_after`` sets ``retry-after`` (seconds);
    ``should_retry`` sets ``x-should-retry`` (``"true"`` / ``"false"``)."""
    error = {
        "type": type or _ERROR_TYPES.get(status, "api_error"),
        "message": message or f"Fake error {status}.",
    }
    digest = _digest([status, error])
    request_id = f"req_{digest[:24]}"
    body = {"type": "error", "error": error, "request_id": request_id}
    extra = []
    if retry_after is not None:
        extra.append(("retry-after", retry_after))
    if should_retry is not None:
        extra.append(("x-should-retry", should_retry))
    return Reply(status=status, body=body, headers=_headers(request_id, extra))


# --------------------------------------------------------------------------- streamed replies


def _event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


def _words(text: str) -> list[str]:
    """``"Sunny in Paris."`` -> ``["Sunny ", "in ", "Paris."]``."""
    return [w for w in re.split(r"(?<= )", text) if w]


def _json_pieces(value: dict[str, Any]) -> list[str]:
    """A compact JSON text cut after each ``:`` and ``,``."""
    text = json.dumps(value, separators=(",", ":"))
    return [p for p in re.split(r"(?<=[:,])", text) if p]


def _start_of(block: dict[str, Any]) -> dict[str, Any]:
    if block["type"] == "text":
        return {"type": "text", "text": ""}
    if block["type"] == "tool_use":
        return {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
    if block["type"] == "thinking":
        return {"type": "thinking", "thinking": "", "signature": ""}
    return block


def _deltas_of(block: dict[str, Any]) -> list[dict[str, Any]]:
    if block["type"] == "text":
        return [{"type": "text_delta", "text": w} for w in _words(block["text"])]
    if block["type"] == "tool_use":
        return [
            {"type": "input_json_delta", "partial_json": p} for p in _json_pieces(block["input"])
        ]
    if block["type"] == "thinking":
        pieces = [{"type": "thinking_delta", "thinking": w} for w in _words(block["thinking"])]
        return [*pieces, {"type": "signature_delta", "signature": block["signature"]}]
    return []


def stream_reply(
    *blocks: dict[str, Any],
    model: str = DEFAULT_MODEL,
    stop_reason: str | None = None,
    usage: Usage = (10, 5),
    cache: Usage = (0, 0),
    interleave: bool = False,
    error: tuple[str, str] | None = None,
    headers: Sequence[tuple[str, str]] = (),
) -> Reply:
    """A streamed message with these content blocks.

    Text and thinking are sent word by word, tool inputs as compact JSON cut
    after each ``:`` / ``,``. With ``interleave`` all ``tool_use`` blocks are
    started first, their ``input_json_delta`` events then alternate between
    the blocks (``{"city":`` for 1, ``{"tz":`` for 2, ``"Paris"}`` for 1, ...),
    and the blocks are stopped last. ``error=(type, message)`` replaces the
    ``message_delta`` / ``message_stop`` tail with an ``error`` event (the
    server failing mid-stream).
    """
    events: list[str] = []
    message = {
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": _usage((usage[0], 1), cache),
    }
    digest = _digest([list(blocks), model, usage, cache, interleave, error])
    message = {"id": f"msg_{digest[:24]}", **message}
    events.append(_event("message_start", {"type": "message_start", "message": message}))
    events.append(_event("ping", {"type": "ping"}))

    tool_indices = [i for i, b in enumerate(blocks) if b["type"] == "tool_use"]
    grouped = interleave and len(tool_indices) > 1
    for index, block in enumerate(blocks):
        if grouped and index in tool_indices:
            if index != tool_indices[0]:
                continue
            for i in tool_indices:
                events.append(
                    _event(
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": i,
                            "content_block": _start_of(blocks[i]),
                        },
                    )
                )
            queues = [[(i, d) for d in _deltas_of(blocks[i])] for i in tool_indices]
            longest = max(len(q) for q in queues)
            for step in range(longest):
                for queue in queues:
                    if step < len(queue):
                        i, delta = queue[step]
                        events.append(
                            _event(
                                "content_block_delta",
                                {"type": "content_block_delta", "index": i, "delta": delta},
                            )
                        )
            for i in tool_indices:
                events.append(
                    _event("content_block_stop", {"type": "content_block_stop", "index": i})
                )
            continue
        events.append(
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": _start_of(block)},
            )
        )
        for delta in _deltas_of(block):
            events.append(
                _event(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))

    if error is not None:
        events.append(
            _event("error", {"type": "error", "error": {"type": error[0], "message": error[1]}})
        )
    else:
        delta = {"stop_reason": stop_reason or _stop_reason(blocks), "stop_sequence": None}
        events.append(
            _event(
                "message_delta",
                {"type": "message_delta", "delta": delta, "usage": {"output_tokens": usage[1]}},
            )
        )
        events.append(_event("message_stop", {"type": "message_stop"}))
    return Reply(events=tuple(events), headers=_headers(f"req_{digest[24:48]}", headers))


def stream_text_reply(text: str, **kwargs: Any) -> Reply:
    """A streamed plain answer (one text block, sent word by word)."""
    return stream_reply(text_block(text), **kwargs)
