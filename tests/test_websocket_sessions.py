"""WebSocket sessions (OpenAI Realtime, the Responses API's WebSocket mode, Gemini Live),
recorded with every frame in the golden and replayed offline by the unmodified SDKs.

The server is real: ``tests/fake_websocket.py`` (the ``websockets`` server on 127.0.0.1),
stopped before replay; the agents are ``tests/ws_agents.py`` (plain SDK code, one tool call).
For each SDK entry point: record → replay with the server stopped and every TCP connect
refused → the same final text; a changed user text and a changed tool output fail with a
drift report; the key is in no golden; a re-record of the unchanged session leaves the file's
bytes as they were.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("websockets")

from agentsnap import AgentAsserter, AgentRecorder, AgentsnapWarning, config
from agentsnap.exceptions import AgentRegressionError, ReplayMissError
from tests import ws_agents
from tests._support.offline import Offline
from tests.fake_websocket import FakeWebSocketAPI

ROOT = Path(__file__).resolve().parent.parent
KEY = "sk-live-ws-0123456789abcdefSECRETKEY"
QUESTION = "What's the weather in Paris?"
WEATHER = {"Paris": "sunny, 21C"}
ANSWER = "The weather in Paris: sunny, 21C"

#: driver name -> (the API it speaks, needs TLS)
DRIVERS = {
    "realtime-async": ("openai_realtime", False),
    "realtime-sync": ("openai_realtime", False),
    "realtime-beta-sync": ("openai_realtime", False),
    "responses-async": ("openai_responses", False),
    "responses-sync": ("openai_responses", False),
    "responses-beta-sync": ("openai_responses", False),
    "gemini-live": ("gemini_live", True),
}


def _needs(driver: str) -> None:
    if DRIVERS[driver][1]:
        pytest.importorskip("google.genai")
        if shutil.which("openssl") is None:
            pytest.skip("the TLS fake needs openssl for its certificate")
    else:
        pytest.importorskip("openai")


class Addresses:
    """Where a fake was, and what it saw: what a replay needs once the fake is stopped."""

    def __init__(self, fake: FakeWebSocketAPI, tls: bool) -> None:
        self.port = fake.port
        self.base_url, self.ws_url = fake.base_url, fake.ws_url
        self.gemini_base_url = fake.gemini_base_url if tls else ""
        self._ssl = fake.client_ssl_context() if tls else None
        self.connections = fake.connections

    def client_ssl_context(self) -> Any:
        return self._ssl


def run(driver: str, fake: FakeWebSocketAPI, question: str = QUESTION, weather: Any = None) -> str:
    """The driver's session against ``fake`` (which may be stopped: replay)."""
    weather = WEATHER if weather is None else weather
    if driver == "realtime-async":
        return asyncio.run(ws_agents.realtime_async(fake.base_url, KEY, question, weather=weather))
    if driver == "realtime-sync":
        return ws_agents.realtime_sync(fake.base_url, KEY, question, weather=weather)
    if driver == "realtime-beta-sync":
        return ws_agents.realtime_beta_sync(fake.ws_url, KEY, question, weather=weather)
    if driver == "responses-async":
        return asyncio.run(
            ws_agents.responses_ws_async(fake.base_url, KEY, question, weather=weather)
        )
    if driver in ("responses-sync", "responses-beta-sync"):
        return ws_agents.responses_ws_sync(
            fake.base_url, KEY, question, weather=weather, beta=driver.endswith("beta-sync")
        )
    return asyncio.run(
        ws_agents.gemini_live(
            fake.gemini_base_url,
            KEY,
            question,
            weather=weather,
            ssl_context=fake.client_ssl_context(),
        )
    )


@contextmanager
def fake_for(driver: str) -> Iterator[FakeWebSocketAPI]:
    with FakeWebSocketAPI(tls=DRIVERS[driver][1]) as fake:
        yield fake


def golden(snaps: Path) -> tuple[bytes, dict[str, Any]]:
    (path,) = sorted(snaps.glob("*.json"))
    raw = path.read_bytes()
    return raw, json.loads(raw)


def record(driver: str, snaps: Path, name: str) -> tuple[str, Addresses]:
    with fake_for(driver) as fake:
        where = Addresses(fake, DRIVERS[driver][1])
        with AgentRecorder(name, snapshot_dir=snaps):
            text = run(driver, fake)
    return text, where


