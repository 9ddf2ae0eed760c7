"""Codec for the OpenAI chat-completions wire format (``POST /v1/chat/completions``).

The same format is spoken by many OpenAI-compatible services (groq,
OpenRouter, DeepSeek, Azure OpenAI, local servers), so the stream reassembly
here is deliberately tolerant of the ways those servers differ from OpenAI.

Pure functions over the recorded exchange (dicts and strings); no provider
SDK is imported.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from agentsnap.providers._common import (
    ChatFormat,
    event_object,
    is_error,
    json_instead_of_stream,
    object_body,
    openai_style_usage,
    read_exchange,
    str_or_none,
)
from agentsnap.providers._common import (
    Read as _Read,
)
from agentsnap.providers._error_bodies import error_message
from agentsnap.providers.sse import parse_sse

__all__ = ["normalize"]


def normalize(request: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """Turn one recorded chat-completions exchange into the normalised view.

    Args:
        request: ``{"method": "POST", "path": "/v1/chat/completions",
            "body": <parsed JSON request body dict, or None>}``.
        response: either a non-streamed response
            ``{"status": int, "headers": [[name, value], ...],
            "body": <parsed JSON dict | str | None>}`` (or ``"text": str``
            instead of ``"body"``: an error body kept verbatim) or a streamed one
            ``{"status": int, "headers": [...], "chunks": [str, ...]}`` whose
            chunks are the raw SSE text exactly as it came off the wire, with
            arbitrary boundaries. The presence of ``"chunks"`` marks a stream.

    Returns:
        A new dict (nothing in it aliases the inputs)::

            {"provider": "openai",
             "model": response model if present, else request model, else None,
             "messages": request body "messages" as sent ([] when absent),
             "tools": names offered: body.tools[].function.name (and
                      .custom.name), then legacy body.functions[].name,
             "response": choice 0's assistant text ("" when none),
             "tool_requests": [{"id": str | None, "name": str,
                                "args": json.loads(arguments), or the raw
                                        string when that is not valid JSON}],
             "tokens": usage.total_tokens or None,
             "usage": {"input_tokens": prompt_tokens,
                       "output_tokens": completion_tokens,
                       "total_tokens": total_tokens} or None,
             "stream": bool, "status": int,
             "complete": bool,      # streams only: "data: [DONE]" was seen, or
                                    # a 2xx answered the stream with a JSON body
             "error": str | None,   # only when status >= 400
             "warnings": [str]}     # only when something was skipped

        ``tool_requests`` are choice 0's tool calls in index order (list order
        for a non-streamed response); a legacy ``function_call`` becomes one
        request with id ``None``. Custom tools (``type: "custom"``) keep their
        free-text ``input`` as ``args``.

        ``error`` is taken from the OpenAI error body ``{"error": {"message":
        ...}}``; failing that from ``{"error": "..."}``, ``{"message": "..."}``
        or a plain-text body; ``None`` when the body says nothing.

        ``warnings`` lists what was seen but could not be used (a data line
        that is not JSON, an in-stream ``{"error": ...}`` event, a
        non-JSON 2xx body); the key is absent when there is nothing to say.

    Stream reassembly follows the OpenAI streaming format (``chat.completion.chunk``
    objects sent as SSE ``data:`` lines, ended by ``data: [DONE]``; see the
    API reference "The chat completion chunk object") plus rules for
    OpenAI-compatible servers:

    * content deltas of choice index 0 are concatenated;
    * tool-call fragments are keyed by (choice index, ``tool_calls[].index``),
      so interleaved fragments of parallel calls land in the right call;
    * ``id``, ``type`` and ``function.name`` are taken from the first fragment
      that has them and never concatenated (some servers repeat them on every
      fragment); ``function.arguments`` fragments are concatenated;
    * a fragment whose ``index`` is missing or null belongs to the call with
      the same ``id`` if there is one, starts a new call if it carries a new
      ``id``, and otherwise continues the call most recently extended;
    * a fragment carrying an ``id`` different from the one already held at
      its ``index`` starts a new call (agentsnap's own rule: an id names
      exactly one call, so two ids are never merged into one request);
    * chunks with an empty ``choices`` list are fine; ``usage`` is taken from
      the last chunk that carries one (OpenAI sends it in a final
      choices-less chunk under ``stream_options.include_usage``; groq sends it
      as ``x_groq.usage``);
    * ``data: [DONE]`` ends the stream (anything after it is ignored, as the
      openai SDK does); without it the result holds what was seen and
      ``"complete": False``;
    * a data line that is not a JSON object is skipped with a warning; an
      ``{"error": ...}`` event ends the stream there (the SDK raises
      ``APIError`` on it) and is reported in ``warnings``;
    * legacy ``delta.function_call`` fragments are reassembled into one call;
    * a stream request answered with a plain JSON body instead of SSE (an
      HTTP error, or a server that ignored ``stream: true``) is read like a
      non-streamed body.

    Raises:
        Nothing for any JSON-shaped input: malformed parts are skipped.
    """
    return read_exchange(_FORMAT, request, response)


# --------------------------------------------------------------------------
# shared helpers


def _tool_names(body: Mapping[str, Any]) -> list[str]:
    names: list[str] = []
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, Mapping):
            continue
        for kind in ("function", "custom"):
            spec = tool.get(kind)
            if isinstance(spec, Mapping) and isinstance(spec.get("name"), str):
                names.append(spec["name"])
                break
    functions = body.get("functions")
    for fn in functions if isinstance(functions, list) else []:
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            names.append(fn["name"])
    return names


def _usage(raw: object) -> dict[str, Any] | None:
    """The normalised usage of a chat completion (also Mistral's and Groq's)."""
    return openai_style_usage(raw, "prompt", "completion")


def _args(raw: object, kind: str | None = None) -> Any:
    """``json.loads`` the arguments string; keep it raw when it is not JSON.

    Custom tools send free text, which is kept as is.
    """
    if isinstance(raw, str):
        if kind == "custom":
            return raw
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return copy.deepcopy(raw)


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts, as some compatible servers send
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        )
    return ""


def _choice_zero(choices: object) -> Mapping[str, Any] | None:
    if not isinstance(choices, list):
        return None
    dicts = [c for c in choices if isinstance(c, Mapping)]
    for choice in dicts:
        if choice.get("index") == 0:
            return choice
    if dicts and all("index" not in c for c in dicts):
        return dicts[0]
    return None


# --------------------------------------------------------------------------
# non-streamed responses


def _read_body(body: object, status: object, warnings: list[str]) -> _Read:
    out = _Read()
    body = out.error_body = object_body(body, status, warnings)
    failed = is_error(status)
    if not isinstance(body, Mapping):
        return out

    out.model = str_or_none(body.get("model"))
    out.usage = _usage(body.get("usage"))
    if not failed and body.get("error"):
        warnings.append(f"response body carries an error: {error_message(body)!r}")

    choice = _choice_zero(body.get("choices"))
    message = choice.get("message") if choice is not None else None
    if not isinstance(message, Mapping):
        return out
    out.text = _text(message.get("content"))
    tool_calls = message.get("tool_calls")
    for call in tool_calls if isinstance(tool_calls, list) else []:
        if not isinstance(call, Mapping):
            continue
        kind = "custom" if isinstance(call.get("custom"), Mapping) else "function"
        spec = call.get(kind)
        if not isinstance(spec, Mapping):
            continue
        raw = spec.get("input") if kind == "custom" else spec.get("arguments")
        out.tool_requests.append(
            {
                "id": str_or_none(call.get("id")),
                "name": spec.get("name"),
                "args": _args(raw, kind),
            }
        )
    legacy = message.get("function_call")
    if isinstance(legacy, Mapping):
        out.tool_requests.append(
            {
                "id": None,
                "name": legacy.get("name"),
                "args": _args(legacy.get("arguments")),
            }
        )
    return out


# --------------------------------------------------------------------------
# streamed responses


class _Call:
    """One tool call being reassembled from fragments."""

    __slots__ = ("id", "index", "kind", "name", "order", "parts")

    def __init__(self, index: int | None, order: int) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.kind: str | None = None
        self.parts: list[str] = []
        self.index = index  # tool_calls[].index, or None for index-less servers
        self.order = order  # arrival order within the choice

    def absorb(self, fragment: Mapping[str, Any]) -> None:
        if self.id is None:
            self.id = str_or_none(fragment.get("id"))
        if self.kind is None and isinstance(fragment.get("type"), str):
            self.kind = fragment["type"]
        for kind, field in (("function", "arguments"), ("custom", "input")):
            spec = fragment.get(kind)
            if not isinstance(spec, Mapping):
                continue
            if self.kind is None:
                self.kind = kind
            if self.name is None:
                self.name = str_or_none(spec.get("name"))
            piece = spec.get(field)
            if isinstance(piece, str):
                self.parts.append(piece)

    def request(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "args": _args("".join(self.parts), self.kind),
        }


class _Choice:
    """Accumulated deltas of one choice index."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: list[_Call] = []
        self.by_index: dict[int, _Call] = {}
        self.current: _Call | None = None
        self.legacy: _Call | None = None

    def _new_call(self, index: int | None) -> _Call:
        call = _Call(index, len(self.calls))
        self.calls.append(call)
        if index is not None:
            self.by_index[index] = call
        return call

    def add_tool_fragment(self, fragment: Mapping[str, Any]) -> None:
        index = fragment.get("index")
        if isinstance(index, bool) or not isinstance(index, int):
            index = None
        frag_id = str_or_none(fragment.get("id"))
        call: _Call | None
        if index is not None:
            call = self.by_index.get(index)
            if call is None or (frag_id is not None and call.id is not None and frag_id != call.id):
                call = self._new_call(index)
        else:
            call = None
            if frag_id is not None:
                call = next((c for c in self.calls if c.id == frag_id), None)
                if call is None:
                    call = self._new_call(None)
            elif self.current is not None:
                call = self.current
            else:
                call = self._new_call(None)
        call.absorb(fragment)
        self.current = call

    def add_legacy_fragment(self, fragment: Mapping[str, Any]) -> None:
        if self.legacy is None:
            self.legacy = _Call(None, 0)
        self.legacy.absorb({"function": fragment})

    def tool_requests(self) -> list[dict[str, Any]]:
        # Indexed calls in index order (arrival breaks ties when a server
        # reused an index for a new id); index-less calls after them, in
        # arrival order.
        ordered = sorted(
            self.calls,
            key=lambda c: (0, c.index, c.order) if c.index is not None else (1, 0, c.order),
        )
        requests = [c.request() for c in ordered]
        if self.legacy is not None:
            requests.append(self.legacy.request())
        return requests


