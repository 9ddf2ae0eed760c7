"""One MCP session as agentsnap records it: its requests, each with what came back.

A :class:`Channel` is fed the JSON-RPC messages of one session as plain dicts,
in the order they pass (:meth:`Channel.sent` for the client's, :meth:`Channel.received`
for the server's). It keeps one :class:`Call` per outgoing request:

* ``method`` and ``params``, normalised: the JSON-RPC ``id`` is not kept (the
  client mints it), nor ``params._meta`` (progress token, protocol stamps of the
  stateless revision), so the same request records the same way every run;
* the ``result`` or ``error`` the server answered (a tool that failed answers a
  *result* with ``isError: true``: kept as it is); the opaque ``requestState`` of
  an input-required result (2026-07-28: input requests inside results, and the
  client's retry that answers them) under a stable name;
* the server's ``messages`` that arrived while the request was pending:
  notifications (progress, logging, list changed) and server-initiated requests
  (sampling, elicitation, roots) with the client's ``reply``.

A server message that arrives while no request is pending is kept with the
request sent next (replay releases it then). The client's own notifications
(``notifications/initialized``, cancellations) need no answer and are not kept.
The stored form of a call is an exchange (:meth:`Call.exchange`): request
``{"method": "MCP", "path": <JSON-RPC method>, "body": params}``, response
``{"body": {"result": …} | {"body": {"error": …}}`` plus ``messages``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ...storage.scrub import scrub_value
from ...storage.wire import next_seq
from .servers import Server

__all__ = [
    "ABANDONED",
    "LISTINGS",
    "NO_ANSWER",
    "Call",
    "Channel",
    "normalised_params",
    "server_name",
]

#: idempotent reads an SDK repeats a varying number of times (mcp re-lists the tools to check a
#: result's schema): a session's repeat of an identical one is not stored, and replay serves
#: the same answer again
LISTINGS = frozenset(
    ("tools/list", "prompts/list", "resources/list", "resources/templates/list", "ping")
)

#: stored for a request the server never answered because the session ended on its side (it
#: died): replay ends the session there
NO_ANSWER = {"type": "NoAnswer", "message": "the session ended before the server answered"}
#: stored for a request the client gave up on (a timeout, a cancellation) or closed the session
#: with: replay does not answer it, and the session goes on
ABANDONED = {
    "type": "Abandoned",
    "message": "the client stopped waiting before the server answered",
}


def normalised_params(params: object) -> Any:
    """``params`` as stored and matched: without ``_meta``, scrubbed."""
    if isinstance(params, dict):
        params = {k: v for k, v in params.items() if k != "_meta"}
    return scrub_value(params)


def _as_is(value: object) -> Any:
    return value


def _key(request_id: object) -> str:
    return str(request_id)


@dataclass
class Call:
    """One outgoing request of a session and what the server sent until it answered."""

    method: str
    params: Any
    started: float
    seq: int
    ended: float | None = None
    result: Any = None
    error: Any = None
    #: the server's notifications and requests while this one was pending, in order
    messages: list[dict[str, Any]] = field(default_factory=list)
    #: replay: the position of the recording served (None: captured live)
    replay_index: int | None = None
    #: replay: JSON paths where the request differs from the recording served in its place
    request_drift: list[str] | None = None
    #: replay: the golden's step number of the recording served (the trace keeps the golden's order)
    replay_step: int | None = None

    @property
    def answered(self) -> bool:
        return self.result is not None or self.error is not None

    def exchange(self) -> dict[str, Any]:
        """The stored exchange: what replay serves for this request."""
        request: dict[str, Any] = {"method": "MCP", "path": self.method}
        if self.params is not None:
            request["body"] = self.params
        response: dict[str, Any]
        if self.error == "abandoned":
            response = {"error": ABANDONED}
        elif self.error is not None and not isinstance(self.error, dict):
            response = {"error": NO_ANSWER}
        elif self.error is not None:
            response = {"body": {"error": self.error}}
        elif self.result is not None:
            response = {"body": {"result": self.result}}
        else:
            response = {"error": NO_ANSWER}
        if self.messages:
            response["messages"] = self.messages
        return {"request": request, "response": response}


def server_name(result: object) -> str | None:
    """``serverInfo.name`` of an ``initialize`` (or ``server/discover``) result, if it says one."""
    if not isinstance(result, dict):
        return None
    meta = result.get("_meta")
    for holder in (result, meta if isinstance(meta, dict) else {}):
        for key, info in holder.items():
            if key.rsplit("/", 1)[-1] == "serverInfo" and isinstance(info, dict):
                name = info.get("name")
                if isinstance(name, str) and name.strip():
                    return name.strip()
    return None


class Channel:
    """The record of one MCP session (thread-safe: messages may pass on two tasks)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        #: what the server calls itself (``serverInfo.name``), once it said
        self.name: str | None = None
        #: replay: how this session's transport differs from the recorded session it replays
        self.connect_drift: list[str] | None = None
        #: replay: the recorded session's number and its connect step's number in the golden
        self.replay_session: int | None = None
        self.replay_connect_step: int | None = None
        #: replay: the recorded session's ``opened`` (its rank among sessions to one server)
        self.replay_opened: int = 0
        self.calls: list[Call] = []
        self.seq = next_seq()
        self.started = time.monotonic()
        self._pending: dict[str, Call] = {}
        #: server requests waiting for the client's reply: id -> the stored message
        self._asked: dict[str, dict[str, Any]] = {}
        #: server messages that came while nothing was pending (kept with the next request)
        self._early: list[dict[str, Any]] = []
        #: the opaque ``requestState`` values the server minted (2026-07-28: an input-required
        #: result, echoed by the retry) -> the stable name stored in their place
        self._states: dict[str, str] = {}
        self._lock = threading.Lock()

    @property
    def label(self) -> str:
        """The server's name in step names: ``serverInfo.name``, else the transport's label."""
        return self.name or self.server.label

    # -- client -> server ------------------------------------------------------------------
    def sent(self, message: dict[str, Any]) -> Call | None:
        """A message the client sent; returns the :class:`Call` a request opened."""
        method = message.get("method")
        with self._lock:
            if isinstance(method, str) and "id" in message:
                call = Call(
                    method=method,
                    params=self._named_state(normalised_params(message.get("params"))),
                    started=time.monotonic(),
                    seq=next_seq(),
                    messages=self._early,
                )
                self._early = []
                self.calls.append(call)
                self._pending[_key(message["id"])] = call
                return call
            if method == "notifications/cancelled":  # the client gave up on a request
                params = message.get("params") or {}
                gave_up = self._pending.pop(_key(params.get("requestId")), None)
                if gave_up is not None:
                    gave_up.ended, gave_up.error = time.monotonic(), "abandoned"
                return None
            if method is None and "id" in message:  # the client's reply to a server request
                asked = self._asked.pop(_key(message["id"]), None)
                if asked is not None:
                    reply = message.get("result") if "result" in message else None
                    asked["reply"] = (
                        {"result": scrub_value(reply)}
                        if "result" in message
                        else {"error": scrub_value(message.get("error"))}
                    )
        return None

    # -- server -> client ------------------------------------------------------------------
    def received(self, message: dict[str, Any], *, scrubbed: bool = False) -> None:
        """A message the server sent (``scrubbed``: it comes from a golden, scrubbed already)."""
        clean = _as_is if scrubbed else scrub_value
        method = message.get("method")
        with self._lock:
            if method is None and "id" in message:  # the answer to one of our requests
                call = self._pending.pop(_key(message["id"]), None)
                if call is None:
                    return
                call.ended = time.monotonic()
                if "error" in message:
                    call.error = clean(message.get("error") or {})
                else:
                    call.result = self._named_state(clean(message.get("result") or {}), mint=True)
                    if call.method in ("initialize", "server/discover") and self.name is None:
                        self.name = server_name(call.result)
                return
            stored: dict[str, Any] = {"method": method}
            if message.get("params") is not None:
                params = message["params"]
                stored["params"] = (
                    {k: v for k, v in params.items() if k != "_meta"}
                    if scrubbed and isinstance(params, dict)
                    else normalised_params(params)
                )
            if (
                "id" in message
            ):  # a server request (sampling, elicitation, roots): the reply follows
                stored["id"] = message["id"]
                self._asked[_key(message["id"])] = stored
            holder = self._latest_pending()
            (holder.messages if holder is not None else self._early).append(stored)

    def _named_state(self, value: Any, *, mint: bool = False) -> Any:
        """``value`` with a server-minted ``requestState`` (random, signed: it differs every run)
        stored under a stable name, ``request-state-N``; the retry that echoes it is stored with
        the same name, so replay serves the name and matches the echo."""
        state = value.get("requestState") if isinstance(value, dict) else None
        if not isinstance(state, str) or not (mint or state in self._states):
            return value
        named = self._states.setdefault(state, f"request-state-{len(self._states) + 1}")
        return {**value, "requestState": named}

    def _latest_pending(self) -> Call | None:
        return max(self._pending.values(), key=lambda c: c.seq, default=None)

    def close(self, *, by_server: bool) -> None:
        """The session ended: requests still pending are recorded as never answered —
        ``by_server``: its end of the stream closed (it died), else the client closed it (it had
        given up on them, as on a timeout)."""
        with self._lock:
            now = time.monotonic()
            for call in self._pending.values():
                call.ended = now
                call.error = "no answer" if by_server else "abandoned"
            self._pending.clear()
