"""More fake providers on :class:`tests.fake_provider.FakeProvider`: the OpenAI
Responses API, groq and OpenRouter; and reply builders in their wire formats.

Stdlib only (no agentsnap import). Every server is a real threaded HTTP server
on 127.0.0.1.

* :class:`FakeOpenAIResponses` serves ``POST /v1/responses`` (``base_url`` =
  ``http://127.0.0.1:<port>/v1``). JSON replies are ``Response`` objects
  (:func:`responses_reply`); streams (:func:`responses_stream_reply`) are the
  typed SSE events the API sends, ``event: <type>\\ndata: <json>\\n\\n``, one
  HTTP chunk each, with increasing ``sequence_number``.
* :class:`FakeGroq` serves ``POST /openai/v1/chat/completions`` (``base_url`` =
  the origin, as ``groq.Groq(base_url=...)`` expects): the chat-completions
  format plus groq's ``x_groq`` extras (:func:`groq_reply`,
  :func:`groq_stream_reply`).
* :class:`FakeOpenRouter` serves ``POST /api/v1/chat/completions``. The openai
  SDK is pointed at ``https://openrouter.ai/api/v1`` and given an ``httpx2``
  client whose transport (:class:`LoopbackTransport`) forwards every request
  to the fake over a real socket, so the SDK's own request (host
  ``openrouter.ai``) reaches ``Client.send`` unchanged.
* :func:`openai_http` names the HTTP library the installed ``openai`` SDK is
  built on (``httpx2`` from openai 3.0, ``httpx`` before), for tests that
  hand the SDK a client or check an exception type.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import Any

from tests.fake_provider import FINGERPRINT, FakeProvider, Reply

__all__ = [
    "AsyncLoopbackTransport",
    "FakeGroq",
    "FakeOpenAIResponses",
    "FakeOpenRouter",
    "LoopbackTransport",
    "function_call_item",
    "groq_reply",
    "groq_stream_reply",
    "message_item",
    "openai_http",
    "openai_version",
    "openrouter_reply",
    "openrouter_stream_reply",
    "response_object",
    "responses_reply",
    "responses_stream_reply",
]

RESPONSES_MODEL = "gpt-4o-mini-2024-07-18"
GROQ_MODEL = "llama-3.3-70b-versatile"
CREATED = 1_700_000_000


# --------------------------------------------------------------------------- the SDK's HTTP library


def openai_http() -> ModuleType:
    """The module (``httpx2`` or ``httpx``) whose ``Client`` the installed ``openai`` SDK uses by default.

    openai 3.0 moved from ``httpx`` to ``httpx2`` (openai 2.x accepts an
    ``httpx2`` client only as an option); read from the SDK's public
    ``DefaultHttpxClient``, not from its version number.
    """
    import openai

    for cls in openai.DefaultHttpxClient.__mro__:
        root = cls.__module__.split(".")[0]
        if cls.__name__ == "Client" and root in ("httpx", "httpx2"):
            return importlib.import_module(root)
    raise RuntimeError(
        f"openai.DefaultHttpxClient is not an httpx/httpx2 Client: {openai.DefaultHttpxClient.__mro__}"
    )


def openai_version() -> tuple[int, ...]:
    """The installed ``openai`` SDK's version as numbers: ``(1, 40, 0)``."""
    import openai

    return tuple(int(part) for part in re.findall(r"\d+", openai.__version__)[:3])


# --------------------------------------------------------------------------- servers


class FakeOpenAIResponses(FakeProvider):
    """The fake OpenAI Responses API (``POST /v1/responses``)."""

    label = "FakeOpenAIResponses"
    routes = (("POST", "/v1/responses"),)

    @property
    def base_url(self) -> str:
        """``"http://127.0.0.1:<port>/v1"`` -- pass as ``OpenAI(base_url=...)``."""
        return f"{self.origin}/v1"


class FakeGroq(FakeProvider):
    """The fake groq chat-completions API (``POST /openai/v1/chat/completions``)."""

    label = "FakeGroq"
    routes = (("POST", "/openai/v1/chat/completions"),)

    @property
    def base_url(self) -> str:
        """``"http://127.0.0.1:<port>"`` -- pass as ``Groq(base_url=...)`` (the SDK adds ``/openai/v1``)."""
        return self.origin


class FakeOpenRouter(FakeProvider):
    """The fake OpenRouter chat-completions API (``POST /api/v1/chat/completions``)."""

    label = "FakeOpenRouter"
    routes = (("POST", "/api/v1/chat/completions"),)

    #: what the SDK is pointed at; :class:`LoopbackTransport` carries it to the fake
    public_base_url = "https://openrouter.ai/api/v1"


