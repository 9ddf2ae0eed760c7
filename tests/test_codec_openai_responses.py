"""The openai_responses codec: normalised views of Responses API exchanges.

Stream bodies come from :func:`tests.fake_openai_extra.responses_stream_events`
(the event sequence the API sends, checked against the real SDK in
``test_openai_responses_shapes.py``) or are written by hand for edge cases.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsnap.providers import get_codec, get_tool_results
from agentsnap.providers.openai_responses import normalize, tool_results
from tests.fake_openai_extra import (
    RESPONSES_MODEL,
    function_call_item,
    message_item,
    response_object,
    responses_stream_events,
)

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
TIME = {
    "type": "function",
    "name": "get_time",
    "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
}
CALL_A = function_call_item("call_A", "get_weather", {"city": "Paris"})
CALL_B = function_call_item("call_B", "get_time", {"tz": "Europe/Paris"})
# the fake reports input_tokens_details / output_tokens_details: read as cached_tokens / reasoning_tokens
USAGE = {
    "input_tokens": 12,
    "output_tokens": 6,
    "total_tokens": 18,
    "cached_tokens": 0,
    "reasoning_tokens": 0,
}


def request(**body: Any) -> dict[str, Any]:
    full: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "input": "Weather in Paris?",
        "tools": [WEATHER, TIME],
    }
    full.update(body)
    return {"method": "POST", "path": "/v1/responses", "body": full}


def json_response(body: Any, status: int = 200) -> dict[str, Any]:
    return {"status": status, "headers": {"content-type": "application/json"}, "body": body}


def stream_response(events: list[str], status: int = 200) -> dict[str, Any]:
    return {
        "status": status,
        "headers": {"content-type": "text/event-stream"},
        "chunks": list(events),
    }


def sse(kind: str, **fields: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n"


# --------------------------------------------------------------------------- registry


def test_registered_under_its_module_name() -> None:
    assert get_codec("openai_responses") is normalize
    assert get_tool_results("openai_responses") is tool_results


# --------------------------------------------------------------------------- read responses


def test_text_response_view_is_exact() -> None:
    view = normalize(request(), json_response(response_object([message_item("Sunny, 21 C.")])))
    assert view == {
        "provider": "openai",
        "model": RESPONSES_MODEL,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": ["get_weather", "get_time"],
        "response": "Sunny, 21 C.",
        "tool_requests": [],
        "tokens": 18,
        "usage": USAGE,
        "stream": False,
        "status": 200,
    }


def test_function_calls_in_output_order_with_parsed_arguments() -> None:
    body = response_object([CALL_A, CALL_B], usage=(30, 9))
    view = normalize(request(), json_response(body))
    assert view["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "call_B", "name": "get_time", "args": {"tz": "Europe/Paris"}},
    ]
    assert view["response"] == ""
    assert (view["tokens"], view["usage"]) == (
        39,
        {
            "input_tokens": 30,
            "output_tokens": 9,
            "total_tokens": 39,
            "cached_tokens": 0,
            "reasoning_tokens": 0,
        },
    )


def test_text_of_every_message_item_and_output_text_part_is_joined() -> None:
    two_parts = message_item("One. ", id="msg_1")
    two_parts["content"].append({"type": "refusal", "refusal": "no"})
    two_parts["content"].append({"type": "output_text", "text": "Two. ", "annotations": []})
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    body = response_object([reasoning, two_parts, CALL_A, message_item("Three.", id="msg_2")])
    view = normalize(request(), json_response(body))
    assert view["response"] == "One. Two. Three."
    assert [r["id"] for r in view["tool_requests"]] == ["call_A"]


def test_unparseable_arguments_stay_raw_and_custom_tool_input_is_kept_as_text() -> None:
    broken = function_call_item("call_X", "get_weather", '{"city": "Par')
    custom = {
        "id": "ctc_1",
        "type": "custom_tool_call",
        "call_id": "call_C",
        "name": "run_sql",
        "input": '{"looks": "like json"}',
    }
    namespaced = dict(function_call_item("call_N", "lookup", {"q": 1}), namespace="crm")
    view = normalize(request(), json_response(response_object([broken, custom, namespaced])))
    assert view["tool_requests"] == [
        {"id": "call_X", "name": "get_weather", "args": '{"city": "Par'},
        {"id": "call_C", "name": "run_sql", "args": '{"looks": "like json"}'},
        {"id": "call_N", "name": "crm.lookup", "args": {"q": 1}},
    ]


def test_server_side_tool_calls_are_not_tool_requests() -> None:
    search = {
        "id": "ws_1",
        "type": "web_search_call",
        "status": "completed",
        "action": {"type": "search", "query": "paris"},
    }
    view = normalize(request(), json_response(response_object([search, message_item("Found it.")])))
    assert (view["tool_requests"], view["response"]) == ([], "Found it.")


def test_model_falls_back_to_the_request_and_usage_may_be_absent() -> None:
    body = response_object([message_item("hi")], usage=None)
    del body["model"]
    view = normalize(request(model="gpt-4.1"), json_response(body))
    assert (view["model"], view["tokens"], view["usage"]) == ("gpt-4.1", None, None)


def test_incomplete_and_failed_responses_are_reported() -> None:
    incomplete = response_object([message_item("Partial")], status="incomplete")
    incomplete["incomplete_details"] = {"reason": "max_output_tokens"}
    view = normalize(request(), json_response(incomplete))
    assert view["response"] == "Partial"
    assert view["warnings"] == ["response incomplete: 'max_output_tokens'"]
    failed = response_object([], status="failed")
    failed["error"] = {"code": "server_error", "message": "The model crashed."}
    assert normalize(request(), json_response(failed))["warnings"] == [
        "response failed: 'The model crashed.'"
    ]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {
                "error": {
                    "message": "Invalid 'input': empty.",
                    "type": "invalid_request_error",
                    "param": "input",
                    "code": None,
                }
            },
            "Invalid 'input': empty.",
        ),
        ({"error": "plain string error"}, "plain string error"),
        ({"message": "top-level message"}, "top-level message"),
        ("upstream exploded", "upstream exploded"),
        (None, None),
    ],
)
def test_error_status_reads_the_error_message(body: Any, message: str | None) -> None:
    view = normalize(request(), json_response(body, status=400))
    assert view["error"] == message
    assert (view["status"], view["response"], view["tool_requests"]) == (400, "", [])
    assert "warnings" not in view


def test_error_body_kept_verbatim_as_text() -> None:
    """openai.toml's ``verbatim_error_bodies``: an error body is stored as the
    server's text under ``"text"`` (not ``"body"``); its message is still read."""
    text = '{"error": {"message": "Invalid \'input\': too long.", "type": "invalid_request_error", "param": "input", "code": null}}'
    view = normalize(request(), {"status": 400, "headers": {}, "text": text})
    assert (view["status"], view["error"], view["response"]) == (
        400,
        "Invalid 'input': too long.",
        "",
    )
    assert "warnings" not in view


