"""The model the framework tests talk to: one deterministic "weather agent" brain
served in four wire formats (OpenAI chat completions, the OpenAI Responses API,
Anthropic Messages, Gemini) by the loopback fakes of ``tests/``.

Stdlib and ``tests.fake_*`` only (no agentsnap import): the projects the
framework tests build import it from their conftest, exactly as a user's
project would import its own fake server.

The brain, whatever the framework:

* the city is the first of :data:`WEATHER` named in the user's text (Paris when none);
* a ``transfer_to_*`` tool (an OpenAI Agents SDK handoff) not called yet is called first;
* then ``get_weather(city=...)`` when the request offers it and no result came back yet (an MCP
  server's ``get_forecast``, whatever prefix a framework gives it, is called the same way);
* a forced tool (``tool_choice`` naming a function: instructor) or an output tool
  (``final_result*``: pydantic-ai) is called with ``{"city", "forecast"}``;
* otherwise the answer is ``"<city>: <the last tool result>"`` (``"<city>: <forecast>"``
  with no tool), sent as a ``final_answer`` call when the request offers that tool
  (smolagents), else as text;
* a DSPy request (its system message describes the ``[[ ## completed ## ]]`` format) is
  answered in that format: the fields its last message asks for (ReAct's
  ``next_tool_name`` / ``next_tool_args``, then ``reasoning`` / ``answer``).

Tool results are read from the wire: ``role: "tool"`` messages, smolagents'
``Observation:`` user messages, ``function_call_output`` items, ``tool_result``
blocks, Gemini ``functionResponse`` parts. A request with ``"stream": true`` (Gemini:
a ``:streamGenerateContent`` path) gets the same answer streamed.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Iterator
from typing import Any

from tests import fake_anthropic as fa
from tests import fake_gemini as fg
from tests import fake_openai_extra as fx
from tests import fake_provider as fo

__all__ = [
    "WEATHER",
    "FakeGeminiModel",
    "FakeServers",
    "anthropic_model",
    "chat_model",
    "city_of",
    "gemini_model",
    "responses_model",
    "start",
]

WEATHER = {"Paris": "Light rain, 18°C", "Tokyo": "Sunny, 24°C", "Oslo": "Snow, -3°C"}
DEAD = "http://127.0.0.1:9"  # the discard port: nothing listens there


def city_of(text: str) -> str:
    """The first city of :data:`WEATHER` named in ``text`` (Paris when none is)."""
    found = [(text.find(c), c) for c in WEATHER if c in text]
    return min(found)[1] if found else "Paris"


def _text(content: Any) -> str:
    """The text of a message's content: a string, or the text of its parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            _text(p.get("text", p.get("content", ""))) if isinstance(p, dict) else str(p)
            for p in content
        )
    return "" if content is None else str(content)


def _weather_tool(tools: list[str]) -> str | None:
    """The weather tool offered: ``get_weather`` (``Weather-get_weather`` as a Semantic Kernel
    plugin's function), or the MCP server's ``get_forecast`` under whatever prefix a framework
    gives it (``weather_get_forecast``, ``weather.get_forecast``)."""
    return next(
        (n for n in tools if n.endswith(("get_forecast", "-get_weather")) or n == "get_weather"),
        None,
    )


def _decide(
    tools: list[str], forced: str | None, user_text: str, done: dict[str, str]
) -> tuple[str, Any]:
    """``("call", (name, args))`` or ``("text", answer)`` for one model turn."""
    city = city_of(user_text)
    slug = city.lower()
    report = {"city": city, "forecast": WEATHER[city]}
    if forced:
        return "call", (f"call_{forced.lower()}_{slug}", forced, report)
    for name in tools:
        if name.startswith("transfer_to_") and name not in done:
            return "call", (f"call_transfer_{slug}", name, {})
    weather_tool = _weather_tool(tools)
    if weather_tool and weather_tool not in done:
        return "call", (f"call_weather_{slug}", weather_tool, {"city": city})
    output_tool = next((n for n in tools if n.startswith("final_result")), None)
    if output_tool:
        return "call", (f"call_output_{slug}", output_tool, report)
    result = done.get(weather_tool or "get_weather", done.get("get_weather"))
    answer = f"{city}: {result}" if result is not None else f"{city}: {WEATHER[city]}"
    if "final_answer" in tools:
        return "call", (f"call_final_{slug}", "final_answer", {"answer": answer})
    return "text", answer


