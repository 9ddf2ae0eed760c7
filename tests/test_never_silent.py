"""Never silent: LLM-looking traffic that was not captured gets a warning, and a
record run that saw HTTP requests but wrote no snapshot says so.

The unhooked path is a real one: an "agent" that speaks HTTP/1.1 to the fake
OpenAI server over a plain ``socket`` (the way DSPy's bundled ``lm15`` client
does), so no hooked library ever sees the request.
"""

from __future__ import annotations

import json
import socket
import warnings
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from agentsnap import AgentAsserter, AgentRecorder, AgentsnapWarning, ReplayMissError
from agentsnap.capture import observe
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture
from tests.fake_provider import FakeOpenAI, text_reply

pytest_plugins = ["pytester"]

MESSAGES = [{"role": "user", "content": "Weather in Paris?"}]


def raw_socket_chat(
    origin: str, body: dict[str, Any], *, method: str = "POST", path: str = "/v1/chat/completions"
) -> dict[str, Any]:
    """One HTTP/1.1 exchange over a plain socket (no HTTP library at all)."""
    host, port = origin.removeprefix("http://").split(":")
    payload = json.dumps(body).encode()
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: lm15/stdlib\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head)
        sock.sendall(payload)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    assert status_line.split()[1] in (b"200", b"404"), status_line
    _, _, content = rest.partition(b"\r\n\r\n")
    return json.loads(content) if content else {}


def not_captured(caught: list[warnings.WarningMessage]) -> list[str]:
    return [
        str(w.message)
        for w in caught
        if issubclass(w.category, AgentsnapWarning) and "was not captured" in str(w.message)
    ]


