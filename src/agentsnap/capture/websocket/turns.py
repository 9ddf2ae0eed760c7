"""A recorded WebSocket connection read as model turns: one ``llm_call`` step each.

Which API a connection speaks (:func:`api_of`) is told by its URL path, else by its first
client message:

* ``openai_realtime`` (``/v1/realtime``; OpenAI Realtime, GA and beta events): a turn is a
  client ``response.create`` and the server's ``response.done``. The conversation is the
  items the client created (``conversation.item.create``) and the outputs of earlier turns;
  the session's model, instructions and tools come from ``session.created`` /
  ``session.updated`` (and ``session.update``);
* ``openai_responses`` (``/v1/responses``: the Responses API's WebSocket mode): a turn is a
  client ``response.create`` (the request body, as over HTTP) and the server's
  ``response.completed`` (or ``.failed`` / ``.incomplete``);
* ``gemini_live`` (``…BidiGenerateContent``): ``setup`` names model, tools and system
  instruction; a turn starts with a client ``clientContent`` / ``toolResponse`` /
  ``realtimeInput`` and ends with the server's ``turnComplete`` or ``toolCall``.

Each turn is written as the request and response the same API takes over HTTP (Responses
API items; ``generateContent`` contents and candidates), so the provider's own codec reads it
(:mod:`agentsnap.providers`): the step has the same fields as an HTTP call's, tool calls are
derived from the conversation the same way, and every check applies. A turn stores no
``exchange``: replay serves the connection (:mod:`.fake`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .frames import Message, message_value

__all__ = ["Turn", "api_of", "turns"]


@dataclass
class Turn:
    """One model turn of a connection, as an HTTP request/response its codec reads."""

    codec: str
    provider: str
    request: dict[str, Any]
    response: dict[str, Any]
    #: seconds after the connection's handshake: the turn's first client message, its answer's end
    started: float
    ended: float
    #: the index (among the connection's messages) of the turn's first client message
    first: int = 0


#: (direction, seconds, the parsed message, its index among the connection's messages)
Event = tuple[str, float, dict[str, Any], int]


def api_of(path: str, messages: list[Message], values: list[object] | None = None) -> str | None:
    """``openai_realtime``, ``openai_responses``, ``gemini_live`` or None (another API)."""
    if "BidiGenerateContent" in path:
        return "gemini_live"
    if path.rstrip("/").endswith("/realtime"):
        return "openai_realtime"
    if path.rstrip("/").endswith("/responses"):
        return "openai_responses"
    if values is None:
        values = [message_value(p) for _, _, p in messages]
    first = next((v for (d, _, _), v in zip(messages, values, strict=True) if d == "send"), None)
    if isinstance(first, Mapping):
        if "setup" in first:
            return "gemini_live"
        kind = first.get("type")
        if kind == "session.update":
            return "openai_realtime"
        if kind == "response.create" and ("input" in first or "model" in first):
            return "openai_responses"
    return None


def turns(
    api: str | None, messages: list[Message], query: str = "", values: list[object] | None = None
) -> list[Turn]:
    """The model turns of a connection's messages (none for an unknown API); ``values``: each
    message's :func:`~.frames.message_value`, when the caller has them."""
    if values is None:
        values = [message_value(p) for _, _, p in messages]
    events: list[Event] = []
    for i, ((direction, at, _), value) in enumerate(zip(messages, values, strict=True)):
        if isinstance(value, dict):
            events.append((direction, at, value, i))
    if api == "openai_responses":
        return _responses(events)
    if api == "openai_realtime":
        return _realtime(events, query)
    if api == "gemini_live":
        return _gemini(events)
    return []


_DONE = ("response.completed", "response.failed", "response.incomplete")


