"""The anthropic_messages codec: normalised views of Messages API exchanges.

SSE bodies are written by hand in the shape the Anthropic API streams them
(``event: <type>\\ndata: <json>\\n\\n``).
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.providers import codec_names, get_codec, get_tool_results
from agentsnap.providers.anthropic_messages import normalize, tool_results

MODEL = "claude-sonnet-4-6"
MESSAGES = [{"role": "user", "content": "Weather and local time in Paris?"}]
TOOLS = [
    {
        "name": "get_weather",
        "description": "Current weather",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    {
        "name": "get_time",
        "input_schema": {"type": "object", "properties": {"tz": {"type": "string"}}},
    },
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
]


def request(path: str = "/v1/messages", query: str | None = None, **body: Any) -> dict[str, Any]:
    full: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": 1024,
        "system": "Be terse.",
        "messages": MESSAGES,
        "tools": TOOLS,
    }
    full.update(body)
    req: dict[str, Any] = {"method": "POST", "path": path, "body": full}
    if query is not None:
        req["query"] = query
    return req


def message(
    *content: dict[str, Any], usage: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    body = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6-20260101",
        "content": list(content),
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": usage if usage is not None else {"input_tokens": 20, "output_tokens": 7},
    }
    body.update(extra)
    return body


def ok(body: Any, status: int = 200) -> dict[str, Any]:
    return {
        "status": status,
        "headers": {"content-type": "application/json", "request-id": "req_1"},
        "body": body,
    }


def sse(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


def start(usage: dict[str, Any] | None = None, model: str = "claude-sonnet-4-6-20260101") -> str:
    msg = message(
        usage=usage or {"input_tokens": 25, "output_tokens": 1}, model=model, stop_reason=None
    )
    return sse("message_start", {"type": "message_start", "message": msg})


def block_start(index: int, block: dict[str, Any]) -> str:
    return sse(
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": block},
    )


def delta(index: int, **d: Any) -> str:
    return sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})


def text_delta(index: int, text: str) -> str:
    return delta(index, type="text_delta", text=text)


def json_delta(index: int, piece: str) -> str:
    return delta(index, type="input_json_delta", partial_json=piece)


def block_stop(index: int) -> str:
    return sse("content_block_stop", {"type": "content_block_stop", "index": index})


def end(output_tokens: int = 30, stop_reason: str = "end_turn", **usage: Any) -> str:
    return sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens, **usage},
        },
    ) + sse("message_stop", {"type": "message_stop"})


PING = sse("ping", {"type": "ping"})


def streamed(*events: str, status: int = 200) -> dict[str, Any]:
    return {
        "status": status,
        "headers": {"content-type": "text/event-stream"},
        "chunks": list(events),
    }


TOOL_STREAM = [
    start(),
    PING,
    block_start(0, {"type": "text", "text": ""}),
    text_delta(0, "Let me "),
    text_delta(0, "check."),
    block_stop(0),
    block_start(1, {"type": "tool_use", "id": "toolu_A", "name": "get_weather", "input": {}}),
    block_start(2, {"type": "tool_use", "id": "toolu_B", "name": "get_time", "input": {}}),
    json_delta(1, '{"city":'),
    json_delta(2, '{"tz":'),
    PING,
    json_delta(1, ' "Paris"}'),
    json_delta(2, ' "Europe/Paris"}'),
    block_stop(2),
    block_stop(1),
    end(41, "tool_use"),
]
TOOL_REQUESTS = [
    {"id": "toolu_A", "name": "get_weather", "args": {"city": "Paris"}},
    {"id": "toolu_B", "name": "get_time", "args": {"tz": "Europe/Paris"}},
]


# --------------------------------------------------------------------------- registry


def test_registered_as_anthropic_messages() -> None:
    assert "anthropic_messages" in codec_names()
    assert get_codec("anthropic_messages") is normalize
    assert get_tool_results("anthropic_messages") is tool_results


# --------------------------------------------------------------------------- read responses


def test_text_message_view() -> None:
    view = normalize(request(), ok(message({"type": "text", "text": "Sunny, 21 C."})))
    assert view == {
        "provider": "anthropic",
        "model": "claude-sonnet-4-6-20260101",
        "messages": MESSAGES,
        "tools": ["get_weather", "get_time", "web_search"],
        "response": "Sunny, 21 C.",
        "tool_requests": [],
        "tokens": 27,
        "usage": {"input_tokens": 20, "output_tokens": 7, "total_tokens": 27},
        "stream": False,
        "status": 200,
    }


def test_thinking_text_and_tool_use_blocks() -> None:
    body = message(
        {"type": "thinking", "thinking": "The user wants weather.", "signature": "sig"},
        {"type": "text", "text": "Checking ", "citations": None},
        {"type": "text", "text": "both."},
        {"type": "tool_use", "id": "toolu_A", "name": "get_weather", "input": {"city": "Paris"}},
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "Paris"},
        },
        {"type": "tool_use", "id": "toolu_B", "name": "get_time", "input": {"tz": "Europe/Paris"}},
        stop_reason="tool_use",
        usage={
            "input_tokens": 10,
            "output_tokens": 40,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": 200,
        },
    )
    view = normalize(request(), ok(body))
    assert view["response"] == "Checking both."  # thinking is not the answer
    assert view["tool_requests"] == TOOL_REQUESTS  # server-side tools are not agent tool requests
    assert view["usage"] == {
        "input_tokens": 310,
        "output_tokens": 40,
        "total_tokens": 350,
        "cached_tokens": 200,  # cache_read_input_tokens, also counted in input_tokens
    }
    assert view["tokens"] == 350


def test_usage_without_cache_fields_and_missing_usage() -> None:
    assert normalize(request(), ok(message(usage={"input_tokens": 3, "output_tokens": 4})))[
        "usage"
    ] == {
        "input_tokens": 3,
        "output_tokens": 4,
        "total_tokens": 7,
    }
    body = message({"type": "text", "text": "x"})
    del body["usage"]
    view = normalize(request(), ok(body))
    assert (view["usage"], view["tokens"]) == (None, None)


def test_tool_without_parameters_and_nested_input() -> None:
    nested = {"filters": {"tags": ["a", "b"], "limit": 3}, "note": "naïve"}
    body = message(
        {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}},
        {"type": "tool_use", "id": "toolu_2", "name": "search", "input": nested},
    )
    view = normalize(request(), ok(body))
    assert view["tool_requests"] == [
        {"id": "toolu_1", "name": "now", "args": {}},
        {"id": "toolu_2", "name": "search", "args": nested},
    ]


@pytest.mark.parametrize(
    ("status", "kind", "message_text"),
    [
        (429, "rate_limit_error", "Number of requests exceeded."),
        (500, "api_error", "Internal server error"),
        (529, "overloaded_error", "Overloaded"),
    ],
)
def test_error_bodies(status: int, kind: str, message_text: str) -> None:
    body = {
        "type": "error",
        "error": {"type": kind, "message": message_text},
        "request_id": "req_err",
    }
    view = normalize(request(), ok(body, status))
    assert view["status"] == status
    assert view["error"] == message_text
    assert (view["response"], view["tool_requests"], view["usage"], view["tokens"]) == (
        "",
        [],
        None,
        None,
    )
    assert view["model"] == MODEL  # the request's
    assert "warnings" not in view


def test_error_as_plain_text_and_without_body() -> None:
    # send.py stores a non-JSON body under "text"
    assert (
        normalize(request(), {"status": 502, "headers": {}, "text": "Bad gateway"})["error"]
        == "Bad gateway"
    )
    assert (
        normalize(request(), {"status": 502, "headers": {}, "body_b64": "AAE=", "sha256": "x"})[
            "error"
        ]
        is None
    )
    assert normalize(request(), ok("upstream timed out\n", 504))["error"] == "upstream timed out"
    assert normalize(request(), ok(None, 500))["error"] is None
    assert (
        normalize(
            request(), ok('{"type":"error","error":{"type":"api_error","message":"as text"}}', 500)
        )["error"]
        == "as text"
    )


def test_transport_failure_has_no_status_and_names_the_error() -> None:
    view = normalize(
        request(), {"error": {"type": "ConnectError", "message": "[Errno 111] Connection refused"}}
    )
    assert (view["status"], view["error"], view["response"], view["stream"]) == (
        None,
        "ConnectError: [Errno 111] Connection refused",
        "",
        False,
    )
    assert "warnings" not in view and view["usage"] is None


def test_non_json_success_body_warns() -> None:
    view = normalize(request(), ok("<html>proxy</html>"))
    assert view["response"] == "" and view["tool_requests"] == []
    assert view["warnings"] == [
        "response has a body that is not a JSON object: '<html>proxy</html>'"
    ]
    assert normalize(request(), ok(None))["warnings"] == ["response has no body"]


def test_model_falls_back_to_the_request_and_empty_request() -> None:
    body = message({"type": "text", "text": "hi"})
    del body["model"]
    assert normalize(request(), ok(body))["model"] == MODEL
    view = normalize({"method": "POST", "path": "/v1/messages", "body": None}, ok(message()))
    assert (view["messages"], view["tools"]) == ([], [])


def test_view_does_not_alias_the_inputs() -> None:
    req = request()
    resp = ok(message({"type": "tool_use", "id": "t", "name": "n", "input": {"k": [1]}}))
    before = (copy.deepcopy(req), copy.deepcopy(resp))
    view = normalize(req, resp)
    view["messages"][0]["content"] = "changed"
    view["tool_requests"][0]["args"]["k"].append(2)
    assert (req, resp) == before


def test_beta_query_reads_the_same() -> None:
    body = message({"type": "text", "text": "beta"})
    assert normalize(request(query="beta=true"), ok(body)) == normalize(request(), ok(body))


# --------------------------------------------------------------------------- streams


def test_streamed_text_view() -> None:
    events = [
        start({"input_tokens": 25, "output_tokens": 1, "cache_read_input_tokens": 5}),
        PING,
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "Sunny"),
        text_delta(0, " in Paris."),
        block_stop(0),
        end(12),
    ]
    assert normalize(request(stream=True), streamed(*events)) == {
        "provider": "anthropic",
        "model": "claude-sonnet-4-6-20260101",
        "messages": MESSAGES,
        "tools": ["get_weather", "get_time", "web_search"],
        "response": "Sunny in Paris.",
        "tool_requests": [],
        "tokens": 42,
        "usage": {"input_tokens": 30, "output_tokens": 12, "total_tokens": 42, "cached_tokens": 5},
        "stream": True,
        "status": 200,
        "complete": True,
    }


def test_interleaved_tool_use_deltas_are_kept_apart_by_index() -> None:
    view = normalize(request(stream=True), streamed(*TOOL_STREAM))
    assert view["response"] == "Let me check."
    assert view["tool_requests"] == TOOL_REQUESTS
    assert (view["complete"], view["usage"]) == (
        True,
        {"input_tokens": 25, "output_tokens": 41, "total_tokens": 66},
    )
    assert "warnings" not in view


def test_blocks_are_reported_in_index_order_whatever_the_arrival() -> None:
    events = [
        start(),
        block_start(1, {"type": "tool_use", "id": "toolu_B", "name": "get_time", "input": {}}),
        block_start(0, {"type": "tool_use", "id": "toolu_A", "name": "get_weather", "input": {}}),
        json_delta(1, '{"tz": "Europe/Paris"}'),
        json_delta(0, '{"city": "Paris"}'),
        end(),
    ]
    assert normalize(request(stream=True), streamed(*events))["tool_requests"] == TOOL_REQUESTS


def _split_everywhere(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted(set(cuts)), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def test_every_single_cut_and_one_character_chunks_give_the_same_view() -> None:
    text = "".join(TOOL_STREAM)
    expected = normalize(request(stream=True), streamed(text))
    assert expected["tool_requests"] == TOOL_REQUESTS
    for cut in range(1, len(text)):
        assert normalize(request(stream=True), streamed(text[:cut], text[cut:])) == expected, cut
    assert normalize(request(stream=True), streamed(*text)) == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len("".join(TOOL_STREAM)) - 1), max_size=40))
def test_random_chunk_boundaries_give_the_same_view(cuts: list[int]) -> None:
    text = "".join(TOOL_STREAM)
    view = normalize(request(stream=True), streamed(*_split_everywhere(text, cuts)))
    assert view["tool_requests"] == TOOL_REQUESTS
    assert (view["response"], view["complete"]) == ("Let me check.", True)


def test_crlf_line_endings() -> None:
    text = "".join(TOOL_STREAM).replace("\n", "\r\n")
    view = normalize(request(stream=True), streamed(text))
    assert (view["tool_requests"], view["complete"]) == (TOOL_REQUESTS, True)


def test_cut_stream_is_incomplete_and_keeps_what_arrived() -> None:
    text = "".join(TOOL_STREAM)
    cut_at = text.index(json_delta(1, ' "Paris"}'))
    view = normalize(
        request(stream=True),
        streamed(text[:cut_at] + 'event: content_block_delta\ndata: {"type": "content_'),
    )
    assert view["complete"] is False
    assert view["response"] == "Let me check."
    # the tool inputs seen so far are not JSON yet: kept as the raw text
    assert view["tool_requests"] == [
        {"id": "toolu_A", "name": "get_weather", "args": '{"city":'},
        {"id": "toolu_B", "name": "get_time", "args": '{"tz":'},
    ]
    assert view["usage"] == {"input_tokens": 25, "output_tokens": 1, "total_tokens": 26}


def test_stream_without_message_stop_is_incomplete() -> None:
    events = [
        start(),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "half"),
        block_stop(0),
    ]
    view = normalize(request(stream=True), streamed(*events))
    assert (view["complete"], view["response"]) == (False, "half")


def test_empty_stream() -> None:
    view = normalize(request(stream=True), streamed())
    assert (view["complete"], view["response"], view["usage"], view["model"]) == (
        False,
        "",
        None,
        MODEL,
    )


def test_error_event_ends_the_stream() -> None:
    events = [
        start(),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "Partial"),
        sse(
            "error",
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        ),
        text_delta(0, " never read"),
    ]
    view = normalize(request(stream=True), streamed(*events))
    assert (view["response"], view["complete"], view["status"]) == ("Partial", False, 200)
    assert view["warnings"] == ["event 3: stream error: 'Overloaded'"]
    assert "error" not in view  # the HTTP status was 200


def test_stream_request_answered_with_a_json_error() -> None:
    body = json.dumps(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    view = normalize(request(stream=True), streamed(body[:10], body[10:], status=529))
    assert (view["error"], view["status"], view["complete"], view["stream"]) == (
        "Overloaded",
        529,
        False,
        True,
    )


def test_stream_request_answered_with_a_json_message() -> None:
    body = json.dumps(message({"type": "text", "text": "not streamed"}))
    view = normalize(request(stream=True), streamed(body))
    assert (view["response"], view["complete"]) == ("not streamed", True)


def test_thinking_and_signature_deltas_do_not_leak_into_the_answer() -> None:
    events = [
        start(),
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        delta(0, type="thinking_delta", thinking="Paris is in France."),
        delta(0, type="signature_delta", signature="EqQBCkYIBxgC"),
        block_stop(0),
        block_start(1, {"type": "text", "text": ""}),
        text_delta(1, "Sunny."),
        delta(1, type="citations_delta", citation={"type": "char_location", "cited_text": "x"}),
        block_stop(1),
        end(),
    ]
    view = normalize(request(stream=True), streamed(*events))
    assert (view["response"], view["tool_requests"], view["complete"]) == ("Sunny.", [], True)
    assert "warnings" not in view


def test_tool_without_parameters_streams_an_empty_partial_json() -> None:
    events = [
        start(),
        block_start(0, {"type": "tool_use", "id": "toolu_now", "name": "now", "input": {}}),
        json_delta(0, ""),
        block_stop(0),
        end(stop_reason="tool_use"),
    ]
    view = normalize(request(stream=True), streamed(*events))
    assert view["tool_requests"] == [{"id": "toolu_now", "name": "now", "args": {}}]


def test_invalid_tool_json_is_kept_raw() -> None:
    events = [
        start(),
        block_start(0, {"type": "tool_use", "id": "t1", "name": "n", "input": {}}),
        json_delta(0, "{not json"),
        end(),
    ]
    assert normalize(request(stream=True), streamed(*events))["tool_requests"] == [
        {"id": "t1", "name": "n", "args": "{not json"}
    ]


def test_server_tool_input_deltas_are_not_tool_requests() -> None:
    events = [
        start(),
        block_start(
            0, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
        ),
        json_delta(0, '{"query": "Paris"}'),
        block_stop(0),
        end(),
    ]
    view = normalize(request(stream=True), streamed(*events))
    assert (view["tool_requests"], view["response"]) == ([], "")


def test_message_delta_usage_overrides_only_the_counts_it_carries() -> None:
    events = [
        start(
            {
                "input_tokens": 25,
                "output_tokens": 1,
                "cache_creation_input_tokens": 7,
                "cache_read_input_tokens": 3,
            }
        ),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "x"),
        end(50, input_tokens=26, cache_read_input_tokens=None),
    ]
    view = normalize(request(stream=True), streamed(*events))
    assert view["usage"] == {
        "input_tokens": 26 + 7 + 3,
        "output_tokens": 50,
        "total_tokens": 86,
        "cached_tokens": 3,
    }


def test_delta_without_a_started_block_is_read_with_a_warning() -> None:
    events = [start(), json_delta(3, '{"a": 1}'), text_delta(4, "orphan"), end()]
    view = normalize(request(stream=True), streamed(*events))
    assert view["tool_requests"] == [{"id": None, "name": None, "args": {"a": 1}}]
    assert view["response"] == "orphan"
    assert view["warnings"] == [
        "event 1: delta for content block 3, which was never started",
        "event 2: delta for content block 4, which was never started",
    ]


def test_malformed_events_are_skipped_with_warnings() -> None:
    events = [
        start(),
        "event: content_block_delta\ndata: not json\n\n",
        "event: content_block_delta\ndata: [1, 2]\n\n",
        sse(
            "content_block_start",
            {"type": "content_block_start", "index": "0", "content_block": {"type": "text"}},
        ),
        sse("content_block_delta", {"type": "content_block_delta", "index": 0}),
        sse("future_event", {"type": "future_event", "anything": True}),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "kept"),
        end(),
    ]
    view = normalize(request(stream=True), streamed(*events))
    assert (view["response"], view["complete"]) == ("kept", True)
    assert view["warnings"] == [
        "event 1 (content_block_delta): data is not JSON: 'not json'",
        "event 2 (content_block_delta): data is not a JSON object: '[1, 2]'",
        "event 3: content_block_start without an index or a content_block",
        "event 4: content_block_delta without an index or a delta",
    ]


def test_non_list_chunks_and_non_mapping_inputs_do_not_raise() -> None:
    view = normalize({"method": "POST", "path": "/v1/messages"}, {"status": 200, "chunks": None})
    assert (view["response"], view["complete"], view["model"]) == ("", False, None)


# --------------------------------------------------------------------------- tool results


def test_tool_results_in_order_with_string_and_block_content() -> None:
    body = {
        "messages": [
            {"role": "user", "content": "Weather and time?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_A", "name": "get_weather", "input": {}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_B",
                        "content": [{"type": "text", "text": "09:30"}],
                    },
                    {"type": "text", "text": "and also"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_A",
                        "content": "Sunny",
                        "is_error": False,
                    },
                ],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_C"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_X", "content": "not a user turn"}
                ],
            },
        ]
    }
    before = copy.deepcopy(body)
    results = tool_results(body)
    assert results == [
        {"id": "toolu_B", "result": [{"type": "text", "text": "09:30"}]},
        {"id": "toolu_A", "result": "Sunny"},
        {"id": "toolu_C", "result": None},
    ]
    results[0]["result"].append("x")
    assert body == before


@pytest.mark.parametrize(
    "body",
    [
        None,
        {},
        {"messages": "x"},
        {"messages": [None, {"role": "user", "content": [None, {"type": "tool_result"}]}]},
    ],
)
def test_tool_results_of_malformed_bodies(body: Any) -> None:
    assert tool_results(body) == []