def _forwarded(request: Any, origin: str, http: ModuleType) -> Any:
    target = http.URL(origin)
    url = request.url.copy_with(scheme=target.scheme, host=target.host, port=target.port)
    headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "host"]
    return http.Request(
        request.method, url, headers=headers, content=request.content, extensions=request.extensions
    )


def LoopbackTransport(origin: str, http: ModuleType | None = None) -> Any:
    """An ``httpx2`` transport that sends each request to ``origin`` (``http://127.0.0.1:<port>``)
    over a real socket, keeping path, query, method, headers and body.

    Use as ``httpx2.Client(transport=LoopbackTransport(fake.origin))``: the
    client (and whatever wraps its ``send``) still sees the request for the
    public host; only the socket goes to the fake. ``http`` picks the library
    (default ``httpx2``; pass ``httpx`` for an ``httpx.Client``).
    """
    if http is None:
        import httpx2 as http

    class _Loopback(http.BaseTransport):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            self._inner = http.HTTPTransport()

        def handle_request(self, request: Any) -> Any:
            request.read()
            return self._inner.handle_request(_forwarded(request, origin, http))

        def close(self) -> None:
            self._inner.close()

    return _Loopback()


def AsyncLoopbackTransport(origin: str, http: ModuleType | None = None) -> Any:
    """The ``AsyncClient`` counterpart of :func:`LoopbackTransport`."""
    if http is None:
        import httpx2 as http

    class _AsyncLoopback(http.AsyncBaseTransport):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            self._inner = http.AsyncHTTPTransport()

        async def handle_async_request(self, request: Any) -> Any:
            await request.aread()
            return await self._inner.handle_async_request(_forwarded(request, origin, http))

        async def aclose(self) -> None:
            await self._inner.aclose()

    return _AsyncLoopback()


# --------------------------------------------------------------------------- Responses API

Usage = tuple[int, int]  # (input_tokens, output_tokens)


def message_item(text: str, *, id: str = "msg_fake_1") -> dict[str, Any]:
    """An assistant ``message`` output item with one ``output_text`` part."""
    return {
        "id": id,
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
    }


