"""agentsnap.spec.frameworks: tool steps and the final answer of frameworks that do not use the
provider's own tool-result format (patches/frameworks/*.toml), read from real request bodies.

The request bodies below are what smolagents 1.26 ``ToolCallingAgent`` sends through
``OpenAIServerModel`` (captured from the real package; tests/frameworks/test_smolagents.py
drives the package itself when it is installed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentsnap.capture.trace import Exchange, Trace
from agentsnap.lifecycle import build_snapshot
from agentsnap.spec.frameworks import final_output, load_frameworks, tool_results

TOOLS = [
    {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
    for n in ("get_weather", "final_answer")
]
USER = {
    "role": "user",
    "content": [{"type": "text", "text": "New task:\nWeather in Paris and Tokyo?"}],
}


def _calls_message(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    listed = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
    ]
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": "Calling tools:\n" + str(listed)}],
    }


def _observation(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": "Observation:\n" + text}]}


def _completion(calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, n, a in calls
    ]
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }


def _exchange(
    messages: list[dict[str, Any]], reply: list[tuple[str, str, dict[str, Any]]]
) -> Exchange:
    body = {"model": "gpt-4o-mini", "messages": messages, "tools": TOOLS, "tool_choice": "required"}
    return Exchange(
        provider="openai",
        codec="openai_chat",
        request={"method": "POST", "path": "/v1/chat/completions", "body": body},
        response={
            "status": 200,
            "headers": [["content-type", "application/json"]],
            "body": _completion(reply),
        },
    )


PARALLEL = [
    ("call_t", "get_weather", {"city": "Tokyo"}),
    ("call_p", "get_weather", {"city": "Paris"}),
]
FINAL = [("call_f", "final_answer", {"answer": "Paris: rain. Tokyo: sun."})]


def smolagents_trace(observation: str) -> Trace:
    trace = Trace()
    trace.add_exchange(_exchange([USER], PARALLEL))
    # smolagents lists the calls sorted by id, and joins their observations in that order
    history = [USER, _calls_message(sorted(PARALLEL)), _observation(observation)]
    trace.add_exchange(_exchange(history, FINAL))
    return trace


def test_smolagents_observations_become_tool_steps_and_final_answer_the_output() -> None:
    steps = smolagents_trace("Paris: rain\nTokyo: sun").steps()
    assert [(s["type"], s.get("name"), s.get("args"), s.get("result")) for s in steps] == [
        ("llm_call", None, None, None),
        ("tool_call", "get_weather", {"city": "Paris"}, "Paris: rain"),
        ("tool_call", "get_weather", {"city": "Tokyo"}, "Tokyo: sun"),
        ("llm_call", None, None, None),
        (
            "tool_call",
            "final_answer",
            {"answer": "Paris: rain. Tokyo: sun."},
            "Paris: rain. Tokyo: sun.",
        ),
    ]
    assert [s.get("id") for s in steps if s["type"] == "tool_call"] == [
        "call_p",
        "call_t",
        "call_f",
    ]
    assert steps[-1]["final_answer"] is True
    assert final_output(steps) == "Paris: rain. Tokyo: sun."
    snap = build_snapshot("smol", steps, output_from_trace=True)
    assert snap.output == "Paris: rain. Tokyo: sun."


def test_an_observation_that_cannot_be_split_goes_whole_to_each_call() -> None:
    body = {"messages": [USER, _calls_message(sorted(PARALLEL)), _observation("one line only")]}
    assert tool_results("openai_chat", body) == [
        {"id": "call_p", "result": "one line only"},
        {"id": "call_t", "result": "one line only"},
    ]
    assert tool_results("anthropic_messages", body) == []  # the conventions name their wire formats
    assert (
        tool_results("openai_chat", {"messages": [USER, _observation("x")]}) == []
    )  # no calls message before it


def test_a_final_answer_the_agent_answered_is_an_ordinary_tool_step() -> None:
    trace = Trace()
    trace.add_exchange(_exchange([USER], [("call_f", "final_answer", {"answer": "a"})]))
    trace.add_exchange(
        _exchange(
            [
                USER,
                _calls_message([("call_f", "final_answer", {"answer": "a"})]),
                _observation("a"),
            ],
            [],
        )
    )
    steps = trace.steps()
    assert [(s["type"], s.get("name"), s.get("final_answer")) for s in steps] == [
        ("llm_call", None, None),
        ("tool_call", "final_answer", None),
        ("llm_call", None, None),
    ]
    assert final_output(steps) is None


def test_a_broken_conventions_file_is_skipped_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "good.toml").write_text(
        '[framework]\nname = "x"\ncodecs = ["openai_chat"]\n[final_answer]\ntool = "done"\n',
        encoding="utf-8",
    )
    (tmp_path / "bad.toml").write_text(
        '[framework]\nname = "y"\n[tool_results]\ncalls_role = "assistant"\n', encoding="utf-8"
    )
    with pytest.warns(
        UserWarning, match=r"ignoring framework conventions .*bad\.toml: 'call_id_pattern'"
    ):
        loaded = load_frameworks(str(tmp_path))
    assert [(f.name, f.final_tool) for f in loaded] == [("x", "done")]


def test_the_shipped_conventions_load() -> None:
    names = {f.name: f for f in load_frameworks()}
    assert (
        names["smolagents"].final_tool == "final_answer"
        and names["smolagents"].final_argument == "answer"
    )


def test_pydantic_ai_output_tool_is_the_final_answer_with_its_whole_arguments() -> None:
    """pydantic-ai names its output tool ``final_result`` (``final_result_<Type>`` for several types)."""
    report = {"city": "Tokyo", "forecast": "sun"}
    trace = Trace()
    trace.add_exchange(_exchange([USER], [("call_o", "final_result_WeatherReport", report)]))
    steps = trace.steps()
    assert [(s["type"], s.get("name"), s.get("result")) for s in steps] == [
        ("llm_call", None, None),
        ("tool_call", "final_result_WeatherReport", report),
    ]
    assert build_snapshot("pyd", steps, output_from_trace=True).output == report


def _text_exchange(system: str, user: str, answer: str) -> Exchange:
    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
    }
    reply = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answer},
                "finish_reason": "stop",
            }
        ],
    }
    ex = Exchange(
        provider="openai",
        codec="openai_chat",
        request={"method": "POST", "path": "/v1/chat/completions", "body": body},
        response={"status": 200, "headers": [], "body": reply},
    )
    ex.ended = ex.started  # one call after the other, as DSPy makes them
    return ex


# the last user message of DSPy 3.4 ReAct's requests (captured from the real package)
ASK = (
    "\n\nRespond with the corresponding output fields, starting with the field `[[ ## next_thought ## ]]`, then "
    "`[[ ## next_tool_name ## ]]`, then `[[ ## next_tool_args ## ]]`, and then ending with the marker for `[[ ## completed ## ]]`."
)
Q = "[[ ## question ## ]]\nWeather in Paris?\n\n[[ ## trajectory ## ]]\n"
ENTRY0 = (
    '[[ ## thought_0 ## ]]\nlook it up\n\n[[ ## tool_name_0 ## ]]\nget_weather\n\n[[ ## tool_args_0 ## ]]\n{"city": "Paris"}\n\n'
    "[[ ## observation_0 ## ]]\nLight rain, 18°C\n\nrain tomorrow too"
)
ENTRY1 = "\n\n[[ ## thought_1 ## ]]\ndone\n\n[[ ## tool_name_1 ## ]]\nfinish\n\n[[ ## tool_args_1 ## ]]\n{}\n\n[[ ## observation_1 ## ]]\nCompleted."


def test_dspy_react_trajectory_entries_become_tool_steps() -> None:
    trace = Trace()
    trace.add_exchange(_text_exchange("react", Q + ASK, "[[ ## next_tool_name ## ]]\nget_weather"))
    trace.add_exchange(
        _text_exchange("react", Q + ENTRY0 + ASK, "[[ ## next_tool_name ## ]]\nfinish")
    )
    trace.add_exchange(
        _text_exchange(
            "extract",
            Q + ENTRY0 + ENTRY1 + "\n\nRespond with `[[ ## answer ## ]]`.",
            "[[ ## answer ## ]]\nParis: rain",
        )
    )
    steps = trace.steps()
    assert [(s["type"], s.get("name"), s.get("args"), s.get("result")) for s in steps] == [
        ("llm_call", None, None, None),
        # a multi-paragraph observation is kept whole; the entry repeated in the third request is not a new step
        ("tool_call", "get_weather", {"city": "Paris"}, "Light rain, 18°C\n\nrain tomorrow too"),
        ("llm_call", None, None, None),
        ("llm_call", None, None, None),  # `finish` is ReAct's end signal, not a tool
    ]
