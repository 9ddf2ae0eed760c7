"""aiohttp as a transport (litellm's and google-genai's async paths), against
the loopback fakes: recorded at ``ClientSession._request``, replayed with the
server stopped as a genuine ``aiohttp.ClientResponse`` whose ``content`` is a
genuine ``StreamReader``, streaming included.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp")

from agentsnap.capture.cassette import Cassette
from agentsnap.capture.recording import Recording
from agentsnap.exceptions import ReplayMissError
from tests import fake_anthropic as fa
from tests import transport_kit as kit
from tests._support.offline import Offline
from tests.fake_provider import (
    FakeOpenAI,
    error_reply,
    stream_tool_calls_reply,
    text_reply,
)


async def _post(
    url: str,
    *,
    json_body: Any = None,
    data: bytes | None = None,
    headers: dict[str, str],
    lines: bool = False,
) -> dict[str, Any]:
    async with aiohttp.ClientSession() as session:
        async with session.post(url, json=json_body, data=data, headers=headers) as resp:
            out: dict[str, Any] = {
                "cls": type(resp),
                "content_cls": type(resp.content),
                "status": resp.status,
                "headers": {k.lower(): v for k, v in resp.headers.items()},
            }
            if lines:
                out["lines"] = [
                    line async for line in resp.content
                ]  # line iteration, as SSE clients do
            else:
                out["body"] = await resp.read()
                out["json"] = await resp.json(content_type=None)
            return out


def test_aiohttp_json_chat_replays_offline_as_a_real_client_response(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(text_reply("Sunny in Paris."))
    url = fake_openai.base_url + "/chat/completions"
    payload = json.loads(kit.openai_body())
    headers = {k: v for k, v in kit.OPENAI_HEADERS.items() if k != "Content-Type"}
    live, steps = kit.record(lambda: asyncio.run(_post(url, json_body=payload, headers=headers)))
    fake_openai.stop()
    assert (
        live["status"] == 200
        and live["json"]["choices"][0]["message"]["content"] == "Sunny in Paris."
    )
    [step] = steps
    assert (step["provider"], step["response"]) == ("openai", "Sunny in Paris.")
    assert step["exchange"]["request"]["body"] == payload

    with offline():
        again, rec = kit.replay(
            steps, lambda: asyncio.run(_post(url, json_body=payload, headers=headers))
        )
    assert again["cls"] is aiohttp.ClientResponse and again["content_cls"] is aiohttp.StreamReader
    assert again["status"] == 200 and again["json"] == live["json"]
    for name in ("content-type", "x-request-id"):
        assert again["headers"][name] == live["headers"][name]
    assert rec.misses == 0


def test_aiohttp_streamed_tool_calls_replay_the_same_lines(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(
        stream_tool_calls_reply(
            [("call_A", "get_weather", {"city": "Paris"}), ("call_B", "get_time", {"tz": "UTC"})]
        )
    )
    url = fake_openai.base_url + "/chat/completions"
    body = kit.openai_body(stream=True)

    def run() -> dict[str, Any]:
        return asyncio.run(_post(url, data=body, headers=kit.OPENAI_HEADERS, lines=True))

    live, steps = kit.record(run)
    fake_openai.stop()
    text = b"".join(live["lines"]).decode()
    assert kit.openai_stream_result(text) == ("", {0: '{"city":"Paris"}', 1: '{"tz":"UTC"}'})
    assert steps[0]["stream"] is True and [c["args"] for c in steps[0]["tool_requests"]] == [
        {"city": "Paris"},
        {"tz": "UTC"},
    ]

    with offline():
        again, _ = kit.replay(steps, run)
    assert again["cls"] is aiohttp.ClientResponse
    assert b"".join(again["lines"]) == b"".join(live["lines"])
    assert again["headers"]["content-type"] == live["headers"]["content-type"]


def test_aiohttp_anthropic_stream_and_error_status_replay_offline(offline: Offline) -> None:
    with fa.FakeAnthropic() as fake:
        fake.script(
            fa.stream_reply(fa.text_block("Mild and dry.")),
            fa.error_reply(400, message="Bad request."),
        )
        url = fake.origin + "/v1/messages"

        async def run() -> list[dict[str, Any]]:
            return [
                await _post(
                    url,
                    data=kit.anthropic_body(stream=True),
                    headers=kit.ANTHROPIC_HEADERS,
                    lines=True,
                ),
                await _post(url, data=kit.anthropic_body("x"), headers=kit.ANTHROPIC_HEADERS),
            ]

        live, steps = kit.record(lambda: asyncio.run(run()))
    assert kit.anthropic_stream_result(b"".join(live[0]["lines"]).decode()) == ("Mild and dry.", {})
    assert live[1]["status"] == 400
    with offline():
        again, _ = kit.replay(steps, lambda: asyncio.run(run()))
    assert b"".join(again[0]["lines"]) == b"".join(live[0]["lines"])
    assert again[1]["status"] == 400 and again[1]["json"] == live[1]["json"]
    assert again[1]["json"]["error"]["message"] == "Bad request."


def test_aiohttp_raise_for_status_session_raises_the_same_error_in_replay(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(error_reply(429, message="Slow down."))
    url = fake_openai.base_url + "/chat/completions"

    async def run() -> tuple[int, str]:
        async with aiohttp.ClientSession(raise_for_status=True) as session:
            try:
                async with session.post(url, data=kit.openai_body(), headers=kit.OPENAI_HEADERS):
                    return 0, ""
            except aiohttp.ClientResponseError as err:
                return err.status, type(err).__name__

    live, steps = kit.record(lambda: asyncio.run(run()))
    fake_openai.stop()
    assert live == (429, "ClientResponseError")
    with offline():
        again, _ = kit.replay(steps, lambda: asyncio.run(run()))
    assert again == live


def test_aiohttp_changed_request_is_a_replay_miss_not_a_connection_error(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(text_reply("Sunny."))
    url = fake_openai.base_url + "/chat/completions"
    _, steps = kit.record(
        lambda: asyncio.run(_post(url, data=kit.openai_body(), headers=kit.OPENAI_HEADERS))
    )
    fake_openai.stop()
    with offline(), Recording("replay", cassette=Cassette(steps, name="t", strict=True)) as rec:
        with pytest.raises(ReplayMissError, match="no recorded response"):
            asyncio.run(
                _post(url, data=kit.openai_body("Weather in Rome?"), headers=kit.OPENAI_HEADERS)
            )
    assert rec.misses == 1


def test_httpx_over_an_aiohttp_transport_is_captured_once(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    """litellm sends httpx requests through an aiohttp-backed httpx transport: the
    httpx hook captures the call, the aiohttp hook under it lets it pass."""
    import httpx

    class AiohttpTransport(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            async with aiohttp.ClientSession() as session:
                headers = [
                    (k, v)
                    for k, v in request.headers.items()
                    if k not in ("host", "content-length")
                ]
                async with session.request(
                    request.method, str(request.url), headers=headers, data=request.content
                ) as resp:
                    body = await resp.read()
                    return httpx.Response(
                        resp.status, headers=list(resp.headers.items()), content=body
                    )

    fake_openai.script(text_reply("once"))
    url = fake_openai.base_url + "/chat/completions"

    async def run() -> Any:
        async with httpx.AsyncClient(transport=AiohttpTransport()) as client:
            return (
                await client.post(url, content=kit.openai_body(), headers=kit.OPENAI_HEADERS)
            ).json()

    with Recording("capture") as rec:
        live = asyncio.run(run())
    assert live["choices"][0]["message"]["content"] == "once"
    assert len(rec.trace.exchanges) == 1
    fake_openai.stop()
    with offline():
        again, _ = kit.replay(rec.trace.steps(), lambda: asyncio.run(run()))
    assert again == live


def test_google_genai_async_over_aiohttp_records_and_replays(
    offline: Offline, monkeypatch: pytest.MonkeyPatch
) -> None:
    """google-genai's own async path (aiohttp ``session.request``, lines read off
    ``response.content``), recorded and replayed through the aiohttp hook."""
    genai = pytest.importorskip("google.genai")
    import ssl

    from agentsnap.capture.transports import aiohttp as hook
    from tests.fake_gemini import MODEL, FakeGemini
    from tests.fake_gemini import stream_text_reply as gemini_stream
    from tests.fake_gemini import text_reply as gemini_text

    served = []
    real_replayed = hook._replayed
    monkeypatch.setattr(
        hook, "_replayed", lambda *a: served.append(a[1].url.path) or real_replayed(*a)
    )
    tls = ssl.create_default_context()

    def run(base: str) -> tuple[str, str]:
        client = genai.Client(
            api_key="k-test",
            http_options=genai.types.HttpOptions(base_url=base, async_client_args={"ssl": tls}),
        )
        # no httpx fallback: the SDK stays on aiohttp while recording (capture/quirks/google_genai.py)
        client._api_client._async_httpx_client = None

        async def main() -> tuple[str, str]:
            first = await client.aio.models.generate_content(model=MODEL, contents="hi")
            pieces = [
                c.text
                async for c in await client.aio.models.generate_content_stream(
                    model=MODEL, contents="more"
                )
            ]
            return first.text, "".join(pieces)

        return asyncio.run(main())

    with FakeGemini() as fake:
        fake.script(gemini_text("Sunny."), gemini_stream(["Mild ", "and ", "dry."]))
        base = fake.base_url
        live, steps = kit.record(lambda: run(base))
    assert live == ("Sunny.", "Mild and dry.")
    assert [(s["provider"], s["stream"]) for s in steps] == [
        ("google-genai", False),
        ("google-genai", True),
    ]
    with offline():
        again, rec = kit.replay(steps, lambda: run(base))
    assert again == live and rec.misses == 0
    assert len(served) == 2 and served[1].endswith(":streamGenerateContent")
