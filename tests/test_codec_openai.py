"""The openai_chat codec: normalised views of chat-completions exchanges.

SSE bodies are built by hand in the shape the OpenAI API sends
(``data: <chat.completion.chunk JSON>\\n\\n`` ... ``data: [DONE]\\n\\n``).
"""

from __future__ import annotations

import copy
import importlib.util
import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsnap.providers.openai_chat import normalize

# -- builders -------------------------------------------------------------------

MODEL = "gpt-4o-2024-08-06"
MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Weather and local time in Paris?"},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
        },
    },
]


def request(**body: Any) -> dict[str, Any]:
    full: dict[str, Any] = {"model": "gpt-4o", "messages": MESSAGES, "tools": TOOLS}
    full.update(body)
    return {"method": "POST", "path": "/v1/chat/completions", "body": full}


def chunk(
    delta: dict[str, Any] | None = None,
    *,
    finish_reason: str | None = None,
    choice_index: int = 0,
    choices: list[dict[str, Any]] | None = None,
    usage: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One ``chat.completion.chunk`` as the API sends it."""
    if choices is None:
        choices = [
            {
                "index": choice_index,
                "delta": delta or {},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1735689600,
        "model": MODEL,
        "system_fingerprint": "fp_50cad350e4",
        "choices": choices,
        "usage": usage,
    }


def sse(*chunks: dict[str, Any], done: bool = True) -> str:
    text = "".join(f"data: {json.dumps(c, separators=(',', ':'))}\n\n" for c in chunks)
    return text + ("data: [DONE]\n\n" if done else "")


def streamed(*pieces: str, status: int = 200) -> dict[str, Any]:
    return {
        "status": status,
        "headers": [["content-type", "text/event-stream; charset=utf-8"]],
        "chunks": list(pieces),
    }


def tc(
    index: int | None = 0,
    *,
    id: str | None = None,
    name: str | None = None,
    args: str | None = None,
    with_index: bool = True,
) -> dict[str, Any]:
    """One ``delta.tool_calls[]`` fragment."""
    frag: dict[str, Any] = {}
    if with_index:
        frag["index"] = index
    if id is not None:
        frag["id"] = id
        frag["type"] = "function"
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if args is not None:
        function["arguments"] = args
    frag["function"] = function
    return frag


def view(**overrides: Any) -> dict[str, Any]:
    """The expected view of a streamed call made with ``request()``."""
    base: dict[str, Any] = {
        "provider": "openai",
        "model": MODEL,
        "messages": MESSAGES,
        "tools": ["get_weather", "get_time"],
        "response": "",
        "tool_requests": [],
        "tokens": None,
        "usage": None,
        "stream": True,
        "status": 200,
        "complete": True,
    }
    base.update(overrides)
    return base


USAGE = {"prompt_tokens": 57, "completion_tokens": 31, "total_tokens": 88}
NORMALISED_USAGE = {"input_tokens": 57, "output_tokens": 31, "total_tokens": 88}

WEATHER_AND_TIME = [
    {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}},
    {"id": "call_B", "name": "get_time", "args": {"tz": "Europe/Paris"}},
]


def interleaved_parallel_calls() -> str:
    return sse(
        chunk({"role": "assistant", "content": None, "refusal": None}),
        chunk({"tool_calls": [tc(0, id="call_A", name="get_weather", args="")]}),
        chunk({"tool_calls": [tc(1, id="call_B", name="get_time", args="")]}),
        chunk({"tool_calls": [tc(0, args='{"city":')]}),
        chunk({"tool_calls": [tc(1, args='{"tz":')]}),
        chunk({"tool_calls": [tc(0, args='"Paris"}')]}),
        chunk({"tool_calls": [tc(1, args='"Europe/Paris"}')]}),
        chunk({}, finish_reason="tool_calls"),
    )


# -- streams: text ------------------------------------------------------------


def test_text_stream() -> None:
    text = sse(
        chunk({"role": "assistant", "content": "", "refusal": None}),
        chunk({"content": "Sunny, "}),
        chunk({"content": "22 °C."}),
        chunk({}, finish_reason="stop"),
    )
    assert normalize(request(), streamed(text)) == view(response="Sunny, 22 °C.")


def test_crlf_line_endings() -> None:
    text = sse(chunk({"content": "a"}), chunk({"content": "b"})).replace("\n", "\r\n")
    assert normalize(request(), streamed(text)) == view(response="ab")


# -- streams: tool calls ------------------------------------------------------


def test_parallel_calls_with_interleaved_argument_fragments() -> None:
    got = normalize(request(), streamed(interleaved_parallel_calls()))
    assert got == view(tool_requests=WEATHER_AND_TIME)


def test_provider_repeating_id_and_name_on_every_fragment() -> None:
    text = sse(
        chunk({"tool_calls": [tc(0, id="call_A", name="get_weather", args='{"city":')]}),
        chunk({"tool_calls": [tc(1, id="call_B", name="get_time", args='{"tz":')]}),
        chunk({"tool_calls": [tc(0, id="call_A", name="get_weather", args='"Paris"}')]}),
        chunk({"tool_calls": [tc(1, id="call_B", name="get_time", args='"Europe/Paris"}')]}),
        chunk({}, finish_reason="tool_calls"),
    )
    assert normalize(request(), streamed(text)) == view(tool_requests=WEATHER_AND_TIME)


@pytest.mark.parametrize("missing", ["absent", "null"], ids=["index-absent", "index-null"])
def test_index_missing_new_id_starts_a_new_call(missing: str) -> None:
    def frag(**kw: Any) -> dict[str, Any]:
        return tc(None, with_index=missing == "null", **kw)

    text = sse(
        chunk({"tool_calls": [frag(id="call_A", name="get_weather", args="")]}),
        chunk({"tool_calls": [frag(args='{"city":')]}),
        chunk({"tool_calls": [frag(args='"Paris"}')]}),
        chunk({"tool_calls": [frag(id="call_B", name="get_time", args='{"tz":')]}),
        chunk({"tool_calls": [frag(args='"Europe/Paris"}')]}),
        chunk({}, finish_reason="tool_calls"),
    )
    assert normalize(request(), streamed(text)) == view(tool_requests=WEATHER_AND_TIME)


def test_index_missing_with_repeated_ids_follows_the_id() -> None:
    # id-less servers that repeat the id can still interleave: the id decides
    text = sse(
        chunk(
            {
                "tool_calls": [
                    tc(
                        id="call_A",
                        name="get_weather",
                        args='{"city":',
                        with_index=False,
                    )
                ]
            }
        ),
        chunk({"tool_calls": [tc(id="call_B", name="get_time", args='{"tz":', with_index=False)]}),
        chunk({"tool_calls": [tc(id="call_A", args='"Paris"}', with_index=False)]}),
        chunk({"tool_calls": [tc(id="call_B", args='"Europe/Paris"}', with_index=False)]}),
    )
    assert normalize(request(), streamed(text)) == view(tool_requests=WEATHER_AND_TIME)


def test_index_on_first_fragment_only_continuations_go_to_current_call() -> None:
    text = sse(
        chunk({"tool_calls": [tc(0, id="call_A", name="get_weather", args='{"city":')]}),
        chunk({"tool_calls": [tc(args='"Paris"}', with_index=False)]}),
        chunk({"tool_calls": [tc(1, id="call_B", name="get_time", args='{"tz":')]}),
        chunk({"tool_calls": [tc(args='"Europe/Paris"}', with_index=False)]}),
    )
    assert normalize(request(), streamed(text)) == view(tool_requests=WEATHER_AND_TIME)


def test_reused_index_with_a_new_id_starts_a_new_call() -> None:
    text = sse(
        chunk({"tool_calls": [tc(0, id="call_A", name="get_weather", args='{"city":"Paris"}')]}),
        chunk({"tool_calls": [tc(0, id="call_B", name="get_time", args='{"tz":"Europe/Paris"}')]}),
    )
    assert normalize(request(), streamed(text)) == view(tool_requests=WEATHER_AND_TIME)


def test_several_fragments_in_one_delta() -> None:
    text = sse(
        chunk(
            {
                "tool_calls": [
                    tc(1, id="call_B", name="get_time", args='{"tz":'),
                    tc(0, id="call_A", name="get_weather", args='{"city":'),
                    tc(0, args='"Paris"}'),
                    tc(1, args='"Europe/Paris"}'),
                ]
            }
        )
    )
    assert normalize(request(), streamed(text)) == view(tool_requests=WEATHER_AND_TIME)


def test_tool_calls_are_keyed_by_choice_index_too() -> None:
    # n=2: both choices call tool index 0, fragments interleaved across choices
    def two(frag0: dict[str, Any], frag1: dict[str, Any]) -> dict[str, Any]:
        return chunk(
            choices=[
                {"index": 0, "delta": {"tool_calls": [frag0]}, "finish_reason": None},
                {"index": 1, "delta": {"tool_calls": [frag1]}, "finish_reason": None},
            ]
        )

    text = sse(
        two(
            tc(0, id="call_A", name="get_weather", args=""),
            tc(0, id="call_X", name="get_time", args=""),
        ),
        two(tc(0, args='{"city":'), tc(0, args='{"tz":')),
        two(tc(0, args='"Paris"}'), tc(0, args='"UTC"}')),
        chunk({"content": "ignored: choice 1"}, choice_index=1),
    )
    assert normalize(request(), streamed(text)) == view(tool_requests=[WEATHER_AND_TIME[0]])


def test_arguments_that_are_not_json_stay_a_string() -> None:
    text = sse(
        chunk({"tool_calls": [tc(0, id="call_A", name="get_weather", args='{"city": "Par')]}),
        chunk({"tool_calls": [tc(1, id="call_B", name="get_time", args="")]}),
    )
    assert normalize(request(), streamed(text)) == view(
        tool_requests=[
            {"id": "call_A", "name": "get_weather", "args": '{"city": "Par'},
            {"id": "call_B", "name": "get_time", "args": ""},
        ]
    )


def test_legacy_function_call_stream() -> None:
    text = sse(
        chunk(
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "get_weather", "arguments": ""},
            }
        ),
        chunk({"function_call": {"arguments": '{"ci'}}),
        chunk({"function_call": {"arguments": 'ty":"Paris"}'}}),
        chunk({}, finish_reason="function_call"),
    )
    req = request(
        tools=None,
        functions=[{"name": "get_weather", "parameters": {"type": "object"}}],
    )
    assert normalize(req, streamed(text)) == view(
        tools=["get_weather"],
        tool_requests=[{"id": None, "name": "get_weather", "args": {"city": "Paris"}}],
    )


def test_content_and_tool_calls_together() -> None:
    text = sse(
        chunk({"role": "assistant", "content": "Checking"}),
        chunk({"content": "..."}),
        chunk({"tool_calls": [tc(0, id="call_A", name="get_weather", args='{"city":"Paris"}')]}),
    )
    assert normalize(request(), streamed(text)) == view(
        response="Checking...", tool_requests=[WEATHER_AND_TIME[0]]
    )


# -- streams: usage, end, chunking ---------------------------------------------------


def test_usage_in_final_chunk_with_empty_choices() -> None:
    # stream_options={"include_usage": true}: every chunk has "usage": null,
    # then one extra chunk with "choices": [] carries the usage
    text = sse(
        chunk({"role": "assistant", "content": "Hi"}),
        chunk({}, finish_reason="stop"),
        chunk(choices=[], usage=USAGE),
    )
    req = request(stream=True, stream_options={"include_usage": True})
    assert normalize(req, streamed(text)) == view(response="Hi", tokens=88, usage=NORMALISED_USAGE)


def test_groq_usage_under_x_groq() -> None:
    final = chunk({}, finish_reason="stop")
    final["x_groq"] = {"id": "req_01", "usage": {**USAGE, "queue_time": 0.01}}
    text = sse(chunk({"content": "Hi"}), final)
    assert normalize(request(), streamed(text)) == view(
        response="Hi", tokens=88, usage=NORMALISED_USAGE
    )


def test_stream_cut_before_done_keeps_what_was_seen() -> None:
    text = sse(
        chunk({"content": "Sun"}),
        chunk({"tool_calls": [tc(0, id="call_A", name="get_weather", args='{"city":')]}),
        done=False,
    )
    assert normalize(request(), streamed(text)) == view(
        response="Sun",
        tool_requests=[{"id": "call_A", "name": "get_weather", "args": '{"city":'}],
        complete=False,
    )


def test_stream_cut_inside_an_event_drops_the_partial_event() -> None:
    text = sse(chunk({"content": "Sun"}), chunk({"content": "ny"}), done=False)
    cut = text[: len(text) - 10]  # the second event is missing its end
    assert normalize(request(), streamed(cut)) == view(response="Sun", complete=False)


def test_no_chunks_at_all() -> None:
    assert normalize(request(), streamed()) == view(model="gpt-4o", complete=False)


def test_events_after_done_are_ignored() -> None:
    text = sse(chunk({"content": "a"})) + sse(chunk({"content": "b"}), done=False)
    assert normalize(request(), streamed(text)) == view(response="a")


def test_event_split_across_chunk_boundaries() -> None:
    text = interleaved_parallel_calls()
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]
    assert len(pieces) > 50
    assert normalize(request(), streamed(*pieces)) == view(tool_requests=WEATHER_AND_TIME)


def test_several_events_in_one_chunk() -> None:
    text = interleaved_parallel_calls()
    events = text.split("\n\n")
    pieces = ["\n\n".join(events[:4]) + "\n\n", "\n\n".join(events[4:])]
    assert normalize(request(), streamed(*pieces)) == view(tool_requests=WEATHER_AND_TIME)
    assert normalize(request(), streamed(text)) == view(tool_requests=WEATHER_AND_TIME)


def test_crlf_pair_split_across_chunks() -> None:
    text = sse(chunk({"content": "a"}), chunk({"content": "b"})).replace("\n", "\r\n")
    first_cr = text.index("\r")
    pieces = [text[: first_cr + 1], text[first_cr + 1 :]]
    assert normalize(request(), streamed(*pieces)) == view(response="ab")


# -- streams: odd input ---------------------------------------------------------


def test_refusal_garbage_and_comments_do_not_crash() -> None:
    text = (
        ": OPENROUTER PROCESSING\n\n"
        + sse(chunk({"role": "assistant", "content": None, "refusal": ""}), done=False)
        + sse(chunk({"refusal": "I can't help with that."}), done=False)
        + "data: not json at all\n\n"
        + "data: [1, 2]\n\n"
        + "event: ping\ndata: {}\n\n"
        + sse(chunk({}, finish_reason="stop"))
    )
    assert normalize(request(), streamed(text)) == view(
        warnings=[
            "event 2: data is not JSON: 'not json at all'",
            "event 3: data is not a JSON object: '[1, 2]'",
        ]
    )


def test_long_garbage_is_quoted_shortened() -> None:
    text = "data: " + "x" * 200 + "\n\n" + sse(chunk({"content": "ok"}))
    got = normalize(request(), streamed(text))
    assert got["warnings"] == ["event 0: data is not JSON: '" + "x" * 80 + "...'"]
    assert got["response"] == "ok"


def test_in_stream_error_event_ends_the_stream() -> None:
    error = {
        "error": {
            "message": "The server had an error",
            "type": "server_error",
            "code": None,
        }
    }
    text = (
        sse(chunk({"content": "Hal"}), done=False)
        + f"data: {json.dumps(error)}\n\n"
        + sse(chunk({"content": "never seen"}))
    )
    assert normalize(request(), streamed(text)) == view(
        response="Hal",
        complete=False,
        warnings=["event 1: stream error: 'The server had an error'"],
    )


def test_http_error_answer_to_a_stream_request() -> None:
    body = {
        "error": {
            "message": "Rate limit reached",
            "type": "requests",
            "code": "rate_limit_exceeded",
        }
    }
    text = json.dumps(body)
    assert normalize(request(stream=True), streamed(text[:20], text[20:], status=429)) == view(
        model="gpt-4o", status=429, complete=False, error="Rate limit reached"
    )


def test_non_string_chunks_and_missing_choices_fields() -> None:
    text = sse(
        {
            "object": "chat.completion.chunk",
            "choices": [{"delta": {"content": "no index"}}],
        },
        {
            "choices": [
                None,
                {"index": 0},
                {"index": 0, "delta": {"content": None, "tool_calls": [None, 3]}},
            ]
        },
        {"choices": "nope", "usage": "nope"},
    )
    got = normalize(request(), {"status": 200, "headers": [], "chunks": [text, None, 5]})
    assert got == view(model="gpt-4o", response="no index")


def test_stream_request_answered_with_a_whole_json_body() -> None:
    body = completion({"role": "assistant", "content": "Hi"})
    assert normalize(request(stream=True), streamed(json.dumps(body))) == view(
        response="Hi", tokens=88, usage=NORMALISED_USAGE
    )


# -- non-streamed ---------------------------------------------------------------------


def completion(
    message: dict[str, Any], finish_reason: str = "stop", **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1735689600,
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": USAGE,
        "system_fingerprint": "fp_50cad350e4",
    }
    body.update(extra)
    return body


def plain(body: Any, status: int = 200) -> dict[str, Any]:
    return {
        "status": status,
        "headers": [["content-type", "application/json"]],
        "body": body,
    }


def plain_view(**overrides: Any) -> dict[str, Any]:
    base = view(tokens=88, usage=NORMALISED_USAGE, stream=False)
    del base["complete"]
    base.update(overrides)
    return base


def test_text_completion() -> None:
    body = completion({"role": "assistant", "content": "Sunny, 22 °C.", "refusal": None})
    assert normalize(request(), plain(body)) == plain_view(response="Sunny, 22 °C.")


def test_tool_calls_with_null_content() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "refusal": None,
        "tool_calls": [
            {
                "id": "call_A",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            },
            {
                "id": "call_B",
                "type": "function",
                "function": {"name": "get_time", "arguments": '{"tz":"Europe/Paris"}'},
            },
        ],
    }
    body = completion(message, "tool_calls")
    assert normalize(request(), plain(body)) == plain_view(tool_requests=WEATHER_AND_TIME)


def test_non_json_arguments_and_custom_tool_calls() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_A",
                "type": "function",
                "function": {"name": "get_weather", "arguments": "{'city': 'Paris'}"},
            },
            {
                "id": "call_C",
                "type": "custom",
                "custom": {"name": "run_sql", "input": '{"looks": "like json"}'},
            },
            {
                "id": "call_D",
                "type": "function",
                "function": {"name": "get_time", "arguments": {"tz": "UTC"}},
            },
        ],
    }
    req = request(tools=[*TOOLS, {"type": "custom", "custom": {"name": "run_sql"}}])
    assert normalize(req, plain(completion(message))) == plain_view(
        tools=["get_weather", "get_time", "run_sql"],
        tool_requests=[
            {"id": "call_A", "name": "get_weather", "args": "{'city': 'Paris'}"},
            {"id": "call_C", "name": "run_sql", "args": '{"looks": "like json"}'},
            {"id": "call_D", "name": "get_time", "args": {"tz": "UTC"}},
        ],
    )


def test_legacy_function_call_response() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "function_call": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
    }
    req = request(tools=None, functions=[{"name": "get_weather"}, {"name": "get_time"}])
    assert normalize(req, plain(completion(message, "function_call"))) == plain_view(
        tool_requests=[{"id": None, "name": "get_weather", "args": {"city": "Paris"}}]
    )


def test_rate_limit_error() -> None:
    body = {
        "error": {
            "message": "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM).",
            "type": "tokens",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }
    assert normalize(request(), plain(body, 429)) == plain_view(
        model="gpt-4o",
        tokens=None,
        usage=None,
        status=429,
        error="Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM).",
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"error": "model overloaded"}, "model overloaded"),
        ({"message": "Not Found"}, "Not Found"),
        ({"detail": "?"}, None),
        ("<html>502 Bad Gateway</html>\n", "<html>502 Bad Gateway</html>"),
        ('{"error": {"message": "as text"}}', "as text"),
        (None, None),
        ("", None),
    ],
)
def test_other_error_bodies(body: Any, message: str | None) -> None:
    got = normalize(request(), plain(body, 503))
    assert got == plain_view(model="gpt-4o", tokens=None, usage=None, status=503, error=message)


def test_error_body_kept_verbatim_as_text() -> None:
    """openai.toml's ``verbatim_error_bodies``: an error body is stored as the
    server's text under ``"text"`` (not ``"body"``); its message is still read."""
    text = '{"error": {"message": "Slow down.", "type": "requests", "param": null, "code": "rate_limit_exceeded"}}'
    response = {"status": 429, "headers": [["content-type", "application/json"]], "text": text}
    assert normalize(request(), response) == plain_view(
        model="gpt-4o", tokens=None, usage=None, status=429, error="Slow down."
    )
    html = {"status": 502, "headers": [], "text": "<html>502 Bad Gateway</html>\n"}
    assert normalize(request(), html)["error"] == "<html>502 Bad Gateway</html>"


def test_plain_string_body() -> None:
    assert normalize(request(), plain("upstream said hello")) == plain_view(
        model="gpt-4o",
        tokens=None,
        usage=None,
        warnings=["response has a body that is not a JSON object: 'upstream said hello'"],
    )


def test_missing_body() -> None:
    assert normalize(request(), plain(None)) == plain_view(
        model="gpt-4o", tokens=None, usage=None, warnings=["response has no body"]
    )


def test_error_inside_a_200_body_is_a_warning() -> None:
    body = {"error": {"message": "Provider returned error", "code": 502}}
    assert normalize(request(), plain(body)) == plain_view(
        model="gpt-4o",
        tokens=None,
        usage=None,
        warnings=["response body carries an error: 'Provider returned error'"],
    )


def test_content_parts_and_choice_zero_by_index() -> None:
    body = completion({"role": "assistant", "content": "x"})
    body["choices"] = [
        {"index": 1, "message": {"role": "assistant", "content": "second"}},
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "fir"},
                    {"type": "text", "text": "st"},
                ],
            },
        },
    ]
    assert normalize(request(), plain(body)) == plain_view(response="first")


