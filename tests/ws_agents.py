"""Small agents that drive the unmodified SDKs over WebSocket: one text session with one tool call.

Each function takes where to connect, an API key and the user's text, declares one tool
``get_weather(city)`` (answered from ``weather``, a dict city -> text the test passes),
runs the session the way a user of the SDK would, and returns the assistant's final text.
Pure SDK usage, no agentsnap; point them at :class:`tests.fake_websocket.FakeWebSocketAPI`.

Where each SDK connects, given ``base_url``:

* openai ``client.realtime.connect(model=M)``: ``base_url`` with ``http`` -> ``ws``
  (``https`` -> ``wss``) + ``/realtime?model=M``; ``websocket_base_url`` replaces
  ``base_url`` when given.
* openai ``client.beta.realtime.connect(model=M)``: ``websocket_base_url`` +
  ``/realtime?model=M``, else ``base_url`` with its scheme forced to ``wss`` (so a
  plain-``ws`` server needs ``websocket_base_url``); adds ``OpenAI-Beta: realtime=v1``.
* openai ``client.responses.connect()`` / ``client.beta.responses.connect()``: like
  ``realtime.connect`` + ``/responses``.
* google-genai ``client.aio.live.connect``: ``HttpOptions.base_url`` with its scheme
  forced to ``wss`` + ``/ws/google.ai.generativelanguage.<api_version>.GenerativeService.BidiGenerateContent``.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Mapping
from typing import Any

__all__ = [
    "GEMINI_LIVE_MODEL",
    "REALTIME_MODEL",
    "RESPONSES_MODEL",
    "WEATHER",
    "gemini_live",
    "get_weather",
    "realtime_async",
    "realtime_beta_sync",
    "realtime_sync",
    "responses_ws_async",
    "responses_ws_sync",
]

REALTIME_MODEL = "gpt-realtime"
RESPONSES_MODEL = "gpt-4o-mini"
GEMINI_LIVE_MODEL = "gemini-live-2.5-flash-preview"
WEATHER: Mapping[str, str] = {"Paris": "sunny, 21C"}

_DESCRIPTION = "The current weather in a city."
_PARAMETERS = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "The city's name"}},
    "required": ["city"],
}


def get_weather(city: str, weather: Mapping[str, str] | None = None) -> str:
    """The tool: the weather of ``city`` from ``weather`` (default :data:`WEATHER`)."""
    return (WEATHER if weather is None else weather).get(city, f"no weather for {city}")


def _call(arguments: str, weather: Mapping[str, str] | None) -> str:
    return get_weather(json.loads(arguments)["city"], weather)


# --------------------------------------------------------------------------- OpenAI Realtime (GA)

_REALTIME_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": _DESCRIPTION,
    "parameters": _PARAMETERS,
}
_REALTIME_SESSION = {
    "type": "realtime",
    "output_modalities": ["text"],
    "tools": [_REALTIME_TOOL],
    "tool_choice": "auto",
}


def _user_item(user_text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": user_text}],
    }


async def realtime_async(
    base_url: str, api_key: str, user_text: str, *, weather: Mapping[str, str] | None = None
) -> str:
    """``AsyncOpenAI(...).realtime.connect``: tool call, its output, then the text answer."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0)
    async with client.realtime.connect(model=REALTIME_MODEL) as conn:
        await conn.session.update(session=_REALTIME_SESSION)
        await conn.conversation.item.create(item=_user_item(user_text))
        await conn.response.create()
        calls = []
        async for event in conn:
            if event.type == "response.done":
                calls = [i for i in event.response.output or [] if i.type == "function_call"]
                break
        for call in calls:
            output = _call(call.arguments or "{}", weather)
            await conn.conversation.item.create(
                item={
                    "type": "function_call_output",
                    "call_id": call.call_id or "",
                    "output": output,
                }
            )
        await conn.response.create()
        text = []
        async for event in conn:
            if event.type == "response.output_text.delta":
                text.append(event.delta)
            elif event.type == "response.done":
                break
    await client.close()
    return "".join(text)


def _sync_turns(conn: Any, user_text: str, weather: Mapping[str, str] | None, delta: str) -> str:
    """A sync Realtime connection's two turns: the tool call, its output, then the text
    answer (``delta``: the event type of a text piece, GA or beta)."""
    conn.conversation.item.create(item=_user_item(user_text))
    conn.response.create()
    calls = []
    for event in conn:
        if event.type == "response.done":
            calls = [i for i in event.response.output or [] if i.type == "function_call"]
            break
    for call in calls:
        output = _call(call.arguments or "{}", weather)
        conn.conversation.item.create(
            item={"type": "function_call_output", "call_id": call.call_id or "", "output": output}
        )
    conn.response.create()
    text = []
    for event in conn:
        if event.type == delta:
            text.append(event.delta)
        elif event.type == "response.done":
            break
    return "".join(text)


def realtime_sync(
    base_url: str, api_key: str, user_text: str, *, weather: Mapping[str, str] | None = None
) -> str:
    """``OpenAI(...).realtime.connect``: the same session as :func:`realtime_async`."""
    from openai import OpenAI

    with OpenAI(base_url=base_url, api_key=api_key, max_retries=0) as client:
        with client.realtime.connect(model=REALTIME_MODEL) as conn:
            conn.session.update(session=_REALTIME_SESSION)
            return _sync_turns(conn, user_text, weather, "response.output_text.delta")


