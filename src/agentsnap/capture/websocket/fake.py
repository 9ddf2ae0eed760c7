"""Replay: a recorded WebSocket connection played back by a fake server, no network.

The client is the library's own (``websockets``' asyncio or sync ``ClientConnection``, with
its own protocol, framing and close handshake), so the SDK above it runs unchanged. It is
handed one end of an in-process socket pair (:func:`socket.socketpair`: no address, no
network); a thread on the other end plays the server with ``websockets``' own Sans-I/O
``ServerProtocol``:

* the handshake is answered as recorded: accepted (with the recorded subprotocol), or
  refused with the recorded status;
* then the recorded server messages up to the first client message are sent (causal order:
  what the server sent before the client spoke);
* each client message is compared with the next recorded one (:func:`_compare`): JSON
  canonically, with values the client minted (event ids, item ids, uuids) compared up to a
  consistent renaming over the whole connection (:mod:`agentsnap.capture.client_ids`: a value
  the recorded client sent before the server carried it is the client's, also when the server
  echoed it); on a match, the recorded server messages up to the next client message are sent,
  with each of the golden's client values in them replaced by the one this run's client sent
  in its place (the server's echo carries the agent's own id);
* a message of the same kind whose content differs (another user text, another tool
  output) is *drift*: served on as recorded, its JSON paths kept on the connection
  (``request_drift``), so the run fails with a readable diff; with ``replay_strict``, and for
  a message of another kind or one more than was recorded, it is a miss:
  :class:`~agentsnap.exceptions.ReplayMissError` (connection, message index, the JSON paths
  that differ, the fix) is kept on the recording, raised where the test ends, and the
  connection is closed with code 1011 so the SDK stops waiting;
* after the last recorded message, the server's recorded close (if it closed first).

``timing = "recorded"`` (the ``websocket_timing`` setting) waits out the recorded delay
before each server message instead of sending at once.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...exceptions import ReplayMissError, SnapshotFormatError
from ...storage.scrub import scrub_json, scrub_text, scrub_url
from ..cassette import request_changes
from ..client_ids import live_values, normalise, server_minted, with_values
from .frames import BlobMissing, message_value, restored_frame

if TYPE_CHECKING:
    from ..active import RecordingState

__all__ = ["RecordedConnections", "ReplayPeer", "recorded_connections"]

#: ``causal`` (send at once, in order) or ``recorded`` (wait the recorded delays)
TIMING = "causal"


class Recorded:
    """One recorded connection of the golden: its ``websocket`` step."""

    def __init__(self, step: Mapping[str, Any], index: int) -> None:
        self.step = step
        self.index = index
        self.number = int(step.get("connection") or 0)
        self.url = str(step.get("url") or "")
        self.path = _path_of(self.url)
        frames = step.get("frames")
        self.frames: list[Mapping[str, Any]] = [
            f for f in (frames if isinstance(frames, list) else []) if isinstance(f, Mapping)
        ]
        self.claimed = False


def _path_of(url: str) -> str:
    rest = url.split("://", 1)[-1]
    slash = rest.find("/")
    return rest[slash:].split("?", 1)[0] if slash >= 0 else "/"


def _problem(step: Mapping[str, Any]) -> str | None:
    """What is wrong with a golden's ``websocket`` step for replay (``at JSON_PATH: what``),
    None when nothing is (the schema has checked each field's type)."""
    number = step.get("connection")
    if not isinstance(number, int) or isinstance(number, bool) or number < 0:
        return f"connection: {number!r} is not a whole number ≥ 0"
    status = step.get("status")
    if status is not None and (not isinstance(status, int) or not 100 <= status <= 599):
        return f"status: {status!r} is not an HTTP status"
    frames = step.get("frames")
    if not isinstance(frames, list):
        return "frames: missing (a list of the connection's messages)"
    for i, frame in enumerate(frames):
        if not isinstance(frame, Mapping) or frame.get("dir") not in ("send", "recv"):
            return f'frames[{i}]: not a message with "dir" send or recv'
        held = [k for k in ("json", "text", "binary") if k in frame]
        if len(held) != 1:
            return f"frames[{i}]: holds {held or 'none'} of json, text, binary (exactly one)"
        binary = frame.get("binary")
        if "binary" in frame and not (
            isinstance(binary, Mapping) and isinstance(binary.get("$bytes_b64"), str)
        ):
            return f'frames[{i}].binary: not {{"$bytes_b64": base64}}'
    close = step.get("close")
    if close is not None:
        code = close.get("code") if isinstance(close, Mapping) else None
        if not isinstance(close, Mapping) or close.get("by") not in ("client", "server"):
            return 'close: not {"by": "client" | "server", ...}'
        if code is not None and (not isinstance(code, int) or not 1000 <= code <= 4999):
            return f"close.code: {code!r} is not a WebSocket close code (1000 to 4999)"
    return None


class RecordedConnections:
    """The golden's recorded connections, claimed by path in the order they were opened.
    A step replay cannot play raises :class:`~agentsnap.exceptions.SnapshotFormatError`."""

    def __init__(
        self, steps: Sequence[Mapping[str, Any]], *, name: str, path: object, strict: bool
    ) -> None:
        for at, step in enumerate(steps):
            if step.get("type") != "websocket":
                continue
            problem = _problem(step)
            if problem is not None:
                from ...storage.schema import FIX

                where = step.get("step", at)
                raise SnapshotFormatError(
                    f"agentsnap: {path or name!s} is not a valid snapshot: at $.trace[{where}].{problem}. {FIX}"
                )
        self.connections = [
            Recorded(s, i)
            for i, s in enumerate(steps)
            if s.get("type") == "websocket" and isinstance(s.get("connection"), int)
        ]
        self.connections.sort(key=lambda r: r.number)
        self.name = name
        self.path = path
        self.strict = strict
        self._lock = threading.Lock()

    def claim(self, path: str) -> Recorded | None:
        with self._lock:
            found = next((r for r in self.connections if not r.claimed and r.path == path), None)
            if found is not None:
                found.claimed = True
            return found

    def where(self) -> str:
        return f"{self.name!r}" + (f" ({self.path})" if self.path else "")

    def fix(self) -> str:
        from ..remedies import record_hint

        node = self.name if "::" in self.name else "THE_TEST"
        return (
            "Fix: if the agent changed on purpose, re-record with "
            f"{record_hint(self.name, f'`pytest {node} --agentsnap-record`')}, "
            "review the snapshot, commit it."
        )

    def blob_fix(self) -> str:
        from ..remedies import record_hint

        node = self.name if "::" in self.name else "THE_TEST"
        return (
            "Fix: the golden's large messages are in side files (blobs/<sha256> beside it): commit its blobs/ "
            f"folder with it, or re-record with {record_hint(self.name, f'`pytest {node} --agentsnap-record`')}."
        )

    def unmatched(self, url: str, path: str) -> ReplayMissError:
        held = ", ".join(f"{r.number}: {r.path}" for r in self.connections) or "none"
        return ReplayMissError(
            f"agentsnap replay miss: a WebSocket connection to {scrub_url(url)} (path {path}) has no recorded connection "
            f"left in snapshot {self.where()} (recorded connections: {held}; each replays once, in the order "
            f"they were opened).\n  {self.fix()}"
        )


def recorded_connections(recording: RecordingState) -> RecordedConnections | None:
    """The golden's connections of ``recording`` (built on first use), None without a cassette."""
    cassette = recording.cassette
    if cassette is None:
        return None
    found: RecordedConnections | None = getattr(recording, "ws_connections", None)
    if found is None:
        found = RecordedConnections(
            cassette.ws_steps, name=cassette.name, path=cassette.path, strict=cassette.strict
        )
        recording.ws_connections = found
    return found


def _kind(value: object) -> str:
    """What kind of message: a JSON object's ``type`` (OpenAI), else its keys (Gemini Live)."""
    if isinstance(value, Mapping):
        if isinstance(value.get("type"), str):
            return str(value["type"])
        return ",".join(sorted(str(k) for k in value))
    return "binary" if isinstance(value, bytes) else "text"


class _PairEnd(socket.socket):
    """The client's end of the socket pair: a TCP option set on it (``TCP_NODELAY``: websockets
    before 17 sets it on every socket it opens) is accepted and ignored, as a Unix socket has none."""

    def setsockopt(self, level: int, option: int, value: Any, *rest: Any) -> None:
        if level == socket.IPPROTO_TCP:
            return
        super().setsockopt(level, option, value, *rest)


class ReplayPeer:
    """The fake server of one replayed connection (see the module doc)."""

    def __init__(
        self, recording: RecordingState, table: RecordedConnections, recorded: Recorded
    ) -> None:
        self.recording = recording
        self.table = table
        self.recorded = recorded
        path = table.path
        self.root = Path(str(path)).parent if path else None
        self.pos = 0
        self.sent_by_client = 0
        #: the replayed connection's record (:class:`~.frames.Connection`), set at its handshake
        self.connection: Any = None
        #: the golden's server frames sent so far, in order: the replayed connection's received
        #: messages are these, already stored (:meth:`~.frames.Connection.step` reuses them)
        self.served: list[Mapping[str, Any]] = []
        self._known: set[str] | None = None
        #: client values -> placeholder, over the connection: the golden's, this run's
        #: (:func:`~agentsnap.capture.client_ids.normalise`), and golden value -> this run's
        self._names: tuple[dict[str, str], dict[str, str]] = ({}, {})
        self._live: dict[str, str] = {}
        self._started = 0.0

    def open(self) -> socket.socket:
        """The client's end of a new socket pair; the server's end is served by a thread."""
        pair, server = socket.socketpair()
        client = _PairEnd(pair.family, pair.type, pair.proto, fileno=pair.detach())
        thread = threading.Thread(
            target=self._serve, args=(server,), name="agentsnap-websocket-replay", daemon=True
        )
        thread.start()
        return client

    # -- the server thread -------------------------------------------------------------------
    def _serve(self, sock: socket.socket) -> None:
        from websockets.server import ServerProtocol
        from websockets.typing import Subprotocol

        step = self.recorded.step
        subprotocol = step.get("subprotocol")
        server = ServerProtocol(
            subprotocols=[Subprotocol(subprotocol)] if isinstance(subprotocol, str) else None,
            max_size=None,
        )
        state: dict[str, Any] = {"parts": [], "text": True}
        try:
            while True:
                try:
                    data = sock.recv(65536)
                except OSError:
                    break
                if not data:
                    server.receive_eof()
                    self._flush(server, sock)
                    break
                try:
                    self._received(server, sock, data, state)
                except Exception as exc:  # the replay's failure, never a hang
                    self._miss(server, sock, f"the replayed server failed: {exc!r}")
                    break
                self._flush(server, sock)
        finally:
            with contextlib.suppress(OSError):
                sock.close()

    def _received(
        self, server: Any, sock: socket.socket, data: bytes, state: dict[str, Any]
    ) -> None:
        """Feed the client's bytes to the server protocol and answer what they hold."""
        from websockets.frames import Frame, Opcode
        from websockets.http11 import Request

        server.receive_data(data)
        for event in server.events_received():
            if isinstance(event, Request):
                self._handshake(server, sock, event)
                continue
            if not isinstance(event, Frame):
                continue
            if event.opcode in (Opcode.TEXT, Opcode.BINARY):
                state["parts"], state["text"] = [bytes(event.data)], event.opcode is Opcode.TEXT
            elif event.opcode is Opcode.CONT:
                state["parts"].append(bytes(event.data))
            else:
                continue
            if event.fin:
                raw = b"".join(state["parts"])
                state["parts"] = []
                self._client_message(server, sock, raw.decode("utf-8") if state["text"] else raw)
        self._flush(server, sock)

    def _flush(self, server: Any, sock: socket.socket) -> None:
        for data in server.data_to_send():
            with contextlib.suppress(OSError):
                if data:
                    sock.sendall(data)
                else:
                    sock.shutdown(socket.SHUT_WR)

    def _handshake(self, server: Any, sock: socket.socket, request: Any) -> None:
        status = self.recorded.step.get("status")
        if isinstance(status, int) and status != 101:
            response = server.reject(status, "recorded by agentsnap\n")
            server.send_response(response)
            self._flush(server, sock)
            return
        server.send_response(server.accept(request))
        self._started = time.monotonic()
        self._release(server, sock)

    def _release(self, server: Any, sock: socket.socket) -> None:
        """Send the recorded server messages up to the next client message (or the end)."""
        frames = self.recorded.frames
        while self.pos < len(frames) and frames[self.pos].get("dir") == "recv":
            frame = self._with_live_values(frames[self.pos])
            self.pos += 1
            try:
                message = restored_frame(frame, self.root)
            except (BlobMissing, KeyError, ValueError, TypeError) as exc:
                self._miss(
                    server,
                    sock,
                    f"recorded server message (frame {self.pos - 1}) cannot be sent: {exc}",
                    fix=self.table.blob_fix() if isinstance(exc, BlobMissing) else None,
                )
                return
            if TIMING == "recorded":
                at = frame.get("at")
                if isinstance(at, (int, float)):
                    delay = self._started + float(at) - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
            self.served.append(frame)
            if isinstance(message, bytes):
                server.send_binary(message)
            else:
                server.send_text(message.encode("utf-8"))
            self._flush(server, sock)
        if self.pos >= len(frames):
            close = self.recorded.step.get("close")
            if isinstance(close, Mapping) and close.get("by") == "server":
                code = close.get("code")
                server.send_close(
                    code if isinstance(code, int) else None, str(close.get("reason") or "")
                )
                self._flush(server, sock)

    def _with_live_values(self, frame: Mapping[str, Any]) -> Mapping[str, Any]:
        """``frame`` with the golden's client values in it replaced by this run's (the server
        echoed the recorded client's id: the agent gets back the one it sent)."""
        if not self._live:
            return frame
        if "json" in frame:
            text = json.dumps(frame["json"], ensure_ascii=False)
            changed = with_values(text, self._live)
            return frame if changed == text else {**frame, "json": json.loads(changed)}
        if isinstance(frame.get("text"), str):
            changed = with_values(frame["text"], self._live)
            return frame if changed == frame["text"] else {**frame, "text": changed}
        return frame

    def _client_message(self, server: Any, sock: socket.socket, message: str | bytes) -> None:
        index = self.sent_by_client
        self.sent_by_client += 1
        frames = self.recorded.frames
        if self.pos >= len(frames):
            self._miss(
                server,
                sock,
                f"client message {index} ({_kind(message_value(message))}) was never sent when it was recorded "
                f"(the recording has {sum(1 for f in frames if f.get('dir') == 'send')} client message(s))",
            )
            return
        expected_frame = frames[self.pos]
        try:
            expected = restored_frame(expected_frame, self.root)
        except (BlobMissing, KeyError, ValueError, TypeError) as exc:
            self._miss(
                server,
                sock,
                f"recorded client message (frame {self.pos}) cannot be read: {exc}",
                fix=self.table.blob_fix() if isinstance(exc, BlobMissing) else None,
            )
            return
        changes = self._compare(expected, message)
        if changes:
            old, new = message_value(expected), message_value(message)
            if self.table.strict or _kind(old) != _kind(new):
                shown = "; ".join(changes[:6]) + (" …" if len(changes) > 6 else "")
                self._miss(
                    server,
                    sock,
                    f"client message {index} (frame {self.pos}) differs from the recorded one: "
                    f"{_kind(old)!r} recorded, {_kind(new)!r} sent; {shown}",
                )
                return
            if self.connection is not None:
                self.connection.drift += [
                    f"client message {index} (frame {self.pos}): {c}" for c in changes
                ]
        self.pos += 1
        self._release(server, sock)

    def _compare(self, expected: str | bytes, actual: str | bytes) -> list[str]:
        """The JSON paths where ``actual`` differs from ``expected`` ([] when equal)."""
        old, new = message_value(expected), message_value(actual)
        json_values = isinstance(old, (dict, list)) and isinstance(new, (dict, list))
        if expected == actual:
            if json_values:  # its client values named on both sides, as themselves
                self._normalised(old, old)
            return []
        # the recording was scrubbed (credentials, token shapes, the user's rules): so is this
        new = scrub_json(new) if isinstance(new, (dict, list)) else new
        if isinstance(new, str):
            new = scrub_text(new)
            if new == old:
                return []
        if json_values:
            old_n, new_n = self._normalised(old, new)
            if json.dumps(old_n, sort_keys=True) == json.dumps(new_n, sort_keys=True):
                return []
            return request_changes(old_n, new_n) or ["(whole message)"]
        return ["(whole message): the text or bytes differ"]

    def _normalised(self, old: object, new: object) -> tuple[Any, Any]:
        """The recorded and the sent message with their client values renamed, one numbering
        per side over the connection (a name stands for one value on each side); the pairs of
        values under one name kept for the server messages still to send."""
        if self._known is None:  # what the recorded server said before its client did
            self._known = server_minted(
                (f.get("dir") == "send", f.get("json", f.get("text"))) for f in self.recorded.frames
            )
        golden, live = self._names
        old_n = normalise(old, self._known, golden)[0]
        new_n = normalise(new, self._known, live)[0]
        self._live = live_values(golden, live)
        return old_n, new_n

    def _miss(self, server: Any, sock: socket.socket, what: str, fix: str | None = None) -> None:
        table = self.table
        exc = ReplayMissError(
            f"agentsnap replay miss: WebSocket connection {self.recorded.number} ({self.recorded.url}) of snapshot "
            f"{table.where()}: {what}.\n  {fix or table.fix()}"
        )
        recording = self.recording
        recording.misses += 1
        if recording.first_miss is None:
            recording.first_miss = exc
        self.pos = len(self.recorded.frames) + 1  # nothing more is served
        with contextlib.suppress(Exception):
            server.send_close(1011, "agentsnap replay miss (the test's error says why)")
            self._flush(server, sock)