def test_request_model_is_the_fallback_and_request_body_may_be_missing() -> None:
    body = completion({"role": "assistant", "content": "Hi"})
    del body["model"]
    del body["usage"]
    got = normalize({"method": "POST", "path": "/v1/chat/completions", "body": None}, plain(body))
    assert got == plain_view(
        model=None, messages=[], tools=[], response="Hi", tokens=None, usage=None
    )
    assert normalize(request(), plain(body))["model"] == "gpt-4o"


def test_partial_usage() -> None:
    body = completion({"role": "assistant", "content": "Hi"}, usage={"prompt_tokens": 3})
    got = normalize(request(), plain(body))
    assert (got["tokens"], got["usage"]) == (
        None,
        {"input_tokens": 3, "output_tokens": None, "total_tokens": None},
    )


def test_result_does_not_alias_the_recording() -> None:
    req = request()
    resp = plain(
        completion(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_A",
                        "type": "function",
                        "function": {
                            "name": "get_weather",
                            "arguments": {"city": "Paris"},
                        },
                    }
                ],
            }
        )
    )
    before = copy.deepcopy((req, resp))
    got = normalize(req, resp)
    got["messages"][0]["content"] = "changed"
    got["tool_requests"][0]["args"]["city"] = "changed"
    assert (req, resp) == before


