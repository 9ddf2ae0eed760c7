"""The mistral_chat codec: normalised views of Mistral chat exchanges.

Bodies are built by hand in the shapes the Mistral API sends (see
tests/fake_mistral.py for the wire format).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.providers import get_codec, get_tool_results
from agentsnap.providers.mistral_chat import error_message, normalize, tool_results

MODEL = "mistral-large-latest"
MESSAGES = [
    {"role": "system", "content": "Be terse."},
    {"role": "user", "content": "Weather and time in Paris?"},
]
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}},
]


def request(**body: Any) -> dict[str, Any]:
    full: dict[str, Any] = {"model": MODEL, "messages": MESSAGES, "tools": TOOLS}
    full.update(body)
    return {"method": "POST", "path": "/v1/chat/completions", "body": full}


def completion(
    message: dict[str, Any],
    *,
    usage: dict[str, Any] | None = None,
    model: str = "mistral-large-2411",
) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": model,
        "usage": usage or {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27},
        "created": 1700000000,
        "choices": [
            {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}
        ],
    }


def chunk(
    delta: dict[str, Any],
    *,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    index: int = 0,
) -> str:
    body: dict[str, Any] = {
        "id": "cmpl-s",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "mistral-large-2411",
        "choices": [{"index": index, "delta": delta, "finish_reason": finish}],
    }
    if usage is not None:
        body["usage"] = usage
    return f"data: {json.dumps(body, separators=(',', ':'))}\n\n"


DONE = "data: [DONE]\n\n"
USAGE = {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15}


def streamed(*events: str, status: int = 200) -> dict[str, Any]:
    return {
        "status": status,
        "headers": {"content-type": "text/event-stream"},
        "chunks": list(events),
    }


def read(body: Any, status: int = 200) -> dict[str, Any]:
    return {"status": status, "headers": {"content-type": "application/json"}, "body": body}


# --------------------------------------------------------------------------- read responses


def test_registered_under_its_name() -> None:
    assert get_codec("mistral_chat") is normalize
    assert get_tool_results("mistral_chat") is tool_results


def test_text_completion_view() -> None:
    view = normalize(
        request(),
        read(completion({"content": "Sunny, 21 C.", "tool_calls": None, "prefix": False})),
    )
    assert view == {
        "provider": "mistral",
        "model": "mistral-large-2411",
        "messages": MESSAGES,
        "tools": ["get_weather", "get_time"],
        "response": "Sunny, 21 C.",
        "tool_requests": [],
        "tokens": 27,
        "usage": {"input_tokens": 20, "output_tokens": 7, "total_tokens": 27},
        "stream": False,
        "status": 200,
    }


def test_view_shares_nothing_with_the_request() -> None:
    req = request()
    view = normalize(req, read(completion({"content": "x"})))
    view["messages"][0]["content"] = "changed"
    assert req["body"]["messages"][0]["content"] == "Be terse."


def test_tool_call_arguments_as_object_string_and_not_json() -> None:
    calls = [
        {
            "id": "D681PevKs",
            "type": "function",
            "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
            "index": 0,
        },
        {
            "id": "Q7mK2Lx9a",
            "type": "function",
            "function": {"name": "get_time", "arguments": '{"tz": "Europe/Paris"}'},
            "index": 1,
        },
        {
            "id": "R2d2C3p0o",
            "type": "function",
            "function": {"name": "get_time", "arguments": "Europe/Paris"},
            "index": 2,
        },
    ]
    view = normalize(request(), read(completion({"content": "", "tool_calls": calls})))
    assert view["tool_requests"] == [
        {"id": "D681PevKs", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "Q7mK2Lx9a", "name": "get_time", "args": {"tz": "Europe/Paris"}},
        {"id": "R2d2C3p0o", "name": "get_time", "args": "Europe/Paris"},
    ]
    assert view["response"] == ""


def test_content_chunks_keep_only_text() -> None:
    content = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "The user wants weather."}]},
        {"type": "text", "text": "Sunny"},
        {"type": "reference", "reference_ids": [1]},
        {"type": "text", "text": " today."},
    ]
    assert (
        normalize(request(), read(completion({"content": content})))["response"] == "Sunny today."
    )


def test_model_falls_back_to_the_request_and_agent_calls_have_none() -> None:
    body = completion({"content": "hi"})
    del body["model"]
    assert normalize(request(), read(body))["model"] == MODEL
    agent = {
        "method": "POST",
        "path": "/v1/agents/completions",
        "body": {"agent_id": "ag_1", "messages": MESSAGES},
    }
    view = normalize(agent, read(body))
    assert (view["model"], view["tools"], view["messages"]) == (None, [], MESSAGES)


# --------------------------------------------------------------------------- errors


def test_gateway_429_kept_as_text() -> None:
    text = '{\n  "message":"Requests rate limit exceeded",\n  "request_id":"abc"\n}\n'
    view = normalize(request(), {"status": 429, "headers": {}, "text": text})
    assert (view["status"], view["error"], view["response"], view["tool_requests"]) == (
        429,
        "Requests rate limit exceeded",
        "",
        [],
    )


def test_api_error_bodies() -> None:
    api = {
        "object": "error",
        "message": "Invalid model: foo",
        "type": "invalid_model",
        "param": None,
        "code": "1500",
    }
    assert normalize(request(), read(api, 400))["error"] == "Invalid model: foo"
    nested = {
        "object": "error",
        "message": {
            "detail": [{"type": "missing", "loc": ["body", "model"], "msg": "Field required"}]
        },
        "type": "invalid_request_error",
    }
    assert normalize(request(), read(nested, 422))["error"] == "body.model: Field required"
    validation = {
        "detail": [{"loc": ["body", "messages", 0], "msg": "bad role"}, {"msg": "second"}]
    }
    assert (
        normalize(request(), read(validation, 422))["error"] == "body.messages.0: bad role; second"
    )
    assert normalize(request(), read("upstream timeout", 504))["error"] == "upstream timeout"
    assert normalize(request(), read(None, 503))["error"] is None
    assert error_message({"message": {"odd": 1}}) == '{"odd": 1}'


def test_success_has_no_error_key() -> None:
    assert "error" not in normalize(request(), read(completion({"content": "x"})))


# --------------------------------------------------------------------------- streams


def test_stream_text_and_usage() -> None:
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Sun"}),
        chunk({"content": "ny."}, finish="stop", usage=USAGE),
        DONE,
    ]
    view = normalize(request(stream=True), streamed(*events))
    assert (view["response"], view["stream"], view["complete"]) == ("Sunny.", True, True)
    assert view["usage"] == {"input_tokens": 11, "output_tokens": 4, "total_tokens": 15}
    assert (view["tokens"], view["model"]) == (15, "mistral-large-2411")


def test_stream_whole_tool_calls_with_object_and_text_arguments() -> None:
    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk(
            {
                "tool_calls": [
                    {
                        "id": "a1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
                        "index": 0,
                    }
                ]
            }
        ),
        chunk(
            {
                "tool_calls": [
                    {
                        "id": "b2",
                        "type": "function",
                        "function": {"name": "get_time", "arguments": '{"tz":"CET"}'},
                        "index": 1,
                    }
                ]
            },
            finish="tool_calls",
            usage=USAGE,
        ),
        DONE,
    ]
    assert normalize(request(stream=True), streamed(*events))["tool_requests"] == [
        {"id": "a1", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "b2", "name": "get_time", "args": {"tz": "CET"}},
    ]


def test_stream_interleaved_fragments_are_keyed_by_index_never_concatenating_ids_or_names() -> None:
    events = [
        chunk(
            {
                "tool_calls": [
                    {
                        "id": "a1",
                        "function": {"name": "get_weather", "arguments": '{"city":'},
                        "index": 0,
                    }
                ]
            }
        ),
        chunk(
            {
                "tool_calls": [
                    {
                        "id": "b2",
                        "function": {"name": "get_time", "arguments": '{"tz":'},
                        "index": 1,
                    }
                ]
            }
        ),
        chunk(
            {
                "tool_calls": [
                    {
                        "id": "a1",
                        "function": {"name": "get_weather", "arguments": '"Paris"}'},
                        "index": 0,
                    }
                ]
            }
        ),
        chunk(
            {"tool_calls": [{"function": {"name": "get_time", "arguments": '"CET"}'}, "index": 1}]}
        ),
        DONE,
    ]
    assert normalize(request(stream=True), streamed(*events))["tool_requests"] == [
        {"id": "a1", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "b2", "name": "get_time", "args": {"tz": "CET"}},
    ]


def test_stream_index_less_calls_are_told_apart_by_id() -> None:
    events = [
        chunk(
            {
                "tool_calls": [
                    {
                        "id": "a1",
                        "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
                    }
                ]
            }
        ),
        chunk(
            {
                "tool_calls": [
                    {"id": "b2", "function": {"name": "get_weather", "arguments": {"city": "Rome"}}}
                ]
            }
        ),
        DONE,
    ]
    assert normalize(request(stream=True), streamed(*events))["tool_requests"] == [
        {"id": "a1", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "b2", "name": "get_weather", "args": {"city": "Rome"}},
    ]


def test_stream_content_chunks_and_other_choices() -> None:
    events = [
        chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]}]}),
        chunk({"content": [{"type": "text", "text": "Answer"}]}),
        chunk({"content": "ignored"}, index=1),
        chunk({"content": "."}),
        DONE,
    ]
    assert normalize(request(stream=True), streamed(*events))["response"] == "Answer."


def test_cut_stream_is_incomplete_and_keeps_what_was_seen() -> None:
    events = [chunk({"content": "Half"}), chunk({"content": " an ans"})[:25]]
    view = normalize(request(stream=True), streamed(*events))
    assert (view["response"], view["complete"], view["usage"]) == ("Half", False, None)
    assert "warnings" not in view


def test_never_read_stream() -> None:
    view = normalize(request(stream=True), streamed())
    assert (view["response"], view["complete"], view["tool_requests"], view["stream"]) == (
        "",
        False,
        [],
        True,
    )


def test_stream_error_event_and_bad_data() -> None:
    events = [
        chunk({"content": "ok"}),
        "data: not json\n\n",
        'data: {"object":"error","message":"internal failure","type":"server_error"}\n\n',
        chunk({"content": "never"}),
    ]
    view = normalize(request(stream=True), streamed(*events))
    assert view["response"] == "ok" and view["complete"] is False
    assert view["warnings"] == [
        "event 1: data is not JSON: 'not json'",
        "event 2: stream error: 'internal failure'",
    ]


def test_error_answering_a_stream_request() -> None:
    raw = '{\n  "message":"Requests rate limit exceeded"\n}\n'
    view = normalize(request(stream=True), streamed(raw, status=429))
    assert (view["status"], view["error"], view["complete"], view["stream"]) == (
        429,
        "Requests rate limit exceeded",
        False,
        True,
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=30))
def test_chunk_boundaries_never_matter(cuts: list[int]) -> None:
    text = "".join(
        [
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Très "}),
            chunk(
                {
                    "tool_calls": [
                        {
                            "id": "a1",
                            "function": {"name": "get_weather", "arguments": '{"city":'},
                            "index": 0,
                        }
                    ]
                }
            ),
            chunk({"content": "bien"}),
            chunk(
                {
                    "tool_calls": [
                        {"function": {"name": "get_weather", "arguments": '"Nîmes"}'}, "index": 0}
                    ]
                },
                usage=USAGE,
            ),
            DONE,
        ]
    )
    pieces, pos = [], 0
    for cut in cuts:
        pieces.append(text[pos : pos + cut])
        pos += cut
    pieces.append(text[pos:])
    view = normalize(request(stream=True), streamed(*pieces))
    assert view["response"] == "Très bien"
    assert view["tool_requests"] == [{"id": "a1", "name": "get_weather", "args": {"city": "Nîmes"}}]
    assert (view["complete"], view["tokens"]) == (True, 15)


# --------------------------------------------------------------------------- tool results


def test_tool_results_are_the_tool_messages_in_order() -> None:
    body = {
        "messages": [
            *MESSAGES,
            {"role": "assistant", "content": "", "tool_calls": [{"id": "a1"}, {"id": "b2"}]},
            {"role": "tool", "tool_call_id": "b2", "name": "get_time", "content": "09:30"},
            {
                "role": "tool",
                "tool_call_id": "a1",
                "name": "get_weather",
                "content": [{"type": "text", "text": "Sunny"}],
            },
            {"role": "tool", "name": "orphan", "content": "no id"},
        ]
    }
    assert tool_results(body) == [
        {"id": "b2", "result": "09:30"},
        {"id": "a1", "result": [{"type": "text", "text": "Sunny"}]},
    ]
    assert tool_results(None) == [] and tool_results({"messages": {}}) == []
