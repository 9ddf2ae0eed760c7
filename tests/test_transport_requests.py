"""``requests`` (and plain urllib3) as a transport, against the loopback fakes:
recorded at urllib3's ``HTTPConnectionPool.urlopen``, replayed with the server
stopped as a genuine ``requests.Response`` that requests built itself around
a genuine ``urllib3.HTTPResponse``, streaming (``iter_lines``) included.
"""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

requests = pytest.importorskip("requests")
urllib3 = pytest.importorskip("urllib3")

from agentsnap.adapters import OpenAIAdapter
from agentsnap.capture.cassette import Cassette
from agentsnap.capture.recording import Recording
from agentsnap.capture.scope import AdapterScope
from agentsnap.exceptions import AdapterNotWrappedError, ReplayMissError
from tests import fake_anthropic as fa
from tests import transport_kit as kit
from tests._support.offline import Offline
from tests.fake_provider import (
    FakeOpenAI,
    error_reply,
    stream_text_reply,
    stream_tool_calls_reply,
    text_reply,
)


def _post(url: str, body: bytes, headers: dict[str, str], *, stream: bool = False) -> Any:
    with requests.Session() as session:
        resp = session.post(url, data=body, headers=headers, stream=stream, timeout=10)
        if stream:
            resp.lines = [line for line in resp.iter_lines(decode_unicode=True)]
        return resp


