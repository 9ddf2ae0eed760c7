"""The gemini codec: normalised views of generateContent exchanges, tool results,
and tool_call derivation for calls without ids.

Wire bodies are written by hand in the shape the Gemini API sends
(camelCase JSON; streams are ``data: <GenerateContentResponse>\\r\\n\\r\\n`` events).
"""

from __future__ import annotations

import base64
import copy
import gzip
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsnap.capture.trace import _with_derived_tool_calls
from agentsnap.providers import codec_names, get_codec, get_tool_results
from agentsnap.providers.gemini import normalize, tool_results
from agentsnap.spec.provider_specs import load_specs

MODEL = "gemini-2.5-flash"
PATH = f"/v1beta/models/{MODEL}:generateContent"
STREAM_PATH = f"/v1beta/models/{MODEL}:streamGenerateContent"
CONTENTS = [{"role": "user", "parts": [{"text": "Weather and time in Paris?"}]}]
TOOLS = [
    {
        "functionDeclarations": [
            {
                "name": "get_weather",
                "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}},
            },
            {"name": "get_time"},
        ]
    },
    {"googleSearch": {}},
]


def request(path: str = PATH, **body: Any) -> dict[str, Any]:
    full: dict[str, Any] = {
        "contents": CONTENTS,
        "tools": TOOLS,
        "systemInstruction": {"parts": [{"text": "Be terse."}]},
    }
    full.update(body)
    req: dict[str, Any] = {"method": "POST", "path": path, "body": full}
    if path.endswith(":streamGenerateContent"):
        req["query"] = "alt=sse"
    return req


def candidate(
    *parts: dict[str, Any], finish: str | None = "STOP", index: int | None = 0
) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}}
    if finish:
        cand["finishReason"] = finish
    if index is not None:
        cand["index"] = index
    return cand


def usage(prompt: int = 10, output: int = 5, **extra: int) -> dict[str, Any]:
    meta = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "totalTokenCount": prompt + output + sum(extra.values()),
    }
    meta.update(extra)
    return meta


def gen(
    *candidates: dict[str, Any], meta: dict[str, Any] | None = None, model: str | None = MODEL
) -> dict[str, Any]:
    body: dict[str, Any] = {"candidates": list(candidates)}
    if meta is not None:
        body["usageMetadata"] = meta
    if model is not None:
        body["modelVersion"] = model
    body["responseId"] = "resp-1"
    return body


def replied(body: Any, status: int = 200) -> dict[str, Any]:
    return {
        "status": status,
        "headers": {"content-type": "application/json; charset=UTF-8"},
        "body": body,
    }


def sse(*events: dict[str, Any]) -> str:
    return "".join(f"data: {json.dumps(e, separators=(',', ':'))}\r\n\r\n" for e in events)


def streamed(
    *chunks: Any, status: int = 200, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    return {
        "status": status,
        "headers": headers or {"content-type": "text/event-stream"},
        "chunks": list(chunks),
    }


def fc(
    name: str | None = None, args: Any = None, id: str | None = None, **extra: Any
) -> dict[str, Any]:
    call: dict[str, Any] = {}
    if name is not None:
        call["name"] = name
    if args is not None:
        call["args"] = args
    if id is not None:
        call["id"] = id
    call.update(extra)
    return {"functionCall": call}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"text": value, **extra}


# --------------------------------------------------------------------------- registration


def test_codec_is_registered_and_the_spec_routes_generate_content_to_it() -> None:
    assert "gemini" in codec_names()
    assert get_codec("gemini") is normalize
    assert get_tool_results("gemini") is tool_results
    (spec,) = [s for s in load_specs() if s.name == "google-genai"]
    assert spec.user_agent_prefixes == ("google-genai-sdk/",)
    assert spec.codec_for(PATH) == "gemini"
    assert spec.codec_for(STREAM_PATH) == "gemini"
    assert (
        spec.codec_for(
            "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent"
        )
        == "gemini"
    )
    assert spec.codec_for(f"/v1beta/models/{MODEL}:countTokens") is None
    assert spec.hooks == (
        ("google.genai._api_client", "agentsnap.capture.quirks.google_genai:install"),
    )
    assert spec.api_key_env == ("GEMINI_API_KEY",)
    # every header is kept ("*": sdk_http_response shows them all), credentials only when a glob names them
    assert spec.keeps_header("x-goog-request-params") and spec.keeps_header("date")
    assert not spec.keeps_header("set-cookie") and not spec.keeps_header("authorization")


# --------------------------------------------------------------------------- non-streamed


