"""A fake WebSocket API on 127.0.0.1: OpenAI Realtime, Responses over WebSocket, Gemini Live.

Drives the real SDKs in tests::

    with FakeWebSocketAPI() as fake:
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test")
        with client.realtime.connect(model="gpt-realtime") as conn:
            ...
        fake.connections[0].path      # "/v1/realtime"
        fake.connections[0].frames    # the client's events, parsed JSON

One real ``websockets`` server (the threaded ``websockets.sync.server``) routes each
connection by its request path. Every protocol speaks just enough for a TEXT session
with ONE tool call: a user message that mentions "weather" is answered with a call of
the first declared function tool (arguments ``{"city": <a capitalised word after
"in", else "Paris">}``) when tools were declared and the call has not been answered
yet; a turn after the tool's output answers ``"The weather in <city>: <output>"``;
anything else answers ``"You said: <text>"``. Text is streamed in pieces of at most
``piece`` characters (2 pieces at least). Ids come from per-connection counters,
``created_at`` values are fixed, usage is computed from text lengths: the same
conversation gives the same bytes on every run.

Wire formats, as the SDKs see them:

* **OpenAI Realtime** ``GET /v1/realtime?model=M`` (``openai`` derives
  ``ws://<base_url>/realtime``; the key is the ``Authorization: Bearer`` header).
  Two dialects on one path: the GA API, and the beta one when the handshake carries
  ``OpenAI-Beta: realtime=v1`` (``client.beta.realtime.connect``). On connect the
  server sends ``session.created``; ``session.update`` -> ``session.updated``;
  ``conversation.item.create`` -> ``conversation.item.added`` +
  ``conversation.item.done`` (GA) / ``conversation.item.created`` (beta);
  ``response.create`` -> ``response.created``, ``response.output_item.added``
  (+ ``conversation.item.added`` / ``.created``), then either
  ``response.function_call_arguments.delta`` x N + ``.done``, or
  ``response.content_part.added``, ``response.output_text.delta`` x N (beta:
  ``response.text.delta``), ``response.output_text.done`` (beta:
  ``response.text.done``), ``response.content_part.done``; then
  ``response.output_item.done`` (+ GA ``conversation.item.done``) and
  ``response.done`` whose ``response`` holds ``output`` and ``usage``. Every server
  event has an ``event_id`` (``event_0001`` ...). Unknown or malformed client events
  get ``{"type": "error", "event_id", "error": {"type": "invalid_request_error",
  "code", "message", "param", "event_id"}}`` and the session goes on.
* **Responses over WebSocket** ``GET /v1/responses`` (``client.responses.connect()``,
  ``client.beta.responses.connect()``, the Agents SDK's websocket transport). The
  client sends ``{"type": "response.create", <the POST /v1/responses body>}``
  (``stream`` and ``stream_id`` optional); the answer is the HTTP SSE event stream as
  JSON text frames: ``response.created``, ``response.in_progress``,
  ``response.output_item.added``, (``response.content_part.added``,
  ``response.output_text.delta`` x N, ``response.output_text.done``,
  ``response.content_part.done`` | ``response.function_call_arguments.delta`` x N,
  ``response.function_call_arguments.done``), ``response.output_item.done``,
  ``response.completed`` (the whole ``Response`` with ``output`` and ``usage``),
  each with a ``sequence_number`` counted per response, and the request's
  ``stream_id`` echoed when it had one. ``previous_response_id`` continues a
  response of the same connection (its input + output come first);
  ``generate: false`` stores the input and completes with no output. Errors:
  ``{"type": "error", "status": 400, "error": {"type": "invalid_request_error",
  "code", "message", "param"}}`` (``previous_response_not_found`` for an unknown id).
* **Gemini Live** ``GET /ws/google.ai.generativelanguage.<v>.GenerativeService.BidiGenerateContent``
  (``google-genai`` turns ``HttpOptions.base_url`` into ``wss://`` whatever its
  scheme, so this route needs ``FakeWebSocketAPI(tls=True)`` and the client must
  trust :meth:`FakeWebSocketAPI.client_ssl_context`; the key is the
  ``x-goog-api-key`` header). The first client message is ``{"setup": {"model",
  "generationConfig", "tools": [{"functionDeclarations": [...]}], ...}}`` ->
  ``{"setupComplete": {}}``. ``clientContent`` (``{"turns", "turnComplete"}``) with
  ``turnComplete`` -> ``{"toolCall": {"functionCalls": [{"id": "call-1", "name",
  "args"}]}}`` or the text answer; ``toolResponse`` (``{"functionResponses": [{"id",
  "name", "response"}]}``) -> the text answer. A text answer is
  ``{"serverContent": {"modelTurn": {"parts": [{"text": piece}]}}}`` x N,
  ``{"serverContent": {"generationComplete": true}}`` and ``{"serverContent":
  {"turnComplete": true}, "usageMetadata": {...}}``. Server messages are BINARY
  frames holding JSON (as the live service sends them). Client keys are accepted
  in camelCase and snake_case (the SDK sends ``tool_response``). An unknown or
  malformed message closes the connection with 1007 and a reason, as the service
  does.

Any other path: the handshake completes and the connection is closed with 1008.

Stdlib and ``websockets`` only (no agentsnap import).
"""

