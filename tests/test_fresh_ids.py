"""Re-recording an unchanged agent against a provider that mints fresh ids leaves the golden's bytes alone.

Real providers hand out new tool-call ids (``call_…``, ``toolu_…``), response
and message ids, request-id headers and ``created`` timestamps on every call.
Each test runs a real SDK through a two-call tool conversation (the model asks
for a tool, the agent answers that id, the model replies) against the
provider's fake server, twice, with every id fresh the second time: the file
must not change (so ``git diff`` stays empty) and the outcome is
"unchanged". Then replay, offline, serves the recorded conversation
consistently: the tool result answers the id the recorded model gave, so
every request matches its recording exactly (no ``request_drift``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentsnap import AgentAsserter, AgentRecorder, SnapshotStore
from agentsnap.exceptions import AgentRegressionError
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.fake_provider import Reply

pytestmark = pytest.mark.filterwarnings("ignore::agentsnap.AgentsnapWarning")

_ID_KEYS = {"id", "responseId", "response_id", "generation_id"}
_TIME_KEYS = {"created", "created_at"}


def _refresh(value: Any, nonce: str, stamp: int) -> Any:
    """Every id in a reply body made new (same prefix, new tail), every timestamp moved."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in _ID_KEYS and isinstance(item, str):
                out[key] = f"{item}{nonce}"
            elif key in _TIME_KEYS and isinstance(item, int):
                out[key] = stamp
            else:
                out[key] = _refresh(item, nonce, stamp)
        return out
    if isinstance(value, list):
        return [_refresh(v, nonce, stamp) for v in value]
    return value


def fresh(reply: Reply) -> Reply:
    """``reply`` as a real provider would send it another time: new ids, new request-id headers, new timestamps."""
    nonce = secrets.token_hex(6)
    stamp = 1_700_000_000 + secrets.randbelow(10_000_000)
    headers = tuple((k, f"{v}{nonce}" if "id" in k.lower() else v) for k, v in reply.headers)
    changes: dict[str, Any] = {"headers": headers}
    if reply.body is not None:
        body = _refresh(reply.body, nonce, stamp)
        if body.get("object") == "chat.completion":
            body.setdefault("id", f"chatcmpl-{nonce}")  # the fake would derive it from the request
            body.setdefault("created", stamp)
        changes["body"] = body
    raw = getattr(reply, "raw", None)
    if raw:
        changes["raw"] = json.dumps(
            _refresh(json.loads(raw), nonce, stamp), separators=(",", ":")
        ).encode()
    return dataclasses.replace(reply, **changes)


# --------------------------------------------------------------------------- the providers
# each: (fake server class, the two replies given fresh tool-call ids, the agent)

Replies = Callable[[str], tuple[Reply, Reply]]
Agent = Callable[[str], str]


def _openai_chat() -> tuple[Any, Replies, Callable[[Any], Agent]]:
    import openai

    from tests.fake_provider import FakeOpenAI, text_reply, tool_calls_reply

    tool = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }

    def replies(tail: str) -> tuple[Reply, Reply]:
        return tool_calls_reply([(f"call_{tail}", "get_weather", {"city": "Paris"})]), text_reply(
            "Sunny in Paris, 18°C."
        )

    def agent(fake: Any) -> Agent:
        url = fake.base_url  # kept: replay runs with the server stopped

        def run(_: str) -> str:
            client = openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0)
            messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
            first = client.chat.completions.create(
                model="gpt-4o-mini", messages=messages, tools=[tool]
            )  # type: ignore[arg-type]
            call = (first.choices[0].message.tool_calls or [])[0]
            messages += [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {
                                "name": call.function.name,
                                "arguments": call.function.arguments,
                            },
                        }
                    ],
                },  # type: ignore[union-attr]
                {"role": "tool", "tool_call_id": call.id, "content": "Sunny, 18°C"},
            ]
            second = client.chat.completions.create(
                model="gpt-4o-mini", messages=messages, tools=[tool]
            )  # type: ignore[arg-type]
            return second.choices[0].message.content or ""

        return run

    return FakeOpenAI, replies, agent


def _groq() -> tuple[Any, Replies, Callable[[Any], Agent]]:
    import groq

    from tests.fake_openai_extra import GROQ_MODEL, FakeGroq, groq_reply

    tool = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }

    def replies(tail: str) -> tuple[Reply, Reply]:
        return groq_reply(
            None, tool_calls=[(f"call_{tail}", "get_weather", {"city": "Paris"})]
        ), groq_reply("Sunny in Paris.")

    def agent(fake: Any) -> Agent:
        url = fake.base_url  # kept: replay runs with the server stopped

        def run(_: str) -> str:
            client = groq.Groq(base_url=url, api_key="gsk_test", max_retries=0)
            messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
            first = client.chat.completions.create(
                model=GROQ_MODEL, messages=messages, tools=[tool]
            )  # type: ignore[arg-type]
            call = (first.choices[0].message.tool_calls or [])[0]
            messages += [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {
                                "name": call.function.name,
                                "arguments": call.function.arguments,
                            },
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": call.id, "content": "Sunny"},
            ]
            second = client.chat.completions.create(
                model=GROQ_MODEL, messages=messages, tools=[tool]
            )  # type: ignore[arg-type]
            return second.choices[0].message.content or ""

        return run

    return FakeGroq, replies, agent