def _responses(events: list[Event]) -> list[Turn]:
    out: list[Turn] = []
    pending: tuple[dict[str, Any], float, int] | None = None
    for direction, at, event, index in events:
        kind = event.get("type")
        if direction == "send" and kind == "response.create":
            body = {k: v for k, v in event.items() if k not in ("type", "event_id")}
            if isinstance(
                body.get("response"), dict
            ):  # {"type": "response.create", "response": {...}}
                body = dict(body["response"])
            pending = (body, at, index)
        elif direction == "recv" and pending is not None and (kind in _DONE or kind == "error"):
            body, started, first = pending
            response = event.get("response") if kind != "error" else None
            status = 200 if isinstance(response, dict) else 400
            out.append(
                Turn(
                    "openai_responses",
                    "openai",
                    {"method": "POST", "path": "/v1/responses", "body": body},
                    {"status": status, "body": response if response is not None else event},
                    started,
                    at,
                    first,
                )
            )
            pending = None
    return out


def _realtime_content(item: Mapping[str, Any]) -> dict[str, Any]:
    """A Realtime conversation item as a Responses API item (beta's ``text`` parts, audio
    transcripts as output text)."""
    item = {k: v for k, v in item.items() if k not in ("id", "object", "status")}
    content = item.get("content")
    if isinstance(content, list):
        parts = []
        for part in content:
            if not isinstance(part, Mapping):
                continue
            kind = part.get("type")
            if kind in ("text", "output_text") or (
                kind in ("audio", "output_audio") and part.get("transcript")
            ):
                text = part.get("text") if part.get("text") is not None else part.get("transcript")
                role = item.get("role")
                parts.append(
                    {"type": "output_text" if role == "assistant" else "input_text", "text": text}
                )
            elif kind in ("input_audio", "audio", "output_audio"):
                parts.append({"type": kind, "transcript": part.get("transcript")})
            else:
                parts.append(dict(part))
        item["content"] = parts
    return item


def _realtime(events: list[Event], query: str) -> list[Turn]:
    session: dict[str, Any] = {}
    model = next((p.split("=", 1)[1] for p in query.split("&") if p.startswith("model=")), None)
    items: list[dict[str, Any]] = []
    #: an output item's place in ``items``, taken when the server first sent it
    #: (``response.output_item.added`` / ``.done``): the client may answer a function call
    #: before ``response.done`` arrives, and its answer follows the call
    placed: dict[str, int] = {}
    out: list[Turn] = []
    pending: tuple[dict[str, Any], float, int] | None = None
    for direction, at, event, index in events:
        kind = str(event.get("type") or "")
        told = kind == "session.updated" or (direction == "send" and kind == "session.update")
        if isinstance(event.get("session"), dict) and kind == "session.created":
            # the server's defaults: what the client set (its update may be read first) stays
            for key, value in event["session"].items():
                session.setdefault(key, value)
        elif told and isinstance(event.get("session"), dict):
            session.update(event["session"])
        elif direction == "recv" and kind in (
            "response.output_item.added",
            "response.output_item.done",
        ):
            item = event.get("item")
            if isinstance(item, Mapping) and isinstance(item.get("id"), str):
                if item["id"] not in placed:
                    placed[item["id"]] = len(items)
                    items.append(_realtime_content(item))
                else:
                    items[placed[item["id"]]] = _realtime_content(item)
        elif direction == "send" and kind == "conversation.item.create":
            if isinstance(event.get("item"), dict):
                items.append(_realtime_content(event["item"]))
        elif direction == "send" and kind == "response.create":
            options = event.get("response") if isinstance(event.get("response"), dict) else {}
            body: dict[str, Any] = {"model": session.get("model") or model}
            if session.get("instructions"):
                body["instructions"] = session["instructions"]
            tools = (options or {}).get("tools") or session.get("tools")
            if tools:
                body["tools"] = tools
            body["input"] = copy.deepcopy(items)
            pending = (body, at, index)
        elif direction == "recv" and kind == "response.done" and pending is not None:
            body, started, first = pending
            response = event.get("response") if isinstance(event.get("response"), dict) else {}
            output = [
                _realtime_content(i)
                for i in (response or {}).get("output") or []
                if isinstance(i, Mapping)
            ]
            for raw, item in zip(
                [i for i in (response or {}).get("output") or [] if isinstance(i, Mapping)],
                output,
                strict=True,
            ):
                at_ = placed.pop(str(raw.get("id")), None) if raw.get("id") is not None else None
                if at_ is None:
                    items.append(copy.deepcopy(item))
                else:
                    items[at_] = copy.deepcopy(item)
            shown = {k: v for k, v in (response or {}).items() if k not in ("object",)}
            shown["output"] = output
            shown.setdefault("model", body.get("model"))
            out.append(
                Turn(
                    "openai_responses",
                    "openai",
                    {"method": "POST", "path": "/v1/realtime", "body": body},
                    {"status": 200, "body": shown},
                    started,
                    at,
                    first,
                )
            )
            pending = None
    return out


