"""WebSocket connections as snapshot steps, placed in the trace.

Each connection becomes a ``websocket`` step (:meth:`~.frames.Connection.step`: its URL, the
handshake, every frame, the close; what replay serves) and, for an API :mod:`.turns` reads,
one ``llm_call`` step per model turn (carrying ``connection``, no ``exchange``), from which
tool calls are derived as for HTTP calls. The trace orders the turns among the HTTP calls by
the time their first message was sent; :func:`with_connection_steps` puts each ``websocket``
step just before the first turn of its connection (or after every other step, when it had
none).

Connections are numbered (``connection``) in the order they were opened; in replay, as the
golden numbered the connections they replayed.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ...storage.wire import Exchange
from .frames import Connection
from .turns import api_of, turns

__all__ = ["connection_steps", "with_connection_steps"]


def _numbered(connections: list[Connection]) -> list[Connection]:
    if connections and all(c.replay_connection is not None for c in connections):
        return sorted(connections, key=lambda c: (c.replay_connection, c.seq))
    return sorted(connections, key=lambda c: c.seq)


def connection_steps(connections: list[Connection]) -> tuple[list[dict[str, Any]], list[Exchange]]:
    """The ``websocket`` steps of ``connections`` and their turns as exchanges for the trace
    (each with ``connection`` set; its codec makes the ``llm_call`` step)."""
    sockets: list[dict[str, Any]] = []
    exchanges: list[Exchange] = []
    for number, connection in enumerate(_numbered(connections)):
        messages, values, seqs = connection.snapshot()
        url = str(connection.described.get("url") or "")
        api = api_of(connection.path, messages, values)
        sockets.append(connection.step(number, api))
        for turn in turns(api, messages, urlsplit(url).query, values):
            exchanges.append(
                Exchange(
                    provider=turn.provider,
                    codec=turn.codec,
                    request=turn.request,
                    response=turn.response,
                    seq=seqs[turn.first] if turn.first < len(seqs) else connection.seq,
                    started=connection.started + turn.started,
                    ended=connection.started + turn.ended,
                    connection=number,
                )
            )
    return sockets, exchanges


def with_connection_steps(
    steps: list[dict[str, Any]], sockets: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """``steps`` with each ``websocket`` step before the first step of its connection."""
    out = list(steps)
    for socket_step in sockets:
        number = socket_step["connection"]
        at = next(
            (
                i
                for i, s in enumerate(out)
                if s.get("connection") == number and s.get("type") != "websocket"
            ),
            None,
        )
        if at is None:
            out.append(socket_step)
        else:
            out.insert(at, socket_step)
    return out