@pytest.mark.parametrize("driver", list(DRIVERS))
def test_a_session_is_recorded_then_replayed_offline(
    driver: str, tmp_path: Path, offline: Offline
) -> None:
    _needs(driver)
    snaps = tmp_path / "snaps"
    live, fake = record(driver, snaps, f"ws::{driver}")
    assert live == ANSWER
    raw, data = golden(snaps)
    assert KEY.encode() not in raw
    steps = data["trace"]
    socket_step = steps[0]
    assert socket_step["type"] == "websocket" and socket_step["connection"] == 0
    assert socket_step["api"] == DRIVERS[driver][0]
    assert socket_step["status"] == 101
    assert socket_step["close"]["by"] == "client"
    assert "127.0.0.1/" in socket_step["url"] and f":{fake.port}" not in socket_step["url"]
    sent = [f["json"] for f in socket_step["frames"] if f["dir"] == "send"]
    assert sent == fake.connections[0].frames  # every client message, as the server got it
    assert [s["type"] for s in steps] == ["websocket", "llm_call", "tool_call", "llm_call"]
    first, tool, second = steps[1], steps[2], steps[3]
    assert first["connection"] == second["connection"] == 0 and "exchange" not in first
    assert first["tool_requests"][0]["name"] == "get_weather"
    assert first["tool_requests"][0]["args"] == {"city": "Paris"}
    assert tool["name"] == "get_weather" and tool["args"] == {"city": "Paris"}
    assert tool["result"] in ("sunny, 21C", {"result": "sunny, 21C"}, {"output": "sunny, 21C"})
    assert second["response"] == ANSWER
    assert second["usage"]  # the provider-reported usage of the answer

    # the server is gone, and no TCP connection may be opened: the golden answers
    with offline(), AgentAsserter(f"ws::{driver}", snapshot_dir=snaps, mode="replay"):
        replayed = run(driver, fake)
    assert replayed == live


@pytest.mark.parametrize("driver", list(DRIVERS))
def test_a_changed_user_text_or_tool_output_fails_with_a_drift_report(
    driver: str, tmp_path: Path
) -> None:
    _needs(driver)
    snaps = tmp_path / "snaps"
    _, fake = record(driver, snaps, "ws::drift")
    before, _ = golden(snaps)

    with pytest.raises(AgentRegressionError) as text_changed:
        with AgentAsserter("ws::drift", snapshot_dir=snaps, mode="replay"):
            run(driver, fake, question="What's the weather in Paris today?")
    said = str(text_changed.value)
    assert "What's the weather in Paris today?" in said, said

    with pytest.raises(AgentRegressionError) as output_changed:
        with AgentAsserter("ws::drift", snapshot_dir=snaps, mode="replay"):
            run(driver, fake, weather={"Paris": "hail, 2C"})
    said = str(output_changed.value)
    assert "hail, 2C" in said, said
    assert golden(snaps)[0] == before  # a failing replay never rewrites the golden


@pytest.mark.parametrize("driver", ["realtime-sync", "responses-async", "gemini-live"])
def test_re_recording_an_unchanged_session_keeps_the_golden_byte_identical(
    driver: str, tmp_path: Path
) -> None:
    _needs(driver)
    snaps = tmp_path / "snaps"
    record(driver, snaps, "ws::again")
    first, _ = golden(snaps)
    record(driver, snaps, "ws::again")  # a new server on another port, other timings
    assert golden(snaps)[0] == first


def test_a_strict_replay_refuses_a_changed_client_message_naming_connection_and_frame(
    tmp_path: Path,
) -> None:
    _needs("realtime-sync")
    snaps = tmp_path / "snaps"
    _, fake = record("realtime-sync", snaps, "ws::strict")
    with pytest.raises(ReplayMissError) as miss:
        strict = dataclasses.replace(config.load(tmp_path, env={}), replay_strict=True)
        with AgentAsserter("ws::strict", snapshot_dir=snaps, mode="replay", settings=strict):
            run("realtime-sync", fake, question="Weather in Paris, please")
    said = str(miss.value)
    assert "WebSocket connection 0" in said and "client message 1" in said, said
    assert "item.content[0].text" in said and "Weather in Paris, please" in said, said
    assert "--agentsnap-record" in said


def test_a_connection_the_golden_does_not_hold_is_a_replay_miss(tmp_path: Path) -> None:
    _needs("realtime-sync")
    snaps = tmp_path / "snaps"
    _, fake = record("responses-sync", snaps, "ws::other")
    with pytest.raises(ReplayMissError) as miss:
        with AgentAsserter("ws::other", snapshot_dir=snaps, mode="replay"):
            run("realtime-sync", fake)
    said = str(miss.value)
    assert "/v1/realtime" in said and "/v1/responses" in said and "ws::other" in said, said


