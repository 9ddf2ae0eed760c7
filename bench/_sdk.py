"""The real openai, anthropic and groq SDKs on an in-process transport (no socket).

Each client gets an ``http_client`` whose transport is a ``MockTransport`` that
answers every request with a canned reply in the provider's wire format: a JSON
body, or a server-sent-event stream delivered chunk by chunk (one HTTP chunk per
event, as a server sends them), so the SDK does all of its own work — parameter
transformation, request building, response parsing — and only the socket is
missing.

``bare_client_class(module)`` is a subclass of ``module.Client`` whose ``send``
is the library's original, unwrapped method: the baseline with nothing of
agentsnap in the call path, usable in the same process after agentsnap's hooks
have wrapped ``Client.send``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

SYSTEM = "You are a terse assistant. Answer in one short sentence. Use the weather tool when asked about weather."
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather of a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
ANTHROPIC_TOOL = {
    "name": "get_weather",
    "description": "The current weather of a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
OPENAI_MODEL = "gpt-4o-mini"
ANTHROPIC_MODEL = "claude-haiku-4-5"
GROQ_MODEL = "llama-3.3-70b-versatile"
ANSWER = ["The weather", " in Paris", " is mild", " and sunny", " today."]  # 5 streamed pieces
CREATED = 1_760_000_000

SDKS = ("openai", "anthropic", "groq")


def user_message(i: int, tag: str = "") -> str:
    return f"Question {i}: what is the weather like in city number {i} today?{tag}"


# --------------------------------------------------------------------------- wire payloads


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def openai_json(i: int, *, groq: bool = False, note: str = "") -> bytes:
    body: dict[str, Any] = {
        "id": f"chatcmpl-bench{i}",
        "object": "chat.completion",
        "created": CREATED,
        "model": GROQ_MODEL if groq else OPENAI_MODEL + "-2024-07-18",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "".join(ANSWER) + note,
                    "refusal": None,
                },
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 41, "completion_tokens": 9, "total_tokens": 50},
        "system_fingerprint": "fp_bench",
    }
    if groq:
        body["x_groq"] = {"id": f"req_{i}"}
    else:
        body["usage"]["prompt_tokens_details"] = {"cached_tokens": 0, "audio_tokens": 0}
        body["usage"]["completion_tokens_details"] = {"reasoning_tokens": 0, "audio_tokens": 0}
        body["service_tier"] = "default"
    return _dumps(body).encode()


def openai_sse(i: int, *, groq: bool = False, note: str = "") -> list[bytes]:
    base = {
        "id": f"chatcmpl-bench{i}",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": GROQ_MODEL if groq else OPENAI_MODEL + "-2024-07-18",
        "system_fingerprint": "fp_bench",
    }

    def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
        data = {
            **base,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        return f"data: {_dumps(data)}\n\n".encode()

    events = [event({"role": "assistant", "content": ""})]
    events += [event({"content": piece}) for piece in [*ANSWER[:-1], ANSWER[-1] + note]]
    events.append(event({}, "stop"))
    events.append(b"data: [DONE]\n\n")
    return events


def anthropic_json(i: int, note: str = "") -> bytes:
    return _dumps(
        {
            "id": f"msg_bench{i}",
            "type": "message",
            "role": "assistant",
            "model": ANTHROPIC_MODEL,
            "content": [{"type": "text", "text": "".join(ANSWER) + note}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": 41,
                "output_tokens": 9,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
    ).encode()


def anthropic_sse(i: int, note: str = "") -> list[bytes]:
    def event(kind: str, data: dict[str, Any]) -> bytes:
        return f"event: {kind}\ndata: {_dumps({'type': kind, **data})}\n\n".encode()

    events = [
        event(
            "message_start",
            {
                "message": {
                    "id": f"msg_bench{i}",
                    "type": "message",
                    "role": "assistant",
                    "model": ANTHROPIC_MODEL,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 41, "output_tokens": 1},
                }
            },
        ),
        event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
        event("ping", {}),
    ]
    pieces = [*ANSWER, note, ""]  # 7 deltas: 12 events in all
    events += [
        event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": p}})
        for p in pieces
    ]
    events.append(event("content_block_stop", {"index": 0}))
    events.append(
        event(
            "message_delta",
            {
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 9},
            },
        )
    )
    events.append(event("message_stop", {}))
    return events


# --------------------------------------------------------------------------- transports


def _index_of(request: Any) -> int:
    """The question number in a request body (so each reply matches its request)."""
    body = request.content
    at = body.find(b"Question ")
    if at < 0:
        return 0
    end = body.find(b":", at)
    try:
        return int(body[at + 9 : end])
    except ValueError:
        return 0


def handler(sdk: str, module: Any) -> Callable[[Any], Any]:
    """A MockTransport handler answering like ``sdk``'s API, in ``module`` (httpx or httpx2)."""

    class Chunks(module.SyncByteStream):  # one HTTP chunk per event
        def __init__(self, chunks: list[bytes]) -> None:
            self._chunks = chunks

        def __iter__(self) -> Any:
            yield from self._chunks

    json_headers = [
        ("content-type", "application/json"),
        ("x-request-id", "req_bench"),
        ("openai-processing-ms", "120"),
    ]
    sse_headers = [
        ("content-type", "text/event-stream; charset=utf-8"),
        ("x-request-id", "req_bench"),
    ]
    if sdk == "anthropic":
        json_headers = [
            ("content-type", "application/json"),
            ("request-id", "req_bench"),
            ("anthropic-organization-id", "org"),
        ]
        sse_headers = [
            ("content-type", "text/event-stream; charset=utf-8"),
            ("request-id", "req_bench"),
        ]

    def handle(request: Any) -> Any:
        i = _index_of(request)
        streamed = b'"stream":true' in request.content
        # each distinct request gets its own answer text, as from a real model
        note = f" (ref {hashlib.sha1(request.content).hexdigest()[:10]})"
        if sdk == "anthropic":
            body, events = (
                (None, anthropic_sse(i, note)) if streamed else (anthropic_json(i, note), None)
            )
        else:
            groq = sdk == "groq"
            body, events = (
                (None, openai_sse(i, groq=groq, note=note))
                if streamed
                else (openai_json(i, groq=groq, note=note), None)
            )
        if events is not None:
            return module.Response(200, headers=sse_headers, stream=Chunks(events))
        return module.Response(200, headers=json_headers, content=body)

    return handle