def function_call_item(
    call_id: str, name: str, arguments: dict | str, *, id: str | None = None
) -> dict[str, Any]:
    """A ``function_call`` output item; dict arguments are sent as compact JSON."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, separators=(",", ":"))
    return {
        "id": id or f"fc_{call_id}",
        "type": "function_call",
        "status": "completed",
        "arguments": args,
        "call_id": call_id,
        "name": name,
    }


def _usage(usage: Usage) -> dict[str, Any]:
    inp, out = usage
    return {
        "input_tokens": inp,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": out,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": inp + out,
    }


def response_object(
    output: Sequence[dict[str, Any]],
    *,
    id: str = "resp_fake_1",
    model: str = RESPONSES_MODEL,
    usage: Usage | None = (12, 6),
    status: str = "completed",
    instructions: str | None = None,
    text_format: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``Response`` object as the API returns it."""
    return {
        "id": id,
        "object": "response",
        "created_at": CREATED,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": instructions,
        "max_output_tokens": None,
        "model": model,
        "output": [dict(item) for item in output],
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "service_tier": "default",
        "store": True,
        "temperature": 1.0,
        "text": {"format": text_format or {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": _usage(usage) if usage is not None else None,
        "user": None,
        "metadata": {},
    }


def responses_reply(output: Sequence[dict[str, Any]], **kw: Any) -> Reply:
    """A JSON ``Response`` reply (see :func:`response_object` for the options)."""
    return Reply(body=response_object(output, **kw))


def _split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def responses_stream_events(
    output: Sequence[dict[str, Any]],
    *,
    piece: int = 4,
    interleave_calls: bool = False,
    final_output: bool = True,
    cut_after: int | None = None,
    **kw: Any,
) -> list[str]:
    """The SSE events the API streams for a response with these output items.

    ``response.created`` and ``response.in_progress`` (empty output), then per
    item ``output_item.added``; a message gets ``content_part.added``,
    ``output_text.delta`` pieces of ``piece`` characters, ``output_text.done``,
    ``content_part.done``; a function call gets ``function_call_arguments.delta``
    pieces and ``.done``; each item ends with ``output_item.done``; last comes
    ``response.completed`` with the whole response (its ``output`` omitted
    when ``final_output`` is False). ``interleave_calls`` sends all function
    calls' ``added`` events first and then their argument deltas alternately.
    ``cut_after`` keeps only that many events (a stream cut short).
    """
    final = response_object(output, **kw)
    seq = iter(range(10_000))
    events: list[dict[str, Any]] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": next(seq), **fields})

    start = dict(final, status="in_progress", output=[], usage=None)
    emit("response.created", response=start)
    emit("response.in_progress", response=start)

    def added(index: int, item: dict[str, Any]) -> None:
        if item["type"] == "message":
            emit(
                "response.output_item.added",
                output_index=index,
                item=dict(item, status="in_progress", content=[]),
            )
        else:
            emit(
                "response.output_item.added",
                output_index=index,
                item=dict(item, status="in_progress", arguments=""),
            )

    def body_of(index: int, item: dict[str, Any]) -> list[dict[str, Any]]:
        """The delta events of one item (not yet emitted), then its closing events."""
        out: list[dict[str, Any]] = []
        if item["type"] == "message":
            part = item["content"][0]
            out.append(
                {
                    "type": "response.content_part.added",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "part": dict(part, text=""),
                }
            )
            for p in _split(part["text"], piece):
                out.append(
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "delta": p,
                        "logprobs": [],
                    }
                )
            out.append(
                {
                    "type": "response.output_text.done",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "text": part["text"],
                    "logprobs": [],
                }
            )
            out.append(
                {
                    "type": "response.content_part.done",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "part": part,
                }
            )
        else:
            for p in _split(item["arguments"], piece):
                out.append(
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "delta": p,
                    }
                )
            out.append(
                {
                    "type": "response.function_call_arguments.done",
                    "item_id": item["id"],
                    "output_index": index,
                    "arguments": item["arguments"],
                }
            )
        out.append({"type": "response.output_item.done", "output_index": index, "item": item})
        return out

    items = list(enumerate(output))
    if interleave_calls:
        for index, item in items:
            added(index, item)
        bodies = [body_of(index, item) for index, item in items]
        # alternate the delta events; each item's closing events stay in its own order
        while any(bodies):
            for b in bodies:
                if b:
                    ev = b.pop(0)
                    emit(ev.pop("type"), **ev)
    else:
        for index, item in items:
            added(index, item)
            for ev in body_of(index, item):
                emit(ev.pop("type"), **ev)
    completed = dict(final)
    if not final_output:
        del completed["output"]
    emit("response.completed", response=completed)
    if cut_after is not None:
        events = events[:cut_after]
    return [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events]


def responses_stream_reply(output: Sequence[dict[str, Any]], **kw: Any) -> Reply:
    """A streamed ``Response`` (see :func:`responses_stream_events` for the options)."""
    return Reply(events=tuple(responses_stream_events(output, **kw)))


# --------------------------------------------------------------------------- groq

GroqUsage = tuple[int, int]


def _groq_usage(usage: GroqUsage) -> dict[str, Any]:
    prompt, completion = usage
    return {
        "queue_time": 0.0123,
        "prompt_tokens": prompt,
        "prompt_time": 0.004,
        "completion_tokens": completion,
        "completion_time": 0.02,
        "total_tokens": prompt + completion,
        "total_time": 0.024,
    }


