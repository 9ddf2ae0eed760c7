"""The cohere_chat (v2) and cohere_v1 codecs: normalised views of Cohere chat exchanges.

Bodies are built by hand in the shapes the Cohere API sends (see
tests/fake_cohere.py for the wire format).
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.providers import cohere_chat, cohere_v1, get_codec, get_tool_results

MODEL = "command-a-03-2025"
MESSAGES = [
    {"role": "system", "content": "Be terse."},
    {"role": "user", "content": "Weather in Paris?"},
]
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {}}},
    {"type": "function", "function": {"name": "get_time"}},
]
USAGE = {
    "billed_units": {"input_tokens": 8, "output_tokens": 3},
    "tokens": {"input_tokens": 208.0, "output_tokens": 3.0},
}


def v2_request(**body: Any) -> dict[str, Any]:
    full: dict[str, Any] = {"model": MODEL, "messages": MESSAGES, "tools": TOOLS, "stream": False}
    full.update(body)
    return {"method": "POST", "path": "/v2/chat", "body": full}


def read(body: Any, status: int = 200) -> dict[str, Any]:
    return {"status": status, "headers": {"content-type": "application/json"}, "body": body}


def streamed(*chunks: str, status: int = 200) -> dict[str, Any]:
    return {
        "status": status,
        "headers": {"content-type": "text/event-stream"},
        "chunks": list(chunks),
    }


def event(kind: str, **fields: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n"


def content_delta(text: str, index: int = 0) -> str:
    return event("content-delta", index=index, delta={"message": {"content": {"text": text}}})


def call_start(index: int, cid: str, name: str) -> str:
    return event(
        "tool-call-start",
        index=index,
        delta={
            "message": {
                "tool_calls": {
                    "id": cid,
                    "type": "function",
                    "function": {"name": name, "arguments": ""},
                }
            }
        },
    )


def call_delta(index: int, piece: str) -> str:
    return event(
        "tool-call-delta",
        index=index,
        delta={"message": {"tool_calls": {"function": {"arguments": piece}}}},
    )


MESSAGE_START = event(
    "message-start",
    id="m1",
    delta={
        "message": {
            "role": "assistant",
            "content": [],
            "tool_plan": "",
            "tool_calls": [],
            "citations": [],
        }
    },
)
MESSAGE_END = event("message-end", delta={"finish_reason": "COMPLETE", "usage": USAGE})


def test_registered_under_their_names() -> None:
    assert get_codec("cohere_chat") is cohere_chat.normalize
    assert get_codec("cohere_v1") is cohere_v1.normalize
    assert get_tool_results("cohere_chat") is cohere_chat.tool_results
    assert get_tool_results("cohere_v1") is cohere_v1.tool_results


# --------------------------------------------------------------------------- v2: read


def test_v2_text_response_view() -> None:
    body = {
        "id": "r1",
        "finish_reason": "COMPLETE",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "Sunny."}]},
        "usage": USAGE,
    }
    assert cohere_chat.normalize(v2_request(), read(body)) == {
        "provider": "cohere",
        "model": MODEL,
        "messages": MESSAGES,
        "tools": ["get_weather", "get_time"],
        "response": "Sunny.",
        "tool_requests": [],
        "tokens": 211,
        "usage": {"input_tokens": 208, "output_tokens": 3, "total_tokens": 211},
        "stream": False,
        "status": 200,
    }


def test_v2_tool_calls_thinking_and_plan() -> None:
    message = {
        "role": "assistant",
        "tool_plan": "I will look it up.",
        "content": [
            {"type": "thinking", "thinking": "weather..."},
            {"type": "text", "text": "Checking."},
        ],
        "tool_calls": [
            {
                "id": "w1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {"id": "t1", "type": "function", "function": {"name": "get_time", "arguments": "CET"}},
        ],
    }
    view = cohere_chat.normalize(
        v2_request(), read({"id": "r", "finish_reason": "TOOL_CALL", "message": message})
    )
    assert view["response"] == "Checking."
    assert view["tool_requests"] == [
        {"id": "w1", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "t1", "name": "get_time", "args": "CET"},
    ]
    assert (view["usage"], view["tokens"]) == (None, None)


def test_v2_usage_falls_back_to_billed_units() -> None:
    body = {
        "message": {"content": []},
        "usage": {"billed_units": {"input_tokens": 5.0, "output_tokens": 2}},
    }
    assert cohere_chat.normalize(v2_request(), read(body))["usage"] == {
        "input_tokens": 5,
        "output_tokens": 2,
        "total_tokens": 7,
    }
    assert cohere_chat.usage_of({"tokens": {"input_tokens": 1.5}}) == {
        "input_tokens": 1.5,
        "output_tokens": None,
        "total_tokens": None,
    }
    assert cohere_chat.usage_of({"cached_tokens": 3}) is None


def test_v2_errors() -> None:
    view = cohere_chat.normalize(
        v2_request(), read({"id": "e", "message": "invalid api token"}, 401)
    )
    assert (view["status"], view["error"], view["response"]) == (401, "invalid api token", "")
    assert cohere_chat.normalize(v2_request(), read("Bad Gateway", 502))["error"] == "Bad Gateway"
    assert "error" not in cohere_chat.normalize(v2_request(), read({"message": {"content": []}}))


# --------------------------------------------------------------------------- v2: streams


def test_v2_stream_text_usage_and_order_of_blocks() -> None:
    chunks = [
        MESSAGE_START,
        event(
            "content-start",
            index=0,
            delta={"message": {"content": {"type": "thinking", "thinking": ""}}},
        ),
        event(
            "content-delta", index=0, delta={"message": {"content": {"thinking": "let me think"}}}
        ),
        event(
            "content-start", index=1, delta={"message": {"content": {"type": "text", "text": ""}}}
        ),
        content_delta("Sun", 1),
        content_delta("ny.", 1),
        event("content-end", index=1),
        MESSAGE_END,
    ]
    view = cohere_chat.normalize(v2_request(stream=True), streamed(*chunks))
    assert (view["response"], view["complete"], view["stream"]) == ("Sunny.", True, True)
    assert view["usage"] == {"input_tokens": 208, "output_tokens": 3, "total_tokens": 211}


def test_v2_stream_parallel_tool_calls_keyed_by_index() -> None:
    chunks = [
        MESSAGE_START,
        event("tool-plan-delta", delta={"message": {"tool_plan": "Both."}}),
        call_start(0, "w1", "get_weather"),
        call_start(1, "t1", "get_time"),
        call_delta(1, '{"tz":'),
        call_delta(0, '{"city":'),
        call_delta(0, '"Paris"}'),
        call_delta(1, '"CET"}'),
        event("tool-call-end", index=0),
        event("tool-call-end", index=1),
        MESSAGE_END,
    ]
    view = cohere_chat.normalize(v2_request(stream=True), streamed(*chunks))
    assert view["tool_requests"] == [
        {"id": "w1", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "t1", "name": "get_time", "args": {"tz": "CET"}},
    ]
    assert view["response"] == ""


def test_v2_stream_cut_error_and_done() -> None:
    cut = cohere_chat.normalize(
        v2_request(stream=True),
        streamed(MESSAGE_START, content_delta("Half"), content_delta(" more")[:30]),
    )
    assert (cut["response"], cut["complete"], cut["usage"]) == ("Half", False, None)

    failed_end = event("message-end", delta={"finish_reason": "ERROR", "error": "model overloaded"})
    failed = cohere_chat.normalize(
        v2_request(stream=True), streamed(MESSAGE_START, content_delta("x"), failed_end)
    )
    assert (failed["complete"], failed["error"], failed["status"]) == (
        True,
        "model overloaded",
        200,
    )
    assert failed["warnings"] == ["event 2: stream error: 'model overloaded'"]

    done = cohere_chat.normalize(
        v2_request(stream=True),
        streamed(MESSAGE_START, content_delta("y"), "data: [DONE]\n\n", content_delta("z")),
    )
    assert (done["response"], done["complete"]) == ("y", True)


def test_v2_error_answering_a_stream_request() -> None:
    view = cohere_chat.normalize(
        v2_request(stream=True), streamed('{"id": "e", "message": "slow down"}', status=429)
    )
    assert (view["status"], view["error"], view["complete"], view["stream"]) == (
        429,
        "slow down",
        False,
        True,
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=50), min_size=1, max_size=30))
def test_v2_chunk_boundaries_never_matter(cuts: list[int]) -> None:
    text = "".join(
        [
            MESSAGE_START,
            call_start(0, "w1", "get_weather"),
            call_delta(0, '{"city":'),
            content_delta("Très "),
            call_delta(0, '"Nîmes"}'),
            content_delta("bien"),
            MESSAGE_END,
        ]
    )
    pieces, pos = [], 0
    for cut in cuts:
        pieces.append(text[pos : pos + cut])
        pos += cut
    pieces.append(text[pos:])
    view = cohere_chat.normalize(v2_request(stream=True), streamed(*pieces))
    assert view["response"] == "Très bien"
    assert view["tool_requests"] == [{"id": "w1", "name": "get_weather", "args": {"city": "Nîmes"}}]
    assert (view["complete"], view["tokens"]) == (True, 211)


def test_v2_tool_results() -> None:
    body = {
        "messages": [
            *MESSAGES,
            {"role": "assistant", "tool_calls": [{"id": "w1"}]},
            {
                "role": "tool",
                "tool_call_id": "w1",
                "content": [{"type": "document", "document": {"data": "sunny"}}],
            },
            {"role": "tool", "tool_call_id": "t1", "content": "09:30"},
        ]
    }
    assert cohere_chat.tool_results(body) == [
        {"id": "w1", "result": [{"type": "document", "document": {"data": "sunny"}}]},
        {"id": "t1", "result": "09:30"},
    ]
    assert cohere_chat.tool_results([]) == []


# --------------------------------------------------------------------------- v1


V1_TOOLS = [
    {"name": "get_weather", "description": "d", "parameter_definitions": {"city": {"type": "str"}}}
]


def v1_request(**body: Any) -> dict[str, Any]:
    full: dict[str, Any] = {"message": "Weather in Paris?", "model": MODEL, "tools": V1_TOOLS}
    full.update(body)
    return {"method": "POST", "path": "/v1/chat", "body": full}


V1_META = {
    "api_version": {"version": "1"},
    "billed_units": {"input_tokens": 9, "output_tokens": 4},
    "tokens": {"input_tokens": 109, "output_tokens": 4},
}


def test_v1_response_view_and_conversation() -> None:
    history = [{"role": "USER", "message": "Hi"}, {"role": "CHATBOT", "message": "Hello"}]
    body = {"text": "Sunny.", "generation_id": "g", "finish_reason": "COMPLETE", "meta": V1_META}
    view = cohere_v1.normalize(v1_request(preamble="Be terse.", chat_history=history), read(body))
    assert view == {
        "provider": "cohere",
        "model": MODEL,
        "messages": [
            {"role": "SYSTEM", "message": "Be terse."},
            *history,
            {"role": "USER", "message": "Weather in Paris?"},
        ],
        "tools": ["get_weather"],
        "response": "Sunny.",
        "tool_requests": [],
        "tokens": 113,
        "usage": {"input_tokens": 109, "output_tokens": 4, "total_tokens": 113},
        "stream": False,
        "status": 200,
    }


def test_v1_tool_calls_get_synthetic_ids_that_tool_results_repeat() -> None:
    body = {
        "text": "",
        "tool_calls": [{"name": "get_weather", "parameters": {"unit": "C", "city": "Paris"}}],
        "meta": V1_META,
    }
    view = cohere_v1.normalize(v1_request(), read(body))
    expected_id = 'get_weather({"city":"Paris","unit":"C"})'
    assert view["tool_requests"] == [
        {"id": expected_id, "name": "get_weather", "args": {"unit": "C", "city": "Paris"}}
    ]

    results = [
        {
            "call": {"name": "get_weather", "parameters": {"city": "Paris", "unit": "C"}},
            "outputs": [{"temp": 21}],
        }
    ]
    second = v1_request(
        message="",
        tool_results=results,
        chat_history=[{"role": "USER", "message": "Weather in Paris?"}],
    )
    assert cohere_v1.tool_results(second["body"]) == [{"id": expected_id, "result": [{"temp": 21}]}]
    view2 = cohere_v1.normalize(second, read({"text": "21 C.", "meta": V1_META}))
    assert view2["messages"] == [
        {"role": "USER", "message": "Weather in Paris?"},
        {"role": "TOOL", "tool_results": results},
    ]


def test_v1_tool_results_in_history_come_first() -> None:
    old = [{"call": {"name": "a", "parameters": {}}, "outputs": [{"x": 1}]}]
    new = [{"call": {"name": "b", "parameters": {"k": 2}}, "outputs": []}, {"call": "bad"}]
    body = {
        "message": "",
        "chat_history": [{"role": "TOOL", "tool_results": old}],
        "tool_results": new,
    }
    assert cohere_v1.tool_results(body) == [
        {"id": "a({})", "result": [{"x": 1}]},
        {"id": 'b({"k":2})', "result": []},
    ]
    assert cohere_v1.tool_results("nope") == []


def test_v1_error() -> None:
    view = cohere_v1.normalize(v1_request(), read({"message": "too many tokens"}, 400))
    assert (view["status"], view["error"], view["response"]) == (400, "too many tokens", "")


def line(**fields: Any) -> str:
    return json.dumps({"is_finished": False, **fields}) + "\n"


def test_v1_stream_text_tool_chunks_and_end() -> None:
    final = {
        "text": "Let me check.",
        "tool_calls": [{"name": "get_weather", "parameters": {"city": "Paris"}}],
        "meta": V1_META,
    }
    chunks = [
        line(event_type="stream-start", generation_id="g"),
        line(event_type="text-generation", text="Let me "),
        line(event_type="text-generation", text="check."),
        line(event_type="tool-calls-chunk", tool_call_delta={"index": 0, "name": "get_weather"}),
        line(event_type="tool-calls-chunk", tool_call_delta={"index": 0, "parameters": '{"city":'}),
        line(
            event_type="tool-calls-chunk", tool_call_delta={"index": 0, "parameters": ' "Paris"}'}
        ),
        line(event_type="stream-end", finish_reason="COMPLETE", response=final),
    ]
    view = cohere_v1.normalize(v1_request(stream=True), streamed(*chunks))
    assert (view["response"], view["complete"], view["stream"]) == ("Let me check.", True, True)
    assert view["tool_requests"] == [
        {"id": 'get_weather({"city":"Paris"})', "name": "get_weather", "args": {"city": "Paris"}}
    ]
    assert view["usage"] == {"input_tokens": 109, "output_tokens": 4, "total_tokens": 113}


def test_v1_stream_prefers_the_whole_tool_calls_generation() -> None:
    chunks = [
        line(
            event_type="tool-calls-chunk",
            tool_call_delta={"index": 0, "name": "get_weather", "parameters": '{"ci'},
        ),
        line(
            event_type="tool-calls-generation",
            text="",
            tool_calls=[{"name": "get_weather", "parameters": {"city": "Rome"}}],
        ),
    ]
    view = cohere_v1.normalize(v1_request(stream=True), streamed(*chunks))
    assert view["tool_requests"] == [
        {"id": 'get_weather({"city":"Rome"})', "name": "get_weather", "args": {"city": "Rome"}}
    ]
    assert view["complete"] is False  # no stream-end


def test_v1_stream_cut_inside_a_line_and_last_line_without_newline() -> None:
    text = (
        line(event_type="text-generation", text="Half")
        + line(event_type="text-generation", text=" more")[:20]
    )
    cut = cohere_v1.normalize(v1_request(stream=True), streamed(text))
    assert (cut["response"], cut["complete"]) == ("Half", False)
    assert "warnings" not in cut

    end = line(
        event_type="stream-end",
        finish_reason="COMPLETE",
        response={"text": "Whole", "meta": V1_META},
    ).rstrip("\n")
    whole = cohere_v1.normalize(v1_request(stream=True), streamed(end))
    assert (whole["response"], whole["complete"], whole["tokens"]) == ("Whole", True, 113)


def test_v1_stream_error_status_and_bad_lines() -> None:
    err = cohere_v1.normalize(
        v1_request(stream=True), streamed('{"message": "rate limited"}', status=429)
    )
    assert (err["status"], err["error"], err["complete"]) == (429, "rate limited", False)
    bad = cohere_v1.normalize(
        v1_request(stream=True), streamed("oops\n", line(event_type="text-generation", text="ok"))
    )
    assert bad["response"] == "ok" and bad["warnings"] == ["line 0: not JSON: 'oops'"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=30))
def test_v1_chunk_boundaries_never_matter(cuts: list[int]) -> None:
    text = "".join(
        [
            line(event_type="text-generation", text="Très "),
            line(
                event_type="tool-calls-chunk", tool_call_delta={"index": 0, "name": "get_weather"}
            ),
            line(event_type="text-generation", text="bien"),
            line(
                event_type="tool-calls-chunk",
                tool_call_delta={"index": 0, "parameters": '{"city": "Nîmes"}'},
            ),
            line(
                event_type="stream-end",
                finish_reason="COMPLETE",
                response={"text": "Très bien", "meta": V1_META},
            ),
        ]
    )
    pieces, pos = [], 0
    for cut in cuts:
        pieces.append(text[pos : pos + cut])
        pos += cut
    pieces.append(text[pos:])
    view = cohere_v1.normalize(v1_request(stream=True), streamed(*pieces))
    assert view["response"] == "Très bien"
    assert view["tool_requests"] == [
        {"id": 'get_weather({"city":"Nîmes"})', "name": "get_weather", "args": {"city": "Nîmes"}}
    ]
    assert view["complete"] is True