def _openai_responses() -> tuple[Any, Replies, Callable[[Any], Agent]]:
    import openai

    from tests.fake_openai_extra import (
        FakeOpenAIResponses,
        function_call_item,
        message_item,
        responses_reply,
    )

    tool = {
        "type": "function",
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }

    def replies(tail: str) -> tuple[Reply, Reply]:
        return (
            responses_reply(
                [
                    function_call_item(
                        f"call_{tail}", "get_weather", {"city": "Paris"}, id=f"fc_{tail}"
                    )
                ],
                id=f"resp_{tail}1",
            ),
            responses_reply(
                [message_item("Sunny in Paris.", id=f"msg_{tail}")], id=f"resp_{tail}2"
            ),
        )

    def agent(fake: Any) -> Agent:
        url = fake.base_url  # kept: replay runs with the server stopped

        def run(_: str) -> str:
            client = openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0)
            items: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
            first = client.responses.create(model="gpt-4.1-mini", input=items, tools=[tool])  # type: ignore[arg-type]
            call = first.output[0]
            items += [
                {
                    "type": "function_call",
                    "id": call.id,
                    "call_id": call.call_id,
                    "name": call.name,
                    "arguments": call.arguments,
                },  # type: ignore[union-attr]
                {"type": "function_call_output", "call_id": call.call_id, "output": "Sunny"},  # type: ignore[union-attr]
            ]
            second = client.responses.create(model="gpt-4.1-mini", input=items, tools=[tool])  # type: ignore[arg-type]
            return second.output_text

        return run

    return FakeOpenAIResponses, replies, agent


def _anthropic() -> tuple[Any, Replies, Callable[[Any], Agent]]:
    import anthropic

    from tests.fake_anthropic import FakeAnthropic, text_reply, tool_use_reply

    tool = {
        "name": "get_weather",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    }

    def replies(tail: str) -> tuple[Reply, Reply]:
        return tool_use_reply([(f"toolu_{tail}", "get_weather", {"city": "Paris"})]), text_reply(
            "Sunny in Paris."
        )

    def agent(fake: Any) -> Agent:
        url = fake.base_url  # kept: replay runs with the server stopped

        def run(_: str) -> str:
            client = anthropic.Anthropic(base_url=url, api_key="sk-ant-test", max_retries=0)
            messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
            first = client.messages.create(
                model="claude-sonnet-4-6", max_tokens=256, messages=messages, tools=[tool]
            )  # type: ignore[arg-type, list-item]
            block = first.content[0]
            messages += [
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": block.id,
                            "name": block.name,
                            "input": block.input,
                        }
                    ],
                },  # type: ignore[union-attr]
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": block.id, "content": "Sunny"}
                    ],
                },  # type: ignore[union-attr]
            ]
            second = client.messages.create(
                model="claude-sonnet-4-6", max_tokens=256, messages=messages, tools=[tool]
            )  # type: ignore[arg-type, list-item]
            return second.content[0].text  # type: ignore[union-attr]

        return run

    return FakeAnthropic, replies, agent


def _gemini() -> tuple[Any, Replies, Callable[[Any], Agent]]:
    from google import genai
    from google.genai import types

    from tests.fake_gemini import FakeGemini, function_call_reply, text_reply

    tool = types.Tool(
        function_declarations=[
            types.FunctionDeclaration(
                name="get_weather",
                parameters={"type": "OBJECT", "properties": {"city": {"type": "STRING"}}},
            )
        ]
    )  # type: ignore[arg-type]

    def replies(tail: str) -> tuple[Reply, Reply]:
        return (
            function_call_reply(
                [("get_weather", {"city": "Paris"}, f"fc-{tail}")], response_id=f"r1{tail}"
            ),
            text_reply("Sunny in Paris.", response_id=f"r2{tail}"),
        )

    def agent(fake: Any) -> Agent:
        url = fake.base_url  # kept: replay runs with the server stopped

        def run(_: str) -> str:
            client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=url))
            config = types.GenerateContentConfig(
                tools=[tool],
                automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            )
            contents: list[Any] = [
                types.Content(role="user", parts=[types.Part(text="Weather in Paris?")])
            ]
            first = client.models.generate_content(
                model="gemini-2.5-flash", contents=contents, config=config
            )
            call = (first.function_calls or [])[0]
            contents += [
                types.Content(role="model", parts=[types.Part(function_call=call)]),
                types.Content(
                    role="user",
                    parts=[
                        types.Part(
                            function_response=types.FunctionResponse(
                                id=call.id, name=call.name, response={"result": "Sunny"}
                            )
                        )
                    ],
                ),
            ]
            second = client.models.generate_content(
                model="gemini-2.5-flash", contents=contents, config=config
            )
            return second.text or ""

        return run

    return FakeGemini, replies, agent