def test_text_answer() -> None:
    body = gen(candidate(text("Sunny, "), text("21 C.")), meta=usage(12, 4))
    assert normalize(request(), replied(body)) == {
        "provider": "google-genai",
        "model": MODEL,
        "messages": CONTENTS,
        "tools": ["get_weather", "get_time", "googleSearch"],
        "response": "Sunny, 21 C.",
        "tool_requests": [],
        "tokens": 16,
        "usage": {"input_tokens": 12, "output_tokens": 4, "total_tokens": 16},
        "stream": False,
        "status": 200,
    }


def test_view_never_aliases_the_inputs() -> None:
    req = request()
    resp = replied(gen(candidate(fc("get_weather", {"city": "Paris"}))))
    before = (copy.deepcopy(req), copy.deepcopy(resp))
    view = normalize(req, resp)
    view["messages"][0]["parts"][0]["text"] = "changed"
    view["tool_requests"][0]["args"]["city"] = "changed"
    assert (req, resp) == before


def test_function_calls_with_and_without_ids_and_odd_args() -> None:
    body = gen(
        candidate(
            text("Let me check."),
            fc("get_weather", {"city": "Paris"}),
            fc("get_time", {"tz": "Europe/Paris"}, id="fc_2"),
            fc("get_time"),
            fc("get_weather", '{"city": "Rome"}'),
            fc("get_weather", "not json"),
        )
    )
    view = normalize(request(), replied(body))
    assert view["response"] == "Let me check."
    assert view["tool_requests"] == [
        {"id": None, "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "fc_2", "name": "get_time", "args": {"tz": "Europe/Paris"}},
        {"id": None, "name": "get_time", "args": {}},
        {"id": None, "name": "get_weather", "args": {"city": "Rome"}},
        {"id": None, "name": "get_weather", "args": "not json"},
    ]


def test_thought_parts_are_not_the_answer_and_thinking_tokens_count_as_output() -> None:
    body = gen(
        candidate(text("Considering the weather...", thought=True), text("Sunny.")),
        meta=usage(10, 2, thoughtsTokenCount=30),
    )
    view = normalize(request(), replied(body))
    assert view["response"] == "Sunny."
    assert view["usage"] == {
        "input_tokens": 10,
        "output_tokens": 32,
        "total_tokens": 42,
        "reasoning_tokens": 30,
    }
    assert view["tokens"] == 42


def test_candidate_zero_is_the_one_with_index_zero_or_none() -> None:
    other = candidate(text("second"), index=1)
    assert (
        normalize(request(), replied(gen(other, candidate(text("first"), index=None))))["response"]
        == "first"
    )
    assert (
        normalize(request(), replied(gen(other, candidate(text("zero"), index=0))))["response"]
        == "zero"
    )
    assert normalize(request(), replied(gen(other)))["response"] == ""


@pytest.mark.parametrize(
    ("path", "model"),
    [
        (PATH, MODEL),
        (
            "/v1beta1/projects/p/locations/us-central1/publishers/google/models/gemini-2.0-flash-001:generateContent",
            "gemini-2.0-flash-001",
        ),
        ("/v1beta/tunedModels/my-tuned-7:generateContent", "tunedModels/my-tuned-7"),
        ("/weird", None),
    ],
)
def test_model_comes_from_the_path_when_the_response_has_no_model_version(
    path: str, model: str | None
) -> None:
    assert (
        normalize(request(path), replied(gen(candidate(text("x")), model=None)))["model"] == model
    )


def test_response_model_version_wins_over_the_path() -> None:
    assert (
        normalize(
            request(), replied(gen(candidate(text("x")), model="gemini-2.5-flash-preview-05-20"))
        )["model"]
        == "gemini-2.5-flash-preview-05-20"
    )


def test_absent_fields() -> None:
    view = normalize({"method": "POST", "path": PATH, "body": None}, replied({}))
    assert view["messages"] == [] and view["tools"] == [] and view["response"] == ""
    assert view["tool_requests"] == [] and view["usage"] is None and view["tokens"] is None


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (
            429,
            {
                "error": {
                    "code": 429,
                    "message": "Resource has been exhausted.",
                    "status": "RESOURCE_EXHAUSTED",
                }
            },
            "Resource has been exhausted.",
        ),
        (
            503,
            [
                {
                    "error": {
                        "code": 503,
                        "message": "The model is overloaded.",
                        "status": "UNAVAILABLE",
                    }
                }
            ],
            "The model is overloaded.",
        ),
        (500, "Internal error\n", "Internal error"),
        (400, {"message": "bad", "status": "Bad Request"}, "bad"),
        (500, None, None),
    ],
)
def test_error_responses(status: int, body: Any, message: str | None) -> None:
    view = normalize(request(), replied(body, status))
    assert (view["status"], view["error"], view["response"], view["tool_requests"]) == (
        status,
        message,
        "",
        [],
    )


