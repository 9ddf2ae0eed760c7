"""Re-recording an unchanged agent leaves its golden's bytes alone (issue 24 section 2).

Real SDKs over the loopback fakes, streams that carry several kinds of provider ids
(a response id and tool-call ids), fresh ids on every recording: the second
``--agentsnap-record``-style save must not rewrite the file, and a real change must.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentsnap import AgentRecorder, SnapshotStore
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

from tests import fake_anthropic as fa
from tests import fake_provider as fp

QUESTION = [{"role": "user", "content": "Weather in Paris and Rome?"}]


def _record_twice(
    tmp_path: Path, name: str, run: Callable[[], Any], then: Callable[[], Any] | None = None
) -> tuple[bytes, bytes]:
    path = SnapshotStore(tmp_path).path_for(name)
    with AgentRecorder(name, snapshot_dir=tmp_path):
        run()
    first = path.read_bytes()
    with AgentRecorder(name, snapshot_dir=tmp_path):
        (then or run)()
    return first, path.read_bytes()


def _call_id() -> str:
    return "call_" + secrets.token_urlsafe(18).replace("-", "x").replace("_", "y")


def _toolu_id() -> str:
    return "toolu_01" + secrets.token_urlsafe(16).replace("-", "x").replace("_", "y")


def _openai_stream_agent(city: str = "Rome") -> Callable[[], Any]:
    def run() -> Any:
        with fp.FakeOpenAI() as fake:
            fake.script(
                fp.stream_tool_calls_reply(
                    [
                        (_call_id(), "get_weather", {"city": "Paris"}),
                        (_call_id(), "get_weather", {"city": city}),
                    ]
                )
            )
            client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
            stream = client.chat.completions.create(
                model="gpt-4o-mini",
                messages=QUESTION,
                tools=[{"type": "function", "function": {"name": "get_weather"}}],
                stream=True,
                stream_options={"include_usage": True},
            )
            return [chunk.id for chunk in stream]

    return run


def test_openai_chat_stream_with_tool_calls_is_byte_stable(tmp_path: Path) -> None:
    first, second = _record_twice(tmp_path, "oa_stream", _openai_stream_agent())
    assert second == first
    assert b"call_" in first and b"<id" not in first  # the file keeps the real ids
    _, changed = _record_twice(
        tmp_path, "oa_stream", _openai_stream_agent(), then=_openai_stream_agent("Milan")
    )
    assert changed != first and b"Milan" in changed


def _anthropic_stream_agent(city: str = "Rome", thinking: bool = False) -> Callable[[], Any]:
    def run() -> Any:
        with fa.FakeAnthropic() as fake:
            blocks = [
                fa.tool_use_block(_toolu_id(), "get_weather", {"city": "Paris"}),
                fa.tool_use_block(_toolu_id(), "get_weather", {"city": city}),
            ]
            if thinking:
                blocks.insert(
                    0,
                    fa.thinking_block("Two cities: two calls.", "EqQBCkYIBxgCKkD" + "x" * 40),
                )
            fake.script(fa.stream_reply(*blocks))
            client = anthropic.Anthropic(
                base_url=fake.base_url, api_key="sk-ant-test", max_retries=0
            )
            with client.messages.stream(
                model="claude-sonnet-4-6", max_tokens=256, messages=QUESTION
            ) as stream:
                return stream.get_final_message().id

    return run


@pytest.mark.parametrize("thinking", [False, True], ids=["tool_use", "thinking"])
def test_anthropic_stream_with_tool_use_is_byte_stable(tmp_path: Path, thinking: bool) -> None:
    first, second = _record_twice(tmp_path, "an_stream", _anthropic_stream_agent(thinking=thinking))
    assert second == first
    _, changed = _record_twice(
        tmp_path,
        "an_stream",
        _anthropic_stream_agent(thinking=thinking),
        then=_anthropic_stream_agent("Milan", thinking=thinking),
    )
    assert changed != first and b"Milan" in changed


class _ResponsesServer:
    """POST /v1/responses answered with a streamed Response carrying fresh ids on every
    call (resp_…, fc_…, call_…, msg_…), gzip-encoded when asked: real traffic's shapes."""

    def __init__(self, city: str, gzipped: bool) -> None:
        import gzip
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        from tests.fake_openai_extra import (
            function_call_item,
            message_item,
            responses_stream_events,
        )

        def body() -> bytes:
            token = secrets.token_hex(12)
            output = [
                message_item("Checking both.", id=f"msg_{token}a"),
                function_call_item(_call_id(), "get_weather", {"city": "Paris"}, id=f"fc_{token}1"),
                function_call_item(_call_id(), "get_weather", {"city": city}, id=f"fc_{token}2"),
            ]
            text = "".join(responses_stream_events(output, id=f"resp_{token}"))
            return gzip.compress(text.encode()) if gzipped else text.encode()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                data = body()
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                if gzipped:
                    self.send_header("content-encoding", "gzip")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _responses_agent(gzipped: bool, city: str = "Rome") -> Callable[[], Any]:
    def run() -> Any:
        with _ResponsesServer(city, gzipped) as base:
            client = openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0)
            stream = client.responses.create(
                model="gpt-4.1-mini", input="Weather in Paris and Rome?", stream=True
            )
            return [event.type for event in stream]

    return run


@pytest.mark.parametrize("gzipped", [False, True], ids=["plain", "gzip"])
def test_responses_stream_with_function_calls_is_byte_stable(tmp_path: Path, gzipped: bool) -> None:
    first, second = _record_twice(tmp_path, "resp_stream", _responses_agent(gzipped))
    assert second == first
    _, changed = _record_twice(
        tmp_path,
        "resp_stream",
        _responses_agent(gzipped),
        then=_responses_agent(gzipped, "Milan"),
    )
    assert changed != first and (b"Milan" in changed or gzipped)


def _openai_loop_agent(city: str = "Rome") -> Callable[[], Any]:
    """A non-streamed tool loop: the answer carries a fresh ``chatcmpl-…`` id and two fresh
    ``call_…`` ids, and the follow-up request sends them back (``tool_call_id``)."""

    def run() -> Any:
        with fp.FakeOpenAI() as fake:
            asked = fp.tool_calls_reply(
                [
                    (_call_id(), "get_weather", {"city": "Paris"}),
                    (_call_id(), "get_weather", {"city": city}),
                ]
            )
            asked.body["id"] = "chatcmpl-" + secrets.token_urlsafe(21)
            fake.script(asked, fp.text_reply("Sunny in both."))
            client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
            tools = [{"type": "function", "function": {"name": "get_weather"}}]
            first = client.chat.completions.create(
                model="gpt-4o-mini", messages=QUESTION, tools=tools
            )
            message = first.choices[0].message
            follow_up = [
                *QUESTION,
                message.model_dump(exclude_none=True),
                *(
                    {"role": "tool", "tool_call_id": call.id, "content": "sunny"}
                    for call in message.tool_calls or []
                ),
            ]
            final = client.chat.completions.create(
                model="gpt-4o-mini", messages=follow_up, tools=tools
            )
            return final.choices[0].message.content

    return run


def test_openai_chat_tool_loop_not_streamed_is_byte_stable(tmp_path: Path) -> None:
    first, second = _record_twice(tmp_path, "oa_loop", _openai_loop_agent())
    assert second == first
    assert b"chatcmpl-" in first and b"tool_call_id" in first
    _, changed = _record_twice(
        tmp_path, "oa_loop", _openai_loop_agent(), then=_openai_loop_agent("Milan")
    )
    assert changed != first and b"Milan" in changed
