"""Replay: an MCP session answered from the golden, with no process and no socket.

In replay the transport is never entered (:mod:`.patch`): the client gets a
stream pair whose far end is :class:`ReplaySend`. Each request the client writes
is looked up among the recorded requests of the session it was matched with
(:meth:`RecordedSessions.claim`), through a
:class:`~agentsnap.capture.cassette.Cassette` of that session's exchanges, so it
is served exactly as an HTTP call is: an exact request (ids and ``_meta`` are not
part of it, client-minted values compared up to a renaming) gets its recording;
otherwise, unless ``replay_strict``, the next recording of the same method, with
``request_drift`` noted; else :class:`~agentsnap.exceptions.ReplayMissError`
naming the server, the request index and the nearest recording, raised to the
code that sent the request.

The recorded server messages are released in order: notifications at once (a
progress notification under the live request's progress token), a server
request (sampling, elicitation) and then nothing more until the client replies,
then the rest, then the answer under the live request's id. Everything served
is fed to the session's :class:`~.channel.Channel` like captured traffic, so
the new trace is built the same way.

Sessions are matched to recorded ones when they open: the recorded session of
the same transport (``connect`` step), else of the same kind and label, else
the first one not yet matched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...exceptions import ReplayMissError
from ..cassette import Cassette
from .channel import Channel
from .jsonrpc import as_dict, session_message
from .servers import Server

if TYPE_CHECKING:
    from ..active import RecordingState

__all__ = ["Recorded", "RecordedSessions", "ReplaySend", "replay_streams"]

#: the JSON-RPC error served for a request the recorded session never answered
_NO_ANSWER_ERROR = {
    "code": -32001,
    "message": "agentsnap replay: the recorded session got no answer to this request",
}


class Recorded:
    """One recorded session of a golden: its transport, server name and exchanges."""

    def __init__(
        self,
        number: int,
        steps: list[Mapping[str, Any]],
        *,
        name: str,
        path: object,
        strict: bool,
    ) -> None:
        self.number = number
        connect = next((s for s in steps if s.get("method") == "connect"), {})
        transport = connect.get("transport")
        self.transport: Mapping[str, Any] = transport if isinstance(transport, Mapping) else {}
        self.server = str(connect.get("server") or next((s.get("server") for s in steps), "mcp"))
        self.claimed = False
        self.cassette = Cassette(
            [dict(s) for s in steps if isinstance(s.get("exchange"), Mapping)],
            name=name,
            path=path,
            strict=strict,
            what=f"MCP request to server {self.server!r} (session {number})",
        )


class RecordedSessions:
    """The recorded MCP sessions of one golden (its steps that carry ``session``)."""

    def __init__(
        self, steps: Sequence[Mapping[str, Any]], *, name: str, path: object, strict: bool
    ) -> None:
        groups: dict[int, list[Mapping[str, Any]]] = {}
        for step in steps:
            number = step.get("session")
            if isinstance(number, int):
                groups.setdefault(number, []).append(step)
        self.sessions = [
            Recorded(n, groups[n], name=name, path=path, strict=strict) for n in sorted(groups)
        ]
        self.name = name
        self.path = path

    def claim(self, server: Server) -> Recorded | None:
        """The recorded session a new session to ``server`` replays (None: none is left)."""
        free = [r for r in self.sessions if not r.claimed]
        for good in (
            lambda r: dict(r.transport) == dict(server.described),
            lambda r: r.transport.get("kind") == server.kind,
            lambda r: True,
        ):
            found = next((r for r in free if good(r)), None)
            if found is not None:
                found.claimed = True
                return found
        return None

    def unmatched(self, server: Server) -> ReplayMissError:
        where = f"{self.name!r}" + (f" ({self.path})" if self.path else "")
        node = self.name if "::" in self.name else "THE_TEST"
        held = ", ".join(f"{r.server!r} ({r.transport.get('kind', '?')})" for r in self.sessions)
        return ReplayMissError(
            f"agentsnap replay miss: an MCP session to {server.label!r} ({server.kind}) has no recorded session "
            f"in snapshot {where}: it holds {len(self.sessions)} MCP session(s)"
            + (f" ({held}), all already matched" if held else "")
            + f".\n  Fix: if the agent now uses this server, re-record with `pytest {node} --agentsnap-record`, "
            "review the snapshot, commit it."
        )


def _sessions(recording: RecordingState) -> RecordedSessions | None:
    cassette = recording.cassette
    if cassette is None:
        return None
    found = getattr(recording, "mcp_sessions", None)
    if found is None:
        found = RecordedSessions(
            cassette.mcp_steps, name=cassette.name, path=cassette.path, strict=cassette.strict
        )
        recording.mcp_sessions = found
    return found


class ReplaySend:
    """The client's write stream in replay: each message it sends is answered from the golden."""

    def __init__(
        self,
        recording: RecordingState,
        channel: Channel,
        recorded: Recorded | None,
        deliver: Any,
        miss: ReplayMissError | None,
    ) -> None:
        self._recording = recording
        self.agentsnap_channel = channel
        self._recorded = recorded
        self._deliver_end = deliver
        self._miss = miss
        #: server messages held back until the client answers the server request before them
        self._held: list[tuple[dict[str, Any], object]] = []
        self._waiting_for: object = None
        self.closed = False

    # -- the stream surface ------------------------------------------------------------------
    async def send(self, item: object) -> None:
        self.send_nowait(item)

    def send_nowait(self, item: object) -> None:
        data = as_dict(item)
        if data is None:
            return
        if isinstance(data.get("method"), str) and "id" in data:
            self._answer(data)
        elif data.get("method") is None and "id" in data:
            self.agentsnap_channel.sent(data)
            if self._waiting_for is not None and str(data["id"]) == str(self._waiting_for):
                self._waiting_for = None
                held, self._held = self._held, []
                self._release(held)

    def clone(self) -> ReplaySend:
        return self

    def close(self) -> None:
        self.closed = True
        self._deliver_end.close()

    async def aclose(self) -> None:
        self.close()

    async def __aenter__(self) -> ReplaySend:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    # -- answering ---------------------------------------------------------------------------
    def _fail(self, exc: ReplayMissError) -> None:
        recording = self._recording
        recording.misses += 1
        if recording.first_miss is None:
            recording.first_miss = exc
        raise exc

    def _answer(self, data: dict[str, Any]) -> None:
        if self._recording.block is not None:
            self._recording.blocked_calls += 1
            raise self._recording.block_error(self._recording.block)
        call = self.agentsnap_channel.sent(data)
        if self._miss is not None or self._recorded is None or call is None:
            self._fail(
                self._miss or ReplayMissError("agentsnap replay miss: no recorded MCP session")
            )
            return
        request: dict[str, Any] = {"method": "MCP", "path": call.method}
        if call.params is not None:
            request["body"] = call.params
        try:
            index, recorded, drift = self._recorded.cassette.take(request)
        except ReplayMissError as exc:
            self._fail(exc)
            return
        call.replay_index, call.request_drift = index, drift
        response = recorded.get("response") or {}
        token = ((data.get("params") or {}).get("_meta") or {}).get("progressToken")
        out: list[tuple[dict[str, Any], object]] = []
        for message in response.get("messages") or []:
            if isinstance(message, dict):
                out.append((message, token))
        body = response.get("body")
        if isinstance(body, dict) and "result" in body:
            final: dict[str, Any] = {"id": data["id"], "result": body["result"]}
        elif isinstance(body, dict) and "error" in body:
            final = {"id": data["id"], "error": body["error"]}
        else:
            final = {"id": data["id"], "error": _NO_ANSWER_ERROR}
        out.append((final, None))
        self._release(out)

    def _release(self, messages: list[tuple[dict[str, Any], object]]) -> None:
        for i, (message, token) in enumerate(messages):
            if "result" in message or "error" in message:
                self._push(message)
                continue
            wire = {k: v for k, v in message.items() if k != "reply"}
            if wire.get("method") == "notifications/progress" and token is not None:
                wire["params"] = {**(wire.get("params") or {}), "progressToken": token}
            self._push(wire)
            if "id" in wire:  # a server request: the rest waits for the client's reply
                self._waiting_for = wire["id"]
                self._held = messages[i + 1 :]
                return

    def _push(self, message: dict[str, Any]) -> None:
        self.agentsnap_channel.received(message, scrubbed=True)
        if not self.closed:
            self._deliver_end.send_nowait(session_message(message))


def replay_streams(recording: RecordingState, server: Server, channel: Channel) -> tuple[Any, Any]:
    """``(read_stream, write_stream)`` for a session to ``server`` answered from the golden."""
    import anyio

    sessions = _sessions(recording)
    recorded = sessions.claim(server) if sessions is not None else None
    miss = None
    if recorded is None and sessions is not None and recording.block is None:
        miss = sessions.unmatched(server)
    if recorded is not None:
        channel.name = recorded.server if recorded.server != "mcp" else channel.name
    deliver, read = anyio.create_memory_object_stream[Any](math.inf)
    return read, ReplaySend(recording, channel, recorded, deliver, miss)