def test_non_json_text_body_on_error() -> None:
    resp = {"status": 502, "headers": {}, "text": "<html>Bad Gateway</html>"}
    assert normalize(request(), resp)["error"] == "<html>Bad Gateway</html>"


def test_no_error_key_below_400() -> None:
    assert "error" not in normalize(request(), replied(gen(candidate(text("x")))))


# --------------------------------------------------------------------------- streams


STREAM_EVENTS = (
    gen(candidate(text("Sun"), finish=None, index=None), meta=usage(9, 0)),
    gen(
        candidate(text("ny in "), fc("get_weather", {"city": "Paris"}), finish=None, index=None),
        meta=usage(9, 2),
    ),
    gen(
        candidate(fc("get_time", {"tz": "Europe/Paris"}, id="fc_2"), text("Paris."), index=None),
        meta=usage(9, 6),
    ),
)
STREAM_VIEW = {
    "provider": "google-genai",
    "model": MODEL,
    "messages": CONTENTS,
    "tools": ["get_weather", "get_time", "googleSearch"],
    "response": "Sunny in Paris.",
    "tool_requests": [
        {"id": None, "name": "get_weather", "args": {"city": "Paris"}},
        {"id": "fc_2", "name": "get_time", "args": {"tz": "Europe/Paris"}},
    ],
    "tokens": 15,
    "usage": {"input_tokens": 9, "output_tokens": 6, "total_tokens": 15},
    "stream": True,
    "status": 200,
    "complete": True,
}


def test_stream_one_event_per_chunk() -> None:
    chunks = [sse(e) for e in STREAM_EVENTS]
    assert normalize(request(STREAM_PATH), streamed(*chunks)) == STREAM_VIEW


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=len(sse(*STREAM_EVENTS))), max_size=12))
def test_stream_view_does_not_depend_on_chunk_boundaries(cuts: list[int]) -> None:
    whole = sse(*STREAM_EVENTS)
    points = [*sorted(set(cuts)), len(whole)]
    pieces, start = [], 0
    for point in points:
        pieces.append(whole[start:point])
        start = point
    assert normalize(request(STREAM_PATH), streamed(*pieces)) == STREAM_VIEW


def test_stream_accepts_lf_line_ends_and_multi_line_data() -> None:
    first = json.dumps(STREAM_EVENTS[0], indent=1).replace("\n", "\ndata: ")
    text_ = f"data: {first}\n\n" + "".join(f"data: {json.dumps(e)}\n\n" for e in STREAM_EVENTS[1:])
    assert normalize(request(STREAM_PATH), streamed(text_)) == STREAM_VIEW


def test_gzip_encoded_stream_chunks_are_decoded() -> None:
    raw = gzip.compress(sse(*STREAM_EVENTS).encode())
    chunks = [
        {"$bytes_b64": base64.b64encode(raw[i : i + 7]).decode()} for i in range(0, len(raw), 7)
    ]
    headers = {"content-type": "text/event-stream", "content-encoding": "gzip"}
    assert normalize(request(STREAM_PATH), streamed(*chunks, headers=headers)) == STREAM_VIEW


def test_cut_stream_keeps_what_was_seen() -> None:
    whole = sse(*STREAM_EVENTS)
    cut = whole[: whole.index("Paris.")]  # inside the last event
    view = normalize(request(STREAM_PATH), streamed(cut))
    assert view["complete"] is False
    assert view["response"] == "Sunny in "
    assert view["tool_requests"] == [{"id": None, "name": "get_weather", "args": {"city": "Paris"}}]
    assert view["usage"] == {"input_tokens": 9, "output_tokens": 2, "total_tokens": 11}


def test_empty_stream_is_incomplete() -> None:
    view = normalize(request(STREAM_PATH), streamed())
    assert (view["complete"], view["response"], view["usage"], view["stream"]) == (
        False,
        "",
        None,
        True,
    )


