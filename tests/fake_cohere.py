"""A fake Cohere chat API (v1 and v2): a real HTTP server on 127.0.0.1 (stdlib only).

Built on :class:`tests.fake_provider.FakeProvider`; drives the real ``cohere``
SDK::

    with FakeCohere() as fake:
        fake.script(v2_text_reply("hi"))
        client = cohere.ClientV2(api_key="test-key", base_url=fake.base_url)

Served: ``POST /v2/chat`` and ``POST /v1/chat`` (the request body says
``"stream": true`` or ``false``).

Wire format, as the real API sends it:

* v2 chat: ``{"id", "finish_reason", "message": {"role": "assistant",
  "content": [{"type": "text", "text"}], "tool_plan", "tool_calls": [{"id",
  "type": "function", "function": {"name", "arguments": <JSON text>}}]},
  "usage": {"billed_units": {"input_tokens", "output_tokens"}, "tokens":
  {"input_tokens", "output_tokens"}}}``;
* v2 stream: ``text/event-stream``, one SSE event per HTTP chunk, ``event:
  <type>`` + ``data: <JSON with the same "type">``: ``message-start``,
  ``tool-plan-delta``, ``tool-call-start`` / ``tool-call-delta`` /
  ``tool-call-end``, ``content-start`` / ``content-delta`` / ``content-end``,
  ``message-end`` (``finish_reason``, ``usage``);
* v1 chat: ``{"response_id", "text", "generation_id", "chat_history",
  "finish_reason", "tool_calls": [{"name", "parameters": {...}}], "meta":
  {"api_version", "billed_units", "tokens"}}``;
* v1 stream: ``application/stream+json``, one JSON object per line (and per
  HTTP chunk) with an ``event_type``: ``stream-start``, ``text-generation``,
  ``tool-calls-chunk``, ``tool-calls-generation``, ``stream-end`` (with the
  whole ``response``);
* errors: ``{"id", "message"}``.

Every reply carries ``x-debug-trace-id`` (derived from the reply's content).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from tests.fake_provider import FakeProvider, Reply

__all__ = [
    "FakeCohere",
    "error_reply",
    "v1_chat_reply",
    "v1_stream_reply",
    "v2_chat_reply",
    "v2_stream_reply",
]

V2Call = tuple[str, str, dict]  # (call id, tool name, arguments)
V1Call = tuple[str, dict]  # (tool name, parameters)


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()


def _trace(value: Any) -> tuple[tuple[str, str], ...]:
    return (("x-debug-trace-id", _digest(value)[:32]),)


def _usage(usage: tuple[int, int]) -> dict[str, Any]:
    return {
        "billed_units": {"input_tokens": usage[0], "output_tokens": usage[1]},
        "tokens": {"input_tokens": usage[0] + 200, "output_tokens": usage[1]},
    }


# --------------------------------------------------------------------------- v2


def v2_chat_reply(
    text: str | None = None,
    *,
    tool_calls: Sequence[V2Call] = (),
    tool_plan: str | None = None,
    usage: tuple[int, int] = (10, 5),
) -> Reply:
    message: dict[str, Any] = {"role": "assistant"}
    if tool_plan is not None:
        message["tool_plan"] = tool_plan
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": cid,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for cid, name, args in tool_calls
        ]
    if text is not None:
        message["content"] = [{"type": "text", "text": text}]
    body = {
        "id": _digest([text, list(tool_calls)])[:36],
        "finish_reason": "TOOL_CALL" if tool_calls else "COMPLETE",
        "message": message,
        "usage": _usage(usage),
    }
    return Reply(body=body, headers=_trace(body))


def _event(kind: str, **fields: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n"


def v2_stream_reply(
    pieces: Sequence[str] = (),
    *,
    tool_calls: Sequence[V2Call] = (),
    tool_plan: Sequence[str] = (),
    usage: tuple[int, int] = (10, 5),
    end: bool = True,
) -> Reply:
    """A v2 stream: the tool plan in pieces, each tool call (its arguments cut
    after every ``,`` / ``:``), then the text in ``pieces``, then
    ``message-end`` (left out with ``end=False``)."""
    mid = _digest([list(pieces), list(tool_calls), list(tool_plan)])[:36]
    events = [
        _event(
            "message-start",
            id=mid,
            delta={
                "message": {
                    "role": "assistant",
                    "content": [],
                    "tool_plan": "",
                    "tool_calls": [],
                    "citations": [],
                }
            },
        )
    ]
    for piece in tool_plan:
        events.append(_event("tool-plan-delta", delta={"message": {"tool_plan": piece}}))
    for index, (cid, name, args) in enumerate(tool_calls):
        start = {"id": cid, "type": "function", "function": {"name": name, "arguments": ""}}
        events.append(
            _event("tool-call-start", index=index, delta={"message": {"tool_calls": start}})
        )
        text = json.dumps(args)
        cuts = [i + 1 for i, ch in enumerate(text) if ch in ",:"] + [len(text)]
        prev = 0
        for cut in cuts:
            if cut > prev:
                events.append(
                    _event(
                        "tool-call-delta",
                        index=index,
                        delta={
                            "message": {"tool_calls": {"function": {"arguments": text[prev:cut]}}}
                        },
                    )
                )
                prev = cut
        events.append(_event("tool-call-end", index=index))
    if pieces:
        events.append(
            _event(
                "content-start",
                index=0,
                delta={"message": {"content": {"type": "text", "text": ""}}},
            )
        )
        for piece in pieces:
            events.append(
                _event(
                    "content-delta",
                    index=0,
                    delta={"message": {"content": {"text": piece}}},
                    logprobs=None,
                )
            )
        events.append(_event("content-end", index=0))
    if end:
        finish = "TOOL_CALL" if tool_calls else "COMPLETE"
        events.append(
            _event("message-end", delta={"finish_reason": finish, "usage": _usage(usage)})
        )
    return Reply(events=tuple(events), headers=_trace(events), content_type="text/event-stream")


# --------------------------------------------------------------------------- v1


def _v1_response(
    text: str, tool_calls: Sequence[V1Call], usage: tuple[int, int], message: str
) -> dict[str, Any]:
    calls = [{"name": name, "parameters": params} for name, params in tool_calls]
    chatbot: dict[str, Any] = {"role": "CHATBOT", "message": text}
    if calls:
        chatbot["tool_calls"] = calls
    body: dict[str, Any] = {
        "response_id": _digest(["r", text, calls])[:36],
        "text": text,
        "generation_id": _digest(["g", text, calls])[:36],
        "chat_history": [{"role": "USER", "message": message}, chatbot],
        "finish_reason": "COMPLETE",
        "meta": {"api_version": {"version": "1"}, **_usage(usage)},
    }
    if calls:
        body["tool_calls"] = calls
    return body


def v1_chat_reply(
    text: str = "",
    *,
    tool_calls: Sequence[V1Call] = (),
    usage: tuple[int, int] = (10, 5),
    message: str = "",
) -> Reply:
    body = _v1_response(text, tool_calls, usage, message)
    return Reply(body=body, headers=_trace(body))


def v1_stream_reply(
    pieces: Sequence[str] = (),
    *,
    tool_calls: Sequence[V1Call] = (),
    usage: tuple[int, int] = (10, 5),
    message: str = "",
    end: bool = True,
) -> Reply:
    """A v1 stream: ``stream-start``, the text in ``pieces``, each tool call as
    ``tool-calls-chunk`` deltas (name, then the parameters cut after every
    ``,`` / ``:``), a ``tool-calls-generation``, then ``stream-end`` (left out
    with ``end=False``)."""
    full = _v1_response("".join(pieces), tool_calls, usage, message)
    lines = [
        {"is_finished": False, "event_type": "stream-start", "generation_id": full["generation_id"]}
    ]
    lines += [
        {"is_finished": False, "event_type": "text-generation", "text": piece} for piece in pieces
    ]
    for index, (name, params) in enumerate(tool_calls):
        lines.append(
            {
                "is_finished": False,
                "event_type": "tool-calls-chunk",
                "tool_call_delta": {"index": index, "name": name},
            }
        )
        text = json.dumps(params)
        prev = 0
        for cut in [i + 1 for i, ch in enumerate(text) if ch in ",:"] + [len(text)]:
            if cut > prev:
                lines.append(
                    {
                        "is_finished": False,
                        "event_type": "tool-calls-chunk",
                        "tool_call_delta": {"index": index, "parameters": text[prev:cut]},
                    }
                )
                prev = cut
    if tool_calls:
        lines.append(
            {
                "is_finished": False,
                "event_type": "tool-calls-generation",
                "text": "",
                "tool_calls": full["tool_calls"],
            }
        )
    if end:
        lines.append(
            {
                "is_finished": True,
                "event_type": "stream-end",
                "finish_reason": "COMPLETE",
                "response": full,
            }
        )
    events = tuple(json.dumps(line) + "\n" for line in lines)
    return Reply(events=events, headers=_trace(lines), content_type="application/stream+json")


def error_reply(
    status: int = 429, *, message: str | None = None, retry_after: str | None = None
) -> Reply:
    text = message or (
        "You are using a Trial key, which is limited to 10 API calls / minute."
        if status == 429
        else f"Fake error {status}"
    )
    body = {"id": _digest([status, text])[:36], "message": text}
    headers = _trace(body) + ((("retry-after", retry_after),) if retry_after is not None else ())
    return Reply(status=status, body=body, headers=headers)


class FakeCohere(FakeProvider):
    """The fake Cohere API; pass ``base_url=fake.base_url`` to ``cohere.ClientV2(...)`` / ``Client(...)``."""

    label = "FakeCohere"
    routes = (("POST", "/v2/chat"), ("POST", "/v1/chat"))

    @property
    def base_url(self) -> str:
        """``"http://127.0.0.1:<port>"`` -- the SDK appends ``/v2/chat`` itself."""
        return self.origin