def realtime_beta_sync(
    websocket_base_url: str,
    api_key: str,
    user_text: str,
    *,
    weather: Mapping[str, str] | None = None,
) -> str:
    """``OpenAI(...).beta.realtime.connect`` (the beta dialect: ``response.text.delta``).

    Takes the ``ws://`` URL: the beta connection forces ``wss`` onto ``base_url``.
    """
    from openai import OpenAI

    base_url = websocket_base_url.replace("ws://", "http://", 1).replace("wss://", "https://", 1)
    with OpenAI(
        base_url=base_url, websocket_base_url=websocket_base_url, api_key=api_key, max_retries=0
    ) as client:
        with client.beta.realtime.connect(model=REALTIME_MODEL) as conn:
            conn.session.update(
                session={
                    "modalities": ["text"],
                    "tools": [_REALTIME_TOOL],
                    "tool_choice": "auto",
                }
            )
            return _sync_turns(conn, user_text, weather, "response.text.delta")


# --------------------------------------------------------------------------- Responses API over WebSocket

_RESPONSES_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": _DESCRIPTION,
    "parameters": _PARAMETERS,
    "strict": False,
}


async def responses_ws_async(
    base_url: str, api_key: str, user_text: str, *, weather: Mapping[str, str] | None = None
) -> str:
    """``AsyncOpenAI(...).responses.connect()``: the tool turn continues with ``previous_response_id``."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0)
    async with client.responses.connect() as conn:
        await conn.response.create(model=RESPONSES_MODEL, input=user_text, tools=[_RESPONSES_TOOL])
        first = None
        async for event in conn:
            if event.type == "response.completed":
                first = event.response
                break
        assert first is not None
        outputs: list[Any] = [
            {
                "type": "function_call_output",
                "call_id": item.call_id,
                "output": _call(item.arguments, weather),
            }
            for item in first.output
            if item.type == "function_call"
        ]
        await conn.response.create(
            model=RESPONSES_MODEL,
            previous_response_id=first.id,
            input=outputs,
            tools=[_RESPONSES_TOOL],
        )
        text = []
        async for event in conn:
            if event.type == "response.output_text.delta":
                text.append(event.delta)
            elif event.type == "response.completed":
                break
    await client.close()
    return "".join(text)


def responses_ws_sync(
    base_url: str,
    api_key: str,
    user_text: str,
    *,
    weather: Mapping[str, str] | None = None,
    beta: bool = False,
) -> str:
    """``OpenAI(...).responses.connect()`` (``beta``: ``client.beta.responses.connect()``).

    The tool turn resends the whole conversation (input + the call + its output), no
    ``previous_response_id``.
    """
    from openai import OpenAI

    with OpenAI(base_url=base_url, api_key=api_key, max_retries=0) as client:
        resource: Any = client.beta.responses if beta else client.responses
        with resource.connect() as conn:
            history: list[Any] = [{"role": "user", "content": user_text}]
            conn.response.create(
                model=RESPONSES_MODEL, input=history, tools=[_RESPONSES_TOOL], store=False
            )
            first = None
            for event in conn:
                if event.type == "response.completed":
                    first = event.response
                    break
            assert first is not None
            for item in first.output:
                if item.type == "function_call":
                    history.append(
                        {
                            "type": "function_call",
                            "call_id": item.call_id,
                            "name": item.name,
                            "arguments": item.arguments,
                        }
                    )
                    history.append(
                        {
                            "type": "function_call_output",
                            "call_id": item.call_id,
                            "output": _call(item.arguments, weather),
                        }
                    )
            conn.response.create(
                model=RESPONSES_MODEL, input=history, tools=[_RESPONSES_TOOL], store=False
            )
            text = []
            for event in conn:
                if event.type == "response.output_text.delta":
                    text.append(event.delta)
                elif event.type == "response.completed":
                    break
    return "".join(text)


# --------------------------------------------------------------------------- Gemini Live


async def gemini_live(
    base_url: str,
    api_key: str,
    user_text: str,
    *,
    weather: Mapping[str, str] | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> str:
    """google-genai ``client.aio.live.connect``: toolCall -> send_tool_response -> text until turn_complete.

    google-genai connects with ``wss`` whatever ``base_url`` says; ``ssl_context``
    (``HttpOptions.async_client_args["ssl"]``) is how it trusts a test server.
    """
    from google import genai
    from google.genai import types

    http_options = types.HttpOptions(
        base_url=base_url,
        async_client_args={"ssl": ssl_context} if ssl_context is not None else None,
    )
    client = genai.Client(api_key=api_key, http_options=http_options)
    config = types.LiveConnectConfig(
        response_modalities=[types.Modality.TEXT],
        tools=[
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(
                        name="get_weather",
                        description=_DESCRIPTION,
                        parameters_json_schema=_PARAMETERS,
                    )
                ]
            )
        ],
    )
    text = []
    async with client.aio.live.connect(model=GEMINI_LIVE_MODEL, config=config) as session:
        await session.send_client_content(
            turns=types.Content(role="user", parts=[types.Part(text=user_text)]), turn_complete=True
        )
        calls: list[types.FunctionCall] = []
        async for message in session.receive():
            if message.tool_call is not None:
                calls = list(message.tool_call.function_calls or [])
                break
            if message.text:
                text.append(message.text)
        if calls:
            await session.send_tool_response(
                function_responses=[
                    types.FunctionResponse(
                        id=call.id,
                        name=call.name,
                        response={
                            "result": get_weather(str((call.args or {}).get("city")), weather)
                        },
                    )
                    for call in calls
                ]
            )
            async for message in session.receive():
                if message.text:
                    text.append(message.text)
    return "".join(text)
