"""Seed a snapshot from a saved OpenAI chat-completions trace (``agentsnap record --from-trace``).

Accepted JSON shapes (``--format openai``; ``auto`` recognises the same ones):

* one ``chat.completion`` response object (``{"object": "chat.completion",
  "model": ..., "choices": [...], "usage": ...}``; an object with a
  ``choices`` list counts too) — one ``llm_call`` step;
* a list of them — one ``llm_call`` step each, in list order;
* a conversation ``{"messages": [...], "model"?: str, "tools"?: [...]}`` —
  one ``llm_call`` step per ``assistant`` message (its request holds the
  messages before it), and one ``tool_call`` step per ``tool`` message,
  paired by ``tool_call_id`` with the call the model requested.

``--format anthropic``: one Anthropic Messages API response (``{"type":
"message", "content": [...]}``) or a list of them. ``--format gemini``: one
google-genai ``GenerateContentResponse`` JSON (``{"candidates": [...]}``) or a
list of them. ``auto`` recognises all of these by shape.

Each ``llm_call`` step is the ``openai_chat`` codec's normalised view plus the
raw ``exchange`` (request ``{"method": "POST", "path":
"/v1/chat/completions", "body"}``, response ``{"status": 200, "headers": [],
"body"}``), secrets scrubbed, so the snapshot can also be replayed.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..exceptions import AgentsnapError

__all__ = ["FORMATS", "TraceError", "read_trace"]

_PATH = "/v1/chat/completions"
_SHAPES = (
    'a chat.completion object, a list of them, or a conversation {"messages": [...]} '
    "(OpenAI chat-completions format); an Anthropic message object or a list of them; "
    "a Gemini GenerateContentResponse or a list of them"
)


def _looks_like(codec: str) -> Callable[[Any], bool]:
    """The codec's own response-shape test (``providers.<codec>.looks_like_response``)."""

    def test(value: object) -> bool:
        from ..providers import codec_for_response

        return codec_for_response(value, among=(codec,)) == codec

    return test


# format -> (shape test, codec, request path)
_SINGLE = {
    "anthropic": (_looks_like("anthropic_messages"), "anthropic_messages", "/v1/messages"),
    "gemini": (_looks_like("gemini"), "gemini", "/v1beta/models/{model}:generateContent"),
}

#: ``--format`` values: ``auto``, ``openai`` (responses and conversations), and each
#: single-response format above
FORMATS = ("auto", "openai", *_SINGLE)


class TraceError(AgentsnapError, ValueError):
    """The trace file cannot be turned into steps; the message says why and what is accepted."""


def read_trace(path: Path, fmt: str = "auto") -> tuple[list[dict[str, Any]], Any, Any]:
    """``(steps, input, output)`` from the trace file at ``path``.

    ``input`` is the first user message's content of a conversation (else
    None); ``output`` is the last llm_call's response text. Raises
    :class:`TraceError` naming ``path`` for unreadable or unrecognised input,
    and for a conversation without an assistant message.
    """
    if fmt not in FORMATS:
        raise TraceError(f"unknown trace format {fmt!r}; choose one of {', '.join(FORMATS)}")
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        raise TraceError(f"cannot read trace file {path}: {exc}") from None
    except ValueError as exc:
        raise TraceError(f"trace file {path} is not JSON ({exc}); expected {_SHAPES}") from None
    items = data if isinstance(data, list) else [data]
    provider = next(
        (
            f
            for f, (test, _, _) in _SINGLE.items()
            if fmt in ("auto", f) and items and all(test(i) for i in items)
        ),
        None,
    )
    if fmt in _SINGLE and provider is None:
        raise TraceError(f"trace file {path} is not in the {fmt} format; expected {_SHAPES}")
    if provider is not None:
        _, codec, route = _SINGLE[provider]
        steps = [_provider_step(codec, route, item) for item in items]
        first_input = None
    elif isinstance(data, dict) and isinstance(data.get("messages"), list):
        steps, first_input = _from_conversation(data, path)
    elif _is_completion(data):
        steps, first_input = (
            [_llm_step({"model": data.get("model")} if data.get("model") else {}, data)],
            None,
        )
    elif isinstance(data, list) and data and all(_is_completion(item) for item in data):
        steps = [
            _llm_step({"model": item.get("model")} if item.get("model") else {}, item)
            for item in data
        ]
        first_input = None
    else:
        bad = ""
        if isinstance(data, list) and data:
            index = next(i for i, item in enumerate(data) if not _is_completion(item))
            bad = f" (item [{index}] is not a chat.completion object)"
        raise TraceError(
            f"trace file {path} is not in a recognised format{bad}; expected {_SHAPES}"
        )
    for i, step in enumerate(steps):
        step["step"] = i
    llm = [s for s in steps if s["type"] == "llm_call"]
    output = llm[-1].get("response") if llm else None
    return steps, first_input, output


