"""The fake provider, driven by the real openai SDK (no agentsnap involvement)."""

from __future__ import annotations

import asyncio
import json
import re
import socket

import openai
import pytest
from openai.types.chat import ChatCompletion

from tests.fake_provider import (
    FakeOpenAI,
    error_reply,
    stream_text_reply,
    stream_tool_calls_reply,
    text_reply,
    tool_calls_reply,
)

MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]
CALLS = [
    ("call_A", "get_weather", {"city": "Paris"}),
    ("call_B", "get_time", {"tz": "Europe/Paris"}),
]
EXPECTED_CALLS = [
    {"id": "call_A", "name": "get_weather", "arguments": '{"city":"Paris"}'},
    {"id": "call_B", "name": "get_time", "arguments": '{"tz":"Europe/Paris"}'},
]


def client_for(fake: FakeOpenAI) -> openai.OpenAI:
    return openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)


def create(client: openai.OpenAI, **kwargs):
    return client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES, **kwargs)


def reassemble_tool_calls(chunks) -> list[dict]:
    """Merge tool-call deltas by (choice index, tool-call index)."""
    calls: dict[tuple[int, int], dict] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for part in choice.delta.tool_calls or []:
                call = calls.setdefault(
                    (choice.index, part.index), {"id": None, "name": "", "arguments": ""}
                )
                call["id"] = part.id or call["id"]
                call["name"] += part.function.name or ""
                call["arguments"] += part.function.arguments or ""
    return [calls[key] for key in sorted(calls)]


def test_plain_create_returns_exact_chat_completion(fake_openai):
    fake_openai.script(text_reply("Hello there!", usage=(12, 3)))
    response = client_for(fake_openai).chat.completions.with_raw_response.create(
        model="gpt-4o-mini", messages=MESSAGES
    )
    completion = response.parse()

    assert isinstance(completion, ChatCompletion)
    assert re.fullmatch(r"chatcmpl-[0-9a-f]{24}", completion.id)
    assert completion.object == "chat.completion"
    assert (
        isinstance(completion.created, int) and 1_700_000_000 <= completion.created < 1_702_000_000
    )
    assert completion.model == "gpt-4o-mini"
    assert completion.system_fingerprint == "fp_fake"
    assert len(completion.choices) == 1
    choice = completion.choices[0]
    assert (choice.index, choice.finish_reason) == (0, "stop")
    assert (choice.message.role, choice.message.content, choice.message.tool_calls) == (
        "assistant",
        "Hello there!",
        None,
    )
    assert completion.usage.model_dump(
        include={"prompt_tokens", "completion_tokens", "total_tokens"}
    ) == {
        "prompt_tokens": 12,
        "completion_tokens": 3,
        "total_tokens": 15,
    }
    assert response.headers["content-type"] == "application/json"
    assert re.fullmatch(r"req_[0-9a-f]{24}", response.headers["x-request-id"])


def test_ids_are_deterministic():
    def first_two_ids() -> list[tuple[str, int]]:
        with FakeOpenAI() as fake:
            fake.script(text_reply("a"), text_reply("a"))
            client = client_for(fake)
            return [(c.id, c.created) for c in (create(client), create(client))]

    run1, run2 = first_two_ids(), first_two_ids()
    assert run1 == run2  # reproducible across servers
    assert run1[0] != run1[1]  # a repeated identical request gets a new id


def test_tool_calls_reply(fake_openai):
    fake_openai.script(tool_calls_reply(CALLS))
    completion = create(client_for(fake_openai), tools=[])
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    assert [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
        for c in choice.message.tool_calls
    ] == EXPECTED_CALLS
    assert {c.type for c in choice.message.tool_calls} == {"function"}


def test_stream_text_reassembles(fake_openai):
    fake_openai.script(stream_text_reply(["Hel", "lo, ", "wor", "ld!"]))
    chunks = list(create(client_for(fake_openai), stream=True))

    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Hello, world!"
    assert [c.choices[0].finish_reason for c in chunks[:-1]] == [None] * 5 + ["stop"]
    assert chunks[0].choices[0].delta.role == "assistant"
    assert {c.id for c in chunks} == {chunks[0].id} and {c.object for c in chunks} == {
        "chat.completion.chunk"
    }
    usage_chunk = chunks[-1]
    assert usage_chunk.choices == []
    assert (usage_chunk.usage.prompt_tokens, usage_chunk.usage.completion_tokens) == (10, 5)


