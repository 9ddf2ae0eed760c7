"""``extract_tool_calls``: real SDK response objects (from the loopback fake providers), LangChain messages, dicts.

Every SDK object here is what the real SDK built from a real HTTP answer, so
the test proves the extraction reads each SDK's own models, not a hand-made
imitation of them.
"""

from __future__ import annotations

import json

import pytest

from agentsnap import extract_tool_calls
from agentsnap.extract import ExtractionError

WEATHER = {"city": "Paris", "unit": "C"}
TIME = {"tz": "Europe/Paris"}
EXPECTED = [{"tool": "get_weather", "args": WEATHER}, {"tool": "get_time", "args": TIME}]


def without_ids(calls: list[dict]) -> list[dict]:
    return [{k: v for k, v in c.items() if k != "id"} for c in calls]


def test_openai_chat_completion_with_parallel_calls() -> None:
    openai = pytest.importorskip("openai")
    from tests.fake_provider import FakeOpenAI, tool_calls_reply

    with FakeOpenAI() as fake:
        fake.script(
            tool_calls_reply([("call_A", "get_weather", WEATHER), ("call_B", "get_time", TIME)])
        )
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        response = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
        )
    assert type(response).__name__ == "ChatCompletion"
    assert extract_tool_calls(response) == [
        {"tool": "get_weather", "args": WEATHER, "id": "call_A"},
        {"tool": "get_time", "args": TIME, "id": "call_B"},
    ]
    # the same body as plain JSON gives the same calls
    assert extract_tool_calls(json.loads(response.model_dump_json())) == extract_tool_calls(
        response
    )


def test_openai_text_answer_has_no_calls() -> None:
    openai = pytest.importorskip("openai")
    from tests.fake_provider import FakeOpenAI, text_reply

    with FakeOpenAI() as fake:
        fake.script(text_reply("It is sunny."))
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        response = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
        )
    assert extract_tool_calls(response) == []


def test_openai_responses_api_function_calls() -> None:
    openai = pytest.importorskip("openai")
    if not hasattr(openai.OpenAI(api_key="x"), "responses"):
        pytest.skip("the Responses API appeared in openai 1.66")
    from tests.fake_openai_extra import (
        FakeOpenAIResponses,
        function_call_item,
        message_item,
        responses_reply,
    )

    with FakeOpenAIResponses() as fake:
        fake.script(
            responses_reply(
                [
                    message_item("Checking."),
                    function_call_item("call_1", "get_weather", WEATHER),
                    function_call_item("call_2", "get_time", TIME),
                ]
            )
        )
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        response = client.responses.create(model="gpt-4o-mini", input="hi")
    assert type(response).__name__ == "Response"
    assert extract_tool_calls(response) == [
        {"tool": "get_weather", "args": WEATHER, "id": "call_1"},
        {"tool": "get_time", "args": TIME, "id": "call_2"},
    ]


def test_anthropic_message_tool_use_blocks() -> None:
    anthropic = pytest.importorskip("anthropic")
    from tests.fake_anthropic import FakeAnthropic, tool_use_reply

    with FakeAnthropic() as fake:
        fake.script(
            tool_use_reply(
                [("toolu_A", "get_weather", WEATHER), ("toolu_B", "get_time", TIME)],
                text="Let me check.",
            )
        )
        client = anthropic.Anthropic(base_url=fake.base_url, api_key="sk-ant-test", max_retries=0)
        message = client.messages.create(
            model="claude-x", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
        )
    assert type(message).__name__ == "Message"
    assert extract_tool_calls(message) == [
        {"tool": "get_weather", "args": WEATHER, "id": "toolu_A"},
        {"tool": "get_time", "args": TIME, "id": "toolu_B"},
    ]


def test_groq_chat_completion() -> None:
    groq = pytest.importorskip("groq")
    from tests.fake_openai_extra import FakeGroq, groq_reply

    with FakeGroq() as fake:
        fake.script(groq_reply(None, tool_calls=[("call_g", "get_weather", WEATHER)]))
        client = groq.Groq(base_url=fake.origin, api_key="gsk-test", max_retries=0)
        response = client.chat.completions.create(
            model="llama", messages=[{"role": "user", "content": "hi"}]
        )
    assert without_ids(extract_tool_calls(response)) == [{"tool": "get_weather", "args": WEATHER}]