def _words(text: str) -> list[str]:
    return re.findall(r"\S+\s*", text) or [text]


# --------------------------------------------------------------------------- OpenAI chat completions


_FIELD = re.compile(r"`\[\[ ## (\w+) ## \]\]`")


def _dspy(messages: list[dict[str, Any]]) -> str:
    """The answer in DSPy's ChatAdapter format: the output fields the last user message asks
    for, each as ``[[ ## name ## ]]\nvalue``; ReAct's ``next_tool_*`` pick ``get_weather`` until its
    observation is in the trajectory, then ``finish``."""
    last = _text(messages[-1].get("content"))
    city = city_of(last)
    observed = re.search(r"\[\[ ## observation_\d+ ## \]\]\n(.*?)\n\n", last, re.DOTALL)
    values = {
        "next_thought": "I look the weather up." if not observed else "I have what I need.",
        "next_tool_name": "finish" if observed else "get_weather",
        "next_tool_args": "{}" if observed else json.dumps({"city": city}),
        "reasoning": "The weather tool answered." if observed else "I know the weather.",
        "answer": f"{city}: {observed.group(1) if observed else WEATHER[city]}",
    }
    asked = _FIELD.findall(last.rsplit("Respond with", 1)[-1])
    fields = [f for f in asked if f != "completed"]
    return (
        "".join(f"[[ ## {f} ## ]]\n{values.get(f, '')}\n\n" for f in fields)
        + "[[ ## completed ## ]]"
    )


def chat_model(body: dict[str, Any]) -> fo.Reply:
    """The brain over ``POST /v1/chat/completions``."""
    messages = body.get("messages") or []
    if messages and "[[ ## completed ## ]]" in _text(messages[0].get("content")):
        return fo.text_reply(_dspy(messages), usage=(60, 9))
    tools = [t["function"]["name"] for t in body.get("tools") or [] if t.get("type") == "function"]
    choice = body.get("tool_choice")
    forced = (
        choice["function"]["name"] if isinstance(choice, dict) and choice.get("function") else None
    )
    user_texts = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
    user_text = " ".join(t for t in user_texts if not t.startswith("Observation:"))
    names = {c["id"]: c["function"]["name"] for m in messages for c in m.get("tool_calls") or ()}
    done: dict[str, str] = {}
    for m in messages:
        if m.get("role") == "tool":
            done[names.get(m.get("tool_call_id"), "get_weather")] = _text(m.get("content"))
        elif m.get("role") == "user" and _text(m.get("content")).startswith("Observation:"):
            done["get_weather"] = _text(m.get("content")).removeprefix("Observation:").strip()
    kind, value = _decide(tools, forced, user_text, done)
    stream = body.get("stream") is True
    if kind == "call":
        if stream:
            return fo.stream_tool_calls_reply([value], usage=(40, 12))
        return fo.tool_calls_reply([value], usage=(40, 12))
    if stream:
        return fo.stream_text_reply(_words(value), usage=(60, 9))
    return fo.text_reply(value, usage=(60, 9))


# --------------------------------------------------------------------------- OpenAI Responses


def responses_model(body: dict[str, Any]) -> fo.Reply:
    """The brain over ``POST /v1/responses`` (the OpenAI Agents SDK's default)."""
    items = body.get("input")
    items = [{"role": "user", "content": items}] if isinstance(items, str) else list(items or [])
    tools = [t.get("name") for t in body.get("tools") or [] if t.get("type") == "function"]
    user_text = " ".join(_text(i.get("content")) for i in items if i.get("role") == "user")
    names = {i["call_id"]: i["name"] for i in items if i.get("type") == "function_call"}
    done = {
        names.get(i["call_id"], "?"): _text(i.get("output"))
        for i in items
        if i.get("type") == "function_call_output"
    }
    kind, value = _decide(tools, None, user_text, done)
    if kind == "call":
        call_id, name, args = value
        output = [fx.function_call_item(call_id, name, args)]
    else:
        output = [fx.message_item(value, id=f"msg_{city_of(user_text).lower()}_{len(done)}")]
    rid = f"resp_{len(items)}_{len(done)}"
    if body.get("stream") is True:
        return fx.responses_stream_reply(output, id=rid)
    return fx.responses_reply(output, id=rid)


# --------------------------------------------------------------------------- Anthropic Messages


