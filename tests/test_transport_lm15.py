"""DSPy 3.4's bundled transport (``dspy._vendor.lm15.transports``: HTTP/1.1
over raw sockets, User-Agent ``lm15/stdlib``), driven the way DSPy's providers
drive it (``transport.stream(TransportRequest)``, iterate the body, sync and
async) against the loopback fakes, recorded, then replayed with the server
stopped: replay returns lm15's own ``TransportResponse`` classes.

Runs where DSPy is installed (the ``frameworks`` environment); the real
framework tests (``dspy.Predict`` / ``ReAct``) live with the other frameworks.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agentsnap.capture.cassette import Cassette
from agentsnap.capture.recording import Recording
from agentsnap.exceptions import ReplayMissError
from tests import fake_anthropic as fa
from tests import transport_kit as kit
from tests._support.offline import Offline
from tests.fake_provider import (
    FakeOpenAI,
    error_reply,
    stream_text_reply,
    tool_calls_reply,
)

lm15 = pytest.importorskip("dspy._vendor.lm15.transports", reason="DSPy is not installed")


def _call(url: str, body: bytes, headers: dict[str, str]) -> tuple[Any, bytes]:
    # DSPy's providers build the headers themselves; the transport adds "User-Agent: lm15/stdlib"
    hdrs = [(k, v) for k, v in headers.items() if k.lower() != "user-agent"]
    with lm15.StdlibTransport() as transport:
        with transport.stream(
            lm15.TransportRequest(method="POST", url=url, headers=hdrs, body=body)
        ) as resp:
            return resp, resp.read()


async def _acall(url: str, body: bytes, headers: dict[str, str]) -> tuple[Any, bytes]:
    async with lm15.StdlibAsyncTransport() as transport:
        async with transport.stream(
            lm15.TransportRequest(method="POST", url=url, headers=list(headers.items()), body=body)
        ) as resp:
            return resp, await resp.read()


@pytest.fixture
def lm15_is_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    """Until recognition goes by wire shape (issue 12 item 1), lm15's User-Agent is
    recognised as the openai spec's for this test."""
    from agentsnap.spec import provider_specs as spec

    openai = next(s for s in spec.load_specs() if s.name == "openai")
    # raising=False: once classify recognises by wire shape it may not use _spec_for, and needs no help
    monkeypatch.setattr(
        spec,
        "_spec_for",
        lambda ua, host: openai if ua.startswith(("lm15/", "OpenAI/")) else None,
        raising=False,
    )


def test_lm15_sync_json_and_stream_replay_offline_as_lm15_responses(
    fake_openai: FakeOpenAI, offline: Offline, lm15_is_openai: None
) -> None:
    fake_openai.script(
        tool_calls_reply([("call_1", "get_weather", {"city": "Paris"})]),
        stream_text_reply(["Sun", "ny."]),
    )
    url = fake_openai.base_url + "/chat/completions"

    def run() -> list[tuple[Any, bytes]]:
        return [
            _call(url, kit.openai_body(), kit.OPENAI_HEADERS),
            _call(url, kit.openai_body(stream=True), kit.OPENAI_HEADERS),
        ]

    live, steps = kit.record(run)
    fake_openai.stop()
    assert [s["provider"] for s in steps] == ["openai", "openai"]
    assert (
        steps[0]["tool_requests"][0]["args"] == {"city": "Paris"}
        and steps[1]["response"] == "Sunny."
    )

    with offline():
        again, _ = kit.replay(steps, run)
    (resp, body), (_sresp, sbody) = again
    assert type(resp) is lm15.TransportResponse and resp.status == 200 and resp.reason == "OK"
    assert json.loads(body) == json.loads(live[0][1])
    assert resp.header("x-request-id") == live[0][0].header("x-request-id")
    assert sbody == live[1][1] and kit.openai_stream_result(sbody.decode())[0] == "Sunny."


def test_lm15_async_anthropic_stream_and_error_replay_offline(offline: Offline) -> None:
    with fa.FakeAnthropic() as fake:
        fake.script(
            fa.stream_reply(fa.tool_use_block("toolu_1", "get_weather", {"city": "Paris"})),
            fa.error_reply(400, message="bad"),
        )
        url = fake.origin + "/v1/messages"

        async def run() -> list[tuple[Any, bytes]]:
            return [
                await _acall(url, kit.anthropic_body(stream=True), kit.ANTHROPIC_HEADERS),
                await _acall(url, kit.anthropic_body("x"), kit.ANTHROPIC_HEADERS),
            ]

        live, steps = kit.record(lambda: asyncio.run(run()))
    assert live[1][0].status == 400
    with offline():
        again, _ = kit.replay(steps, lambda: asyncio.run(run()))
    assert type(again[0][0]) is lm15.AsyncTransportResponse
    assert kit.anthropic_stream_result(again[0][1].decode()) == ("", {0: '{"city":"Paris"}'})
    assert again[0][1] == live[0][1]
    assert again[1][0].status == 400 and json.loads(again[1][1])["error"]["message"] == "bad"


def test_lm15_changed_request_is_a_replay_miss(
    fake_openai: FakeOpenAI, offline: Offline, lm15_is_openai: None
) -> None:
    fake_openai.script(error_reply(429))
    url = fake_openai.base_url + "/chat/completions"
    _, steps = kit.record(lambda: _call(url, kit.openai_body(), kit.OPENAI_HEADERS))
    fake_openai.stop()
    with offline(), Recording("replay", cassette=Cassette(steps, strict=True)):
        with pytest.raises(ReplayMissError):
            _call(url, kit.openai_body("changed"), kit.OPENAI_HEADERS)