def test_stream_usage_chunk_only_when_asked(fake_openai):
    fake_openai.script(
        stream_text_reply(["a"], include_usage=False), stream_text_reply(["a"], include_usage=False)
    )
    client = client_for(fake_openai)
    plain = list(create(client, stream=True))
    asked = list(create(client, stream=True, stream_options={"include_usage": True}))
    assert [c.usage for c in plain] == [None] * 3 and all(c.choices for c in plain)
    assert asked[-1].choices == [] and asked[-1].usage.total_tokens == 15


def test_streamed_parallel_tool_calls_interleave_and_reassemble(fake_openai):
    fake_openai.script(stream_tool_calls_reply(CALLS))
    chunks = list(create(client_for(fake_openai), stream=True, tools=[]))

    assert reassemble_tool_calls(chunks) == EXPECTED_CALLS
    parts = [p for c in chunks if c.choices for p in c.choices[0].delta.tool_calls or []]
    assert [(p.index, p.id, p.type, p.function.name, p.function.arguments) for p in parts] == [
        (0, "call_A", "function", "get_weather", ""),
        (1, "call_B", "function", "get_time", ""),
        (0, None, None, None, '{"city":'),
        (1, None, None, None, '{"tz":'),
        (0, None, None, None, '"Paris"}'),
        (1, None, None, None, '"Europe/Paris"}'),
    ]
    assert chunks[-2].choices[0].finish_reason == "tool_calls"
    assert chunks[-1].choices == []


def test_streamed_tool_calls_without_interleave(fake_openai):
    fake_openai.script(stream_tool_calls_reply(CALLS, interleave=False))
    chunks = list(create(client_for(fake_openai), stream=True))
    parts = [p for c in chunks if c.choices for p in c.choices[0].delta.tool_calls or []]
    assert [(p.index, p.function.arguments) for p in parts[2:]] == [
        (0, '{"city":'),
        (0, '"Paris"}'),
        (1, '{"tz":'),
        (1, '"Europe/Paris"}'),
    ]
    assert reassemble_tool_calls(chunks) == EXPECTED_CALLS


def test_sse_wire_format_one_event_per_http_chunk(fake_openai):
    fake_openai.script(stream_text_reply(["Hi", "!"]))
    body = json.dumps({"model": "gpt-4o-mini", "messages": MESSAGES, "stream": True}).encode()
    with socket.create_connection(("127.0.0.1", fake_openai.port), timeout=5) as sock:
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
        )
        raw = b""
        while not raw.endswith(b"\r\n0\r\n\r\n"):
            raw += sock.recv(65536)
    head, _, rest = raw.partition(b"\r\n\r\n")
    headers = {
        k.lower(): v
        for k, _, v in (line.partition(": ") for line in head.decode().split("\r\n")[1:])
    }
    assert headers["content-type"] == "text/event-stream; charset=utf-8"
    assert headers["transfer-encoding"] == "chunked"
    assert headers["x-request-id"].startswith("req_")
    events = []
    while True:
        size, _, rest = rest.partition(b"\r\n")
        if int(size, 16) == 0:
            break
        events.append(rest[: int(size, 16)].decode())
        rest = rest[int(size, 16) + 2 :]
    assert all(
        e.startswith("data: ") and e.endswith("\n\n") and e.count("\n\n") == 1 for e in events
    )
    payloads = [e[len("data: ") : -2] for e in events]
    assert payloads[-1] == "[DONE]"
    chunks = [json.loads(p) for p in payloads[:-1]]
    assert [c["choices"][0]["delta"] for c in chunks[:4]] == [
        {"role": "assistant", "content": "", "refusal": None},
        {"content": "Hi"},
        {"content": "!"},
        {},
    ]
    assert chunks[4]["choices"] == [] and chunks[4]["usage"] == {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
    }
    assert all(c["usage"] is None for c in chunks[:4])


def test_rate_limit_error(fake_openai):
    fake_openai.script(error_reply(429, message="Slow down"))
    with pytest.raises(openai.RateLimitError) as excinfo:
        create(client_for(fake_openai))
    err = excinfo.value
    assert err.status_code == 429
    assert err.body == {
        "message": "Slow down",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }
    assert err.response.headers["retry-after"] == "0"
    assert err.response.headers["content-type"] == "application/json"