# -- properties -----------------------------------------------------------------

_json_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=8)
)
_args_dict = st.dictionaries(st.text(min_size=1, max_size=6), _json_scalar, max_size=3)


@st.composite
def _fragment_text(draw: st.DrawFn, text: str) -> list[str]:
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=4, unique=True))
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


@st.composite
def _split(draw: st.DrawFn, text: str) -> list[str]:
    """Any split of *text* into wire chunks (boundaries anywhere)."""
    cuts = draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=12, unique=True))
    bounds = [0, *sorted(c for c in cuts if c < len(text)), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


MODES = ("indexed", "indexed-repeating", "index-less-repeating")


@st.composite
def parallel_calls(
    draw: st.DrawFn,
    modes: tuple[str, ...] = MODES,
    openai_order: bool = False,
    one_fragment_per_call_per_chunk: bool = False,
) -> tuple[list[dict[str, Any]], str]:
    """N tool calls whose fragments are interleaved arbitrarily.

    Modes: "indexed" is OpenAI's own shape (index on every fragment, id and
    name on the first only); "indexed-repeating" repeats id and name on every
    fragment; "index-less-repeating" has no index, only the repeated id.
    With *openai_order*, call k+1 starts after call k started, as OpenAI
    sends them; otherwise calls may start in any order. A chunk carries 1-3
    fragments; with *one_fragment_per_call_per_chunk*, never two of the same
    call (as OpenAI sends them).

    Returns (expected tool_requests, SSE text).
    """
    n = draw(st.integers(1, 4))
    mode = draw(st.sampled_from(modes))
    # each slot: (args, argument fragments); slot numbers are not yet call numbers
    slots = []
    for _ in range(n):
        args = draw(_args_dict)
        slots.append((args, draw(_fragment_text(json.dumps(args)))))
    order = draw(st.permutations([s for s, (_, pieces) in enumerate(slots) for _ in pieces]))
    first_seen = list(dict.fromkeys(order))
    # call number of each slot: by first appearance (OpenAI order) or drawn freely
    numbers = first_seen if openai_order else draw(st.permutations(range(n)))
    call_of = {slot: k for k, slot in enumerate(numbers)}

    names = ["get_weather", "get_time", "search", "lookup"]
    calls: list[dict[str, Any]] = [
        {
            "id": f"call_{k}_{draw(st.text('abcXYZ019', min_size=1, max_size=5))}",
            "name": names[k],
        }
        for k in range(n)
    ]
    for slot, (args, _) in enumerate(slots):
        calls[call_of[slot]]["args"] = args

    remaining = [list(pieces) for _, pieces in slots]
    stream: list[dict[str, Any]] = []
    started: set[int] = set()
    for slot in order:
        k = call_of[slot]
        head = k not in started or mode != "indexed"
        started.add(k)
        stream.append(
            tc(
                k,
                id=calls[k]["id"] if head else None,
                name=calls[k]["name"] if head else None,
                args=remaining[slot].pop(0),
                with_index=mode != "index-less-repeating",
            )
        )
    # group consecutive fragments into chunks of 1-3 fragments
    events = [chunk({"role": "assistant", "content": None})]
    pos = 0
    while pos < len(stream):
        size = draw(st.integers(1, 3))
        group = stream[pos : pos + size]
        if one_fragment_per_call_per_chunk:
            calls_in_chunk: list[Any] = []
            for frag in group:
                if frag.get("index", frag.get("id")) in calls_in_chunk:
                    break
                calls_in_chunk.append(frag.get("index", frag.get("id")))
            group = group[: len(calls_in_chunk)]
        events.append(chunk({"tool_calls": group}))
        pos += len(group)
    events.append(chunk({}, finish_reason="tool_calls"))
    events.append(chunk(choices=[], usage=USAGE))
    if mode == "index-less-repeating":
        expected = [calls[call_of[slot]] for slot in first_seen]  # no index: arrival order
    else:
        expected = calls
    return expected, sse(*events)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), case=parallel_calls())