def groq_reply(
    content: str | None,
    *,
    tool_calls: Sequence[tuple[str, str, dict | str]] = (),
    id: str = "chatcmpl-groq-1",
    model: str = GROQ_MODEL,
    usage: GroqUsage = (18, 7),
) -> Reply:
    """A groq ``chat.completion`` (with ``x_groq`` and timing usage)."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": cid,
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args
                    if isinstance(args, str)
                    else json.dumps(args, separators=(",", ":")),
                },
            }
            for cid, name, args in tool_calls
        ]
    body = {
        "id": id,
        "object": "chat.completion",
        "created": CREATED,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": _groq_usage(usage),
        "usage_breakdown": None,
        "system_fingerprint": FINGERPRINT,
        "x_groq": {"id": "req_groq_1", "seed": 42},
        "service_tier": "on_demand",
    }
    return Reply(body=body, model=model, headers=(("x-ratelimit-remaining-requests", "14399"),))


def groq_stream_reply(
    pieces: Iterable[str] = (),
    *,
    tool_calls: Sequence[tuple[str, str, dict | str]] = (),
    id: str = "chatcmpl-groq-2",
    model: str = GROQ_MODEL,
    usage: GroqUsage = (18, 7),
    done: bool = True,
) -> Reply:
    """A groq chat-completions stream: ``x_groq.id`` on the first chunk, ``x_groq.usage``
    on the last (groq's way of reporting stream usage), then ``data: [DONE]``.

    Tool calls are streamed whole, one chunk each (groq sends complete calls).
    """
    base = {
        "id": id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": model,
        "system_fingerprint": FINGERPRINT,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        data = {
            **base,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            **extra,
        }
        return f"data: {json.dumps(data)}\n\n"

    events = [chunk({"role": "assistant", "content": ""}, x_groq={"id": "req_groq_2"})]
    events += [chunk({"content": p}) for p in pieces]
    for index, (cid, name, args) in enumerate(tool_calls):
        arguments = args if isinstance(args, str) else json.dumps(args, separators=(",", ":"))
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": arguments},
                        }
                    ]
                }
            )
        )
    events.append(
        chunk(
            {},
            "tool_calls" if tool_calls else "stop",
            x_groq={"id": "req_groq_2", "usage": _groq_usage(usage)},
        )
    )
    if done:
        events.append("data: [DONE]\n\n")
    return Reply(events=tuple(events), model=model)


# --------------------------------------------------------------------------- OpenRouter

OPENROUTER_MODEL = "openai/gpt-4o-mini"


def _openrouter_usage(usage: tuple[int, int]) -> dict[str, Any]:
    prompt, completion = usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "cost": 0.0000243,
        "is_byok": False,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


def openrouter_reply(
    content: str | None,
    *,
    tool_calls: Sequence[tuple[str, str, dict | str]] = (),
    id: str = "gen-1700000000-abcdef",
    model: str = OPENROUTER_MODEL,
    usage: tuple[int, int] = (14, 6),
) -> Reply:
    """An OpenRouter ``chat.completion``: the OpenAI shape plus ``provider`` and usage ``cost``."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "refusal": None,
        "reasoning": None,
    }
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": cid,
                "index": i,
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args
                    if isinstance(args, str)
                    else json.dumps(args, separators=(",", ":")),
                },
            }
            for i, (cid, name, args) in enumerate(tool_calls)
        ]
    body = {
        "id": id,
        "provider": "OpenAI",
        "model": model,
        "object": "chat.completion",
        "created": CREATED,
        "choices": [
            {
                "logprobs": None,
                "finish_reason": "tool_calls" if tool_calls else "stop",
                "native_finish_reason": "tool_calls" if tool_calls else "stop",
                "index": 0,
                "message": message,
            }
        ],
        "system_fingerprint": FINGERPRINT,
        "usage": _openrouter_usage(usage),
    }
    return Reply(body=body, model=model)


def openrouter_stream_reply(
    pieces: Iterable[str] = (),
    *,
    tool_calls: Sequence[tuple[str, str, dict | str]] = (),
    id: str = "gen-1700000000-stream",
    model: str = OPENROUTER_MODEL,
    usage: tuple[int, int] = (14, 6),
) -> Reply:
    """An OpenRouter stream: SSE keep-alive comments (``: OPENROUTER PROCESSING``)
    before the chunks, tool-call arguments split in two pieces, a usage chunk, ``[DONE]``."""
    base = {
        "id": id,
        "provider": "OpenAI",
        "model": model,
        "object": "chat.completion.chunk",
        "created": CREATED,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        data = {
            **base,
            "choices": [
                {
                    "index": 0,
                    "delta": delta,
                    "finish_reason": finish,
                    "native_finish_reason": finish,
                    "logprobs": None,
                }
            ],
            **extra,
        }
        return f"data: {json.dumps(data)}\n\n"

    events = [
        ": OPENROUTER PROCESSING\n\n",
        ": OPENROUTER PROCESSING\n\n",
        chunk({"role": "assistant", "content": ""}),
    ]
    events += [chunk({"role": "assistant", "content": p}) for p in pieces]
    for index, (cid, name, args) in enumerate(tool_calls):
        arguments = args if isinstance(args, str) else json.dumps(args, separators=(",", ":"))
        half = len(arguments) // 2
        events.append(
            chunk(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "index": index,
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": arguments[:half]},
                        }
                    ],
                }
            )
        )
        events.append(
            chunk(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "index": index,
                            "type": "function",
                            "function": {"arguments": arguments[half:]},
                        }
                    ],
                }
            )
        )
    events.append(
        chunk({"role": "assistant", "content": ""}, "tool_calls" if tool_calls else "stop")
    )
    events.append(
        f"data: {json.dumps({**base, 'choices': [], 'usage': _openrouter_usage(usage)})}\n\n"
    )
    events.append("data: [DONE]\n\n")
    return Reply(events=tuple(events), model=model)
