"""Codec for Cohere's v1 chat API (``POST /v1/chat``).

Request: ``{"message", "model"?, "preamble"?, "chat_history": [{"role":
"SYSTEM" | "USER" | "CHATBOT" | "TOOL", "message"?, "tool_calls"?,
"tool_results"?}], "tools": [{"name", "description",
"parameter_definitions"}], "tool_results": [{"call": {"name", "parameters"},
"outputs": [...]}], "stream": bool, ...}``.

Read response (``NonStreamedChatResponse``): ``{"text", "generation_id",
"finish_reason", "tool_calls": [{"name", "parameters": {...}}],
"chat_history", "meta": {"billed_units": {...}, "tokens": {...}}}``.

Streamed response: newline-delimited JSON (one object per line, which is how
the SDK reads it), each with an ``event_type``: ``stream-start``,
``text-generation`` (``text``), ``tool-calls-chunk`` (``tool_call_delta``:
``index``, ``name``, ``parameters`` text fragment), ``tool-calls-generation``
(the complete ``tool_calls``), ``citation-generation``, ``search-*``,
``stream-end`` (``finish_reason`` and the whole ``response``).

v1 tool calls carry no id. So that a tool result can be paired with the call
that asked for it, both get the same synthetic id:
``"<name>(<canonical JSON of the parameters>)"``, e.g.
``'get_weather({"city":"Paris"})'`` (see :func:`call_id`).

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
    is_error,
    object_body,
    preview,
    read_exchange,
    str_or_none,
)
from agentsnap.providers._error_bodies import error_message as _error_text
from agentsnap.providers.cohere_chat import usage_of

__all__ = ["call_id", "conversation", "normalize", "tool_results"]


def call_id(name: object, parameters: object) -> str:
    """The synthetic id of a v1 tool call: ``name(canonical JSON parameters)``."""
    args = json.dumps(
        parameters if parameters is not None else {},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return f"{name}({args})"


def conversation(body: Mapping[str, Any]) -> list[Any]:
    """The conversation a v1 request sends, as one list.

    ``preamble`` (as ``{"role": "SYSTEM", "message": ...}``), then
    ``chat_history`` as sent, then the new ``message`` (``{"role": "USER",
    "message": ...}``, left out when empty) and the new ``tool_results``
    (``{"role": "TOOL", "tool_results": [...]}``). A later turn's list
    extends an earlier turn's, which is what groups a conversation.
    """
    out: list[Any] = []
    if isinstance(body.get("preamble"), str) and body["preamble"]:
        out.append({"role": "SYSTEM", "message": body["preamble"]})
    history = body.get("chat_history")
    if isinstance(history, list):
        out.extend(copy.deepcopy(history))
    if isinstance(body.get("message"), str) and body["message"]:
        out.append({"role": "USER", "message": body["message"]})
    if isinstance(body.get("tool_results"), list) and body["tool_results"]:
        out.append({"role": "TOOL", "tool_results": copy.deepcopy(body["tool_results"])})
    return out


def normalize(request: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """Turn one recorded v1 chat exchange into the normalised view.

    Returns ``{"provider": "cohere", "model", "messages", "tools",
    "response", "tool_requests", "tokens", "usage", "stream", "status"}``
    plus ``"complete"`` for streams (``stream-end`` seen), ``"error"`` when
    ``status >= 400`` and ``"warnings"`` when something was skipped.
    ``messages`` is :func:`conversation`; ``tool_requests`` ids are
    :func:`call_id`; ``model`` is the request's (``None`` when the default
    model was used).
    """
    return read_exchange(_FORMAT, request, response)


def tool_results(body: object) -> list[dict[str, Any]]:
    """Tool results in a v1 request: ``chat_history`` TOOL turns, then ``tool_results``.

    Each ``{"call": {"name", "parameters"}, "outputs"}`` becomes ``{"id":
    call_id(name, parameters), "result": outputs}``.
    """
    if not isinstance(body, Mapping):
        return []
    found: list[Any] = []
    history = body.get("chat_history")
    for turn in history if isinstance(history, list) else []:
        if (
            isinstance(turn, Mapping)
            and str(turn.get("role", "")).upper() == "TOOL"
            and isinstance(turn.get("tool_results"), list)
        ):
            found.extend(turn["tool_results"])
    if isinstance(body.get("tool_results"), list):
        found.extend(body["tool_results"])
    out = []
    for item in found:
        call = item.get("call") if isinstance(item, Mapping) else None
        if not isinstance(call, Mapping) or not isinstance(call.get("name"), str):
            continue
        out.append(
            {
                "id": call_id(call["name"], call.get("parameters")),
                "result": copy.deepcopy(item.get("outputs")),
            }
        )
    return out


def _requests(calls: object) -> list[dict[str, Any]]:
    out = []
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, Mapping):
            continue
        params = copy.deepcopy(call.get("parameters"))
        out.append(
            {
                "id": call_id(call.get("name"), params),
                "name": str_or_none(call.get("name")),
                "args": params,
            }
        )
    return out


def _read_body(
    body: object, status: object, warnings: list[str]
) -> tuple[str, list[dict[str, Any]], dict[str, Any] | None, Any]:
    body = object_body(body, status, warnings)
    if not isinstance(body, Mapping):
        return "", [], None, body
    text = body["text"] if isinstance(body.get("text"), str) else ""
    return text, _requests(body.get("tool_calls")), usage_of(body.get("meta")), body


def _read_stream(
    chunks: object, status: object, warnings: list[str]
) -> tuple[str, list[dict[str, Any]], dict[str, Any] | None, bool, Any]:
    text = "".join(c for c in chunks if isinstance(c, str)) if isinstance(chunks, list) else ""
    lines = text.splitlines()
    if lines and not text.endswith(("\n", "\r")):
        try:  # an unterminated last line is kept only when it is whole (the SDK reads it too)
            json.loads(lines[-1])
        except ValueError:
            lines.pop()  # a stream cut inside a line
    if is_error(status):
        body_text, calls, usage, error_body = _read_body(text, status, warnings)
        return body_text, calls, usage, False, error_body

    pieces: list[str] = []
    generated: list[dict[str, Any]] | None = None  # tool-calls-generation: the whole list
    deltas: dict[int, dict[str, Any]] = {}  # tool-calls-chunk by index
    final: Mapping[str, Any] | None = None
    complete = False
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            warnings.append(f"line {number}: not JSON: {preview(line)}")
            continue
        if not isinstance(event, Mapping):
            warnings.append(f"line {number}: not a JSON object: {preview(line)}")
            continue
        kind = event.get("event_type")
        if kind == "text-generation" and isinstance(event.get("text"), str):
            pieces.append(event["text"])
        elif kind == "tool-calls-chunk":
            delta = event.get("tool_call_delta")
            if not isinstance(delta, Mapping):
                continue
            index = delta.get("index")
            if isinstance(index, bool) or not isinstance(index, (int, float)):
                index = max(deltas) if deltas else 0
            slot = deltas.setdefault(int(index), {"name": None, "parts": []})
            if slot["name"] is None and isinstance(delta.get("name"), str) and delta["name"]:
                slot["name"] = delta["name"]
            if isinstance(delta.get("parameters"), str):
                slot["parts"].append(delta["parameters"])
        elif kind == "tool-calls-generation":
            generated = _requests(event.get("tool_calls"))
        elif kind == "stream-end":
            complete = True
            if isinstance(event.get("response"), Mapping):
                final = event["response"]
            break

    usage = usage_of(final.get("meta")) if final is not None else None
    answer = "".join(pieces)
    if not answer and final is not None and isinstance(final.get("text"), str):
        answer = final["text"]
    if generated is not None:
        calls = generated
    elif deltas:
        calls = []
        for index in sorted(deltas):
            slot = deltas[index]
            args = _oa._args("".join(slot["parts"]) or "{}")
            calls.append({"id": call_id(slot["name"], args), "name": slot["name"], "args": args})
    elif final is not None:
        calls = _requests(final.get("tool_calls"))
    else:
        calls = []
    return answer, calls, usage, complete, None


def looks_like_response(body: Mapping[str, Any]) -> bool:
    """A v1 chat response: ``generation_id``, or ``text`` with top-level ``tool_calls``."""
    return "generation_id" in body or (
        isinstance(body.get("tool_calls"), list) and "text" in body and "role" not in body
    )


def _tool_names(body: Mapping[str, Any]) -> list[str]:
    tools = body.get("tools")
    if not isinstance(tools, list):
        return []
    return [t["name"] for t in tools if isinstance(t, Mapping) and isinstance(t.get("name"), str)]


def _as_read(
    text: str,
    calls: list[dict[str, Any]],
    usage: dict[str, Any] | None,
    complete: bool,
    error_body: object,
) -> Read:
    out = Read()
    out.text, out.tool_requests, out.usage, out.complete, out.error_body = (
        text,
        calls,
        usage,
        complete,
        error_body,
    )
    return out


def _body_read(body: object, status: object, warnings: list[str]) -> Read:
    text, calls, usage, error_body = _read_body(body, status, warnings)
    return _as_read(text, calls, usage, True, error_body)


def _stream_read(chunks: object, status: object, warnings: list[str]) -> Read:
    return _as_read(*_read_stream(chunks, status, warnings))


#: what Cohere's v1 chat format plugs into the shared exchange reader (its conversation
#: is ``message`` + ``chat_history``; error bodies are always stored parsed)
_FORMAT = ChatFormat(
    "cohere",
    read_body=_body_read,
    read_stream=_stream_read,
    tool_names=_tool_names,
    error_text=_error_text,
    messages=conversation,
    verbatim_text=False,
)