def test_any_interleaving_and_any_chunking_reassembles_the_same_calls(
    data: st.DataObject, case: tuple[list[dict[str, Any]], str]
) -> None:
    expected, text = case
    pieces = data.draw(_split(text))
    assert "".join(pieces) == text
    got = normalize(request(), streamed(*pieces))
    assert got == view(tool_requests=expected, tokens=88, usage=NORMALISED_USAGE)


_event_text = st.one_of(
    st.builds(lambda s: sse(chunk({"content": s}), done=False), st.text(max_size=6)),
    st.builds(
        lambda i, s: sse(chunk({"tool_calls": [tc(i, args=s)]}), done=False),
        st.integers(0, 2),
        st.text(max_size=6),
    ),
    st.builds(
        lambda i: sse(
            chunk({"tool_calls": [tc(i, id=f"call_{i}", name="f", args="")]}),
            done=False,
        ),
        st.integers(0, 2),
    ),
    st.just(": keep-alive\n\n"),
    st.just("data: garbage\n\n"),
    st.just(sse(chunk(choices=[], usage=USAGE), done=False)),
    st.just("data: [DONE]\n\n"),
)


@settings(max_examples=300)
@given(
    data=st.data(),
    events=st.lists(_event_text, max_size=10),
    crlf=st.booleans(),
    cut=st.integers(0, 40),
)
def test_rechunking_never_changes_the_result(
    data: st.DataObject, events: list[str], crlf: bool, cut: int
) -> None:
    text = "".join(events)
    if crlf:
        text = text.replace("\n", "\r\n")
    text = text[: max(0, len(text) - cut)]  # also streams cut anywhere
    whole = normalize(request(), streamed(text))
    assert normalize(request(), streamed(*data.draw(_split(text)))) == whole
    assert normalize(request(), streamed(*text)) == whole  # one character per chunk