def test_a_2xx_without_a_json_object_is_warned_about() -> None:
    view = normalize(request(), json_response(None))
    assert view["warnings"] == ["response has no body"]
    view = normalize(request(), {"status": 200, "headers": {}, "text": "<html>"})
    assert view["warnings"] == ["response has a body that is not a JSON object: '<html>'"]
    assert normalize(request(), json_response("oops"))["warnings"] == [
        "response has a body that is not a JSON object: 'oops'"
    ]


# --------------------------------------------------------------------------- request side


def test_string_input_becomes_one_user_message_and_instructions_go_first() -> None:
    view = normalize(
        request(instructions="Be terse."), json_response(response_object([message_item("ok")]))
    )
    assert view["messages"] == [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "Weather in Paris?"},
    ]


def test_item_input_is_kept_as_sent_and_not_aliased() -> None:
    items = [
        {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
        {
            "type": "function_call",
            "call_id": "call_A",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
        },
        {"type": "function_call_output", "call_id": "call_A", "output": "21 C"},
    ]
    req = request(input=items)
    view = normalize(req, json_response(response_object([message_item("It is 21 C.")])))
    assert view["messages"] == items
    view["messages"][0]["content"][0]["text"] = "changed"
    assert req["body"]["input"][0]["content"][0]["text"] == "Weather in Paris?"


def test_missing_or_odd_request_body() -> None:
    resp = json_response(response_object([message_item("ok")]))
    for req in (
        {"method": "POST", "path": "/v1/responses", "body": None},
        {"method": "POST", "path": "/v1/responses"},
    ):
        view = normalize(req, resp)
        assert (view["messages"], view["tools"], view["model"]) == ([], [], RESPONSES_MODEL)


def test_tool_names_of_every_tool_kind() -> None:
    tools = [
        WEATHER,
        {"type": "custom", "name": "run_sql"},
        {
            "type": "namespace",
            "name": "crm",
            "description": "CRM",
            "tools": [{"type": "function", "name": "lookup"}, {"type": "custom", "name": "note"}],
        },
        {"type": "mcp", "server_label": "deepwiki", "server_url": "https://example.invalid/mcp"},
        {"type": "web_search"},
        {"type": "function", "function": {"name": "chat_format"}},
        {"function": {"name": "untyped_chat_format"}},
        "not a tool",
    ]
    view = normalize(request(tools=tools), json_response(response_object([])))
    assert view["tools"] == [
        "get_weather",
        "run_sql",
        "crm.lookup",
        "crm.note",
        "mcp:deepwiki",
        "web_search",
        "function",
        "untyped_chat_format",
    ]


def test_tool_results_are_function_call_outputs_in_order() -> None:
    body = request(
        input=[
            {"role": "user", "content": "Weather and time?"},
            {
                "type": "function_call",
                "call_id": "call_A",
                "name": "get_weather",
                "arguments": "{}",
            },
            {"type": "function_call", "call_id": "call_B", "name": "get_time", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_B", "output": "12:00"},
            {
                "type": "function_call_output",
                "call_id": "call_A",
                "output": [{"type": "input_text", "text": "21 C"}],
            },
            {"type": "custom_tool_call_output", "call_id": "call_C", "output": "3 rows"},
            {"type": "function_call_output", "output": "no call id"},
            "junk",
        ]
    )["body"]
    assert tool_results(body) == [
        {"id": "call_B", "result": "12:00"},
        {"id": "call_A", "result": [{"type": "input_text", "text": "21 C"}]},
        {"id": "call_C", "result": "3 rows"},
    ]
    assert tool_results(request()["body"]) == []
    assert tool_results(None) == [] and tool_results({"input": {"not": "a list"}}) == []


# --------------------------------------------------------------------------- streams

STREAM_OUTPUT = [message_item("Checking the weather for you."), CALL_A, CALL_B]


def test_stream_view_equals_the_non_streamed_view() -> None:
    streamed = normalize(
        request(stream=True), stream_response(responses_stream_events(STREAM_OUTPUT))
    )
    plain = normalize(request(stream=True), json_response(response_object(STREAM_OUTPUT)))
    assert streamed == {**plain, "stream": True, "complete": True}
    assert streamed["response"] == "Checking the weather for you."
    assert [r["id"] for r in streamed["tool_requests"]] == ["call_A", "call_B"]
    assert streamed["usage"] == USAGE


def drop_final_output(events: list[str]) -> list[str]:
    """The terminal event without ``response.output`` (the SDK then rebuilds it from item events)."""
    *head, last = events
    data = json.loads(last.split("data: ", 1)[1])
    del data["response"]["output"]
    return [*head, f"event: response.completed\ndata: {json.dumps(data)}\n\n"]


def without(events: list[str], *kinds: str) -> list[str]:
    return [e for e in events if not any(e.startswith(f"event: {k}\n") for k in kinds)]


def test_interleaved_parallel_calls_are_keyed_by_output_index() -> None:
    events = responses_stream_events([CALL_A, CALL_B], interleave_calls=True, piece=3)
    events = without(
        drop_final_output(events),
        "response.function_call_arguments.done",
        "response.output_item.done",
    )
    # the argument deltas alternate between the two calls
    owners = [
        json.loads(e.split("data: ", 1)[1])["output_index"]
        for e in events
        if "arguments.delta" in e
    ]
    assert owners[:4] == [0, 1, 0, 1]
    view = normalize(request(stream=True), stream_response(events))
    assert view["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "call_B", "name": "get_time", "args": {"tz": "Europe/Paris"}},
    ]
    assert (view["complete"], view["usage"]) == (True, USAGE)


def test_item_done_events_win_over_deltas_when_the_final_output_is_omitted() -> None:
    events = drop_final_output(responses_stream_events([message_item("Hello world"), CALL_A]))
    # a delta that disagrees with the item's final form: the done event is authoritative
    events.insert(
        5,
        sse(
            "response.output_text.delta",
            item_id="msg_fake_1",
            output_index=0,
            content_index=0,
            delta="XX",
        ),
    )
    view = normalize(request(stream=True), stream_response(events))
    assert (view["response"], view["tool_requests"][0]["args"]) == (
        "Hello world",
        {"city": "Paris"},
    )


def test_deltas_alone_rebuild_text_and_arguments() -> None:
    events = responses_stream_events([message_item("Hello world"), CALL_A], piece=2)
    events = without(
        drop_final_output(events),
        "response.output_item.done",
        "response.output_text.done",
        "response.function_call_arguments.done",
        "response.content_part.added",
    )
    view = normalize(request(stream=True), stream_response(events))
    assert view["response"] == "Hello world"
    assert view["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}}
    ]


def test_ids_and_names_are_never_concatenated() -> None:
    events = responses_stream_events([CALL_A])
    added = next(e for e in events if e.startswith("event: response.output_item.added"))
    # a server repeating the added event: the first one holds the item
    events = without(
        drop_final_output(events),
        "response.output_item.done",
        "response.function_call_arguments.done",
    )
    events.insert(3, added)
    view = normalize(request(stream=True), stream_response(events))
    assert view["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": {"city": "Paris"}}
    ]


def test_events_without_output_index_find_their_item_by_item_id() -> None:
    events = [
        sse(
            "response.created", response=dict(response_object([]), status="in_progress", usage=None)
        ),
        sse(
            "response.output_item.added",
            output_index=0,
            item={
                "id": "fc_1",
                "type": "function_call",
                "call_id": "call_Z",
                "name": "get_weather",
                "arguments": "",
            },
        ),
        sse(
            "response.output_item.added",
            output_index=1,
            item={"id": "msg_1", "type": "message", "role": "assistant", "content": []},
        ),
        sse("response.function_call_arguments.delta", item_id="fc_1", delta='{"city":'),
        sse("response.output_text.delta", item_id="msg_1", content_index=0, delta="Hi "),
        sse("response.function_call_arguments.delta", item_id="fc_1", delta='"Oslo"}'),
        sse("response.output_text.delta", item_id="msg_1", content_index=0, delta="there"),
    ]
    view = normalize(request(stream=True), stream_response(events))
    assert view["tool_requests"] == [
        {"id": "call_Z", "name": "get_weather", "args": {"city": "Oslo"}}
    ]
    assert (view["response"], view["complete"]) == ("Hi there", False)


def test_a_cut_stream_keeps_what_arrived_and_is_incomplete() -> None:
    full = responses_stream_events([message_item("Sunny and warm."), CALL_A], piece=4)
    # cut inside the function call's arguments: 2 lifecycle events, the message's 9
    # (added, part, 4 deltas, text done, part done, item done), the call's added and 3 deltas
    cut = full[:15]
    view = normalize(request(stream=True), stream_response(cut))
    assert view["complete"] is False
    assert view["response"] == "Sunny and warm."
    assert view["tool_requests"] == [
        {"id": "call_A", "name": "get_weather", "args": '{"city":"Par'}
    ]
    assert (view["tokens"], view["usage"]) == (None, None)
    # cut mid-event: the unterminated event is not an event yet
    half = "".join(full[:6]) + full[6][:20]
    assert normalize(request(stream=True), stream_response([half]))["response"] == "Sunny an"


def test_an_error_event_ends_the_stream_with_a_warning() -> None:
    events = responses_stream_events([message_item("Hello world")])[:5]
    events.append(
        sse(
            "error",
            code="server_error",
            message="The server had an error.",
            param=None,
            sequence_number=5,
        )
    )
    events.append(
        sse(
            "response.output_text.delta",
            item_id="msg_fake_1",
            output_index=0,
            content_index=0,
            delta="IGNORED",
        )
    )
    view = normalize(request(stream=True), stream_response(events))
    assert view["complete"] is False
    assert view["response"] == "Hell"
    assert view["warnings"] == ["event 5: stream error: 'The server had an error.'"]


def test_terminal_incomplete_and_failed_events() -> None:
    events = responses_stream_events([message_item("Part")])
    data = json.loads(events[-1].split("data: ", 1)[1])
    data["type"] = "response.incomplete"
    data["response"].update(status="incomplete", incomplete_details={"reason": "max_output_tokens"})
    events[-1] = f"event: response.incomplete\ndata: {json.dumps(data)}\n\n"
    view = normalize(request(stream=True), stream_response(events))
    assert (view["complete"], view["response"], view["warnings"]) == (
        True,
        "Part",
        ["response incomplete: 'max_output_tokens'"],
    )

    failed = dict(
        response_object([], status="failed"), error={"code": "server_error", "message": "Boom."}
    )
    events = [
        sse("response.created", response=dict(response_object([]), status="in_progress")),
        sse("response.failed", response=failed),
    ]
    view = normalize(request(stream=True), stream_response(events))
    assert (view["complete"], view["warnings"]) == (True, ["response failed: 'Boom.'"])


def test_junk_data_lines_are_skipped_with_warnings() -> None:
    events = responses_stream_events([message_item("ok")])
    events.insert(2, "data: not json\n\n")
    events.insert(3, "data: [1, 2]\n\n")
    view = normalize(request(stream=True), stream_response(events))
    assert view["response"] == "ok" and view["complete"] is True
    assert view["warnings"] == [
        "event 2: data is not JSON: 'not json'",
        "event 3: data is not a JSON object: '[1, 2]'",
    ]


def test_an_error_answer_to_a_stream_request_is_read_as_json() -> None:
    body = {
        "error": {
            "message": "Rate limit reached.",
            "type": "requests",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }
    view = normalize(request(stream=True), stream_response([json.dumps(body)], status=429))
    assert (view["stream"], view["complete"], view["error"]) == (True, False, "Rate limit reached.")


def test_the_codec_does_not_alias_or_modify_its_inputs() -> None:
    req = request(input=[{"role": "user", "content": "hi"}])
    resp = stream_response(responses_stream_events([message_item("hello"), CALL_A]))
    before = copy.deepcopy((req, resp))
    view = normalize(req, resp)
    view["tool_requests"][0]["args"]["city"] = "Rome"
    view["messages"][0]["content"] = "changed"
    assert (req, resp) == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=40))
def test_chunk_boundaries_never_change_the_view(cuts: list[int]) -> None:
    text = "".join(responses_stream_events(STREAM_OUTPUT, interleave_calls=True, piece=3))
    points = sorted({c % (len(text) + 1) for c in cuts})
    chunks = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=False)]
    assert "".join(chunks) == text
    view = normalize(request(stream=True), stream_response(chunks))
    assert view == normalize(request(stream=True), stream_response([text]))
    assert view["response"] == "Checking the weather for you." and view["complete"] is True