def anthropic_model(body: dict[str, Any]) -> fo.Reply:
    """The brain over ``POST /v1/messages``."""
    messages = body.get("messages") or []
    tools = [t["name"] for t in body.get("tools") or [] if "name" in t]
    choice = body.get("tool_choice") or {}
    forced = choice.get("name") if choice.get("type") == "tool" else None
    user_text = ""
    names: dict[str, str] = {}
    done: dict[str, str] = {}
    for m in messages:
        content = m.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        for b in blocks:
            if b.get("type") == "tool_use":
                names[b["id"]] = b["name"]
            elif b.get("type") == "tool_result":
                done[names.get(b["tool_use_id"], "get_weather")] = _text(b.get("content"))
            elif b.get("type") == "text" and m.get("role") == "user":
                user_text += " " + b.get("text", "")
    kind, value = _decide(tools, forced, user_text, done)
    blocks_out = [fa.tool_use_block(*value)] if kind == "call" else [fa.text_block(value)]
    if body.get("stream") is True:
        return fa.stream_reply(*blocks_out, usage=(40, 12))
    return fa.message_reply(*blocks_out, usage=(40, 12))


# --------------------------------------------------------------------------- Gemini


def _result_text(value: Any) -> str:
    """The first string inside a ``functionResponse.response`` (frameworks nest it differently)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return next((t for t in map(_result_text, value) if t), "")
    return ""


def gemini_model(body: dict[str, Any], *, stream: bool) -> fo.Reply:
    """The brain over Gemini's ``:generateContent`` / ``:streamGenerateContent``. A
    function call goes out without an id (the field is optional), as Gemini sends it."""
    tools = [
        d["name"] for t in body.get("tools") or [] for d in t.get("functionDeclarations") or []
    ]
    user_text = ""
    done: dict[str, str] = {}
    for content in body.get("contents") or []:
        for part in content.get("parts") or []:
            if "text" in part and content.get("role") == "user":
                user_text += " " + part["text"]
            answer = part.get("functionResponse")
            if isinstance(answer, dict):
                done[answer.get("name") or "get_weather"] = _result_text(answer.get("response"))
    kind, value = _decide(tools, None, user_text, done)
    reply = (
        fg.function_call_reply([(value[1], value[2], None)])
        if kind == "call"
        else fg.text_reply(value)
    )
    return fg.stream_reply([reply.body]) if stream else reply


class FakeGeminiModel(fg.FakeGemini):
    """The fake Gemini API answering with :func:`gemini_model`, streamed when the path asks."""

    def __init__(self) -> None:
        super().__init__()
        self._streaming = threading.local()  # the request being answered, per handler thread
        self.respond_with(lambda body: gemini_model(body, stream=self._streaming.on))

    def _handle(self, request: fo.RecordedRequest) -> tuple[fo.Reply, str]:
        self._streaming.on = self.wants_stream(request)
        return super()._handle(request)


# --------------------------------------------------------------------------- the servers


class FakeServers:
    """Base URLs of the three fakes (all :data:`DEAD` when none is running)."""

    def __init__(
        self,
        chat: str = DEAD + "/v1",
        responses: str = DEAD + "/v1",
        anthropic: str = DEAD,
        gemini: str = DEAD + "/",
    ) -> None:
        self.chat = chat
        self.responses = responses
        self.anthropic = anthropic
        self.gemini = gemini
        self.requests: dict[str, Any] = {}


@contextlib.contextmanager
def start(running: bool) -> Iterator[FakeServers]:
    """The three fakes started (``running``) or dead URLs (a replay run starts nothing)."""
    if not running:
        yield FakeServers()
        return
    chat = fo.FakeOpenAI().respond_with(chat_model)
    responses = fx.FakeOpenAIResponses().respond_with(responses_model)
    anthropic = fa.FakeAnthropic().respond_with(anthropic_model)
    gemini = FakeGeminiModel()
    with chat, responses, anthropic, gemini:
        servers = FakeServers(
            chat.base_url, responses.base_url, anthropic.base_url, gemini.base_url
        )
        servers.requests = {
            "chat": chat,
            "responses": responses,
            "anthropic": anthropic,
            "gemini": gemini,
        }
        yield servers


def dump(value: Any) -> Any:
    """A JSON-able view of a result for comparing a record run with its replay."""
    return json.loads(json.dumps(value, default=lambda o: f"<{type(o).__name__}> {o!r}"))