def test_in_stream_error_event_ends_the_stream_incomplete() -> None:
    error = {"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}}
    view = normalize(request(STREAM_PATH), streamed(sse(STREAM_EVENTS[0], error, STREAM_EVENTS[2])))
    assert (view["complete"], view["response"], view["status"]) == (False, "Sun", 200)
    assert "error" not in view


def test_error_answer_to_a_stream_request_is_read_as_a_json_body() -> None:
    body = {"error": {"code": 429, "message": "Quota exceeded.", "status": "RESOURCE_EXHAUSTED"}}
    view = normalize(
        request(STREAM_PATH),
        streamed(json.dumps(body, indent=2)[:20], json.dumps(body, indent=2)[20:], status=429),
    )
    assert (view["status"], view["error"], view["complete"], view["stream"]) == (
        429,
        "Quota exceeded.",
        False,
        True,
    )


def test_stream_without_alt_sse_is_a_json_array() -> None:
    whole = json.dumps(list(STREAM_EVENTS), indent=2)
    view = normalize(request(STREAM_PATH), streamed(whole[:50], whole[50:]))
    assert view == STREAM_VIEW


def test_blocked_prompt_completes_a_stream_without_candidates() -> None:
    blocked = {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": usage(7, 0)}
    view = normalize(request(STREAM_PATH), streamed(sse(blocked)))
    assert (view["complete"], view["response"], view["tool_requests"]) == (True, "", [])


def test_non_json_events_are_skipped() -> None:
    view = normalize(
        request(STREAM_PATH),
        streamed("data: not json\r\n\r\ndata: [1, 2]\r\n\r\n" + sse(*STREAM_EVENTS)),
    )
    assert view == STREAM_VIEW


def test_function_call_streamed_in_pieces_is_assembled() -> None:
    """Vertex AI streamFunctionCallArguments: willContinue + partialArgs per JSON path."""
    events = [
        gen(candidate(fc("book", id="fc_7", willContinue=True), finish=None)),
        gen(
            candidate(
                fc(
                    partialArgs=[
                        {"jsonPath": "$.city", "stringValue": "San ", "willContinue": True}
                    ],
                    willContinue=True,
                ),
                finish=None,
            )
        ),
        gen(
            candidate(
                fc(
                    partialArgs=[{"jsonPath": "$.city", "stringValue": "Francisco"}],
                    willContinue=True,
                ),
                finish=None,
            )
        ),
        gen(
            candidate(
                fc(
                    partialArgs=[
                        {"jsonPath": "$.nights", "numberValue": 3},
                        {"jsonPath": "$.guest.vip", "boolValue": True},
                        {"jsonPath": "$.rooms[1]", "stringValue": "suite"},
                        {"jsonPath": "$['odd key']", "nullValue": "NULL_VALUE"},
                    ],
                    willContinue=True,
                ),
                finish=None,
            )
        ),
        gen(candidate(fc(name="book"), finish=None)),  # closes the call
        gen(candidate(fc("get_time", {"tz": "UTC"}))),
    ]
    view = normalize(request(STREAM_PATH), streamed(sse(*events)))
    assert view["tool_requests"] == [
        {
            "id": "fc_7",
            "name": "book",
            "args": {
                "city": "San Francisco",
                "nights": 3,
                "guest": {"vip": True},
                "rooms": [None, "suite"],
                "odd key": None,
            },
        },
        {"id": None, "name": "get_time", "args": {"tz": "UTC"}},
    ]
    assert view["complete"] is True


def test_a_new_name_or_id_never_continues_an_open_call() -> None:
    events = [
        gen(candidate(fc("a", {"x": 1}, id="fc_1", willContinue=True), finish=None)),
        gen(candidate(fc("b", {"y": 2}, id="fc_2"), finish=None)),
        gen(candidate(fc("b", {"z": 3}, id="fc_3"))),
    ]
    assert [
        (r["id"], r["name"], r["args"])
        for r in normalize(request(STREAM_PATH), streamed(sse(*events)))["tool_requests"]
    ] == [
        ("fc_1", "a", {"x": 1}),
        ("fc_2", "b", {"y": 2}),
        ("fc_3", "b", {"z": 3}),
    ]


# --------------------------------------------------------------------------- tool results


def fr(name: str, response: Any, id: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "response": response}
    if id is not None:
        out["id"] = id
    return {"functionResponse": out}


def test_tool_results_are_the_responses_after_the_last_model_turn() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris, then Berlin?"}]},
            {"role": "model", "parts": [fc("get_weather", {"city": "Paris"})]},
            {"role": "user", "parts": [fr("get_weather", {"result": "sunny in Paris"})]},
            {
                "role": "model",
                "parts": [
                    fc("get_weather", {"city": "Berlin"}),
                    fc("get_time", {"tz": "CET"}, id="fc_2"),
                ],
            },
            {
                "role": "user",
                "parts": [
                    fr("get_weather", {"result": "rain in Berlin"}),
                    fr("get_time", {"result": "12:00"}, id="fc_2"),
                ],
            },
        ]
    }
    assert tool_results(body) == [
        {"id": None, "name": "get_weather", "result": {"result": "rain in Berlin"}},
        {"id": "fc_2", "name": "get_time", "result": {"result": "12:00"}},
    ]