# -- agreement with the openai SDK's own reassembly -------------------------------

_HAS_OPENAI = importlib.util.find_spec("openai") is not None
needs_openai = pytest.mark.skipif(not _HAS_OPENAI, reason="the openai SDK is not installed")


def _sdk_final_message(pieces: list[str]) -> tuple[Any, Any]:
    """Serve *pieces* as the HTTP body to the real openai client, chunk by chunk,
    and accumulate with the SDK's ``ChatCompletionStreamState``."""
    import inspect

    import openai

    try:
        from openai.lib.streaming.chat import ChatCompletionStreamState

        make_state = ChatCompletionStreamState
    except ImportError:
        # public (and its arguments optional) from openai 1.56.0; from 1.40.0 the
        # same class sits in the private module, with keyword-only arguments
        from openai.lib.streaming.chat._completions import (
            ChatCompletionStreamState as _State,
        )

        def make_state() -> Any:
            return _State(input_tools=openai.NOT_GIVEN, response_format=openai.NOT_GIVEN)

    annotation = str(inspect.signature(openai.OpenAI.__init__).parameters["http_client"].annotation)
    http = importlib.import_module("httpx2" if "httpx2" in annotation else "httpx")

    def handler(req: Any) -> Any:
        body = (p.encode("utf-8") for p in pieces)
        return http.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = openai.OpenAI(
        api_key="sk-test",
        base_url="http://fake-provider.test/v1",
        max_retries=0,
        http_client=http.Client(transport=http.MockTransport(handler)),
    )
    state = make_state()
    with client.chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True) as stream:
        for c in stream:
            state.handle_chunk(c)
    final = state.get_final_completion()
    return final.choices[0].message, final.usage


