"""The lm15 hook (DSPy's raw-socket transport) in the core suite, where DSPy is
not installed: driven through a minimal client with lm15's seam
(``tests/lm15_shaped.py``), against the loopback fake, recorded, then replayed
with the server stopped. The same hook on DSPy's own transport:
``tests/test_transport_lm15.py``."""

from __future__ import annotations

import json

import pytest

from agentsnap.capture.cassette import Cassette
from agentsnap.capture.recording import Recording
from agentsnap.capture.transports import lm15 as hook
from agentsnap.exceptions import ReplayMissError
from tests import lm15_shaped
from tests import transport_kit as kit
from tests._support.offline import Offline
from tests.fake_provider import (
    FakeOpenAI,
    error_reply,
    stream_tool_calls_reply,
    text_reply,
)

hook.patch_sync(lm15_shaped)
hook.patch_sync(lm15_shaped)  # idempotent


def _call(url: str, body: bytes) -> tuple[lm15_shaped.TransportResponse, bytes]:
    # the SDK-shaped User-Agent replaces lm15/stdlib until recognition goes by wire shape (issue 12 item 1)
    transport = lm15_shaped.StdlibTransport(user_agent=kit.OPENAI_HEADERS["User-Agent"])
    headers = [(k, v) for k, v in kit.OPENAI_HEADERS.items() if k != "User-Agent"]
    with transport.stream(lm15_shaped.TransportRequest("POST", url, headers, body)) as resp:
        return resp, resp.read()


def test_the_seam_is_wrapped_once() -> None:
    assert getattr(lm15_shaped.StdlibTransport.__dict__["stream"], "__wrapped__", None) is not None
    assert not hasattr(lm15_shaped.StdlibTransport.__dict__["stream"].__wrapped__, "__wrapped__")


def test_raw_socket_json_stream_and_error_replay_offline(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(
        text_reply("Sunny."),
        stream_tool_calls_reply([("call_1", "get_weather", {"city": "Paris"})]),
        error_reply(429, message="Slow down."),
    )
    url = fake_openai.base_url + "/chat/completions"

    def run() -> list[tuple[lm15_shaped.TransportResponse, bytes]]:
        return [
            _call(url, kit.openai_body()),
            _call(url, kit.openai_body(stream=True)),
            _call(url, kit.openai_body("again")),
        ]

    live, steps = kit.record(run)
    fake_openai.stop()
    assert [s["provider"] for s in steps] == ["openai"] * 3
    assert steps[0]["response"] == "Sunny." and steps[1]["tool_requests"][0]["args"] == {
        "city": "Paris"
    }
    assert steps[1]["stream"] is True and steps[2]["status"] == 429

    with offline():
        again, rec = kit.replay(steps, run)
    assert all(type(r) is lm15_shaped.TransportResponse for r, _ in again)
    assert [r.status for r, _ in again] == [200, 200, 429] and again[0][0].reason == "OK"
    assert json.loads(again[0][1]) == json.loads(live[0][1])
    assert again[0][0].header("x-request-id") == live[0][0].header("x-request-id")
    assert again[1][1] == live[1][1]
    assert kit.openai_stream_result(again[1][1].decode())[1] == {0: '{"city":"Paris"}'}
    assert again[2][1] == live[2][1] and rec.misses == 0


def test_raw_socket_changed_request_is_a_replay_miss(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(text_reply("Sunny."))
    url = fake_openai.base_url + "/chat/completions"
    _, steps = kit.record(lambda: _call(url, kit.openai_body()))
    fake_openai.stop()
    with offline(), Recording("replay", cassette=Cassette(steps, strict=True)) as rec:
        with pytest.raises(ReplayMissError):
            _call(url, kit.openai_body("changed"))
    assert rec.misses == 1


def test_without_the_hook_a_raw_socket_client_is_invisible(fake_openai: FakeOpenAI) -> None:
    """What DSPy 3.4 did before this hook: nothing recorded (issue 12's empty snapshot)."""
    fake_openai.script(text_reply("unseen"))
    url = fake_openai.base_url + "/chat/completions"
    raw_stream = lm15_shaped.StdlibTransport.__dict__["stream"].__wrapped__
    transport = lm15_shaped.StdlibTransport(user_agent=kit.OPENAI_HEADERS["User-Agent"])
    with Recording("capture") as rec:
        with raw_stream(
            transport, lm15_shaped.TransportRequest("POST", url, [], kit.openai_body())
        ) as resp:
            assert json.loads(resp.read())["choices"][0]["message"]["content"] == "unseen"
    assert rec.trace.exchanges == []