def _gemini(events: list[Event]) -> list[Turn]:
    setup: dict[str, Any] = {}
    contents: list[dict[str, Any]] = []
    out: list[Turn] = []
    pending: tuple[dict[str, Any], float, int] | None = None
    parts: list[dict[str, Any]] = []
    usage: dict[str, Any] | None = None

    def request() -> dict[str, Any]:
        body: dict[str, Any] = {"contents": copy.deepcopy(contents)}
        for key in ("tools", "systemInstruction", "generationConfig"):
            if setup.get(key):
                body[key] = setup[key]
        model = str(setup.get("model") or "")
        return {"method": "POST", "path": f"/v1beta/{model}:generateContent", "body": body}

    def finish(at: float) -> None:
        nonlocal pending, parts, usage
        if pending is None:
            return
        req, started, first = pending
        candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
        body: dict[str, Any] = {"candidates": [candidate]}
        if usage:
            body["usageMetadata"] = usage
        if setup.get("model"):
            body["modelVersion"] = str(setup["model"]).rsplit("/", 1)[-1]
        out.append(Turn("gemini", "google", req, {"status": 200, "body": body}, started, at, first))
        contents.append({"role": "model", "parts": copy.deepcopy(parts)})
        pending, parts, usage = None, [], None

    for direction, at, event, index in events:
        if direction == "send":
            if isinstance(event.get("setup"), dict):
                setup = dict(event["setup"])
                continue
            begins = False
            client = event.get("clientContent") or event.get("client_content")
            if isinstance(client, dict):
                for turn in client.get("turns") or []:
                    if isinstance(turn, dict):
                        contents.append(copy.deepcopy(turn))
                begins = bool(client.get("turnComplete") or client.get("turn_complete"))
            tool = event.get("toolResponse") or event.get("tool_response")
            if isinstance(tool, dict):
                responses = tool.get("functionResponses") or tool.get("function_responses") or []
                contents.append(
                    {
                        "role": "user",
                        "parts": [
                            {"functionResponse": r} for r in responses if isinstance(r, dict)
                        ],
                    }
                )
                begins = True
            realtime = event.get("realtimeInput") or event.get("realtime_input")
            if isinstance(realtime, dict) and realtime.get("text"):
                contents.append({"role": "user", "parts": [{"text": realtime["text"]}]})
                begins = True
            if begins and pending is None:
                pending = (request(), at, index)
            elif begins and pending is not None:
                pending = (request(), pending[1], pending[2])
            continue
        if pending is None:
            continue
        server = event.get("serverContent") or event.get("server_content")
        if isinstance(server, dict):
            turn = server.get("modelTurn") or server.get("model_turn")
            if isinstance(turn, dict):
                for part in turn.get("parts") or []:
                    if isinstance(part, dict) and isinstance(part.get("text"), str):
                        if parts and set(parts[-1]) == {"text"}:
                            parts[-1] = {"text": parts[-1]["text"] + part["text"]}
                        else:
                            parts.append({"text": part["text"]})
                    elif isinstance(part, dict):
                        parts.append(dict(part))
            if server.get("turnComplete") or server.get("turn_complete"):
                finish(at)
        if isinstance(event.get("usageMetadata"), dict):
            usage = event["usageMetadata"]
            if out and pending is None:
                out[-1].response["body"]["usageMetadata"] = usage
        call = event.get("toolCall") or event.get("tool_call")
        if isinstance(call, dict):
            for fc in call.get("functionCalls") or call.get("function_calls") or []:
                if isinstance(fc, dict):
                    parts.append({"functionCall": fc})
            finish(at)
    return out