def _as_view(message: Any) -> tuple[str, list[dict[str, Any]]]:
    calls = [
        {"id": t.id, "name": t.function.name, "args": json.loads(t.function.arguments)}
        for t in message.tool_calls or []
    ]
    if message.function_call is not None:
        fc = message.function_call
        calls.append({"id": None, "name": fc.name, "args": json.loads(fc.arguments)})
    return message.content or "", calls


@needs_openai
@pytest.mark.parametrize(
    "text",
    [
        interleaved_parallel_calls(),
        sse(
            chunk({"role": "assistant", "content": "Hel"}),
            chunk({"content": "lo"}),
            chunk(choices=[], usage=USAGE),
        ),
        sse(
            chunk(
                {
                    "role": "assistant",
                    "content": None,
                    "function_call": {"name": "get_weather", "arguments": ""},
                }
            ),
            chunk({"function_call": {"arguments": '{"city":"Paris"}'}}),
        ),
    ],
    ids=["parallel-tool-calls", "text-and-usage", "legacy-function-call"],
)
def test_agrees_with_the_openai_sdk(text: str) -> None:
    pieces = [text[i : i + 11] for i in range(0, len(text), 11)]
    message, usage = _sdk_final_message(pieces)
    got = normalize(request(), streamed(*pieces))
    assert (got["response"], got["tool_requests"]) == _as_view(message)
    assert got["tokens"] == (usage.total_tokens if usage else None)