def _is_completion(value: object) -> bool:
    return isinstance(value, dict) and (
        value.get("object") == "chat.completion" or isinstance(value.get("choices"), list)
    )


def _llm_step(body: dict[str, Any], completion: dict[str, Any]) -> dict[str, Any]:
    from ..providers import get_codec
    from ..storage.scrub import scrub_value

    request = {"method": "POST", "path": _PATH, "body": scrub_value(copy.deepcopy(body))}
    response = {"status": 200, "headers": {}, "body": scrub_value(copy.deepcopy(completion))}
    step: dict[str, Any] = {"type": "llm_call"}
    step.update(get_codec("openai_chat")(request, response))
    step["exchange"] = {"request": request, "response": response}
    return step


def _provider_step(codec: str, route: str, response_body: dict[str, Any]) -> dict[str, Any]:
    """One llm_call step from a saved response of another provider (no request was saved)."""
    from ..providers import get_codec

    model = response_body.get("model") or response_body.get("modelVersion") or "unknown"
    request = {
        "method": "POST",
        "path": route.format(model=model),
        "body": {"model": model} if codec != "gemini" else {},
    }
    response = {"status": 200, "headers": {}, "body": _scrubbed(response_body)}
    step: dict[str, Any] = {"type": "llm_call"}
    step.update(get_codec(codec)(request, response))
    step["exchange"] = {"request": request, "response": response}
    return step


def _scrubbed(value: object) -> Any:
    from ..storage.scrub import scrub_value

    return scrub_value(copy.deepcopy(value))


def _from_conversation(data: dict[str, Any], path: Path) -> tuple[list[dict[str, Any]], Any]:
    messages = data["messages"]
    model = data.get("model")
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
            raise TraceError(
                f"trace file {path}: messages[{i}] is not a chat message (an object with a 'role'); expected {_SHAPES}"
            )
    if not any(m["role"] == "assistant" for m in messages):
        raise TraceError(
            f"trace file {path}: the conversation has no assistant message, so there is no model call to seed a snapshot from"
        )
    steps: list[dict[str, Any]] = []
    requested: dict[str, dict[str, Any]] = {}
    for i, msg in enumerate(messages):
        if msg["role"] == "assistant":
            body: dict[str, Any] = {"messages": messages[:i]}
            if model:
                body["model"] = model
            if isinstance(data.get("tools"), list):
                body["tools"] = data["tools"]
            completion: dict[str, Any] = {
                "object": "chat.completion",
                "choices": [
                    {
                        "index": 0,
                        "message": msg,
                        "finish_reason": "tool_calls" if msg.get("tool_calls") else "stop",
                    }
                ],
            }
            if model:
                completion["model"] = model
            step = _llm_step(body, completion)
            steps.append(step)
            for req in step.get("tool_requests") or []:
                if req.get("id"):
                    requested[str(req["id"])] = req
        elif msg["role"] == "tool":
            call_id = msg.get("tool_call_id")
            req = requested.get(str(call_id)) if call_id is not None else None
            steps.append(
                {
                    "type": "tool_call",
                    "name": req.get("name") if req else msg.get("name"),
                    "args": copy.deepcopy(req.get("args")) if req else None,
                    "result": _scrubbed(msg.get("content")),
                    "id": call_id,
                }
            )
    first_user = next((m.get("content") for m in messages if m["role"] == "user"), None)
    return steps, _scrubbed(first_user)
