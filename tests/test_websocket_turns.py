"""A WebSocket connection's model turns (agentsnap.capture.websocket.turns), from recorded
message lists: which API, what each turn's request and response say, in which order the
conversation grows when the client answers a tool call before the turn's end arrived."""

from __future__ import annotations

import json
from typing import Any

from agentsnap.capture.websocket.turns import api_of, turns
from agentsnap.providers import get_codec

CALL = {
    "type": "function_call",
    "id": "item_1",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": '{"city": "Paris"}',
    "status": "completed",
}
TEXT = {
    "type": "message",
    "id": "item_2",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Sunny in Paris."}],
}
USAGE = {"input_tokens": 10, "output_tokens": 3, "total_tokens": 13}
USER = {
    "type": "message",
    "role": "user",
    "content": [{"type": "input_text", "text": "Weather in Paris?"}],
}
TOOL = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}


def msgs(*events: tuple[str, dict[str, Any]]) -> list[tuple[str, float, str]]:
    return [(d, i / 100, json.dumps(e)) for i, (d, e) in enumerate(events)]


def step(turn: Any) -> dict[str, Any]:
    result: dict[str, Any] = get_codec(turn.codec)(turn.request, turn.response)
    return result


def test_realtime_a_tool_output_sent_before_response_done_follows_its_call() -> None:
    messages = msgs(
        ("send", {"type": "session.update", "session": {"instructions": "Report.", "tools": [TOOL]}}),
        # the server's defaults, read after the client's update: they do not undo it
        ("recv", {"type": "session.created", "session": {"model": "gpt-realtime", "instructions": "", "tools": []}}),
        ("send", {"type": "conversation.item.create", "item": USER}),
        ("send", {"type": "response.create"}),
        ("recv", {"type": "response.output_item.added", "item": {**CALL, "arguments": ""}}),
        ("recv", {"type": "response.function_call_arguments.done", "call_id": "call_1", "arguments": CALL["arguments"]}),
        # the agent runs the tool at once, before response.done arrives
        ("send", {"type": "conversation.item.create", "item": {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}}),
        ("recv", {"type": "response.done", "response": {"id": "resp_1", "output": [CALL], "usage": USAGE}}),
        ("send", {"type": "response.create"}),
        ("recv", {"type": "response.done", "response": {"id": "resp_2", "output": [TEXT], "usage": USAGE}}),
    )  # fmt: skip
    assert api_of("/v1/realtime", messages) == "openai_realtime"
    first, second = turns("openai_realtime", messages, "model=gpt-realtime")
    assert first.request["body"]["instructions"] == "Report."
    assert first.request["body"]["tools"] == [TOOL]
    assert first.request["body"]["model"] == "gpt-realtime"
    kinds = [i.get("type") for i in second.request["body"]["input"]]
    assert kinds == ["message", "function_call", "function_call_output"]
    assert second.request["body"]["input"][1]["arguments"] == CALL["arguments"]  # the final item
    one, two = step(first), step(second)
    assert one["tool_requests"] == [
        {"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}}
    ]
    assert two["response"] == "Sunny in Paris." and two["usage"] == USAGE
    assert (first.first, second.first) == (3, 8)  # each turn's response.create


def test_realtime_beta_text_parts_and_audio_transcripts_read_as_output_text() -> None:
    beta = {
        "type": "message",
        "id": "item_9",
        "role": "assistant",
        "content": [{"type": "audio", "transcript": "Sunny."}, {"type": "text", "text": " Warm."}],
    }
    messages = msgs(
        ("send", {"type": "conversation.item.create", "item": USER}),
        ("send", {"type": "response.create"}),
        ("recv", {"type": "response.done", "response": {"output": [beta]}}),
    )
    (turn,) = turns("openai_realtime", messages)
    assert step(turn)["response"] == "Sunny. Warm."


def test_responses_mode_reads_the_request_body_and_the_completed_response() -> None:
    body = {"model": "gpt-4o-mini", "input": [USER], "tools": [TOOL], "stream": True}
    completed = {"id": "resp_1", "model": "gpt-4o-mini", "output": [CALL], "usage": USAGE}
    messages = msgs(
        ("send", {"type": "response.create", **body}),
        ("recv", {"type": "response.created", "response": {"id": "resp_1"}}),
        ("recv", {"type": "response.completed", "response": completed}),
        ("send", {"type": "response.create", "model": "gpt-4o-mini", "input": [USER]}),
        ("recv", {"type": "error", "status": 400, "error": {"code": "bad", "message": "no"}}),
    )
    assert api_of("/v1/responses", messages) == "openai_responses"
    ok, failed = turns("openai_responses", messages)
    assert ok.request["body"] == body and ok.response == {"status": 200, "body": completed}
    assert step(ok)["tool_requests"][0]["args"] == {"city": "Paris"}
    assert failed.response["status"] == 400


def test_gemini_live_turns_end_at_a_tool_call_or_turn_complete() -> None:
    setup = {
        "model": "models/gemini-live",
        "tools": [{"functionDeclarations": [{"name": "get_weather"}]}],
    }
    call = {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}
    messages = msgs(
        ("send", {"setup": setup}),
        ("recv", {"setupComplete": {}}),
        ("send", {"client_content": {"turns": [{"role": "user", "parts": [{"text": "Weather?"}]}], "turnComplete": True}}),
        ("recv", {"toolCall": {"functionCalls": [call]}}),
        ("send", {"tool_response": {"functionResponses": [{"id": "c1", "name": "get_weather", "response": {"result": "sunny"}}]}}),
        ("recv", {"serverContent": {"modelTurn": {"parts": [{"text": "Sunny "}]}}}),
        ("recv", {"serverContent": {"modelTurn": {"parts": [{"text": "in Paris."}]}}}),
        ("recv", {"serverContent": {"turnComplete": True}, "usageMetadata": {"totalTokenCount": 9}}),
    )  # fmt: skip
    assert api_of("/ws/x.BidiGenerateContent", messages) == "gemini_live"
    assert api_of("/elsewhere", messages) == "gemini_live"  # told by its first message
    first, second = turns("gemini_live", messages)
    one, two = step(first), step(second)
    assert one["tool_requests"] == [{"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}]
    assert two["response"] == "Sunny in Paris."
    assert second.response["body"]["usageMetadata"] == {"totalTokenCount": 9}
    assert [c["role"] for c in second.request["body"]["contents"]] == ["user", "model", "user"]


def test_an_unknown_api_has_no_turns() -> None:
    messages = msgs(("send", {"say": "hi"}), ("recv", {"echo": "hi"}))
    assert api_of("/chat", messages) is None
    assert turns(None, messages) == []