def _sdk_merges_fragments_of_one_call_in_one_chunk() -> bool:
    """openai < 3.14.0's ChatCompletionStreamState turns a second fragment of the
    same call in one chunk into a new, nameless call (OpenAI sends one per chunk)."""
    import re

    import openai

    return tuple(int(p) for p in re.findall(r"\d+", openai.__version__)[:2]) >= (3, 14)


@needs_openai
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    case=parallel_calls(
        modes=("indexed",),
        openai_order=True,
        one_fragment_per_call_per_chunk=_HAS_OPENAI
        and not _sdk_merges_fragments_of_one_call_in_one_chunk(),
    ),
)
def test_any_interleaving_agrees_with_the_openai_sdk(
    data: st.DataObject, case: tuple[list[dict[str, Any]], str]
) -> None:
    # Only the shape the SDK itself handles: it concatenates repeated ids,
    # needs an index, and raises IndexError when call 1 starts before call 0;
    # before openai 3.14.0 it also needs one fragment of a call per chunk
    # (all of which the codec handles: see the property test above).
    expected, text = case
    pieces = data.draw(_split(text))
    message, usage = _sdk_final_message(pieces)
    got = normalize(request(), streamed(*pieces))
    assert (got["response"], got["tool_requests"]) == _as_view(message) == ("", expected)
    assert got["usage"] == {
        "input_tokens": usage.prompt_tokens,
        "output_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }
