"""A fake Mistral chat API: a real HTTP server on 127.0.0.1 (stdlib only).

Built on :class:`tests.fake_provider.FakeProvider`; drives the real
``mistralai`` SDK::

    with FakeMistral() as fake:
        fake.script(text_reply("hi"), error_reply(429))
        client = Mistral(api_key="test-key", server_url=fake.base_url)

Served: ``POST /v1/chat/completions`` (``chat.complete`` / ``chat.stream``:
the SDK marks a stream with a ``#stream`` URL fragment, which never reaches
the server; the body says ``"stream": true``) and ``POST /v1/agents/completions``.

Wire format, as the real API sends it:

* a completion: compact JSON (no spaces) ``{"id": "cmpl-...", "object":
  "chat.completion", "model", "usage": {"prompt_tokens", "completion_tokens",
  "total_tokens"}, "created", "choices": [{"index", "message": {"role":
  "assistant", "content", "tool_calls": [{"id", "type": "function",
  "function": {"name", "arguments"}, "index"}] | null, "prefix": false},
  "finish_reason"}]}``; ``arguments`` is a JSON string or an object;
* a stream: ``text/event-stream``, one ``data: <chunk JSON>\\n\\n`` event per
  HTTP chunk, then ``data: [DONE]\\n\\n``; the first delta carries the role,
  a streamed tool call arrives whole in one delta, and the last chunk
  carries ``finish_reason`` and ``usage``;
* errors: the API's compact ``{"object": "error", "message", "type",
  "param", "code"}``, and the gateway's (Kong) indented ``{"message",
  "request_id"}`` for 429 — the layout matters: the SDK quotes the body
  verbatim in ``SDKError``.

Every reply carries ``mistral-correlation-id`` and ``x-kong-request-id``
(derived from the reply's content, so recordings are reproducible).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tests.fake_provider import FakeProvider, Reply, _Handler, _Server

__all__ = [
    "DEFAULT_MODEL",
    "FakeMistral",
    "RawReply",
    "chat_reply",
    "error_reply",
    "stream_reply",
    "stream_text_reply",
    "stream_tool_calls_reply",
    "text_reply",
    "tool_calls_reply",
]

DEFAULT_MODEL = "mistral-small-latest"
CREATED = 1_700_000_000

ToolCall = tuple[str, str, "dict | str"]  # (call id, function name, arguments as dict or JSON text)


@dataclass(frozen=True)
class RawReply(Reply):
    """A non-streamed reply written byte for byte (``raw``) with ``content_type``."""

    raw: bytes = b""


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _ids(seed: str) -> tuple[tuple[str, str], ...]:
    digest = hashlib.sha256(seed.encode()).hexdigest()
    return (
        ("mistral-correlation-id", f"corr-{digest[:20]}"),
        ("x-kong-request-id", f"kong-{digest[20:40]}"),
    )


def _tool_calls(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    return [
        {
            "id": cid,
            "type": "function",
            "function": {"name": name, "arguments": args},
            "index": index,
        }
        for index, (cid, name, args) in enumerate(calls)
    ]


def chat_reply(
    content: Any = "",
    *,
    tool_calls: Sequence[ToolCall] = (),
    model: str = DEFAULT_MODEL,
    usage: tuple[int, int] = (12, 6),
    finish_reason: str | None = None,
    status: int = 200,
) -> RawReply:
    """A ``chat.completion`` body, compact JSON. ``finish_reason`` defaults to
    ``"tool_calls"`` when there are tool calls, else ``"stop"``."""
    body = {
        "id": "cmpl-"
        + hashlib.sha256(_compact([content, list(tool_calls)]).encode()).hexdigest()[:24],
        "object": "chat.completion",
        "model": model,
        "usage": {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        },
        "created": CREATED,
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": content,
                    "tool_calls": _tool_calls(tool_calls) or None,
                    "prefix": False,
                },
                "finish_reason": finish_reason or ("tool_calls" if tool_calls else "stop"),
            }
        ],
    }
    raw = _compact(body)
    return RawReply(
        status=status, raw=raw.encode(), content_type="application/json", headers=_ids(raw)
    )


def text_reply(content: str, **kwargs: Any) -> RawReply:
    return chat_reply(content, **kwargs)


def tool_calls_reply(calls: Sequence[ToolCall], content: str = "", **kwargs: Any) -> RawReply:
    return chat_reply(content, tool_calls=calls, **kwargs)


def stream_reply(
    deltas: Sequence[dict[str, Any]],
    *,
    model: str = DEFAULT_MODEL,
    usage: tuple[int, int] | None = (12, 6),
    finish_reason: str = "stop",
    done: bool = True,
) -> Reply:
    """A stream: one chunk per delta (the last one with ``finish_reason`` and
    ``usage``), then ``[DONE]`` unless ``done=False``."""
    cid = "cmpl-" + hashlib.sha256(_compact(list(deltas)).encode()).hexdigest()[:24]
    events = []
    for number, delta in enumerate(deltas):
        last = number == len(deltas) - 1
        chunk: dict[str, Any] = {
            "id": cid,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": model,
            "choices": [
                {"index": 0, "delta": delta, "finish_reason": finish_reason if last else None}
            ],
        }
        if last and usage is not None:
            chunk["usage"] = {
                "prompt_tokens": usage[0],
                "completion_tokens": usage[1],
                "total_tokens": sum(usage),
            }
        events.append(f"data: {_compact(chunk)}\n\n")
    if done:
        events.append("data: [DONE]\n\n")
    return Reply(
        events=tuple(events), headers=_ids(cid), content_type="text/event-stream; charset=utf-8"
    )


def stream_text_reply(pieces: Sequence[str], **kwargs: Any) -> Reply:
    """A role delta (empty content), then one content delta per piece."""
    deltas = [{"role": "assistant", "content": ""}] + [{"content": piece} for piece in pieces]
    return stream_reply(deltas, **kwargs)


def stream_tool_calls_reply(calls: Sequence[ToolCall], **kwargs: Any) -> Reply:
    """A role delta, then each tool call whole in its own delta (as Mistral streams them)."""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    for call in _tool_calls(calls):
        deltas.append({"tool_calls": [call]})
    kwargs.setdefault("finish_reason", "tool_calls")
    return stream_reply(deltas, **kwargs)


def error_reply(
    status: int = 429,
    *,
    message: str | None = None,
    gateway: bool | None = None,
    retry_after: str | None = None,
) -> RawReply:
    """An error body as sent for ``status``.

    ``gateway`` (default: ``status == 429``): the gateway's indented
    ``{"message", "request_id"}`` with a trailing newline; otherwise the
    API's compact ``{"object": "error", ...}``.
    """
    if gateway is None:
        gateway = status == 429
    text = message or ("Requests rate limit exceeded" if status == 429 else f"Fake error {status}")
    if gateway:
        body = {
            "message": text,
            "request_id": hashlib.sha256(f"{status}:{text}".encode()).hexdigest()[:32],
        }
        raw = json.dumps(body, indent=2, separators=(",", ":")) + "\n"
    else:
        kind = "invalid_request_error" if status < 500 else "internal_server_error"
        raw = _compact(
            {"object": "error", "message": text, "type": kind, "param": None, "code": str(status)}
        )
    headers = _ids(raw) + ((("retry-after", retry_after),) if retry_after is not None else ())
    return RawReply(
        status=status, raw=raw.encode(), content_type="application/json", headers=headers
    )


class _RawHandler(_Handler):
    def _send_json(self, reply: Reply, key: str) -> None:
        if not isinstance(reply, RawReply):
            super()._send_json(reply, key)
            return
        self._start(reply.status, reply.content_type or "application/json", reply, key)
        self.send_header("content-length", str(len(reply.raw)))
        self.end_headers()
        self.wfile.write(reply.raw)


class FakeMistral(FakeProvider):
    """The fake Mistral API; pass ``server_url=fake.base_url`` to ``Mistral(...)``."""

    label = "FakeMistral"
    routes = (("POST", "/v1/chat/completions"), ("POST", "/v1/agents/completions"))

    def start(self) -> FakeMistral:
        # as FakeProvider.start, with a handler that also writes RawReply bytes
        if self._server is not None:
            return self
        self._server = _Server(("127.0.0.1", 0), _RawHandler)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name=self.label,
            daemon=True,
        )
        self._thread.start()
        return self

    @property
    def base_url(self) -> str:
        """``"http://127.0.0.1:<port>"`` -- the SDK appends ``/v1/...`` itself."""
        return self.origin