def _read_stream(chunks: object, status: object, warnings: list[str]) -> _Read:
    text = "".join(c for c in chunks if isinstance(c, str)) if isinstance(chunks, list) else ""
    events = parse_sse(text)
    body = json_instead_of_stream(text, events)  # an HTTP error, or a server ignoring stream: true
    if body is not None:
        out = _read_body(body, status, warnings)
        out.complete = not is_error(status)
        return out

    out = _Read()
    choices: dict[int, _Choice] = {}
    for number, event in enumerate(events):
        data = event.data
        if data.startswith("[DONE]"):  # the openai SDK's own test
            out.complete = True
            break
        payload = event_object(data, f"event {number}", warnings)
        if payload is None:
            continue
        if payload.get("error"):
            out.error_body = payload
            warnings.append(f"event {number}: stream error: {error_message(payload)!r}")
            break

        if out.model is None:
            out.model = str_or_none(payload.get("model"))
        usage = payload.get("usage")
        if not isinstance(usage, Mapping):
            x_groq = payload.get("x_groq")
            usage = x_groq.get("usage") if isinstance(x_groq, Mapping) else None
        if isinstance(usage, Mapping):
            out.usage = _usage(usage)

        raw_choices = payload.get("choices")
        for raw in raw_choices if isinstance(raw_choices, list) else []:
            if not isinstance(raw, Mapping):
                continue
            index = raw.get("index", 0)
            if isinstance(index, bool) or not isinstance(index, int):
                index = 0
            choice = choices.setdefault(index, _Choice())
            delta = raw.get("delta")
            if not isinstance(delta, Mapping):
                continue
            content = delta.get("content")
            if isinstance(content, str):
                choice.text.append(content)
            fragments = delta.get("tool_calls")
            for fragment in fragments if isinstance(fragments, list) else []:
                if isinstance(fragment, Mapping):
                    choice.add_tool_fragment(fragment)
            legacy = delta.get("function_call")
            if isinstance(legacy, Mapping):
                choice.add_legacy_fragment(legacy)

    first = choices.get(0)
    if first is not None:
        out.text = "".join(first.text)
        out.tool_requests = first.tool_requests()
    return out


def tool_results(body: object) -> list[dict[str, Any]]:
    """Tool results the agent sent back in a chat-completions request.

    Each ``{"role": "tool", "tool_call_id": ..., "content": ...}`` message, in
    order, as ``{"id", "result"}`` (the OpenAI chat format's tool turn).
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("messages"), list):
        return []
    return [
        {"id": m.get("tool_call_id"), "result": copy.deepcopy(m.get("content"))}
        for m in body["messages"]
        if isinstance(m, Mapping) and m.get("role") == "tool" and m.get("tool_call_id")
    ]


def looks_like_response(body: Mapping[str, Any]) -> bool:
    """A chat.completion body (also groq's, OpenRouter's and mistralai's: the same
    ``choices[].message`` shape)."""
    return isinstance(body.get("choices"), list)


#: what the chat-completions format plugs into the shared exchange reader
_FORMAT = ChatFormat(
    "openai",
    read_body=_read_body,
    read_stream=_read_stream,
    tool_names=_tool_names,
    error_text=error_message,
)