def test_an_agent_on_a_raw_socket_gets_the_warning_in_record_mode(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        fake.script(text_reply("Sunny."))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with AgentRecorder("raw_socket", snapshot_dir=tmp_path) as rec:
                reply = raw_socket_chat(fake.origin, {"model": "gpt-4o-mini", "messages": MESSAGES})
        assert reply["choices"][0]["message"]["content"] == "Sunny."
        assert len(fake.requests) == 1
        port = fake.origin.rsplit(":", 1)[1]
    (message,) = not_captured(caught)
    assert message.startswith(
        f"agentsnap: POST 127.0.0.1/v1/chat/completions looks like an LLM call but was not captured: {observe.UNHOOKED}."
    )
    assert "[[match.wire]]" in message and port not in message.split(" looks")[0]
    recording = rec._recording
    assert recording is not None and (recording.http_requests, recording.uncaptured) == (1, 1)
    # the observer is gone once no capture recording is active
    assert "sendall" not in socket.socket.__dict__ and "send" not in socket.socket.__dict__


def test_an_asyncio_stream_client_is_seen_too(tmp_path: Path) -> None:
    """asyncio's selector transports write with ``sock.send``: the observer sees them."""
    import asyncio

    async def chat(origin: str) -> bytes:
        host, port = origin.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        payload = json.dumps({"model": "gpt-4o-mini", "messages": MESSAGES}).encode()
        writer.write(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: "
            + host.encode()
            + b"\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nContent-Length: "
            + str(len(payload)).encode()
            + b"\r\n\r\n"
            + payload
        )
        await writer.drain()
        data = await reader.read()
        writer.close()
        return data

    with FakeOpenAI() as fake:
        fake.script(text_reply("Sunny."))

        async def run() -> bytes:
            async with AgentRecorder("raw_async", snapshot_dir=tmp_path):
                return await chat(fake.origin)

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data = asyncio.run(run())
    assert b"Sunny." in data
    (message,) = not_captured(caught)
    assert message.startswith(
        "agentsnap: POST 127.0.0.1/v1/chat/completions looks like an LLM call but was not captured"
    )


def test_raw_socket_traffic_that_is_not_llm_like_is_not_warned_about(tmp_path: Path) -> None:
    with FakeOpenAI() as fake, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with AgentRecorder("raw_other", snapshot_dir=tmp_path):
            raw_socket_chat(fake.origin, {}, method="GET", path="/healthz")
    assert not_captured(caught) == []


def test_a_hooked_but_unrecognised_llm_looking_request_is_warned_once_with_the_reason(
    tmp_path: Path,
) -> None:
    with FakeOpenAI() as fake:
        fake.script(text_reply("x"))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with AgentRecorder("hooked_miss", snapshot_dir=tmp_path), httpx.Client() as http:
                http.post(
                    fake.base_url + "/chat/completions",
                    json={"model": "m", "prompt": "legacy"},
                    headers={"user-agent": "mine/1"},
                )
    (message,) = not_captured(
        caught
    )  # once: the socket observer does not repeat what httpx announced
    assert message.startswith(
        "agentsnap: POST 127.0.0.1/v1/chat/completions looks like an LLM call but was not captured: "
        "its JSON body has no top-level 'messages' (patches/openai.toml: /chat/completions calls hold 'model', 'messages')."
    )


def test_captured_sdk_traffic_gives_no_warning(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        fake.script(text_reply("a"), text_reply("b"))
        client = openai.OpenAI(
            base_url=fake.base_url,
            api_key="sk-test",
            max_retries=0,
            default_headers={"User-Agent": "Agents/Python 0.24.0"},
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with AgentRecorder("captured", snapshot_dir=tmp_path):
                client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
                client.chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
    assert not_captured(caught) == []


def test_unrecognised_traffic_to_a_known_provider_host_is_named() -> None:
    from agentsnap.spec.provider_specs import explain_miss, looks_like_llm

    assert looks_like_llm("GET", "api.anthropic.com", "/v1/models")
    assert looks_like_llm("POST", "10.0.0.5", "/v1/messages")
    assert not looks_like_llm("GET", "10.0.0.5", "/v1/messages")
    assert not looks_like_llm("POST", "example.com", "/upload")
    assert explain_miss("POST", "api.anthropic.com", "/v1/files", {"user-agent": "curl/8"}) == (
        "api.anthropic.com is anthropic's API host, but neither the User-Agent (curl/8) nor the request's shape "
        "matches an LLM endpoint of a spec"
    )


def test_replay_of_an_unrecorded_llm_shaped_request_raises_replay_miss_whatever_sent_it(
    tmp_path: Path,
) -> None:
    with FakeOpenAI() as fake:
        fake.script(text_reply("recorded"))
        with AgentRecorder("miss", snapshot_dir=tmp_path):
            openai.OpenAI(
                base_url=fake.base_url, api_key="sk-test", max_retries=0
            ).chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        base = fake.base_url
    with (
        pytest.raises(
            ReplayMissError,
            match=r"LLM call index 1 \(POST /v1/chat/completions\) has no recorded response",
        ),
        AgentAsserter("miss", snapshot_dir=tmp_path, mode="replay"),
    ):
        openai.OpenAI(base_url=base, api_key="sk-test", max_retries=0).chat.completions.create(
            model="gpt-4o-mini", messages=MESSAGES
        )
        with (
            httpx.Client() as http
        ):  # a framework's own client (no SDK User-Agent) makes one more call
            http.post(
                base + "/chat/completions",
                json={"model": "gpt-4o-mini", "messages": MESSAGES},
                headers={"user-agent": "some-framework/1.0"},
            )


INNER_TEST = """
import json, socket, threading
from http.server import BaseHTTPRequestHandler, HTTPServer

REPLY = {"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": "Sunny."}, "finish_reason": "stop"}]}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers["content-length"]))
        body = json.dumps(REPLY).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_agent_on_raw_socket():
    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        payload = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        with socket.create_connection(server.server_address) as sock:
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\n"
                         b"Connection: close\\r\\nContent-Length: " + str(len(payload)).encode() + b"\\r\\n\\r\\n" + payload)
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        assert b"Sunny." in data
    finally:
        server.shutdown()
"""


def test_a_record_run_that_wrote_no_snapshot_says_so_in_the_summary(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_raw=INNER_TEST)
    result = pytester.runpytest_subprocess(
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "--agentsnap-record",
        "-W",
        "always::agentsnap.AgentsnapWarning",
    )
    out = result.stdout.str()
    assert result.ret == 0, out
    assert "POST 127.0.0.1/v1/chat/completions looks like an LLM call but was not captured" in out
    assert (
        "agentsnap: this record run's tests made 1 HTTP request(s) but no snapshot was written: "
        "1 of them looked like LLM calls but were not captured (see the warnings)."
    ) in out
    assert not list(pytester.path.rglob("*.json"))


def test_replay_warns_of_an_llm_looking_request_on_an_unhooked_path_as_recording_does(
    tmp_path: Path,
) -> None:
    """Replay refuses what it can tell is MCP or a provider WebSocket (test_replay_refuses_uncaptured);
    an LLM-looking request (a heuristic match) gets the record run's warning and is sent."""
    with FakeOpenAI() as fake:
        fake.script(text_reply("recorded"), text_reply("Sunny."))
        with AgentRecorder("raw_replay", snapshot_dir=tmp_path):
            openai.OpenAI(
                base_url=fake.base_url, api_key="sk-test", max_retries=0
            ).chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with AgentAsserter("raw_replay", snapshot_dir=tmp_path, mode="replay"):
                openai.OpenAI(
                    base_url=fake.base_url, api_key="sk-test", max_retries=0
                ).chat.completions.create(model="gpt-4o-mini", messages=MESSAGES)
                reply = raw_socket_chat(fake.origin, {"model": "gpt-4o-mini", "messages": MESSAGES})
        assert reply["choices"][0]["message"]["content"] == "Sunny."
        assert len(fake.requests) == 2  # the SDK call replayed, the raw one sent
    (message,) = not_captured(caught)
    assert message.startswith(
        f"agentsnap: POST 127.0.0.1/v1/chat/completions looks like an LLM call but was not captured: {observe.UNHOOKED}."
    )


def test_a_replay_recording_parks_the_observer_and_the_run_end_restores_it() -> None:
    """A replayed test's recording leaves the socket wrappers installed and inert when it stops
    (no class methods replaced twice a test); the next recording turns them on again, and
    ``unpark`` (the pytest run's end) gives the socket classes their own methods back."""
    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording

    with Recording("capture"):
        assert getattr(socket.socket.__dict__["sendall"], "__agentsnap_observer__", False)
    assert "send" not in socket.socket.__dict__  # a capture recording restores at once
    try:
        with Recording("replay", cassette=Cassette([])):
            installed = socket.socket.__dict__["sendall"]
            assert getattr(installed, "__agentsnap_observer__", False) and observe._on
        assert socket.socket.__dict__["sendall"] is installed and not observe._on  # parked
        with Recording("replay", cassette=Cassette([])):
            assert socket.socket.__dict__["sendall"] is installed and observe._on  # the same one
        # parked and inert: a send goes through untouched and is not looked at
        a, b = socket.socketpair()
        with a, b:
            a.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert b.recv(64).startswith(b"POST /mcp")
    finally:
        observe.unpark()
    assert "sendall" not in socket.socket.__dict__ and "send" not in socket.socket.__dict__


_SCRIPT = """
import json, socket, ssl, sys, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
import openai
from agentsnap import AgentAsserter, AgentRecorder
from tests.fake_provider import FakeOpenAI, text_reply

CLASSES = (socket.socket, ssl.SSLSocket)


def methods():
    \"\"\"Each socket class's own send and sendall: its original one, agentsnap's observer, or none.\"\"\"
    seen = {{}}
    for cls in CLASSES:
        for name in ("send", "sendall"):
            own = cls.__dict__.get(name)
            seen[f"{{cls.__name__}}.{{name}}"] = (
                None if own is None else "observer" if getattr(own, "__agentsnap_observer__", False) else "own"
            )
    return seen


def ask(base_url):
    client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
    reply = client.chat.completions.create(model="gpt-4o-mini", messages=[{{"role": "user", "content": "Hi?"}}])
    return reply.choices[0].message.content


said = {{"before": methods()}}
with FakeOpenAI() as fake:
    fake.script(text_reply("Sunny."))
    with AgentRecorder("weather", snapshot_dir="snaps") as rec:
        rec.output = ask(fake.base_url)
    base = fake.base_url
said["recorded"] = methods()
with AgentAsserter("weather", snapshot_dir="snaps", mode="replay") as block:
    block.output = ask(base)
said["replayed"] = methods()
with AgentAsserter("weather", snapshot_dir="snaps", mode="replay") as outer:
    with AgentAsserter("weather", snapshot_dir="snaps", mode="replay") as inner:
        inner.output = ask(base)
    said["inner_ended"] = methods()
    outer.output = ask(base)
said["outer_ended"] = methods()
print("SAID " + json.dumps(said))
"""


def test_a_scripts_replay_blocks_leave_the_socket_classes_as_they_found_them(
    tmp_path: Path,
) -> None:
    """Outside pytest nothing parks the observer: a script's replayed ``AgentAsserter`` block
    restores the socket classes' own methods when it ends (the outermost one, when nested); no
    pytest session will unpark them (under pytest the parking stays: the test above)."""
    import os
    import subprocess
    import sys

    from tests._support.ci import AGENTSNAP_ENV, CI_MARKERS

    root = Path(__file__).resolve().parents[1]
    script = tmp_path / "agent.py"
    script.write_text(_SCRIPT.format(root=str(root)), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in (*CI_MARKERS, *AGENTSNAP_ENV)}
    env.pop("PYTEST_CURRENT_TEST", None)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("SAID "))
    said = json.loads(line[len("SAID ") :])
    found = {
        "socket.send": None,
        "socket.sendall": None,
        "SSLSocket.send": "own",
        "SSLSocket.sendall": "own",
    }
    observed = dict.fromkeys(found, "observer")
    assert said == {
        "before": found,
        "recorded": found,
        "replayed": found,
        "inner_ended": observed,  # the outer block still observes
        "outer_ended": found,
    }