def test_google_genai_function_calls_and_automatic_function_calling() -> None:
    genai = pytest.importorskip("google.genai")
    from google.genai import types

    from tests.fake_gemini import FakeGemini, function_call_reply, text_reply

    ran: list[str] = []

    def get_weather(city: str, unit: str) -> str:
        """Current weather in a city."""
        ran.append(city)
        return f"sunny in {city}"

    with FakeGemini() as fake:
        fake.script(
            function_call_reply([("get_weather", WEATHER, None), ("get_time", TIME, None)]),
            function_call_reply([("get_weather", {"city": "Berlin", "unit": "C"}, None)]),
            text_reply("Sunny in Berlin."),
        )
        client = genai.Client(
            api_key="g-test", http_options=types.HttpOptions(base_url=fake.base_url)
        )
        direct = client.models.generate_content(model="gemini-2.5-flash", contents="hi")
        config = types.GenerateContentConfig(tools=[get_weather])
        afc = client.models.generate_content(
            model="gemini-2.5-flash", contents="Weather in Berlin?", config=config
        )
    assert type(direct).__name__ == "GenerateContentResponse"
    assert extract_tool_calls(direct) == EXPECTED
    # automatic function calling: the SDK ran the call itself; the final answer has no call left,
    # the call is in automatic_function_calling_history
    assert ran == ["Berlin"]
    assert afc.function_calls is None
    assert extract_tool_calls(afc) == [
        {"tool": "get_weather", "args": {"city": "Berlin", "unit": "C"}}
    ]


def test_mistral_chat_response() -> None:
    pytest.importorskip("mistralai.client")
    from mistralai.client import Mistral

    from tests.fake_mistral import FakeMistral, tool_calls_reply

    with FakeMistral() as fake:
        # mistral may send arguments as an object instead of a JSON string
        fake.script(
            tool_calls_reply([("c1", "get_weather", json.dumps(WEATHER)), ("c2", "get_time", TIME)])
        )
        client = Mistral(api_key="m-test", server_url=fake.origin)
        response = client.chat.complete(
            model="mistral-small", messages=[{"role": "user", "content": "hi"}]
        )
    assert type(response).__name__ == "ChatCompletionResponse"
    assert without_ids(extract_tool_calls(response)) == EXPECTED


def test_cohere_v2_and_v1_responses() -> None:
    cohere = pytest.importorskip("cohere")
    from tests.fake_cohere import FakeCohere, v1_chat_reply, v2_chat_reply

    with FakeCohere() as fake:
        fake.script(
            v2_chat_reply(
                tool_calls=[("c1", "get_weather", WEATHER), ("c2", "get_time", TIME)],
                tool_plan="I will check.",
            ),
            v1_chat_reply(tool_calls=[("get_weather", WEATHER)]),
        )
        v2 = cohere.ClientV2(api_key="co-test", base_url=fake.base_url).chat(
            model="command-r", messages=[{"role": "user", "content": "hi"}]
        )
        v1 = cohere.Client(api_key="co-test", base_url=fake.base_url).chat(message="hi")
    assert type(v2).__name__ == "V2ChatResponse"
    assert without_ids(extract_tool_calls(v2)) == EXPECTED
    assert without_ids(extract_tool_calls(v1)) == [{"tool": "get_weather", "args": WEATHER}]


def test_langgraph_state_of_langchain_messages_pairs_results() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    state = {
        "messages": [
            messages.HumanMessage("Weather and time in Paris?"),
            messages.AIMessage(
                "",
                tool_calls=[
                    {"name": "get_weather", "args": WEATHER, "id": "call_A"},
                    {"name": "get_time", "args": TIME, "id": "call_B"},
                ],
            ),
            messages.ToolMessage("sunny", tool_call_id="call_A"),
            messages.ToolMessage("14:00", tool_call_id="call_B"),
            messages.AIMessage("Sunny, 14:00."),
        ]
    }
    assert extract_tool_calls(state) == [
        {"tool": "get_weather", "args": WEATHER, "id": "call_A", "result": "sunny"},
        {"tool": "get_time", "args": TIME, "id": "call_B", "result": "14:00"},
    ]
    assert extract_tool_calls(state["messages"]) == extract_tool_calls(state)


def test_openai_and_anthropic_message_dicts() -> None:
    openai_style = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": json.dumps(WEATHER)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    assert extract_tool_calls(openai_style) == [
        {"tool": "get_weather", "args": WEATHER, "id": "c1", "result": "sunny"}
    ]
    anthropic_style = [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "checking"},
                {"type": "tool_use", "id": "t1", "name": "get_time", "input": TIME},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "14:00"}],
        },
    ]
    assert extract_tool_calls(anthropic_style) == [
        {"tool": "get_time", "args": TIME, "id": "t1", "result": "14:00"}
    ]


def test_list_of_tool_dicts_is_kept_and_copied() -> None:
    given = [
        {"tool": "get_weather", "args": WEATHER},
        {"tool": "get_time", "args": json.dumps(TIME)},
        {"tool": "ping"},
    ]
    assert extract_tool_calls(given) == [
        {"tool": "get_weather", "args": WEATHER},
        {"tool": "get_time", "args": TIME},
        {"tool": "ping", "args": {}},
    ]
    assert extract_tool_calls([]) == []