# -- any websockets client: binary frames, large base64 payloads, the server's close -------------

AUDIO = bytes(range(256)) * 64  # 16 KiB of "audio"


@contextmanager
def echo_server(close_after: int = 2, audio: bytes = AUDIO) -> Iterator[str]:
    """A plain websockets server: answers each JSON message with an audio event (``audio`` as
    large base64) and a binary frame, and closes with 4001 after the ``close_after``-th message."""
    from websockets.sync.server import serve

    def handler(ws: Any) -> None:
        for count, message in enumerate(ws, 1):
            event = json.loads(message)
            ws.send(
                json.dumps(
                    {
                        "type": "audio.delta",
                        "echo": event.get("say"),
                        "delta": base64.b64encode(audio).decode(),
                    }
                )
            )
            ws.send(audio[:100])
            if count == close_after:
                ws.close(4001, "enough")
                return

    server = serve(handler, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"ws://127.0.0.1:{server.socket.getsockname()[1]}/audio?token=tok-0123456789abcdefQUERY"
    finally:
        server.shutdown()
        thread.join(5)


def talk(url: str) -> list[Any]:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    got: list[Any] = []
    with connect(url) as ws:
        for say in ("one", "two"):
            ws.send(json.dumps({"say": say}))
            got.append(json.loads(ws.recv()))
            got.append(ws.recv())
        try:
            ws.recv()
        except ConnectionClosed as closed:
            got.append((closed.rcvd.code, closed.rcvd.reason) if closed.rcvd else None)
    return got


def test_large_base64_goes_to_a_side_file_and_binary_frames_and_the_close_replay(
    tmp_path: Path, offline: Offline
) -> None:
    snaps = tmp_path / "snaps"
    with echo_server() as url, AgentRecorder("ws::audio", snapshot_dir=snaps):
        live = talk(url)
    assert live[-1] == (4001, "enough") and live[1] == AUDIO[:100]
    raw, data = golden(snaps)
    assert b"tok-0123456789abcdefQUERY" not in raw
    (step,) = data["trace"]
    assert step["type"] == "websocket" and "api" not in step
    assert step["close"] == {"by": "server", "code": 4001, "reason": "enough"}
    audio = step["frames"][1]["json"]["delta"]
    digest = audio["sha256"]
    assert audio == {
        "$blob": f"blobs/{digest}",
        "sha256": digest,
        "size": len(AUDIO),
        "base64": True,
    }
    assert (snaps / "blobs" / digest).read_bytes() == AUDIO
    assert len(raw) < 8000  # the golden stays small: the audio is in the side file
    assert step["frames"][2]["binary"]["$bytes_b64"] == base64.b64encode(AUDIO[:100]).decode()

    with offline(), AgentAsserter("ws::audio", snapshot_dir=snaps, mode="replay"):
        assert talk(url) == live
    # the replayed run's record holds the golden's frames (server frames reused as stored)
    (last,) = (snaps / ".last_run").glob("*.json")
    replayed = json.loads(last.read_bytes())["trace"][0]

    def untimed(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in f.items() if k != "at"} for f in frames]

    assert untimed(replayed["frames"]) == untimed(step["frames"])
    assert replayed["close"] == step["close"]


def test_a_websocket_handshake_agentsnap_cannot_see_is_reported(tmp_path: Path) -> None:
    """A client that is not the websockets library's (here: the handshake written on a raw
    socket) is not captured, and says so."""
    import socket

    _needs("realtime-sync")
    with FakeWebSocketAPI() as fake, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with AgentRecorder("ws::raw", snapshot_dir=tmp_path / "snaps"):
            with socket.create_connection(("127.0.0.1", fake.port), timeout=5) as sock:
                sock.sendall(
                    b"GET /v1/realtime?model=gpt-realtime HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
                )
                assert sock.recv(4096).startswith(b"HTTP/1.1 101")
    said = [str(w.message) for w in caught if issubclass(w.category, AgentsnapWarning)]
    assert any("WebSocket 127.0.0.1/v1/realtime" in s and "was not captured" in s for s in said), (
        said
    )


# -- no network at all ----------------------------------------------------------------------------