def test_requests_are_recorded(fake_openai):
    fake_openai.script(text_reply("one"), stream_text_reply(["two"]))
    client = client_for(fake_openai)
    create(client, temperature=0)
    list(create(client, stream=True))

    recorded = fake_openai.requests
    assert [(r.method, r.path) for r in recorded] == [("POST", "/v1/chat/completions")] * 2
    assert [r.body for r in recorded] == [
        {"model": "gpt-4o-mini", "messages": MESSAGES, "temperature": 0},
        {"model": "gpt-4o-mini", "messages": MESSAGES, "stream": True},
    ]
    assert recorded[0].headers["authorization"] == "Bearer sk-test"
    assert recorded[0].headers["content-type"] == "application/json"
    assert all(name == name.lower() for name in recorded[0].headers)


def test_exhausted_script_is_a_clear_500(fake_openai):
    with pytest.raises(openai.InternalServerError) as excinfo:
        create(client_for(fake_openai))
    assert excinfo.value.status_code == 500
    assert excinfo.value.body["code"] == "script_exhausted"
    assert "script exhausted" in excinfo.value.body["message"]


def test_stream_mismatch_is_a_clear_500(fake_openai):
    fake_openai.script(text_reply("not a stream"))
    with pytest.raises(openai.InternalServerError) as excinfo:
        list(create(client_for(fake_openai), stream=True))
    assert excinfo.value.body["code"] == "stream_mismatch"


def test_responder_after_script(fake_openai):
    seen = []

    def responder(body):
        seen.append(body["messages"][-1]["content"])
        return text_reply(f"echo: {body['messages'][-1]['content']}")

    fake_openai.script(text_reply("scripted")).respond_with(responder)
    client = client_for(fake_openai)
    assert [create(client).choices[0].message.content for _ in range(2)] == [
        "scripted",
        "echo: Weather in Paris?",
    ]
    assert seen == ["Weather in Paris?"]
    assert fake_openai.pending == 0


def test_unknown_path_is_404_and_keeps_script(fake_openai):
    fake_openai.script(text_reply("kept"))
    client = client_for(fake_openai)
    with pytest.raises(openai.NotFoundError):
        client.models.list()
    assert create(client).choices[0].message.content == "kept"
    assert [(r.method, r.path) for r in fake_openai.requests] == [
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
    ]


def test_keep_alive_reuses_one_connection(fake_openai):
    fake_openai.script(text_reply("a"), text_reply("b"), text_reply("c"))
    client = client_for(fake_openai)
    for _ in range(3):
        create(client)
    assert fake_openai.connections_opened == 1


def test_keep_alive_survives_streams(fake_openai):
    # The sync SDK stops reading at [DONE] and so drops its connection; the async SDK
    # drains the body first, which shows the server keeps the connection usable.
    fake_openai.script(
        stream_text_reply(["a"]), text_reply("b"), stream_tool_calls_reply(CALLS), text_reply("c")
    )

    async def main():
        async with openai.AsyncOpenAI(
            base_url=fake_openai.base_url, api_key="sk-test", max_retries=0
        ) as client:
            for stream in (True, False, True, False):
                response = await client.chat.completions.create(
                    model="m", messages=MESSAGES, stream=stream
                )
                if stream:
                    [chunk async for chunk in response]

    asyncio.run(main())
    assert len(fake_openai.requests) == 4
    assert fake_openai.connections_opened == 1


def test_async_client_create_and_stream(fake_openai):
    fake_openai.script(text_reply("async hi"), stream_tool_calls_reply(CALLS))

    async def main():
        async with openai.AsyncOpenAI(
            base_url=fake_openai.base_url, api_key="sk-test", max_retries=0
        ) as client:
            completion = await client.chat.completions.create(
                model="gpt-4o-mini", messages=MESSAGES
            )
            stream = await client.chat.completions.create(
                model="gpt-4o-mini", messages=MESSAGES, stream=True
            )
            return completion, [chunk async for chunk in stream]

    completion, chunks = asyncio.run(main())
    assert completion.choices[0].message.content == "async hi"
    assert reassemble_tool_calls(chunks) == EXPECTED_CALLS
    assert fake_openai.requests[0].headers["x-stainless-async"].startswith("async")


def test_async_rate_limit(fake_openai):
    fake_openai.script(error_reply(429))

    async def main():
        async with openai.AsyncOpenAI(
            base_url=fake_openai.base_url, api_key="sk-test", max_retries=0
        ) as client:
            await client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)

    with pytest.raises(openai.RateLimitError) as excinfo:
        asyncio.run(main())
    assert excinfo.value.status_code == 429