def _mistral() -> tuple[Any, Replies, Callable[[Any], Agent]]:
    try:
        from mistralai.client import Mistral
    except ImportError:  # mistralai 1.x
        from mistralai import Mistral  # type: ignore[attr-defined,no-redef]

    from tests.fake_mistral import FakeMistral, text_reply, tool_calls_reply

    tool = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }

    def replies(tail: str) -> tuple[Reply, Reply]:
        return tool_calls_reply([(tail[:9], "get_weather", '{"city": "Paris"}')]), text_reply(
            "Sunny in Paris."
        )

    def agent(fake: Any) -> Agent:
        url = fake.base_url  # kept: replay runs with the server stopped

        def run(_: str) -> str:
            client = Mistral(api_key="test-key", server_url=url)
            messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
            first = client.chat.complete(
                model="mistral-small-latest", messages=messages, tools=[tool]
            )  # type: ignore[arg-type]
            call = (first.choices[0].message.tool_calls or [])[0]
            messages += [
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {
                                "name": call.function.name,
                                "arguments": call.function.arguments,
                            },
                        }
                    ],
                },
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "name": "get_weather",
                    "content": "Sunny",
                },
            ]
            second = client.chat.complete(
                model="mistral-small-latest", messages=messages, tools=[tool]
            )  # type: ignore[arg-type]
            return str(second.choices[0].message.content)

        return run

    return FakeMistral, replies, agent


def _cohere() -> tuple[Any, Replies, Callable[[Any], Agent]]:
    import cohere

    from tests.fake_cohere import FakeCohere, v2_chat_reply

    tool = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }

    def replies(tail: str) -> tuple[Reply, Reply]:
        return (
            v2_chat_reply(
                tool_calls=[(f"get_weather_{tail}", "get_weather", {"city": "Paris"})],
                tool_plan="I will look it up.",
            ),
            v2_chat_reply("Sunny in Paris."),
        )

    def agent(fake: Any) -> Agent:
        url = fake.base_url  # kept: replay runs with the server stopped

        def run(_: str) -> str:
            client = cohere.ClientV2(api_key="test-key", base_url=url)
            messages: list[dict[str, Any]] = [{"role": "user", "content": "Weather in Paris?"}]
            first = client.chat(model="command-a-03-2025", messages=messages, tools=[tool])  # type: ignore[arg-type]
            call = (first.message.tool_calls or [])[0]
            messages += [
                {
                    "role": "assistant",
                    "tool_plan": first.message.tool_plan,
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {
                                "name": call.function.name,
                                "arguments": call.function.arguments,
                            },
                        }
                    ],
                },  # type: ignore[union-attr]
                {"role": "tool", "tool_call_id": call.id, "content": "Sunny"},
            ]
            second = client.chat(model="command-a-03-2025", messages=messages, tools=[tool])  # type: ignore[arg-type]
            return second.message.content[0].text  # type: ignore[index, union-attr]

        return run

    return FakeCohere, replies, agent


PROVIDERS = {
    "openai_chat": _openai_chat,
    "openai_responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "mistral": _mistral,
    "cohere": _cohere,
    "groq": _groq,
}


@pytest.fixture(params=sorted(PROVIDERS))
def provider(
    request: pytest.FixtureRequest,
) -> Iterator[tuple[str, Any, Replies, Callable[[Any], Agent]]]:
    server_class, replies, agent = PROVIDERS[request.param]()
    with server_class() as fake:
        yield request.param, fake, replies, agent


