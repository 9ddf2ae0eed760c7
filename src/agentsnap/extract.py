r"""``extract_tool_calls``: the tool calls in whatever an agent returned.

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
* an agent framework's result: a pydantic-ai ``AgentRunResult`` /
  ``StreamedRunResult`` (read through ``all_messages()``) or its message list
  (``ModelRequest`` / ``ModelResponse``: ``ToolCallPart``, ``ToolReturnPart``,
  ``RetryPromptPart``); an OpenAI Agents SDK ``RunResult`` /
  ``RunResultStreaming`` (read through ``to_input_list()``) or that list of
  Responses API items (``function_call`` / ``function_call_output``; a handoff
  is the ``transfer_to_<agent>`` call it is on the wire); a Claude Agent SDK
  message list (``AssistantMessage`` with ``ToolUseBlock``\ s, ``UserMessage``
  with ``ToolResultBlock``\ s; ``SystemMessage`` and ``ResultMessage`` carry no
  calls). These are recognised by their class's module and shape, so none of
  these packages is imported;
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

from .exceptions import AgentsnapError

__all__ = ["ExtractionError", "extract_tool_calls"]


class ExtractionError(AgentsnapError, TypeError):
    """``actual`` is not a shape :func:`extract_tool_calls` knows (the message names the path)."""


_ACCEPTED = (
    "a provider response object (openai, anthropic, google-genai, mistralai, cohere, groq), "
    "a LangGraph state or list of messages, a pydantic-ai run result, an OpenAI Agents SDK RunResult, "
    "a Claude Agent SDK message list, or a list of {'tool': name, 'args': {...}} dicts"
)


def extract_tool_calls(actual: object) -> list[dict[str, Any]]:
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
            raise ExtractionError(
                f"agentsnap: tool call {i} found in actual has no tool name ({call!r}); pass {_ACCEPTED}."
            )
        if call.get("id") is not None and call["id"] in results:
            call["result"] = results[call["id"]]
    return calls


# ---------------------------------------------------------------------------


def _plain(obj: object) -> Any:
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
        try:
            return dataclasses.asdict(obj)
        except Exception:
            return {f.name: getattr(obj, f.name, None) for f in dataclasses.fields(obj)}
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


def _walk(
    obj: object,
    where: str,
    calls: list[dict[str, Any]],
    results: dict[str, Any],
    _path: frozenset[int] = frozenset(),
) -> None:
    if id(obj) in _path:
        raise ExtractionError(f"agentsnap: {where} contains itself; pass {_ACCEPTED}.")
    _path = _path | {id(obj)}
    obj = _framework_view(obj, where)
    obj = _plain(obj)
    if isinstance(obj, (list, tuple)):
        if obj and _stream(obj, calls):
            return
        for i, item in enumerate(obj):
            _walk(item, f"{where}[{i}]", calls, results, _path)
        return
    if not isinstance(obj, Mapping):
        raise ExtractionError(
            f"agentsnap: cannot read tool calls from {where} ({type(obj).__name__}); pass {_ACCEPTED}."
        )
    if "tool" in obj:
        name = obj.get("tool")
        if not isinstance(name, str) or not name:
            raise ExtractionError(
                f"agentsnap: {where}['tool'] must be a non-empty string, got {name!r}."
            )
        call = {"tool": name, "args": _args(obj.get("args", {}))}
        for key in ("id", "result"):
            if key in obj:
                call[key] = obj[key]
        calls.append(call)
        return
    if isinstance(obj.get("messages"), (list, tuple)) and not _is_response(obj):
        _walk(obj["messages"], f"{where}['messages']", calls, results, _path)
        return
    if isinstance(obj.get("parts"), (list, tuple)) and obj.get("kind") in ("request", "response"):
        _pydantic_ai_message(obj, calls, results)
        return
    if obj.get("type") in _RESPONSES_ITEMS and "role" not in obj:
        _responses_item(obj, calls, results)
        return
    codec = _codec_for(obj)
    if codec is not None:
        _from_codec(codec, obj, calls)
        return
    if _message(obj, calls, results):
        return
    keys = ", ".join(sorted(map(str, obj))[:8])
    raise ExtractionError(
        f"agentsnap: cannot read tool calls from {where} (a mapping with keys {keys}); pass {_ACCEPTED}."
    )


def _framework_view(obj: object, where: str) -> Any:
    """A framework result object as the plain data :func:`_walk` reads; other objects unchanged.

    Recognised by the module of the object's class (nothing is imported):
    ``pydantic_ai`` results have ``all_messages()``, ``agents`` (OpenAI Agents
    SDK) results ``to_input_list()``, and ``claude_agent_sdk`` messages and
    blocks become the Anthropic-shaped dicts their fields mirror.
    """
    module = type(obj).__module__ or ""
    root = module.split(".")[0]
    method = {"pydantic_ai": "all_messages", "agents": "to_input_list"}.get(root)
    if method is not None and callable(getattr(obj, method, None)) and not isinstance(obj, type):
        try:
            return getattr(obj, method)()
        except Exception as exc:
            raise ExtractionError(
                f"agentsnap: cannot read tool calls from {where} ({type(obj).__name__}): "
                f"{method}() raised {type(exc).__name__}: {exc}"
            ) from exc
    if root == "claude_agent_sdk":
        return _claude(obj)
    return obj


def _claude(obj: Any) -> Any:
    """A Claude Agent SDK message or content block as an Anthropic-shaped dict."""
    kind = type(obj).__name__
    if kind == "AssistantMessage":
        return {"role": "assistant", "content": [_claude(b) for b in obj.content]}
    if kind == "UserMessage":
        content = obj.content
        return {
            "role": "user",
            "content": content if isinstance(content, str) else [_claude(b) for b in content],
        }
    if kind in ("SystemMessage", "ResultMessage"):
        return {
            "role": "system",
            "content": "",
        }  # session metadata and the run's summary: no tool calls
    if kind == "ToolUseBlock":
        return {"type": "tool_use", "id": obj.id, "name": obj.name, "input": obj.input}
    if kind == "ToolResultBlock":
        return {
            "type": "tool_result",
            "tool_use_id": obj.tool_use_id,
            "content": obj.content,
            "is_error": obj.is_error,
        }
    if kind == "TextBlock":
        return {"type": "text", "text": obj.text}
    if kind == "ThinkingBlock":
        return {"type": "thinking", "thinking": obj.thinking}
    return obj


def _pydantic_ai_message(
    msg: Mapping[str, Any], calls: list[dict[str, Any]], results: dict[str, Any]
) -> None:
    """A pydantic-ai ``ModelRequest`` / ``ModelResponse`` (as its fields): tool-call parts are
    calls; tool-return and retry-prompt parts (a tool's validation error) are results."""
    for part in msg["parts"]:
        part = _plain(part)
        if not isinstance(part, Mapping):
            continue
        kind = part.get("part_kind")
        if kind == "tool-call":
            call = {"tool": part.get("tool_name"), "args": _args(part.get("args"))}
            if part.get("tool_call_id") is not None:
                call["id"] = part["tool_call_id"]
            calls.append(call)
        elif (
            kind in ("tool-return", "retry-prompt")
            and part.get("tool_call_id") is not None
            and part.get("tool_name")
        ):
            results[part["tool_call_id"]] = part.get("content")


# Responses API input/output items that are not chat messages (OpenAI Agents SDK's to_input_list())
_RESPONSES_ITEMS = frozenset(
    {
        "function_call",
        "function_call_output",
        "message",
        "reasoning",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "custom_tool_call",
        "custom_tool_call_output",
        "item_reference",
        "compaction",
    }
)


def _responses_item(
    item: Mapping[str, Any], calls: list[dict[str, Any]], results: dict[str, Any]
) -> None:
    """One Responses API item: ``function_call`` / ``custom_tool_call`` are calls, their
    ``*_output`` the results; hosted tools (web search, file search, …) and other items carry
    no function call."""
    kind = item.get("type")
    if kind in ("function_call", "custom_tool_call"):
        call = {"tool": item.get("name"), "args": _args(item.get("arguments", item.get("input")))}
        if item.get("call_id") is not None:
            call["id"] = item["call_id"]
        calls.append(call)
    elif (
        kind in ("function_call_output", "custom_tool_call_output")
        and item.get("call_id") is not None
    ):
        results[item["call_id"]] = item.get("output")


_ANTHROPIC_EVENTS = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    }
)


