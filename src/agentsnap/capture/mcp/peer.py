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
then the rest, then the answer under the live request's id. A request the
recorded session never answered because the server died ends the replayed
session there, so the client's SDK raises what it raised when recorded; one the
client gave up on (a timeout, a cancellation) gets no answer again, and the
session goes on. Everything served
is fed to the session's :class:`~.channel.Channel` like captured traffic, so
the new trace is built the same way.

Sessions are matched to recorded ones when they open: the recorded session of
the same server (:func:`~.servers.server_key`: command and arguments, or URL);
else, unless ``replay_strict``, the first free one of the same kind, else the
first free one, and the session's ``connect`` step then carries
``request_drift`` (how the transport differs), which fails the ``mcp`` check.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...exceptions import ReplayMissError
from .. import active
from ..cassette import Cassette, request_changes
from .channel import LISTINGS, Call, Channel
from .jsonrpc import as_dict, session_message
from .servers import Server, server_key
from .taps import foreign

if TYPE_CHECKING:
    from ..active import RecordingState

__all__ = ["Recorded", "RecordedSessions", "ReplaySend", "refuse_blocked", "replay_streams"]


def _check(step: Mapping[str, Any], path: object) -> None:
    """Raise :class:`~agentsnap.exceptions.SnapshotFormatError` when a recorded MCP step cannot
    be served: it names the file, the step's JSON path and the fix."""
    from ...exceptions import SnapshotFormatError
    from ...storage.schema import FIX

    at = f"$.trace[{step.get('step', '?')}]"
    exchange = step.get("exchange")
    problem = None
    if not isinstance(exchange, Mapping):
        problem = f"at {at}: an MCP {step.get('method') or 'tool call'} step without its exchange"
    else:
        request, response = exchange.get("request"), exchange.get("response")
        body = response.get("body") if isinstance(response, Mapping) else None
        if not isinstance(request, Mapping) or request.get("method") != "MCP":
            problem = f"at {at}.exchange.request: not an MCP request (method 'MCP', path, body)"
        elif not isinstance(response, Mapping) or (
            "body" not in response and "error" not in response
        ):
            problem = f"at {at}.exchange.response: neither a body nor an error"
        elif "body" in response and not (
            isinstance(body, Mapping)
            and (isinstance(body.get("result"), Mapping) or isinstance(body.get("error"), Mapping))
        ):
            problem = (
                f"at {at}.exchange.response.body: not {{'result': {{…}}}} or {{'error': {{…}}}}"
            )
    if problem is not None:
        raise SnapshotFormatError(f"agentsnap: {path} is not a valid snapshot: {problem}. {FIX}")


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
        #: its rank among the recorded sessions to the same server, in opening order
        opened = connect.get("opened")
        self.opened = opened if isinstance(opened, int) else 0
        self.claimed = False
        for step in steps:
            if step.get("method") != "connect":
                _check(step, path)
        served = [dict(s) for s in steps if isinstance(s.get("exchange"), Mapping)]
        #: the golden's step number of each recording, by its index in :attr:`cassette`
        self.step_numbers: list[int | None] = [s.get("step") for s in served]
        self.connect_step = connect.get("step")
        self.cassette = Cassette(
            served,
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
        self.strict = strict

    def claim(
        self, server: Server, strict: bool = False
    ) -> tuple[Recorded | None, list[str] | None]:
        """The recorded session a new session to ``server`` replays, and how its transport differs
        from the recorded one (None: the same server). A recorded session of the same server
        (:func:`~.servers.server_key`) first; else, unless ``strict``, the first free one of the
        same kind, else the first free one. ``(None, None)``: none is left."""
        free = sorted(
            (r for r in self.sessions if not r.claimed), key=lambda r: (r.opened, r.number)
        )
        key = server_key(server.described)
        found = next((r for r in free if server_key(r.transport) == key), None)
        drift = None
        if found is None and not strict:
            found = next((r for r in free if r.transport.get("kind") == server.kind), None) or (
                free[0] if free else None
            )
            if found is not None:
                drift = request_changes(dict(found.transport), dict(server.described)) or None
        if found is not None:
            found.claimed = True
        return found, drift

    def unmatched(self, server: Server) -> ReplayMissError:
        """The miss of a session no recorded one is left for (raised at its first request)."""
        from ..remedies import record_hint

        where = f"{self.name!r}" + (f" ({self.path})" if self.path else "")
        node = self.name if "::" in self.name else "THE_TEST"
        held = ", ".join(f"{r.server!r} ({_reached(r.transport)})" for r in self.sessions)
        if not self.sessions:
            why = (
                "it holds no MCP session: it was recorded before agentsnap captured MCP, or while the agent "
                "used no MCP server"
            )
        elif self.strict:
            why = (
                f"it holds {len(self.sessions)} MCP session(s) ({held}), none free for this server "
                "(replay_strict: a session replays only a recorded one of the same command and arguments, or URL)"
            )
        else:
            why = f"it holds {len(self.sessions)} MCP session(s) ({held}), all already replayed"
        return ReplayMissError(
            f"agentsnap replay miss: an MCP session to {server.label!r} ({server.kind}) has no recorded session "
            f"in snapshot {where}: {why}.\n  Fix: if the agent now uses this server, re-record with "
            f"{record_hint(self.name, f'`pytest {node} --agentsnap-record`')}, review the snapshot, commit it."
        )


def _reached(transport: Mapping[str, Any]) -> str:
    """How a recorded session reached its server, for messages: ``stdio, python server.py``."""
    target = transport.get("url") or " ".join(
        [str(transport.get("command", "")), *map(str, transport.get("args", []))]
    )
    return f"{transport.get('kind', '?')}, {target}"


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
        #: the server request waiting for the client's reply (as recorded, with its ``reply``),
        #: and the call it came in
        self._asked: dict[str, Any] = {}
        self._asked_in: Call | None = None
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
                self._compare_reply(data)
                held, self._held = self._held, []
                self._release(held, self._asked_in)

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
        current = active.current()
        if current is not None and current is not self._recording:  # a session of another test
            foreign(current, data, self._recording, id(self))
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
            again = self._recorded.cassette.again(request) if call.method in LISTINGS else None
            if again is None:
                self._fail(exc)
                return
            (index, recorded), drift = again, None  # a listing asked once more: the same answer
        call.replay_step = self._recorded.step_numbers[index]
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
        elif (response.get("error") or {}).get("type") == "Abandoned":
            final = {"abandoned": True}  # the client gave up on it when recorded: no answer, go on
        else:  # the recorded session ended before the answer (the server died): end this one too
            final = {"close": True}
        out.append((final, None))
        self._release(out, call)

    def _compare_reply(self, data: dict[str, Any]) -> None:
        """The client's reply to a replayed server request (a sampling answer, an elicitation):
        how it differs from the recorded one is the call's ``request_drift``."""
        from ...storage.scrub import scrub_value

        live = (
            {"result": scrub_value(data.get("result"))}
            if "result" in data
            else {"error": scrub_value(data.get("error"))}
        )
        recorded = self._asked.get("reply")
        call = self._asked_in
        if call is None or recorded is None or recorded == live:
            return
        what = f"reply to {self._asked.get('method')}"
        changes = [f"{what}.{change}" for change in request_changes(recorded, live)]
        call.request_drift = [*(call.request_drift or []), *changes]

    def _release(self, messages: list[tuple[dict[str, Any], object]], call: Call | None) -> None:
        for i, (message, token) in enumerate(messages):
            if message.get("close") is True:
                self.close()  # the client's SDK sees its connection end, as it did when recorded
                return
            if message.get("abandoned") is True:
                return
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
                self._asked, self._asked_in = message, call
                return

    def _push(self, message: dict[str, Any]) -> None:
        self.agentsnap_channel.received(message, scrubbed=True)
        if not self.closed:
            self._deliver_end.send_nowait(session_message(message))


def refuse_blocked(recording: RecordingState) -> None:
    """A session opening in a replay that serves nothing (CI without a usable snapshot, a
    missing one): raise the recording's ``block_error`` now, as an LLM call's first request
    would, before the mcp SDK starts the session's task group. Raised from a request instead,
    it reached the test inside anyio's ``ExceptionGroup`` ("unhandled errors in a TaskGroup"),
    agentsnap's message (the path, the command to run) buried in it."""
    if recording.block is not None:
        recording.blocked_calls += 1
        raise recording.block_error(recording.block)


def replay_streams(recording: RecordingState, server: Server, channel: Channel) -> tuple[Any, Any]:
    """``(read_stream, write_stream)`` for a session to ``server`` answered from the golden."""
    import anyio

    sessions = _sessions(recording)
    recorded, drift = (
        sessions.claim(server, sessions.strict) if sessions is not None else (None, None)
    )
    channel.connect_drift = drift
    miss = None
    if recorded is None and sessions is not None and recording.block is None:
        miss = sessions.unmatched(server)
    if recorded is not None:
        channel.name = recorded.server if recorded.server != "mcp" else channel.name
        channel.replay_session, channel.replay_connect_step = recorded.number, recorded.connect_step
        channel.replay_opened = recorded.opened
    deliver, read = anyio.create_memory_object_stream[Any](math.inf)
    return read, ReplaySend(recording, channel, recorded, deliver, miss)