def test_rerecording_with_fresh_ids_leaves_the_file_alone_and_replay_stays_consistent(
    provider: Any, tmp_path: Path, offline: Any
) -> None:
    label, fake, replies, make_agent = provider
    name = f"tests/test_agent.py::test_{label}"
    run = make_agent(fake)
    path = SnapshotStore(tmp_path).path_for(name)

    first_ids: list[str] = []
    for attempt in range(2):
        tail = secrets.token_hex(8)
        first_ids.append(tail)
        fake.script(*(fresh(r) for r in replies(tail)))
        with AgentRecorder(name, snapshot_dir=tmp_path) as recorder:
            answer = run(name)
        assert answer.startswith("Sunny in Paris")
        if attempt == 0:
            written = path.read_bytes()
        else:
            assert recorder.outcome.action == "unchanged", label
            assert path.read_bytes() == written, (
                f"{label}: re-recording with fresh ids rewrote the golden"
            )

    text = written.decode("utf-8")
    assert first_ids[0][:9] in text and first_ids[1][:9] not in text  # kept as first recorded
    # the requests fake saw on the second run answered the fresh id; the golden keeps the first one
    assert any(first_ids[1][:9] in json.dumps(r.body) for r in fake.requests)

    fake.stop()
    with offline(), AgentAsserter(name, snapshot_dir=tmp_path, mode="replay"):
        assert run(name).startswith("Sunny in Paris")
    last = SnapshotStore(tmp_path).load_last_run(name)
    assert last is not None and not [s for s in last.trace if s.get("request_drift")]


def test_an_output_that_quotes_a_fresh_id_is_re_recorded_unchanged(tmp_path: Path) -> None:
    """The agent's answer names the tool call it made ("… (call call_1a2b…)"): a re-recording
    whose only change is the provider's new ids keeps the golden's bytes; another answer, or the
    answer quoting an id the trace does not hold, is still a change."""
    import openai

    from tests.fake_provider import FakeOpenAI

    _server, replies, _agent = _openai_chat()
    name = "tests/test_agent.py::test_quotes_its_call"
    path = SnapshotStore(tmp_path).path_for(name)

    def record(tail: str, suffix: str = "") -> str:
        fake.script(fresh(replies(tail)[0]))  # the model asks for the tool
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        with AgentRecorder(name, snapshot_dir=tmp_path) as recorder:
            first = client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "Weather in Paris?"}]
            )
            call = (first.choices[0].message.tool_calls or [])[0]
            recorder.output = f"Sunny in Paris (asked by {call.id}{suffix})."
        assert recorder.outcome is not None
        return recorder.outcome.action

    def live(tail: str, suffix: str = "") -> tuple[str, list[str]]:
        """The same agent compared live (fresh ids again): its outcome and failed checks."""
        fake.script(fresh(replies(tail)[0]))
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        block = AgentAsserter(name, snapshot_dir=tmp_path, mode="live")
        try:
            with block:
                first = client.chat.completions.create(
                    model="gpt-4o-mini", messages=[{"role": "user", "content": "Weather in Paris?"}]
                )
                call = (first.choices[0].message.tool_calls or [])[0]
                block.output = f"Sunny in Paris (asked by {call.id}{suffix})."
        except AgentRegressionError as error:
            return "failed", error.diff_report.failed_checks
        assert block.outcome is not None and block.outcome.report is not None
        return block.outcome.action, block.outcome.report.failed_checks

    with FakeOpenAI() as fake:
        assert record(secrets.token_hex(8)) in ("created", "recorded")
        written = path.read_bytes()
        assert record(secrets.token_hex(8)) == "unchanged"
        assert path.read_bytes() == written
        # compared live, the answer with the new call's id is the same answer (as re-recording read it)
        assert live(secrets.token_hex(8)) == ("passed", [])
        action, failed = live(secrets.token_hex(8), suffix=" and call_elsewhere1")
        assert action == "failed" and "semantic:output" in failed
        assert record(secrets.token_hex(8), suffix=" and call_elsewhere1") != "unchanged"
        assert path.read_bytes() != written


def test_a_changed_tool_answer_is_still_a_change(tmp_path: Path) -> None:
    """Renaming ids consistently must not hide a change: a result now answering another call differs."""
    from agentsnap.storage.volatile import same_content

    def snap(answer_to: str) -> dict[str, Any]:
        return {
            "trace": [
                {
                    "type": "llm_call",
                    "tool_requests": [
                        {"id": "call_aaaaaa", "name": "f", "args": {}},
                        {"id": "call_bbbbbb", "name": "f", "args": {}},
                    ],
                },
                {"type": "tool_call", "name": "f", "args": {}, "result": "x", "id": answer_to},
            ]
        }

    assert same_content(
        snap("call_aaaaaa"), json.loads(json.dumps(snap("call_aaaaaa")).replace("aaaaaa", "zzzzzz"))
    )
    assert not same_content(snap("call_aaaaaa"), snap("call_bbbbbb"))
    # the agent's own ids (in tool arguments) are data, not provider ids
    a = {
        "trace": [
            {
                "type": "tool_call",
                "name": "book",
                "args": {"id": "booking-42"},
                "result": None,
                "id": "call_aaaaaa",
            }
        ]
    }
    b = {
        "trace": [
            {
                "type": "tool_call",
                "name": "book",
                "args": {"id": "booking-43"},
                "result": None,
                "id": "call_aaaaaa",
            }
        ]
    }
    assert not same_content(a, b)
    assert re.search(r"booking-4[23]", json.dumps(a))
