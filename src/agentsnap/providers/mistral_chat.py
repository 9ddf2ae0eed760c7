"""Codec for Mistral's chat API (``POST /v1/chat/completions``, ``/v1/agents/completions``).

Mistral speaks a dialect of the OpenAI chat-completions format, so the parts
that are the same are read by the helpers of :mod:`agentsnap.providers.openai_chat`.
What differs, and is handled here:

* tool-call ``function.arguments`` may be a JSON object instead of a string
  (the SDK types it ``Union[Dict[str, Any], str]``), in a full response and in
  a stream delta alike;
* ``content`` may be a list of typed chunks in a stream delta too
  (``{"type": "text", "text": ...}``, ``{"type": "thinking", ...}``); only the
  ``text`` chunks are the assistant's answer;
* a streamed tool call usually arrives whole in one delta, and ``index`` may
  be absent (the SDK defaults it to 0): an index-less fragment belongs to the
  call with the same ``id``, starts a new call when its ``id`` is new, and
  otherwise continues the call most recently extended;
* usage rides on the last chunk that carries choices (``usage`` key);
* errors come as ``{"object": "error", "message": str | object, ...}`` from the
  API, ``{"message": ...}`` from its gateway and ``{"detail": [{"msg": ...}]}``
  for validation errors (422).

Pure functions over the recorded exchange; the SDK is never imported.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentsnap.providers import openai_chat as _oa
from agentsnap.providers._common import (
    ChatFormat,
    Read,
    event_object,
    is_error,
    json_instead_of_stream,
    read_exchange,
    str_or_none,
)
from agentsnap.providers._error_bodies import error_message as _error_text
from agentsnap.providers.sse import parse_sse

__all__ = ["normalize", "tool_results"]


def normalize(request: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """Turn one recorded Mistral chat exchange into the normalised view.

    Args:
        request: ``{"method", "path", "body": <the JSON request body>}``.
        response: ``{"status", "headers", "body"}`` (read; ``"text"`` instead
            of ``"body"`` holds a JSON or plain-text body kept verbatim) or
            ``{"status", "headers", "chunks": [raw SSE text, ...]}`` (streamed;
            chunk boundaries are arbitrary and carry no meaning).

    Returns:
        ``{"provider": "mistral", "model", "messages", "tools", "response",
        "tool_requests", "tokens", "usage", "stream", "status"}`` plus
        ``"complete"`` for streams (``data: [DONE]`` was seen), ``"error"``
        when ``status >= 400`` and ``"warnings"`` when something was skipped.
        ``model`` is the response's, else the request's (``None`` for an agent
        call that names only ``agent_id``). ``tool_requests`` are choice 0's
        tool calls: ``{"id", "name", "args"}`` with ``args`` parsed from a
        JSON string, taken as is when the API sent an object, and kept as the
        raw string when it is not JSON.
    """
    return read_exchange(_FORMAT, request, response)


def tool_results(body: object) -> list[dict[str, Any]]:
    """Tool results in a Mistral chat request: its ``role: "tool"`` messages, in order.

    The same shape as OpenAI's tool turn (``tool_call_id`` + ``content``).
    """
    return _oa.tool_results(body)


def error_message(body: object) -> str | None:
    """The message of a Mistral error body (see the module doc), or None."""
    if isinstance(body, str):
        try:
            parsed = json.loads(body)
        except ValueError:
            return body.strip() or None
        if isinstance(parsed, Mapping):
            body = parsed
    if not isinstance(body, Mapping):
        return None
    message = body.get("message")
    if isinstance(message, (Mapping, list)):  # the API nests validation details here
        inner = message.get("detail") if isinstance(message, Mapping) else message
        return _detail_text(inner) or json.dumps(message, sort_keys=True, ensure_ascii=False)
    found = _error_text(body)
    if found is not None:
        return found
    return _detail_text(body.get("detail"))


def _detail_text(detail: object) -> str | None:
    if isinstance(detail, str):
        return detail or None
    if not isinstance(detail, list):
        return None
    parts = []
    for item in detail:
        if not isinstance(item, Mapping) or not isinstance(item.get("msg"), str):
            continue
        loc = item.get("loc")
        where = ".".join(str(p) for p in loc) if isinstance(loc, list) and loc else ""
        parts.append(f"{where}: {item['msg']}" if where else item["msg"])
    return "; ".join(parts) or None


def _fragment(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A tool-call delta with object-valued arguments turned into JSON text.

    An object is always a complete argument set, so its compact JSON text
    parses back to the same value in :func:`openai_chat._args`.
    """
    fragment = dict(raw)
    function = fragment.get("function")
    if isinstance(function, Mapping) and not isinstance(
        function.get("arguments"), (str, type(None))
    ):
        function = dict(function)
        function["arguments"] = json.dumps(
            function["arguments"], separators=(",", ":"), ensure_ascii=False
        )
        fragment["function"] = function
    return fragment


def _read_stream(chunks: object, status: object, warnings: list[str]) -> Any:
    text = "".join(c for c in chunks if isinstance(c, str)) if isinstance(chunks, list) else ""
    events = parse_sse(text)
    body = json_instead_of_stream(text, events)  # an HTTP error, or a server ignoring stream: true
    if body is not None:
        out = _oa._read_body(body, status, warnings)
        out.complete = not is_error(status)
        return out

    out = Read()
    choices: dict[int, Any] = {}
    for number, event in enumerate(events):
        data = event.data
        if data.strip() == "[DONE]":  # the SDK's sentinel
            out.complete = True
            break
        payload = event_object(data, f"event {number}", warnings)
        if payload is None:
            continue
        if payload.get("object") == "error" or payload.get("error"):
            out.error_body = payload
            warnings.append(f"event {number}: stream error: {error_message(payload)!r}")
            break
        if out.model is None:
            out.model = str_or_none(payload.get("model"))
        if isinstance(payload.get("usage"), Mapping):
            out.usage = _oa._usage(payload["usage"])
        raw_choices = payload.get("choices")
        for raw in raw_choices if isinstance(raw_choices, list) else []:
            if not isinstance(raw, Mapping):
                continue
            index = raw.get("index", 0)
            if isinstance(index, bool) or not isinstance(index, int):
                index = 0
            choice = choices.setdefault(index, _oa._Choice())
            delta = raw.get("delta")
            if not isinstance(delta, Mapping):
                continue
            piece = _oa._text(delta.get("content"))
            if piece:
                choice.text.append(piece)
            fragments = delta.get("tool_calls")
            for fragment in fragments if isinstance(fragments, list) else []:
                if isinstance(fragment, Mapping):
                    choice.add_tool_fragment(_fragment(fragment))

    first = choices.get(0)
    if first is not None:
        out.text = "".join(first.text)
        out.tool_requests = first.tool_requests()
    return out


#: what Mistral's chat format (OpenAI's, with its own stream reader and errors) plugs
#: into the shared exchange reader
_FORMAT = ChatFormat(
    "mistral",
    read_body=_oa._read_body,
    read_stream=_read_stream,
    tool_names=_oa._tool_names,
    error_text=error_message,
)