def http_module(sdk: str) -> Any:
    if sdk == "groq":
        import httpx

        return httpx
    import httpx2

    return httpx2


def original_send(cls: type) -> Any:
    """``cls.send`` as the library defines it, under any wrapt wrappers."""
    func = cls.__dict__["send"]
    seen = 0
    while hasattr(func, "__wrapped__") and seen < 16:
        func = func.__wrapped__
        seen += 1
    return func


_bare: dict[str, type] = {}


def bare_client_class(module: Any) -> type:
    """A ``module.Client`` subclass that sends with the unwrapped ``send``."""
    cls = _bare.get(module.__name__)
    if cls is None:
        cls = type(
            "BareClient",
            (module.Client,),
            {"send": original_send(module.Client), "__module__": module.__name__},
        )
        _bare[module.__name__] = cls
    return cls


def make_client(sdk: str, *, bare: bool = False) -> Any:
    """An SDK client of ``sdk`` on an in-process transport; ``bare``: with no agentsnap in its send path."""
    module = http_module(sdk)
    cls = bare_client_class(module) if bare else module.Client
    http_client = cls(transport=module.MockTransport(handler(sdk, module)))
    if sdk == "openai":
        import openai

        return openai.OpenAI(
            api_key="sk-bench-not-a-real-key-0000",
            base_url="https://api.openai.com/v1",
            http_client=http_client,
            max_retries=0,
        )
    if sdk == "anthropic":
        import anthropic

        return anthropic.Anthropic(
            api_key="sk-ant-bench-not-a-real-key",
            base_url="https://api.anthropic.com",
            http_client=http_client,
            max_retries=0,
        )
    if sdk == "groq":
        import groq

        return groq.Groq(
            api_key="gsk_bench_not_a_real_key_0000",
            base_url="https://api.groq.com",
            http_client=http_client,
            max_retries=0,
        )
    raise ValueError(sdk)


def call(client: Any, sdk: str, i: int, stream: bool, tag: str = "") -> Any:
    """One chat call of question ``i`` (a streamed one is read to its end); ``tag`` is
    appended to the question (a run of the same questions that no cache has seen)."""
    if sdk == "anthropic":
        kwargs: dict[str, Any] = dict(
            model=ANTHROPIC_MODEL,
            max_tokens=256,
            system=SYSTEM,
            tools=[ANTHROPIC_TOOL],
            messages=[{"role": "user", "content": user_message(i, tag)}],
        )
        create = client.messages.create
    else:
        kwargs = dict(
            model=GROQ_MODEL if sdk == "groq" else OPENAI_MODEL,
            tools=[WEATHER_TOOL],
            messages=[
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": user_message(i, tag)},
            ],
        )
        create = client.chat.completions.create
    if not stream:
        return create(**kwargs)
    last = None
    for last in create(stream=True, **kwargs):  # noqa: B007 - the last chunk is the result
        pass
    return last


def sdk_version(sdk: str) -> str:
    import importlib.metadata

    return importlib.metadata.version(sdk)