def test_tool_results_edge_cases() -> None:
    assert (
        tool_results(None) == []
        and tool_results({}) == []
        and tool_results({"contents": "x"}) == []
    )
    # a conversation that does not end with results: nothing new
    body = {
        "contents": [
            {"role": "user", "parts": [fr("f", {"r": 1})]},
            {"role": "model", "parts": [text("ok")]},
        ]
    }
    assert tool_results(body) == []
    # no model turn at all (history started elsewhere): every response counts
    assert tool_results(
        {"contents": [{"role": "user", "parts": [fr("f", {"r": 1}), "junk"]}, "junk"]}
    ) == [{"id": None, "name": "f", "result": {"r": 1}}]


# --------------------------------------------------------------------------- tool_call derivation without ids


def llm(tool_requests: list[dict[str, Any]], results: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "llm_call", "tool_requests": tool_requests, "_tool_results": results}


def test_results_without_ids_pair_with_the_oldest_unanswered_call_of_that_name() -> None:
    steps = [
        llm(
            [
                {"id": None, "name": "get_weather", "args": {"city": "Paris"}},
                {"id": None, "name": "get_weather", "args": {"city": "Rome"}},
            ],
            [],
        ),
        # the agent answers both (in order), and a retry repeats the request: nothing is paired twice
        llm(
            [{"id": None, "name": "get_weather", "args": {"city": "Berlin"}}],
            [
                {"id": None, "name": "get_weather", "result": "sunny in Paris"},
                {"id": None, "name": "get_weather", "result": "warm in Rome"},
            ],
        ),
        llm([], [{"id": None, "name": "get_weather", "result": "rain in Berlin"}]),
        llm(
            [],
            [
                {"id": None, "name": "get_weather", "result": "rain in Berlin"},
                {"id": None, "name": "unknown", "result": 1},
                {"id": None, "result": 2},
            ],
        ),
    ]
    out = _with_derived_tool_calls(steps)
    assert [s["type"] for s in out] == [
        "llm_call",
        "tool_call",
        "tool_call",
        "llm_call",
        "tool_call",
        "llm_call",
        "llm_call",
    ]
    assert [(s["args"], s["result"], s["id"]) for s in out if s["type"] == "tool_call"] == [
        ({"city": "Paris"}, "sunny in Paris", None),
        ({"city": "Rome"}, "warm in Rome", None),
        ({"city": "Berlin"}, "rain in Berlin", None),
    ]
    assert all("_tool_results" not in s for s in out)


def test_a_result_without_id_answers_a_call_that_had_one_and_an_id_result_is_not_paired_again() -> (
    None
):
    steps = [
        llm([{"id": "fc_1", "name": "get_time", "args": {"tz": "UTC"}}], []),
        llm([], [{"id": None, "name": "get_time", "result": "12:00"}]),
        llm([], [{"id": "fc_1", "result": "12:00 again"}]),
    ]
    tool_steps = [s for s in _with_derived_tool_calls(steps) if s["type"] == "tool_call"]
    assert [(s["name"], s["args"], s["result"], s["id"]) for s in tool_steps] == [
        ("get_time", {"tz": "UTC"}, "12:00", "fc_1")
    ]


def test_id_pairing_is_unchanged() -> None:
    steps = [
        llm(
            [
                {"id": "call_A", "name": "f", "args": {}},
                {"id": "call_B", "name": "f", "args": {"n": 2}},
            ],
            [],
        ),
        llm(
            [],
            [
                {"id": "call_B", "result": "b"},
                {"id": "call_A", "result": "a"},
                {"id": "call_Z", "result": "?"},
            ],
        ),
        llm(
            [], [{"id": "call_B", "result": "b"}, {"id": "call_A", "result": "a"}]
        ),  # history repeated
    ]
    out = _with_derived_tool_calls(steps)
    assert [(s["id"], s["args"], s["result"]) for s in out if s["type"] == "tool_call"] == [
        ("call_B", {"n": 2}, "b"),
        ("call_A", {}, "a"),
    ]
    assert [s["type"] for s in out] == [
        "llm_call",
        "tool_call",
        "tool_call",
        "llm_call",
        "llm_call",
    ]