def _stream(items: list[Any] | tuple[Any, ...], calls: list[dict[str, Any]]) -> bool:
    r"""A streamed response given as the list of what the SDK yielded: its calls reassembled.

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
    from .providers import codec_for_response

    return codec_for_response(obj)


def _from_codec(codec: str, body: Mapping[str, Any], calls: list[dict[str, Any]]) -> None:
    from .providers import get_codec

    normalize = get_codec(codec)
    if codec == "gemini":
        # automatic function calling: the SDK ran these calls itself and kept the model turns in the history
        history = (
            body.get("automaticFunctionCallingHistory")
            or body.get("automatic_function_calling_history")
            or []
        )
        for content in history:
            content = _plain(content)
            if isinstance(content, Mapping) and content.get("role") == "model":
                view = normalize(
                    {"body": {}},
                    {"status": 200, "headers": [], "body": {"candidates": [{"content": content}]}},
                )
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
                if (
                    isinstance(block, Mapping)
                    and block.get("type") == "tool_use"
                    and not msg.get("tool_calls")
                ):
                    call = {"tool": block.get("name"), "args": _args(block.get("input", {}))}
                    if block.get("id") is not None:
                        call["id"] = block["id"]
                    calls.append(call)
        return True
    if kind in ("tool", "ToolMessage") or role == "tool":
        if msg.get("tool_call_id") is not None:
            results[msg["tool_call_id"]] = msg.get("content")
        return True
    if kind in ("human", "system", "HumanMessage", "SystemMessage") or role in (
        "user",
        "system",
        "developer",
    ):
        content = msg.get("content")
        if isinstance(content, list):  # Anthropic tool results travel in a user message
            for block in content:
                block = _plain(block)
                if (
                    isinstance(block, Mapping)
                    and block.get("type") == "tool_result"
                    and block.get("tool_use_id") is not None
                ):
                    results[block["tool_use_id"]] = block.get("content")
        return True
    return False


def _args(raw: object) -> Any:
    """Arguments as data: a JSON string is parsed (OpenAI and mistralai send strings), anything else is kept."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return _plain(raw) if raw is not None else {}