def test_requests_json_chat_replays_offline_as_a_real_requests_response(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(text_reply("Sunny in Paris."))
    url = fake_openai.base_url + "/chat/completions"
    live, steps = kit.record(lambda: _post(url, kit.openai_body(), kit.OPENAI_HEADERS))
    fake_openai.stop()
    assert (
        live.status_code == 200
        and live.json()["choices"][0]["message"]["content"] == "Sunny in Paris."
    )
    [step] = steps
    assert (step["provider"], step["response"], step["stream"]) == (
        "openai",
        "Sunny in Paris.",
        False,
    )

    with offline():
        again, rec = kit.replay(steps, lambda: _post(url, kit.openai_body(), kit.OPENAI_HEADERS))
    assert type(again) is requests.Response
    assert (
        type(again.raw) is urllib3.HTTPResponse
        and type(again.raw._original_response) is http.client.HTTPResponse
    )
    assert again.status_code == 200 and again.reason == "OK" and again.url == url
    assert again.json() == live.json()
    for name in ("content-type", "x-request-id"):
        assert again.headers[name] == live.headers[name]
    assert rec.misses == 0


def test_requests_streamed_tool_calls_iter_lines_replay_the_same_lines(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(stream_tool_calls_reply([("call_A", "get_weather", {"city": "Paris"})]))
    url = fake_openai.base_url + "/chat/completions"
    body = kit.openai_body(stream=True)
    live, steps = kit.record(lambda: _post(url, body, kit.OPENAI_HEADERS, stream=True))
    fake_openai.stop()
    text = "\n".join(live.lines)
    assert kit.openai_stream_result(text) == ("", {0: '{"city":"Paris"}'})
    assert steps[0]["stream"] is True and steps[0]["tool_requests"][0]["args"] == {"city": "Paris"}

    with offline():
        again, _ = kit.replay(steps, lambda: _post(url, body, kit.OPENAI_HEADERS, stream=True))
    assert type(again) is requests.Response and again.lines == live.lines
    assert again.headers["content-type"] == live.headers["content-type"]


def test_requests_anthropic_stream_and_error_status_replay_offline(offline: Offline) -> None:
    with fa.FakeAnthropic() as fake:
        fake.script(
            fa.stream_reply(fa.text_block("Mild.")), fa.error_reply(529, message="Overloaded.")
        )
        url = fake.origin + "/v1/messages"

        def run() -> list[Any]:
            return [
                _post(url, kit.anthropic_body(stream=True), kit.ANTHROPIC_HEADERS, stream=True),
                _post(url, kit.anthropic_body("again"), kit.ANTHROPIC_HEADERS),
            ]

        live, steps = kit.record(run)
    assert kit.anthropic_stream_result("\n".join(live[0].lines)) == ("Mild.", {})
    assert live[1].status_code == 529
    with offline():
        again, _ = kit.replay(steps, run)
    assert again[0].lines == live[0].lines
    assert again[1].status_code == 529 and again[1].json() == live[1].json()
    assert again[1].json()["error"]["message"] == "Overloaded."
    with pytest.raises(requests.HTTPError):
        again[1].raise_for_status()


def test_plain_urllib3_preloaded_and_error_status(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(error_reply(400, message="Bad tools."), stream_text_reply(["a", "b"]))
    url = fake_openai.base_url + "/chat/completions"

    def run() -> list[Any]:
        with urllib3.PoolManager() as pool:
            first = pool.request("POST", url, body=kit.openai_body(), headers=kit.OPENAI_HEADERS)
            second = pool.request(
                "POST", url, body=kit.openai_body(stream=True), headers=kit.OPENAI_HEADERS
            )
            return [first, second]

    live, steps = kit.record(run)
    fake_openai.stop()
    with offline():
        again, _ = kit.replay(steps, run)
    assert [r.status for r in again] == [400, 200]
    assert again[0].data == live[0].data  # the openai spec keeps error bodies verbatim
    assert json.loads(again[0].data)["error"]["message"] == "Bad tools."
    assert (
        again[1].data == live[1].data
        and kit.openai_stream_result(again[1].data.decode())[0] == "ab"
    )


def test_requests_changed_request_is_a_replay_miss_not_a_connection_error(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(text_reply("Sunny."))
    url = fake_openai.base_url + "/chat/completions"
    _, steps = kit.record(lambda: _post(url, kit.openai_body(), kit.OPENAI_HEADERS))
    fake_openai.stop()
    with offline(), Recording("replay", cassette=Cassette(steps, name="t", strict=True)) as rec:
        with pytest.raises(ReplayMissError, match="no recorded response"):
            _post(url, kit.openai_body("Weather in Rome?"), kit.OPENAI_HEADERS)
    assert rec.misses == 1


def test_a_requests_call_is_captured_once_not_again_by_http_client(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(text_reply("once"))
    url = fake_openai.base_url + "/chat/completions"
    with Recording("capture") as rec:
        _post(url, kit.openai_body(), kit.OPENAI_HEADERS)
    assert len(rec.trace.exchanges) == 1


def test_a_stream_closed_early_is_recorded_incomplete_and_replays_its_start(
    fake_openai: FakeOpenAI, offline: Offline
) -> None:
    fake_openai.script(stream_text_reply(["one ", "two ", "three ", "four"]))
    url = fake_openai.base_url + "/chat/completions"

    def run() -> list[str]:
        with requests.post(
            url,
            data=kit.openai_body(stream=True),
            headers=kit.OPENAI_HEADERS,
            stream=True,
            timeout=5,
        ) as resp:
            lines = []
            for line in resp.iter_lines(decode_unicode=True):
                if line:
                    lines.append(line)
                if len(lines) == 2:
                    break
            return lines

    with Recording("capture") as rec:
        live = run()
    [exchange] = rec.trace.exchanges
    assert exchange.complete is False and len(live) == 2
    fake_openai.stop()
    with offline():
        again, _ = kit.replay(rec.trace.steps(), run)
    assert again == live


@pytest.mark.parametrize("via", ["requests", "urllib.request"])
def test_a_recording_given_adapters_refuses_a_request_another_transport_sends(
    fake_openai: FakeOpenAI, via: str
) -> None:
    """The adapter-scope check is in the shared path, so it holds for every transport, not
    only httpx: an OpenAI-shaped request sent with requests (urllib3) or urllib.request
    (http.client) by no wrapped client is refused inside a scoped recording, and nothing
    reaches the server."""
    import urllib.request

    import openai

    fake_openai.script(text_reply("never sent"))
    url = fake_openai.base_url + "/chat/completions"
    wrapped = OpenAIAdapter(openai.OpenAI(api_key="sk-test", base_url=fake_openai.base_url))

    def send() -> Any:
        if via == "requests":
            return _post(url, kit.openai_body(), kit.OPENAI_HEADERS)
        req = urllib.request.Request(url, data=kit.openai_body(), headers=kit.OPENAI_HEADERS)
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.read()

    with Recording("capture") as rec:
        rec.adapter_scope = scope = AdapterScope([wrapped], owner="AgentRecorder('scoped')")
        with pytest.raises(AdapterNotWrappedError) as info:
            send()
    message = str(info.value)
    assert "sent POST /v1/chat/completions inside AgentRecorder('scoped')" in message
    assert "OpenAIAdapter(client)" in message and "Nothing was sent." in message
    assert scope.violations == [message]
    assert fake_openai.requests == [] and rec.trace.exchanges == []

    with Recording("capture") as rec:  # the same call outside a scoped recording is recorded
        send()
    assert len(rec.trace.exchanges) == 1 and len(fake_openai.requests) == 1