REPLAY_CHILD = r"""
import sys
from pathlib import Path
from agentsnap import AgentAsserter
from tests import test_websocket_sessions as t

class Stopped:  # the recording's fake, long gone: only its addresses are left
    def __init__(self, base_url, ws_url):
        self.base_url, self.ws_url = base_url, ws_url

driver, snaps, base_url, ws_url = sys.argv[1:5]
with AgentAsserter("ws::unshare", snapshot_dir=Path(snaps), mode="replay"):
    print(t.run(driver, Stopped(base_url, ws_url)))
"""


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="unshare -n is not permitted here")
@pytest.mark.parametrize("driver", ["realtime-async", "responses-sync"])
def test_replay_runs_with_no_network_namespace(driver: str, tmp_path: Path) -> None:
    _needs(driver)
    snaps = tmp_path / "snaps"
    live, fake = record(driver, snaps, "ws::unshare")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "src"), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [
            "unshare",
            "-n",
            sys.executable,
            "-c",
            REPLAY_CHILD,
            driver,
            str(snaps),
            fake.base_url,
            fake.ws_url,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == live


# -- what a reviewer reads --------------------------------------------------------------------------


def test_show_and_the_html_report_present_the_connection(tmp_path: Path) -> None:
    from agentsnap.diff import compute_diff
    from agentsnap.html_report import entry_for_diff, render_html
    from agentsnap.storage.snapshot import Snapshot
    from tests.test_cli_helpers import invoke

    _needs("realtime-sync")
    snaps = tmp_path / "snaps"
    record("realtime-sync", snaps, "ws::shown")
    _, data = golden(snaps)
    sent = sum(1 for f in data["trace"][0]["frames"] if f["dir"] == "send")
    received = len(data["trace"][0]["frames"]) - sent

    shown = invoke("show", "ws::shown", "--dir", str(snaps))
    assert shown.exit_code == 0, shown.stdout
    body = shown.stdout[shown.stdout.index("\ntrace\n") :]
    assert (
        "  [0] websocket ws://127.0.0.1/v1/realtime?model=gpt-realtime (connection 0, openai_realtime)"
        in body
    )
    assert body.index("→ session.update") < body.index("→ conversation.item.create")
    assert "← response.done" in body and "close: " in body
    assert body.index("[0] websocket") < body.index("[1] llm_call") < body.index("[2] tool_call")

    snapshot = Snapshot.from_dict(data)
    report = compute_diff(data, data, name="ws::shown", embedding_backend="lexical")
    page = render_html([entry_for_diff("ws::shown", snapshot, snapshot, report)])
    assert "ws://127.0.0.1/v1/realtime?model=gpt-realtime" in page
    assert f"openai_realtime · {sent} sent, {received} received · closed by client (1000)" in page


def test_recorded_timing_waits_out_each_server_message_s_recorded_delay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentsnap.capture.websocket import fake as replay_fake

    _needs("realtime-sync")
    snaps = tmp_path / "snaps"
    live, where = record("realtime-sync", snaps, "ws::timing")
    waits: list[float] = []

    class StandingClock:
        """The replay fake's ``time``: a clock that stands still (the replay takes no time at all,
        however loaded the machine) and a sleep that is only noted."""

        monotonic = staticmethod(lambda: 1000.0)
        sleep = staticmethod(waits.append)

    monkeypatch.setattr(replay_fake, "time", StandingClock)
    timed = dataclasses.replace(config.load(tmp_path, env={}), websocket_timing="recorded")
    with AgentAsserter("ws::timing", snapshot_dir=snaps, mode="replay", settings=timed):
        assert run("realtime-sync", where) == live
    assert waits and all(w > 0 for w in waits)  # each server message waits out its recorded delay
    _, data = golden(snaps)
    recorded = [f["at"] for f in data["trace"][0]["frames"] if f["dir"] == "recv" and f["at"] > 0]
    assert waits == pytest.approx(recorded)  # the clock stands: each wait is its recorded offset
    config.apply(config.load(tmp_path, env={}))
    assert replay_fake.TIMING == "causal"
    waits.clear()
    with AgentAsserter("ws::timing", snapshot_dir=snaps, mode="replay"):
        assert run("realtime-sync", where) == live
    assert waits == []


def test_a_connection_opened_before_the_recording_is_reported_not_silently_live(
    tmp_path: Path,
) -> None:
    from websockets.sync.client import connect

    snaps = tmp_path / "snaps"
    with echo_server() as url, connect(url) as ws:  # opened outside any recording
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with AgentRecorder("ws::early", snapshot_dir=snaps):
                ws.send(json.dumps({"say": "one"}))
                assert json.loads(ws.recv())["echo"] == "one"
        said = [str(w.message) for w in caught if issubclass(w.category, AgentsnapWarning)]
        assert any(
            "was sent on the WebSocket connection to ws://127.0.0.1" in s
            and "opened before any recording started" in s
            for s in said
        ), said
        assert golden(snaps)[1]["trace"] == []  # nothing of it was captured

        with AgentRecorder("ws::early-2", snapshot_dir=snaps):
            pass
        with pytest.raises(ReplayMissError) as miss:
            with AgentAsserter("ws::early-2", snapshot_dir=snaps, mode="replay"):
                ws.send(json.dumps({"say": "two"}))
        assert "opened before any recording started" in str(miss.value)
        assert "Open the connection inside the test" in str(miss.value)


def test_a_connection_in_a_blocked_recording_is_refused_where_it_opens() -> None:
    """CI with no snapshot: the recording is blocked (agentsnap.lifecycle), and a WebSocket
    connection fails with the block's error before the server is reached."""
    from agentsnap.capture.recording import Recording
    from agentsnap.exceptions import SnapshotMissingInCIError

    _needs("realtime-sync")
    with FakeWebSocketAPI() as fake:
        with pytest.raises(SnapshotMissingInCIError) as refused:
            with Recording("replay", block="agentsnap: no snapshot for 't' in CI") as recording:
                run("realtime-sync", fake)
        assert fake.connections == []  # the server was never reached
    assert recording.blocked_calls == 1
    assert "no snapshot for 't' in CI (a WebSocket connection to ws://127.0.0.1" in str(
        refused.value
    )


# -- what a review found (helper 23): each now fails, clearly ------------------------------------


def _echo_golden(
    tmp_path: Path, name: str, url: str, says: tuple[str, ...] = ("one", "two")
) -> Path:
    from websockets.sync.client import connect

    snaps = tmp_path / "snaps"
    with AgentRecorder(name, snapshot_dir=snaps), connect(url) as ws:
        for say in says:
            ws.send(json.dumps({"say": say}))
            ws.recv()
            ws.recv()
    return snaps


def _say(url: str, says: tuple[str, ...]) -> None:
    from websockets.sync.client import connect

    with connect(url) as ws:
        for say in says:
            ws.send(json.dumps({"say": say}))
            ws.recv()
            ws.recv()


def test_a_changed_or_missing_message_on_any_connection_fails_the_websocket_check(
    tmp_path: Path,
) -> None:
    with echo_server() as url:
        snaps = _echo_golden(tmp_path, "ws::plain", url)
    with pytest.raises(AgentRegressionError) as changed:
        with AgentAsserter("ws::plain", snapshot_dir=snaps, mode="replay"):
            _say(url, ("one", "mars"))
    said = str(changed.value)
    assert "[WEBSOCKET] FAIL" in said and "websocket_messages" in said, said
    assert "connection 0" in said and "client message 1" in said and "say: 'two' → 'mars'" in said
    with pytest.raises(AgentRegressionError) as fewer:
        with AgentAsserter("ws::plain", snapshot_dir=snaps, mode="replay"):
            _say(url, ("one",))
    assert "2 client message(s) recorded, 1 sent in this run" in str(fewer.value)
    with AgentAsserter("ws::plain", snapshot_dir=snaps, mode="replay"):
        _say(url, ("one", "two"))  # unchanged: passes


def test_a_key_sent_by_the_client_is_compared_scrubbed_and_never_printed(tmp_path: Path) -> None:
    from websockets.sync.client import connect

    key = "sk-live-CLIENTMSG-0123456789abcdefSECRET"
    with echo_server() as url:
        keyed = url.replace("/audio?", f"/audio?key={key}&")
        snaps = tmp_path / "snaps"
        with (
            AgentRecorder("ws::key", snapshot_dir=snaps),
            connect(keyed, additional_headers={"Authorization": f"Bearer {key}"}) as ws,
        ):
            ws.send(json.dumps({"say": "one", "api_key": key}))
            ws.recv()
            ws.recv()
    assert key.encode() not in golden(snaps)[0]
    strict = dataclasses.replace(config.load(tmp_path, env={}), replay_strict=True)
    with AgentAsserter("ws::key", snapshot_dir=snaps, mode="replay", settings=strict):
        with connect(keyed, additional_headers={"Authorization": f"Bearer {key}"}) as ws:
            ws.send(json.dumps({"say": "one", "api_key": key}))  # unchanged: no drift
            ws.recv()
            ws.recv()
    with pytest.raises(ReplayMissError) as extra:
        with AgentAsserter("ws::key", snapshot_dir=snaps, mode="replay"):
            for _ in range(2):  # one connection more than was recorded
                with connect(keyed) as ws:
                    ws.send(json.dumps({"say": "one", "api_key": key}))
                    ws.recv()
                    ws.recv()
    assert key not in str(extra.value) and "key=<redacted>" in str(extra.value)


def test_a_realtime_client_secret_is_scrubbed() -> None:
    from agentsnap.storage.scrub import REDACTED, scrub_json

    event = {
        "session": {"client_secret": {"value": "ek_68b0aabbccddeeff00112233", "expires_at": 1}}
    }
    assert scrub_json(event) == {"session": {"client_secret": {"value": REDACTED, "expires_at": 1}}}


@pytest.mark.parametrize("hostile", ["dev-zero", "fifo", "outside", "size"])
def test_a_hostile_side_file_fails_fast_and_reads_nothing_outside(
    hostile: str, tmp_path: Path
) -> None:
    snaps = tmp_path / "snaps"
    with echo_server() as url, AgentRecorder("ws::blob", snapshot_dir=snaps):
        live = talk(url)
    (blob,) = (snaps / "blobs").iterdir()
    blob.unlink()
    if hostile == "dev-zero":
        blob.symlink_to("/dev/zero")
    elif hostile == "fifo":
        os.mkfifo(blob)
    elif hostile == "outside":
        elsewhere = tmp_path / "elsewhere"
        elsewhere.write_bytes(AUDIO)  # the right bytes, but outside the snapshot folder
        blob.symlink_to(elsewhere)
    else:
        blob.write_bytes(AUDIO + b"more")
    with pytest.raises(ReplayMissError) as failed:
        with AgentAsserter("ws::blob", snapshot_dir=snaps, mode="replay"):
            talk(url)
    said = str(failed.value)
    assert "blobs/" in said and "commit its blobs/ folder" in said, said
    assert live  # the recording itself was fine


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda s: s.pop("frames"), "$.trace[0].frames: missing"),
        (lambda s: s["frames"][1].pop("json"), "$.trace[0].frames[1]: holds none"),
        (lambda s: s["frames"][0].update(text="x"), "$.trace[0].frames[0]: holds ['json', 'text']"),
        (lambda s: s["close"].update(code=99999), "$.trace[0].close.code: 99999"),
        (lambda s: s.update(status=0), "$.trace[0].status: 0"),
    ],
)
def test_a_broken_websocket_step_is_a_format_error_naming_its_json_path(
    edit: Any, where: str, tmp_path: Path
) -> None:
    from agentsnap.exceptions import SnapshotFormatError

    with echo_server() as url, AgentRecorder("ws::broken", snapshot_dir=tmp_path / "snaps"):
        talk(url)
    (path,) = (tmp_path / "snaps").glob("*.json")
    data = json.loads(path.read_bytes())
    edit(data["trace"][0])
    path.write_text(json.dumps(data))
    with pytest.raises(SnapshotFormatError) as bad:
        with AgentAsserter("ws::broken", snapshot_dir=tmp_path / "snaps", mode="replay"):
            talk(url)
    assert str(path) in str(bad.value) and where in str(bad.value), str(bad.value)


def test_a_connection_kept_by_an_earlier_test_is_reported_in_the_next(tmp_path: Path) -> None:
    """A connection a session-scoped fixture opened during the first test, used in the second."""
    from websockets.sync.client import connect

    snaps = tmp_path / "snaps"
    with echo_server(close_after=99) as url:
        with AgentRecorder("ws::first", snapshot_dir=snaps):
            ws = connect(url)
            ws.send(json.dumps({"say": "one"}))
            ws.recv()
            ws.recv()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with AgentRecorder("ws::second", snapshot_dir=snaps):
                ws.send(json.dumps({"say": "two"}))
                ws.recv()
                ws.recv()
        said = [str(w.message) for w in caught if issubclass(w.category, AgentsnapWarning)]
        assert any("opened in another recording" in s for s in said), said
        with pytest.raises(ReplayMissError) as miss:
            with AgentAsserter("ws::second", snapshot_dir=snaps, mode="replay"):
                ws.send(json.dumps({"say": "three"}))
        assert "opened in another recording" in str(miss.value)
        ws.close()