from __future__ import annotations

import json
import re
import shutil
import ssl
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import Server, ServerConnection, serve

__all__ = [
    "CREATED_AT",
    "GEMINI_PATH_PREFIX",
    "FakeWebSocketAPI",
    "WsConnection",
]

CREATED_AT = 1_700_000_000
GEMINI_PATH_PREFIX = "/ws/google.ai.generativelanguage."
TRIGGER = "weather"


@dataclass
class WsConnection:
    """What one client connection sent: its handshake and its messages."""

    path: str  #: the request path without the query, e.g. ``/v1/realtime``
    query: dict[str, list[str]]  #: the parsed query string
    headers: list[tuple[str, str]]  #: the handshake headers, as sent
    protocol: str  #: ``realtime``, ``realtime-beta``, ``responses``, ``gemini-live``, ``unknown``
    frames: list[Any] = field(default_factory=list)  #: client messages, parsed JSON
    sent: list[Any] = field(default_factory=list)  #: server messages, parsed JSON
    close_code: int | None = None  #: the code the fake closed with, if it closed first

    def header(self, name: str) -> str | None:
        """The first handshake header of this name (case-insensitive), or None."""
        low = name.lower()
        return next((v for k, v in self.headers if k.lower() == low), None)

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        """The client messages whose ``type`` is ``kind`` (OpenAI protocols)."""
        return [f for f in self.frames if isinstance(f, dict) and f.get("type") == kind]


# --------------------------------------------------------------------------- shared helpers