@pytest.mark.parametrize(
    ("actual", "message"),
    [
        (42, r"cannot read tool calls from actual \(int\)"),
        ("get_weather", r"cannot read tool calls from actual \(str\)"),
        ([{"tool": "ok", "args": {}}, object()], r"actual\[1\] \(object\)"),
        ({"foo": 1, "bar": 2}, r"a mapping with keys bar, foo"),
    ],
)
def test_unknown_shapes_raise_naming_the_path(actual: object, message: str) -> None:
    with pytest.raises(ExtractionError, match=message) as info:
        extract_tool_calls(actual)
    assert isinstance(info.value, TypeError)
    assert "list of {'tool': name, 'args': {...}} dicts" in str(info.value)


def test_empty_tool_name_is_refused() -> None:
    with pytest.raises(
        ExtractionError, match=r"actual\[1\]\['tool'\] must be a non-empty string, got ''"
    ):
        extract_tool_calls([{"tool": "ok"}, {"tool": "", "args": {}}])


def test_openai_stream_chunks_are_reassembled() -> None:
    openai = pytest.importorskip("openai")
    from tests.fake_provider import FakeOpenAI, stream_tool_calls_reply

    with FakeOpenAI() as fake:
        fake.script(
            stream_tool_calls_reply(
                [("call_A", "get_weather", WEATHER), ("call_B", "get_time", TIME)]
            )
        )
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        chunks = list(
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], stream=True
            )
        )
    assert len(chunks) > 4 and type(chunks[0]).__name__ == "ChatCompletionChunk"
    assert extract_tool_calls(chunks) == [
        {"tool": "get_weather", "args": WEATHER, "id": "call_A"},
        {"tool": "get_time", "args": TIME, "id": "call_B"},
    ]


def test_anthropic_stream_events_are_reassembled() -> None:
    anthropic = pytest.importorskip("anthropic")
    from tests.fake_anthropic import FakeAnthropic, stream_reply, tool_use_block

    with FakeAnthropic() as fake:
        fake.script(stream_reply(tool_use_block("toolu_A", "get_weather", WEATHER)))
        client = anthropic.Anthropic(base_url=fake.base_url, api_key="sk-ant-test", max_retries=0)
        events = list(
            client.messages.create(
                model="claude-x",
                max_tokens=100,
                messages=[{"role": "user", "content": "hi"}],
                stream=True,
            )
        )
    assert extract_tool_calls(events) == [{"tool": "get_weather", "args": WEATHER, "id": "toolu_A"}]


def test_langchain_message_chunks_are_merged() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    chunks = [
        messages.AIMessageChunk(
            "",
            tool_call_chunks=[
                {"name": "get_weather", "args": '{"city": "Pa', "id": "call_A", "index": 0}
            ],
        ),
        messages.AIMessageChunk(
            "",
            tool_call_chunks=[{"name": None, "args": 'ris", "unit": "C"}', "id": None, "index": 0}],
        ),
    ]
    assert extract_tool_calls(chunks) == [{"tool": "get_weather", "args": WEATHER, "id": "call_A"}]


def test_a_call_without_a_tool_name_is_refused() -> None:
    with pytest.raises(ExtractionError, match="tool call 0 found in actual has no tool name"):
        extract_tool_calls(
            [{"role": "assistant", "tool_calls": [{"id": "c1", "function": {"arguments": "{}"}}]}]
        )


def test_a_value_that_contains_itself_is_refused() -> None:
    loop: list = [{"tool": "a", "args": {}}]
    loop.append(loop)
    with pytest.raises(ExtractionError, match=r"actual\[1\] contains itself"):
        extract_tool_calls(loop)


def test_no_module_has_an_invalid_escape_sequence() -> None:
    """`\\ ` in a docstring is a SyntaxWarning on Python 3.12+ (a DeprecationWarning before)."""
    import warnings
    from pathlib import Path

    import agentsnap

    root = Path(agentsnap.__file__).parent
    for path in sorted(root.rglob("*.py")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")


def test_responses_api_items_as_the_agents_sdk_lists_them() -> None:
    """``RunResult.to_input_list()`` of the OpenAI Agents SDK: Responses API items (tests/frameworks
    reads a real RunResult); a hosted tool's item and a reasoning item carry no function call."""
    from agentsnap import extract_tool_calls

    items = [
        {"role": "user", "content": "Weather in Paris?"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
            "call_id": "c1",
            "id": "fc_1",
        },
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "function_call_output", "call_id": "c1", "output": "rain"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Paris: rain"}],
        },
    ]
    assert extract_tool_calls(items) == [
        {"tool": "get_weather", "args": {"city": "Paris"}, "id": "c1", "result": "rain"}
    ]
