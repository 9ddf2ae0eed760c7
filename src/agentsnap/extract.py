"""``extract_tool_calls``: the tool calls in whatever an agent returned.

The one-line snapshot form (``snapshot(actual)``, :func:`agentsnap.check`)
accepts the object a test already holds instead of a recorded trace:

* a provider SDK's response object, or its JSON as a dict — openai / groq /
  OpenRouter / mistralai chat completions (``choices``), openai Responses
  (``object: "response"``), anthropic ``Message`` (``type: "message"``),
  google-genai ``GenerateContentResponse`` (``candidates``, including the
  calls of automatic function calling kept in
  ``automatic_function_calling_history``), cohere v2 ``ChatResponse``
  (``message``) and v1 ``NonStreamedChatResponse`` (``generation_id``);
* a LangGraph state (``{"messages": [...]}``) or a list of messages:
  LangChain ``AIMessage`` / ``ToolMessage`` objects, or chat dicts in the
  OpenAI (``role: "assistant"`` with ``tool_calls``, ``role: "tool"``) or
  Anthropic (``tool_use`` / ``tool_result`` blocks) shape;
* a streamed response as the list of what the SDK yielded: openai / groq /
  mistralai chunks, anthropic stream events, LangChain ``AIMessageChunk`` objects
  (reassembled as the codecs reassemble recorded streams);
* a list of ``{"tool": name, "args": {...}}`` dicts (the form agentsnap
  stores), or a list mixing any of the above.

Provider bodies are read by the same codecs (:mod:`agentsnap.providers`)
that read recorded HTTP exchanges, so a response object and its recording
give the same calls. Objects are turned into JSON with pydantic's
``model_dump(mode="json", by_alias=True)`` (every supported SDK's models are
pydantic; ``by_alias`` gives the wire names, e.g. google-genai's
``functionCall``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["extract_tool_calls", "ExtractionError"]


class ExtractionError(TypeError):
    """``actual`` is not a shape :func:`extract_tool_calls` knows (the message names the path)."""


_ACCEPTED = (
    "a provider response object (openai, anthropic, google-genai, mistralai, cohere, groq), "
    "a LangGraph state or list of messages, or a list of {'tool': name, 'args': {...}} dicts"
)


def extract_tool_calls(actual: Any) -> list[dict[str, Any]]:
    """The tool calls in ``actual``, in the order they were made.

    Returns a new list of ``{"tool": str, "args": Any}`` dicts; ``args`` is
    the parsed JSON arguments (a dict for every SDK; the raw string when a
    model sent arguments that are not JSON). When ``actual`` also carries
    them, a call has ``"id"`` (the provider's call id) and ``"result"`` (the
    content of the tool message answering that id — message lists only).

    ``actual`` may be any shape listed in the module doc; an empty list, a
    response without tool calls or a state without AI messages give ``[]``.

    Raises:
        ExtractionError (a ``TypeError``): ``actual`` (or an element of it,
            named by its index path) is none of the accepted shapes, or a
            ``{"tool": ...}`` dict has a tool name that is not a non-empty
            string.
    """
    calls: list[dict[str, Any]] = []
    results: dict[str, Any] = {}
    _walk(actual, "actual", calls, results)
    for i, call in enumerate(calls):
        if not isinstance(call.get("tool"), str) or not call["tool"]:
            raise ExtractionError(f"agentsnap: tool call {i} found in actual has no tool name ({call!r}); pass {_ACCEPTED}.")
        if call.get("id") is not None and call["id"] in results:
            call["result"] = results[call["id"]]
    return calls


# ---------------------------------------------------------------------------


def _plain(obj: Any) -> Any:
    """A JSON-shaped view of an SDK object (the object itself when it already is one)."""
    if obj is None or isinstance(obj, (str, int, float, bool, Mapping, list, tuple)):
        return obj
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="json", by_alias=True, exclude_none=True)
        except TypeError:  # a model_dump that takes no such arguments
            return dump()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    for method in ("to_dict", "dict"):
        fn = getattr(obj, method, None)
        if callable(fn):
            try:
                value = fn()
            except TypeError:
                continue
            if isinstance(value, Mapping):
                return value
    return obj


def _walk(obj: Any, where: str, calls: list[dict[str, Any]], results: dict[str, Any], _path: frozenset[int] = frozenset()) -> None:
    if id(obj) in _path:
        raise ExtractionError(f"agentsnap: {where} contains itself; pass {_ACCEPTED}.")
    _path = _path | {id(obj)}
    obj = _plain(obj)
    if isinstance(obj, (list, tuple)):
        if obj and _stream(obj, calls):
            return
        for i, item in enumerate(obj):
            _walk(item, f"{where}[{i}]", calls, results, _path)
        return
    if not isinstance(obj, Mapping):
        raise ExtractionError(f"agentsnap: cannot read tool calls from {where} ({type(obj).__name__}); pass {_ACCEPTED}.")
    if "tool" in obj:
        name = obj.get("tool")
        if not isinstance(name, str) or not name:
            raise ExtractionError(f"agentsnap: {where}['tool'] must be a non-empty string, got {name!r}.")
        call = {"tool": name, "args": _args(obj.get("args", {}))}
        for key in ("id", "result"):
            if key in obj:
                call[key] = obj[key]
        calls.append(call)
        return
    if isinstance(obj.get("messages"), (list, tuple)) and not _is_response(obj):
        _walk(obj["messages"], f"{where}['messages']", calls, results, _path)
        return
    codec = _codec_for(obj)
    if codec is not None:
        _from_codec(codec, obj, calls)
        return
    if _message(obj, calls, results):
        return
    keys = ", ".join(sorted(map(str, obj))[:8])
    raise ExtractionError(f"agentsnap: cannot read tool calls from {where} (a mapping with keys {keys}); pass {_ACCEPTED}.")


_ANTHROPIC_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                               "message_delta", "message_stop", "ping"})


def _stream(items: list[Any] | tuple[Any, ...], calls: list[dict[str, Any]]) -> bool:
    """A streamed response given as the list of what the SDK yielded: its calls reassembled.

    openai / groq / mistralai chunks (``chat.completion.chunk``, mistralai's wrapped in
    ``data``) and anthropic stream events are read by their codec as the SSE stream they
    came from; LangChain ``AIMessageChunk`` objects are added up the way LangChain merges them.
    False when ``items`` is not a stream.
    """
    if all(type(i).__name__ == "AIMessageChunk" for i in items):
        import functools
        import operator

        merged = functools.reduce(operator.add, items)
        _message(_plain(merged), calls, {})
        return True
    plain = [_plain(i) for i in items]
    if not all(isinstance(p, Mapping) for p in plain):
        return False
    plain = [p["data"] if isinstance(p.get("data"), Mapping) and len(p) == 1 else p for p in plain]
    if all(p.get("object") == "chat.completion.chunk" for p in plain):
        chunks = ["data: " + json.dumps(p) + "\n\n" for p in plain] + ["data: [DONE]\n\n"]
        codec = "openai_chat"
    elif all(p.get("type") in _ANTHROPIC_EVENTS for p in plain):
        chunks = [f"event: {p['type']}\ndata: {json.dumps(p)}\n\n" for p in plain]
        codec = "anthropic_messages"
    else:
        return False
    from .providers import get_codec

    view = get_codec(codec)({"body": {}}, {"status": 200, "headers": [], "chunks": chunks})
    calls.extend(_call(r) for r in view.get("tool_requests") or [])
    return True


def _is_response(obj: Mapping[str, Any]) -> bool:
    return "choices" in obj or "candidates" in obj


def _codec_for(obj: Mapping[str, Any]) -> str | None:
    if isinstance(obj.get("choices"), list):
        return "openai_chat"  # also groq, OpenRouter, mistralai: the same choices[].message.tool_calls shape
    if obj.get("object") == "response" or (isinstance(obj.get("output"), list) and "status" in obj and "id" in obj):
        return "openai_responses"
    if obj.get("type") == "message" and isinstance(obj.get("content"), list) and obj.get("role") == "assistant":
        return "anthropic_messages"
    if isinstance(obj.get("candidates"), list):
        return "gemini"
    if isinstance(obj.get("message"), Mapping) and obj["message"].get("role") == "assistant":
        return "cohere_chat"
    if "generation_id" in obj or (isinstance(obj.get("tool_calls"), list) and "text" in obj and "role" not in obj):
        return "cohere_v1"
    return None


def _from_codec(codec: str, body: Mapping[str, Any], calls: list[dict[str, Any]]) -> None:
    from .providers import get_codec

    normalize = get_codec(codec)
    if codec == "gemini":
        # automatic function calling: the SDK ran these calls itself and kept the model turns in the history
        history = body.get("automaticFunctionCallingHistory") or body.get("automatic_function_calling_history") or []
        for content in history:
            content = _plain(content)
            if isinstance(content, Mapping) and content.get("role") == "model":
                view = normalize({"body": {}}, {"status": 200, "headers": [], "body": {"candidates": [{"content": content}]}})
                calls.extend(_call(r) for r in view.get("tool_requests") or [])
    view = normalize({"body": {}}, {"status": 200, "headers": [], "body": dict(body)})
    calls.extend(_call(r) for r in view.get("tool_requests") or [])


def _call(request: Mapping[str, Any]) -> dict[str, Any]:
    call = {"tool": request.get("name"), "args": request.get("args")}
    if request.get("id") is not None:
        call["id"] = request["id"]
    return call


def _message(msg: Mapping[str, Any], calls: list[dict[str, Any]], results: dict[str, Any]) -> bool:
    """One chat message (LangChain dump, OpenAI or Anthropic dict); False when it is none."""
    kind = msg.get("type")
    role = msg.get("role")
    if kind in ("ai", "AIMessage", "AIMessageChunk") or role == "assistant":
        content = msg.get("content")
        for tc in msg.get("tool_calls") or []:
            tc = _plain(tc)
            if not isinstance(tc, Mapping):
                continue
            fn = tc.get("function")
            if isinstance(fn, Mapping):  # OpenAI shape: {"id", "function": {"name", "arguments"}}
                call = {"tool": fn.get("name"), "args": _args(fn.get("arguments"))}
            else:  # LangChain shape: {"name", "args", "id"}
                call = {"tool": tc.get("name"), "args": _args(tc.get("args", {}))}
            if tc.get("id") is not None:
                call["id"] = tc["id"]
            calls.append(call)
        if isinstance(content, list):  # Anthropic content blocks (and LangChain's copy of them)
            for block in content:
                block = _plain(block)
                if isinstance(block, Mapping) and block.get("type") == "tool_use" and not msg.get("tool_calls"):
                    call = {"tool": block.get("name"), "args": _args(block.get("input", {}))}
                    if block.get("id") is not None:
                        call["id"] = block["id"]
                    calls.append(call)
        return True
    if kind in ("tool", "ToolMessage") or role == "tool":
        if msg.get("tool_call_id") is not None:
            results[msg["tool_call_id"]] = msg.get("content")
        return True
    if kind in ("human", "system", "HumanMessage", "SystemMessage") or role in ("user", "system", "developer"):
        content = msg.get("content")
        if isinstance(content, list):  # Anthropic tool results travel in a user message
            for block in content:
                block = _plain(block)
                if isinstance(block, Mapping) and block.get("type") == "tool_result" and block.get("tool_use_id") is not None:
                    results[block["tool_use_id"]] = block.get("content")
        return True
    return False


def _args(raw: Any) -> Any:
    """Arguments as data: a JSON string is parsed (OpenAI and mistralai send strings), anything else is kept."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return _plain(raw) if raw is not None else {}
