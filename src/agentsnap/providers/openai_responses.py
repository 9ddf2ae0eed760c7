"""Codec for the OpenAI Responses API wire format (``POST /v1/responses``).

Used by ``client.responses.create`` / ``.parse`` / ``.stream()`` of the
``openai`` SDK (and by OpenAI-compatible services that speak the same format).
Pure functions over the recorded exchange (dicts and strings); no provider SDK
is imported.

Request body fields read: ``model``, ``input`` (a string, or a list of input
items: messages ``{"role", "content"}``, ``function_call`` /
``function_call_output`` items, ...), ``instructions`` and ``tools``.

Response: a ``Response`` object ``{"object": "response", "model", "output":
[items], "usage": {"input_tokens", "output_tokens", "total_tokens"}, ...}``,
or, for ``stream: true``, a ``text/event-stream`` of typed events
(``response.created``, ``response.output_item.added``,
``response.content_part.added``, ``response.output_text.delta``,
``response.function_call_arguments.delta``, ``response.output_item.done``,
..., ended by ``response.completed`` / ``response.incomplete`` /
``response.failed``, whose ``response`` is the whole final object).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from agentsnap.providers._common import (
    NO_ERROR,
    asked_to_stream,
    event_object,
    is_error,
    json_instead_of_stream,
    llm_call_view,
    object_body,
    openai_style_usage,
    str_or_none,
)
from agentsnap.providers._common import (
    Read as _Read,
)
from agentsnap.providers._error_bodies import error_message
from agentsnap.providers.sse import parse_sse

__all__ = ["normalize", "tool_results"]


#: events that end a Responses stream; each carries the final ``response``
_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
#: lifecycle events that carry a (partial) ``response`` object
_LIFECYCLE = frozenset({"response.created", "response.queued", "response.in_progress"}) | _TERMINAL
#: output item types that are tool calls the agent must execute, and the field
#: holding their arguments (function calls: a JSON string; custom tools: free text)
_CALL_ARGS = {"function_call": "arguments", "custom_tool_call": "input"}


def normalize(request: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    """Turn one recorded Responses API exchange into the normalised view.

    Args:
        request: ``{"method": "POST", "path": "/v1/responses", "body": <parsed
            JSON request body, or None>}``.
        response: a read response ``{"status", "headers", "body"}`` (or
            ``"text"`` instead of ``"body"``: an error body kept verbatim) or a
            streamed one ``{"status", "headers", "chunks": [str, ...]}`` (raw
            SSE text with arbitrary chunk boundaries).

    Returns:
        A new dict (nothing in it aliases the inputs)::

            {"provider": "openai",
             "model": the response's model, else the request's, else None,
             "messages": the request's input as a list: a string input becomes
                         [{"role": "user", "content": input}], a list of items
                         is kept as sent; a string ``instructions`` is put
                         first as {"role": "system", "content": instructions},
             "tools": names offered: function / custom tools by name (tools
                      of a ``namespace`` tool as "<namespace>.<name>"), MCP
                      servers as "mcp:<server_label>", built-in tools by type,
             "response": the text of every ``output_text`` part of every
                         ``message`` output item, joined (what the SDK's
                         ``Response.output_text`` gives),
             "tool_requests": [{"id": call_id, "name": name (namespaced as
                                above), "args": json.loads(arguments), or the
                                raw string when that is not JSON (custom tools
                                keep their free-text input)}] in output order,
             "tokens": usage.total_tokens or None,
             "usage": {"input_tokens", "output_tokens", "total_tokens"} or None,
             "stream": bool, "status": int,
             "complete": bool,     # streams only: a terminal event was seen
             "error": str | None,  # only when status >= 400
             "warnings": [str]}    # only when something was skipped or the
                                   # response failed / is incomplete

        Built-in tool calls the server runs itself (web search, file search,
        code interpreter, ...) are not tool requests: the agent never answers
        them.

    Stream reassembly: output items are keyed by ``output_index`` (falling
    back to ``item_id`` for an event without one) and text deltas by
    ``content_index``, so interleaved deltas of parallel items land in the
    right place whatever the chunk boundaries. Ids, call ids and names come
    from the item events (``output_item.added`` / ``.done``) and are never
    concatenated; ``*.delta`` pieces are concatenated, and a ``*.done`` event's
    full value replaces them. The terminal event's ``response.output`` wins
    when present; when the server omitted it, or the stream was cut before
    any terminal event (``complete: False``), the view is what the item
    events carried. An ``error`` event ends the stream and is reported in
    ``warnings``. A stream request answered with a JSON body (an HTTP error)
    is read like a non-streamed body.

    Raises:
        Nothing for any JSON-shaped input: malformed parts are skipped.
    """
    body = request.get("body")
    if not isinstance(body, Mapping):
        body = {}
    status = response.get("status")
    warnings: list[str] = []
    streamed = "chunks" in response
    # a JSON body is stored as "body"; an error body kept verbatim (the spec's
    # [replay] verbatim_error_bodies) or any other text as "text"
    stored = response.get("body") if "body" in response else response.get("text")
    result = (
        _read_stream(response.get("chunks"), status, warnings)
        if streamed
        else _read_body(stored, status, warnings)
    )

    return llm_call_view(
        "openai",
        model=result.model or str_or_none(body.get("model")),
        messages=_messages(body),
        tools=_tool_names(body.get("tools")),
        response=result.text,
        tool_requests=result.tool_requests,
        usage=result.usage,
        streamed=streamed or asked_to_stream(request),
        status=status,
        complete=result.complete,
        error=error_message(result.error_body) if is_error(status) else NO_ERROR,
        warnings=warnings,
    )


def tool_results(body: object) -> list[dict[str, Any]]:
    """Tool results the agent sent back in a Responses request.

    Each ``function_call_output`` (or ``custom_tool_call_output``) input item,
    in order, as ``{"id": call_id, "result": output}``.
    """
    if not isinstance(body, Mapping) or not isinstance(body.get("input"), list):
        return []
    return [
        {"id": item["call_id"], "result": copy.deepcopy(item.get("output"))}
        for item in body["input"]
        if isinstance(item, Mapping)
        and item.get("type") in ("function_call_output", "custom_tool_call_output")
        and isinstance(item.get("call_id"), str)
        and item["call_id"]
    ]


# --------------------------------------------------------------------------
# request side


def _messages(body: Mapping[str, Any]) -> list[Any]:
    raw = body.get("input")
    if isinstance(raw, str):
        items: list[Any] = [{"role": "user", "content": raw}]
    elif isinstance(raw, list):
        items = copy.deepcopy(raw)
    else:
        items = []
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        items.insert(0, {"role": "system", "content": instructions})
    return items


def _tool_names(tools: object) -> list[str]:
    names: list[str] = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, Mapping):
            continue
        kind = tool.get("type")
        if kind in ("function", "custom") and isinstance(tool.get("name"), str):
            names.append(tool["name"])
        elif kind == "namespace" and isinstance(tool.get("tools"), list):
            prefix = tool.get("name") if isinstance(tool.get("name"), str) else ""
            names.extend(
                _qualified(prefix, inner["name"])
                for inner in tool["tools"]
                if isinstance(inner, Mapping) and isinstance(inner.get("name"), str)
            )
        elif kind == "mcp":
            names.append(f"mcp:{tool.get('server_label')}")
        elif isinstance(kind, str):
            names.append(kind)
        elif isinstance(tool.get("function"), Mapping):  # a chat-format tool passed through
            fn = tool["function"]
            if isinstance(fn.get("name"), str):
                names.append(fn["name"])
    return names


def _qualified(namespace: object, name: object) -> Any:
    return f"{namespace}.{name}" if isinstance(namespace, str) and namespace else name


# --------------------------------------------------------------------------
# shared helpers


def _usage(raw: object) -> dict[str, Any] | None:
    """The normalised usage of a response."""
    return openai_style_usage(raw, "input", "output")


def _args(raw: object, kind: str) -> Any:
    if isinstance(raw, str):
        if kind == "custom_tool_call":
            return raw
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return copy.deepcopy(raw)


def _apply_output(out: _Read, items: list[Any]) -> None:
    """Text and tool requests of a list of output items (in list order)."""
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind == "message":
            content = item.get("content")
            for part in content if isinstance(content, list) else []:
                if (
                    isinstance(part, Mapping)
                    and part.get("type") == "output_text"
                    and isinstance(part.get("text"), str)
                ):
                    texts.append(part["text"])
        elif kind in _CALL_ARGS:
            calls.append(
                {
                    "id": str_or_none(item.get("call_id")),
                    "name": _qualified(item.get("namespace"), item.get("name")),
                    "args": _args(item.get(_CALL_ARGS[kind]), kind),
                }
            )
    out.text = "".join(texts)
    out.tool_requests = calls


def _note_outcome(obj: Mapping[str, Any], warnings: list[str]) -> None:
    """Warn about a response object that failed or stopped early."""
    state = obj.get("status")
    if state == "failed":
        warnings.append(f"response failed: {error_message(obj)!r}")
    elif state == "incomplete":
        details = obj.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        warnings.append(f"response incomplete: {reason!r}")


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
    if failed:
        return out
    output = body.get("output")
    if isinstance(output, list):
        _apply_output(out, output)
    _note_outcome(body, warnings)
    return out


# --------------------------------------------------------------------------
# streamed responses


class _Slot:
    """One output item being reassembled from stream events."""

    __slots__ = (
        "args",
        "args_done",
        "done",
        "hint",
        "item",
        "order",
        "parts",
        "texts",
        "texts_done",
    )

    def __init__(self, order: int) -> None:
        self.order = order
        self.hint: str | None = None  # item type guessed from delta events (no item event seen)
        self.item: dict[str, Any] | None = None  # from output_item.added
        self.done: dict[str, Any] | None = None  # from output_item.done
        self.parts: dict[int, Any] = {}  # content_index -> part (content_part.added)
        self.texts: dict[int, list[str]] = {}  # content_index -> text deltas
        self.texts_done: dict[int, str] = {}  # content_index -> output_text.done text
        self.args: list[str] = []  # arguments / input deltas
        self.args_done: str | None = None  # arguments / input from *.done

    def note(self, kind: str) -> None:
        if self.hint is None:
            self.hint = kind

    def assembled(self) -> dict[str, Any] | None:
        if self.done is not None:
            return self.done
        item = copy.deepcopy(self.item) if self.item is not None else None
        kind = item.get("type") if item is not None else self.hint
        if kind == "message":
            item = item if item is not None else {"type": "message", "role": "assistant"}
            content = item.get("content")
            parts = {i: p for i, p in enumerate(content)} if isinstance(content, list) else {}
            parts.update(self.parts)
            for index in set(self.texts) | set(self.texts_done):
                part = parts.get(index)
                part = dict(part) if isinstance(part, Mapping) else {"type": "output_text"}
                part["text"] = self.texts_done.get(index, "".join(self.texts.get(index, [])))
                parts[index] = part
            item["content"] = [copy.deepcopy(parts[i]) for i in sorted(parts)]
            return item
        if kind in _CALL_ARGS:
            item = item if item is not None else {"type": kind}
            field = _CALL_ARGS[kind]
            if self.args_done is not None:
                item[field] = self.args_done
            elif self.args:
                item[field] = (item.get(field) or "") + "".join(self.args)
            return item
        return item


class _Stream:
    """Output items of a Responses stream, keyed by output index (or item id)."""

    def __init__(self) -> None:
        self.slots: dict[Any, _Slot] = {}
        self.by_item_id: dict[str, _Slot] = {}

    def slot(self, event: Mapping[str, Any], item: object = None) -> _Slot:
        index = event.get("output_index")
        item_id = str_or_none(event.get("item_id"))
        if item_id is None and isinstance(item, Mapping):
            item_id = str_or_none(item.get("id"))
        if isinstance(index, bool) or not isinstance(index, int):
            index = None
        if index is not None:
            key: Any = ("index", index)
        elif item_id is not None and item_id in self.by_item_id:
            return self.by_item_id[item_id]
        else:
            key = ("id", item_id)
        found = self.slots.get(key)
        if found is None:
            found = self.slots[key] = _Slot(len(self.slots))
        if item_id is not None:
            self.by_item_id.setdefault(item_id, found)
        return found

    def items(self) -> list[Any]:
        def order(entry: tuple[Any, _Slot]) -> tuple[int, int, int]:
            (kind, value), slot = entry
            return (0, value, slot.order) if kind == "index" else (1, 0, slot.order)

        out = []
        for _, slot in sorted(self.slots.items(), key=order):
            item = slot.assembled()
            if item is not None:
                out.append(item)
        return out


def _index(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _read_stream(chunks: object, status: object, warnings: list[str]) -> _Read:
    text = "".join(c for c in chunks if isinstance(c, str)) if isinstance(chunks, list) else ""
    events = parse_sse(text)
    body = json_instead_of_stream(text, events)  # an HTTP error, or a server ignoring stream: true
    if body is not None:
        out = _read_body(body, status, warnings)
        out.complete = not is_error(status)
        return out

    out = _Read()
    state = _Stream()
    final: Mapping[str, Any] | None = None
    for number, event in enumerate(events):
        data = event.data
        if data.startswith("[DONE]"):  # some compatible servers end with it
            break
        payload = event_object(data, f"event {number}", warnings)
        if payload is None:
            continue
        raw_kind = payload.get("type")
        kind: str = raw_kind if isinstance(raw_kind, str) else event.event
        if kind == "error" or (
            isinstance(payload.get("error"), Mapping) and kind not in _LIFECYCLE
        ):
            out.error_body = payload
            warnings.append(f"event {number}: stream error: {error_message(payload)!r}")
            break
        if kind in _LIFECYCLE:
            obj = payload.get("response")
            if isinstance(obj, Mapping):
                out.model = str_or_none(obj.get("model")) or out.model
                usage = _usage(obj.get("usage"))
                if usage is not None:
                    out.usage = usage
                if kind in _TERMINAL:
                    final = obj
            if kind in _TERMINAL:
                out.complete = True
                break
            continue
        _absorb(state, kind, payload)

    if final is not None and isinstance(final.get("output"), list):
        _apply_output(out, final["output"])
    else:
        _apply_output(out, state.items())
    if final is not None:
        _note_outcome(final, warnings)
    return out


def _absorb(state: _Stream, kind: str, payload: Mapping[str, Any]) -> None:
    """Fold one item-level stream event into the reassembly state."""
    if kind in ("response.output_item.added", "response.output_item.done"):
        item = payload.get("item")
        if not isinstance(item, Mapping):
            return
        slot = state.slot(payload, item)
        if kind.endswith(".added"):
            if slot.item is None:
                slot.item = copy.deepcopy(dict(item))
        else:
            slot.done = copy.deepcopy(dict(item))
    elif kind == "response.content_part.added":
        part = payload.get("part")
        if isinstance(part, Mapping):
            state.slot(payload).parts.setdefault(
                _index(payload.get("content_index")), copy.deepcopy(dict(part))
            )
    elif kind == "response.output_text.delta":
        delta = payload.get("delta")
        if isinstance(delta, str):
            slot = state.slot(payload)
            slot.note("message")
            slot.texts.setdefault(_index(payload.get("content_index")), []).append(delta)
    elif kind == "response.output_text.done":
        done = payload.get("text")
        if isinstance(done, str):
            slot = state.slot(payload)
            slot.note("message")
            slot.texts_done[_index(payload.get("content_index"))] = done
    elif kind in (
        "response.function_call_arguments.delta",
        "response.custom_tool_call_input.delta",
    ):
        delta = payload.get("delta")
        if isinstance(delta, str):
            slot = state.slot(payload)
            slot.note("function_call" if "function" in kind else "custom_tool_call")
            slot.args.append(delta)
    elif kind in ("response.function_call_arguments.done", "response.custom_tool_call_input.done"):
        done = payload.get("arguments" if "function" in kind else "input")
        if isinstance(done, str):
            slot = state.slot(payload)
            slot.note("function_call" if "function" in kind else "custom_tool_call")
            slot.args_done = done


def looks_like_response(body: Mapping[str, Any]) -> bool:
    """A Responses API ``response`` object."""
    return body.get("object") == "response" or (
        isinstance(body.get("output"), list) and "status" in body and "id" in body
    )