def _pieces(text: str, size: int) -> list[str]:
    """``text`` in chunks of at most ``size`` characters, at least 2 when it has 2 characters."""
    size = max(1, min(size, (len(text) + 1) // 2 or 1))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _city(text: str) -> str:
    match = re.search(r"\bin ([A-Z][\w-]*)", text)
    return match.group(1) if match else "Paris"


def _tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4)


def _answer(user_text: str, tool_output: str | None, city: str | None) -> str:
    if tool_output is not None:
        return f"The weather in {city or _city(user_text)}: {tool_output}"
    return f"You said: {user_text}"


def _text_of(content: Any) -> str:
    """The text of a message's content: a string, or parts with ``text``."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text") or "" for p in content if isinstance(p, dict))
    return ""


class _Closed(Exception):
    """The fake closed the connection (the handler stops)."""


class _Session:
    """One connection's protocol state; subclasses answer its messages."""

    def __init__(self, fake: FakeWebSocketAPI, ws: ServerConnection, record: WsConnection) -> None:
        self.fake = fake
        self.ws = ws
        self.record = record
        self.counters: dict[str, int] = {}

    def next_id(self, prefix: str, width: int = 3) -> str:
        n = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = n
        return f"{prefix}_{n:0{width}d}"

    def send(self, message: dict[str, Any], *, binary: bool = False) -> None:
        data = json.dumps(message, separators=(",", ":"))
        self.record.sent.append(message)
        self.ws.send(data.encode() if binary else data)

    def close(self, code: int, reason: str) -> None:
        self.record.close_code = code
        self.ws.close(code, reason[:120])
        raise _Closed

    def opened(self) -> None:
        """Called once the handshake completed."""

    def handle(self, raw: str | bytes) -> None:
        raise NotImplementedError


# --------------------------------------------------------------------------- OpenAI Realtime


class _Realtime(_Session):
    def __init__(self, *args: Any, beta: bool) -> None:
        super().__init__(*args)
        self.beta = beta
        model = (self.record.query.get("model") or ["gpt-realtime"])[0]
        self.items: list[dict[str, Any]] = []
        if beta:
            self.session: dict[str, Any] = {
                "id": "sess_001",
                "object": "realtime.session",
                "model": model,
                "modalities": ["text", "audio"],
                "instructions": "",
                "voice": "alloy",
                "input_audio_format": "pcm16",
                "output_audio_format": "pcm16",
                "input_audio_transcription": None,
                "turn_detection": None,
                "tools": [],
                "tool_choice": "auto",
                "temperature": 0.8,
                "max_response_output_tokens": "inf",
                "expires_at": CREATED_AT + 1800,
            }
        else:
            self.session = {
                "type": "realtime",
                "object": "realtime.session",
                "id": "sess_001",
                "model": model,
                "output_modalities": ["audio"],
                "instructions": "",
                "tools": [],
                "tool_choice": "auto",
                "max_output_tokens": "inf",
                "tracing": None,
                "truncation": "auto",
                "prompt": None,
                "expires_at": CREATED_AT + 3600,
                "include": None,
            }

    def event(self, kind: str, **fields: Any) -> None:
        self.send({"type": kind, "event_id": self.next_id("event", 4), **fields})

    def error(self, code: str, message: str, param: str | None, client_event_id: Any) -> None:
        self.event(
            "error",
            error={
                "type": "invalid_request_error",
                "code": code,
                "message": message,
                "param": param,
                "event_id": client_event_id,
            },
        )

    def opened(self) -> None:
        self.event("session.created", session=dict(self.session))

    def handle(self, raw: str | bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            self.error("invalid_json", "The server could not parse the event as JSON.", None, None)
            return
        if not isinstance(message, dict):
            self.error("invalid_json", "Expected an object.", None, None)
            return
        kind = message.get("type")
        client_id = message.get("event_id")
        if kind == "session.update":
            self.session.update(message.get("session") or {})
            self.event("session.updated", session=dict(self.session))
        elif kind == "conversation.item.create":
            self.create_item(message, client_id)
        elif kind == "conversation.item.delete":
            item_id = message.get("item_id")
            if not any(i.get("id") == item_id for i in self.items):
                self.error(
                    "item_not_found",
                    f"Item with item_id not found: {item_id}",
                    "item_id",
                    client_id,
                )
                return
            self.items = [i for i in self.items if i.get("id") != item_id]
            self.event("conversation.item.deleted", item_id=item_id)
        elif kind == "response.create":
            self.respond(message.get("response") or {})
        elif kind == "response.cancel":
            self.error(
                "response_cancel_not_active",
                "Cancellation failed: no active response found",
                None,
                client_id,
            )
        else:
            self.error(
                "invalid_value",
                f"Invalid value: '{kind}'. Supported values are: 'session.update', "
                "'conversation.item.create', 'conversation.item.delete', 'response.create' "
                "and 'response.cancel'.",
                "type",
                client_id,
            )

    def create_item(self, message: dict[str, Any], client_id: Any) -> None:
        item = message.get("item")
        if not isinstance(item, dict) or not item.get("type"):
            self.error(
                "missing_required_parameter",
                "Missing required parameter: 'item'.",
                "item",
                client_id,
            )
            return
        item = dict(item)
        item.setdefault("id", self.next_id("item"))
        item.setdefault("object", "realtime.item")
        item.setdefault("status", "completed")
        previous = self.items[-1]["id"] if self.items else None
        self.items.append(item)
        if self.beta:
            self.event("conversation.item.created", previous_item_id=previous, item=item)
        else:
            self.event("conversation.item.added", previous_item_id=previous, item=item)
            self.event("conversation.item.done", previous_item_id=previous, item=item)

    def plan(self, tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        """("call", {name, arguments}) or ("text", {text})."""
        last_user = None
        for index, item in enumerate(self.items):
            if item.get("type") == "message" and item.get("role") == "user":
                last_user = index
        user_text = _text_of(self.items[last_user].get("content")) if last_user is not None else ""
        later = self.items[last_user + 1 :] if last_user is not None else self.items
        outputs = [i for i in later if i.get("type") == "function_call_output"]
        functions = [t for t in tools if t.get("type", "function") == "function" and t.get("name")]
        if outputs:
            output = outputs[-1]
            call = next(
                (
                    i
                    for i in self.items
                    if i.get("type") == "function_call"
                    and i.get("call_id") == output.get("call_id")
                ),
                None,
            )
            city = None
            if call is not None:
                try:
                    city = json.loads(call.get("arguments") or "{}").get("city")
                except (ValueError, AttributeError):
                    city = None
            return "text", {"text": _answer(user_text, str(output.get("output", "")), city)}
        if TRIGGER in user_text.lower() and functions:
            args = json.dumps({"city": _city(user_text)})
            return "call", {"name": functions[0]["name"], "arguments": args}
        return "text", {"text": _answer(user_text, None, None)}

    def respond(self, params: dict[str, Any]) -> None:
        tools = (
            params.get("tools") if params.get("tools") is not None else self.session.get("tools")
        )
        kind, plan = self.plan(list(tools or []))
        response_id = self.next_id("resp")
        modalities_key = "modalities" if self.beta else "output_modalities"
        response: dict[str, Any] = {
            "id": response_id,
            "object": "realtime.response",
            "status": "in_progress",
            "status_details": None,
            "output": [],
            "conversation_id": "conv_001",
            modalities_key: params.get(modalities_key) or self.session.get(modalities_key),
            "max_output_tokens": "inf",
            "metadata": params.get("metadata"),
            "usage": None,
        }
        self.event("response.created", response=dict(response))
        item_id = self.next_id("item")
        ids = {"response_id": response_id, "item_id": item_id, "output_index": 0}
        previous = self.items[-1]["id"] if self.items else None
        added_event = "conversation.item.created" if self.beta else "conversation.item.added"
        if kind == "call":
            call_id = self.next_id("call")
            item = {
                "id": item_id,
                "object": "realtime.item",
                "type": "function_call",
                "status": "in_progress",
                "name": plan["name"],
                "call_id": call_id,
                "arguments": "",
            }
            self.event(
                "response.output_item.added", response_id=response_id, output_index=0, item=item
            )
            self.event(added_event, previous_item_id=previous, item=item)
            for piece in _pieces(plan["arguments"], self.fake.piece):
                self.event(
                    "response.function_call_arguments.delta", **ids, call_id=call_id, delta=piece
                )
            self.event(
                "response.function_call_arguments.done",
                **ids,
                call_id=call_id,
                name=plan["name"],
                arguments=plan["arguments"],
            )
            done = dict(item, status="completed", arguments=plan["arguments"])
            out_text = plan["arguments"]
        else:
            text = plan["text"]
            content_type = "text" if self.beta else "output_text"
            item = {
                "id": item_id,
                "object": "realtime.item",
                "type": "message",
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            }
            self.event(
                "response.output_item.added", response_id=response_id, output_index=0, item=item
            )
            self.event(added_event, previous_item_id=previous, item=item)
            ids["content_index"] = 0
            self.event("response.content_part.added", **ids, part={"type": "text", "text": ""})
            delta_kind = "response.text" if self.beta else "response.output_text"
            for piece in _pieces(text, self.fake.piece):
                self.event(f"{delta_kind}.delta", **ids, delta=piece)
            self.event(f"{delta_kind}.done", **ids, text=text)
            self.event("response.content_part.done", **ids, part={"type": "text", "text": text})
            done = dict(item, status="completed", content=[{"type": content_type, "text": text}])
            out_text = text
        self.items.append(done)
        self.event("response.output_item.done", response_id=response_id, output_index=0, item=done)
        if not self.beta:
            self.event("conversation.item.done", previous_item_id=previous, item=done)
        in_tokens = sum(_tokens(json.dumps(i)) for i in self.items[:-1])
        out_tokens = _tokens(out_text)
        usage = {
            "total_tokens": in_tokens + out_tokens,
            "input_tokens": in_tokens,
            "output_tokens": out_tokens,
            "input_token_details": {
                "text_tokens": in_tokens,
                "audio_tokens": 0,
                "cached_tokens": 0,
            },
            "output_token_details": {"text_tokens": out_tokens, "audio_tokens": 0},
        }
        self.event(
            "response.done", response=dict(response, status="completed", output=[done], usage=usage)
        )


# --------------------------------------------------------------------------- Responses API over WebSocket


class _Responses(_Session):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        #: response id -> the whole conversation up to and including its output
        self.store: dict[str, list[dict[str, Any]]] = {}

    def error(self, code: str, message: str, param: str | None, stream_id: Any = None) -> None:
        event: dict[str, Any] = {
            "type": "error",
            "status": 400,
            "error": {
                "type": "invalid_request_error",
                "code": code,
                "message": message,
                "param": param,
            },
        }
        if stream_id is not None:
            event["stream_id"] = stream_id
        self.send(event)

    def handle(self, raw: str | bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            self.error("invalid_json", "The server could not parse the event as JSON.", None)
            return
        if not isinstance(message, dict):
            self.error("invalid_json", "Expected an object.", None)
            return
        kind = message.get("type")
        if kind != "response.create":
            self.error(
                "invalid_value",
                f"Invalid value: '{kind}'. Supported values are: 'response.create'.",
                "type",
            )
            return
        self.create(message)

    def create(self, body: dict[str, Any]) -> None:
        stream_id = body.get("stream_id")
        previous = body.get("previous_response_id")
        history: list[dict[str, Any]] = []
        if previous is not None:
            if previous not in self.store:
                self.error(
                    "previous_response_not_found",
                    f"Previous response with id '{previous}' not found.",
                    "previous_response_id",
                    stream_id,
                )
                return
            history = list(self.store[previous])
        new_input = body.get("input") or []
        if isinstance(new_input, str):
            new_input = [{"type": "message", "role": "user", "content": new_input}]
        conversation = history + [dict(i) for i in new_input if isinstance(i, dict)]
        response_id = self.next_id("resp")
        seq = iter(range(1_000_000))

        def emit(kind: str, **fields: Any) -> None:
            event = {"type": kind, "sequence_number": next(seq), **fields}
            if stream_id is not None:
                event["stream_id"] = stream_id
            self.send(event)

        tools = list(body.get("tools") or [])
        response: dict[str, Any] = {
            "id": response_id,
            "object": "response",
            "created_at": CREATED_AT,
            "status": "in_progress",
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "model": body.get("model") or "gpt-4o-mini",
            "output": [],
            "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "previous_response_id": previous,
            "reasoning": {"effort": None, "summary": None},
            "service_tier": "default",
            "store": body.get("store", True),
            "temperature": body.get("temperature", 1.0),
            "text": body.get("text") or {"format": {"type": "text"}},
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": tools,
            "top_p": body.get("top_p", 1.0),
            "truncation": body.get("truncation", "disabled"),
            "usage": None,
            "user": None,
            "metadata": body.get("metadata") or {},
        }
        emit("response.created", response=dict(response))
        emit("response.in_progress", response=dict(response))
        output: list[dict[str, Any]] = []
        if body.get("generate") is not False:
            kind, plan = self.plan(conversation, tools)
            if kind == "call":
                item_id = self.next_id("fc")
                call_id = self.next_id("call")
                item = {
                    "id": item_id,
                    "type": "function_call",
                    "status": "in_progress",
                    "arguments": "",
                    "call_id": call_id,
                    "name": plan["name"],
                }
                emit("response.output_item.added", output_index=0, item=item)
                for piece in _pieces(plan["arguments"], self.fake.piece):
                    emit(
                        "response.function_call_arguments.delta",
                        item_id=item_id,
                        output_index=0,
                        delta=piece,
                    )
                emit(
                    "response.function_call_arguments.done",
                    item_id=item_id,
                    output_index=0,
                    name=plan["name"],
                    arguments=plan["arguments"],
                )
                done = dict(item, status="completed", arguments=plan["arguments"])
            else:
                item_id = self.next_id("msg")
                text = plan["text"]
                item = {
                    "id": item_id,
                    "type": "message",
                    "status": "in_progress",
                    "role": "assistant",
                    "content": [],
                }
                ids = {"item_id": item_id, "output_index": 0, "content_index": 0}
                part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
                emit("response.output_item.added", output_index=0, item=item)
                emit("response.content_part.added", **ids, part=part)
                for piece in _pieces(text, self.fake.piece):
                    emit("response.output_text.delta", **ids, delta=piece, logprobs=[])
                emit("response.output_text.done", **ids, text=text, logprobs=[])
                emit("response.content_part.done", **ids, part=dict(part, text=text))
                done = dict(item, status="completed", content=[dict(part, text=text)])
            emit("response.output_item.done", output_index=0, item=done)
            output.append(done)
        in_tokens = sum(_tokens(json.dumps(i)) for i in conversation)
        out_tokens = sum(_tokens(json.dumps(i)) for i in output)
        usage = {
            "input_tokens": in_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": out_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": in_tokens + out_tokens,
        }
        self.store[response_id] = conversation + output
        emit(
            "response.completed",
            response=dict(response, status="completed", output=output, usage=usage),
        )

    @staticmethod
    def plan(
        conversation: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> tuple[str, dict[str, Any]]:
        last_user = None
        for index, item in enumerate(conversation):
            if item.get("role") == "user" and item.get("type", "message") == "message":
                last_user = index
        user_text = (
            _text_of(conversation[last_user].get("content")) if last_user is not None else ""
        )
        later = conversation[last_user + 1 :] if last_user is not None else conversation
        outputs = [i for i in later if i.get("type") == "function_call_output"]
        if outputs:
            output = outputs[-1]
            city = None
            for item in conversation:
                if item.get("type") == "function_call" and item.get("call_id") == output.get(
                    "call_id"
                ):
                    try:
                        city = json.loads(item.get("arguments") or "{}").get("city")
                    except (ValueError, AttributeError):
                        city = None
            value = output.get("output", "")
            if not isinstance(value, str):
                value = _text_of(value)
            return "text", {"text": _answer(user_text, value, city)}
        functions = [t for t in tools if t.get("type") == "function" and t.get("name")]
        if TRIGGER in user_text.lower() and functions:
            return "call", {
                "name": functions[0]["name"],
                "arguments": json.dumps({"city": _city(user_text)}),
            }
        return "text", {"text": _answer(user_text, None, None)}


# --------------------------------------------------------------------------- Gemini Live


def _key(message: dict[str, Any], camel: str) -> Any:
    """``message[camel]``, or its snake_case spelling."""
    if camel in message:
        return message[camel]
    return message.get(re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel))


class _GeminiLive(_Session):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.setup: dict[str, Any] | None = None
        self.turns: list[dict[str, Any]] = []
        self.pending_call: dict[str, Any] | None = None

    def out(self, message: dict[str, Any]) -> None:
        self.send(message, binary=True)

    def handle(self, raw: str | bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            self.close(1007, "Request contains an invalid argument.")
        if not isinstance(message, dict) or len(message) != 1:
            self.close(1007, "Request contains an invalid argument.")
        name = next(iter(message))
        if self.setup is None:
            setup = _key(message, "setup")
            if not isinstance(setup, dict):
                self.close(
                    1007, "Request contains an invalid argument. The first message must be setup."
                )
            self.setup = setup
            self.out({"setupComplete": {}})
            return
        content = _key(message, "clientContent")
        response = _key(message, "toolResponse")
        if isinstance(content, dict):
            for turn in content.get("turns") or []:
                if isinstance(turn, dict):
                    self.turns.append(turn)
            if _key(content, "turnComplete"):
                self.respond(None)
        elif isinstance(response, dict):
            self.respond(_key(response, "functionResponses") or [])
        else:
            self.close(
                1007, f'Invalid JSON payload received. Unknown name "{name}": Cannot find field.'
            )

    def functions(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for tool in _key(self.setup or {}, "tools") or []:
            if isinstance(tool, dict):
                found.extend(_key(tool, "functionDeclarations") or [])
        return found

    def user_text(self) -> str:
        for turn in reversed(self.turns):
            if turn.get("role", "user") == "user":
                return "".join(
                    p.get("text") or "" for p in turn.get("parts") or [] if isinstance(p, dict)
                )
        return ""

    def respond(self, function_responses: list[dict[str, Any]] | None) -> None:
        user_text = self.user_text()
        if function_responses is None:
            functions = self.functions()
            self.pending_call = None
            if TRIGGER in user_text.lower() and functions:
                self.pending_call = {
                    "id": f"call-{self.counters.get('call', 0) + 1}",
                    "name": functions[0]["name"],
                    "args": {"city": _city(user_text)},
                }
                self.counters["call"] = self.counters.get("call", 0) + 1
                self.turns.append({"role": "model", "parts": [{"functionCall": self.pending_call}]})
                self.out({"toolCall": {"functionCalls": [self.pending_call]}})
                return
            text = _answer(user_text, None, None)
        else:
            first = function_responses[0] if function_responses else {}
            result = first.get("response") if isinstance(first, dict) else None
            if isinstance(result, dict) and len(result) == 1:
                value = next(iter(result.values()))
                quoted = value if isinstance(value, str) else json.dumps(value)
            else:
                quoted = json.dumps(result)
            city = (self.pending_call or {}).get("args", {}).get("city")
            self.turns.append({"role": "user", "parts": [{"functionResponse": first}]})
            self.pending_call = None
            text = _answer(user_text, quoted, city)
        for piece in _pieces(text, self.fake.piece):
            self.out({"serverContent": {"modelTurn": {"parts": [{"text": piece}]}}})
        self.turns.append({"role": "model", "parts": [{"text": text}]})
        self.out({"serverContent": {"generationComplete": True}})
        prompt = sum(_tokens(json.dumps(t)) for t in self.turns[:-1])
        answer = _tokens(text)
        self.out(
            {
                "serverContent": {"turnComplete": True},
                "usageMetadata": {
                    "promptTokenCount": prompt,
                    "responseTokenCount": answer,
                    "totalTokenCount": prompt + answer,
                    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
                    "responseTokensDetails": [{"modality": "TEXT", "tokenCount": answer}],
                },
            }
        )


# --------------------------------------------------------------------------- the server


def _make_cert(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (made with the ``openssl`` command)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RuntimeError("FakeWebSocketAPI(tls=True) needs the openssl command")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


class FakeWebSocketAPI:
    """The fake WebSocket server; a context manager that starts and stops it.

    ``tls=True`` serves ``wss://`` with a throw-away self-signed certificate (Gemini Live
    needs it: google-genai always connects with ``wss``). ``piece`` is the most
    characters one text or argument delta carries.
    """

    def __init__(self, *, tls: bool = False, piece: int = 8) -> None:
        self.tls = tls
        self.piece = piece
        self.connections: list[WsConnection] = []
        self._lock = threading.Lock()
        self._server: Server | None = None
        self._thread: threading.Thread | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._cert: Path | None = None

    # ---- lifecycle

    def __enter__(self) -> FakeWebSocketAPI:
        context = None
        if self.tls:
            self._tmp = tempfile.TemporaryDirectory(prefix="fakews-")
            self._cert, key = _make_cert(Path(self._tmp.name))
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(self._cert, key)
        self._server = serve(self._handler, "127.0.0.1", 0, ssl=context)
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="FakeWebSocketAPI", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._tmp is not None:
            self._tmp.cleanup()

    # ---- addresses

    @property
    def port(self) -> int:
        assert self._server is not None, "use FakeWebSocketAPI as a context manager"
        return self._server.socket.getsockname()[1]

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>`` (``https`` with ``tls``)."""
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The openai SDK's ``base_url``: ``<origin>/v1`` (it derives ``ws://.../v1/realtime``)."""
        return f"{self.origin}/v1"

    @property
    def ws_url(self) -> str:
        """``ws://127.0.0.1:<port>/v1`` (``wss`` with ``tls``): the openai SDK's ``websocket_base_url``."""
        return f"{'wss' if self.tls else 'ws'}://127.0.0.1:{self.port}/v1"

    @property
    def gemini_base_url(self) -> str:
        """google-genai's ``HttpOptions.base_url`` (it connects to ``wss://127.0.0.1:<port>/ws/...``)."""
        return self.origin

    def client_ssl_context(self) -> ssl.SSLContext:
        """An SSL context that trusts this server's certificate (``tls=True`` only)."""
        assert self._cert is not None, "FakeWebSocketAPI(tls=True) has a certificate"
        return ssl.create_default_context(cafile=str(self._cert))

    # ---- what was received

    @property
    def frames(self) -> list[Any]:
        """Every client message of every connection, in connection order."""
        with self._lock:
            return [f for c in self.connections for f in c.frames]

    def of_protocol(self, protocol: str) -> list[WsConnection]:
        with self._lock:
            return [c for c in self.connections if c.protocol == protocol]

    # ---- serving

    def _handler(self, ws: ServerConnection) -> None:
        request = ws.request
        assert request is not None
        parts = urlsplit(request.path)
        headers = list(request.headers.raw_items())
        beta = any(k.lower() == "openai-beta" and "realtime" in v for k, v in headers)
        path = parts.path
        if path == "/v1/realtime":
            protocol = "realtime-beta" if beta else "realtime"
        elif path == "/v1/responses":
            protocol = "responses"
        elif (
            path.startswith(GEMINI_PATH_PREFIX) and ".GenerativeService.BidiGenerateContent" in path
        ):
            protocol = "gemini-live"
        else:
            protocol = "unknown"
        record = WsConnection(
            path=path, query=parse_qs(parts.query), headers=headers, protocol=protocol
        )
        with self._lock:
            self.connections.append(record)
        session: _Session
        if protocol.startswith("realtime"):
            session = _Realtime(self, ws, record, beta=protocol == "realtime-beta")
        elif protocol == "responses":
            session = _Responses(self, ws, record)
        elif protocol == "gemini-live":
            session = _GeminiLive(self, ws, record)
        else:
            record.close_code = 1008
            ws.close(1008, f"Unknown path: {path}")
            return
        try:
            session.opened()
            for raw in ws:
                try:
                    record.frames.append(json.loads(raw))
                except ValueError:
                    record.frames.append(raw)
                session.handle(raw)
        except (_Closed, ConnectionClosed):
            return
