"""The standard library as a transport: ``urllib.request`` and ``http.client``
against the loopback fakes, recorded, then replayed with the server stopped.

Replay must hand back a genuine ``http.client.HTTPResponse`` (what urllib and
any ``http.client`` caller read), streaming included, and a request that was
not recorded must fail with ``ReplayMissError``, not a connection error.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
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
    stream_tool_calls_reply,
    text_reply,
)


def _urlopen(
    url: str, body: bytes, headers: dict[str, str]
) -> tuple[int, dict[str, str], bytes, type]:
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return (
                resp.status,
                {k.lower(): v for k, v in resp.headers.items()},
                resp.read(),
                type(resp),
            )
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read(), type(err)


def test_urllib_json_chat_records_then_replays_offline_as_a_real_http_response(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(text_reply("Sunny in Paris."))
    url = fake_openai.base_url + "/chat/completions"
    live, steps = kit.record(lambda: _urlopen(url, kit.openai_body(), kit.OPENAI_HEADERS))
    fake_openai.stop()

    assert live[0] == 200 and live[3] is http.client.HTTPResponse
    [step] = steps
    assert (step["type"], step["provider"], step["response"]) == (
        "llm_call",
        "openai",
        "Sunny in Paris.",
    )
    assert step["exchange"]["request"]["body"]["messages"] == [
        {"role": "user", "content": "Weather in Paris?"}
    ]

    with offline():
        again, rec = kit.replay(steps, lambda: _urlopen(url, kit.openai_body(), kit.OPENAI_HEADERS))
    assert again[3] is http.client.HTTPResponse
    assert again[0] == 200
    for name in ("content-type", "x-request-id"):
        assert again[1][name] == live[1][name]
    assert json.loads(again[2]) == json.loads(live[2])
    assert int(again[1]["content-length"]) == len(again[2])
    assert rec.misses == 0 and rec.trace.steps()[0]["response"] == "Sunny in Paris."


def test_urllib_streamed_tool_calls_replay_the_same_bytes_and_arguments(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(
        stream_tool_calls_reply(
            [
                ("call_A", "get_weather", {"city": "Paris"}),
                ("call_B", "get_time", {"tz": "Europe/Paris"}),
            ]
        )
    )
    url = fake_openai.base_url + "/chat/completions"
    body = kit.openai_body(stream=True)
    live, steps = kit.record(lambda: _urlopen(url, body, kit.OPENAI_HEADERS))
    fake_openai.stop()
    assert live[1]["content-type"].startswith("text/event-stream")
    assert kit.openai_stream_result(live[2].decode()) == (
        "",
        {0: '{"city":"Paris"}', 1: '{"tz":"Europe/Paris"}'},
    )
    assert steps[0]["stream"] is True and isinstance(
        steps[0]["exchange"]["response"]["chunks"], list
    )
    assert [c["args"] for c in steps[0]["tool_requests"]] == [
        {"city": "Paris"},
        {"tz": "Europe/Paris"},
    ]

    with offline():
        again, _ = kit.replay(steps, lambda: _urlopen(url, body, kit.OPENAI_HEADERS))
    assert (
        again[0] == 200 and again[2] == live[2]
    )  # a stream is stored as the text read: same bytes
    assert again[1]["content-type"] == live[1]["content-type"]


def _http_client_stream(port: int, body: bytes) -> tuple[int, list[bytes], Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/v1/messages", body, kit.ANTHROPIC_HEADERS)
        resp = conn.getresponse()
        lines = [line for line in resp]  # read line by line, as an SSE client does
        return resp.status, lines, resp
    finally:
        conn.close()


def test_http_client_anthropic_stream_read_line_by_line_replays_offline(offline: Offline) -> None:
    with fa.FakeAnthropic() as fake:
        fake.script(
            fa.stream_reply(
                fa.text_block("Sunny and mild."),
                fa.tool_use_block("toolu_1", "get_weather", {"city": "Paris"}),
            )
        )
        port = fake.port
        body = kit.anthropic_body(stream=True)
        (status, lines, _resp), steps = kit.record(lambda: _http_client_stream(port, body))
    assert status == 200
    text = b"".join(lines).decode()
    assert kit.anthropic_stream_result(text) == ("Sunny and mild.", {1: '{"city":"Paris"}'})
    assert steps[0]["provider"] == "anthropic" and steps[0]["tool_requests"][0]["args"] == {
        "city": "Paris"
    }

    with offline():
        (status2, lines2, resp2), _ = kit.replay(steps, lambda: _http_client_stream(port, body))
    assert type(resp2) is http.client.HTTPResponse and status2 == 200
    assert b"".join(lines2) == b"".join(lines)


def test_an_error_status_with_its_body_replays_as_the_same_http_error(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(error_reply(429, message="Slow down."))
    url = fake_openai.base_url + "/chat/completions"
    live, steps = kit.record(lambda: _urlopen(url, kit.openai_body(), kit.OPENAI_HEADERS))
    fake_openai.stop()
    assert live[0] == 429 and live[3] is urllib.error.HTTPError
    with offline():
        again, _ = kit.replay(steps, lambda: _urlopen(url, kit.openai_body(), kit.OPENAI_HEADERS))
    assert again[0] == 429 and again[3] is urllib.error.HTTPError
    assert again[2] == live[2]  # the openai spec keeps error bodies verbatim
    assert json.loads(again[2])["error"]["message"] == "Slow down."
    assert again[1]["retry-after"] == live[1]["retry-after"] == "0"


def test_a_changed_request_is_a_replay_miss_not_a_connection_error(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(text_reply("Sunny."))
    url = fake_openai.base_url + "/chat/completions"
    _, steps = kit.record(lambda: _urlopen(url, kit.openai_body(), kit.OPENAI_HEADERS))
    fake_openai.stop()
    # a strict cassette: the changed prompt is not served in the recorded call's place
    with offline(), Recording("replay", cassette=Cassette(steps, name="t", strict=True)) as rec:
        with pytest.raises(ReplayMissError, match="no recorded response"):
            _urlopen(url, kit.openai_body("Weather in Rome?"), kit.OPENAI_HEADERS)
    assert rec.misses == 1


def test_a_request_no_spec_recognises_passes_through_uncaptured(fake_openai: FakeOpenAI) -> None:
    """Not an LLM call by any rule (another path, a script's User-Agent): sent for real, not stored."""
    url = fake_openai.origin + "/v1/files"
    live, steps = kit.record(
        lambda: _urlopen(
            url,
            b'{"purpose": "none"}',
            {"Content-Type": "application/json", "User-Agent": "my-script/1"},
        )
    )
    assert (
        live[0] == 404 and "only serves" in json.loads(live[2])["error"]["message"]
    )  # the server answered
    assert steps == []


def test_the_hook_wraps_http_client_once() -> None:
    from agentsnap.capture.transports import stdlib

    stdlib.patch(http.client)
    stdlib.patch(http.client)

    def depth(func: Any) -> int:
        n = 0
        while hasattr(func, "__wrapped__"):
            n, func = n + 1, func.__wrapped__
        return n

    Recording("capture").start().stop()  # installs the hooks
    assert depth(http.client.HTTPConnection.__dict__["request"]) == 1
    assert depth(http.client.HTTPConnection.__dict__["getresponse"]) == 1
